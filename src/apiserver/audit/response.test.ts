/**
 * auditResponse on a real node:http server: the response head (explicit or implicit) is
 * ResponseStarted, the response's close is ResponseComplete — upstream's auditResponseWriter
 * (pkg/endpoints/filters/audit.go; audit_test.go `TestDecorateResponseWriterWithoutChannel`,
 * `TestDecorateResponseWriterWithImplicitWrite`, and the `Audit-Id` response header of TestAudit).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeClock } from '../../util/clock/index.js';
import { requestInfoOf } from '../http/requestinfo.js';
import { Auditor } from './context.js';
import { newFakePolicyRuleEvaluator } from './policy.js';
import { auditIDFromHeaders } from './request.js';
import { auditResponse } from './response.js';
import { MemoryAuditSink } from './sink.js';
import { AUDIT_ID_HEADER } from './types.js';

/** Serves one request with `handler` behind the audit, and returns the response's status, Audit-Id header and the events. */
async function serve(path: string, handler: (res: ServerResponse) => void, headers: Record<string, string> = {}): Promise<{ status: number; auditID: string | undefined; sink: MemoryAuditSink }> {
  const sink = new MemoryAuditSink();
  const auditor = new Auditor({ policy: newFakePolicyRuleEvaluator('Metadata'), sink, clock: new FakeClock(), newId: () => 'generated' });
  let markClosed = (): void => {};
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  const server = http.createServer((req, res) => {
    const [p = '', q = ''] = (req.url ?? '').split('?');
    const auditID = auditIDFromHeaders(req.headers) ?? auditor.makeID();
    res.setHeader(AUDIT_ID_HEADER, auditID);
    const ac = auditor.begin({
      auditID,
      requestURI: req.url ?? '',
      headers: req.headers,
      remoteAddress: req.socket.remoteAddress,
      info: requestInfoOf(req.method ?? 'GET', p, Object.fromEntries(new URLSearchParams(q))),
      user: { username: 'admin', groups: ['system:masters'] },
    });
    if (ac) auditResponse(ac, res);
    // Registered after the audit's own listener, so the events are all written when this runs.
    res.once('close', () => markClosed());
    handler(res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  try {
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, path, headers }, resolve).on('error', reject);
    });
    res.resume();
    await once(res, 'end');
    await closed;
    return { status: res.statusCode ?? 0, auditID: res.headers['audit-id'] as string | undefined, sink };
  } finally {
    server.close();
  }
}

describe('auditResponse', () => {
  test('an explicit writeHead is the status', async () => {
    const { status, auditID, sink } = await serve('/api/v1/namespaces/default/pods/foo', (res) => {
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end('{}');
    });
    assert.equal(status, 403);
    assert.equal(auditID, 'generated');
    assert.deepEqual(sink.events.map((e) => [e.stage, e.responseStatus?.code, e.sourceIPs]), [
      ['RequestReceived', undefined, ['127.0.0.1']],
      ['ResponseComplete', 403, ['127.0.0.1']],
    ]);
  });

  test('the implicit head of end() is the status; the Audit-ID header is echoed', async () => {
    const { auditID, sink } = await serve(
      '/api/v1/namespaces/default/pods/foo',
      (res) => {
        res.statusCode = 201;
        res.end('foo');
      },
      { 'Audit-ID': 'client-id' },
    );
    assert.equal(auditID, 'client-id');
    assert.deepEqual(sink.events.map((e) => [e.stage, e.auditID, e.responseStatus?.code]), [
      ['RequestReceived', 'client-id', undefined],
      ['ResponseComplete', 'client-id', 201],
    ]);
  });

  test('a watch gets ResponseStarted when its head goes out', async () => {
    const { sink } = await serve('/api/v1/namespaces/default/pods?watch=true', (res) => {
      res.write('{"type":"ADDED"}\n');
      res.end();
    });
    assert.deepEqual(sink.events.map((e) => [e.stage, e.verb, e.responseStatus?.code]), [
      ['RequestReceived', 'watch', undefined],
      ['ResponseStarted', 'watch', 200],
      ['ResponseComplete', 'watch', 200],
    ]);
  });
});
