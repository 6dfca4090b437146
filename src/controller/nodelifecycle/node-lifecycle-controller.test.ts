/**
 * The node lifecycle controller on the real API server behind the fake transport, under a FakeClock.
 * Cases ported from kubernetes/kubernetes pkg/controller/nodelifecycle/node_lifecycle_controller_test.go:
 * TestMonitorNodeHealthUpdateStatus, TestMonitorNodeHealthUpdateNodeAndPodStatusWithLease,
 * TestMonitorNodeHealthMarkPodsNotReady, TestApplyNoExecuteTaints, TestSwapUnreachableNotReadyTaints,
 * TestTaintsNodeByCondition, TestMonitorNodeHealthEvictPodsWithDisruption (zone states and rates)
 * and the ComputeZoneState rules.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Event, KubeObject, Lease, Node, NodeCondition, Pod } from '../../api/index.js';
import { newClientset, type Clientset } from '../../client/index.js';
import { EventRecorder } from '../../client/record/index.js';
import { newSharedInformerFactory } from '../../informers/index.js';
import { newFakeTransport } from '../../testing/index.js';
import { FakeClock, flushAsync, formatMicroTime, formatTime } from '../../util/clock/index.js';
import { SeededRand } from '../../util/random/index.js';
import { silentLogger } from '../../util/runtime/index.js';
import { NodeLifecycleController, getZoneKey, type NodeLifecycleControllerOptions } from './node-lifecycle-controller.js';

const T0 = Date.UTC(2025, 0, 1);
const iso = (ms: number): string => formatTime(ms);

function cond(type: string, status: string, heartbeat: number, transition = heartbeat): NodeCondition {
  return { type, status, lastHeartbeatTime: iso(heartbeat), lastTransitionTime: iso(transition) };
}

function newNode(name: string, opts: { created?: number; conditions?: NodeCondition[]; labels?: Record<string, string> } = {}): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, creationTimestamp: iso(opts.created ?? T0), labels: opts.labels ?? {} },
    spec: {},
    ...(opts.conditions ? { status: { conditions: opts.conditions } } : {}),
  };
}

function healthy(name: string, at: number, labels: Record<string, string> = {}): Node {
  return newNode(name, {
    labels,
    conditions: [cond('Ready', 'True', at), cond('MemoryPressure', 'False', at), cond('DiskPressure', 'False', at), cond('PIDPressure', 'False', at)],
  });
}

function lease(name: string, renew: number): Lease {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name, namespace: 'kube-node-lease' },
    spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: formatMicroTime(renew) },
  };
}

function readyPod(name: string, nodeName: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { nodeName, containers: [{ name: 'c', image: 'nginx' }] },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: iso(T0) }] },
  };
}

async function setup(objects: readonly unknown[], opts: Partial<NodeLifecycleControllerOptions> = {}) {
  const clock = new FakeClock(T0);
  const transport = await newFakeTransport({ clock, objects: objects as KubeObject[], rand: new SeededRand(7) });
  const client: Clientset = newClientset(transport);
  const informers = newSharedInformerFactory(client, { clock, rand: new SeededRand(3) });
  const recorder = new EventRecorder(client, { component: 'node-controller', clock, logger: silentLogger });
  const nc = new NodeLifecycleController({ client, informers, clock, recorder, logger: silentLogger, ...opts });
  informers.start();
  await informers.waitForCacheSync();
  const node = (name: string): Promise<Node> => client.core.nodes().get(name);
  const condition = async (name: string, type: string): Promise<NodeCondition | undefined> => (await node(name)).status?.conditions?.find((c) => c.type === type);
  const taints = async (name: string): Promise<string[]> => ((await node(name)).spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`).sort();
  /** One monitor pass, then the tainting pass, letting the informers catch up around them. */
  const pass = async (): Promise<void> => {
    await nc.monitorNodeHealth();
    await flushAsync(5);
    await nc.doNoExecuteTaintingPass();
    await flushAsync(5);
  };
  const step = async (ms: number): Promise<void> => {
    await clock.stepAsync(ms);
    await flushAsync(5);
  };
  return { clock, client, informers, nc, node, condition, taints, pass, step, recorder };
}

