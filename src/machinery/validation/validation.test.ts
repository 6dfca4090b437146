import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString, type FieldError } from '../errors/index.js';
import {
  isDNS1035Label,
  isFullyQualifiedName,
  validateConditions,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  validateAnnotations,
  validateLabels,
  validateLabelSelector,
  validateNonnegativeField,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from './index.js';

const strs = (errs: FieldError[]): string[] => errs.map(fieldErrorString);

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('name formats', () => {
  test('isDNS1123Subdomain', () => {
    for (const ok of ['a', 'web', 'web-1', 'a.b.c', '1-2', 'x'.repeat(253)]) assert.deepEqual(isDNS1123Subdomain(ok), [], ok);
    assert.deepEqual(isDNS1123Subdomain('Web'), [SUBDOMAIN_MSG]);
    assert.deepEqual(isDNS1123Subdomain(''), [SUBDOMAIN_MSG]);
    assert.deepEqual(isDNS1123Subdomain('-a'), [SUBDOMAIN_MSG]);
    assert.deepEqual(isDNS1123Subdomain('a..b'), [SUBDOMAIN_MSG]);
    assert.deepEqual(isDNS1123Subdomain('x'.repeat(254)), ['must be no more than 253 characters']);
  });

  test('isDNS1123Label: dots get their own message', () => {
    assert.deepEqual(isDNS1123Label('default'), []);
    assert.deepEqual(isDNS1123Label('kube-system'), []);
    assert.deepEqual(isDNS1123Label('a.b'), ['must not contain dots']);
    assert.deepEqual(isDNS1123Label('A'), [LABEL_MSG]);
    assert.deepEqual(isDNS1123Label('a'.repeat(64)), ['must be no more than 63 characters']);
  });

  test('isDNS1035Label: starts with a letter (validation_test.go TestIsDNS1035Label)', () => {
    const msg =
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
    for (const ok of ['a', 'ab', 'a-1', 'v1beta1', 'a'.repeat(63)]) assert.deepEqual(isDNS1035Label(ok), [], ok);
    for (const bad of ['', '1a', 'a-', 'A', 'a.b', 'a_b']) assert.deepEqual(isDNS1035Label(bad), [msg], bad);
    assert.deepEqual(isDNS1035Label('a'.repeat(64)), ['must be no more than 63 characters']);
  });

  test('isQualifiedName', () => {
    for (const ok of ['app', 'App_1.x', 'example.com/MyName', 'kubernetes.io/hostname', 'a/b']) {
      assert.deepEqual(isQualifiedName(ok), [], ok);
    }
    assert.deepEqual(isQualifiedName(''), ['name part must be non-empty', NAME_PART_MSG]);
    assert.deepEqual(isQualifiedName('-x'), [NAME_PART_MSG]);
    assert.deepEqual(isQualifiedName('/x'), ['prefix part must be non-empty']);
    assert.deepEqual(isQualifiedName('Example.com/x'), [`prefix part ${SUBDOMAIN_MSG}`]);
    assert.deepEqual(isQualifiedName('a'.repeat(64)), ['name part must be no more than 63 characters']);
    assert.deepEqual(isQualifiedName('a/b/c'), [
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ]);
  });

  test('isValidLabelValue', () => {
    assert.deepEqual(isValidLabelValue(''), []);
    assert.deepEqual(isValidLabelValue('v1.2_3-x'), []);
    assert.deepEqual(isValidLabelValue('a b'), [LABEL_VALUE_MSG]);
    assert.deepEqual(isValidLabelValue('x'.repeat(64)), ['must be no more than 63 characters']);
    // Length counts UTF-8 bytes, as Go's len().
    assert.deepEqual(isValidLabelValue('é'.repeat(32)), ['must be no more than 63 characters', LABEL_VALUE_MSG]);
  });
});

describe('labels and annotations', () => {
  test('validateLabels reports keys and values at the map path', () => {
    assert.deepEqual(validateLabels(undefined, 'metadata.labels'), []);
    assert.deepEqual(strs(validateLabels({ 'a b': 'ok', app: 'no way' }, 'metadata.labels')), [
      `metadata.labels: Invalid value: "a b": ${NAME_PART_MSG}`,
      `metadata.labels: Invalid value: "no way": ${LABEL_VALUE_MSG}`,
    ]);
  });

  test('validateAnnotations: keys case-insensitive, 256 KiB total', () => {
    assert.deepEqual(validateAnnotations({ 'Example.COM/Key': 'any value at all ✓' }, 'metadata.annotations'), []);
    assert.deepEqual(strs(validateAnnotations({ 'bad key': '' }, 'metadata.annotations')), [
      `metadata.annotations: Invalid value: "bad key": ${NAME_PART_MSG}`,
    ]);
    assert.deepEqual(validateAnnotations({ a: 'x'.repeat(256 * 1024 - 1) }, 'm'), []);
    assert.deepEqual(strs(validateAnnotations({ a: 'x'.repeat(256 * 1024) }, 'metadata.annotations')), [
      'metadata.annotations: Too long: may not be more than 262144 bytes',
    ]);
  });

  test('validateNonnegativeField', () => {
    assert.deepEqual(validateNonnegativeField(0, 'spec.replicas'), []);
    assert.deepEqual(strs(validateNonnegativeField(-1, 'spec.replicas')), ['spec.replicas: Invalid value: -1: must be greater than or equal to 0']);
  });
});

describe('validateObjectMeta', () => {
  test('valid namespaced object', () => {
    assert.deepEqual(validateObjectMeta({ name: 'web', namespace: 'default', labels: { app: 'web' } }, { namespaced: true }), []);
  });

  test('name or generateName is required', () => {
    assert.deepEqual(strs(validateObjectMeta({ namespace: 'default' }, { namespaced: true })), [
      'metadata.name: Required value: name or generateName is required',
    ]);
    assert.deepEqual(validateObjectMeta({ generateName: 'web-', namespace: 'default' }, { namespaced: true }), []);
    assert.deepEqual(strs(validateObjectMeta(undefined, { namespaced: false })), [
      'metadata.name: Required value: name or generateName is required',
    ]);
  });

  test('generateName is validated with its trailing dash masked', () => {
    assert.deepEqual(strs(validateObjectMeta({ generateName: 'Web-' }, { namespaced: false })), [
      `metadata.generateName: Invalid value: "Web-": ${SUBDOMAIN_MSG}`,
    ]);
  });

  test('name format, custom validator, path prefix', () => {
    assert.deepEqual(strs(validateObjectMeta({ name: 'Web', namespace: 'default' }, { namespaced: true })), [
      `metadata.name: Invalid value: "Web": ${SUBDOMAIN_MSG}`,
    ]);
    const errs = validateObjectMeta({ name: 'a.b' }, { namespaced: false, nameValidator: isDNS1123Label }, 'spec.template.metadata');
    assert.deepEqual(strs(errs), ['spec.template.metadata.name: Invalid value: "a.b": must not contain dots']);
  });

  test('namespace required, validated, or forbidden', () => {
    assert.deepEqual(strs(validateObjectMeta({ name: 'x' }, { namespaced: true })), ['metadata.namespace: Required value']);
    assert.deepEqual(strs(validateObjectMeta({ name: 'x', namespace: 'a.b' }, { namespaced: true })), [
      'metadata.namespace: Invalid value: "a.b": must not contain dots',
    ]);
    assert.deepEqual(strs(validateObjectMeta({ name: 'n1', namespace: 'default' }, { namespaced: false })), [
      'metadata.namespace: Forbidden: not allowed on this type',
    ]);
  });

  test('generation, labels, annotations and finalizers are checked', () => {
    const errs = validateObjectMeta(
      { name: 'x', generation: -1, labels: { 'a/b/c': 'v' }, annotations: { '-': '' }, finalizers: ['orphan', 'foregroundDeletion', 'bad/'] },
      { namespaced: false },
    );
    assert.deepEqual(
      errs.map((e) => e.field),
      // 'bad/' has an empty name part (two messages), then the orphan/foreground conflict.
      ['metadata.generation', 'metadata.labels', 'metadata.annotations', 'metadata.finalizers', 'metadata.finalizers', 'metadata.finalizers'],
    );
    assert.equal(errs.at(-1)?.detail, 'finalizer orphan and foregroundDeletion cannot be both set');
  });

  test('ownerReferences: required parts, banned Event owner, one controller', () => {
    const errs = validateObjectMeta(
      {
        name: 'x',
        namespace: 'ns',
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'a', uid: '1', controller: true },
          { apiVersion: '', kind: '', name: '', uid: '' },
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'b', uid: '2', controller: true },
          { apiVersion: 'v1', kind: 'Event', name: 'e', uid: '3' },
        ],
      },
      { namespaced: true },
    );
    assert.deepEqual(
      errs.map((e) => `${e.field}: ${e.detail}`),
      [
        'metadata.ownerReferences.apiVersion: version must not be empty',
        'metadata.ownerReferences.kind: must not be empty',
        'metadata.ownerReferences.name: must not be empty',
        'metadata.ownerReferences.uid: must not be empty',
        'metadata.ownerReferences: Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/a and ReplicaSet/b',
        'metadata.ownerReferences: /v1, Kind=Event is disallowed from being an owner',
      ],
    );
  });

  test('managedFields operation and fieldsType', () => {
    const errs = validateObjectMeta(
      { name: 'x', managedFields: [{ manager: 'm', operation: 'Patch', fieldsType: 'FieldsV2' }, { manager: 'k', operation: 'Apply' }] },
      { namespaced: false },
    );
    assert.deepEqual(strs(errs), [
      'metadata.managedFields[0].operation: Invalid value: "Patch": must be `Apply` or `Update`',
      'metadata.managedFields[0].fieldsType: Invalid value: "FieldsV2": must be `FieldsV1`',
    ]);
  });
});

