/**
 * The generic store: one per resource, running the same request path for every kind over the storage
 * Backend and the resource's watch cache, and calling the kind's {@link ResourceStrategy} at upstream's
 * fixed points. Follows k8s.io/apiserver/pkg/registry/generic/registry/store.go (`Store.Create`,
 * `Update`, `Delete`, `updateForGracefulDeletionAndFinalizers`), rest/create.go `BeforeCreate`,
 * rest/update.go `BeforeUpdate`, and storage/etcd3/store.go `GuaranteedUpdate`.
 *
 * Reads come from the watch cache: `resourceVersion` unset waits until the cache has seen the
 * backend's current revision (a consistent read, KEP-2340), `"0"` takes the cache as it is, `N` waits
 * for N. Paginated reads at an exact revision and continue tokens go to storage.
 *
 * Writes serialize the object once (JSON without resourceVersion) and return the written object,
 * frozen, with `metadata.resourceVersion` = the new revision; the cache decodes the change once from
 * its storage watch.
 */
import type { KubeList, KubeObject } from '../../../api/index.js';
import type { PatchType, WatchEvent, WatchStream } from '../../../api/request.js';
import { deepFreeze } from '../../../machinery/meta/index.js';
import {
  StatusError,
  field,
  isAlreadyExists,
  newAlreadyExists,
  newBadRequest,
  newConflict,
  newInternalError,
  newInvalid,
  newNotFound,
  newResourceExpired,
  newTimeoutError,
  statusDetails,
  type FieldError,
  type GroupResource,
} from '../../../machinery/errors/index.js';
import { isValidPathSegmentName, validateObjectMeta, validateObjectMetaUpdate } from '../../../machinery/validation/index.js';
import type { Backend, KeyValue } from '../../../storage/interface.js';
import { StorageError } from '../../../storage/interface.js';
import { formatTime, type Clock } from '../../../util/clock/index.js';
import { randomString, type Rand } from '../../../util/random/index.js';
import { CacheWatcher } from '../../watchcache/cache-watcher.js';
import type { CacheFeed } from '../../watchcache/cache-feed.js';
import { decodeObject, type WatchCache } from '../../watchcache/watch-cache.js';
import type { ResourceInfo, ResourceStrategy, VersionConversion } from '../strategy.js';
import type { StorageExtension, UpdateStrategy } from '../extension.js';
import { decodeContinue, encodeContinue } from './continue.js';
import { apiVersionOf, decodeBody, decodeTyped, pruneUnknown, unknownFieldMessage } from './decode.js';
import { maxDepthError } from '../../../machinery/serializer/index.js';
import { beforeDelete, gcFinalizers, markAsDeleting } from './deletion.js';
import { clone, encodeForStorage, equalIgnoringResourceVersion, metaOf } from './objects.js';
import {
  parseDeleteOptions,
  parseDryRun,
  parseFieldValidation,
  parseListOptions,
  parseResourceVersion,
  type DeleteOptions,
  type FieldValidation,
} from './options.js';
import { applyPatch, checkPatchType } from './patch.js';
import { newPredicate, type SelectionPredicate } from './predicate.js';
import { rootTypeName } from '../../../api/schema/index.js';

type Query = Record<string, string>;

/**
 * Which update strategy an update runs: the main resource's, `/status`'s, or a subresource's own
 * (the namespace `/finalize`, see {@link UpdateStrategy}).
 */
export type UpdateMode = 'main' | 'status' | UpdateStrategy;

/**
 * A served version of the store's resource other than the stored one (another version of the same
 * resource, or another resource viewing the same objects, as events.k8s.io/v1 views core Events):
 * its identity and the conversion. Requests in that version are decoded and patched in it and
 * converted to the stored version; see {@link Store.fromStorage} for the way back.
 */
export interface StoreView {
  info: ResourceInfo;
  conversion: VersionConversion;
}

/** Result of a write: the response object and whether it was created. */
export interface WriteResult {
  obj: KubeObject;
  created: boolean;
}

/** A delete's response: the object (still present, or a kind that returns it) or a Success Status. */
export interface DeleteResult {
  code: number;
  body: unknown;
}

/** What a store needs from the server around it. */
export interface StoreOptions {
  strategy: ResourceStrategy;
  backend: Backend;
  cache: WatchCache;
  feed: CacheFeed;
  clock: Clock;
  rand: Rand;
  /**
   * Admission before a create of a namespaced object (the NamespaceLifecycle plugin): throws when
   * `namespace` does not exist or is terminating. `name` is the object's name for the error.
   */
  admitCreate?: (namespace: string, name: string, gr: GroupResource) => Promise<void>;
  /** Admission before a delete (NamespaceLifecycle's immortal namespaces). */
  admitDelete?: (name: string, gr: GroupResource) => void;
}

/** The storage prefix of a resource: `/registry/<group or core>/<resource>/`. */
export function resourcePrefix(info: { group: string; resource: string }): string {
  return `/registry/${info.group || 'core'}/${info.resource}/`;
}

/** Concurrent deletes of one deletecollection request (upstream `--delete-collection-workers`, ours larger: storage batches them). */
const DELETE_COLLECTION_WORKERS = 64;

/** upstream `maxNameGenerationCreateAttempts`: 8 attempts keep collisions under 0.1% at 1M names. */
const MAX_NAME_GENERATION_ATTEMPTS = 8;

