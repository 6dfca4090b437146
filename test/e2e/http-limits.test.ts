/**
 * The HTTP limits of issue 9 with the real kubectl: a cluster started with the in-flight and timeout
 * flags serves kubectl normally, lists far larger than one streamed chunk reach kubectl whole (as a
 * Table, as JSON, and page by page), and kubectl shows upstream's errors.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import tls from 'node:tls';
import { endpointOf, eventually, httpRequest, removeDataDir, repoRoot, startKubeplane, type HttpResponse, type Kubeplane } from './harness.js';

const REPLICAS = 250;

describe('HTTP limits and streamed lists with kubectl', { timeout: 120_000 }, () => {
  let kp: Kubeplane;
  before(async () => {
    kp = await startKubeplane({
      nodes: 3,
      args: ['--max-requests-inflight', '20', '--max-mutating-requests-inflight', '10', '--request-timeout', '30s', '--pod-start-delay', '0'],
    });
    await kp.kubectlOk(['create', 'deployment', 'big', '--image=nginx', `--replicas=${REPLICAS}`]);
    await kp.kubectlOk(['rollout', 'status', 'deploy/big', '--timeout=90s']);
  });
  after(async () => {
    const dir = kp.dataDir;
    await kp.stop();
    removeDataDir(dir);
  });

  test('kubectl get pods prints every row of the streamed Table', async () => {
    const lines = (await kp.kubectlOk(['get', 'pods', '--no-headers'])).trim().split('\n');
    assert.equal(lines.length, REPLICAS);
    for (const l of lines) assert.match(l, /^big-\S+\s+1\/1\s+Running\s+0\s+\S+$/);
  });

  test('kubectl get pods -o json decodes the streamed list', async () => {
    const list = await kp.kubectlJson<{ items: { metadata: { name: string } }[] }>(['get', 'pods']);
    assert.equal(list.items.length, REPLICAS);
    assert.equal(new Set(list.items.map((p) => p.metadata.name)).size, REPLICAS);
  });

  test('kubectl get pods --chunk-size pages through streamed pages', async () => {
    const lines = (await kp.kubectlOk(['get', 'pods', '--chunk-size=100', '--no-headers', '-o', 'name'])).trim().split('\n');
    assert.equal(new Set(lines).size, REPLICAS);
  });

  test('a malformed ?timeout= gets upstream’s 400', async () => {
    const r = await kp.kubectl(['get', '--raw', '/api/v1/namespaces/default/pods?timeout=abc']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /Error from server \(BadRequest\): invalid timeout specified in the request URL - time: invalid duration "abc"/);
  });
});

describe('--max-mutating-requests-inflight and --request-timeout on a running kubeplane', { timeout: 60_000 }, () => {
  let kp: Kubeplane;
  before(async () => {
    kp = await startKubeplane({ nodes: 0, args: ['--max-mutating-requests-inflight', '1', '--request-timeout', '2s'] });
  });
  after(async () => {
    const dir = kp.dataDir;
    await kp.stop();
    removeDataDir(dir);
  });

  test('a request holding the only mutating slot makes others 429 until it times out with 504', async () => {
    const ep = endpointOf(kp);
    const post = (name: string): Promise<HttpResponse> =>
      httpRequest(kp, { method: 'POST', path: '/api/v1/namespaces/default/configmaps', contentType: 'application/json', body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }) });

    // A create whose body never finishes: it holds the mutating slot until --request-timeout.
    const slow = tls.connect({ host: '127.0.0.1', port: ep.port, ca: ep.ca, servername: 'localhost' });
    let slowAnswer = '';
    slow.on('data', (d: Buffer) => (slowAnswer += d.toString()));
    const slowClosed = new Promise((resolve) => slow.once('close', resolve));
    slow.write(
      `POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ep.token}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
    );
    let attempt = 0;
    const rejected = await eventually('a create to be refused', async () => {
      const r = await post(`cm-${attempt++}`);
      return r.status === 429 ? r : undefined;
    });
    assert.equal(rejected.headers['retry-after'], '1');
    const status = JSON.parse(rejected.body) as { kind: string; reason: string; message: string };
    assert.deepEqual([status.kind, status.reason, status.message], ['Status', 'TooManyRequests', 'Too many requests, please try again later.']);
    assert.equal((await kp.kubectl(['get', 'configmaps'])).code, 0, 'read-only requests have their own budget');

    await slowClosed;
    assert.match(slowAnswer, /^HTTP\/1\.1 504 Gateway Timeout\r\n/);
    assert.match(slowAnswer, /"message":"Timeout: request did not complete within the allotted timeout"/);
    assert.equal((await post('after')).status, 201, 'the slot is free again');
  });
});

describe('kubeplane up refuses bad limits', { timeout: 30_000 }, () => {
  const up = (...args: string[]): Promise<{ code: number; stderr: string }> =>
    new Promise((resolve) => {
      execFile(process.execPath, [join(repoRoot, 'dist/src/cli/main.js'), 'up', ...args], (err, _stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stderr });
      });
    });

  test('--request-timeout must be a positive Go duration', async () => {
    const r = await up('--request-timeout', '10');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /--request-timeout <duration>' argument '10' is invalid\. time: missing unit in duration "10"/);
  });

  test('--max-requests-inflight cannot be negative', async () => {
    const r = await up('--max-requests-inflight', '-1');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /--max-requests-inflight <n>' argument '-1' is invalid/);
  });
});
