/**
 * CustomResourceDefinition defaulting, create/update preparation, validation and the table row. Cases
 * are ported from k8s.io/apiextensions-apiserver pkg/apis/apiextensions/validation/validation_test.go
 * (TestValidateCustomResourceDefinition: "mismatched name", "missing values", "bad names 01",
 * "multiple_storage_version", "no_storage_version", "schema is required", the webhook config cases,
 * "additionalProperties and properties forbidden", "x-kubernetes-preserve-unknown-field: false",
 * "labelSelectorPath outside of .spec and .status", "top-level metadata default", "additionalProperties
 * at resource root", "contradicting meta field types", the x-kubernetes-validations and selectableFields
 * cases; TestValidateCustomResourceDefinitionStoredVersions; TestValidateCustomResourceDefinitionUpdate),
 * written as v1 objects with the messages a v1.33 API server returns.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CustomResourceDefinition } from '../../../api/index.js';
import { fieldErrorString, type FieldError } from '../../../machinery/errors/index.js';
import { validateStoredVersions } from './crd-validation.js';
import { customResourceDefinitionStrategy as strategy } from './customresourcedefinitions.js';

type Crd = CustomResourceDefinition & Record<string, unknown>;
type Obj = Record<string, unknown>;

const msgs = (errs: FieldError[]): string[] => errs.map(fieldErrorString);
const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object' } } } };
const v1 = { name: 'v1', served: true, storage: true, schema };

/** A valid CronTab CRD (the Kubernetes docs' example), with `spec` fields replaced by `over`. */
function crd(over: Obj = {}, meta: Obj = {}): Crd {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'crontabs.stable.example.com', ...meta },
    spec: { group: 'stable.example.com', scope: 'Namespaced', names: { plural: 'crontabs', kind: 'CronTab' }, versions: [v1], ...over },
  } as unknown as Crd;
}

/** Decodes as the store would: defaults, create preparation, validation. */
function create(obj: Crd): string[] {
  strategy.defaults(obj);
  strategy.prepareForCreate(obj, 0);
  return msgs(strategy.validate(obj));
}

/** A version with the given schema (and more fields). */
const version = (name: string, openAPIV3Schema: unknown, more: Obj = {}): Obj => ({ name, served: true, storage: name === 'v1', schema: { openAPIV3Schema }, ...more });

const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const GO_VERSION = (name: string, storage: boolean): string =>
  `apiextensions.CustomResourceDefinitionVersion{Name:"${name}", Served:true, Storage:${storage}, Deprecated:false, DeprecationWarning:(*string)(nil), Schema:(*apiextensions.CustomResourceValidation)(nil), Subresources:(*apiextensions.CustomResourceSubresources)(nil), AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil), SelectableFields:[]apiextensions.SelectableField(nil)}`;

