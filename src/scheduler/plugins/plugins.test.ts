import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Taint, Toleration } from '../../api/index.js';
import { makeNode, makePod, nodeInfo, podInfo } from '../testing/fixtures.js';
import {
  CycleState,
  nodeAffinity,
  nodeName,
  nodeResourcesBalancedAllocation,
  nodeResourcesFit,
  nodeResourcesLeastAllocated,
  nodeAffinityScore,
  nodeUnschedulable,
  taintTolerationScore,
  taintToleration,
} from './index.js';
import { computePodResourceRequest } from '../resources.js';

describe('TaintToleration filter', () => {
  const filter = (taints: Taint[], tolerations: Toleration[]) =>
    taintToleration.filter(podInfo(makePod('p', { spec: { tolerations } })), nodeInfo(makeNode('n', { taints })));
  test('no taints fits', () => assert.equal(filter([], []), undefined));
  test('untolerated NoSchedule rejects, unresolvable, with upstream message', () => {
    assert.deepEqual(filter([{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }], []), {
      code: 'UnschedulableAndUnresolvable',
      reasons: ['node(s) had untolerated taint {dedicated: gpu}'],
      plugin: 'TaintToleration',
    });
  });
  test('untolerated NoExecute rejects', () => assert.ok(filter([{ key: 'a', effect: 'NoExecute' }], [])));
  test('PreferNoSchedule never rejects', () => assert.equal(filter([{ key: 'a', effect: 'PreferNoSchedule' }], []), undefined));
  test('every taint must be tolerated', () => {
    const taints: Taint[] = [
      { key: 'a', effect: 'NoSchedule' },
      { key: 'b', effect: 'NoSchedule' },
    ];
    assert.ok(filter(taints, [{ key: 'a', operator: 'Exists' }]));
    assert.equal(filter(taints, [{ key: 'a', operator: 'Exists' }, { key: 'b', operator: 'Exists' }]), undefined);
  });
});

describe('NodeUnschedulable filter', () => {
  const cases: Array<[string, boolean, Toleration[], boolean]> = [
    ['schedulable node', false, [], true],
    ['cordoned node', true, [], false],
    ['cordoned, tolerates unschedulable:NoSchedule', true, [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }], true],
    ['cordoned, tolerates everything', true, [{ operator: 'Exists' }], true],
    ['cordoned, toleration for NoExecute only', true, [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoExecute' }], false],
  ];
  for (const [name, cordoned, tolerations, fits] of cases) {
    test(name, () => {
      const s = nodeUnschedulable.filter(podInfo(makePod('p', { spec: { tolerations } })), nodeInfo(makeNode('n', { unschedulable: cordoned })));
      assert.equal(s === undefined, fits);
      if (s) assert.deepEqual(s.reasons, ['node(s) were unschedulable']);
    });
  }
});

describe('NodeName filter', () => {
  test('no nodeName fits any node', () => assert.equal(nodeName.filter(podInfo(makePod('p')), nodeInfo(makeNode('a'))), undefined));
  test('nodeName must match', () => {
    const pod = podInfo(makePod('p', { spec: { nodeName: 'b' } }));
    assert.ok(nodeName.filter(pod, nodeInfo(makeNode('a'))));
    assert.equal(nodeName.filter(pod, nodeInfo(makeNode('b'))), undefined);
  });
});

describe('NodeAffinity', () => {

  const fits = (spec: Parameters<typeof makePod>[1], node = makeNode('n1', { labels: { zone: 'a' } })) =>
    nodeAffinity.filter(podInfo(makePod('p', spec)), nodeInfo(node)) === undefined;
  test('nodeSelector: all pairs must match', () => {
    assert.equal(fits({ spec: { nodeSelector: { zone: 'a' } } }), true);
    assert.equal(fits({ spec: { nodeSelector: { zone: 'a', x: 'y' } } }), false);
  });
  test('rejection message', () => {
    const s = nodeAffinity.filter(podInfo(makePod('p', { spec: { nodeSelector: { zone: 'b' } } })), nodeInfo(makeNode('n1')));
    assert.deepEqual(s?.reasons, ["node(s) didn't match Pod's node affinity/selector"]);
    assert.equal(s?.code, 'UnschedulableAndUnresolvable');
  });
  const required = (...nodeSelectorTerms: object[]) => ({
    spec: { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms } } } },
  });
  test('terms are ORed', () => {
    assert.equal(fits(required({ matchExpressions: [{ key: 'zone', operator: 'In', values: ['b'] }] }, { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] })), true);
  });
  test('expressions inside a term are ANDed', () => {
    assert.equal(
      fits(required({ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }, { key: 'x', operator: 'Exists' }] })),
      false,
    );
  });
  test('an empty term matches nothing', () => assert.equal(fits(required({})), false));
  test('no terms match nothing', () => assert.equal(fits(required()), false));
  test('matchFields metadata.name pins a pod to a node (DaemonSet)', () => {
    const pin = required({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] });
    assert.equal(fits(pin, makeNode('n1')), true);
    assert.equal(fits(pin, makeNode('n2')), false);
  });
  test('nodeSelector and affinity must both hold', () => {
    assert.equal(fits({ spec: { ...required({ matchExpressions: [{ key: 'zone', operator: 'Exists' }] }).spec, nodeSelector: { zone: 'b' } } }), false);
  });
});

