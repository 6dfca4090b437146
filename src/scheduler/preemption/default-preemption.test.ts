/**
 * The pure steps of DefaultPreemption, with cases ported from upstream v1.33
 * pkg/scheduler/framework/plugins/defaultpreemption/default_preemption_test.go
 * (TestSelectNodesForPreemption / TestDryRunPreemption, TestPickOneNodeForPreemption,
 * TestPodEligibleToPreemptOthers, TestNodesWherePreemptionMightHelp, TestPreempt; the cases "pod with
 * anti-affinity is preempted" and "preemption to resolve pod topology spread filter failure" run the
 * real InterPodAffinity / PodTopologySpread PreFilter and their AddPod/RemovePod extensions) and
 * pkg/scheduler/framework/preemption/preemption_test.go (TestFilterPodsWithPDBViolation via
 * SelectVictimsOnNode, TestGetOffsetAndNumCandidates / calculateNumCandidates).
 *
 * Upstream's sizes: nodes of 500m cpu / 500 memory ("veryLargeRes"); pods small 100m/100, medium
 * 200m/200, large 300m/300, veryLarge 500m/500; priorities neg −100, low 0, mid 100, high 1000,
 * veryHigh 10000.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod, PodDisruptionBudget } from '../../api/index.js';
import type { Lister } from '../../informers/index.js';
import { FakeClock } from '../../util/clock/index.js';
import { SeededRand } from '../../util/random/index.js';
import { SchedulerCache } from '../cache.js';
import { newProfile, runFilterPlugins, runPreFilterPlugins } from '../framework.js';
import { newPodInfo, type NodeInfo } from '../node-info.js';
import {
  CycleState,
  ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
  InterPodAffinity,
  nodeResourcesFit,
  PodTopologySpread,
  unresolvable,
  unschedulable,
  type FilterStatus,
  type Plugin,
} from '../plugins/index.js';
import { makeNode, makePod, nodeInfo } from '../testing/fixtures.js';
import {
  calculateNumCandidates,
  DefaultPreemption,
  dryRunPreemption,
  filterPodsWithPDBViolation,
  pickOneNodeForPreemption,
  podEligibleToPreemptOthers,
  selectCandidate,
  type PreemptionFramework,
} from './default-preemption.js';

const NEG = -100;
const LOW = 0;
const MID = 100;
const HIGH = 1000;
const VERY_HIGH = 10000;
const SIZES = { small: '100m', medium: '200m', large: '300m', veryLarge: '500m' } as const;
type Size = keyof typeof SIZES;
const NOW = Date.UTC(2019, 0, 10);

/** A pod of `size` and `priority`, bound to `node` when given, started at `start` (ISO) when given. */
function pod(name: string, size: Size, priority: number, opts: { node?: string; start?: string; labels?: Record<string, string>; extra?: Partial<Pod['spec']> } = {}): Pod {
  const mem = String(parseInt(SIZES[size], 10));
  const p = makePod(name, {
    uid: name,
    requests: { cpu: SIZES[size], memory: mem },
    spec: { priority, ...(opts.node ? { nodeName: opts.node } : {}), ...opts.extra },
  });
  if (opts.labels) p.metadata = { ...p.metadata, labels: opts.labels };
  return opts.start ? { ...p, status: { startTime: opts.start } } : p;
}

/** NodeInfos of 500m / 500 memory nodes with the bound pods on them. */
function nodes(names: readonly string[], pods: readonly Pod[]): NodeInfo[] {
  return names.map((n) => nodeInfo(makeNode(n, { cpu: '500m', memory: '500' }), ...pods.filter((p) => p.spec?.nodeName === n)));
}

const fw: PreemptionFramework = { profile: newProfile([nodeResourcesFit]) };

/** DryRunPreemption over every node from offset 0, then SelectCandidate. */
function preemptOn(names: readonly string[], preemptor: Pod, pods: readonly Pod[], pdbs: PodDisruptionBudget[] = []) {
  const infos = nodes(names, pods);
  const { candidates, statuses } = dryRunPreemption(fw, new CycleState(), newPodInfo(preemptor), infos, pdbs, 0, calculateNumCandidates(infos.length), NOW);
  return { candidates, statuses, best: selectCandidate(candidates, NOW) };
}

const victimNames = (pods: readonly Pod[]) => pods.map((p) => p.metadata?.name);

