/**
 * The generic store's core: a resource's identity and keys, the state read (cache first, storage
 * after a conflict) and storage's `GuaranteedUpdate`, and the mapping of storage errors to Statuses.
 * The verbs are layered on it as upstream's store.go groups them: store-read.ts (get, list, watch),
 * store-write.ts (create, update, patch) and store.ts (delete, and the concrete {@link Store}).
 */
import type { Authorizer, RuleResolver } from '../../authz/types.js';
import type { ServiceAccountTokens } from '../../authn/serviceaccount.js';
import type { KubeObject } from '../../../api/index.js';
import { deepFreeze } from '../../../machinery/meta/index.js';
import type { StatusError} from '../../../machinery/errors/index.js';
import { newAlreadyExists, newBadRequest, newConflict, newInternalError, newNotFound, newResourceExpired, newTimeoutError, type GroupResource } from '../../../machinery/errors/index.js';
import { isValidPathSegmentName } from '../../../machinery/validation/index.js';
import type { Backend, KeyValue } from '../../../storage/interface.js';
import { StorageError } from '../../../storage/interface.js';
import { type Clock } from '../../../util/clock/index.js';
import { type Rand } from '../../../util/random/index.js';
import type { CacheFeed } from '../../watchcache/cache-feed.js';
import { decodeObject, type WatchCache } from '../../watchcache/watch-cache.js';
import type { ResourceInfo, ResourceStrategy, VersionConversion } from '../strategy.js';
import type { TypeRef } from '../../../machinery/merge/index.js';
import type { Store } from './store.js';
import type { StorageExtension, UpdateStrategy } from '../extension.js';
import { apiVersionOf } from './decode.js';
import { encodeForStorage, equalIgnoringResourceVersion, metaOf } from './objects.js';

export type Query = Record<string, string>;

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
  /** The view's structured-merge type when it is not a built-in type (a custom resource version; see {@link ResourceStrategy.mergeType}). */
  mergeType?: TypeRef;
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
  /**
   * Whether writes record `metadata.managedFields` (default true, as upstream always does); false only
   * to measure what the tracking costs (`npm run bench`). Server-side apply works either way.
   */
  trackManagedFields?: boolean;
  /** The store of another served resource (see {@link StorageContext.storeOf}). */
  storeOf?: (group: string, resource: string) => Store | undefined;
  /** What the server serves (see {@link StorageContext.servedResources}). */
  servedResources?: () => readonly ResourceInfo[];
  /** Serves another resource (see {@link StorageContext.addResource}). */
  addResource?: (strategy: ResourceStrategy) => Promise<void>;
  /** Stops serving a resource (see {@link StorageContext.removeResource}). */
  removeResource?: (group: string, resource: string) => boolean;
  /** Admission before a delete (NamespaceLifecycle's immortal namespaces). */
  admitDelete?: (name: string, gr: GroupResource) => void;
  /** Validating admission of a create just before its write (the ResourceQuota plugin): throws to refuse. */
  validateCreate?: (obj: KubeObject, gr: GroupResource, dryRun: boolean) => Promise<void>;
  /** The server's service-account token issuer (default: one of the store's own, with a key of its own). */
  serviceAccountTokens?: ServiceAccountTokens;
  /** The server's authorizer (default: one that allows everything). */
  authorizer?: Authorizer & RuleResolver;
}

/** The storage prefix of a resource: `/registry/<group or core>/<resource>/`. */
export function resourcePrefix(info: { group: string; resource: string }): string {
  return `/registry/${info.group || 'core'}/${info.resource}/`;
}

/** Concurrent deletes of one deletecollection request (upstream `--delete-collection-workers`, ours larger: storage batches them). */
export const DELETE_COLLECTION_WORKERS = 64;

/** upstream `maxNameGenerationCreateAttempts`: 8 attempts keep collisions under 0.1% at 1M names. */
export const MAX_NAME_GENERATION_ATTEMPTS = 8;

