/**
 * Wire types. The object shapes come from the `kubernetes-types` package (plain interfaces generated
 * from the upstream OpenAPI; times are RFC 3339 strings); this module re-exports the ones kubeplane
 * uses under their upstream names and adds the few list/meta shapes it needs. No logic, no I/O.
 */
export type {
  Pod,
  PodSpec,
  PodStatus,
  PodCondition,
  PodTemplateSpec,
  Container,
  ContainerStatus,
  Node,
  NodeSpec,
  NodeStatus,
  NodeCondition,
  Namespace,
  Event,
  ObjectReference,
  Binding,
  Taint,
  Toleration,
  NodeSelector,
  NodeSelectorTerm,
  NodeSelectorRequirement,
  Affinity,
  ResourceRequirements,
  ConfigMap,
  Secret,
  ServiceAccount,
  Service,
  ServiceSpec,
  ServicePort,
  Endpoints,
  EndpointSubset,
  EndpointAddress,
  EndpointPort,
  PersistentVolumeClaim,
  PersistentVolume,
  PodTemplate,
  ReplicationController,
  ResourceQuota,
  LimitRange,
  ComponentStatus,
  Volume,
  VolumeMount,
} from 'kubernetes-types/core/v1.js';
export type { Role, RoleBinding, ClusterRole, ClusterRoleBinding, PolicyRule, Subject, RoleRef, AggregationRule } from 'kubernetes-types/rbac/v1.js';
export type { PodDisruptionBudget } from 'kubernetes-types/policy/v1.js';
export type { Ingress, IngressClass, NetworkPolicy } from 'kubernetes-types/networking/v1.js';
// kubernetes-types 1.30 (the newest published) has IPAddress and ServiceCIDR only as v1alpha1; their
// fields are the same in networking.k8s.io/v1 (k8s.io/api networking/v1 types.go at v0.33.9).
export type { IPAddress, ServiceCIDR } from 'kubernetes-types/networking/v1alpha1.js';
export type { StorageClass, CSIDriver, CSINode, CSIStorageCapacity, VolumeAttachment } from 'kubernetes-types/storage/v1.js';
export type { RuntimeClass } from 'kubernetes-types/node/v1.js';
export type {
  MutatingWebhookConfiguration,
  ValidatingWebhookConfiguration,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
} from 'kubernetes-types/admissionregistration/v1.js';
export type {
  CustomResourceColumnDefinition,
  CustomResourceDefinition,
  CustomResourceDefinitionCondition,
  CustomResourceDefinitionNames,
  CustomResourceDefinitionSpec,
  CustomResourceDefinitionVersion,
  CustomResourceSubresourceScale,
} from 'kubernetes-types/apiextensions/v1.js';
export type { CertificateSigningRequest } from 'kubernetes-types/certificates/v1.js';
export type { FlowSchema, PriorityLevelConfiguration } from 'kubernetes-types/flowcontrol/v1.js';
export type { TokenReview } from 'kubernetes-types/authentication/v1.js';
export type { SubjectAccessReview, LocalSubjectAccessReview, SelfSubjectRulesReview } from 'kubernetes-types/authorization/v1.js';
export type { EndpointSlice, Endpoint as DiscoveryEndpoint, EndpointPort as DiscoveryEndpointPort } from 'kubernetes-types/discovery/v1.js';
export type {
  Deployment,
  DeploymentSpec,
  DeploymentStatus,
  DeploymentCondition,
  DeploymentStrategy,
  ReplicaSet,
  ReplicaSetSpec,
  ReplicaSetStatus,
  ReplicaSetCondition,
  DaemonSet,
  DaemonSetSpec,
  DaemonSetStatus,
  DaemonSetUpdateStrategy,
  ControllerRevision,
  StatefulSet,
  StatefulSetSpec,
  StatefulSetStatus,
} from 'kubernetes-types/apps/v1.js';
export type { Job, JobCondition, JobSpec, JobStatus, JobTemplateSpec, CronJob, CronJobSpec, CronJobStatus } from 'kubernetes-types/batch/v1.js';
export type { HorizontalPodAutoscaler } from 'kubernetes-types/autoscaling/v2.js';
export type { HorizontalPodAutoscaler as HorizontalPodAutoscalerV1 } from 'kubernetes-types/autoscaling/v1.js';
export type { Event as EventsV1Event } from 'kubernetes-types/events/v1.js';
export type { Lease } from 'kubernetes-types/coordination/v1.js';
export type { PriorityClass } from 'kubernetes-types/scheduling/v1.js';
export type { Scale } from 'kubernetes-types/autoscaling/v1.js';
export type {
  ObjectMeta,
  OwnerReference,
  LabelSelector,
  LabelSelectorRequirement,
  ListMeta,
  DeleteOptions,
  Preconditions,
  ManagedFieldsEntry,
  Condition,
} from 'kubernetes-types/meta/v1.js';

import type { ObjectMeta, ListMeta } from 'kubernetes-types/meta/v1.js';

/** Anything with object metadata: every API object type (Pod, Deployment, …, KubeObject). */
export interface MetaObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
}

/** Any API object: kind, apiVersion and metadata, plus whatever else its kind has. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  [field: string]: unknown;
}

/** Any list: `{kind: 'PodList', apiVersion, metadata: {resourceVersion, continue?, remainingItemCount?}, items}`. */
export interface KubeList<T = KubeObject> {
  apiVersion?: string;
  kind?: string;
  metadata: ListMeta;
  items: T[];
}

/**
 * apiregistration.k8s.io/v1 APIService (k8s.io/kube-aggregator pkg/apis/apiregistration/v1/types.go),
 * which kubernetes-types does not carry.
 */
export interface APIService {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: {
    service?: { namespace?: string; name?: string; port?: number };
    group?: string;
    version?: string;
    insecureSkipTLSVerify?: boolean;
    caBundle?: string;
    groupPriorityMinimum: number;
    versionPriority: number;
  };
  status?: {
    conditions?: { type: string; status: string; lastTransitionTime?: string; reason?: string; message?: string }[];
  };
}

/** metrics.k8s.io/v1beta1 ContainerMetrics: a container's name and usage (`cpu`, `memory` quantities). */
export interface ContainerMetrics {
  name: string;
  usage: Record<string, string>;
}

/**
 * metrics.k8s.io/v1beta1 NodeMetrics (k8s.io/metrics pkg/apis/metrics/v1beta1/types.go), which
 * kubernetes-types does not carry: the node's usage over `window` (a Go duration such as `15s`)
 * ending at `timestamp`.
 */
export interface NodeMetrics {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  timestamp: string;
  window: string;
  usage: Record<string, string>;
}

/** metrics.k8s.io/v1beta1 PodMetrics: each container's usage over `window` ending at `timestamp`. */
export interface PodMetrics {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  timestamp: string;
  window: string;
  containers: ContainerMetrics[];
}
