/**
 * Privilege-escalation prevention. Ported from upstream:
 * - k8s.io/component-helpers/auth/rbac/validation/policy_comparator_test.go (formerly
 *   pkg/registry/rbac/validation/policy_comparator_test.go): the 23 TestCovers* cases and
 *   TestNonResourceURLCovers (14 cases);
 * - pkg/registry/rbac/validation/policy_compact_test.go: TestCompactRules (6 cases) and
 *   TestIsSimpleResourceRule (12 cases);
 * - pkg/registry/rbac/helpers_test.go: TestIsOnlyMutatingGCFields (9 cases);
 * - pkg/registry/rbac/role/policybased/storage_test.go and clusterrole/policybased/storage_test.go:
 *   TestEscalation (4 users × create and update, for roles and for clusterroles). Upstream has no
 *   escalation_check_test.go; these exercise EscalationAllowed and RoleEscalationAuthorized.
 * The rest pins rule.go ConfirmNoEscalation's message and the binding checks of
 * {rolebinding,clusterrolebinding}/policybased/storage.go.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding } from '../../../api/index.js';
import type { RequestUser } from '../../../api/request.js';
import type { StatusError } from '../../../machinery/errors/index.js';
import type { Authorizer } from '../types.js';
import { RBACAuthorizer } from './authorizer.js';
import {
  checkBindingEscalation,
  checkRoleEscalation,
  compactRules,
  confirmNoEscalation,
  covers,
  isOnlyMutatingGCFields,
  isSimpleResourceRule,
  nonResourceURLCovers,
  type EscalationContext,
} from './escalation.js';
import { DefaultRuleResolver, staticRBACGetters, type StaticRBACObjects } from './rule-resolver.js';
import { policyRuleString } from './rules.js';

/** rulesMatch: the same rules, in any order. */
const asSet = (rules: PolicyRule[]): string[] => rules.map((r) => JSON.stringify(r, Object.keys(r).sort())).sort();

interface CoversCase {
  name: string;
  ownerRules: PolicyRule[];
  servantRules: PolicyRule[];
  expectedCovered: boolean;
  expectedUncoveredRules: PolicyRule[];
}

