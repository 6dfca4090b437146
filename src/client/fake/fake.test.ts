import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Deployment, ObjectMeta, Pod } from '../../api/index.js';
import { isAlreadyExists, isConflict, isNotFound, newInternalError, StatusError } from '../../machinery/errors/index.js';
import { FakeClock, flushAsync } from '../../util/clock/index.js';
import { SeededRand } from '../../util/random/index.js';
import { newClientset, type WatchEvent } from '../index.js';
import { FakeTransport } from './index.js';

function setup(): { fake: FakeTransport; clock: FakeClock; cs: ReturnType<typeof newClientset> } {
  const clock = new FakeClock(Date.UTC(2025, 0, 1));
  const fake = new FakeTransport({ clock, rand: new SeededRand(7) });
  return { fake, clock, cs: newClientset(fake) };
}

function pod(name: string, extra: Partial<Pod> = {}, labels: Record<string, string> = {}): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', labels }, spec: { containers: [{ name: 'c', image: 'i' }] }, ...extra };
}

function deployment(name: string, replicas = 2): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'ns' },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } } } },
  };
}

describe('FakeTransport writes', () => {
  test('create assigns server fields, generateName suffixes, and rejects duplicates; results are frozen copies', async () => {
    const { cs, fake } = setup();
    const body = pod('', {}, {});
    (body.metadata as { generateName?: string; name?: string }).name = undefined;
    (body.metadata as { generateName?: string }).generateName = 'web-';
    const created = await cs.core.pods('ns').create(body);
    const m = created.metadata!;
    assert.match(m.name ?? '', /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    assert.match(m.uid ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(m.creationTimestamp, '2025-01-01T00:00:00Z');
    assert.equal(m.resourceVersion, '1');
    assert.equal(m.generation, 1);
    assert.ok(Object.isFrozen(created) && Object.isFrozen(created.spec));
    assert.equal(body.metadata?.uid, undefined, 'the body is not mutated');
    await cs.core.pods('ns').create(pod('p'));
    await assert.rejects(cs.core.pods('ns').create(pod('p')), isAlreadyExists);
    assert.equal(fake.resourceVersion(), '2');
  });

  test('update: resourceVersion CAS, generation on spec change, status kept; updateStatus changes only status', async () => {
    const { cs } = setup();
    const d = await cs.apps.deployments('ns').create(deployment('web'));
    const withStatus = await cs.apps.deployments('ns').updateStatus({ ...d, status: { replicas: 2 }, spec: { ...d.spec!, replicas: 9 } });
    assert.equal(withStatus.status?.replicas, 2);
    assert.equal(withStatus.spec?.replicas, 2, 'status update ignores spec');
    assert.equal(withStatus.metadata?.generation, 1);

    await assert.rejects(cs.apps.deployments('ns').update({ ...d, spec: { ...d.spec!, replicas: 3 } }), isConflict);
    const scaled = await cs.apps.deployments('ns').update({ ...withStatus, spec: { ...withStatus.spec, replicas: 3 }, status: {} });
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

  test('patch: merge and json patch, on the object and the status; resourceVersion in the patch is a precondition', async () => {
    const { cs } = setup();
    await cs.core.pods('ns').create(pod('p'));
    const merged = await cs.core.pods('ns').patch('p', 'application/merge-patch+json', { metadata: { labels: { x: '1' } }, status: { phase: 'Running' } });
    assert.equal(merged.metadata?.labels?.x, '1');
    assert.equal(merged.status, undefined, 'status is ignored on the main resource');
    const st = await cs.core.pods('ns').patch('p', 'application/merge-patch+json', { status: { phase: 'Running' } }, { subresource: 'status' });
    assert.equal(st.status?.phase, 'Running');
    const jp = await cs.core.pods('ns').patch('p', 'application/json-patch+json', [{ op: 'add', path: '/metadata/labels/y', value: '2' }]);
    assert.deepEqual(jp.metadata?.labels, { x: '1', y: '2' });
    await assert.rejects(cs.core.pods('ns').patch('p', 'application/merge-patch+json', { metadata: { resourceVersion: '1' } }), isConflict);
    await assert.rejects(cs.core.pods('ns').patch('nope', 'application/merge-patch+json', {}), isNotFound);
    await assert.rejects(cs.core.pods('ns').patch('p', 'application/apply-patch+yaml', {}), (e) => e instanceof StatusError && e.code === 400);
  });

  test('patch: strategic merge merges containers by name; patch failures keep their status code', async () => {
    const { cs } = setup();
    await cs.core.pods('ns').create(pod('p', { spec: { containers: [{ name: 'c', image: 'i' }, { name: 'd', image: 'i' }] } }));
    const sm = await cs.core.pods('ns').patch('p', 'application/strategic-merge-patch+json', { spec: { containers: [{ name: 'c', image: 'j' }] } });
    assert.deepEqual(sm.spec?.containers, [
      { name: 'c', image: 'j' },
      { name: 'd', image: 'i' },
    ]);
    await assert.rejects(
      cs.core.pods('ns').patch('p', 'application/json-patch+json', [{ op: 'test', path: '/spec/nodeName', value: 'x' }]),
      (e) => e instanceof StatusError && e.code === 422,
    );
  });

  test('delete: immediate without finalizers (pods return the pod); finalizers defer it; preconditions', async () => {
    const { cs } = setup();
    const p = await cs.core.pods('ns').create(pod('p'));
    await assert.rejects(cs.core.pods('ns').delete('p', { preconditions: { uid: 'other' } }), isConflict);
    const gone = (await cs.core.pods('ns').delete('p')) as Pod;
    assert.equal(gone.metadata?.uid, p.metadata?.uid);
    await assert.rejects(cs.core.pods('ns').get('p'), isNotFound);

    const d = await cs.apps.deployments('ns').create({ ...deployment('d'), metadata: { name: 'd', finalizers: ['x/y'] } });
    const deleting = (await cs.apps.deployments('ns').delete('d')) as Deployment;
    assert.equal(deleting.metadata?.deletionTimestamp, '2025-01-01T00:00:00Z');
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

  test('scale subresource and pods/binding', async () => {
    const { cs } = setup();
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
    await cs.core.pods('ns').createSubresource('p', 'binding', { target: { kind: 'Node', name: 'n1' } });
    const bound = await cs.core.pods('ns').get('p');
    assert.equal(bound.spec?.nodeName, 'n1');
    assert.equal(bound.status?.conditions?.[0]?.type, 'PodScheduled');
    await assert.rejects(cs.core.pods('ns').createSubresource('p', 'binding', { target: { name: 'n2' } }), isConflict);
  });
});

describe('FakeTransport reads', () => {
  test('list: namespace, label and field selectors, sorted pages with continue', async () => {
    const { cs, fake } = setup();
    fake.seed([
      pod('b', { spec: { containers: [], nodeName: 'n1' } }, { app: 'web' }),
      pod('a', { spec: { containers: [], nodeName: 'n2' } }, { app: 'web' }),
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
    assert.equal(page1.metadata.resourceVersion, '4');
    assert.equal(page1.kind, 'PodList');
    await cs.core.pods('other').create(pod('zz'));
    const page2 = await cs.core.pods().list({ limit: 2, continue: page1.metadata.continue });
    assert.deepEqual(names(page2), ['c', 'zz']);
    assert.equal(page2.metadata.resourceVersion, '4', 'the token keeps the list resourceVersion');
    assert.equal(page2.metadata.continue, undefined);
    await assert.rejects(cs.core.pods().list({ labelSelector: 'a in (' }), (e) => e instanceof StatusError && e.code === 400);
  });

  test('reactors inject faults; actions record every request', async () => {
    const { cs, fake } = setup();
    fake.prependReactor('create', 'pods', () => ({ handled: true, error: newInternalError('boom') }));
    fake.prependReactor('get', 'pods/status', () => ({ handled: true, result: { fake: true } }));
    fake.prependReactor('*', '*', () => ({ handled: false }));
    await assert.rejects(cs.core.pods('ns').create(pod('p')), /boom/);
    await assert.rejects(cs.core.pods('ns').get('p'), isNotFound, 'pods/status reactor does not match the main resource');
    assert.deepEqual(
      fake.actions.map((a) => `${a.verb} ${a.resource}`),
      ['create pods', 'get pods'],
    );
    fake.clearActions();
    assert.equal(fake.actions.length, 0);
  });
});

describe('FakeTransport watch', () => {
  async function collect(fake: FakeTransport, query: Record<string, string>, ns?: string) {
    const events: WatchEvent<Pod>[] = [];
    const closes: unknown[] = [];
    const stream = newClientset(fake)
      .core.pods(ns)
      .watch(
        {
          resourceVersion: query.resourceVersion,
          labelSelector: query.labelSelector,
          timeoutSeconds: query.timeoutSeconds ? Number(query.timeoutSeconds) : undefined,
          allowWatchBookmarks: query.allowWatchBookmarks === 'true',
        },
        (ev) => events.push(ev),
        (err) => closes.push(err),
      );
    await flushAsync();
    return { events, closes, stream };
  }
  const summary = (evs: WatchEvent<Pod>[]): string[] => evs.map((e) => `${e.type} ${e.object.metadata?.name ?? ''}@${e.object.metadata?.resourceVersion ?? ''}`);

  test('resourceVersion 0 starts with ADDED for the current state, then live changes', async () => {
    const { fake, cs } = setup();
    await cs.core.pods('ns').create(pod('a'));
    const w = await collect(fake, { resourceVersion: '0' });
    await cs.core.pods('ns').patch('a', 'application/merge-patch+json', { metadata: { labels: { x: 'y' } } });
    await cs.core.pods('ns').delete('a');
    await flushAsync();
    assert.deepEqual(summary(w.events), ['ADDED a@1', 'MODIFIED a@2', 'DELETED a@3']);
    w.stream.stop();
    w.stream.stop();
    assert.deepEqual(w.closes, [undefined]);
    await cs.core.pods('ns').create(pod('b'));
    await flushAsync();
    assert.equal(w.events.length, 3, 'no events after stop');
  });

  test('from resourceVersion N replays later changes; compacted history gives ERROR 410', async () => {
    const { fake, cs } = setup();
    await cs.core.pods('ns').create(pod('a'));
    await cs.core.pods('ns').create(pod('b'));
    await cs.core.nodes().create({ metadata: { name: 'n' } });
    const w = await collect(fake, { resourceVersion: '1' });
    assert.deepEqual(summary(w.events), ['ADDED b@2']);
    w.stream.stop();

    fake.compact();
    const old = await collect(fake, { resourceVersion: '2' });
    assert.equal(old.events[0]?.type, 'ERROR');
    assert.equal((old.events[0]?.object as unknown as { code: number }).code, 410);
    assert.deepEqual(old.closes, [undefined]);
    const current = await collect(fake, { resourceVersion: '3' });
    assert.deepEqual(current.events, []);
    assert.equal(fake.activeWatches(), 1);
  });

  test('label selection: changes into and out of the selection become ADDED and DELETED', async () => {
    const { fake, cs } = setup();
    await cs.core.pods('ns').create(pod('a', {}, { app: 'web' }));
    const w = await collect(fake, { resourceVersion: '1', labelSelector: 'app=web' });
    await cs.core.pods('ns').patch('a', 'application/merge-patch+json', { metadata: { labels: { app: 'db' } } });
    await cs.core.pods('ns').patch('a', 'application/merge-patch+json', { metadata: { labels: { tier: 'x' } } });
    await cs.core.pods('ns').patch('a', 'application/merge-patch+json', { metadata: { labels: { app: 'web' } } });
    await flushAsync();
    assert.deepEqual(summary(w.events), ['DELETED a@2', 'ADDED a@4']);
  });

  test('timeoutSeconds ends the watch on the clock; closeWatches ends it with an error; bookmarks', async () => {
    const { fake, clock } = setup();
    const w = await collect(fake, { resourceVersion: '0', timeoutSeconds: '10', allowWatchBookmarks: 'true' });
    const nb = await collect(fake, { resourceVersion: '0' });
    fake.seed([{ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' } }]);
    fake.sendBookmarks();
    await flushAsync();
    assert.deepEqual(w.events, [{ type: 'BOOKMARK', object: { kind: 'Pod', apiVersion: 'v1', metadata: { resourceVersion: '1' } } }]);
    assert.deepEqual(nb.events, []);
    clock.step(9999);
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
