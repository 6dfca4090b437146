/**
 * Tests of embedded-resource validation and metadata coercion: the tables of upstream
 * k8s.io/apiextensions-apiserver pkg/apiserver/schema/objectmeta/validation_test.go
 * (TestValidateEmbeddedResource, TestValidate), then coercion cases.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorString, type FieldErrorType } from '../../../../machinery/errors/index.js';
import { coerceObjectMeta, validateEmbeddedResources } from './objectmeta.js';
import type { Structural } from './structural.js';

type Match = [FieldErrorType, string];
const required = (...p: string[]): Match => ['FieldValueRequired', p.join('.')];
const invalid = (...p: string[]): Match => ['FieldValueInvalid', p.join('.')];
const matches = (errs: { type: FieldErrorType; field: string }[]): string[] => errs.map((e) => `${e.type} ${e.field}`).sort();
const want = (ms: Match[]): string[] => ms.map(([t, f]) => `${t} ${f}`).sort();

describe('validateEmbeddedResources (upstream TestValidateEmbeddedResource)', () => {
  const cases: { name: string; object: Record<string, unknown>; errors?: Match[] }[] = [
    { name: 'empty', object: {}, errors: [required('apiVersion'), required('kind')] },
    { name: 'version and kind', object: { apiVersion: 'foo/v1', kind: 'Foo' } },
    { name: 'invalid kind', object: { apiVersion: 'foo/v1', kind: 'foo.bar-com' }, errors: [invalid('kind')] },
    { name: 'no name', object: { apiVersion: 'foo/v1', kind: 'Foo', metadata: { namespace: 'kube-system' } } },
    { name: 'no namespace', object: { apiVersion: 'foo/v1', kind: 'Foo', metadata: { name: 'foo' } } },
    {
      name: 'invalid',
      object: { apiVersion: 'foo/v1', kind: 'Foo', metadata: { name: '..', namespace: '$$$', labels: { '#': '#' }, annotations: { '#': '#' } } },
      errors: [invalid('metadata', 'name'), invalid('metadata', 'namespace'), invalid('metadata', 'labels'), invalid('metadata', 'labels'), invalid('metadata', 'annotations')],
    },
  ];
  for (const tt of cases) {
    it(tt.name, () => {
      assert.deepEqual(matches(validateEmbeddedResources('', tt.object, {}, true)), want(tt.errors ?? []));
    });
  }

  it('prints upstream messages', () => {
    const errs = validateEmbeddedResources('', { apiVersion: 'a/b/c', kind: 'foo.bar', metadata: { name: 'a/b' } }, {}, true).map(fieldErrorString);
    assert.deepEqual(errs, [
      'apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
      `kind: Invalid value: "foo.bar": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
      `metadata.name: Invalid value: "a/b": may not contain '/'`,
    ]);
  });
});

describe('validateEmbeddedResources (upstream TestValidate)', () => {
  const schema: Structural = {
    properties: {
      embedded: { xEmbeddedResource: true },
      nested: { xEmbeddedResource: true, properties: { embedded: { xEmbeddedResource: true } } },
      items: { items: { xEmbeddedResource: true } },
      additionalProperties: { additionalProperties: { structural: { xEmbeddedResource: true } } },
    },
  };
  const cases: { name: string; object: string; includeRoot?: boolean; errors: Match[] }[] = [
    { name: 'empty', object: '{}', errors: [] },
    { name: 'include root', object: '{}', includeRoot: true, errors: [required('apiVersion'), required('kind')] },
    { name: 'embedded', object: '{"embedded": {}}', errors: [required('embedded', 'apiVersion'), required('embedded', 'kind')] },
    {
      name: 'nested',
      object: '{"nested": {"embedded": {}}}',
      errors: [required('nested', 'apiVersion'), required('nested', 'kind'), required('nested', 'embedded', 'apiVersion'), required('nested', 'embedded', 'kind')],
    },
    { name: 'items', object: '{"items": [{}]}', errors: [required('items[0]', 'apiVersion'), required('items[0]', 'kind')] },
    {
      name: 'additionalProperties',
      object: '{"additionalProperties": {"foo":{}}}',
      errors: [required('additionalProperties[foo]', 'apiVersion'), required('additionalProperties[foo]', 'kind')],
    },
  ];
  for (const tt of cases) {
    it(tt.name, () => {
      assert.deepEqual(matches(validateEmbeddedResources('', JSON.parse(tt.object), schema, tt.includeRoot ?? false)), want(tt.errors));
    });
  }
});

describe('coerceObjectMeta', () => {
  it('keeps ObjectMeta fields, drops unknown and empty ones, reports unknown ones', () => {
    const c = coerceObjectMeta({ name: 'a', foo: 1, labels: {}, generation: 0, finalizers: ['x'], managedFields: [{ manager: 'm', bar: 2 }] }, 'spec.t', false);
    assert.deepEqual(c, {
      meta: { name: 'a', finalizers: ['x'], managedFields: [{ manager: 'm' }] },
      unknownFields: ['spec.t.metadata.foo', 'spec.t.metadata.managedFields[0].bar'],
    });
  });
  it('fails on a field of the wrong type, or drops it when asked', () => {
    assert.equal(coerceObjectMeta({ name: 5 }, '', false).error, 'json: cannot unmarshal number into Go struct field ObjectMeta.name of type string');
    assert.deepEqual(coerceObjectMeta({ name: 5, namespace: 'n' }, '', true), { meta: { namespace: 'n' }, unknownFields: [] });
  });
});
