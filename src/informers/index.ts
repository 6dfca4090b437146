/**
 * Informers: list-and-watch caches shared per resource, with handlers, indices and listers
 * (client-go tools/cache and informers).
 */
export {
  DeletedFinalStateUnknown,
  NAMESPACE_INDEX,
  deletionHandlingMetaNamespaceKeyFunc,
  newIndexer,
  type ClassifyFunc,
  type IndexFunc,
  type Indexer,
  type MetaObject,
  type SummaryClass,
} from './indexer.js';
export { newLister, type Lister, type NamespaceLister } from './lister.js';
export { Reflector, type ListerWatcher, type ReflectorOptions, type ReflectorStore } from './reflector.js';
export { SharedIndexInformer, type ResourceEventHandler, type SharedIndexInformerOptions } from './shared-informer.js';
export { newSharedInformerFactory, type InformerAccessors, type SharedInformerFactory, type SharedInformerFactoryOptions } from './factory.js';
