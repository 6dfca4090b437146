/**
 * The authentication and authorization flags of `kubeplane up` with the real kubectl:
 * `--use-service-account-credentials` (each controller acts as its own service account, so a missing
 * permission fails its writes as upstream), `--token-auth-file`, the audit log
 * (`--audit-policy-file`, `--audit-log-path`), and `--authorization-mode=AlwaysAllow` (which, as
 * upstream, also turns anonymous requests away).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { endpointOf, eventually, removeDataDir, startKubeplane, tokenKubeconfig, type Kubeplane } from './harness.js';

interface AuditEvent {
  stage: string;
  verb: string;
  user: { username: string; groups?: string[] };
  impersonatedUser?: { username: string };
  objectRef?: { resource?: string; namespace?: string; name?: string };
  responseStatus?: { code: number };
  annotations?: Record<string, string>;
  requestURI: string;
}

/** An unauthenticated GET; resolves with the status code. */
function anonymousStatus(kp: Kubeplane, path: string): Promise<number> {
  const ep = endpointOf(kp);
  return new Promise((ok, fail) => {
    const r = https.request({ host: '127.0.0.1', port: ep.port, path, ca: ep.ca, agent: false }, (res) => {
      res.resume();
      res.on('end', () => ok(res.statusCode ?? 0));
    });
    r.on('error', fail);
    r.end();
  });
}

