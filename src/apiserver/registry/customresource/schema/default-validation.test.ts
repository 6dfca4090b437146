/**
 * Tests of default validation: cases of upstream k8s.io/apiextensions-apiserver
 * pkg/apis/apiextensions/validation/validation_test.go (TestValidateCustomResourceDefinition: "invalid
 * defaults with enabled feature gate, structural schema" and the embedded-resource metadata defaults
 * of versions v3/v4 of "defaults in metadata"), run through ValidateDefaults' port.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorString, type FieldErrorType } from '../../../../machinery/errors/index.js';
import { validateCustomResourceValidation } from '../../resources/crd-schema-validation.js';
import { validateDefaults } from './default-validation.js';
import { toStructural } from './structural.js';

const ROOT = 'spec.validation.openAPIV3Schema';
const got = (schema: Record<string, unknown>): string[] => validateDefaults(ROOT, toStructural(schema), true, true).map((e) => `${e.type} ${e.field}`).sort();
const m = (type: FieldErrorType, ...p: string[]): string => `${type} ${[ROOT, ...p].join('.')}`;

describe('validateDefaults', () => {
  it('invalid defaults, structural schema (upstream table)', () => {
    const str = { type: 'string' };
    const schema = {
      type: 'object',
      properties: {
        a: { type: 'object', properties: { foo: str }, default: { foo: 'abc', bar: 42 } },
        b: { type: 'object', properties: { foo: str }, default: { foo: 'abc' } },
        c: { type: 'object', properties: { foo: str }, default: { foo: 42 } },
        d: {
          type: 'object',
          properties: { good: { type: 'string', pattern: 'a' }, bad: { type: 'string', pattern: 'b' } },
          default: { good: 'a', bad: 'a' },
        },
        e: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: {
            preserveUnknownFields: { type: 'object', default: { foo: 'abc', bar: 42 } },
            nestedProperties: { type: 'object', properties: { foo: str }, default: { foo: 'abc', bar: 42 } },
          },
        },
        'embedded-fine': {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { foo: str },
          default: { foo: 'abc', apiVersion: 'foo/v1', kind: 'v1', metadata: { name: 'foo' } },
        },
        'embedded-preserve': {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { foo: str },
          default: { foo: 'abc', apiVersion: 'foo/v1', kind: 'v1', metadata: { name: 'foo' }, bar: 42 },
        },
        'embedded-preserve-unpruned-objectmeta': {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { foo: str },
          default: { foo: 'abc', apiVersion: 'foo/v1', kind: 'v1', metadata: { name: 'foo', unspecified: 'bar' }, bar: 42 },
        },
      },
    };
    assert.deepEqual(
      got(schema),
      [
        m('FieldValueInvalid', 'properties[a]', 'default'),
        m('FieldValueTypeInvalid', 'properties[c]', 'default', 'foo'),
        m('FieldValueInvalid', 'properties[d]', 'default', 'bad'),
        m('FieldValueInvalid', 'properties[e]', 'properties[preserveUnknownFields]', 'default'),
        m('FieldValueInvalid', 'properties[e]', 'properties[nestedProperties]', 'default'),
      ].sort(),
    );
    const messages = validateDefaults(ROOT, toStructural(schema), true, true).map(fieldErrorString);
    assert.ok(messages.includes(`${ROOT}.properties[a].default: Invalid value: map[string]interface {}{"bar":42, "foo":"abc"}: must not have unknown fields`), messages.join('\n'));
    assert.ok(messages.includes(`${ROOT}.properties[c].default.foo: Invalid value: "integer": foo in body must be of type string: "integer"`), messages.join('\n'));
    assert.ok(messages.includes(`${ROOT}.properties[d].default.bad: Invalid value: "a": bad in body should match 'b'`), messages.join('\n'));
  });

  it('defaults in embedded resources\' metadata and type meta (upstream versions v3 and v4)', () => {
    const v3 = {
      type: 'object',
      properties: {
        embedded: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: {
            apiVersion: { type: 'string', default: 'v1' },
            kind: { type: 'string', default: '%' },
            metadata: { type: 'object', default: { labels: { bar: 'x y' } } },
          },
        },
      },
    };
    assert.deepEqual(got(v3), [m('FieldValueInvalid', 'properties[embedded]', 'properties[kind]', 'default'), m('FieldValueInvalid', 'properties[embedded]', 'properties[metadata]', 'default')].sort());
    const v4 = {
      type: 'object',
      properties: {
        embedded: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: {
            metadata: {
              type: 'object',
              properties: { name: { type: 'string', default: 42 }, labels: { type: 'object', properties: { bar: { type: 'string', default: 42 } } } },
            },
          },
        },
      },
    };
    assert.deepEqual(
      got(v4),
      [
        m('FieldValueInvalid', 'properties[embedded]', 'properties[metadata]', 'properties[labels]', 'properties[bar]', 'default'),
        m('FieldValueInvalid', 'properties[embedded]', 'properties[metadata]', 'properties[name]', 'default'),
      ].sort(),
    );
  });

  it('is part of CRD schema validation once the schema is structural', () => {
    const errs = validateCustomResourceValidation({ openAPIV3Schema: { type: 'object', properties: { n: { type: 'integer', default: 'x' } } } }, false, 'spec.validation').map(fieldErrorString);
    assert.deepEqual(errs, ['spec.validation.openAPIV3Schema.properties[n].default: Invalid value: "string":  in body must be of type integer: "string"']);
  });
});