// policy_comparator_test.go TestCovers*.
const coversCases: CoversCase[] = [
  {
    name: 'ExactMatch',
    ownerRules: [{ apiGroups: ['v1'], verbs: ['get'], resources: ['builds'] }],
    servantRules: [{ apiGroups: ['v1'], verbs: ['get'], resources: ['builds'] }],
    expectedCovered: true,
    expectedUncoveredRules: [],
  },
  {
    name: 'SubresourceWildcard',
    ownerRules: [{ apiGroups: ['v1'], verbs: ['get'], resources: ['*/scale'] }],
    servantRules: [{ apiGroups: ['v1'], verbs: ['get'], resources: ['foo/scale'] }],
    expectedCovered: true,
    expectedUncoveredRules: [],
  },
  {
    name: 'MultipleRulesCoveringSingleRule',
    ownerRules: [
      { apiGroups: ['v1'], verbs: ['delete'], resources: ['deployments'] },
      { apiGroups: ['v1'], verbs: ['delete'], resources: ['builds'] },
      { apiGroups: ['v1'], verbs: ['update'], resources: ['builds', 'deployments'] },
    ],
    servantRules: [{ apiGroups: ['v1'], verbs: ['delete', 'update'], resources: ['builds', 'deployments'] }],
    expectedCovered: true,
    expectedUncoveredRules: [],
  },
  {
    name: 'MultipleAPIGroupsCoveringSingleRule',
    ownerRules: [
      { apiGroups: ['group1'], verbs: ['delete'], resources: ['deployments'] },
      { apiGroups: ['group1'], verbs: ['delete'], resources: ['builds'] },
      { apiGroups: ['group1'], verbs: ['update'], resources: ['builds', 'deployments'] },
      { apiGroups: ['group2'], verbs: ['delete'], resources: ['deployments'] },
      { apiGroups: ['group2'], verbs: ['delete'], resources: ['builds'] },
      { apiGroups: ['group2'], verbs: ['update'], resources: ['builds', 'deployments'] },
    ],
    servantRules: [{ apiGroups: ['group1', 'group2'], verbs: ['delete', 'update'], resources: ['builds', 'deployments'] }],
    expectedCovered: true,
    expectedUncoveredRules: [],
  },
  {
    name: 'SingleAPIGroupsCoveringMultiple',
    ownerRules: [{ apiGroups: ['group1', 'group2'], verbs: ['delete', 'update'], resources: ['builds', 'deployments'] }],
    servantRules: [
      { apiGroups: ['group1'], verbs: ['delete'], resources: ['deployments'] },
      { apiGroups: ['group1'], verbs: ['delete'], resources: ['builds'] },
      { apiGroups: ['group1'], verbs: ['update'], resources: ['builds', 'deployments'] },
      { apiGroups: ['group2'], verbs: ['delete'], resources: ['deployments'] },
      { apiGroups: ['group2'], verbs: ['delete'], resources: ['builds'] },
      { apiGroups: ['group2'], verbs: ['update'], resources: ['builds', 'deployments'] },
    ],
    expectedCovered: true,
    expectedUncoveredRules: [],
  },
  {
    name: 'MultipleRulesMissingSingleVerbResourceCombination',
    ownerRules: [
      { apiGroups: ['v1'], verbs: ['delete', 'update'], resources: ['builds', 'deployments'] },
      { apiGroups: ['v1'], verbs: ['delete'], resources: ['pods'] },
    ],
    servantRules: [{ apiGroups: ['v1'], verbs: ['delete', 'update'], resources: ['builds', 'deployments', 'pods'] }],
    expectedCovered: false,
    expectedUncoveredRules: [{ apiGroups: ['v1'], verbs: ['update'], resources: ['pods'] }],
  },
  {
    name: 'APIGroupStarCoveringMultiple',
    ownerRules: [{ apiGroups: ['*'], verbs: ['get'], resources: ['roles'] }],
    servantRules: [{ apiGroups: ['group1', 'group2'], verbs: ['get'], resources: ['roles'] }],
    expectedCovered: true,
    expectedUncoveredRules: [],
  },
  {
    name: 'EnumerationNotCoveringAPIGroupStar',
    ownerRules: [{ apiGroups: ['dummy-group'], verbs: ['get'], resources: ['roles'] }],
    servantRules: [{ apiGroups: ['*'], verbs: ['get'], resources: ['roles'] }],
    expectedCovered: false,
    expectedUncoveredRules: [{ apiGroups: ['*'], verbs: ['get'], resources: ['roles'] }],
  },
  {
    name: 'APIGroupStarCoveringStar',
    ownerRules: [{ apiGroups: ['*'], verbs: ['get'], resources: ['roles'] }],
    servantRules: [{ apiGroups: ['*'], verbs: ['get'], resources: ['roles'] }],
    expectedCovered: true,
    expectedUncoveredRules: [],
  },
  {
    name: 'VerbStarCoveringMultiple',
    ownerRules: [{ apiGroups: ['v1'], verbs: ['*'], resources: ['roles'] }],
    servantRules: [{ apiGroups: ['v1'], verbs: ['watch', 'list'], resources: ['roles'] }],
    expectedCovered: true,
    expectedUncoveredRules: [],
  },
  {
    name: 'EnumerationNotCoveringVerbStar',
    ownerRules: [{ apiGroups: ['v1'], verbs: ['get', 'list', 'watch', 'create', 'update', 'delete', 'exec'], resources: ['roles'] }],
    servantRules: [{ apiGroups: ['v1'], verbs: ['*'], resources: ['roles'] }],
    expectedCovered: false,
    expectedUncoveredRules: [{ apiGroups: ['v1'], verbs: ['*'], resources: ['roles'] }],
  },
  {
    name: 'VerbStarCoveringStar',
    ownerRules: [{ apiGroups: ['v1'], verbs: ['*'], resources: ['roles'] }],
    servantRules: [{ apiGroups: ['v1'], verbs: ['*'], resources: ['roles'] }],
    expectedCovered: true,
    expectedUncoveredRules: [],
  },
  {
    name: 'ResourceStarCoveringMultiple',
    ownerRules: [{ apiGroups: ['v1'], verbs: ['get'], resources: ['*'] }],
    servantRules: [{ apiGroups: ['v1'], verbs: ['get'], resources: ['resourcegroup:deployments'] }],
    expectedCovered: true,
    expectedUncoveredRules: [],
  },
  {
    name: 'EnumerationNotCoveringResourceStar',
    ownerRules: [{ apiGroups: ['v1'], verbs: ['get'], resources: ['roles', 'resourcegroup:deployments'] }],
    servantRules: [{ apiGroups: ['v1'], verbs: ['get'], resources: ['*'] }],
    expectedCovered: false,
    expectedUncoveredRules: [{ apiGroups: ['v1'], verbs: ['get'], resources: ['*'] }],
  },
  {
    name: 'ResourceStarCoveringStar',
    ownerRules: [{ apiGroups: ['v1'], verbs: ['get'], resources: ['*'] }],
    servantRules: [{ apiGroups: ['v1'], verbs: ['get'], resources: ['*'] }],
    expectedCovered: true,
    expectedUncoveredRules: [],
  },
  {
    name: 'ResourceNameEmptyCoveringMultiple',
    ownerRules: [{ apiGroups: ['v1'], verbs: ['get'], resources: ['pods'], resourceNames: [] }],
    servantRules: [{ apiGroups: ['v1'], verbs: ['get'], resources: ['pods'], resourceNames: ['foo', 'bar'] }],
    expectedCovered: true,
    expectedUncoveredRules: [],
  },
  {
    name: 'EnumerationNotCoveringResourceNameEmpty',
    ownerRules: [{ apiGroups: ['v1'], verbs: ['get'], resources: ['pods'], resourceNames: ['foo', 'bar'] }],
    servantRules: [{ apiGroups: ['v1'], verbs: ['get'], resources: ['pods'], resourceNames: [] }],
    expectedCovered: false,
    expectedUncoveredRules: [{ apiGroups: ['v1'], verbs: ['get'], resources: ['pods'] }],
  },
  {
    name: 'NonResourceURLs',
    ownerRules: [{ nonResourceURLs: ['/apis'], verbs: ['*'] }],
    servantRules: [{ nonResourceURLs: ['/apis'], verbs: ['*'] }],
    expectedCovered: true,
    expectedUncoveredRules: [],
  },
  {
    name: 'NonResourceURLsStar',
    ownerRules: [{ nonResourceURLs: ['*'], verbs: ['*'] }],
    servantRules: [{ nonResourceURLs: ['/apis', '/apis/v1', '/'], verbs: ['*'] }],
    expectedCovered: true,
    expectedUncoveredRules: [],
  },
  {
    name: 'NonResourceURLsStarAfterPrefixDoesntCover',
    ownerRules: [{ nonResourceURLs: ['/apis/*'], verbs: ['*'] }],
    servantRules: [{ nonResourceURLs: ['/apis', '/apis/v1'], verbs: ['get'] }],
    expectedCovered: false,
    expectedUncoveredRules: [{ nonResourceURLs: ['/apis'], verbs: ['get'] }],
  },
  {
    name: 'NonResourceURLsStarAfterPrefix',
    ownerRules: [{ nonResourceURLs: ['/apis/*'], verbs: ['*'] }],
    servantRules: [{ nonResourceURLs: ['/apis/v1/foo', '/apis/v1'], verbs: ['get'] }],
    expectedCovered: true,
    expectedUncoveredRules: [],
  },
  {
    name: 'NonResourceURLsWithOtherFields',
    ownerRules: [{ apiGroups: ['v1'], verbs: ['get'], resources: ['builds'], nonResourceURLs: ['/apis'] }],
    servantRules: [{ apiGroups: ['v1'], verbs: ['get'], resources: ['builds'], nonResourceURLs: ['/apis'] }],
    expectedCovered: true,
    expectedUncoveredRules: [],
  },
  {
    name: 'NonResourceURLsWithOtherFieldsFailure',
    ownerRules: [{ apiGroups: ['v1'], verbs: ['get'], resources: ['builds'] }],
    servantRules: [{ apiGroups: ['v1'], verbs: ['get'], resources: ['builds'], nonResourceURLs: ['/apis'] }],
    expectedCovered: false,
    expectedUncoveredRules: [{ nonResourceURLs: ['/apis'], verbs: ['get'] }],
  },
];

