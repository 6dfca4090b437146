/**
 * Service-account token claims and validation. Ports the applicable cases of
 * pkg/serviceaccount/claims_test.go (TestClaims: account only, pod-bound, secret-bound, warnafter;
 * TestValidatePrivateClaims: uid mismatches, deleted objects with the minute of leeway) and
 * jwt_test.go (TestTokenGenerateAndValidate: a valid token, another issuer, another key, the wrong
 * audience, a deleted account, expiry).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { FakeClock, formatTime } from '../../util/clock/index.js';
import { SeededRand } from '../../util/random/index.js';
import { unionAuthenticator } from './index.js';
import { claims, ServiceAccountTokens, type ReferencedObject, type ServiceAccountTokenGetter } from './serviceaccount.js';

const T0 = Date.UTC(2025, 0, 1);

describe('claims (claims_test.go TestClaims)', () => {
  const sa = { name: 'myserviceaccount', uid: 'mysauid' };
  test('an account only: sub, aud, iat = nbf, exp, jti and the kubernetes.io claim', () => {
    const c = claims({ namespace: 'myns', serviceAccount: sa, expirationSeconds: 100, audiences: ['1'] }, T0 + 999, 'jti-1');
    assert.deepEqual(c, {
      iss: 'https://kubernetes.default.svc.cluster.local',
      sub: 'system:serviceaccount:myns:myserviceaccount',
      aud: ['1'],
      iat: T0 / 1000,
      nbf: T0 / 1000,
      exp: T0 / 1000 + 100,
      jti: 'jti-1',
      'kubernetes.io': { namespace: 'myns', serviceaccount: { name: 'myserviceaccount', uid: 'mysauid' } },
    });
  });
  test('pod-bound, secret-bound, and the warnafter of a pod token', () => {
    const pod = claims({ namespace: 'myns', serviceAccount: sa, pod: { name: 'mypod', uid: 'mypoduid' }, expirationSeconds: 100, warnAfterSeconds: 60, audiences: ['1', '2'] }, T0, 'j');
    assert.deepEqual(pod['kubernetes.io'], { namespace: 'myns', serviceaccount: sa, pod: { name: 'mypod', uid: 'mypoduid' }, warnafter: T0 / 1000 + 60 });
    const secret = claims({ namespace: 'myns', serviceAccount: sa, secret: { name: 'mysecret', uid: 'mysecretuid' }, expirationSeconds: 100, audiences: ['1'] }, T0, 'j');
    assert.deepEqual(secret['kubernetes.io'], { namespace: 'myns', serviceaccount: sa, secret: { name: 'mysecret', uid: 'mysecretuid' } });
  });
});

/** A getter over a mutable map `ns/name` → object, per kind. */
function fakeGetter(): ServiceAccountTokenGetter & { objects: Map<string, ReferencedObject> } {
  const objects = new Map<string, ReferencedObject>();
  const get = (kind: string) => (ns: string, name: string) => Promise.resolve(objects.get(`${kind}/${ns}/${name}`));
  return { objects, getServiceAccount: get('sa'), getPod: get('pod'), getSecret: get('secret') };
}

