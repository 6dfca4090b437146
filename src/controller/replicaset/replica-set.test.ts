import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, Pod, ReplicaSet, ReplicationController } from '../../api/index.js';
import { newClientset } from '../../client/index.js';
import { newFakeTransport } from '../../testing/index.js';
import { newSharedInformerFactory } from '../../informers/index.js';
import { FakeClock, formatTime } from '../../util/clock/index.js';
import { EventRecorder } from '../../client/record/index.js';
import { silentLogger } from '../../util/runtime/index.js';
import { FakePodControl } from '../pod-control.js';
import { ReplicaSetController } from './replica-set-controller.js';
import { calculateStatus, countEach, getPodsToDelete } from './replica-set-utils.js';
import { REPLICATION_CONTROLLER } from './replicated-kind.js';

const T0 = Date.UTC(2025, 0, 1);

function newRS(name: string, replicas: number, extra: { minReadySeconds?: number; owner?: string } = {}): ReplicaSet {
  const rs: ReplicaSet = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name, namespace: 'ns', uid: `${name}-uid`, generation: 1, labels: { app: 'web' } },
    spec: {
      replicas,
      minReadySeconds: extra.minReadySeconds ?? 0,
      selector: { matchLabels: { app: 'web', rs: name } },
      template: { metadata: { labels: { app: 'web', rs: name } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
    },
  };
  if (extra.owner) rs.metadata = { ...rs.metadata, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: extra.owner, controller: true }] };
  return rs;
}

/** A pod of `rs`; ready since `readyAgoS` seconds before `now` unless undefined. */
function newPod(name: string, rs: ReplicaSet | undefined, o: { readyAgoS?: number; node?: string; labels?: Record<string, string>; now?: number } = {}): Pod {
  const now = o.now ?? T0;
  const p: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'ns',
      uid: `${name}-uid`,
      resourceVersion: '1',
      creationTimestamp: formatTime(now - 3600_000),
      labels: o.labels ?? rs?.spec?.template?.metadata?.labels ?? {},
    },
    spec: { containers: [{ name: 'c', image: 'i' }], nodeName: o.node ?? 'n1' },
    status: {
      phase: 'Running',
      conditions: [o.readyAgoS === undefined ? { type: 'Ready', status: 'False' } : { type: 'Ready', status: 'True', lastTransitionTime: formatTime(now - o.readyAgoS * 1000) }],
    },
  };
  if (rs) p.metadata = { ...p.metadata, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs.metadata?.name ?? '', uid: rs.metadata?.uid ?? '', controller: true }] };
  return p;
}

/** `p` as a client sends it to create: the server assigns the resourceVersion (a set one is a 400). */
function forCreate(p: Pod): Pod {
  const metadata = { ...p.metadata };
  delete metadata.resourceVersion;
  return { ...p, metadata };
}

async function setup(objs: { rss?: ReplicaSet[]; pods?: Pod[]; burstReplicas?: number } = {}) {
  const clock = new FakeClock(T0);
  const transport = await newFakeTransport({ clock, objects: [...(objs.rss ?? [])] as KubeObject[], namespaces: ['ns'] });
  const client = newClientset(transport);
  const informers = newSharedInformerFactory(client, { clock });
  const podControl = new FakePodControl();
  const recorder = new EventRecorder(client, { component: 'replicaset-controller', clock, logger: silentLogger });
  const rsc = new ReplicaSetController({ client, informers, clock, podControl, recorder, logger: silentLogger, burstReplicas: objs.burstReplicas });
  // Seed the caches directly, as upstream's tests write into the informers' indexers.
  for (const rs of objs.rss ?? []) informers.apps.replicaSets().getIndexer().add(rs);
  for (const p of objs.pods ?? []) informers.core.pods().getIndexer().add(p);
  const statusOf = async (name: string) => (await client.apps.replicaSets('ns').get(name)).status;
  return { clock, transport, client, informers, podControl, rsc, statusOf, podIndexer: informers.core.pods().getIndexer() };
}

