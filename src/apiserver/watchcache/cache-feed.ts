/**
 * Feeds every {@link WatchCache} from ONE storage watch on `/registry/`, the way upstream's cacher
 * runs one reflector per resource (k8s.io/apiserver/pkg/storage/cacher/cacher.go). One watch for all
 * resources rather than one per resource prefix, because it is also the freshness clock: after it has
 * delivered revision R, every cache holds every change up to R, whatever resource R changed. That is
 * what a consistent read needs (upstream's "consistent reads from cache", KEP-2340, waits for the
 * cache to reach etcd's current revision by a progress notification; the feed asks its storage
 * watch for one when a revision it waits for has not arrived as a change, which happens when the store
 * is shared and the revision changed nothing under `/registry/`).
 *
 * When the storage watch ends on its own (etcd compacted history it had not delivered, after a long
 * disconnection), every cache is listed again and replaced, and the watch restarts after the listing,
 * as upstream's reflector relists; a failed relisting is tried again after {@link RELIST_RETRY_MS}.
 */
import type { KubeObject } from '../../api/index.js';
import type { Backend, KeyValue, WatchHandle, WatchEvent as StorageEvent } from '../../storage/interface.js';
import type { Clock, Timer } from '../../util/clock/index.js';
import type { EventWindowSizing } from './event-window.js';
import { WatchCache } from './watch-cache.js';

/** Delay before a failed relisting (see the module comment) is tried again, in milliseconds. */
export const RELIST_RETRY_MS = 1_000;

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
  /** A progress notification was asked for and has not come yet. */
  private progressAsked = false;
  private stopped = false;
  private relistTimer: Timer | undefined;

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
    await this.listAndWatch((cache, res) => cache.prime(res.kvs, res.revision));
  }

  /**
   * Lists every cache's prefix and hands each listing to `load`, then watches from the oldest
   * listing's revision.
   */
  private async listAndWatch(load: (cache: WatchCache, res: { kvs: readonly KeyValue[]; revision: number }) => void): Promise<void> {
    let from = Infinity;
    for (const [prefix, cache] of this.caches) {
      const res = await this.backend.list(prefix);
      load(cache, res);
      from = Math.min(from, res.revision);
    }
    if (from === Infinity) from = this.backend.currentRevision();
    if (this.stopped) return;
    this.advance(from);
    this.progressAsked = false;
    this.handle = this.backend.watch(REGISTRY_PREFIX, from, (events) => this.onEvents(events), {
      onProgress: (revision) => {
        this.progressAsked = false;
        this.advance(revision);
      },
      onError: () => {
        this.handle = undefined;
        this.relist();
      },
    });
  }

  /** Replaces every cache from a new listing and watches again (see the module comment). */
  private relist(): void {
    if (this.stopped) return;
    this.listAndWatch((cache, res) => cache.replace(res.kvs, res.revision)).catch(() => {
      if (this.stopped) return;
      this.relistTimer = this.clock.setTimer(RELIST_RETRY_MS, () => this.relist());
    });
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
    const waiting = new Promise<void>((resolve) => this.waiters.push({ rv, resolve }));
    this.askProgress();
    return waiting;
  }

  /** Asks the storage watch for a progress notification, unless one is already on its way. */
  private askProgress(): void {
    if (this.progressAsked || !this.handle) return;
    this.progressAsked = true;
    this.handle.requestProgress();
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
    this.stopped = true;
    this.relistTimer?.stop();
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
      this.advance(ev.kv.modRevision);
    }
    // A progress answer can fall short of a waiter (the store moved on meanwhile); ask again now that
    // the watch moved, never from the answer itself, which an in-process store gives in a microtask.
    if (this.waiters.length > 0) this.askProgress();
  }

  /** Every change up to `revision` has been applied: releases the waiters it satisfies. */
  private advance(revision: number): void {
    if (revision <= this.observed) return;
    this.observed = revision;
    if (this.waiters.length === 0) return;
    const ready = this.waiters.filter((w) => w.rv <= this.observed);
    if (ready.length === 0) return;
    this.waiters = this.waiters.filter((w) => w.rv > this.observed);
    for (const w of ready) w.resolve();
  }
}