describe('monitorNodeHealth', () => {
  test('a node created recently without status is left alone (startup grace period)', async () => {
    const t = await setup([newNode('node0')]);
    await t.pass();
    await t.step(59_000);
    await t.pass();
    assert.equal((await t.node('node0')).status?.conditions, undefined);
  });

  test('a node that never posted status gets NodeStatusNeverUpdated after the startup grace period', async () => {
    const t = await setup([newNode('node0')]);
    await t.pass();
    await t.step(61_000);
    await t.pass();
    const conditions = (await t.node('node0')).status?.conditions ?? [];
    assert.deepEqual(
      conditions.map((c) => [c.type, c.status, c.reason, c.message, c.lastHeartbeatTime]),
      ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'].map((type) => [type, 'Unknown', 'NodeStatusNeverUpdated', 'Kubelet never posted node status.', iso(T0)]),
    );
  });

  test('a node whose status and lease stop for the grace period has every condition Unknown; a NetworkUnavailable one is kept', async () => {
    const n = healthy('node0', T0);
    const withNetwork: Node = { ...n, status: { conditions: [...(n.status?.conditions ?? []), cond('NetworkUnavailable', 'False', T0)] } };
    const t = await setup([withNetwork, lease('node0', T0)]);
    await t.pass();
    await t.step(50_000);
    await t.pass();
    assert.equal((await t.condition('node0', 'Ready'))?.status, 'True', 'not past the grace period yet');
    await t.step(1_000);
    await t.pass();
    const conditions = (await t.node('node0')).status?.conditions ?? [];
    for (const type of ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure']) {
      const c = conditions.find((x) => x.type === type);
      assert.deepEqual([c?.status, c?.reason, c?.message, c?.lastHeartbeatTime, c?.lastTransitionTime], ['Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.', iso(T0), iso(T0 + 51_000)], type);
    }
    assert.equal(conditions.find((c) => c.type === 'NetworkUnavailable')?.status, 'False');
    const events = (await t.client.core.events('').list()).items as readonly Event[];
    await t.recorder.flush();
    const all = [...events, ...(await t.client.core.events('').list()).items];
    assert.ok(all.some((e) => e.reason === 'NodeNotReady' && e.message === 'Node node0 status is now: NodeNotReady'));
    assert.ok(all.some((e) => e.reason === 'RegisteredNode' && e.message === 'Registered Node node0 in Controller'));
  });

  test('a renewed lease keeps the node healthy although its status is old (…WithLease)', async () => {
    const t = await setup([healthy('node0', T0), lease('node0', T0)]);
    await t.pass();
    for (let i = 0; i < 12; i++) {
      await t.step(10_000);
      const l = await t.client.coordination.leases('kube-node-lease').get('node0');
      await t.client.coordination.leases('kube-node-lease').update({ ...l, spec: { ...l.spec, renewTime: formatMicroTime(t.clock.now()) } });
      await flushAsync(5);
      await t.pass();
    }
    assert.equal((await t.condition('node0', 'Ready'))?.status, 'True', '120 s without a status update, but the lease was renewed');
    await t.step(51_000);
    await t.pass();
    assert.equal((await t.condition('node0', 'Ready'))?.status, 'Unknown', 'lease stopped too');
  });

  test('a newer Ready heartbeat counts as a probe (no lease)', async () => {
    const t = await setup([healthy('node0', T0)]);
    await t.pass();
    await t.step(40_000);
    const n = await t.node('node0');
    await t.client.core.nodes().updateStatus({ ...n, status: { conditions: [cond('Ready', 'True', T0 + 40_000, T0)] } });
    await flushAsync(5);
    await t.pass();
    await t.step(40_000);
    await t.pass();
    assert.equal((await t.condition('node0', 'Ready'))?.status, 'True');
  });

  test('the pods of a node turning Unknown are marked not Ready, with the NodeNotReady event (…MarkPodsNotReady)', async () => {
    const t = await setup([healthy('node0', T0), healthy('node1', T0), readyPod('p0', 'node0'), readyPod('p1', 'node1')]);
    await t.pass();
    await t.step(30_000);
    const n1 = await t.node('node1');
    await t.client.core.nodes().updateStatus({ ...n1, status: { conditions: [cond('Ready', 'True', T0 + 30_000)] } });
    await flushAsync(5);
    await t.pass();
    await t.step(25_000);
    await t.pass();
    const ready = async (name: string): Promise<string | undefined> => (await t.client.core.pods('default').get(name)).status?.conditions?.find((c) => c.type === 'Ready')?.status;
    assert.equal(await ready('p0'), 'False');
    assert.equal(await ready('p1'), 'True', 'its node is still healthy');
    await t.recorder.flush();
    const events = (await t.client.core.events('default').list()).items;
    assert.ok(events.some((e) => e.reason === 'NodeNotReady' && e.type === 'Warning' && e.message === 'Node is not ready' && e.involvedObject?.name === 'p0'));
    // A pod created on it later is marked too (processPod).
    const late = await t.client.core.pods('default').create(readyPod('late', 'node0'));
    await t.client.core.pods('default').updateStatus({ ...late, status: readyPod('late', 'node0').status });
    await flushAsync(5);
    const key = 'default/late';
    await t.nc.processPod(key);
    assert.equal(await ready('late'), 'False');
  });
});

