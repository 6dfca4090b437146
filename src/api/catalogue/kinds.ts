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
  PersistentVolumeClaim,
  Pod,
  PriorityClass,
  ReplicaSet,
  Secret,
  Service,
  ServiceAccount,
  StatefulSet,
} from '../index.js';
import { SCALE, STATUS, kind } from './descriptor.js';

const VIEW_VERBS = ['create'] as const;

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

/** Every row. */
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
] as const;
