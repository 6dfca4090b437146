/**
 * Impersonation. Ports k8s.io/apiserver pkg/endpoints/filters/impersonation_test.go (v0.33.9):
 * `impersonateAuthorizer` as an {@link Authorizer} and every case of TestImpersonationFilter (25). A
 * 200 case compares the user the request runs as; a 403 case expects a StatusError 403 Forbidden; the
 * "…-without-user" cases, which upstream answers with 500 (`responsewriters.InternalError` of
 * buildImpersonationRequests' error), are a 400 BadRequest here by design (impersonation.ts: no
 * server fault is involved). Upstream's impersonated user always has an `Extra` map (empty when no
 * extras are given); ours has `extra` only when some are.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../machinery/errors/index.js';
import type { Attributes, AuthorizationResult, Authorizer } from '../authz/types.js';
import type { UserInfo } from './index.js';
import { impersonate, wantsImpersonation, type Headers } from './impersonation.js';

const allow: AuthorizationResult = { decision: 'Allow', reason: '' };

/** impersonation_test.go `impersonateAuthorizer`, rule for rule. */
function impersonateAuthorize(a: Attributes): AuthorizationResult {
  const name = a.user?.username ?? '';
  const groups = a.user?.groups ?? [];
  switch (name) {
    case 'system:admin':
      return allow;
    case 'tester':
      return { decision: 'NoOpinion', reason: '', error: 'works on my machine' };
    case 'deny-me':
      return { decision: 'NoOpinion', reason: 'denied' };
  }
  const [g0, g1] = groups;
  const impersonate = a.verb === 'impersonate';
  if (g0 === 'wheel' && impersonate && a.resource === 'users') return allow;
  if (g0 === 'sa-impersonater' && impersonate && a.resource === 'serviceaccounts') return allow;
  if (g0 === 'regular-impersonater' && impersonate && a.resource === 'users') return allow;
  if (g1 === 'group-impersonater' && impersonate && a.resource === 'groups') return allow;
  if (g1 === 'extra-setter-scopes' && impersonate && a.resource === 'userextras' && a.subresource === 'scopes') return allow;
  if (g1 === 'escaped-scopes' || g1 === 'almost-escaped-scopes') return allow;
  if (g1 === 'extra-setter-particular-scopes' && impersonate && a.resource === 'userextras' && a.subresource === 'scopes' && a.name === 'scope-a' && a.apiGroup === 'authentication.k8s.io') return allow;
  if (g1 === 'extra-setter-project' && impersonate && a.resource === 'userextras' && a.subresource === 'project' && a.apiGroup === 'authentication.k8s.io') return allow;
  if (g0 === 'everything-impersonater' && impersonate && a.resource === 'users' && a.apiGroup === '') return allow;
  if (g0 === 'everything-impersonater' && impersonate && a.resource === 'uids' && a.name === 'some-uid' && a.apiGroup === 'authentication.k8s.io') return allow;
  if (g0 === 'everything-impersonater' && impersonate && a.resource === 'groups' && a.apiGroup === '') return allow;
  if (g0 === 'everything-impersonater' && impersonate && a.resource === 'userextras' && a.subresource === 'scopes' && a.apiGroup === 'authentication.k8s.io') return allow;
  return { decision: 'NoOpinion', reason: 'deny by default' };
}

/** The test authorizer, recording what it is asked. */
function recordingAuthorizer(): Authorizer & { asked: Attributes[] } {
  const asked: Attributes[] = [];
  return {
    asked,
    authorize(attrs) {
      asked.push(attrs);
      return impersonateAuthorize(attrs);
    },
  };
}

interface Case {
  name: string;
  user: UserInfo;
  impersonationUser?: string;
  impersonationGroups?: string[];
  impersonationUserExtras?: Record<string, string[]>;
  impersonationUid?: string;
  /** The user the request runs as (200 cases). */
  expectedUser?: UserInfo;
  expectedCode: 200 | 400 | 403;
}