describe('calculateStatus', () => {
  test('counts replicas, fully labeled, ready and available (minReadySeconds)', () => {
    const rs = newRS('a', 3, { minReadySeconds: 10 });
    const pods = [
      newPod('p1', rs, { readyAgoS: 20 }),
      newPod('p2', rs, { readyAgoS: 5 }),
      newPod('p3', rs, { labels: { app: 'web' } }),
    ];
    const s = calculateStatus(rs, countEach(pods), undefined, T0);
    assert.deepEqual([s.replicas, s.fullyLabeledReplicas, s.readyReplicas, s.availableReplicas], [3, 2, 2, 1]);
    assert.equal(calculateStatus(rs, countEach(pods), undefined, T0 + 6000).availableReplicas, 2);
    assert.equal(calculateStatus({ ...rs, spec: { ...rs.spec!, minReadySeconds: 0 } }, countEach(pods), undefined, T0).availableReplicas, 2);
  });

  test('ReplicaFailure: FailedCreate / FailedDelete on error, removed after a clean sync', () => {
    const rs = newRS('a', 3);
    const short = calculateStatus(rs, countEach([newPod('p1', rs)]), new Error('quota exceeded'), T0);
    assert.deepEqual(short.conditions, [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: 'quota exceeded', lastTransitionTime: '2025-01-01T00:00:00Z' }]);
    const many = calculateStatus(newRS('a', 0), countEach([newPod('p1', rs)]), new Error('x'), T0);
    assert.equal(many.conditions?.[0]?.reason, 'FailedDelete');
    const failed = { ...rs, status: short };
    assert.deepEqual(calculateStatus(failed, countEach([newPod('p1', rs)]), new Error('again'), T0).conditions, short.conditions, 'kept, not replaced');
    assert.equal(calculateStatus(failed, countEach([newPod('p1', rs)]), undefined, T0).conditions, undefined);
  });
});

describe('getPodsToDelete', () => {
  test('deletes all without ranking when diff covers them', () => {
    const rs = newRS('a', 0);
    const pods = [newPod('p1', rs), newPod('p2', rs)];
    assert.deepEqual(getPodsToDelete(pods, [], 2, T0), pods);
  });

  test('ranks by readiness, then by related pods on the same node', () => {
    const rs = newRS('a', 0);
    const sibling = newRS('b', 0);
    const pods = [newPod('ready-n1', rs, { readyAgoS: 100, node: 'n1' }), newPod('ready-n2', rs, { readyAgoS: 100, node: 'n2' }), newPod('unready', rs, { node: 'n1' })];
    const related = [...pods, newPod('s1', sibling, { node: 'n2' }), newPod('s2', sibling, { node: 'n2' })];
    assert.deepEqual(getPodsToDelete(pods, related, 2, T0).map((p) => p.metadata?.name), ['unready', 'ready-n2']);
  });
});

/** The counters of a ReplicaSet status. */
function pick(s: ReplicaSet['status']): Record<string, number | undefined> {
  return { replicas: s?.replicas, fullyLabeledReplicas: s?.fullyLabeledReplicas, readyReplicas: s?.readyReplicas, availableReplicas: s?.availableReplicas };
}

