/**
 * The PV controller's view of volumes: its own cache (informer events plus its own writes, never
 * older than what it wrote) and the best-match search by access-mode groups. kubeplane's
 * pkg/controller/volume/persistentvolume/index.go (persistentVolumeOrderedIndex,
 * findByClaim/findBestMatchForClaim, allPossibleMatchingAccessModes) and pv_controller_base.go
 * (storeObjectUpdate).
 */
import type { PersistentVolume, PersistentVolumeClaim } from '../../../api/index.js';
import { findMatchingVolume } from '../../../machinery/volume/index.js';

interface Versioned {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
}

function rv(o: Versioned): bigint | undefined {
  const s = o.metadata?.resourceVersion;
  if (!s || !/^\d+$/.test(s)) return undefined;
  return BigInt(s);
}

/**
 * `storeObjectUpdate`'s store: objects by key; an update older (by resourceVersion) than the stored
 * object is refused, so an informer event that lags one of the controller's own writes does not
 * overwrite it.
 */
export class VersionedStore<T extends Versioned> {
  private readonly objects = new Map<string, T>();

  constructor(private readonly keyOf: (o: T) => string) {}

  /** Stores `obj` unless the stored one is newer; returns whether it was stored (equal versions are). */
  update(obj: T): boolean {
    const key = this.keyOf(obj);
    const old = this.objects.get(key);
    if (old) {
      const a = rv(old);
      const b = rv(obj);
      if (a !== undefined && b !== undefined && a > b) return false;
    }
    this.objects.set(key, obj);
    return true;
  }

  get(key: string): T | undefined {
    return this.objects.get(key);
  }

  delete(key: string): void {
    this.objects.delete(key);
  }

  list(): T[] {
    return [...this.objects.values()];
  }
}

/** The access modes of a volume as a set key (`ReadOnlyMany,ReadWriteOnce`). */
function modesKey(modes: readonly string[] | undefined): string {
  return [...new Set(modes ?? [])].sort().join(',');
}

/**
 * `findBestMatchForClaim` (index.go `findByClaim`): the volumes are grouped by their access-mode
 * sets; the groups offering every mode the claim asks for are tried from the fewest modes up, and the
 * first group with a match (findMatchingVolume: pre-bound first, else the smallest that fits) wins.
 * So a RWO claim takes a RWO volume before a RWO+RWX one, whatever their sizes.
 * @throws Error from findMatchingVolume (malformed selector).
 */
export function findBestMatchForClaim(volumes: readonly PersistentVolume[], claim: PersistentVolumeClaim, delayBinding: boolean): PersistentVolume | undefined {
  const wanted = claim.spec?.accessModes ?? [];
  const groups = new Map<string, PersistentVolume[]>();
  for (const v of volumes) {
    const key = modesKey(v.spec?.accessModes);
    const g = groups.get(key);
    if (g) g.push(v);
    else groups.set(key, [v]);
  }
  const candidates = [...groups.entries()]
    .map(([key, vols]) => ({ modes: key === '' ? [] : key.split(','), vols }))
    .filter((g) => wanted.every((m) => g.modes.includes(m)))
    // allPossibleMatchingAccessModes sorts by the number of modes (byAccessModes); ties by key for determinism.
    .sort((a, b) => a.modes.length - b.modes.length || (a.modes.join(',') < b.modes.join(',') ? -1 : 1));
  for (const g of candidates) {
    const match = findMatchingVolume(claim, g.vols, undefined, undefined, delayBinding);
    if (match) return match;
  }
  return undefined;
}
