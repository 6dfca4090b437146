/**
 * LimitRanges: SetDefaults_LimitRangeItem, ValidateLimitRange (cases after TestValidateLimitRange's
 * errorCases in pkg/apis/core/validation/validation_test.go: limit types, Pod defaults, min ≤
 * defaultRequest ≤ default ≤ max, maxLimitRequestRatio, non-overcommittable resources, PVC storage
 * bounds, resource names), the UUID name of a nameless LimitRange and the default table.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LimitRange as WireLimitRange } from '../../../api/index.js';
import type { LimitRangeItem } from 'kubernetes-types/core/v1.js';
import { fieldErrorString, type FieldError } from '../../../machinery/errors/index.js';
import type { StorageContext } from '../extension.js';
import type { ApiObject } from './helpers.js';
import { limitRangeStrategy as strategy } from './limitranges.js';

type LimitRange = ApiObject<WireLimitRange>;

const msgs = (errs: FieldError[]): string[] => errs.map(fieldErrorString);
/** Go's `%#v` of a Quantity ParseQuantity keeps in the int64 fast path. */
const goQ = (value: number, scale: number, s: string, format = 'DecimalSI'): string =>
  `resource.Quantity{i:resource.int64Amount{value:${value}, scale:${scale}}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"${s}", Format:"${format}"}`;

function lr(...limits: LimitRangeItem[]): LimitRange {
  const obj: LimitRange = { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'limits', namespace: 'default' }, spec: { limits } };
  strategy.defaults(obj);
  return obj;
}

test('defaults: a Container item takes default from max, defaultRequest from default then min', () => {
  const [c, p] = lr({ type: 'Container', max: { cpu: '2', memory: '1Gi' }, min: { memory: '100Mi', cpu: '100m' }, default: { cpu: '1' } }, { type: 'Pod', max: { cpu: '4' } }).spec!.limits;
  assert.deepEqual(c?.default, { cpu: '1', memory: '1Gi' });
  assert.deepEqual(c?.defaultRequest, { cpu: '1', memory: '1Gi' });
  assert.deepEqual(p, { type: 'Pod', max: { cpu: '4' } });
  const [onlyMin] = lr({ type: 'Container', min: { cpu: '100m' } }).spec!.limits;
  assert.deepEqual(onlyMin, { type: 'Container', min: { cpu: '100m' }, defaultRequest: { cpu: '100m' } });
  // Empty ResourceLists are omitted, as Go serializes them.
  assert.deepEqual(lr({ type: 'Container' }).spec!.limits[0], { type: 'Container' });
});

test('valid limit ranges', () => {
  const ok = lr(
    { type: 'Pod', max: { cpu: '100m', memory: '10000' }, min: { cpu: '5m', memory: '100' }, maxLimitRequestRatio: { cpu: '10' } },
    { type: 'Container', max: { cpu: '100m', memory: '10000' }, min: { cpu: '5m', memory: '100' }, default: { cpu: '50m' }, defaultRequest: { cpu: '10m' }, maxLimitRequestRatio: { cpu: '20' } },
    { type: 'PersistentVolumeClaim', min: { storage: '5Gi' }, max: { storage: '10Gi' } },
    { type: 'example.com/widget', max: { 'example.com/dongle': '3' } },
  );
  assert.deepEqual(strategy.validate(ok), []);
});

test('types: standard or qualified, not repeated; a Pod item has no defaults', () => {
  assert.deepEqual(msgs(strategy.validate(lr({ type: 'foo' }, { type: 'Container' }, { type: 'Container' }, { type: 'Pod', default: { cpu: '1' }, defaultRequest: { cpu: '1' } }))), [
    'spec.limits[0].type: Invalid value: "foo": must be a standard limit type or fully qualified',
    'spec.limits[2].type: Duplicate value: "Container"',
    "spec.limits[3].default: Forbidden: may not be specified when `type` is 'Pod'",
    "spec.limits[3].defaultRequest: Forbidden: may not be specified when `type` is 'Pod'",
  ]);
});

test('resource names: container resources for Pod and Container items, any standard name for others', () => {
  // (A Pod item, as a Container item's max is also copied into its defaults and checked there again.)
  assert.deepEqual(msgs(strategy.validate(lr({ type: 'Pod', max: { storage: '1Gi', foo: '1' } }, { type: 'PersistentVolumeClaim', max: { storage: '1Gi', foo: '1' } }))), [
    'spec.limits[0].max[foo]: Invalid value: "foo": must be a standard resource type or fully qualified',
    'spec.limits[0].max[foo]: Invalid value: "foo": must be a standard resource for containers',
    'spec.limits[0].max[storage]: Invalid value: "storage": must be a standard resource for containers',
    'spec.limits[1].max[foo]: Invalid value: "foo": must be a standard resource type or fully qualified',
  ]);
  assert.deepEqual(msgs(strategy.validate(lr({ type: 'PersistentVolumeClaim', max: { cpu: '1' } }))), [
    'spec.limits[0].limits: Required value: either minimum or maximum storage value is required, but neither was provided',
  ]);
});