describe('defaults and preparation', () => {
  test('SetDefaults: singular, listKind, conversion None, webhook port 443, storedVersions', () => {
    const obj = crd();
    strategy.defaults(obj);
    assert.deepEqual(obj.spec.names, { plural: 'crontabs', kind: 'CronTab', singular: 'crontab', listKind: 'CronTabList' });
    assert.deepEqual(obj.spec.conversion, { strategy: 'None' });
    assert.deepEqual(obj.status, { storedVersions: ['v1'] });
    const hook = crd({ conversion: { strategy: 'Webhook', webhook: { clientConfig: { service: { name: 's', namespace: 'n' } }, conversionReviewVersions: ['v1'] } } });
    strategy.defaults(hook);
    assert.equal(hook.spec.conversion?.webhook?.clientConfig?.service?.port, 443);
    const kept = crd({ names: { plural: 'crontabs', kind: 'CronTab', singular: 'ct', listKind: 'Tabs' } });
    strategy.defaults(kept);
    assert.deepEqual(kept.spec.names, { plural: 'crontabs', kind: 'CronTab', singular: 'ct', listKind: 'Tabs' });
  });

  test('PrepareForCreate: status reset to the storage version, generation 1', () => {
    const obj = crd();
    obj.status = { conditions: [{ type: 'Established', status: 'True' }], storedVersions: ['v0'] };
    strategy.defaults(obj);
    strategy.prepareForCreate(obj, 0);
    assert.deepEqual(obj.status, { acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] });
    assert.equal(obj.metadata?.generation, 1);
  });

  test('PrepareForUpdate: status kept, generation bumped on spec changes, a new storage version recorded', () => {
    const old = crd();
    strategy.defaults(old);
    strategy.prepareForCreate(old, 0);
    const same = structuredClone(old);
    same.status = {};
    strategy.prepareForUpdate(same, structuredClone(old));
    assert.equal(same.metadata?.generation, 1);
    assert.deepEqual(same.status?.storedVersions, ['v1']);
    const moved = structuredClone(old);
    moved.spec.versions = [{ ...v1, storage: false }, { ...v1, name: 'v2' }];
    strategy.prepareForUpdate(moved, structuredClone(old));
    assert.equal(moved.metadata?.generation, 2);
    assert.deepEqual(moved.status?.storedVersions, ['v1', 'v2']);
  });

  test('status updates keep the spec', () => {
    const old = crd();
    const obj = crd({ scope: 'Cluster' });
    obj.status = { acceptedNames: { plural: 'crontabs', kind: 'CronTab' } };
    strategy.prepareForStatusUpdate?.(obj, old);
    assert.equal(obj.spec.scope, 'Namespaced');
    assert.deepEqual(obj.status, { acceptedNames: { plural: 'crontabs', kind: 'CronTab' } });
    obj.status = { acceptedNames: { plural: 'Cron_tabs', kind: 'CronTab' } };
    assert.deepEqual(msgs(strategy.validateStatusUpdate?.(obj, old) ?? []), [`status.acceptedNames.plural: Invalid value: "Cron_tabs": ${DNS1035}`]);
  });
});

