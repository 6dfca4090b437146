/**
 * The watch cache's ordered store: keys in order (JavaScript string order, as storage lists them)
 * with snapshots that cost O(1) to take, so a list can be served from the objects as they were at an
 * earlier revision (upstream's `storeSnapshotter` over a copy-on-write B-tree, k8s.io/apiserver/pkg/
 * storage/cacher/store_btree.go `Clone`).
 *
 * Layout: a root array of sorted chunks of at most {@link MAX_CHUNK} entries (as storage's
 * SortedMap), each chunk two parallel arrays (keys, values). Copy-on-write by generation: every chunk
 * and the root carry the generation of the store that may change them in place. Taking a snapshot
 * hands out the current root and moves the store to a new generation, so the next write to a chunk
 * copies that chunk (and the root array) once; chunks no write touches stay shared by the store and
 * every snapshot. A snapshot thus costs O(1) to take and, while it is kept, the chunks written since
 * (at most the whole store once). Values are shared, never copied (the cache's frozen objects).
 */

/** Chunks split in two when they grow past this many entries (~300 chunks at 150k keys). */
const MAX_CHUNK = 512;

/** Generations are unique across stores, so a chunk is only ever changed in place by one store. */
let nextGeneration = 1;

interface Chunk<V> {
  /** The generation of the store allowed to change this chunk in place. */
  gen: number;
  keys: string[];
  values: V[];
}

/** The first key after every key starting with `prefix` (`/a/` → `/a0`). */
function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

/** Index of the first of the sorted `keys` that is >= `key` (`keys.length` if none). */
function lowerBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] as string) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A read-only ordered view: the store as it is now, or a snapshot of it as it was. */
export class OrderedView<V> {
  constructor(
    protected chunks: Chunk<V>[],
    protected length: number,
  ) {}

  /** Number of entries. */
  get size(): number {
    return this.length;
  }

  /** The value of `key`, or undefined; O(log n). */
  get(key: string): V | undefined {
    const chunk = this.chunks[this.chunkIndex(key)];
    if (!chunk) return undefined;
    const i = lowerBound(chunk.keys, key);
    return chunk.keys[i] === key ? chunk.values[i] : undefined;
  }

  /** Number of keys strictly below `key`; O(chunks + log n). */
  rank(key: string): number {
    const ci = this.chunkIndex(key);
    let n = 0;
    for (let c = 0; c < ci; c++) n += (this.chunks[c] as Chunk<V>).keys.length;
    const chunk = this.chunks[ci];
    return chunk ? n + lowerBound(chunk.keys, key) : n;
  }

  /** Number of keys starting with `prefix` (which ends in `/`) that are after `after` (all when undefined). */
  countAfter(prefix: string, after?: string): number {
    const from = after === undefined || after < prefix ? this.rank(prefix) : this.rank(after + '\u0000');
    return Math.max(0, this.rank(prefixEnd(prefix)) - from);
  }

  /**
   * `[key, value]` pairs whose key starts with `prefix`, in key order, from the first key after
   * `startAfter` (exclusive) when given. The view iterated is the one at the call: a snapshot never
   * changes; iterating the live store while writing to it is not supported.
   */
  *entries(prefix: string, startAfter?: string): Generator<[string, V]> {
    const chunks = this.chunks;
    const from = startAfter !== undefined && startAfter >= prefix ? startAfter + '\u0000' : prefix;
    let ci = this.chunkIndex(from);
    if (ci >= chunks.length) return;
    let i = lowerBound((chunks[ci] as Chunk<V>).keys, from);
    for (; ci < chunks.length; ci++, i = 0) {
      const { keys, values } = chunks[ci] as Chunk<V>;
      for (; i < keys.length; i++) {
        const key = keys[i] as string;
        if (!key.startsWith(prefix)) return;
        yield [key, values[i] as V];
      }
    }
  }

  /** A store that starts as this view and changes apart from it (the view stays as it is). */
  fork(): OrderedStore<V> {
    return new OrderedStore<V>(this.chunks, this.length);
  }

  /** Index of the first chunk whose last key is >= `key` (chunks.length if none). */
  protected chunkIndex(key: string): number {
    let lo = 0;
    let hi = this.chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const keys = (this.chunks[mid] as Chunk<V>).keys;
      if ((keys[keys.length - 1] as string) < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** The ordered store itself: a view that can be written, and snapshotted in O(1). */
export class OrderedStore<V> extends OrderedView<V> {
  private gen = nextGeneration++;
  /** The generation allowed to change `chunks` (the root array) in place. */
  private rootGen: number;

  /** An empty store, or (for {@link OrderedView.fork}) one sharing `chunks` with a view. */
  constructor(chunks: Chunk<V>[] = [], length = 0) {
    // An empty root is never shared: a fork of an empty view starts with its own.
    super(chunks.length === 0 ? [] : chunks, length);
    this.rootGen = chunks.length === 0 ? this.gen : 0;
  }

  /** The store as it is now, unchanged by later writes; O(1). */
  snapshot(): OrderedView<V> {
    const view = new OrderedView<V>(this.chunks, this.length);
    // Everything in place now belongs to the snapshot too: later writes copy before changing.
    this.gen = nextGeneration++;
    return view;
  }

  /** Sets the value of `key`: O(log n) to find it, plus a splice inside one chunk when inserting. */
  set(key: string, value: V): void {
    if (this.chunks.length === 0) {
      this.writableRoot().push({ gen: this.gen, keys: [key], values: [value] });
      this.length = 1;
      return;
    }
    // The first chunk whose last key is >= key, or the last chunk when key is beyond every chunk.
    const ci = Math.min(this.chunkIndex(key), this.chunks.length - 1);
    const found = this.chunks[ci] as Chunk<V>;
    const i = lowerBound(found.keys, key);
    const chunk = this.writableChunk(ci);
    if (chunk.keys[i] === key) {
      chunk.values[i] = value;
      return;
    }
    chunk.keys.splice(i, 0, key);
    chunk.values.splice(i, 0, value);
    this.length++;
    if (chunk.keys.length > MAX_CHUNK) {
      const half = MAX_CHUNK / 2;
      const tail: Chunk<V> = { gen: this.gen, keys: chunk.keys.splice(half), values: chunk.values.splice(half) };
      this.writableRoot().splice(ci + 1, 0, tail);
    }
  }

  /** Removes `key`; returns false if it was absent. */
  delete(key: string): boolean {
    const ci = this.chunkIndex(key);
    const found = this.chunks[ci];
    if (!found) return false;
    const i = lowerBound(found.keys, key);
    if (found.keys[i] !== key) return false;
    const chunk = this.writableChunk(ci);
    chunk.keys.splice(i, 1);
    chunk.values.splice(i, 1);
    this.length--;
    if (chunk.keys.length === 0) this.writableRoot().splice(ci, 1);
    return true;
  }

  private writableRoot(): Chunk<V>[] {
    if (this.rootGen !== this.gen) {
      this.chunks = this.chunks.slice();
      this.rootGen = this.gen;
    }
    return this.chunks;
  }

  private writableChunk(ci: number): Chunk<V> {
    const chunk = this.chunks[ci] as Chunk<V>;
    if (chunk.gen === this.gen) return chunk;
    const copy: Chunk<V> = { gen: this.gen, keys: chunk.keys.slice(), values: chunk.values.slice() };
    this.writableRoot()[ci] = copy;
    return copy;
  }
}
