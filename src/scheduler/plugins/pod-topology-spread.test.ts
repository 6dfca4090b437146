/**
 * PodTopologySpread: cases modelled on upstream pkg/scheduler/framework/plugins/podtopologyspread
 * filtering_test.go (`TestSingleConstraint`, `TestMultipleConstraints`: nodes node-a/node-b in zone1,
 * node-x/node-y in zone2, pods labelled `foo`, selector `foo Exists`) and scoring_test.go
 * (`TestPodTopologySpreadScore`), with the expected values worked out from the formulas in
 * pod-topology-spread.ts.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Node, Pod, ReplicaSet, Service } from '../../api/index.js';
import type { NamespaceLister } from '../../informers/index.js';
import { SchedulerCache } from '../cache.js';
import { snapshotNodeInfo } from '../framework.js';
import { newPodInfo } from '../node-info.js';
import { CycleState, ERR_REASON_CONSTRAINTS_NOT_MATCH as SKEW, ERR_REASON_NODE_LABEL_NOT_MATCH as NO_LABEL, PodTopologySpread } from './index.js';

type Constraint = NonNullable<NonNullable<Pod['spec']>['topologySpreadConstraints']>[number];
const fooExists = { matchExpressions: [{ key: 'foo', operator: 'Exists' }] };
const hard = (topologyKey: string, maxSkew = 1, extra: Partial<Constraint> = {}): Constraint => ({ maxSkew, topologyKey, whenUnsatisfiable: 'DoNotSchedule', labelSelector: fooExists, ...extra });
const soft = (topologyKey: string, maxSkew = 1, extra: Partial<Constraint> = {}): Constraint => ({ ...hard(topologyKey, maxSkew, extra), whenUnsatisfiable: 'ScheduleAnyway' });

let seq = 0;
function pod(nodeName: string, labels: Record<string, string> = { foo: '' }, spec: Partial<NonNullable<Pod['spec']>> = {}, meta: Partial<NonNullable<Pod['metadata']>> = {}): Pod {
  return { metadata: { name: `p${seq}`, namespace: 'default', uid: `u${seq++}`, labels, ...meta }, spec: { containers: [], ...(nodeName ? { nodeName } : {}), ...spec } };
}
const node = (name: string, labels: Record<string, string>, taints?: NonNullable<Node['spec']>['taints']): Node => ({
  metadata: { name, labels },
  spec: taints ? { taints } : {},
  status: { allocatable: { pods: '110' } },
});
const nodes4 = [node('node-a', { zone: 'zone1', node: 'node-a' }), node('node-b', { zone: 'zone1', node: 'node-b' }), node('node-x', { zone: 'zone2', node: 'node-x' }), node('node-y', { zone: 'zone2', node: 'node-y' })];
/** `counts` pods on each named node. */
const spread = (counts: Record<string, number>, labels: Record<string, string> = { foo: '' }): Pod[] => Object.entries(counts).flatMap(([n, c]) => Array.from({ length: c }, () => pod(n, labels)));

function cacheWith(nodes: Node[], pods: Pod[]): SchedulerCache {
  const cache = new SchedulerCache();
  for (const n of nodes) cache.addOrUpdateNode(n);
  for (const p of pods) cache.addOrUpdatePod(p);
  return cache;
}

/** Node name → '' (fits) or `code: reason`; 'Skip' when PreFilter skipped. */
function filter(incoming: Pod, pods: Pod[], nodes = nodes4): Record<string, string> | 'Skip' {
  const plugin = new PodTopologySpread();
  const cache = cacheWith(nodes, pods);
  const info = newPodInfo(incoming);
  const state = new CycleState();
  if (plugin.preFilter(info, state, cache) === 'Skip') return 'Skip';
  return Object.fromEntries(cache.nodes().map((n) => {
    const s = plugin.filter(info, n, state);
    return [n.name, s ? `${s.code}: ${s.reasons.join(', ')}` : ''];
  }));
}
const U = `Unschedulable: ${SKEW}`;
const UU = `UnschedulableAndUnresolvable: ${NO_LABEL}`;
const withConstraints = (cs: Constraint[], labels: Record<string, string> = { foo: '' }, spec: Partial<NonNullable<Pod['spec']>> = {}) => pod('', labels, { topologySpreadConstraints: cs, ...spec });

