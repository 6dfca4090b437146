/**
 * InterPodAffinity: cases ported from upstream pkg/scheduler/framework/plugins/interpodaffinity
 * filtering_test.go (`TestRequiredAffinitySingleNode`, `TestRequiredAffinityMultipleNodes`, case names
 * kept) and scoring_test.go (`TestPreferredAffinity`), with upstream's labels:
 * podLabel = {service: securityscan}, podLabel2 = {security: S1}, machine1 = {region: r1, zone: z11}.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Node, Pod } from '../../api/index.js';
import { SchedulerCache } from '../cache.js';
import { snapshotNodeInfo } from '../framework.js';
import { newPodInfo } from '../node-info.js';
import { prioritizeNodes } from '../schedule-one.js';
import {
  CycleState,
  ERR_REASON_AFFINITY_RULES_NOT_MATCH as AFFINITY,
  ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH as ANTI,
  ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH as EXISTING,
  InterPodAffinity,
} from './index.js';

type WeightedTerm = NonNullable<NonNullable<NonNullable<NonNullable<Pod['spec']>['affinity']>['podAffinity']>['preferredDuringSchedulingIgnoredDuringExecution']>[number];
type Term = { labelSelector?: object; topologyKey?: string; namespaces?: string[]; namespaceSelector?: object; matchLabelKeys?: string[]; mismatchLabelKeys?: string[] };
const podLabel = { service: 'securityscan' };
const podLabel2 = { security: 'S1' };
const inOp = (key: string, ...values: string[]) => ({ key, operator: 'In', values });
const notIn = (key: string, ...values: string[]) => ({ key, operator: 'NotIn', values });
const exists = (key: string) => ({ key, operator: 'Exists' });
const sel = (...matchExpressions: object[]) => ({ matchExpressions });

let seq = 0;
/** Upstream's createPodWithAffinityTerms. */
function pod(labels: Record<string, string>, nodeName = '', affinity: Term[] = [], anti: Term[] = [], ns = 'default'): Pod {
  const term = (t: Term) => ({ topologyKey: '', ...t });
  return {
    metadata: { name: `p${seq}`, namespace: ns, uid: `u${seq++}`, labels },
    spec: {
      containers: [],
      ...(nodeName ? { nodeName } : {}),
      ...(affinity.length || anti.length
        ? {
            affinity: {
              ...(affinity.length ? { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: affinity.map(term) } } : {}),
              ...(anti.length ? { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: anti.map(term) } } : {}),
            },
          }
        : {}),
    },
  };
}

const node = (name: string, labels: Record<string, string>): Node => ({ metadata: { name, labels }, status: { allocatable: { pods: '110' } } });
const machine1 = node('machine1', { region: 'r1', zone: 'z11' });

function cacheWith(nodes: Node[], pods: Pod[]): SchedulerCache {
  const cache = new SchedulerCache();
  for (const n of nodes) cache.addOrUpdateNode(n);
  for (const p of pods) cache.addOrUpdatePod(p);
  return cache;
}

/** PreFilter then Filter on every node: node name → reason ('' fits), or 'Skip'. */
function filter(incoming: Pod, pods: Pod[], nodes: Node[], plugin = new InterPodAffinity()): Record<string, string> | 'Skip' {
  const cache = cacheWith(nodes, pods);
  const info = newPodInfo(incoming);
  const state = new CycleState();
  if (plugin.preFilter(info, state, cache) === 'Skip') return 'Skip';
  const out: Record<string, string> = {};
  for (const n of cache.nodes()) {
    const s = plugin.filter(info, n, state);
    out[n.name] = s ? `${s.code}: ${s.reasons.join(', ')}` : '';
  }
  return out;
}
const U = (r: string) => `Unschedulable: ${r}`;
const UU = (r: string) => `UnschedulableAndUnresolvable: ${r}`;