describe('syncReplicaSet', () => {
  test('creates the missing pods, raises expectations, writes status', async () => {
    const rs = newRS('a', 5);
    const { rsc, podControl, statusOf } = await setup({ rss: [rs], pods: [newPod('p1', rs), newPod('p2', rs)] });
    await rsc.syncHandler('ns/a');
    assert.equal(podControl.templates.length, 3);
    assert.deepEqual(podControl.controllerRefs[0], { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'a', uid: 'a-uid', controller: true, blockOwnerDeletion: true });
    assert.equal(rsc.expectations.satisfiedExpectations('ns/a'), false);
    const status = await statusOf('a');
    assert.deepEqual([status?.replicas, status?.observedGeneration], [2, 1]);
    // Until the creations are observed, a second sync does not act again.
    await rsc.syncHandler('ns/a');
    assert.equal(podControl.templates.length, 3);
  });

  test('creates at most burstReplicas per sync', async () => {
    const { rsc, podControl } = await setup({ rss: [newRS('a', 10)], burstReplicas: 3 });
    await rsc.syncHandler('ns/a');
    assert.equal(podControl.templates.length, 3);
  });

  test('slow start stops at the first failing batch and lowers expectations for the skipped pods', async () => {
    const { rsc, podControl, statusOf } = await setup({ rss: [newRS('a', 10)] });
    podControl.createLimit = 3;
    await assert.rejects(rsc.syncHandler('ns/a'), /limit 3 already reached/);
    // batches 1, 2, 4: the third batch fails, the last 3 pods are never attempted
    assert.deepEqual([podControl.createCallCount, podControl.templates.length], [7, 3]);
    assert.deepEqual({ ...rsc.expectations.getExpectations('ns/a'), timestamp: 0 }, { add: 3, del: 0, timestamp: 0 });
    const status = await statusOf('a');
    assert.equal(status?.conditions?.[0]?.reason, 'FailedCreate');
  });

  test('deletes the surplus, not-ready pods first, tracking their keys', async () => {
    const rs = newRS('a', 2);
    const pods = [newPod('r1', rs, { readyAgoS: 50 }), newPod('u1', rs), newPod('r2', rs, { readyAgoS: 50 }), newPod('u2', rs)];
    const { rsc, podControl } = await setup({ rss: [rs], pods });
    await rsc.syncHandler('ns/a');
    assert.deepEqual(podControl.deletePodNames.sort(), ['u1', 'u2']);
    assert.deepEqual([...(rsc.expectations.getUIDs('ns/a') ?? [])].sort(), ['ns/u1', 'ns/u2']);
  });

  test('requeues for the moment the next ready pod becomes available (+1 s)', async () => {
    const rs = newRS('a', 3, { minReadySeconds: 30 });
    const pods = [newPod('p1', rs, { readyAgoS: 1 }), newPod('p2', rs, { readyAgoS: 10 }), newPod('p3', rs, { readyAgoS: 40 })];
    const { rsc } = await setup({ rss: [rs], pods });
    // p3 is available already; p2 becomes available 30 − 10 = 20 s from now.
    assert.deepEqual(await rsc.syncHandler('ns/a'), { requeueAfter: 21_000 });
  });

  test('adopts a matching orphan instead of creating a pod', async () => {
    const rs = newRS('a', 1);
    const { rsc, podControl } = await setup({ rss: [rs], pods: [newPod('orphan', undefined, { labels: { app: 'web', rs: 'a' } })] });
    await rsc.syncHandler('ns/a');
    assert.equal(podControl.templates.length, 0);
    assert.equal(podControl.patches.length, 1);
  });

  test('releases an owned pod whose labels no longer match, and counts it no more', async () => {
    const rs = newRS('a', 2);
    const kept = newPod('kept', rs, { readyAgoS: 5 });
    const moved = newPod('moved', rs, { readyAgoS: 5, labels: { app: 'other' } });
    const { rsc, podControl, statusOf } = await setup({ rss: [rs], pods: [kept, moved] });
    await rsc.syncHandler('ns/a');
    assert.equal(podControl.patches.length, 1, 'the release patch');
    const status = await statusOf('a');
    assert.deepEqual([status?.replicas, status?.readyReplicas, status?.fullyLabeledReplicas], [1, 1, 1]);
    assert.equal(podControl.templates.length, 1, 'a replacement for the released pod');
  });

  test('status from the pod summary equals a count over the pods as they change', async () => {
    const rs = newRS('a', 3, { minReadySeconds: 10 });
    const pods = [newPod('p1', rs, { readyAgoS: 20 }), newPod('p2', rs, { readyAgoS: 5 }), newPod('p3', rs)];
    const { rsc, statusOf, podIndexer } = await setup({ rss: [rs], pods });
    await rsc.syncHandler('ns/a');
    assert.deepEqual(pick(await statusOf('a')), { replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 2, availableReplicas: 1 });
    // p3 has been ready for a minute, p1 failed (no longer active), p2 is no longer ready.
    podIndexer.update(newPod('p3', rs, { readyAgoS: 60 }));
    podIndexer.update({ ...newPod('p1', rs, { readyAgoS: 20 }), status: { phase: 'Failed' } });
    podIndexer.update(newPod('p2', rs));
    rsc.expectations.deleteExpectations('ns/a');
    await rsc.syncHandler('ns/a');
    assert.deepEqual(pick(await statusOf('a')), { replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 1, availableReplicas: 1 });
  });

  test('a deleted ReplicaSet clears its expectations', async () => {
    const { rsc } = await setup();
    rsc.expectations.expectCreations('ns/gone', 3);
    await rsc.syncHandler('ns/gone');
    assert.equal(rsc.expectations.getExpectations('ns/gone'), undefined);
  });
});