const pdb = (selector: Record<string, string>, disruptionsAllowed: number, disruptedPods?: Record<string, string>): PodDisruptionBudget => ({
  metadata: { name: 'pdb', namespace: 'default' },
  spec: { selector: { matchLabels: selector } },
  status: { disruptionsAllowed, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0, ...(disruptedPods ? { disruptedPods } : {}) },
});

describe('SelectVictimsOnNode / DryRunPreemption (upstream TestDryRunPreemption)', () => {
  test('no pod of lower priority anywhere: no candidates, "No preemption victims found" per node', () => {
    const { candidates, statuses } = preemptOn(['node1', 'node2'], pod('p', 'large', HIGH), [pod('a', 'large', HIGH, { node: 'node1' }), pod('b', 'large', VERY_HIGH, { node: 'node2' })]);
    assert.equal(candidates.length, 0);
    assert.deepEqual([...statuses.values()].map((s) => [s.code, s.reasons]), [
      ['UnschedulableAndUnresolvable', ['No preemption victims found for incoming pod']],
      ['UnschedulableAndUnresolvable', ['No preemption victims found for incoming pod']],
    ]);
  });

  test('a pod that fits with victims on 2 nodes', () => {
    const { candidates } = preemptOn(['node1', 'node2'], pod('p', 'large', HIGH), [pod('p1', 'large', MID, { node: 'node1' }), pod('p2', 'large', MID, { node: 'node2' })]);
    assert.deepEqual(
      candidates.map((c) => [c.name, victimNames(c.victims.pods), c.victims.numPDBViolations]),
      [
        ['node1', ['p1'], 0],
        ['node2', ['p2'], 0],
      ],
    );
  });

  test('a pod that fits on one node with no preemption needed on the other: only the node with victims is a candidate', () => {
    const { candidates } = preemptOn(['node1', 'node2'], pod('p', 'small', HIGH), [pod('p1', 'veryLarge', MID, { node: 'node1' })].concat([]));
    assert.deepEqual(candidates.map((c) => [c.name, victimNames(c.victims.pods)]), [['node1', ['p1']]]);
  });

  test('a pod that fits on one node, the other has a pod of equal priority only', () => {
    const { candidates, statuses } = preemptOn(['node1', 'node2'], pod('p', 'large', HIGH), [pod('p1', 'large', MID, { node: 'node1' }), pod('p2', 'large', HIGH, { node: 'node2' })]);
    assert.deepEqual(candidates.map((c) => [c.name, victimNames(c.victims.pods)]), [['node1', ['p1']]]);
    assert.equal(statuses.get('node2')?.code, 'UnschedulableAndUnresolvable');
  });

  test('a pod that fits on both nodes with lower-priority pods, reprieving as many as possible (higher priority first)', () => {
    // node1: p1.1 small mid, p1.2 large low → evicting p1.2 (300m) suffices for a large pod? 500-100=400 ≥ 300 ✓.
    const { candidates } = preemptOn(['node1', 'node2'], pod('p', 'large', HIGH), [
      pod('p1.1', 'small', MID, { node: 'node1' }),
      pod('p1.2', 'medium', LOW, { node: 'node1' }),
      pod('p2.1', 'large', LOW, { node: 'node2' }),
      pod('p2.2', 'small', MID, { node: 'node2' }),
    ]);
    assert.deepEqual(
      candidates.map((c) => [c.name, victimNames(c.victims.pods)]),
      [
        ['node1', ['p1.2']],
        ['node2', ['p2.1']],
      ],
    );
  });

  test('mixed priorities: only pods of lower priority than the preemptor are considered (upstream "pod with higher priority is not preempted")', () => {
    const { candidates } = preemptOn(['node1'], pod('p', 'medium', MID), [pod('p1.1', 'small', LOW, { node: 'node1' }), pod('p1.2', 'large', HIGH, { node: 'node1' }), pod('p1.3', 'small', LOW, { node: 'node1' })]);
    // 500 - 300 (high, stays) = 200 ⇒ both low pods must go.
    assert.deepEqual(victimNames(candidates[0]?.victims.pods ?? []), ['p1.1', 'p1.3']);
  });

  test('victims are the least important: an older pod of equal priority is reprieved before a newer one', () => {
    const { candidates } = preemptOn(['node1'], pod('p', 'large', HIGH), [
      pod('new', 'medium', MID, { node: 'node1', start: '2019-01-05T00:00:00Z' }),
      pod('old', 'medium', MID, { node: 'node1', start: '2019-01-01T00:00:00Z' }),
    ]);
    assert.deepEqual(victimNames(candidates[0]?.victims.pods ?? []), ['new']);
  });

  test('preemption with violation of same pdb', () => {
    const { candidates } = preemptOn(
      ['node1'],
      pod('p', 'veryLarge', HIGH),
      [pod('p1.1', 'medium', MID, { node: 'node1', labels: { app: 'foo' } }), pod('p1.2', 'medium', MID, { node: 'node1', labels: { app: 'foo' } })],
      [pdb({ app: 'foo' }, 1)],
    );
    // Equal priority and no start time: upstream's order between the two depends on time.Now() calls
    // inside the sort; only the set matters.
    assert.deepEqual(candidates.map((c) => [c.name, victimNames(c.victims.pods).sort(), c.victims.numPDBViolations]), [['node1', ['p1.1', 'p1.2'], 1]]);
  });

  test('preemption with violation of the pdb with pod whose eviction was processed, the victim does not count as a violation', () => {
    const { candidates } = preemptOn(
      ['node1'],
      pod('p', 'veryLarge', HIGH),
      [pod('p1.1', 'medium', MID, { node: 'node1', labels: { app: 'foo' } }), pod('p1.2', 'medium', MID, { node: 'node1', labels: { app: 'foo' } })],
      [pdb({ app: 'foo' }, 1, { 'p1.2': '2019-01-01T00:00:00Z' })],
    );
    assert.deepEqual(candidates.map((c) => [victimNames(c.victims.pods), c.victims.numPDBViolations]), [[['p1.1', 'p1.2'], 0]]);
  });

  test('preemption with violation of the pdb: a PDB-protected victim is reprieved first when one victim suffices', () => {
    // A large pod needs 300m: evicting either medium pod (200m) plus the small one frees enough; the
    // protected pod is considered for reprieve first and kept.
    const { candidates } = preemptOn(
      ['node1'],
      pod('p', 'large', HIGH),
      [
        pod('guarded', 'medium', MID, { node: 'node1', labels: { app: 'foo' } }),
        pod('free', 'medium', MID, { node: 'node1' }),
        pod('tiny', 'small', LOW, { node: 'node1' }),
      ],
      [pdb({ app: 'foo' }, 0)],
    );
    assert.deepEqual(candidates.map((c) => [victimNames(c.victims.pods), c.victims.numPDBViolations]), [[['free', 'tiny'], 0]]);
  });

  test('candidates without PDB violations come first; the search stops at numCandidates once one exists', () => {
    const pods = [
      pod('a', 'veryLarge', MID, { node: 'node1', labels: { app: 'foo' } }),
      pod('b', 'veryLarge', MID, { node: 'node2' }),
      pod('c', 'veryLarge', MID, { node: 'node3' }),
    ];
    const infos = nodes(['node1', 'node2', 'node3'], pods);
    const { candidates } = dryRunPreemption(fw, new CycleState(), newPodInfo(pod('p', 'large', HIGH)), infos, [pdb({ app: 'foo' }, 0)], 0, 2, NOW);
    assert.deepEqual(
      candidates.map((c) => [c.name, c.victims.numPDBViolations]),
      [
        ['node2', 0],
        ['node1', 1],
      ],
    );
    // From offset 1: node2 (non-violating), node3 (non-violating) ⇒ 2 found, node1 never examined.
    const fromOffset = dryRunPreemption(fw, new CycleState(), newPodInfo(pod('p', 'large', HIGH)), infos, [pdb({ app: 'foo' }, 0)], 1, 2, NOW);
    assert.deepEqual(fromOffset.candidates.map((c) => c.name), ['node2', 'node3']);
  });

  test('nominated pods of higher priority count on their node during the dry run', () => {
    const infos = nodes(['node1'], [pod('low', 'large', LOW, { node: 'node1' })]);
    const nominee = newPodInfo(pod('nominee', 'large', VERY_HIGH));
    const withNominated: PreemptionFramework = { ...fw, nominated: (n) => (n === 'node1' ? [nominee] : []) };
    const r = dryRunPreemption(withNominated, new CycleState(), newPodInfo(pod('p', 'large', HIGH)), infos, [], 0, 1, NOW);
    assert.equal(r.candidates.length, 0, 'the nominee keeps 300m: another 300m never fits');
    assert.deepEqual(r.statuses.get('node1')?.reasons, ['Insufficient cpu', 'Insufficient memory']);
  });

  test('the NodeInfos the dry run reads are not changed', () => {
    const infos = nodes(['node1'], [pod('a', 'large', LOW, { node: 'node1' }), pod('b', 'small', LOW, { node: 'node1' })]);
    const r = dryRunPreemption(fw, new CycleState(), newPodInfo(pod('p', 'large', HIGH)), infos, [], 0, 1, NOW);
    assert.deepEqual(victimNames(r.candidates[0]?.victims.pods ?? []), ['a']);
    assert.equal(infos[0]!.pods.size, 2);
    assert.equal(infos[0]!.requested.milliCPU, 400);
  });
});

