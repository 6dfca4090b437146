import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Lease as WireLease } from '../../../api/index.js';
import { fieldErrorString, type FieldError } from '../../../machinery/errors/index.js';
import { parseTime } from '../../../util/clock/index.js';
import type { ApiObject } from './helpers.js';
import { leaseStrategy } from './leases.js';

type Lease = ApiObject<WireLease>;

const msgs = (errs: FieldError[]): string[] => errs.map(fieldErrorString);

function lease(spec: Record<string, unknown>): Lease {
  return { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'node-1', namespace: 'kube-node-lease', creationTimestamp: '2025-01-01T00:00:00Z' }, spec };
}

test('validation', () => {
  assert.deepEqual(leaseStrategy.validate(lease({ holderIdentity: 'node-1', leaseDurationSeconds: 40 })), []);
  assert.deepEqual(msgs(leaseStrategy.validate(lease({ leaseDurationSeconds: 0, leaseTransitions: -1, preferredHolder: 'a' }))), [
    'spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
    'spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0',
    'spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined',
  ]);
  assert.deepEqual(msgs(leaseStrategy.validate(lease({ strategy: 'Newest' }))), [
    'spec.strategy.strategy: Unsupported value: "Newest": supported values: "OldestEmulationVersion"',
  ]);
  assert.deepEqual(leaseStrategy.validate(lease({ strategy: 'example.com/custom' })), []);
});

test('flags and table', () => {
  assert.equal(leaseStrategy.allowCreateOnUpdate, true);
  assert.equal(leaseStrategy.allowUnconditionalUpdate, false);
  assert.equal(leaseStrategy.info.group, 'coordination.k8s.io');
  assert.deepEqual(leaseStrategy.table.row(lease({ holderIdentity: 'node-1' }), parseTime('2025-01-01T00:00:40Z')!).cells, ['node-1', 'node-1', '40s']);
  assert.deepEqual(leaseStrategy.table.row(lease({}), parseTime('2025-01-01T00:00:40Z')!).cells, ['node-1', '', '40s']);
});
