import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ControllerRevision, DaemonSet, DaemonSetUpdateStrategy, KubeObject, Node, Pod, Taint } from '../../api/index.js';
import { newClientset } from '../../client/index.js';
import { newFakeTransport } from '../../testing/index.js';
import { newSharedInformerFactory } from '../../informers/index.js';
import { FakeClock, flushAsync, formatTime } from '../../util/clock/index.js';
import { SeededRand } from '../../util/random/index.js';
import { EventRecorder } from '../../client/record/index.js';
import { silentLogger } from '../../util/runtime/index.js';
import { processNextWorkItem } from '../../workqueue/index.js';
import { DaemonSetsController } from './daemon-controller.js';
import { getTargetNodeName } from './util.js';

const T0 = Date.UTC(2025, 0, 1);
const GEN = 'deprecated.daemonset.template.generation';

function newNode(name: string, labels: Record<string, string> = {}, taints: Taint[] = []): Node {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } }, spec: { taints } };
}

function newDaemonSet(opts: { strategy?: DaemonSetUpdateStrategy; nodeSelector?: Record<string, string>; minReadySeconds?: number; revisionHistoryLimit?: number } = {}): DaemonSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent', namespace: 'ns', generation: 1, annotations: { [GEN]: '1' } },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      template: {
        metadata: { labels: { app: 'agent' } },
        spec: { containers: [{ name: 'c', image: 'v1' }], ...(opts.nodeSelector ? { nodeSelector: opts.nodeSelector } : {}) },
      },
      updateStrategy: opts.strategy ?? { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
      revisionHistoryLimit: opts.revisionHistoryLimit ?? 10,
      ...(opts.minReadySeconds ? { minReadySeconds: opts.minReadySeconds } : {}),
    },
  };
}

const isReady = (p: Pod): boolean => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** The API (the test fake in front of the real API server), informers, the controller and a minimal kubelet that binds pods and makes them Ready. */
async function cluster(nodes: Node[], ds: DaemonSet = newDaemonSet()) {
  const clock = new FakeClock(T0);
  const transport = await newFakeTransport({ clock, objects: [...nodes, ds] as KubeObject[], rand: new SeededRand(7) });
  const client = newClientset(transport);
  const informers = newSharedInformerFactory(client, { clock, rand: new SeededRand(3) });
  const recorder = new EventRecorder(client, { component: 'daemonset-controller', clock, logger: silentLogger });
  const dsc = new DaemonSetsController({ client, informers, clock, recorder, logger: silentLogger });
  informers.start();
  await informers.waitForCacheSync();
  // Copies: the server's list items are its shared, frozen array.
  const pods = async (): Promise<Pod[]> => [...(await client.core.pods('ns').list()).items];
  const revisions = async (): Promise<ControllerRevision[]> => [...(await client.apps.controllerRevisions('ns').list()).items];
  const getDS = (): Promise<DaemonSet> => client.apps.daemonSets('ns').get('agent');

  /**
   * Runs queued keys until the queue is idle, calling `check` after every sync. After each sync the
   * kubelet finishes the pods the controller deleted: a bound pod is deleted gracefully (it keeps a
   * deletionTimestamp) until its kubelet has stopped it and deletes it with grace 0, here at once.
   */
  async function settle(check: () => Promise<void> = () => Promise.resolve()): Promise<void> {
    for (let i = 0; i < 500; i++) {
      await flushAsync();
      if (dsc.queue.len() === 0) return;
      await processNextWorkItem(dsc.queue, dsc.syncHandler, { name: 'test', logger: silentLogger });
      await flushAsync();
      for (const p of await pods()) {
        if (p.metadata?.deletionTimestamp) await client.core.pods('ns').delete(p.metadata.name ?? '', { gracePeriodSeconds: 0, preconditions: { uid: p.metadata.uid ?? '' } });
      }
      await flushAsync();
      await check();
    }
    throw new Error('controller did not settle');
  }

  /** Binds unbound pods to their target node, and makes up to `max` not-ready pods Running and Ready. */
  async function kubelet(max = Infinity): Promise<number> {
    let n = 0;
    for (const p of await pods()) {
      const name = p.metadata?.name ?? '';
      if (!p.spec?.nodeName) {
        await client.core.pods('ns').createSubresource(name, 'binding', { metadata: { name }, target: { kind: 'Node', name: getTargetNodeName(p) } });
      }
      if (isReady(p) || p.status?.phase === 'Failed' || n >= max) continue;
      const cur = await client.core.pods('ns').get(name);
      await client.core.pods('ns').updateStatus({ ...cur, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: formatTime(clock.now()) }] } });
      n++;
    }
    return n;
  }

  /** Changes the template image (the API server bumps the template generation). */
  async function setImage(image: string): Promise<void> {
    const cur = await getDS();
    await client.apps.daemonSets('ns').update({ ...cur, spec: { ...cur.spec!, template: { ...cur.spec!.template, spec: { containers: [{ name: 'c', image }] } } } });
  }

  /** Nodes (of `names`) without a Ready, non-deleted daemon pod. */
  async function nodesWithoutAvailablePod(names: string[]): Promise<string[]> {
    const covered = new Set((await pods()).filter((p) => isReady(p) && !p.metadata?.deletionTimestamp).map((p) => p.spec?.nodeName));
    return names.filter((n) => !covered.has(n));
  }

  const image = (p: Pod): string | undefined => p.spec?.containers[0]?.image;
  return { clock, transport, client, informers, dsc, pods, revisions, getDS, settle, kubelet, setImage, nodesWithoutAvailablePod, image };
}