describe('pickOneNodeForPreemption (upstream TestPickOneNodeForPreemption)', () => {
  const three = ['machine1', 'machine2', 'machine3'];
  const cases: Array<[string, string[], Pod, Pod[], string[]]> = [
    [
      'a pod that fits on both machines when lower priority pods are preempted',
      ['machine1', 'machine2'],
      pod('p', 'large', HIGH),
      [pod('m1.1', 'large', MID, { node: 'machine1' }), pod('m2.1', 'large', MID, { node: 'machine2' })],
      ['machine1', 'machine2'],
    ],
    [
      'machine with min highest priority pod is picked',
      three,
      pod('p', 'veryLarge', HIGH),
      [
        pod('m1.1', 'medium', MID, { node: 'machine1' }),
        pod('m1.2', 'large', MID, { node: 'machine1' }),
        pod('m2.1', 'medium', MID, { node: 'machine2' }),
        pod('m2.2', 'medium', LOW, { node: 'machine2' }),
        pod('m3.1', 'medium', LOW, { node: 'machine3' }),
        pod('m3.2', 'medium', LOW, { node: 'machine3' }),
      ],
      ['machine3'],
    ],
    [
      'when highest priorities are the same, minimum sum of priorities is picked',
      three,
      pod('p', 'veryLarge', HIGH),
      [
        pod('m1.1', 'medium', MID, { node: 'machine1' }),
        pod('m1.2', 'large', MID, { node: 'machine1' }),
        pod('m2.1', 'large', MID, { node: 'machine2' }),
        pod('m2.2', 'medium', LOW, { node: 'machine2' }),
        pod('m3.1', 'medium', MID, { node: 'machine3' }),
        pod('m3.2', 'medium', MID, { node: 'machine3' }),
      ],
      ['machine2'],
    ],
    [
      'when highest priority and sum are the same, minimum number of pods is picked',
      three,
      pod('p', 'veryLarge', HIGH),
      [
        pod('m1.1', 'small', MID, { node: 'machine1' }),
        pod('m1.2', 'small', NEG, { node: 'machine1' }),
        pod('m1.3', 'small', MID, { node: 'machine1' }),
        pod('m1.4', 'small', NEG, { node: 'machine1' }),
        pod('m2.1', 'large', MID, { node: 'machine2' }),
        pod('m2.2', 'medium', NEG, { node: 'machine2' }),
        pod('m3.1', 'medium', MID, { node: 'machine3' }),
        pod('m3.2', 'small', NEG, { node: 'machine3' }),
        pod('m3.3', 'small', LOW, { node: 'machine3' }),
      ],
      ['machine2'],
    ],
    [
      'sum of adjusted priorities is considered',
      three,
      pod('p', 'veryLarge', HIGH),
      [
        pod('m1.1', 'small', MID, { node: 'machine1' }),
        pod('m1.2', 'small', NEG, { node: 'machine1' }),
        pod('m1.3', 'small', NEG, { node: 'machine1' }),
        pod('m2.1', 'large', MID, { node: 'machine2' }),
        pod('m2.2', 'medium', NEG, { node: 'machine2' }),
        pod('m3.1', 'medium', MID, { node: 'machine3' }),
        pod('m3.2', 'small', NEG, { node: 'machine3' }),
        pod('m3.3', 'small', LOW, { node: 'machine3' }),
      ],
      ['machine2'],
    ],
    [
      'non-overlapping lowest high priority, sum priorities, and number of pods',
      ['machine1', 'machine2', 'machine3', 'machine4'],
      pod('p', 'veryLarge', VERY_HIGH),
      [
        pod('m1.1', 'small', MID, { node: 'machine1' }),
        pod('m1.2', 'small', LOW, { node: 'machine1' }),
        pod('m1.3', 'small', LOW, { node: 'machine1' }),
        pod('m2.1', 'large', HIGH, { node: 'machine2' }),
        pod('m3.1', 'medium', MID, { node: 'machine3' }),
        pod('m3.2', 'small', LOW, { node: 'machine3' }),
        pod('m3.3', 'small', LOW, { node: 'machine3' }),
        pod('m3.4', 'medium', LOW, { node: 'machine3' }),
        pod('m4.1', 'medium', MID, { node: 'machine4' }),
        pod('m4.2', 'small', MID, { node: 'machine4' }),
        pod('m4.3', 'small', MID, { node: 'machine4' }),
        pod('m4.4', 'small', NEG, { node: 'machine4' }),
      ],
      ['machine1'],
    ],
    [
      "same priority, same number of victims, different start time for each machine's pod",
      three,
      pod('p', 'veryLarge', HIGH),
      [
        pod('m1.1', 'medium', MID, { node: 'machine1', start: '2019-01-03T00:00:00Z' }),
        pod('m1.2', 'medium', MID, { node: 'machine1', start: '2019-01-03T00:00:00Z' }),
        pod('m2.1', 'medium', MID, { node: 'machine2', start: '2019-01-04T00:00:00Z' }),
        pod('m2.2', 'medium', MID, { node: 'machine2', start: '2019-01-04T00:00:00Z' }),
        pod('m3.1', 'medium', MID, { node: 'machine3', start: '2019-01-02T00:00:00Z' }),
        pod('m3.2', 'medium', MID, { node: 'machine3', start: '2019-01-02T00:00:00Z' }),
      ],
      ['machine2'],
    ],
    [
      'same priority, same number of victims, different start time for all pods',
      three,
      pod('p', 'veryLarge', HIGH),
      [
        pod('m1.1', 'medium', MID, { node: 'machine1', start: '2019-01-05T00:00:00Z' }),
        pod('m1.2', 'medium', MID, { node: 'machine1', start: '2019-01-03T00:00:00Z' }),
        pod('m2.1', 'medium', MID, { node: 'machine2', start: '2019-01-06T00:00:00Z' }),
        pod('m2.2', 'medium', MID, { node: 'machine2', start: '2019-01-02T00:00:00Z' }),
        pod('m3.1', 'medium', MID, { node: 'machine3', start: '2019-01-04T00:00:00Z' }),
        pod('m3.2', 'medium', MID, { node: 'machine3', start: '2019-01-07T00:00:00Z' }),
      ],
      ['machine3'],
    ],
    [
      'different priority, same number of victims, different start time for all pods',
      three,
      pod('p', 'veryLarge', HIGH),
      [
        pod('m1.1', 'medium', LOW, { node: 'machine1', start: '2019-01-05T00:00:00Z' }),
        pod('m1.2', 'medium', MID, { node: 'machine1', start: '2019-01-03T00:00:00Z' }),
        pod('m2.1', 'medium', MID, { node: 'machine2', start: '2019-01-07T00:00:00Z' }),
        pod('m2.2', 'medium', LOW, { node: 'machine2', start: '2019-01-02T00:00:00Z' }),
        pod('m3.1', 'medium', LOW, { node: 'machine3', start: '2019-01-04T00:00:00Z' }),
        pod('m3.2', 'medium', MID, { node: 'machine3', start: '2019-01-06T00:00:00Z' }),
      ],
      ['machine2'],
    ],
  ];
  for (const [name, nodeNames, preemptor, pods, expected] of cases) {
    test(name, () => {
      const { best } = preemptOn(nodeNames, preemptor, pods);
      assert.ok(best && expected.includes(best.name), `picked ${best?.name}, want one of ${expected.join(', ')}`);
    });
  }

  test('fewest PDB violations wins over everything else', () => {
    const byNode = new Map([
      ['a', { pods: [pod('x', 'small', NEG)], numPDBViolations: 1 }],
      ['b', { pods: [pod('y', 'small', MID), pod('z', 'small', MID)], numPDBViolations: 0 }],
    ]);
    assert.equal(pickOneNodeForPreemption(byNode, NOW), 'b');
    assert.equal(pickOneNodeForPreemption(new Map(), NOW), '');
  });
});