describe('validateObjectMetaUpdate', () => {
  const old = {
    name: 'a',
    namespace: 'ns',
    uid: 'u1',
    creationTimestamp: '2025-01-01T00:00:00Z',
    resourceVersion: '5',
    generation: 2,
  };

  test('unchanged identity is valid', () => {
    assert.deepEqual(validateObjectMetaUpdate({ ...old, labels: { x: 'y' }, generation: 3 }, old), []);
  });

  test('identity fields are immutable', () => {
    const errs = validateObjectMetaUpdate(
      { ...old, name: 'b', namespace: 'other', uid: 'u2', creationTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 30 },
      old,
    );
    assert.deepEqual(strs(errs), [
      'metadata.name: Invalid value: "b": field is immutable',
      'metadata.namespace: Invalid value: "other": field is immutable',
      'metadata.uid: Invalid value: "u2": field is immutable',
      'metadata.creationTimestamp: Invalid value: "2026-01-01T00:00:00Z": field is immutable',
      'metadata.deletionGracePeriodSeconds: Invalid value: 30: field is immutable',
    ]);
  });

  test('generation may not decrease', () => {
    assert.deepEqual(strs(validateObjectMetaUpdate({ ...old, generation: 1 }, old)), ['metadata.generation: Invalid value: 1: must not be decremented']);
  });

  test('no new finalizers while deleting', () => {
    const deleting = { ...old, deletionTimestamp: '2025-01-02T00:00:00Z', finalizers: ['a'] };
    assert.deepEqual(validateObjectMetaUpdate({ ...deleting, finalizers: [] }, deleting), []);
    assert.deepEqual(strs(validateObjectMetaUpdate({ ...deleting, finalizers: ['a', 'z', 'b'] }, deleting)), [
      'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b", "z"}',
    ]);
    assert.deepEqual(validateObjectMetaUpdate({ ...old, finalizers: ['new'] }, old), []);
  });

  test('labels are validated on update', () => {
    assert.deepEqual(validateObjectMetaUpdate({ ...old, labels: { k: 'bad value' } }, old).map((e) => e.field), ['metadata.labels']);
  });
});

