/**
 * StatefulSet controller tests: the real API server behind the fake transport, the FakeClock, and a
 * minimal kubelet (bind to node-1, mark Running and Ready, finish graceful deletions). Scenarios
 * follow upstream's stateful_set_control_test.go (CreatesPods, ScalesUp/Down, ReplacesPods,
 * RecreatesFailedPod/SucceededPod, UpdateStatefulSet with partition and OnDelete, MaxUnavailable,
 * Rollback, collision handling, PVC retention) and stateful_set_test.go (adoption, release, orphan
 * handling).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ControllerRevision, KubeObject, Node, PersistentVolumeClaim, Pod, StatefulSet } from '../../api/index.js';
import { newClientset } from '../../client/index.js';
import { EventRecorder } from '../../client/record/index.js';
import { newSharedInformerFactory } from '../../informers/index.js';
import { FakeClock, flushAsync, formatTime } from '../../util/clock/index.js';
import { SeededRand } from '../../util/random/index.js';
import { silentLogger } from '../../util/runtime/index.js';
import { newFakeTransport } from '../../testing/index.js';
import { processNextWorkItem } from '../../workqueue/index.js';
import { StatefulSetController } from './stateful-set.js';

const T0 = Date.UTC(2025, 0, 1);
const NODE: Node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1', labels: { 'kubernetes.io/hostname': 'node-1' } }, spec: {} };

type SetOpts = {
  replicas?: number;
  parallel?: boolean;
  minReadySeconds?: number;
  start?: number;
  strategy?: NonNullable<StatefulSet['spec']>['updateStrategy'];
  retention?: { whenDeleted?: string; whenScaled?: string };
  revisionHistoryLimit?: number;
  claims?: boolean;
};

function newStatefulSet(o: SetOpts = {}): StatefulSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'web', namespace: 'ns', annotations: { 'kubernetes.io/change-cause': 'first' } },
    spec: {
      replicas: o.replicas ?? 3,
      serviceName: 'nginx',
      selector: { matchLabels: { app: 'nginx' } },
      template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image: 'v1' }] } },
      ...(o.claims === false
        ? {}
        : { volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }] }),
      ...(o.parallel ? { podManagementPolicy: 'Parallel' } : {}),
      ...(o.minReadySeconds ? { minReadySeconds: o.minReadySeconds } : {}),
      ...(o.start !== undefined ? { ordinals: { start: o.start } } : {}),
      ...(o.strategy ? { updateStrategy: o.strategy } : {}),
      ...(o.retention ? { persistentVolumeClaimRetentionPolicy: o.retention } : {}),
      ...(o.revisionHistoryLimit !== undefined ? { revisionHistoryLimit: o.revisionHistoryLimit } : {}),
    },
  };
}

const isReady = (p: Pod): boolean => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
const byOrdinal = (a: Pod, b: Pod): number => Number(/-(\d+)$/.exec(a.metadata?.name ?? '')?.[1]) - Number(/-(\d+)$/.exec(b.metadata?.name ?? '')?.[1]);

async function cluster(set: StatefulSet = newStatefulSet(), opts: { maxUnavailableStatefulSet?: boolean; objects?: KubeObject[] } = {}) {
  const clock = new FakeClock(T0);
  const transport = await newFakeTransport({ clock, objects: [NODE, set, ...(opts.objects ?? [])] as KubeObject[], rand: new SeededRand(7) });
  const client = newClientset(transport);
  const informers = newSharedInformerFactory(client, { clock, rand: new SeededRand(3) });
  const recorder = new EventRecorder(client, { component: 'statefulset-controller', clock, logger: silentLogger });
  const ssc = new StatefulSetController({ client, informers, clock, recorder, logger: silentLogger, maxUnavailableStatefulSet: opts.maxUnavailableStatefulSet ?? false });
  informers.start();
  await informers.waitForCacheSync();
  const podsClient = client.core.pods('ns');
  const pods = async (): Promise<Pod[]> => [...(await podsClient.list()).items].sort(byOrdinal);
  const names = async (): Promise<string[]> => (await pods()).map((p) => p.metadata?.name ?? '');
  const live = async (): Promise<string[]> => (await pods()).filter((p) => !p.metadata?.deletionTimestamp).map((p) => p.metadata?.name ?? '');
  const claims = async (): Promise<PersistentVolumeClaim[]> => [...(await client.core.persistentVolumeClaims('ns').list()).items];
  const revisions = async (): Promise<ControllerRevision[]> => [...(await client.apps.controllerRevisions('ns').list()).items].sort((a, b) => a.revision - b.revision);
  const getSet = (): Promise<StatefulSet> => client.apps.statefulSets('ns').get('web');

  /** One queued sync (if any). */
  async function syncOnce(): Promise<void> {
    await flushAsync();
    if (ssc.queue.len() > 0) await processNextWorkItem(ssc.queue, ssc.syncHandler, { name: 'test', logger: silentLogger });
    await flushAsync();
  }

  /** Runs queued syncs until the queue is idle; with `finalize`, graceful deletions finish after each. */
  async function settle(finalize = true): Promise<void> {
    for (let i = 0; i < 300; i++) {
      await flushAsync();
      if (ssc.queue.len() === 0) return;
      await syncOnce();
      if (finalize) await finishDeletions();
    }
    throw new Error('controller did not settle');
  }

  /** The kubelet stops terminating pods: deleted with grace 0. */
  async function finishDeletions(): Promise<void> {
    for (const p of await pods()) {
      if (p.metadata?.deletionTimestamp) await podsClient.delete(p.metadata.name ?? '', { gracePeriodSeconds: 0, preconditions: { uid: p.metadata.uid ?? '' } });
    }
    await flushAsync();
  }

  /** Binds the pod and makes it Running and Ready (Ready since now). */
  async function ready(name: string): Promise<void> {
    let p = await podsClient.get(name);
    if (!p.spec?.nodeName) {
      await podsClient.createSubresource(name, 'binding', { metadata: { name }, target: { kind: 'Node', name: 'node-1' } });
      p = await podsClient.get(name);
    }
    await podsClient.updateStatus({ ...p, status: { ...p.status, phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: formatTime(clock.now()) }] } });
    await flushAsync();
  }

  /** Makes every live, not-ready pod Running and Ready. */
  async function readyAll(): Promise<void> {
    for (const p of await pods()) if (!p.metadata?.deletionTimestamp && !isReady(p)) await ready(p.metadata?.name ?? '');
  }

  /** Alternates settle and readyAll until nothing changes: a set rolls out fully. */
  async function converge(): Promise<void> {
    for (let i = 0; i < 50; i++) {
      await finishDeletions();
      await settle();
      const pending = (await pods()).filter((p) => !isReady(p) || p.metadata?.deletionTimestamp).length;
      if (pending === 0 && ssc.queue.len() === 0) return;
      await readyAll();
    }
    throw new Error('did not converge');
  }

  async function setPhase(name: string, phase: string): Promise<void> {
    const p = await podsClient.get(name);
    await podsClient.updateStatus({ ...p, status: { ...p.status, phase } });
    await flushAsync();
  }

  async function updateSet(fn: (s: StatefulSet) => void): Promise<void> {
    const cur = structuredClone(await getSet());
    fn(cur);
    await client.apps.statefulSets('ns').update(cur);
    await flushAsync();
  }

  const setImage = (image: string): Promise<void> =>
    updateSet((s) => {
      s.spec!.template.spec!.containers[0]!.image = image;
    });

  async function events(reason?: string): Promise<string[]> {
    await recorder.flush();
    return (await client.core.events('ns').list()).items
      .filter((e) => reason === undefined || e.reason === reason)
      .sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''))
      .map((e) => `${e.type ?? ''} ${e.reason ?? ''} ${e.message ?? ''}`);
  }

  const image = (p: Pod): string | undefined => p.spec?.containers[0]?.image;
  const stop = (): void => informers.shutdown();
  return { clock, client, informers, ssc, pods, names, live, claims, revisions, getSet, syncOnce, settle, finishDeletions, ready, readyAll, converge, setPhase, updateSet, setImage, events, image, stop };
}

