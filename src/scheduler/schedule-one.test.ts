import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SeededRand } from '../util/random/index.js';
import { SchedulerCache } from './cache.js';
import type { PodDisruptionBudget } from '../api/index.js';
import type { Lister } from '../informers/index.js';
import { FakeClock } from '../util/clock/index.js';
import { newProfile, runPreFilterPlugins } from './framework.js';
import { CycleState, defaultFilterPlugins, defaultScorePlugins } from './plugins/index.js';
import { DefaultPreemption } from './preemption/default-preemption.js';
import { FitError, findNodesThatFitPod, numFeasibleNodesToFind, prioritizeNodes, selectHost } from './schedule-one.js';
import { makeNode, makePod, nodeInfo, podInfo } from './testing/fixtures.js';

/**
 * Schedules `pod` against the cache (assuming it) and returns the node name, or the FitError with
 * the DefaultPreemption PostFilter's message (no API calls: these tests have nothing to evict).
 */
function scheduleInto(cache: SchedulerCache, pod: ReturnType<typeof makePod>, rand = new SeededRand(7)): string | FitError {
  const info = podInfo(pod);
  const state = new CycleState();
  const rejected = runPreFilterPlugins(newProfile(defaultFilterPlugins).preFilter, info, state, cache);
  if (rejected) return new FitError(info, cache.nodes().length, new Map(cache.nodes().map((n) => [n.name, rejected])));
  const { feasible, statuses } = findNodesThatFitPod(info, cache.nodes(), 0, defaultFilterPlugins, state);
  if (feasible.length === 0) {
    const preemption = new DefaultPreemption({
      client: undefined as never,
      recorder: undefined as never,
      clock: new FakeClock(),
      rand,
      pdbLister: { list: () => [] } as unknown as Lister<PodDisruptionBudget>,
      nominated: () => [],
      getNodeInfo: (n) => cache.getNodeInfo(n),
    });
    const post = cache.nodes().length > 0 ? preemption.postFilter(newProfile(defaultFilterPlugins), state, info, statuses, cache.nodes()).message : undefined;
    return new FitError(info, cache.nodes().length, statuses, undefined, post);
  }
  const host = selectHost(feasible, prioritizeNodes(info, feasible, defaultScorePlugins, state, cache), rand);
  cache.assumePod(info, host.name);
  return host.name;
}

describe('numFeasibleNodesToFind', () => {
  const cases: Array<[number, number]> = [
    [0, 0],
    [50, 50],
    [99, 99],
    [100, 100],
    [1000, 420],
    [5000, 500],
    [6000, 300],
    [10000, 500],
  ];
  for (const [n, want] of cases) test(`${n} nodes ⇒ ${want}`, () => assert.equal(numFeasibleNodesToFind(n), want));
});

describe('findNodesThatFitPod', () => {
  test('stops after enough feasible nodes and reports how many it examined', () => {
    const nodes = Array.from({ length: 1000 }, (_, i) => nodeInfo(makeNode(`n${i}`)));
    // The per-node filters only (the PreFilter ones need their cycle state).
    const r = findNodesThatFitPod(podInfo(makePod('p')), nodes, 990, defaultFilterPlugins.filter((p) => !p.preFilter));
    assert.equal(r.feasible.length, 420);
    assert.equal(r.processed, 420);
    assert.equal(r.feasible[0]?.name, 'n990');
    assert.equal(r.feasible[10]?.name, 'n0');
  });
});

describe('spreading', () => {
  test('6 replicas of one ReplicaSet over 3 equal nodes land 2/2/2', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const cache = new SchedulerCache();
      for (const n of ['a', 'b', 'c']) cache.addOrUpdateNode(makeNode(n));
      const rand = new SeededRand(seed);
      const counts = new Map<string, number>();
      for (let i = 0; i < 6; i++) {
        const host = scheduleInto(cache, makePod(`web-${i}`, { ownerUID: 'rs-1', requests: { cpu: '100m' } }), rand);
        assert.equal(typeof host, 'string');
        counts.set(host as string, (counts.get(host as string) ?? 0) + 1);
      }
      assert.deepEqual([...counts.values()], [2, 2, 2], `seed ${seed}: ${JSON.stringify([...counts])}`);
    }
  });

  test('ties are broken by the injected Rand: different seeds pick different first nodes', () => {
    const firsts = new Set<string>();
    for (let seed = 1; seed <= 20; seed++) {
      const cache = new SchedulerCache();
      for (const n of ['a', 'b', 'c']) cache.addOrUpdateNode(makeNode(n));
      firsts.add(scheduleInto(cache, makePod('p'), new SeededRand(seed)) as string);
    }
    assert.deepEqual([...firsts].sort(), ['a', 'b', 'c']);
  });
});

