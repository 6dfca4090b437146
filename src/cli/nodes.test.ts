import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newNodeObject, parseLabel, parseTaint } from './nodes.js';

test('labels and taints parse as kubectl writes them', () => {
  assert.deepEqual(parseLabel('disk=ssd'), ['disk', 'ssd']);
  assert.deepEqual(parseLabel('node-role.kubernetes.io/control-plane='), ['node-role.kubernetes.io/control-plane', '']);
  assert.throws(() => parseLabel('disk'), /want key=value/);
  assert.deepEqual(parseTaint('dedicated=infra:NoSchedule'), { key: 'dedicated', value: 'infra', effect: 'NoSchedule' });
  assert.deepEqual(parseTaint('node-role.kubernetes.io/control-plane:NoSchedule'), { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' });
  assert.throws(() => parseTaint('dedicated=infra'), /Effect one of/);
  assert.throws(() => parseTaint('x:Sometimes'), /Effect one of/);
});

test('the Node object carries only name, labels and taints (the simulator fills in the rest)', () => {
  assert.deepEqual(newNodeObject('n', ['a=b'], ['k:NoExecute']), {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: 'n', labels: { a: 'b' } },
    spec: { taints: [{ key: 'k', effect: 'NoExecute' }] },
  });
  assert.deepEqual(newNodeObject('n', [], []), { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' } });
});
