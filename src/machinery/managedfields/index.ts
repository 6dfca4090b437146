/**
 * Managed fields: who owns which fields of an object, recorded in `metadata.managedFields` on every
 * write, and server-side apply over them. A TypeScript port of the behaviour of k8s.io/apimachinery
 * pkg/util/managedfields (v0.33.9) over src/machinery/merge (structured-merge-diff), plus the field
 * manager names of k8s.io/apiserver's handlers.
 */
export * from './managed.js';
export * from './pathelement.js';
export * from './type-converter.js';
export * from './version-converter.js';
export * from './structured-merge.js';
export * from './strip-meta.js';
export * from './managed-fields-updater.js';
export * from './build-manager-info.js';
export * from './cap-managers.js';
export * from './skip-non-applied.js';
export * from './last-applied.js';
export * from './version-check.js';
export * from './conflict.js';
export * from './field-manager.js';
export * from './scale-handler.js';
export * from './manager-name.js';
