/**
 * Smoke test with the real kubectl (apiserver.md §0.1: /usr/bin/kubectl dispatches to kubectl 1.<minor>
 * of /version, so 1.33 here). Served over HTTPS with a throwaway self-signed certificate because
 * kubectl sends bearer tokens only over TLS (client-go clientcmd; kubernetes/kubectl#744). Skipped when
 * kubectl or openssl is missing.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { selfSignedCert, startTestServer, TOKEN, type TestServer } from './harness.js';

const run = promisify(execFile);
const KUBECTL = '/usr/bin/kubectl';
const OPENSSL = '/usr/bin/openssl';
const available = existsSync(KUBECTL) && existsSync(OPENSSL);

describe('real kubectl against the HTTP server', { skip: !available && 'kubectl or openssl not installed' }, () => {
  let t: TestServer;
  let dir: string;
  const kubectl = async (...args: string[]): Promise<string> =>
    (await run(KUBECTL, ['--kubeconfig', join(dir, 'kubeconfig'), '--cache-dir', join(dir, 'cache'), ...args], { timeout: 30_000 })).stdout;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kubeplane-http-'));
    const tls = await selfSignedCert();
    if (!tls) throw new Error('openssl is missing');
    t = await startTestServer({ tls });
    writeFileSync(
      join(dir, 'kubeconfig'),
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: local',
        '  cluster:',
        `    server: https://127.0.0.1:${t.server.port}`,
        '    insecure-skip-tls-verify: true',
        'users:',
        '- name: admin',
        '  user:',
        `    token: ${TOKEN}`,
        'contexts:',
        '- name: local',
        '  context: {cluster: local, user: admin, namespace: default}',
        'current-context: local',
        '',
      ].join('\n'),
    );
  });
  after(async () => {
    await t?.server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('kubectl get --raw /version', async () => {
    const out = JSON.parse(await kubectl('get', '--raw', '/version')) as { minor: string };
    assert.equal(out.minor, '33');
  });

  test('kubectl api-resources lists the fake resources from aggregated discovery', async () => {
    const out = await kubectl('api-resources', '--no-headers');
    const rows = out.trim().split('\n').map((l) => l.split(/\s+/));
    assert.deepEqual(rows.map((r) => r[0]).sort(), ['deployments', 'horizontalpodautoscalers', 'namespaces', 'pods']);
    assert.ok(rows.some((r) => r[0] === 'horizontalpodautoscalers' && r.includes('autoscaling/v2')));
  });

  test('kubectl get pods -o wide prints the server-side Table', async () => {
    t.core.onHandle = () => ({
      code: 200,
      body: { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '5' }, items: [{ metadata: { name: 'a', namespace: 'default' }, spec: { nodeName: 'n1' }, status: { phase: 'Running', podIP: '10.0.0.1' } }] },
      warnings: [],
    });
    const out = await kubectl('get', 'pods', '-o', 'wide');
    assert.deepEqual(out.trim().split('\n').map((l) => l.split(/\s+/)), [
      ['NAME', 'STATUS', 'IP', 'NODE'],
      ['a', 'Running', '10.0.0.1', 'n1'],
    ]);
  });

  test('kubectl explain reads the OpenAPI v3 schemas', async () => {
    const out = await kubectl('explain', 'deployment.spec.replicas');
    assert.match(out, /FIELD: replicas <integer>/);
  });
});