const names = (n: number): string[] => Array.from({ length: n }, (_, i) => `node-${i + 1}`);

describe('placement', () => {
  test('one pod per eligible node, pinned by node affinity, with labels, tolerations and status', async () => {
    const c = await cluster([newNode('node-1'), newNode('node-2'), newNode('node-3', {}, [{ key: 'dedicated', effect: 'NoSchedule' }])]);
    await c.settle();
    const pods = await c.pods();
    assert.equal(pods.length, 2);
    const [rev] = await c.revisions();
    const hash = rev?.metadata?.labels?.['controller-revision-hash'] ?? '';
    assert.equal(rev?.metadata?.name, `agent-${hash}`);
    assert.equal(rev?.revision, 1);
    assert.deepEqual(
      pods.map((p) => getTargetNodeName(p)).sort(),
      ['node-1', 'node-2'],
    );
    for (const p of pods) {
      assert.deepEqual(p.metadata?.labels, { app: 'agent', 'controller-revision-hash': hash, 'pod-template-generation': '1' });
      assert.equal(p.metadata?.generateName, 'agent-');
      assert.equal(p.metadata?.ownerReferences?.[0]?.kind, 'DaemonSet');
      assert.ok(p.spec?.tolerations?.some((t) => t.key === 'node.kubernetes.io/unschedulable'));
    }
    await c.kubelet();
    await c.settle();
    const s = (await c.getDS()).status;
    assert.deepEqual(
      [s?.desiredNumberScheduled, s?.currentNumberScheduled, s?.numberReady, s?.updatedNumberScheduled, s?.numberAvailable, s?.numberUnavailable ?? 0, s?.numberMisscheduled, s?.observedGeneration],
      [2, 2, 2, 2, 2, 0, 0, 1],
    );
    c.informers.shutdown();
  });

  test('nodes coming, relabelled, tainted and going', async () => {
    const c = await cluster([newNode('node-1', { disk: 'ssd' }), newNode('node-2')], newDaemonSet({ nodeSelector: { disk: 'ssd' } }));
    await c.settle();
    await c.kubelet();
    await c.settle();
    assert.deepEqual((await c.pods()).map((p) => p.spec?.nodeName), ['node-1']);

    // A new matching node gets a pod; relabelling node-2 moves it in.
    await c.client.core.nodes().create(newNode('node-3', { disk: 'ssd' }));
    const n2 = await c.client.core.nodes().get('node-2');
    await c.client.core.nodes().update({ ...n2, metadata: { ...n2.metadata, labels: { ...n2.metadata?.labels, disk: 'ssd' } } });
    await c.settle();
    await c.kubelet();
    await c.settle();
    assert.deepEqual((await c.pods()).map((p) => p.spec?.nodeName).sort(), ['node-1', 'node-2', 'node-3']);

    // Relabelled out: its pod goes. An untolerated NoSchedule taint keeps the pod; NoExecute evicts it.
    const n1 = await c.client.core.nodes().get('node-1');
    await c.client.core.nodes().update({ ...n1, metadata: { ...n1.metadata, labels: { 'kubernetes.io/hostname': 'node-1' } } });
    const n3 = await c.client.core.nodes().get('node-3');
    await c.client.core.nodes().update({ ...n3, spec: { taints: [{ key: 'maintenance', effect: 'NoSchedule' }] } });
    await c.settle();
    assert.deepEqual((await c.pods()).map((p) => p.spec?.nodeName).sort(), ['node-2', 'node-3']);
    let s = (await c.getDS()).status;
    assert.deepEqual([s?.desiredNumberScheduled, s?.currentNumberScheduled, s?.numberMisscheduled], [1, 1, 1]);
    const n3b = await c.client.core.nodes().get('node-3');
    await c.client.core.nodes().update({ ...n3b, spec: { taints: [{ key: 'maintenance', effect: 'NoExecute' }] } });
    await c.settle();
    assert.deepEqual((await c.pods()).map((p) => p.spec?.nodeName), ['node-2']);

    // A deleted node leaves the status at once.
    await c.client.core.nodes().delete('node-2');
    await c.settle();
    s = (await c.getDS()).status;
    assert.deepEqual([s?.desiredNumberScheduled, s?.currentNumberScheduled], [0, 0]);
    c.informers.shutdown();
  });

  test('duplicates on a node: only the oldest is kept', async () => {
    const c = await cluster([newNode('node-1')]);
    await c.settle();
    await c.kubelet();
    const [first] = await c.pods();
    c.clock.step(5000);
    const dup = { ...first!, metadata: { ...first!.metadata, name: 'agent-dup', resourceVersion: undefined, uid: undefined, creationTimestamp: undefined } };
    await c.client.core.pods('ns').create(dup);
    await c.settle();
    assert.deepEqual((await c.pods()).map((p) => p.metadata?.name), [first!.metadata?.name]);
    c.informers.shutdown();
  });

  test('orphans matching the selector are adopted', async () => {
    const orphan: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'stray', namespace: 'ns', labels: { app: 'agent' } }, spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'v1' }] } };
    // OnDelete: under RollingUpdate the adopted pod, of no known revision and not available, would be replaced.
    const c = await cluster([newNode('node-1')], newDaemonSet({ strategy: { type: 'OnDelete' } }));
    await c.client.core.pods('ns').create(orphan);
    await c.settle();
    const pods = await c.pods();
    assert.deepEqual(pods.map((p) => [p.metadata?.name, p.metadata?.ownerReferences?.[0]?.name]), [['stray', 'agent']]);
    c.informers.shutdown();
  });
});