describe('OrderedReady creation', () => {
  test('web-1 is not created before web-0 is Running and Ready; identity, storage and events', async () => {
    const c = await cluster();
    await c.settle();
    assert.deepEqual(await c.names(), ['web-0']);
    // Pending (not Running and Ready): still only web-0, however often it syncs.
    c.ssc.queue.add('ns/web');
    await c.settle();
    assert.deepEqual(await c.names(), ['web-0']);
    await c.ready('web-0');
    await c.settle();
    assert.deepEqual(await c.names(), ['web-0', 'web-1']);
    await c.ready('web-1');
    await c.settle();
    await c.ready('web-2');
    await c.settle();
    assert.deepEqual(await c.names(), ['web-0', 'web-1', 'web-2']);

    const [rev] = await c.revisions();
    const revName = rev?.metadata?.name ?? '';
    assert.match(revName, /^web-[bcdfghjklmnpqrstvwxz2456789]+$/);
    const web1 = (await c.pods())[1]!;
    assert.deepEqual(web1.metadata?.labels, {
      app: 'nginx',
      'controller-revision-hash': revName,
      'statefulset.kubernetes.io/pod-name': 'web-1',
      'apps.kubernetes.io/pod-index': '1',
    });
    assert.equal(web1.spec?.hostname, 'web-1');
    assert.equal(web1.spec?.subdomain, 'nginx');
    assert.deepEqual(web1.spec?.volumes?.find((v) => v.name === 'data')?.persistentVolumeClaim, { claimName: 'data-web-1' });
    assert.deepEqual(web1.metadata?.ownerReferences?.map((r) => [r.kind, r.name, r.controller, r.blockOwnerDeletion]), [['StatefulSet', 'web', true, true]]);

    const claims = await c.claims();
    assert.deepEqual(claims.map((p) => p.metadata?.name).sort(), ['data-web-0', 'data-web-1', 'data-web-2']);
    for (const claim of claims) {
      assert.deepEqual(claim.metadata?.labels, { app: 'nginx' });
      assert.equal(claim.metadata?.ownerReferences, undefined, 'Retain/Retain: no owner references');
      assert.equal(claim.spec?.resources?.requests?.storage, '1Gi');
    }

    const s = (await c.getSet()).status;
    assert.deepEqual(
      [s?.replicas, s?.readyReplicas, s?.availableReplicas, s?.currentReplicas, s?.updatedReplicas, s?.currentRevision, s?.updateRevision, s?.collisionCount, s?.observedGeneration],
      [3, 3, 3, 3, 3, revName, revName, 0, 1],
    );
    const created = await c.events('SuccessfulCreate');
    assert.ok(created.includes('Normal SuccessfulCreate create Pod web-0 in StatefulSet web successful'), created.join('\n'));
    assert.ok(created.includes('Normal SuccessfulCreate create Claim data-web-0 Pod web-0 in StatefulSet web success'), created.join('\n'));
    const evs = await c.client.core.events('ns').list();
    assert.equal(evs.items[0]?.source?.component, 'statefulset-controller');
    assert.equal(evs.items[0]?.involvedObject?.kind, 'StatefulSet');
    c.stop();
  });

  test('minReadySeconds: the next pod waits until the previous is available; availableReplicas; requeue', async () => {
    const c = await cluster(newStatefulSet({ replicas: 2, minReadySeconds: 10, claims: false }));
    await c.settle();
    await c.ready('web-0');
    await c.settle();
    assert.deepEqual(await c.names(), ['web-0']);
    let s = (await c.getSet()).status;
    assert.deepEqual([s?.readyReplicas, s?.availableReplicas ?? 0], [1, 0]);
    // The sync asked to run again once web-0 becomes available: stepping the clock is enough.
    c.clock.step(10_001);
    await c.settle();
    assert.deepEqual(await c.names(), ['web-0', 'web-1']);
    s = (await c.getSet()).status;
    assert.deepEqual([s?.readyReplicas, s?.availableReplicas], [1, 1]);
    c.stop();
  });
});