describe('InterPodAffinity filter, one node (upstream TestRequiredAffinitySingleNode)', () => {
  /** name, incoming pod, existing pods, machine1's result ('' fits) or 'Skip'. */
  const cases: Array<[string, Pod, Pod[], string]> = [
    ['A pod that has no required pod affinity scheduling rules can schedule onto a node with no existing pods', pod({}), [], 'Skip'],
    [
      'satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In operator that matches the existing pod',
      pod(podLabel2, '', [{ labelSelector: sel(inOp('service', 'securityscan', 'value2')), topologyKey: 'region' }]),
      [pod(podLabel, 'machine1')],
      '',
    ],
    [
      'satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using not in operator in labelSelector that matches the existing pod',
      pod(podLabel2, '', [{ labelSelector: sel(notIn('service', 'securityscan3', 'value3')), topologyKey: 'region' }]),
      [pod(podLabel, 'machine1')],
      '',
    ],
    [
      'Does not satisfy the PodAffinity with labelSelector because of diff Namespace',
      pod(podLabel2, '', [{ labelSelector: sel(inOp('service', 'securityscan', 'value2')), namespaces: ['DiffNameSpace'] }]),
      [pod(podLabel, 'machine1', [], [], 'ns')],
      UU(AFFINITY),
    ],
    [
      "Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
      pod(podLabel, '', [{ labelSelector: sel(inOp('service', 'antivirusscan', 'value2')) }]),
      [pod(podLabel, 'machine1')],
      UU(AFFINITY),
    ],
    [
      'satisfies the PodAffinity with different label Operators in multiple RequiredDuringSchedulingIgnoredDuringExecution',
      pod(podLabel2, '', [
        { labelSelector: sel(exists('service'), { key: 'wrongkey', operator: 'DoesNotExist' }), topologyKey: 'region' },
        { labelSelector: sel(inOp('service', 'securityscan'), notIn('service', 'WrongValue')), topologyKey: 'region' },
      ]),
      [pod(podLabel, 'machine1')],
      '',
    ],
    [
      "The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot schedule onto the node because one of the matchExpression item don't match.",
      pod(podLabel2, '', [
        { labelSelector: sel(exists('service'), { key: 'wrongkey', operator: 'DoesNotExist' }), topologyKey: 'region' },
        { labelSelector: sel(inOp('service', 'securityscan2'), notIn('service', 'WrongValue')), topologyKey: 'region' },
      ]),
      [pod(podLabel, 'machine1')],
      UU(AFFINITY),
    ],
    [
      'satisfies the PodAffinity and PodAntiAffinity with the existing pod',
      pod(podLabel2, '', [{ labelSelector: sel(inOp('service', 'securityscan', 'value2')), topologyKey: 'region' }], [{ labelSelector: sel(inOp('service', 'antivirusscan', 'value2')), topologyKey: 'node' }]),
      [pod(podLabel, 'machine1')],
      '',
    ],
    [
      'satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the existing pod',
      pod(podLabel2, '', [{ labelSelector: sel(inOp('service', 'securityscan', 'value2')), topologyKey: 'region' }], [{ labelSelector: sel(inOp('service', 'antivirusscan', 'value2')), topologyKey: 'node' }]),
      [pod(podLabel, 'machine1', [], [{ labelSelector: sel(inOp('service', 'antivirusscan', 'value2')), topologyKey: 'node' }])],
      '',
    ],
    [
      "satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
      pod(podLabel2, '', [{ labelSelector: sel(inOp('service', 'securityscan', 'value2')), topologyKey: 'region' }], [{ labelSelector: sel(inOp('service', 'securityscan', 'value2')), topologyKey: 'zone' }]),
      [pod(podLabel, 'machine1')],
      U(ANTI),
    ],
    [
      "satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry with the existing pod",
      pod(podLabel, '', [{ labelSelector: sel(inOp('service', 'securityscan', 'value2')), topologyKey: 'region' }], [{ labelSelector: sel(inOp('service', 'antivirusscan', 'value2')), topologyKey: 'node' }]),
      [pod(podLabel, 'machine1', [], [{ labelSelector: sel(inOp('service', 'securityscan', 'value2')), topologyKey: 'zone' }])],
      U(EXISTING),
    ],
    [
      'pod matches its own Label in PodAffinity and that matches the existing pod Labels',
      pod(podLabel, '', [{ labelSelector: sel(notIn('service', 'securityscan', 'value2')), topologyKey: 'region' }]),
      [pod(podLabel, 'machine2')],
      UU(AFFINITY),
    ],
    [
      "verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. doesn't satisfy PodAntiAffinity symmetry with the existing pod",
      pod(podLabel),
      [pod(podLabel, 'machine1', [], [{ labelSelector: sel(inOp('service', 'securityscan', 'value2')), topologyKey: 'zone' }])],
      U(EXISTING),
    ],
    [
      'verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. satisfy PodAntiAffinity symmetry with the existing pod',
      pod(podLabel),
      [pod(podLabel, 'machine1', [], [{ labelSelector: sel(notIn('service', 'securityscan', 'value2')), topologyKey: 'zone' }])],
      '',
    ],
    [
      "satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity symmetry with incoming pod",
      pod(podLabel, '', [], [{ labelSelector: sel(exists('service')), topologyKey: 'region' }, { labelSelector: sel(exists('security')), topologyKey: 'region' }]),
      [pod(podLabel2, 'machine1', [], [{ labelSelector: sel(exists('security')), topologyKey: 'zone' }])],
      U(ANTI),
    ],
    [
      'PodAntiAffinity symmetry check a1: incoming pod and existing pod partially match each other on AffinityTerms',
      pod(podLabel, '', [], [{ labelSelector: sel(exists('service')), topologyKey: 'zone' }, { labelSelector: sel(exists('security')), topologyKey: 'zone' }]),
      [pod(podLabel2, 'machine1', [], [{ labelSelector: sel(exists('security')), topologyKey: 'zone' }])],
      U(ANTI),
    ],
  ];
  for (const [name, incoming, pods, want] of cases) {
    test(name, () => {
      const got = filter(incoming, pods, [machine1]);
      assert.deepEqual(got, want === 'Skip' ? 'Skip' : { machine1: want });
    });
  }
});

