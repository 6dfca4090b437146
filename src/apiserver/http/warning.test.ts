/**
 * Warning headers as upstream's recorder writes them: quoting of user text (control characters
 * dropped, non-ASCII as `?`), deduplication, and truncation past 4,096 runes
 * (k8s.io/apiserver/pkg/endpoints/filters/warning_test.go's cases, reworded).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { ApiServer } from '../index.js';
import { servedStrategies } from '../registry/resources/index.js';
import { MemoryBackend } from '../../storage/memory/index.js';
import { FakeClock } from '../../util/clock/index.js';
import { startHttpServer } from './server.js';
import { warningHeaderValue, warningHeaders } from './warning.js';

describe('warning headers', () => {
  test('quotes and backslashes are escaped, control characters other than tab dropped, non-ASCII as ?', () => {
    assert.equal(warningHeaderValue('a "b" \\c\nd\te\u0000f\u007f'), '299 - "a \\"b\\" \\\\cd\tef"');
    assert.equal(warningHeaderValue('unknown field "spec.café😀\u202e"'), '299 - "unknown field \\"spec.caf???\\""');
  });

  test('texts are deduplicated in order; empty ones skipped', () => {
    assert.deepEqual(warningHeaders(['b', 'a', 'b', '', 'c']), ['299 - "b"', '299 - "a"', '299 - "c"']);
  });

  test('past 4,096 runes every text is cut to 256 runes and later ones beyond the limit are dropped', () => {
    const long = (c: string): string => c.repeat(1000);
    // 4 × 1000 runes fit; the fifth starts truncation: all five are cut to 256 (1,280 runes).
    const five = warningHeaders(['a', 'b', 'c', 'd', 'e'].map(long));
    assert.equal(five.length, 5);
    for (const h of five) assert.equal(h.length, '299 - ""'.length + 256);
    // Truncating, each further text adds 256 runes until 4,096 are written: 16 texts in all.
    const many = warningHeaders(Array.from({ length: 40 }, (_, i) => long(String.fromCharCode(97 + (i % 26)) + String(i))));
    assert.equal(many.length, 16);
    // Runes, not bytes: a 300-emoji text is cut to 256 emoji.
    const emoji = warningHeaders([...['a', 'b', 'c', 'd'].map(long), '😀'.repeat(300)]);
    assert.equal(emoji[4], `299 - "${'?'.repeat(256)}"`);
  });

  test('over HTTP: an unknown field named with characters a header cannot carry is a warning, not a 500', async () => {
    const api = await ApiServer.create({ backend: new MemoryBackend(), strategies: servedStrategies, clock: new FakeClock() });
    const server = await startHttpServer(api, { host: '127.0.0.1', port: 0, clock: new FakeClock() });
    try {
      const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w' }, data: {}, 'x😀\u0001\n': 1 });
      const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port: server.port, method: 'POST', path: '/api/v1/namespaces/default/configmaps', headers: { 'content-type': 'application/json' } }, resolve);
        req.on('error', reject);
        req.end(body);
      });
      res.resume();
      assert.equal(res.statusCode, 201);
      // The text is Go's %q of the path (`"x😀\x01\n"`), quoted again into the header.
      assert.equal(res.headers.warning, '299 - "unknown field \\"x?\\\\x01\\\\n\\""');
    } finally {
      await server.close();
      await api.close();
    }
  });
});
