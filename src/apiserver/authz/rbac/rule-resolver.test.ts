/**
 * The rule resolver. Ported from upstream pkg/registry/rbac/validation/rule_test.go:
 * TestDefaultRuleResolver (4 cases) and TestAppliesTo (9 cases, with the index of the subject that
 * applies). The rest pins rule.go's visiting order, short-circuiting, error texts and binding
 * describers.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterRoleBinding, PolicyRule, RoleBinding, Subject } from '../../../api/index.js';
import type { RequestUser } from '../../../api/request.js';
import { StatusError } from '../../../machinery/errors/index.js';
import { appliesTo, BindingSource, DefaultRuleResolver, describeSubject, staticRBACGetters as staticRoles, type RBACGetters } from './rule-resolver.js';

const user = (username: string, groups: string[] = []): RequestUser => ({ username, groups });
const sortRules = (rules: PolicyRule[]): string[] => rules.map((r) => JSON.stringify(r)).sort();

describe('DefaultRuleResolver.rulesFor (upstream rule_test.go TestDefaultRuleResolver)', () => {
  const ruleReadPods: PolicyRule = { verbs: ['GET', 'WATCH'], apiGroups: ['v1'], resources: ['pods'] };
  const ruleReadServices: PolicyRule = { verbs: ['GET', 'WATCH'], apiGroups: ['v1'], resources: ['services'] };
  const ruleWriteNodes: PolicyRule = { verbs: ['PUT', 'CREATE', 'UPDATE'], apiGroups: ['v1'], resources: ['nodes'] };
  const ruleAdmin: PolicyRule = { verbs: ['*'], apiGroups: ['*'], resources: ['*'] };
  const staticRoles1 = staticRoles({
    roles: [{ metadata: { namespace: 'namespace1', name: 'readthings' }, rules: [ruleReadPods, ruleReadServices] }],
    clusterRoles: [
      { metadata: { name: 'cluster-admin' }, rules: [ruleAdmin] },
      { metadata: { name: 'write-nodes' }, rules: [ruleWriteNodes] },
    ],
    roleBindings: [
      {
        metadata: { namespace: 'namespace1' },
        subjects: [
          { kind: 'User', name: 'foobar' },
          { kind: 'Group', name: 'group1' },
        ],
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'readthings' },
      },
    ],
    clusterRoleBindings: [
      {
        metadata: {},
        subjects: [
          { kind: 'User', name: 'admin' },
          { kind: 'Group', name: 'admin' },
        ],
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      },
    ],
  });
  const cases: { name: string; user: RequestUser; namespace: string; effectiveRules: PolicyRule[] }[] = [
    { name: 'a RoleBinding in the namespace', user: user('foobar'), namespace: 'namespace1', effectiveRules: [ruleReadPods, ruleReadServices] },
    { name: 'another namespace', user: user('foobar'), namespace: 'namespace2', effectiveRules: [] },
    { name: 'no namespace: only cluster rules apply', user: user('foobar', ['admin']), namespace: '', effectiveRules: [ruleAdmin] },
    { name: 'an empty user', user: user(''), namespace: '', effectiveRules: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { rules, errors } = new DefaultRuleResolver(staticRoles1).rulesFor(c.user, c.namespace);
      assert.deepEqual(errors, []);
      assert.deepEqual(sortRules(rules), sortRules(c.effectiveRules));
    });
  }
});

describe('appliesTo (upstream rule_test.go TestAppliesTo)', () => {
  const cases: { testCase: string; subjects: Subject[]; user: RequestUser; namespace?: string; index: number }[] = [
    { testCase: 'single subject that matches username', subjects: [{ kind: 'User', name: 'foobar' }], user: user('foobar'), index: 0 },
    {
      testCase: 'multiple subjects, one that matches username',
      subjects: [
        { kind: 'User', name: 'barfoo' },
        { kind: 'User', name: 'foobar' },
      ],
      user: user('foobar'),
      index: 1,
    },
    {
      testCase: 'multiple subjects, none that match username',
      subjects: [
        { kind: 'User', name: 'barfoo' },
        { kind: 'User', name: 'foobar' },
      ],
      user: user('zimzam'),
      index: -1,
    },
    {
      testCase: 'multiple subjects, one that match group',
      subjects: [
        { kind: 'User', name: 'barfoo' },
        { kind: 'Group', name: 'foobar' },
      ],
      user: user('zimzam', ['foobar']),
      index: 1,
    },
    {
      testCase: 'multiple subjects, one that match group, should ignore namespace',
      subjects: [
        { kind: 'User', name: 'barfoo' },
        { kind: 'Group', name: 'foobar' },
      ],
      user: user('zimzam', ['foobar']),
      namespace: 'namespace1',
      index: 1,
    },
    {
      testCase: 'multiple subjects with a service account that matches',
      subjects: [
        { kind: 'User', name: 'barfoo' },
        { kind: 'Group', name: 'foobar' },
        { kind: 'ServiceAccount', namespace: 'kube-system', name: 'default' },
      ],
      user: user('system:serviceaccount:kube-system:default'),
      namespace: 'default',
      index: 2,
    },
    { testCase: "* user subject name doesn't match all users", subjects: [{ kind: 'User', name: '*' }], user: user('foobar'), namespace: 'default', index: -1 },
    {
      testCase: 'binding to all authenticated and unauthenticated subjects matches authenticated user',
      subjects: [
        { kind: 'Group', name: 'system:authenticated' },
        { kind: 'Group', name: 'system:unauthenticated' },
      ],
      user: user('foobar', ['system:authenticated']),
      namespace: 'default',
      index: 0,
    },
    {
      testCase: 'binding to all authenticated and unauthenticated subjects matches anonymous user',
      subjects: [
        { kind: 'Group', name: 'system:authenticated' },
        { kind: 'Group', name: 'system:unauthenticated' },
      ],
      user: user('system:anonymous', ['system:unauthenticated']),
      namespace: 'default',
      index: 1,
    },
  ];
  for (const c of cases) {
    it(c.testCase, () => {
      assert.equal(appliesTo(c.user, c.subjects, c.namespace ?? ''), c.index);
    });
  }

  it('a ServiceAccount subject without a namespace takes the binding namespace; none in a ClusterRoleBinding', () => {
    const sa: Subject[] = [{ kind: 'ServiceAccount', name: 'builder' }];
    assert.equal(appliesTo(user('system:serviceaccount:ns1:builder'), sa, 'ns1'), 0);
    assert.equal(appliesTo(user('system:serviceaccount:ns1:builder'), sa, 'ns2'), -1);
    assert.equal(appliesTo(user('system:serviceaccount::builder'), sa, ''), -1);
    assert.equal(appliesTo(undefined, [{ kind: 'Group', name: 'system:authenticated' }], ''), -1);
    assert.equal(appliesTo(user('x'), [{ kind: 'Unknown', name: 'x' }], ''), -1);
  });
});

describe('visiting (rule.go VisitRulesFor)', () => {
  const crb = (name: string, role: string, subjects: Subject[]): ClusterRoleBinding => ({ metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role }, subjects });
  const rb = (namespace: string, name: string, kind: 'Role' | 'ClusterRole', role: string, subjects: Subject[]): RoleBinding => ({
    metadata: { namespace, name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: role },
    subjects,
  });
  const getters = staticRoles({
    roles: [{ metadata: { namespace: 'ns1', name: 'edit' }, rules: [{ verbs: ['update'], apiGroups: [''], resources: ['pods'] }] }],
    clusterRoles: [{ metadata: { name: 'view' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, { verbs: ['list'], apiGroups: [''], resources: ['pods'] }] }],
    clusterRoleBindings: [crb('viewers', 'view', [{ kind: 'User', name: 'bob' }, { kind: 'Group', name: 'devs' }]), crb('broken', 'missing', [{ kind: 'Group', name: 'devs' }])],
    roleBindings: [
      rb('ns1', 'editors', 'Role', 'edit', [{ kind: 'ServiceAccount', name: 'builder' }, { kind: 'Group', name: 'devs' }]),
      rb('ns1', 'gone', 'Role', 'nope', [{ kind: 'Group', name: 'devs' }]),
      rb('ns1', 'odd', 'Thing' as 'Role', 'x', [{ kind: 'Group', name: 'devs' }]),
    ],
  });
  const dev = user('alice', ['devs']);

  it('ClusterRoleBindings first, then the namespace RoleBindings; sources name binding, role and first matching subject', () => {
    const seen: string[] = [];
    new DefaultRuleResolver(getters).visitRulesFor(dev, 'ns1', (source, rule, err) => {
      seen.push(err ? `error: ${err.message}` : `${rule?.verbs.join(',') ?? ''} by ${source?.toString() ?? ''}`);
      return true;
    });
    assert.deepEqual(seen, [
      'get by ClusterRoleBinding "viewers" of ClusterRole "view" to Group "devs"',
      'list by ClusterRoleBinding "viewers" of ClusterRole "view" to Group "devs"',
      'error: clusterrole.rbac.authorization.k8s.io "missing" not found',
      'update by RoleBinding "editors/ns1" of Role "edit" to Group "devs"',
      'error: role.rbac.authorization.k8s.io "nope" not found',
      'error: unsupported role reference kind: "Thing"',
    ]);
  });

  it('a false from the visitor stops the visit', () => {
    let calls = 0;
    new DefaultRuleResolver(getters).visitRulesFor(dev, 'ns1', () => {
      calls++;
      return false;
    });
    assert.equal(calls, 1);
  });

  it('namespace "" visits only ClusterRoleBindings; a ServiceAccount subject defaults to the binding namespace', () => {
    assert.deepEqual(new DefaultRuleResolver(getters).rulesFor(dev, '').rules.length, 2);
    const sa = new DefaultRuleResolver(getters).rulesFor(user('system:serviceaccount:ns1:builder'), 'ns1');
    assert.deepEqual(sa.rules, [{ verbs: ['update'], apiGroups: [''], resources: ['pods'] }]);
    assert.deepEqual(sa.errors, []);
  });

  it("the registry lookup names the plural resource, as the RBAC storage's resolver does", () => {
    const resolver = new DefaultRuleResolver(getters, { lookup: 'registry' });
    assert.deepEqual(
      resolver.rulesFor(dev, 'ns1').errors.map((e) => e.message),
      ['clusterroles.rbac.authorization.k8s.io "missing" not found', 'roles.rbac.authorization.k8s.io "nope" not found', 'unsupported role reference kind: "Thing"'],
    );
    assert.throws(
      () => resolver.getRoleReferenceRules({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'nope' }, 'ns1'),
      (e: unknown) => e instanceof StatusError && e.code === 404 && e.status.details?.kind === 'roles',
    );
  });

  it("a getter's error is a resolution error, and the visit goes on", () => {
    const throwing: RBACGetters = {
      ...getters,
      listClusterRoleBindings: () => {
        throw new Error('cache not synced');
      },
    };
    const { rules, errors } = new DefaultRuleResolver(throwing).rulesFor(dev, 'ns1');
    assert.equal(errors[0]?.message, 'cache not synced');
    assert.deepEqual(rules, [{ verbs: ['update'], apiGroups: [''], resources: ['pods'] }]);
  });

  it('describes subjects as upstream', () => {
    assert.equal(describeSubject({ kind: 'ServiceAccount', name: 'sa', namespace: 'other' }, 'ns1'), 'ServiceAccount "sa/other"');
    assert.equal(describeSubject({ kind: 'ServiceAccount', name: 'sa' }, 'ns1'), 'ServiceAccount "sa/ns1"');
    assert.equal(describeSubject({ kind: 'User', name: 'jane' }, 'ns1'), 'User "jane"');
    const source = new BindingSource('RoleBinding', rb('ns1', 'b', 'ClusterRole', 'admin', []), { kind: 'ServiceAccount', name: 'sa' });
    assert.equal(source.toString(), 'RoleBinding "b/ns1" of ClusterRole "admin" to ServiceAccount "sa/ns1"');
  });
});

describe('DefaultRuleResolver: the subject index over an unchanged list', () => {
  const rule = (resource: string): PolicyRule => ({ verbs: ['get'], apiGroups: [''], resources: [resource] });
  const crb = (name: string, subjects: Subject[]): ClusterRoleBinding => ({ metadata: { name }, subjects, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name } });
  const clusterRoles = ['a', 'b', 'c', 'd', 'e'].map((n) => ({ metadata: { name: n }, rules: [rule(n)] }));
  const bindings: ClusterRoleBinding[] = [
    crb('a', [{ kind: 'User', name: 'other' }]),
    crb('b', [{ kind: 'Group', name: 'dev' }, { kind: 'User', name: 'jane' }]),
    crb('c', [{ kind: 'ServiceAccount', name: 'robot', namespace: 'ns' }]),
    crb('d', [{ kind: 'User', name: 'jane' }]),
    crb('e', [{ kind: 'ServiceAccount', name: 'robot' }]),
  ];
  // The same array on every call, as the server's getters return it while the cache is unchanged.
  const getters: RBACGetters = { ...staticRoles({ clusterRoles }), listClusterRoleBindings: () => bindings };
  const resolver = new DefaultRuleResolver(getters);
  const resources = (u: RequestUser): string[] => resolver.rulesFor(u, 'ns').rules.map((r) => r.resources?.[0] ?? '');

  it('visits the bindings naming the user or a group of theirs in list order, each once', () => {
    assert.deepEqual(resources(user('jane', ['dev'])), ['b', 'd']);
    assert.deepEqual(resources(user('x', ['dev'])), ['b']);
    assert.deepEqual(resources(user('nobody')), []);
  });
  it('a ServiceAccount subject of a ClusterRoleBinding needs its namespace', () => {
    assert.deepEqual(resources(user('system:serviceaccount:ns:robot')), ['c']);
  });
  it('the same answers as visiting every binding with appliesTo', () => {
    for (const u of [user('jane', ['dev']), user('other'), user('system:serviceaccount:ns:robot', ['dev'])]) {
      const expected = bindings.filter((b) => appliesTo(u, b.subjects ?? [], '') >= 0).map((b) => b.roleRef.name);
      assert.deepEqual(resources(u), expected);
    }
  });
});
