/**
 * PodDisruptionBudgets: cases of upstream's TestValidateMinAvailablePodDisruptionBudgetSpec,
 * TestValidateMinAvailablePodAndMaxUnavailableDisruptionBudgetSpec, TestValidateUnhealthyPodEvictionPolicy
 * and TestValidatePodDisruptionBudgetStatus (pkg/apis/policy/validation/validation_test.go), the
 * status reset and generation of pkg/registry/policy/poddisruptionbudget/strategy.go, and the printer.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PodDisruptionBudget } from '../../../api/index.js';
import { fieldErrorString, type FieldError } from '../../../machinery/errors/index.js';
import { podDisruptionBudgetStrategy as s, validatePodDisruptionBudget, validatePodDisruptionBudgetStatusUpdate } from './poddisruptionbudgets.js';

const msgs = (errs: FieldError[]): string[] => errs.map(fieldErrorString);
const pdb = (spec: PodDisruptionBudget['spec'], status?: PodDisruptionBudget['status']): PodDisruptionBudget => ({
  apiVersion: 'policy/v1',
  kind: 'PodDisruptionBudget',
  metadata: { name: 'p', namespace: 'default', creationTimestamp: '2025-01-01T00:00:00Z' },
  spec,
  ...(status ? { status } : {}),
});
const sel = { matchLabels: { app: 'x' } };

test('minAvailable / maxUnavailable: non-negative ints or percents up to 100%, not both', () => {
  for (const v of [0, 10, '0%', '10%', '100%']) {
    assert.deepEqual(msgs(validatePodDisruptionBudget(pdb({ minAvailable: v, selector: sel }))), [], String(v));
    assert.deepEqual(msgs(validatePodDisruptionBudget(pdb({ maxUnavailable: v, selector: sel }))), [], String(v));
  }
  assert.deepEqual(msgs(validatePodDisruptionBudget(pdb({ minAvailable: -1 }))), ['spec.minAvailable: Invalid value: -1: must be greater than or equal to 0']);
  assert.deepEqual(msgs(validatePodDisruptionBudget(pdb({ maxUnavailable: '101%' }))), ['spec.maxUnavailable: Invalid value: "101%": must not be greater than 100%']);
  assert.deepEqual(msgs(validatePodDisruptionBudget(pdb({ minAvailable: '1.1%' }))), [
    `spec.minAvailable: Invalid value: "1.1%": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`,
  ]);
  assert.deepEqual(msgs(validatePodDisruptionBudget(pdb({ minAvailable: 1, maxUnavailable: '10%', selector: sel }))), [
    'spec: Invalid value: policy.PodDisruptionBudgetSpec{MinAvailable:(*intstr.IntOrString)(…), Selector:(*v1.LabelSelector)(…), MaxUnavailable:(*intstr.IntOrString)(…), UnhealthyPodEvictionPolicy:(*policy.UnhealthyPodEvictionPolicyType)(nil)}: minAvailable and maxUnavailable cannot be both set',
  ]);
});

test('selector and unhealthyPodEvictionPolicy', () => {
  assert.deepEqual(msgs(validatePodDisruptionBudget(pdb({ selector: { matchExpressions: [{ key: 'a', operator: 'In' }] } }))), [
    "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
  ]);
  for (const policy of ['IfHealthyBudget', 'AlwaysAllow']) assert.deepEqual(validatePodDisruptionBudget(pdb({ unhealthyPodEvictionPolicy: policy })), []);
  assert.deepEqual(msgs(validatePodDisruptionBudget(pdb({ unhealthyPodEvictionPolicy: 'Invalid' }))), [
    'spec.unhealthyPodEvictionPolicy: Unsupported value: "Invalid": supported values: "AlwaysAllow", "IfHealthyBudget"',
  ]);
});

test('status: reset on create, kept on update (generation follows spec), spec kept on status update', () => {
  const p = pdb({ minAvailable: 1 }, { disruptionsAllowed: 5, currentHealthy: 5, desiredHealthy: 1, expectedPods: 5 });
  s.prepareForCreate(p as never, 0);
  assert.deepEqual(p.status, { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
  assert.equal(p.metadata?.generation, 1);
  const old = { ...structuredClone(p), status: { disruptionsAllowed: 2, currentHealthy: 3, desiredHealthy: 1, expectedPods: 3, observedGeneration: 1 } };
  const same = structuredClone(old);
  same.status = { disruptionsAllowed: 9, currentHealthy: 9, desiredHealthy: 9, expectedPods: 9, observedGeneration: 9 };
  s.prepareForUpdate(same, old);
  assert.deepEqual(same.status, old.status);
  assert.equal(same.metadata?.generation, 1);
  const changed = { ...structuredClone(old), spec: { minAvailable: 2 } };
  s.prepareForUpdate(changed, old);
  assert.equal(changed.metadata?.generation, 2);
  const statusWrite = { ...structuredClone(old), spec: { minAvailable: 7 } };
  s.prepareForStatusUpdate?.(statusWrite, old);
  assert.deepEqual(statusWrite.spec, { minAvailable: 1 });
  assert.equal(s.allowUnconditionalUpdate, false);
});

test('status update: non-negative counts, valid conditions', () => {
  const counts = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
  assert.deepEqual(validatePodDisruptionBudgetStatusUpdate(pdb({}, counts)), []);
  assert.deepEqual(msgs(validatePodDisruptionBudgetStatusUpdate(pdb({}, { ...counts, disruptionsAllowed: -10, expectedPods: -1 }))), [
    'status.disruptionsAllowed: Invalid value: -10: must be greater than or equal to 0',
    'status.expectedPods: Invalid value: -1: must be greater than or equal to 0',
  ]);
  const conditions = [{ type: 'DisruptionAllowed', status: 'Maybe', reason: '', message: '', lastTransitionTime: '' }];
  assert.deepEqual(msgs(validatePodDisruptionBudgetStatusUpdate(pdb({}, { ...counts, conditions }))), [
    'status.conditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
    'status.conditions[0].lastTransitionTime: Required value: must be set',
    'status.conditions[0].reason: Required value: must be set',
  ]);
});

test('the printer: NAME MIN-AVAILABLE MAX-UNAVAILABLE ALLOWED-DISRUPTIONS AGE, N/A when unset', () => {
  const now = Date.parse('2025-01-01T00:03:00Z');
  assert.deepEqual(s.table.row(pdb({ minAvailable: 1 }, { disruptionsAllowed: 2, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 }) as never, now).cells, ['p', '1', 'N/A', 2, '3m']);
  assert.deepEqual(s.table.row(pdb({ maxUnavailable: '25%' }) as never, now).cells, ['p', 'N/A', '25%', 0, '3m']);
  assert.deepEqual(s.table.columns.map((c) => c.name), ['Name', 'Min Available', 'Max Unavailable', 'Allowed Disruptions', 'Age']);
});
