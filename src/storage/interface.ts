/**
 * The storage contract the API server needs, and nothing more: a revision log of keys whose values are
 * serialized objects (JSON text). Shaped after k3s-io/kine `pkg/server/types.go` (Backend) and
 * apiserver `pkg/storage/interfaces.go`, so an etcd v3 backend maps onto it one call per method:
 * create = txn(mod_revision == 0 → put), update = txn(mod_revision == rev → put), delete = txn(mod_revision
 * == rev → delete), list = range at revision, watch = watch from revision with prev_kv.
 *
 * Revisions: one global counter per store, strictly increasing; every create, update and delete takes
 * the next one. A new store starts at its own initial revision: 0 for memory and SQLite (the first
 * write is 1), 1 for a new etcd cluster (etcd counts its empty state as revision 1, so the first write
 * is 2). Revisions are gap-free as long as nothing else writes to the store (an etcd cluster shared
 * with other clients leaves gaps, as it does upstream). The revision of an object is its
 * `modRevision`, which the API server exposes as `metadata.resourceVersion`.
 *
 * A remote store (etcd) is shared with other API servers, so what one process knows of it lags:
 * {@link Backend.currentRevision} is what this process has seen, {@link Backend.fetchCurrentRevision}
 * asks the store, and a watch reports progress so a cache can tell it has caught up with a revision
 * that touched none of its keys (ADR 20).
 *
 * Keys look like `/registry/<group>/<resource>/<namespace>/<name>` (or without namespace); listing and
 * watching take a prefix that ends in `/`.
 */

/** One stored version of a key. */
export interface KeyValue {
  key: string;
  /** Serialized object (JSON text). */
  value: string;
  /** Revision at which the key was (last) created. */
  createRevision: number;
  /** Revision of this version (for a deletion event: the revision of the delete). */
  modRevision: number;
  /**
   * Set (true) only by a value-transforming wrapper (storage/value) when the stored value was written
   * by a transformer that no longer writes (an old key or provider): the value should be rewritten even
   * if it did not change, as upstream's `TransformFromStorage` reports `stale`. Absent otherwise.
   */
  stale?: boolean;
  /**
   * Set only by a value-transforming wrapper when the stored value could not be transformed back (no
   * key for it, tampered data): why, in upstream's words. `value` is then the raw stored text, which
   * must not be decoded; reads of this key fail with a 500 InternalError carrying this message.
   */
  readError?: string;
}

/** A change delivered by {@link Backend.watch}. */
export interface WatchEvent {
  /** `create`: the key did not exist before; `update`: it did; `delete`: it was removed. */
  type: 'create' | 'update' | 'delete';
  /**
   * The new version. For `delete`, `value` is the last stored value and `modRevision` is the revision
   * of the delete itself (so watchers see the deletion at its own revision).
   */
  kv: KeyValue;
  /** The previous version, for `update` and `delete`. */
  prevKv?: KeyValue;
}

/** Options of {@link Backend.list}. */
export interface ListOptions {
  /**
   * Read the prefix as it was at this revision (0 or undefined: the current revision). A revision
   * at or below the compacted revision fails with `Compacted`; one above the current revision fails
   * with `FutureRevision`.
   */
  revision?: number;
  /** At most this many keys (0 or undefined: no limit). */
  limit?: number;
  /** Start after this key (exclusive); used for pagination together with `revision`. */
  startAfter?: string;
}

/** Result of {@link Backend.list}. */
export interface ListResult {
  /** Live keys under the prefix at `revision`, sorted by key. */
  kvs: KeyValue[];
  /** The revision this list was read at (the current revision if none was asked for). */
  revision: number;
  /** True when `limit` cut the result short; continue with `startAfter` = last key and the same revision. */
  more: boolean;
  /** How many live keys remain after the returned ones (only meaningful when `more`). */
  remaining: number;
}

/** A running watch. */
export interface WatchHandle {
  /** Ends the watch; no handler, progress or error call follows. */
  stop(): void;
  /**
   * Asks for a progress notification (etcd's `WatchProgressRequest`): {@link WatchOptions.onProgress}
   * is called with a revision R once every change under the prefix up to R has been delivered. R is
   * at least what the store held when it answered; a backend may answer late (etcd answers only a
   * watch that has caught up), so a caller still waiting asks again later.
   */
  requestProgress(): void;
}

