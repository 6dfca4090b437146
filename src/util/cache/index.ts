/**
 * A bounded cache with O(1) reads and writes and no per-read bookkeeping: two generations of at most
 * `capacity / 2` entries each. Writes go to the young generation; when it is full it becomes the old
 * one and the previous old one is dropped. A read that finds its key only in the old generation moves
 * it to the young one, so what is used keeps being kept. It holds at most `capacity` entries and
 * keeps every entry used within the last `capacity / 2` writes — an approximation of LRU without
 * reordering a list on every hit.
 */
export class GenerationalCache<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();
  private readonly generationSize: number;

  /** `capacity`: the most entries held (at least 2). */
  constructor(capacity: number) {
    this.generationSize = Math.max(1, Math.floor(capacity / 2));
  }

  /** The value of `key`, or undefined. */
  get(key: K): V | undefined {
    const v = this.young.get(key);
    if (v !== undefined) return v;
    const old = this.old.get(key);
    if (old !== undefined) {
      this.old.delete(key);
      this.set(key, old);
    }
    return old;
  }

  set(key: K, value: V): void {
    this.young.set(key, value);
    if (this.young.size >= this.generationSize) {
      this.old = this.young;
      this.young = new Map();
    }
  }

  /** Entries held. */
  get size(): number {
    return this.young.size + this.old.size;
  }
}
