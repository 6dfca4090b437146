import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, request } from 'node:https';
import { FakeClock } from '../util/clock/index.js';
import { loadOrCreateServingCerts } from './certs.js';

test('serving certificates: CA-signed, cover loopback, reused, and accepted by a TLS client trusting the CA', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kubeplane-certs-'));
  try {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const certs = await loadOrCreateServingCerts(dir, ['127.0.0.1'], clock);
    const ca = new X509Certificate(certs.caCert);
    const server = new X509Certificate(certs.cert);
    assert.equal(server.verify(ca.publicKey), true);
    assert.equal(server.checkIP('127.0.0.1'), '127.0.0.1');
    assert.equal(server.checkHost('localhost'), 'localhost');
    assert.equal(ca.ca, true);

    const again = await loadOrCreateServingCerts(dir, ['127.0.0.1'], clock);
    assert.equal(again.cert, certs.cert, 'existing certificates are reused');
    const wider = await loadOrCreateServingCerts(dir, ['10.1.2.3'], clock);
    assert.notEqual(wider.cert, certs.cert, 'a new host name forces a new certificate');
    assert.equal(new X509Certificate(wider.cert).checkIP('10.1.2.3'), '10.1.2.3');

    const srv = createServer({ cert: wider.cert, key: wider.key }, (_req, res) => res.end('ok'));
    await new Promise<void>((ok) => srv.listen(0, '127.0.0.1', ok));
    const port = (srv.address() as { port: number }).port;
    const body = await new Promise<string>((ok, fail) => {
      request({ host: '127.0.0.1', port, path: '/', ca: wider.caCert }, (res) => {
        let b = '';
        res.on('data', (d: Buffer) => (b += d.toString()));
        res.on('end', () => ok(b));
      })
        .on('error', fail)
        .end();
    });
    srv.close();
    assert.equal(body, 'ok');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
