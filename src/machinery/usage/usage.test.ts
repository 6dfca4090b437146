/**
 * The simulated usage model: the pod annotation split over containers by requests, a workload's load
 * divided over its Ready pods (nearest annotated owner, UID-checked), the 10 %-of-requests default and
 * its floors, and when metrics-server would have a value (10 s fresh-container rule, 15 s scrapes).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Container, MetaObject, Node, OwnerReference, Pod } from '../../api/index.js';
import { formatTime } from '../../util/clock/index.js';
import {
  CPU_LOAD_ANNOTATION,
  CPU_USAGE_ANNOTATION,
  MEMORY_LOAD_ANNOTATION,
  MEMORY_USAGE_ANNOTATION,
  NODE_OVERHEAD,
  UsageModel,
  cpuQuantity,
  lastScrape,
  memoryQuantity,
  nodeHasMetrics,
  parseUsage,
  podMetricsWindow,
  splitExactly,
  type OwnerResolver,
} from './index.js';

const Mi = 1024 * 1024;
const m = 1_000_000; // one millicore in nanocores
const T0 = Date.UTC(2025, 0, 1, 12, 0, 0);

function container(name: string, requests?: { cpu?: string; memory?: string }): Container {
  return { name, image: 'nginx', ...(requests ? { resources: { requests } } : {}) };
}

interface PodOpts {
  containers?: Container[];
  annotations?: Record<string, string>;
  owner?: MetaObject & { kind: string };
  ready?: boolean;
  phase?: string;
  nodeName?: string;
  startedAt?: number;
}

function pod(name: string, o: PodOpts = {}): Pod {
  const containers = o.containers ?? [container('c', { cpu: '100m', memory: '100Mi' })];
  const ownerReferences: OwnerReference[] | undefined = o.owner && [
    { apiVersion: 'apps/v1', kind: o.owner.kind, name: o.owner.metadata?.name ?? '', uid: o.owner.metadata?.uid ?? '', controller: true },
  ];
  return {
    metadata: { name, namespace: 'default', ...(o.annotations ? { annotations: o.annotations } : {}), ...(ownerReferences ? { ownerReferences } : {}) },
    spec: { containers, ...(o.nodeName ? { nodeName: o.nodeName } : {}) },
    status: {
      phase: o.phase ?? 'Running',
      conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }],
      containerStatuses: containers.map((c) => ({
        name: c.name,
        image: c.image ?? '',
        imageID: '',
        ready: o.ready !== false,
        restartCount: 0,
        state: { running: { startedAt: formatTime(o.startedAt ?? T0) } },
      })),
    },
  };
}

function workload(kind: string, name: string, uid: string, annotations?: Record<string, string>, owner?: MetaObject & { kind: string }): MetaObject & { kind: string } {
  return {
    kind,
    metadata: {
      name,
      namespace: 'default',
      uid,
      ...(annotations ? { annotations } : {}),
      ...(owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: owner.kind, name: owner.metadata?.name ?? '', uid: owner.metadata?.uid ?? '', controller: true }] } : {}),
    },
  };
}

/** An owner resolver over `objects`, by kind and name. */
function resolverOf(...objects: (MetaObject & { kind: string })[]): OwnerResolver {
  return (_ns, ref) => objects.find((o) => o.kind === ref.kind && o.metadata?.name === ref.name);
}

const none: OwnerResolver = () => undefined;

describe('usage of a Running pod', () => {
  test('default: 10 % of each container request; 1m CPU / 4Mi memory without one', () => {
    const p = pod('a', { containers: [container('app', { cpu: '200m', memory: '100Mi' }), container('side')] });
    assert.deepEqual(new UsageModel([p], none).containerUsage(p), [
      { name: 'app', usage: { cpu: 20 * m, memory: 10 * Mi } },
      { name: 'side', usage: { cpu: 1 * m, memory: 4 * Mi } },
    ]);
    assert.deepEqual(new UsageModel([p], none).podUsage(p), { cpu: 21 * m, memory: 14 * Mi });
  });

  test('pods that are not Running have no usage', () => {
    for (const phase of ['Pending', 'Succeeded', 'Failed']) {
      const p = pod('a', { phase });
      assert.equal(new UsageModel([p], none).containerUsage(p), undefined, phase);
    }
  });

  test('the pod annotations: the total split over containers by requests, evenly without them', () => {
    const p = pod('a', {
      annotations: { [CPU_USAGE_ANNOTATION]: '400m', [MEMORY_USAGE_ANNOTATION]: '64Mi' },
      containers: [container('one', { cpu: '100m' }), container('three', { cpu: '300m' })],
    });
    assert.deepEqual(new UsageModel([p], none).containerUsage(p), [
      { name: 'one', usage: { cpu: 100 * m, memory: 32 * Mi } },
      { name: 'three', usage: { cpu: 300 * m, memory: 32 * Mi } },
    ]);
  });

  test('each resource on its own: a cpu annotation leaves memory at the default; a malformed or negative one is ignored', () => {
    const p = pod('a', { annotations: { [CPU_USAGE_ANNOTATION]: '1', [MEMORY_USAGE_ANNOTATION]: 'lots' } });
    assert.deepEqual(new UsageModel([p], none).podUsage(p), { cpu: 1000 * m, memory: 10 * Mi });
    const q = pod('b', { annotations: { [CPU_USAGE_ANNOTATION]: '-1' } });
    assert.deepEqual(new UsageModel([q], none).podUsage(q), { cpu: 10 * m, memory: 10 * Mi });
    const zero = pod('c', { annotations: { [CPU_USAGE_ANNOTATION]: '0' } });
    assert.deepEqual(new UsageModel([zero], none).podUsage(zero), { cpu: 0, memory: 10 * Mi });
  });
});

