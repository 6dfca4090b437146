/**
 * A {@link Backend} that hands every call to the backend it wraps: the base of wrappers that change a
 * few calls (value transformation, metrics) and pass the rest through, so each one writes only what
 * it changes and a method added to the contract reaches every wrapper in one place.
 */
import type { Backend, KeyValue, ListOptions, ListResult, WatchEvent, WatchHandle, WatchOptions } from './interface.js';

/** Forwards every call to `inner` (see the module comment). */
export class ForwardingBackend implements Backend {
  constructor(protected readonly inner: Backend) {}

  currentRevision(): number {
    return this.inner.currentRevision();
  }

  fetchCurrentRevision(): Promise<number> {
    return this.inner.fetchCurrentRevision();
  }

  compactedRevision(): number {
    return this.inner.compactedRevision();
  }

  get(key: string): Promise<KeyValue | undefined> {
    return this.inner.get(key);
  }

  list(prefix: string, opts?: ListOptions): Promise<ListResult> {
    return this.inner.list(prefix, opts);
  }

  count(prefix: string): Promise<number> {
    return this.inner.count(prefix);
  }

  create(key: string, value: string): Promise<KeyValue> {
    return this.inner.create(key, value);
  }

  update(key: string, value: string, expectedRevision: number): Promise<KeyValue> {
    return this.inner.update(key, value, expectedRevision);
  }

  delete(key: string, expectedRevision: number): Promise<KeyValue> {
    return this.inner.delete(key, expectedRevision);
  }

  watch(prefix: string, fromRevision: number, handler: (events: WatchEvent[]) => void, opts?: WatchOptions): WatchHandle {
    return this.inner.watch(prefix, fromRevision, handler, opts);
  }

  compact(revision: number): Promise<void> {
    return this.inner.compact(revision);
  }

  flush(): Promise<void> {
    return this.inner.flush();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  sizeBytes(): number | undefined {
    return this.inner.sizeBytes?.();
  }
}