/** The headers as node:http gives them: lower-case names, a repeated header as an array. */
function headersOf(c: Case): Headers {
  const one = (values: string[]): string | string[] => (values.length === 1 ? (values[0] as string) : values);
  const headers: Headers = {};
  if (c.impersonationUser) headers['impersonate-user'] = c.impersonationUser;
  if (c.impersonationGroups) headers['impersonate-group'] = one(c.impersonationGroups);
  for (const [key, values] of Object.entries(c.impersonationUserExtras ?? {})) headers[`impersonate-extra-${key.toLowerCase()}`] = one(values);
  if (c.impersonationUid) headers['impersonate-uid'] = c.impersonationUid;
  return headers;
}

const cases: Case[] = [
  { name: 'not-impersonating', user: { username: 'tester', groups: [] }, expectedUser: { username: 'tester', groups: [] }, expectedCode: 200 },
  { name: 'impersonating-error', user: { username: 'tester', groups: [] }, impersonationUser: 'anyone', expectedCode: 403 },
  // Upstream: 500 (InternalError). Here: 400, deliberately.
  { name: 'impersonating-group-without-user', user: { username: 'tester', groups: [] }, impersonationGroups: ['some-group'], expectedCode: 400 },
  { name: 'impersonating-extra-without-user', user: { username: 'tester', groups: [] }, impersonationUserExtras: { scopes: ['scope-a'] }, expectedCode: 400 },
  { name: 'impersonating-uid-without-user', user: { username: 'tester', groups: [] }, impersonationUid: 'some-uid', expectedCode: 400 },
  { name: 'disallowed-group', user: { username: 'dev', groups: ['wheel'] }, impersonationUser: 'system:admin', impersonationGroups: ['some-group'], expectedCode: 403 },
  {
    name: 'allowed-group',
    user: { username: 'dev', groups: ['wheel', 'group-impersonater'] },
    impersonationUser: 'system:admin',
    impersonationGroups: ['some-group'],
    expectedUser: { username: 'system:admin', groups: ['some-group', 'system:authenticated'] },
    expectedCode: 200,
  },
  {
    name: 'disallowed-userextra-1',
    user: { username: 'dev', groups: ['wheel'] },
    impersonationUser: 'system:admin',
    impersonationGroups: ['some-group'],
    impersonationUserExtras: { scopes: ['scope-a'] },
    expectedCode: 403,
  },
  {
    name: 'disallowed-userextra-2',
    user: { username: 'dev', groups: ['wheel', 'extra-setter-project'] },
    impersonationUser: 'system:admin',
    impersonationGroups: ['some-group'],
    impersonationUserExtras: { scopes: ['scope-a'] },
    expectedCode: 403,
  },
  {
    name: 'disallowed-userextra-3',
    user: { username: 'dev', groups: ['wheel', 'extra-setter-particular-scopes'] },
    impersonationUser: 'system:admin',
    impersonationGroups: ['some-group'],
    impersonationUserExtras: { scopes: ['scope-a', 'scope-b'] },
    expectedCode: 403,
  },
  {
    name: 'allowed-userextras',
    user: { username: 'dev', groups: ['wheel', 'extra-setter-scopes'] },
    impersonationUser: 'system:admin',
    impersonationUserExtras: { scopes: ['scope-a', 'scope-b'] },
    expectedUser: { username: 'system:admin', groups: ['system:authenticated'], extra: { scopes: ['scope-a', 'scope-b'] } },
    expectedCode: 200,
  },
  {
    name: 'percent-escaped-userextras',
    user: { username: 'dev', groups: ['wheel', 'escaped-scopes'] },
    impersonationUser: 'system:admin',
    impersonationUserExtras: { 'example.com%2fescaped%e1%9b%84scopes': ['scope-a', 'scope-b'] },
    expectedUser: { username: 'system:admin', groups: ['system:authenticated'], extra: { 'example.com/escapedᛄscopes': ['scope-a', 'scope-b'] } },
    expectedCode: 200,
  },
  {
    name: 'almost-percent-escaped-userextras',
    user: { username: 'dev', groups: ['wheel', 'almost-escaped-scopes'] },
    impersonationUser: 'system:admin',
    impersonationUserExtras: { 'almost%zzpercent%xxencoded': ['scope-a', 'scope-b'] },
    expectedUser: { username: 'system:admin', groups: ['system:authenticated'], extra: { 'almost%zzpercent%xxencoded': ['scope-a', 'scope-b'] } },
    expectedCode: 200,
  },
  {
    name: 'allowed-users-impersonation',
    user: { username: 'dev', groups: ['regular-impersonater'] },
    impersonationUser: 'tester',
    expectedUser: { username: 'tester', groups: ['system:authenticated'] },
    expectedCode: 200,
  },
  { name: 'disallowed-impersonating', user: { username: 'dev', groups: ['sa-impersonater'] }, impersonationUser: 'tester', expectedCode: 403 },
  {
    name: 'allowed-sa-impersonating',
    user: { username: 'dev', groups: ['sa-impersonater'], extra: {} },
    impersonationUser: 'system:serviceaccount:foo:default',
    expectedUser: { username: 'system:serviceaccount:foo:default', groups: ['system:serviceaccounts', 'system:serviceaccounts:foo', 'system:authenticated'] },
    expectedCode: 200,
  },
  {
    name: 'anonymous-username-prevents-adding-authenticated-group',
    user: { username: 'system:admin', groups: [] },
    impersonationUser: 'system:anonymous',
    expectedUser: { username: 'system:anonymous', groups: ['system:unauthenticated'] },
    expectedCode: 200,
  },
  {
    name: 'unauthenticated-group-prevents-adding-authenticated-group',
    user: { username: 'system:admin', groups: [] },
    impersonationUser: 'unknown',
    impersonationGroups: ['system:unauthenticated'],
    expectedUser: { username: 'unknown', groups: ['system:unauthenticated'] },
    expectedCode: 200,
  },
  {
    name: 'unauthenticated-group-prevents-double-adding-authenticated-group',
    user: { username: 'system:admin', groups: [] },
    impersonationUser: 'unknown',
    impersonationGroups: ['system:authenticated'],
    expectedUser: { username: 'unknown', groups: ['system:authenticated'] },
    expectedCode: 200,
  },
  {
    name: 'specified-authenticated-group-prevents-double-adding-authenticated-group',
    user: { username: 'dev', groups: ['wheel', 'group-impersonater'] },
    impersonationUser: 'system:admin',
    impersonationGroups: ['some-group', 'system:authenticated'],
    expectedUser: { username: 'system:admin', groups: ['some-group', 'system:authenticated'] },
    expectedCode: 200,
  },
  {
    name: 'anonymous-user-should-include-unauthenticated-group',
    user: { username: 'system:admin', groups: [] },
    impersonationUser: 'system:anonymous',
    expectedUser: { username: 'system:anonymous', groups: ['system:unauthenticated'] },
    expectedCode: 200,
  },
  {
    name: 'anonymous-user-prevents-double-adding-unauthenticated-group',
    user: { username: 'system:admin', groups: [] },
    impersonationUser: 'system:anonymous',
    impersonationGroups: ['system:unauthenticated'],
    expectedUser: { username: 'system:anonymous', groups: ['system:unauthenticated'] },
    expectedCode: 200,
  },
  {
    name: 'allowed-user-impersonation-with-uid',
    user: { username: 'dev', groups: ['everything-impersonater'] },
    impersonationUser: 'tester',
    impersonationUid: 'some-uid',
    expectedUser: { username: 'tester', groups: ['system:authenticated'], uid: 'some-uid' },
    expectedCode: 200,
  },
  {
    name: 'disallowed-user-impersonation-with-uid',
    user: { username: 'dev', groups: ['everything-impersonater'] },
    impersonationUser: 'tester',
    impersonationUid: 'disallowed-uid',
    expectedCode: 403,
  },
  {
    name: 'allowed-impersonation-with-all-headers',
    user: { username: 'dev', groups: ['everything-impersonater'] },
    impersonationUser: 'tester',
    impersonationUid: 'some-uid',
    impersonationGroups: ['system:authenticated'],
    impersonationUserExtras: { scopes: ['scope-a', 'scope-b'] },
    expectedUser: { username: 'tester', groups: ['system:authenticated'], uid: 'some-uid', extra: { scopes: ['scope-a', 'scope-b'] } },
    expectedCode: 200,
  },
];