describe('PodTopologySpread filter (upstream TestSingleConstraint / TestMultipleConstraints)', () => {
  test('no DoNotSchedule constraint: PreFilter skips', () => {
    assert.equal(filter(pod(''), []), 'Skip');
    assert.equal(filter(withConstraints([soft('zone')]), []), 'Skip');
  });
  test('no existing pods', () => assert.deepEqual(filter(withConstraints([hard('zone')]), []), { 'node-a': '', 'node-b': '', 'node-x': '', 'node-y': '' }));
  test("no existing pods, incoming pod doesn't match itself", () =>
    assert.deepEqual(filter(withConstraints([hard('zone')], { bar: '' }), []), { 'node-a': '', 'node-b': '', 'node-x': '', 'node-y': '' }));
  test('existing pods in a different namespace do not count', () => {
    const others = spread({ 'node-a': 1, 'node-b': 1 }).map((p) => ({ ...p, metadata: { ...p.metadata, namespace: 'ns2' } }));
    assert.deepEqual(filter(withConstraints([hard('zone')]), [...others, ...spread({ 'node-x': 1 })]), { 'node-a': '', 'node-b': '', 'node-x': U, 'node-y': U });
  });
  test('pods spread across zones as 3/3, all nodes fit', () =>
    assert.deepEqual(filter(withConstraints([hard('zone')]), spread({ 'node-a': 1, 'node-b': 2, 'node-x': 1, 'node-y': 2 })), { 'node-a': '', 'node-b': '', 'node-x': '', 'node-y': '' }));
  test("pods spread across zones as 1/2 due to absence of label 'zone' on node-b", () => {
    const nodes = [node('node-a', { zone: 'zone1' }), node('node-b', { zon: 'zone1' }), node('node-x', { zone: 'zone2' }), node('node-y', { zone: 'zone2' })];
    assert.deepEqual(filter(withConstraints([hard('zone')]), spread({ 'node-a': 1, 'node-b': 1, 'node-x': 1, 'node-y': 1 }), nodes), { 'node-a': '', 'node-b': UU, 'node-x': U, 'node-y': U });
  });
  test('pods spread across nodes as 2/1/0/3, only node-x fits', () =>
    assert.deepEqual(filter(withConstraints([hard('node')]), spread({ 'node-a': 2, 'node-b': 1, 'node-y': 3 })), { 'node-a': U, 'node-b': U, 'node-x': '', 'node-y': U }));
  test('pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit', () =>
    assert.deepEqual(filter(withConstraints([hard('node', 2)]), spread({ 'node-a': 2, 'node-b': 1, 'node-y': 3 })), { 'node-a': U, 'node-b': '', 'node-x': '', 'node-y': U }));
  test('pods spread across zones as 2/1, maxSkew is 2, minDomains is 3: the minimum counts as 0, only zone2 fits', () =>
    assert.deepEqual(filter(withConstraints([hard('zone', 2, { minDomains: 3 })]), spread({ 'node-a': 2, 'node-x': 1 })), { 'node-a': U, 'node-b': U, 'node-x': '', 'node-y': '' }));
  test('pods being deleted do not count', () => {
    const deleting = spread({ 'node-a': 2 }).map((p) => ({ ...p, metadata: { ...p.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } }));
    assert.deepEqual(filter(withConstraints([hard('node')]), deleting), { 'node-a': '', 'node-b': '', 'node-x': '', 'node-y': '' });
  });
  test('NodeAffinityPolicy Honor (default): nodes the pod cannot use are not domains', () => {
    const spec = { nodeSelector: { zone: 'zone1' } };
    // zone2 is excluded, so zone1 (2 pods) is the minimum itself.
    assert.deepEqual(filter(withConstraints([hard('zone')], { foo: '' }, spec), spread({ 'node-a': 2 }))['node-a' as never], '');
    // Ignore: zone2 (0 pods) counts ⇒ skew 3.
    assert.deepEqual((filter(withConstraints([hard('zone', 1, { nodeAffinityPolicy: 'Ignore' })], { foo: '' }, spec), spread({ 'node-a': 2 })) as Record<string, string>)['node-a'], U);
  });
  test('NodeTaintsPolicy Honor: a node with an untolerated taint is not a domain', () => {
    const nodes = [node('node-a', { node: 'node-a' }), node('node-b', { node: 'node-b' }, [{ key: 'k', value: 'v', effect: 'NoSchedule' }])];
    assert.deepEqual(filter(withConstraints([hard('node')]), spread({ 'node-a': 1 }), nodes), { 'node-a': U, 'node-b': '' });
    assert.deepEqual(filter(withConstraints([hard('node', 1, { nodeTaintsPolicy: 'Honor' })]), spread({ 'node-a': 1 }), nodes), { 'node-a': '', 'node-b': '' });
  });
  test('matchLabelKeys narrows the selector to pods with the same value', () => {
    const pods = [...spread({ 'node-a': 2 }, { foo: '', rev: '1' }), ...spread({ 'node-x': 1 }, { foo: '', rev: '2' })];
    // Only rev=2 pods count: zone2 has 1, zone1 0 ⇒ zone2 rejected.
    assert.deepEqual(filter(withConstraints([hard('zone', 1, { matchLabelKeys: ['rev'] })], { foo: '', rev: '2' }), pods), { 'node-a': '', 'node-b': '', 'node-x': U, 'node-y': U });
  });
  test('two constraints: both must hold (zone and node)', () =>
    // zone1 3, zone2 1 ⇒ zone1 rejected; in zone2, node-x has 1, node-y 0 ⇒ only node-y.
    assert.deepEqual(filter(withConstraints([hard('zone'), hard('node')]), spread({ 'node-a': 2, 'node-b': 1, 'node-x': 1 })), { 'node-a': U, 'node-b': U, 'node-x': U, 'node-y': '' }));
});