/** `path.IsValidPathSegmentName`, which upstream's key functions enforce (400 otherwise). */
function checkPathSegment(name: string): void {
  const msgs = isValidPathSegmentName(name);
  if (msgs.length > 0) throw newBadRequest(`Name parameter invalid: ${JSON.stringify(name)}: ${msgs.join(';')}`);
}

/** 504 `Too large resource version: N, current: M` (storage.NewTooLargeResourceVersionError). */
export function tooLargeResourceVersion(rv: number, current: number): StatusError {
  const err = newTimeoutError(`Too large resource version: ${rv}, current: ${current}`, 1);
  err.status.details = { ...err.status.details, causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }] };
  return err;
}

/**
 * 410 Expired for a watch from before the watch cache's window (cacher/watch_cache.go
 * `getAllEventsSinceLocked`): `oldest` is the oldest resourceVersion a watch can still start from.
 */
export function tooOldResourceVersion(rv: number, oldest: number): StatusError {
  return newResourceExpired(`too old resource version: ${rv} (${oldest})`);
}

/** The 410 for a list at a compacted resourceVersion (etcd3/errors.go `expired`). */
const LIST_EXPIRED = 'The resourceVersion for the provided list is too old.';

/** The 410 for a continue token whose snapshot was compacted (etcd3 store `continueExpired`). */
const CONTINUE_EXPIRED =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** The current state of a key as a GuaranteedUpdate attempt sees it. */
interface State {
  obj: KubeObject | undefined;
  /** modRevision, 0 when absent. */
  rev: number;
  /** Read from storage just now (not from the possibly stale cache). */
  fresh: boolean;
  /** Read from storage and stored by a transformer that no longer writes (an old encryption key): rewrite it. */
  stale?: boolean;
}

/** What one GuaranteedUpdate attempt decided. */
type Outcome = { action: 'write'; obj: KubeObject } | { action: 'delete'; respond?: KubeObject };

interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

/** Thrown inside graceful-deletion updates to leave the retry loop (upstream's errDeleteNow / errAlreadyDeleting). */
class DeleteSignal extends Error {
  constructor(readonly kind: 'deleteNow' | 'alreadyDeleting') {
    super(kind);
  }
}

/** The generic store of one resource. */
export class Store {
  readonly strategy: ResourceStrategy;
  readonly gr: GroupResource;
  readonly prefix: string;
  /** What the kind's own storage adds (see {@link StorageExtension}); empty for most kinds. */
  readonly extension: StorageExtension;
  private readonly apiVersion: string;

  constructor(private readonly opts: StoreOptions) {
    this.strategy = opts.strategy;
    const { info } = opts.strategy;
    this.gr = { group: info.group, resource: info.resource };
    this.prefix = resourcePrefix(info);
    this.apiVersion = apiVersionOf(info);
    this.extension = opts.strategy.storage?.({ store: this, cache: opts.cache, backend: opts.backend, clock: opts.clock, rand: opts.rand }) ?? {};
  }

  /** Storage key of an object. @throws StatusError 400 for names that cannot be a path segment */
  keyFor(namespace: string | undefined, name: string): string {
    checkPathSegment(name);
    if (!this.strategy.info.namespaced) return this.prefix + name;
    checkPathSegment(namespace ?? '');
    return `${this.prefix}${namespace}/${name}`;
  }

  /** The key prefix of a list or watch: one namespace, or all. */
  prefixFor(namespace: string | undefined): string {
    return this.strategy.info.namespaced && namespace ? `${this.prefix}${namespace}/` : this.prefix;
  }

  // ---------------------------------------------------------------------------------------------
  // Reads.

  /** The cached object, without waiting for freshness (admission lookups). */
  cached(namespace: string | undefined, name: string): KubeObject | undefined {
    return this.opts.cache.get(this.keyFor(namespace, name));
  }

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

  /** Waits until the cache serves reads at `rv` (`''`: the backend's current revision; `'0'`: now). */
  async waitForResourceVersion(rv: string): Promise<void> {
    if (rv === '0') return;
    const current = this.opts.backend.currentRevision();
    const target = parseResourceVersion(rv) ?? current;
    if (target > current) throw tooLargeResourceVersion(target, current);
    await this.opts.feed.waitUntilFresh(target);
  }

  /** LIST with selectors, pagination and resourceVersion semantics. */
  async list(namespace: string | undefined, query: Query): Promise<KubeList> {
    const opts = parseListOptions(query, false);
    const pred = newPredicate(this.strategy, opts.labelSelector, opts.fieldSelector);
    const prefix = this.prefixFor(namespace);
    if (opts.continue !== '') {
      const token = decodeContinue(opts.continue, prefix);
      return this.listFromStorage(prefix, pred, opts.limit, token.rv === -1 ? undefined : token.rv, token.startAfter);
    }
    const rv = opts.resourceVersion;
    const exact = opts.resourceVersionMatch === 'Exact' || (opts.resourceVersionMatch === '' && opts.limit > 0 && rv !== '' && rv !== '0');
    if (exact) return this.listFromStorage(prefix, pred, opts.limit, parseResourceVersion(rv));
    await this.waitForResourceVersion(rv);
    return this.listFromCache(namespace, prefix, pred, opts.limit);
  }