describe('PodEligibleToPreemptOthers (upstream TestPodEligibleToPreemptOthers)', () => {
  const preempted = (name: string, priority: number, node: string): Pod => {
    const p = pod(name, 'small', priority, { node });
    return {
      ...p,
      metadata: { ...p.metadata, deletionTimestamp: '2019-01-01T00:00:00Z' },
      status: { conditions: [{ type: 'DisruptionTarget', status: 'True', reason: 'PreemptionByScheduler' }] },
    };
  };
  const withNomination = (p: Pod, node: string): Pod => ({ ...p, status: { nominatedNodeName: node } });
  const cases: Array<[string, Pod, Pod[], FilterStatus | undefined, boolean, string]> = [
    ['Pod with nominated node', withNomination(pod('p_with_nominated_node', 'small', HIGH), 'node1'), [pod('p1', 'small', HIGH, { node: 'node1' })], undefined, true, ''],
    [
      'Pod with nominated node, but without nominated node status',
      withNomination(pod('p', 'small', HIGH), 'node1'),
      [pod('p1', 'small', HIGH, { node: 'node1' })],
      undefined,
      true,
      '',
    ],
    ['Pod without nominated node', pod('p_without_nominated_node', 'small', HIGH), [], undefined, true, ''],
    [
      'Pod with PreemptNever preemption policy',
      pod('p_with_preempt_never_policy', 'small', HIGH, { extra: { preemptionPolicy: 'Never' } }),
      [],
      undefined,
      false,
      'not eligible due to preemptionPolicy=Never.',
    ],
    [
      'victim Pods terminating, feature PodDisruptionConditions is enabled',
      withNomination(pod('p_with_nominated_node', 'small', HIGH), 'node1'),
      [preempted('p1', LOW, 'node1')],
      undefined,
      false,
      'not eligible due to a terminating pod on the nominated node.',
    ],
    [
      'non-victim Pods terminating (no DisruptionTarget condition)',
      withNomination(pod('p_with_nominated_node', 'small', HIGH), 'node1'),
      [{ ...pod('p1', 'small', LOW, { node: 'node1' }), metadata: { name: 'p1', uid: 'p1', namespace: 'default', deletionTimestamp: '2019-01-01T00:00:00Z' } }],
      undefined,
      true,
      '',
    ],
    [
      'a terminating victim of higher priority does not block',
      withNomination(pod('p', 'small', MID), 'node1'),
      [preempted('p1', HIGH, 'node1')],
      undefined,
      true,
      '',
    ],
    [
      'the nominated node became UnschedulableAndUnresolvable: preempt elsewhere',
      withNomination(pod('p', 'small', HIGH), 'node1'),
      [preempted('p1', LOW, 'node1')],
      unresolvable('NodeUnschedulable', 'node(s) were unschedulable'),
      true,
      '',
    ],
    [
      'an Unschedulable status on the nominated node still waits for the victim',
      withNomination(pod('p', 'small', HIGH), 'node1'),
      [preempted('p1', LOW, 'node1')],
      unschedulable('NodeResourcesFit', 'Insufficient cpu'),
      false,
      'not eligible due to a terminating pod on the nominated node.',
    ],
  ];
  for (const [name, p, pods, nominatedStatus, eligible, reason] of cases) {
    test(name, () => {
      const infos = nodes(['node1'], pods);
      const got = podEligibleToPreemptOthers(p, (n) => infos.find((i) => i.name === n), nominatedStatus);
      assert.deepEqual(got, { eligible, reason });
    });
  }
});