describe('PodTopologySpread totals kept across cycles', () => {
  /** Filter results of `plugin` against `cache` for a pod with a zone constraint. */
  const run = (plugin: PodTopologySpread, cache: SchedulerCache): Record<string, string> => {
    const info = newPodInfo(withConstraints([hard('zone')]));
    const state = new CycleState();
    plugin.preFilter(info, state, cache);
    return Object.fromEntries(cache.nodes().map((n) => [n.name, plugin.filter(info, n, state)?.reasons.join() ?? '']));
  };
  test('follow added and removed pods, relabelled and removed nodes, as a full recount does', () => {
    const cache = cacheWith(nodes4, []);
    const kept = new PodTopologySpread();
    const check = (): void => assert.deepEqual(run(kept, cache), run(new PodTopologySpread(), cache));
    check();
    const added = spread({ 'node-a': 2, 'node-x': 1 });
    for (const p of added) cache.addOrUpdatePod(p);
    check();
    assert.deepEqual(run(kept, cache), { 'node-a': SKEW, 'node-b': SKEW, 'node-x': '', 'node-y': '' });
    cache.removePod(added[0]?.metadata?.uid ?? '');
    check();
    // node-b moves to zone2: zone1 = node-a (1 pod), zone2 = node-b, node-x, node-y (1 pod).
    cache.addOrUpdateNode(node('node-b', { zone: 'zone2', node: 'node-b' }));
    check();
    cache.removeNode('node-a');
    check();
    assert.deepEqual(run(kept, cache), { 'node-b': '', 'node-x': '', 'node-y': '' });
  });
  test('a journal that no longer reaches back triggers a recount', () => {
    const cache = cacheWith(nodes4, []);
    const kept = new PodTopologySpread();
    run(kept, cache);
    const pods = spread({ 'node-a': 1 });
    // Far more changes than the journal keeps (1,024 here).
    for (let i = 0; i < 1500; i++) {
      cache.addOrUpdatePod(pods[0] as Pod);
      cache.removePod(pods[0]?.metadata?.uid ?? '');
    }
    assert.equal(cache.changedSince(0), undefined);
    for (const p of spread({ 'node-x': 2 })) cache.addOrUpdatePod(p);
    assert.deepEqual(run(kept, cache), run(new PodTopologySpread(), cache));
    assert.deepEqual(run(kept, cache), { 'node-a': '', 'node-b': '', 'node-x': SKEW, 'node-y': SKEW });
  });
});

