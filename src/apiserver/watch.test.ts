import { after, describe, test } from 'node:test';
import { defaultFeatureGate } from '../machinery/featuregate/index.js';
import assert from 'node:assert/strict';
import type { RestRequest, WatchEvent } from '../api/request.js';
import type { KubeObject } from '../api/index.js';
import { StatusError } from '../machinery/errors/index.js';
import { flushAsync } from '../util/clock/index.js';
import { newTestServer, rejectsWithStatus, type TestServer } from './testing/fixtures.js';
import { COMPACTION_INTERVAL_MS, COMPACTION_MIN_RETAIN, serializedJSON } from './index.js';

interface Recorder {
  events: WatchEvent[];
  closed: { err?: unknown } | undefined;
  stop(): void;
  /** `TYPE name@rv` per event. */
  lines(): string[];
}

function watchWidgets(t: TestServer, query: Record<string, string>, namespace?: string): Recorder {
  const rec: Recorder = {
    events: [],
    closed: undefined,
    stop: () => undefined,
    lines: () =>
      rec.events.map((e) => {
        const o = e.object as KubeObject;
        return `${e.type} ${o.metadata?.name ?? ''}@${o.metadata?.resourceVersion ?? ''}`;
      }),
  };
  const req: RestRequest = { verb: 'watch', group: 'example.com', version: 'v1', resource: 'widgets', query, ...(namespace ? { namespace } : {}) };
  const stream = t.server.watch(
    req,
    (ev) => rec.events.push(ev),
    (err) => {
      assert.equal(rec.closed, undefined, 'onClose called once');
      rec.closed = { err };
    },
  );
  rec.stop = () => stream.stop();
  return rec;
}

async function create(t: TestServer, name: string, labels: Record<string, string> = {}, namespace = 'default'): Promise<KubeObject> {
  const res = await t.server.handle({ verb: 'create', group: 'example.com', version: 'v1', resource: 'widgets', namespace, body: { metadata: { name, labels } } });
  return res.body as KubeObject;
}

async function patchLabels(t: TestServer, name: string, labels: Record<string, string | null>): Promise<KubeObject> {
  const res = await t.server.handle({
    verb: 'patch',
    group: 'example.com',
    version: 'v1',
    resource: 'widgets',
    namespace: 'default',
    name,
    patchType: 'application/merge-patch+json',
    body: { metadata: { labels } },
  });
  return res.body as KubeObject;
}

async function remove(t: TestServer, name: string): Promise<void> {
  await t.server.handle({ verb: 'delete', group: 'example.com', version: 'v1', resource: 'widgets', namespace: 'default', name });
}

