/**
 * A bounded map that evicts the least recently used entry (groupcache's `lru.Cache`, which client-go's
 * event correlator uses): a read or a write makes its key the most recent, and a write past `max`
 * entries drops the least recent one. O(1) per call: a Map keeps insertion order, so moving a key to
 * the end is a delete and a set.
 */
export class LruCache<K, V> {
  private readonly map = new Map<K, V>();

  /** `max`: the most entries held (at least 1). */
  constructor(private readonly max: number) {}

  /** The value of `key` (now the most recently used), or undefined. */
  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: K, v: V): void {
    this.map.delete(key);
    this.map.set(key, v);
    if (this.map.size > Math.max(1, this.max)) {
      const oldest = this.map.keys().next().value as K;
      this.map.delete(oldest);
    }
  }

  /** Entries held. */
  get size(): number {
    return this.map.size;
  }
}