describe('validation', () => {
  test('a valid CRD, and the name rule ("mismatched name")', () => {
    assert.deepEqual(create(crd()), []);
    assert.deepEqual(create(crd({}, { name: 'crontab.stable.example.com' })), [
      'metadata.name: Invalid value: "crontab.stable.example.com": must be spec.names.plural+"."+spec.group',
    ]);
  });

  test('"missing values"', () => {
    assert.deepEqual(create({ metadata: { name: 'plural.group.com' } } as Crd), [
      'metadata.name: Invalid value: "plural.group.com": must be spec.names.plural+"."+spec.group',
      'spec.group: Required value',
      'spec.scope: Required value',
      'spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion(nil): must have exactly one version marked as storage version',
      'spec.names.plural: Required value',
      'spec.names.singular: Required value',
      'spec.names.kind: Required value',
      'spec.names.listKind: Required value',
      'status.storedVersions: Invalid value: []string(nil): must have at least one stored version',
    ]);
  });

  test('"bad names 01": group, scope, version and names formats; kind and listKind equal', () => {
    const obj = {
      metadata: { name: 'pl()*ural.group' },
      spec: {
        group: 'group',
        scope: 'foo',
        names: { plural: 'pl()*ural', singular: 'value()*a', kind: 'value()*a', listKind: 'value()*a', shortNames: ['Ct'] },
        versions: [version('ve()*rsion', { type: 'object' }, { storage: true })],
      },
    } as unknown as Crd;
    assert.deepEqual(create(obj), [
      'spec.group: Invalid value: "group": should be a domain with at least one dot',
      'spec.scope: Unsupported value: "foo": supported values: "Cluster", "Namespaced"',
      `spec.versions[0].name: Invalid value: "ve()*rsion": ${DNS1035}`,
      `spec.version: Invalid value: "ve()*rsion": ${DNS1035}`,
      `spec.names.plural: Invalid value: "pl()*ural": ${DNS1035}`,
      `spec.names.singular: Invalid value: "value()*a": ${DNS1035}`,
      `spec.names.kind: Invalid value: "value()*a": may have mixed case, but should otherwise match: ${DNS1035}`,
      `spec.names.listKind: Invalid value: "value()*a": may have mixed case, but should otherwise match: ${DNS1035}`,
      `spec.names.shortNames[0]: Invalid value: "Ct": ${DNS1035}`,
      'spec.names.listKind: Invalid value: "value()*a": kind and listKind may not be the same',
    ]);
  });

  test('exactly one storage version, unique names ("multiple_storage_version", "no_storage_version")', () => {
    assert.deepEqual(create(crd({ versions: [v1, { ...v1, name: 'v2' }] })), [
      `spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{${GO_VERSION('v1', true)}, ${GO_VERSION('v2', true)}}: must have exactly one version marked as storage version`,
      'status.storedVersions: Invalid value: []string{"v1"}: must have the storage version v2',
    ]);
    assert.deepEqual(create(crd({ versions: [{ ...v1, storage: false }] })), [
      `spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{${GO_VERSION('v1', false)}}: must have exactly one version marked as storage version`,
      'status.storedVersions: Invalid value: []string(nil): must have at least one stored version',
    ]);
    assert.deepEqual(create(crd({ versions: [v1, { ...v1, storage: false }] })), [
      `spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{${GO_VERSION('v1', true)}, ${GO_VERSION('v1', false)}}: must contain unique version names`,
    ]);
  });

  test('schemas are required; one shared schema is reported at spec.validation, differing ones per version', () => {
    assert.deepEqual(create(crd({ versions: [{ name: 'v1', served: true, storage: true }, { name: 'v2', served: true, storage: false, schema: {} }] })), [
      'spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required',
      'spec.versions[1].schema.openAPIV3Schema: Required value: schemas are required',
    ]);
    assert.deepEqual(create(crd({ versions: [version('v1', { type: 'string' })] })), ['spec.validation.openAPIV3Schema.type: Invalid value: "string": must be object at the root']);
    assert.deepEqual(
      create(crd({ versions: [version('v1', { properties: { a: {} } }), version('v2', { type: 'object', additionalProperties: true, properties: { b: { type: 'array' } } })] })),
      [
        'spec.versions[0].schema.openAPIV3Schema.properties[a].type: Required value: must not be empty for specified object fields',
        'spec.versions[0].schema.openAPIV3Schema.type: Required value: must not be empty at the root',
        'spec.versions[1].schema.openAPIV3Schema.additionalProperties: Forbidden: must not be used at the root',
        'spec.versions[1].schema.openAPIV3Schema.properties[b].items: Required value: must be specified',
      ],
    );
  });

  test('the schema root with the status subresource, and nullable', () => {
    const v = version('v1', { type: 'object', nullable: true, enum: [1] }, { subresources: { status: {} } });
    assert.deepEqual(create(crd({ versions: [v] })), [
      'spec.validation.openAPIV3Schema: Invalid value: apiextensions.JSONSchemaProps{…}: only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled',
      'spec.validation.openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root',
    ]);
    const array = version('v1', { type: 'array', items: { type: 'string' } }, { subresources: { status: {} } });
    assert.deepEqual(create(crd({ versions: [array] })), [
      'spec.validation.openAPIV3Schema.type: Invalid value: "array": only "object" is allowed as the type at the root of the schema if the status subresource is enabled',
      'spec.validation.openAPIV3Schema.type: Invalid value: "array": must be object at the root',
    ]);
  });

  test('OpenAPI checks: additionalProperties with properties, x-kubernetes-preserve-unknown-fields false, types, uniqueItems', () => {
    const s = {
      type: 'object',
      properties: {
        spec: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } },
        x: { type: 'object', 'x-kubernetes-preserve-unknown-fields': false },
      },
    };
    assert.deepEqual(create(crd({ versions: [version('v1', s)] })), [
      'spec.validation.openAPIV3Schema.properties[spec].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive',
      'spec.validation.openAPIV3Schema.properties[x].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined',
    ]);
    assert.deepEqual(create(crd({ versions: [version('v1', { type: 'object', properties: { a: { type: 'null' }, b: { type: 'int' }, c: { type: 'array', items: { type: 'string' }, uniqueItems: true } } })] })), [
      'spec.validation.openAPIV3Schema.properties[a].type: Unsupported value: "null": supported values: "array", "boolean", "integer", "number", "object", "string"',
      'spec.validation.openAPIV3Schema.properties[a].type: Forbidden: type cannot be set to null, use nullable as an alternative',
      'spec.validation.openAPIV3Schema.properties[b].type: Unsupported value: "int": supported values: "array", "boolean", "integer", "number", "object", "string"',
      'spec.validation.openAPIV3Schema.properties[c].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
    ]);
    // Unsupported fields make the schema non-structural: NewStructural's error shows only when nothing else is wrong.
    assert.deepEqual(create(crd({ versions: [version('v1', { type: 'object', $schema: 'http://x' })] })), [
      `spec.validation.openAPIV3Schema: Invalid value: "": OpenAPIV3Schema 'schema' is not supported`,
    ]);
  });

  test('metadata, kind and embedded resources ("top-level metadata default", "contradicting meta field types")', () => {
    const s = {
      type: 'object',
      properties: {
        metadata: { type: 'object', description: 'x', properties: { name: { type: 'string' } } },
        kind: { type: 'integer' },
        e: { type: 'object', 'x-kubernetes-embedded-resource': true },
        i: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        j: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
      },
    };
    assert.deepEqual(create(crd({ versions: [version('v1', s)] })), [
      'spec.validation.openAPIV3Schema.properties[e].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
      'spec.validation.openAPIV3Schema.properties[j].type: Required value: must not be empty for specified object fields',
      'spec.validation.openAPIV3Schema.properties[kind].type: Invalid value: "integer": must be string',
      'spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified',
    ]);
    const metaDefault = { type: 'object', properties: { metadata: { type: 'object', default: { name: 'x' }, properties: { name: { type: 'string' }, generateName: { type: 'string' } } } } };
    assert.deepEqual(create(crd({ versions: [version('v1', metaDefault)] })), ['spec.validation.openAPIV3Schema.properties[metadata].default: Forbidden: must not be set in top-level metadata']);
  });

  test('value validations under anyOf must be structural and complete; x-kubernetes-validations static checks', () => {
    const s = {
      type: 'object',
      'x-kubernetes-validations': [{ rule: '' }, { rule: 'self.a\n== 1' }, { rule: 'x', reason: 'Bad', fieldPath: '.nope' }],
      anyOf: [{ type: 'string', 'x-kubernetes-validations': [{ rule: 'y' }], properties: { metadata: {} } }],
    };
    assert.deepEqual(create(crd({ versions: [version('v1', s)] })), [
      'spec.validation.openAPIV3Schema.anyOf[0].properties[metadata]: Forbidden: must not be specified in a nested context',
      'spec.validation.openAPIV3Schema.anyOf[0].type: Forbidden: must be empty to be structural',
      'spec.validation.openAPIV3Schema.anyOf[0].x-kubernetes-validations: Forbidden: must be empty to be structural',
      'spec.validation.openAPIV3Schema.properties[metadata]: Required value: because it is defined in spec.validation.openAPIV3Schema.anyOf[0].properties[metadata]',
      'spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule: Required value: rule is not specified',
      'spec.validation.openAPIV3Schema.x-kubernetes-validations[1].message: Required value: message must be specified if rule contains line breaks',
      'spec.validation.openAPIV3Schema.x-kubernetes-validations[2].reason: Unsupported value: "Bad": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"',
      'spec.validation.openAPIV3Schema.x-kubernetes-validations[2].fieldPath: Invalid value: ".nope": fieldPath must be a valid path',
    ]);
  });

  test('list and map types', () => {
    const s = {
      type: 'object',
      properties: {
        l: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['k', 'z', 'o'],
          items: { type: 'object', required: ['k'], properties: { k: { type: 'string' }, o: { type: 'object' } } },
        },
        s: { type: 'object', 'x-kubernetes-list-type': 'set' },
        m: { type: 'object', 'x-kubernetes-map-type': 'weird' },
        t: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object' } },
      },
    };
    assert.deepEqual(create(crd({ versions: [version('v1', s)] })), [
      'spec.validation.openAPIV3Schema.properties[l].x-kubernetes-list-map-keys: Invalid value: []string{"k", "z", "o"}: entries must all be names of item properties',
      'spec.validation.openAPIV3Schema.properties[l].items.properties[o].type: Invalid value: "object": must be a scalar type if parent array\'s x-kubernetes-list-type is map',
      'spec.validation.openAPIV3Schema.properties[l].items.properties[o].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
      'spec.validation.openAPIV3Schema.properties[s].type: Invalid value: "object": must be array if x-kubernetes-list-type is specified',
      'spec.validation.openAPIV3Schema.properties[m].x-kubernetes-map-type: Unsupported value: "weird": supported values: "atomic", "granular"',
      'spec.validation.openAPIV3Schema.properties[t].items.x-kubernetes-map-type: Invalid value: "null": must be atomic as item of a list with x-kubernetes-list-type=set',
    ]);
  });

  test('subresources, printer columns, deprecation warnings ("labelSelectorPath outside of .spec and .status")', () => {
    const v = {
      ...v1,
      subresources: { scale: { specReplicasPath: 'spec.x', statusReplicasPath: '.spec.y', labelSelectorPath: '.metadata.z' } },
      additionalPrinterColumns: [{ name: '', type: 'time', format: 'uuid', jsonPath: 'x' }, { name: 'a', type: '', jsonPath: '' }],
    };
    assert.deepEqual(create(crd({ versions: [v] })), [
      'spec.subresources.scale.specReplicasPath: Invalid value: "spec.x": must be a simple json path starting with .',
      'spec.subresources.scale.statusReplicasPath: Invalid value: ".spec.y": should be a json path under .status',
      'spec.subresources.scale.labelSelectorPath: Invalid value: ".metadata.z": should be a json path under either .spec or .status',
      'spec.additionalPrinterColumns[0].name: Required value',
      'spec.additionalPrinterColumns[0].type: Invalid value: "time": must be one of boolean,date,integer,number,string',
      'spec.additionalPrinterColumns[0].format: Invalid value: "uuid": must be one of byte,date,date-time,double,float,int32,int64,password',
      'spec.additionalPrinterColumns[0].JSONPath: Invalid value: "x": must be a simple json path starting with .',
      'spec.additionalPrinterColumns[1].type: Required value: must be one of boolean,date,integer,number,string',
      'spec.additionalPrinterColumns[1].JSONPath: Required value',
    ]);
    const deprecated = [{ ...v1, deprecationWarning: 'x' }, { ...v1, name: 'v2', storage: false, deprecated: true, deprecationWarning: 'a\u0001b' }];
    assert.deepEqual(create(crd({ versions: deprecated })), [
      'spec.versions[0].deprecationWarning: Invalid value: "x": can only be set for deprecated versions',
      'spec.versions[1].deprecationWarning: Invalid value: "a\\x01b": must only contain printable UTF-8 characters; non-printable character found at index 1',
    ]);
  });

  test('selectable fields', () => {
    const s = { type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'string' }, o: { type: 'object' } } } } };
    const fields = ['.spec.a', '.spec.o', '.spec.a', 'x', '.spec[0]', '', '.metadata.name'].map((jsonPath) => ({ jsonPath }));
    assert.deepEqual(create(crd({ versions: [version('v1', s, { selectableFields: fields })] })), [
      'spec.selectableFields[1].jsonPath: Invalid value: ".spec.o": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.',
      'spec.selectableFields[2].jsonPath: Duplicate value: ".spec.a"',
      'spec.selectableFields[3].jsonPath: Invalid value: "x": is an invalid path: expected [ or . but got: x',
      'spec.selectableFields[4].jsonPath: Invalid value: ".spec[0]": is an invalid path: array notation is not allowed',
      'spec.selectableFields[5].jsonPath: Required value',
      'spec.selectableFields[6].jsonPath: Invalid value: ".metadata.name": is an invalid path: does not refer to a valid field',
    ]);
  });

  test('conversion: strategy, webhook client config, review versions (the webhookconfig cases)', () => {
    const hook = (webhook: Obj): Crd => crd({ conversion: { strategy: 'Webhook', webhook } });
    assert.deepEqual(create(crd({ conversion: { strategy: 'Webhook' } })), [
      'spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook',
      'spec.conversion.conversionReviewVersions: Required value',
    ]);
    assert.deepEqual(create(hook({ clientConfig: { url: 'https://a', service: { name: 'a', namespace: 'b' } }, conversionReviewVersions: ['v1', 'v1'] })), [
      'spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required',
      'spec.conversion.conversionReviewVersions[1]: Invalid value: "v1": duplicate version',
    ]);
    assert.deepEqual(create(hook({ clientConfig: { service: { name: 'a', namespace: 'b', port: 0 } }, conversionReviewVersions: ['x', '1'] })), [
      'spec.conversion.webhookClientConfig.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive',
      `spec.conversion.conversionReviewVersions[1]: Invalid value: "1": ${DNS1035}`,
      'spec.conversion.conversionReviewVersions: Invalid value: []string{"x", "1"}: must include at least one of v1, v1beta1',
    ]);
    assert.deepEqual(create(hook({ clientConfig: { url: 'http://u@/b?x#f' }, conversionReviewVersions: ['v1'] })), [
      "spec.conversion.webhookClientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
      'spec.conversion.webhookClientConfig.url: Invalid value: "": host must be specified; desired format: https://host[/path]',
      'spec.conversion.webhookClientConfig.url: Invalid value: "u": user information is not permitted in the URL',
      'spec.conversion.webhookClientConfig.url: Invalid value: "f": fragments are not permitted in the URL',
      'spec.conversion.webhookClientConfig.url: Invalid value: "x": query parameters are not permitted in the URL',
    ]);
    assert.deepEqual(create(crd({ conversion: { strategy: 'None', webhook: { clientConfig: { url: 'https://a' }, conversionReviewVersions: ['v1'] } } })), [
      'spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook',
      'spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook',
    ]);
    assert.deepEqual(create(crd({ conversion: { strategy: 'Foo' } })), ['spec.conversion.strategy: Unsupported value: "Foo": supported values: "None", "Webhook"']);
    assert.deepEqual(create(hook({ clientConfig: { service: { name: 'a', namespace: 'b', path: '/convert' } }, conversionReviewVersions: ['v1beta1'] })), []);
  });

  test('preserveUnknownFields and the API approval of protected groups', () => {
    const defaulted = { type: 'object', properties: { a: { type: 'string', default: 'x' } } };
    assert.deepEqual(create(crd({ preserveUnknownFields: true, versions: [version('v1', defaulted)] })), [
      'spec.preserveUnknownFields: Invalid value: true: must be false in order to use defaults in the schema',
      'spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
    ]);
    const k8s = (annotations?: Record<string, string>): Crd => crd({ group: 'x.k8s.io', names: { plural: 'foos', kind: 'Foo' } }, { name: 'foos.x.k8s.io', ...(annotations ? { annotations } : {}) });
    assert.deepEqual(create(k8s()), [
      'metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
    ]);
    assert.deepEqual(create(k8s({ 'api-approved.kubernetes.io': 'yes' })), [
      'metadata.annotations[api-approved.kubernetes.io]: Invalid value: "yes": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111',
    ]);
    assert.deepEqual(create(k8s({ 'api-approved.kubernetes.io': 'https://github.com/kubernetes/kubernetes/pull/78458' })), []);
    assert.deepEqual(create(k8s({ 'api-approved.kubernetes.io': 'unapproved, experimental' })), []);
  });

  test('TestValidateCustomResourceDefinitionStoredVersions', () => {
    const versions = (names: string[], storage: string): Obj[] => names.map((name) => ({ name, storage: name === storage }));
    const check = (names: string[], stored: string[] | undefined): string[] => msgs(validateStoredVersions(stored, versions(names, 'v1')));
    assert.deepEqual(check(['v1'], ['v1']), []);
    assert.deepEqual(check(['v1'], []), ['status.storedVersions: Invalid value: []string{}: must have at least one stored version']);
    assert.deepEqual(check(['v1alpha', 'v1beta1', 'v1'], ['v1alpha', 'v1']), []);
    assert.deepEqual(check(['v1beta1', 'v1'], ['v1alpha', 'v1beta1', 'v1']), [
      'status.storedVersions[0]: Invalid value: "v1alpha": missing from spec.versions; v1alpha was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1alpha and removes v1alpha from status.storedVersions',
    ]);
    assert.deepEqual(check(['v1alpha', 'v1beta1', 'v1'], ['v1alpha', 'v1beta1']), ['status.storedVersions: Invalid value: []string{"v1alpha", "v1beta1"}: must have the storage version v1']);
  });
});

