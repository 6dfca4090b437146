/**
 * `kubeplane controller-manager --use-service-account-credentials` against `kubeplane apiserver` over
 * HTTPS, with the real kubectl: each controller asks the TokenRequest API for its kube-system service
 * account's token and writes with it, as upstream's SA client builder does. The API server's audit log
 * shows who wrote what: the ReplicaSet controller's account creates the pods, the Deployment
 * controller's the ReplicaSet, and the controller manager's own identity only the accounts' tokens.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { eventually, requireKubectl, startProcess, type Proc } from './harness.js';

interface AuditEvent {
  stage: string;
  verb: string;
  user: { username: string };
  objectRef?: { resource?: string; subresource?: string; namespace?: string; name?: string };
  responseStatus?: { code: number };
}

function kubectl(kubeconfig: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('kubectl', args, { env: { ...process.env, KUBECONFIG: kubeconfig } }, (err, stdout, stderr) => (err ? reject(new Error(`kubectl ${args.join(' ')}: ${stderr}`)) : resolve(stdout)));
  });
}

void describe('controller-manager --use-service-account-credentials over HTTPS', { timeout: 120_000 }, () => {
  let dir: string;
  let kubeconfig: string;
  let auditLog: string;
  const procs: Proc[] = [];

  before(async () => {
    await requireKubectl();
    dir = mkdtempSync(join(tmpdir(), 'kubeplane-sa-creds-'));
    auditLog = join(dir, 'audit.log');
    writeFileSync(join(dir, 'audit.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Metadata\n  verbs: [create]\n');
    const api = await startProcess(
      'apiserver',
      ['apiserver', '--secure-port', '0', '--data-dir', join(dir, 'data'), '--datastore', 'memory', '--audit-policy-file', join(dir, 'audit.yaml'), '--audit-log-path', auditLog],
      /apiserver is ready/,
    );
    procs.push(api);
    kubeconfig = join(dir, 'data', 'kubeconfig');
    procs.push(await startProcess('controller-manager', ['controller-manager', '--kubeconfig', kubeconfig, '--use-service-account-credentials', '--leader-elect=false'], /caches synced/));
    procs.push(await startProcess('scheduler', ['scheduler', '--kubeconfig', kubeconfig, '--leader-elect=false'], /caches synced/));
    procs.push(await startProcess('nodes', ['nodes', 'run', '--kubeconfig', kubeconfig, '--count', '1', '--pod-start-delay', '0'], /nodes are ready/));
  });
  after(() => {
    for (const p of procs) p.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  test('the Deployment and ReplicaSet controllers write as their own service accounts', async () => {
    await kubectl(kubeconfig, ['create', 'deployment', 'web', '--image=nginx', '--replicas=2']);
    await kubectl(kubeconfig, ['rollout', 'status', 'deployment/web', '--timeout=60s']);
    const events = await eventually('the pods created in the audit log', () => {
      const all = readFileSync(auditLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as AuditEvent);
      return Promise.resolve(all.filter((e) => e.objectRef?.resource === 'pods' && !e.objectRef.subresource).length >= 2 ? all : undefined);
    });
    const creators = (resource: string, subresource?: string): string[] =>
      [...new Set(events.filter((e) => e.objectRef?.resource === resource && e.objectRef.subresource === subresource && e.responseStatus?.code === 201).map((e) => e.user.username))];
    assert.deepEqual(creators('pods'), ['system:serviceaccount:kube-system:replicaset-controller']);
    assert.deepEqual(creators('replicasets'), ['system:serviceaccount:kube-system:deployment-controller']);
    // The tokens were asked for by the controller manager's own identity (the kubeconfig's).
    const tokens = events.filter((e) => e.objectRef?.resource === 'serviceaccounts' && e.objectRef.subresource === 'token' && e.responseStatus?.code === 201);
    assert.ok(tokens.some((e) => e.objectRef?.name === 'replicaset-controller' && e.user.username === 'kubernetes-admin'), JSON.stringify(tokens.map((e) => e.objectRef?.name)));
    const accounts = (await kubectl(kubeconfig, ['-n', 'kube-system', 'get', 'serviceaccounts', '-o', 'name'])).split('\n');
    assert.ok(accounts.includes('serviceaccount/deployment-controller'));
  });
});
