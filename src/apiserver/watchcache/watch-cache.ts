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
 *
 * **Unreadable values.** A stored value that cannot be decoded (one a value transformer could not
 * decrypt, or that is not JSON) never stops the cache: the key is left out of lists and watches (a
 * watcher that had the object sees it DELETED, so watches agree with lists), and a GET of it answers
 * the 500 InternalError upstream's storage gives for that object ({@link WatchCache.readError}). A
 * later readable write or the key's deletion clears that. (Upstream's cacher cannot start a resource
 * holding such an object; keeping the rest of the resource served is ours.)
 */
import type { KubeObject } from '../../api/index.js';
import type { KeyValue, WatchEvent as StorageEvent } from '../../storage/interface.js';
import { StatusError, newInternalError } from '../../machinery/errors/index.js';
import { deepFreeze } from '../../machinery/meta/index.js';
import { decodeTypedObject } from '../../machinery/serializer/index.js';
import type { Clock } from '../../util/clock/index.js';
import { withResourceVersion, type CacheEvent, type CacheWatcher } from './cache-watcher.js';
import { EventWindow, type EventWindowSizing } from './event-window.js';
import { OrderedStore, type OrderedView } from './ordered-store.js';

/**
 * How many snapshots of past revisions a cache keeps at most (the least recently used goes first):
 * each keeps the chunks written since it was taken, at most one copy of the store's key index.
 */
export const MAX_SNAPSHOTS = 32;

/**
 * Decodes a stored value into a frozen object whose `metadata.resourceVersion` is `kv.modRevision`.
 * With `rootType`, the object is also decoded as Go decodes it into that type (machinery/serializer:
 * `null` members become zero values, required scalars are filled, types are checked).
 * @throws StatusError 500 InternalError `Internal error occurred: <why>` when the value could not be
 *   read back from storage (`kv.readError`, e.g. no key to decrypt it), is not a JSON object or does
 *   not fit `rootType`, as upstream's store answers a transform or decode failure of one object
 * With `onRead`, the decoded object is given to it (before freezing) to complete in place: the
 * defaults a custom resource's schema applies on read from storage.
 */
