/** The StatefulSet controller (kubernetes/kubernetes pkg/controller/statefulset). */
export { StatefulSetController, DEFAULT_STATEFUL_SET_WORKERS, type StatefulSetControllerOptions } from './stateful-set.js';
export { StatefulSetControl, MAX_BATCH_SIZE } from './stateful-set-control.js';
export { StatefulPodControl } from './stateful-pod-control.js';
export * from './stateful-set-utils.js';