describe('token generation and validation (jwt_test.go TestTokenGenerateAndValidate)', () => {
  const setup = (privateKeyPem?: string) => {
    const clock = new FakeClock(T0);
    const tokens = new ServiceAccountTokens({ clock, rand: new SeededRand(3), ...(privateKeyPem ? { privateKeyPem } : {}) });
    const getter = fakeGetter();
    getter.objects.set('sa/ns/default', { metadata: { uid: 'sa-uid' } });
    getter.objects.set('pod/ns/web', { metadata: { uid: 'pod-uid' } });
    return { clock, tokens, getter, auth: tokens.authenticator(getter) };
  };
  const issue = (tokens: ServiceAccountTokens, extra: Record<string, unknown> = {}) =>
    tokens.generateToken({ namespace: 'ns', serviceAccount: { name: 'default', uid: 'sa-uid' }, expirationSeconds: 3600, audiences: ['https://kubernetes.default.svc.cluster.local'], ...extra });

  test('a valid token is the account, with its groups, uid and credential id', async () => {
    const { tokens, auth } = setup();
    const { token, claims: c } = await issue(tokens);
    assert.equal(decodeProtectedHeader(token).alg, 'ES256');
    assert.deepEqual(await auth.authenticateToken(token), {
      user: {
        username: 'system:serviceaccount:ns:default',
        uid: 'sa-uid',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:ns'],
        extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${c.jti}`] },
      },
      audiences: ['https://kubernetes.default.svc.cluster.local'],
    });
    // The union adds system:authenticated.
    const union = await unionAuthenticator(auth).authenticateToken(token);
    assert.deepEqual(union?.user.groups, ['system:serviceaccounts', 'system:serviceaccounts:ns', 'system:authenticated']);
  });

  test('an RSA key signs RS256 with a kid of its public key', async () => {
    const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const { tokens, auth } = setup(pem);
    const { token } = await issue(tokens);
    const header = decodeProtectedHeader(token);
    assert.equal(header.alg, 'RS256');
    assert.match(header.kid ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.ok(await auth.authenticateToken(token));
  });

  test('another key, another issuer, garbage, or another audience is not authenticated', async () => {
    const { tokens, auth } = setup();
    const other = setup();
    assert.equal(await auth.authenticateToken((await issue(other.tokens)).token), undefined, 'signed by another key');
    const foreign = new ServiceAccountTokens({ clock: new FakeClock(T0), rand: new SeededRand(1), issuer: 'https://elsewhere' });
    assert.equal(await auth.authenticateToken((await foreign.generateToken({ namespace: 'ns', serviceAccount: { name: 'default', uid: 'sa-uid' }, expirationSeconds: 3600, audiences: ['x'] })).token), undefined);
    assert.equal(await auth.authenticateToken('not-a-jwt'), undefined);
    const { token } = await issue(tokens, { audiences: ['vault'] });
    assert.equal(await auth.authenticateToken(token), undefined, 'not for the API');
    assert.deepEqual((await auth.authenticateToken(token, ['vault', 'other']))?.audiences, ['vault'], 'for an audience asked');
  });

  test('expiry and not-before are checked on the clock, with a minute of leeway', async () => {
    const { clock, tokens, auth } = setup();
    const { token } = await issue(tokens, { expirationSeconds: 600 });
    clock.step(600_000 + 59_000);
    assert.ok(await auth.authenticateToken(token), 'within the leeway');
    clock.step(2_000);
    assert.equal(await auth.authenticateToken(token), undefined, 'expired');
    // Issued by a server whose clock is two minutes ahead, with the same key.
    const pem = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const now = setup(pem);
    const ahead = new ServiceAccountTokens({ clock: new FakeClock(T0 + 120_000), rand: new SeededRand(1), privateKeyPem: pem });
    const { token: t2 } = await issue(ahead);
    assert.equal(await now.auth.authenticateToken(t2), undefined, 'not valid yet');
    now.clock.step(61_000);
    assert.ok(await now.auth.authenticateToken(t2), 'within the leeway of nbf');
  });

  test('the account gone, recreated with another uid, or deleted over a minute ago invalidates the token (TestValidatePrivateClaims)', async () => {
    const { clock, tokens, getter, auth } = setup();
    const { token } = await issue(tokens);
    getter.objects.set('sa/ns/default', { metadata: { uid: 'new-uid' } });
    assert.equal(await auth.authenticateToken(token), undefined, 'uid changed');
    getter.objects.delete('sa/ns/default');
    assert.equal(await auth.authenticateToken(token), undefined, 'gone');
    getter.objects.set('sa/ns/default', { metadata: { uid: 'sa-uid', deletionTimestamp: formatTime(clock.now() - 30_000) } });
    assert.ok(await auth.authenticateToken(token), 'deleted 30 s ago: still valid');
    getter.objects.set('sa/ns/default', { metadata: { uid: 'sa-uid', deletionTimestamp: formatTime(clock.now() - 61_000) } });
    assert.equal(await auth.authenticateToken(token), undefined, 'deleted over a minute ago');
  });

  test('a pod-bound token names the pod in extra and dies with the pod; a secret-bound one with the secret', async () => {
    const { tokens, getter, auth } = setup();
    const { token } = await issue(tokens, { pod: { name: 'web', uid: 'pod-uid' } });
    const res = await auth.authenticateToken(token);
    assert.deepEqual(res?.user.extra?.['authentication.kubernetes.io/pod-name'], ['web']);
    assert.deepEqual(res?.user.extra?.['authentication.kubernetes.io/pod-uid'], ['pod-uid']);
    getter.objects.set('pod/ns/web', { metadata: { uid: 'another' } });
    assert.equal(await auth.authenticateToken(token), undefined);
    const { token: bySecret } = await issue(tokens, { secret: { name: 's', uid: 's-uid' } });
    assert.equal(await auth.authenticateToken(bySecret), undefined, 'no such secret');
    getter.objects.set('secret/ns/s', { metadata: { uid: 's-uid' } });
    assert.ok(await auth.authenticateToken(bySecret));
    assert.equal(decodeJwt(bySecret)['kubernetes.io'] !== undefined, true);
  });
});
