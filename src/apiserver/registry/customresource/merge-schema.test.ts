/**
 * The merge type of a CRD version: list and map types from the schema's extensions, atomic lists by
 * default, free-form and embedded objects, the built-in ObjectMeta under `metadata` (kube-openapi
 * pkg/schemaconv/openapi.go; the cases follow its testdata's CRDs in miniature).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setToJson, type Value } from '../../../machinery/fieldpath/index.js';
import { builtinSchema, TypedValue, ValidationErrors } from '../../../machinery/merge/index.js';
import { customResourceMergeType } from './merge-schema.js';
import { toStructural } from './schema/index.js';

const SCHEMA = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } } },
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        args: { type: 'array', items: { type: 'string' } },
        selector: { type: 'object', 'x-kubernetes-map-type': 'atomic', properties: { app: { type: 'string' } } },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        config: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        size: { 'x-kubernetes-int-or-string': true },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
      },
    },
  },
};

function fieldsOf(obj: Record<string, unknown>): string {
  return setToJson(new TypedValue(obj as Value, builtinSchema(), customResourceMergeType(toStructural(SCHEMA))).toFieldSet());
}

describe('customResourceMergeType', () => {
  test('map lists are keyed, sets by value, other lists atomic; an atomic map is one leaf', () => {
    const fields = fieldsOf({
      spec: { ports: [{ name: 'http', port: 80 }], tags: ['a'], args: ['x', 'y'], selector: { app: 'w' } },
    });
    assert.equal(
      fields,
      // A list item is a member itself (`.`), as upstream's tofieldset.go inserts it.
      '{"f:spec":{"f:args":{},"f:ports":{"k:{\\"name\\":\\"http\\"}":{".":{},"f:name":{},"f:port":{}}},"f:selector":{},"f:tags":{"v:\\"a\\"":{}}}}',
    );
  });

  test('free-form and additionalProperties maps are granular; int-or-string is a leaf', () => {
    // A key that is not a declared field is a member itself: `f:deep` has `.` (tofieldset.go visitMapItems).
    assert.equal(
      fieldsOf({ spec: { labels: { a: '1' }, config: { deep: { x: 1 } }, size: '50%' } }),
      '{"f:spec":{"f:config":{"f:deep":{".":{},"f:x":{}}},"f:labels":{"f:a":{}},"f:size":{}}}',
    );
  });

  test('the root and embedded resources have apiVersion, kind and the built-in ObjectMeta', () => {
    const fields = fieldsOf({
      apiVersion: 'stable.example.com/v1',
      kind: 'W',
      metadata: { name: 'w', labels: { app: 'w' }, finalizers: ['f'] },
      spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { labels: { a: 'b' } }, spec: { any: 1 } } },
    });
    assert.equal(
      fields,
      '{"f:apiVersion":{},"f:kind":{},"f:metadata":{"f:finalizers":{"v:\\"f\\"":{}},"f:labels":{"f:app":{}},"f:name":{}},"f:spec":{"f:template":{"f:apiVersion":{},"f:kind":{},"f:metadata":{"f:labels":{"f:a":{}}},"f:spec":{"f:any":{}}}}}',
    );
  });

  test('an undeclared field and a duplicate map-list key are validation errors', () => {
    const root = customResourceMergeType(toStructural(SCHEMA));
    const check = (obj: Record<string, unknown>): string => {
      try {
        new TypedValue(obj as Value, builtinSchema(), root).validate();
        return '';
      } catch (e) {
        assert.ok(e instanceof ValidationErrors);
        return e.message;
      }
    };
    assert.match(check({ spec: { nope: 1 } }), /\.spec\.nope: field not declared in schema/);
    assert.match(check({ spec: { ports: [{ name: 'a' }, { name: 'a' }] } }), /duplicate entries for key \[name="a"\]/);
    assert.equal(check({ spec: { ports: [{ name: 'a' }] } }), '');
  });

  test('without a schema everything is deduced', () => {
    assert.equal(setToJson(new TypedValue({ a: { b: [1, 2] } }, builtinSchema(), customResourceMergeType(undefined)).toFieldSet()), '{"f:a":{".":{},"f:b":{}}}');
  });
});
