import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { decodeKubernetesProtobuf, decodeWatchFrames, type DecodedWatchEvent } from '../../api/proto/index.js';
import { newNotFound, newResourceExpired } from '../../machinery/errors/index.js';
import { deepFreeze } from '../../machinery/meta/index.js';
import { plainStrategy, resourceInfo } from '../testing/fixtures.js';
import { serializedProtobuf } from '../watchcache/serialized.js';
import { fakeResources } from './fake-core.js';
import { startTestServer, TOKEN, type TestServer } from './harness.js';

/** What client-go typed clients send with `ContentType: application/vnd.kubernetes.protobuf`. */
const CLIENT_GO_ACCEPT = 'application/vnd.kubernetes.protobuf, application/json';
const PROTOBUF = 'application/vnd.kubernetes.protobuf';

let t: TestServer;
before(async () => {
  t = await startTestServer();
});
after(() => t.server.close());
beforeEach(() => {
  t.core.setResources(fakeResources());
  t.core.watches.length = 0;
  t.core.onWatch = () => {};
});

const pod = (name: string, rv = '5'): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', resourceVersion: rv, creationTimestamp: '2025-03-01T12:00:00Z', labels: { app: 'web' } },
  spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '100m' } } }], nodeName: 'node-1' },
  status: { phase: 'Running', podIP: '10.0.0.1' },
});

async function decoded(res: Response): Promise<Record<string, unknown>> {
  return decodeKubernetesProtobuf(new Uint8Array(await res.arrayBuffer()), { apiVersion: 'v1', kind: 'Pod' });
}

describe('protobuf responses', () => {
  test('GET with client-go Accept answers protobuf that decodes to the object', async () => {
    t.core.onHandle = () => ({ code: 200, body: pod('a'), warnings: [] });
    const res = await t.fetch('/api/v1/namespaces/default/pods/a', { headers: { accept: CLIENT_GO_ACCEPT } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), PROTOBUF);
    assert.deepEqual(await decoded(res), pod('a'));
  });

  test('JSON stays JSON when it comes first; q-values can prefer protobuf', async () => {
    t.core.onHandle = () => ({ code: 200, body: pod('a'), warnings: [] });
    let res = await t.fetch('/api/v1/namespaces/default/pods/a', { headers: { accept: 'application/json, application/vnd.kubernetes.protobuf' } });
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.deepEqual(await res.json(), pod('a'));
    res = await t.fetch('/api/v1/namespaces/default/pods/a', { headers: { accept: 'application/json;q=0.8, application/vnd.kubernetes.protobuf' } });
    assert.equal(res.headers.get('content-type'), PROTOBUF);
    assert.deepEqual(await decoded(res), pod('a'));
  });

  test('LIST streams item by item: a large list of frozen pods decodes, items from the serialize-once cache', async () => {
    const items = Array.from({ length: 300 }, (_, i) => deepFreeze(pod(`p-${i}`, String(100 + i))));
    const list = { apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '999', continue: 'tok' }, items };
    t.core.onHandle = () => ({ code: 200, body: list, warnings: [] });
    const res = await t.fetch('/api/v1/pods', { headers: { accept: CLIENT_GO_ACCEPT } });
    assert.equal(res.headers.get('content-type'), PROTOBUF);
    assert.equal(res.headers.get('content-length'), null, 'over one chunk: sent chunked');
    const back = await decoded(res);
    assert.deepEqual(back, { ...list, items: items.map(({ metadata, spec, status }) => ({ metadata, spec, status })) });
    // The items' bytes were remembered: the cache hands back the very same buffer.
    const first = items[0] as Record<string, unknown>;
    assert.equal(serializedProtobuf(first, 'k8s.io.api.core.v1.Pod'), serializedProtobuf(first, 'k8s.io.api.core.v1.Pod'));
  });

  test('a small list gets a Content-Length; an empty list decodes', async () => {
    t.core.onHandle = () => ({ code: 200, body: { apiVersion: 'apps/v1', kind: 'DeploymentList', metadata: { resourceVersion: '7' }, items: [] }, warnings: [] });
    const res = await t.fetch('/apis/apps/v1/deployments', { headers: { accept: CLIENT_GO_ACCEPT } });
    assert.ok(Number(res.headers.get('content-length')) > 0);
    assert.deepEqual(await decoded(res), { apiVersion: 'apps/v1', kind: 'DeploymentList', metadata: { resourceVersion: '7' } });
  });

  test('create answers 201 in protobuf; errors are protobuf Status with their code', async () => {
    t.core.onHandle = () => ({ code: 201, body: pod('new'), warnings: [] });
    let res = await t.fetch('/api/v1/namespaces/default/pods', { method: 'POST', body: JSON.stringify(pod('new')), headers: { accept: CLIENT_GO_ACCEPT } });
    assert.equal(res.status, 201);
    assert.deepEqual(await decoded(res), pod('new'));
    t.core.onHandle = () => {
      throw newNotFound({ group: '', resource: 'pods' }, 'gone');
    };
    res = await t.fetch('/api/v1/namespaces/default/pods/gone', { headers: { accept: CLIENT_GO_ACCEPT } });
    assert.equal(res.status, 404);
    assert.equal(res.headers.get('content-type'), PROTOBUF);
    const status = await decoded(res);
    assert.equal(status['kind'], 'Status');
    assert.equal(status['reason'], 'NotFound');
    assert.equal(status['code'], 404);
    assert.equal(status['message'], 'pods "gone" not found');
  });

  test('a body without a protobuf message falls back to JSON', async () => {
    t.core.onHandle = () => ({ code: 200, body: { echo: 'x' }, warnings: [] });
    const res = await t.fetch('/api/v1/namespaces/default/pods/a', { headers: { accept: CLIENT_GO_ACCEPT } });
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.deepEqual(await res.json(), { echo: 'x' });
  });

  test('the metadata client (protobuf PartialObjectMetadataList first) gets its JSON fallback', async () => {
    t.core.onHandle = () => ({ code: 200, body: { apiVersion: 'v1', kind: 'PodList', metadata: {}, items: [pod('a')] }, warnings: [] });
    const accept = 'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
    const res = await t.fetch('/api/v1/pods', { headers: { accept } });
    assert.equal(res.headers.get('content-type'), 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io');
    assert.equal(((await res.json()) as { kind: string }).kind, 'PartialObjectMetadataList');
  });
});

