/**
 * Authentication and RBAC authorization with the real kubectl and @kubernetes/client-node: a user's
 * client-certificate kubeconfig from `kubeplane kubeconfig`, impersonation (`--as`), `kubectl auth
 * can-i [--list]`, service-account tokens, anonymous requests, privilege-escalation prevention and
 * ClusterRole aggregation — each answered as a v1.33 cluster answers it, down to the 403 texts.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { endpointOf, eventually, removeDataDir, repoRoot, startKubeplane, type Kubeplane, type HttpResponse } from './harness.js';

/** `kubeplane kubeconfig --user … --group …` of `kp`, written beside its data; returns the path. */
function userKubeconfig(kp: Kubeplane, user: string, groups: string[] = []): Promise<string> {
  return new Promise((ok, fail) => {
    const args = [join(repoRoot, 'dist/src/cli/main.js'), 'kubeconfig', '--user', user, '--data-dir', kp.dataDir, ...groups.flatMap((g) => ['--group', g])];
    execFile(process.execPath, args, (err, stdout, stderr) => {
      if (err) {
        fail(new Error(`kubeplane kubeconfig failed: ${stderr}`));
        return;
      }
      const path = join(kp.dataDir, `kubeconfig-${user}`);
      writeFileSync(path, stdout, { mode: 0o600 });
      ok(path);
    });
  });
}

