/**
 * The shared index informer: one reflector and one cache per resource, shared by every controller
 * that watches it, with event handlers (client-go tools/cache/shared_informer.go).
 *
 * Contract (as upstream's SharedInformer doc):
 * - The cache ({@link SharedIndexInformer.getIndexer}, {@link SharedIndexInformer.lister}) is eventually
 *   consistent with the server; its objects are frozen and shared — copy before changing.
 * - Handlers are called synchronously, in event order, each event after the cache already reflects it.
 *   `update(old, new)` gets the previous cached object. A handler added after the informer started first
 *   gets an `add` for every cached object.
 * - On a relist, objects new to the cache are `add`s, changed ones `update`s, and objects that vanished
 *   (their deletion happened while no watch was running) are `delete`s of a {@link DeletedFinalStateUnknown}
 *   carrying the last known state. Relisted objects whose resourceVersion is unchanged are not reported
 *   (upstream reports them as updates with equal resourceVersions, which every controller ignores).
 * - There is no periodic resync: controllers are level-triggered and requeue by themselves.
 * - A handler that throws does not stop delivery to the others or the informer; the error goes to
 *   `onHandlerError`, by default util/runtime's `handleError` (logged with the object's key, counted
 *   under component `informer`): one bad object must not take the process down.
 */
import type { Clock } from '../util/clock/index.js';
import { handleError } from '../util/runtime/index.js';
import { realRand, type Rand } from '../util/random/index.js';
import { deepFreeze, metaNamespaceKey } from '../machinery/meta/index.js';
import { DeletedFinalStateUnknown, newIndexer, type IndexFunc, type Indexer, type MetaObject } from './indexer.js';
import { newLister, type Lister } from './lister.js';
import { Reflector, type ListerWatcher, type ReflectorStore } from './reflector.js';

/** Callbacks for changes of one resource; every method is optional. */
export interface ResourceEventHandler<T> {
  add?(obj: T): void;
  update?(oldObj: T, newObj: T): void;
  delete?(obj: T | DeletedFinalStateUnknown<T>): void;
}

/** Options of {@link SharedIndexInformer}. */
export interface SharedIndexInformerOptions {
  clock: Clock;
  /** Default: real randomness (watch timeouts and backoff jitter only). */
  rand?: Rand;
  /** Items per list page (default 500). */
  pageSize?: number;
  /** Receives list/watch failures, from which the informer recovers by itself. */
  onError?: (err: unknown) => void;
  /** Receives exceptions thrown by handlers, with the key of the object. Default: util/runtime `handleError`. */
  onHandlerError?: (err: unknown, key: string) => void;
  /** The resource, for log lines (e.g. `pods`). */
  name?: string;
}

/** A cache of one resource kept by list-and-watch, with handlers. */
export class SharedIndexInformer<T extends MetaObject> {
  private readonly indexer: Indexer<T> = newIndexer<T>();
  /** Replaced (copy-on-write) when a handler is added, so a dispatch in progress is unaffected. */
  private handlers: readonly ResourceEventHandler<T>[] = [];
  private readonly reflector: Reflector<T>;
  private readonly cachedLister: Lister<T>;
  private started = false;
  private synced = false;
  private syncWaiters: (() => void)[] = [];
  private readonly onHandlerError: (err: unknown, key: string) => void;

  constructor(listerWatcher: ListerWatcher<T>, opts: SharedIndexInformerOptions) {
    const store: ReflectorStore<T> = {
      replace: (items) => this.replace(items),
      add: (obj) => this.addOrUpdate(obj),
      update: (obj) => this.addOrUpdate(obj),
      delete: (obj) => this.remove(obj),
    };
    this.reflector = new Reflector<T>({
      listerWatcher,
      store,
      clock: opts.clock,
      rand: opts.rand ?? realRand,
      pageSize: opts.pageSize,
      onError: opts.onError,
    });
    this.cachedLister = newLister(this.indexer);
    const resource = opts.name ?? '';
    this.onHandlerError = opts.onHandlerError ?? ((err, key) => handleError(err, { component: 'informer', msg: 'Event handler failed', resource, key }));
  }

  /** Registers `handler`; if the informer has started, it first gets an `add` for every cached object. */
  addEventHandler(handler: ResourceEventHandler<T>): void {
    if (this.started) for (const obj of this.indexer.list()) this.call(obj, () => handler.add?.(obj));
    this.handlers = [...this.handlers, handler];
  }

  /** Adds indices to the cache (see Indexer.addIndexers). */
  addIndexers(indexers: Record<string, IndexFunc<T>>): void {
    this.indexer.addIndexers(indexers);
  }

  /** True once the first list has been stored and its events delivered. */
  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves true once synced, or false if `signal` aborts first. */
  waitForSync(signal?: AbortSignal): Promise<boolean> {
    if (this.synced) return Promise.resolve(true);
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = (): void => resolve(false);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.syncWaiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      });
    });
  }

  getIndexer(): Indexer<T> {
    return this.indexer;
  }

  lister(): Lister<T> {
    return this.cachedLister;
  }

  /** The resourceVersion the cache is synced to. */
  lastSyncResourceVersion(): string {
    return this.reflector.lastSyncResourceVersion();
  }

  /** Starts list-and-watch (once). */
  run(): void {
    if (this.started) return;
    this.started = true;
    this.reflector.run();
  }

  /** Stops list-and-watch; the cache keeps its last content. */
  stop(): void {
    this.reflector.stop();
  }

  private replace(items: T[]): void {
    const vanished = new Set(this.indexer.listKeys());
    for (const obj of items) {
      vanished.delete(metaNamespaceKey(obj));
      const old = this.indexer.get(obj);
      const oldRV = old?.metadata?.resourceVersion;
      if (old !== undefined && oldRV && oldRV === obj.metadata?.resourceVersion) continue;
      this.addOrUpdate(obj);
    }
    for (const key of vanished) {
      const old = this.indexer.getByKey(key) as T;
      this.indexer.delete(old);
      this.dispatch(old, (h) => h.delete?.(new DeletedFinalStateUnknown(key, old)));
    }
    if (!this.synced) {
      this.synced = true;
      for (const wake of this.syncWaiters.splice(0)) wake();
    }
  }

  private addOrUpdate(obj: T): void {
    const old = this.indexer.get(obj);
    this.indexer.add(obj);
    if (old === undefined) this.dispatch(obj, (h) => h.add?.(obj));
    else this.dispatch(obj, (h) => h.update?.(old, obj));
  }

  private remove(obj: T): void {
    if (this.indexer.get(obj) === undefined) return;
    this.indexer.delete(obj);
    if (!Object.isFrozen(obj)) deepFreeze(obj);
    this.dispatch(obj, (h) => h.delete?.(obj));
  }

  /** Calls every handler about `obj`. */
  private dispatch(obj: T, fn: (h: ResourceEventHandler<T>) => void): void {
    for (const h of this.handlers) this.call(obj, () => fn(h));
  }

  private call(obj: T, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.onHandlerError(err, metaNamespaceKey(obj));
    }
  }
}
