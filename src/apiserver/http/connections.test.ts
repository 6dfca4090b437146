/**
 * Connection reaping: Node enforces these limits on real time, so each test sets them tiny and waits
 * for the outcome (the server closing the connection) as an event — never for a fixed time, and never
 * asserting on how long it took.
 */
import { afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import tls from 'node:tls';
import { selfSignedCert, startTestServer, TOKEN, type TestServer } from './harness.js';
import type { HttpServerOptions } from './server.js';

/** Opens a TCP connection, optionally sends `data`, and resolves with all it received once the server closed it. */
async function closedByServer(socket: net.Socket, data?: string): Promise<string> {
  let received = '';
  socket.on('data', (d: Buffer) => (received += d.toString()));
  socket.on('error', () => {});
  const closed = new Promise((resolve) => socket.once('close', resolve));
  if (data !== undefined) socket.write(data);
  await closed;
  return received;
}

const fast: Partial<HttpServerOptions> = { connectionsCheckingIntervalMs: 10 };

describe('connection limits', { timeout: 20_000 }, () => {
  let t: TestServer;
  afterEach(() => t.server.close());

  test('the defaults are kube-apiserver’s: headers 32 s, idle 90 s, whole request within --request-timeout, 4096 connections', async () => {
    t = await startTestServer();
    const s = t.server.server;
    assert.deepEqual(
      { headersTimeout: s.headersTimeout, keepAliveTimeout: s.keepAliveTimeout, requestTimeout: s.requestTimeout, maxConnections: s.maxConnections },
      { headersTimeout: 32_000, keepAliveTimeout: 90_000, requestTimeout: 60_000, maxConnections: 4096 },
    );
    await t.server.close();
    t = await startTestServer({ requestTimeoutMs: 5000 });
    assert.equal(t.server.server.requestTimeout, 32_000, 'never shorter than the headers timeout (Node requires it)');
  });

  test('an idle keep-alive connection is closed after the keep-alive timeout', async () => {
    t = await startTestServer({ ...fast, keepAliveTimeoutMs: 50 });
    const socket = net.connect(t.server.port, '127.0.0.1');
    await once(socket, 'connect');
    const received = await closedByServer(socket, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.match(received, /^HTTP\/1\.1 200 OK\r\n/);
    assert.doesNotMatch(received, /\r\nConnection: close\r\n/i, 'it was a keep-alive response, closed for idleness');
  });

  test('a connection that sends nothing is closed after the headers timeout', async () => {
    t = await startTestServer({ ...fast, headersTimeoutMs: 50 });
    const socket = net.connect(t.server.port, '127.0.0.1');
    const received = await closedByServer(socket);
    assert.match(received, /^HTTP\/1\.1 408 Request Timeout\r\n/);
  });

  test('headers that never finish are cut at the headers timeout', async () => {
    t = await startTestServer({ ...fast, headersTimeoutMs: 50 });
    const socket = net.connect(t.server.port, '127.0.0.1');
    const received = await closedByServer(socket, 'GET /api HTTP/1.1\r\nHost: x\r\n');
    assert.match(received, /^HTTP\/1\.1 408 Request Timeout\r\n/);
  });

  test('a request body that trickles in is cut at the request receive timeout (not after 300 s)', async () => {
    t = await startTestServer({ ...fast, headersTimeoutMs: 50, requestReceiveTimeoutMs: 100 });
    const socket = net.connect(t.server.port, '127.0.0.1');
    const received = await closedByServer(
      socket,
      `POST /api/v1/namespaces/default/pods HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`,
    );
    assert.match(received, /^HTTP\/1\.1 408 Request Timeout\r\n/);
    assert.equal(t.core.requests.length, 0);
  });

  test('connections beyond the cap are dropped as they arrive', async () => {
    t = await startTestServer({ maxConnections: 2 });
    const dropped = once(t.server.server, 'drop');
    const accepted = new Promise<void>((resolve) => {
      let n = 0;
      t.server.server.on('connection', () => ++n === 2 && resolve());
    });
    const kept = [net.connect(t.server.port, '127.0.0.1'), net.connect(t.server.port, '127.0.0.1')];
    await accepted;
    const extra = net.connect(t.server.port, '127.0.0.1');
    assert.equal(await closedByServer(extra), '');
    await dropped;
    for (const s of kept) s.destroy();
  });
});

describe('TLS connection limits', { timeout: 20_000 }, () => {
  let cert: { cert: string; key: string } | undefined;
  let t: TestServer | undefined;
  before(async () => {
    cert = await selfSignedCert();
  });
  afterEach(() => t?.server.close());

  test('a client that never completes the TLS handshake is closed after the handshake timeout', async (ctx) => {
    if (!cert) return ctx.skip('openssl is not installed');
    t = await startTestServer({ ...fast, tls: cert, tlsHandshakeTimeoutMs: 50 });
    const failed = once(t.server.server, 'tlsClientError') as Promise<[Error]>;
    const socket = net.connect(t.server.port, '127.0.0.1');
    assert.equal(await closedByServer(socket), '');
    const [err] = await failed;
    assert.match(err.message, /TLS handshake timeout/);
  });

  test('a connection silent after the TLS handshake is closed after the headers timeout', async (ctx) => {
    if (!cert) return ctx.skip('openssl is not installed');
    t = await startTestServer({ ...fast, tls: cert, headersTimeoutMs: 50 });
    const socket = tls.connect({ port: t.server.port, host: '127.0.0.1', rejectUnauthorized: false });
    await once(socket, 'secureConnect');
    const received = await closedByServer(socket);
    assert.match(received, /^HTTP\/1\.1 408 Request Timeout\r\n/);
  });
});