describe('impersonate (impersonation_test.go TestImpersonationFilter)', () => {
  test('the table has all 25 upstream cases', () => {
    assert.equal(cases.length, 25);
  });
  for (const c of cases) {
    test(`${c.name}: ${String(c.expectedCode)}`, async () => {
      const run = impersonate(c.user, headersOf(c), recordingAuthorizer());
      if (c.expectedCode === 200) {
        assert.deepEqual(await run, c.expectedUser);
        return;
      }
      await assert.rejects(run, (err: unknown) => {
        assert.ok(err instanceof StatusError);
        assert.equal(err.code, c.expectedCode);
        assert.equal(err.reason, c.expectedCode === 403 ? 'Forbidden' : 'BadRequest');
        return true;
      });
    });
  }
});

describe('impersonate: the checks made and the 403 answered', () => {
  test('the Forbidden message and Status of a refused user (disallowed-impersonating)', async () => {
    await assert.rejects(impersonate({ username: 'dev', groups: ['sa-impersonater'] }, { 'impersonate-user': 'tester' }, recordingAuthorizer()), (err: unknown) => {
      assert.ok(err instanceof StatusError);
      assert.deepEqual(err.status, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'users "tester" is forbidden: User "dev" cannot impersonate resource "users" in API group "" at the cluster scope: deny by default',
        reason: 'Forbidden',
        details: { name: 'tester', kind: 'users' },
        code: 403,
      });
      return true;
    });
  });

  test('a service-account name with an invalid namespace or name is an ordinary user (serviceaccount.SplitUsername)', async () => {
    const auth = recordingAuthorizer();
    const user = await impersonate({ username: 'dev', groups: ['wheel'] }, { 'impersonate-user': 'system:serviceaccount:Foo_Bar:default' }, auth);
    assert.deepEqual(user, { username: 'system:serviceaccount:Foo_Bar:default', groups: ['system:authenticated'] });
    assert.deepEqual(auth.asked.map((a) => [a.resource, a.namespace, a.name]), [['users', '', 'system:serviceaccount:Foo_Bar:default']]);
  });

  test('impersonating-error: an authorizer error with no reason leaves the message bare', async () => {
    // Upstream's Forbidden gets only the (empty) reason here, so its message ends at "cluster scope".
    await assert.rejects(impersonate({ username: 'tester', groups: [] }, { 'impersonate-user': 'anyone' }, recordingAuthorizer()), {
      message: 'users "anyone" is forbidden: User "tester" cannot impersonate resource "users" in API group "" at the cluster scope',
    });
  });

  test('a refused group, extra and uid name their resource and API group', async () => {
    const dev = { username: 'dev', groups: ['wheel'] };
    await assert.rejects(impersonate(dev, { 'impersonate-user': 'system:admin', 'impersonate-group': 'some-group' }, recordingAuthorizer()), {
      message: 'groups "some-group" is forbidden: User "dev" cannot impersonate resource "groups" in API group "" at the cluster scope: deny by default',
    });
    await assert.rejects(impersonate(dev, { 'impersonate-user': 'system:admin', 'impersonate-extra-scopes': 'scope-a' }, recordingAuthorizer()), {
      message: 'userextras.authentication.k8s.io "scope-a" is forbidden: User "dev" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope: deny by default',
    });
    await assert.rejects(impersonate(dev, { 'impersonate-user': 'system:admin', 'impersonate-uid': 'u-1' }, recordingAuthorizer()), {
      message: 'uids.authentication.k8s.io "u-1" is forbidden: User "dev" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope: deny by default',
    });
  });

  test('a service account is checked as serviceaccounts in its namespace', async () => {
    await assert.rejects(impersonate({ username: 'dev', groups: ['wheel'] }, { 'impersonate-user': 'system:serviceaccount:foo:default' }, recordingAuthorizer()), {
      message: 'serviceaccounts "default" is forbidden: User "dev" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "foo": deny by default',
    });
  });

  test('with all headers: the requestor is checked for user, groups, each extra value and uid, in that order', async () => {
    const authz = recordingAuthorizer();
    const requestor = { username: 'dev', groups: ['everything-impersonater'] };
    const headers: Headers = { 'impersonate-user': 'tester', 'impersonate-group': ['g1', 'g2'], 'impersonate-extra-scopes': ['scope-a', 'scope-b'], 'impersonate-uid': 'some-uid' };
    await impersonate(requestor, headers, authz);
    assert.deepEqual(
      authz.asked.map((a) => [a.user, a.verb, a.resourceRequest, a.apiGroup, a.resource, a.subresource, a.namespace, a.name]),
      [
        [requestor, 'impersonate', true, '', 'users', '', '', 'tester'],
        [requestor, 'impersonate', true, '', 'groups', '', '', 'g1'],
        [requestor, 'impersonate', true, '', 'groups', '', '', 'g2'],
        [requestor, 'impersonate', true, 'authentication.k8s.io', 'userextras', 'scopes', '', 'scope-a'],
        [requestor, 'impersonate', true, 'authentication.k8s.io', 'userextras', 'scopes', '', 'scope-b'],
        [requestor, 'impersonate', true, 'authentication.k8s.io', 'uids', '', '', 'some-uid'],
      ],
    );
  });

  test('the first refusal ends the checks', async () => {
    const authz = recordingAuthorizer();
    await assert.rejects(impersonate({ username: 'dev', groups: ['wheel'] }, { 'impersonate-user': 'x', 'impersonate-group': ['g1', 'g2'] }, authz), { code: 403 });
    assert.deepEqual(
      authz.asked.map((a) => `${a.resource}/${a.name}`),
      ['users/x', 'groups/g1'],
    );
  });

  test('without a user nothing is asked of the authorizer; the 400 lists what was requested', async () => {
    const authz = recordingAuthorizer();
    await assert.rejects(impersonate({ username: 'tester', groups: [] }, { 'impersonate-group': 'some-group', 'impersonate-uid': 'u' }, authz), {
      code: 400,
      message: 'requested groups/some-group, uids/u without impersonating a user',
    });
    assert.equal(authz.asked.length, 0);
  });

  test('not impersonating: the requestor itself, the authorizer not asked; other headers do not count', async () => {
    const authz = recordingAuthorizer();
    const requestor = { username: 'tester', groups: [] };
    assert.equal(await impersonate(requestor, { authorization: 'Bearer x', 'user-agent': 'kubectl' }, authz), requestor);
    assert.equal(authz.asked.length, 0);
    assert.equal(wantsImpersonation({ 'user-agent': 'kubectl' }), false);
    assert.equal(wantsImpersonation({ 'impersonate-extra-scopes': 'a' }), true);
  });

  test('an impersonated service account with groups given gets those groups, not its own', async () => {
    const user = await impersonate({ username: 'system:admin', groups: [] }, { 'impersonate-user': 'system:serviceaccount:foo:default', 'impersonate-group': 'team' }, recordingAuthorizer());
    assert.deepEqual(user, { username: 'system:serviceaccount:foo:default', groups: ['team', 'system:authenticated'] });
  });
});
