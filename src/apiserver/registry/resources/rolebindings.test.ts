/**
 * RoleBindings and ClusterRoleBindings: defaults (pkg/apis/rbac/v1/defaults.go), the cases of upstream's
 * TestValidateRoleBinding, TestValidateClusterRoleBinding and TestValidateRoleBindingUpdate
 * (pkg/apis/rbac/validation/validation_test.go) with their messages, and the printer cells.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ClusterRoleBinding, RoleBinding, RoleRef, Subject } from '../../../api/index.js';
import { fieldErrorString, type FieldError } from '../../../machinery/errors/index.js';
import { clusterRoleBindingStrategy, defaultBinding, roleBindingStrategy } from './rolebindings.js';

const msgs = (errs: FieldError[]): string[] => errs.map(fieldErrorString);
const RBAC = 'rbac.authorization.k8s.io';
const ref = (kind: string, name = 'valid', apiGroup = RBAC): RoleRef => ({ apiGroup, kind, name });
const rb = (roleRef: RoleRef, subjects?: Subject[]): RoleBinding => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'RoleBinding',
  metadata: { name: 'master', namespace: 'default' },
  roleRef,
  ...(subjects ? { subjects } : {}),
});
const crb = (roleRef: RoleRef, subjects?: Subject[]): ClusterRoleBinding => ({ ...rb(roleRef, subjects), kind: 'ClusterRoleBinding', metadata: { name: 'master' } });
const validateRB = (b: RoleBinding): string[] => msgs(roleBindingStrategy.validate(b as never));
const validateCRB = (b: ClusterRoleBinding): string[] => msgs(clusterRoleBindingStrategy.validate(b as never));

test('defaults: roleRef.apiGroup, and subject apiGroups by kind', () => {
  const b = rb({ apiGroup: '', kind: 'Role', name: 'r' }, [
    { kind: 'User', name: 'u' },
    { kind: 'Group', name: 'g' },
    { kind: 'ServiceAccount', name: 'sa' },
    { kind: 'User', name: 'v', apiGroup: 'other' },
  ]);
  defaultBinding(b);
  assert.equal(b.roleRef.apiGroup, RBAC);
  assert.deepEqual(
    b.subjects?.map((s) => s.apiGroup),
    [RBAC, RBAC, undefined, 'other'],
  );
  // "" is Go's omitempty zero: the ServiceAccount subject has no apiGroup key at all.
  assert.equal('apiGroup' in (b.subjects?.[2] ?? {}), false);
});

test('valid bindings (upstream success cases)', () => {
  const subjects = [
    { name: 'validsaname', kind: 'ServiceAccount', namespace: 'foo' },
    { name: 'valid@username', kind: 'User', apiGroup: RBAC },
    { name: 'valid@groupname', kind: 'Group', apiGroup: RBAC },
  ];
  assert.deepEqual(validateRB(rb(ref('Role'), subjects)), []);
  assert.deepEqual(validateRB(rb(ref('ClusterRole'), [{ name: 'sa', kind: 'ServiceAccount' }])), [], 'a RoleBinding subject needs no namespace');
  assert.deepEqual(validateCRB(crb(ref('ClusterRole'), subjects)), []);
});

test('roleRef: the RBAC group, Role or ClusterRole (a ClusterRoleBinding: only ClusterRole), a name', () => {
  assert.deepEqual(validateRB(rb(ref('ClusterRole', 'valid', 'rbac.GroupName'))), ['roleRef.apiGroup: Unsupported value: "rbac.GroupName": supported values: "rbac.authorization.k8s.io"']);
  assert.deepEqual(validateRB(rb(ref('Type'))), ['roleRef.kind: Unsupported value: "Type": supported values: "Role", "ClusterRole"']);
  assert.deepEqual(validateCRB(crb(ref('Role'))), ['roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"']);
  assert.deepEqual(validateCRB(crb(ref('ClusterRole', ''))), ['roleRef.name: Required value']);
  assert.deepEqual(validateRB(rb(ref('Role', 'a/b'))), [`roleRef.name: Invalid value: "a/b": may not contain '/'`]);
});

test('subjects: kind, name, service account name and namespace, apiGroup', () => {
  assert.deepEqual(validateCRB(crb(ref('ClusterRole'), [{ name: 'subject', kind: '' }])), ['subjects[0].kind: Unsupported value: "": supported values: "ServiceAccount", "User", "Group"']);
  assert.deepEqual(validateCRB(crb(ref('ClusterRole'), [{ namespace: 'foo', name: 'subject:bad', kind: 'ServiceAccount' }])), [
    `subjects[0].name: Invalid value: "subject:bad": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
  ]);
  assert.deepEqual(validateCRB(crb(ref('ClusterRole'), [{ name: 'good', kind: 'ServiceAccount' }])), ['subjects[0].namespace: Required value']);
  assert.deepEqual(validateRB(rb(ref('Role'), [{ name: '', kind: 'ServiceAccount' }])), ['subjects[0].name: Required value']);
  assert.deepEqual(validateRB(rb(ref('Role'), [{ name: 'sa', kind: 'ServiceAccount', apiGroup: RBAC }])), ['subjects[0].apiGroup: Unsupported value: "rbac.authorization.k8s.io": supported values: ""']);
  assert.deepEqual(validateRB(rb(ref('Role'), [{ name: 'u', kind: 'User', apiGroup: '' }])), ['subjects[0].apiGroup: Unsupported value: "": supported values: "rbac.authorization.k8s.io"']);
  assert.deepEqual(validateRB(rb(ref('Role'), [{ name: '', kind: 'Group', apiGroup: RBAC }])), ['subjects[0].name: Required value']);
});

test('roleRef cannot change on update (upstream changedRef), with the Go value upstream prints', () => {
  const old = rb(ref('Role'));
  assert.deepEqual(msgs(roleBindingStrategy.validateUpdate(rb(ref('Role')) as never, old as never)), []);
  assert.deepEqual(msgs(roleBindingStrategy.validateUpdate(rb(ref('Role', 'changed')) as never, old as never)), [
    'roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"changed"}: cannot change roleRef',
  ]);
  assert.deepEqual(msgs(clusterRoleBindingStrategy.validateUpdate(crb(ref('ClusterRole', 'x')) as never, crb(ref('ClusterRole')) as never)), [
    'roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"x"}: cannot change roleRef',
  ]);
});

test('printers: NAME ROLE AGE, wide USERS GROUPS SERVICEACCOUNTS', () => {
  const b = rb(ref('ClusterRole', 'view'), [
    { kind: 'User', name: 'alice' },
    { kind: 'User', name: 'bob' },
    { kind: 'Group', name: 'devs' },
    { kind: 'ServiceAccount', name: 'sa', namespace: 'ns' },
  ]);
  b.metadata = { ...b.metadata, creationTimestamp: '2025-01-01T00:00:00Z' };
  assert.deepEqual(roleBindingStrategy.table.row(b as never, Date.parse('2025-01-01T00:00:05Z')).cells, ['master', 'ClusterRole/view', '5s', 'alice, bob', 'devs', 'ns/sa']);
  assert.deepEqual(
    clusterRoleBindingStrategy.table.columns.map((c) => `${c.name}:${c.priority}`),
    ['Name:0', 'Role:0', 'Age:0', 'Users:1', 'Groups:1', 'ServiceAccounts:1'],
  );
  assert.equal(clusterRoleBindingStrategy.table.columns[3]?.description, 'Users in the clusterRoleBinding');
});
