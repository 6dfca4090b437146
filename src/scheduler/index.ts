/**
 * kube-scheduler for kubeplane: scheduling queue with backoff, incremental node cache, filter and
 * score plugins, parallel binding. See scheduler.ts.
 */
export { Scheduler, type SchedulerOptions } from './scheduler.js';
export { SchedulerCache } from './cache.js';
export { SchedulingQueue, type QueuedPodInfo, type SchedulingQueueOptions } from './scheduling-queue.js';
export { NodeInfo, newPodInfo, type PodInfo } from './node-info.js';
export { FitError, fitErrorMessage, findNodesThatFitPod, numFeasibleNodesToFind, prioritizeNodes, selectHost } from './schedule-one.js';
export { computePodNonZeroRequest, computePodResourceRequest, type Resource } from './resources.js';
export * from './plugins/index.js';
