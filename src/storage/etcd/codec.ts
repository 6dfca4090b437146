/**
 * Conversions between etcd's wire shapes (etcd3's `IKeyValue`, `IEvent`: bytes and decimal-string
 * revisions) and the {@link Backend} contract's (strings and numbers), and the mapping of etcd's errors
 * onto {@link StorageError} codes. Keys carry the backend's prefix in etcd and not in the contract.
 */

import type { IEvent, IKeyValue } from 'etcd3';
import { StorageError } from '../interface.js';
import type { KeyValue, WatchEvent } from '../interface.js';

/** The bytes of a key or value as etcd stores them (UTF-8). */
export function bytes(s: string): Buffer {
  return Buffer.from(s, 'utf8');
}

/**
 * The first key after every key that starts with `prefix`, in bytes (etcd's `GetPrefixRangeEnd`): the
 * last byte below 0xff incremented, the bytes after it dropped. The empty prefix, or one of only 0xff
 * bytes, has no upper bound: etcd's `"\0"` range end, meaning "every key from the start key on".
 */
export function rangeEnd(prefix: Buffer): Buffer {
  for (let i = prefix.length - 1; i >= 0; i--) {
    if ((prefix[i] as number) < 0xff) {
      const end = Buffer.from(prefix.subarray(0, i + 1));
      end[i] = (prefix[i] as number) + 1;
      return end;
    }
  }
  return Buffer.from([0]);
}

/** A stored version as the contract shows it: `prefixLength` bytes of backend prefix dropped, frozen. */
export function toKeyValue(kv: IKeyValue, prefixLength: number): KeyValue {
  return Object.freeze({
    key: kv.key.subarray(prefixLength).toString('utf8'),
    value: kv.value.toString('utf8'),
    createRevision: Number(kv.create_revision),
    modRevision: Number(kv.mod_revision),
  });
}

/**
 * A watch event as the contract shows it. A put of version 1 is a create. A delete carries the last
 * value and creation revision from `prev_kv` at the delete's own revision, as the other backends do;
 * undefined when etcd had no `prev_kv` to send (the previous version was compacted before the event
 * was sent: the watcher fell behind compaction).
 */
export function toWatchEvent(ev: IEvent, prefixLength: number): WatchEvent | undefined {
  const prev = ev.prev_kv ? toKeyValue(ev.prev_kv, prefixLength) : undefined;
  if (ev.type === 'Delete') {
    if (!prev) return undefined;
    const kv = Object.freeze({ ...prev, modRevision: Number(ev.kv.mod_revision) });
    return Object.freeze({ type: 'delete', kv, prevKv: prev });
  }
  const kv = toKeyValue(ev.kv, prefixLength);
  if (ev.kv.version === '1') return Object.freeze({ type: 'create', kv });
  if (!prev) return undefined;
  return Object.freeze({ type: 'update', kv, prevKv: prev });
}

/** True for etcd's `mvcc: required revision has been compacted`. */
export function isCompactedError(err: unknown): boolean {
  return err instanceof Error && err.message.includes('required revision has been compacted');
}

/** True for etcd's `mvcc: required revision is a future revision`. */
export function isFutureRevisionError(err: unknown): boolean {
  return err instanceof Error && err.message.includes('required revision is a future revision');
}

/** Any other failure of a call to etcd (unreachable, timed out, no leader) as `Internal`, with etcd's words. */
export function internalError(key: string, err: unknown): StorageError {
  if (err instanceof StorageError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new StorageError('Internal', key, `etcd: ${message}`);
}
