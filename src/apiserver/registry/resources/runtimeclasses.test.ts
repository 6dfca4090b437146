/**
 * RuntimeClasses: cases of upstream's TestValidateRuntimeClass, TestValidateRuntimeUpdate,
 * TestValidateOverhead and TestValidateScheduling (pkg/apis/node/validation/validation_test.go), and
 * the printer.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RuntimeClass } from '../../../api/index.js';
import { fieldErrorString, type FieldError } from '../../../machinery/errors/index.js';
import { runtimeClassStrategy as s, validateRuntimeClass } from './runtimeclasses.js';

const msgs = (errs: FieldError[]): string[] => errs.map(fieldErrorString);
const rc = (handler: string, extra: Partial<RuntimeClass> = {}): RuntimeClass => ({
  apiVersion: 'node.k8s.io/v1',
  kind: 'RuntimeClass',
  metadata: { name: 'foo', creationTimestamp: '2025-01-01T00:00:00Z' },
  handler,
  ...extra,
});

test('handler: a DNS label', () => {
  for (const h of ['bar-baz', 'a', 'runc']) assert.deepEqual(validateRuntimeClass(rc(h)), [], h);
  const dnsLabelErr = `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`;
  assert.deepEqual(msgs(validateRuntimeClass(rc(''))), [`handler: Invalid value: "": ${dnsLabelErr}`]);
  assert.deepEqual(msgs(validateRuntimeClass(rc('foo bar'))), [`handler: Invalid value: "foo bar": ${dnsLabelErr}`]);
  assert.deepEqual(msgs(validateRuntimeClass(rc('a.b'))), ['handler: Invalid value: "a.b": must not contain dots']);
});

test('handler is immutable', () => {
  assert.deepEqual(msgs(s.validateUpdate(rc('b') as never, rc('a') as never)), ['handler: Invalid value: "b": field is immutable']);
  assert.deepEqual(s.validateUpdate(rc('a', { metadata: { name: 'foo', labels: { x: 'y' } } }) as never, rc('a') as never), []);
});

test('overhead: container resource limits', () => {
  assert.deepEqual(validateRuntimeClass(rc('h', { overhead: { podFixed: { cpu: '250m', memory: '32Mi' } } })), []);
  assert.deepEqual(msgs(validateRuntimeClass(rc('h', { overhead: { podFixed: { cpu: '-10' } } }))), ['overhead.limits[cpu]: Invalid value: "-10": must be greater than or equal to 0']);
  assert.deepEqual(msgs(validateRuntimeClass(rc('h', { overhead: { podFixed: { pods: '1' } } }))), ['overhead.limits[pods]: Invalid value: "pods": must be a standard resource for containers']);
});

test('scheduling: nodeSelector labels, valid and unique tolerations', () => {
  const good = { nodeSelector: { valid: 'yes' }, tolerations: [{ key: 'valid', operator: 'Exists', effect: 'NoSchedule' }, { key: 'valid', operator: 'Exists', effect: 'NoExecute' }] };
  assert.deepEqual(validateRuntimeClass(rc('h', { scheduling: good })), []);
  assert.deepEqual(msgs(validateRuntimeClass(rc('h', { scheduling: { nodeSelector: { 'not a valid key!!!': 'nope' } } }))), [
    `scheduling.nodeSelector: Invalid value: "not a valid key!!!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
  ]);
  assert.deepEqual(msgs(validateRuntimeClass(rc('h', { scheduling: { tolerations: [{ key: 'valid', operator: 'Exists', effect: 'NoSchedule' }, { key: 'valid', operator: 'Exists', effect: 'NoSchedule' }] } }))), [
    'scheduling.tolerations[1]: Duplicate value: core.Toleration{Key:"valid", Operator:"Exists", Value:"", Effect:"NoSchedule", TolerationSeconds:(*int64)(nil)}',
  ]);
  assert.deepEqual(msgs(validateRuntimeClass(rc('h', { scheduling: { tolerations: [{ key: 'valid', operator: 'Exists', effect: 'NoSchedule', value: 'x' }] } }))), [
    "scheduling.tolerations[0].operator: Invalid value: \"x\": value must be empty when `operator` is 'Exists'",
  ]);
});

test('the printer: NAME HANDLER AGE', () => {
  assert.deepEqual(s.table.row(rc('runsc') as never, Date.parse('2025-01-01T01:00:00Z')).cells, ['foo', 'runsc', '60m']);
  assert.deepEqual(s.table.columns.map((c) => c.name), ['Name', 'Handler', 'Age']);
});