describe('Covers (upstream policy_comparator_test.go)', () => {
  for (const c of coversCases) {
    it(`TestCovers${c.name}`, () => {
      const { covered, missing } = covers(c.ownerRules, c.servantRules);
      assert.equal(covered, c.expectedCovered);
      assert.deepEqual(asSet(missing), asSet(c.expectedUncoveredRules));
    });
  }

  it('TestNonResourceURLCovers', () => {
    const cases: [string, string, boolean][] = [
      ['*', '', true],
      ['*', '/', true],
      ['*', '/api', true],
      ['/*', '', false],
      ['/*', '/', true],
      ['/*', '/foo', true],
      ['/api', '/api', true],
      ['/apis', '/api', false],
      ['/api/v1', '/api', false],
      ['/api/v1', '/api/v1', true],
      ['/api/*', '/api/v1', true],
      ['/api/*', '/api', false],
      ['/api/*/*', '/api/v1', false],
      ['/*/v1/*', '/api/v1', false],
    ];
    for (const [owner, requested, want] of cases) assert.equal(nonResourceURLCovers(owner, requested), want, `nonResourceURLCovers(${owner}, ${requested})`);
  });
});

/** A rule with Go's nil verbs. */
const nilVerbs = (rule: Omit<PolicyRule, 'verbs'>): PolicyRule => rule as PolicyRule;

