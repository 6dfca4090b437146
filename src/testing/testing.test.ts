import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, Pod } from '../api/index.js';
import { versionView } from '../apiserver/registry/strategy.js';
import { newClientset, type WatchEvent } from '../client/index.js';
import { isResourceExpired } from '../machinery/errors/index.js';
import { FakeClock, flushAsync } from '../util/clock/index.js';
import { SeededRand } from '../util/random/index.js';
import { newFakeServer } from './index.js';

const T0 = Date.UTC(2025, 0, 1);

const boundPod = (name: string, ns = 'ns'): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns, labels: { app: 'web' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'rs-uid', controller: true }] },
  spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }] },
  status: { phase: 'Running', podIP: '10.0.0.1', conditions: [{ type: 'Ready', status: 'True' }] },
});

async function setup() {
  const clock = new FakeClock(T0);
  const { server, transport } = await newFakeServer({ clock, rand: new SeededRand(3) });
  return { clock, server, fake: transport, cs: newClientset(transport) };
}

/** Watches pods from `resourceVersion`, collecting `TYPE name` lines and close errors. */
function watchPods(cs: ReturnType<typeof newClientset>, resourceVersion: string) {
  const events: string[] = [];
  const closes: unknown[] = [];
  const onEvent = (ev: WatchEvent<Pod>): number => events.push(`${ev.type} ${ev.object.metadata?.name ?? ''}`);
  const stream = cs.core.pods().watch({ resourceVersion }, onEvent, (err) => closes.push(err));
  return { events, closes, stream };
}

describe('newFakeServer seeding', { timeout: 60_000 }, () => {
  test('seeded objects are stored as given, with what every stored object has filled in, in a namespace that is created', async () => {
    const { fake, cs } = await setup();
    await fake.seed([boundPod('p')]);
    const p = await cs.core.pods('ns').get('p');
    assert.deepEqual(p.status, boundPod('p').status, 'status is kept (a create would reset it)');
    assert.equal(p.spec?.nodeName, 'n1');
    assert.deepEqual(p.metadata?.ownerReferences, boundPod('p').metadata?.ownerReferences);
    assert.equal(p.metadata?.creationTimestamp, '2025-01-01T00:00:00Z');
    assert.match(p.metadata?.uid ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(p.metadata?.generation, 1);
    assert.equal(p.spec?.restartPolicy, 'Always', 'defaults fill absent fields');
    assert.equal((await cs.core.namespaces().get('ns')).status?.phase, 'Active');
    assert.equal((await cs.core.pods().list({ resourceVersion: '0' })).items.length, 1, 'the caches saw it when seed resolved');
  });

  test('watchers see seeded objects as ADDED, replaced ones as MODIFIED', async () => {
    const { fake, cs } = await setup();
    const w = watchPods(cs, fake.resourceVersion());
    await fake.seed([boundPod('p')]);
    const succeeded: Pod = { ...boundPod('p'), status: { phase: 'Succeeded' } };
    await fake.seed([succeeded]);
    await flushAsync();
    assert.deepEqual(w.events, ['ADDED p', 'MODIFIED p']);
    assert.equal((await cs.core.pods('ns').get('p')).status?.phase, 'Succeeded');
    w.stream.stop();
  });

  test('an object in a version served as a view of another is stored converted to the stored version', async () => {
    const { server, fake, cs } = await setup();
    const base = server.resources().find((s) => s.info.group === '' && s.info.resource === 'configmaps')!;
    /** Moves the top-level field `from` to `to`. */
    const rename = (from: string, to: string) => (obj: KubeObject): KubeObject => {
      const { [from]: value, ...rest } = obj;
      return { ...rest, [to]: value };
    };
    await server.addResource(versionView(base, { ...base.info, version: 'v2' }, { toStorage: rename('values', 'data'), fromStorage: rename('data', 'values') }));
    const inV2: KubeObject = { apiVersion: 'v2', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' }, values: { a: '1' } };
    await fake.seed([inV2]);
    const stored = await cs.core.configMaps('ns').get('c');
    assert.deepEqual([stored.apiVersion, stored.data], ['v1', { a: '1' }]);
  });

  test('a kind the server does not serve, or a namespaced object without a namespace, is refused', async () => {
    const { fake } = await setup();
    await assert.rejects(fake.seed([{ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } }]), /example.com\/v1 Widget is not served/);
    await assert.rejects(fake.seed([{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } }]), /Pod p has no metadata.namespace/);
  });
});

describe('newFakeServer history and watches', { timeout: 60_000 }, () => {
  test('compact: a watch from an older resourceVersion gets 410 Expired, one from now runs', async () => {
    const { fake, cs } = await setup();
    const before = fake.resourceVersion();
    await fake.seed([boundPod('a'), boundPod('b')]);
    await fake.compact();
    const old = watchPods(cs, before);
    const current = watchPods(cs, fake.resourceVersion());
    await flushAsync();
    assert.ok(isResourceExpired(old.closes[0]), String(old.closes[0]));
    assert.deepEqual([current.events, current.closes], [[], []]);
    assert.equal(fake.activeWatches(), 1);
    current.stream.stop();
  });

  test('resourceVersion is the one lists are read at; closeWatches drops real watches', async () => {
    const { fake, cs } = await setup();
    await fake.seed([boundPod('a')]);
    assert.equal((await cs.core.pods().list()).metadata.resourceVersion, fake.resourceVersion());
    const w = watchPods(cs, fake.resourceVersion());
    await flushAsync();
    const reset = new Error('connection reset');
    fake.closeWatches(reset);
    await cs.core.pods('ns').delete('a', { gracePeriodSeconds: 0 });
    await flushAsync();
    assert.deepEqual([w.events, w.closes], [[], [reset]]);
    assert.equal(fake.activeWatches(), 0);
  });
});
