/**
 * The watch cache of one resource (upstream's `watchCache`, k8s.io/apiserver/pkg/storage/cacher/
 * watch_cache.go): the current objects, decoded once and deep-frozen, shared by every list, get and
 * watcher; and the most recent changes ({@link EventWindow}, sized as upstream sizes its buffer), from
 * which a watch resumes at a resourceVersion. A watch from before the window gets 410 Expired, as
 * from upstream's cacher; storage is never asked for older history.
 *
 * The cache is fed by {@link CacheFeed} (one storage watch for all resources) through
 * {@link WatchCache.apply}, which updates the objects and hands the change to every registered watcher
 * synchronously, so a watcher registered in the same synchronous step as a snapshot or a replay sees
 * every later change exactly once.
 */
import type { KubeObject } from '../../api/index.js';
import type { KeyValue, WatchEvent as StorageEvent } from '../../storage/interface.js';
import { deepFreeze } from '../../machinery/meta/index.js';
import type { Clock } from '../../util/clock/index.js';
import type { CacheEvent, CacheWatcher } from './cache-watcher.js';
import { EventWindow, type EventWindowSizing } from './event-window.js';

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
  private readonly window: EventWindow;
  /** The revision of the listing that primed the cache; changes at or below it are already in `objects`. */
  private primedAt = 0;
  private readonly watchers = new Set<CacheWatcher>();

  /**
   * @param prefix the resource's key prefix, ending in `/`
   * @param observed the revision up to which the feed has delivered every change (all resources)
   * @param clock times the changes, for sizing the event window
   * @param sizing bounds of the event window (default: upstream's)
   */
  constructor(
    readonly prefix: string,
    private readonly observed: () => number,
    clock: Clock,
    sizing: EventWindowSizing = {},
  ) {
    this.window = new EventWindow(clock, sizing);
  }

  /** Loads the objects listed at `revision`. */
  prime(kvs: readonly KeyValue[], revision: number): void {
    for (const kv of kvs) this.objects.set(kv.key, decodeObject(kv));
    this.sortedKeys = undefined;
    this.primedAt = revision;
    this.window.reset(revision);
  }

  /** The revision this cache is current at: every change up to it has been applied. */
  get revision(): number {
    return Math.max(this.primedAt, this.observed());
  }

  /** The oldest revision a watch can resume from (older ones get 410 Expired). */
  get oldestResumableRevision(): number {
    return this.window.oldestResumableRevision;
  }

  /** The event window's current capacity, in events (for tests and metrics). */
  get eventWindowCapacity(): number {
    return this.window.capacity;
  }

  /** Drops the buffered changes at or below `revision`, which storage has compacted. */
  compact(revision: number): void {
    this.window.compact(revision);
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
   * the window (`rv` < {@link oldestResumableRevision}).
   */
  eventsAfter(rv: number): CacheEvent[] | undefined {
    return this.window.eventsAfter(rv);
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
    this.window.push(ev);
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

  private keys(): string[] {
    if (!this.sortedKeys) this.sortedKeys = [...this.objects.keys()].sort();
    return this.sortedKeys;
  }
}
