/**
 * The catalogue: one row per kind kubeplane knows, with upstream's names, scope, versions, verbs and
 * subresources as `kubectl api-resources` shows them on v1.33 (a row lists the subresources kubeplane
 * serves). A row for a kind no strategy serves yet (StatefulSet, Job …) still gives clients and owner
 * references their descriptor; the issue that serves the kind adds its strategy, not a row.
 *
 * Adding a kind: one row here and one strategy file in apiserver/registry/resources (README,
 * "Adding a kind").
 */
import type {
  APIService,
  CertificateSigningRequest,
  ClusterRole,
  ClusterRoleBinding,
  ComponentStatus,
  CSIDriver,
  CSINode,
  CSIStorageCapacity,
  CustomResourceDefinition,
  FlowSchema,
  Ingress,
  IngressClass,
  IPAddress,
  LimitRange,
  LocalSubjectAccessReview,
  MutatingWebhookConfiguration,
  NetworkPolicy,
  PersistentVolume,
  PodDisruptionBudget,
  PodTemplate,
  PriorityLevelConfiguration,
  ReplicationController,
  ResourceQuota,
  Role,
  RoleBinding,
  RuntimeClass,
  SelfSubjectRulesReview,
  ServiceCIDR,
  StorageClass,
  SubjectAccessReview,
  TokenReview,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
  ValidatingWebhookConfiguration,
  VolumeAttachment,
  Binding,
  ConfigMap,
  ControllerRevision,
  CronJob,
  DaemonSet,
  Deployment,
  EndpointSlice,
  Endpoints,
  Event,
  EventsV1Event,
  HorizontalPodAutoscaler,
  Job,
  KubeObject,
  Lease,
  Namespace,
  Node,
  NodeMetrics,
  PersistentVolumeClaim,
  Pod,
  PodMetrics,
  PriorityClass,
  ReplicaSet,
  Secret,
  Service,
  ServiceAccount,
  StatefulSet,
} from '../index.js';
import { APPROVAL, SCALE, STATUS, kind } from './descriptor.js';

const VIEW_VERBS = ['create'] as const;
/** `kubectl api-resources` category of the kinds that extend the API (webhooks, policies, APIServices, CRDs). */
const API_EXTENSIONS = ['api-extensions'] as const;

export const NAMESPACES = kind<Namespace>()({
  group: '',
  kind: 'Namespace',
  resource: 'namespaces',
  namespaced: false,
  versions: ['v1'],
  shortNames: ['ns'],
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  subresources: [{ name: 'finalize', kind: 'self', verbs: ['update'] }, STATUS],
  client: ['core', 'namespaces'],
});

export const NODES = kind<Node>()({
  group: '',
  kind: 'Node',
  resource: 'nodes',
  namespaced: false,
  versions: ['v1'],
  shortNames: ['no'],
  subresources: [STATUS],
  client: ['core', 'nodes'],
});

export const PODS = kind<Pod>()({
  group: '',
  kind: 'Pod',
  resource: 'pods',
  namespaced: true,
  versions: ['v1'],
  shortNames: ['po'],
  categories: ['all'],
  subresources: [
    { name: 'binding', kind: { group: '', version: 'v1', kind: 'Binding' }, verbs: ['create'] },
    { name: 'eviction', kind: { group: 'policy', version: 'v1', kind: 'Eviction' }, verbs: ['create'] },
    { name: 'log', kind: 'self', verbs: ['get'] },
    STATUS,
  ],
  client: ['core', 'pods'],
});

export const SERVICES = kind<Service>()({
  group: '',
  kind: 'Service',
  resource: 'services',
  namespaced: true,
  versions: ['v1'],
  shortNames: ['svc'],
  categories: ['all'],
  subresources: [STATUS],
  client: ['core', 'services'],
});

export const ENDPOINTS = kind<Endpoints>()({
  group: '',
  kind: 'Endpoints',
  resource: 'endpoints',
  namespaced: true,
  versions: ['v1'],
  singular: 'endpoints',
  shortNames: ['ep'],
  client: ['core', 'endpoints'],
});

export const CONFIG_MAPS = kind<ConfigMap>()({
  group: '',
  kind: 'ConfigMap',
  resource: 'configmaps',
  namespaced: true,
  versions: ['v1'],
  shortNames: ['cm'],
  client: ['core', 'configMaps'],
});