/** One HTTPS request with the given headers only (no credentials unless given). */
function rawRequest(kp: Kubeplane, path: string, headers: Record<string, string> = {}): Promise<HttpResponse> {
  const ep = endpointOf(kp);
  return new Promise((ok, fail) => {
    const r = https.request({ host: '127.0.0.1', port: ep.port, path, ca: ep.ca, agent: false, headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => ok({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    r.on('error', fail);
    r.end();
  });
}

describe('authentication and RBAC with real kubectl', { timeout: 240_000 }, () => {
  let kp: Kubeplane;
  let jane: string;
  before(async () => {
    kp = await startKubeplane({ nodes: 1 });
    jane = await userKubeconfig(kp, 'jane', ['dev']);
    await kp.kubectlOk(['create', 'namespace', 'team-a']);
    await kp.kubectlOk(['-n', 'team-a', 'run', 'web', '--image=nginx']);
    await kp.kubectlOk(['-n', 'team-a', 'create', 'rolebinding', 'jane-view', '--clusterrole=view', '--user=jane']);
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
  });

  test('the admin kubeconfig is a kubeadm:cluster-admins client certificate', async () => {
    const who = await kp.kubectlJson<{ status: { userInfo: { username: string; groups: string[] } } }>(['auth', 'whoami']);
    assert.deepEqual(who.status.userInfo, { username: 'kubernetes-admin', groups: ['kubeadm:cluster-admins', 'system:authenticated'] });
  });

  test('a user with a namespaced view binding lists pods but may not delete them, with upstream 403 texts', async () => {
    const list = await kp.kubectl(['--kubeconfig', jane, '-n', 'team-a', 'get', 'pods', '-o', 'name']);
    assert.equal(list.code, 0, list.stderr);
    assert.equal(list.stdout.trim(), 'pod/web');
    const del = await kp.kubectl(['--kubeconfig', jane, '-n', 'team-a', 'delete', 'pod', 'web']);
    assert.equal(del.stderr.trim(), 'Error from server (Forbidden): pods "web" is forbidden: User "jane" cannot delete resource "pods" in API group "" in the namespace "team-a"');
    const other = await kp.kubectl(['--kubeconfig', jane, '-n', 'default', 'get', 'pods']);
    assert.equal(other.stderr.trim(), 'Error from server (Forbidden): pods is forbidden: User "jane" cannot list resource "pods" in API group "" in the namespace "default"');
    const nodes = await kp.kubectl(['--kubeconfig', jane, 'get', 'nodes']);
    assert.equal(nodes.stderr.trim(), 'Error from server (Forbidden): nodes is forbidden: User "jane" cannot list resource "nodes" in API group "" at the cluster scope');
    // The same as jane through impersonation by the admin.
    const asJane = await kp.kubectl(['--as=jane', '-n', 'team-a', 'delete', 'pod', 'web']);
    assert.equal(asJane.stderr.trim(), del.stderr.trim());
    assert.equal((await kp.kubectlOk(['-n', 'team-a', 'get', 'pod', 'web', '-o', 'name'])).trim(), 'pod/web');
  });

  test('kubectl auth can-i, and --list as jane in team-a', async () => {
    const can = async (args: string[]): Promise<string> => (await kp.kubectl(['auth', 'can-i', ...args])).stdout.trim();
    assert.equal(await can(['list', 'pods', '--as=jane', '-n', 'team-a']), 'yes');
    assert.equal(await can(['delete', 'pods', '--as=jane', '-n', 'team-a']), 'no');
    assert.equal(await can(['get', 'secrets', '--as=jane', '-n', 'team-a']), 'no');
    assert.equal(await can(['list', 'deployments.apps', '--as=jane', '-n', 'default']), 'no');
    const rows = (await kp.kubectlOk(['auth', 'can-i', '--list', '--as=jane', '-n', 'team-a'])).trim().split('\n').map((l) => l.trim().split(/\s{2,}/));
    assert.deepEqual(rows[0], ['Resources', 'Non-Resource URLs', 'Resource Names', 'Verbs']);
    const find = (resource: string): string[] | undefined => rows.find((r) => r[0] === resource);
    assert.deepEqual(find('pods'), ['pods', '[]', '[]', '[get list watch]']);
    assert.deepEqual(find('deployments.apps'), ['deployments.apps', '[]', '[]', '[get list watch]']);
    assert.deepEqual(find('selfsubjectaccessreviews.authorization.k8s.io'), ['selfsubjectaccessreviews.authorization.k8s.io', '[]', '[]', '[create]']);
    assert.equal(find('secrets'), undefined);
    // A non-resource rule's row has no Resources cell: [/version] [] [get].
    assert.ok(rows.some((r) => r[0] === '[/version]' && r[2] === '[get]'), JSON.stringify(rows));
  });

  test('impersonating a service account; impersonation itself needs the impersonate verb', async () => {
    await kp.kubectlOk(['-n', 'team-a', 'create', 'serviceaccount', 'robot']);
    const before = await kp.kubectl(['--as=system:serviceaccount:team-a:robot', '-n', 'team-a', 'get', 'pods']);
    assert.equal(before.stderr.trim(), 'Error from server (Forbidden): pods is forbidden: User "system:serviceaccount:team-a:robot" cannot list resource "pods" in API group "" in the namespace "team-a"');
    await kp.kubectlOk(['-n', 'team-a', 'create', 'role', 'pod-reader', '--verb=get,list', '--resource=pods']);
    await kp.kubectlOk(['-n', 'team-a', 'create', 'rolebinding', 'robot-reads', '--role=pod-reader', '--serviceaccount=team-a:robot']);
    const out = await eventually('the binding in force', async () => {
      const r = await kp.kubectl(['--as=system:serviceaccount:team-a:robot', '-n', 'team-a', 'get', 'pods', '-o', 'name']);
      return r.code === 0 ? r.stdout : undefined;
    });
    assert.equal(out.trim(), 'pod/web');
    const who = await kp.kubectlJson<{ status: { userInfo: { username: string; groups: string[] } } }>(['auth', 'whoami', '--as=system:serviceaccount:team-a:robot']);
    assert.deepEqual(who.status.userInfo, {
      username: 'system:serviceaccount:team-a:robot',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:team-a', 'system:authenticated'],
    });
    const groups = await kp.kubectlJson<{ status: { userInfo: { username: string; groups: string[] } } }>(['auth', 'whoami', '--as=bob', '--as-group=a', '--as-group=b']);
    assert.deepEqual(groups.status.userInfo, { username: 'bob', groups: ['a', 'b', 'system:authenticated'] });
    const noImpersonate = await kp.kubectl(['--kubeconfig', jane, '--as=bob', 'get', 'pods']);
    assert.equal(noImpersonate.stderr.trim(), 'Error from server (Forbidden): users "bob" is forbidden: User "jane" cannot impersonate resource "users" in API group "" at the cluster scope');
  });

  test("a service account's token used by client-node is authorized by its Role", async () => {
    await kp.kubectlOk(['-n', 'team-a', 'create', 'serviceaccount', 'lister']);
    await kp.kubectlOk(['-n', 'team-a', 'create', 'role', 'lister', '--verb=list', '--resource=pods']);
    await kp.kubectlOk(['-n', 'team-a', 'create', 'rolebinding', 'lister', '--role=lister', '--serviceaccount=team-a:lister']);
    const token = (await kp.kubectlOk(['-n', 'team-a', 'create', 'token', 'lister'])).trim();
    const ep = endpointOf(kp);
    const kc = new k8s.KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: `https://127.0.0.1:${ep.port}`, caData: Buffer.from(ep.ca).toString('base64') }],
      users: [{ name: 'lister', token }],
      contexts: [{ name: 'c', cluster: 'c', user: 'lister' }],
      currentContext: 'c',
    });
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const pods = await eventually('the binding in force', async () => {
      try {
        return await core.listNamespacedPod({ namespace: 'team-a' });
      } catch {
        return undefined;
      }
    });
    assert.deepEqual(pods.items.map((p) => p.metadata?.name), ['web']);
    await assert.rejects(core.listNamespacedSecret({ namespace: 'team-a' }), (err: Error & { code?: number; body?: string }) => {
      assert.equal(err.code, 403);
      const status = JSON.parse(err.body ?? '{}') as { reason?: string; message?: string; details?: unknown };
      assert.equal(status.reason, 'Forbidden');
      assert.equal(status.message, 'secrets is forbidden: User "system:serviceaccount:team-a:lister" cannot list resource "secrets" in API group "" in the namespace "team-a"');
      assert.deepEqual(status.details, { kind: 'secrets' });
      return true;
    });
  });

  test('anonymous requests get what the bootstrap policy gives system:unauthenticated', async () => {
    assert.equal((await rawRequest(kp, '/version')).status, 200);
    const health = await rawRequest(kp, '/healthz');
    assert.deepEqual([health.status, health.body], [200, 'ok']);
    const api = await rawRequest(kp, '/api');
    assert.equal(api.status, 403);
    assert.equal((JSON.parse(api.body) as { message: string }).message, 'forbidden: User "system:anonymous" cannot get path "/api"');
    const pods = await rawRequest(kp, '/api/v1/namespaces/default/pods');
    assert.equal(pods.status, 403);
    assert.equal((JSON.parse(pods.body) as { message: string }).message, 'pods is forbidden: User "system:anonymous" cannot list resource "pods" in API group "" in the namespace "default"');
    const badToken = await rawRequest(kp, '/version', { authorization: 'Bearer nope' });
    assert.equal(badToken.status, 401);
  });

  test('escalation: an admin of team-a may grant only what it holds, and bind only roles it could grant', async () => {
    const bob = await userKubeconfig(kp, 'bob');
    await kp.kubectlOk(['-n', 'team-a', 'create', 'rolebinding', 'bob-admin', '--clusterrole=admin', '--user=bob']);
    await eventually('bob is admin', async () => ((await kp.kubectl(['--kubeconfig', bob, '-n', 'team-a', 'auth', 'can-i', 'create', 'roles'])).stdout.trim() === 'yes' ? true : undefined));
    assert.equal((await kp.kubectlOk(['--kubeconfig', bob, '-n', 'team-a', 'create', 'role', 'secret-reader', '--verb=get', '--resource=secrets'])).trim(), 'role.rbac.authorization.k8s.io/secret-reader created');
    const nodes = await kp.kubectl(['--kubeconfig', bob, '-n', 'team-a', 'create', 'role', 'node-reader', '--verb=get', '--resource=nodes']);
    assert.equal(
      nodes.stderr.trim(),
      'Error from server (Forbidden): roles.rbac.authorization.k8s.io "node-reader" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["nodes"], Verbs:["get"]}',
    );
    const bind = await kp.kubectl(['--kubeconfig', bob, '-n', 'team-a', 'create', 'rolebinding', 'bob-root', '--clusterrole=cluster-admin', '--user=bob']);
    assert.match(bind.stderr, /^error: failed to create rolebinding: rolebindings\.rbac\.authorization\.k8s\.io "bob-root" is forbidden: user "bob" \(groups=\["system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n/);
  });

  test("an install manifest's aggregated ClusterRole extends view, edit and admin", async () => {
    const manifest = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: widgets-view
  labels:
    rbac.authorization.k8s.io/aggregate-to-view: "true"
rules:
- apiGroups: ["example.com"]
  resources: ["widgets"]
  verbs: ["get", "list", "watch"]
`;
    await kp.kubectlOk(['apply', '-f', '-'], manifest);
    await kp.kubectlOk(['wait', '--for=condition=Established', 'crd/widgets.example.com', '--timeout=60s']);
    const can = await eventually('aggregated into view', async () => {
      const out = (await kp.kubectl(['auth', 'can-i', 'list', 'widgets.example.com', '--as=jane', '-n', 'team-a'])).stdout.trim();
      return out === 'yes' ? out : undefined;
    });
    assert.equal(can, 'yes');
    const view = await kp.kubectlJson<{ rules: { apiGroups?: string[]; resources?: string[] }[] }>(['get', 'clusterrole', 'view']);
    assert.ok(view.rules.some((r) => r.apiGroups?.[0] === 'example.com' && r.resources?.[0] === 'widgets'));
    // view is aggregated into edit and edit into admin: the rule reaches both.
    for (const role of ['edit', 'admin']) {
      await eventually(`aggregated into ${role}`, async () => {
        const r = await kp.kubectlJson<{ rules?: { apiGroups?: string[] }[] }>(['get', 'clusterrole', role]);
        return r.rules?.some((x) => x.apiGroups?.[0] === 'example.com') ? true : undefined;
      });
    }
    await kp.kubectlOk(['delete', 'clusterrole', 'widgets-view']);
    await eventually('removed from view', async () => ((await kp.kubectl(['auth', 'can-i', 'list', 'widgets.example.com', '--as=jane', '-n', 'team-a'])).stdout.trim() === 'no' ? true : undefined));
  });
});
