/** The namespace controller: empties terminating namespaces and finalizes them. See namespace-controller.ts. */
export { NamespaceController, NAMESPACE_DELETION_GRACE_PERIOD_MS, NAMESPACE_RESYNC_PERIOD_MS, type NamespaceControllerOptions } from './namespace-controller.js';
export {
  NamespacedResourcesDeleter,
  ResourcesRemainingError,
  FINALIZER_KUBERNETES,
  FINALIZER_ESTIMATE_SECONDS,
  type NamespacedResource,
  type NamespacedResourcesDeleterOptions,
} from './namespaced-resources-deleter.js';
export { NamespaceConditionUpdater, NAMESPACE_CONDITION_TYPES, type NamespaceConditionType, type ContentTotals } from './status-conditions.js';