describe('NoExecute taints', () => {
  test('Unknown → unreachable; Ready False → swapped to not-ready; Ready again → removed (TestApplyNoExecuteTaints, TestSwapUnreachableNotReadyTaints)', async () => {
    const t = await setup([healthy('node0', T0), healthy('node1', T0), healthy('node2', T0), lease('node1', T0), lease('node2', T0)]);
    await t.pass();
    await t.step(55_000);
    // node1 and node2 keep renewing.
    for (const name of ['node1', 'node2']) {
      const l = await t.client.coordination.leases('kube-node-lease').get(name);
      await t.client.coordination.leases('kube-node-lease').update({ ...l, spec: { ...l.spec, renewTime: formatMicroTime(t.clock.now()) } });
    }
    await flushAsync(5);
    await t.pass();
    assert.equal((await t.condition('node0', 'Ready'))?.status, 'Unknown');
    assert.deepEqual(await t.taints('node0'), [], 'tainted from the next pass on (the observed condition)');
    await t.step(5_000);
    await t.pass();
    assert.deepEqual(await t.taints('node0'), ['node.kubernetes.io/unreachable:NoExecute']);
    const taint = (await t.node('node0')).spec?.taints?.[0];
    assert.equal(taint?.timeAdded, iso(T0 + 60_000));

    // The kubelet reports Ready False: not-ready replaces unreachable.
    const n = await t.node('node0');
    await t.client.core.nodes().updateStatus({ ...n, status: { conditions: [cond('Ready', 'False', t.clock.now())] } });
    await flushAsync(5);
    await t.pass();
    await flushAsync(5);
    assert.deepEqual(await t.taints('node0'), ['node.kubernetes.io/not-ready:NoExecute']);

    // Ready again: no taint.
    await t.step(5_000);
    const n2 = await t.node('node0');
    await t.client.core.nodes().updateStatus({ ...n2, status: { conditions: [cond('Ready', 'True', t.clock.now())] } });
    await flushAsync(5);
    await t.pass();
    await flushAsync(5);
    assert.deepEqual(await t.taints('node0'), []);
  });

  test('a zone taints one node per 1/--node-eviction-rate seconds', async () => {
    const names = Array.from({ length: 10 }, (_, i) => `node${i}`);
    const t = await setup(names.flatMap((n) => [healthy(n, T0), lease(n, T0)]));
    await t.pass();
    await t.step(55_000);
    // Seven keep renewing, three stop (30 %: a Normal zone).
    for (const name of names.slice(3)) {
      const l = await t.client.coordination.leases('kube-node-lease').get(name);
      await t.client.coordination.leases('kube-node-lease').update({ ...l, spec: { ...l.spec, renewTime: formatMicroTime(t.clock.now()) } });
    }
    await flushAsync(5);
    await t.pass();
    await t.step(1_000);
    await t.pass();
    const tainted = async (): Promise<number> => (await Promise.all(names.slice(0, 3).map((n) => t.taints(n)))).filter((x) => x.length > 0).length;
    assert.equal(await tainted(), 1);
    assert.equal(t.nc.zoneState(''), 'Normal');
    await t.step(9_000);
    await t.nc.doNoExecuteTaintingPass();
    await flushAsync(5);
    assert.equal(await tainted(), 1, 'no token 9 s later');
    await t.step(1_000);
    await t.nc.doNoExecuteTaintingPass();
    await flushAsync(5);
    assert.equal(await tainted(), 2, 'the next one 10 s later');
    await t.step(10_000);
    await t.nc.doNoExecuteTaintingPass();
    await flushAsync(5);
    assert.equal(await tainted(), 3);
  });

  test('every zone fully disrupted: no tainting, and taints are removed (master disruption mode)', async () => {
    const t = await setup([healthy('node0', T0), healthy('node1', T0)]);
    await t.pass();
    await t.step(55_000);
    await t.pass();
    await t.step(5_000);
    await t.pass();
    assert.equal(t.nc.zoneState(''), 'FullDisruption');
    assert.deepEqual([...(await t.taints('node0')), ...(await t.taints('node1'))], []);
    assert.equal(t.nc.zoneNoExecuteTainter.get('')?.qps(), 0);
  });

  test('one zone fully disrupted while another is healthy keeps the normal rate (TestMonitorNodeHealthEvictPodsWithDisruption)', async () => {
    const zone = (z: string): Record<string, string> => ({ 'topology.kubernetes.io/region': 'region1', 'topology.kubernetes.io/zone': z });
    const t = await setup([healthy('a0', T0, zone('zone1')), healthy('b0', T0, zone('zone2')), lease('b0', T0)]);
    await t.pass();
    await t.step(55_000);
    const l = await t.client.coordination.leases('kube-node-lease').get('b0');
    await t.client.coordination.leases('kube-node-lease').update({ ...l, spec: { ...l.spec, renewTime: formatMicroTime(t.clock.now()) } });
    await flushAsync(5);
    await t.pass();
    await t.step(5_000);
    await t.pass();
    const z1 = getZoneKey(healthy('x', T0, zone('zone1')));
    assert.equal(t.nc.zoneState(z1), 'FullDisruption');
    assert.equal(t.nc.zoneNoExecuteTainter.get(z1)?.qps(), 0.1);
    assert.deepEqual(await t.taints('a0'), ['node.kubernetes.io/unreachable:NoExecute']);
  });
});

