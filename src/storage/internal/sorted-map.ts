/**
 * A map kept sorted by key, for prefix listing and pagination. Two views of the same entries:
 * - a hash index (key → entry), so get, has and replacing a value are O(1): a value lives in a mutable
 *   entry that both views share;
 * - a list of sorted chunks of entries (the layout of Python's `sortedcontainers.SortedList`), so an
 *   insert or delete costs a binary search over chunk ends plus a splice inside one chunk of at most
 *   {@link MAX_CHUNK} entries instead of an O(n) splice, and a range of ranks is copied out chunk by
 *   chunk. With 100k keys that is ~100–200 chunks.
 *
 * Keys compare as JavaScript strings (UTF-16 code units), the order `Array.prototype.sort` gives.
 */

/** Chunks split in two halves when they grow past this many entries. */
const MAX_CHUNK = 1024;

interface Entry<V> {
  readonly key: string;
  value: V;
}

export class SortedMap<V> {
  private readonly index = new Map<string, Entry<V>>();
  private readonly chunks: Entry<V>[][] = [];

  /** Number of entries. */
  get size(): number {
    return this.index.size;
  }

  /** The value of `key`, or undefined; O(1). */
  get(key: string): V | undefined {
    return this.index.get(key)?.value;
  }

  /** Sets the value of `key`: O(1) when present, O(log n + chunk) when inserting. */
  set(key: string, value: V): void {
    const existing = this.index.get(key);
    if (existing) {
      existing.value = value;
      return;
    }
    const entry: Entry<V> = { key, value };
    this.index.set(key, entry);
    if (this.chunks.length === 0) {
      this.chunks.push([entry]);
      return;
    }
    // The first chunk whose last key is >= key, or the last chunk when key is beyond every chunk.
    const ci = Math.min(this.chunkIndex(key), this.chunks.length - 1);
    const chunk = this.chunks[ci] as Entry<V>[];
    chunk.splice(lowerBound(chunk, key), 0, entry);
    if (chunk.length > MAX_CHUNK) this.chunks.splice(ci, 1, chunk.slice(0, MAX_CHUNK / 2), chunk.slice(MAX_CHUNK / 2));
  }

  /** Removes `key`; returns false if it was absent. */
  delete(key: string): boolean {
    if (!this.index.delete(key)) return false;
    const ci = this.chunkIndex(key);
    const chunk = this.chunks[ci] as Entry<V>[];
    chunk.splice(lowerBound(chunk, key), 1);
    if (chunk.length === 0) this.chunks.splice(ci, 1);
    return true;
  }

  /** Number of keys strictly below `key` (its rank); O(chunks). */
  rank(key: string): number {
    const ci = this.chunkIndex(key);
    let n = 0;
    for (let c = 0; c < ci; c++) n += (this.chunks[c] as Entry<V>[]).length;
    const chunk = this.chunks[ci];
    return chunk ? n + lowerBound(chunk, key) : n;
  }

  /** The values at ranks [from, to), in key order. */
  slice(from: number, to: number): V[] {
    const out: V[] = [];
    let base = 0;
    for (const chunk of this.chunks) {
      if (base >= to) break;
      const end = Math.min(chunk.length, to - base);
      for (let i = Math.max(0, from - base); i < end; i++) out.push((chunk[i] as Entry<V>).value);
      base += chunk.length;
    }
    return out;
  }

  /** Index of the first chunk whose last key is >= `key` (chunks.length if none). */
  private chunkIndex(key: string): number {
    let lo = 0;
    let hi = this.chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const chunk = this.chunks[mid] as Entry<V>[];
      if ((chunk[chunk.length - 1] as Entry<V>).key < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** Index of the first entry of sorted `chunk` whose key is >= `key` (chunk.length if none). */
function lowerBound<V>(chunk: readonly Entry<V>[], key: string): number {
  let lo = 0;
  let hi = chunk.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((chunk[mid] as Entry<V>).key < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