describe('filterPodsWithPDBViolation', () => {
  const pi = (name: string, labels?: Record<string, string>, ns = 'default') => {
    const p = pod(name, 'small', LOW);
    p.metadata = { ...p.metadata, namespace: ns, ...(labels ? { labels } : {}) };
    return newPodInfo(p);
  };
  test('budgets are spent in order; unlabelled pods, other namespaces, empty selectors and disrupted pods do not count', () => {
    const pods = [pi('a', { app: 'foo' }), pi('b', { app: 'foo' }), pi('c'), pi('d', { app: 'foo' }, 'other'), pi('e', { app: 'foo' })];
    const empty: PodDisruptionBudget = { metadata: { name: 'all', namespace: 'default' }, spec: { selector: {} }, status: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 } };
    const { violating, nonViolating } = filterPodsWithPDBViolation(pods, [pdb({ app: 'foo' }, 1, { e: 'x' }), empty]);
    assert.deepEqual(violating.map((p) => p.pod.metadata?.name), ['b']);
    assert.deepEqual(nonViolating.map((p) => p.pod.metadata?.name), ['a', 'c', 'd', 'e']);
  });
});

describe('calculateNumCandidates (upstream TestGetOffsetAndNumCandidates)', () => {
  const cases: Array<[number, number, number, number]> = [
    [10, 10, 100, 10],
    [10, 40, 3, 4],
    [10, 10, 1, 1],
    [1000, 10, 100, 100],
    [5000, 10, 100, 500],
    [5000, 40, 100, 2000],
    [5, 10, 100, 5],
  ];
  for (const [numNodes, pct, abs, want] of cases) {
    test(`${numNodes} nodes, ${pct}%, min ${abs} ⇒ ${want}`, () => assert.equal(calculateNumCandidates(numNodes, pct, abs), want));
  }
});