  private newList(items: KubeObject[], rv: number, cont?: string, remaining?: number): KubeList {
    const metadata: KubeList['metadata'] = { resourceVersion: String(rv) };
    if (cont !== undefined) metadata.continue = cont;
    if (remaining !== undefined) metadata.remainingItemCount = remaining;
    Object.freeze(metadata);
    Object.freeze(items);
    return Object.freeze({ kind: this.strategy.info.listKind, apiVersion: this.apiVersion, metadata, items });
  }

  private listFromCache(namespace: string | undefined, prefix: string, pred: SelectionPredicate, limit: number): KubeList {
    const cache = this.opts.cache;
    const rv = cache.revision;
    // A single object named by metadata.name needs no scan (upstream's key trigger).
    const byName = pred.field.exactMatch('metadata.name');
    if (byName !== undefined && (namespace || !this.strategy.info.namespaced)) {
      const obj = cache.get(this.prefixFor(namespace) + byName);
      return this.newList(obj && pred.matches(obj) ? [obj] : [], rv);
    }
    const items: KubeObject[] = [];
    let lastKey = '';
    let more = false;
    for (const [key, obj] of cache.entries(prefix)) {
      if (!pred.matches(obj)) continue;
      if (limit > 0 && items.length === limit) {
        more = true;
        break;
      }
      items.push(obj);
      lastKey = key;
    }
    if (!more) return this.newList(items, rv);
    const remaining = pred.empty ? cache.count(prefix) - items.length : undefined;
    return this.newList(items, rv, encodeContinue(rv, lastKey, prefix), remaining);
  }

