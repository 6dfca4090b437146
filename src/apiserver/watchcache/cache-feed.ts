/**
 * Feeds every {@link WatchCache} from ONE storage watch on `/registry/`, the way upstream's cacher
 * runs one reflector per resource (k8s.io/apiserver/pkg/storage/cacher/cacher.go). One watch for all
 * resources rather than one per resource prefix, because it is also the freshness clock: after it has
 * delivered revision R, every cache holds every change up to R, whatever resource R changed. That is
 * what a consistent read needs (upstream's "consistent reads from cache", KEP-2340, waits for the
 * cache to reach etcd's current revision by a progress notification; in one process the feed's own
 * stream is that notification).
 */
import type { KubeObject } from '../../api/index.js';
import type { Backend, WatchHandle, WatchEvent as StorageEvent } from '../../storage/interface.js';
import type { Clock } from '../../util/clock/index.js';
import type { EventWindowSizing } from './event-window.js';
import { WatchCache } from './watch-cache.js';

/** The key prefix all resources live under. */
export const REGISTRY_PREFIX = '/registry/';

/** The resource prefix of a key: `/registry/apps/deployments/default/web` → `/registry/apps/deployments/`. */
function resourcePrefixOf(key: string): string | undefined {
  const groupEnd = key.indexOf('/', REGISTRY_PREFIX.length);
  if (groupEnd < 0) return undefined;
  const resourceEnd = key.indexOf('/', groupEnd + 1);
  return resourceEnd < 0 ? undefined : key.slice(0, resourceEnd + 1);
}

interface Waiter {
  rv: number;
  resolve: () => void;
}

/** The set of watch caches of one API server and the storage watch that feeds them. */
export class CacheFeed {
  private readonly caches = new Map<string, WatchCache>();
  /** Changes delivered for prefixes whose cache {@link addLiveCache} is listing, to replay after the listing. */
  private readonly pending = new Map<string, StorageEvent[]>();
  private handle: WatchHandle | undefined;
  private observed = 0;
  private waiters: Waiter[] = [];

  /**
   * @param clock times the changes, for sizing each cache's event window
   * @param sizing bounds of each cache's event window (recent changes a watch can resume from)
   */
  constructor(
    private readonly backend: Backend,
    private readonly clock: Clock,
    private readonly sizing: EventWindowSizing = {},
  ) {}

  /**
   * The cache of a resource prefix, created before {@link start} (resources stored under one prefix
   * in several versions share it).
   */
  addCache(prefix: string, rootType?: string, onRead?: (obj: KubeObject) => void): WatchCache {
    const existing = this.caches.get(prefix);
    if (existing) return existing;
    const cache = new WatchCache(prefix, () => this.observed, this.clock, this.sizing, rootType, onRead);
    this.caches.set(prefix, cache);
    return cache;
  }

  /**
   * The cache of a resource prefix added while the feed runs (a resource registered at run time):
   * the prefix is listed, and the changes the feed delivers meanwhile are kept and replayed on top of
   * the listing (those at or below its revision are already in it), so none is missed or applied twice.
   * @throws what the backend's list throws
   */
  async addLiveCache(prefix: string, rootType?: string, onRead?: (obj: KubeObject) => void): Promise<WatchCache> {
    const existing = this.caches.get(prefix);
    if (existing) return existing;
    const cache = new WatchCache(prefix, () => this.observed, this.clock, this.sizing, rootType, onRead);
    const pending: StorageEvent[] = [];
    this.pending.set(prefix, pending);
    try {
      const res = await this.backend.list(prefix);
      cache.prime(res.kvs, res.revision);
      for (const ev of pending) cache.apply(ev);
    } finally {
      this.pending.delete(prefix);
    }
    const raced = this.caches.get(prefix);
    if (raced) return raced;
    this.caches.set(prefix, cache);
    return cache;
  }

  /** Drops the cache of a prefix no longer served, ending its watchers. */
  removeCache(prefix: string): void {
    this.caches.get(prefix)?.closeWatchers();
    this.caches.delete(prefix);
  }

  /** Lists every resource into its cache, then starts the storage watch after the oldest listing. */
  async start(): Promise<void> {
    let from = Infinity;
    for (const [prefix, cache] of this.caches) {
      const res = await this.backend.list(prefix);
      cache.prime(res.kvs, res.revision);
      from = Math.min(from, res.revision);
    }
    if (from === Infinity) from = this.backend.currentRevision();
    this.observed = from;
    this.handle = this.backend.watch(REGISTRY_PREFIX, from, (events) => this.onEvents(events));
  }

  /** The revision up to which every change has been applied to the caches. */
  get observedRevision(): number {
    return this.observed;
  }

  /**
   * Resolves once every change up to `rv` has been applied. The Backend contract guarantees every
   * committed change is delivered, so no timeout is needed for revisions storage already has.
   */
  waitUntilFresh(rv: number): Promise<void> {
    if (this.observed >= rv) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ rv, resolve }));
  }

  /**
   * Tells every cache that storage compacted its history up to `revision`: the caches drop their
   * changes at or below it, so watches from before it get 410 Expired as storage would answer.
   */
  compacted(revision: number): void {
    for (const cache of this.caches.values()) cache.compact(revision);
  }

  /** Stops the storage watch and ends every watcher. */
  stop(): void {
    this.handle?.stop();
    this.handle = undefined;
    for (const cache of this.caches.values()) cache.closeWatchers();
  }

  private onEvents(events: StorageEvent[]): void {
    for (const ev of events) {
      const prefix = resourcePrefixOf(ev.kv.key);
      if (prefix !== undefined) {
        this.caches.get(prefix)?.apply(ev);
        if (this.pending.size > 0) this.pending.get(prefix)?.push(ev);
      }
      this.observed = ev.kv.modRevision;
    }
    if (this.waiters.length === 0) return;
    const ready = this.waiters.filter((w) => w.rv <= this.observed);
    if (ready.length === 0) return;
    this.waiters = this.waiters.filter((w) => w.rv > this.observed);
    for (const w of ready) w.resolve();
  }
}
