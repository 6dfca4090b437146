/**
 * IngressClass defaulting and validation (pkg/apis/networking/validation/validation_test.go
 * TestValidateIngressClass and TestValidateIngressClassUpdate cases: controller required, domain-prefixed
 * and at most 250 bytes, parameters by scope, controller immutable), generation and the table row.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { IngressClass } from '../../../api/index.js';
import { fieldErrorString } from '../../../machinery/errors/index.js';
import { ingressClassStrategy, validateIngressClass } from './ingressclasses.js';

type Params = NonNullable<NonNullable<IngressClass['spec']>['parameters']>;
const msgs = (errs: Parameters<typeof fieldErrorString>[0][]): string[] => errs.map(fieldErrorString);
const ic = (controller: string, parameters?: Params): IngressClass => ({ metadata: { name: 'c' }, spec: { controller, ...(parameters ? { parameters } : {}) } });

test('the controller is a domain-prefixed path of at most 250 bytes', () => {
  assert.deepEqual(validateIngressClass(ic('example.com/controller')), []);
  assert.deepEqual(msgs(validateIngressClass(ic(''))), ['spec.controller: Required value']);
  assert.deepEqual(msgs(validateIngressClass(ic('no-slash'))), ['spec.controller: Invalid value: "no-slash": must be a domain-prefixed path (such as "acme.io/foo")']);
  assert.deepEqual(msgs(validateIngressClass(ic(`example.com/${'a'.repeat(250)}`))), ['spec.controller: Too long: may not be more than 250 bytes']);
});

test('parameters: kind and name required, scope defaulted to Cluster, namespace exactly for Namespace scope', () => {
  const cluster = ic('example.com/c', { apiGroup: 'example.com', kind: 'Params', name: 'p' });
  ingressClassStrategy.defaults(cluster as never);
  assert.equal(cluster.spec?.parameters?.scope, 'Cluster');
  assert.deepEqual(validateIngressClass(cluster), []);
  assert.deepEqual(msgs(validateIngressClass(ic('example.com/c', { kind: '', name: '..', scope: 'Cluster' }))), [
    'spec.parameters.kind: Required value',
    "spec.parameters.name: Invalid value: \"..\": may not be '..'",
  ]);
  assert.deepEqual(msgs(validateIngressClass(ic('example.com/c', { kind: 'K', name: 'n' }))), ['spec.parameters.scope: Required value']);
  assert.deepEqual(msgs(validateIngressClass(ic('example.com/c', { kind: 'K', name: 'n', scope: 'Galaxy' }))), ['spec.parameters.scope: Unsupported value: "Galaxy": supported values: "Cluster", "Namespace"']);
  assert.deepEqual(msgs(validateIngressClass(ic('example.com/c', { kind: 'K', name: 'n', scope: 'Namespace' }))), ["spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'"]);
  assert.deepEqual(validateIngressClass(ic('example.com/c', { kind: 'K', name: 'n', scope: 'Namespace', namespace: 'ns' })), []);
  assert.match(msgs(validateIngressClass(ic('example.com/c', { kind: 'K', name: 'n', scope: 'Namespace', namespace: 'a.b' })))[0] ?? '', /^spec\.parameters\.namespace: Invalid value: "a\.b": /);
  assert.deepEqual(msgs(validateIngressClass(ic('example.com/c', { kind: 'K', name: 'n', scope: 'Cluster', namespace: 'ns' }))), ["spec.parameters.namespace: Forbidden: `parameters.scope` is set to 'Cluster'"]);
  assert.match(msgs(validateIngressClass(ic('example.com/c', { apiGroup: 'Bad_Group', kind: 'K', name: 'n', scope: 'Cluster' })))[0] ?? '', /^spec\.parameters\.apiGroup: Invalid value: "Bad_Group": a lowercase RFC 1123 subdomain/);
});

test('the controller is immutable; spec changes bump the generation', () => {
  const old = { ...ic('example.com/a'), metadata: { name: 'c', generation: 1 } };
  assert.deepEqual(msgs(ingressClassStrategy.validateUpdate(ic('example.com/b') as never, old as never)), ['spec.controller: Invalid value: "example.com/b": field is immutable']);
  const next = { ...ic('example.com/a', { kind: 'K', name: 'n', scope: 'Cluster' }), metadata: { name: 'c', generation: 1 } };
  ingressClassStrategy.prepareForUpdate(next, old);
  assert.equal(next.metadata.generation, 2);
  const created = ic('example.com/a');
  ingressClassStrategy.prepareForCreate(created as never, 0);
  assert.equal(created.metadata?.generation, 1);
});

test('table: NAME CONTROLLER PARAMETERS AGE', () => {
  assert.deepEqual(ingressClassStrategy.table.columns.map((c) => c.name), ['Name', 'Controller', 'Parameters', 'Age']);
  const row = (c: IngressClass): unknown[] => ingressClassStrategy.table.row({ ...c, metadata: { name: 'c', creationTimestamp: '2025-01-01T00:00:00Z' } }, Date.parse('2025-01-01T00:00:30Z')).cells;
  assert.deepEqual(row(ic('example.com/c')), ['c', 'example.com/c', '<none>', '30s']);
  assert.deepEqual(row(ic('example.com/c', { apiGroup: 'k8s.example.com', kind: 'IngressParameters', name: 'external-lb' })), ['c', 'example.com/c', 'IngressParameters.k8s.example.com/external-lb', '30s']);
  assert.deepEqual(row(ic('example.com/c', { kind: 'ConfigMap', name: 'cfg' })), ['c', 'example.com/c', 'ConfigMap/cfg', '30s']);
});
