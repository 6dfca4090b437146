/**
 * Status bodies byte for byte as upstream's API server writes them (Go's encoding/json over
 * metav1.Status: fields in declaration order, omitempty fields left out). Clients such as the
 * python client's e2e compare error bodies as text.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newAlreadyExists, newInvalid, newNotFound, newTooManyRequests, field, statusDetails, fieldErrorString, GoSyntax, goPointer, goStringSlice } from './index.js';

test('a core 404 has no details.group, and details comes before code', () => {
  assert.equal(
    JSON.stringify(newNotFound({ group: '', resource: 'pods' }, 'p').status),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \\"p\\" not found","reason":"NotFound","details":{"name":"p","kind":"pods"},"code":404}',
  );
});

test('a grouped 409 names the group', () => {
  assert.equal(
    JSON.stringify(newAlreadyExists({ group: 'apps', resource: 'deployments' }, 'web').status),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \\"web\\" already exists","reason":"AlreadyExists","details":{"name":"web","group":"apps","kind":"deployments"},"code":409}',
  );
});

test('a core 422 lists its causes after the kind', () => {
  const err = newInvalid({ group: '', kind: 'Pod' }, 'p', [field.required('spec.containers')]);
  assert.equal(
    JSON.stringify(err.status),
    '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Pod \\"p\\" is invalid: spec.containers: Required value","reason":"Invalid","details":{"name":"p","kind":"Pod","causes":[{"reason":"FieldValueRequired","message":"Required value","field":"spec.containers"}]},"code":422}',
  );
});

test('a 422 message names each distinct error once, as ErrorList.ToAggregate; the causes keep every one', () => {
  const dup = field.required('rules[0].verbs', 'verbs must contain at least one value');
  const err = newInvalid({ group: 'rbac.authorization.k8s.io', kind: 'ClusterRole' }, 'r', [dup, dup]);
  assert.equal(err.status.message, 'ClusterRole.rbac.authorization.k8s.io "r" is invalid: rules[0].verbs: Required value: verbs must contain at least one value');
  assert.equal(err.status.details?.causes?.length, 2);
});

test('Go-syntax bad values print as %#v does: structs, string slices and pointers', () => {
  const ref = new GoSyntax('rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"x"}');
  assert.equal(fieldErrorString(field.invalid('roleRef', ref, 'cannot change roleRef')), 'roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"x"}: cannot change roleRef');
  assert.equal(fieldErrorString(field.invalid('p', goStringSlice(['/a', 'b"c']), 'd')), 'p: Invalid value: []string{"/a", "b\\"c"}: d');
  assert.equal(`${goPointer('intstr.IntOrString', true)} ${goPointer('v1.LabelSelector', false)}`, '(*intstr.IntOrString)(…) (*v1.LabelSelector)(nil)');
});

test('details keep a non-nil empty StatusDetails as {} (429 without retry-after)', () => {
  assert.equal(JSON.stringify(newTooManyRequests('slow down', 0).status.details), '{}');
  assert.deepEqual(statusDetails({ name: '', group: '', kind: 'pods', uid: '', causes: [] }), { kind: 'pods' });
});

test('bad values Go prints with %#v: []string slices, nil and empty', () => {
  assert.equal(goStringSlice(['v1', 'a"b']).text, '[]string{"v1", "a\\"b"}');
  assert.equal(goStringSlice([]).text, '[]string{}');
  assert.equal(goStringSlice(undefined).text, '[]string(nil)');
  const e = field.invalid('status.storedVersions', goStringSlice(['v1']), 'must have the storage version v2');
  assert.equal(fieldErrorString(e), 'status.storedVersions: Invalid value: []string{"v1"}: must have the storage version v2');
});

test("slices are printed as Go's %#v prints them", () => {
  assert.equal(fieldErrorString(field.invalid('verbs', goStringSlice(['*', 'get']), 'x')), 'verbs: Invalid value: []string{"*", "get"}: x');
  assert.equal(fieldErrorString(field.invalid('ops', goStringSlice(['a\n'], '[]admissionregistration.OperationType'), 'y')), 'ops: Invalid value: []admissionregistration.OperationType{"a\\n"}: y');
});