describe('scaling', () => {
  test('scale down is ordered: highest ordinal first, one at a time; PVCs stay by default', async () => {
    const c = await cluster(newStatefulSet({ replicas: 4 }));
    await c.converge();
    await c.updateSet((s) => {
      s.spec!.replicas = 1;
    });
    await c.settle(false);
    assert.deepEqual(await c.live(), ['web-0', 'web-1', 'web-2'], 'web-3 goes first');
    // While web-3 terminates nothing else is deleted.
    c.ssc.queue.add('ns/web');
    await c.settle(false);
    assert.deepEqual(await c.live(), ['web-0', 'web-1', 'web-2']);
    await c.finishDeletions();
    await c.settle(false);
    assert.deepEqual(await c.live(), ['web-0', 'web-1']);
    await c.finishDeletions();
    await c.settle();
    assert.deepEqual(await c.names(), ['web-0']);
    assert.deepEqual((await c.claims()).map((p) => p.metadata?.name).sort(), ['data-web-0', 'data-web-1', 'data-web-2', 'data-web-3']);
    const deleted = await c.events('SuccessfulDelete');
    assert.deepEqual(deleted, [
      'Normal SuccessfulDelete delete Pod web-3 in StatefulSet web successful',
      'Normal SuccessfulDelete delete Pod web-2 in StatefulSet web successful',
      'Normal SuccessfulDelete delete Pod web-1 in StatefulSet web successful',
    ]);
    // Scale up again: the same claims are used.
    const uid = (await c.claims()).find((p) => p.metadata?.name === 'data-web-1')?.metadata?.uid;
    await c.updateSet((s) => {
      s.spec!.replicas = 2;
    });
    await c.converge();
    assert.equal((await c.claims()).find((p) => p.metadata?.name === 'data-web-1')?.metadata?.uid, uid);
    c.stop();
  });

  test('scale down waits for an unhealthy replica in range', async () => {
    const c = await cluster(newStatefulSet({ replicas: 3, claims: false }));
    await c.converge();
    await c.setPhase('web-0', 'Pending');
    await c.updateSet((s) => {
      s.spec!.replicas = 2;
    });
    await c.settle();
    assert.deepEqual(await c.names(), ['web-0', 'web-1', 'web-2']);
    c.stop();
  });

  test('Parallel: all pods at once, without waiting for readiness; scale down at once', async () => {
    const c = await cluster(newStatefulSet({ replicas: 5, parallel: true }));
    await c.syncOnce();
    assert.deepEqual(await c.names(), ['web-0', 'web-1', 'web-2', 'web-3', 'web-4']);
    assert.equal((await c.claims()).length, 5);
    await c.updateSet((s) => {
      s.spec!.replicas = 2;
    });
    await c.settle(false);
    assert.deepEqual(await c.live(), ['web-0', 'web-1']);
    c.stop();
  });

  test('ordinals.start: pods web-5 and web-6; moving the start replaces the lowest', async () => {
    const c = await cluster(newStatefulSet({ replicas: 2, start: 5 }));
    await c.converge();
    assert.deepEqual(await c.names(), ['web-5', 'web-6']);
    assert.equal((await c.pods())[0]?.metadata?.labels?.['apps.kubernetes.io/pod-index'], '5');
    assert.deepEqual((await c.claims()).map((p) => p.metadata?.name).sort(), ['data-web-5', 'data-web-6']);
    await c.updateSet((s) => {
      s.spec!.ordinals = { start: 6 };
    });
    await c.converge();
    assert.deepEqual(await c.names(), ['web-6', 'web-7']);
    c.stop();
  });
});

