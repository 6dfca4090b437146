import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import { holdRequests, startTestServer, TOKEN, type TestServer } from './harness.js';
import { requestTimeoutMs } from './timeout.js';

const TIMEOUT_STATUS = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'Timeout: request did not complete within the allotted timeout',
  reason: 'Timeout',
  details: {},
  code: 504,
};

describe('requestTimeoutMs (request_deadline.go)', { timeout: 20_000 }, () => {
  test('the ?timeout= parameter shortens the limit, never lengthens it', () => {
    assert.equal(requestTimeoutMs({}, 60_000), 60_000);
    assert.equal(requestTimeoutMs({ timeout: '5s' }, 60_000), 5000);
    assert.equal(requestTimeoutMs({ timeout: '2m' }, 60_000), 60_000);
    assert.equal(requestTimeoutMs({ timeout: '0s' }, 60_000), 60_000);
    assert.equal(requestTimeoutMs({ timeout: '-1s' }, 60_000), 60_000);
  });

  test('a malformed ?timeout= is 400 with upstream’s message', () => {
    assert.throws(() => requestTimeoutMs({ timeout: 'soon' }, 60_000), {
      message: 'invalid timeout specified in the request URL - time: invalid duration "soon"',
      reason: 'BadRequest',
    });
  });
});

describe('request timeout over HTTP', { timeout: 20_000 }, () => {
  let t: TestServer;
  afterEach(() => t.server.close());

  test('a request unanswered after --request-timeout gets 504 Timeout; its late answer is dropped and the connection stays usable', async () => {
    t = await startTestServer({ requestTimeoutMs: 1000 });
    const held = holdRequests(t.core, { code: 200, body: { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'web' } }, warnings: ['late'] });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const get = (path: string): Promise<{ status: number; body: string; socket: unknown }> =>
      new Promise((resolve, reject) => {
        http
          .get(`${t.base}${path}`, { agent, headers: { authorization: `Bearer ${TOKEN}` } }, (res) => {
            let body = '';
            res.on('data', (d: Buffer) => (body += d.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body, socket: res.socket }));
          })
          .on('error', reject);
      });
    const pending = get('/api/v1/namespaces/default/pods/web');
    await held.arrivals(1);
    t.clock.step(999);
    assert.deepEqual(t.server.inFlight.inFlight(), { readOnly: 1, mutating: 0 }, 'not yet');
    t.clock.step(1);
    const res = await pending;
    assert.equal(res.status, 504);
    assert.deepEqual(JSON.parse(res.body), TIMEOUT_STATUS);
    await t.server.inFlight.whenIdle();

    held.release(); // the late answer (with a warning) is dropped quietly, and the connection serves the next request
    const next = await get('/version');
    assert.equal(next.status, 200);
    assert.equal(next.socket, res.socket);
    assert.deepEqual(t.logs, []);
    agent.destroy();
  });

  test('?timeout= shortens it for one request', async () => {
    t = await startTestServer({ requestTimeoutMs: 60_000 });
    const held = holdRequests(t.core);
    const pending = t.fetch('/api/v1/namespaces/default/pods?timeout=2s');
    await held.arrivals(1);
    t.clock.step(2000);
    assert.equal((await pending).status, 504);
    held.release();
  });

  test('a malformed ?timeout= is answered 400', async () => {
    t = await startTestServer();
    const res = await t.fetch('/api/v1/namespaces/default/pods?timeout=abc');
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { message: string }).message, 'invalid timeout specified in the request URL - time: invalid duration "abc"');
  });

  test('watches are long-running: no timeout', async () => {
    t = await startTestServer({ requestTimeoutMs: 1000 });
    const started = t.core.nextWatch();
    const res = await t.fetch('/api/v1/namespaces/default/pods?watch=true');
    const w = await started;
    t.clock.step(10_000);
    w.emit({ type: 'ADDED', object: { metadata: { name: 'late' } } });
    w.close();
    assert.equal(res.status, 200);
    assert.equal(await res.text(), '{"type":"ADDED","object":{"metadata":{"name":"late"}}}\n');
  });

  test('a slow request body gets 504 with Connection: close, and the connection is closed', async () => {
    t = await startTestServer({ requestTimeoutMs: 1000 });
    const socket = net.connect(t.server.port, '127.0.0.1');
    let received = '';
    socket.on('data', (d: Buffer) => (received += d.toString()));
    const closed = once(socket, 'close');
    const arrived = once(t.server.server, 'request');
    socket.write(
      `POST /api/v1/namespaces/default/pods HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"kind":',
    );
    await arrived;
    t.clock.step(1000);
    await closed;
    assert.match(received, /^HTTP\/1\.1 504 Gateway Timeout\r\n/);
    assert.match(received, /\r\nConnection: close\r\n/i);
    assert.equal(t.core.requests.length, 0, 'the request never ran');
  });

  test('a LIST whose client stops reading is cut at the timeout (its answer had begun)', async () => {
    t = await startTestServer({ requestTimeoutMs: 1000 });
    const item = { metadata: { name: 'x' }, spec: { data: 'y'.repeat(4000) } };
    t.core.onHandle = () => ({ code: 200, body: { kind: 'PodList', apiVersion: 'v1', metadata: {}, items: Array.from({ length: 10_000 }, () => item) }, warnings: [] });
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      http.get(`${t.base}/api/v1/namespaces/default/pods`, { headers: { authorization: `Bearer ${TOKEN}` } }, resolve).on('error', reject);
    });
    assert.equal(res.statusCode, 200);
    res.pause(); // the server fills the socket buffers, then waits for 'drain'
    res.on('error', () => {}); // 'aborted'
    const aborted = new Promise((resolve) => res.once('close', resolve));
    t.clock.step(1000);
    await t.server.inFlight.whenIdle();
    res.resume(); // reading again, the client finds the connection cut short
    await aborted;
    assert.equal(res.complete, false);
  });
});