describe('InterPodAffinity filter, several nodes (upstream TestRequiredAffinityMultipleNodes)', () => {
  test('A pod can be scheduled onto all the nodes that have the same topology key & label value with one of them has an existing pod that matches the affinity rules', () => {
    const nodes = [node('machine1', { region: 'r1', zone: 'z11', hostname: 'h1' }), node('machine2', { region: 'r1', zone: 'z11', hostname: 'h2' }), node('machine3', { region: 'r2', hostname: 'h3' })];
    const incoming = pod({}, '', [{ labelSelector: sel(inOp('foo', 'bar')), topologyKey: 'region' }]);
    assert.deepEqual(filter(incoming, [pod({ foo: 'bar' }, 'machine1')], nodes), { machine1: '', machine2: '', machine3: UU(AFFINITY) });
  });
  test('The affinity rule is to schedule all of the pods of this collection to the same zone. The first pod of the collection should not be blocked from being scheduled onto any node, even there\'s no existing pod that matches the rule anywhere.', () => {
    const nodes = [node('nodeA', { zone: 'az1', hostname: 'h1' }), node('nodeB', { zone: 'az2', hostname: 'h2' })];
    const incoming = pod({ foo: 'bar', service: 'securityscan' }, '', [{ labelSelector: sel(inOp('foo', 'bar')), topologyKey: 'zone' }, { labelSelector: sel(inOp('service', 'securityscan')), topologyKey: 'zone' }]);
    assert.deepEqual(filter(incoming, [], nodes), { nodeA: '', nodeB: '' });
  });
  test('The first pod of a collection is still blocked from nodes without the topology label', () => {
    const nodes = [node('nodeA', { zone: 'az1' }), node('nodeB', { other: 'x' })];
    const incoming = pod({ foo: 'bar' }, '', [{ labelSelector: sel(inOp('foo', 'bar')), topologyKey: 'zone' }]);
    assert.deepEqual(filter(incoming, [], nodes), { nodeA: '', nodeB: UU(AFFINITY) });
  });
  test('A matching pod elsewhere disables the first-pod rule: only its domain fits', () => {
    const nodes = [node('nodeA', { zone: 'az1' }), node('nodeB', { zone: 'az2' })];
    const incoming = pod({ foo: 'bar' }, '', [{ labelSelector: sel(inOp('foo', 'bar')), topologyKey: 'zone' }]);
    assert.deepEqual(filter(incoming, [pod({ foo: 'bar' }, 'nodeB')], nodes), { nodeA: UU(AFFINITY), nodeB: '' });
  });
  test('Anti-affinity on hostname keeps replicas apart; the pod without a matching neighbour fits', () => {
    const nodes = [node('n1', { 'kubernetes.io/hostname': 'n1' }), node('n2', { 'kubernetes.io/hostname': 'n2' })];
    const anti = [{ labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'kubernetes.io/hostname' }];
    const existing = pod({ app: 'web' }, 'n1', [], anti);
    assert.deepEqual(filter(pod({ app: 'web' }, '', [], anti), [existing], nodes), { n1: U(ANTI), n2: '' });
    // An unrelated pod is kept off n1 only by the existing pod's rule if it matches it.
    assert.equal(filter(pod({ app: 'db' }), [existing], nodes) !== 'Skip', true);
    assert.deepEqual(filter(pod({ app: 'db' }), [existing], nodes), { n1: '', n2: '' });
    assert.deepEqual(filter(pod({ app: 'web' }), [existing], nodes), { n1: U(EXISTING), n2: '' });
  });
  test('namespaceSelector selects namespaces by their labels', () => {
    const nodes = [node('n1', { zone: 'a' }), node('n2', { zone: 'b' })];
    const plugin = new InterPodAffinity({ namespaceLabels: (ns): Record<string, string> => (ns === 'team-a' ? { team: 'a' } : {}) });
    const incoming = pod({}, '', [{ labelSelector: { matchLabels: { app: 'db' } }, namespaceSelector: { matchLabels: { team: 'a' } }, topologyKey: 'zone' }]);
    assert.deepEqual(filter(incoming, [pod({ app: 'db' }, 'n1', [], [], 'team-a'), pod({ app: 'db' }, 'n2', [], [], 'team-b')], nodes, plugin), { n1: '', n2: UU(AFFINITY) });
    // An empty namespaceSelector selects every namespace.
    const all = pod({}, '', [{ labelSelector: { matchLabels: { app: 'db' } }, namespaceSelector: {}, topologyKey: 'zone' }]);
    assert.deepEqual(filter(all, [pod({ app: 'db' }, 'n2', [], [], 'team-b')], nodes, plugin), { n1: UU(AFFINITY), n2: '' });
  });
  test('mismatchLabelKeys: anti-affinity only against pods of another tenant', () => {
    const nodes = [node('n1', { zone: 'a' }), node('n2', { zone: 'b' })];
    const incoming = pod({ tenant: 't1' }, '', [], [{ labelSelector: sel(exists('tenant')), mismatchLabelKeys: ['tenant'], topologyKey: 'zone' }]);
    assert.deepEqual(filter(incoming, [pod({ tenant: 't1' }, 'n1'), pod({ tenant: 't2' }, 'n2')], nodes), { n1: '', n2: U(ANTI) });
  });
  test('matchLabelKeys: affinity only to pods with the same label value', () => {
    const nodes = [node('n1', { zone: 'a' }), node('n2', { zone: 'b' })];
    const incoming = pod({ app: 'web', rev: '2' }, '', [{ labelSelector: { matchLabels: { app: 'web' } }, matchLabelKeys: ['rev'], topologyKey: 'zone' }]);
    assert.deepEqual(filter(incoming, [pod({ app: 'web', rev: '1' }, 'n1'), pod({ app: 'web', rev: '2' }, 'n2')], nodes), { n1: UU(AFFINITY), n2: '' });
  });
});

