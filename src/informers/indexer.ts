/**
 * The informer cache: objects by key plus secondary indices (client-go tools/cache store.go,
 * index.go, thread_safe_store.go).
 *
 * Vocabulary (as upstream's index.go): a **key** is an object's storage key, `namespace/name` or `name`
 * for cluster-scoped objects; an **index name** names an {@link IndexFunc}; an **indexed value** is one
 * of the strings that function returns for an object (e.g. its namespace, or its node name).
 *
 * Stored objects are deep-frozen and shared: callers copy before changing one.
 */
import type { MetaObject } from '../api/index.js';
import { deepFreeze, metaNamespaceKey } from '../machinery/meta/index.js';

export type { MetaObject } from '../api/index.js';

/**
 * The last known state of an object whose deletion the informer missed (it vanished between a watch
 * ending and a relist): delivered to `delete` handlers in place of the object. `obj` may be stale.
 */
export class DeletedFinalStateUnknown<T> {
  constructor(
    public key: string,
    public obj: T,
  ) {}
}

/** machinery/meta's `metaNamespaceKey`, except that a {@link DeletedFinalStateUnknown} gives its stored key (cache.DeletionHandlingMetaNamespaceKeyFunc). */
export function deletionHandlingMetaNamespaceKeyFunc(obj: MetaObject | DeletedFinalStateUnknown<unknown>): string {
  return obj instanceof DeletedFinalStateUnknown ? obj.key : metaNamespaceKey(obj);
}

/** Computes the indexed values of an object, e.g. `(pod) => [pod.spec.nodeName]`. */
export type IndexFunc<T> = (obj: T) => string[];

/** The name of the built-in index by namespace (cache.NamespaceIndex). */
export const NAMESPACE_INDEX = 'namespace';

/** An object cache with indices. */
export interface Indexer<T> {
  /** Inserts or replaces the object under its key. */
  add(obj: T): void;
  /** Same as add. */
  update(obj: T): void;
  /** Removes the object with `obj`'s key (no-op if absent). */
  delete(obj: T): void;
  /** Replaces the whole content. */
  replace(objs: readonly T[]): void;
  /** The stored object with `obj`'s key. */
  get(obj: T): T | undefined;
  getByKey(key: string): T | undefined;
  list(): T[];
  listKeys(): string[];
  /** Objects whose `indexName` function returned `indexedValue`. Throws Error for an unknown index. */
  byIndex(indexName: string, indexedValue: string): T[];
  /** Keys of {@link Indexer.byIndex}. */
  indexKeys(indexName: string, indexedValue: string): string[];
  /** Adds indices (and indexes the current content). Throws Error if a name is already taken. */
  addIndexers(indexers: Record<string, IndexFunc<T>>): void;
}

/** Creates an {@link Indexer} keyed by `namespace/name` (machinery/meta `metaNamespaceKey`), with the `namespace` index built in. */
export function newIndexer<T extends MetaObject>(indexers: Record<string, IndexFunc<T>> = {}): Indexer<T> {
  const store = new IndexedStore<T>(metaNamespaceKey);
  store.addIndexers({ [NAMESPACE_INDEX]: (obj) => [obj.metadata?.namespace ?? ''], ...indexers });
  return store;
}

class IndexedStore<T> implements Indexer<T> {
  private items = new Map<string, T>();
  private readonly indexers = new Map<string, IndexFunc<T>>();
  /** index name → indexed value → keys. */
  private readonly indices = new Map<string, Map<string, Set<string>>>();

  constructor(private readonly keyFunc: (obj: T) => string) {}

  add(obj: T): void {
    const key = this.keyFunc(obj);
    // Objects from the in-process transport arrive frozen: skip re-walking them.
    if (!Object.isFrozen(obj)) deepFreeze(obj);
    const old = this.items.get(key);
    this.items.set(key, obj);
    this.updateIndices(old, obj, key);
  }

  update(obj: T): void {
    this.add(obj);
  }

  delete(obj: T): void {
    const key = this.keyFunc(obj);
    const old = this.items.get(key);
    if (old === undefined) return;
    this.items.delete(key);
    this.updateIndices(old, undefined, key);
  }

  replace(objs: readonly T[]): void {
    this.items = new Map();
    for (const index of this.indices.values()) index.clear();
    for (const obj of objs) this.add(obj);
  }

  get(obj: T): T | undefined {
    return this.items.get(this.keyFunc(obj));
  }

  getByKey(key: string): T | undefined {
    return this.items.get(key);
  }

  list(): T[] {
    return [...this.items.values()];
  }

  listKeys(): string[] {
    return [...this.items.keys()];
  }

  byIndex(indexName: string, indexedValue: string): T[] {
    const out: T[] = [];
    for (const key of this.keySet(indexName, indexedValue)) out.push(this.items.get(key) as T);
    return out;
  }

  indexKeys(indexName: string, indexedValue: string): string[] {
    return [...this.keySet(indexName, indexedValue)];
  }

  addIndexers(indexers: Record<string, IndexFunc<T>>): void {
    for (const name of Object.keys(indexers)) {
      if (this.indexers.has(name)) throw new Error(`indexer conflict: ${name}`);
    }
    for (const [name, fn] of Object.entries(indexers)) {
      this.indexers.set(name, fn);
      const index = new Map<string, Set<string>>();
      this.indices.set(name, index);
      for (const [key, obj] of this.items) for (const v of fn(obj)) addToIndex(index, v, key);
    }
  }

  private keySet(indexName: string, indexedValue: string): ReadonlySet<string> {
    const index = this.indices.get(indexName);
    if (!index) throw new Error(`Index with name ${indexName} does not exist`);
    return index.get(indexedValue) ?? EMPTY;
  }

  private updateIndices(old: T | undefined, cur: T | undefined, key: string): void {
    for (const [name, fn] of this.indexers) {
      const index = this.indices.get(name) as Map<string, Set<string>>;
      const oldValues = old === undefined ? [] : fn(old);
      const newValues = cur === undefined ? [] : fn(cur);
      // The common case on updates: one unchanged value (same namespace, same node).
      if (oldValues.length === 1 && newValues.length === 1 && oldValues[0] === newValues[0]) continue;
      for (const v of oldValues) {
        const keys = index.get(v);
        keys?.delete(key);
        if (keys?.size === 0) index.delete(v);
      }
      for (const v of newValues) addToIndex(index, v, key);
    }
  }
}

const EMPTY: ReadonlySet<string> = new Set();

function addToIndex(index: Map<string, Set<string>>, value: string, key: string): void {
  let keys = index.get(value);
  if (!keys) index.set(value, (keys = new Set()));
  keys.add(key);
}