describe('watch', () => {
  test('resourceVersion unset or 0 starts with synthetic ADDED events for the current state', async () => {
    const t = await newTestServer();
    const a = await create(t, 'a');
    await create(t, 'b');
    for (const rv of ['', '0']) {
      const w = watchWidgets(t, rv ? { resourceVersion: rv } : {}, 'default');
      await flushAsync();
      assert.deepEqual(w.events.map((e) => e.type), ['ADDED', 'ADDED']);
      assert.equal(w.events[0]?.object, await getWidget(t, 'a'), 'the shared cache object');
      assert.equal((w.events[0]?.object as KubeObject).metadata?.uid, a.metadata?.uid);
      w.stop();
      assert.deepEqual(w.closed, { err: undefined });
    }
  });

  test('a watch from a resourceVersion resumes with every later change, no gap, no duplicate', async () => {
    const t = await newTestServer();
    const a = await create(t, 'a');
    const rv = a.metadata?.resourceVersion ?? '';
    const b = await create(t, 'b');
    const a2 = await patchLabels(t, 'a', { x: '1' });
    await remove(t, 'b');
    const w = watchWidgets(t, { resourceVersion: rv });
    await flushAsync();
    const c = await create(t, 'c');
    await flushAsync();
    const del = w.events[2]?.object as KubeObject;
    assert.deepEqual(w.lines(), [
      `ADDED b@${b.metadata?.resourceVersion}`,
      `MODIFIED a@${a2.metadata?.resourceVersion}`,
      `DELETED b@${Number(a2.metadata?.resourceVersion) + 1}`,
      `ADDED c@${c.metadata?.resourceVersion}`,
    ]);
    assert.equal(del.metadata?.uid, b.metadata?.uid, 'DELETED carries the last state at the delete revision');
    w.stop();
  });

  test('a resourceVersion older than the watch-cache window is 410 Expired, as upstream\'s cacher answers', async () => {
    const t = await newTestServer({ watchCacheSizing: { lowerBound: 2, upperBound: 2 } });
    const a = await create(t, 'a');
    const rv = a.metadata?.resourceVersion ?? '';
    for (const n of ['b', 'c', 'd']) await create(t, n);
    // Storage still has every revision; the window holds only c and d, so b is out of reach.
    assert.equal(t.backend.compactedRevision(), 0);
    const old = watchWidgets(t, { resourceVersion: rv });
    await flushAsync();
    assert.equal(old.events.length, 0);
    const err = old.closed?.err;
    assert.ok(err instanceof StatusError);
    assert.equal(err.code, 410);
    assert.equal(err.reason, 'Expired');
    const b = await getWidget(t, 'b');
    assert.equal(err.message, `too old resource version: ${rv} (${(b as KubeObject).metadata?.resourceVersion})`);
    // From the oldest resumable revision the window has everything.
    const w = watchWidgets(t, { resourceVersion: String((b as KubeObject).metadata?.resourceVersion) });
    await flushAsync();
    assert.deepEqual(w.events.map((e) => (e.object as KubeObject).metadata?.name), ['c', 'd']);
    w.stop();
  });

  test('after the 5-minute compaction a watch from before the compacted revision is 410, though the window still held it', async () => {
    const t = await newTestServer();
    const a = await create(t, 'a');
    const rv = a.metadata?.resourceVersion ?? '';
    await create(t, 'b');
    const page = await t.server.handle({ verb: 'list', group: 'example.com', version: 'v1', resource: 'widgets', namespace: 'default', query: { limit: '1' } });
    const token = (page.body as { metadata: { continue?: string } }).metadata.continue ?? '';
    assert.notEqual(token, '');
    for (let i = 0; i < COMPACTION_MIN_RETAIN + 5; i++) await patchLabels(t, 'b', { n: String(i) });
    await t.clock.stepAsync(COMPACTION_INTERVAL_MS);
    await flushAsync();
    const compacted = t.backend.compactedRevision();
    assert.equal(compacted, t.backend.currentRevision() - COMPACTION_MIN_RETAIN);
    assert.ok(Number(rv) < compacted);

    const old = watchWidgets(t, { resourceVersion: rv });
    await flushAsync();
    assert.deepEqual(old.events, []);
    assert.ok(old.closed?.err instanceof StatusError);
    assert.equal(old.closed.err.code, 410);
    assert.equal(old.closed.err.message, `too old resource version: ${rv} (${compacted})`);
    // A watch from the compacted revision itself has every later change (as storage's own watch).
    const ok = watchWidgets(t, { resourceVersion: String(compacted) });
    await flushAsync();
    assert.equal(ok.closed, undefined);
    assert.equal(ok.events.length, COMPACTION_MIN_RETAIN);
    ok.stop();

    const list = (query: Record<string, string>) => t.server.handle({ verb: 'list', group: 'example.com', version: 'v1', resource: 'widgets', namespace: 'default', query });
    await rejectsWithStatus(list({ resourceVersion: rv, resourceVersionMatch: 'Exact' }), 410, 'The resourceVersion for the provided list is too old.');
    const expired = await rejectsWithStatus(list({ continue: token, limit: '1' }), 410, /^The provided continue parameter is too old/);
    assert.ok(expired.status.metadata?.continue, 'a token to continue inconsistently at the current revision');
  });

  test('a resourceVersion beyond the newest is 504 through onClose', async () => {
    const t = await newTestServer();
    const w = watchWidgets(t, { resourceVersion: '99999' });
    await flushAsync();
    assert.ok(w.closed?.err instanceof StatusError);
    assert.equal(w.closed.err.code, 504);
  });

  test('bad selectors throw synchronously', async () => {
    const t = await newTestServer();
    assert.throws(() => watchWidgets(t, { fieldSelector: 'spec.nope=1' }), /field label not supported: spec.nope/);
  });

  test('a filtered watch sees objects that start matching as ADDED and stop matching as DELETED', async () => {
    const t = await newTestServer();
    await create(t, 'a');
    const w = watchWidgets(t, { resourceVersion: String(t.server.currentRevision()), labelSelector: 'app=web' });
    await flushAsync();
    const on = await patchLabels(t, 'a', { app: 'web' });
    const again = await patchLabels(t, 'a', { tier: 'x' });
    const off = await patchLabels(t, 'a', { app: 'db' });
    await create(t, 'b', { app: 'db' });
    await flushAsync();
    assert.deepEqual(w.lines(), [
      `ADDED a@${on.metadata?.resourceVersion}`,
      `MODIFIED a@${again.metadata?.resourceVersion}`,
      `DELETED a@${off.metadata?.resourceVersion}`,
    ]);
    const gone = w.events[2]?.object as KubeObject;
    assert.equal(gone.metadata?.labels?.app, 'web', 'DELETED carries the last matching state');
    assert.ok(Object.isFrozen(gone));
    w.stop();
  });

  test('field-filtered and namespaced watches only see their objects', async () => {
    const t = await newTestServer();
    await t.server.handle({ verb: 'create', group: '', version: 'v1', resource: 'namespaces', body: { metadata: { name: 'other' } } });
    const w = watchWidgets(t, { fieldSelector: 'metadata.name=a' }, 'default');
    await flushAsync();
    await create(t, 'a', {}, 'other');
    await create(t, 'b');
    await create(t, 'a');
    await flushAsync();
    assert.deepEqual(w.events.map((e) => `${e.type} ${(e.object as KubeObject).metadata?.namespace}/${(e.object as KubeObject).metadata?.name}`), ['ADDED default/a']);
    w.stop();
  });

  test('bookmarks every 60 s of clock time when allowed, carrying the current resourceVersion', async () => {
    const t = await newTestServer();
    const w = watchWidgets(t, { resourceVersion: String(t.server.currentRevision()), allowWatchBookmarks: 'true' });
    const quiet = watchWidgets(t, { resourceVersion: String(t.server.currentRevision()) });
    await flushAsync();
    await create(t, 'a');
    await flushAsync();
    await t.clock.stepAsync(59_999);
    assert.equal(w.events.length, 1);
    await t.clock.stepAsync(1);
    const bm = w.events[1];
    assert.equal(bm?.type, 'BOOKMARK');
    assert.deepEqual(bm?.object, { kind: 'Widget', apiVersion: 'example.com/v1', metadata: { resourceVersion: String(t.server.currentRevision()) } });
    await t.clock.stepAsync(60_000);
    assert.equal(w.events.filter((e) => e.type === 'BOOKMARK').length, 2);
    assert.equal(quiet.events.filter((e) => e.type === 'BOOKMARK').length, 0);
    w.stop();
    quiet.stop();
  });

  test('timeoutSeconds ends the watch cleanly', async () => {
    const t = await newTestServer();
    const w = watchWidgets(t, { timeoutSeconds: '30' });
    await flushAsync();
    await t.clock.stepAsync(29_999);
    assert.equal(w.closed, undefined);
    await t.clock.stepAsync(1);
    assert.deepEqual(w.closed, { err: undefined });
    await create(t, 'a');
    await flushAsync();
    assert.equal(w.events.length, 0);
  });

  test('sendInitialEvents (WatchList gate on): ADDED for the current state, then the initial-events-end bookmark', async () => {
    defaultFeatureGate.set('WatchList=true');
    after(() => defaultFeatureGate.reset());
    const t = await newTestServer();
    await create(t, 'a');
    const w = watchWidgets(t, { sendInitialEvents: 'true', resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: 'true' });
    await flushAsync();
    assert.deepEqual(w.events.map((e) => e.type), ['ADDED', 'BOOKMARK']);
    const bm = w.events[1]?.object as KubeObject;
    assert.deepEqual(bm.metadata?.annotations, { 'k8s.io/initial-events-end': 'true' });
    assert.equal(bm.metadata?.resourceVersion, String(t.server.currentRevision()));
    assert.throws(() => watchWidgets(t, { sendInitialEvents: 'true' }), /sendInitialEvents requires setting resourceVersionMatch to NotOlderThan/);
    w.stop();
  });

  test('a watcher stopped from inside onEvent gets nothing more', async () => {
    const t = await newTestServer();
    await create(t, 'a');
    await create(t, 'b');
    const seen: string[] = [];
    const stream = t.server.watch(
      { verb: 'watch', group: 'example.com', version: 'v1', resource: 'widgets' },
      (ev) => {
        seen.push((ev.object as KubeObject).metadata?.name ?? '');
        stream.stop();
      },
      () => undefined,
    );
    await flushAsync();
    await create(t, 'c');
    await flushAsync();
    assert.deepEqual(seen, ['a']);
  });

  test('the in-process transport delivers the same frozen objects and reports rejected watches via onClose', async () => {
    const t = await newTestServer();
    const transport = t.server.inProcessTransport({ userAgent: 'test' });
    const events: WatchEvent[] = [];
    const stream = transport.watch({ verb: 'watch', group: 'example.com', version: 'v1', resource: 'widgets', namespace: 'default' }, (e) => events.push(e), () => undefined);
    await flushAsync();
    await transport.request({ verb: 'create', group: 'example.com', version: 'v1', resource: 'widgets', namespace: 'default', body: { metadata: { name: 'a' } } });
    await flushAsync();
    const got = await transport.request({ verb: 'get', group: 'example.com', version: 'v1', resource: 'widgets', namespace: 'default', name: 'a' });
    assert.equal(events[0]?.object, got);
    assert.throws(() => {
      (got as { spec: { replicas: number } }).spec.replicas = 5;
    }, TypeError);
    stream.stop();
    let closeErr: unknown;
    transport.watch({ verb: 'watch', group: 'x', version: 'v1', resource: 'y' }, () => undefined, (err) => (closeErr = err));
    await flushAsync();
    assert.ok(closeErr instanceof StatusError && closeErr.code === 404);
  });

  test('serializedJSON stringifies a frozen object once', async () => {
    const t = await newTestServer();
    const a = await create(t, 'a');
    const s1 = serializedJSON(a);
    assert.equal(s1, JSON.stringify(a));
    assert.equal(serializedJSON(a), s1);
    const mutable = { x: 1 };
    assert.equal(serializedJSON(mutable), '{"x":1}');
    mutable.x = 2;
    assert.equal(serializedJSON(mutable), '{"x":2}', 'unfrozen objects are not remembered');
  });
});

async function getWidget(t: TestServer, name: string): Promise<unknown> {
  return (await t.server.handle({ verb: 'get', group: 'example.com', version: 'v1', resource: 'widgets', namespace: 'default', name })).body;
}