/** `path.IsValidPathSegmentName`, which upstream's key functions enforce (400 otherwise). */
export function checkPathSegment(name: string): void {
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
export const LIST_EXPIRED = 'The resourceVersion for the provided list is too old.';

/** The 410 for a continue token whose snapshot was compacted (etcd3 store `continueExpired`). */
export const CONTINUE_EXPIRED =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** The current state of a key as a GuaranteedUpdate attempt sees it. */
export interface State {
  obj: KubeObject | undefined;
  /** modRevision, 0 when absent. */
  rev: number;
  /** Read from storage just now (not from the possibly stale cache). */
  fresh: boolean;
  /** Read from storage and stored by a transformer that no longer writes (an old encryption key): rewrite it. */
  stale?: boolean;
}

/** What one GuaranteedUpdate attempt decided. */
export type Outcome = { action: 'write'; obj: KubeObject } | { action: 'delete'; respond?: KubeObject };

export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

/** Thrown inside graceful-deletion updates to leave the retry loop (upstream's errDeleteNow / errAlreadyDeleting). */

/** The core every verb of the generic store builds on. */
export abstract class StoreCore {
  readonly strategy: ResourceStrategy;
  readonly gr: GroupResource;
  readonly prefix: string;
  /** What the kind's own storage adds (see {@link StorageExtension}); empty for most kinds. */
  abstract readonly extension: StorageExtension;
  protected readonly apiVersion: string;
  /** The served versions other than the stored one, by apiVersion (see {@link addView}). */
  readonly views = new Map<string, StoreView>();
  /** Writes this store has begun (creates and updates), for readers that must notice new objects early. */
  private writesStarted = 0;

  /**
   * How many writes this store has begun: a reader that found no objects in the cache can tell
   * whether a write has started since (admission/live-lookup.ts), before the cache shows it.
   */
  get writeCount(): number {
    return this.writesStarted;
  }

  /** The stored objects of this resource, as the watch cache holds them (`apiserver_storage_objects`). */
  objectCount(): number {
    return this.opts.cache.count();
  }

  constructor(protected readonly opts: StoreOptions) {
    this.strategy = opts.strategy;
    const { info } = opts.strategy;
    this.gr = { group: info.group, resource: info.resource };
    this.prefix = resourcePrefix(info);
    this.apiVersion = apiVersionOf(info);
  }

  /** Records a served version viewing this store (managedFields convert between versions through it). */
  addView(view: StoreView): void {
    this.views.set(apiVersionOf(view.info), view);
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


  /**
   * Every cached object of the resource, or of one namespace, without waiting for freshness (admission
   * lookups over a kind; the metrics API reads pods as metrics-server reads its informers' caches).
   */
  cachedObjects(namespace?: string): KubeObject[] {
    return Array.from(this.opts.cache.entries(this.prefixFor(namespace)), ([, obj]) => obj);
  }

  /** The watch cache's change counter ({@link WatchCache.changes}): equal counts, equal {@link cachedObjects}. */
  cacheChanges(): number {
    return this.opts.cache.changes;
  }

  /** The cached object, without waiting for freshness (admission lookups). */
  cached(namespace: string | undefined, name: string): KubeObject | undefined {
    return this.opts.cache.get(this.keyFor(namespace, name));
  }

  /**
   * storage `GuaranteedUpdate`: reads the current state (the cache first, storage after a failure
   * on possibly stale data), runs `tryUpdate` (which may be async), and writes with compare-and-swap on the revision it
   * read, retrying with the state storage returns on conflict. An update that changes nothing
   * is not written (no new resourceVersion). Returns the stored (or, dry-run, would-be) object, frozen.
   */
  async guaranteedUpdate(
    key: string,
    name: string,
    opts: { dryRun: boolean; ignoreNotFound: boolean; preconditions?: Preconditions },
    tryUpdate: (existing: KubeObject | undefined) => Outcome | Promise<Outcome>,
  ): Promise<KubeObject> {
    let state = await this.loadState(key, false);
    for (;;) {
      let outcome: Outcome;
      try {
        if (!state.obj && !opts.ignoreNotFound) throw newNotFound(this.gr, name);
        if (state.obj && opts.preconditions) this.checkPreconditions(state.obj, opts.preconditions, name);
        const tried = tryUpdate(state.obj);
        // Only a create-on-update awaits (its admission reads other kinds); updates stay synchronous.
        outcome = tried instanceof Promise ? await tried : tried;
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
        const kv = await this.write(key, obj, state.obj ? state.rev : undefined);
        metaOf(obj).resourceVersion = String(kv.modRevision);
        return deepFreeze(obj);
      } catch (err) {
        state = await this.stateAfterStorageError(err, key, name);
      }
    }
  }

  /**
   * Stores `obj` at `key`: a create when `rev` is undefined, else a compare-and-swap on `rev`. The
   * watch cache is told which object the change stores ({@link WatchCache.expectWrite}), so it keeps
   * this one rather than decoding it again; `obj` must not change afterwards apart from `metadata`.
   * @throws StorageError as the backend's create and update
   */
  protected async write(key: string, obj: KubeObject, rev: number | undefined): Promise<KeyValue> {
    this.writesStarted++;
    const json = encodeForStorage(obj);
    this.opts.cache.expectWrite(key, json, obj);
    try {
      return rev === undefined ? await this.opts.backend.create(key, json) : await this.opts.backend.update(key, json, rev);
    } catch (err) {
      this.opts.cache.forgetWrite(key, json);
      throw err;
    }
  }

  /**
   * After a failed CAS: the state storage reported (Conflict), or re-read. Other errors map to Status.
   * Every retry first yields one turn of the event loop. A backend's reads may lag its own pending
   * writes (SQLite's open batch: a key deleted in it still reads as live), and a retry loop that only
   * ever awaits promise callbacks starves the event loop, so the batch commit it waits for never
   * runs: that hung the whole server (`kubectl delete --force`, and orphan deletions under load).
   */
  protected async stateAfterStorageError(err: unknown, key: string, name: string): Promise<State> {
    if (!(err instanceof StorageError)) throw err;
    if (err.code !== 'Conflict' && err.code !== 'KeyNotFound' && err.code !== 'KeyExists') throw this.storageError(err, name);
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (err.code === 'Conflict' && err.current) return this.freshState(err.current);
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

  protected async loadState(key: string, fresh: boolean): Promise<State> {
    if (!fresh) {
      const obj = this.opts.cache.get(key);
      if (obj) return { obj, rev: Number(obj.metadata?.resourceVersion), fresh: false };
    }
    const kv = await this.opts.backend.get(key);
    return kv ? this.freshState(kv) : { obj: undefined, rev: 0, fresh: true };
  }

  /**
   * The state a storage read gives: the watch cache's object when it already holds this revision of
   * the key (usually: the cache follows storage closely), else the value decoded.
   * @throws StatusError 500 when the value cannot be read (`decodeObject`)
   */
  protected freshState(kv: KeyValue): State {
    const obj = this.opts.cache.objectAt(kv.key, kv.modRevision) ?? decodeObject(kv);
    return { obj, rev: kv.modRevision, fresh: true, ...(kv.stale ? { stale: true } : {}) };
  }

  /** storage `Preconditions.Check` → 409 Conflict `Precondition failed: …`. */
  protected checkPreconditions(obj: KubeObject, pre: Preconditions, name: string): void {
    const meta = obj.metadata ?? {};
    if (pre.uid !== undefined && pre.uid !== meta.uid) {
      throw newConflict(this.gr, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${meta.uid ?? ''}`);
    }
    if (pre.resourceVersion !== undefined && pre.resourceVersion !== meta.resourceVersion) {
      throw newConflict(this.gr, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion ?? ''}`);
    }
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

/** The object of `kv`, or undefined when its stored value cannot be read (see `decodeObject`). */
export function tryDecode(kv: KeyValue): KubeObject | undefined {
  try {
    return decodeObject(kv);
  } catch {
    return undefined;
  }
}

/**
 * The default status update: everything but status comes from `old`, except `metadata.managedFields`,
 * which the field manager has just set to record the status write (apiextensions-apiserver
 * pkg/registry/customresource/status_strategy.go `PrepareForUpdate` keeps them for the same reason).
 */
export function keepAllButStatus(obj: KubeObject, old: KubeObject): void {
  const status = obj.status;
  const managedFields = obj.metadata?.managedFields;
  for (const k of Object.keys(obj)) delete obj[k];
  Object.assign(obj, old);
  obj.metadata = { ...old.metadata };
  if (managedFields === undefined) delete obj.metadata.managedFields;
  else obj.metadata.managedFields = managedFields;
  if (status === undefined) delete obj.status;
  else obj.status = status;
}
