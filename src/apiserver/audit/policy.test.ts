/**
 * Ported from k8s.io/apiserver pkg/audit/policy/checker_test.go (v1.33): TestChecker,
 * TestCheckerPolicyOmitStages, TestUnionStages, TestOmitManagedFields.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newPolicyRuleEvaluator, pathMatches, unionStages } from './policy.js';
import type { AuditAttributes, AuditLevel, AuditStage, PolicyRule } from './types.js';

const tim = { username: 'tim@k8s.io', groups: ['humans', 'developers'] };

const base: AuditAttributes = {
  user: tim,
  verb: 'get',
  isResourceRequest: false,
  path: '',
  apiGroup: '',
  apiVersion: '',
  resource: '',
  subresource: '',
  namespace: '',
  name: '',
};

/** checker_test.go `attrs`. */
const attrs: Record<string, AuditAttributes> = {
  namespaced: {
    ...base,
    namespace: 'default',
    apiVersion: 'v1',
    resource: 'pods',
    name: 'busybox',
    isResourceRequest: true,
    path: '/api/v1/namespaces/default/pods/busybox',
  },
  cluster: {
    ...base,
    apiGroup: 'rbac.authorization.k8s.io',
    apiVersion: 'v1beta1',
    resource: 'clusterroles',
    name: 'edit',
    isResourceRequest: true,
    path: '/apis/rbac.authorization.k8s.io/v1beta1/clusterroles/edit',
  },
  nonResource: { ...base, path: '/logs/kubelet.log' },
  subresource: {
    ...base,
    namespace: 'default',
    apiVersion: 'v1',
    resource: 'pods',
    subresource: 'log',
    name: 'busybox',
    isResourceRequest: true,
    path: '/api/v1/namespaces/default/pods/busybox',
  },
  Unauthorized: {
    ...base,
    user: undefined,
    namespace: 'default',
    apiVersion: 'v1',
    resource: 'pods',
    name: 'busybox',
    isResourceRequest: true,
    path: '/api/v1/namespaces/default/pods/busybox',
  },
};

/** checker_test.go `rules`. */
const rules: Record<string, PolicyRule> = {
  default: { level: 'Metadata' },
  create: { level: 'Request', verbs: ['create'] },
  tims: { level: 'Metadata', users: ['tim@k8s.io'] },
  humans: { level: 'Metadata', userGroups: ['humans'] },
  serviceAccounts: { level: 'Request', userGroups: ['system:serviceaccounts'] },
  getPods: { level: 'RequestResponse', verbs: ['get'], resources: [{ resources: ['pods'] }] },
  getPodLogs: { level: 'Request', verbs: ['get'], resources: [{ resources: ['pods/log'] }] },
  getPodWildcardMatching: { level: 'Request', verbs: ['get'], resources: [{ resources: ['*'] }] },
  getPodResourceWildcardMatching: { level: 'Request', verbs: ['get'], resources: [{ resources: ['*/log'] }] },
  getPodSubResourceWildcardMatching: { level: 'Request', verbs: ['get'], resources: [{ resources: ['pods/*'] }] },
  getClusterRoles: {
    level: 'RequestResponse',
    verbs: ['get'],
    resources: [{ group: 'rbac.authorization.k8s.io', resources: ['clusterroles'] }],
    namespaces: [''],
  },
  getLogs: { level: 'RequestResponse', verbs: ['get'], nonResourceURLs: ['/logs*'] },
  getMetrics: { level: 'Request', verbs: ['get'], nonResourceURLs: ['/metrics'] },
  clusterRoleEdit: { level: 'Request', resources: [{ group: 'rbac.authorization.k8s.io', resources: ['clusterroles'], resourceNames: ['edit'] }] },
  'omit RequestReceived': { level: 'Request', omitStages: ['RequestReceived'] },
  'only audit panic': { level: 'Request', omitStages: ['RequestReceived', 'ResponseStarted', 'ResponseComplete'] },
};

