/** The garbage collector: dependency graph + attemptToDelete / attemptToOrphan workers. See garbage-collector.ts. */
export { GarbageCollector, IGNORED_RESOURCES, isMonitored, type GarbageCollectorOptions, type MonitoredResource } from './garbage-collector.js';
export { GraphBuilder, UIDCache, FINALIZER_ORPHAN, FINALIZER_DELETE_DEPENDENTS, type GraphCallbacks } from './graph-builder.js';
export { GraphNode, identityString, objectReferenceString, type ObjectIdentity } from './graph.js';
