/**
 * The reflector: keeps a store equal to the server's state of one resource by list-then-watch
 * (client-go tools/cache/reflector.go `ListAndWatch`, pager.go).
 *
 * 1. **List** at {@link Reflector.relistResourceVersion}: `'0'` the first time (any cached state will
 *    do), then the last synced resourceVersion, or `''` (a consistent read) after the server answered
 *    410 Expired for that version — in which case the list is retried at once at `''`. Lists at `'0'`
 *    and `''` come in pages of 500; a list at a given resourceVersion is not paged, so the server
 *    answers it from its watch cache (a paged one is an exact read from storage, which 410s once that
 *    revision is compacted), unless {@link ReflectorOptions.pageSize} is set or the first list came
 *    back in pages (the server pages this resource itself). If a continuation page expires, the pages
 *    are dropped and one unpaginated list is made instead. The items replace the store's content.
 * 2. **Watch** from the list's resourceVersion with `allowWatchBookmarks=true` and a random server
 *    timeout of 300–600 s. Every event (bookmarks included) advances the last synced resourceVersion.
 * 3. When the watch ends:
 *    - normally (the server's timeout): watch again from the last resourceVersion, at once;
 *    - with 410 Expired/Gone (an ERROR event or the response status): relist, after the backoff;
 *    - with any other error, or normally within 1 s without any event ("very short watch", which
 *      would otherwise spin): watch again from the last resourceVersion after the backoff.
 *    A failed list is retried after the backoff.
 *
 * Backoff (upstream's `NewExponentialBackoffManager(800ms, 30s, 2min, 2.0, 1.0)`): delays of
 * 800 ms, 1.6 s, 3.2 s, … capped at 30 s, each stretched by a random factor in [1, 2) (jitter 1.0);
 * after 2 min without backing off, the next delay starts from 800 ms again. All on the Clock.
 */
import type { KubeList } from '../api/index.js';
import type { ListOptions, WatchOptions } from '../client/index.js';
import type { WatchEvent, WatchStream } from '../api/request.js';
import { isResourceExpired, StatusError, statusErrorFromResponse } from '../machinery/errors/index.js';
import type { Clock, Timer } from '../util/clock/index.js';
import type { Rand } from '../util/random/index.js';
import type { MetaObject } from './indexer.js';

/** The list and watch calls of a resource client (a `ResourceClient` satisfies it). */
export interface ListerWatcher<T> {
  list(opts: ListOptions): Promise<KubeList<T>>;
  watch(opts: WatchOptions, onEvent: (ev: WatchEvent<T>) => void, onClose: (err?: unknown) => void): WatchStream;
}

/** Where the reflector writes (the shared informer, which also notifies its handlers). */
export interface ReflectorStore<T> {
  /** Replaces the content with a full list taken at `resourceVersion`. */
  replace(items: T[], resourceVersion: string): void;
  add(obj: T): void;
  update(obj: T): void;
  delete(obj: T): void;
}

/** Options of {@link Reflector}. */
export interface ReflectorOptions<T> {
  listerWatcher: ListerWatcher<T>;
  store: ReflectorStore<T>;
  clock: Clock;
  /** For the watch timeout and backoff jitter. */
  rand: Rand;
  /**
   * Items per list page for every list (upstream's `WatchListPageSize`). Default: 500 (upstream's
   * pager) for lists at `'0'` and `''`, none at a given resourceVersion (see the module comment).
   */
  pageSize?: number;
  /** Receives list and watch failures (the reflector recovers from them by itself). */
  onError?: (err: unknown) => void;
}

const DEFAULT_PAGE_SIZE = 500;
/** Watches ask the server to end them after 300–600 s, spreading reconnects (reflector minWatchTimeout). */
const MIN_WATCH_TIMEOUT_S = 300;
/** A watch that ends normally within this time without events counts as a failure (reflector.go). */
const SHORT_WATCH_MS = 1000;
const INITIAL_BACKOFF_MS = 800;
const MAX_BACKOFF_MS = 30_000;
const BACKOFF_RESET_MS = 2 * 60_000;

