/**
 * Tests of the structural conversion (upstream k8s.io/apiextensions-apiserver pkg/apiserver/schema/convert.go).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldSchema, toStructural } from './structural.js';

describe('toStructural', () => {
  it('keeps generic fields, extensions, value validations and raw x-kubernetes-validations', () => {
    const s = toStructural({
      type: 'object',
      description: 'd',
      properties: {
        spec: {
          type: 'object',
          required: ['size'],
          'x-kubernetes-validations': [{ rule: 'self.size != "x"', message: 'no x', fieldPath: '.size' }],
          properties: {
            size: { type: 'string', enum: ['small', 'large'], default: 'small', maxLength: 5, pattern: '^[a-z]+$', format: 'date-time' },
            port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
            list: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', properties: { name: { type: 'string' } } } },
            labels: { type: 'object', 'x-kubernetes-map-type': 'granular', additionalProperties: { type: 'string', nullable: true } },
            free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, additionalProperties: true },
            pod: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
          },
        },
      },
    });
    assert.equal(s.description, 'd');
    const spec = s.properties?.['spec'];
    assert.deepEqual(spec?.xValidations, [{ rule: 'self.size != "x"', message: 'no x', fieldPath: '.size' }]);
    assert.deepEqual(spec?.valueValidation, { required: ['size'] });
    assert.deepEqual(spec?.properties?.['size'], {
      type: 'string',
      default: 'small',
      valueValidation: { format: 'date-time', maxLength: 5, pattern: '^[a-z]+$', enum: ['small', 'large'] },
    });
    assert.deepEqual(spec?.properties?.['port'], { xIntOrString: true, valueValidation: { anyOf: [{ type: 'integer' }, { type: 'string' }] } });
    assert.deepEqual(spec?.properties?.['list']?.xListMapKeys, ['name']);
    assert.equal(spec?.properties?.['list']?.items?.properties?.['name']?.type, 'string');
    assert.deepEqual(spec?.properties?.['labels']?.additionalProperties, { structural: { type: 'string', nullable: true } });
    assert.equal(spec?.properties?.['labels']?.xMapType, 'granular');
    assert.deepEqual(spec?.properties?.['free']?.additionalProperties, { bool: true });
    assert.equal(spec?.properties?.['pod']?.xEmbeddedResource, true);
  });

  it('treats a null default as none and an absent schema as the empty one', () => {
    assert.deepEqual(toStructural({ type: 'string', default: null }), { type: 'string' });
    assert.deepEqual(toStructural(undefined), {});
  });

  it('throws NewStructural\'s error for schemas it cannot represent', () => {
    assert.throws(() => toStructural({ type: 'object', $ref: '#/x' }), /'\$ref' is not supported/);
    assert.throws(() => toStructural({ type: 'array', items: [{ type: 'string' }] }), Error);
  });

  it('looks fields up as own members only', () => {
    const s = toStructural({ type: 'object', properties: { a: { type: 'string' } } });
    assert.equal(fieldSchema(s, 'constructor'), undefined);
    assert.equal(fieldSchema(s, 'a')?.type, 'string');
  });
});
