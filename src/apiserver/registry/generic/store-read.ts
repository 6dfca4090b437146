/**
 * The generic store's reads (store.go `Get`, `List`, `Watch`): from the watch cache at the freshness
 * the request asks for. Lists at an exact revision (`resourceVersionMatch=Exact`, a `limit` with a
 * resourceVersion, a continue token) are answered from a snapshot of the cache at that revision when
 * the ListFromCacheSnapshot gate is on and the cache still reaches it, else from storage, as
 * upstream's cacher delegates them (k8s.io/apiserver/pkg/storage/cacher/delegator.go `GetList`,
 * delegator/interface.go `ShouldDelegateList`, cacher.go `shouldDelegateExactRV`): both give the
 * same items, continue token, remainingItemCount and resourceVersion.
 */
import type { KubeList, KubeObject } from '../../../api/index.js';
import type { WatchEvent, WatchStream } from '../../../api/request.js';
import { newNotFound, newResourceExpired } from '../../../machinery/errors/index.js';
import type { KeyValue } from '../../../storage/interface.js';
import { StorageError } from '../../../storage/interface.js';
import { defaultFeatureGate } from '../../../machinery/featuregate/index.js';
import { CacheWatcher } from '../../watchcache/cache-watcher.js';
import type { OrderedView } from '../../watchcache/ordered-store.js';
import { decodeContinue, encodeContinue } from './continue.js';
import { parseListOptions, parseResourceVersion } from './options.js';
import { newPredicate, type SelectionPredicate } from './predicate.js';
import { StoreCore, tooLargeResourceVersion, tooOldResourceVersion, CONTINUE_EXPIRED, tryDecode, type Query } from './store-core.js';

/** Reads on top of {@link StoreCore}. */
export abstract class ReadStore extends StoreCore {
  // ---------------------------------------------------------------------------------------------
  // Reads.


  /**
   * GET. `query.resourceVersion`: unset (consistent), `0` (any), N (at least N). An object whose
   * stored value cannot be read (not decryptable) is a 500 InternalError, as upstream's store answers.
   */
  async get(namespace: string | undefined, name: string, query: Query): Promise<KubeObject> {
    const key = this.keyFor(namespace, name);
    await this.waitForResourceVersion(query.resourceVersion ?? '');
    const obj = this.opts.cache.get(key);
    if (!obj) throw this.opts.cache.readError(key) ?? newNotFound(this.gr, name);
    return obj;
  }

  /**
   * Waits until the cache serves reads at `rv` (`''`: the store's current revision, asked from the
   * store, since another API server may have written; `'0'`: now). A revision beyond what this process
   * has seen is checked against the store before it is refused as too large.
   */
  async waitForResourceVersion(rv: string): Promise<void> {
    if (rv === '0') return;
    const asked = parseResourceVersion(rv);
    const current = await this.storeRevisionCovering(asked);
    const target = asked ?? current;
    if (target > current) throw tooLargeResourceVersion(target, current);
    await this.opts.feed.waitUntilFresh(target);
  }

  /**
   * The store's revision as this process knows it when that already covers `asked`, else as the store
   * answers (a consistent read, `asked` undefined, always asks).
   */
  private storeRevisionCovering(asked: number | undefined): Promise<number> {
    const { backend } = this.opts;
    const known = backend.currentRevision();
    return asked !== undefined && asked <= known ? Promise.resolve(known) : backend.fetchCurrentRevision();
  }

  /**
   * LIST with selectors, pagination and resourceVersion semantics. Where each is read from
   * (upstream `ShouldDelegateList`): a continue token at revision R, `resourceVersionMatch=Exact` at R,
   * or a `limit` with resourceVersion R (the legacy exact match) read at R, from the cache's snapshot
   * at R when the ListFromCacheSnapshot gate is on, else from storage (which answers 410 for a
   * compacted R); a continue token handed out with a 410 (revision -1) continues at the current
   * revision, from the cache with the gate on. Any other list is read from the cache, at least as
   * fresh as asked; `resourceVersion=0` ignores `limit` there (cacher.go `computeListLimit`).
   */
  async list(namespace: string | undefined, query: Query): Promise<KubeList> {
    const opts = parseListOptions(query, false);
    const pred = newPredicate(this.strategy, opts.labelSelector, opts.fieldSelector);
    const prefix = this.prefixFor(namespace);
    const snapshots = defaultFeatureGate.enabled('ListFromCacheSnapshot');
    const rv = opts.resourceVersion;
    if (opts.continue !== '') {
      const token = decodeContinue(opts.continue, prefix);
      const limit = rv === '0' ? 0 : opts.limit;
      if (snapshots && token.rv === -1) {
        await this.waitForResourceVersion('');
        return this.listFromCache(namespace, prefix, pred, limit, token.startAfter);
      }
      if (snapshots) {
        const page = await this.listFromSnapshot(prefix, pred, limit, token.rv, token.startAfter);
        if (page) return page;
      }
      return this.listFromStorage(prefix, pred, opts.limit, token.rv === -1 ? undefined : token.rv, token.startAfter);
    }
    const exact = opts.resourceVersionMatch === 'Exact' || (opts.resourceVersionMatch === '' && opts.limit > 0 && rv !== '' && rv !== '0');
    if (exact) {
      const revision = parseResourceVersion(rv) as number;
      const page = snapshots ? await this.listFromSnapshot(prefix, pred, opts.limit, revision) : undefined;
      return page ?? this.listFromStorage(prefix, pred, opts.limit, revision);
    }
    await this.waitForResourceVersion(rv);
    return this.listFromCache(namespace, prefix, pred, rv === '0' ? 0 : opts.limit);
  }