describe('CompactRules (upstream policy_compact_test.go)', () => {
  const cases: Record<string, { rules: PolicyRule[]; expected: PolicyRule[] }> = {
    empty: { rules: [], expected: [] },
    simple: {
      rules: [
        { verbs: ['get'], apiGroups: [''], resources: ['builds'] },
        { verbs: ['list'], apiGroups: [''], resources: ['builds'] },
        { verbs: ['update', 'patch'], apiGroups: [''], resources: ['builds'] },

        { verbs: ['create'], apiGroups: ['extensions'], resources: ['daemonsets'] },
        { verbs: ['delete'], apiGroups: ['extensions'], resources: ['daemonsets'] },
        { verbs: ['patch'], apiGroups: ['extensions'], resources: ['daemonsets'], resourceNames: [''] },
        { verbs: ['get'], apiGroups: ['extensions'], resources: ['daemonsets'], resourceNames: ['foo'] },
        { verbs: ['list'], apiGroups: ['extensions'], resources: ['daemonsets'], resourceNames: ['foo'] },

        { verbs: ['educate'], apiGroups: [''], resources: ['dolphins'] },

        // nil verbs are preserved in non-merge cases.
        // these are the pirates who don't do anything.
        nilVerbs({ apiGroups: [''], resources: ['pirates'] }),

        // Test merging into a nil Verbs string set
        nilVerbs({ apiGroups: [''], resources: ['pods'] }),
        { verbs: ['create'], apiGroups: [''], resources: ['pods'] },
      ],
      expected: [
        { verbs: ['create', 'delete'], apiGroups: ['extensions'], resources: ['daemonsets'] },
        { verbs: ['patch'], apiGroups: ['extensions'], resources: ['daemonsets'], resourceNames: [''] },
        { verbs: ['get', 'list'], apiGroups: ['extensions'], resources: ['daemonsets'], resourceNames: ['foo'] },
        { verbs: ['get', 'list', 'update', 'patch'], apiGroups: [''], resources: ['builds'] },
        { verbs: ['educate'], apiGroups: [''], resources: ['dolphins'] },
        nilVerbs({ apiGroups: [''], resources: ['pirates'] }),
        { verbs: ['create'], apiGroups: [''], resources: ['pods'] },
      ],
    },
    'complex multi-group': {
      rules: [
        { verbs: ['get'], apiGroups: ['', 'builds.openshift.io'], resources: ['builds'] },
        { verbs: ['list'], apiGroups: ['', 'builds.openshift.io'], resources: ['builds'] },
      ],
      expected: [
        { verbs: ['get'], apiGroups: ['', 'builds.openshift.io'], resources: ['builds'] },
        { verbs: ['list'], apiGroups: ['', 'builds.openshift.io'], resources: ['builds'] },
      ],
    },
    'complex multi-resource': {
      rules: [
        { verbs: ['get'], apiGroups: [''], resources: ['builds', 'images'] },
        { verbs: ['list'], apiGroups: [''], resources: ['builds', 'images'] },
      ],
      expected: [
        { verbs: ['get'], apiGroups: [''], resources: ['builds', 'images'] },
        { verbs: ['list'], apiGroups: [''], resources: ['builds', 'images'] },
      ],
    },
    'complex named-resource': {
      rules: [
        { verbs: ['get'], apiGroups: [''], resources: ['builds'], resourceNames: ['mybuild'] },
        { verbs: ['list'], apiGroups: [''], resources: ['builds'], resourceNames: ['mybuild2'] },
      ],
      expected: [
        { verbs: ['get'], apiGroups: [''], resources: ['builds'], resourceNames: ['mybuild'] },
        { verbs: ['list'], apiGroups: [''], resources: ['builds'], resourceNames: ['mybuild2'] },
      ],
    },
    'complex non-resource': {
      rules: [
        { verbs: ['get'], apiGroups: [''], resources: ['builds'], nonResourceURLs: ['/'] },
        { verbs: ['get'], apiGroups: [''], resources: ['builds'], nonResourceURLs: ['/foo'] },
      ],
      expected: [
        { verbs: ['get'], apiGroups: [''], resources: ['builds'], nonResourceURLs: ['/'] },
        { verbs: ['get'], apiGroups: [''], resources: ['builds'], nonResourceURLs: ['/foo'] },
      ],
    },
  };
  const byString = (rules: PolicyRule[]): PolicyRule[] => [...rules].sort((a, b) => (policyRuleString(a) < policyRuleString(b) ? -1 : policyRuleString(a) > policyRuleString(b) ? 1 : 0));
  for (const [name, c] of Object.entries(cases)) {
    it(`TestCompactRules ${name}`, () => {
      const original = structuredClone(c.rules);
      const compacted = compactRules(c.rules);
      assert.deepEqual(c.rules, original, 'CompactRules mutated rules');
      assert.ok(covers(compacted, c.rules).covered, 'compacted rules did not cover original rules');
      assert.ok(covers(c.rules, compacted).covered, 'original rules did not cover compacted rules');
      assert.deepEqual(byString(compacted), byString(c.expected));
    });
  }

  it('TestIsSimpleResourceRule', () => {
    const cases: [string, PolicyRule, ReturnType<typeof isSimpleResourceRule>][] = [
      ['simple, no verbs', { verbs: [], apiGroups: [''], resources: ['builds'] }, { group: '', resource: 'builds', resourceNameExist: false, resourceName: '' }],
      ['simple, one verb', { verbs: ['get'], apiGroups: [''], resources: ['builds'] }, { group: '', resource: 'builds', resourceNameExist: false, resourceName: '' }],
      ['simple, one empty resource name', { verbs: ['get'], apiGroups: [''], resources: ['builds'], resourceNames: [''] }, { group: '', resource: 'builds', resourceNameExist: true, resourceName: '' }],
      ['simple, one resource name', { verbs: ['get'], apiGroups: [''], resources: ['builds'], resourceNames: ['foo'] }, { group: '', resource: 'builds', resourceNameExist: true, resourceName: 'foo' }],
      ['simple, multi verb', { verbs: ['get', 'list'], apiGroups: [''], resources: ['builds'] }, { group: '', resource: 'builds', resourceNameExist: false, resourceName: '' }],
      ['complex, empty', nilVerbs({}), undefined],
      ['complex, no group', { verbs: ['get'], apiGroups: [], resources: ['builds'] }, undefined],
      ['complex, multi group', { verbs: ['get'], apiGroups: ['a', 'b'], resources: ['builds'] }, undefined],
      ['complex, no resource', { verbs: ['get'], apiGroups: [''], resources: [] }, undefined],
      ['complex, multi resource', { verbs: ['get'], apiGroups: [''], resources: ['builds', 'images'] }, undefined],
      ['complex, resource names', { verbs: ['get'], apiGroups: [''], resources: ['builds'], resourceNames: ['foo', 'bar'] }, undefined],
      ['complex, non-resource urls', { verbs: ['get'], apiGroups: [''], resources: ['builds'], nonResourceURLs: ['/'] }, undefined],
    ];
    for (const [name, rule, expected] of cases) assert.deepEqual(isSimpleResourceRule(rule), expected, name);
  });
});

