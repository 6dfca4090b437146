/**
 * The taint eviction controller on the real API server behind the fake transport, under a FakeClock.
 * Cases ported from kubernetes/kubernetes pkg/controller/tainteviction/taint_eviction_test.go:
 * TestCreatePod, TestDeletePod, TestUpdatePod, TestCreateNode, TestDeleteNode, TestUpdateNode,
 * TestUpdateNodeWithMultipleTaints, TestGetMinTolerationTime; and timed_workers_test.go
 * (TestExecuteDelayed, TestCancel).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, Node, Pod, Taint, Toleration } from '../../api/index.js';
import { newClientset } from '../../client/index.js';
import { EventRecorder } from '../../client/record/index.js';
import { newSharedInformerFactory } from '../../informers/index.js';
import { newFakeTransport } from '../../testing/index.js';
import { FakeClock, flushAsync } from '../../util/clock/index.js';
import { SeededRand } from '../../util/random/index.js';
import { silentLogger } from '../../util/runtime/index.js';
import { TaintEvictionController, getMinTolerationTime, TAINT_EVICTION_CONTROLLER } from './taint-eviction-controller.js';
import { TimedWorkerQueue } from './timed-workers.js';

const T0 = Date.UTC(2025, 0, 1);
const UNREACHABLE: Taint = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' };
const OTHER: Taint = { key: 'testTaint1', value: 'test1', effect: 'NoExecute' };

function node(name: string, taints: Taint[] = []): Node {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: { taints } };
}

function pod(name: string, nodeName: string, tolerations: Toleration[] = []): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { nodeName, tolerations, containers: [{ name: 'c', image: 'nginx' }] } };
}

const tolerate = (taint: Taint, seconds?: number): Toleration => ({ key: taint.key, operator: 'Exists', effect: 'NoExecute', ...(seconds === undefined ? {} : { tolerationSeconds: seconds }) });

async function setup(objects: readonly unknown[]) {
  const clock = new FakeClock(T0);
  const client = newClientset(await newFakeTransport({ clock, objects: objects as KubeObject[], rand: new SeededRand(7) }));
  const informers = newSharedInformerFactory(client, { clock, rand: new SeededRand(3) });
  const recorder = new EventRecorder(client, { component: TAINT_EVICTION_CONTROLLER, clock, logger: silentLogger });
  const tc = new TaintEvictionController({ client, informers, clock, recorder, logger: silentLogger });
  const abort = new AbortController();
  const running = tc.run(abort.signal);
  informers.start();
  await informers.waitForCacheSync();
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 5; i++) await clock.stepAsync(0);
    await flushAsync(5);
  };
  await settle();
  const step = async (ms: number): Promise<void> => {
    await clock.stepAsync(ms);
    await settle();
  };
  /** Whether the pod is being deleted (or gone). */
  const deleted = async (name: string): Promise<boolean> => {
    try {
      return !!(await client.core.pods('default').get(name)).metadata?.deletionTimestamp;
    } catch {
      return true;
    }
  };
  const setTaints = async (name: string, taints: Taint[]): Promise<void> => {
    const n = await client.core.nodes().get(name);
    await client.core.nodes().update({ ...n, spec: { ...n.spec, taints } });
    await settle();
  };
  const events = async (): Promise<string[]> => {
    await recorder.flush();
    return (await client.core.events('default').list()).items.filter((e) => e.reason === 'TaintManagerEviction').map((e) => e.message ?? '');
  };
  const stop = async (): Promise<void> => {
    abort.abort();
    informers.shutdown();
    await running;
  };
  return { clock, client, tc, settle, step, deleted, setTaints, events, stop };
}

