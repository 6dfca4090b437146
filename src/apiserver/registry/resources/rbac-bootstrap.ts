/**
 * Upstream's RBAC bootstrap policy, which the API server reconciles at start-up
 * (rbac-reconcile.ts): the ClusterRoles and ClusterRoleBindings of the user-facing and `system:*`
 * roles, one ClusterRole and ClusterRoleBinding per kube-controller-manager controller
 * (`system:controller:<name>`, bound to the service account `kube-system/<name>`), and the
 * namespaced Roles and RoleBindings of kube-system and kube-public. Every object is labelled
 * `kubernetes.io/bootstrapping: rbac-defaults` and annotated
 * `rbac.authorization.kubernetes.io/autoupdate: "true"`. The authorizer in src/apiserver/authz
 * evaluates them, so `system:masters` is cluster-admin, every authenticated user may discover the
 * API, the controllers' service accounts hold exactly their controller's permissions, and so on.
 *
 * Followed (v1.33): plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go (ClusterRoles,
 * ClusterRoleBindings, NodeRules, addDefaultMetadata), controller_policy.go (buildControllerRoles,
 * addControllerRole, eventsRule), namespace_policy.go (NamespaceRoles, NamespaceRoleBindings) and
 * pkg/apis/rbac/v1/helpers.go (`PolicyRuleBuilder.Rule` sorts verbs, groups, resources, names and
 * URLs; `ClusterRoleBindingBuilder`, `RoleBindingBuilder`), at v1.33's feature-gate defaults:
 * MultiCIDRServiceAllocator (GA, on: the service-cidrs-controller role, kube-proxy reads
 * ServiceCIDRs), SELinuxChangePolicy (beta, on: the selinux-warning-controller role),
 * KubeletFineGrainedAuthz (beta, on: kubelet-api-admin's nodes/configz, nodes/healthz, nodes/pods);
 * off, so absent: DynamicResourceAllocation (the resource-claim-controller role and the DRA rules of
 * the scheduler, node and aggregate-to-* roles), DRADeviceTaints, VolumeAttributesClass (its
 * protection controller), ClusterTrustBundle(Projection), CoordinatedLeaderElection
 * (leasecandidates in the scheduler's role), StorageVersionAPI and StorageVersionMigrator.
 * testdata/rbac-bootstrap/ holds the objects in upstream's golden-file form (see its README for how
 * that form was checked against upstream); rbac-bootstrap.test.ts compares.
 *
 * Added beside upstream's API-server policy: the ClusterRoleBinding `kubeadm:cluster-admins`
 * (group `kubeadm:cluster-admins` → cluster-admin), which is kubeadm's, not the API server's:
 * cmd/kubeadm/app/constants/constants.go `ClusterAdminsGroupAndClusterRoleBinding`, created by
 * cmd/kubeadm/app/phases/kubeconfig/kubeconfig.go `EnsureAdminClusterRoleBinding` for the
 * `admin.conf` user of kubeadm clusters (kubeadm ≥ 1.29). It carries no bootstrapping label or
 * annotation, as kubeadm creates it; kubeplane creates it so kubeconfigs written the kubeadm way
 * work.
 *
 * Left out: upstream's post-start migrations of very old clusters (storage_rbac.go
 * `primeAggregatedClusterRoles`, `primeSplitClusterRoleBindings`).
 */
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, Subject } from '../../../api/index.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const RBAC_API_VERSION = 'rbac.authorization.k8s.io/v1';

/** `rbacv1.AutoUpdateAnnotationKey`. */
export const AUTO_UPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';
/** The label every bootstrap object carries (`bootstrappolicy.Label`). */
export const BOOTSTRAPPING_LABEL = 'kubernetes.io/bootstrapping';

// API groups, as bootstrappolicy names them.
const legacy = '';
const apps = 'apps';
const authentication = 'authentication.k8s.io';
const authorization = 'authorization.k8s.io';
const autoscaling = 'autoscaling';
const batch = 'batch';
const certificates = 'certificates.k8s.io';
const coordination = 'coordination.k8s.io';
const discovery = 'discovery.k8s.io';
const extensions = 'extensions';
const policy = 'policy';
const storage = 'storage.k8s.io';
const networking = 'networking.k8s.io';
const events = 'events.k8s.io';
const admissionRegistration = 'admissionregistration.k8s.io';

/** `bootstrappolicy`'s verb sets. */
const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'update', 'patch', 'delete', 'deletecollection'];
const READ_WRITE = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];

const sorted = (xs: readonly string[]): string[] => [...xs].sort();

/**
 * `rbacv1helpers.NewRule(verbs…).Groups(groups…).Resources(resources…).Names(names…).RuleOrDie()`:
 * every list sorted (Go's sort.Strings, byte order), empty ones left out.
 */
function rule(verbs: readonly string[], groups: string | readonly string[], resources: readonly string[], names: readonly string[] = []): PolicyRule {
  const r: PolicyRule = { apiGroups: sorted(typeof groups === 'string' ? [groups] : groups), resources: sorted(resources), verbs: sorted(verbs) };
  if (names.length > 0) r.resourceNames = sorted(names);
  return r;
}

/** `NewRule(verbs…).URLs(urls…).RuleOrDie()`. */
function urlRule(verbs: readonly string[], urls: readonly string[]): PolicyRule {
  return { nonResourceURLs: sorted(urls), verbs: sorted(verbs) };
}