describe('IsOnlyMutatingGCFields (upstream helpers_test.go)', () => {
  const newObj = (): { metadata: { annotations: Record<string, string>; name: string; ownerReferences: { apiVersion: string; kind: string; name: string; uid: string }[]; finalizers?: string[]; managedFields?: { manager: string }[] }; spec: { restartPolicy?: string } } => ({
    metadata: { annotations: {}, name: 'foo', ownerReferences: [] },
    spec: {},
  });
  const ownerRef = { apiVersion: '', kind: '', name: 'foo', uid: '' };
  const cases: [string, () => object, () => object | undefined, boolean][] = [
    ['same', newObj, newObj, true],
    ['different managedFields', newObj, () => {
      const o = newObj();
      o.metadata.managedFields = [{ manager: 'manager' }];
      return o;
    }, true],
    ['only annotations', () => {
      const o = newObj();
      o.metadata.annotations.foo = 'bar';
      return o;
    }, newObj, false],
    ['only other', () => {
      const o = newObj();
      o.spec.restartPolicy = 'Always';
      return o;
    }, newObj, false],
    ['only ownerRef', () => {
      const o = newObj();
      o.metadata.ownerReferences.push(ownerRef);
      return o;
    }, newObj, true],
    ['ownerRef and finalizer', () => {
      const o = newObj();
      o.metadata.ownerReferences.push(ownerRef);
      o.metadata.finalizers = ['final'];
      return o;
    }, newObj, true],
    ['and annotations', () => {
      const o = newObj();
      o.metadata.ownerReferences.push(ownerRef);
      o.metadata.annotations.foo = 'bar';
      return o;
    }, newObj, false],
    ['and other', () => {
      const o = newObj();
      o.metadata.ownerReferences.push(ownerRef);
      o.spec.restartPolicy = 'Always';
      return o;
    }, newObj, false],
    ['and nil', () => {
      const o = newObj();
      o.metadata.ownerReferences.push(ownerRef);
      o.spec.restartPolicy = 'Always';
      return o;
    }, () => undefined, false],
  ];
  for (const [name, obj, old, expected] of cases) {
    it(name, () => {
      assert.equal(isOnlyMutatingGCFields(obj(), old()), expected);
    });
  }
});

// ---------------------------------------------------------------------------------------------
// The storage checks.

