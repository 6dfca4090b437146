/**
 * Custom resource tables and the JSONPath subset they use. Cases from k8s.io/apiextensions-apiserver
 * v0.33.9 pkg/registry/customresource/tableconvertor/tableconvertor_test.go (Test_cellForJSONValue,
 * Test_convertor_ConvertToTable) and k8s.io/client-go util/jsonpath/jsonpath_test.go (the subset).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeObject } from '../../../api/index.js';
import { JsonPath } from './jsonpath.js';
import { cellForJSONValue, customResourceTable } from './table.js';

const NOW = Date.parse('2025-06-01T12:00:00Z');
const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

describe('cellForJSONValue (Test_cellForJSONValue)', () => {
  const cases: [type: string, value: unknown, want: unknown][] = [
    ['integer', 42, 42],
    ['integer', 3.14, 3],
    ['integer', true, null],
    ['integer', 'foo', null],
    ['number', 42, 42],
    ['number', 3.14, 3.14],
    ['number', true, null],
    ['number', 'foo', null],
    ['boolean', 42, null],
    ['boolean', 3.14, null],
    ['boolean', true, true],
    ['boolean', 'foo', null],
    ['string', 42, null],
    ['string', 3.14, null],
    ['string', true, null],
    ['string', 'foo', 'foo'],
    ['date', 42, null],
    ['date', 3.14, null],
    ['date', true, null],
    ['date', iso(NOW - 12 * 3600_000 - 30 * 60_000), '12h'],
    ['date', iso(NOW + 12 * 3600_000 + 30 * 60_000), '<invalid>'],
    ['date', '', '<unknown>'],
    ['unknown', 'foo', null],
  ];
  for (const [type, value, want] of cases) {
    test(`${JSON.stringify(value)} of type ${type}`, () => assert.deepEqual(cellForJSONValue(type, value, NOW), want));
  }
});

describe('customResourceTable (Test_convertor_ConvertToTable)', () => {
  const blah = (spec: unknown): KubeObject => ({ apiVersion: 'example.istio.io/v1alpha1', kind: 'Blah', metadata: { name: 'blah' }, spec });

  test('string columns print the first result, arrays as JSON', () => {
    const table = customResourceTable([
      { name: 'valueOnly', type: 'string', jsonPath: '.spec.servers[0].hosts[0]' },
      { name: 'single1', type: 'string', jsonPath: '.spec.servers[0].hosts' },
      { name: 'single2', type: 'string', jsonPath: '.spec.servers[1].hosts' },
      { name: 'multi', type: 'string', jsonPath: '.spec.servers[*].hosts' },
    ]);
    const row = table.row(blah({ servers: [{ hosts: ['foo'] }, { hosts: ['bar', 'baz'] }] }), NOW);
    assert.deepEqual(row.cells, ['blah', 'foo', '["foo"]', '["bar","baz"]', '["foo"]']);
  });

  test('integer columns print numbers as text in string columns, and null for arrays in integer ones', () => {
    const columns = (type: string) => [
      { name: 'valueOnly', type, jsonPath: '.spec.foo[0].bar[0]' },
      { name: 'single1', type, jsonPath: '.spec.foo[0].bar' },
      { name: 'single2', type, jsonPath: '.spec.foo[1].bar' },
      { name: 'multi', type, jsonPath: '.spec.foo[*].bar' },
    ];
    const obj = blah({ foo: [{ bar: [1] }, { bar: [2, 3] }] });
    assert.deepEqual(customResourceTable(columns('string')).row(obj, NOW).cells, ['blah', '1', '[1]', '[2,3]', '[1]']);
    assert.deepEqual(customResourceTable(columns('integer')).row(obj, NOW).cells, ['blah', 1, null, null, null]);
  });

  test('columns: Name first, descriptions defaulted from the JSONPath; without columns Name and Age', () => {
    const table = customResourceTable([{ name: 'Spec', type: 'string', format: 'byte', priority: 1, jsonPath: '.spec.x' }]);
    assert.deepEqual(table.columns.map((c) => [c.name, c.type, c.format, c.priority]), [
      ['Name', 'string', 'name', 0],
      ['Spec', 'string', 'byte', 1],
    ]);
    assert.equal(table.columns[1]?.description, 'Custom resource definition column (in JSONPath format): .spec.x');
    const plain = customResourceTable(undefined);
    assert.deepEqual(plain.columns.map((c) => [c.name, c.type]), [['Name', 'string'], ['Age', 'date']]);
    assert.deepEqual(plain.row({ metadata: { name: 'a', creationTimestamp: iso(NOW - 90_000) } }, NOW).cells, ['a', '90s']);
    assert.deepEqual(table.row({ metadata: { name: 'a' } }, NOW).cells, ['a', null], 'a missing value is null');
  });
});

describe('JsonPath', () => {
  const data = {
    kind: 'List',
    items: [
      { metadata: { name: 'a' }, status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'Synced', status: 'False' }], replicas: 3 } },
      { metadata: { name: 'b' }, status: { conditions: [{ type: 'Ready', status: 'False' }], replicas: 1 } },
    ],
  };
  const find = (expr: string): unknown[] => JsonPath.parse(expr).find(data);

  test('fields, indexes (negative too), wildcards and slices', () => {
    assert.deepEqual(find('{.kind}'), ['List']);
    assert.deepEqual(find('.items[0].metadata.name'), ['a']);
    assert.deepEqual(find('.items[-1].metadata.name'), ['b']);
    assert.deepEqual(find('.items[*].metadata.name'), ['a', 'b']);
    assert.deepEqual(find('.items[0:1].metadata.name'), ['a']);
    assert.deepEqual(find("['kind']"), ['List']);
    assert.deepEqual(find('.items[5].metadata.name'), [], 'out of range selects nothing');
    assert.deepEqual(find('.missing.deeper'), [], 'missing keys are allowed');
  });

  test('filters and recursive descent', () => {
    assert.deepEqual(find('.items[0].status.conditions[?(@.type=="Ready")].status'), ['True']);
    assert.deepEqual(find('.items[*].status.conditions[?(@.status!="True")].type'), ['Synced', 'Ready']);
    assert.deepEqual(find('.items[?(@.status.replicas>2)].metadata.name'), ['a']);
    assert.deepEqual(find('.items[?(@.status.replicas)].metadata.name'), ['a', 'b']);
    assert.deepEqual(find('..name'), ['a', 'b']);
  });

  test('syntax the subset does not know is an error', () => {
    assert.throws(() => JsonPath.parse('.items[?(@.a=~/x/)]'));
    assert.throws(() => JsonPath.parse('.items[0'));
  });
});