  protected newList(items: KubeObject[], rv: number, cont?: string, remaining?: number): KubeList {
    const metadata: KubeList['metadata'] = { resourceVersion: String(rv) };
    if (cont !== undefined) metadata.continue = cont;
    if (remaining !== undefined) metadata.remainingItemCount = remaining;
    Object.freeze(metadata);
    Object.freeze(items);
    return Object.freeze({ kind: this.strategy.info.listKind, apiVersion: this.apiVersion, metadata, items });
  }

  /** A list of the cache as it is now, from the first key after `startAfter` when given. */
  protected listFromCache(namespace: string | undefined, prefix: string, pred: SelectionPredicate, limit: number, startAfter?: string): KubeList {
    const cache = this.opts.cache;
    const rv = cache.revision;
    // A single object named by metadata.name needs no scan (upstream's key trigger).
    const byName = pred.field.exactMatch('metadata.name');
    if (byName !== undefined && startAfter === undefined && (namespace || !this.strategy.info.namespaced)) {
      const obj = cache.get(this.prefixFor(namespace) + byName);
      return this.newList(obj && pred.matches(obj) ? [obj] : [], rv);
    }
    const list = this.pageOf(cache.current(), prefix, pred, limit, rv, startAfter);
    // Keep the objects as they are now for the pages that follow (O(1); see WatchCache.snapshotAt).
    if (list.metadata.continue !== undefined && defaultFeatureGate.enabled('ListFromCacheSnapshot')) cache.snapshotAt(rv);
    return list;
  }

  /**
   * A list of the objects as they were at `revision`, from the cache's snapshot; undefined when the
   * cache cannot serve it (upstream `shouldDelegateExactRV`): `revision` is older than the cache's
   * window or not above storage's compacted revision, or beyond storage's current revision (storage
   * then answers 410 Expired or 504 itself, as without snapshots). Waits for the cache to reach
   * `revision` first.
   */
  protected async listFromSnapshot(prefix: string, pred: SelectionPredicate, limit: number, revision: number, startAfter?: string): Promise<KubeList | undefined> {
    const { backend, cache, feed } = this.opts;
    if (revision > backend.currentRevision() || revision <= backend.compactedRevision()) return undefined;
    await feed.waitUntilFresh(revision);
    // Checked again after waiting: storage may have compacted meanwhile.
    if (revision <= backend.compactedRevision()) return undefined;
    const view = cache.snapshotAt(revision);
    return view && this.pageOf(view, prefix, pred, limit, revision, startAfter);
  }

  /**
   * One page of `view` under `prefix` after `startAfter`: at most `limit` matching objects (0: all);
   * when any entry (matching or not) is left after the last one, a continue token at `rv` and, with
   * no selector, the number of entries left (cacher.go `GetList`, storage `PrepareContinueToken`;
   * storage pages the same way).
   */
  protected pageOf(view: OrderedView<KubeObject>, prefix: string, pred: SelectionPredicate, limit: number, rv: number, startAfter?: string): KubeList {
    const items: KubeObject[] = [];
    let lastKey = '';
    let more = false;
    for (const [key, obj] of view.entries(prefix, startAfter)) {
      if (limit > 0 && items.length === limit) {
        more = true;
        break;
      }
      if (!pred.matches(obj)) continue;
      items.push(obj);
      lastKey = key;
    }
    if (!more) return this.newList(items, rv);
    const remaining = pred.empty ? view.countAfter(prefix, lastKey) : undefined;
    return this.newList(items, rv, encodeContinue(rv, lastKey, prefix), remaining);
  }

