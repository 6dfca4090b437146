/**
 * One client's watch: filters a stream of storage changes through the client's selectors, turns them
 * into the events the client sees, and adds bookmarks and the timeout. Follows upstream's
 * `cacheWatcher` (k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go): for a filtered watch an
 * object that stops matching is sent as DELETED (its previous state, at the event's resourceVersion) and
 * one that starts matching as ADDED.
 *
 * Delivery is synchronous: `onEvent` runs inside {@link CacheWatcher.offer}. A throwing `onEvent` ends
 * this watch with that error and never disturbs the source.
 */
import type { WatchEvent } from '../../api/request.js';
import type { KubeObject } from '../../api/index.js';
import type { Clock, Timer } from '../../util/clock/index.js';
import { deepFreeze } from '../../machinery/meta/index.js';

/** A change of one key, as the watch cache keeps it. Objects are frozen and shared. */
export interface CacheEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  key: string;
  /** ADDED/MODIFIED: the new state; DELETED: the last state, carrying the delete's resourceVersion. */
  object: KubeObject;
  /** MODIFIED/DELETED: the state before the change. */
  prevObject?: KubeObject;
  /** The storage revision of the change. */
  rv: number;
  /** Lazily built: `prevObject` at this event's resourceVersion (the DELETED sent to a watcher it stops matching). */
  prevAtRv?: KubeObject;
}

/** Decides whether the watcher is interested in an object (namespace, label and field selectors). */
export type WatchFilter = (key: string, obj: KubeObject) => boolean;

/** Upstream's bookmark period (cacher.go: bookmarks every minute, `bookmarkFrequency`). */
export const BOOKMARK_INTERVAL_MS = 60_000;

/** The annotation of the bookmark that ends the initial events of a `sendInitialEvents` watch. */
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

/** Options of a {@link CacheWatcher}. */
export interface CacheWatcherOptions {
  filter: WatchFilter;
  onEvent: (ev: WatchEvent) => void;
  onClose: (err?: unknown) => void;
  clock: Clock;
  /** `{kind, apiVersion}` of bookmark objects. */
  kind: string;
  apiVersion: string;
  /** Send a BOOKMARK every {@link BOOKMARK_INTERVAL_MS} (allowWatchBookmarks=true). */
  bookmarks: boolean;
  /** The revision up to which this watcher has been offered every change (the bookmark's resourceVersion). */
  progress: () => number;
  /** End cleanly after this many ms (timeoutSeconds × 1000). */
  timeoutMs?: number;
  /** Called once when the watch ends, to unregister it from its source. */
  detach: () => void;
}

/** A running watch fed by a watch cache. */
export class CacheWatcher {
  private closed = false;
  private bookmarkTimer: Timer | undefined;
  private timeoutTimer: Timer | undefined;

  constructor(private readonly opts: CacheWatcherOptions) {
    if (opts.timeoutMs !== undefined) this.timeoutTimer = opts.clock.setTimer(opts.timeoutMs, () => this.close());
    if (opts.bookmarks) this.scheduleBookmark();
  }

  /** True once the watch ended. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Offers one change; sends what this watcher should see of it (maybe nothing). */
  offer(ev: CacheEvent): void {
    if (this.closed) return;
    const { filter } = this.opts;
    const cur = ev.type !== 'DELETED' && filter(ev.key, ev.object);
    const old = ev.prevObject !== undefined && filter(ev.key, ev.prevObject);
    if (cur) this.send({ type: old ? 'MODIFIED' : 'ADDED', object: ev.object });
    else if (old) this.send({ type: 'DELETED', object: ev.type === 'DELETED' ? ev.object : prevAtRv(ev) });
  }

  /** Sends synthetic ADDED events for the current state (watch from resourceVersion "0" or unset). */
  sendInitial(objects: Iterable<[string, KubeObject]>): void {
    for (const [key, obj] of objects) {
      if (this.closed) return;
      if (this.opts.filter(key, obj)) this.send({ type: 'ADDED', object: obj });
    }
  }

  /** Sends a BOOKMARK at `rv`, with the initial-events-end annotation when `initialEventsEnd`. */
  sendBookmark(rv: number, initialEventsEnd = false): void {
    const metadata: KubeObject['metadata'] = { resourceVersion: String(rv) };
    if (initialEventsEnd) metadata.annotations = { [INITIAL_EVENTS_END_ANNOTATION]: 'true' };
    this.send({ type: 'BOOKMARK', object: deepFreeze({ kind: this.opts.kind, apiVersion: this.opts.apiVersion, metadata }) });
  }

  /** Ends the watch; `onClose` gets `err` (undefined for a clean end). Idempotent. */
  close(err?: unknown): void {
    if (this.closed) return;
    this.closed = true;
    this.bookmarkTimer?.stop();
    this.timeoutTimer?.stop();
    this.opts.detach();
    this.opts.onClose(err);
  }

  private send(ev: WatchEvent): void {
    try {
      this.opts.onEvent(ev);
    } catch (err) {
      this.close(err);
    }
  }

  private scheduleBookmark(): void {
    this.bookmarkTimer = this.opts.clock.setTimer(BOOKMARK_INTERVAL_MS, () => {
      if (this.closed) return;
      this.sendBookmark(this.opts.progress());
      if (!this.closed) this.scheduleBookmark();
    });
  }
}

/** A frozen shallow copy of the frozen `obj` with `metadata.resourceVersion` = `rv`. */
export function withResourceVersion(obj: KubeObject, rv: number): KubeObject {
  return Object.freeze({ ...obj, metadata: Object.freeze({ ...obj.metadata, resourceVersion: String(rv) }) });
}

/** `ev.prevObject` with `ev`'s resourceVersion, built once per event and shared by every watcher. */
function prevAtRv(ev: CacheEvent): KubeObject {
  ev.prevAtRv ??= withResourceVersion(ev.prevObject as KubeObject, ev.rv);
  return ev.prevAtRv;
}