describe('validateLabelSelector', () => {
  test('valid selectors', () => {
    assert.deepEqual(validateLabelSelector(undefined, 'spec.selector'), []);
    assert.deepEqual(
      validateLabelSelector(
        {
          matchLabels: { app: 'web' },
          matchExpressions: [
            { key: 'tier', operator: 'In', values: ['a', 'b'] },
            { key: 'x', operator: 'DoesNotExist' },
          ],
        },
        'spec.selector',
      ),
      [],
    );
  });

  test('operator and values rules, key and value formats', () => {
    const errs = validateLabelSelector(
      {
        matchLabels: { app: 'bad value' },
        matchExpressions: [
          { key: 'a', operator: 'In', values: [] },
          { key: 'b', operator: 'Exists', values: ['x'] },
          { key: 'c', operator: 'Foo' },
          { key: 'bad key', operator: 'NotIn', values: ['ok', 'not ok'] },
        ],
      },
      'spec.selector',
    );
    assert.deepEqual(strs(errs), [
      `spec.selector.matchLabels: Invalid value: "bad value": ${LABEL_VALUE_MSG}`,
      "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      "spec.selector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      'spec.selector.matchExpressions[2].operator: Invalid value: "Foo": not a valid selector operator',
      `spec.selector.matchExpressions[3].key: Invalid value: "bad key": ${NAME_PART_MSG}`,
      `spec.selector.matchExpressions[3].values[1]: Invalid value: "not ok": ${LABEL_VALUE_MSG}`,
    ]);
  });
});

