/**
 * ResourceQuotas: ValidateResourceQuota (cases after TestValidateResourceQuota in
 * pkg/apis/core/validation/validation_test.go: negative and fractional values, non-quota resources,
 * conflicting and unsupported scopes, scope selectors), the update and status rules of
 * pkg/registry/core/resourcequota/strategy.go, and printResourceQuota.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ResourceQuota as WireQuota } from '../../../api/index.js';
import { fieldErrorString, type FieldError } from '../../../machinery/errors/index.js';
import type { ApiObject } from './helpers.js';
import { resourceQuotaStrategy as strategy } from './resourcequotas.js';

type Quota = ApiObject<WireQuota>;

const msgs = (errs: FieldError[]): string[] => errs.map(fieldErrorString);
const NOW = Date.parse('2025-01-01T00:00:30Z');
const FRACTION = (value: number, scale: number): string =>
  `resource.Quantity{i:resource.int64Amount{value:${value}, scale:${scale}}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"", Format:"DecimalSI"}`;

function quota(spec: Quota['spec'], status?: Quota['status']): Quota {
  return { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q', namespace: 'default', creationTimestamp: '2025-01-01T00:00:00Z' }, spec, ...(status ? { status } : {}) };
}

test('a valid quota; status cleared on create', () => {
  const q = quota({ hard: { cpu: '100', memory: '10000', 'requests.cpu': '100', 'limits.memory': '1Gi', pods: '5', services: '10', 'example.com/dongle': '3' } }, { hard: { pods: '1' } });
  strategy.prepareForCreate(q, NOW);
  assert.deepEqual(q.status, {});
  assert.deepEqual(strategy.validate(q), []);
});

test('hard: quota resource names, non-negative and integer quantities', () => {
  assert.deepEqual(msgs(strategy.validate(quota({ hard: { cpu: '-100m', pods: '1.5', 'example.com/dongle': '500m', storage: '1Gi', foo: '1', 'a/b/c': '1' } }))), [
    `spec.hard[a/b/c]: Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    'spec.hard[cpu]: Invalid value: "-100m": must be greater than or equal to 0',
    `spec.hard[example.com/dongle]: Invalid value: ${FRACTION(500, -3).replace('s:""', 's:"500m"')}: must be an integer`,
    'spec.hard[foo]: Invalid value: "foo": must be a standard resource type or fully qualified',
    'spec.hard[foo]: Invalid value: "foo": must be a standard resource for quota',
    `spec.hard[pods]: Invalid value: ${FRACTION(15, -1)}: must be an integer`,
    'spec.hard[storage]: Invalid value: "storage": must be a standard resource for quota',
  ]);
  assert.deepEqual(msgs(strategy.validate(quota({ hard: { pods: '1 0' } }))), [
    `spec.hard[pods]: Invalid value: "1 0": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
  ]);
});

test('scopes: known, applicable to every hard resource, not conflicting', () => {
  assert.deepEqual(strategy.validate(quota({ hard: { pods: '1', cpu: '1' }, scopes: ['NotTerminating', 'NotBestEffort', 'PriorityClass'] })), []);
  assert.deepEqual(msgs(strategy.validate(quota({ hard: { pods: '1', cpu: '1', configmaps: '1' }, scopes: ['BestEffort', 'NotBestEffort', 'Foo'] }))), [
    // BestEffort applies to neither configmaps nor cpu, NotBestEffort not to configmaps.
    'spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort", "Foo"}: unsupported scope applied to resource',
    'spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort", "Foo"}: unsupported scope applied to resource',
    'spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort", "Foo"}: unsupported scope applied to resource',
    'spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort", "Foo"}: unsupported scope',
    'spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort", "Foo"}: conflicting scopes',
  ]);
  assert.deepEqual(msgs(strategy.validate(quota({ hard: { pods: '1' }, scopes: ['Terminating', 'NotTerminating'] }))), [
    'spec.scopes: Invalid value: []core.ResourceQuotaScope{"Terminating", "NotTerminating"}: conflicting scopes',
  ]);
});

test('scopeSelector: scope names, operators and values', () => {
  const sel = (...matchExpressions: { scopeName: string; operator: string; values?: string[] }[]): Quota => quota({ hard: { pods: '1' }, scopeSelector: { matchExpressions } });
  assert.deepEqual(strategy.validate(sel({ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }, { scopeName: 'BestEffort', operator: 'Exists' })), []);
  assert.deepEqual(msgs(strategy.validate(sel({ scopeName: 'Foo', operator: 'In' }))), [
    'spec.scopeSelector.matchExpressions.scopeName: Invalid value: "Foo": unsupported scope',
    "spec.scopeSelector.matchExpressions.values: Required value: must be at least one value when `operator` is 'In' or 'NotIn' for scope selector",
  ]);
  assert.deepEqual(msgs(strategy.validate(sel({ scopeName: 'Terminating', operator: 'In', values: ['x'] }))), [
    "spec.scopeSelector.matchExpressions.operator: Invalid value: \"In\": must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
  ]);
  assert.deepEqual(msgs(strategy.validate(sel({ scopeName: 'PriorityClass', operator: 'Exists', values: ['a'] }, { scopeName: 'PriorityClass', operator: 'Gt', values: ['1'] }))), [
    `spec.scopeSelector.matchExpressions.values: Invalid value: []string{"a"}: must be no value when \`operator\` is 'Exist' or 'DoesNotExist' for scope selector`,
    'spec.scopeSelector.matchExpressions.operator: Invalid value: "Gt": not a valid selector operator',
  ]);
  const bestEffortCpu = quota({ hard: { cpu: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'BestEffort', operator: 'Exists' }, { scopeName: 'NotBestEffort', operator: 'Exists' }] } });
  assert.deepEqual(msgs(strategy.validate(bestEffortCpu)), [
    'spec.scopeSelector.matchExpressions: Invalid value: core.ScopeSelector{MatchExpressions:[]core.ScopedResourceSelectorRequirement{core.ScopedResourceSelectorRequirement{ScopeName:"BestEffort", Operator:"Exists", Values:[]string(nil)}, core.ScopedResourceSelectorRequirement{ScopeName:"NotBestEffort", Operator:"Exists", Values:[]string(nil)}}}: unsupported scope applied to resource',
    // Upstream reports the selector's conflict with spec.scopes (here nil) as the value.
    'spec.scopeSelector.matchExpressions: Invalid value: []core.ResourceQuotaScope(nil): conflicting scopes',
  ]);
});

test('update: status kept, scopes immutable as a set', () => {
  const old = quota({ hard: { pods: '1' }, scopes: ['NotTerminating', 'NotBestEffort'] }, { hard: { pods: '1' }, used: { pods: '0' } });
  const next = quota({ hard: { pods: '2' }, scopes: ['NotBestEffort', 'NotTerminating'] }, { hard: { pods: '9' } });
  strategy.prepareForUpdate(next, old);
  assert.deepEqual(next.status, old.status);
  assert.deepEqual(strategy.validateUpdate(next, old), []);
  assert.deepEqual(msgs(strategy.validateUpdate(quota({ hard: { pods: '2' }, scopes: ['NotTerminating'] }), old)), [
    'spec.scopes: Invalid value: []core.ResourceQuotaScope{"NotTerminating"}: field is immutable',
  ]);
});

test('status update: spec kept, status names and quantities, a resourceVersion', () => {
  const old = quota({ hard: { pods: '10' } });
  const next = quota({ hard: { pods: '99' } }, { hard: { pods: '10' }, used: { pods: '-1', gpus: '1' } });
  strategy.prepareForStatusUpdate!(next, old);
  assert.deepEqual(next.spec, old.spec);
  assert.deepEqual(msgs(strategy.validateStatusUpdate!(next, old)), [
    'resourceVersion: Required value',
    'status.used[gpus]: Invalid value: "gpus": must be a standard resource type or fully qualified',
    'status.used[gpus]: Invalid value: "gpus": must be a standard resource for quota',
    'status.used[pods]: Invalid value: "-1": must be greater than or equal to 0',
  ]);
  next.metadata!.resourceVersion = '7';
  next.status = { hard: { pods: '10' }, used: { pods: '3' } };
  assert.deepEqual(strategy.validateStatusUpdate!(next, old), []);
});

test('printResourceQuota: NAME REQUEST LIMIT AGE, `name: used/hard` over status.hard in name order', () => {
  assert.deepEqual(
    strategy.table.columns.map((c) => c.name),
    ['Name', 'Request', 'Limit', 'Age'],
  );
  const q = quota(
    { hard: { pods: '10' } },
    { hard: { pods: '10', cpu: '1000m', 'limits.memory': '2Gi', 'limits.cpu': '2', 'requests.memory': '1Gi' }, used: { cpu: '500m', 'limits.cpu': '0.5', pods: '3' } },
  );
  assert.deepEqual(strategy.table.row(q, NOW).cells, ['q', 'cpu: 500m/1, pods: 3/10, requests.memory: 0/1Gi', 'limits.cpu: 500m/2, limits.memory: 0/2Gi', '30s']);
  assert.deepEqual(strategy.table.row(quota({ hard: { pods: '1' } }), NOW).cells, ['q', '', '', '30s']);
});
