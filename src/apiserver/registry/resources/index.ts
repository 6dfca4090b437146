/**
 * The per-kind strategies of the resources kubeplane serves, in discovery order (upstream's order within
 * each group: core/v1 namespaces, nodes, pods, events; coordination.k8s.io/v1 leases; apps/v1
 * controllerrevisions, daemonsets, deployments, replicasets; autoscaling v2, then v1 as a view of it).
 */
import type { KubeObject } from '../../../api/index.js';
import type { ResourceStrategy } from '../strategy.js';
import { controllerRevisionStrategy } from './controllerrevisions.js';
import { daemonSetStrategy } from './daemonsets.js';
import { selfSubjectAccessReviewStrategy, selfSubjectReviewStrategy } from './reviews.js';
import { deploymentStrategy } from './deployments.js';
import { eventStrategy } from './events.js';
import { eventsV1Strategy } from './events-v1.js';
import { horizontalPodAutoscalerV1Strategy } from './hpa-conversion.js';
import { horizontalPodAutoscalerStrategy } from './horizontalpodautoscalers.js';
import { leaseStrategy } from './leases.js';
import { namespaceStrategy } from './namespaces.js';
import { nodeStrategy } from './nodes.js';
import { podStrategy } from './pods.js';
import { priorityClassStrategy } from './priorityclasses.js';
import { replicaSetStrategy } from './replicasets.js';
import { configMapStrategy } from './configmaps.js';
import { endpointsStrategy } from './endpoints.js';
import { endpointSliceStrategy } from './endpointslices.js';
import { secretStrategy } from './secrets.js';
import { serviceAccountStrategy } from './serviceaccounts.js';
import { serviceStrategy } from './services.js';
import { bindingStrategy } from './bindings.js';
import { componentStatusStrategy } from './componentstatuses.js';
import { csiDriverStrategy } from './csidrivers.js';
import { csiNodeStrategy } from './csinodes.js';
import { csiStorageCapacityStrategy } from './csistoragecapacities.js';
import { persistentVolumeClaimStrategy } from './persistentvolumeclaims.js';
import { persistentVolumeStrategy } from './persistentvolumes.js';
import { storageClassStrategy } from './storageclasses.js';
import { volumeAttachmentStrategy } from './volumeattachments.js';

export { controllerRevisionStrategy, daemonSetStrategy, selfSubjectAccessReviewStrategy, selfSubjectReviewStrategy };
export { deploymentStrategy, eventStrategy, leaseStrategy, namespaceStrategy, nodeStrategy, podStrategy, replicaSetStrategy };
export { prepareForFinalizeUpdate, validateFinalizeUpdate } from './namespaces.js';
export { configMapStrategy, endpointsStrategy, endpointSliceStrategy, secretStrategy, serviceAccountStrategy, serviceStrategy };
export { eventsV1Strategy, horizontalPodAutoscalerStrategy, horizontalPodAutoscalerV1Strategy, priorityClassStrategy };
export { bindingStrategy, componentStatusStrategy, persistentVolumeClaimStrategy, persistentVolumeStrategy };
export { csiDriverStrategy, csiNodeStrategy, csiStorageCapacityStrategy, storageClassStrategy, volumeAttachmentStrategy };

/**
 * Each strategy is typed with its kind (`ResourceStrategy<Pod>`); the store handles them as
 * `ResourceStrategy<KubeObject>`, which is sound because it only ever passes objects of the kind.
 */
function erase<T extends KubeObject>(s: ResourceStrategy<T>): ResourceStrategy {
  return s as unknown as ResourceStrategy;
}

/** Strategies in discovery order. */
export const servedStrategies: ResourceStrategy[] = [
  erase(namespaceStrategy),
  erase(nodeStrategy),
  erase(podStrategy),
  // Services right after pods: `kubectl get all` lists its category in discovery order.
  erase(serviceStrategy),
  erase(endpointsStrategy),
  erase(configMapStrategy),
  erase(secretStrategy),
  erase(serviceAccountStrategy),
  erase(eventStrategy),
  erase(priorityClassStrategy),
  erase(leaseStrategy),
  erase(controllerRevisionStrategy),
  erase(daemonSetStrategy),
  erase(deploymentStrategy),
  erase(replicaSetStrategy),
  // events.k8s.io, authentication, authorization, autoscaling right after apps, as upstream's discovery lists them.
  eventsV1Strategy,
  selfSubjectReviewStrategy,
  selfSubjectAccessReviewStrategy,
  erase(horizontalPodAutoscalerStrategy),
  horizontalPodAutoscalerV1Strategy,
  erase(endpointSliceStrategy),
  erase(persistentVolumeStrategy),
  erase(persistentVolumeClaimStrategy),
  erase(bindingStrategy),
  erase(componentStatusStrategy),
  erase(storageClassStrategy),
  erase(csiDriverStrategy),
  erase(csiNodeStrategy),
  erase(csiStorageCapacityStrategy),
  erase(volumeAttachmentStrategy),
];