describe('event handlers', () => {
  test('pod add lowers the owner expectations; orphans enqueue matching ReplicaSets', async () => {
    const rs = newRS('a', 1);
    const clock = new FakeClock(T0);
    const transport = await newFakeTransport({ clock, objects: [rs] as KubeObject[] });
    const client = newClientset(transport);
    const informers = newSharedInformerFactory(client, { clock });
    const rsc = new ReplicaSetController({ client, informers, clock, podControl: new FakePodControl(), logger: silentLogger });
    informers.start();
    await informers.waitForCacheSync();
    while (rsc.queue.len() > 0) {
      const next = await rsc.queue.get();
      if (!next.shutdown) rsc.queue.done(next.item);
    }
    rsc.expectations.expectCreations('ns/a', 1);
    await client.core.pods('ns').create(forCreate(newPod('p', rs)));
    await clock.stepAsync(0);
    assert.equal(rsc.expectations.satisfiedExpectations('ns/a'), true);
    assert.equal(rsc.queue.len(), 1);
    const next = await rsc.queue.get();
    if (!next.shutdown) rsc.queue.done(next.item);
    await client.core.pods('ns').create(forCreate(newPod('orphan', undefined, { labels: { app: 'web', rs: 'a' } })));
    await clock.stepAsync(0);
    assert.equal(rsc.queue.len(), 1);
    informers.shutdown();
  });
});

describe('ReplicationControllers through the same controller (pkg/controller/replication)', () => {
  /** A v1 ReplicationController of `replicas` selecting `{app: web, rc: name}` with a set, not a LabelSelector. */
  function newRC(name: string, replicas: number): ReplicationController {
    return {
      apiVersion: 'v1',
      kind: 'ReplicationController',
      metadata: { name, namespace: 'ns', uid: `${name}-uid`, generation: 1 },
      spec: { replicas, selector: { app: 'web', rc: name }, template: { metadata: { labels: { app: 'web', rc: name } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
    };
  }

  async function setupRC(rcs: ReplicationController[], pods: Pod[] = []) {
    const clock = new FakeClock(T0);
    const transport = await newFakeTransport({ clock, objects: rcs, namespaces: ['ns'] });
    const client = newClientset(transport);
    const informers = newSharedInformerFactory(client, { clock });
    const podControl = new FakePodControl();
    const rmc = new ReplicaSetController({ client, informers, clock, podControl, kind: REPLICATION_CONTROLLER, logger: silentLogger });
    for (const rc of rcs) informers.core.replicationControllers().getIndexer().add(rc);
    for (const p of pods) informers.core.pods().getIndexer().add(p);
    return { client, informers, podControl, rmc };
  }

  test('creates the missing pods owned by the ReplicationController and writes its status', async () => {
    const rc = newRC('a', 3);
    const owned = { ...newPod('p1', undefined, { labels: { app: 'web', rc: 'a' }, readyAgoS: 10 }) };
    owned.metadata = { ...owned.metadata, ownerReferences: [{ apiVersion: 'v1', kind: 'ReplicationController', name: 'a', uid: 'a-uid', controller: true }] };
    const { rmc, podControl, client } = await setupRC([rc], [owned]);
    await rmc.syncHandler('ns/a');
    assert.equal(podControl.templates.length, 2);
    assert.deepEqual(podControl.controllerRefs[0], { apiVersion: 'v1', kind: 'ReplicationController', name: 'a', uid: 'a-uid', controller: true, blockOwnerDeletion: true });
    const status = (await client.core.replicationControllers('ns').get('a')).status;
    assert.deepEqual([status?.replicas, status?.fullyLabeledReplicas, status?.readyReplicas, status?.availableReplicas, status?.observedGeneration], [1, 1, 1, 1, 1]);
  });

  test('its label-set selector adopts matching orphans and ignores others; a ReplicaSet\'s pod is not its', async () => {
    const rc = newRC('a', 1);
    const rs = newRS('b', 1);
    const pods = [newPod('orphan', undefined, { labels: { app: 'web', rc: 'a' } }), newPod('other', undefined, { labels: { app: 'web' } }), newPod('of-rs', rs, { labels: { app: 'web', rc: 'a' } })];
    const { rmc, podControl } = await setupRC([rc], pods);
    await rmc.syncHandler('ns/a');
    assert.equal(podControl.templates.length, 0);
    assert.equal(podControl.patches.length, 1, 'adopts the orphan only');
  });

  test('an RC without a selector selects nothing', () => {
    const rc = newRC('a', 1);
    delete (rc.spec as { selector?: unknown }).selector;
    assert.equal(REPLICATION_CONTROLLER.selector(rc as unknown as ReplicaSet), undefined);
  });
});