describe('InterPodAffinity score (upstream TestPreferredAffinity)', () => {
  const nodes = [node('node1', { region: 'China', az: 'az1' }), node('node2', { region: 'India', az: 'az2' }), node('node3', { region: 'China', az: 'az3' })];
  const preferred = (podAffinity: WeightedTerm[], podAntiAffinity: WeightedTerm[] = []): Pod['spec'] => ({
    containers: [],
    affinity: {
      ...(podAffinity.length ? { podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: podAffinity } } : {}),
      ...(podAntiAffinity.length ? { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: podAntiAffinity } } : {}),
    },
  });
  const scores = (incoming: Pod, pods: Pod[], plugin = new InterPodAffinity()): number[] | 'Skip' => {
    const cache = cacheWith(nodes, pods);
    const info = newPodInfo(incoming);
    const state = new CycleState();
    if (plugin.preScore(info, state, cache.nodes(), cache) === 'Skip') return 'Skip';
    const s = cache.nodes().map((n) => plugin.score(info, n, state));
    plugin.normalizeScore(s);
    return s;
  };
  const weighted = (weight: number, key: string, topologyKey: string) => ({ weight, podAffinityTerm: { labelSelector: { matchExpressions: [inOp(key, 'S1')] }, topologyKey } });
  test('all nodes are same priority as NodeAffinity is nil', () => {
    assert.equal(scores(pod({ security: 'S1' }), [pod({}, 'node1'), pod({}, 'node2')]), 'Skip');
  });
  test('Affinity: pod that matches topology key & pods in nodes will get high score comparing to others which doesn\'t match either pods in nodes or in topology key', () => {
    const incoming = { ...pod({}), spec: preferred([weighted(5, 'security', 'region')]) } as Pod;
    assert.deepEqual(scores(incoming, [pod({ security: 'S1' }, 'node1'), pod({ security: 'S2' }, 'node2')]), [100, 0, 100]);
  });
  test('Anti Affinity: pod that does not match existing pods in node will get high score', () => {
    const incoming = { ...pod({}), spec: preferred([], [weighted(5, 'security', 'region')]) } as Pod;
    assert.deepEqual(scores(incoming, [pod({ security: 'S1' }, 'node1'), pod({ security: 'S2' }, 'node2')]), [0, 100, 0]);
  });
  test('Affinity and anti-affinity weights add up per topology pair', () => {
    // S1 on node1: region China +8 (node1, node3), az1 −3 (node1) ⇒ raw [5, 0, 8] ⇒ 100·(s − 0)/8.
    const incoming = { ...pod({}), spec: preferred([weighted(8, 'security', 'region')], [weighted(3, 'security', 'az')]) } as Pod;
    assert.deepEqual(scores(incoming, [pod({ security: 'S1' }, 'node1')]), [62, 0, 100]);
  });
  test('existing pods\' required affinity selecting the incoming pod scores with hardPodAffinityWeight', () => {
    const existing = pod({}, 'node2', [{ labelSelector: { matchLabels: { security: 'S1' } }, topologyKey: 'region' }]);
    assert.deepEqual(scores(pod({ security: 'S1' }), [existing]), [0, 100, 0]);
    assert.equal(scores(pod({ security: 'S1' }), [existing], new InterPodAffinity({ hardPodAffinityWeight: 0 })), 'Skip');
  });
  test('prioritizeNodes applies weight 2 and skips the plugin for pods without terms', () => {
    const cache = cacheWith(nodes, [pod({ security: 'S1' }, 'node1')]);
    const incoming = newPodInfo({ ...pod({}), spec: preferred([weighted(5, 'security', 'region')]) });
    assert.deepEqual(prioritizeNodes(incoming, cache.nodes(), [new InterPodAffinity()], new CycleState(), cache), [200, 0, 200]);
    assert.deepEqual(prioritizeNodes(newPodInfo(pod({})), cache.nodes(), [new InterPodAffinity()], new CycleState(), cache), [0, 0, 0]);
  });
});