describe('failed daemon pods', () => {
  test('are replaced with per-node backoff and a FailedDaemonPod event', async () => {
    const c = await cluster([newNode('node-1')]);
    await c.settle();
    await c.kubelet();
    const fail = async (): Promise<string> => {
      const [p] = await c.pods();
      await c.client.core.pods('ns').updateStatus({ ...p!, status: { phase: 'Failed' } });
      return p!.metadata?.name ?? '';
    };
    const first = await fail();
    await c.settle();
    const pods = await c.pods();
    assert.equal(pods.length, 1, 'deleted at once and replaced');
    assert.notEqual(pods[0]?.metadata?.name, first);
    assert.notEqual(pods[0]?.status?.phase, 'Failed');
    const events = (await c.client.core.events('ns').list()).items.filter((e) => e.reason === 'FailedDaemonPod');
    assert.deepEqual(events.map((e) => [e.type, e.message]), [['Warning', `Found failed daemon pod ns/${first} on node node-1, will try to kill it`]]);

    // Fails again at once: within the 2 s backoff it stays, after it it is replaced.
    await c.kubelet();
    await fail();
    await c.settle();
    assert.equal((await c.pods()).length, 1, 'kept during the backoff');
    assert.equal((await c.pods())[0]?.status?.phase, 'Failed');
    await c.clock.stepAsync(999);
    await c.settle();
    assert.equal((await c.pods())[0]?.status?.phase, 'Failed', 'still within 1 s');
    await c.clock.stepAsync(1001);
    await c.settle();
    await c.settle();
    const after = await c.pods();
    assert.equal(after.length, 1);
    assert.notEqual(after[0]?.status?.phase, 'Failed', 'replaced once the backoff passed');
    c.informers.shutdown();
  });
});