const RBAC = 'rbac.authorization.k8s.io';
const crb = (name: string, role: string, ...subjects: { kind: string; name: string; namespace?: string }[]): ClusterRoleBinding => ({ metadata: { name }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: role }, subjects });
const rb = (namespace: string, name: string, kind: 'Role' | 'ClusterRole', role: string, ...subjects: { kind: string; name: string }[]): RoleBinding => ({
  metadata: { namespace, name },
  roleRef: { apiGroup: RBAC, kind, name: role },
  subjects,
});
const registryResolver = (objs: StaticRBACObjects): DefaultRuleResolver => new DefaultRuleResolver(staticRBACGetters(objs), { lookup: 'registry' });

/** role/policybased and clusterrole/policybased storage_test.go TestEscalation, for one resource. */
function testEscalation(resource: 'roles' | 'clusterroles'): void {
  const namespace = resource === 'roles' ? 'myns' : '';
  const superuser: RequestUser = { username: 'superuser', groups: ['system:masters'] };
  const bob: RequestUser = { username: 'bob', groups: [] };
  const steve: RequestUser = { username: 'steve', groups: [] };
  const alice: RequestUser = { username: 'alice', groups: [] };

  let authzCalled = 0;
  const fakeAuthorizer: Authorizer = {
    authorize: (attr) => {
      authzCalled++;
      return attr.user?.username === 'steve' ? { decision: 'Allow', reason: '' } : { decision: 'NoOpinion', reason: '' };
    },
  };
  const resolver = registryResolver({
    clusterRoles: [{ metadata: { name: 'alice-role' }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] }],
    clusterRoleBindings: [crb('', 'alice-role', { name: 'alice', kind: 'User' })],
  });
  const role: Role = { metadata: { name: 'myrole', namespace }, rules: [{ apiGroups: [''], verbs: ['get'], resources: ['pods'] }] };

  const testcases: { name: string; user: RequestUser; expectAllowed: boolean; expectAuthz: boolean }[] = [
    // superuser doesn't even trigger an authz check, and is allowed
    { name: 'superuser', user: superuser, expectAuthz: false, expectAllowed: true },
    // bob triggers an authz check, is disallowed by the authorizer, and has no RBAC permissions, so is not allowed
    { name: 'bob', user: bob, expectAuthz: true, expectAllowed: false },
    // steve triggers an authz check, is allowed by the authorizer, and has no RBAC permissions, but is still allowed
    { name: 'steve', user: steve, expectAuthz: true, expectAllowed: true },
    // alice triggers an authz check, is denied by the authorizer, but has RBAC permissions in the fakeRuleResolver, so is allowed
    { name: 'alice', user: alice, expectAuthz: true, expectAllowed: true },
  ];

  describe(`TestEscalation for ${resource} (upstream ${resource === 'roles' ? 'role' : 'clusterrole'}/policybased/storage_test.go)`, () => {
    for (const tc of testcases) {
      it(tc.name, async () => {
        const ctx: EscalationContext = { authorizer: fakeAuthorizer, resolver, user: tc.user };
        for (const write of [
          { resource, namespace, name: '', role },
          { resource, namespace, name: 'myrole', role, old: { metadata: { name: 'myrole', namespace } } },
        ]) {
          authzCalled = 0;
          const err = await checkRoleEscalation(ctx, write);
          if (tc.expectAllowed) assert.equal(err, undefined);
          else assert.equal(err?.code, 403);
          assert.equal(authzCalled > 0, tc.expectAuthz);
        }
      });
    }
  });
}
testEscalation('roles');
testEscalation('clusterroles');