describe('PodTopologySpread score (upstream TestPodTopologySpreadScore)', () => {
  function scores(incoming: Pod, pods: Pod[], nodes: Node[], feasibleNames?: string[], plugin = new PodTopologySpread()): number[] | 'Skip' {
    const cache = cacheWith(nodes, pods);
    const info = newPodInfo(incoming);
    const state = new CycleState();
    const feasible = feasibleNames ? cache.nodes().filter((n) => feasibleNames.includes(n.name)) : cache.nodes();
    if (plugin.preScore(info, state, feasible, cache) === 'Skip') return 'Skip';
    const s = feasible.map((n) => plugin.score(info, n, state));
    plugin.normalizeScore(s, state, feasible);
    return s;
  }
  const byNode = (...names: string[]) => names.map((n) => node(n, { node: n }));
  test('one constraint on node, no existing pods', () => assert.deepEqual(scores(withConstraints([soft('node')]), [], byNode('node-a', 'node-b')), [100, 100]));
  test('one constraint on node, only one node is candidate', () =>
    assert.deepEqual(scores(withConstraints([soft('node')]), spread({ 'node-a': 2, 'node-b': 1 }), byNode('node-a', 'node-b'), ['node-a']), [100]));
  test('one constraint on node, all 4 nodes are candidates', () =>
    // weight log(4 + 2); raw a 2·1.79→4, b 1.79→2, c 0, d 3·1.79→5 ⇒ 100·(5 − s)/5.
    assert.deepEqual(scores(withConstraints([soft('node')]), spread({ 'node-a': 2, 'node-b': 1, 'node-d': 3 }), byNode('node-a', 'node-b', 'node-c', 'node-d')), [20, 60, 100, 0]));
  test('a feasible node missing the topology label scores 0 and is left out of min/max', () => {
    const nodes = [node('node-a', { zone: 'zone1' }), node('node-b', { zone: 'zone2' }), node('node-c', {})];
    // zone1 has 1 pod: raw a = round(1·log(2+2)) = 1, b = 0 ⇒ a 0, b 100; c ignored ⇒ 0.
    assert.deepEqual(scores(withConstraints([soft('zone')]), spread({ 'node-a': 1 }), nodes), [0, 100, 0]);
  });
  test('kubernetes.io/hostname counts per node; maxSkew adds maxSkew − 1', () => {
    const nodes = ['n1', 'n2', 'n3'].map((n) => node(n, { 'kubernetes.io/hostname': n }));
    // weight log(3 + 2) = 1.609, +1: n1 2·1.609+1 → 4, n2 1.609+1 → 3, n3 1 ⇒ 100·(4 + 1 − s)/4.
    assert.deepEqual(scores(withConstraints([soft('kubernetes.io/hostname', 2)]), spread({ n1: 2, n2: 1 }), nodes), [25, 50, 100]);
  });
  test('system default constraints: replicas of a ReplicaSet spread over hostnames and zones', () => {
    const rs: ReplicaSet = { metadata: { name: 'rs', namespace: 'default' }, spec: { selector: { matchLabels: { app: 'web' } }, template: {} } };
    const plugin = new PodTopologySpread({ listers: { replicaSets: () => lister([rs]), services: () => lister<Service>([]) } });
    const owned = (nodeName: string) => pod(nodeName, { app: 'web' }, {}, { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'rs-uid', controller: true }] });
    const nodes = [node('n1', { 'kubernetes.io/hostname': 'n1', 'topology.kubernetes.io/zone': 'a' }), node('n2', { 'kubernetes.io/hostname': 'n2', 'topology.kubernetes.io/zone': 'a' }), node('n3', { 'kubernetes.io/hostname': 'n3', 'topology.kubernetes.io/zone': 'b' })];
    const s = scores(owned(''), [owned('n1'), owned('n1'), owned('n2')], nodes, undefined, plugin);
    assert.ok(Array.isArray(s));
    // n3 (empty node, empty zone) is best; n1 (2 replicas) worst.
    assert.equal(s[2], 100);
    assert.ok((s[1] as number) > (s[0] as number));
    // No owner and no Service: no default constraints.
    assert.equal(scores(pod('', { app: 'web' }), [], nodes, undefined, plugin), 'Skip');
    // Without listers (systemDefaulted but nothing to read), no defaults either.
    assert.equal(scores(owned(''), [], nodes), 'Skip');
  });
  test('defaultSelector merges the selecting Services and the controller (upstream DefaultSelector)', () => {
    const svc: Service = { metadata: { name: 's', namespace: 'default' }, spec: { selector: { tier: 'fe' } } };
    const other: Service = { metadata: { name: 'o', namespace: 'default' }, spec: { selector: { tier: 'be' } } };
    const plugin = new PodTopologySpread({ listers: { services: () => lister([svc, other]) } });
    assert.equal(plugin.defaultSelector(pod('', { tier: 'fe', app: 'x' })).toString(), 'tier=fe');
    assert.equal(plugin.defaultSelector(pod('', { app: 'x' })).empty(), true);
  });
});