type WatchOutcome = { kind: 'closed' } | { kind: 'expired'; err: unknown } | { kind: 'error'; err: unknown } | { kind: 'stopped' };

/** Runs list-and-watch for one resource until stopped. */
export class Reflector<T extends MetaObject> {
  private readonly opts: ReflectorOptions<T>;
  private lastSyncRV = '';
  /** Set after the server said the last synced resourceVersion is too old for a list (410). */
  private lastSyncRVUnavailable = false;
  /** The first list (at `'0'`) came back in pages: the server pages this resource even from its cache. */
  private paginatedResult = false;
  private running = false;
  private stopped = false;
  private stopCurrent: (() => void) | undefined;
  private backoffDelay = INITIAL_BACKOFF_MS;
  private lastBackoffAt: number | undefined;

  constructor(opts: ReflectorOptions<T>) {
    this.opts = opts;
  }

  /** Starts the list-and-watch loop (once). */
  run(): void {
    if (this.running || this.stopped) return;
    this.running = true;
    void this.loop();
  }

  /** Stops the loop and the running watch or backoff wait; nothing is written to the store afterwards. */
  stop(): void {
    this.stopped = true;
    this.stopCurrent?.();
  }

  /** The resourceVersion of the last list or event seen; `''` before the first list. */
  lastSyncResourceVersion(): string {
    return this.lastSyncRV;
  }

  /** The resourceVersion to list at: `'0'` first, `''` after a 410 on it, else the last synced one. */
  relistResourceVersion(): string {
    if (this.lastSyncRVUnavailable) return '';
    return this.lastSyncRV === '' ? '0' : this.lastSyncRV;
  }

  private async loop(): Promise<void> {
    let needList = true;
    while (!this.stopped) {
      if (needList) {
        try {
          await this.list();
          needList = false;
        } catch (err) {
          if (this.stopped) return;
          this.opts.onError?.(err);
          await this.backoff();
        }
        continue;
      }
      const outcome = await this.watch();
      switch (outcome.kind) {
        case 'stopped':
          return;
        case 'closed':
          break;
        case 'expired':
          this.opts.onError?.(outcome.err);
          needList = true;
          await this.backoff();
          break;
        case 'error':
          this.opts.onError?.(outcome.err);
          await this.backoff();
          break;
      }
    }
  }

  private async list(): Promise<void> {
    const rv = this.relistResourceVersion();
    let list: KubeList<T>;
    try {
      list = await this.listPages(rv);
    } catch (err) {
      if (rv === '' || !(isResourceExpired(err) || isTooLargeResourceVersion(err))) throw err;
      this.lastSyncRVUnavailable = true;
      list = await this.listPages('');
    }
    if (this.stopped) return;
    this.lastSyncRVUnavailable = false;
    const listRV = list.metadata.resourceVersion ?? '';
    this.opts.store.replace(list.items, listRV);
    this.lastSyncRV = listRV;
  }

  /**
   * The page size of a list at `resourceVersion`, undefined for none (reflector.go `ListAndWatch`: an
   * explicit WatchListPageSize, else the pager's default when the first list was paginated, else none at
   * a resourceVersion other than `''` and `'0'`, "to force listing from watch cache").
   */
  private pageSizeFor(resourceVersion: string): number | undefined {
    if (this.opts.pageSize !== undefined) return this.opts.pageSize;
    if (this.paginatedResult || resourceVersion === '' || resourceVersion === '0') return DEFAULT_PAGE_SIZE;
    return undefined;
  }

  /** Lists every page (pager.go with FullListIfExpired). */
  private async listPages(resourceVersion: string): Promise<KubeList<T>> {
    const lw = this.opts.listerWatcher;
    const limit = this.pageSizeFor(resourceVersion);
    if (limit === undefined) return lw.list({ resourceVersion });
    const first = await lw.list({ resourceVersion, limit });
    if (!first.metadata.continue) return first;
    if (resourceVersion === '0') this.paginatedResult = true;
    const items = first.items.slice();
    let page = first;
    while (page.metadata.continue) {
      try {
        // Continuations carry the snapshot in the token; a resourceVersion with them is an error upstream.
        page = await lw.list({ continue: page.metadata.continue, limit });
      } catch (err) {
        // The snapshot was compacted between pages: take one unpaginated consistent list instead.
        if (!isResourceExpired(err)) throw err;
        return lw.list({});
      }
      for (const item of page.items) items.push(item);
    }
    return { ...page, items, metadata: { resourceVersion: page.metadata.resourceVersion ?? first.metadata.resourceVersion } };
  }