export function decodeObject(kv: KeyValue, rootType?: string, onRead?: (obj: KubeObject) => void): KubeObject {
  if (kv.readError !== undefined) throw newInternalError(kv.readError);
  let obj: KubeObject;
  try {
    obj = JSON.parse(kv.value) as KubeObject;
  } catch (err) {
    throw newInternalError(`unable to decode ${JSON.stringify(kv.key)}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (typeof obj !== 'object' || obj === null) throw newInternalError(`unable to decode ${JSON.stringify(kv.key)}: not an object`);
  const typeError = rootType === undefined ? undefined : decodeTypedObject(obj, rootType);
  if (typeError) throw newInternalError(`unable to decode ${JSON.stringify(kv.key)}: ${typeError}`);
  obj.metadata = { ...obj.metadata, resourceVersion: String(kv.modRevision) };
  onRead?.(obj);
  return deepFreeze(obj);
}

/** The 500 a failed {@link decodeObject} throws (anything else thrown becomes one). */
function asReadError(err: unknown): StatusError {
  return err instanceof StatusError ? err : newInternalError(err instanceof Error ? err.message : String(err));
}

/** The current objects and recent changes under one resource prefix, e.g. `/registry/apps/deployments/`. */
export class WatchCache {
  /** See {@link changes}. */
  private changeCount = 0;
  private readonly objects = new Map<string, KubeObject>();
  /** The same objects in key order, with O(1) snapshots. */
  private readonly ordered = new OrderedStore<KubeObject>();
  /**
   * Snapshots of the objects at past revisions, by the revision of the resource's last change at or
   * before them (so every revision between two changes finds the same one); see {@link snapshotAt}.
   */
  private readonly snapshots = new Map<number, OrderedView<KubeObject>>();
  private readonly window: EventWindow;
  /** Keys whose stored value cannot be read, and the error a GET of them answers. */
  private readonly unreadable = new Map<string, StatusError>();
  /** The revision of the listing that primed the cache; changes at or below it are already in `objects`. */
  private primedAt = 0;
  private readonly watchers = new Set<CacheWatcher>();
  /** The object each key's latest write in this process is storing, by key (see {@link expectWrite}). */
  private readonly expected = new Map<string, { json: string; obj: KubeObject }>();

  /**
   * @param prefix the resource's key prefix, ending in `/`
   * @param observed the revision up to which the feed has delivered every change (all resources)
   * @param clock times the changes, for sizing the event window
   * @param sizing bounds of the event window (default: upstream's)
   * @param rootType the schema type of the resource's objects, to decode them with at {@link prime}
   * @param onRead completes every object read from storage in place (see {@link decodeObject})
   */
  constructor(
    readonly prefix: string,
    private readonly observed: () => number,
    clock: Clock,
    sizing: EventWindowSizing = {},
    private readonly rootType?: string,
    private readonly onRead?: (obj: KubeObject) => void,
  ) {
    this.window = new EventWindow(clock, sizing);
  }

  /**
   * Loads the objects listed at `revision`. They are decoded as the resource's type: objects a
   * kubeplane older than its decoder stored (a `null` inside a list, say) come back as upstream would
   * decode them, or unreadable. Later changes were decoded when they were written and are not
   * decoded again (that would cost ~7 µs per pod event).
   */
  prime(kvs: readonly KeyValue[], revision: number): void {
    for (const kv of kvs) {
      try {
        this.setObject(kv.key, decodeObject(kv, this.rootType, this.onRead));
      } catch (err) {
        this.unreadable.set(kv.key, asReadError(err));
      }
    }
    this.snapshots.clear();
    this.primedAt = revision;
    this.window.reset(revision);
  }

  /**
   * Replaces every object with those listed at `revision` (the feed relisted after its storage watch
   * ended, as upstream's watch cache `Replace`s on a reflector relist): objects not listed are dropped,
   * the event window restarts at `revision`, and every watcher is ended, to watch again from its last
   * resourceVersion (410 Expired if that is older than `revision`, and the client relists).
   */
  replace(kvs: readonly KeyValue[], revision: number): void {
    this.closeWatchers();
    const listed = new Set(kvs.map((kv) => kv.key));
    for (const key of [...this.objects.keys()]) if (!listed.has(key)) this.deleteObject(key);
    this.unreadable.clear();
    this.prime(kvs, revision);
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
    this.dropOldSnapshots();
  }

  /** Number of cached objects under `prefix` (the whole resource by default). */
  count(prefix = this.prefix): number {
    return prefix === this.prefix ? this.objects.size : this.ordered.countAfter(prefix);
  }

  /** The current object at `key` (undefined also when its value is unreadable: see {@link readError}). */
  get(key: string): KubeObject | undefined {
    return this.objects.get(key);
  }

  /** The cached object of `key` when it is the one stored at revision `rev`, else undefined. */
  objectAt(key: string, rev: number): KubeObject | undefined {
    const obj = this.objects.get(key);
    return obj !== undefined && obj.metadata?.resourceVersion === String(rev) ? obj : undefined;
  }

  /** The 500 a read of `key` answers when its stored value cannot be read (see the module comment). */
  readError(key: string): StatusError | undefined {
    return this.unreadable.get(key);
  }

  /** Current `[key, object]` pairs under `prefix`, in key order. */
  entries(prefix: string): Generator<[string, KubeObject]> {
    return this.ordered.entries(prefix);
  }

  /**
   * The current objects in key order: the live store, valid until the next change is applied (read
   * it in one synchronous step; {@link snapshotAt} at {@link revision} keeps it for later).
   */
  current(): OrderedView<KubeObject> {
    return this.ordered;
  }

  /**
   * The objects as they were at revision `rv` (upstream's `snapshots.GetLessOrEqual`, watch_cache.go
   * `listExactRV`), or undefined when the cache cannot tell: `rv` is older than the event window
   * ({@link oldestResumableRevision}: some change after it has left) or newer than the cache
   * ({@link revision}). Built from the current objects by undoing the window's changes after `rv`
   * (each change carries the object it replaced) on an O(1) snapshot, and kept for the next page of
   * the same list; at most {@link MAX_SNAPSHOTS} are kept, and those from before the window are dropped
   * as it advances. Upstream instead snapshots its B-tree at every change; building on demand keeps
   * no copied chunks for revisions nobody lists at.
   */
  snapshotAt(rv: number): OrderedView<KubeObject> | undefined {
    if (rv > this.revision || rv < this.window.oldestResumableRevision) return undefined;
    const id = this.window.lastChangeAtOrBefore(rv);
    const kept = this.snapshots.get(id);
    if (kept) {
      // Most recently used last: eviction takes the first.
      this.snapshots.delete(id);
      this.snapshots.set(id, kept);
      return kept;
    }
    const later = this.window.eventsAfter(id) ?? [];
    let view = this.ordered.snapshot();
    if (later.length > 0) {
      const past = view.fork();
      for (let i = later.length - 1; i >= 0; i--) {
        const ev = later[i] as CacheEvent;
        // The state before a change: the object it replaced, or none for a creation.
        if (ev.prevObject) past.set(ev.key, ev.prevObject);
        else past.delete(ev.key);
      }
      view = past;
    }
    this.snapshots.set(id, view);
    if (this.snapshots.size > MAX_SNAPSHOTS) this.snapshots.delete(this.snapshots.keys().next().value as number);
    return view;
  }

  /** Number of snapshots kept (for tests). */
  get snapshotCount(): number {
    return this.snapshots.size;
  }

  /** Drops the snapshots of revisions the window no longer reaches (no request can name them again). */
  private dropOldSnapshots(): void {
    const oldest = this.window.oldestResumableRevision;
    for (const id of this.snapshots.keys()) if (id < oldest) this.snapshots.delete(id);
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
    let object: KubeObject | undefined;
    try {
      object = (sev.type !== 'delete' && this.written(kv)) || decodeObject(kv, undefined, this.onRead);
    } catch (err) {
      if (sev.type !== 'delete') return this.becameUnreadable(kv.key, asReadError(err), prev, kv.modRevision);
    }
    this.unreadable.delete(kv.key);
    let ev: CacheEvent;
    if (sev.type === 'delete') {
      // The last state at the delete's revision; from the cache when the stored one is unreadable.
      object ??= prev && withResourceVersion(prev, kv.modRevision);
      if (!object) return;
      this.deleteObject(kv.key);
      ev = { type: 'DELETED', key: kv.key, object, rv: kv.modRevision };
      ev.prevObject = prev ?? object;
    } else {
      if (!object) return; // not reached: an unreadable write returned above
      this.setObject(kv.key, object);
      ev = { type: prev ? 'MODIFIED' : 'ADDED', key: kv.key, object, rv: kv.modRevision };
      if (prev) ev.prevObject = prev;
    }
    this.emit(ev);
  }

  /**
   * Tells the cache that this process is writing `obj` to `key` as `json` (its storage encoding), so
   * that when storage reports the change, the cache keeps `obj` (with the change's resourceVersion)
   * rather than decoding the value again: the writer's object and what the decoding would build are
   * equal, and sharing it saves the decoding (about a fifth of a small update's work) and keeps the
   * identity of its parts, which the field manager's caches of decoded managedFields key on. The
   * writer must not change `obj` after this, apart from `metadata` (a change's object copies it). A
   * later write of the key replaces the note; {@link forgetWrite} drops it when the write fails.
   */
  expectWrite(key: string, json: string, obj: KubeObject): void {
    if (this.onRead) return; // objects completed on read (custom resources' defaults) are decoded
    this.expected.set(key, { json, obj });
  }

  /** Drops the note of a write of `key` as `json` that storage refused. */
  forgetWrite(key: string, json: string): void {
    if (this.expected.get(key)?.json === json) this.expected.delete(key);
  }

  /**
   * The noted object of a change that stores exactly what a write of this process encoded, frozen,
   * with the change's resourceVersion; undefined when there is none or the object is not what JSON
   * decoding would give back (an `undefined` member, a non-finite number), so it is decoded instead.
   */
  private written(kv: KeyValue): KubeObject | undefined {
    const noted = this.expected.get(kv.key);
    if (!noted) return undefined;
    this.expected.delete(kv.key);
    if (kv.readError !== undefined || noted.json !== kv.value) return undefined;
    const obj = { ...noted.obj, metadata: { ...noted.obj.metadata, resourceVersion: String(kv.modRevision) } };
    return freezeIfJson(obj) ? obj : undefined;
  }

  /** A write stored a value that cannot be read: reads of the key fail, and it leaves lists and watches. */
  private becameUnreadable(key: string, err: StatusError, prev: KubeObject | undefined, rv: number): void {
    this.unreadable.set(key, err);
    if (!prev) return;
    this.deleteObject(key);
    this.emit({ type: 'DELETED', key, object: withResourceVersion(prev, rv), prevObject: prev, rv });
  }

  private setObject(key: string, obj: KubeObject): void {
    this.objects.set(key, obj);
    this.ordered.set(key, obj);
    this.changeCount++;
  }

  private deleteObject(key: string): void {
    this.objects.delete(key);
    this.ordered.delete(key);
    this.changeCount++;
  }

  /**
   * How many times an object was set or removed: unchanged means every object is the same, so a
   * reader may keep what it derived from them (RBAC's binding lists).
   */
  get changes(): number {
    return this.changeCount;
  }

  private emit(ev: CacheEvent): void {
    const oldest = this.window.oldestResumableRevision;
    this.window.push(ev);
    if (this.snapshots.size > 0 && this.window.oldestResumableRevision !== oldest) this.dropOldSnapshots();
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
}

/**
 * Deep-freezes `v` in place while checking that it is plain JSON data, as JSON.parse builds it: plain
 * objects and arrays, strings, finite numbers, booleans and null, with no `undefined` member (which
 * JSON leaves out). Returns false at the first value that is not (part of `v` may then be frozen).
 * Frozen parts are not walked again: they were frozen by this walk or by decoding, both of which
 * only freeze JSON data.
 */
function freezeIfJson(v: unknown): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v);
  if (typeof v !== 'object') return false;
  if (Object.isFrozen(v)) return true;
  if (Array.isArray(v)) {
    for (const x of v) if (!freezeIfJson(x)) return false;
  } else {
    const proto: unknown = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return false;
    for (const k in v) if (!freezeIfJson((v as Record<string, unknown>)[k])) return false;
  }
  Object.freeze(v);
  return true;
}
