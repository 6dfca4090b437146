/**
 * The watch cache of one resource (upstream's `watchCache`, k8s.io/apiserver/pkg/storage/cacher/
 * watch_cache.go): the current objects, decoded once and deep-frozen, shared by every list, get and
 * watcher; and a ring buffer of the most recent changes, from which a watch resumes at a
 * resourceVersion without touching storage.
 *
 * The cache is fed by {@link CacheFeed} (one storage watch for all resources) through
 * {@link WatchCache.apply}, which updates the objects and hands the change to every registered watcher
 * synchronously, so a watcher registered in the same synchronous step as a snapshot or a replay sees
 * every later change exactly once.
 */
import type { KubeObject } from '../../api/index.js';
import type { KeyValue, WatchEvent as StorageEvent } from '../../storage/interface.js';
import { deepFreeze } from '../../machinery/meta/index.js';
import type { CacheEvent, CacheWatcher } from './cache-watcher.js';

/** Decodes a stored value into a frozen object whose `metadata.resourceVersion` is `kv.modRevision`. */
export function decodeObject(kv: KeyValue): KubeObject {
  const obj = JSON.parse(kv.value) as KubeObject;
  obj.metadata = { ...obj.metadata, resourceVersion: String(kv.modRevision) };
  return deepFreeze(obj);
}

/** The current objects and recent changes under one resource prefix, e.g. `/registry/apps/deployments/`. */
export class WatchCache {
  private readonly objects = new Map<string, KubeObject>();
  /** The keys of `objects`, sorted; rebuilt lazily after a create or delete. */
  private sortedKeys: string[] | undefined;
  private readonly ring: (CacheEvent | undefined)[];
  private head = 0;
  private size = 0;
  /** Every change with revision above this one is in the ring. */
  private windowStart = 0;
  /** The revision of the listing that primed the cache; changes at or below it are already in `objects`. */
  private primedAt = 0;
  private readonly watchers = new Set<CacheWatcher>();

  /**
   * @param prefix the resource's key prefix, ending in `/`
   * @param capacity how many recent changes the ring keeps
   * @param observed the revision up to which the feed has delivered every change (all resources)
   */
  constructor(
    readonly prefix: string,
    capacity: number,
    private readonly observed: () => number,
  ) {
    this.ring = new Array<CacheEvent | undefined>(Math.max(1, capacity));
  }

  /** Loads the objects listed at `revision`. */
  prime(kvs: readonly KeyValue[], revision: number): void {
    for (const kv of kvs) this.objects.set(kv.key, decodeObject(kv));
    this.sortedKeys = undefined;
    this.primedAt = revision;
    this.windowStart = revision;
  }

  /** The revision this cache is current at: every change up to it has been applied. */
  get revision(): number {
    return Math.max(this.primedAt, this.observed());
  }

  /** The oldest revision a watch can resume from out of the ring (older ones need storage). */
  get oldestResumableRevision(): number {
    return this.windowStart;
  }

  /** Number of cached objects under `prefix` (the whole resource by default). */
  count(prefix = this.prefix): number {
    if (prefix === this.prefix) return this.objects.size;
    let n = 0;
    for (const entry of this.entries(prefix)) if (entry) n++;
    return n;
  }

  /** The current object at `key`. */
  get(key: string): KubeObject | undefined {
    return this.objects.get(key);
  }

  /** Current `[key, object]` pairs under `prefix`, in key order. */
  *entries(prefix: string): Generator<[string, KubeObject]> {
    const keys = this.keys();
    // Binary search for the first key >= prefix; keys under the prefix are contiguous from there.
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((keys[mid] as string) < prefix) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < keys.length; i++) {
      const key = keys[i] as string;
      if (!key.startsWith(prefix)) return;
      const obj = this.objects.get(key);
      if (obj) yield [key, obj];
    }
  }

  /**
   * The buffered changes with revision > `rv`, in order; undefined when some of them have already left
   * the ring (`rv` < {@link oldestResumableRevision}).
   */
  eventsAfter(rv: number): CacheEvent[] | undefined {
    if (rv < this.windowStart) return undefined;
    const cap = this.ring.length;
    // Binary search over the logical ring positions for the first event with revision > rv.
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.ring[(this.head + mid) % cap] as CacheEvent).rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    const out: CacheEvent[] = [];
    for (let i = lo; i < this.size; i++) out.push(this.ring[(this.head + i) % cap] as CacheEvent);
    return out;
  }

  /** Applies one storage change and offers it to every watcher. */
  apply(sev: StorageEvent): void {
    const { kv } = sev;
    if (kv.modRevision <= this.primedAt) return;
    const prev = this.objects.get(kv.key);
    const object = decodeObject(kv);
    let ev: CacheEvent;
    if (sev.type === 'delete') {
      this.objects.delete(kv.key);
      this.sortedKeys = undefined;
      ev = { type: 'DELETED', key: kv.key, object, rv: kv.modRevision };
      ev.prevObject = prev ?? object;
    } else {
      if (!prev) this.sortedKeys = undefined;
      this.objects.set(kv.key, object);
      ev = { type: prev ? 'MODIFIED' : 'ADDED', key: kv.key, object, rv: kv.modRevision };
      if (prev) ev.prevObject = prev;
    }
    this.push(ev);
    for (const w of this.watchers) w.offer(ev);
  }

  /** Registers a watcher for every change applied from now on. */
  addWatcher(w: CacheWatcher): void {
    this.watchers.add(w);
  }

  removeWatcher(w: CacheWatcher): void {
    this.watchers.delete(w);
  }

  /** Ends every watcher (server shutting down). */
  closeWatchers(): void {
    for (const w of [...this.watchers]) w.close();
  }

  private push(ev: CacheEvent): void {
    const cap = this.ring.length;
    if (this.size === cap) {
      this.windowStart = (this.ring[this.head] as CacheEvent).rv;
      this.ring[this.head] = ev;
      this.head = (this.head + 1) % cap;
    } else {
      this.ring[(this.head + this.size) % cap] = ev;
      this.size++;
    }
  }

  private keys(): string[] {
    if (!this.sortedKeys) this.sortedKeys = [...this.objects.keys()].sort();
    return this.sortedKeys;
  }
}