  protected async listFromStorage(prefix: string, pred: SelectionPredicate, limit: number, revision: number | undefined, startAfter?: string): Promise<KubeList> {
    const items: KubeObject[] = [];
    let rev = revision;
    let after = startAfter;
    let lastKey = '';
    for (;;) {
      let res;
      try {
        res = await this.opts.backend.list(prefix, { ...(rev === undefined ? {} : { revision: rev }), ...(limit > 0 ? { limit } : {}), ...(after === undefined ? {} : { startAfter: after }) });
      } catch (err) {
        if (err instanceof StorageError && err.code === 'Compacted' && startAfter !== undefined) {
          const expired = newResourceExpired(CONTINUE_EXPIRED);
          expired.status.metadata = { continue: encodeContinue(-1, startAfter, prefix) };
          throw expired;
        }
        throw this.storageError(err, '', rev);
      }
      rev = res.revision;
      for (let i = 0; i < res.kvs.length; i++) {
        const kv = res.kvs[i] as KeyValue;
        // An unreadable value is left out, as the watch cache leaves it out of lists.
        const obj = tryDecode(kv);
        if (!obj || !pred.matches(obj)) continue;
        items.push(obj);
        lastKey = kv.key;
        if (limit > 0 && items.length === limit) {
          const left = res.kvs.length - 1 - i;
          if (left === 0 && !res.more) return this.newList(items, rev);
          const remaining = pred.empty ? left + res.remaining : undefined;
          return this.newList(items, rev, encodeContinue(rev, lastKey, prefix), remaining);
        }
      }
      if (!res.more || res.kvs.length === 0) return this.newList(items, rev);
      after = (res.kvs[res.kvs.length - 1] as KeyValue).key;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Watch.

  /**
   * WATCH. Request errors (bad options or selectors) throw synchronously; errors found while starting
   * (410 Expired for a resourceVersion older than the watch cache's window or below storage's compacted
   * revision, 504 for a future one) end the watch through `onClose(err)`. Events are delivered
   * synchronously from the cache's feed; storage is never watched per request (upstream's cacher
   * answers 410 too rather than reading etcd's history).
   */
  watch(namespace: string | undefined, query: Query, onEvent: (ev: WatchEvent) => void, onClose: (err?: unknown) => void): WatchStream {
    const opts = parseListOptions(query, true);
    const pred = newPredicate(this.strategy, opts.labelSelector, opts.fieldSelector);
    const prefix = this.prefixFor(namespace);
    const filter = (key: string, obj: KubeObject): boolean => key.startsWith(prefix) && pred.matches(obj);
    let watcher: CacheWatcher | undefined;
    let stopRequested = false;
    let closed = false;
    const closeOnce = (err?: unknown): void => {
      if (closed) return;
      closed = true;
      onClose(err);
    };
    const newWatcher = (progress: () => number, detach: () => void): CacheWatcher =>
      new CacheWatcher({
        filter,
        onEvent,
        onClose: closeOnce,
        clock: this.opts.clock,
        kind: this.strategy.info.kind,
        apiVersion: this.apiVersion,
        bookmarks: opts.allowWatchBookmarks,
        progress,
        ...(opts.timeoutSeconds !== undefined && opts.timeoutSeconds > 0 ? { timeoutMs: opts.timeoutSeconds * 1000 } : {}),
        detach,
      });

    const start = async (): Promise<void> => {
      const cache = this.opts.cache;
      const rv = opts.resourceVersion;
      const initial = opts.sendInitialEvents ?? (rv === '' || rv === '0');
      if (initial || rv === '' || rv === '0') {
        await this.waitForResourceVersion(rv);
        if (stopRequested) return closeOnce();
        const w = newWatcher(() => cache.revision, () => cache.removeWatcher(w));
        watcher = w;
        if (initial) w.sendInitial(cache.entries(prefix));
        if (opts.sendInitialEvents && opts.allowWatchBookmarks) w.sendBookmark(cache.revision, true);
        if (!w.isClosed) cache.addWatcher(w);
        return;
      }
      const from = parseResourceVersion(rv) as number;
      const current = await this.storeRevisionCovering(from);
      if (from > current) throw tooLargeResourceVersion(from, current);
      await this.opts.feed.waitUntilFresh(from);
      if (stopRequested) return closeOnce();
      const buffered = cache.eventsAfter(from);
      const oldest = Math.max(cache.oldestResumableRevision, this.opts.backend.compactedRevision());
      if (!buffered || from < oldest) throw tooOldResourceVersion(from, oldest);
      const w = newWatcher(() => cache.revision, () => cache.removeWatcher(w));
      watcher = w;
      for (const ev of buffered) w.offer(ev);
      if (!w.isClosed) cache.addWatcher(w);
    };
    start().catch((err: unknown) => {
      if (watcher) watcher.close(err);
      else closeOnce(err);
    });
    return {
      stop: () => {
        stopRequested = true;
        if (watcher) watcher.close();
      },
    };
  }
}