describe('failed and finished pods', () => {
  test('a Failed pod is deleted and recreated; so is a Succeeded one', async () => {
    const c = await cluster(newStatefulSet({ replicas: 2, claims: false }));
    await c.converge();
    const uid = (await c.pods())[1]?.metadata?.uid;
    await c.setPhase('web-1', 'Failed');
    await c.settle();
    const pods = await c.pods();
    assert.deepEqual(pods.map((p) => p.metadata?.name), ['web-0', 'web-1']);
    assert.notEqual(pods[1]?.metadata?.uid, uid);
    assert.ok((await c.events('SuccessfulDelete')).includes('Normal SuccessfulDelete delete Pod web-1 in StatefulSet web successful'));
    await c.converge();
    const uid0 = (await c.pods())[0]?.metadata?.uid;
    await c.setPhase('web-0', 'Succeeded');
    await c.settle();
    assert.notEqual((await c.pods())[0]?.metadata?.uid, uid0);
    c.stop();
  });
});

describe('updates', () => {
  test('RollingUpdate in reverse ordinal order, one pod at a time; status and completeRollingUpdate', async () => {
    const c = await cluster(newStatefulSet({ replicas: 3, claims: false }));
    await c.converge();
    const [r1] = await c.revisions();
    await c.setImage('v2');
    await c.settle(false);
    let pods = await c.pods();
    assert.deepEqual(pods.filter((p) => p.metadata?.deletionTimestamp).map((p) => p.metadata?.name), ['web-2']);
    const order: string[] = [];
    for (let i = 0; i < 20; i++) {
      await c.finishDeletions();
      await c.settle(false);
      await c.readyAll();
      await c.settle(false);
      for (const p of await c.pods()) if (p.metadata?.deletionTimestamp && !order.includes(p.metadata.name ?? '')) order.push(p.metadata.name ?? '');
      if ((await c.pods()).every((p) => c.image(p) === 'v2' && isReady(p))) break;
    }
    assert.deepEqual(order, ['web-1', 'web-0']);
    pods = await c.pods();
    assert.deepEqual(pods.map((p) => c.image(p)), ['v2', 'v2', 'v2']);
    const revs = await c.revisions();
    assert.equal(revs.length, 2);
    const r2 = revs[1]!;
    assert.equal(r2.revision, 2);
    await c.settle();
    const s = (await c.getSet()).status;
    assert.deepEqual([s?.currentRevision, s?.updateRevision, s?.currentReplicas, s?.updatedReplicas], [r2.metadata?.name, r2.metadata?.name, 3, 3]);
    assert.notEqual(r1?.metadata?.name, r2.metadata?.name);
    c.stop();
  });

  test('partition: only ordinals ≥ partition are updated; lowering it continues', async () => {
    const c = await cluster(newStatefulSet({ replicas: 3, claims: false, strategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } }));
    await c.converge();
    await c.setImage('v2');
    await c.converge();
    assert.deepEqual((await c.pods()).map((p) => c.image(p)), ['v1', 'v1', 'v2']);
    let s = (await c.getSet()).status;
    assert.deepEqual([s?.currentReplicas, s?.updatedReplicas], [2, 1]);
    assert.notEqual(s?.currentRevision, s?.updateRevision);
    // A pod below the partition that is deleted comes back at the current revision.
    await c.client.core.pods('ns').delete('web-0');
    await c.finishDeletions();
    await c.converge();
    assert.deepEqual((await c.pods()).map((p) => c.image(p)), ['v1', 'v1', 'v2']);
    await c.updateSet((st) => {
      st.spec!.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { partition: 0 } };
    });
    await c.converge();
    assert.deepEqual((await c.pods()).map((p) => c.image(p)), ['v2', 'v2', 'v2']);
    s = (await c.getSet()).status;
    assert.equal(s?.currentRevision, s?.updateRevision);
    c.stop();
  });

  test('maxUnavailable with the gate on: two pods at once, highest first', async () => {
    const set = newStatefulSet({ replicas: 4, claims: false, strategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0, maxUnavailable: 2 } } });
    const c = await cluster(set, { maxUnavailableStatefulSet: true });
    await c.converge();
    await c.setImage('v2');
    await c.settle(false);
    assert.deepEqual((await c.pods()).filter((p) => p.metadata?.deletionTimestamp).map((p) => p.metadata?.name), ['web-2', 'web-3']);
    await c.converge();
    assert.deepEqual((await c.pods()).map((p) => c.image(p)), ['v2', 'v2', 'v2', 'v2']);
    c.stop();
  });

  test('maxUnavailable with the gate off behaves as 1', async () => {
    const set = newStatefulSet({ replicas: 4, claims: false, strategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0, maxUnavailable: 2 } } });
    const c = await cluster(set);
    await c.converge();
    await c.setImage('v2');
    await c.settle(false);
    assert.deepEqual((await c.pods()).filter((p) => p.metadata?.deletionTimestamp).map((p) => p.metadata?.name), ['web-3']);
    c.stop();
  });

  test('OnDelete: nothing is replaced until deleted by hand, then at the update revision', async () => {
    const c = await cluster(newStatefulSet({ replicas: 2, claims: false, strategy: { type: 'OnDelete' } }));
    await c.converge();
    await c.setImage('v2');
    await c.converge();
    assert.deepEqual((await c.pods()).map((p) => c.image(p)), ['v1', 'v1']);
    await c.client.core.pods('ns').delete('web-0');
    await c.finishDeletions();
    await c.converge();
    assert.deepEqual((await c.pods()).map((p) => c.image(p)), ['v2', 'v1']);
    const s = (await c.getSet()).status;
    assert.deepEqual([s?.currentReplicas, s?.updatedReplicas], [1, 1]);
    c.stop();
  });
});

