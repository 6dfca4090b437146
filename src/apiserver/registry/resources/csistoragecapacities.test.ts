/**
 * CSIStorageCapacity validation and update rules (cases of pkg/apis/storage/validation/validation_test.go
 * TestValidateCSIStorageCapacity, TestCSIStorageCapacityValidationUpdate) and the table row, which
 * upstream prints without an AGE column.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldErrorString } from '../../../machinery/errors/index.js';
import { csiStorageCapacityStrategy } from './csistoragecapacities.js';

type Capacity = Parameters<typeof csiStorageCapacityStrategy.validate>[0];

const capacity = (extra: Partial<Capacity> = {}): Capacity => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'CSIStorageCapacity',
  metadata: { name: 'foo', namespace: 'default' },
  storageClassName: 'bar',
  nodeTopology: { matchLabels: { 'topology.kubernetes.io/zone': 'a' } },
  capacity: '1Gi',
  ...extra,
});
const errors = (c: Capacity): string[] => csiStorageCapacityStrategy.validate(c).map(fieldErrorString);

test('ValidateCSIStorageCapacity: class name, node topology, capacity ≥ 0', () => {
  assert.deepEqual(errors(capacity()), []);
  assert.deepEqual(errors(capacity({ capacity: '0' })), []);
  assert.deepEqual(errors(capacity({ capacity: '-1Gi' })), ['capacity: Invalid value: "-1Gi": must be greater than or equal to 0']);
  assert.equal(errors(capacity({ storageClassName: '' }))[0]?.startsWith('storageClassName: Invalid value: "": a lowercase RFC 1123 subdomain'), true);
  assert.deepEqual(errors(capacity({ nodeTopology: { matchExpressions: [{ key: 'zone', operator: 'Near' }] } })), ['nodeTopology.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator']);
});

test('ValidateCSIStorageCapacityUpdate: nodeTopology and storageClassName are immutable; capacity may change', () => {
  assert.deepEqual(csiStorageCapacityStrategy.validateUpdate(capacity({ capacity: '2Gi', maximumVolumeSize: '1Gi' }), capacity()), []);
  assert.deepEqual(csiStorageCapacityStrategy.validateUpdate(capacity({ storageClassName: 'baz', nodeTopology: {} }), capacity()).map(fieldErrorString), [
    'nodeTopology: Invalid value: {}: field is immutable',
    'storageClassName: Invalid value: "baz": field is immutable',
  ]);
});

test('the table row: NAME STORAGECLASSNAME CAPACITY', () => {
  assert.deepEqual(csiStorageCapacityStrategy.table.columns.map((c) => c.name), ['Name', 'StorageClassName', 'Capacity']);
  assert.deepEqual(csiStorageCapacityStrategy.table.row(capacity({ capacity: '1024Mi' }), 0).cells, ['foo', 'bar', '1Gi']);
  const unknown = capacity();
  delete unknown.capacity;
  assert.deepEqual(csiStorageCapacityStrategy.table.row(unknown, 0).cells, ['foo', 'bar', '<unset>']);
});