describe('FitError message', () => {
  test('aggregates reasons and adds the preemption summary, as upstream', () => {
    const cache = new SchedulerCache();
    for (const n of ['a', 'b', 'c']) cache.addOrUpdateNode(makeNode(n, { cpu: '1' }));
    const err = scheduleInto(cache, makePod('big', { requests: { cpu: '2' } }));
    assert.ok(err instanceof FitError);
    assert.equal(
      err.message,
      '0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.',
    );
  });

  test('mixes unresolvable and resource reasons, sorted as strings', () => {
    const cache = new SchedulerCache();
    cache.addOrUpdateNode(makeNode('a', { cpu: '1' }));
    cache.addOrUpdateNode(makeNode('b', { cpu: '1' }));
    cache.addOrUpdateNode(makeNode('c', { taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] }));
    const err = scheduleInto(cache, makePod('big', { requests: { cpu: '2' } }));
    assert.ok(err instanceof FitError);
    assert.equal(
      err.message,
      '0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. ' +
        'preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.',
    );
  });

  test('preemptionPolicy Never', () => {
    const cache = new SchedulerCache();
    cache.addOrUpdateNode(makeNode('a', { cpu: '1' }));
    const err = scheduleInto(cache, makePod('big', { requests: { cpu: '2' }, spec: { preemptionPolicy: 'Never' } }));
    // defaultpreemption PostFilter prefixes every message with "preemption: ".
    assert.equal((err as FitError).message, '0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.');
  });

  test('no nodes at all', () => {
    const err = scheduleInto(new SchedulerCache(), makePod('p'));
    assert.equal((err as FitError).message, 'no nodes available to schedule pods');
  });
});

describe('SchedulerCache', () => {
  test('assumed pods count until forgotten; confirmation replaces them', () => {
    const cache = new SchedulerCache();
    cache.addOrUpdateNode(makeNode('a', { cpu: '1' }));
    const pod = makePod('p', { requests: { cpu: '600m' } });
    assert.equal(scheduleInto(cache, pod), 'a');
    assert.equal(cache.isAssumed(pod.metadata?.uid ?? ''), true);
    assert.ok(scheduleInto(cache, makePod('q', { requests: { cpu: '600m' } })) instanceof FitError);
    cache.addOrUpdatePod({ ...pod, spec: { ...pod.spec!, nodeName: 'a' } });
    assert.equal(cache.isAssumed(pod.metadata?.uid ?? ''), false);
    assert.equal(cache.getNodeInfo('a')?.requested.milliCPU, 600);
    cache.removePod(pod.metadata?.uid ?? '');
    assert.equal(cache.getNodeInfo('a')?.requested.milliCPU, 0);
  });

  test('forgetPod undoes an assumption', () => {
    const cache = new SchedulerCache();
    cache.addOrUpdateNode(makeNode('a'));
    const pod = makePod('p', { requests: { cpu: '1' } });
    scheduleInto(cache, pod);
    cache.forgetPod(pod.metadata?.uid ?? '');
    assert.equal(cache.getNodeInfo('a')?.requested.milliCPU, 0);
    assert.equal(cache.podCount(), 0);
  });

  test('pods on a node not yet seen are kept and counted once it appears; removed nodes leave the list', () => {
    const cache = new SchedulerCache();
    const pod = makePod('p', { requests: { cpu: '1' }, spec: { nodeName: 'late' } });
    cache.addOrUpdatePod(pod);
    assert.equal(cache.nodes().length, 0);
    cache.addOrUpdateNode(makeNode('late'));
    assert.equal(cache.nodes().length, 1);
    assert.equal(cache.getNodeInfo('late')?.requested.milliCPU, 1000);
    cache.addOrUpdateNode(makeNode('other'));
    cache.removeNode('late');
    assert.deepEqual(cache.nodes().map((n) => n.name), ['other']);
    assert.equal(cache.getNodeInfo('late')?.pods.size, 1);
  });
});