describe('updates', () => {
  /** The stored object and an update of it through the strategy (prepare, then validate). */
  function update(change: (c: Crd) => void, established = false): string[] {
    const old = crd();
    strategy.defaults(old);
    strategy.prepareForCreate(old, 0);
    if (established) old.status = { ...old.status, conditions: [{ type: 'Established', status: 'True' }] };
    const obj = structuredClone(old);
    change(obj);
    strategy.defaults(obj);
    strategy.prepareForUpdate(obj, structuredClone(old));
    return msgs(strategy.validateUpdate(obj, old));
  }

  test('group and names.plural are immutable; scope and names.kind once Established', () => {
    assert.deepEqual(
      update((c) => {
        c.spec.group = 'other.example.com';
        c.spec.names.plural = 'tabs';
      }),
      ['spec.group: Invalid value: "other.example.com": field is immutable', 'spec.names.plural: Invalid value: "tabs": field is immutable'],
    );
    const rescope = (c: Crd): void => {
      c.spec.scope = 'Cluster';
      c.spec.names = { ...c.spec.names, kind: 'Tab', listKind: 'TabList' };
    };
    assert.deepEqual(update(rescope), []);
    assert.deepEqual(update(rescope, true), ['spec.scope: Invalid value: "Cluster": field is immutable', 'spec.names.kind: Invalid value: "Tab": field is immutable']);
  });

  test('a version once stored must stay in spec.versions until storedVersions drops it', () => {
    const v2 = { ...v1, name: 'v2' };
    assert.deepEqual(
      update((c) => {
        c.spec.versions = [{ ...v1, storage: false }, v2];
      }),
      [],
    );
    assert.deepEqual(
      update((c) => {
        c.spec.versions = [v2];
      }),
      [
        'status.storedVersions[0]: Invalid value: "v1": missing from spec.versions; v1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1 and removes v1 from status.storedVersions',
      ],
    );
  });

  test('an unchanged approval state is not re-checked; preserveUnknownFields may not become true', () => {
    assert.deepEqual(
      update((c) => {
        c.spec.preserveUnknownFields = true;
      }),
      ['spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'],
    );
    const old = crd({ group: 'x.k8s.io', names: { plural: 'foos', kind: 'Foo' } }, { name: 'foos.x.k8s.io' });
    strategy.defaults(old);
    strategy.prepareForCreate(old, 0);
    const obj = structuredClone(old);
    obj.spec.names.shortNames = ['fo'];
    assert.deepEqual(msgs(strategy.validateUpdate(obj, old)), []);
    obj.metadata = { ...obj.metadata, annotations: { 'api-approved.kubernetes.io': 'no' } };
    assert.equal(msgs(strategy.validateUpdate(obj, old)).length, 1);
  });
});

test('the table row: NAME CREATED AT (upstream\'s default table convertor)', () => {
  const obj = crd({}, { creationTimestamp: '2025-01-01T00:00:00Z' });
  assert.deepEqual(strategy.table.columns.map((c) => [c.name, c.type, c.format]), [
    ['Name', 'string', 'name'],
    ['Created At', 'date', ''],
  ]);
  assert.deepEqual(strategy.table.row(obj, Date.parse('2025-01-02T00:00:00Z')).cells, ['crontabs.stable.example.com', '2025-01-01T00:00:00Z']);
  assert.deepEqual(strategy.table.row(crd(), 0).cells, ['crontabs.stable.example.com', '0001-01-01T00:00:00Z']);
});
