import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { DaemonSet, Node, PodSpec, Taint } from '../../api/index.js';
import {
  allowsSurge,
  createPodTemplate,
  daemonPodTolerations,
  getTargetNodeName,
  isPodUpdated,
  nodeShouldRunDaemonPod,
  replaceDaemonSetPodNodeNameNodeAffinity,
  surgeCount,
  unavailableCount,
} from './util.js';

function node(name: string, labels: Record<string, string> = {}, taints: Taint[] = []): Node {
  return { metadata: { name, labels }, spec: { taints } };
}

function ds(spec: Partial<PodSpec> = {}, strategy?: NonNullable<DaemonSet['spec']>['updateStrategy']): DaemonSet {
  return {
    metadata: { name: 'ds', namespace: 'ns' },
    spec: {
      selector: { matchLabels: { app: 'ds' } },
      template: { metadata: { labels: { app: 'ds' } }, spec: { containers: [{ name: 'c', image: 'i' }], ...spec } },
      ...(strategy ? { updateStrategy: strategy } : {}),
    },
  };
}

describe('nodeShouldRunDaemonPod', () => {
  const cases: [string, Node, DaemonSet, [boolean, boolean]][] = [
    ['plain node', node('a'), ds(), [true, true]],
    ['template nodeName is this node', node('a'), ds({ nodeName: 'a' }), [true, true]],
    ['template nodeName is another node', node('a'), ds({ nodeName: 'b' }), [false, false]],
    ['nodeSelector matches', node('a', { disk: 'ssd' }), ds({ nodeSelector: { disk: 'ssd' } }), [true, true]],
    ['nodeSelector does not match', node('a', { disk: 'hdd' }), ds({ nodeSelector: { disk: 'ssd' } }), [false, false]],
    [
      'required affinity matchExpressions',
      node('a', { zone: 'z1' }),
      ds({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['z1', 'z2'] }] }] } } } }),
      [true, true],
    ],
    [
      'required affinity not matching',
      node('a', { zone: 'z3' }),
      ds({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['z1'] }] }] } } } }),
      [false, false],
    ],
    [
      'required affinity matchFields metadata.name',
      node('b'),
      ds({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['b'] }] }] } } } }),
      [false, false],
    ],
    ['untolerated NoSchedule taint: do not run, may stay', node('a', {}, [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }]), ds(), [false, true]],
    ['untolerated NoExecute taint: neither', node('a', {}, [{ key: 'dedicated', effect: 'NoExecute' }]), ds(), [false, false]],
    ['PreferNoSchedule is ignored', node('a', {}, [{ key: 'dedicated', effect: 'PreferNoSchedule' }]), ds(), [true, true]],
    [
      'control-plane taint tolerated by the template (the seed manifest)',
      node('cp', { 'node-role.kubernetes.io/control-plane': '' }, [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }]),
      ds({ tolerations: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' }] }),
      [true, true],
    ],
    ['cordoned (unschedulable taint) is tolerated by daemon pods', node('a', {}, [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }]), ds(), [true, true]],
    ['not-ready NoExecute is tolerated', node('a', {}, [{ key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }]), ds(), [true, true]],
    ['unreachable NoExecute is tolerated', node('a', {}, [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }]), ds(), [true, true]],
    ['memory pressure is tolerated', node('a', {}, [{ key: 'node.kubernetes.io/memory-pressure', effect: 'NoSchedule' }]), ds(), [true, true]],
    ['network-unavailable without hostNetwork', node('a', {}, [{ key: 'node.kubernetes.io/network-unavailable', effect: 'NoSchedule' }]), ds(), [false, true]],
    ['network-unavailable with hostNetwork', node('a', {}, [{ key: 'node.kubernetes.io/network-unavailable', effect: 'NoSchedule' }]), ds({ hostNetwork: true }), [true, true]],
  ];
  for (const [name, n, d, [shouldRun, shouldContinueRunning]] of cases) {
    test(name, () => assert.deepEqual({ ...nodeShouldRunDaemonPod(n, d) }, { shouldRun, shouldContinueRunning }));
  }
});

test('daemon tolerations are added once, in upstream order, after the template’s', () => {
  const t = daemonPodTolerations([{ key: 'a', operator: 'Exists' }, { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' }], false);
  assert.deepEqual(t.map((x) => `${x.key}:${x.effect ?? ''}`), [
    'a:',
    'node.kubernetes.io/not-ready:NoExecute',
    'node.kubernetes.io/unreachable:NoExecute',
    'node.kubernetes.io/disk-pressure:NoSchedule',
    'node.kubernetes.io/memory-pressure:NoSchedule',
    'node.kubernetes.io/pid-pressure:NoSchedule',
    'node.kubernetes.io/unschedulable:NoSchedule',
  ]);
  assert.equal(daemonPodTolerations(undefined, true).at(-1)?.key, 'node.kubernetes.io/network-unavailable');
  assert.ok(t.every((x) => x.tolerationSeconds === undefined));
});

test('createPodTemplate labels and tolerations; pinning replaces required terms', () => {
  const d = ds({ affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'Exists' }] }] } } } });
  const t = createPodTemplate(d.spec!.template, 3, 'abc123');
  assert.deepEqual(t.metadata?.labels, { app: 'ds', 'pod-template-generation': '3', 'controller-revision-hash': 'abc123' });
  assert.equal(t.spec?.tolerations?.length, 6);
  assert.equal(d.spec!.template.spec!.tolerations, undefined, 'the DaemonSet is not changed');
  const a = replaceDaemonSetPodNodeNameNodeAffinity(t.spec?.affinity, 'node-7');
  assert.deepEqual(a.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution, {
    nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-7'] }] }],
  });
  assert.equal(getTargetNodeName({ spec: { containers: [], affinity: a } }), 'node-7');
  assert.equal(getTargetNodeName({ spec: { containers: [], nodeName: 'n1', affinity: a } }), 'n1');
  assert.equal(getTargetNodeName({ spec: { containers: [] } }), undefined);
});

test('isPodUpdated: hash or template generation', () => {
  const pod = (labels: Record<string, string>) => ({ metadata: { labels } });
  assert.ok(isPodUpdated(pod({ 'controller-revision-hash': 'h2' }), 'h2', 2));
  assert.ok(isPodUpdated(pod({ 'pod-template-generation': '2' }), 'h2', 2));
  assert.ok(!isPodUpdated(pod({ 'controller-revision-hash': 'h1', 'pod-template-generation': '1' }), 'h2', 2));
});

test('surge and unavailable counts round up (DaemonSet rounding)', () => {
  const ru = (maxSurge: number | string, maxUnavailable: number | string) => ds({}, { type: 'RollingUpdate', rollingUpdate: { maxSurge, maxUnavailable } });
  assert.equal(unavailableCount(ru(0, '10%'), 25), 3); // 2.5 ⇒ 3
  assert.equal(unavailableCount(ru(0, '10%'), 5), 1); // 0.5 ⇒ 1
  assert.equal(surgeCount(ru('30%', 0), 7), 3); // 2.1 ⇒ 3
  assert.equal(unavailableCount(ds({}, { type: 'OnDelete' }), 10), 0);
  assert.ok(allowsSurge(ru(1, 0)));
  assert.ok(!allowsSurge(ru(0, 1)));
});