describe('TaintEvictionController', () => {
  test('TestCreatePod: a pod without toleration on a tainted node is deleted at once, with the condition and the event', async () => {
    const t = await setup([node('node1', [UNREACHABLE]), pod('pod1', 'node1')]);
    assert.equal(await t.deleted('pod1'), true);
    const p = await t.client.core.pods('default').get('pod1');
    const c = p.status?.conditions?.find((x) => x.type === 'DisruptionTarget');
    assert.deepEqual([c?.status, c?.reason, c?.message], ['True', 'DeletionByTaintManager', 'Taint manager: deleting due to NoExecute taint']);
    assert.deepEqual(await t.events(), ['Marking for deletion Pod default/pod1']);
    await t.stop();
  });

  test('TestCreatePod: a pod tolerating forever stays; one tolerating 300 s goes after 300 s', async () => {
    const t = await setup([node('node1', [UNREACHABLE]), pod('forever', 'node1', [tolerate(UNREACHABLE)]), pod('timed', 'node1', [tolerate(UNREACHABLE, 300)])]);
    await t.step(299_000);
    assert.deepEqual([await t.deleted('forever'), await t.deleted('timed')], [false, false]);
    await t.step(1_000);
    assert.deepEqual([await t.deleted('forever'), await t.deleted('timed')], [false, true]);
    await t.step(3_600_000);
    assert.equal(await t.deleted('forever'), false);
    await t.stop();
  });

  test('a pod created later on a tainted node is handled too (TestCreatePod, pod added after the node)', async () => {
    // (Not the unreachable taint: admission gives created pods 300 s of toleration for it.)
    const t = await setup([node('node1', [OTHER])]);
    await t.client.core.pods('default').create(pod('late', 'node1'));
    await t.settle();
    assert.equal(await t.deleted('late'), true);
    await t.stop();
  });

  test('TestUpdateNode: the taint removed before the toleration ends cancels the deletion, with the Cancelling event', async () => {
    const t = await setup([node('node1'), pod('pod1', 'node1', [tolerate(UNREACHABLE, 100)])]);
    await t.setTaints('node1', [UNREACHABLE]);
    await t.step(50_000);
    await t.setTaints('node1', []);
    await t.step(100_000);
    assert.equal(await t.deleted('pod1'), false);
    assert.deepEqual(await t.events(), ['Cancelling deletion of Pod default/pod1']);
    await t.stop();
  });

  test('TestUpdateNode: a new taint the pod does not tolerate deletes it at once', async () => {
    const t = await setup([node('node1', [UNREACHABLE]), pod('pod1', 'node1', [tolerate(UNREACHABLE)])]);
    assert.equal(await t.deleted('pod1'), false);
    await t.setTaints('node1', [UNREACHABLE, OTHER]);
    assert.equal(await t.deleted('pod1'), true);
    await t.stop();
  });

  test('TestUpdateNodeWithMultipleTaints: a second tolerated taint leaves the deletion already scheduled as it is', async () => {
    const t = await setup([node('node1', [OTHER]), pod('pod1', 'node1', [tolerate(OTHER, 200), tolerate(UNREACHABLE, 10)])]);
    await t.step(100_000);
    // Upstream keeps a pending deletion created earlier (its createdAt + 10 s is before now + 10 s).
    await t.setTaints('node1', [OTHER, UNREACHABLE]);
    await t.step(20_000);
    assert.equal(await t.deleted('pod1'), false);
    await t.step(80_000);
    assert.equal(await t.deleted('pod1'), true, 'at 200 s');
    await t.stop();
  });

  test('TestUpdatePod: a pod whose tolerations no longer cover the taint is deleted', async () => {
    const t = await setup([node('node1', [OTHER]), pod('pod1', 'node1', [tolerate(OTHER)])]);
    assert.equal(await t.deleted('pod1'), false);
    // Tolerations of a running pod cannot change; a pod re-created under the same name can.
    await t.client.core.pods('default').delete('pod1', { gracePeriodSeconds: 0 });
    await t.settle();
    await t.client.core.pods('default').create(pod('pod1', 'node1', [tolerate(OTHER, 30)]));
    await t.settle();
    await t.step(29_000);
    assert.equal(await t.deleted('pod1'), false);
    await t.step(1_000);
    assert.equal(await t.deleted('pod1'), true);
    await t.stop();
  });

  test('TestDeletePod / TestDeleteNode: pending deletions are cancelled when the pod or the node goes', async () => {
    const t = await setup([node('node1', [UNREACHABLE]), pod('pod1', 'node1', [tolerate(UNREACHABLE, 100)]), pod('pod2', 'node1', [tolerate(UNREACHABLE, 100)])]);
    assert.deepEqual(t.tc.taintEvictionQueue.pendingKeys().sort(), ['default/pod1', 'default/pod2']);
    await t.client.core.pods('default').delete('pod1', { gracePeriodSeconds: 0 });
    await t.settle();
    assert.deepEqual(t.tc.taintEvictionQueue.pendingKeys(), ['default/pod2']);
    await t.stop();
  });
});

describe('getMinTolerationTime (TestGetMinTolerationTime)', () => {
  const cases: [string, Toleration[], number][] = [
    ['no tolerations', [], 0],
    ['one without seconds: forever', [{ key: 'a', operator: 'Exists', effect: 'NoExecute' }], -1],
    ['the smallest', [{ key: 'a', effect: 'NoExecute', tolerationSeconds: 20 }, { key: 'b', effect: 'NoExecute', tolerationSeconds: 10 }, { key: 'c', effect: 'NoExecute' }], 10_000],
    ['negative means now', [{ key: 'a', effect: 'NoExecute', tolerationSeconds: -5 }], 0],
  ];
  for (const [name, tolerations, want] of cases) test(name, () => assert.equal(getMinTolerationTime(tolerations), want));
});

describe('TimedWorkerQueue (timed_workers_test.go)', () => {
  test('TestExecuteDelayed: work runs at its time; TestCancel: cancelled work does not', async () => {
    const clock = new FakeClock(T0);
    const ran: string[] = [];
    const q = new TimedWorkerQueue(clock, (key) => {
      ran.push(key);
      return Promise.resolve();
    });
    q.addWork('a', T0, T0 + 1000);
    q.addWork('b', T0, T0 + 1000);
    q.addWork('a', T0, T0 + 5000);
    q.addWork('now', T0, T0);
    assert.equal(q.cancelWork('b'), true);
    await clock.stepAsync(999);
    assert.deepEqual(ran, ['now']);
    await clock.stepAsync(1);
    assert.deepEqual(ran, ['now', 'a']);
    assert.equal(q.getWorker('a'), null, 'done work stays as null until cancelled');
    q.addWork('a', T0, T0 + 2000);
    await clock.stepAsync(5000);
    assert.deepEqual(ran, ['now', 'a'], 'not added again while its done entry stays');
    assert.equal(q.cancelWork('a'), false);
  });
});
