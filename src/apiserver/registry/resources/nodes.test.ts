import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Node as WireNode } from '../../../api/index.js';
import { fieldErrorString, type FieldError } from '../../../machinery/errors/index.js';
import { parseTime } from '../../../util/clock/index.js';
import type { ApiObject } from './helpers.js';
import { nodeStrategy, printNode } from './nodes.js';

type Node = ApiObject<WireNode>;

const msgs = (errs: FieldError[]): string[] => errs.map(fieldErrorString);
const NOW = parseTime('2025-01-03T00:00:00Z')!;

function node(mutate: (n: Node) => void = () => {}): Node {
  const n: Node = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'node-1', creationTimestamp: '2025-01-01T00:00:00Z', labels: {} },
    spec: {},
    status: {
      capacity: { cpu: '4', memory: '8Gi', pods: '110' },
      conditions: [{ type: 'Ready', status: 'True' }],
      addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
      nodeInfo: {
        kubeletVersion: 'v1.33.0',
        osImage: 'Ubuntu 24.04',
        kernelVersion: '6.8.0',
        containerRuntimeVersion: 'containerd://2.0.0',
        architecture: 'amd64',
        bootID: '',
        kubeProxyVersion: '',
        machineID: '',
        operatingSystem: 'linux',
        systemUUID: '',
      },
    },
  };
  mutate(n);
  nodeStrategy.defaults(n);
  nodeStrategy.prepareForCreate(n, NOW);
  return n;
}

test('defaults: allocatable from capacity; status is kept on create', () => {
  const n = node();
  assert.deepEqual(n.status?.allocatable, { cpu: '4', memory: '8Gi', pods: '110' });
  assert.equal(n.status?.conditions?.[0]?.type, 'Ready');
});

describe('printNode', () => {
  const status = (mutate: (n: Node) => void): unknown => printNode(node(mutate), NOW).cells[1];
  test('Status column cases', () => {
    assert.equal(status(() => {}), 'Ready');
    assert.equal(status((n) => (n.status!.conditions = [{ type: 'Ready', status: 'False' }])), 'NotReady');
    assert.equal(status((n) => (n.status!.conditions = [{ type: 'Ready', status: 'Unknown' }])), 'NotReady');
    assert.equal(status((n) => (n.status!.conditions = [{ type: 'MemoryPressure', status: 'False' }])), 'Unknown');
    assert.equal(status((n) => (n.spec!.unschedulable = true)), 'Ready,SchedulingDisabled');
    assert.equal(
      status((n) => {
        n.status!.conditions = [];
        n.spec!.unschedulable = true;
      }),
      'Unknown,SchedulingDisabled',
    );
  });

  test('roles, age, version and wide cells', () => {
    assert.deepEqual(printNode(node(), NOW).cells, ['node-1', 'Ready', '<none>', '2d', 'v1.33.0', '10.0.0.1', '<none>', 'Ubuntu 24.04', '6.8.0', 'containerd://2.0.0']);
    const roles = node((n) => {
      n.metadata!.labels = { 'node-role.kubernetes.io/worker': '', 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/role': 'gpu', 'node-role.kubernetes.io/': '' };
      n.status!.nodeInfo = undefined;
      n.status!.addresses = [{ type: 'ExternalIP', address: '1.2.3.4' }];
    });
    assert.deepEqual(printNode(roles, NOW).cells.slice(2), ['control-plane,gpu,worker', '2d', '', '<none>', '1.2.3.4', '<unknown>', '<unknown>', '<unknown>']);
  });
});

describe('validation', () => {
  test('taints', () => {
    const n = node((x) => {
      x.spec!.taints = [
        { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
        { key: 'dedicated', value: 'other', effect: 'NoSchedule' },
        { key: 'bad key!', effect: 'Sometimes' },
        { key: 'k', effect: '' },
      ];
    });
    const errs = msgs(nodeStrategy.validate(n));
    assert.equal(errs[0], 'metadata.taints[1]: Duplicate value: {"key":"dedicated","value":"other","effect":"NoSchedule"}: taints must be unique by key and effect pair');
    assert.match(errs[1]!, /^metadata\.taints\[2\]\.key: Invalid value: "bad key!": name part must consist of alphanumeric characters/);
    assert.deepEqual(errs.slice(2), [
      'metadata.taints[2].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
      'metadata.taints[3].effect: Required value',
    ]);
  });

  test('update: podCIDRs and providerID immutable once set; status kept', () => {
    const old = node((x) => {
      x.spec!.podCIDRs = ['10.244.0.0/24'];
      x.spec!.providerID = 'kubeplane://node-1';
    });
    const n = structuredClone(old);
    n.spec!.podCIDRs = ['10.244.1.0/24'];
    n.spec!.providerID = 'other://x';
    n.status = {};
    nodeStrategy.prepareForUpdate(n, old);
    assert.deepEqual(n.status, old.status);
    assert.deepEqual(msgs(nodeStrategy.validateUpdate(n, old)), [
      'spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid',
      'spec.providerID: Forbidden: node updates may not change providerID except from "" to valid',
    ]);
  });

  test('status update keeps spec; capacity must be valid', () => {
    const old = node();
    const n = structuredClone(old);
    n.spec!.unschedulable = true;
    n.status!.capacity = { cpu: '-1' };
    nodeStrategy.prepareForStatusUpdate!(n, old, 0);
    assert.equal(n.spec?.unschedulable, undefined);
    assert.deepEqual(msgs(nodeStrategy.validateStatusUpdate!(n, old)), ['status.capacity.cpu: Invalid value: "-1": must be greater than or equal to 0']);
  });
});

test('field selector and discovery', () => {
  assert.equal(nodeStrategy.fieldSelectors['spec.unschedulable']!(node()), 'false');
  assert.equal(nodeStrategy.fieldSelectors['spec.unschedulable']!(node((n) => (n.spec!.unschedulable = true))), 'true');
  assert.deepEqual([nodeStrategy.info.namespaced, nodeStrategy.info.shortNames, nodeStrategy.info.subresources.map((s) => s.name)], [false, ['no'], ['status']]);
});