describe('computePodResourceRequest', () => {
  const req = (spec: object) => computePodResourceRequest(makePod('p', { spec: spec }));
  test('sums containers', () => {
    const r = req({ containers: [{ name: 'a', resources: { requests: { cpu: '200m', memory: '1Gi' } } }, { name: 'b', resources: { requests: { cpu: '300m' } } }] });
    assert.equal(r.milliCPU, 500);
    assert.equal(r.memory, 1024 ** 3);
  });
  test('an init container larger than the sum wins', () => {
    const r = req({
      containers: [{ name: 'a', resources: { requests: { cpu: '200m' } } }],
      initContainers: [{ name: 'i', resources: { requests: { cpu: '1', memory: '10Mi' } } }],
    });
    assert.equal(r.milliCPU, 1000);
    assert.equal(r.memory, 10 * 1024 ** 2);
  });
  test('sidecars add to the containers and to later init containers', () => {
    const r = req({
      containers: [{ name: 'a', resources: { requests: { cpu: '200m' } } }, { name: 'b', resources: { requests: { cpu: '300m' } } }],
      initContainers: [
        { name: 's', restartPolicy: 'Always', resources: { requests: { cpu: '100m' } } },
        { name: 'i', resources: { requests: { cpu: '800m' } } },
      ],
    });
    assert.equal(r.milliCPU, 900);
  });
  test('overhead is added', () => {
    const r = req({ containers: [{ name: 'a', resources: { requests: { cpu: '200m' } } }], overhead: { cpu: '50m' } });
    assert.equal(r.milliCPU, 250);
  });
  test('extended resources', () => {
    const r = req({ containers: [{ name: 'a', resources: { requests: { 'example.com/gpu': '2' } } }] });
    assert.equal(r.scalar.get('example.com/gpu'), 2);
  });
});

describe('NodeResourcesFit filter', () => {
  const node = makeNode('n', { cpu: '1', memory: '1Gi', pods: '2' });
  const reasons = (pod: Parameters<typeof makePod>[1], ...existing: Parameters<typeof makePod>[1][]) =>
    nodeResourcesFit.filter(podInfo(makePod('p', pod)), nodeInfo(node, ...existing.map((e, i) => makePod(`e${i}`, e))))?.reasons ?? [];
  test('fits', () => assert.deepEqual(reasons({ requests: { cpu: '500m' } }, { requests: { cpu: '500m' } }), []));
  test('Insufficient cpu counts the pods already there', () =>
    assert.deepEqual(reasons({ requests: { cpu: '600m' } }, { requests: { cpu: '500m' } }), ['Insufficient cpu']));
  test('Insufficient memory', () => assert.deepEqual(reasons({ requests: { memory: '2Gi' } }), ['Insufficient memory']));
  test('Too many pods, even without requests', () => assert.deepEqual(reasons({}, {}, {}), ['Too many pods']));
  test('every shortfall is reported', () =>
    assert.deepEqual(reasons({ requests: { cpu: '2', memory: '2Gi' } }, {}, {}), ['Too many pods', 'Insufficient cpu', 'Insufficient memory']));
  test('init containers count', () =>
    assert.deepEqual(reasons({ spec: { initContainers: [{ name: 'i', resources: { requests: { cpu: '2' } } }] } }), ['Insufficient cpu']));
  test('extended resource missing on the node', () =>
    assert.deepEqual(reasons({ requests: { 'example.com/gpu': '1' } }), ['Insufficient example.com/gpu']));
  test('code is Unschedulable (preemption could help)', () => {
    assert.equal(nodeResourcesFit.filter(podInfo(makePod('p', { requests: { cpu: '2' } })), nodeInfo(node))?.code, 'Unschedulable');
  });
});