describe('zone states', () => {
  test('ComputeZoneState', async () => {
    const t = await setup([]);
    const c = (status: string): NodeCondition => ({ type: 'Ready', status });
    const cases: [string, (NodeCondition | undefined)[], [number, string]][] = [
      ['all ready', [c('True'), c('True')], [0, 'Normal']],
      ['none ready', [c('False'), c('Unknown')], [2, 'FullDisruption']],
      ['missing conditions count as not ready', [undefined], [1, 'FullDisruption']],
      ['2 of 3 not ready: not more than 2', [c('True'), c('False'), c('False')], [2, 'Normal']],
      ['3 of 5 (60 %)', [c('True'), c('True'), c('False'), c('False'), c('Unknown')], [3, 'PartialDisruption']],
      ['3 of 6 (50 %) is under 55 %', [c('True'), c('True'), c('True'), c('False'), c('False'), c('Unknown')], [3, 'Normal']],
    ];
    for (const [name, conditions, want] of cases) assert.deepEqual(t.nc.computeZoneState(conditions), want, name);
  });

  test('a partially disrupted large zone uses --secondary-node-eviction-rate, a small one stops', async () => {
    for (const [size, want] of [
      [60, 0.01],
      [10, 0],
    ] as const) {
      const names = Array.from({ length: size }, (_, i) => `node${i}`);
      const t = await setup(names.flatMap((n) => [healthy(n, T0), lease(n, T0)]));
      await t.pass();
      await t.step(55_000);
      // 40 % keep renewing: 60 % are not Ready.
      for (const name of names.slice(0, (size * 2) / 5)) {
        const l = await t.client.coordination.leases('kube-node-lease').get(name);
        await t.client.coordination.leases('kube-node-lease').update({ ...l, spec: { ...l.spec, renewTime: formatMicroTime(t.clock.now()) } });
      }
      await flushAsync(5);
      await t.pass();
      assert.equal(t.nc.zoneState(''), 'PartialDisruption', `${size} nodes`);
      assert.equal(t.nc.zoneNoExecuteTainter.get('')?.qps(), want, `${size} nodes`);
    }
  });

  test('getZoneKey: region and zone labels, beta names too, empty without', () => {
    assert.equal(getZoneKey(healthy('n', T0, { 'topology.kubernetes.io/region': 'r', 'topology.kubernetes.io/zone': 'z' })), 'r:\x00:z');
    assert.equal(getZoneKey(healthy('n', T0, { 'failure-domain.beta.kubernetes.io/zone': 'z' })), ':\x00:z');
    assert.equal(getZoneKey(healthy('n', T0)), '');
  });
});

