/**
 * The part of upstream's RBAC bootstrap policy kubeplane creates at start-up: the user-facing
 * ClusterRoles `cluster-admin`, `admin`, `edit` and `view`, the `system:aggregate-to-{admin,edit,view}`
 * roles whose rules upstream aggregates into them, and the `cluster-admin` ClusterRoleBinding of the
 * group `system:masters` — each labelled `kubernetes.io/bootstrapping: rbac-defaults` and annotated
 * `rbac.authorization.kubernetes.io/autoupdate: "true"`, as upstream's.
 *
 * Followed (v1.33): plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go (ClusterRoles,
 * ClusterRoleBindings, addClusterRoleLabel) and its golden files testdata/cluster-roles.yaml and
 * cluster-role-bindings.yaml (rules as stored: resources and verbs sorted), pkg/registry/rbac/rest/
 * storage_rbac.go (the post-start hook that creates them).
 *
 * Differences: (1) there is no ClusterRole aggregation controller, so `admin`, `edit` and `view` keep
 * the empty rules upstream bootstraps them with (upstream's controller then fills them from the
 * `aggregate-to-*` roles); (2) left out: the other `system:*` ClusterRoles (discovery, basic-user,
 * public-info-viewer, node, the controller roles …) and their bindings, the namespaced bootstrap Roles
 * in kube-system and kube-public, and the reconciliation of existing objects whose autoupdate
 * annotation is "true" (objects are created when missing and never changed). None of it matters while
 * RBAC is not enforced (issue 20).
 */
import type { ClusterRole, ClusterRoleBinding, PolicyRule } from '../../../api/index.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
/** `bootstrappolicy`'s Read, Write and ReadWrite verb sets, sorted as stored. */
const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const READ_WRITE = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** `rbacv1helpers.NewRule(verbs…).Groups(group).Resources(resources…).RuleOrDie()`. */
function rule(verbs: string[], group: string, resources: string[]): PolicyRule {
  return { apiGroups: [group], resources, verbs };
}

/** `addClusterRoleLabel` plus the autoupdate annotation every bootstrap object carries. */
function bootstrapMeta(name: string, labels: Record<string, string> = {}): ClusterRole['metadata'] {
  return {
    name,
    labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults', ...labels },
    annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
  };
}

const aggregateTo = (role: string): Record<string, string> => ({ [`rbac.authorization.k8s.io/aggregate-to-${role}`]: 'true' });

/** A ClusterRole whose rules come from the ClusterRoles labelled `aggregate-to-<role>`. */
function aggregatedRole(name: string, labels: Record<string, string> = {}): ClusterRole {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: bootstrapMeta(name, labels),
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: aggregateTo(name) }] },
  };
}

function clusterRole(name: string, labels: Record<string, string>, rules: PolicyRule[]): ClusterRole {
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: bootstrapMeta(name, labels), rules };
}

/** The ClusterRoles created at start-up, in the golden file's (name) order. */
export const BOOTSTRAP_CLUSTER_ROLES: readonly ClusterRole[] = [
  aggregatedRole('admin'),
  clusterRole('cluster-admin', {}, [
    { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
    { nonResourceURLs: ['*'], verbs: ['*'] },
  ]),
  aggregatedRole('edit', aggregateTo('admin')),
  clusterRole('system:aggregate-to-admin', aggregateTo('admin'), [
    rule(['create'], 'authorization.k8s.io', ['localsubjectaccessreviews']),
    rule(READ_WRITE, RBAC_GROUP, ['rolebindings', 'roles']),
  ]),
  clusterRole('system:aggregate-to-edit', aggregateTo('edit'), [
    rule(READ, '', ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy']),
    rule(['impersonate'], '', ['serviceaccounts']),
    rule(WRITE, '', ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy']),
    rule(['create'], '', ['pods/eviction']),
    rule(WRITE, '', [
      'configmaps',
      'events',
      'persistentvolumeclaims',
      'replicationcontrollers',
      'replicationcontrollers/scale',
      'secrets',
      'serviceaccounts',
      'services',
      'services/proxy',
    ]),
    rule(['create'], '', ['serviceaccounts/token']),
    rule(WRITE, 'apps', [
      'daemonsets',
      'deployments',
      'deployments/rollback',
      'deployments/scale',
      'replicasets',
      'replicasets/scale',
      'statefulsets',
      'statefulsets/scale',
    ]),
    rule(WRITE, 'autoscaling', ['horizontalpodautoscalers']),
    rule(WRITE, 'batch', ['cronjobs', 'jobs']),
    rule(WRITE, 'extensions', [
      'daemonsets',
      'deployments',
      'deployments/rollback',
      'deployments/scale',
      'ingresses',
      'networkpolicies',
      'replicasets',
      'replicasets/scale',
      'replicationcontrollers/scale',
    ]),
    rule(WRITE, 'policy', ['poddisruptionbudgets']),
    rule(WRITE, 'networking.k8s.io', ['ingresses', 'networkpolicies']),
    rule(READ_WRITE, 'coordination.k8s.io', ['leases']),
  ]),
  clusterRole('system:aggregate-to-view', aggregateTo('view'), [
    rule(READ, '', [
      'configmaps',
      'endpoints',
      'persistentvolumeclaims',
      'persistentvolumeclaims/status',
      'pods',
      'replicationcontrollers',
      'replicationcontrollers/scale',
      'serviceaccounts',
      'services',
      'services/status',
    ]),
    rule(READ, '', [
      'bindings',
      'events',
      'limitranges',
      'namespaces/status',
      'pods/log',
      'pods/status',
      'replicationcontrollers/status',
      'resourcequotas',
      'resourcequotas/status',
    ]),
    rule(READ, '', ['namespaces']),
    rule(READ, 'discovery.k8s.io', ['endpointslices']),
    rule(READ, 'apps', [
      'controllerrevisions',
      'daemonsets',
      'daemonsets/status',
      'deployments',
      'deployments/scale',
      'deployments/status',
      'replicasets',
      'replicasets/scale',
      'replicasets/status',
      'statefulsets',
      'statefulsets/scale',
      'statefulsets/status',
    ]),
    rule(READ, 'autoscaling', ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
    rule(READ, 'batch', ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status']),
    rule(READ, 'extensions', [
      'daemonsets',
      'daemonsets/status',
      'deployments',
      'deployments/scale',
      'deployments/status',
      'ingresses',
      'ingresses/status',
      'networkpolicies',
      'replicasets',
      'replicasets/scale',
      'replicasets/status',
      'replicationcontrollers/scale',
    ]),
    rule(READ, 'policy', ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
    rule(READ, 'networking.k8s.io', ['ingresses', 'ingresses/status', 'networkpolicies']),
  ]),
  aggregatedRole('view', aggregateTo('edit')),
];

/** The ClusterRoleBindings created at start-up: `cluster-admin` for the group `system:masters` (`user.SystemPrivilegedGroup`). */
export const BOOTSTRAP_CLUSTER_ROLE_BINDINGS: readonly ClusterRoleBinding[] = [
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: bootstrapMeta('cluster-admin'),
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ apiGroup: RBAC_GROUP, kind: 'Group', name: 'system:masters' }],
  },
];