describe('a workload load', () => {
  const deploy = workload('Deployment', 'web', 'd-uid', { [CPU_LOAD_ANNOTATION]: '1', [MEMORY_LOAD_ANNOTATION]: '1Gi' });
  const rs = workload('ReplicaSet', 'web-1', 'rs-uid', undefined, deploy);

  test('is divided evenly over the Ready pods, pod → ReplicaSet → Deployment; scaling out lowers each share', () => {
    const four = ['a', 'b', 'c', 'd'].map((n) => pod(`web-${n}`, { owner: rs }));
    const model = new UsageModel(four, resolverOf(deploy, rs));
    for (const p of four) assert.deepEqual(model.podUsage(p), { cpu: 250 * m, memory: 256 * Mi });
    const five = [...four, pod('web-e', { owner: rs })];
    const more = new UsageModel(five, resolverOf(deploy, rs));
    // 1Gi / 5 = 214748364.8 bytes: the first four pods by name get the 4 bytes left over.
    assert.deepEqual(
      five.map((p) => more.podUsage(p)),
      [...Array<number>(4).fill(214_748_365), 214_748_364].map((memory) => ({ cpu: 200 * m, memory })),
    );
  });

  test('exactly: the first pods by name get the remainder; a pod that is not Ready gets none (the default)', () => {
    const pods = [pod('web-c', { owner: rs }), pod('web-a', { owner: rs }), pod('web-b', { owner: rs }), pod('web-x', { owner: rs, ready: false })];
    const model = new UsageModel(pods, resolverOf(deploy, rs));
    assert.deepEqual(
      pods.map((p) => model.podUsage(p)?.cpu),
      [333_333_333, 333_333_334, 333_333_333, 10 * m],
    );
  });

  test('only the workload at the top holds the load (a copy on its ReplicaSet is ignored); the pod annotation comes first', () => {
    // The Deployment controller copies the Deployment's annotations onto its ReplicaSets, and keeps
    // them there when the Deployment loses them.
    const copy = workload('ReplicaSet', 'web-2', 'rs2-uid', { [CPU_LOAD_ANNOTATION]: '100m' }, deploy);
    const cleared = workload('Deployment', 'api', 'api-uid');
    const stale = workload('ReplicaSet', 'api-1', 'api1-uid', { [CPU_LOAD_ANNOTATION]: '3' }, cleared);
    const standalone = workload('ReplicaSet', 'lone', 'lone-uid', { [CPU_LOAD_ANNOTATION]: '30m' });
    const pods = [
      pod('x', { owner: copy }),
      pod('y', { owner: rs }),
      pod('z', { owner: rs, annotations: { [CPU_USAGE_ANNOTATION]: '5m' } }),
      pod('api-a', { owner: stale }),
      pod('lone-a', { owner: standalone }),
    ];
    const model = new UsageModel(pods, resolverOf(deploy, rs, copy, cleared, stale, standalone));
    // x, y and z share the Deployment's 1 over its three Ready pods, across both ReplicaSets; z
    // reports its own annotation. api-a's Deployment has no load: the default. A ReplicaSet of its own
    // is the workload.
    assert.deepEqual(
      pods.map((p) => model.podUsage(p)?.cpu),
      [333_333_334, 333_333_333, 5 * m, 10 * m, 30 * m],
    );
    assert.equal(model.workloadOf(pods[0] as Pod)?.metadata?.name, 'web');
    assert.equal(model.workloadOf(pod('bare')), undefined);
  });

  test('an owner whose UID differs from the reference is not the owner', () => {
    const impostor = workload('ReplicaSet', 'web-1', 'other-uid', { [CPU_LOAD_ANNOTATION]: '1' });
    const p = pod('a', { owner: rs });
    assert.deepEqual(new UsageModel([p], resolverOf(impostor)).podUsage(p), { cpu: 10 * m, memory: 10 * Mi });
  });

  test('the split follows requests inside the pod', () => {
    const sts = workload('StatefulSet', 'db', 's-uid', { [CPU_LOAD_ANNOTATION]: '900m' });
    const p = pod('db-0', { owner: sts, containers: [container('db', { cpu: '200m' }), container('proxy', { cpu: '100m' })] });
    assert.deepEqual(
      new UsageModel([p], resolverOf(sts)).containerUsage(p)?.map((c) => c.usage.cpu),
      [600 * m, 300 * m],
    );
  });
});

