/**
 * RBAC objects, PodDisruptionBudgets and RuntimeClasses with the real kubectl: `kubectl create role |
 * rolebinding | clusterrole | clusterrolebinding | pdb`, `kubectl get` with upstream's columns,
 * `kubectl describe role`'s PolicyRule table, the bootstrap ClusterRoles and binding, the refused
 * roleRef change, and a RuntimeClass applied from YAML. (RBAC is stored, not enforced: issue 20.)
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startKubeplane, removeDataDir, type Kubeplane } from './harness.js';

/** The rows of `kubectl get` output split into cells (empty cells vanish), without the AGE cell at `ageIndex`. */
function rows(out: string, ageIndex: number): string[][] {
  return out
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.trim().split(/\s+/).filter((_, i) => i !== ageIndex));
}

describe('RBAC, PodDisruptionBudgets and RuntimeClasses with real kubectl', { timeout: 120_000 }, () => {
  let kp: Kubeplane;
  before(async () => {
    kp = await startKubeplane({ nodes: 1 });
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
  });

  test('kubectl create role and rolebinding; get, get -o wide, describe; roleRef cannot change', async () => {
    assert.equal(
      (await kp.kubectlOk(['create', 'role', 'pod-reader', '--verb=get,list,watch', '--resource=pods,deployments.apps'])).trim(),
      'role.rbac.authorization.k8s.io/pod-reader created',
    );
    assert.equal(
      (await kp.kubectlOk(['create', 'rolebinding', 'read-pods', '--role=pod-reader', '--user=alice', '--group=devs', '--serviceaccount=default:robot'])).trim(),
      'rolebinding.rbac.authorization.k8s.io/read-pods created',
    );
    const roles = (await kp.kubectlOk(['get', 'roles'])).trim().split('\n');
    assert.match(roles[0] ?? '', /^NAME\s+CREATED AT$/);
    assert.match(roles[1] ?? '', /^pod-reader\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    const bindings = await kp.kubectlOk(['get', 'rolebindings', '-o', 'wide']);
    assert.match(bindings.split('\n')[0] ?? '', /^NAME\s+ROLE\s+AGE\s+USERS\s+GROUPS\s+SERVICEACCOUNTS$/);
    assert.deepEqual(rows(bindings, 2), [['read-pods', 'Role/pod-reader', 'alice', 'devs', 'default/robot']]);

    const described = await kp.kubectlOk(['describe', 'role', 'pod-reader']);
    assert.match(described, /^Name:\s+pod-reader$/m);
    assert.match(described, /^PolicyRule:\n\s+Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs$/m);
    assert.match(described, /^\s+pods\s+\[\]\s+\[\]\s+\[get list watch\]$/m);
    assert.match(described, /^\s+deployments\.apps\s+\[\]\s+\[\]\s+\[get list watch\]$/m);

    const changed = await kp.kubectl(['patch', 'rolebinding', 'read-pods', '--type=merge', '-p', '{"roleRef":{"name":"other"}}']);
    assert.notEqual(changed.code, 0);
    assert.equal(
      changed.stderr.trim(),
      'The RoleBinding "read-pods" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"other"}: cannot change roleRef',
    );
  });

  test('kubectl create clusterrole and clusterrolebinding; the bootstrap roles and binding', async () => {
    assert.equal(
      (await kp.kubectlOk(['create', 'clusterrole', 'node-reader', '--verb=get', '--resource=nodes', '--non-resource-url=/healthz'])).trim(),
      'clusterrole.rbac.authorization.k8s.io/node-reader created',
    );
    assert.equal(
      (await kp.kubectlOk(['create', 'clusterrolebinding', 'read-nodes', '--clusterrole=node-reader', '--user=bob', '--serviceaccount=kube-system:default'])).trim(),
      'clusterrolebinding.rbac.authorization.k8s.io/read-nodes created',
    );
    const described = await kp.kubectlOk(['describe', 'clusterrole', 'node-reader']);
    assert.match(described, /^\s+\[\/healthz\]\s+\[\]\s+\[get\]$/m);

    const clusterRoles = (await kp.kubectlOk(['get', 'clusterroles', '-o', 'name'])).trim().split('\n');
    for (const name of ['admin', 'cluster-admin', 'edit', 'view', 'system:aggregate-to-edit', 'node-reader']) {
      assert.ok(clusterRoles.includes(`clusterrole.rbac.authorization.k8s.io/${name}`), name);
    }
    const edit = await kp.kubectlJson<{ metadata: { labels: Record<string, string> }; aggregationRule: unknown }>(['get', 'clusterrole', 'edit']);
    assert.deepEqual(edit.metadata.labels, { 'kubernetes.io/bootstrapping': 'rbac-defaults', 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' });
    assert.deepEqual(edit.aggregationRule, { clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' } }] });

    const crbs = await kp.kubectlOk(['get', 'clusterrolebindings', '-o', 'wide']);
    assert.match(crbs.split('\n')[0] ?? '', /^NAME\s+ROLE\s+AGE\s+USERS\s+GROUPS\s+SERVICEACCOUNTS$/);
    // Among the bootstrap policy's bindings (rbac-bootstrap.ts).
    assert.deepEqual(
      rows(crbs, 2).filter(([name]) => name === 'cluster-admin' || name === 'read-nodes'),
      [
        ['cluster-admin', 'ClusterRole/cluster-admin', 'system:masters'],
        ['read-nodes', 'ClusterRole/node-reader', 'bob', 'kube-system/default'],
      ],
    );

    const binding = [
      'apiVersion: rbac.authorization.k8s.io/v1',
      'kind: ClusterRoleBinding',
      'metadata:',
      '  name: bad',
      'roleRef:',
      '  apiGroup: rbac.authorization.k8s.io',
      '  kind: Role',
      '  name: pod-reader',
      'subjects:',
      '- kind: ServiceAccount',
      '  name: robot',
      '',
    ].join('\n');
    const refused = await kp.kubectl(['apply', '-f', '-'], binding);
    assert.notEqual(refused.code, 0);
    // kubectl apply prints each cause of a 422 on a line of its own.
    assert.equal(
      refused.stderr,
      'The ClusterRoleBinding "bad" is invalid: \n* roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"\n* subjects[0].namespace: Required value\n',
    );
  });

  test('kubectl create pdb; get pdb; an invalid budget is refused', async () => {
    assert.equal((await kp.kubectlOk(['create', 'poddisruptionbudget', 'my', '--selector=app=x', '--min-available=1'])).trim(), 'poddisruptionbudget.policy/my created');
    await kp.kubectlOk(['create', 'pdb', 'pct', '--selector=app=y', '--max-unavailable=25%']);
    const pdbs = await kp.kubectlOk(['get', 'pdb']);
    assert.match(pdbs.split('\n')[0] ?? '', /^NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE$/);
    assert.deepEqual(rows(pdbs, 4), [
      ['my', '1', 'N/A', '0'],
      ['pct', 'N/A', '25%', '0'],
    ]);
    const refused = await kp.kubectl(['create', 'pdb', 'over', '--selector=app=x', '--min-available=150%']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /PodDisruptionBudget\.policy "over" is invalid: spec\.minAvailable: Invalid value: "150%": must not be greater than 100%/);
  });

  test('a RuntimeClass applied from YAML; get runtimeclass; the handler is immutable', async () => {
    const manifest = [
      'apiVersion: node.k8s.io/v1',
      'kind: RuntimeClass',
      'metadata:',
      '  name: gvisor',
      'handler: runsc',
      'overhead:',
      '  podFixed:',
      '    cpu: 250m',
      'scheduling:',
      '  nodeSelector:',
      '    sandbox: "true"',
      '',
    ].join('\n');
    assert.equal((await kp.kubectlOk(['apply', '-f', '-'], manifest)).trim(), 'runtimeclass.node.k8s.io/gvisor created');
    const out = await kp.kubectlOk(['get', 'runtimeclass']);
    assert.match(out.split('\n')[0] ?? '', /^NAME\s+HANDLER\s+AGE$/);
    assert.deepEqual(rows(out, 2), [['gvisor', 'runsc']]);
    const changed = await kp.kubectl(['apply', '-f', '-'], manifest.replace('handler: runsc', 'handler: kata'));
    assert.notEqual(changed.code, 0);
    assert.match(changed.stderr, /The RuntimeClass "gvisor" is invalid: handler: Invalid value: "kata": field is immutable/);
  });
});
