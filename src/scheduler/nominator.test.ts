/**
 * The nominator and filtering with nominated pods (upstream backend/queue/nominator.go and
 * framework/runtime/framework.go `RunFilterPluginsWithNominatedPods`; cases after upstream's
 * TestPriorityQueue_UpdateNominatedPodForNode and TestRunFilterPluginsWithNominatedPods; nominees
 * counted by InterPodAffinity's and PodTopologySpread's AddPod extensions).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../api/index.js';
import { SchedulerCache } from './cache.js';
import { newProfile, runFilterPluginsWithNominatedPods, runPreFilterPlugins } from './framework.js';
import { newPodInfo, type NodeInfo, type PodInfo } from './node-info.js';
import { PodNominator } from './nominator.js';
import { CycleState, InterPodAffinity, nodeResourcesFit, PodTopologySpread, unschedulable, type FilterPlugin, type Plugin } from './plugins/index.js';
import { findNodesThatFitPod } from './schedule-one.js';
import { makeNode, makePod, nodeInfo } from './testing/fixtures.js';

const pod = (name: string, cpu: string, priority: number, nominated?: string): Pod => {
  const p = makePod(name, { uid: name, requests: { cpu }, spec: { priority } });
  return nominated ? { ...p, status: { nominatedNodeName: nominated } } : p;
};

describe('PodNominator', () => {
  test('nominations from status and from the scheduler; an update without one keeps the in-memory nomination', () => {
    const n = new PodNominator();
    n.addNominatedPod(newPodInfo(pod('a', '1', 10, 'n1')), undefined);
    n.addNominatedPod(newPodInfo(pod('b', '1', 10)), { nodeName: 'n2' });
    n.addNominatedPod(newPodInfo(pod('c', '1', 10)), undefined);
    assert.deepEqual([n.size, n.nominatedNodeOf('a'), n.nominatedNodeOf('b'), n.nominatedNodeOf('c')], [2, 'n1', 'n2', undefined]);
    // b's status write has not arrived; an unrelated update must not drop the nomination.
    n.updateNominatedPod(pod('b', '1', 10), { ...pod('b', '1', 10), metadata: { ...pod('b', '1', 10).metadata, labels: { x: 'y' } } });
    assert.equal(n.nominatedNodeOf('b'), 'n2');
    assert.equal(n.nominatedPodsForNode('n2')[0]?.pod.metadata?.labels?.x, 'y', 'the pod object is refreshed');
    // a's nomination cleared in its status: gone.
    n.updateNominatedPod(pod('a', '1', 10, 'n1'), pod('a', '1', 10));
    assert.equal(n.nominatedNodeOf('a'), undefined);
    assert.deepEqual(n.nominatedPodsForNode('n1'), []);
    // Moved by a status write.
    n.updateNominatedPod(pod('b', '1', 10), pod('b', '1', 10, 'n3'));
    assert.deepEqual([n.nominatedNodeOf('b'), n.nominatedPodsForNode('n2').length, n.nominatedPodsForNode('n3').length], ['n3', 0, 1]);
    // Cleared by the scheduler (no preemption candidate any more), then deleted.
    n.addNominatedPod(newPodInfo(pod('b', '1', 10, 'n3')), { nodeName: '' });
    assert.equal(n.size, 0);
    n.addNominatedPod(newPodInfo(pod('d', '1', 10, 'n1')), undefined);
    n.delete('d');
    n.delete('never-there');
    assert.equal(n.size, 0);
  });
});

describe('filtering with nominated pods', () => {
  const profile = newProfile([nodeResourcesFit]);
  const node = (): NodeInfo => nodeInfo(makeNode('n1', { cpu: '1' }), { ...pod('running', '500m', 0), spec: { ...pod('running', '500m', 0).spec!, nodeName: 'n1' } });
  const nominatedTo = (pods: PodInfo[]) => (name: string) => (name === 'n1' ? pods : []);

  test('nominees of higher or equal priority count; lower ones, and the pod itself, do not', () => {
    const p = newPodInfo(pod('p', '400m', 100));
    const st = new CycleState();
    assert.equal(runFilterPluginsWithNominatedPods(profile, p, node(), st, nominatedTo([newPodInfo(pod('low', '500m', 99))])), undefined);
    assert.deepEqual(runFilterPluginsWithNominatedPods(profile, p, node(), st, nominatedTo([newPodInfo(pod('eq', '500m', 100))]))?.reasons, ['Insufficient cpu']);
    assert.equal(runFilterPluginsWithNominatedPods(profile, p, node(), st, nominatedTo([newPodInfo(pod('p', '400m', 100))])), undefined);
  });

  test('the second pass without the nominees must pass too (a filter that needs them absent)', () => {
    // A filter that rejects a node unless the "buddy" pod is on it: it passes only with the nominee.
    const needsBuddy: FilterPlugin = {
      name: 'NeedsBuddy',
      filter: (_pod, ni) => ([...ni.pods.values()].some((x) => x.pod.metadata?.name === 'buddy') ? undefined : unschedulable('NeedsBuddy', 'no buddy')),
    };
    const p = newPodInfo(pod('p', '100m', 0));
    const status = runFilterPluginsWithNominatedPods(newProfile([needsBuddy]), p, node(), new CycleState(), nominatedTo([newPodInfo(pod('buddy', '100m', 10))]));
    assert.deepEqual(status?.reasons, ['no buddy']);
  });

  test('findNodesThatFitPod counts nominees only on their node and leaves the cache NodeInfo alone', () => {
    const n1 = node();
    const n2 = nodeInfo(makeNode('n2', { cpu: '1' }), { ...pod('r2', '500m', 0), spec: { ...pod('r2', '500m', 0).spec!, nodeName: 'n2' } });
    const nominee = newPodInfo(pod('vip', '500m', 1000));
    const r = findNodesThatFitPod(newPodInfo(pod('p', '400m', 0)), [n1, n2], 0, [nodeResourcesFit], new CycleState(), {
      pods: nominatedTo([nominee]),
      preFilterExtensions: [],
    });
    assert.deepEqual(r.feasible.map((n) => n.name), ['n2']);
    assert.deepEqual(r.statuses.get('n1')?.reasons, ['Insufficient cpu']);
    assert.equal(n1.pods.size, 1);
  });
});

describe('nominated pods in the cross-node counts (PreFilter AddPod extensions)', () => {
  const labelled = (p: Pod, labels: Record<string, string>): Pod => ({ ...p, metadata: { ...p.metadata, labels } });
  /** PreFilter on an empty two-node cache, then Filter on n1 with `nominee` nominated there. */
  const nominatedTo = (pods: PodInfo[]) => (name: string) => (name === 'n1' ? pods : []);
  function filterWithNominee(incoming: Pod, nominee: Pod, plugins: Plugin[]) {
    const cache = new SchedulerCache();
    cache.addOrUpdateNode(makeNode('n1'));
    cache.addOrUpdateNode(makeNode('n2'));
    const profile = newProfile(plugins);
    const info = newPodInfo(incoming);
    const state = new CycleState();
    assert.equal(runPreFilterPlugins(profile.preFilter, info, state, cache), undefined);
    const n1 = cache.nodes().find((n) => n.name === 'n1')!;
    const status = runFilterPluginsWithNominatedPods(profile, info, n1, state, nominatedTo([newPodInfo(nominee)]));
    // The cycle's own state did not see the nominee.
    const without = runFilterPluginsWithNominatedPods(profile, info, n1, state, undefined);
    return { status, without };
  }
  test('InterPodAffinity: a nominee of higher priority that the pod is anti-affine to rejects its node', () => {
    const incoming = {
      ...pod('p', '100m', 0),
      spec: { ...pod('p', '100m', 0).spec!, affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'kubernetes.io/hostname' }] } } },
    };
    const r = filterWithNominee(incoming, labelled(pod('vip', '100m', 1000), { app: 'web' }), [new InterPodAffinity()]);
    assert.deepEqual(r.status?.reasons, ["node(s) didn't match pod anti-affinity rules"]);
    assert.equal(r.without, undefined);
  });
  test('PodTopologySpread: a nominee of higher priority counts in its domain', () => {
    const incoming = labelled(
      { ...pod('p', '100m', 0), spec: { ...pod('p', '100m', 0).spec!, topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { app: 'web' } } }] } },
      { app: 'web' },
    );
    const r = filterWithNominee(incoming, labelled(pod('vip', '100m', 1000), { app: 'web' }), [new PodTopologySpread()]);
    assert.deepEqual(r.status?.reasons, ["node(s) didn't match pod topology spread constraints"]);
    assert.equal(r.without, undefined);
    // A nominee of lower priority is not counted.
    assert.equal(filterWithNominee(incoming, labelled(pod('low', '100m', -1), { app: 'web' }), [new PodTopologySpread()]).status, undefined);
  });
});
