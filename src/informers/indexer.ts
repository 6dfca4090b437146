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

/**
 * Classifies an object for an index summary ({@link Indexer.addIndexSummary}): a class key, or
 * undefined to leave the object out of the summary.
 */
export type ClassifyFunc<T> = (obj: T) => string | undefined;

/**
 * One class of an index summary: how many objects of the indexed value have that class key, and one
 * of them. Objects of a class agree on everything the key encodes, so `sample` may be read for
 * exactly that and nothing else (it may be an older version, or an object since moved elsewhere).
 */
export interface SummaryClass<T> {
  count: number;
  sample: T;
}

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
  /**
   * Adds a summary named `summaryName` over index `indexName` (and summarizes the current content):
   * per indexed value, the objects counted by their `classify` key, kept up to date as objects come
   * and go. A controller that needs counts over an index bucket (a ReplicaSet's ready pods) then
   * reads a few classes instead of walking every object of the bucket on every sync. Not in
   * client-go; ours, so that per-sync cost does not grow with the bucket. Throws Error for an unknown
   * index or a summary name already taken.
   */
  addIndexSummary(indexName: string, summaryName: string, classify: ClassifyFunc<T>): void;
  /**
   * The classes of summary `summaryName` for `indexedValue` (empty when it holds no object), live:
   * the map changes as the cache does, so callers read it before their next await. Throws Error for an
   * unknown summary.
   */
  summary(summaryName: string, indexedValue: string): ReadonlyMap<string, SummaryClass<T>>;
}

/** One index summary: its index, its classifier, and per indexed value the classes. */
interface Summary<T> {
  indexName: string;
  classify: ClassifyFunc<T>;
  byValue: Map<string, Map<string, SummaryClass<T>>>;
  /** The class key of each stored object: stored objects are frozen, so it is computed once per version. */
  keys: WeakMap<object, string | undefined>;
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
  /** summary name → summary. */
  private readonly summaries = new Map<string, Summary<T>>();

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
    for (const summary of this.summaries.values()) summary.byValue.clear();
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

  addIndexSummary(indexName: string, summaryName: string, classify: ClassifyFunc<T>): void {
    const fn = this.indexers.get(indexName);
    if (!fn) throw new Error(`Index with name ${indexName} does not exist`);
    if (this.summaries.has(summaryName)) throw new Error(`index summary conflict: ${summaryName}`);
    const summary: Summary<T> = { indexName, classify, byValue: new Map(), keys: new WeakMap() };
    this.summaries.set(summaryName, summary);
    for (const obj of this.items.values()) for (const v of fn(obj)) addToSummary(summary, v, obj);
  }

  summary(summaryName: string, indexedValue: string): ReadonlyMap<string, SummaryClass<T>> {
    const summary = this.summaries.get(summaryName);
    if (!summary) throw new Error(`Index summary with name ${summaryName} does not exist`);
    return summary.byValue.get(indexedValue) ?? EMPTY_SUMMARY;
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
      this.updateSummaries(name, old, oldValues, cur, newValues);
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

  /** Moves `old` out of and `cur` into the classes of every summary over index `indexName`. */
  private updateSummaries(indexName: string, old: T | undefined, oldValues: readonly string[], cur: T | undefined, newValues: readonly string[]): void {
    for (const summary of this.summaries.values()) {
      if (summary.indexName !== indexName) continue;
      if (old !== undefined) for (const v of oldValues) removeFromSummary(summary, v, old);
      if (cur !== undefined) for (const v of newValues) addToSummary(summary, v, cur);
    }
  }
}

const EMPTY: ReadonlySet<string> = new Set();
const EMPTY_SUMMARY: ReadonlyMap<string, never> = new Map<string, never>();

/** The class key of `obj` in `summary`, remembered per object. */
function classOf<T>(summary: Summary<T>, obj: T): string | undefined {
  if (typeof obj !== 'object' || obj === null) return summary.classify(obj);
  if (summary.keys.has(obj)) return summary.keys.get(obj);
  const key = summary.classify(obj);
  summary.keys.set(obj, key);
  return key;
}

function addToSummary<T>(summary: Summary<T>, value: string, obj: T): void {
  const key = classOf(summary, obj);
  if (key === undefined) return;
  let classes = summary.byValue.get(value);
  if (!classes) summary.byValue.set(value, (classes = new Map<string, SummaryClass<T>>()));
  const c = classes.get(key);
  if (c) {
    c.count++;
    c.sample = obj;
  } else {
    classes.set(key, { count: 1, sample: obj });
  }
}

function removeFromSummary<T>(summary: Summary<T>, value: string, obj: T): void {
  const key = classOf(summary, obj);
  if (key === undefined) return;
  const classes = summary.byValue.get(value);
  const c = classes?.get(key);
  if (!classes || !c) return;
  if (--c.count > 0) return;
  classes.delete(key);
  if (classes.size === 0) summary.byValue.delete(value);
}

function addToIndex(index: Map<string, Set<string>>, value: string, key: string): void {
  let keys = index.get(value);
  if (!keys) index.set(value, (keys = new Set()));
  keys.add(key);
}
