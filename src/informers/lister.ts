/**
 * Listers: read-only, label-selected views of an informer's cache, all namespaces or one
 * (client-go tools/cache listers.go and the generated listers, e.g. listers/core/v1/pod.go).
 * Returned objects are the cache's frozen objects: copy before changing.
 */
import type { Selector } from '../machinery/labels/index.js';
import { NAMESPACE_INDEX, type Indexer, type MetaObject } from './indexer.js';

/** A lister of one resource. */
export interface Lister<T> {
  /** Every cached object matching `selector` (all when absent). */
  list(selector?: Selector): T[];
  /** The object with key `namespace/name` (or `name` when cluster-scoped). */
  get(key: string): T | undefined;
  /** The objects of one namespace. */
  namespace(ns: string): NamespaceLister<T>;
}

/** A lister restricted to one namespace. */
export interface NamespaceLister<T> {
  list(selector?: Selector): T[];
  get(name: string): T | undefined;
}

function select<T extends MetaObject>(objs: T[], selector: Selector | undefined): T[] {
  if (!selector || selector.empty()) return objs;
  return objs.filter((o) => selector.matches(o.metadata?.labels));
}

/** A {@link Lister} over `indexer` (which must have the built-in `namespace` index). */
export function newLister<T extends MetaObject>(indexer: Indexer<T>): Lister<T> {
  return {
    list: (selector) => select(indexer.list(), selector),
    get: (key) => indexer.getByKey(key),
    namespace: (ns) => ({
      list: (selector) => select(indexer.byIndex(NAMESPACE_INDEX, ns), selector),
      get: (name) => indexer.getByKey(ns ? `${ns}/${name}` : name),
    }),
  };
}