function lister<T extends { metadata?: { name?: string } }>(items: T[]): NamespaceLister<T> {
  return { list: () => items, get: (name) => items.find((i) => i.metadata?.name === name) };
}

/**
 * AddPod/RemovePod, cases after upstream filtering_test.go `TestPreFilterStateAddPod` and
 * `TestPreFilterStateRemovePod` (same nodes and pods; checked through Filter on the changed clone,
 * where upstream compares its critical paths): PreFilter on the cluster, then `updates` applied to a
 * clone of the state (the NodeInfo changed first, as the framework does).
 */
function filterAfter(incoming: Pod, pods: Pod[], updates: Array<['add' | 'remove', Pod]>, nodes = nodes4): { after: Record<string, string>; before: Record<string, string> } {
  const plugin = new PodTopologySpread();
  const cache = cacheWith(nodes, pods);
  const info = newPodInfo(incoming);
  const state = new CycleState();
  assert.equal(plugin.preFilter(info, state, cache), undefined);
  const clone = state.clone();
  const infos = new Map(cache.nodes().map((n) => [n.name, snapshotNodeInfo(n)]));
  for (const [op, p] of updates) {
    const ni = infos.get(p.spec?.nodeName ?? '')!;
    const pi = newPodInfo(p);
    if (op === 'add') {
      ni.addPod(pi);
      plugin.addPod(clone, info, pi, ni);
    } else {
      ni.removePod(pi.uid);
      plugin.removePod(clone, info, pi, ni);
    }
  }
  const render = (st: CycleState) => Object.fromEntries(cache.nodes().map((n) => {
    const s = plugin.filter(info, n, st);
    return [n.name, s ? `${s.code}: ${s.reasons.join(', ')}` : ''];
  }));
  return { after: render(clone), before: render(state) };
}

