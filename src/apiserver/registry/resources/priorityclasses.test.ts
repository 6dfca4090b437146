/**
 * PriorityClass defaulting and validation (pkg/apis/scheduling/validation/validation_test.go cases:
 * reserved `system-` names, the user-definable maximum, immutable value), and the table row.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PriorityClass } from '../../../api/index.js';
import { HIGHEST_USER_DEFINABLE_PRIORITY, priorityClassStrategy, validatePriorityClass } from './priorityclasses.js';

const pc = (name: string, value: number, extra: Partial<PriorityClass> = {}): PriorityClass => ({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value, ...extra });
const msgs = (errs: { field: string; type: string; detail?: string }[]): string[] => errs.map((e) => `${e.field}: ${e.type}: ${e.detail ?? ''}`);

test('system- names are reserved for the known system classes with their values', () => {
  assert.deepEqual(msgs(validatePriorityClass(pc('system-node-critical', 2000001000))), []);
  assert.deepEqual(msgs(validatePriorityClass(pc('system-node-critical', 5))), [
    "metadata.name: FieldValueForbidden: priority class names with 'system-' prefix are reserved for system use only. error: value of system-node-critical PriorityClass must be 2000001000",
  ]);
  assert.deepEqual(msgs(validatePriorityClass(pc('system-mine', 5))), [
    "metadata.name: FieldValueForbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class",
  ]);
});

test('user classes are capped; preemptionPolicy is defaulted and checked; value is immutable', () => {
  assert.deepEqual(msgs(validatePriorityClass(pc('huge', HIGHEST_USER_DEFINABLE_PRIORITY + 1))), ['value: FieldValueForbidden: maximum allowed value of a user defined priority is 1000000000']);
  const p = pc('gold', 10) as PriorityClass & { preemptionPolicy?: string };
  priorityClassStrategy.defaults(p as never);
  assert.equal(p.preemptionPolicy, 'PreemptLowerPriority');
  assert.deepEqual(msgs(validatePriorityClass(pc('gold', 10, { preemptionPolicy: 'Sometimes' }))), ['preemptionPolicy: FieldValueNotSupported: supported values: "Never", "PreemptLowerPriority"']);
  assert.deepEqual(msgs(priorityClassStrategy.validateUpdate(pc('gold', 11, { preemptionPolicy: 'PreemptLowerPriority' }) as never, pc('gold', 10, { preemptionPolicy: 'PreemptLowerPriority' }) as never)), [
    'value: FieldValueForbidden: may not be changed in an update.',
  ]);
});

test('the table row: NAME VALUE GLOBAL-DEFAULT AGE PREEMPTIONPOLICY', () => {
  const row = priorityClassStrategy.table.row(
    { ...pc('gold', 1000, { globalDefault: true, preemptionPolicy: 'Never' }), metadata: { name: 'gold', creationTimestamp: '2025-01-01T00:00:00Z' } },
    Date.parse('2025-01-01T00:02:00Z'),
  );
  assert.deepEqual(row.cells, ['gold', 1000, true, '2m', 'Never']);
  assert.deepEqual(priorityClassStrategy.table.columns.map((c) => c.name), ['Name', 'Value', 'Global-Default', 'Age', 'PreemptionPolicy']);
});
