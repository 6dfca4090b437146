/**
 * The TokenRequest API (serviceaccounts/token) and its tokens as the server's identities: the
 * defaults and validation of pkg/apis/authentication (v1 defaults.go, validation.go
 * ValidateTokenRequest), token.go's checks (name/namespace, bound objects), TokenReview of the
 * tokens, and HTTP requests bearing them (`kubectl --token=… auth whoami`).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeJwt } from 'jose';
import type { KubeObject } from '../../../api/index.js';
import { startHttpServer } from '../../http/index.js';
import { newTestServer, rejectsWithStatus, type TestServer } from '../../testing/fixtures.js';
import { servedStrategies } from './index.js';

const AUD = 'https://kubernetes.default.svc.cluster.local';

const tokenReq = (t: TestServer, name: string, body: unknown, namespace = 'default') =>
  t.server.handle({ verb: 'create', group: '', version: 'v1', resource: 'serviceaccounts', namespace, name, subresource: 'token', body });

async function request(t: TestServer, spec: Record<string, unknown> = {}, name = 'default'): Promise<{ status: { token: string; expirationTimestamp: string }; spec: Record<string, unknown>; metadata: Record<string, unknown> }> {
  const res = await tokenReq(t, name, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec });
  assert.equal(res.code, 201);
  return res.body as never;
}

const review = async (t: TestServer, token: string, audiences?: string[]) =>
  (await t.server.handle({ verb: 'create', group: 'authentication.k8s.io', version: 'v1', resource: 'tokenreviews', body: { spec: { token, ...(audiences ? { audiences } : {}) } } })).body as KubeObject & {
    status: { authenticated?: boolean; user: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> }; audiences?: string[]; error?: string };
  };

describe('serviceaccounts/token (TokenRequest)', () => {
  test('defaults: one hour, the API audiences; the answer carries the token and its expiry', async () => {
    const t = await newTestServer({ strategies: servedStrategies });
    const sa = (await t.server.handle({ verb: 'get', group: '', version: 'v1', resource: 'serviceaccounts', namespace: 'default', name: 'default' })).body as KubeObject;
    const tr = await request(t);
    assert.deepEqual(tr.spec, { audiences: [AUD], expirationSeconds: 3600 });
    assert.deepEqual(tr.metadata, { name: 'default', namespace: 'default', creationTimestamp: '2025-01-01T00:00:00Z' });
    assert.equal(tr.status.expirationTimestamp, '2025-01-01T01:00:00Z');
    const claims = decodeJwt(tr.status.token);
    assert.equal(claims.iss, AUD);
    assert.equal(claims.sub, 'system:serviceaccount:default:default');
    assert.deepEqual(claims.aud, [AUD]);
    assert.equal((claims.exp ?? 0) - (claims.iat ?? 0), 3600);
    assert.deepEqual(claims['kubernetes.io'], { namespace: 'default', serviceaccount: { name: 'default', uid: sa.metadata?.uid } });
    await t.server.close();
  });

  test('validation: at least 10 minutes, at most 2^32 s; the body must name the account; a missing account is 404', async () => {
    const t = await newTestServer({ strategies: servedStrategies });
    await rejectsWithStatus(tokenReq(t, 'default', { spec: { expirationSeconds: 60 } }), 422, 'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes');
    await rejectsWithStatus(
      tokenReq(t, 'default', { spec: { expirationSeconds: 2 ** 32 + 1 } }),
      422,
      'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds',
    );
    await rejectsWithStatus(
      tokenReq(t, 'default', { metadata: { name: 'other' }, spec: {} }),
      422,
      'TokenRequest.authentication.k8s.io "default" is invalid: metadata.name: Invalid value: "other": must match the service account name if specified',
    );
    await rejectsWithStatus(tokenReq(t, 'nobody', { spec: {} }), 404, 'serviceaccounts "nobody" not found');
    assert.equal((await request(t, { expirationSeconds: 600 })).status.expirationTimestamp, '2025-01-01T00:10:00Z');
    await t.server.close();
  });

  test('bound tokens: the pod must run as the account and exist with the uid given; other kinds are refused', async () => {
    const t = await newTestServer({ strategies: servedStrategies });
    const pod = (await t.server.handle({ verb: 'create', group: '', version: 'v1', resource: 'pods', namespace: 'default', body: { metadata: { name: 'web' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } })).body as KubeObject;
    const ref = { apiVersion: 'v1', kind: 'Pod', name: 'web' };
    const bound = await request(t, { boundObjectRef: ref });
    assert.deepEqual((decodeJwt(bound.status.token)['kubernetes.io'] as { pod?: unknown }).pod, { name: 'web', uid: pod.metadata?.uid });
    await t.server.handle({ verb: 'create', group: '', version: 'v1', resource: 'serviceaccounts', namespace: 'default', body: { metadata: { name: 'other' } } });
    await rejectsWithStatus(tokenReq(t, 'other', { spec: { boundObjectRef: ref } }), 400, 'cannot bind token for serviceaccount "other" to pod running with different serviceaccount name.');
    await rejectsWithStatus(
      tokenReq(t, 'default', { spec: { boundObjectRef: { ...ref, uid: 'stale' } } }),
      409,
      'Operation cannot be fulfilled on Pod "web": the UID in the bound object reference (stale) does not match the UID in record. The object might have been deleted and then recreated',
    );
    await rejectsWithStatus(tokenReq(t, 'default', { spec: { boundObjectRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' } } }), 400, 'cannot bind token to object of type apps/v1, Kind=Deployment');
    // The kube-api-access volume's 3607 s pod-bound token lives a year, stale after 3607 s.
    const volumeToken = await request(t, { boundObjectRef: ref, expirationSeconds: 3607 });
    const c = decodeJwt(volumeToken.status.token);
    assert.equal((c.exp ?? 0) - (c.iat ?? 0), 365 * 24 * 3600);
    assert.equal((c['kubernetes.io'] as { warnafter?: number }).warnafter, (c.iat ?? 0) + 3607);
    assert.equal(volumeToken.status.expirationTimestamp, '2025-01-01T01:00:07Z');
    // TokenReview: the pod in extra; deleting the pod invalidates the token.
    const r = await review(t, bound.status.token);
    assert.deepEqual(r.status.user.extra?.['authentication.kubernetes.io/pod-name'], ['web']);
    await t.server.handle({ verb: 'delete', group: '', version: 'v1', resource: 'pods', namespace: 'default', name: 'web', query: { gracePeriodSeconds: '0' } });
    // The validator reads the watch cache first (upstream: informers), which follows storage closely.
    await t.server.waitUntilFresh();
    assert.equal((await review(t, bound.status.token)).status.error, 'invalid bearer token');
    await t.server.close();
  });

  test('TokenReview knows the token until the account is deleted; audiences are honoured', async () => {
    const t = await newTestServer({ strategies: servedStrategies });
    const { status } = await request(t);
    const r = await review(t, status.token);
    assert.equal(r.status.authenticated, true);
    assert.equal(r.status.user.username, 'system:serviceaccount:default:default');
    assert.deepEqual(r.status.user.groups, ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated']);
    assert.match(r.status.user.extra?.['authentication.kubernetes.io/credential-id']?.[0] ?? '', /^JTI=[0-9a-f-]{36}$/);
    assert.deepEqual(r.status.audiences, [AUD]);
    assert.equal((await review(t, status.token, ['vault'])).status.error, 'invalid bearer token');
    await t.server.handle({ verb: 'delete', group: '', version: 'v1', resource: 'serviceaccounts', namespace: 'default', name: 'default' });
    assert.deepEqual((await review(t, status.token)).status, { user: {}, error: 'invalid bearer token' });
    await t.server.close();
  });
});

describe('requests bearing a service-account token', () => {
  test('whoami is the account; the token is authorized by RBAC for other requests; a deleted account is 401', async () => {
    const t = await newTestServer({ strategies: servedStrategies });
    const http = await startHttpServer(t.server, { host: '127.0.0.1', port: 0, token: 'admin-token', clock: t.clock });
    const base = `http://127.0.0.1:${http.port}`;
    try {
      const { status } = await request(t);
      const headers = { authorization: `Bearer ${status.token}`, 'content-type': 'application/json' };
      const whoami = await fetch(`${base}/apis/authentication.k8s.io/v1/selfsubjectreviews`, { method: 'POST', headers, body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }) });
      assert.equal(whoami.status, 201);
      const info = ((await whoami.json()) as { status: { userInfo: { username: string; uid: string; groups: string[]; extra: Record<string, string[]> } } }).status.userInfo;
      assert.equal(info.username, 'system:serviceaccount:default:default');
      assert.deepEqual(info.groups, ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated']);
      assert.ok(info.uid);
      // Authorized by RBAC: nothing until a binding grants it.
      assert.equal((await fetch(`${base}/api/v1/namespaces/default/pods`, { headers })).status, 403);
      await t.server.handle({
        verb: 'create',
        group: 'rbac.authorization.k8s.io',
        version: 'v1',
        resource: 'rolebindings',
        namespace: 'default',
        body: { metadata: { name: 'sa-view' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:aggregate-to-view' }, subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: 'default' }] },
      });
      await t.server.waitUntilFresh();
      assert.equal((await fetch(`${base}/api/v1/namespaces/default/pods`, { headers })).status, 200);
      const admin = await fetch(`${base}/apis/authentication.k8s.io/v1/selfsubjectreviews`, { method: 'POST', headers: { ...headers, authorization: 'Bearer admin-token' }, body: '{}' });
      assert.equal(((await admin.json()) as { status: { userInfo: { username: string } } }).status.userInfo.username, 'kubeplane-admin');
      await t.server.handle({ verb: 'delete', group: '', version: 'v1', resource: 'serviceaccounts', namespace: 'default', name: 'default' });
      assert.equal((await fetch(`${base}/api/v1/namespaces/default/pods`, { headers })).status, 401);
    } finally {
      await http.close();
      await t.server.close();
    }
  });
});