describe('revisions', () => {
  test('data is the template patch; set annotations copied; rollback bumps the equal revision; history limit', async () => {
    const c = await cluster(newStatefulSet({ replicas: 1, claims: false, revisionHistoryLimit: 1 }));
    await c.converge();
    const [r1] = await c.revisions();
    assert.deepEqual(r1?.data, {
      spec: { template: { $patch: 'replace', metadata: { creationTimestamp: null, labels: { app: 'nginx' } }, spec: (await c.getSet()).spec?.template.spec } },
    });
    assert.equal(r1?.metadata?.annotations?.['kubernetes.io/change-cause'], 'first');
    assert.deepEqual(r1?.metadata?.ownerReferences?.map((r) => [r.kind, r.name, r.controller]), [['StatefulSet', 'web', true]]);
    await c.setImage('v2');
    await c.converge();
    await c.setImage('v1');
    await c.converge();
    const revs = await c.revisions();
    // Rolled back: revision 1's data is reused and renumbered 3; no third revision.
    assert.deepEqual(revs.map((r) => [r.metadata?.name, r.revision]), [
      [revs[0]?.metadata?.name, 2],
      [r1?.metadata?.name, 3],
    ]);
    await c.setImage('v3');
    await c.converge();
    await c.setImage('v4');
    await c.converge();
    // Limit 1: besides the live revision only the newest old one stays.
    const after = await c.revisions();
    assert.deepEqual(after.map((r) => r.revision), [4, 5]);
    c.stop();
  });

  test('a name collision bumps status.collisionCount and picks another name', async () => {
    const probe = await cluster(newStatefulSet({ replicas: 1, claims: false }));
    await probe.settle();
    const [rev] = await probe.revisions();
    probe.stop();
    // Someone else's revision holds that name with other data.
    const squatter: ControllerRevision = { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: rev?.metadata?.name ?? '', namespace: 'ns' }, data: { other: true }, revision: 1 };
    const c = await cluster(newStatefulSet({ replicas: 1, claims: false }), { objects: [squatter as unknown as KubeObject] });
    await c.settle();
    const s = (await c.getSet()).status;
    assert.equal(s?.collisionCount, 1);
    assert.notEqual(s?.updateRevision, rev?.metadata?.name);
    assert.equal((await c.pods())[0]?.metadata?.labels?.['controller-revision-hash'], s?.updateRevision);
    c.stop();
  });
});