/** `eventsRule()`: create, update and patch of events in the core and events.k8s.io groups. */
const eventsRule = (): PolicyRule => rule(['create', 'update', 'patch'], [legacy, events], ['events']);

/** `addDefaultMetadata`: the bootstrapping label and the autoupdate annotation, beside the object's own labels. */
function meta(name: string, labels: Record<string, string> = {}, namespace?: string): NonNullable<ClusterRole['metadata']> {
  return {
    name,
    ...(namespace === undefined ? {} : { namespace }),
    labels: { ...labels, [BOOTSTRAPPING_LABEL]: 'rbac-defaults' },
    annotations: { [AUTO_UPDATE_ANNOTATION]: 'true' },
  };
}

const aggregateTo = (role: string): Record<string, string> => ({ [`rbac.authorization.k8s.io/aggregate-to-${role}`]: 'true' });

function clusterRole(name: string, rules: PolicyRule[], labels: Record<string, string> = {}): ClusterRole {
  return { apiVersion: RBAC_API_VERSION, kind: 'ClusterRole', metadata: meta(name, labels), rules };
}

/** A ClusterRole whose rules are the aggregation controller's to fill from the roles labelled `aggregate-to-<name>`. */
function aggregatedRole(name: string, labels: Record<string, string> = {}): ClusterRole {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: 'ClusterRole',
    metadata: meta(name, labels),
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: aggregateTo(name) }] },
  };
}

const user = (name: string): Subject => ({ apiGroup: RBAC_GROUP, kind: 'User', name });
const group = (name: string): Subject => ({ apiGroup: RBAC_GROUP, kind: 'Group', name });
const serviceAccount = (namespace: string, name: string): Subject => ({ kind: 'ServiceAccount', name, namespace });

/** `rbacv1helpers.NewClusterBinding(role).<subjects>.BindingOrDie()` plus the default metadata. */
function clusterBinding(role: string, subjects: Subject[]): ClusterRoleBinding {
  const b: ClusterRoleBinding = { apiVersion: RBAC_API_VERSION, kind: 'ClusterRoleBinding', metadata: meta(role), roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role } };
  if (subjects.length > 0) b.subjects = subjects;
  return b;
}

const byName = <T extends { metadata?: { name?: string; namespace?: string } }>(a: T, b: T): number => {
  const ka = a.metadata?.name ?? '';
  const kb = b.metadata?.name ?? '';
  return ka < kb ? -1 : ka > kb ? 1 : 0;
};

// ---------------------------------------------------------------------------------------------
// policy.go

/** `NodeRules()`: what the `system:node` role grants (the Node authorizer does the per-node narrowing). */
function nodeRules(): PolicyRule[] {
  return [
    rule(['create'], authentication, ['tokenreviews']),
    rule(['create'], authorization, ['subjectaccessreviews', 'localsubjectaccessreviews']),
    rule(READ, legacy, ['services']),
    rule(['create', 'get', 'list', 'watch'], legacy, ['nodes']),
    rule(['update', 'patch'], legacy, ['nodes/status']),
    rule(['update', 'patch'], legacy, ['nodes']),
    rule(['create', 'update', 'patch'], legacy, ['events']),
    rule(READ, legacy, ['pods']),
    rule(['create', 'delete'], legacy, ['pods']),
    rule(['update', 'patch'], legacy, ['pods/status']),
    rule(['create'], legacy, ['pods/eviction']),
    rule(['get', 'list', 'watch'], legacy, ['secrets', 'configmaps']),
    rule(['get'], legacy, ['persistentvolumeclaims', 'persistentvolumes']),
    rule(['get'], legacy, ['endpoints']),
    rule(['create', 'get', 'list', 'watch'], certificates, ['certificatesigningrequests']),
    rule(['get', 'create', 'update', 'patch', 'delete'], coordination, ['leases']),
    rule(['get'], storage, ['volumeattachments']),
    rule(['create'], legacy, ['serviceaccounts/token']),
    rule(['get', 'update', 'patch'], legacy, ['persistentvolumeclaims/status']),
    rule(['get', 'watch', 'list'], storage, ['csidrivers']),
    rule(['get', 'create', 'update', 'patch', 'delete'], storage, ['csinodes']),
    rule(['get', 'list', 'watch'], 'node.k8s.io', ['runtimeclasses']),
  ];
}