/** The three PreFilter count maps of a cycle (the plugin's state, read for comparison). */
function counts(state: CycleState): Record<string, Map<string, number>> {
  const s = state.read('PreFilterInterPodAffinity') as { existingAntiAffinityCounts: Map<string, number>; affinityCounts: Map<string, number>; antiAffinityCounts: Map<string, number> };
  return { existing: s.existingAntiAffinityCounts, affinity: s.affinityCounts, anti: s.antiAffinityCounts };
}
const tp = (entries: Record<string, number>) => new Map(Object.entries(entries).map(([k, v]) => [k.replace('=', '\0'), v]));

describe('InterPodAffinity AddPod/RemovePod (upstream filtering_test.go TestPreFilterStateAddRemovePod, TestPreFilterStateClone)', () => {
  const label1 = { region: 'r1', zone: 'z11' };
  const label2 = { region: 'r1', zone: 'z12' };
  const label3 = { region: 'r2', zone: 'z21' };
  const nodes = [node('nodeA', label1), node('nodeB', label2), node('nodeC', label3)];
  const selector1 = { foo: 'bar' };
  const antiFooBar: Term[] = [{ labelSelector: sel(inOp('foo', 'bar')), topologyKey: 'region' }];
  const complex: Term[] = [
    { labelSelector: sel(inOp('foo', 'bar', 'buzz')), topologyKey: 'region' },
    { labelSelector: sel(notIn('service', 'bar', 'security', 'test')), topologyKey: 'zone' },
  ];
  /** name, pending pod, existing pods, added pod, incoming anti-affinity counts and affinity counts after AddPod. */
  const cases: Array<[string, Pod, Pod[], Pod, Record<string, number>, Record<string, number>]> = [
    [
      'preFilterState anti-affinity terms are updated correctly after adding and removing a pod',
      pod(selector1, '', [], antiFooBar),
      [pod(selector1, 'nodeA'), pod({}, 'nodeC', [], antiFooBar)],
      pod(selector1, 'nodeB', [], antiFooBar),
      { 'region=r1': 2 },
      {},
    ],
    [
      'preFilterState anti-affinity terms are updated correctly after adding and removing a pod (complex terms)',
      pod(selector1, '', [], complex),
      [pod(selector1, 'nodeA'), pod({}, 'nodeC', [], antiFooBar)],
      pod(selector1, 'nodeA', [], complex),
      { 'region=r1': 2, 'zone=z11': 2, 'zone=z21': 1 },
      {},
    ],
    [
      'preFilterState matching pod affinity and anti-affinity are updated correctly after adding and removing a pod',
      pod(selector1, '', complex),
      [pod(selector1, 'nodeA'), pod({}, 'nodeC', complex, antiFooBar)],
      pod(selector1, 'nodeA', [], complex),
      {},
      { 'region=r1': 2, 'zone=z11': 2 },
    ],
  ];
  for (const [name, pending, existing, added, wantAnti, wantAffinity] of cases) {
    test(name, () => {
      const plugin = new InterPodAffinity();
      const info = newPodInfo(pending);
      const prefilter = (pods: Pod[]) => {
        const cache = cacheWith(nodes, pods);
        const state = new CycleState();
        assert.equal(plugin.preFilter(info, state, cache), undefined);
        return { cache, state };
      };
      const all = prefilter([...existing, added]).state;
      const { cache, state } = prefilter(existing);
      const original = counts(state.clone());
      const clone = state.clone();
      const ni = snapshotNodeInfo(cache.nodes().find((n) => n.name === added.spec?.nodeName)!);
      const addedInfo = newPodInfo(added);
      ni.addPod(addedInfo);
      plugin.addPod(clone, info, addedInfo, ni);
      assert.deepEqual(counts(clone).anti, tp(wantAnti));
      assert.deepEqual(counts(clone).affinity, tp(wantAffinity));
      // Adding the pod gives what PreFilter counts with it in the cluster.
      assert.deepEqual(counts(clone), counts(all));
      // The state the clone came from is untouched.
      assert.deepEqual(counts(state), original);
      ni.removePod(addedInfo.uid);
      plugin.removePod(clone, info, addedInfo, ni);
      assert.deepEqual(counts(clone), original);
    });
  }
  test('existing anti-affinity: a pod whose required anti-affinity selects the incoming pod is counted in and out', () => {
    const plugin = new InterPodAffinity();
    const cache = cacheWith(nodes, [pod({}, 'nodeC', [], antiFooBar)]);
    const info = newPodInfo(pod(selector1));
    const state = new CycleState();
    assert.equal(plugin.preFilter(info, state, cache), undefined);
    assert.deepEqual(counts(state).existing, tp({ 'region=r2': 1 }));
    const clone = state.clone();
    const nodeA = cache.nodes().find((n) => n.name === 'nodeA')!;
    const ni = snapshotNodeInfo(nodeA);
    const guard = newPodInfo(pod({}, 'nodeA', [], antiFooBar));
    ni.addPod(guard);
    plugin.addPod(clone, info, guard, ni);
    assert.deepEqual(counts(clone).existing, tp({ 'region=r1': 1, 'region=r2': 1 }));
    assert.equal(plugin.filter(info, nodeA, clone)?.reasons[0], EXISTING);
    assert.equal(plugin.filter(info, nodeA, state), undefined);
    const nodeC = cache.nodes().find((n) => n.name === 'nodeC')!;
    const niC = snapshotNodeInfo(nodeC);
    const existing = [...niC.pods.values()][0]!;
    niC.removePod(existing.uid);
    plugin.removePod(clone, info, existing, niC);
    assert.deepEqual(counts(clone).existing, tp({ 'region=r1': 1 }));
    assert.equal(plugin.filter(info, nodeC, clone), undefined);
  });
  test('TestPreFilterStateClone: the clone has equal, separate maps', () => {
    const plugin = new InterPodAffinity();
    const cache = cacheWith(nodes, [pod(selector1, 'nodeA'), pod({}, 'nodeC', complex, antiFooBar)]);
    const state = new CycleState();
    plugin.preFilter(newPodInfo(pod(selector1, '', complex, complex)), state, cache);
    const clone = state.clone();
    assert.notEqual(clone.read('PreFilterInterPodAffinity'), state.read('PreFilterInterPodAffinity'));
    assert.deepEqual(counts(clone), counts(state));
    for (const k of ['existing', 'affinity', 'anti'] as const) assert.notEqual(counts(clone)[k], counts(state)[k]);
  });
  test('without PreFilter state the extensions throw', () => {
    const ni = snapshotNodeInfo(cacheWith(nodes, []).nodes()[0]!);
    assert.throws(() => new InterPodAffinity().removePod(new CycleState(), newPodInfo(pod({})), newPodInfo(pod({}, 'nodeA')), ni), /PreFilterInterPodAffinity/);
  });
});
