import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Deployment, ObjectMeta, Pod } from '../api/index.js';
import { isAlreadyExists, isConflict, isNotFound, StatusError } from '../machinery/errors/index.js';
import { FakeClock, flushAsync } from '../util/clock/index.js';
import { SeededRand } from '../util/random/index.js';
import { newClientset, type WatchEvent } from '../client/index.js';
import type { FakeTransport } from '../client/fake/index.js';
import { newFakeTransport } from './index.js';

async function setup() {
  const clock = new FakeClock(Date.UTC(2025, 0, 1));
  const fake = await newFakeTransport({ clock, rand: new SeededRand(7), namespaces: ['ns', 'other'] });
  const base = Number(fake.resourceVersion());
  return { fake, clock, cs: newClientset(fake), rv: (n: number) => String(base + n) };
}
const C = [{ name: 'c', image: 'i' }];
function pod(name: string, extra: Partial<Pod> = {}, labels: Record<string, string> = {}): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', labels }, spec: { containers: C }, ...extra };
}
function deployment(name: string, replicas = 2): Deployment {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: 'ns' },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: C } } } };
}

describe('writes', () => {
  test('create', async () => {
    const { cs, rv } = await setup();
    const body = pod('', {}, {});
    (body.metadata as { generateName?: string; name?: string }).name = undefined;
    (body.metadata as { generateName?: string }).generateName = 'web-';
    const created = await cs.core.pods('ns').create(body);
    const m = created.metadata!;
    assert.match(m.name ?? '', /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.match(m.uid ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(m.creationTimestamp, '2025-01-01T00:00:00Z');
    assert.equal(m.resourceVersion, rv(1));
    console.log('pod generation', m.generation);
    assert.ok(Object.isFrozen(created) && Object.isFrozen(created.spec));
    assert.equal(body.metadata?.uid, undefined, 'the body is not mutated');
    await cs.core.pods('ns').create(pod('p'));
    await assert.rejects(cs.core.pods('ns').create(pod('p')), isAlreadyExists);
  });

  test('update', async () => {
    const { cs } = await setup();
    const d = await cs.apps.deployments('ns').create(deployment('web'));
    assert.equal(d.metadata?.generation, 1);
    const withStatus = await cs.apps.deployments('ns').updateStatus({ ...d, status: { replicas: 2 }, spec: { ...d.spec!, replicas: 9 } });
    assert.equal(withStatus.status?.replicas, 2);
    assert.equal(withStatus.spec?.replicas, 2, 'status update ignores spec');
    assert.equal(withStatus.metadata?.generation, 1);
    await assert.rejects(cs.apps.deployments('ns').update({ ...d, spec: { ...d.spec!, replicas: 3 } }), isConflict);
    const scaled = await cs.apps.deployments('ns').update({ ...withStatus, spec: { ...withStatus.spec!, replicas: 3 }, status: {} });
    assert.equal(scaled.metadata?.generation, 2);
    assert.deepEqual(scaled.status, { replicas: 2 }, 'the main resource keeps the stored status');
    const labelled = await cs.apps.deployments('ns').update({ ...scaled, metadata: { ...scaled.metadata, labels: { a: 'b' }, resourceVersion: '' } });
    assert.equal(labelled.metadata?.generation, 2, 'metadata-only change: same generation');
    const annotated = await cs.apps.deployments('ns').update({ ...labelled, metadata: { ...labelled.metadata, annotations: { x: 'y' } } });
    assert.equal(annotated.metadata?.generation, 3, 'deployments count annotation changes');
    const noop = await cs.apps.deployments('ns').update(annotated);
    assert.equal(noop.metadata?.resourceVersion, annotated.metadata?.resourceVersion, 'a no-op update writes nothing');
    await assert.rejects(cs.apps.deployments('ns').update(deployment('missing')), isNotFound);
  });

  test('patch', async () => {
    const { cs, rv } = await setup();
    const p = await cs.core.pods('ns').create(pod('p'));
    console.log('created pod status', JSON.stringify(p.status));
    const merged = await cs.core.pods('ns').patch('p', 'application/merge-patch+json', { metadata: { labels: { x: '1' } }, status: { phase: 'Running' } });
    assert.equal(merged.metadata?.labels?.x, '1');
    assert.equal(merged.status?.phase, 'Pending', 'status is ignored on the main resource');
    const st = await cs.core.pods('ns').patch('p', 'application/merge-patch+json', { status: { phase: 'Running' } }, { subresource: 'status' });
    assert.equal(st.status?.phase, 'Running');
    const jp = await cs.core.pods('ns').patch('p', 'application/json-patch+json', [{ op: 'add', path: '/metadata/labels/y', value: '2' }]);
    assert.deepEqual(jp.metadata?.labels, { x: '1', y: '2' });
    await assert.rejects(cs.core.pods('ns').patch('p', 'application/merge-patch+json', { metadata: { resourceVersion: rv(1) } }), isConflict);
    await assert.rejects(cs.core.pods('ns').patch('nope', 'application/merge-patch+json', {}), isNotFound);
    const sm = await cs.core.pods('ns').patch('p', 'application/strategic-merge-patch+json', { spec: { containers: [{ name: 'c', image: 'j' }] } });
    assert.deepEqual(sm.spec?.containers.map((c) => [c.name, c.image]), [['c', 'j']]);
    await assert.rejects(
      cs.core.pods('ns').patch('p', 'application/json-patch+json', [{ op: 'test', path: '/spec/nodeName', value: 'x' }]),
      (e) => e instanceof StatusError && e.code === 422,
    );
  });

  test('delete', async () => {
    const { cs, clock } = await setup();
    const p = await cs.core.pods('ns').create(pod('p'));
    await assert.rejects(cs.core.pods('ns').delete('p', { preconditions: { uid: 'other' } }), isConflict);
    const gone = (await cs.core.pods('ns').delete('p')) as Pod;
    assert.equal(gone.metadata?.uid, p.metadata?.uid);
    await assert.rejects(cs.core.pods('ns').get('p'), isNotFound);
    const d = await cs.apps.deployments('ns').create({ ...deployment('d'), metadata: { name: 'd', finalizers: ['x/y'] } });
    clock.step(1500);
    const deleting = (await cs.apps.deployments('ns').delete('d')) as Deployment;
    assert.equal(deleting.metadata?.deletionTimestamp, '2025-01-01T00:00:01Z');
    const still = await cs.apps.deployments('ns').get('d');
    assert.deepEqual(still.metadata?.finalizers, ['x/y']);
    await cs.apps.deployments('ns').update({ ...still, metadata: { ...still.metadata, finalizers: [] } });
    await assert.rejects(cs.apps.deployments('ns').get('d'), isNotFound);
    assert.ok(d.metadata?.uid);
    await cs.apps.deployments('ns').create(deployment('e'));
    const status = (await cs.apps.deployments('ns').delete('e')) as { kind: string; status: string; details: { name: string } };
    assert.equal(status.kind, 'Status');
    assert.equal(status.status, 'Success');
    assert.equal(status.details.name, 'e');
  });

  test('scale and binding', async () => {
    const { cs } = await setup();
    await cs.apps.deployments('ns').create(deployment('web', 2));
    const scale = await cs.apps.deployments('ns').getScale('web');
    assert.deepEqual(scale.spec, { replicas: 2 });
    assert.equal(scale.status?.selector, 'app=web');
    const up = await cs.apps.deployments('ns').updateScale('web', { ...scale, spec: { replicas: 5 } });
    assert.equal(up.spec?.replicas, 5);
    await assert.rejects(cs.apps.deployments('ns').updateScale('web', scale), isConflict, 'stale scale resourceVersion');
    await cs.apps.deployments('ns').patch('web', 'application/merge-patch+json', { spec: { replicas: 1 } }, { subresource: 'scale' });
    const d = await cs.apps.deployments('ns').get('web');
    assert.equal(d.spec?.replicas, 1);
    assert.equal(d.metadata?.generation, 3);
    await cs.core.pods('ns').create(pod('p'));
    await cs.core.pods('ns').createSubresource('p', 'binding', { metadata: { name: 'p' }, target: { kind: 'Node', name: 'n1' } });
    const bound = await cs.core.pods('ns').get('p');
    assert.equal(bound.spec?.nodeName, 'n1');
    console.log('bound conditions', JSON.stringify(bound.status?.conditions));
    await assert.rejects(cs.core.pods('ns').createSubresource('p', 'binding', { metadata: { name: 'p' }, target: { name: 'n2' } }), isConflict);
  });
});

describe('reads', () => {
  test('list', async () => {
    const { cs, fake, rv } = await setup();
    await fake.seed([
      pod('b', { spec: { containers: C, nodeName: 'n1' } }, { app: 'web' }),
      pod('a', { spec: { containers: C, nodeName: 'n2' } }, { app: 'web' }),
      { ...pod('c', {}, { app: 'db' }), metadata: { name: 'c', namespace: 'other', labels: { app: 'db' } } },
      { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } },
    ]);
    const names = (l: { items: { metadata?: ObjectMeta }[] }): string[] => l.items.map((i) => i.metadata?.name ?? '');
    assert.deepEqual(names(await cs.core.pods().list()), ['a', 'b', 'c']);
    assert.deepEqual(names(await cs.core.pods('ns').list()), ['a', 'b']);
    assert.deepEqual(names(await cs.core.pods().list({ labelSelector: 'app=web' })), ['a', 'b']);
    assert.deepEqual(names(await cs.core.pods().list({ fieldSelector: 'spec.nodeName=n1' })), ['b']);
    assert.deepEqual(names(await cs.core.pods().list({ fieldSelector: 'metadata.namespace!=ns' })), ['c']);
    assert.deepEqual(names(await cs.core.nodes().list()), ['n1']);
    const page1 = await cs.core.pods().list({ limit: 2 });
    assert.deepEqual(names(page1), ['a', 'b']);
    assert.equal(page1.metadata.resourceVersion, rv(4));
    assert.equal(page1.kind, 'PodList');
    await cs.core.pods('other').create({ ...pod('zz'), metadata: { name: 'zz' } });
    const page2 = await cs.core.pods().list({ limit: 2, continue: page1.metadata.continue });
    assert.deepEqual(names(page2), ['c']);
    assert.equal(page2.metadata.resourceVersion, rv(4), 'the token keeps the list resourceVersion');
    assert.equal(page2.metadata.continue, undefined);
    await assert.rejects(cs.core.pods().list({ labelSelector: 'a in (' }), (e) => e instanceof StatusError && e.code === 400);
  });
});

describe('watch', () => {
  async function collect(fake: FakeTransport, query: Record<string, string>, ns?: string) {
    const events: WatchEvent<Pod>[] = [];
    const closes: unknown[] = [];
    const stream = newClientset(fake).core.pods(ns).watch(
      { resourceVersion: query.resourceVersion, labelSelector: query.labelSelector, timeoutSeconds: query.timeoutSeconds ? Number(query.timeoutSeconds) : undefined, allowWatchBookmarks: query.allowWatchBookmarks === 'true' },
      (ev) => events.push(ev), (err) => closes.push(err));
    await flushAsync();
    return { events, closes, stream };
  }
  const summary = (evs: WatchEvent<Pod>[]): string[] => evs.map((e) => `${e.type} ${e.object.metadata?.name ?? ''}@${e.object.metadata?.resourceVersion ?? ''}`);

  test('rv 0', async () => {
    const { fake, cs, rv } = await setup();
    await cs.core.pods('ns').create(pod('a'));
    const w = await collect(fake, { resourceVersion: '0' });
    await cs.core.pods('ns').patch('a', 'application/merge-patch+json', { metadata: { labels: { x: 'y' } } });
    await cs.core.pods('ns').delete('a');
    await flushAsync();
    assert.deepEqual(summary(w.events), [`ADDED a@${rv(1)}`, `MODIFIED a@${rv(2)}`, `MODIFIED a@${rv(3)}`, `DELETED a@${rv(4)}`]);
    w.stream.stop();
    w.stream.stop();
    assert.deepEqual(w.closes, [undefined]);
  });

  test('from N; compaction', async () => {
    const { fake, cs, rv } = await setup();
    await cs.core.pods('ns').create(pod('a'));
    await cs.core.pods('ns').create(pod('b'));
    await cs.core.nodes().create({ metadata: { name: 'n' } });
    const w = await collect(fake, { resourceVersion: rv(1) });
    assert.deepEqual(summary(w.events), [`ADDED b@${rv(2)}`]);
    w.stream.stop();
    await fake.compact();
    const old = await collect(fake, { resourceVersion: rv(2) });
    console.log('compacted watch', JSON.stringify(old.events), String(old.closes[0]), (old.closes[0] as StatusError).code);
    const current = await collect(fake, { resourceVersion: rv(3) });
    assert.deepEqual(current.events, []);
    assert.equal(fake.activeWatches(), 1);
  });

  test('label selection', async () => {
    const { fake, cs, rv } = await setup();
    await cs.core.pods('ns').create(pod('a', {}, { app: 'web' }));
    const w = await collect(fake, { resourceVersion: rv(1), labelSelector: 'app=web' });
    await cs.core.pods('ns').patch('a', 'application/merge-patch+json', { metadata: { labels: { app: 'db' } } });
    await cs.core.pods('ns').patch('a', 'application/merge-patch+json', { metadata: { labels: { tier: 'x' } } });
    await cs.core.pods('ns').patch('a', 'application/merge-patch+json', { metadata: { labels: { app: 'web' } } });
    await flushAsync();
    assert.deepEqual(summary(w.events), [`DELETED a@${rv(2)}`, `ADDED a@${rv(4)}`]);
  });

  test('timeout and bookmarks', async () => {
    const { fake, clock, rv } = await setup();
    const w = await collect(fake, { resourceVersion: '0', timeoutSeconds: '100', allowWatchBookmarks: 'true' });
    const nb = await collect(fake, { resourceVersion: '0' });
    await fake.seed([{ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' } }]);
    clock.step(60_000);
    await flushAsync();
    assert.deepEqual(w.events, [{ type: 'BOOKMARK', object: { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: rv(1) } } }]);
    assert.deepEqual(nb.events, []);
    clock.step(39_999);
    await flushAsync();
    assert.deepEqual(w.closes, []);
    clock.step(1);
    await flushAsync();
    assert.deepEqual(w.closes, [undefined]);
    const err = new Error('connection reset');
    fake.closeWatches(err);
    await flushAsync();
    assert.deepEqual(nb.closes, [err]);
    assert.equal(fake.activeWatches(), 0);
  });
});
