/**
 * Request authentication: client certificates, bearer tokens and the anonymous user. The chain is
 * kube-apiserver's (kubernetes pkg/kubeapiserver/authenticator/config.go, v1.33): x509 first, then the
 * token authenticators, in a union that goes on past errors (k8s.io/apiserver
 * pkg/authentication/request/union/unionauth_test.go TestAuthenticateRequestSecondPasses,
 * …AdditiveErrors), and anonymous after it through a fail-on-error union (…FailEarly), so a bad
 * certificate or token is refused rather than served anonymously. The x509 cases follow
 * pkg/authentication/request/x509/x509.go (`CommonNameUserConversion`: the CN is the user, the
 * Organizations the groups, no CN names no one; a certificate that does not verify is an error),
 * bearertoken.go (`invalid bearer token`; another scheme is no credential) and
 * anonymous/anonymous.go (`system:anonymous` in `system:unauthenticated`).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearerTokenOf, tokenMapAuthenticator, type UserInfo } from './index.js';
import { authenticateRequest, clientCertificateOf, type ClientCertificate, type RequestAuthenticatorOptions } from './request.js';

const jane: UserInfo = { username: 'jane', uid: 'jane-uid', groups: ['dev'] };
const tokens = tokenMapAuthenticator(
  new Map([
    ['jane-token', jane],
    ['admin-token', { username: 'admin', groups: ['system:masters', 'system:authenticated'] }],
  ]),
);
const opts = (o: Partial<RequestAuthenticatorOptions> = {}): RequestAuthenticatorOptions => ({ tokens, clientCertificates: true, anonymous: true, ...o });

const aliceCert: ClientCertificate = { commonName: 'alice', organizations: ['ops', 'system:masters'], verified: true };
const noCN: ClientCertificate = { commonName: '', organizations: ['ops'], verified: true };
const unverified: ClientCertificate = { commonName: 'mallory', organizations: ['system:masters'], verified: false, error: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' };

const janeAuthenticated = { user: { username: 'jane', uid: 'jane-uid', groups: ['dev', 'system:authenticated'] } };
const anonymous = { user: { username: 'system:anonymous', groups: ['system:unauthenticated'] } };

describe('authenticateRequest: client certificates (x509.go CommonNameUserConversion)', () => {
  test('a verified certificate: the CN is the user, its Organizations the groups, plus system:authenticated', async () => {
    assert.deepEqual(await authenticateRequest(opts(), { authorization: undefined, clientCertificate: aliceCert }), {
      user: { username: 'alice', groups: ['ops', 'system:masters', 'system:authenticated'] },
    });
  });

  test('a verified certificate comes before a token (x509 is first in the chain)', async () => {
    assert.equal(((await authenticateRequest(opts(), { authorization: 'Bearer jane-token', clientCertificate: aliceCert })) as { user: UserInfo }).user.username, 'alice');
  });

  test('a verified certificate without a CN names no one: a token authenticates, else anonymous, else an error', async () => {
    assert.deepEqual(await authenticateRequest(opts(), { authorization: 'Bearer jane-token', clientCertificate: noCN }), janeAuthenticated);
    assert.deepEqual(await authenticateRequest(opts(), { authorization: undefined, clientCertificate: noCN }), anonymous);
    assert.deepEqual(await authenticateRequest(opts({ anonymous: false }), { authorization: undefined, clientCertificate: noCN }), { error: 'no credentials' });
  });

  test('an unverified certificate with a valid token: the token user (the union goes on past the x509 error)', async () => {
    assert.deepEqual(await authenticateRequest(opts(), { authorization: 'Bearer jane-token', clientCertificate: unverified }), janeAuthenticated);
  });

  test('an unverified certificate alone is an error, even with anonymous allowed (fail-on-error union)', async () => {
    assert.deepEqual(await authenticateRequest(opts(), { authorization: undefined, clientCertificate: unverified }), { error: 'verifying certificate failed: UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    const noReason: ClientCertificate = { commonName: 'mallory', organizations: [], verified: false };
    assert.deepEqual(await authenticateRequest(opts(), { authorization: undefined, clientCertificate: noReason }), { error: 'verifying certificate failed: certificate signed by unknown authority' });
  });

  test('an unverified certificate and an invalid token: both errors (unionauth_test.go TestAuthenticateRequestAdditiveErrors)', async () => {
    const res = await authenticateRequest(opts(), { authorization: 'Bearer nope', clientCertificate: unverified });
    assert.deepEqual(res, { error: 'verifying certificate failed: UNABLE_TO_VERIFY_LEAF_SIGNATURE, invalid bearer token' });
  });

  test('without --client-ca-file certificates are not looked at, verified or not', async () => {
    assert.deepEqual(await authenticateRequest(opts({ clientCertificates: false }), { authorization: undefined, clientCertificate: aliceCert }), anonymous);
    assert.deepEqual(await authenticateRequest(opts({ clientCertificates: false }), { authorization: undefined, clientCertificate: unverified }), anonymous);
    assert.deepEqual(await authenticateRequest(opts({ clientCertificates: false }), { authorization: 'Bearer jane-token', clientCertificate: unverified }), janeAuthenticated);
  });
});

describe('authenticateRequest: bearer tokens and anonymous', () => {
  test('a valid token: its user with system:authenticated added once', async () => {
    assert.deepEqual(await authenticateRequest(opts(), { authorization: 'Bearer jane-token' }), janeAuthenticated);
    assert.deepEqual(await authenticateRequest(opts(), { authorization: 'bearer admin-token' }), { user: { username: 'admin', groups: ['system:masters', 'system:authenticated'] } });
  });

  test('an invalid token is an error even when anonymous is allowed (unionauth_test.go TestAuthenticateRequestFailEarly)', async () => {
    assert.deepEqual(await authenticateRequest(opts(), { authorization: 'Bearer nope' }), { error: 'invalid bearer token' });
    assert.deepEqual(await authenticateRequest(opts({ anonymous: false }), { authorization: 'Bearer nope' }), { error: 'invalid bearer token' });
  });

  test('no credentials: system:anonymous in system:unauthenticated with --anonymous-auth, else an error', async () => {
    assert.deepEqual(await authenticateRequest(opts(), { authorization: undefined }), anonymous);
    assert.deepEqual(await authenticateRequest(opts({ anonymous: false }), { authorization: undefined }), { error: 'no credentials' });
  });

  test('another Authorization scheme is no credential (bearertoken.go)', async () => {
    assert.deepEqual(await authenticateRequest(opts(), { authorization: 'Basic amFuZTpwdw==' }), anonymous);
    assert.deepEqual(await authenticateRequest(opts({ anonymous: false }), { authorization: 'Basic amFuZTpwdw==' }), { error: 'no credentials' });
  });

  test("the token authenticator's user is not changed", async () => {
    await authenticateRequest(opts(), { authorization: 'Bearer jane-token' });
    assert.deepEqual(jane.groups, ['dev']);
    const cert: ClientCertificate = { commonName: 'alice', organizations: ['ops'], verified: true };
    await authenticateRequest(opts(), { authorization: undefined, clientCertificate: cert });
    assert.deepEqual(cert.organizations, ['ops']);
  });
});

/** A node:tls TLSSocket as far as clientCertificateOf reads it. */
function fakeSocket(peer: unknown, authorized: boolean, authorizationError?: string | Error): unknown {
  return { getPeerCertificate: () => peer, authorized, ...(authorizationError === undefined ? {} : { authorizationError }) };
}

