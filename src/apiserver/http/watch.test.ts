import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { newBadRequest, newResourceExpired } from '../../machinery/errors/index.js';
import { flushAsync } from '../../util/clock/index.js';
import { encodeWatchEvent } from './watch.js';
import { startTestServer, TOKEN, type TestServer } from './harness.js';

let t: TestServer;
before(async () => {
  t = await startTestServer();
});
after(() => t.server.close());
beforeEach(() => {
  t.core.requests.length = 0;
  t.core.watches.length = 0;
  t.core.onWatch = () => {};
});

const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

/** An open watch response and the lines received so far. */
interface OpenWatch {
  res: http.IncomingMessage;
  req: http.ClientRequest;
  lines: string[];
  /** Resolves once `n` lines have arrived. */
  waitLines(n: number): Promise<void>;
  ended: Promise<void>;
}

async function openWatch(path: string, headers: Record<string, string> = {}): Promise<OpenWatch> {
  const req = http.get(`${t.base}${path}`, { headers: { authorization: `Bearer ${TOKEN}`, ...headers } });
  const [res] = (await once(req, 'response')) as [http.IncomingMessage];
  const lines: string[] = [];
  let buffer = '';
  let waiter: { n: number; resolve: () => void } | undefined;
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      lines.push(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
    }
    if (waiter && lines.length >= waiter.n) waiter.resolve();
  });
  // A client-side destroy aborts the response; that ends it too.
  const ended = once(res, 'end').then(
    () => undefined,
    () => undefined,
  );
  return {
    res,
    req,
    lines,
    ended,
    waitLines: (n) =>
      lines.length >= n ? Promise.resolve() : new Promise((resolve) => (waiter = { n, resolve })),
  };
}

const pod = (name: string, rv: string): object => ({ kind: 'Pod', apiVersion: 'v1', metadata: { name, namespace: 'default', resourceVersion: rv }, status: { phase: 'Running' } });