describe('PVC retention', () => {
  test('whenDeleted=Delete: claims are controlled by the set', async () => {
    const c = await cluster(newStatefulSet({ replicas: 2, retention: { whenDeleted: 'Delete', whenScaled: 'Retain' } }));
    await c.converge();
    const set = await c.getSet();
    for (const claim of await c.claims()) {
      assert.deepEqual(claim.metadata?.ownerReferences?.map((r) => [r.apiVersion, r.kind, r.name, r.uid, r.controller, r.blockOwnerDeletion]), [['apps/v1', 'StatefulSet', 'web', set.metadata?.uid, true, true]]);
    }
    c.stop();
  });

  test('whenScaled=Delete: a condemned pod owns its claim; scaling back up before deletion removes the ref', async () => {
    const c = await cluster(newStatefulSet({ replicas: 2, retention: { whenDeleted: 'Retain', whenScaled: 'Delete' } }));
    await c.converge();
    for (const claim of await c.claims()) assert.equal(claim.metadata?.ownerReferences, undefined);
    await c.updateSet((s) => {
      s.spec!.replicas = 1;
    });
    await c.settle(false);
    const web1 = (await c.pods()).find((p) => p.metadata?.name === 'web-1');
    const claim = (await c.claims()).find((p) => p.metadata?.name === 'data-web-1');
    assert.deepEqual(claim?.metadata?.ownerReferences?.map((r) => [r.kind, r.name, r.uid, r.controller]), [['Pod', 'web-1', web1?.metadata?.uid, true]]);
    assert.equal((await c.claims()).find((p) => p.metadata?.name === 'data-web-0')?.metadata?.ownerReferences, undefined);
    c.stop();
  });

  test('whenScaled=Delete: a claim still owned by the old pod blocks creating the new one', async () => {
    const c = await cluster(newStatefulSet({ replicas: 2, retention: { whenDeleted: 'Retain', whenScaled: 'Delete' } }));
    await c.converge();
    await c.updateSet((s) => {
      s.spec!.replicas = 1;
    });
    await c.settle();
    // The garbage collector has not yet removed data-web-1 (owned by the gone web-1): scale up waits.
    await c.updateSet((s) => {
      s.spec!.replicas = 2;
    });
    await c.settle();
    assert.deepEqual(await c.names(), ['web-0']);
    await c.client.core.persistentVolumeClaims('ns').delete('data-web-1');
    // The StorageObjectInUseProtection finalizer holds it; play the PVC-protection controller (no pod uses it).
    await c.client.core.persistentVolumeClaims('ns').patch('data-web-1', 'application/merge-patch+json', { metadata: { finalizers: null } });
    await flushAsync();
    c.ssc.queue.add('ns/web');
    await c.settle();
    assert.deepEqual(await c.names(), ['web-0', 'web-1']);
    c.stop();
  });

  test('a claim being deleted blocks creating its pod', async () => {
    const c = await cluster(newStatefulSet({ replicas: 1 }));
    await c.converge();
    const claim = (await c.claims())[0]!;
    await c.client.core.persistentVolumeClaims('ns').update({ ...claim, metadata: { ...claim.metadata, finalizers: ['test/hold'] } });
    await c.client.core.persistentVolumeClaims('ns').delete('data-web-0');
    await c.client.core.pods('ns').delete('web-0');
    await c.finishDeletions();
    await c.settle();
    assert.deepEqual(await c.names(), []);
    assert.ok((await c.events('FailedCreate')).some((e) => e.includes('create Pod web-0 in StatefulSet web failed error: pvc data-web-0 is being deleted')));
    c.stop();
  });
});

