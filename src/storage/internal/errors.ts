/**
 * The errors and revision checks shared by the backends, and {@link settle} to turn them into
 * rejected promises.
 */

import { StorageError } from '../interface.js';
import type { KeyValue } from '../interface.js';

/**
 * Runs `fn` and returns its result as a promise; a throw becomes a rejection, so callers of an
 * async-shaped method never see a synchronous exception.
 */
export function settle<T>(fn: () => T | PromiseLike<T>): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
}

/** `KeyExists` for a create of a live key. */
export function keyExists(key: string): StorageError {
  return new StorageError('KeyExists', key, `key already exists: ${key}`);
}

/** `KeyNotFound` for an update or delete of a key that is not live. */
export function keyNotFound(key: string): StorageError {
  return new StorageError('KeyNotFound', key, `key not found: ${key}`);
}

/** `Conflict` for a compare-and-swap whose expected revision is not `current.modRevision`. */
export function conflict(key: string, expectedRevision: number, current: KeyValue): StorageError {
  return new StorageError(
    'Conflict',
    key,
    `revision mismatch for ${key}: expected ${expectedRevision}, current ${current.modRevision}`,
    current,
  );
}

/** `Compacted` (etcd's `mvcc: required revision has been compacted`); carries the compacted revision. */
export function compacted(key: string, compactedRevision: number): StorageError {
  return new StorageError(
    'Compacted',
    key,
    `required revision has been compacted (compacted revision ${compactedRevision})`,
    undefined,
    compactedRevision,
  );
}

/** `FutureRevision` (etcd's `mvcc: required revision is a future revision`); carries the current revision. */
export function futureRevision(key: string, revision: number, currentRevision: number): StorageError {
  return new StorageError(
    'FutureRevision',
    key,
    `required revision ${revision} is a future revision (current revision ${currentRevision})`,
    undefined,
    currentRevision,
  );
}

/** `Internal` for any call on a closed backend. */
export function closedError(key: string): StorageError {
  return new StorageError('Internal', key, 'storage backend is closed');
}

/**
 * Validates `revision` of {@link ListOptions} against the backend's compacted and current revisions:
 * returns true when it names a past revision (so the list must read history), false for the current
 * state (0, undefined or `currentRevision` itself). Throws `Compacted` when at or below the compacted
 * revision, `FutureRevision` when above the current one.
 */
export function isPastRevision(prefix: string, revision: number | undefined, compactedRevision: number, currentRevision: number): boolean {
  if (!revision) return false;
  if (revision > currentRevision) throw futureRevision(prefix, revision, currentRevision);
  if (revision <= compactedRevision) throw compacted(prefix, compactedRevision);
  return revision < currentRevision;
}

/**
 * Validates the start of {@link Backend.watch}: a watch from `fromRevision` needs every event above it,
 * so it throws `Compacted` when `fromRevision` < the compacted revision (events up to the compacted
 * revision are gone; a watch from exactly the compacted revision still has all it needs) and
 * `FutureRevision` when `fromRevision` > `currentRevision`.
 */
export function checkWatchStart(prefix: string, fromRevision: number, compactedRevision: number, currentRevision: number): void {
  if (fromRevision > currentRevision) throw futureRevision(prefix, fromRevision, currentRevision);
  if (fromRevision < compactedRevision) throw compacted(prefix, compactedRevision);
}

/**
 * Validates the revision of {@link Backend.compact}: throws `FutureRevision` when `revision` > the
 * current revision; returns false when it is at or below the compacted revision (nothing to do), true
 * when history up to it must be dropped.
 */
export function needsCompaction(revision: number, compactedRevision: number, currentRevision: number): boolean {
  if (revision > currentRevision) throw futureRevision('', revision, currentRevision);
  return revision > compactedRevision;
}