describe('RollingUpdate', () => {
  test('maxUnavailable 2, no surge: never more than 2 nodes without an available pod; labels move to generation 2', async () => {
    const nodes = names(10);
    const c = await cluster(nodes.map((n) => newNode(n)), newDaemonSet({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2, maxSurge: 0 } } }));
    await c.settle();
    await c.kubelet();
    await c.settle();
    await c.setImage('v2');
    let worst = 0;
    const check = async (): Promise<void> => {
      const missing = (await c.nodesWithoutAvailablePod(nodes)).length;
      assert.ok(missing <= 2, `${missing} nodes without an available pod`);
      worst = Math.max(worst, missing);
      assert.ok((await c.pods()).length <= 10, 'never more than one pod per node');
    };
    let rounds = 0;
    do {
      await c.settle(check);
      rounds++;
    } while ((await c.kubelet(1)) > 0 && rounds < 100);
    const pods = await c.pods();
    assert.equal(worst, 2, 'the budget was used');
    assert.ok(rounds >= 5, `several rounds (${rounds})`);
    assert.equal(pods.length, 10);
    assert.ok(pods.every((p) => c.image(p) === 'v2' && p.metadata?.labels?.['pod-template-generation'] === '2'));
    const revs = (await c.revisions()).sort((a, b) => a.revision - b.revision);
    assert.deepEqual(revs.map((r) => r.revision), [1, 2]);
    assert.ok(pods.every((p) => p.metadata?.labels?.['controller-revision-hash'] === revs[1]?.metadata?.labels?.['controller-revision-hash']));
    const s = (await c.getDS()).status;
    assert.deepEqual([s?.updatedNumberScheduled, s?.numberAvailable, s?.observedGeneration], [10, 10, 2]);
    c.informers.shutdown();
  });

  test('maxSurge 30%, maxUnavailable 0: every node keeps an available pod; at most 3 extra pods', async () => {
    const nodes = names(7);
    const c = await cluster(nodes.map((n) => newNode(n)), newDaemonSet({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: '30%' } } }));
    await c.settle();
    await c.kubelet();
    await c.settle();
    await c.setImage('v2');
    let maxPods = 0;
    const check = async (): Promise<void> => {
      assert.deepEqual(await c.nodesWithoutAvailablePod(nodes), []);
      maxPods = Math.max(maxPods, (await c.pods()).length);
    };
    let rounds = 0;
    do {
      await c.settle(check);
      rounds++;
    } while ((await c.kubelet(1)) > 0 && rounds < 100);
    const pods = await c.pods();
    assert.equal(maxPods, 10, '30% of 7 rounds up to 3 surge pods');
    assert.equal(pods.length, 7);
    assert.ok(pods.every((p) => c.image(p) === 'v2'));
    c.informers.shutdown();
  });

  test('minReadySeconds: an old pod is replaced only once the new one has been ready that long', async () => {
    const nodes = names(2);
    const c = await cluster(nodes.map((n) => newNode(n)), newDaemonSet({ minReadySeconds: 10 }));
    await c.settle();
    await c.kubelet();
    await c.clock.stepAsync(11_000);
    await c.settle();
    await c.setImage('v2');
    await c.settle();
    await c.kubelet();
    await c.settle();
    const v1Left = async (): Promise<number> => (await c.pods()).filter((p) => c.image(p) === 'v1').length;
    assert.equal(await v1Left(), 1, 'one node replaced, the other waits');
    await c.clock.stepAsync(5_000);
    await c.settle();
    assert.equal(await v1Left(), 1, 'the new pod is ready but not yet available');
    await c.clock.stepAsync(6_000);
    await c.settle();
    assert.equal(await v1Left(), 0, 'available after minReadySeconds: the next node goes');
    c.informers.shutdown();
  });
});