describe('DefaultPreemption.postFilter messages (upstream TestPostFilter)', () => {
  const preemption = (infos: NodeInfo[]) =>
    new DefaultPreemption({
      client: undefined as never,
      recorder: undefined as never,
      clock: new FakeClock(),
      rand: new SeededRand(1),
      pdbLister: { list: () => [] } as unknown as Lister<PodDisruptionBudget>,
      nominated: () => [],
      getNodeInfo: (n) => infos.find((i) => i.name === n),
    });
  const profile = newProfile([nodeResourcesFit]);

  test('no victims on an Unschedulable node, not helpful on an unresolvable one', () => {
    const infos = nodes(['node1', 'node2'], []);
    const statuses = new Map<string, FilterStatus>([
      ['node1', unschedulable('NodeResourcesFit', 'Insufficient cpu')],
      ['node2', unresolvable('TaintToleration', 'node(s) had untolerated taint {x: }')],
    ]);
    const r = preemption(infos).postFilter(profile, new CycleState(), newPodInfo(pod('p', 'large', HIGH)), statuses, infos);
    assert.deepEqual(r, {
      nominatingInfo: { nodeName: '' },
      message: 'preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.',
    });
  });

  test('victims still not enough: the filter reason is reported for that node', () => {
    const infos = nodes(['node1'], [pod('high', 'large', HIGH, { node: 'node1' }), pod('low', 'small', LOW, { node: 'node1' })]);
    const statuses = new Map<string, FilterStatus>([['node1', unschedulable('NodeResourcesFit', 'Insufficient cpu', 'Insufficient memory')]]);
    const r = preemption(infos).postFilter(profile, new CycleState(), newPodInfo(pod('p', 'large', HIGH)), statuses, infos);
    assert.equal(r.message, 'preemption: 0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory.');
  });

  test('preemptionPolicy Never', () => {
    const infos = nodes(['node1'], []);
    const r = preemption(infos).postFilter(profile, new CycleState(), newPodInfo(pod('p', 'large', HIGH, { extra: { preemptionPolicy: 'Never' } })), new Map(), infos);
    assert.deepEqual(r, { nominatingInfo: undefined, message: 'preemption: not eligible due to preemptionPolicy=Never.' });
  });
});

