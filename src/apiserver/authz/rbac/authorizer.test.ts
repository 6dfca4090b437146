/**
 * The RBAC authorizer. TestAuthorizer is ported from upstream plugin/pkg/auth/authorizer/rbac/rbac_test.go
 * (4 cases: 20 requests that pass, 14 that fail); the rest pins rbac.go's reasons and RulesFor.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, Subject } from '../../../api/index.js';
import type { RequestUser } from '../../../api/request.js';
import type { Attributes } from '../types.js';
import { RBACAuthorizer } from './authorizer.js';
import { staticRBACGetters } from './rule-resolver.js';

/** rbac_test.go newRule: each argument split on ','. */
const newRule = (verbs: string, apiGroups: string, resources: string, nonResourceURLs: string): PolicyRule => ({
  verbs: verbs.split(','),
  apiGroups: apiGroups.split(','),
  resources: resources.split(','),
  nonResourceURLs: nonResourceURLs.split(','),
});
const newClusterRole = (name: string, ...rules: PolicyRule[]): ClusterRole => ({ metadata: { name }, rules });
/** `Kind:name` subjects; User and Group in the RBAC group, ServiceAccount in ''. */
const subjectsOf = (subjects: string[]): Subject[] =>
  subjects.map((s) => {
    const i = s.indexOf(':');
    const kind = s.slice(0, i);
    return { kind, name: s.slice(i + 1), apiGroup: kind === 'ServiceAccount' ? '' : 'rbac.authorization.k8s.io' };
  });
const newClusterRoleBinding = (roleName: string, ...subjects: string[]): ClusterRoleBinding => ({
  metadata: {},
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
  subjects: subjectsOf(subjects),
});
const newRoleBinding = (namespace: string, roleName: string, kind: 'Role' | 'ClusterRole', ...subjects: string[]): RoleBinding => ({
  metadata: { namespace },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: roleName },
  subjects: subjectsOf(subjects),
});

const base: Attributes = { user: undefined, verb: '', resourceRequest: true, path: '', namespace: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '' };
/** rbac_test.go defaultAttributes{user, groups, verb, resource, subresource, namespace, apiGroup}: groups split on ','. */
const attrs = (user: string, groups: string, verb: string, resource: string, subresource: string, namespace: string, apiGroup: string): Attributes => ({
  ...base,
  user: { username: user, groups: groups.split(',') },
  verb,
  resource,
  subresource,
  namespace,
  apiGroup,
});
/** authorizer.AttributesRecord{User, Verb, Path}: a non-resource request. */
const path = (user: Partial<RequestUser>, verb: string, p: string): Attributes => ({ ...base, resourceRequest: false, user: { username: user.username ?? '', groups: user.groups ?? [] }, verb, path: p });

interface Case {
  roles?: Role[];
  roleBindings?: RoleBinding[];
  clusterRoles?: ClusterRole[];
  clusterRoleBindings?: ClusterRoleBinding[];
  shouldPass: Attributes[];
  shouldFail: Attributes[];
}