describe('adoption and release', () => {
  const orphan = (name: string, labels: Record<string, string>): Pod => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'ns', labels },
    spec: { containers: [{ name: 'nginx', image: 'v1' }] },
  });

  test('orphans named <set>-<ordinal> are adopted; others matching the selector are not', async () => {
    const c = await cluster(newStatefulSet({ replicas: 1, claims: false }), { objects: [orphan('web-0', { app: 'nginx' }), orphan('other-0', { app: 'nginx' })] as KubeObject[] });
    await c.settle();
    const pods = await c.pods();
    const owners = Object.fromEntries(pods.map((p) => [p.metadata?.name, p.metadata?.ownerReferences?.[0]?.name]));
    assert.deepEqual(owners, { 'other-0': undefined, 'web-0': 'web' });
    c.stop();
  });

  test('a pod whose labels stop matching is released and replaced', async () => {
    const c = await cluster(newStatefulSet({ replicas: 1, claims: false }));
    await c.converge();
    const p = await c.client.core.pods('ns').get('web-0');
    await c.client.core.pods('ns').update({ ...p, metadata: { ...p.metadata, labels: { app: 'other' } } });
    await c.settle();
    const released = await c.client.core.pods('ns').get('web-0');
    assert.equal(released.metadata?.ownerReferences, undefined);
    c.stop();
  });

  test('delete with orphan, re-create: pods re-adopted, PVCs re-used', async () => {
    const c = await cluster(newStatefulSet({ replicas: 2 }));
    await c.converge();
    const podUIDs = (await c.pods()).map((p) => p.metadata?.uid);
    const claimUIDs = (await c.claims()).map((p) => p.metadata?.uid).sort();
    await c.client.apps.statefulSets('ns').delete('web', { propagationPolicy: 'Orphan' });
    // What the garbage collector does for an orphan deletion: drop the owner references.
    for (const p of await c.pods()) await c.client.core.pods('ns').update({ ...p, metadata: { ...p.metadata, ownerReferences: undefined } });
    for (const r of await c.revisions()) await c.client.apps.controllerRevisions('ns').update({ ...r, metadata: { ...r.metadata, ownerReferences: undefined } });
    const gone = await c.client.apps.statefulSets('ns').get('web');
    await c.client.apps.statefulSets('ns').update({ ...gone, metadata: { ...gone.metadata, finalizers: [] } });
    await flushAsync();
    await c.settle();
    await c.client.apps.statefulSets('ns').create(newStatefulSet({ replicas: 2 }));
    await c.converge();
    const set = await c.getSet();
    const pods = await c.pods();
    assert.deepEqual(pods.map((p) => p.metadata?.uid), podUIDs);
    for (const p of pods) assert.equal(p.metadata?.ownerReferences?.[0]?.uid, set.metadata?.uid);
    assert.deepEqual((await c.claims()).map((p) => p.metadata?.uid).sort(), claimUIDs);
    const revs = await c.revisions();
    assert.equal(revs.length, 1);
    assert.equal(revs[0]?.metadata?.ownerReferences?.[0]?.uid, set.metadata?.uid);
    c.stop();
  });
});
