/**
 * The whole path of an expired watch: the real API server core (memory backend, FakeClock) behind the
 * HTTP server. After the 5-minute compaction, a watch from before the compacted revision is answered
 * as upstream's cacher answers it: 200, one ERROR event carrying the 410 Expired Status, end of stream.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHttpServer, type RunningHttpServer } from './http/index.js';
import { COMPACTION_INTERVAL_MS, COMPACTION_MIN_RETAIN } from './index.js';
import { flushAsync } from '../util/clock/index.js';
import { newTestServer, obj, widgets, type TestServer } from './testing/fixtures.js';

const TOKEN = 'compaction-token';

describe('watch from a compacted resourceVersion over HTTP', () => {
  let t: TestServer;
  let http: RunningHttpServer;
  before(async () => {
    t = await newTestServer();
    http = await startHttpServer(t.server, { host: '127.0.0.1', port: 0, token: TOKEN, clock: t.clock });
  });
  after(async () => {
    await http.close();
    await t.server.close();
  });

  test('gets 200 with an ERROR event holding the 410 Status, then the stream ends', async () => {
    const a = obj(await widgets(t, { verb: 'create', body: { metadata: { name: 'a' } } }));
    const rv = a.metadata?.resourceVersion ?? '';
    for (let i = 0; i <= COMPACTION_MIN_RETAIN; i++) {
      await widgets(t, { verb: 'patch', name: 'a', patchType: 'application/merge-patch+json', body: { metadata: { labels: { n: String(i) } } } });
    }
    await t.clock.stepAsync(COMPACTION_INTERVAL_MS);
    await flushAsync();
    const compacted = t.backend.compactedRevision();
    assert.ok(Number(rv) < compacted);

    const res = await fetch(`http://127.0.0.1:${http.port}/apis/example.com/v1/namespaces/default/widgets?watch=true&resourceVersion=${rv}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(res.status, 200);
    const lines = (await res.text()).trim().split('\n');
    assert.deepEqual(
      lines.map((l): unknown => JSON.parse(l)),
      [
        {
          type: 'ERROR',
          object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `too old resource version: ${rv} (${compacted})`, reason: 'Expired', code: 410 },
        },
      ],
    );
  });
});
