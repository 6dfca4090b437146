/**
 * The 403 of a refused request. Ports k8s.io/apiserver
 * pkg/endpoints/handlers/responsewriters/errors_test.go (v0.33.9) TestForbidden: its 5 cases, with
 * upstream's expected response bodies kept verbatim (Go's JSON writes `&` as `\u0026`; parsed, the
 * message is `…path "/&lt;script&gt;"`, errors.go's sanitizer at work) and compared with our Status.
 * The reason suffix and {@link authorizeOrForbid} follow errors.go `ForbiddenStatusError` (the reason
 * after a colon, not sanitized) and filters/authorization.go (only Allow passes).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../machinery/errors/index.js';
import { authorizeOrForbid, forbiddenError, forbiddenMessage } from './forbidden.js';
import type { Attributes, AuthorizationResult } from './types.js';

const u = { username: 'NAME', groups: [] };
const none: Attributes = { user: u, verb: '', resourceRequest: false, path: '', namespace: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '' };
const attrs = (a: Partial<Attributes>): Attributes => ({ ...none, ...a });

describe('forbiddenError (errors_test.go TestForbidden)', () => {
  const cases: { expected: string; attributes: Attributes; reason: string }[] = [
    {
      expected: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \\"NAME\\" cannot GET path \\"/whatever\\"","reason":"Forbidden","details":{},"code":403}
`,
      attributes: attrs({ verb: 'GET', path: '/whatever' }),
      reason: '',
    },
    {
      expected: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \\"NAME\\" cannot GET path \\"/\\u0026lt;script\\u0026gt;\\"","reason":"Forbidden","details":{},"code":403}
`,
      attributes: attrs({ verb: 'GET', path: '/<script>' }),
      reason: '',
    },
    {
      expected: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pod is forbidden: User \\"NAME\\" cannot get resource \\"pod\\" in API group \\"\\" at the cluster scope","reason":"Forbidden","details":{"kind":"pod"},"code":403}
`,
      attributes: attrs({ verb: 'get', resource: 'pod', resourceRequest: true }),
      reason: '',
    },
    {
      expected: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pod \\"mypod\\" is forbidden: User \\"NAME\\" cannot get resource \\"pod\\" in API group \\"\\" at the cluster scope","reason":"Forbidden","details":{"name":"mypod","kind":"pod"},"code":403}
`,
      attributes: attrs({ verb: 'get', resource: 'pod', resourceRequest: true, name: 'mypod' }),
      reason: '',
    },
    {
      expected: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pod.v2 is forbidden: User \\"NAME\\" cannot get resource \\"pod/quota\\" in API group \\"v2\\" in the namespace \\"test\\"","reason":"Forbidden","details":{"group":"v2","kind":"pod"},"code":403}
`,
      attributes: attrs({ verb: 'get', namespace: 'test', apiGroup: 'v2', resource: 'pod', subresource: 'quota', resourceRequest: true }),
      reason: '',
    },
  ];
  cases.forEach((c, i) => {
    test(`case ${String(i)}: ${c.attributes.resourceRequest ? 'resource' : 'path'} ${c.attributes.resource || c.attributes.path}`, () => {
      const err = forbiddenError(c.attributes, c.reason);
      assert.ok(err instanceof StatusError);
      assert.equal(err.code, 403);
      assert.equal(err.reason, 'Forbidden');
      assert.deepEqual(err.status, JSON.parse(c.expected));
      // The fields in metav1.Status's order, as upstream writes them (save Go's HTML escaping).
      assert.equal(`${JSON.stringify(err.status)}\n`, c.expected.replaceAll('\\u0026', '&'));
      assert.equal(err.message, err.status.message);
    });
  });
});

describe('forbiddenMessage and the reason (errors.go)', () => {
  test('the reason follows the message after a colon', () => {
    const err = forbiddenError(attrs({ verb: 'list', resource: 'pods', resourceRequest: true, namespace: 'default' }), 'RBAC: clusterrole.rbac.authorization.k8s.io "missing" not found');
    assert.equal(err.status.message, 'pods is forbidden: User "NAME" cannot list resource "pods" in API group "" in the namespace "default": RBAC: clusterrole.rbac.authorization.k8s.io "missing" not found');
  });

  test('&, < and > of the message are escaped, the reason is not (only forbiddenMessage is sanitized)', () => {
    const err = forbiddenError(attrs({ verb: 'get', path: '/a&b<c>' }), 'see <docs> & more');
    assert.equal(err.status.message, 'forbidden: User "NAME" cannot get path "/a&amp;b&lt;c&gt;": see <docs> & more');
    assert.equal(forbiddenMessage(attrs({ verb: 'get', path: '/a&b<c>' })), 'User "NAME" cannot get path "/a&b<c>"');
  });

  test('the username, path and names are quoted as Go %q does', () => {
    const a = attrs({ user: { username: 'ja"ne\n', groups: [] }, verb: 'get', resourceRequest: true, apiGroup: 'apps', resource: 'deployments', name: 'we"b', namespace: 'n' });
    const err = forbiddenError(a, '');
    assert.equal(err.status.message, 'deployments.apps "we\\"b" is forbidden: User "ja\\"ne\\n" cannot get resource "deployments" in API group "apps" in the namespace "n"');
    assert.deepEqual(err.status.details, { name: 'we"b', group: 'apps', kind: 'deployments' });
  });

  test('no user: the username is empty', () => {
    assert.equal(forbiddenMessage(attrs({ user: undefined, verb: 'get', path: '/healthz' })), 'User "" cannot get path "/healthz"');
  });
});

describe('authorizeOrForbid (filters/authorization.go)', () => {
  const a = attrs({ verb: 'delete', resourceRequest: true, apiGroup: 'apps', resource: 'deployments', namespace: 'ns', name: 'web' });
  const answering = (res: AuthorizationResult) => ({ authorize: () => res });

  test('Allow resolves, synchronously or not', async () => {
    await authorizeOrForbid(answering({ decision: 'Allow', reason: '' }), a);
    await authorizeOrForbid({ authorize: () => Promise.resolve<AuthorizationResult>({ decision: 'Allow', reason: '' }) }, a);
  });

  test('Deny and NoOpinion are the 403 of forbiddenError, with the reason', async () => {
    for (const decision of ['Deny', 'NoOpinion'] as const) {
      await assert.rejects(authorizeOrForbid(answering({ decision, reason: 'no rule' }), a), (err: unknown) => {
        assert.ok(err instanceof StatusError);
        assert.deepEqual(err.status, forbiddenError(a, 'no rule').status);
        assert.equal(err.message, 'deployments.apps "web" is forbidden: User "NAME" cannot delete resource "deployments" in API group "apps" in the namespace "ns": no rule');
        return true;
      });
    }
  });

  test('only the reason is shown, never the evaluation error (filters/authorization.go)', async () => {
    await assert.rejects(authorizeOrForbid(answering({ decision: 'NoOpinion', reason: '', error: 'role "x" not found' }), a), { message: /in the namespace "ns"$/ });
    await assert.rejects(authorizeOrForbid(answering({ decision: 'NoOpinion', reason: 'because', error: 'role "x" not found' }), a), { message: /in the namespace "ns": because$/ });
    // An Allow with an error still passes.
    await authorizeOrForbid(answering({ decision: 'Allow', reason: '', error: 'ignored' }), a);
  });

  test('no reason and no error: the bare message', async () => {
    await assert.rejects(authorizeOrForbid(answering({ decision: 'NoOpinion', reason: '' }), a), {
      message: 'deployments.apps "web" is forbidden: User "NAME" cannot delete resource "deployments" in API group "apps" in the namespace "ns"',
    });
  });
});