export const SECRETS = kind<Secret>()({
  group: '',
  kind: 'Secret',
  resource: 'secrets',
  namespaced: true,
  versions: ['v1'],
  client: ['core', 'secrets'],
});

export const SERVICE_ACCOUNTS = kind<ServiceAccount>()({
  group: '',
  kind: 'ServiceAccount',
  resource: 'serviceaccounts',
  namespaced: true,
  versions: ['v1'],
  shortNames: ['sa'],
  client: ['core', 'serviceAccounts'],
  subresources: [{ name: 'token', kind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' }, verbs: ['create'] }],
});

export const EVENTS = kind<Event>()({
  group: '',
  kind: 'Event',
  resource: 'events',
  namespaced: true,
  versions: ['v1'],
  shortNames: ['ev'],
  client: ['core', 'events'],
});

export const PERSISTENT_VOLUME_CLAIMS = kind<PersistentVolumeClaim>()({
  group: '',
  kind: 'PersistentVolumeClaim',
  resource: 'persistentvolumeclaims',
  namespaced: true,
  versions: ['v1'],
  shortNames: ['pvc'],
  subresources: [STATUS],
  client: ['core', 'persistentVolumeClaims'],
});

export const BINDINGS = kind<Binding>()({
  group: '',
  kind: 'Binding',
  resource: 'bindings',
  namespaced: true,
  versions: ['v1'],
  verbs: VIEW_VERBS,
  client: ['core', 'bindings'],
});

export const COMPONENT_STATUSES = kind<ComponentStatus>()({
  group: '',
  kind: 'ComponentStatus',
  resource: 'componentstatuses',
  namespaced: false,
  versions: ['v1'],
  shortNames: ['cs'],
  verbs: ['get', 'list'],
  client: ['core', 'componentStatuses'],
});

export const LIMIT_RANGES = kind<LimitRange>()({
  group: '',
  kind: 'LimitRange',
  resource: 'limitranges',
  namespaced: true,
  versions: ['v1'],
  shortNames: ['limits'],
  client: ['core', 'limitRanges'],
});

export const PERSISTENT_VOLUMES = kind<PersistentVolume>()({
  group: '',
  kind: 'PersistentVolume',
  resource: 'persistentvolumes',
  namespaced: false,
  versions: ['v1'],
  shortNames: ['pv'],
  subresources: [STATUS],
  client: ['core', 'persistentVolumes'],
});

export const POD_TEMPLATES = kind<PodTemplate>()({
  group: '',
  kind: 'PodTemplate',
  resource: 'podtemplates',
  namespaced: true,
  versions: ['v1'],
  client: ['core', 'podTemplates'],
});

export const REPLICATION_CONTROLLERS = kind<ReplicationController>()({
  group: '',
  kind: 'ReplicationController',
  resource: 'replicationcontrollers',
  namespaced: true,
  versions: ['v1'],
  shortNames: ['rc'],
  categories: ['all'],
  subresources: [SCALE, STATUS],
  client: ['core', 'replicationControllers'],
});

export const RESOURCE_QUOTAS = kind<ResourceQuota>()({
  group: '',
  kind: 'ResourceQuota',
  resource: 'resourcequotas',
  namespaced: true,
  versions: ['v1'],
  shortNames: ['quota'],
  subresources: [STATUS],
  client: ['core', 'resourceQuotas'],
});

export const PRIORITY_CLASSES = kind<PriorityClass>()({
  group: 'scheduling.k8s.io',
  kind: 'PriorityClass',
  resource: 'priorityclasses',
  namespaced: false,
  versions: ['v1'],
  shortNames: ['pc'],
  client: ['scheduling', 'priorityClasses'],
});

export const LEASES = kind<Lease>()({
  group: 'coordination.k8s.io',
  kind: 'Lease',
  resource: 'leases',
  namespaced: true,
  versions: ['v1'],
  client: ['coordination', 'leases'],
});

export const CONTROLLER_REVISIONS = kind<ControllerRevision>()({
  group: 'apps',
  kind: 'ControllerRevision',
  resource: 'controllerrevisions',
  namespaced: true,
  versions: ['v1'],
  client: ['apps', 'controllerRevisions'],
});

export const DAEMON_SETS = kind<DaemonSet>()({
  group: 'apps',
  kind: 'DaemonSet',
  resource: 'daemonsets',
  namespaced: true,
  versions: ['v1'],
  shortNames: ['ds'],
  categories: ['all'],
  subresources: [STATUS],
  client: ['apps', 'daemonSets'],
});

export const DEPLOYMENTS = kind<Deployment>()({
  group: 'apps',
  kind: 'Deployment',
  resource: 'deployments',
  namespaced: true,
  versions: ['v1'],
  shortNames: ['deploy'],
  categories: ['all'],
  subresources: [SCALE, STATUS],
  client: ['apps', 'deployments'],
});

export const REPLICA_SETS = kind<ReplicaSet>()({
  group: 'apps',
  kind: 'ReplicaSet',
  resource: 'replicasets',
  namespaced: true,
  versions: ['v1'],
  shortNames: ['rs'],
  categories: ['all'],
  subresources: [SCALE, STATUS],
  client: ['apps', 'replicaSets'],
});

export const STATEFUL_SETS = kind<StatefulSet>()({
  group: 'apps',
  kind: 'StatefulSet',
  resource: 'statefulsets',
  namespaced: true,
  versions: ['v1'],
  shortNames: ['sts'],
  categories: ['all'],
  subresources: [SCALE, STATUS],
  client: ['apps', 'statefulSets'],
});

export const JOBS = kind<Job>()({
  group: 'batch',
  kind: 'Job',
  resource: 'jobs',
  namespaced: true,
  versions: ['v1'],
  categories: ['all'],
  subresources: [STATUS],
  client: ['batch', 'jobs'],
});

export const CRON_JOBS = kind<CronJob>()({
  group: 'batch',
  kind: 'CronJob',
  resource: 'cronjobs',
  namespaced: true,
  versions: ['v1'],
  shortNames: ['cj'],
  categories: ['all'],
  subresources: [STATUS],
  client: ['batch', 'cronJobs'],
});

export const HORIZONTAL_POD_AUTOSCALERS = kind<HorizontalPodAutoscaler>()({
  group: 'autoscaling',
  kind: 'HorizontalPodAutoscaler',
  resource: 'horizontalpodautoscalers',
  namespaced: true,
  // v2 is preferred and stored; v1 is converted (pkg/apis/autoscaling/v1/conversion.go).
  versions: ['v2', 'v1'],
  shortNames: ['hpa'],
  categories: ['all'],
  subresources: [STATUS],
  client: ['autoscaling', 'horizontalPodAutoscalers'],
});

export const EVENTS_V1 = kind<EventsV1Event>()({
  group: 'events.k8s.io',
  kind: 'Event',
  resource: 'events',
  namespaced: true,
  versions: ['v1'],
  shortNames: ['ev'],
  // events.k8s.io/v1 Events are core Events, converted (pkg/apis/events/v1/conversion.go).
  storedAs: { group: '', resource: 'events' },
  client: ['events', 'events'],
});

export const ENDPOINT_SLICES = kind<EndpointSlice>()({
  group: 'discovery.k8s.io',
  kind: 'EndpointSlice',
  resource: 'endpointslices',
  namespaced: true,
  versions: ['v1'],
  client: ['discovery', 'endpointSlices'],
});

export const SELF_SUBJECT_ACCESS_REVIEWS = kind<KubeObject>()({
  group: 'authorization.k8s.io',
  kind: 'SelfSubjectAccessReview',
  resource: 'selfsubjectaccessreviews',
  namespaced: false,
  versions: ['v1'],
  verbs: VIEW_VERBS,
  client: ['authorization', 'selfSubjectAccessReviews'],
});

export const SELF_SUBJECT_REVIEWS = kind<KubeObject>()({
  group: 'authentication.k8s.io',
  kind: 'SelfSubjectReview',
  resource: 'selfsubjectreviews',
  namespaced: false,
  versions: ['v1'],
  verbs: VIEW_VERBS,
  client: ['authentication', 'selfSubjectReviews'],
});

export const MUTATING_WEBHOOK_CONFIGURATIONS = kind<MutatingWebhookConfiguration>()({
  group: 'admissionregistration.k8s.io',
  kind: 'MutatingWebhookConfiguration',
  resource: 'mutatingwebhookconfigurations',
  namespaced: false,
  versions: ['v1'],
  categories: API_EXTENSIONS,
  client: ['admissionregistration', 'mutatingWebhookConfigurations'],
});

export const VALIDATING_ADMISSION_POLICIES = kind<ValidatingAdmissionPolicy>()({
  group: 'admissionregistration.k8s.io',
  kind: 'ValidatingAdmissionPolicy',
  resource: 'validatingadmissionpolicies',
  namespaced: false,
  versions: ['v1'],
  categories: API_EXTENSIONS,
  subresources: [STATUS],
  client: ['admissionregistration', 'validatingAdmissionPolicies'],
});

export const VALIDATING_ADMISSION_POLICY_BINDINGS = kind<ValidatingAdmissionPolicyBinding>()({
  group: 'admissionregistration.k8s.io',
  kind: 'ValidatingAdmissionPolicyBinding',
  resource: 'validatingadmissionpolicybindings',
  namespaced: false,
  versions: ['v1'],
  categories: API_EXTENSIONS,
  client: ['admissionregistration', 'validatingAdmissionPolicyBindings'],
});

export const VALIDATING_WEBHOOK_CONFIGURATIONS = kind<ValidatingWebhookConfiguration>()({
  group: 'admissionregistration.k8s.io',
  kind: 'ValidatingWebhookConfiguration',
  resource: 'validatingwebhookconfigurations',
  namespaced: false,
  versions: ['v1'],
  categories: API_EXTENSIONS,
  client: ['admissionregistration', 'validatingWebhookConfigurations'],
});

export const CUSTOM_RESOURCE_DEFINITIONS = kind<CustomResourceDefinition>()({
  group: 'apiextensions.k8s.io',
  kind: 'CustomResourceDefinition',
  resource: 'customresourcedefinitions',
  namespaced: false,
  versions: ['v1'],
  shortNames: ['crd', 'crds'],
  categories: API_EXTENSIONS,
  subresources: [STATUS],
  client: ['apiextensions', 'customResourceDefinitions'],
});

export const API_SERVICES = kind<APIService>()({
  group: 'apiregistration.k8s.io',
  kind: 'APIService',
  resource: 'apiservices',
  namespaced: false,
  versions: ['v1'],
  categories: API_EXTENSIONS,
  subresources: [STATUS],
  client: ['apiregistration', 'apiServices'],
});

export const TOKEN_REVIEWS = kind<TokenReview>()({
  group: 'authentication.k8s.io',
  kind: 'TokenReview',
  resource: 'tokenreviews',
  namespaced: false,
  versions: ['v1'],
  verbs: VIEW_VERBS,
  client: ['authentication', 'tokenReviews'],
});

export const LOCAL_SUBJECT_ACCESS_REVIEWS = kind<LocalSubjectAccessReview>()({
  group: 'authorization.k8s.io',
  kind: 'LocalSubjectAccessReview',
  resource: 'localsubjectaccessreviews',
  namespaced: true,
  versions: ['v1'],
  verbs: VIEW_VERBS,
  client: ['authorization', 'localSubjectAccessReviews'],
});

export const SELF_SUBJECT_RULES_REVIEWS = kind<SelfSubjectRulesReview>()({
  group: 'authorization.k8s.io',
  kind: 'SelfSubjectRulesReview',
  resource: 'selfsubjectrulesreviews',
  namespaced: false,
  versions: ['v1'],
  verbs: VIEW_VERBS,
  client: ['authorization', 'selfSubjectRulesReviews'],
});

export const SUBJECT_ACCESS_REVIEWS = kind<SubjectAccessReview>()({
  group: 'authorization.k8s.io',
  kind: 'SubjectAccessReview',
  resource: 'subjectaccessreviews',
  namespaced: false,
  versions: ['v1'],
  verbs: VIEW_VERBS,
  client: ['authorization', 'subjectAccessReviews'],
});

export const CERTIFICATE_SIGNING_REQUESTS = kind<CertificateSigningRequest>()({
  group: 'certificates.k8s.io',
  kind: 'CertificateSigningRequest',
  resource: 'certificatesigningrequests',
  namespaced: false,
  versions: ['v1'],
  shortNames: ['csr'],
  subresources: [APPROVAL, STATUS],
  client: ['certificates', 'certificateSigningRequests'],
});

export const FLOW_SCHEMAS = kind<FlowSchema>()({
  group: 'flowcontrol.apiserver.k8s.io',
  kind: 'FlowSchema',
  resource: 'flowschemas',
  namespaced: false,
  versions: ['v1'],
  subresources: [STATUS],
  client: ['flowcontrol', 'flowSchemas'],
});

export const PRIORITY_LEVEL_CONFIGURATIONS = kind<PriorityLevelConfiguration>()({
  group: 'flowcontrol.apiserver.k8s.io',
  kind: 'PriorityLevelConfiguration',
  resource: 'prioritylevelconfigurations',
  namespaced: false,
  versions: ['v1'],
  subresources: [STATUS],
  client: ['flowcontrol', 'priorityLevelConfigurations'],
});

export const INGRESS_CLASSES = kind<IngressClass>()({
  group: 'networking.k8s.io',
  kind: 'IngressClass',
  resource: 'ingressclasses',
  namespaced: false,
  versions: ['v1'],
  client: ['networking', 'ingressClasses'],
});

export const INGRESSES = kind<Ingress>()({
  group: 'networking.k8s.io',
  kind: 'Ingress',
  resource: 'ingresses',
  namespaced: true,
  versions: ['v1'],
  shortNames: ['ing'],
  subresources: [STATUS],
  client: ['networking', 'ingresses'],
});

export const IP_ADDRESSES = kind<IPAddress>()({
  group: 'networking.k8s.io',
  kind: 'IPAddress',
  resource: 'ipaddresses',
  namespaced: false,
  versions: ['v1'],
  shortNames: ['ip'],
  client: ['networking', 'ipAddresses'],
});

export const NETWORK_POLICIES = kind<NetworkPolicy>()({
  group: 'networking.k8s.io',
  kind: 'NetworkPolicy',
  resource: 'networkpolicies',
  namespaced: true,
  versions: ['v1'],
  shortNames: ['netpol'],
  client: ['networking', 'networkPolicies'],
});

export const SERVICE_CIDRS = kind<ServiceCIDR>()({
  group: 'networking.k8s.io',
  kind: 'ServiceCIDR',
  resource: 'servicecidrs',
  namespaced: false,
  versions: ['v1'],
  subresources: [STATUS],
  client: ['networking', 'serviceCIDRs'],
});

export const RUNTIME_CLASSES = kind<RuntimeClass>()({
  group: 'node.k8s.io',
  kind: 'RuntimeClass',
  resource: 'runtimeclasses',
  namespaced: false,
  versions: ['v1'],
  client: ['node', 'runtimeClasses'],
});

export const POD_DISRUPTION_BUDGETS = kind<PodDisruptionBudget>()({
  group: 'policy',
  kind: 'PodDisruptionBudget',
  resource: 'poddisruptionbudgets',
  namespaced: true,
  versions: ['v1'],
  shortNames: ['pdb'],
  subresources: [STATUS],
  client: ['policy', 'podDisruptionBudgets'],
});

export const CLUSTER_ROLE_BINDINGS = kind<ClusterRoleBinding>()({
  group: 'rbac.authorization.k8s.io',
  kind: 'ClusterRoleBinding',
  resource: 'clusterrolebindings',
  namespaced: false,
  versions: ['v1'],
  client: ['rbac', 'clusterRoleBindings'],
});

export const CLUSTER_ROLES = kind<ClusterRole>()({
  group: 'rbac.authorization.k8s.io',
  kind: 'ClusterRole',
  resource: 'clusterroles',
  namespaced: false,
  versions: ['v1'],
  client: ['rbac', 'clusterRoles'],
});

export const ROLE_BINDINGS = kind<RoleBinding>()({
  group: 'rbac.authorization.k8s.io',
  kind: 'RoleBinding',
  resource: 'rolebindings',
  namespaced: true,
  versions: ['v1'],
  client: ['rbac', 'roleBindings'],
});

export const ROLES = kind<Role>()({
  group: 'rbac.authorization.k8s.io',
  kind: 'Role',
  resource: 'roles',
  namespaced: true,
  versions: ['v1'],
  client: ['rbac', 'roles'],
});

export const CSI_DRIVERS = kind<CSIDriver>()({
  group: 'storage.k8s.io',
  kind: 'CSIDriver',
  resource: 'csidrivers',
  namespaced: false,
  versions: ['v1'],
  client: ['storage', 'csiDrivers'],
});

export const CSI_NODES = kind<CSINode>()({
  group: 'storage.k8s.io',
  kind: 'CSINode',
  resource: 'csinodes',
  namespaced: false,
  versions: ['v1'],
  client: ['storage', 'csiNodes'],
});

export const CSI_STORAGE_CAPACITIES = kind<CSIStorageCapacity>()({
  group: 'storage.k8s.io',
  kind: 'CSIStorageCapacity',
  resource: 'csistoragecapacities',
  namespaced: true,
  versions: ['v1'],
  client: ['storage', 'csiStorageCapacities'],
});

export const STORAGE_CLASSES = kind<StorageClass>()({
  group: 'storage.k8s.io',
  kind: 'StorageClass',
  resource: 'storageclasses',
  namespaced: false,
  versions: ['v1'],
  shortNames: ['sc'],
  client: ['storage', 'storageClasses'],
});

export const VOLUME_ATTACHMENTS = kind<VolumeAttachment>()({
  group: 'storage.k8s.io',
  kind: 'VolumeAttachment',
  resource: 'volumeattachments',
  namespaced: false,
  versions: ['v1'],
  subresources: [STATUS],
  client: ['storage', 'volumeAttachments'],
});

/** Every row. */
/**
 * metrics.k8s.io/v1beta1, the resource metrics API metrics-server serves (pkg/api/install.go): node
 * and pod usage, computed on each request (get and list only, no singular name, as its REST storage
 * declares). kubeplane serves it itself from simulated usage (machinery/usage).
 */
export const NODE_METRICS = kind<NodeMetrics>()({
  group: 'metrics.k8s.io',
  kind: 'NodeMetrics',
  resource: 'nodes',
  namespaced: false,
  versions: ['v1beta1'],
  singular: '',
  verbs: ['get', 'list'],
  client: ['metrics', 'nodeMetricses'],
});

export const POD_METRICS = kind<PodMetrics>()({
  group: 'metrics.k8s.io',
  kind: 'PodMetrics',
  resource: 'pods',
  namespaced: true,
  versions: ['v1beta1'],
  singular: '',
  verbs: ['get', 'list'],
  client: ['metrics', 'podMetricses'],
});

export const CATALOGUE = [
  NAMESPACES,
  NODES,
  PODS,
  SERVICES,
  ENDPOINTS,
  CONFIG_MAPS,
  SECRETS,
  SERVICE_ACCOUNTS,
  EVENTS,
  PERSISTENT_VOLUME_CLAIMS,
  LEASES,
  PRIORITY_CLASSES,
  CONTROLLER_REVISIONS,
  DAEMON_SETS,
  DEPLOYMENTS,
  REPLICA_SETS,
  STATEFUL_SETS,
  JOBS,
  CRON_JOBS,
  HORIZONTAL_POD_AUTOSCALERS,
  EVENTS_V1,
  ENDPOINT_SLICES,
  SELF_SUBJECT_ACCESS_REVIEWS,
  SELF_SUBJECT_REVIEWS,
  BINDINGS,
  COMPONENT_STATUSES,
  LIMIT_RANGES,
  PERSISTENT_VOLUMES,
  POD_TEMPLATES,
  REPLICATION_CONTROLLERS,
  RESOURCE_QUOTAS,
  MUTATING_WEBHOOK_CONFIGURATIONS,
  VALIDATING_ADMISSION_POLICIES,
  VALIDATING_ADMISSION_POLICY_BINDINGS,
  VALIDATING_WEBHOOK_CONFIGURATIONS,
  CUSTOM_RESOURCE_DEFINITIONS,
  API_SERVICES,
  TOKEN_REVIEWS,
  LOCAL_SUBJECT_ACCESS_REVIEWS,
  SELF_SUBJECT_RULES_REVIEWS,
  SUBJECT_ACCESS_REVIEWS,
  CERTIFICATE_SIGNING_REQUESTS,
  FLOW_SCHEMAS,
  PRIORITY_LEVEL_CONFIGURATIONS,
  INGRESS_CLASSES,
  INGRESSES,
  IP_ADDRESSES,
  NETWORK_POLICIES,
  SERVICE_CIDRS,
  RUNTIME_CLASSES,
  POD_DISRUPTION_BUDGETS,
  CLUSTER_ROLE_BINDINGS,
  CLUSTER_ROLES,
  ROLE_BINDINGS,
  ROLES,
  CSI_DRIVERS,
  CSI_NODES,
  CSI_STORAGE_CAPACITIES,
  STORAGE_CLASSES,
  VOLUME_ATTACHMENTS,
  NODE_METRICS,
  POD_METRICS,
] as const;