test('min ≤ defaultRequest ≤ default ≤ max, with upstream wording and Go-printed quantities', () => {
  assert.deepEqual(msgs(strategy.validate(lr({ type: 'Pod', max: { cpu: '10m' }, min: { cpu: '100m' } }))), [
    `spec.limits[0].min[cpu]: Invalid value: ${goQ(100, -3, '100m')}: min value 100m is greater than max value 10m`,
  ]);
  assert.deepEqual(msgs(strategy.validate(lr({ type: 'Container', max: { cpu: '1' }, default: { cpu: '2' }, defaultRequest: { cpu: '500m' } }))), [
    `spec.limits[0].default[cpu]: Invalid value: ${goQ(1, 0, '1')}: default value 2 is greater than max value 1`,
  ]);
  assert.deepEqual(msgs(strategy.validate(lr({ type: 'Container', max: { cpu: '1' }, default: { cpu: '1' }, defaultRequest: { cpu: '2' } }))), [
    `spec.limits[0].defaultRequest[cpu]: Invalid value: ${goQ(2, 0, '2')}: default request value 2 is greater than max value 1`,
    `spec.limits[0].defaultRequest[cpu]: Invalid value: ${goQ(2, 0, '2')}: default request value 2 is greater than default limit value 1`,
  ]);
  assert.deepEqual(msgs(strategy.validate(lr({ type: 'Container', min: { memory: '1Gi' }, default: { memory: '512Mi' } }))), [
    `spec.limits[0].defaultRequest[memory]: Invalid value: ${goQ(536870912, 0, '', 'BinarySI')}: min value 1Gi is greater than default request value 512Mi`,
    `spec.limits[0].default[memory]: Invalid value: ${goQ(1073741824, 0, '1Gi', 'BinarySI')}: min value 1Gi is greater than default value 512Mi`,
  ]);
});

test('maxLimitRequestRatio: at least 1, at most max/min', () => {
  assert.deepEqual(msgs(strategy.validate(lr({ type: 'Pod', maxLimitRequestRatio: { cpu: '800m' } }))), [
    `spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: ${goQ(800, -3, '800m')}: ratio 800m is less than 1`,
  ]);
  assert.deepEqual(msgs(strategy.validate(lr({ type: 'Pod', min: { cpu: '1' }, max: { cpu: '2' }, maxLimitRequestRatio: { cpu: '3' } }))), [
    `spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: ${goQ(3, 0, '3')}: ratio 3 is greater than max/min = 2.000000`,
  ]);
  assert.deepEqual(strategy.validate(lr({ type: 'Pod', min: { cpu: '0' }, max: { cpu: '2' }, maxLimitRequestRatio: { cpu: '3' } })), []);
});

test('non-overcommittable resources need default == defaultRequest', () => {
  assert.deepEqual(msgs(strategy.validate(lr({ type: 'Container', default: { 'hugepages-2Mi': '2Mi' }, defaultRequest: { 'hugepages-2Mi': '1Mi' } }))), [
    `spec.limits[0].defaultRequest[hugepages-2Mi]: Invalid value: ${goQ(1048576, 0, '1Mi', 'BinarySI')}: default value 2Mi must equal to defaultRequest value 1Mi in hugepages-2Mi`,
  ]);
});

test('malformed quantities are reported where they are', () => {
  assert.deepEqual(msgs(strategy.validate(lr({ type: 'Pod', max: { cpu: 'lots' } }))), [
    `spec.limits[0].max[cpu]: Invalid value: "lots": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`,
  ]);
});

test('a nameless LimitRange is named with a UUID; PUT may create; the default Name / Created At table', () => {
  const ext = strategy.storage!({ rand: { uuid: () => '6b1e0b0e-0000-4000-8000-000000000001' } } as unknown as StorageContext);
  const obj = lr();
  delete obj.metadata!.name;
  ext.mutateCreate!(obj, 'ns', undefined);
  assert.equal(obj.metadata?.name, '6b1e0b0e-0000-4000-8000-000000000001');
  const named = lr();
  ext.mutateCreate!(named, 'ns', undefined);
  assert.equal(named.metadata?.name, 'limits');
  assert.equal(strategy.allowCreateOnUpdate, true);
  assert.deepEqual(
    strategy.table.columns.map((c) => [c.name, c.type]),
    [
      ['Name', 'string'],
      ['Created At', 'date'],
    ],
  );
  const dated = lr();
  dated.metadata = { name: 'limits', creationTimestamp: '2025-01-01T00:00:00Z' };
  assert.deepEqual(strategy.table.row(dated, 0).cells, ['limits', '2025-01-01T00:00:00Z']);
});