describe('PodTopologySpread AddPod/RemovePod (upstream TestPreFilterStateAddPod / TestPreFilterStateRemovePod)', () => {
  const twoNodes = [node('node-a', { zone: 'zone1', node: 'node-a' }), node('node-b', { zone: 'zone1', node: 'node-b' })];
  test('node a and b both impact current min match: adding to node-b moves the minimum to node-a', () => {
    const { after, before } = filterAfter(withConstraints([hard('node')]), [], [['add', pod('node-b')]], twoNodes);
    assert.deepEqual(before, { 'node-a': '', 'node-b': '' });
    assert.deepEqual(after, { 'node-a': '', 'node-b': U });
  });
  test('only node a impacts current min match: adding to node-b (1/0 → 1/1) lets both fit', () => {
    const { after, before } = filterAfter(withConstraints([hard('node')]), spread({ 'node-a': 1 }), [['add', pod('node-b')]], twoNodes);
    assert.deepEqual(before, { 'node-a': U, 'node-b': '' });
    assert.deepEqual(after, { 'node-a': '', 'node-b': '' });
  });
  test("add a pod in a different namespace doesn't change the counts", () => {
    const { after } = filterAfter(withConstraints([hard('node')]), spread({ 'node-a': 1 }), [['add', pod('node-b', { foo: '' }, {}, { namespace: 'ns1' })]], twoNodes);
    assert.deepEqual(after, { 'node-a': U, 'node-b': '' });
  });
  test("add a pod that doesn't match the selector doesn't change the counts", () => {
    const { after } = filterAfter(withConstraints([hard('node')]), spread({ 'node-a': 1 }), [['add', pod('node-b', { bar: '' })]], twoNodes);
    assert.deepEqual(after, { 'node-a': U, 'node-b': '' });
  });
  test('add pod on non-critical node (zone 2/1 → 3/1): zone1 now violates maxSkew 2', () => {
    const { after, before } = filterAfter(withConstraints([hard('zone', 2)]), spread({ 'node-a': 1, 'node-b': 1, 'node-x': 1 }), [['add', pod('node-a')]]);
    assert.deepEqual(before, { 'node-a': '', 'node-b': '', 'node-x': '', 'node-y': '' });
    assert.deepEqual(after, { 'node-a': U, 'node-b': U, 'node-x': '', 'node-y': '' });
  });
  test('node a and x both impact the minimum on zone and node: two constraints updated together', () => {
    // zone 1/1, nodes 1/0/1/0; adding to node-b and node-y keeps zones level and levels the nodes.
    const { after, before } = filterAfter(withConstraints([hard('zone'), hard('node')]), spread({ 'node-a': 1, 'node-x': 1 }), [['add', pod('node-b')], ['add', pod('node-y')]]);
    assert.deepEqual(before, { 'node-a': U, 'node-b': '', 'node-x': U, 'node-y': '' });
    assert.deepEqual(after, { 'node-a': '', 'node-b': '', 'node-x': '', 'node-y': '' });
  });
  test('a pod added on a node the pod’s nodeSelector excludes is not counted (nodeAffinityPolicy Honor)', () => {
    const incoming = withConstraints([hard('zone')], { foo: '' }, { nodeSelector: { zone: 'zone1' } });
    const { after } = filterAfter(incoming, [], [['add', pod('node-x')]]);
    // zone2 is not a domain for this pod: counted, it would make zone2 1 + 1 − 0 > 1 on node-x.
    assert.deepEqual(after, { 'node-a': '', 'node-b': '', 'node-x': '', 'node-y': '' });
  });
  test('remove a pod: zones 2/1 → 1/1 resolve the skew (TestPreFilterStateRemovePod "pods spread across zones as 2/1")', () => {
    const pods = spread({ 'node-a': 1, 'node-b': 1, 'node-x': 1 });
    const { after, before } = filterAfter(withConstraints([hard('zone')]), pods, [['remove', pods[0]!]]);
    assert.deepEqual(before, { 'node-a': U, 'node-b': U, 'node-x': '', 'node-y': '' });
    assert.deepEqual(after, { 'node-a': '', 'node-b': '', 'node-x': '', 'node-y': '' });
  });
  test('remove from the minimum domain lowers the minimum', () => {
    const pods = spread({ 'node-a': 1, 'node-b': 1, 'node-x': 1 });
    const { after } = filterAfter(withConstraints([hard('zone')]), pods, [['remove', pods[2]!]]);
    // zone1 2, zone2 0: zone1 is 2 + 1 − 0 = 3 > 1.
    assert.deepEqual(after, { 'node-a': U, 'node-b': U, 'node-x': '', 'node-y': '' });
  });
  test("remove a pod that doesn't match the selector or lives in another namespace: nothing changes", () => {
    const pods = [...spread({ 'node-a': 2 }), pod('node-a', { bar: '' }), pod('node-a', { foo: '' }, {}, { namespace: 'ns1' })];
    const { after, before } = filterAfter(withConstraints([hard('zone')]), pods, [['remove', pods[2]!], ['remove', pods[3]!]]);
    assert.deepEqual(after, before);
  });
  test('a terminating pod, never counted, is not uncounted either', () => {
    const pods = [...spread({ 'node-a': 2 }), pod('node-x', { foo: '' }, {}, { deletionTimestamp: '2024-01-01T00:00:00Z' })];
    const { after, before } = filterAfter(withConstraints([hard('zone')]), pods, [['remove', pods[2]!]]);
    assert.deepEqual(after, before);
  });
  test('the clone changes, the PreFilter state and the next cycle do not (counts shared with the cross-cycle totals)', () => {
    const plugin = new PodTopologySpread();
    const cache = cacheWith(nodes4, []);
    const info = newPodInfo(withConstraints([hard('zone')]));
    const state = new CycleState();
    plugin.preFilter(info, state, cache);
    const clone = state.clone();
    const ni = snapshotNodeInfo(cache.nodes().find((n) => n.name === 'node-x')!);
    const added = newPodInfo(pod('node-x'));
    ni.addPod(added);
    plugin.addPod(clone, info, added, ni);
    const nodeX = cache.nodes().find((n) => n.name === 'node-x')!;
    assert.equal(plugin.filter(info, nodeX, clone)?.code, 'Unschedulable');
    assert.equal(plugin.filter(info, nodeX, state), undefined);
    const next = new CycleState();
    plugin.preFilter(info, next, cache);
    assert.equal(plugin.filter(info, nodeX, next), undefined);
  });
  test('without PreFilter state the extensions throw', () => {
    const plugin = new PodTopologySpread();
    const ni = snapshotNodeInfo(cacheWith(nodes4, []).nodes()[0]!);
    assert.throws(() => plugin.addPod(new CycleState(), newPodInfo(pod('')), newPodInfo(pod('node-a')), ni), /PreFilterPodTopologySpread/);
  });
});