describe('OnDelete', () => {
  test('a template change replaces only pods that are deleted', async () => {
    const c = await cluster(names(3).map((n) => newNode(n)), newDaemonSet({ strategy: { type: 'OnDelete' } }));
    await c.settle();
    await c.kubelet();
    await c.settle();
    await c.setImage('v2');
    await c.settle();
    assert.ok((await c.pods()).every((p) => c.image(p) === 'v1'));
    assert.equal((await c.getDS()).status?.updatedNumberScheduled ?? 0, 0, 'omitempty: 0 is left out');
    const victim = (await c.pods()).find((p) => p.spec?.nodeName === 'node-2');
    await c.client.core.pods('ns').delete(victim!.metadata?.name ?? '');
    await c.settle();
    await c.kubelet();
    await c.settle();
    const byNode = Object.fromEntries((await c.pods()).map((p) => [p.spec?.nodeName, c.image(p)]));
    assert.deepEqual(byNode, { 'node-1': 'v1', 'node-2': 'v2', 'node-3': 'v1' });
    assert.equal((await c.getDS()).status?.updatedNumberScheduled, 1);
    c.informers.shutdown();
  });
});

describe('history', () => {
  test('returning to an earlier template re-uses its revision, renumbered', async () => {
    const c = await cluster([newNode('node-1')]);
    await c.settle();
    const [r1] = await c.revisions();
    await c.setImage('v2');
    await c.settle();
    await c.setImage('v1');
    await c.settle();
    const revs = (await c.revisions()).sort((a, b) => a.revision - b.revision);
    assert.equal(revs.length, 2);
    assert.deepEqual([revs[1]?.metadata?.name, revs[1]?.revision], [r1?.metadata?.name, 3]);
    assert.equal(revs[0]?.revision, 2);
    c.informers.shutdown();
  });

  test('cleanup keeps revisionHistoryLimit old revisions, never one a pod still uses', async () => {
    const c = await cluster([newNode('node-1')], newDaemonSet({ revisionHistoryLimit: 1, strategy: { type: 'OnDelete' } }));
    await c.settle();
    for (const image of ['v2', 'v3', 'v4']) {
      await c.setImage(image);
      await c.settle();
    }
    // OnDelete: the node's pod still runs revision 1, so 1 survives besides the current one.
    const revs = (await c.revisions()).map((r) => r.revision).sort();
    assert.deepEqual(revs, [1, 4]);
    const [pod] = await c.pods();
    await c.client.core.pods('ns').delete(pod!.metadata?.name ?? '');
    await c.settle();
    await c.setImage('v5');
    await c.settle();
    assert.deepEqual((await c.revisions()).map((r) => r.revision).sort(), [4, 5]);
    c.informers.shutdown();
  });
});
