/**
 * CSINode validation and update rules (cases of pkg/apis/storage/validation/validation_test.go
 * TestCSINodeValidation, TestCSINodeUpdateValidation) and the table row.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldErrorString } from '../../../machinery/errors/index.js';
import { csiNodeStrategy } from './csinodes.js';

type Node = Parameters<typeof csiNodeStrategy.validate>[0];
type Driver = Node['spec']['drivers'][number];

const node = (...drivers: Driver[]): Node => ({ apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: { name: 'node-1' }, spec: { drivers } });
const io = (extra: Partial<Driver> = {}): Driver => ({ name: 'io.kubernetes.storage.csi.driver', nodeID: 'node-1', topologyKeys: ['company.com/zone1'], ...extra });
const errors = (n: Node): string[] => csiNodeStrategy.validate(n).map(fieldErrorString);

test('ValidateCSINode: driver names, node IDs, allocatable counts, topology keys', () => {
  assert.deepEqual(errors(node(io(), io({ name: 'io.kubernetes.storage.csi.driver-2', allocatable: { count: 0 } }))), []);
  assert.deepEqual(errors(node(io(), io())), ['spec.drivers[1].name: Duplicate value: "io.kubernetes.storage.csi.driver"']);
  assert.deepEqual(errors(node(io({ nodeID: '' }))), ['spec.drivers[0].nodeID: Required value']);
  assert.deepEqual(errors(node(io({ nodeID: 'x'.repeat(257) }))).map((e) => e.replace(/x+/, 'x…')), ['spec.drivers[0].nodeID: Invalid value: "x…": must be 256 characters or less']);
  assert.deepEqual(errors(node(io({ allocatable: { count: -1 } }))), ['spec.drivers[0].allocatable.count: Invalid value: -1: must be greater than or equal to 0']);
  assert.deepEqual(errors(node(io({ topologyKeys: ['company.com/zone1', 'company.com/zone1'] }))), ['spec.drivers[0]: Duplicate value: "company.com/zone1"']);
  assert.deepEqual(errors(node({} as Driver)).slice(0, 1).concat(errors(node({} as Driver)).slice(2)), ['spec.drivers[0].name: Required value', 'spec.drivers[0].nodeID: Required value'], 'a driver with no fields');
  assert.equal(errors(node(io({ name: 'Bad_Name!' })))[0]?.startsWith('spec.drivers[0].name: Invalid value: "Bad_Name!": a lowercase RFC 1123 subdomain'), true);
});

test('ValidateCSINodeUpdate: a registered driver is immutable; drivers may be added and removed', () => {
  const old = node(io());
  assert.deepEqual(csiNodeStrategy.validateUpdate(node(io(), io({ name: 'io.kubernetes.storage.csi.new' })), old), []);
  assert.deepEqual(csiNodeStrategy.validateUpdate(node(), old), []);
  const changed = csiNodeStrategy.validateUpdate(node(io({ nodeID: 'node-2' })), old).map(fieldErrorString);
  assert.equal(changed.length, 1);
  assert.match(changed[0] ?? '', /^spec\.drivers: Invalid value: .*"nodeID":"node-2".*: field is immutable$/);
});

test('the table row: NAME DRIVERS AGE', () => {
  assert.deepEqual(csiNodeStrategy.table.columns.map((c) => c.name), ['Name', 'Drivers', 'Age']);
  assert.deepEqual(csiNodeStrategy.table.row({ ...node(io(), io({ name: 'b' })), metadata: { name: 'node-1', creationTimestamp: '2025-01-01T00:00:00Z' } }, Date.parse('2025-01-02T00:00:00Z')).cells, ['node-1', 2, '24h']);
});