  private async listFromStorage(prefix: string, pred: SelectionPredicate, limit: number, revision: number | undefined, startAfter?: string): Promise<KubeList> {
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
      const current = this.opts.backend.currentRevision();
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

  // ---------------------------------------------------------------------------------------------
  // Create.

  /**
   * POST: decode (unknown fields per fieldValidation), defaults, admission, then up to 8 attempts
   * with freshly generated names when `generateName` is used (store.go `createWithGenerateNameRetry`).
   */
  async create(namespace: string | undefined, body: unknown, query: Query, warnings: string[], view?: StoreView): Promise<KubeObject> {
    const validation = parseFieldValidation(query, 'CreateOptions');
    const dryRun = parseDryRun(query, 'CreateOptions');
    const obj = this.decodeIn(view, body, validation, warnings);
    this.strategy.defaults(obj);
    const meta = metaOf(obj);
    if (this.strategy.info.namespaced && this.opts.admitCreate) {
      await this.opts.admitCreate(namespace ?? '', meta.name ?? meta.generateName ?? '', this.gr);
    }
    this.extension.mutateCreate?.(obj);
    const generate = !meta.name && !!meta.generateName;
    const attempts = generate ? MAX_NAME_GENERATION_ATTEMPTS : 1;
    for (let i = 1; ; i++) {
      try {
        return await this.createOnce(namespace, generate ? clone(obj) : obj, dryRun);
      } catch (err) {
        if (i >= attempts || !isAlreadyExists(err)) throw err;
      }
    }
  }

  private async createOnce(namespace: string | undefined, obj: KubeObject, dryRun: boolean): Promise<KubeObject> {
    const meta = metaOf(obj);
    this.fillSystemFields(obj);
    const generated = !meta.name && !!meta.generateName;
    if (generated) meta.name = (meta.generateName as string) + randomString(this.opts.rand, 5);
    const { beginCreate } = this.extension;
    if (!beginCreate) return this.createChecked(namespace, obj, dryRun, generated);
    await this.cacheCaughtUp();
    const finish = beginCreate(obj, dryRun);
    try {
      const created = await this.createChecked(namespace, obj, dryRun, generated);
      finish(true);
      return created;
    } catch (err) {
      finish(false);
      throw err;
    }
  }

  /**
   * Waits until the cache holds every write committed so far, so that begin hooks that derive their
   * state from the cache (service allocation) see completed deletes and creates.
   */
  private cacheCaughtUp(): Promise<void> {
    return this.opts.feed.waitUntilFresh(this.opts.backend.currentRevision());
  }

  /** The rest of {@link createOnce}: BeforeCreate, then the write. */
  private async createChecked(namespace: string | undefined, obj: KubeObject, dryRun: boolean, generated: boolean): Promise<KubeObject> {
    const meta = metaOf(obj);
    this.beforeCreate(obj, namespace);
    // storage.ErrResourceVersionSetOnCreate is not a Status, so upstream leaks it as a 500; a client
    // mistake is a 400 here (ADR 5).
    if (meta.resourceVersion) throw newBadRequest('resourceVersion should not be set on objects to be created');
    const name = meta.name as string;
    const key = this.keyFor(meta.namespace, name);
    if (dryRun) {
      if (await this.opts.backend.get(key)) throw newAlreadyExists(this.gr, name);
      return deepFreeze(obj);
    }
    let kv: KeyValue;
    try {
      kv = await this.opts.backend.create(key, encodeForStorage(obj));
    } catch (err) {
      if (!(err instanceof StorageError && err.code === 'KeyExists')) throw this.storageError(err, name);
      throw await this.alreadyExists(key, name, generated);
    }
    meta.resourceVersion = String(kv.modRevision);
    return deepFreeze(obj);
  }

  /** AlreadyExists as store.create words it: a generateName conflict (NewGenerateNameConflict), or `object is being deleted: …`. */
  private async alreadyExists(key: string, name: string, generated: boolean): Promise<StatusError> {
    const status = newAlreadyExists(this.gr, name).status;
    if (generated) {
      status.message = `${status.message ?? ''}, the server was not able to generate a unique name for the object`;
      status.details = { ...status.details, retryAfterSeconds: 1 };
    }
    const existing = await this.opts.backend.get(key);
    if (existing && tryDecode(existing)?.metadata?.deletionTimestamp) status.message = `object is being deleted: ${status.message ?? ''}`;
    return new StatusError(status);
  }

  /** `rest.FillObjectMetaSystemFields`: a new uid and creationTimestamp. */
  private fillSystemFields(obj: KubeObject): void {
    const meta = metaOf(obj);
    meta.uid = this.opts.rand.uuid();
    meta.creationTimestamp = formatTime(this.opts.clock.now());
  }

  /** The object's namespace from the URL, or 400 when the body names another (EnsureObjectNamespaceMatchesRequestNamespace). */
  private ensureNamespace(obj: KubeObject, namespace: string | undefined): void {
    const meta = metaOf(obj);
    if (!this.strategy.info.namespaced) {
      delete meta.namespace;
      return;
    }
    const requested = namespace ?? '';
    if (!meta.namespace) meta.namespace = requested;
    else if (meta.namespace !== requested) {
      throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
  }

  /** `rest.BeforeCreate`: namespace, no deletion fields, PrepareForCreate, then metadata + kind validation (422). */
  private beforeCreate(obj: KubeObject, namespace: string | undefined): void {
    this.ensureNamespace(obj, namespace);
    const meta = metaOf(obj);
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    this.strategy.prepareForCreate(obj, this.opts.clock.now());
    const errs = [...validateObjectMeta(meta, { namespaced: this.strategy.info.namespaced }, 'metadata'), ...this.strategy.validate(obj)];
    if (errs.length > 0) throw newInvalid({ group: this.strategy.info.group, kind: this.strategy.info.kind }, meta.name ?? '', errs);
  }

  // ---------------------------------------------------------------------------------------------
  // Update and patch.

  /** PUT of the main resource, `/status` or `/finalize`. */
  async update(
    namespace: string | undefined,
    name: string,
    body: unknown,
    query: Query,
    warnings: string[],
    mode: UpdateMode = 'main',
    view?: StoreView,
  ): Promise<WriteResult> {
    const validation = parseFieldValidation(query, 'UpdateOptions');
    const dryRun = parseDryRun(query, 'UpdateOptions');
    const obj = this.decodeIn(view, body, validation, warnings);
    this.strategy.defaults(obj);
    this.checkName(obj, namespace, name);
    const uid = obj.metadata?.uid;
    return this.updateObject(namespace, name, mode, dryRun, false, () => clone(obj), uid ? { uid } : undefined);
  }

  /**
   * PATCH of the main resource or `/status`: the patch is applied to the current object on every
   * attempt, so a patch without resourceVersion retries on conflicts, while a resourceVersion in the
   * patch is a precondition (409).
   */
  async patch(
    namespace: string | undefined,
    name: string,
    patchType: PatchType | undefined,
    patch: unknown,
    query: Query,
    warnings: string[],
    mode: UpdateMode = 'main',
    view?: StoreView,
  ): Promise<WriteResult> {
    checkPatchType(patchType);
    const validation = parseFieldValidation(query, 'PatchOptions');
    const dryRun = parseDryRun(query, 'PatchOptions');
    // The patch applies to the object in the request's version (its field paths are that version's).
    const info = view?.info ?? this.strategy.info;
    const root = rootTypeName(info.group, info.version, info.kind);
    return this.updateObject(namespace, name, mode, dryRun, false, (existing) => {
      if (!existing) throw newNotFound(this.gr, name);
      const current = view ? this.fromStorage(existing, view) : existing;
      const result = this.patchedObject(current, patchType, patch, root, validation, warnings, info);
      const patched = view ? this.toStorage(result, view) : result;
      this.strategy.defaults(patched);
      this.checkName(patched, namespace, name);
      return patched;
    });
  }

  /**
   * A request body decoded in `view`'s version (unknown fields and types checked against it) and
   * converted to the stored version, or decoded in the stored version when there is no view.
   * @throws StatusError 400 as {@link decodeBody}
   */
  private decodeIn(view: StoreView | undefined, body: unknown, validation: FieldValidation, warnings: string[]): KubeObject {
    if (!view) return decodeBody(this.strategy, body, validation, warnings);
    return this.toStorage(decodeBody(this.strategy, body, validation, warnings, view.info), view);
  }

  /**
   * `obj` (a private copy in `view`'s version) converted to the stored version, apiVersion and kind
   * set. The result is decoded as the stored type again: what a conversion builds from free-form
   * data (annotations) must not reach storage with a value of the wrong type or an unknown field.
   * @throws StatusError 400 for a conversion result that is not a valid stored object
   */
  private toStorage(obj: KubeObject, view: StoreView): KubeObject {
    const out = view.conversion.toStorage(obj);
    out.apiVersion = this.apiVersion;
    const { group, version, kind } = this.strategy.info;
    out.kind = kind;
    const typeError = decodeTyped(out, group, version, kind);
    if (typeError) throw newBadRequest(`${view.info.kind} in version ${JSON.stringify(view.info.version)} cannot be handled as a ${kind}: ${typeError}`);
    // Unknown fields there are dropped, as Go's json.Unmarshal into the typed struct drops them.
    pruneUnknown(out, group, version, kind);
    return out;
  }

  /**
   * A stored object as `view`'s version shows it: a new object with that version's apiVersion and
   * kind (the conversion gets a private copy).
   */
  fromStorage(obj: KubeObject, view: StoreView): KubeObject {
    const out = view.conversion.fromStorage(clone(obj));
    out.apiVersion = apiVersionOf(view.info);
    out.kind = view.info.kind;
    return out;
  }

  /**
   * Applies a patch to a copy of `current` and drops unknown fields; strict validation failures are
   * 422 Invalid on field `patch` as upstream's patcher reports them.
   */
  patchedObject(
    current: KubeObject,
    patchType: PatchType | undefined,
    patch: unknown,
    root: string | undefined,
    validation: FieldValidation,
    warnings: string[],
    info: { group: string; version: string; kind: string },
  ): KubeObject {
    checkPatchType(patchType);
    const result = applyPatch(clone(current), patchType, patch, root);
    if (result === null || typeof result !== 'object' || Array.isArray(result)) {
      throw newInvalid({ group: '', kind: '' }, '', [field.invalid('patch', JSON.stringify(result), `cannot restore struct from: ${Array.isArray(result) ? 'slice' : typeof result}`)]);
    }
    const obj = result as KubeObject;
    // Nesting a deep patch under a deep object can exceed the limit: the result is not decodable.
    const depthError = maxDepthError(obj);
    if (depthError) throw newInvalid({ group: '', kind: '' }, '', [field.invalid('patch', '', depthError)]);
    // A patch that leaves a value of the wrong type fails decoding: 422 on field `patch` (patch.go).
    const typeError = decodeTyped(obj, info.group, info.version, info.kind);
    if (typeError) throw newInvalid({ group: '', kind: '' }, '', [field.invalid('patch', JSON.stringify(obj), typeError)]);
    const unknown = pruneUnknown(obj, info.group, info.version, info.kind);
    if (unknown.length > 0 && validation === 'Strict') {
      throw newInvalid({ group: '', kind: '' }, '', [
        field.invalid('patch', JSON.stringify(obj), `strict decoding error: ${unknown.map(unknownFieldMessage).join(', ')}`),
      ]);
    }
    if (validation === 'Warn') for (const p of unknown) warnings.push(unknownFieldMessage(p));
    obj.apiVersion = apiVersionOf(info);
    obj.kind = info.kind;
    return obj;
  }

  /** `checkName`: the body's name must be the URL's, and its namespace (if any) the URL's. */
  checkName(obj: KubeObject, namespace: string | undefined, name: string): void {
    const meta = obj.metadata ?? {};
    if (meta.name !== name) {
      throw newBadRequest(`the name of the object (${meta.name ?? ''}) does not match the name on the URL (${name})`);
    }
    if (namespace && meta.namespace && meta.namespace !== namespace) {
      throw newBadRequest(`the namespace of the object (${meta.namespace}) does not match the namespace on the URL (${namespace})`);
    }
  }

  /**
   * `Store.Update`: runs `updatedObject` on the current state inside {@link guaranteedUpdate}, with
   * create-on-update, the resourceVersion precondition, `BeforeUpdate` and delete-on-update (an
   * update that empties the finalizers of an object being deleted removes it).
   */
  async updateObject(
    namespace: string | undefined,
    name: string,
    mode: UpdateMode,
    dryRun: boolean,
    forceAllowCreate: boolean,
    updatedObject: (existing: KubeObject | undefined) => KubeObject,
    preconditions?: Preconditions,
  ): Promise<WriteResult> {
    const key = this.keyFor(namespace, name);
    const allowCreate = this.strategy.allowCreateOnUpdate || forceAllowCreate;
    let created = false;
    // The begin hook of the latest attempt (guaranteedUpdate may retry); earlier ones are released.
    let finish: ((success: boolean) => void) | undefined;
    const { beginCreate, beginUpdate } = this.extension;
    if (beginUpdate || beginCreate) await this.cacheCaughtUp();
    const begin = (obj: KubeObject, existing: KubeObject | undefined): void => {
      finish?.(false);
      finish = mode !== 'main' ? undefined : existing ? beginUpdate?.(obj, existing, dryRun) : beginCreate?.(obj, dryRun);
    };
    let result: KubeObject;
    try {
      result = await this.guaranteedUpdate(key, name, { dryRun, ignoreNotFound: allowCreate, ...(preconditions ? { preconditions } : {}) }, (existing) => {
        if (!existing && !allowCreate) throw newNotFound(this.gr, name);
        const obj = updatedObject(existing);
        const meta = metaOf(obj);
        begin(obj, existing);
        if (!existing) {
          created = true;
          this.fillSystemFields(obj);
          this.beforeCreate(obj, namespace);
          delete meta.resourceVersion;
          return { action: 'write', obj };
        }
        created = false;
        const existingRV = existing.metadata?.resourceVersion ?? '';
        const newRV = meta.resourceVersion ?? '';
        if (newRV === '') {
          if (!this.strategy.allowUnconditionalUpdate) {
            // Upstream reports this with the resource in the Kind slot (store.go: the Invalid error has no Resource field).
            throw newInvalid({ group: this.gr.group, kind: this.gr.resource }, name, [
              field.invalid('metadata.resourceVersion', 0, 'must be specified for an update'),
            ]);
          }
          meta.resourceVersion = existingRV;
        } else if (newRV !== existingRV) {
          throw newConflict(this.gr, name);
        }
        this.beforeUpdate(obj, existing, mode, namespace);
        if (this.shouldDeleteDuringUpdate(obj, existing)) return { action: 'delete', respond: obj };
        return { action: 'write', obj };
      });
    } catch (err) {
      finish?.(false);
      throw err;
    }
    finish?.(true);
    return { obj: result, created };
  }

  /** `rest.BeforeUpdate` with the update strategy of `mode`. */
  private beforeUpdate(obj: KubeObject, existing: KubeObject, mode: UpdateMode, namespace: string | undefined): void {
    const meta = metaOf(obj);
    if (this.strategy.info.namespaced) {
      if (!meta.namespace) meta.namespace = namespace ?? '';
      else if (meta.namespace !== (namespace ?? '')) {
        throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
    } else delete meta.namespace;
    // Strategy hooks get private copies (strategy.ts contract); `existing` is the shared frozen object.
    const old = clone(existing);
    const oldMeta = metaOf(old);
    if (oldMeta.generation === undefined) delete meta.generation;
    else meta.generation = oldMeta.generation;
    if (mode === 'main') this.strategy.prepareForUpdate(obj, old);
    else if (mode === 'status') {
      if (this.strategy.prepareForStatusUpdate) this.strategy.prepareForStatusUpdate(obj, old);
      else keepAllButStatus(obj, old);
    } else mode.prepareForUpdate(obj, old);
    if (!meta.uid) meta.uid = oldMeta.uid ?? '';
    if (oldMeta.creationTimestamp) meta.creationTimestamp = oldMeta.creationTimestamp;
    if (oldMeta.deletionTimestamp) meta.deletionTimestamp = oldMeta.deletionTimestamp;
    if (oldMeta.deletionGracePeriodSeconds != null && meta.deletionGracePeriodSeconds == null) {
      meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
    }
    const errs: FieldError[] = [
      ...validateObjectMeta(meta, { namespaced: this.strategy.info.namespaced }, 'metadata'),
      ...validateObjectMetaUpdate(meta, oldMeta, 'metadata'),
    ];
    if (mode === 'main') errs.push(...this.strategy.validateUpdate(obj, old));
    else if (mode === 'status') errs.push(...(this.strategy.validateStatusUpdate?.(obj, old) ?? []));
    else errs.push(...mode.validateUpdate(obj, old));
    if (errs.length > 0) throw newInvalid({ group: this.strategy.info.group, kind: this.strategy.info.kind }, meta.name ?? '', errs);
  }

  /**
   * `ShouldDeleteDuringUpdate`: no finalizers left, a delete was requested, and no grace period runs
   * and whatever the kind adds ({@link StorageExtension.shouldDeleteDuringUpdate}).
   */
  private shouldDeleteDuringUpdate(obj: KubeObject, existing: KubeObject): boolean {
    if ((obj.metadata?.finalizers ?? []).length > 0) return false;
    const old = existing.metadata ?? {};
    if (!old.deletionTimestamp) return false;
    if ((old.deletionGracePeriodSeconds ?? 0) !== 0) return false;
    return this.extension.shouldDeleteDuringUpdate?.(obj) ?? true;
  }

  /**
   * storage `GuaranteedUpdate`: reads the current state (the cache first, storage after a failure
   * on possibly stale data), runs `tryUpdate`, and writes with compare-and-swap on the revision it
   * read, retrying with the state storage returns on conflict. An update that changes nothing
   * is not written (no new resourceVersion). Returns the stored (or, dry-run, would-be) object, frozen.
   */
  async guaranteedUpdate(
    key: string,
    name: string,
    opts: { dryRun: boolean; ignoreNotFound: boolean; preconditions?: Preconditions },
    tryUpdate: (existing: KubeObject | undefined) => Outcome,
  ): Promise<KubeObject> {
    let state = await this.loadState(key, false);
    for (;;) {
      let outcome: Outcome;
      try {
        if (!state.obj && !opts.ignoreNotFound) throw newNotFound(this.gr, name);
        if (state.obj && opts.preconditions) this.checkPreconditions(state.obj, opts.preconditions, name);
        outcome = tryUpdate(state.obj);
      } catch (err) {
        if (state.fresh) throw err;
        const fresh = await this.loadState(key, true);
        if (fresh.rev === state.rev) throw err;
        state = fresh;
        continue;
      }
      if (outcome.action === 'delete') {
        const respond = outcome.respond;
        if (opts.dryRun) return deepFreeze(respond ?? (state.obj as KubeObject));
        try {
          const kv = await this.opts.backend.delete(key, state.rev);
          return respond ? deepFreeze(respond) : decodeObject(kv);
        } catch (err) {
          const next = await this.stateAfterStorageError(err, key, name);
          if (!next.obj && respond) return deepFreeze(respond);
          state = next;
          continue;
        }
      }
      const obj = outcome.obj;
      if (state.obj && equalIgnoringResourceVersion(obj, state.obj)) {
        let stale = state.stale === true;
        if (!state.fresh) {
          const fresh = await this.loadState(key, true);
          if (fresh.rev !== state.rev) {
            state = fresh;
            continue;
          }
          stale = fresh.stale === true;
        }
        // Unchanged: no write, unless the stored value is stale (etcd3 store.go GuaranteedUpdate writes
        // `!origState.stale && bytes.Equal(...)` only), so rewriting objects re-encrypts them with the new key.
        if (!stale) return state.obj;
      }
      if (opts.dryRun) return deepFreeze(obj);
      try {
        const json = encodeForStorage(obj);
        const kv = state.obj ? await this.opts.backend.update(key, json, state.rev) : await this.opts.backend.create(key, json);
        metaOf(obj).resourceVersion = String(kv.modRevision);
        return deepFreeze(obj);
      } catch (err) {
        state = await this.stateAfterStorageError(err, key, name);
      }
    }
  }

  /**
   * After a failed CAS: the state storage reported (Conflict), or re-read. Other errors map to Status.
   * Every retry first yields one turn of the event loop. A backend's reads may lag its own pending
   * writes (SQLite's open batch: a key deleted in it still reads as live), and a retry loop that only
   * ever awaits promise callbacks starves the event loop, so the batch commit it waits for never
   * runs: that hung the whole server (`kubectl delete --force`, and orphan deletions under load).
   */
  private async stateAfterStorageError(err: unknown, key: string, name: string): Promise<State> {
    if (!(err instanceof StorageError)) throw err;
    if (err.code !== 'Conflict' && err.code !== 'KeyNotFound' && err.code !== 'KeyExists') throw this.storageError(err, name);
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (err.code === 'Conflict' && err.current) return freshState(err.current);
    return this.loadState(key, true);
  }

  /**
   * The object as storage holds it now, bypassing the cache (for kind storage that must decide on
   * the latest state, as a namespace DELETE does), or undefined when there is none.
   * @throws StatusError 400 for a name that cannot be a key, 500 for a value that cannot be read
   */
  async storedObject(namespace: string | undefined, name: string): Promise<KubeObject | undefined> {
    return (await this.loadState(this.keyFor(namespace, name), true)).obj;
  }

  private async loadState(key: string, fresh: boolean): Promise<State> {
    if (!fresh) {
      const obj = this.opts.cache.get(key);
      if (obj) return { obj, rev: Number(obj.metadata?.resourceVersion), fresh: false };
    }
    const kv = await this.opts.backend.get(key);
    return kv ? freshState(kv) : { obj: undefined, rev: 0, fresh: true };
  }

  /** storage `Preconditions.Check` → 409 Conflict `Precondition failed: …`. */
  private checkPreconditions(obj: KubeObject, pre: Preconditions, name: string): void {
    const meta = obj.metadata ?? {};
    if (pre.uid !== undefined && pre.uid !== meta.uid) {
      throw newConflict(this.gr, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${meta.uid ?? ''}`);
    }
    if (pre.resourceVersion !== undefined && pre.resourceVersion !== meta.resourceVersion) {
      throw newConflict(this.gr, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion ?? ''}`);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Delete.

  /**
   * DELETE (store.go `Delete`): preconditions; pods are deleted gracefully; objects with finalizers,
   * or whose propagation policy adds `orphan`/`foregroundDeletion`, only get a deletionTimestamp and
   * are returned (200); otherwise the object is removed and the answer is a Success Status (pods and
   * kinds with `returnDeletedObject`: the object). A kind's {@link StorageExtension.delete} runs first.
   */
  async delete(namespace: string | undefined, name: string, body: unknown, query: Query): Promise<DeleteResult> {
    const opts = parseDeleteOptions(body, query);
    const key = this.keyFor(namespace, name);
    this.opts.admitDelete?.(name, this.gr);
    const own = await this.extension.delete?.(namespace, name, opts);
    if (own) return own;
    const current = await this.loadState(key, true);
    if (!current.obj) throw newNotFound(this.gr, name);
    const now = this.opts.clock.now();
    const first = beforeDelete(this.strategy, clone(current.obj), { ...opts }, now);
    if (first.pendingGraceful) return this.finalizeDelete(current.obj, opts, false);
    const pendingFinalizers = (current.obj.metadata?.finalizers ?? []).length > 0;
    const preconditions: Preconditions = { ...opts.preconditions };
    let ignoreNotFound = false;
    let lastExisting: KubeObject | undefined;
    if (first.graceful || pendingFinalizers || gcFinalizers(this.strategy, current.obj, opts).changed) {
      let lastGraceful = 0;
      let pending = false;
      let out: KubeObject;
      try {
        out = await this.guaranteedUpdate(key, name, { dryRun: opts.dryRun, ignoreNotFound: false, preconditions }, (existing) => {
          const obj = clone(existing as KubeObject);
          const attempt = { ...opts };
          const r = beforeDelete(this.strategy, obj, attempt, now);
          if (r.pendingGraceful) throw new DeleteSignal('alreadyDeleting');
          const gc = gcFinalizers(this.strategy, obj, attempt);
          if (gc.changed) metaOf(obj).finalizers = gc.finalizers;
          pending = (obj.metadata?.finalizers ?? []).length > 0;
          if (!r.graceful) {
            if (!pending) throw new DeleteSignal('deleteNow');
            markAsDeleting(obj, now);
            return { action: 'write', obj };
          }
          lastGraceful = attempt.gracePeriodSeconds ?? 0;
          lastExisting = obj;
          return { action: 'write', obj };
        });
      } catch (err) {
        if (!(err instanceof DeleteSignal)) throw err;
        if (err.kind === 'alreadyDeleting') return this.finalizeDelete(current.obj, opts, false);
        out = current.obj;
        pending = false;
        lastGraceful = 0;
      }
      if (pending || lastGraceful > 0) return { code: opts.orphanDependents === false ? 202 : 200, body: out };
      if (opts.dryRun) return this.finalizeDelete(out, opts, true);
      if (lastExisting) {
        ignoreNotFound = true;
        if (preconditions.resourceVersion !== undefined) preconditions.resourceVersion = out.metadata?.resourceVersion ?? '';
      }
    }
    try {
      const deleted = await this.guaranteedUpdate(key, name, { dryRun: opts.dryRun, ignoreNotFound: false, preconditions }, () => ({ action: 'delete' }));
      return this.finalizeDelete(deleted, opts, true);
    } catch (err) {
      // A graceless pod delete races the kubelet's own delete; the loser still reports success.
      if (ignoreNotFound && lastExisting && err instanceof StatusError && err.code === 404) return this.finalizeDelete(lastExisting, opts, true);
      throw err;
    }
  }

  /**
   * DELETE on a collection (store.go `DeleteCollection`): lists what the selectors select, deletes
   * each item as {@link delete} would (an item already gone is skipped) and answers the list that was
   * selected. Up to {@link DELETE_COLLECTION_WORKERS} deletes run at once, as upstream's
   * `DeleteCollectionWorkers`, so the storage commits them in shared batches: a namespace of 10,000
   * pods is not emptied one commit at a time.
   */
  async deleteCollection(namespace: string | undefined, body: unknown, query: Query): Promise<KubeList> {
    const listQuery: Query = {};
    for (const k of ['labelSelector', 'fieldSelector', 'resourceVersion', 'resourceVersionMatch']) {
      const v = query[k];
      if (v !== undefined) listQuery[k] = v;
    }
    const list = await this.list(namespace, listQuery);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < list.items.length) {
        const item = list.items[next++] as KubeObject;
        try {
          await this.delete(item.metadata?.namespace, item.metadata?.name ?? '', body, query);
        } catch (err) {
          if (!(err instanceof StatusError && err.code === 404)) throw err;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(DELETE_COLLECTION_WORKERS, list.items.length) }, worker));
    return list;
  }

  /** `finalizeDelete`: the object for kinds that return it, else a Success Status naming it. */
  private finalizeDelete(obj: KubeObject, opts: DeleteOptions, deleted: boolean): DeleteResult {
    const code = !deleted && opts.orphanDependents === false ? 202 : 200;
    if (this.strategy.returnDeletedObject === true) return { code, body: obj };
    const meta = obj.metadata ?? {};
    const status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: statusDetails({ name: meta.name ?? '', group: this.gr.group, kind: this.gr.resource, uid: meta.uid ?? '' }),
    };
    return { code, body: deepFreeze(status) };
  }

  // ---------------------------------------------------------------------------------------------

  /**
   * Maps a storage failure to a Status (KeyNotFound 404, KeyExists 409, Conflict 409, Compacted 410 as
   * etcd3's `interpretListError`, FutureRevision 504).
   */
  storageError(err: unknown, name: string, rv?: number): unknown {
    if (!(err instanceof StorageError)) return err;
    switch (err.code) {
      case 'KeyNotFound':
        return newNotFound(this.gr, name);
      case 'KeyExists':
        return newAlreadyExists(this.gr, name);
      case 'Conflict':
        return newConflict(this.gr, name);
      case 'Compacted':
        return newResourceExpired(LIST_EXPIRED);
      case 'FutureRevision':
        return tooLargeResourceVersion(rv ?? 0, err.revision ?? this.opts.backend.currentRevision());
      case 'Internal':
        return newInternalError(err.message);
    }
  }
}

/** The state a storage read gives. @throws StatusError 500 when the value cannot be read (`decodeObject`) */
function freshState(kv: KeyValue): State {
  return { obj: decodeObject(kv), rev: kv.modRevision, fresh: true, ...(kv.stale ? { stale: true } : {}) };
}

/** The object of `kv`, or undefined when its stored value cannot be read (see `decodeObject`). */
function tryDecode(kv: KeyValue): KubeObject | undefined {
  try {
    return decodeObject(kv);
  } catch {
    return undefined;
  }
}

/** The default status update: everything but status comes from `old`. */
function keepAllButStatus(obj: KubeObject, old: KubeObject): void {
  const status = obj.status;
  for (const k of Object.keys(obj)) delete obj[k];
  Object.assign(obj, old);
  if (status === undefined) delete obj.status;
  else obj.status = status;
}