/** Optional callbacks of {@link Backend.watch}. */
export interface WatchOptions {
  /** Progress: every change up to `revision` has been delivered (see {@link WatchHandle.requestProgress}). */
  onProgress?: (revision: number) => void;
  /**
   * The watch ended on its own and cannot resume: `Compacted` when the store compacted history it
   * still had to deliver (it fell behind while disconnected), `Internal` otherwise. No call follows.
   * Memory and SQLite watches never end on their own.
   */
  onError?: (err: StorageError) => void;
}

/** A storage backend. All methods may throw {@link StorageError}. */
export interface Backend {
  /**
   * The newest revision this process has seen the store reach: the store's own revision for memory
   * and SQLite (their only writer is this process), for etcd the highest revision in any answer or
   * watch event so far (another API server may have written since). The initial revision before the
   * first write (see the module comment).
   */
  currentRevision(): number;
  /**
   * The store's current revision, asked from the store (a linearizable read for etcd, upstream's
   * `GetCurrentResourceVersion`): what a consistent read must wait for. Also raises
   * {@link currentRevision}. Throws `Internal` when the store cannot be reached.
   */
  fetchCurrentRevision(): Promise<number>;
  /**
   * Highest compacted revision this process knows of (0 if never compacted): history at or below it
   * is gone.
   */
  compactedRevision(): number;
  /** The current version of `key`, or undefined. */
  get(key: string): Promise<KeyValue | undefined>;
  /** Live keys under `prefix`, see {@link ListOptions}. */
  list(prefix: string, opts?: ListOptions): Promise<ListResult>;
  /** Number of live keys under `prefix`. */
  count(prefix: string): Promise<number>;
  /** Creates `key`; throws `KeyExists` if it is live. Returns the stored version. */
  create(key: string, value: string): Promise<KeyValue>;
  /**
   * Replaces `key` if its current modRevision equals `expectedRevision` (compare-and-swap). Throws
   * `KeyNotFound` if the key is not live, `Conflict` (with `current`) if the revision differs.
   */
  update(key: string, value: string, expectedRevision: number): Promise<KeyValue>;
  /**
   * Deletes `key` if its current modRevision equals `expectedRevision` (0: unconditionally). Throws
   * `KeyNotFound` or `Conflict` as {@link Backend.update}. Returns the deleted value at the revision
   * of the delete.
   */
  delete(key: string, expectedRevision: number): Promise<KeyValue>;
  /**
   * Calls `handler` with every change under `prefix` with revision > `fromRevision`, in revision
   * order, with no gap and no duplicate: first the retained history after `fromRevision`, then live
   * changes as they commit. Events committed together may arrive in one call; a handler runs only
   * after every write of this backend that took a revision it carries has resolved. Throws `Compacted`
   * when `fromRevision` < the compacted revision (the history it needs is gone), `FutureRevision` when
   * it is beyond {@link currentRevision}. A watch that later ends on its own reports it through
   * `opts.onError`.
   */
  watch(prefix: string, fromRevision: number, handler: (events: WatchEvent[]) => void, opts?: WatchOptions): WatchHandle;
  /** Drops history at or below `revision` (never the live version of a key). */
  compact(revision: number): Promise<void>;
  /** Resolves once every write accepted so far is durable. */
  flush(): Promise<void>;
  /** Flushes and releases resources; the backend is unusable afterwards. */
  close(): Promise<void>;
  /**
   * The bytes the database file takes, for a backend that has one (`apiserver_storage_size_bytes`,
   * etcd's db size); absent or undefined otherwise.
   */
  sizeBytes?(): number | undefined;
}

/** Why a storage call failed. */
export type StorageErrorCode = 'KeyNotFound' | 'KeyExists' | 'Conflict' | 'Compacted' | 'FutureRevision' | 'Internal';

/** A failed storage call; the API server maps codes to Status errors (NotFound, AlreadyExists, Conflict, Expired). */
export class StorageError extends Error {
  override readonly name = 'StorageError';

  constructor(
    readonly code: StorageErrorCode,
    readonly key: string,
    message: string,
    /** For `Conflict`: the current version of the key. */
    readonly current?: KeyValue,
    /** For `Compacted`: the compacted revision; for `FutureRevision`: the current revision. */
    readonly revision?: number,
  ) {
    super(message);
  }
}

/** True when `err` is a {@link StorageError} with `code`. */
export function isStorageError(err: unknown, code: StorageErrorCode): err is StorageError {
  return err instanceof StorageError && err.code === code;
}
