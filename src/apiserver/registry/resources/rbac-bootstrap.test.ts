/**
 * The RBAC bootstrap policy: kubeplane's objects equal upstream's golden files (testdata/rbac-bootstrap,
 * the files of plugin/pkg/auth/authorizer/rbac/bootstrappolicy/testdata that policy_test.go's
 * TestBootstrapClusterRoles, TestBootstrapClusterRoleBindings, TestBootstrapControllerRoles,
 * TestBootstrapControllerRoleBindings, TestBootstrapNamespaceRoles and
 * TestBootstrapNamespaceRoleBindings compare with); a server holds all of it after start-up, the
 * namespaced part in kube-system and kube-public; a restart reconciles what was changed
 * (storage_rbac.go's post-start hook): missing rules and subjects come back, additions stay, a
 * changed roleRef is recreated, an object annotated autoupdate=false is left alone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { ClusterRole, ClusterRoleBinding, KubeObject, ObjectMeta } from '../../../api/index.js';
import { newClientset } from '../../../client/index.js';
import { newTestServer } from '../../testing/fixtures.js';
import { semanticDeepEqual } from './helpers.js';
import { servedStrategies } from './index.js';
import {
  BOOTSTRAP_CLUSTER_ROLE_BINDINGS,
  BOOTSTRAP_CLUSTER_ROLES,
  BOOTSTRAP_ROLE_BINDINGS,
  BOOTSTRAP_ROLES,
  CONTROLLER_ROLE_BINDINGS,
  CONTROLLER_ROLES,
  KUBEADM_CLUSTER_ADMINS_BINDING,
  POLICY_CLUSTER_ROLE_BINDINGS,
  POLICY_CLUSTER_ROLES,
} from './rbac-bootstrap.js';
import { tryEnsureNamespace } from './rbac-reconcile.js';
import type { Store } from '../generic/store.js';
import { newAlreadyExists, newForbidden } from '../../../machinery/errors/index.js';

/** The fixtures live in the source tree: the build copies no YAML to dist/. */
const TESTDATA = fileURLToPath(new URL('testdata/rbac-bootstrap/', import.meta.url)).replace('/dist/src/', '/src/');

/** A golden file's items as objects: `creationTimestamp: null` and `rules: null` are what Go prints for absent fields. */
function golden(file: string): KubeObject[] {
  const list = parse(readFileSync(TESTDATA + file, 'utf8')) as { kind: string; items: (KubeObject & { rules?: unknown })[] };
  assert.equal(list.kind, 'List');
  return list.items.map((item) => {
    const out = structuredClone(item);
    if (out.metadata && (out.metadata as { creationTimestamp?: unknown }).creationTimestamp === null) delete (out.metadata as { creationTimestamp?: unknown }).creationTimestamp;
    if (out.rules === null) delete out.rules;
    return out;
  });
}

/** Any of the four RBAC kinds. */
type RBACObject = { metadata?: ObjectMeta };

const GOLDEN: [file: string, objects: readonly RBACObject[]][] = [
  ['cluster-roles.yaml', POLICY_CLUSTER_ROLES],
  ['cluster-role-bindings.yaml', POLICY_CLUSTER_ROLE_BINDINGS],
  ['controller-roles.yaml', CONTROLLER_ROLES],
  ['controller-role-bindings.yaml', CONTROLLER_ROLE_BINDINGS],
  ['namespace-roles.yaml', BOOTSTRAP_ROLES],
  ['namespace-role-bindings.yaml', BOOTSTRAP_ROLE_BINDINGS],
];

for (const [file, objects] of GOLDEN) {
  test(`the bootstrap objects equal upstream's ${file}, item by item`, () => {
    const want = golden(file);
    const name = (o: RBACObject): string => `${o.metadata?.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata?.name ?? ''}`;
    assert.deepEqual(objects.map(name), want.map(name));
    for (let i = 0; i < want.length; i++) assert.deepEqual(structuredClone(objects[i]), want[i], name(want[i] as RBACObject));
  });
}

test('every controller role has its binding to kube-system/<controller>, and every role name is unique', () => {
  assert.equal(CONTROLLER_ROLES.length, CONTROLLER_ROLE_BINDINGS.length);
  for (const [i, role] of CONTROLLER_ROLES.entries()) {
    const binding = CONTROLLER_ROLE_BINDINGS[i] as ClusterRoleBinding;
    assert.equal(binding.roleRef.name, role.metadata?.name);
    assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', namespace: 'kube-system', name: role.metadata?.name?.slice('system:controller:'.length) }]);
  }
  const names = BOOTSTRAP_CLUSTER_ROLES.map((r) => r.metadata?.name);
  assert.equal(new Set(names).size, names.length);
});

test('kubeadm:cluster-admins binds its group to cluster-admin, without the bootstrapping metadata (kubeadm creates it so)', () => {
  assert.deepEqual(KUBEADM_CLUSTER_ADMINS_BINDING, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'kubeadm:cluster-admins' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'kubeadm:cluster-admins' }],
  });
  assert.equal(BOOTSTRAP_CLUSTER_ROLE_BINDINGS.at(-1), KUBEADM_CLUSTER_ADMINS_BINDING);
});

/** `obj` as stored: the server's fields and nothing the policy does not state removed. */
const stripServerFields = (o: RBACObject): RBACObject => {
  const metadata = { ...o.metadata };
  for (const k of ['uid', 'resourceVersion', 'creationTimestamp', 'managedFields', 'generation'] as const) delete metadata[k];
  return { ...o, metadata };
};