describe('scores', () => {
  test('LeastAllocated prefers the emptier node', () => {
    const pod = podInfo(makePod('p', { requests: { cpu: '1', memory: '1Gi' } }));
    const empty = nodeInfo(makeNode('a', { cpu: '4', memory: '4Gi' }));
    const busy = nodeInfo(makeNode('b', { cpu: '4', memory: '4Gi' }), makePod('x', { requests: { cpu: '2', memory: '2Gi' } }));
    assert.equal(nodeResourcesLeastAllocated.score(pod, empty), 75);
    assert.equal(nodeResourcesLeastAllocated.score(pod, busy), 25);
  });
  test('BalancedAllocation: equal fractions score 100', () => {
    const pod = podInfo(makePod('p', { requests: { cpu: '1', memory: '1Gi' } }));
    assert.equal(nodeResourcesBalancedAllocation.score(pod, nodeInfo(makeNode('a', { cpu: '4', memory: '4Gi' }))), 100);
    // cpu 1/4 = 0.25, memory 1/1 = 1 ⇒ std 0.375 ⇒ 62
    assert.equal(nodeResourcesBalancedAllocation.score(pod, nodeInfo(makeNode('b', { cpu: '4', memory: '1Gi' }))), 62);
  });
  test('TaintToleration score: fewer untolerated PreferNoSchedule taints score higher (upstream taint_toleration_test.go)', () => {
    const prefer = (key: string): Taint => ({ key, value: 'v', effect: 'PreferNoSchedule' });
    const nodes = [nodeInfo(makeNode('a')), nodeInfo(makeNode('b', { taints: [prefer('x')] })), nodeInfo(makeNode('c', { taints: [prefer('x'), prefer('y'), { key: 'z', effect: 'NoSchedule' }] }))];
    const score = (tolerations: Toleration[]) => {
      const pod = podInfo(makePod('p', { spec: { tolerations } }));
      const s = nodes.map((n) => taintTolerationScore.score(pod, n));
      taintTolerationScore.normalizeScore?.(s);
      return s;
    };
    assert.deepEqual(score([]), [100, 50, 0]);
    // A toleration for x (effect empty or PreferNoSchedule) removes it; a NoSchedule toleration does not.
    assert.deepEqual(score([{ key: 'x', operator: 'Exists' }]), [100, 100, 0]);
    assert.deepEqual(score([{ key: 'x', operator: 'Exists', effect: 'NoSchedule' }]), [100, 50, 0]);
    assert.deepEqual(score([{ operator: 'Exists', effect: 'PreferNoSchedule' }]), [100, 100, 100]);
    assert.equal(taintTolerationScore.weight, 3);
  });
  test('NodeAffinity score: Σ weights of matching preferred terms, normalised to the best (upstream node_affinity_test.go TestNodeAffinityPriority)', () => {
    const nodes = [nodeInfo(makeNode('a', { labels: { foo: 'bar' } })), nodeInfo(makeNode('b', { labels: { foo: 'bar', key: 'value' } })), nodeInfo(makeNode('c'))];
    const pod = podInfo(
      makePod('p', {
        spec: {
          affinity: {
            nodeAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [
                { weight: 2, preference: { matchExpressions: [{ key: 'foo', operator: 'In', values: ['bar'] }] } },
                { weight: 4, preference: { matchExpressions: [{ key: 'key', operator: 'In', values: ['value'] }] } },
              ],
            },
          },
        },
      }),
    );
    assert.equal(nodeAffinityScore.preScore?.(pod, new CycleState(), [], { list: () => [] } as never), undefined);
    const s = nodes.map((n) => nodeAffinityScore.score(pod, n));
    assert.deepEqual(s, [2, 6, 0]);
    nodeAffinityScore.normalizeScore?.(s);
    assert.deepEqual(s, [33, 100, 0]);
    assert.equal(nodeAffinityScore.preScore?.(podInfo(makePod('q')), new CycleState(), [], { list: () => [] } as never), 'Skip');
    assert.equal(nodeAffinityScore.weight, 2);
  });
});
