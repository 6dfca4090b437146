/**
 * An informer's objects overlaid with the scheduler's in-memory "assumed" versions of some of them:
 * VolumeBinding's Reserve assumes a PV pre-bound to a claim, or a PVC annotated with its selected node,
 * so the next pods' cycles see the decision before the API writes of PreBind land.
 *
 * Follows upstream pkg/scheduler/util/assumecache/assume_cache.go (and volumebinding's
 * PVAssumeCache/PVCAssumeCache): `get` is the assumed object, unless the informer has since delivered a
 * newer version (a higher resourceVersion) — then the informer's wins and the assumption is dropped;
 * `getAPIObj` is always the informer's; `assume` refuses an object older than what is stored;
 * `restore` drops the assumption. Kept lazily: no handler, the informer's indexer is read on demand.
 */
import type { Indexer, MetaObject } from '../../../informers/index.js';
import { metaNamespaceKey } from '../../../machinery/meta/index.js';

/** The resourceVersion as a number (kubeplane's are storage revisions), -1 when absent or malformed. */
function versionOf(obj: MetaObject): number {
  const rv = Number(obj.metadata?.resourceVersion ?? '');
  return Number.isFinite(rv) && obj.metadata?.resourceVersion ? rv : -1;
}

/** Upstream `storage.APIObjectVersioner.CompareResourceVersion`: sign of rv(a) − rv(b). */
export function compareResourceVersion(a: MetaObject, b: MetaObject): number {
  return Math.sign(versionOf(a) - versionOf(b));
}

export class AssumeCache<T extends MetaObject> {
  private readonly assumed = new Map<string, T>();

  /**
   * @param indexer the informer's cache; keys are `namespace/name` (`name` for cluster-scoped objects)
   * @param description for errors, e.g. `PersistentVolume`
   */
  constructor(
    private readonly indexer: Indexer<T>,
    private readonly description: string,
  ) {}

  /** The latest object under `key`: the assumed one unless the informer has a newer one. */
  get(key: string): T | undefined {
    const api = this.indexer.getByKey(key);
    const mine = this.assumed.get(key);
    if (!mine) return api;
    if (!api || compareResourceVersion(api, mine) > 0) {
      // Deleted, or the API has moved on: the assumption is obsolete (upstream replaces latestObj).
      this.assumed.delete(key);
      return api;
    }
    return mine;
  }

  /** The informer's object under `key`, ignoring assumptions. */
  getAPIObj(key: string): T | undefined {
    return this.indexer.getByKey(key);
  }

  /** {@link get} for every object of an index value (e.g. PVs of a storage class). */
  byIndex(indexName: string, value: string): T[] {
    return this.indexer.byIndex(indexName, value).map((api) => {
      const key = metaNamespaceKey(api);
      return this.assumed.has(key) ? (this.get(key) ?? api) : api;
    });
  }

  /**
   * Records `obj` as the latest version of its object (a copy the caller built and will not change).
   * @throws Error when the object is not in the informer's cache, or `obj` is older than the stored one
   *   (`PersistentVolume "pv-1" is out of sync (stored: 12, assume: 10)`).
   */
  assume(obj: T): void {
    const key = metaNamespaceKey(obj);
    const stored = this.get(key);
    if (!stored) throw new Error(`${this.description} ${JSON.stringify(key)} not found`);
    if (versionOf(obj) < versionOf(stored)) {
      throw new Error(`${this.description} ${JSON.stringify(key)} is out of sync (stored: ${versionOf(stored)}, assume: ${versionOf(obj)})`);
    }
    this.assumed.set(key, obj);
  }

  /** Drops the assumption under `key` (no-op without one). */
  restore(key: string): void {
    this.assumed.delete(key);
  }
}