/**
 * PreFilter over a cache of `nodeSpecs` (`name` or `name/zone`, labelled `hostname` and `zone` as
 * upstream's test nodes, 500m / 500 memory) and `pods`, then the dry run over the nodes the filters
 * reject, as PostFilter does.
 */
function preemptWithPlugins(plugins: Plugin[], nodeSpecs: readonly string[], preemptor: Pod, pods: readonly Pod[]) {
  const cache = new SchedulerCache();
  for (const spec of nodeSpecs) {
    const [name, zone] = spec.split('/') as [string, string | undefined];
    cache.addOrUpdateNode(makeNode(name, { cpu: '500m', memory: '500', labels: { hostname: name, ...(zone ? { zone } : {}) } }));
  }
  for (const p of pods) cache.addOrUpdatePod(p);
  const profile = newProfile(plugins);
  const info = newPodInfo(preemptor);
  const state = new CycleState();
  assert.equal(runPreFilterPlugins(profile.preFilter, info, state, cache), undefined);
  const rejected = cache.nodes().filter((n) => runFilterPlugins(profile.filter, info, n, state) !== undefined);
  const { candidates, statuses } = dryRunPreemption({ profile }, state, info, rejected, [], 0, calculateNumCandidates(rejected.length), NOW);
  return { candidates: candidates.map((c) => [c.name, victimNames(c.victims.pods)]), statuses, state, cache };
}