describe('DNS-1035 labels, fully qualified names, metav1 conditions', () => {
  test('IsDNS1035Label starts with a letter', () => {
    assert.deepEqual(isDNS1035Label('v1beta1'), []);
    assert.deepEqual(isDNS1035Label('1v'), [
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ]);
    assert.equal(isDNS1035Label('a'.repeat(64))[0], 'must be no more than 63 characters');
  });

  test('IsFullyQualifiedName needs three segments', () => {
    assert.deepEqual(strs(isFullyQualifiedName('name', 'a.b.c')), []);
    assert.deepEqual(strs(isFullyQualifiedName('name', '')), ['name: Required value']);
    assert.deepEqual(strs(isFullyQualifiedName('name', 'a.b')), ['name: Invalid value: "a.b": should be a domain with at least three segments separated by dots']);
    assert.deepEqual(strs(isFullyQualifiedName('name', 'A.b.c')), [`name: Invalid value: "A.b.c": ${SUBDOMAIN_MSG}`]);
  });

  test('ValidateConditions', () => {
    const ok = { type: 'Ready', status: 'True', lastTransitionTime: '2025-01-01T00:00:00Z', reason: 'AllGood', message: '' };
    assert.deepEqual(strs(validateConditions([ok], 'status.conditions')), []);
    assert.deepEqual(strs(validateConditions([ok, { ...ok, status: 'Maybe', reason: '', lastTransitionTime: '', observedGeneration: -1 }], 'status.conditions')), [
      'status.conditions[1].type: Duplicate value: "Ready"',
      'status.conditions[1].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
      'status.conditions[1].observedGeneration: Invalid value: -1: must be greater than or equal to zero',
      'status.conditions[1].lastTransitionTime: Required value: must be set',
      'status.conditions[1].reason: Required value: must be set',
    ]);
    assert.match(strs(validateConditions([{ ...ok, reason: 'not ok' }], 'c'))[0] ?? '', /^c\[0\]\.reason: Invalid value: "not ok": a condition reason must start with alphabetic character/);
  });
});
