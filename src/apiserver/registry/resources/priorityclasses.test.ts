/**
 * PriorityClass defaulting and validation (pkg/apis/scheduling/validation/validation_test.go cases:
 * reserved `system-` names, the user-definable maximum, immutable value), the table row, and the
 * Priority admission plugin's single global default.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PriorityClass } from '../../../api/index.js';
import { newClientset } from '../../../client/index.js';
import type { StatusError } from '../../../machinery/errors/index.js';
import { newTestServer, rejectsWithStatus } from '../../testing/fixtures.js';
import { servedStrategies } from './index.js';
import { admitPriorityClass, HIGHEST_USER_DEFINABLE_PRIORITY, priorityClassStrategy, validatePriorityClass } from './priorityclasses.js';

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

test('Priority admission: one globalDefault class (plugin/pkg/admission/priority/admission_test.go TestPriorityClassAdmission)', () => {
  const forbidden = (fn: () => void, message: string): void =>
    assert.throws(fn, (err: StatusError) => err.code === 403 && err.reason === 'Forbidden' && err.message === message);
  const a = pc('a', 10, { globalDefault: true });
  const b = pc('b', 5, { globalDefault: true });
  admitPriorityClass(a, undefined, [pc('c', 1)]);
  admitPriorityClass(pc('b', 5), undefined, [a]);
  forbidden(() => admitPriorityClass(b, undefined, [a]), 'priorityclasses.scheduling.k8s.io "b" is forbidden: PriorityClass a is already marked as default. Only one default can exist');
  forbidden(() => admitPriorityClass(b, pc('b', 5), [a, pc('b', 5)]), 'priorityclasses.scheduling.k8s.io "b" is forbidden: PriorityClass a is already marked as default. Only one default can exist');
  admitPriorityClass({ ...a, description: 'still the default' }, a, [a]);
  // After a race two defaults may exist: the one with the smallest value is the default.
  forbidden(() => admitPriorityClass(pc('c', 1, { globalDefault: true }), undefined, [a, b]), 'priorityclasses.scheduling.k8s.io "c" is forbidden: PriorityClass b is already marked as default. Only one default can exist');
});

test('a server runs the admission after validation, on dry runs and on patches', async () => {
  const { server } = await newTestServer({ strategies: servedStrategies });
  const classes = newClientset(server.inProcessTransport()).scheduling.priorityClasses();
  await classes.create(pc('first', 10, { globalDefault: true }));
  const message = 'priorityclasses.scheduling.k8s.io "second" is forbidden: PriorityClass first is already marked as default. Only one default can exist';
  await rejectsWithStatus(classes.create(pc('second', 20, { globalDefault: true }), { dryRun: true }), 403, message);
  await rejectsWithStatus(classes.create(pc('second', HIGHEST_USER_DEFINABLE_PRIORITY + 1, { globalDefault: true })), 422, /maximum allowed value/);
  await classes.create(pc('second', 20));
  await rejectsWithStatus(classes.patch('second', 'application/merge-patch+json', { globalDefault: true }), 403, message);
  await classes.patch('first', 'application/merge-patch+json', { description: 'd', globalDefault: true });
  await server.close();
});