  /** One watch from the last synced resourceVersion, until it ends. */
  private watch(): Promise<WatchOutcome> {
    const { clock, rand, store } = this.opts;
    return new Promise<WatchOutcome>((resolve) => {
      const startedAt = clock.now();
      let events = 0;
      let done = false;
      let stream: WatchStream | undefined;
      const end = (outcome: WatchOutcome): void => {
        if (done) return;
        done = true;
        this.stopCurrent = undefined;
        stream?.stop();
        resolve(outcome);
      };
      const failed = (err: unknown): void => end(isResourceExpired(err) ? { kind: 'expired', err } : { kind: 'error', err });

      const onEvent = (ev: WatchEvent<T>): void => {
        if (done) return;
        switch (ev.type) {
          case 'ADDED':
            store.add(ev.object);
            break;
          case 'MODIFIED':
            store.update(ev.object);
            break;
          case 'DELETED':
            store.delete(ev.object);
            break;
          case 'BOOKMARK':
            break;
          case 'ERROR':
            failed(statusErrorFromResponse((ev.object as { code?: number } | undefined)?.code ?? 500, ev.object));
            return;
          default:
            failed(new Error(`unexpected watch event type ${JSON.stringify((ev as { type: unknown }).type)}`));
            return;
        }
        events++;
        const rv = ev.object.metadata?.resourceVersion;
        if (rv) this.lastSyncRV = rv;
      };
      const onClose = (err?: unknown): void => {
        if (err !== undefined) failed(err);
        else if (events === 0 && clock.since(startedAt) < SHORT_WATCH_MS)
          end({ kind: 'error', err: new Error('very short watch: the watch lasted less than a second and no items were received') });
        else end({ kind: 'closed' });
      };

      this.stopCurrent = () => end({ kind: 'stopped' });
      const opts: WatchOptions = {
        resourceVersion: this.lastSyncRV,
        allowWatchBookmarks: true,
        timeoutSeconds: Math.floor(MIN_WATCH_TIMEOUT_S * (1 + rand.float())),
      };
      try {
        stream = this.opts.listerWatcher.watch(opts, onEvent, onClose);
      } catch (err) {
        failed(err);
      }
      // The transport may have ended the watch synchronously, before `stream` was assigned.
      if (done) stream?.stop();
    });
  }

  /** Waits the next backoff delay (see the module comment); returns early when stopped. */
  private backoff(): Promise<void> {
    const { clock, rand } = this.opts;
    const now = clock.now();
    if (this.lastBackoffAt === undefined || now - this.lastBackoffAt > BACKOFF_RESET_MS) this.backoffDelay = INITIAL_BACKOFF_MS;
    this.lastBackoffAt = now;
    const delay = this.backoffDelay * (1 + rand.float());
    this.backoffDelay = Math.min(this.backoffDelay * 2, MAX_BACKOFF_MS);
    return new Promise<void>((resolve) => {
      if (this.stopped) return resolve();
      const timer: Timer = clock.setTimer(delay, () => {
        this.stopCurrent = undefined;
        resolve();
      });
      this.stopCurrent = () => {
        timer.stop();
        resolve();
      };
    });
  }
}

/** 504 with cause `ResourceVersionTooLarge`: the list asked for a resourceVersion the server has not reached (reflector.go isTooLargeResourceVersionError). */
function isTooLargeResourceVersion(err: unknown): boolean {
  return err instanceof StatusError && err.code === 504 && (err.status.details?.causes ?? []).some((c) => c.reason === 'ResourceVersionTooLarge');
}