// rbac_test.go TestAuthorizer.
const cases: Case[] = [
  {
    clusterRoles: [newClusterRole('admin', newRule('*', '*', '*', '*'))],
    roleBindings: [newRoleBinding('ns1', 'admin', 'ClusterRole', 'User:admin', 'Group:admins')],
    shouldPass: [
      attrs('admin', '', 'get', 'Pods', '', 'ns1', ''),
      attrs('admin', '', 'watch', 'Pods', '', 'ns1', ''),
      attrs('admin', 'group1', 'watch', 'Foobar', '', 'ns1', ''),
      attrs('joe', 'admins', 'watch', 'Foobar', '', 'ns1', ''),
      attrs('joe', 'group1,admins', 'watch', 'Foobar', '', 'ns1', ''),
    ],
    shouldFail: [
      attrs('admin', '', 'GET', 'Pods', '', 'ns2', ''),
      attrs('admin', '', 'GET', 'Nodes', '', '', ''),
      attrs('admin', 'admins', 'GET', 'Pods', '', 'ns2', ''),
      attrs('admin', 'admins', 'GET', 'Nodes', '', '', ''),
    ],
  },
  {
    // Non-resource-url tests
    clusterRoles: [
      newClusterRole('non-resource-url-getter', newRule('get', '', '', '/apis')),
      newClusterRole('non-resource-url', newRule('*', '', '', '/apis')),
      newClusterRole('non-resource-url-prefix', newRule('get', '', '', '/apis/*')),
    ],
    clusterRoleBindings: [
      newClusterRoleBinding('non-resource-url-getter', 'User:foo', 'Group:bar'),
      newClusterRoleBinding('non-resource-url', 'User:admin', 'Group:admin'),
      newClusterRoleBinding('non-resource-url-prefix', 'User:prefixed', 'Group:prefixed'),
    ],
    shouldPass: [
      path({ username: 'foo' }, 'get', '/apis'),
      path({ groups: ['bar'] }, 'get', '/apis'),
      path({ username: 'admin' }, 'get', '/apis'),
      path({ groups: ['admin'] }, 'get', '/apis'),
      path({ username: 'admin' }, 'watch', '/apis'),
      path({ groups: ['admin'] }, 'watch', '/apis'),

      path({ username: 'prefixed' }, 'get', '/apis/v1'),
      path({ groups: ['prefixed'] }, 'get', '/apis/v1'),
      path({ username: 'prefixed' }, 'get', '/apis/v1/foobar'),
      path({ groups: ['prefixed'] }, 'get', '/apis/v1/foorbar'),
    ],
    shouldFail: [
      // wrong verb
      path({ username: 'foo' }, 'watch', '/apis'),
      path({ groups: ['bar'] }, 'watch', '/apis'),

      // wrong path
      path({ username: 'foo' }, 'get', '/api/v1'),
      path({ groups: ['bar'] }, 'get', '/api/v1'),
      path({ username: 'admin' }, 'get', '/api/v1'),
      path({ groups: ['admin'] }, 'get', '/api/v1'),

      // not covered by prefix
      path({ username: 'prefixed' }, 'get', '/api/v1'),
      path({ groups: ['prefixed'] }, 'get', '/api/v1'),
    ],
  },
  {
    // test subresource resolution
    clusterRoles: [newClusterRole('admin', newRule('*', '*', 'pods', '*'))],
    roleBindings: [newRoleBinding('ns1', 'admin', 'ClusterRole', 'User:admin', 'Group:admins')],
    shouldPass: [attrs('admin', '', 'get', 'pods', '', 'ns1', '')],
    shouldFail: [attrs('admin', '', 'get', 'pods', 'status', 'ns1', '')],
  },
  {
    // test subresource resolution
    clusterRoles: [newClusterRole('admin', newRule('*', '*', 'pods/status', '*'), newRule('*', '*', '*/scale', '*'))],
    roleBindings: [newRoleBinding('ns1', 'admin', 'ClusterRole', 'User:admin', 'Group:admins')],
    shouldPass: [
      attrs('admin', '', 'get', 'pods', 'status', 'ns1', ''),
      attrs('admin', '', 'get', 'pods', 'scale', 'ns1', ''),
      attrs('admin', '', 'get', 'deployments', 'scale', 'ns1', ''),
      attrs('admin', '', 'get', 'anything', 'scale', 'ns1', ''),
    ],
    shouldFail: [attrs('admin', '', 'get', 'pods', '', 'ns1', '')],
  },
];

describe('RBACAuthorizer.authorize (upstream rbac_test.go TestAuthorizer)', () => {
  cases.forEach((c, i) => {
    it(`case ${i}`, () => {
      const a = new RBACAuthorizer(staticRBACGetters(c));
      for (const attr of c.shouldPass) assert.equal(a.authorize(attr).decision, 'Allow', `case ${i}: incorrectly restricted ${JSON.stringify(attr)}`);
      for (const attr of c.shouldFail) assert.notEqual(a.authorize(attr).decision, 'Allow', `case ${i}: incorrectly passed ${JSON.stringify(attr)}`);
    });
  });
});

