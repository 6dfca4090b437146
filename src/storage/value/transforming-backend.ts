/**
 * A {@link Backend} that stores the values of some keys transformed (encrypted at rest) and gives them
 * back as they were written, whatever backend it wraps (memory, SQLite, a future etcd). It sits where
 * upstream's etcd3 store calls its transformer (k8s.io/apiserver/pkg/storage/etcd3/store.go:
 * `TransformToStorage` on create and update, `TransformFromStorage` on get, list and watch, with the
 * storage key as authenticated data).
 *
 * Reads never throw for a value they cannot transform back: its KeyValue carries `readError` (and the
 * raw stored text), so one bad value fails the reads of that key only, never a list or a watch.
 * Values read through a transformer other than the writing one carry `stale: true`. Revisions, CAS,
 * compaction and watch ordering are the wrapped backend's, untouched.
 */
import { StorageError, isStorageError } from '../interface.js';
import type { Backend, KeyValue, ListOptions, ListResult, WatchEvent, WatchHandle, WatchOptions } from '../interface.js';
import { ForwardingBackend } from '../forwarding.js';
import type { Transformer } from './transformer.js';

/** The transformer of a key's values, or undefined to store them as they are. */
export type TransformerForKey = (key: string) => Transformer | undefined;

/** The value-transforming wrapper (see the module comment). */
export class TransformingBackend extends ForwardingBackend {
  constructor(
    inner: Backend,
    private readonly transformerFor: TransformerForKey,
  ) {
    super(inner);
  }

  override async get(key: string): Promise<KeyValue | undefined> {
    const kv = await this.inner.get(key);
    return kv && this.read(kv);
  }

  override async list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    const res = await this.inner.list(prefix, opts);
    return { ...res, kvs: res.kvs.map((kv) => this.read(kv)) };
  }

  override create(key: string, value: string): Promise<KeyValue> {
    return this.write(key, value, (stored) => this.inner.create(key, stored));
  }

  override update(key: string, value: string, expectedRevision: number): Promise<KeyValue> {
    return this.write(key, value, (stored) => this.inner.update(key, stored, expectedRevision));
  }

  override async delete(key: string, expectedRevision: number): Promise<KeyValue> {
    try {
      return this.read(await this.inner.delete(key, expectedRevision));
    } catch (err) {
      throw this.readConflict(err);
    }
  }

  /**
   * The wrapped watch, each call delivered one microtask later: a write here resolves one promise step
   * after the wrapped write, and the contract wants handlers to run after the writer has resumed.
   */
  override watch(prefix: string, fromRevision: number, handler: (events: WatchEvent[]) => void, opts: WatchOptions = {}): WatchHandle {
    let stopped = false;
    // Progress and errors follow the events delivered before them, so they take the same extra step.
    const later = (fn: () => void) =>
      queueMicrotask(() => {
        if (!stopped) fn();
      });
    const { onProgress, onError } = opts;
    const inner = this.inner.watch(
      prefix,
      fromRevision,
      (events) => {
        const read = events.map((ev) => this.readEvent(ev));
        later(() => handler(read));
      },
      {
        onProgress: onProgress && ((revision) => later(() => onProgress(revision))),
        onError: onError && ((err) => later(() => onError(err))),
      },
    );
    return {
      stop: () => {
        stopped = true;
        inner.stop();
      },
      requestProgress: () => inner.requestProgress(),
    };
  }

  /**
   * Stores `value` transformed through `store`, and answers with the plain value at the new revision.
   * One promise step after the wrapped write (see {@link watch} for why that matters).
   */
  private write(key: string, value: string, store: (stored: string) => Promise<KeyValue>): Promise<KeyValue> {
    const t = this.transformerFor(key);
    if (!t) return store(value);
    let stored: string;
    try {
      stored = t.transformToStorage(value, key);
    } catch (err) {
      return Promise.reject(new StorageError('Internal', key, err instanceof Error ? err.message : String(err)));
    }
    return store(stored).then(
      (kv) => Object.freeze({ ...kv, value }),
      (err: unknown) => {
        throw this.readConflict(err);
      },
    );
  }

  /** A Conflict's `current` version transformed back; other errors as they are. */
  private readConflict(err: unknown): unknown {
    if (!isStorageError(err, 'Conflict') || !err.current) return err;
    return new StorageError(err.code, err.key, err.message, this.read(err.current), err.revision);
  }

  /** `kv` with its value transformed back; on failure with `readError` (see the module comment). */
  private read(kv: KeyValue): KeyValue {
    const t = this.transformerFor(kv.key);
    if (!t) return kv;
    try {
      const out = t.transformFromStorage(kv.value, kv.key);
      if (!out.stale && out.data === kv.value) return kv; // identity: no copy
      return Object.freeze({ ...kv, value: out.data, ...(out.stale ? { stale: true } : {}) });
    } catch (err) {
      return Object.freeze({ ...kv, readError: err instanceof Error ? err.message : String(err) });
    }
  }

  private readEvent(ev: WatchEvent): WatchEvent {
    if (!this.transformerFor(ev.kv.key)) return ev;
    return Object.freeze({ ...ev, kv: this.read(ev.kv), ...(ev.prevKv ? { prevKv: this.read(ev.prevKv) } : {}) });
  }
}