test('a server holds the whole policy after start-up; kube-system and kube-public hold the Roles and RoleBindings', async () => {
  const { server } = await newTestServer({ strategies: servedStrategies });
  const cs = newClientset(server.inProcessTransport());
  const has = async (objects: readonly RBACObject[], get: (o: RBACObject) => Promise<RBACObject>): Promise<void> => {
    for (const want of objects) {
      const got = stripServerFields(await get(want));
      assert.ok(semanticDeepEqual(got, want), `${want.metadata?.namespace ?? ''}/${want.metadata?.name}: ${JSON.stringify(got)}`);
    }
  };
  await has(BOOTSTRAP_CLUSTER_ROLES, (o) => cs.rbac.clusterRoles().get(o.metadata?.name ?? ''));
  await has(BOOTSTRAP_CLUSTER_ROLE_BINDINGS, (o) => cs.rbac.clusterRoleBindings().get(o.metadata?.name ?? ''));
  await has(BOOTSTRAP_ROLES, (o) => cs.rbac.roles(o.metadata?.namespace).get(o.metadata?.name ?? ''));
  await has(BOOTSTRAP_ROLE_BINDINGS, (o) => cs.rbac.roleBindings(o.metadata?.namespace).get(o.metadata?.name ?? ''));
  assert.equal((await cs.rbac.clusterRoles().list()).items.length, BOOTSTRAP_CLUSTER_ROLES.length);
  assert.equal((await cs.rbac.roles('kube-public').list()).items.length, 1);
  await server.close();
});

test('a restart reconciles: missing rules and subjects come back, additions stay, a changed roleRef is recreated, autoupdate=false is left alone', async () => {
  const first = await newTestServer({ strategies: servedStrategies });
  const cs = newClientset(first.server.inProcessTransport());
  const roles = cs.rbac.clusterRoles();
  const bindings = cs.rbac.clusterRoleBindings();

  // A rule removed, a label added.
  const basic = await roles.get('system:basic-user');
  await roles.update({ ...basic, metadata: { ...basic.metadata, labels: { ...basic.metadata?.labels, team: 'x' } }, rules: basic.rules?.slice(1) ?? [] });
  // Protected: rules emptied, autoupdate=false.
  const heapster = await roles.get('system:heapster');
  await roles.update({ ...heapster, metadata: { ...heapster.metadata, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' } }, rules: [] });
  // A selector removed from an aggregated role, a rule added to it.
  const view = await roles.get('view');
  await roles.update({ ...view, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { mine: 'true' } }] } });
  // The group system:masters replaced by a user.
  const admin = await bindings.get('cluster-admin');
  await bindings.update({ ...admin, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }] });
  // roleRef is immutable: a binding of the same name to another role, with another subject.
  await bindings.delete('system:kube-dns');
  await bindings.create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'system:kube-dns' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    subjects: [{ kind: 'ServiceAccount', namespace: 'default', name: 'dns' }],
  });
  // A namespaced Role gone.
  await cs.rbac.roles('kube-public').delete('system:controller:bootstrap-signer');

  const again = await newTestServer({ strategies: servedStrategies, backend: first.backend });
  const cs2 = newClientset(again.server.inProcessTransport());
  const basic2 = await cs2.rbac.clusterRoles().get('system:basic-user');
  assert.equal(basic2.metadata?.labels?.['team'], 'x');
  // The missing rule comes back broken down to one verb and resource each (reconciliation's union mode).
  assert.deepEqual(basic2.rules, [
    ...(basic.rules?.slice(1) ?? []),
    { apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews'], verbs: ['create'] },
    { apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectrulesreviews'], verbs: ['create'] },
  ]);
  const heapster2 = await cs2.rbac.clusterRoles().get('system:heapster');
  assert.deepEqual(heapster2.rules ?? [], []);
  const view2: ClusterRole = await cs2.rbac.clusterRoles().get('view');
  assert.deepEqual(view2.aggregationRule?.clusterRoleSelectors, [{ matchLabels: { mine: 'true' } }, { matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }]);
  const admin2 = await cs2.rbac.clusterRoleBindings().get('cluster-admin');
  assert.deepEqual(admin2.subjects, [
    { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' },
    { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:masters' },
  ]);
  const dns = await cs2.rbac.clusterRoleBindings().get('system:kube-dns');
  assert.deepEqual(dns.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:kube-dns' });
  assert.deepEqual(dns.subjects, [{ kind: 'ServiceAccount', namespace: 'kube-system', name: 'kube-dns' }]);
  await cs2.rbac.roles('kube-public').get('system:controller:bootstrap-signer');
  await first.server.close();
  await again.server.close();
});

test('tryEnsureNamespace creates a missing namespace once; AlreadyExists and Forbidden are not errors', async () => {
  const created: string[] = [];
  const held = new Set(['kube-system']);
  let fail: Error | undefined;
  const namespaces = {
    storedObject: (_ns: string | undefined, name: string) => Promise.resolve(held.has(name) ? { metadata: { name } } : undefined),
    create: (_ns: string | undefined, body: KubeObject) => {
      if (fail) return Promise.reject(fail);
      created.push(body.metadata?.name ?? '');
      held.add(body.metadata?.name ?? '');
      return Promise.resolve(body);
    },
  } as unknown as Store;
  await tryEnsureNamespace(namespaces, 'kube-system');
  await tryEnsureNamespace(namespaces, 'kube-public');
  await tryEnsureNamespace(namespaces, 'kube-public');
  assert.deepEqual(created, ['kube-public']);
  fail = newAlreadyExists({ group: '', resource: 'namespaces' }, 'x');
  await tryEnsureNamespace(namespaces, 'x');
  fail = newForbidden({ group: '', resource: 'namespaces' }, 'y', 'no');
  await tryEnsureNamespace(namespaces, 'y');
  await tryEnsureNamespace(undefined, 'z');
});
