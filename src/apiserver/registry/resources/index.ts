/**
 * The per-kind strategies of the resources kubeplane serves, in discovery order (upstream's order within
 * each group: core/v1 namespaces, nodes, pods, events; coordination.k8s.io/v1 leases; apps/v1
 * controllerrevisions, daemonsets, deployments, replicasets; autoscaling v2, then v1 as a view of it).
 */
import type { KubeObject } from '../../../api/index.js';
import type { ResourceStrategy } from '../strategy.js';
import { controllerRevisionStrategy } from './controllerrevisions.js';
import { customResourceDefinitionStrategy } from './customresourcedefinitions.js';
import { cronJobStrategy } from './cronjobs.js';
import { daemonSetStrategy } from './daemonsets.js';
import {
  localSubjectAccessReviewStrategy,
  selfSubjectAccessReviewStrategy,
  selfSubjectReviewStrategy,
  selfSubjectRulesReviewStrategy,
  subjectAccessReviewStrategy,
  tokenReviewStrategy,
} from './reviews.js';
import { apiServiceStrategy } from './apiservices.js';
import { deploymentStrategy } from './deployments.js';
import { eventStrategy } from './events.js';
import { eventsV1Strategy } from './events-v1.js';
import { horizontalPodAutoscalerV1Strategy } from './hpa-conversion.js';
import { horizontalPodAutoscalerStrategy } from './horizontalpodautoscalers.js';
import { jobStrategy } from './jobs.js';
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
import { podTemplateStrategy } from './podtemplates.js';
import { replicationControllerStrategy } from './replicationcontrollers.js';
import { resourceQuotaStrategy } from './resourcequotas.js';
import { limitRangeStrategy } from './limitranges.js';
import { podDisruptionBudgetStrategy } from './poddisruptionbudgets.js';
import { clusterRoleStrategy, roleStrategy } from './roles.js';
import { clusterRoleBindingStrategy, roleBindingStrategy } from './rolebindings.js';
import { runtimeClassStrategy } from './runtimeclasses.js';
import { mutatingWebhookConfigurationStrategy, validatingWebhookConfigurationStrategy } from './webhookconfigurations.js';
import { validatingAdmissionPolicyBindingStrategy, validatingAdmissionPolicyStrategy } from './validatingadmissionpolicies.js';
import { flowSchemaStrategy } from './flowschemas.js';
import { priorityLevelConfigurationStrategy } from './prioritylevelconfigurations.js';
import { statefulSetStrategy } from './statefulsets.js';
import { ingressClassStrategy } from './ingressclasses.js';
import { ingressStrategy } from './ingresses.js';
import { ipAddressStrategy } from './ipaddresses.js';
import { networkPolicyStrategy } from './networkpolicies.js';
import { serviceCIDRStrategy } from './servicecidrs.js';
import { csrStrategy } from './certificatesigningrequests.js';
import { bindingStrategy } from './bindings.js';
import { componentStatusStrategy } from './componentstatuses.js';
import { csiDriverStrategy } from './csidrivers.js';
import { csiNodeStrategy } from './csinodes.js';
import { csiStorageCapacityStrategy } from './csistoragecapacities.js';
import { persistentVolumeClaimStrategy } from './persistentvolumeclaims.js';
import { persistentVolumeStrategy } from './persistentvolumes.js';
import { storageClassStrategy } from './storageclasses.js';
import { volumeAttachmentStrategy } from './volumeattachments.js';
import { nodeMetricsStrategy, podMetricsStrategy } from './metrics.js';

export { controllerRevisionStrategy, daemonSetStrategy, selfSubjectAccessReviewStrategy, selfSubjectReviewStrategy };
export { deploymentStrategy, eventStrategy, leaseStrategy, namespaceStrategy, nodeStrategy, podStrategy, replicaSetStrategy };
export { prepareForFinalizeUpdate, validateFinalizeUpdate } from './namespaces.js';
export { configMapStrategy, endpointsStrategy, endpointSliceStrategy, secretStrategy, serviceAccountStrategy, serviceStrategy };
export { eventsV1Strategy, horizontalPodAutoscalerStrategy, horizontalPodAutoscalerV1Strategy, priorityClassStrategy };
export { limitRangeStrategy, podTemplateStrategy, replicationControllerStrategy, resourceQuotaStrategy };
export { customResourceDefinitionStrategy };
export { clusterRoleBindingStrategy, clusterRoleStrategy, podDisruptionBudgetStrategy, roleBindingStrategy, roleStrategy, runtimeClassStrategy };
export { apiServiceStrategy, localSubjectAccessReviewStrategy, selfSubjectRulesReviewStrategy, subjectAccessReviewStrategy, tokenReviewStrategy };
export { mutatingWebhookConfigurationStrategy, validatingWebhookConfigurationStrategy };
export { validatingAdmissionPolicyBindingStrategy, validatingAdmissionPolicyStrategy };
export { flowSchemaStrategy, priorityLevelConfigurationStrategy };
export { cronJobStrategy, jobStrategy, statefulSetStrategy };
export { csrStrategy, ingressClassStrategy, ingressStrategy, ipAddressStrategy, networkPolicyStrategy, serviceCIDRStrategy };
export { bindingStrategy, componentStatusStrategy, persistentVolumeClaimStrategy, persistentVolumeStrategy };
export { csiDriverStrategy, csiNodeStrategy, csiStorageCapacityStrategy, storageClassStrategy, volumeAttachmentStrategy };
export { nodeMetricsStrategy, podMetricsStrategy };

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
  erase(podTemplateStrategy),
  erase(replicationControllerStrategy),
  erase(resourceQuotaStrategy),
  erase(limitRangeStrategy),
  erase(customResourceDefinitionStrategy),
  erase(runtimeClassStrategy),
  erase(podDisruptionBudgetStrategy),
  // ClusterRoles before the bindings that refer to them (bootstrap order).
  erase(clusterRoleStrategy),
  erase(clusterRoleBindingStrategy),
  erase(roleStrategy),
  erase(roleBindingStrategy),
  erase(apiServiceStrategy),
  tokenReviewStrategy,
  subjectAccessReviewStrategy,
  localSubjectAccessReviewStrategy,
  selfSubjectRulesReviewStrategy,
  erase(mutatingWebhookConfigurationStrategy),
  erase(validatingWebhookConfigurationStrategy),
  erase(validatingAdmissionPolicyStrategy),
  erase(validatingAdmissionPolicyBindingStrategy),
  // Priority levels before flow schemas: the schemas' Dangling conditions read the levels at start-up.
  erase(priorityLevelConfigurationStrategy),
  erase(flowSchemaStrategy),
  erase(statefulSetStrategy),
  erase(jobStrategy),
  erase(cronJobStrategy),
  erase(ingressClassStrategy),
  erase(ingressStrategy),
  erase(ipAddressStrategy),
  erase(networkPolicyStrategy),
  erase(serviceCIDRStrategy),
  erase(csrStrategy),
  erase(persistentVolumeStrategy),
  erase(persistentVolumeClaimStrategy),
  erase(bindingStrategy),
  erase(componentStatusStrategy),
  erase(storageClassStrategy),
  erase(csiDriverStrategy),
  erase(csiNodeStrategy),
  erase(csiStorageCapacityStrategy),
  erase(volumeAttachmentStrategy),
  // metrics.k8s.io: computed from the pods and nodes above (metrics-server's API, built in).
  erase(nodeMetricsStrategy),
  erase(podMetricsStrategy),
];