/** stageEqual: the same set of stages. */
function sameStages(a: readonly AuditStage[], b: readonly AuditStage[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((s) => sb.has(s));
}

/** checker_test.go `test`. */
function check(req: string, expLevel: AuditLevel, policyStages: AuditStage[] | undefined, expOmitStages: AuditStage[], ...ruleNames: string[]): void {
  const policy = { omitStages: policyStages, rules: ruleNames.map((r) => rules[r] as PolicyRule) };
  const config = newPolicyRuleEvaluator(policy).evaluatePolicyRule(attrs[req] as AuditAttributes);
  const what = `request:${req} rules:${ruleNames.join(',')}`;
  assert.equal(config.level, expLevel, what);
  assert.ok(sameStages(expOmitStages, config.omitStages), `${what}, expected stages: ${expOmitStages.join(',')}, actual stages: ${config.omitStages.join(',')}`);
}

/** checker_test.go `testAuditLevel`. */
function testAuditLevel(stages: AuditStage[] | undefined): void {
  const s = stages ?? [];
  check('namespaced', 'Metadata', stages, s, 'default');
  check('namespaced', 'None', stages, s, 'create');
  check('namespaced', 'Metadata', stages, s, 'tims');
  check('namespaced', 'Metadata', stages, s, 'humans');
  check('namespaced', 'None', stages, s, 'serviceAccounts');
  check('namespaced', 'RequestResponse', stages, s, 'getPods');
  check('namespaced', 'None', stages, s, 'getClusterRoles');
  check('namespaced', 'None', stages, s, 'getLogs');
  check('namespaced', 'None', stages, s, 'getMetrics');
  check('namespaced', 'Metadata', stages, s, 'getMetrics', 'serviceAccounts', 'default');
  check('namespaced', 'RequestResponse', stages, s, 'getMetrics', 'getPods', 'default');
  check('namespaced', 'RequestResponse', stages, s, 'getPodLogs', 'getPods');

  check('cluster', 'Metadata', stages, s, 'default');
  check('cluster', 'None', stages, s, 'create');
  check('cluster', 'Metadata', stages, s, 'tims');
  check('cluster', 'Metadata', stages, s, 'humans');
  check('cluster', 'None', stages, s, 'serviceAccounts');
  check('cluster', 'None', stages, s, 'getPods');
  check('cluster', 'RequestResponse', stages, s, 'getClusterRoles');
  check('cluster', 'Request', stages, s, 'clusterRoleEdit', 'getClusterRoles');
  check('cluster', 'None', stages, s, 'getLogs');
  check('cluster', 'None', stages, s, 'getMetrics');
  check('cluster', 'Metadata', stages, s, 'getMetrics', 'serviceAccounts', 'default');
  check('cluster', 'RequestResponse', stages, s, 'getMetrics', 'getClusterRoles', 'default');
  check('cluster', 'None', stages, s, 'getPodLogs', 'getPods');

  check('nonResource', 'Metadata', stages, s, 'default');
  check('nonResource', 'None', stages, s, 'create');
  check('nonResource', 'Metadata', stages, s, 'tims');
  check('nonResource', 'Metadata', stages, s, 'humans');
  check('nonResource', 'None', stages, s, 'serviceAccounts');
  check('nonResource', 'None', stages, s, 'getPods');
  check('nonResource', 'None', stages, s, 'getClusterRoles');
  check('nonResource', 'RequestResponse', stages, s, 'getLogs');
  check('nonResource', 'None', stages, s, 'getMetrics');
  check('nonResource', 'Metadata', stages, s, 'getMetrics', 'serviceAccounts', 'default');
  check('nonResource', 'RequestResponse', stages, s, 'getLogs', 'getClusterRoles', 'default');
  check('nonResource', 'None', stages, s, 'getPodLogs', 'getPods');

  check('subresource', 'Request', stages, s, 'getPodLogs', 'getPods');
  check('subresource', 'Request', stages, s, 'getPodWildcardMatching');
  check('subresource', 'Request', stages, s, 'getPodResourceWildcardMatching');
  check('subresource', 'Request', stages, s, 'getPodSubResourceWildcardMatching');

  check('Unauthorized', 'None', stages, s, 'tims');
  check('Unauthorized', 'Metadata', stages, s, 'tims', 'default');
  check('Unauthorized', 'None', stages, s, 'humans');
  check('Unauthorized', 'Metadata', stages, s, 'humans', 'default');
}

describe('policy rule evaluation (upstream checker_test.go)', () => {
  test('TestChecker', () => {
    testAuditLevel(undefined);
    // omitStages of the rule.
    const rr: AuditStage[] = ['RequestReceived'];
    const allButPanic: AuditStage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete'];
    check('namespaced', 'Request', undefined, rr, 'omit RequestReceived', 'getPods', 'default');
    check('namespaced', 'Request', undefined, allButPanic, 'only audit panic', 'getPods', 'default');
    check('cluster', 'Request', undefined, rr, 'omit RequestReceived', 'getPods', 'default');
    check('cluster', 'Request', undefined, allButPanic, 'only audit panic', 'getPods', 'default');
    check('nonResource', 'Request', undefined, rr, 'omit RequestReceived', 'getPods', 'default');
    check('nonResource', 'Request', undefined, allButPanic, 'only audit panic', 'getPods', 'default');
  });

  test('TestCheckerPolicyOmitStages', () => {
    const policyStages: AuditStage[] = ['RequestReceived', 'ResponseStarted'];
    testAuditLevel(policyStages);
    // omitStages of the policy, merged with the rule's.
    const allButPanic: AuditStage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete'];
    check('namespaced', 'Request', policyStages, policyStages, 'omit RequestReceived', 'getPods', 'default');
    check('namespaced', 'Request', policyStages, allButPanic, 'only audit panic', 'getPods', 'default');
    check('cluster', 'Request', policyStages, policyStages, 'omit RequestReceived', 'getPods', 'default');
    check('cluster', 'Request', policyStages, allButPanic, 'only audit panic', 'getPods', 'default');
    check('nonResource', 'Metadata', policyStages, policyStages, 'default', 'omit RequestReceived', 'getPods');
    check('nonResource', 'Request', policyStages, allButPanic, 'only audit panic', 'getPods', 'default');
  });

  test('the evaluator leaves the policy it was given unchanged', () => {
    const policy = { omitStages: ['Panic' as const], rules: [{ level: 'Metadata' as const, omitStages: ['RequestReceived' as const] }] };
    const before = structuredClone(policy);
    newPolicyRuleEvaluator(policy).evaluatePolicyRule(attrs['namespaced'] as AuditAttributes);
    assert.deepEqual(policy, before);
  });
});

describe('unionStages (upstream TestUnionStages)', () => {
  const cases: [AuditStage[] | undefined, AuditStage[], AuditStage[]][] = [
    [[], [], []],
    [['RequestReceived'], [], ['RequestReceived']],
    [['RequestReceived'], ['RequestReceived'], ['RequestReceived']],
    [['RequestReceived'], ['ResponseStarted'], ['RequestReceived', 'ResponseStarted']],
    [['RequestReceived', 'RequestReceived'], ['RequestReceived', 'RequestReceived'], ['RequestReceived']],
    [['RequestReceived', 'ResponseStarted'], ['Panic', 'RequestReceived'], ['RequestReceived', 'ResponseStarted', 'Panic']],
    [undefined, ['RequestReceived'], ['RequestReceived']],
  ];
  cases.forEach(([s1, s2, exp], i) => {
    test(`case ${i}`, () => {
      const result = unionStages(s1, s2);
      assert.equal(result.length, exp.length);
      for (const s of exp) assert.ok(result.includes(s));
    });
  });
});

describe('omitManagedFields (upstream TestOmitManagedFields)', () => {
  // These attributes match every rule of the test.
  const attributes: AuditAttributes = { ...base, user: undefined };
  const rule: PolicyRule = { level: 'RequestResponse', verbs: ['get'] };
  const cases: [string, boolean, boolean | undefined, boolean][] = [
    ['global policy default is false, rule does not override', false, undefined, false],
    ['global policy default is true, rule does not override', true, undefined, true],
    ['global policy default is true, rule overrides to false', true, false, false],
    ['global policy default is false, rule overrides to true', false, true, true],
  ];
  for (const [name, policyDefault, ruleValue, want] of cases) {
    test(name, () => {
      const r: PolicyRule = ruleValue === undefined ? rule : { ...rule, omitManagedFields: ruleValue };
      const got = newPolicyRuleEvaluator({ omitManagedFields: policyDefault, rules: [r] }).evaluatePolicyRule(attributes);
      assert.equal(got.omitManagedFields, want);
    });
  }

  test('no matching rule: level None with the policy defaults', () => {
    const got = newPolicyRuleEvaluator({ omitManagedFields: true, omitStages: ['Panic'], rules: [{ level: 'Metadata', verbs: ['create'] }] }).evaluatePolicyRule(attributes);
    assert.deepEqual(got, { level: 'None', omitStages: ['Panic'], omitManagedFields: true });
  });
});

describe('resource and path matching (checker.go ruleMatchesResource, pathMatches)', () => {
  const pod = attrs['namespaced'] as AuditAttributes;
  const status: AuditAttributes = { ...pod, subresource: 'status' };
  const level = (rule: PolicyRule, a: AuditAttributes): AuditLevel => newPolicyRuleEvaluator({ rules: [rule] }).evaluatePolicyRule(a).level;

  test('`*/status` matches the status subresource of any resource, not the resource itself', () => {
    const rule: PolicyRule = { level: 'Metadata', resources: [{ resources: ['*/status'] }] };
    assert.equal(level(rule, status), 'Metadata');
    assert.equal(level(rule, pod), 'None');
  });

  test('`pods/*` matches pods itself and every subresource of pods', () => {
    const rule: PolicyRule = { level: 'Metadata', resources: [{ resources: ['pods/*'] }] };
    assert.equal(level(rule, pod), 'Metadata');
    assert.equal(level(rule, status), 'Metadata');
    assert.equal(level(rule, { ...pod, resource: 'services' }), 'None');
  });

  test('a plain resource does not match its subresources', () => {
    assert.equal(level({ level: 'Metadata', resources: [{ resources: ['pods'] }] }, status), 'None');
  });

  test('a group entry without resources matches every resource of the group; other groups do not match', () => {
    assert.equal(level({ level: 'Metadata', resources: [{ group: '' }] }, pod), 'Metadata');
    assert.equal(level({ level: 'Metadata', resources: [{ group: 'apps' }] }, pod), 'None');
  });

  test('resourceNames limit the names', () => {
    const rule: PolicyRule = { level: 'Metadata', resources: [{ resources: ['pods'], resourceNames: ['other'] }] };
    assert.equal(level(rule, pod), 'None');
    assert.equal(level(rule, { ...pod, name: 'other' }), 'Metadata');
  });

  test("namespaces: '' is cluster-scoped; a namespace rule never matches non-resource requests", () => {
    assert.equal(level({ level: 'Metadata', namespaces: [''] }, attrs['cluster'] as AuditAttributes), 'Metadata');
    assert.equal(level({ level: 'Metadata', namespaces: [''] }, pod), 'None');
    assert.equal(level({ level: 'Metadata', namespaces: ['default'] }, pod), 'Metadata');
    assert.equal(level({ level: 'Metadata', namespaces: [''] }, attrs['nonResource'] as AuditAttributes), 'None');
  });

  test('nonResourceURLs never match resource requests', () => {
    assert.equal(level({ level: 'Metadata', nonResourceURLs: ['*'] }, pod), 'None');
    assert.equal(level({ level: 'Metadata', nonResourceURLs: ['*'] }, attrs['nonResource'] as AuditAttributes), 'Metadata');
  });

  test('pathMatches: `*`, exact, trailing `*` prefix', () => {
    assert.ok(pathMatches('/healthz', '*'));
    assert.ok(pathMatches('/version', '/version'));
    assert.ok(!pathMatches('/version/x', '/version'));
    assert.ok(pathMatches('/healthz/etcd', '/healthz*'));
    assert.ok(pathMatches('/healthz', '/healthz*'));
    assert.ok(pathMatches('/healthz/etcd', '/healthz/**'));
    assert.ok(!pathMatches('/livez', '/healthz*'));
  });
});