/** The rules of `system:aggregate-to-edit` (aggregated into `edit`, and through it into `admin`). */
function editRules(): PolicyRule[] {
  return [
    rule(READ, legacy, ['pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward', 'secrets', 'services/proxy']),
    rule(['impersonate'], legacy, ['serviceaccounts']),
    rule(WRITE, legacy, ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
    rule(['create'], legacy, ['pods/eviction']),
    rule(WRITE, legacy, ['replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/proxy', 'persistentvolumeclaims', 'configmaps', 'secrets', 'events']),
    rule(['create'], legacy, ['serviceaccounts/token']),
    rule(WRITE, apps, ['statefulsets', 'statefulsets/scale', 'daemonsets', 'deployments', 'deployments/scale', 'deployments/rollback', 'replicasets', 'replicasets/scale']),
    rule(WRITE, autoscaling, ['horizontalpodautoscalers']),
    rule(WRITE, batch, ['jobs', 'cronjobs']),
    rule(WRITE, extensions, [
      'daemonsets',
      'deployments',
      'deployments/scale',
      'deployments/rollback',
      'ingresses',
      'replicasets',
      'replicasets/scale',
      'replicationcontrollers/scale',
      'networkpolicies',
    ]),
    rule(WRITE, policy, ['poddisruptionbudgets']),
    rule(WRITE, networking, ['networkpolicies', 'ingresses']),
    rule(READ_WRITE, coordination, ['leases']),
  ];
}

/** The rules of `system:aggregate-to-view` (aggregated into `view`, `edit` and `admin`). */
function viewRules(): PolicyRule[] {
  return [
    rule(READ, legacy, [
      'pods',
      'replicationcontrollers',
      'replicationcontrollers/scale',
      'serviceaccounts',
      'services',
      'services/status',
      'endpoints',
      'persistentvolumeclaims',
      'persistentvolumeclaims/status',
      'configmaps',
    ]),
    rule(READ, legacy, ['limitranges', 'resourcequotas', 'bindings', 'events', 'pods/status', 'resourcequotas/status', 'namespaces/status', 'replicationcontrollers/status', 'pods/log']),
    // Read access to namespaces at the namespace scope means you can read *this* namespace.
    rule(READ, legacy, ['namespaces']),
    rule(READ, discovery, ['endpointslices']),
    rule(READ, apps, [
      'controllerrevisions',
      'statefulsets',
      'statefulsets/status',
      'statefulsets/scale',
      'daemonsets',
      'daemonsets/status',
      'deployments',
      'deployments/status',
      'deployments/scale',
      'replicasets',
      'replicasets/status',
      'replicasets/scale',
    ]),
    rule(READ, autoscaling, ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
    rule(READ, batch, ['jobs', 'cronjobs', 'cronjobs/status', 'jobs/status']),
    rule(READ, extensions, [
      'daemonsets',
      'daemonsets/status',
      'deployments',
      'deployments/scale',
      'deployments/status',
      'ingresses',
      'ingresses/status',
      'replicasets',
      'replicasets/scale',
      'replicasets/status',
      'replicationcontrollers/scale',
      'networkpolicies',
    ]),
    rule(READ, policy, ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
    rule(READ, networking, ['networkpolicies', 'ingresses', 'ingresses/status']),
  ];
}

/** The rules of `system:kube-scheduler`. */
function kubeSchedulerRules(): PolicyRule[] {
  return [
    eventsRule(),
    // Leader election.
    rule(['create'], coordination, ['leases']),
    rule(['get', 'update'], coordination, ['leases'], ['kube-scheduler']),
    // Fundamental resources.
    rule(READ, legacy, ['nodes']),
    rule(['get', 'list', 'watch', 'delete'], legacy, ['pods']),
    rule(['create'], legacy, ['pods/binding', 'bindings']),
    rule(['patch', 'update'], legacy, ['pods/status']),
    // Things that select pods.
    rule(READ, legacy, ['services', 'replicationcontrollers']),
    rule(READ, [apps, extensions], ['replicasets']),
    rule(READ, apps, ['statefulsets']),
    // Things that pods use or that apply to them.
    rule(READ, policy, ['poddisruptionbudgets']),
    rule(READ, legacy, ['persistentvolumeclaims', 'persistentvolumes']),
    // Needed to check API access (non-mutating creates).
    rule(['create'], authentication, ['tokenreviews']),
    rule(['create'], authorization, ['subjectaccessreviews']),
    // Volume limits (the CSILimits plugin counts VolumeAttachments since v1.32).
    rule(READ, storage, ['csinodes']),
    rule(READ, storage, ['volumeattachments']),
    // The namespaceSelector of pod affinity.
    rule(READ, legacy, ['namespaces']),
    rule(READ, storage, ['csidrivers']),
    rule(READ, storage, ['csistoragecapacities']),
  ];
}

const SIGNERS = {
  kubeAPIServerClient: 'kubernetes.io/kube-apiserver-client',
  kubeAPIServerClientKubelet: 'kubernetes.io/kube-apiserver-client-kubelet',
  kubeletServing: 'kubernetes.io/kubelet-serving',
  legacyUnknown: 'kubernetes.io/legacy-unknown',
};

/** `clusterRoles()` of policy.go (without the controller roles), in the golden file's (name) order. */
function policyClusterRoles(): ClusterRole[] {
  const roles: ClusterRole[] = [
    // A "root" role which can do absolutely anything.
    clusterRole('cluster-admin', [rule(['*'], '*', ['*']), urlRule(['*'], ['*'])]),
    // Just enough to learn whether the server is ready and to discover API versions.
    clusterRole('system:discovery', [urlRule(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/', '/openapi', '/openapi/*', '/api', '/api/*', '/apis', '/apis/*'])]),
    clusterRole('system:monitoring', [urlRule(['get'], ['/metrics', '/metrics/slis', '/livez', '/readyz', '/healthz', '/livez/*', '/readyz/*', '/healthz/*'])]),
    clusterRole('system:basic-user', [rule(['create'], authorization, ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']), rule(['create'], authentication, ['selfsubjectreviews'])]),
    clusterRole('system:public-info-viewer', [urlRule(['get'], ['/livez', '/readyz', '/healthz', '/version', '/version/'])]),
    aggregatedRole('admin'),
    aggregatedRole('edit', aggregateTo('admin')),
    aggregatedRole('view', aggregateTo('edit')),
    clusterRole('system:aggregate-to-admin', [rule(['create'], authorization, ['localsubjectaccessreviews']), rule(READ_WRITE, RBAC_GROUP, ['roles', 'rolebindings'])], aggregateTo('admin')),
    clusterRole('system:aggregate-to-edit', editRules(), aggregateTo('edit')),
    clusterRole('system:aggregate-to-view', viewRules(), aggregateTo('view')),
    clusterRole('system:heapster', [rule(READ, legacy, ['events', 'pods', 'nodes', 'namespaces']), rule(READ, extensions, ['deployments'])]),
    clusterRole('system:node', nodeRules()),
    clusterRole('system:node-problem-detector', [rule(['get'], legacy, ['nodes']), rule(['patch'], legacy, ['nodes/status']), eventsRule()]),
    clusterRole('system:kubelet-api-admin', [
      // Allow read-only access to the Node API objects.
      rule(['get', 'list', 'watch'], legacy, ['nodes']),
      // Allow all API calls to the nodes.
      rule(['proxy'], legacy, ['nodes']),
      rule(['*'], legacy, ['nodes/proxy', 'nodes/metrics', 'nodes/stats', 'nodes/log']),
      // KubeletFineGrainedAuthz (beta, on in v1.33).
      rule(['*'], legacy, ['nodes/pods', 'nodes/healthz', 'nodes/configz']),
    ]),
    clusterRole('system:node-bootstrapper', [rule(['create', 'get', 'list', 'watch'], certificates, ['certificatesigningrequests'])]),
    clusterRole('system:auth-delegator', [rule(['create'], authentication, ['tokenreviews']), rule(['create'], authorization, ['subjectaccessreviews'])]),
    clusterRole('system:kube-aggregator', [rule(READ, legacy, ['services', 'endpoints'])]),
    clusterRole('system:kube-controller-manager', [
      eventsRule(),
      // Leader election.
      rule(['create'], coordination, ['leases']),
      rule(['get', 'update'], coordination, ['leases'], ['kube-controller-manager']),
      // Fundamental resources.
      rule(['create'], legacy, ['secrets', 'serviceaccounts']),
      rule(['delete'], legacy, ['secrets']),
      rule(['get'], legacy, ['namespaces', 'secrets', 'serviceaccounts', 'configmaps']),
      rule(['update'], legacy, ['secrets', 'serviceaccounts']),
      // Needed to check API access.
      rule(['create'], authentication, ['tokenreviews']),
      rule(['create'], authorization, ['subjectaccessreviews']),
      // The shared informers of every controller.
      rule(['list', 'watch'], '*', ['*']),
      rule(['create'], legacy, ['serviceaccounts/token']),
    ]),
    clusterRole('system:kube-dns', [rule(['list', 'watch'], legacy, ['endpoints', 'services'])]),
    clusterRole('system:persistent-volume-provisioner', [
      rule(['get', 'list', 'watch', 'create', 'delete'], legacy, ['persistentvolumes']),
      // update is needed in addition to read access for setting lock annotations on PVCs.
      rule(['get', 'list', 'watch', 'update'], legacy, ['persistentvolumeclaims']),
      rule(READ, storage, ['storageclasses']),
      // Needed for watching provisioning success and failure events.
      rule(['watch'], legacy, ['events']),
      eventsRule(),
    ]),
    clusterRole('system:certificates.k8s.io:certificatesigningrequests:nodeclient', [rule(['create'], certificates, ['certificatesigningrequests/nodeclient'])]),
    clusterRole('system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', [rule(['create'], certificates, ['certificatesigningrequests/selfnodeclient'])]),
    clusterRole('system:certificates.k8s.io:kubelet-serving-approver', [rule(['approve'], certificates, ['signers'], [SIGNERS.kubeletServing])]),
    clusterRole('system:certificates.k8s.io:kube-apiserver-client-approver', [rule(['approve'], certificates, ['signers'], [SIGNERS.kubeAPIServerClient])]),
    clusterRole('system:certificates.k8s.io:kube-apiserver-client-kubelet-approver', [rule(['approve'], certificates, ['signers'], [SIGNERS.kubeAPIServerClientKubelet])]),
    clusterRole('system:certificates.k8s.io:legacy-unknown-approver', [rule(['approve'], certificates, ['signers'], [SIGNERS.legacyUnknown])]),
    clusterRole('system:service-account-issuer-discovery', [urlRule(['get'], ['/.well-known/openid-configuration', '/openid/v1/jwks'])]),
    clusterRole('system:node-proxier', [
      // Used to build the service lister.
      rule(['list', 'watch'], legacy, ['services', 'endpoints']),
      rule(['get', 'list', 'watch'], legacy, ['nodes']),
      eventsRule(),
      // MultiCIDRServiceAllocator (GA, on in v1.33).
      rule(['list', 'watch'], networking, ['servicecidrs']),
      rule(['list', 'watch'], discovery, ['endpointslices']),
    ]),
    clusterRole('system:kube-scheduler', kubeSchedulerRules()),
    clusterRole('system:volume-scheduler', [
      rule(['get', 'list', 'watch', 'patch', 'update'], legacy, ['persistentvolumes']),
      rule(READ, storage, ['storageclasses']),
      rule(['get', 'list', 'watch', 'patch', 'update'], legacy, ['persistentvolumeclaims']),
    ]),
  ];
  return roles.sort(byName);
}

/** `ClusterRoleBindings()` of policy.go, in name order. */
function policyClusterRoleBindings(): ClusterRoleBinding[] {
  return [
    clusterBinding('cluster-admin', [group('system:masters')]),
    clusterBinding('system:monitoring', [group('system:monitoring')]),
    clusterBinding('system:discovery', [group('system:authenticated')]),
    clusterBinding('system:basic-user', [group('system:authenticated')]),
    clusterBinding('system:public-info-viewer', [group('system:authenticated'), group('system:unauthenticated')]),
    clusterBinding('system:node-proxier', [user('system:kube-proxy')]),
    clusterBinding('system:kube-controller-manager', [user('system:kube-controller-manager')]),
    clusterBinding('system:kube-dns', [serviceAccount('kube-system', 'kube-dns')]),
    clusterBinding('system:kube-scheduler', [user('system:kube-scheduler')]),
    clusterBinding('system:volume-scheduler', [user('system:kube-scheduler')]),
    clusterBinding('system:service-account-issuer-discovery', [group('system:serviceaccounts')]),
    // The Node authorizer, not RBAC, grants nodes their permissions; the binding has no subjects.
    clusterBinding('system:node', []),
  ].sort(byName);
}

// ---------------------------------------------------------------------------------------------
// controller_policy.go

/** `saRolePrefix`. */
export const CONTROLLER_ROLE_PREFIX = 'system:controller:';

function controllerRules(): Record<string, PolicyRule[]> {
  const pods = ['pods'];
  return {
    'attachdetach-controller': [
      rule(['list', 'watch'], legacy, ['persistentvolumes', 'persistentvolumeclaims']),
      rule(['get', 'list', 'watch'], legacy, ['nodes']),
      rule(['patch', 'update'], legacy, ['nodes/status']),
      rule(['list', 'watch'], legacy, pods),
      eventsRule(),
      rule(['get', 'create', 'delete', 'list', 'watch'], storage, ['volumeattachments']),
      rule(['get', 'watch', 'list'], storage, ['csidrivers']),
      rule(['get', 'watch', 'list'], storage, ['csinodes']),
    ],
    'certificate-controller': [
      rule(['get', 'list', 'watch', 'delete'], certificates, ['certificatesigningrequests']),
      rule(['update'], certificates, ['certificatesigningrequests/status', 'certificatesigningrequests/approval']),
      rule(['approve'], certificates, ['signers'], [SIGNERS.kubeAPIServerClientKubelet]),
      rule(['sign'], certificates, ['signers'], [SIGNERS.legacyUnknown, SIGNERS.kubeAPIServerClient, SIGNERS.kubeAPIServerClientKubelet, SIGNERS.kubeletServing]),
      rule(['create'], authorization, ['subjectaccessreviews']),
      eventsRule(),
    ],
    // This controller must be able to mutate ClusterRoles in any way.
    'clusterrole-aggregation-controller': [rule(['escalate', 'get', 'list', 'watch', 'update', 'patch'], RBAC_GROUP, ['clusterroles'])],
    'cronjob-controller': [
      rule(['get', 'list', 'watch', 'update'], batch, ['cronjobs']),
      rule(['get', 'list', 'watch', 'create', 'update', 'delete', 'patch'], batch, ['jobs']),
      rule(['update'], batch, ['cronjobs/status']),
      rule(['update'], batch, ['cronjobs/finalizers']),
      rule(['list', 'watch', 'delete'], legacy, pods),
      eventsRule(),
    ],
    'daemon-set-controller': [
      rule(['get', 'list', 'watch'], [extensions, apps], ['daemonsets']),
      rule(['update'], [extensions, apps], ['daemonsets/status']),
      rule(['update'], [extensions, apps], ['daemonsets/finalizers']),
      rule(['list', 'watch'], legacy, ['nodes']),
      rule(['list', 'watch', 'create', 'delete', 'patch'], legacy, pods),
      rule(['create'], legacy, ['pods/binding']),
      rule(['get', 'list', 'watch', 'create', 'delete', 'update', 'patch'], apps, ['controllerrevisions']),
      eventsRule(),
    ],
    'deployment-controller': [
      rule(['get', 'list', 'watch', 'update'], [extensions, apps], ['deployments']),
      rule(['update'], [extensions, apps], ['deployments/status']),
      rule(['update'], [extensions, apps], ['deployments/finalizers']),
      rule(['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'], [apps, extensions], ['replicasets']),
      rule(['get', 'list', 'watch', 'update'], legacy, pods),
      eventsRule(),
    ],
    'disruption-controller': [
      rule(READ, [extensions, apps], ['deployments']),
      rule(READ, [apps, extensions], ['replicasets']),
      rule(READ, legacy, ['replicationcontrollers']),
      rule(READ, policy, ['poddisruptionbudgets']),
      rule(READ, apps, ['statefulsets']),
      rule(['update'], policy, ['poddisruptionbudgets/status']),
      rule(['patch', 'update'], legacy, ['pods/status']),
      rule(['get'], '*', ['*/scale']),
      eventsRule(),
    ],
    'endpoint-controller': [
      rule(READ, legacy, ['services', 'pods']),
      rule(['get', 'list', 'watch', 'create', 'update', 'delete'], legacy, ['endpoints']),
      rule(['create'], legacy, ['endpoints/restricted']),
      eventsRule(),
    ],
    'endpointslice-controller': [
      rule(READ, legacy, ['services', 'pods', 'nodes']),
      rule(['update'], legacy, ['services/finalizers']),
      rule(['get', 'list', 'watch', 'create', 'update', 'delete'], discovery, ['endpointslices']),
      eventsRule(),
    ],
    'endpointslicemirroring-controller': [
      rule(READ, legacy, ['services', 'endpoints']),
      rule(['update'], legacy, ['services/finalizers']),
      rule(['update'], legacy, ['endpoints/finalizers']),
      rule(['get', 'list', 'watch', 'create', 'update', 'delete'], discovery, ['endpointslices']),
      eventsRule(),
    ],
    'ephemeral-volume-controller': [
      rule(READ, legacy, pods),
      rule(['update'], legacy, ['pods/finalizers']),
      rule(['get', 'list', 'watch', 'create'], legacy, ['persistentvolumeclaims']),
      eventsRule(),
    ],
    'expand-controller': [
      rule(['get', 'list', 'watch', 'update', 'patch'], legacy, ['persistentvolumes']),
      rule(['update', 'patch'], legacy, ['persistentvolumeclaims/status']),
      rule(READ, legacy, ['persistentvolumeclaims']),
      eventsRule(),
    ],
    'generic-garbage-collector': [rule(['get', 'list', 'watch', 'patch', 'update', 'delete'], '*', ['*']), eventsRule()],
    'horizontal-pod-autoscaler': [
      rule(READ, autoscaling, ['horizontalpodautoscalers']),
      rule(['update'], autoscaling, ['horizontalpodautoscalers/status']),
      rule(['get', 'update'], '*', ['*/scale']),
      rule(['list', 'watch'], legacy, pods),
      // Resource, custom and external metrics.
      rule(['list', 'watch'], 'metrics.k8s.io', pods),
      rule(['get', 'list', 'watch'], 'custom.metrics.k8s.io', ['*']),
      rule(['get', 'list', 'watch'], 'external.metrics.k8s.io', ['*']),
      eventsRule(),
    ],
    'job-controller': [
      rule(['get', 'list', 'watch', 'update', 'patch'], batch, ['jobs']),
      rule(['update'], batch, ['jobs/status']),
      rule(['update'], batch, ['jobs/finalizers']),
      rule(['list', 'watch', 'create', 'delete', 'patch'], legacy, pods),
      eventsRule(),
    ],
    'legacy-service-account-token-cleaner': [
      rule(['get'], legacy, ['configmaps'], ['kube-apiserver-legacy-service-account-token-tracking']),
      rule(['delete', 'patch'], legacy, ['secrets']),
    ],
    'namespace-controller': [
      rule(['get', 'list', 'watch', 'delete'], legacy, ['namespaces']),
      rule(['update'], legacy, ['namespaces/finalize', 'namespaces/status']),
      rule(['get', 'list', 'watch', 'delete', 'deletecollection'], '*', ['*']),
    ],
    'node-controller': [
      rule(['get', 'list', 'watch', 'update', 'delete', 'patch'], legacy, ['nodes']),
      rule(['patch', 'update'], legacy, ['nodes/status']),
      // Used for pod deletion.
      rule(['patch', 'update'], legacy, ['pods/status']),
      rule(['list', 'watch', 'delete', 'get'], legacy, pods),
      eventsRule(),
    ],
    'persistent-volume-binder': [
      rule(['get', 'list', 'watch', 'update', 'create', 'delete'], legacy, ['persistentvolumes']),
      rule(['update'], legacy, ['persistentvolumes/status']),
      rule(['get', 'list', 'watch', 'update'], legacy, ['persistentvolumeclaims']),
      rule(['update'], legacy, ['persistentvolumeclaims/status']),
      rule(['list', 'watch', 'get', 'create', 'delete'], legacy, pods),
      rule(READ, storage, ['storageclasses']),
      rule(['list', 'watch'], legacy, ['nodes']),
      eventsRule(),
      // The recycler watches its pod's events.
      rule(['watch'], legacy, ['events']),
    ],
    'pod-garbage-collector': [rule(['list', 'watch', 'delete'], legacy, pods), rule(['get', 'list', 'watch'], legacy, ['nodes']), rule(['patch'], legacy, ['pods/status'])],
    'pv-protection-controller': [rule(['get', 'list', 'watch', 'update'], legacy, ['persistentvolumes']), eventsRule()],
    'pvc-protection-controller': [rule(['get', 'list', 'watch', 'update'], legacy, ['persistentvolumeclaims']), rule(READ, legacy, pods), eventsRule()],
    'replicaset-controller': [
      rule(['get', 'list', 'watch', 'update'], [apps, extensions], ['replicasets']),
      rule(['update'], [apps, extensions], ['replicasets/status']),
      rule(['update'], [apps, extensions], ['replicasets/finalizers']),
      rule(['list', 'watch', 'patch', 'create', 'delete'], legacy, pods),
      eventsRule(),
    ],
    'replication-controller': [
      // 1.0 controllers needed get, update, so without these old controllers break on new servers.
      rule(['get', 'list', 'watch', 'update'], legacy, ['replicationcontrollers']),
      rule(['update'], legacy, ['replicationcontrollers/status']),
      rule(['update'], legacy, ['replicationcontrollers/finalizers']),
      rule(['list', 'watch', 'patch', 'create', 'delete'], legacy, pods),
      eventsRule(),
    ],
    'resourcequota-controller': [rule(['list', 'watch'], '*', ['*']), rule(['update'], legacy, ['resourcequotas/status']), eventsRule()],
    'root-ca-cert-publisher': [rule(['create', 'update'], legacy, ['configmaps']), eventsRule()],
    'route-controller': [rule(['list', 'watch'], legacy, ['nodes']), rule(['patch'], legacy, ['nodes/status']), eventsRule()],
    // SELinuxChangePolicy (beta, on in v1.33).
    'selinux-warning-controller': [
      eventsRule(),
      rule(READ, legacy, ['persistentvolumes']),
      rule(READ, legacy, ['persistentvolumeclaims']),
      rule(READ, legacy, pods),
      rule(READ, storage, ['csidrivers']),
    ],
    'service-account-controller': [rule(['create'], legacy, ['serviceaccounts']), eventsRule()],
    // MultiCIDRServiceAllocator (GA, on in v1.33).
    'service-cidrs-controller': [
      rule(['get', 'list', 'watch', 'patch', 'update'], networking, ['servicecidrs']),
      rule(['patch', 'update'], networking, ['servicecidrs/finalizers']),
      rule(['patch', 'update'], networking, ['servicecidrs/status']),
      rule(READ, networking, ['ipaddresses']),
      eventsRule(),
    ],
    'service-controller': [rule(READ, legacy, ['services']), rule(['patch', 'update'], legacy, ['services/status']), rule(['list', 'watch'], legacy, ['nodes']), eventsRule()],
    'statefulset-controller': [
      rule(['list', 'watch'], legacy, pods),
      rule(READ, apps, ['statefulsets']),
      rule(['update'], apps, ['statefulsets/status']),
      rule(['update'], apps, ['statefulsets/finalizers']),
      rule(['get', 'create', 'delete', 'update', 'patch'], legacy, pods),
      rule(['get', 'create', 'delete', 'update', 'patch', 'list', 'watch'], apps, ['controllerrevisions']),
      rule(['get', 'create', 'list', 'watch'], legacy, ['persistentvolumeclaims']),
      eventsRule(),
      // StatefulSetAutoDeletePVC (GA in v1.32).
      rule(['update', 'delete'], legacy, ['persistentvolumeclaims']),
      rule(['update'], legacy, ['pods/finalizers']),
    ],
    'ttl-after-finished-controller': [rule(['get', 'list', 'watch', 'delete'], batch, ['jobs']), eventsRule()],
    'ttl-controller': [rule(['update', 'patch', 'list', 'watch'], legacy, ['nodes']), eventsRule()],
    'validatingadmissionpolicy-status-controller': [
      rule(READ, admissionRegistration, ['validatingadmissionpolicies']),
      rule(['get', 'patch', 'update'], admissionRegistration, ['validatingadmissionpolicies/status']),
      eventsRule(),
    ],
  };
}

/** `ControllerRoles()`: `system:controller:<name>` for every controller, in name order. */
function controllerRoles(): ClusterRole[] {
  return Object.entries(controllerRules())
    .map(([name, rules]) => clusterRole(CONTROLLER_ROLE_PREFIX + name, rules))
    .sort(byName);
}

/** `ControllerRoleBindings()`: each controller role bound to the service account `kube-system/<name>`. */
function controllerRoleBindings(): ClusterRoleBinding[] {
  return Object.keys(controllerRules())
    .map((name) => clusterBinding(CONTROLLER_ROLE_PREFIX + name, [serviceAccount('kube-system', name)]))
    .sort(byName);
}

// ---------------------------------------------------------------------------------------------
// namespace_policy.go

function role(namespace: string, name: string, rules: PolicyRule[]): Role {
  return { apiVersion: RBAC_API_VERSION, kind: 'Role', metadata: meta(name, {}, namespace), rules };
}

function roleBinding(namespace: string, name: string, roleName: string, subjects: Subject[]): RoleBinding {
  return { apiVersion: RBAC_API_VERSION, kind: 'RoleBinding', metadata: meta(name, {}, namespace), roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: roleName }, subjects };
}

/** Namespace, then name: the golden file's order (kube-public before kube-system). */
const byNamespaceAndName = <T extends { metadata?: { name?: string; namespace?: string } }>(a: T, b: T): number => {
  const ka = `${a.metadata?.namespace ?? ''}/${a.metadata?.name ?? ''}`;
  const kb = `${b.metadata?.namespace ?? ''}/${b.metadata?.name ?? ''}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
};

/** `NamespaceRoles()`. */
function namespaceRoles(): Role[] {
  const leaderLocking = [rule(['watch', 'get', 'list', 'create', 'update'], coordination, ['leases']), rule(['watch', 'get', 'list', 'create', 'update'], coordination, ['leasecandidates'])];
  return [
    // Reading the authentication configuration of extension API servers.
    role('kube-system', 'extension-apiserver-authentication-reader', [rule(['get', 'list', 'watch'], legacy, ['configmaps'], ['extension-apiserver-authentication'])]),
    role('kube-system', 'system::leader-locking-kube-controller-manager', leaderLocking),
    role('kube-system', 'system::leader-locking-kube-scheduler', leaderLocking),
    role('kube-system', 'system:controller:bootstrap-signer', [rule(READ, legacy, ['secrets'])]),
    role('kube-system', 'system:controller:cloud-provider', [rule(['create', 'get', 'list', 'watch'], legacy, ['configmaps'])]),
    role('kube-system', 'system:controller:token-cleaner', [rule(['delete', 'get', 'list', 'watch'], legacy, ['secrets']), eventsRule()]),
    // The bootstrap signer publishes the signed cluster-info ConfigMap.
    role('kube-public', 'system:controller:bootstrap-signer', [rule(READ, legacy, ['configmaps']), rule(['update'], legacy, ['configmaps'], ['cluster-info']), eventsRule()]),
  ].sort(byNamespaceAndName);
}

/** `NamespaceRoleBindings()`. */
function namespaceRoleBindings(): RoleBinding[] {
  return [
    roleBinding('kube-system', 'system::extension-apiserver-authentication-reader', 'extension-apiserver-authentication-reader', [
      user('system:kube-controller-manager'),
      user('system:kube-scheduler'),
    ]),
    roleBinding('kube-system', 'system::leader-locking-kube-controller-manager', 'system::leader-locking-kube-controller-manager', [
      user('system:kube-controller-manager'),
      serviceAccount('kube-system', 'kube-controller-manager'),
      serviceAccount('kube-system', 'leader-election-controller'),
    ]),
    roleBinding('kube-system', 'system::leader-locking-kube-scheduler', 'system::leader-locking-kube-scheduler', [user('system:kube-scheduler'), serviceAccount('kube-system', 'kube-scheduler')]),
    roleBinding('kube-system', 'system:controller:bootstrap-signer', 'system:controller:bootstrap-signer', [serviceAccount('kube-system', 'bootstrap-signer')]),
    roleBinding('kube-system', 'system:controller:cloud-provider', 'system:controller:cloud-provider', [serviceAccount('kube-system', 'cloud-provider')]),
    roleBinding('kube-system', 'system:controller:token-cleaner', 'system:controller:token-cleaner', [serviceAccount('kube-system', 'token-cleaner')]),
    roleBinding('kube-public', 'system:controller:bootstrap-signer', 'system:controller:bootstrap-signer', [serviceAccount('kube-system', 'bootstrap-signer')]),
  ].sort(byNamespaceAndName);
}

// ---------------------------------------------------------------------------------------------
// kubeadm

/** kubeadm's `ClusterAdminsGroupAndClusterRoleBinding`: the group of kubeadm's `admin.conf` user and the binding that makes it cluster-admin. */
export const KUBEADM_CLUSTER_ADMINS = 'kubeadm:cluster-admins';

/** The binding kubeadm's `EnsureAdminClusterRoleBinding` creates (no bootstrapping metadata). */
export const KUBEADM_CLUSTER_ADMINS_BINDING: ClusterRoleBinding = {
  apiVersion: RBAC_API_VERSION,
  kind: 'ClusterRoleBinding',
  metadata: { name: KUBEADM_CLUSTER_ADMINS },
  roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: 'cluster-admin' },
  subjects: [group(KUBEADM_CLUSTER_ADMINS)],
};

// ---------------------------------------------------------------------------------------------
// What is exported: each upstream golden file's content, and what the API server reconciles.

const freeze = <T>(xs: T[]): readonly T[] => Object.freeze(xs.map((x) => Object.freeze(x)));

/** testdata/cluster-roles.yaml: policy.go's ClusterRoles. */
export const POLICY_CLUSTER_ROLES: readonly ClusterRole[] = freeze(policyClusterRoles());
/** testdata/cluster-role-bindings.yaml. */
export const POLICY_CLUSTER_ROLE_BINDINGS: readonly ClusterRoleBinding[] = freeze(policyClusterRoleBindings());
/** testdata/controller-roles.yaml. */
export const CONTROLLER_ROLES: readonly ClusterRole[] = freeze(controllerRoles());
/** testdata/controller-role-bindings.yaml. */
export const CONTROLLER_ROLE_BINDINGS: readonly ClusterRoleBinding[] = freeze(controllerRoleBindings());
/** testdata/namespace-roles.yaml. */
export const BOOTSTRAP_ROLES: readonly Role[] = freeze(namespaceRoles());
/** testdata/namespace-role-bindings.yaml. */
export const BOOTSTRAP_ROLE_BINDINGS: readonly RoleBinding[] = freeze(namespaceRoleBindings());

/** Every ClusterRole reconciled at start-up (storage_rbac.go: `ClusterRoles()` then `ControllerRoles()`). */
export const BOOTSTRAP_CLUSTER_ROLES: readonly ClusterRole[] = Object.freeze([...POLICY_CLUSTER_ROLES, ...CONTROLLER_ROLES]);
/** Every ClusterRoleBinding reconciled at start-up, kubeadm's `kubeadm:cluster-admins` last. */
export const BOOTSTRAP_CLUSTER_ROLE_BINDINGS: readonly ClusterRoleBinding[] = Object.freeze([...POLICY_CLUSTER_ROLE_BINDINGS, ...CONTROLLER_ROLE_BINDINGS, Object.freeze(KUBEADM_CLUSTER_ADMINS_BINDING)]);