test('a node uses its overhead plus its Running pods', () => {
  const pods = [pod('a', { nodeName: 'n1' }), pod('b', { nodeName: 'n1', annotations: { [CPU_USAGE_ANNOTATION]: '1' } }), pod('c', { nodeName: 'n2' }), pod('d', { nodeName: 'n1', phase: 'Pending' })];
  const model = new UsageModel(pods, none);
  assert.deepEqual(model.nodeUsage('n1'), { cpu: NODE_OVERHEAD.cpu + 10 * m + 1000 * m, memory: NODE_OVERHEAD.memory + 20 * Mi });
  assert.deepEqual(model.nodeUsage('empty'), { ...NODE_OVERHEAD });
  const ready = (status: string): Node => ({ metadata: { name: 'n' }, status: { conditions: [{ type: 'Ready', status }] } });
  assert.equal(nodeHasMetrics(ready('True')), true);
  assert.equal(nodeHasMetrics(ready('Unknown')), false);
  assert.equal(nodeHasMetrics({ metadata: { name: 'n' } }), false);
});

describe('when metrics-server has metrics', () => {
  test('scrapes every 15 s', () => {
    assert.equal(lastScrape(T0 + 14_999), T0);
    assert.equal(lastScrape(T0 + 15_000), T0 + 15_000);
  });

  test('a container needs 10 s before a scrape; the window is its age up to 15 s', () => {
    const at = (started: number): ReturnType<typeof podMetricsWindow> => podMetricsWindow(pod('a', { startedAt: T0 - started }), T0);
    assert.equal(at(9_000), undefined);
    assert.deepEqual(at(10_000), { windowMs: 10_000, containers: ['c'] });
    assert.deepEqual(at(12_000), { windowMs: 12_000, containers: ['c'] });
    assert.deepEqual(at(60_000), { windowMs: 15_000, containers: ['c'] });
  });

  test('containers not running are left out; a pod without a running container, or not Running, has none', () => {
    const p = pod('a', { containers: [container('app'), container('side')], startedAt: T0 - 60_000 });
    const waiting = structuredClone(p);
    const side = waiting.status?.containerStatuses?.[1];
    if (side) side.state = { waiting: { reason: 'CrashLoopBackOff' } };
    assert.deepEqual(podMetricsWindow(waiting, T0), { windowMs: 15_000, containers: ['app'] });
    for (const s of waiting.status?.containerStatuses ?? []) s.state = { waiting: { reason: 'ContainerCreating' } };
    assert.equal(podMetricsWindow(waiting, T0), undefined);
    assert.equal(podMetricsWindow(pod('b', { phase: 'Succeeded', startedAt: T0 - 60_000 }), T0), undefined);
  });
});

test('quantities as metrics-server writes them, and splits that add up', () => {
  assert.equal(cpuQuantity(250 * m), '250m');
  assert.equal(cpuQuantity(1000 * m), '1');
  assert.equal(cpuQuantity(333_333_334), '333333334n');
  assert.equal(cpuQuantity(0), '0');
  assert.equal(memoryQuantity(64 * Mi), '64Mi');
  assert.equal(memoryQuantity(13432 * 1024), '13432Ki');
  assert.equal(memoryQuantity(6_710_886), '6710886');
  assert.equal(memoryQuantity(1000), '1000');
  assert.equal(parseUsage('250m', 'cpu'), 250 * m);
  assert.equal(parseUsage('1.5Gi', 'memory'), 1536 * Mi);
  assert.equal(parseUsage('x', 'cpu'), undefined);
  assert.deepEqual(splitExactly(10, [1, 1, 1]), [4, 3, 3]);
  assert.deepEqual(splitExactly(10, [1, 0]), [5, 5]);
  assert.deepEqual(splitExactly(1_000_000_000_000, [3, 1]), [750_000_000_000, 250_000_000_000]);
  assert.deepEqual(splitExactly(7, []), []);
});