describe('clientCertificateOf', () => {
  test('a plain HTTP socket (no getPeerCertificate) has none', () => {
    assert.equal(clientCertificateOf({ remoteAddress: '127.0.0.1' }), undefined);
  });

  test('no certificate presented: getPeerCertificate answers {} (or null)', () => {
    assert.equal(clientCertificateOf(fakeSocket({}, false, 'UNABLE_TO_GET_ISSUER_CERT')), undefined);
    assert.equal(clientCertificateOf(fakeSocket(null, false)), undefined);
  });

  test('a subject with one O (a string) and with several (an array)', () => {
    assert.deepEqual(clientCertificateOf(fakeSocket({ subject: { CN: 'alice', O: 'ops' } }, true)), { commonName: 'alice', organizations: ['ops'], verified: true });
    assert.deepEqual(clientCertificateOf(fakeSocket({ subject: { CN: 'alice', O: ['ops', 'system:masters'] } }, true)), {
      commonName: 'alice',
      organizations: ['ops', 'system:masters'],
      verified: true,
    });
  });

  test('a subject without CN or O', () => {
    assert.deepEqual(clientCertificateOf(fakeSocket({ subject: { OU: 'x' } }, true)), { commonName: '', organizations: [], verified: true });
  });

  test('not authorized: unverified, with the authorizationError', () => {
    assert.deepEqual(clientCertificateOf(fakeSocket({ subject: { CN: 'mallory' } }, false, 'SELF_SIGNED_CERT_IN_CHAIN')), {
      commonName: 'mallory',
      organizations: [],
      verified: false,
      error: 'SELF_SIGNED_CERT_IN_CHAIN',
    });
    assert.equal(clientCertificateOf(fakeSocket({ subject: { CN: 'mallory' } }, false, new Error('bad chain')))?.error, 'Error: bad chain');
    assert.deepEqual(clientCertificateOf(fakeSocket({ subject: { CN: 'mallory' } }, false)), { commonName: 'mallory', organizations: [], verified: false });
  });

  test('end to end: an unverified certificate of a socket is refused', async () => {
    const cert = clientCertificateOf(fakeSocket({ subject: { CN: 'mallory', O: 'system:masters' } }, false, 'CERT_HAS_EXPIRED'));
    assert.deepEqual(await authenticateRequest(opts(), { authorization: undefined, ...(cert ? { clientCertificate: cert } : {}) }), { error: 'verifying certificate failed: CERT_HAS_EXPIRED' });
  });
});

describe('bearerTokenOf (bearertoken.go)', () => {
  test('the second of the trimmed header split on single spaces, for a Bearer scheme in any case', () => {
    assert.equal(bearerTokenOf('Bearer tok'), 'tok');
    assert.equal(bearerTokenOf('bEaReR tok'), 'tok');
    assert.equal(bearerTokenOf('  Bearer tok  '), 'tok');
    assert.equal(bearerTokenOf('Bearer a b'), 'a');
  });
  test('no token: no header, another scheme, no token, or the space before it doubled (then the request is anonymous)', async () => {
    for (const header of [undefined, '', 'Basic dXNlcjpwdw==', 'Bearer', 'Bearer ', 'Bearer  tok']) assert.equal(bearerTokenOf(header), undefined, String(header));
    assert.deepEqual(await authenticateRequest(opts(), { authorization: 'Bearer  jane-token' }), { user: { username: 'system:anonymous', groups: ['system:unauthenticated'] } });
  });
});
