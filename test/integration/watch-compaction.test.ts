/**
 * A client informer against the real API server recovers from compaction by relisting, as client-go's
 * reflector does: cut off from the server while more than 1,000 writes happen and the 5-minute
 * compaction passes its resourceVersion, it rewatches, gets 410 Expired, relists at its old
 * resourceVersion (unpaged, so the server answers from its watch cache rather than from compacted
 * storage: reflector.go) and ends up with the server's state.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap } from '../../src/api/index.js';
import { newClientset } from '../../src/client/index.js';
import type { RestRequest, Transport, WatchEvent, WatchStream } from '../../src/api/request.js';
import { COMPACTION_INTERVAL_MS, COMPACTION_MIN_RETAIN } from '../../src/apiserver/index.js';
import { newTestServer } from '../../src/apiserver/testing/fixtures.js';
import { SharedIndexInformer } from '../../src/informers/shared-informer.js';
import { isResourceExpired } from '../../src/machinery/errors/index.js';
import { flushAsync } from '../../src/util/clock/index.js';

/** A transport whose connection can be cut: while down, requests fail and open watches end with an error. */
function partitionable(inner: Transport): Transport & { down: boolean; requests: RestRequest[] } {
  const open = new Set<() => void>();
  const refused = (): Error => new Error('connect ECONNREFUSED');
  const t = {
    requests: [] as RestRequest[],
    get down(): boolean {
      return down;
    },
    set down(v: boolean) {
      down = v;
      if (v) for (const cut of [...open]) cut();
    },
    request(req: RestRequest): Promise<unknown> {
      t.requests.push(req);
      return down ? Promise.reject(refused()) : inner.request(req);
    },
    watch(req: RestRequest, onEvent: (ev: WatchEvent) => void, onClose: (err?: unknown) => void): WatchStream {
      t.requests.push(req);
      if (down) {
        queueMicrotask(() => onClose(refused()));
        return { stop: () => undefined };
      }
      const cut = (): void => {
        open.delete(cut);
        stream.stop();
        onClose(refused());
      };
      const stream = inner.watch(req, onEvent, (err) => {
        open.delete(cut);
        onClose(err);
      });
      open.add(cut);
      return stream;
    },
  };
  let down = false;
  return t;
}

describe('informer and compaction', () => {
  test('an informer cut off past a compaction gets 410 on rewatch, relists and converges', async () => {
    const t = await newTestServer();
    const transport = partitionable(t.server.inProcessTransport({ userAgent: 'informer-test' }));
    const errors: unknown[] = [];
    const informer = new SharedIndexInformer<ConfigMap>(newClientset(transport).core.configMaps('default'), { clock: t.clock, rand: t.rand, onError: (e) => errors.push(e) });
    const server = newClientset(t.server.inProcessTransport({ userAgent: 'writer' })).core.configMaps('default');
    await server.create({ metadata: { name: 'keep' }, data: { v: '0' } });
    await server.create({ metadata: { name: 'gone' } });
    informer.run();
    assert.equal(await informer.waitForSync(), true);
    const rvBefore = informer.lastSyncResourceVersion();

    transport.down = true;
    await server.delete('gone');
    await server.create({ metadata: { name: 'new' } });
    for (let i = 1; i <= COMPACTION_MIN_RETAIN + 10; i++) await server.patch('keep', 'application/merge-patch+json', { data: { v: String(i) } });
    await t.clock.stepAsync(COMPACTION_INTERVAL_MS);
    await flushAsync();
    assert.ok(t.backend.compactedRevision() > Number(rvBefore), 'the informer\'s resourceVersion is compacted');

    transport.down = false;
    const want = (await server.list()).items.map((c) => `${c.metadata?.name ?? ''}@${c.metadata?.resourceVersion ?? ''}`);
    const have = (): string[] =>
      informer
        .lister()
        .list()
        .map((c) => `${c.metadata?.name ?? ''}@${c.metadata?.resourceVersion ?? ''}`)
        .sort();
    for (let i = 0; i < 100 && JSON.stringify(have()) !== JSON.stringify(want); i++) await t.clock.stepAsync(1000);
    assert.deepEqual(have(), want);
    assert.deepEqual(want.map((s) => s.split('@')[0]), ['keep', 'new']);
    assert.ok(errors.some(isResourceExpired), 'the rewatch was answered 410 Expired');
    const lists = transport.requests.filter((r) => r.verb === 'list').map((r) => r.query ?? {});
    assert.deepEqual(lists.slice(1), [{ resourceVersion: rvBefore }], 'relisted once, unpaged at its resourceVersion, answered from the watch cache');
    informer.stop();
    await t.server.close();
  });
});