describe('NoSchedule taints by condition (TestTaintsNodeByCondition)', () => {
  const cases: [string, NodeCondition[], boolean, string[]][] = [
    ['NetworkUnavailable is true', [cond('Ready', 'True', T0), cond('NetworkUnavailable', 'True', T0)], false, ['node.kubernetes.io/network-unavailable:NoSchedule']],
    [
      'NetworkUnavailable and MemoryPressure are true',
      [cond('Ready', 'True', T0), cond('NetworkUnavailable', 'True', T0), cond('MemoryPressure', 'True', T0)],
      false,
      ['node.kubernetes.io/memory-pressure:NoSchedule', 'node.kubernetes.io/network-unavailable:NoSchedule'],
    ],
    ['Ready is false', [cond('Ready', 'False', T0)], false, ['node.kubernetes.io/not-ready:NoSchedule']],
    ['Ready is unknown', [cond('Ready', 'Unknown', T0)], false, ['node.kubernetes.io/unreachable:NoSchedule']],
    ['DiskPressure and PIDPressure', [cond('Ready', 'True', T0), cond('DiskPressure', 'True', T0), cond('PIDPressure', 'True', T0)], false, ['node.kubernetes.io/disk-pressure:NoSchedule', 'node.kubernetes.io/pid-pressure:NoSchedule']],
    ['unschedulable', [cond('Ready', 'True', T0)], true, ['node.kubernetes.io/unschedulable:NoSchedule']],
  ];
  for (const [name, conditions, unschedulable, want] of cases) {
    test(name, async () => {
      const node: Node = { ...newNode('node0', { conditions }), spec: { unschedulable, taints: [{ key: 'user', value: 'x', effect: 'NoSchedule' }] } };
      const t = await setup([node]);
      await t.nc.doNoScheduleTaintingPass('node0');
      assert.deepEqual(await t.taints('node0'), ['user:NoSchedule', ...want].sort());
      // The condition clears: its taint goes, the user's stays.
      const n = await t.node('node0');
      await t.client.core.nodes().update({ ...n, spec: { ...n.spec, unschedulable: false } });
      const n2 = await t.node('node0');
      await t.client.core.nodes().updateStatus({ ...n2, status: { conditions: [cond('Ready', 'True', T0)] } });
      await flushAsync(5);
      await t.nc.doNoScheduleTaintingPass('node0');
      assert.deepEqual(await t.taints('node0'), ['user:NoSchedule']);
    });
  }
});