describe('DryRunPreemption with the PreFilter extensions of InterPodAffinity and PodTopologySpread', () => {
  const antiFoo = (topologyKey: string): Partial<Pod['spec']> => ({
    affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchExpressions: [{ key: 'foo', operator: 'Exists' }] }, topologyKey }] } },
  });
  test('pod with anti-affinity is preempted (upstream case): the existing pod whose anti-affinity rejects the preemptor is the only victim', () => {
    const r = preemptWithPlugins([nodeResourcesFit, new InterPodAffinity()], ['node1', 'node2'], pod('p', 'small', HIGH, { labels: { foo: '' } }), [
      pod('p1.1', 'small', LOW, { node: 'node1', labels: { foo: '' }, extra: antiFoo('hostname') }),
      pod('p1.2', 'small', MID, { node: 'node1' }),
      pod('p1.3', 'small', HIGH, { node: 'node1' }),
      pod('p2', 'small', HIGH, { node: 'node2' }),
    ]);
    assert.deepEqual(r.candidates, [['node1', ['p1.1']]]);
    // The dry run changed clones only: the cycle's state still rejects node1.
    const node1 = r.cache.nodes().find((n) => n.name === 'node1')!;
    assert.deepEqual(new InterPodAffinity().filter(newPodInfo(pod('p', 'small', HIGH, { labels: { foo: '' } })), node1, r.state)?.reasons, [ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH]);
  });
  test("the preemptor's own required anti-affinity: only the pod it selects is evicted, not its lower-priority neighbour", () => {
    const r = preemptWithPlugins([nodeResourcesFit, new InterPodAffinity()], ['node1', 'node2'], pod('p', 'small', HIGH, { extra: antiFoo('hostname') }), [
      pod('a', 'small', LOW, { node: 'node1', labels: { foo: '' } }),
      pod('b', 'small', LOW, { node: 'node1' }),
      pod('c', 'small', LOW, { node: 'node2', labels: { foo: '' } }),
      pod('d', 'small', LOW, { node: 'node2', labels: { foo: '' } }),
    ]);
    assert.deepEqual(r.candidates, [['node1', ['a']], ['node2', ['c', 'd']]]);
  });
  test('anti-affinity with pods of equal priority cannot be resolved by preemption', () => {
    const r = preemptWithPlugins([nodeResourcesFit, new InterPodAffinity()], ['node1'], pod('p', 'small', HIGH, { extra: antiFoo('hostname') }), [
      pod('a', 'small', HIGH, { node: 'node1', labels: { foo: '' } }),
      pod('b', 'small', LOW, { node: 'node1' }),
    ]);
    assert.deepEqual(r.candidates, []);
    assert.equal(r.statuses.get('node1')?.plugin, 'InterPodAffinity');
  });
  test('preemption to resolve pod topology spread filter failure (upstream case)', () => {
    const spreadFoo = (topologyKey: string) => ({ maxSkew: 1, topologyKey, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchExpressions: [{ key: 'foo', operator: 'Exists' }] } });
    const preemptor = makePod('p', { uid: 'p', spec: { priority: HIGH, topologySpreadConstraints: [spreadFoo('zone'), spreadFoo('hostname')] } });
    preemptor.metadata = { ...preemptor.metadata, labels: { foo: '' } };
    const bound = (name: string, node: string, priority: number): Pod => {
      const p = makePod(name, { uid: name, spec: { nodeName: node, priority } });
      return { ...p, metadata: { ...p.metadata, labels: { foo: '' } } };
    };
    const r = preemptWithPlugins([new PodTopologySpread()], ['node-a/zone1', 'node-b/zone1', 'node-x/zone2'], preemptor, [
      bound('pod-a1', 'node-a', MID),
      bound('pod-a2', 'node-a', LOW),
      bound('pod-b1', 'node-b', LOW),
      bound('pod-x1', 'node-x', HIGH),
      bound('pod-x2', 'node-x', HIGH),
    ]);
    assert.deepEqual(r.candidates, [['node-a', ['pod-a2']], ['node-b', ['pod-b1']]]);
  });
});