describe('watch (apiserver.md §6.6)', () => {
  test('200 chunked JSON headers arrive before any event', async () => {
    const w = await openWatch('/api/v1/namespaces/default/pods?watch=true&resourceVersion=5&allowWatchBookmarks=true');
    assert.equal(w.res.statusCode, 200);
    assert.equal(w.res.headers['content-type'], 'application/json');
    assert.equal(w.res.headers['transfer-encoding'], 'chunked');
    assert.equal(w.lines.length, 0);
    const fw = t.core.watches[0];
    assert.ok(fw);
    assert.deepEqual(fw.req, {
      verb: 'watch',
      group: '',
      version: 'v1',
      resource: 'pods',
      namespace: 'default',
      query: { watch: 'true', resourceVersion: '5', allowWatchBookmarks: 'true' },
      user: { username: 'kubeplane-admin', groups: ['system:masters', 'system:authenticated'] },
    });
    fw.emit({ type: 'ADDED', object: pod('a', '6') });
    fw.emit({ type: 'MODIFIED', object: pod('a', '7') });
    await w.waitLines(2);
    assert.deepEqual(w.lines.map((l): unknown => JSON.parse(l)), [
      { type: 'ADDED', object: pod('a', '6') },
      { type: 'MODIFIED', object: pod('a', '7') },
    ]);
    fw.close();
    await w.ended;
  });

  test('the core closing with an error sends an ERROR event with its Status, then ends', async () => {
    const w = await openWatch('/api/v1/pods?watch=1');
    const fw = t.core.watches[0];
    assert.ok(fw);
    fw.close(newResourceExpired('too old resource version: 5 (120)'));
    await w.ended;
    assert.deepEqual(JSON.parse(w.lines[0] ?? ''), {
      type: 'ERROR',
      object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'too old resource version: 5 (120)', reason: 'Expired', code: 410 },
    });
  });

  test('a client disconnect stops the core watch', async () => {
    const w = await openWatch('/apis/apps/v1/deployments?watch=true');
    const fw = t.core.watches[0];
    assert.ok(fw);
    assert.equal(fw.stopped, false);
    w.req.destroy();
    for (let i = 0; i < 20 && !fw.stopped; i++) await flushAsync();
    assert.equal(fw.stopped, true);
  });

  test('errors before the stream starts are answered with their HTTP status', async () => {
    t.core.onWatch = () => {
      throw newBadRequest('unable to parse requirement: bad selector');
    };
    let res = await t.fetch('/api/v1/pods?watch=true&labelSelector=%3D%3D');
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { message: string }).message, 'unable to parse requirement: bad selector');
    t.core.onWatch = (w) => w.close(newResourceExpired('too old resource version: 1 (50)'));
    res = await t.fetch('/api/v1/pods?watch=true&resourceVersion=1');
    assert.equal(res.status, 410);
  });

  test('synthetic events emitted synchronously at start are streamed after the headers', async () => {
    t.core.onWatch = (w) => w.emit({ type: 'ADDED', object: pod('x', '3') });
    const w = await openWatch('/api/v1/pods?watch=true&resourceVersion=0');
    await w.waitLines(1);
    assert.equal(JSON.parse(w.lines[0] ?? '').object.metadata.name, 'x');
    t.core.watches[0]?.close();
    await w.ended;
  });

  test('a named watch becomes a collection watch with fieldSelector metadata.name; the /watch/ prefix too', async () => {
    let w = await openWatch('/apis/apps/v1/namespaces/default/deployments/web?watch=true&fieldSelector=a%3Db');
    let fw = t.core.watches[0];
    assert.equal(fw?.req.name, undefined);
    assert.equal(fw?.req.query?.['fieldSelector'], 'a=b,metadata.name=web');
    fw?.close();
    await w.ended;
    w = await openWatch('/api/v1/watch/namespaces/default/pods/p');
    fw = t.core.watches[1];
    assert.equal(fw?.req.verb, 'watch');
    assert.equal(fw?.req.query?.['fieldSelector'], 'metadata.name=p');
    fw?.close();
    await w.ended;
  });

  test('Table Accept: one-row Tables, column definitions only in the first; Status and BOOKMARK unconverted', async () => {
    const w = await openWatch('/api/v1/namespaces/default/pods?watch=true', { accept: TABLE_ACCEPT });
    const fw = t.core.watches[0];
    assert.ok(fw);
    const bookmark = { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: '9' } };
    fw.emit({ type: 'BOOKMARK', object: bookmark });
    fw.emit({ type: 'ADDED', object: pod('a', '10') });
    fw.emit({ type: 'MODIFIED', object: pod('a', '11') });
    fw.close(newResourceExpired('too old resource version: 5 (120)'));
    await w.ended;
    const events = w.lines.map((l) => JSON.parse(l) as { type: string; object: Record<string, unknown> });
    assert.deepEqual(events.map((e) => e.type), ['BOOKMARK', 'ADDED', 'MODIFIED', 'ERROR']);
    assert.deepEqual(events[0]?.object, bookmark);
    const first = events[1]?.object as { kind: string; metadata: object; columnDefinitions?: { name: string }[]; rows: { cells: unknown[]; object: { kind: string } }[] };
    assert.equal(first.kind, 'Table');
    assert.deepEqual(first.metadata, { resourceVersion: '10' });
    assert.deepEqual(first.columnDefinitions?.map((c) => c.name), ['Name', 'Status', 'IP', 'Node']);
    assert.deepEqual(first.rows[0]?.cells, ['a', 'Running', '<none>', '<none>']);
    assert.equal(first.rows[0]?.object.kind, 'PartialObjectMetadata');
    const second = events[2]?.object as { columnDefinitions?: unknown; rows: unknown[] };
    assert.equal(second.columnDefinitions, undefined);
    assert.equal(second.rows.length, 1);
    assert.equal(events[3]?.object['kind'], 'Status');
  });

  test('a client that stops reading is cut off once the backlog passes the limit', async () => {
    const slow = await startTestServer({ maxWatchBacklogBytes: 1024 * 1024 });
    try {
      const req = http.get(`${slow.base}/api/v1/pods?watch=true`, { headers: { authorization: `Bearer ${TOKEN}` } });
      const [res] = (await once(req, 'response')) as [http.IncomingMessage];
      res.pause();
      const fw = slow.core.watches[0];
      assert.ok(fw);
      const big = { kind: 'Pod', metadata: { name: 'big' }, data: 'x'.repeat(256 * 1024) };
      for (let i = 0; i < 400 && !fw.stopped; i++) {
        fw.emit({ type: 'MODIFIED', object: big });
        if (i % 20 === 0) await flushAsync();
      }
      assert.equal(fw.stopped, true);
      assert.ok(slow.logs.some((l) => l.msg === 'watch client too slow, closing the watch'));
      req.destroy();
    } finally {
      await slow.server.close();
    }
  });
});

describe('encodeWatchEvent', () => {
  test('one line of JSON per event, with a swappable object serializer', () => {
    assert.equal(encodeWatchEvent('ADDED', { a: 1 }), '{"type":"ADDED","object":{"a":1}}\n');
    assert.equal(encodeWatchEvent('DELETED', { a: 1 }, () => '"cached"'), '{"type":"DELETED","object":"cached"}\n');
  });
});