describe('custom resources are JSON only', () => {
  const widgets = (): ReturnType<typeof plainStrategy> =>
    plainStrategy(resourceInfo({ group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget' }), { pruneUnknownFields: () => [] });
  const widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' } };

  test('a protobuf-only Accept gets 406 NotAcceptable, as a JSON Status', async () => {
    t.core.setResources([...fakeResources(), widgets()]);
    t.core.onHandle = () => ({ code: 200, body: widget, warnings: [] });
    for (const accept of [PROTOBUF, 'application/vnd.kubernetes.protobuf;stream=watch']) {
      const res = await t.fetch('/apis/example.com/v1/namespaces/default/widgets/w', { headers: { accept } });
      assert.equal(res.status, 406);
      assert.equal(res.headers.get('content-type'), 'application/json');
      assert.deepEqual(await res.json(), {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'only the following media types are accepted: application/json',
        reason: 'NotAcceptable',
        code: 406,
      });
    }
  });

  test('with a JSON fallback the CR is answered in JSON', async () => {
    t.core.setResources([...fakeResources(), widgets()]);
    t.core.onHandle = () => ({ code: 200, body: widget, warnings: [] });
    const res = await t.fetch('/apis/example.com/v1/namespaces/default/widgets/w', { headers: { accept: CLIENT_GO_ACCEPT } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.deepEqual(await res.json(), widget);
  });
});

describe('protobuf watch', () => {
  /** Opens a watch and collects its decoded frames. */
  async function openWatch(path: string, accept: string): Promise<{ res: http.IncomingMessage; events: DecodedWatchEvent[]; waitEvents(n: number): Promise<void>; ended: Promise<void> }> {
    const req = http.get(`${t.base}${path}`, { headers: { authorization: `Bearer ${TOKEN}`, accept } });
    const [res] = (await once(req, 'response')) as [http.IncomingMessage];
    const events: DecodedWatchEvent[] = [];
    let pending: Uint8Array = new Uint8Array();
    let waiter: { n: number; resolve: () => void } | undefined;
    res.on('data', (chunk: Buffer) => {
      const { events: got, rest } = decodeWatchFrames(Buffer.concat([pending, chunk]), { apiVersion: 'v1', kind: 'Pod' });
      pending = rest;
      events.push(...got);
      if (waiter && events.length >= waiter.n) waiter.resolve();
    });
    const ended = once(res, 'end').then(
      () => undefined,
      () => undefined,
    );
    return { res, events, ended, waitEvents: (n) => (events.length >= n ? Promise.resolve() : new Promise((resolve) => (waiter = { n, resolve }))) };
  }

  test('client-go Accept: stream=watch frames of WatchEvents, the ERROR Status too', async () => {
    const w = await openWatch('/api/v1/namespaces/default/pods?watch=true', CLIENT_GO_ACCEPT);
    assert.equal(w.res.statusCode, 200);
    assert.equal(w.res.headers['content-type'], 'application/vnd.kubernetes.protobuf;stream=watch');
    const fw = t.core.watches[0];
    assert.ok(fw);
    const frozen = deepFreeze(pod('a', '6'));
    fw.emit({ type: 'ADDED', object: frozen });
    fw.emit({ type: 'MODIFIED', object: pod('a', '7') });
    fw.emit({ type: 'BOOKMARK', object: { apiVersion: 'v1', kind: 'Pod', metadata: { resourceVersion: '8', annotations: { 'k8s.io/initial-events-end': 'true' } } } });
    fw.close(newResourceExpired('too old resource version: 5 (120)'));
    await w.ended;
    assert.deepEqual(
      w.events.map((e) => e.type),
      ['ADDED', 'MODIFIED', 'BOOKMARK', 'ERROR'],
    );
    assert.deepEqual(w.events[0]?.object, frozen);
    assert.deepEqual(w.events[1]?.object, pod('a', '7'));
    assert.deepEqual(w.events[2]?.object, { apiVersion: 'v1', kind: 'Pod', metadata: { resourceVersion: '8', annotations: { 'k8s.io/initial-events-end': 'true' } }, spec: {}, status: {} });
    assert.deepEqual(w.events[3]?.object, { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', message: 'too old resource version: 5 (120)', reason: 'Expired', code: 410 });
  });

  test('an error before the stream starts is a protobuf Status with its code', async () => {
    t.core.onWatch = (w) => w.close(newResourceExpired('too old resource version: 1 (50)'));
    const res = await t.fetch('/api/v1/pods?watch=true&resourceVersion=1', { headers: { accept: CLIENT_GO_ACCEPT } });
    assert.equal(res.status, 410);
    assert.equal(res.headers.get('content-type'), PROTOBUF);
    assert.equal((await decoded(res))['reason'], 'Expired');
  });
});
