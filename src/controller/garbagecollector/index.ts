/** The garbage collector: dependency graph + attemptToDelete workers. See garbage-collector.ts. */
export { GarbageCollector, type GarbageCollectorOptions } from './garbage-collector.js';
export { GraphBuilder, UIDCache, FINALIZER_ORPHAN, FINALIZER_DELETE_DEPENDENTS } from './graph-builder.js';
export { GraphNode, identityString, type ObjectIdentity } from './graph.js';
