import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Namespace as WireNamespace } from '../../../api/index.js';
import { fieldErrorString, type FieldError } from '../../../machinery/errors/index.js';
import { parseTime } from '../../../util/clock/index.js';
import type { ApiObject } from './helpers.js';
import { namespaceStrategy, prepareForFinalizeUpdate, validateFinalizeUpdate } from './namespaces.js';

type Namespace = ApiObject<WireNamespace>;

const msgs = (errs: FieldError[]): string[] => errs.map(fieldErrorString);
const NOW = parseTime('2025-01-01T00:00:30Z')!;

function created(mutate: (ns: Namespace) => void = () => {}): Namespace {
  const ns: Namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } };
  mutate(ns);
  namespaceStrategy.defaults(ns);
  namespaceStrategy.prepareForCreate(ns, NOW);
  return ns;
}

test('defaulted and prepared namespace', () => {
  assert.deepEqual(created(), {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'team-a', labels: { 'kubernetes.io/metadata.name': 'team-a' } },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  });
  const withFinalizer = created((ns) => (ns.spec = { finalizers: ['example.com/x'] }));
  assert.deepEqual(withFinalizer.spec?.finalizers, ['example.com/x', 'kubernetes']);
});

test('the name label follows the name and cannot be removed', () => {
  const generated = created((ns) => (ns.metadata = { generateName: 'tmp-' }));
  assert.equal(generated.metadata?.labels, undefined);
  const old = created();
  const ns = structuredClone(old);
  ns.metadata!.labels = {};
  ns.spec = { finalizers: [] };
  ns.status = { phase: 'Terminating' };
  namespaceStrategy.prepareForUpdate(ns, old);
  assert.deepEqual(ns.metadata?.labels, { 'kubernetes.io/metadata.name': 'team-a' });
  assert.deepEqual(ns.spec, { finalizers: ['kubernetes'] });
  assert.deepEqual(ns.status, { phase: 'Active' });
});

test('validation: DNS label name and finalizer names', () => {
  assert.deepEqual(namespaceStrategy.validate(created()), []);
  assert.deepEqual(msgs(namespaceStrategy.validate(created((ns) => (ns.metadata!.name = 'a.b')))), ['metadata.name: Invalid value: "a.b": must not contain dots']);
  const bad = created((ns) => (ns.spec = { finalizers: ['foo'] }));
  assert.deepEqual(msgs(namespaceStrategy.validate(bad)), [
    'spec.finalizers: Invalid value: "foo": name is neither a standard finalizer name nor is it fully qualified',
  ]);
});

test('status update', () => {
  const old = created();
  const ns = structuredClone(old);
  ns.status = { phase: 'Terminating' };
  ns.spec = {};
  namespaceStrategy.prepareForStatusUpdate!(ns, old, 0);
  assert.deepEqual(ns.spec, { finalizers: ['kubernetes'] });
  assert.deepEqual(msgs(namespaceStrategy.validateStatusUpdate!(ns, old)), [
    `status.Phase: Invalid value: "Terminating": may only be 'Active' if \`deletionTimestamp\` is empty`,
  ]);
  ns.metadata!.deletionTimestamp = '2025-01-01T00:00:00Z';
  assert.deepEqual(namespaceStrategy.validateStatusUpdate!(ns, old), []);
});

test('finalize subresource', () => {
  const old = created();
  const ns = structuredClone(old);
  ns.spec = { finalizers: ['bad'] };
  ns.status = { phase: 'Terminating' };
  prepareForFinalizeUpdate(ns, old);
  assert.deepEqual(ns.status, { phase: 'Active' });
  assert.deepEqual(msgs(validateFinalizeUpdate(ns)), [
    'spec.finalizers[0]: Invalid value: "bad": name is neither a standard finalizer name nor is it fully qualified',
  ]);
});

test('table, field selectors, discovery', () => {
  const ns = created((x) => (x.metadata!.creationTimestamp = '2025-01-01T00:00:00Z'));
  assert.deepEqual(namespaceStrategy.table.row(ns, NOW).cells, ['team-a', 'Active', '30s']);
  assert.equal(namespaceStrategy.fieldSelectors['status.phase']!(ns), 'Active');
  assert.equal(namespaceStrategy.fieldSelectors['name']!(ns), 'team-a');
  assert.ok(!namespaceStrategy.info.verbs.includes('deletecollection'));
  assert.deepEqual(namespaceStrategy.info.subresources.map((s) => `${s.name}:${s.verbs.join(',')}`), ['finalize:update', 'status:get,patch,update']);
});