describe('--use-service-account-credentials, --token-auth-file and the audit log', { timeout: 180_000 }, () => {
  let kp: Kubeplane;
  let files: string;
  let auditLog: string;
  before(async () => {
    files = mkdtempSync(join(tmpdir(), 'kubeplane-authn-'));
    writeFileSync(join(files, 'tokens.csv'), 'ci-token,ci-bot,1001,"ci,builders"\n');
    writeFileSync(
      join(files, 'audit.yaml'),
      ['apiVersion: audit.k8s.io/v1', 'kind: Policy', 'omitStages: [RequestReceived]', 'rules:', '- level: None', '  nonResourceURLs: ["/api*", "/openapi*"]', '- level: Metadata'].join('\n') + '\n',
    );
    auditLog = join(files, 'audit.log');
    kp = await startKubeplane({
      nodes: 2,
      args: ['--use-service-account-credentials', '--token-auth-file', join(files, 'tokens.csv'), '--audit-policy-file', join(files, 'audit.yaml'), '--audit-log-path', auditLog],
    });
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
    rmSync(files, { recursive: true, force: true });
  });

  test('controllers act as their service accounts: a rollout works, and without its binding the ReplicaSet controller is refused', async () => {
    const accounts = (await kp.kubectlOk(['-n', 'kube-system', 'get', 'serviceaccounts', '-o', 'name'])).trim().split('\n');
    for (const sa of ['replicaset-controller', 'deployment-controller', 'generic-garbage-collector', 'node-controller']) assert.ok(accounts.includes(`serviceaccount/${sa}`), sa);
    await kp.kubectlOk(['create', 'deployment', 'web', '--image=nginx', '--replicas=2']);
    await kp.kubectlOk(['rollout', 'status', 'deployment/web', '--timeout=60s']);
    // The controller's role without `create pods` (the rest, events included, stays).
    const role = await kp.kubectlJson<{ rules: { resources: string[]; verbs: string[] }[] }>(['get', 'clusterrole', 'system:controller:replicaset-controller']);
    for (const rule of role.rules) if (rule.resources.includes('pods')) rule.verbs = rule.verbs.filter((v) => v !== 'create');
    await kp.kubectlOk(['replace', '-f', '-'], JSON.stringify(role));
    await kp.kubectlOk(['scale', 'deployment/web', '--replicas=3']);
    const message = await eventually('a FailedCreate event', async () => {
      const events = await kp.kubectlJson<{ items: { reason: string; message: string }[] }>(['get', 'events', '--field-selector', 'reason=FailedCreate']);
      return events.items[0]?.message;
    });
    assert.equal(message, 'Error creating: pods is forbidden: User "system:serviceaccount:kube-system:replicaset-controller" cannot create resource "pods" in API group "" in the namespace "default"');
    assert.equal((await kp.kubectlJson<{ items: unknown[] }>(['get', 'pods', '-l', 'app=web'])).items.length, 2);
  });

  test('a --token-auth-file user is who the file says, and only that', async () => {
    const ci = tokenKubeconfig(kp, 'ci-token', 'ci');
    const who = await kp.kubectlJson<{ status: { userInfo: { username: string; uid: string; groups: string[] } } }>(['--kubeconfig', ci, 'auth', 'whoami']);
    assert.deepEqual(who.status.userInfo, { username: 'ci-bot', uid: '1001', groups: ['ci', 'builders', 'system:authenticated'] });
    const pods = await kp.kubectl(['--kubeconfig', ci, 'get', 'pods']);
    assert.equal(pods.stderr.trim(), 'Error from server (Forbidden): pods is forbidden: User "ci-bot" cannot list resource "pods" in API group "" in the namespace "default"');
    const bad = await kp.kubectl(['--kubeconfig', tokenKubeconfig(kp, 'wrong', 'wrong'), 'get', 'pods']);
    assert.equal(bad.stderr.trim(), 'error: You must be logged in to the server (Unauthorized)');
  });

  test('the audit log has an event per request, with user, impersonation, object and decision', async () => {
    await kp.kubectlOk(['get', 'pods', '-n', 'kube-system']);
    await kp.kubectl(['--as=jane', 'delete', 'deployment', 'web']);
    const events = await eventually('the events written', () => {
      const all = readFileSync(auditLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as AuditEvent);
      return Promise.resolve(all.some((e) => e.impersonatedUser?.username === 'jane' && e.stage === 'ResponseComplete') ? all : undefined);
    });
    assert.ok(!events.some((e) => e.stage === 'RequestReceived'), 'omitStages: RequestReceived');
    assert.ok(!events.some((e) => e.requestURI.startsWith('/api?') || e.requestURI === '/api'), 'discovery is at level None');
    const list = events.find((e) => e.verb === 'list' && e.objectRef?.resource === 'pods' && e.objectRef.namespace === 'kube-system');
    assert.equal(list?.user.username, 'kubernetes-admin');
    assert.equal(list?.responseStatus?.code, 200);
    assert.equal(list?.annotations?.['authorization.k8s.io/decision'], 'allow');
    const denied = events.find((e) => e.impersonatedUser?.username === 'jane' && e.verb === 'delete');
    assert.deepEqual([denied?.user.username, denied?.objectRef?.name, denied?.responseStatus?.code, denied?.annotations?.['authorization.k8s.io/decision']], ['kubernetes-admin', 'web', 403, 'forbid']);
  });
});

describe('--authorization-mode=AlwaysAllow', { timeout: 120_000 }, () => {
  let kp: Kubeplane;
  before(async () => {
    kp = await startKubeplane({ nodes: 1, args: ['--authorization-mode', 'AlwaysAllow'] });
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
  });

  test('any authenticated user may do anything; anonymous requests are refused', async () => {
    assert.equal((await kp.kubectl(['auth', 'can-i', 'delete', 'nodes', '--as=jane'])).stdout.trim(), 'yes');
    await kp.kubectlOk(['--as=jane', 'create', 'namespace', 'janes']);
    assert.equal(await anonymousStatus(kp, '/version'), 401);
    assert.equal(await anonymousStatus(kp, '/api/v1/namespaces'), 401);
  });

  test('an unknown mode is refused at start with upstream text', async () => {
    await assert.rejects(startKubeplane({ nodes: 0, args: ['--authorization-mode', 'RBAC,ABAC'] }), /authorization-mode "ABAC" is not a valid mode/);
  });
});