describe('the refused grant (rule.go ConfirmNoEscalation)', () => {
  const jane: RequestUser = { username: 'jane', groups: ['system:authenticated'] };
  const objs: StaticRBACObjects = {
    roles: [{ metadata: { namespace: 'ns1', name: 'reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] }],
    roleBindings: [rb('ns1', 'jane-reads', 'Role', 'reader', { kind: 'User', name: 'jane' })],
  };
  const wanted: PolicyRule[] = [
    { apiGroups: [''], resources: ['pods', 'secrets'], verbs: ['get', 'delete'] },
    { apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['web'], verbs: ['update'] },
  ];

  it('names the user, its groups and the missing rules, compacted, sorted, one per line', async () => {
    const ctx: EscalationContext = { authorizer: new RBACAuthorizer(staticRBACGetters(objs)), resolver: registryResolver(objs), user: jane };
    const err = await checkRoleEscalation(ctx, { resource: 'roles', namespace: 'ns1', name: '', role: { metadata: { name: 'pod-admin', namespace: 'ns1' }, rules: wanted } });
    assert.equal(err?.code, 403);
    assert.equal(err.reason, 'Forbidden');
    assert.equal(
      err.message,
      'roles.rbac.authorization.k8s.io "pod-admin" is forbidden: user "jane" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}\n' +
        '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}\n' +
        '{APIGroups:["apps"], Resources:["deployments"], ResourceNames:["web"], Verbs:["update"]}',
    );
    assert.deepEqual(err.status.details, { name: 'pod-admin', group: RBAC, kind: 'roles' });
  });

  it('adds `; resolution errors: [...]` when some of the bindings could not be resolved; no groups print as []', () => {
    const broken: StaticRBACObjects = { ...objs, clusterRoleBindings: [crb('b', 'missing', { kind: 'User', name: 'jane' })] };
    assert.equal(
      confirmNoEscalation(registryResolver(broken), { username: 'jane', groups: [] }, 'ns1', [{ verbs: ['get'], nonResourceURLs: ['/metrics'] }]),
      'user "jane" (groups=[]) is attempting to grant RBAC permissions not currently held:\n{NonResourceURLs:["/metrics"], Verbs:["get"]}; resolution errors: [clusterroles.rbac.authorization.k8s.io "missing" not found]',
    );
    assert.equal(confirmNoEscalation(registryResolver(broken), jane, 'ns1', [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }]), undefined);
  });

  it('the in-process caller (no user) is always allowed', async () => {
    const ctx: EscalationContext = { authorizer: undefined, resolver: registryResolver({}), user: undefined };
    assert.equal(await checkRoleEscalation(ctx, { resource: 'clusterroles', namespace: '', name: '', role: { metadata: { name: 'x' }, rules: wanted } }), undefined);
    assert.equal(await checkBindingEscalation(ctx, { resource: 'clusterrolebindings', namespace: '', binding: crb('x', 'missing') }), undefined);
  });
});

describe('escalate, and the aggregationRule (clusterrole/policybased storage.go)', () => {
  const objs: StaticRBACObjects = {
    clusterRoles: [
      { metadata: { name: 'escalator' }, rules: [{ apiGroups: [RBAC], resources: ['roles'], verbs: ['escalate'], resourceNames: ['myrole'] }] },
      // Everything but the RBAC group (`*` there would grant `escalate`), and every URL.
      { metadata: { name: 'core-admin' }, rules: [{ apiGroups: ['', 'apps'], resources: ['*'], verbs: ['*'] }, { nonResourceURLs: ['*'], verbs: ['*'] }] },
      { metadata: { name: 'cluster-admin' }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }, { nonResourceURLs: ['*'], verbs: ['*'] }] },
    ],
    clusterRoleBindings: [crb('esc', 'escalator', { kind: 'User', name: 'eve' }), crb('ca', 'core-admin', { kind: 'User', name: 'ann' }), crb('root', 'cluster-admin', { kind: 'User', name: 'root' })],
  };
  const ctx = (username: string): EscalationContext => ({ authorizer: new RBACAuthorizer(staticRBACGetters(objs)), resolver: registryResolver(objs), user: { username, groups: [] } });
  const secretsRole: Role = { metadata: { name: 'myrole', namespace: 'ns1' }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['*'] }] };

  it('escalate on the role named in the URL: an update passes, a create by POST (no name in the URL) does not', async () => {
    assert.equal(await checkRoleEscalation(ctx('eve'), { resource: 'roles', namespace: 'ns1', name: 'myrole', role: secretsRole, old: { metadata: { name: 'myrole', namespace: 'ns1' } } }), undefined);
    assert.equal((await checkRoleEscalation(ctx('eve'), { resource: 'roles', namespace: 'ns1', name: '', role: secretsRole }))?.code, 403);
  });

  it('an update changing only ownerReferences and finalizers passes without the rules', async () => {
    const old: Role = { metadata: { name: 'myrole', namespace: 'ns1' }, rules: secretsRole.rules ?? [] };
    const gc: Role = { ...old, metadata: { ...old.metadata, finalizers: ['x'], ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'u' }] } };
    assert.equal(await checkRoleEscalation(ctx('bob'), { resource: 'roles', namespace: 'ns1', name: 'myrole', role: gc, old }), undefined);
  });

  it('an aggregationRule, new or old, needs `*` on everything (which grants `escalate` anyway)', async () => {
    const aggregated: ClusterRole = { metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] }, rules: [] };
    const err = await checkRoleEscalation(ctx('ann'), { resource: 'clusterroles', namespace: '', name: '', role: aggregated });
    assert.equal(err?.message, 'clusterroles.rbac.authorization.k8s.io "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule');
    assert.equal(await checkRoleEscalation(ctx('root'), { resource: 'clusterroles', namespace: '', name: '', role: aggregated }), undefined);
    const plain: ClusterRole = { metadata: { name: 'agg' }, rules: [] };
    assert.equal((await checkRoleEscalation(ctx('ann'), { resource: 'clusterroles', namespace: '', name: 'agg', role: plain, old: aggregated }))?.code, 403);
    assert.equal(await checkRoleEscalation(ctx('ann'), { resource: 'clusterroles', namespace: '', name: 'agg', role: plain, old: { ...plain, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] } }), undefined);
  });
});

