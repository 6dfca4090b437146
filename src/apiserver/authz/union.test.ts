/**
 * The union and built-in authorizers. Ported from upstream k8s.io/apiserver
 * pkg/authorization/union/union_test.go (TestAuthorizationSecondPasses, …FirstPasses, …NonePasses,
 * …Error, …ResourceRules, …NonResourceRules, …UnequivocalDeny with its 4 cases); the built-ins follow
 * pkg/authorization/authorizerfactory/builtin.go.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Attributes, AuthorizationResult, Authorizer, Decision, RuleResolver, SubjectRules } from './types.js';
import { alwaysAllowAuthorizer, alwaysDenyAuthorizer, privilegedGroupsAuthorizer, unionAuthorizer, unionRuleResolver } from './union.js';

const attrs: Attributes = { user: { username: 'u', groups: [] }, verb: 'get', resourceRequest: true, path: '', namespace: '', apiGroup: '', apiVersion: 'v1', resource: 'pods', subresource: '', name: '' };
const mock = (decision: Decision, error?: string, reason = ''): Authorizer => ({ authorize: () => ({ decision, reason, ...(error === undefined ? {} : { error }) }) });
const decide = async (a: Authorizer): Promise<AuthorizationResult> => a.authorize(attrs);

describe('union authorizer (upstream union_test.go)', () => {
  it('TestAuthorizationSecondPasses', async () => {
    assert.equal((await decide(unionAuthorizer(mock('NoOpinion'), mock('Allow')))).decision, 'Allow');
  });
  it('TestAuthorizationFirstPasses', async () => {
    assert.equal((await decide(unionAuthorizer(mock('Allow'), mock('NoOpinion')))).decision, 'Allow');
  });
  it('TestAuthorizationNonePasses', async () => {
    assert.notEqual((await decide(unionAuthorizer(mock('NoOpinion'), mock('NoOpinion')))).decision, 'Allow');
  });
  it('TestAuthorizationError: the errors are returned, aggregated (the same message once)', async () => {
    assert.equal((await decide(unionAuthorizer(mock('NoOpinion', 'foo'), mock('NoOpinion', 'foo')))).error, 'foo');
    assert.equal((await decide(unionAuthorizer(mock('NoOpinion', 'foo'), mock('NoOpinion', 'bar')))).error, '[foo, bar]');
  });

  const unequivocal: { authorizers: Authorizer[]; decision: Decision }[] = [
    { authorizers: [], decision: 'NoOpinion' },
    { authorizers: [mock('NoOpinion'), mock('Allow'), mock('Deny')], decision: 'Allow' },
    { authorizers: [mock('NoOpinion'), mock('Deny'), mock('Allow')], decision: 'Deny' },
    { authorizers: [mock('NoOpinion'), mock('Deny', 'webhook failed closed'), mock('Allow')], decision: 'Deny' },
  ];
  unequivocal.forEach((c, i) => {
    it(`TestAuthorizationUnequivocalDeny case ${i}`, async () => {
      assert.equal((await decide(unionAuthorizer(...c.authorizers))).decision, c.decision);
    });
  });

  it("the deciding authorizer's reason and error; reasons of no-opinions joined by newlines", async () => {
    assert.deepEqual(await decide(unionAuthorizer(mock('NoOpinion', 'e1', 'r1'), mock('Deny', 'e2', 'r2'))), { decision: 'Deny', reason: 'r2', error: 'e2' });
    assert.deepEqual(await decide(unionAuthorizer(mock('NoOpinion', undefined, 'r1'), mock('NoOpinion'), mock('NoOpinion', undefined, 'r3'))), { decision: 'NoOpinion', reason: 'r1\nr3' });
  });

  it('answers synchronously while its authorizers do; awaits an asynchronous one and stops at its decision', async () => {
    assert.deepEqual(unionAuthorizer(mock('NoOpinion'), mock('Allow')).authorize(attrs), { decision: 'Allow', reason: '' });
    let asked = 0;
    const later: Authorizer = { authorize: () => Promise.resolve({ decision: 'NoOpinion' as const, reason: 'later' }) };
    const counting: Authorizer = {
      authorize: () => {
        asked++;
        return { decision: 'Allow', reason: '' };
      },
    };
    const answer = unionAuthorizer(mock('NoOpinion'), later, counting).authorize(attrs);
    assert.ok(answer instanceof Promise);
    assert.deepEqual(await answer, { decision: 'Allow', reason: '' });
    assert.equal(asked, 1);
    const denied = unionAuthorizer({ authorize: () => Promise.resolve({ decision: 'Deny' as const, reason: 'no' }) }, counting).authorize(attrs);
    assert.deepEqual(await denied, { decision: 'Deny', reason: 'no' });
    assert.equal(asked, 1);
  });
});

describe('union rule resolver (upstream union_test.go)', () => {
  const resolver = (rules: Partial<SubjectRules>): RuleResolver => ({ rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: false, ...rules }) });

  it('TestAuthorizationResourceRules: concatenated in order', async () => {
    const handler1 = resolver({
      resourceRules: [
        { verbs: ['*'], apiGroups: ['*'], resources: ['bindings'], resourceNames: [] },
        { verbs: ['get', 'list', 'watch'], apiGroups: ['*'], resources: ['*'], resourceNames: [] },
      ],
    });
    const handler2 = resolver({
      resourceRules: [
        { verbs: ['*'], apiGroups: ['*'], resources: ['events'], resourceNames: [] },
        { verbs: ['get'], apiGroups: ['*'], resources: ['*'], resourceNames: ['foo'] },
      ],
    });
    const { resourceRules } = await unionRuleResolver(handler1, handler2).rulesFor({ username: '', groups: [] }, '');
    assert.deepEqual(resourceRules, [
      { verbs: ['*'], apiGroups: ['*'], resources: ['bindings'], resourceNames: [] },
      { verbs: ['get', 'list', 'watch'], apiGroups: ['*'], resources: ['*'], resourceNames: [] },
      { verbs: ['*'], apiGroups: ['*'], resources: ['events'], resourceNames: [] },
      { verbs: ['get'], apiGroups: ['*'], resources: ['*'], resourceNames: ['foo'] },
    ]);
  });

  it('TestAuthorizationNonResourceRules: concatenated in order', async () => {
    const handler1 = resolver({ nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/api'] }] });
    const handler2 = resolver({ nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/api/*'] }] });
    const { nonResourceRules } = await unionRuleResolver(handler1, handler2).rulesFor({ username: '', groups: [] }, '');
    assert.deepEqual(nonResourceRules, [
      { verbs: ['get'], nonResourceURLs: ['/api'] },
      { verbs: ['get'], nonResourceURLs: ['/api/*'] },
    ]);
  });

  it('incomplete if any is; errors aggregated; a promise when any resolver answers with one', async () => {
    const answer = unionRuleResolver(resolver({ error: 'a' }), { rulesFor: () => Promise.resolve({ resourceRules: [], nonResourceRules: [], incomplete: true, error: 'b' }) }).rulesFor({ username: '', groups: [] }, '');
    assert.ok(answer instanceof Promise);
    assert.deepEqual(await answer, { resourceRules: [], nonResourceRules: [], incomplete: true, error: '[a, b]' });
    assert.deepEqual(unionRuleResolver(resolver({})).rulesFor({ username: '', groups: [] }, ''), { resourceRules: [], nonResourceRules: [], incomplete: false });
  });
});

describe('built-in authorizers (authorizerfactory/builtin.go)', () => {
  it('always allow: Allow, and `*` rules', () => {
    const a = alwaysAllowAuthorizer();
    assert.deepEqual(a.authorize(attrs), { decision: 'Allow', reason: '' });
    assert.deepEqual(a.rulesFor({ username: 'x', groups: [] }, 'ns'), {
      resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [] }],
      nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    });
  });

  it('always deny: no opinion, `Everything is forbidden.`, no rules', () => {
    const a = alwaysDenyAuthorizer();
    assert.deepEqual(a.authorize(attrs), { decision: 'NoOpinion', reason: 'Everything is forbidden.' });
    assert.deepEqual(a.rulesFor({ username: 'x', groups: [] }, 'ns'), { resourceRules: [], nonResourceRules: [], incomplete: false });
  });

  it('privileged groups: Allow for a member, no opinion otherwise, an error without a user', () => {
    const a = privilegedGroupsAuthorizer(['system:masters']);
    assert.deepEqual(a.authorize({ ...attrs, user: { username: 'root', groups: ['system:authenticated', 'system:masters'] } }), { decision: 'Allow', reason: '' });
    assert.deepEqual(a.authorize(attrs), { decision: 'NoOpinion', reason: '' });
    assert.deepEqual(a.authorize({ ...attrs, user: undefined }), { decision: 'NoOpinion', reason: 'Error', error: 'no user on request.' });
  });
});