describe('reasons and RulesFor (rbac.go)', () => {
  const getters = staticRBACGetters({
    roles: [{ metadata: { namespace: 'ns1', name: 'edit' }, rules: [{ verbs: ['update'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['web'] }] }],
    clusterRoles: [
      newClusterRole('admin', { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }),
      newClusterRole('metrics', { verbs: ['get'], nonResourceURLs: ['/metrics'] }, { verbs: ['get'], apiGroups: [''], resources: ['nodes'], nonResourceURLs: ['/healthz'] }),
    ],
    clusterRoleBindings: [
      { metadata: { name: 'admins' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' }, subjects: [{ kind: 'Group', name: 'admins' }] },
      { metadata: { name: 'scrapers' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'metrics' }, subjects: [{ kind: 'User', name: 'prom' }] },
      { metadata: { name: 'broken' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'missing' }, subjects: [{ kind: 'User', name: 'prom' }] },
    ],
    roleBindings: [
      { metadata: { namespace: 'ns1', name: 'editors' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'edit' }, subjects: [{ kind: 'ServiceAccount', name: 'builder' }] },
      { metadata: { namespace: 'ns1', name: 'gone' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'gone' }, subjects: [{ kind: 'User', name: 'prom' }] },
    ],
  });
  const a = new RBACAuthorizer(getters);
  const req = (user: RequestUser, extra: Partial<Attributes>): Attributes => ({ ...base, user, ...extra });

  it('an Allow names the binding, the role and the subject', () => {
    assert.deepEqual(a.authorize(req({ username: 'root', groups: ['admins'] }, { verb: 'delete', resource: 'nodes' })), {
      decision: 'Allow',
      reason: 'RBAC: allowed by ClusterRoleBinding "admins" of ClusterRole "admin" to Group "admins"',
    });
    assert.deepEqual(a.authorize(req({ username: 'system:serviceaccount:ns1:builder', groups: [] }, { verb: 'update', apiGroup: 'apps', resource: 'deployments', name: 'web', namespace: 'ns1' })), {
      decision: 'Allow',
      reason: 'RBAC: allowed by RoleBinding "editors/ns1" of Role "edit" to ServiceAccount "builder/ns1"',
    });
  });

  it("no opinion: reason '' without errors; `RBAC: ` and the resolution errors met, aggregated", () => {
    assert.deepEqual(a.authorize(req({ username: 'nobody', groups: [] }, { verb: 'get', resource: 'pods' })), { decision: 'NoOpinion', reason: '' });
    assert.deepEqual(a.authorize(req({ username: 'prom', groups: [] }, { verb: 'get', resource: 'pods' })), {
      decision: 'NoOpinion',
      reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "missing" not found',
    });
    assert.deepEqual(a.authorize(req({ username: 'prom', groups: [] }, { verb: 'get', resource: 'pods', namespace: 'ns1' })), {
      decision: 'NoOpinion',
      reason: 'RBAC: [clusterrole.rbac.authorization.k8s.io "missing" not found, role.rbac.authorization.k8s.io "gone" not found]',
    });
    // The errors met after the rule that allows are not looked at.
    assert.equal(a.authorize(req({ username: 'prom', groups: [] }, { resourceRequest: false, verb: 'get', path: '/metrics', namespace: 'ns1' })).decision, 'Allow');
    // No user: nothing applies.
    assert.deepEqual(a.authorize({ ...base, verb: 'get', resource: 'pods' }), { decision: 'NoOpinion', reason: '' });
  });

  it('rulesFor: resource and non-resource rules (a mixed rule gives one of each), the errors as one message, never incomplete', () => {
    assert.deepEqual(a.rulesFor({ username: 'prom', groups: [] }, 'ns1'), {
      resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['nodes'], resourceNames: [] }],
      nonResourceRules: [
        { verbs: ['get'], nonResourceURLs: ['/metrics'] },
        { verbs: ['get'], nonResourceURLs: ['/healthz'] },
      ],
      incomplete: false,
      error: '[clusterrole.rbac.authorization.k8s.io "missing" not found, role.rbac.authorization.k8s.io "gone" not found]',
    });
    assert.deepEqual(a.rulesFor({ username: 'system:serviceaccount:ns1:builder', groups: [] }, 'ns1'), {
      resourceRules: [{ verbs: ['update'], apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['web'] }],
      nonResourceRules: [],
      incomplete: false,
    });
  });
});
