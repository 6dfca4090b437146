/**
 * Roles and ClusterRoles: the rule cases of upstream's pkg/apis/rbac/validation/validation_test.go
 * (TestValidateRoleNonResourceURL, …NamespacedNonResourceURL, …NonResourceURLNoVerbs,
 * …MixedNonResourceAndResource, …ValidResource, …NoAPIGroup, …NoResources), the aggregationRule, the
 * default table, and through a real server: RBAC names (`system:…` valid, `a/b` not) and the
 * bootstrap policy.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ClusterRole, ClusterRoleBinding, PolicyRule } from '../../../api/index.js';
import { newClientset } from '../../../client/index.js';
import { fieldErrorString, type FieldError } from '../../../machinery/errors/index.js';
import { BOOTSTRAP_CLUSTER_ROLES } from './rbac-bootstrap.js';
import { newTestServer, rejectsWithStatus } from '../../testing/fixtures.js';
import { servedStrategies } from './index.js';
import { clusterRoleStrategy, roleStrategy, validateClusterRole, validatePolicyRule, validateRole } from './roles.js';

const msgs = (errs: FieldError[]): string[] => errs.map(fieldErrorString);
const role = (rules: PolicyRule[]) => ({ apiVersion: 'rbac.authorization.k8s.io/v1' as const, kind: 'Role' as const, metadata: { name: 'r', namespace: 'default' }, rules });
const clusterRole = (extra: Partial<ClusterRole>): ClusterRole => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'c' }, ...extra });

test('policy rules: verbs always; non-resource URLs only cluster-wide and alone; else apiGroups and resources', () => {
  assert.deepEqual(msgs(validateRole(role([{ verbs: ['get'], apiGroups: ['v1'], resources: ['pods'] }]))), []);
  assert.deepEqual(msgs(validateClusterRole(clusterRole({ rules: [{ verbs: ['get'], nonResourceURLs: ['/*'] }] }))), []);
  assert.deepEqual(msgs(validateRole(role([{ verbs: ['get'], nonResourceURLs: ['/*'] }]))), [
    'rules[0].nonResourceURLs: Invalid value: []string{"/*"}: namespaced rules cannot apply to non-resource URLs',
  ]);
  assert.deepEqual(msgs(validateClusterRole(clusterRole({ rules: [{ verbs: [], nonResourceURLs: ['/*'] }] }))), [
    'rules[0].verbs: Required value: verbs must contain at least one value',
  ]);
  assert.deepEqual(msgs(validateRole(role([{ verbs: ['get'], nonResourceURLs: ['/*'], apiGroups: ['v1'], resources: ['pods'] }]))), [
    'rules[0].nonResourceURLs: Invalid value: []string{"/*"}: namespaced rules cannot apply to non-resource URLs',
    'rules[0].nonResourceURLs: Invalid value: []string{"/*"}: rules cannot apply to both regular resources and non-resource URLs',
  ]);
  assert.deepEqual(msgs(validatePolicyRule({ verbs: ['get'], resources: ['pods'] }, true, 'rules[3]')), [
    'rules[3].apiGroups: Required value: resource rules must supply at least one api group',
  ]);
  assert.deepEqual(msgs(validatePolicyRule({ verbs: ['get'], apiGroups: [''] }, false, 'rules[0]')), [
    'rules[0].resources: Required value: resource rules must supply at least one resource',
  ]);
});

test('aggregationRule: at least one selector, each a valid label selector', () => {
  assert.deepEqual(msgs(validateClusterRole(clusterRole({ aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'x/y': 'true' } }] } }))), []);
  assert.deepEqual(msgs(validateClusterRole(clusterRole({ aggregationRule: {} }))), [
    'aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil',
  ]);
  assert.deepEqual(msgs(validateClusterRole(clusterRole({ aggregationRule: { clusterRoleSelectors: [{ matchExpressions: [{ key: 'a', operator: 'Foo' }] }] } }))), [
    'aggregationRule.clusterRoleSelectors[0].matchExpressions[0].operator: Invalid value: "Foo": not a valid selector operator',
    'aggregationRule.clusterRoleSelectors[0]: Invalid value: "null": invalid label selector.',
  ]);
});

test('an update validates the ClusterRole twice, as upstream strategy does (the message names each error once)', () => {
  const bad = clusterRole({ rules: [{ verbs: ['get'], apiGroups: [''] }] });
  assert.equal(clusterRoleStrategy.validateUpdate(bad as never, clusterRole({}) as never).length, 2);
  assert.equal(roleStrategy.validateUpdate(role([{ verbs: [], apiGroups: [''], resources: ['pods'] }]) as never, role([]) as never).length, 1);
});

test('the default table: NAME, CREATED AT', () => {
  const row = roleStrategy.table.row({ ...role([]), metadata: { name: 'r', creationTimestamp: '2025-01-01T00:00:00Z' } }, 0);
  assert.deepEqual(row.cells, ['r', '2025-01-01T00:00:00Z']);
  assert.deepEqual(clusterRoleStrategy.table.columns.map((c) => [c.name, c.type]), [['Name', 'string'], ['Created At', 'date']]);
});

test('a server: RBAC names are URL path segments; the bootstrap policy is there', async () => {
  const { server } = await newTestServer({ strategies: servedStrategies });
  const cs = newClientset(server.inProcessTransport());
  await cs.rbac.clusterRoles().create(clusterRole({ metadata: { name: 'system:mine' } }));
  await cs.rbac.roles('default').create({ ...role([]), metadata: { name: 'Upper_case.ok', namespace: 'default' } });
  await rejectsWithStatus(
    cs.rbac.clusterRoles().create(clusterRole({ metadata: { name: 'a%b' } })),
    422,
    `ClusterRole.rbac.authorization.k8s.io "a%b" is invalid: metadata.name: Invalid value: "a%b": may not contain '%'`,
  );

  const roles = (await cs.rbac.clusterRoles().list()).items;
  // The whole bootstrap policy (rbac-bootstrap.ts) plus the one created here, in name order.
  assert.deepEqual(
    roles.map((r) => r.metadata?.name),
    [...BOOTSTRAP_CLUSTER_ROLES.map((r) => r.metadata?.name ?? ''), 'system:mine'].sort(),
  );
  const byName = new Map(roles.map((r) => [r.metadata?.name, r]));
  const view = byName.get('view');
  assert.deepEqual(view?.metadata?.labels, { 'kubernetes.io/bootstrapping': 'rbac-defaults', 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' });
  assert.deepEqual(view?.metadata?.annotations, { 'rbac.authorization.kubernetes.io/autoupdate': 'true' });
  assert.deepEqual(view?.aggregationRule, { clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }] });
  assert.equal(view?.rules, undefined, 'the aggregation controller fills it; the server does not');
  assert.deepEqual(byName.get('cluster-admin')?.rules, [
    { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
    { nonResourceURLs: ['*'], verbs: ['*'] },
  ]);
  assert.deepEqual(byName.get('system:aggregate-to-admin')?.rules?.[1], {
    apiGroups: ['rbac.authorization.k8s.io'],
    resources: ['rolebindings', 'roles'],
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  });
  const binding: ClusterRoleBinding = await cs.rbac.clusterRoleBindings().get('cluster-admin');
  assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' });
  assert.deepEqual(binding.subjects, [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:masters' }]);
  assert.equal(binding.metadata?.labels?.['kubernetes.io/bootstrapping'], 'rbac-defaults');
  await server.close();
});