describe('binding checks ({rolebinding,clusterrolebinding}/policybased storage.go)', () => {
  const objs: StaticRBACObjects = {
    roles: [{ metadata: { namespace: 'ns1', name: 'pod-reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] }],
    clusterRoles: [
      { metadata: { name: 'admin' }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] },
      { metadata: { name: 'binder' }, rules: [{ apiGroups: [RBAC], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['admin'] }] },
      { metadata: { name: 'pod-reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] },
    ],
    roleBindings: [rb('ns1', 'bob-binds', 'ClusterRole', 'binder', { kind: 'User', name: 'bob' }), rb('ns1', 'bob-reads', 'Role', 'pod-reader', { kind: 'User', name: 'bob' })],
  };
  const ctx = (username: string): EscalationContext => ({ authorizer: new RBACAuthorizer(staticRBACGetters(objs)), resolver: registryResolver(objs), user: { username, groups: [] } });
  const binding = (namespace: string, kind: 'Role' | 'ClusterRole', role: string): RoleBinding => rb(namespace, 'b', kind, role, { kind: 'User', name: 'carol' });
  const code = (err: StatusError | undefined): number | undefined => err?.code;

  it('bind on the referenced role in the binding namespace passes; the same bind does not reach cluster-wide', async () => {
    assert.equal(await checkBindingEscalation(ctx('bob'), { resource: 'rolebindings', namespace: 'ns1', binding: binding('ns1', 'ClusterRole', 'admin') }), undefined);
    assert.equal(code(await checkBindingEscalation(ctx('bob'), { resource: 'rolebindings', namespace: 'ns2', binding: binding('ns2', 'ClusterRole', 'admin') })), 403);
    const err = await checkBindingEscalation(ctx('bob'), { resource: 'clusterrolebindings', namespace: '', binding: crb('b', 'admin', { kind: 'User', name: 'carol' }) });
    assert.equal(err?.message.split('\n')[0], 'clusterrolebindings.rbac.authorization.k8s.io "b" is forbidden: user "bob" (groups=[]) is attempting to grant RBAC permissions not currently held:');
  });

  it("binding a role whose rules the user holds passes, in the binding's namespace only", async () => {
    assert.equal(await checkBindingEscalation(ctx('bob'), { resource: 'rolebindings', namespace: 'ns1', binding: binding('ns1', 'Role', 'pod-reader') }), undefined);
    assert.equal(await checkBindingEscalation(ctx('bob'), { resource: 'rolebindings', namespace: 'ns1', binding: binding('ns1', 'ClusterRole', 'pod-reader') }), undefined);
    const err = await checkBindingEscalation(ctx('bob'), { resource: 'rolebindings', namespace: 'ns2', binding: binding('ns2', 'ClusterRole', 'pod-reader') });
    assert.equal(
      err?.message,
      'rolebindings.rbac.authorization.k8s.io "b" is forbidden: user "bob" (groups=[]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["get"]}',
    );
  });

  it("a missing role is the registry's NotFound; an unknown kind a 500", async () => {
    const notFound = await checkBindingEscalation(ctx('bob'), { resource: 'rolebindings', namespace: 'ns1', binding: binding('ns1', 'Role', 'nope') });
    assert.equal(notFound?.code, 404);
    assert.equal(notFound.message, 'roles.rbac.authorization.k8s.io "nope" not found');
    const odd = await checkBindingEscalation(ctx('bob'), { resource: 'rolebindings', namespace: 'ns1', binding: binding('ns1', 'Thing' as 'Role', 'x') });
    assert.equal(odd?.code, 500);
    assert.equal(odd.message, 'unsupported role reference kind: "Thing"');
  });

  it('system:masters and GC-only updates pass without asking', async () => {
    const masters: EscalationContext = { ...ctx('root'), user: { username: 'root', groups: ['system:masters'] } };
    assert.equal(await checkBindingEscalation(masters, { resource: 'clusterrolebindings', namespace: '', binding: crb('b', 'admin') }), undefined);
    const old = binding('ns2', 'ClusterRole', 'admin');
    const gc: RoleBinding = { ...old, metadata: { ...old.metadata, finalizers: ['x'] } };
    assert.equal(await checkBindingEscalation(ctx('bob'), { resource: 'rolebindings', namespace: 'ns2', binding: gc, old }), undefined);
  });
});
