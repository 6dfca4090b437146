/**
 * CertificateSigningRequests (pkg/apis/certificates/validation/validation_test.go
 * TestValidateCertificateSigningRequestCreate/Update/StatusUpdate/ApprovalUpdate cases; pkg/registry/
 * certificates/certificates/strategy_test.go): the request must be a PEM CERTIFICATE REQUEST whose
 * signature verifies, usages, signer names, expirationSeconds, conditions; the requester is written on
 * create; /approval changes only the conditions and /status only the certificate; the table row.
 */
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import { before, describe, test } from 'node:test';
import * as x509 from '@peculiar/x509';
import type { CertificateSigningRequest } from '../../../api/index.js';
import { fieldErrorString } from '../../../machinery/errors/index.js';
import { newTestServer, obj, rejectsWithStatus, type TestServer } from '../../testing/fixtures.js';
import type { ResourceStrategy } from '../strategy.js';
import { csrCondition, csrStrategy, validateCSRCreate, validateSignerName } from './certificatesigningrequests.js';

type Spec = CertificateSigningRequest['spec'];
const asCSR = (r: Parameters<typeof obj>[0]): CertificateSigningRequest => obj(r) as unknown as CertificateSigningRequest;
const msgs = (errs: Parameters<typeof fieldErrorString>[0][]): string[] => errs.map(fieldErrorString);
const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const RSA = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256', publicExponent: new Uint8Array([1, 0, 1]), modulusLength: 2048 };
const b64 = (text: string | Buffer): string => Buffer.from(text).toString('base64');

/** A PEM CSR for CN=alice signed with `alg`. */
async function makeCSR(alg: typeof EC | typeof RSA): Promise<string> {
  const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=alice', keys, signingAlgorithm: alg });
  return csr.toString('pem');
}

/** A self-signed PEM certificate. */
async function makeCert(): Promise<string> {
  const keys = await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=alice',
    notBefore: new Date(Date.UTC(2025, 0, 1)),
    notAfter: new Date(Date.UTC(2026, 0, 1)),
    keys,
    signingAlgorithm: EC,
  });
  return cert.toString('pem');
}

let ecPem = '';
let rsaPem = '';
let certPem = '';
before(async () => {
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  [ecPem, rsaPem, certPem] = await Promise.all([makeCSR(EC), makeCSR(RSA), makeCert()]);
});

const csr = (spec: Partial<NonNullable<Spec>>, status?: CertificateSigningRequest['status']): CertificateSigningRequest => ({
  apiVersion: 'certificates.k8s.io/v1',
  kind: 'CertificateSigningRequest',
  metadata: { name: 'alice' },
  spec: { request: b64(ecPem), signerName: 'example.com/signer', usages: ['client auth'], ...spec },
  ...(status ? { status } : {}),
});

describe('CSR validation', () => {
  test('the request is a PEM CERTIFICATE REQUEST whose signature verifies (ECDSA, RSA)', () => {
    assert.deepEqual(validateCSRCreate(csr({})), []);
    assert.deepEqual(validateCSRCreate(csr({ request: b64(rsaPem) })), []);
    assert.deepEqual(msgs(validateCSRCreate(csr({ request: b64('foo\n') }))), ['spec.request: Invalid value: []byte{0x66, 0x6f, 0x6f, 0xa}: PEM block type must be CERTIFICATE REQUEST']);
    assert.deepEqual(msgs(validateCSRCreate(csr({ request: '' }))), ['spec.request: Invalid value: []byte{}: PEM block type must be CERTIFICATE REQUEST']);
    const wrongType = certPem;
    assert.match(msgs(validateCSRCreate(csr({ request: b64(wrongType) })))[0] ?? '', /^spec\.request: Invalid value: \[\]byte\{0x2d, .*\}: PEM block type must be CERTIFICATE REQUEST$/);
    const der = Buffer.from(ecPem.replace(/-----[^-]+-----/g, '').replace(/\s/g, ''), 'base64');
    der[der.indexOf('alice') + 4] = 'f'.charCodeAt(0);
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    assert.match(msgs(validateCSRCreate(csr({ request: b64(tampered) })))[0] ?? '', /: x509: ECDSA verification failure$/);
    const truncated = `-----BEGIN CERTIFICATE REQUEST-----\n${der.subarray(0, 40).toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    assert.match(msgs(validateCSRCreate(csr({ request: b64(truncated) })))[0] ?? '', /: asn1: syntax error: data truncated$/);
  });

  test('usages: required, known, not repeated', () => {
    assert.deepEqual(msgs(validateCSRCreate(csr({ usages: [] }))), ['spec.usages: Required value']);
    assert.deepEqual(msgs(validateCSRCreate(csr({ usages: ['client auth', 'client auth'] }))), ['spec.usages[1]: Duplicate value: "client auth"']);
    const unknown = msgs(validateCSRCreate(csr({ usages: ['teleport'] })));
    assert.deepEqual(unknown, [
      'spec.usages[0]: Unsupported value: "teleport": supported values: "any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment", "decipher only", "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing", "timestamping"',
    ]);
  });

  test('signerName (ValidateSignerName) and expirationSeconds', () => {
    const sn = (name: string): string[] => msgs(validateSignerName('spec.signerName', name));
    assert.deepEqual(sn('kubernetes.io/kube-apiserver-client'), []);
    assert.deepEqual(sn('example.com/a.b.c'), []);
    assert.deepEqual(sn(''), ['spec.signerName: Required value']);
    assert.deepEqual(sn('example.com'), ["spec.signerName: Invalid value: \"example.com\": must be a fully qualified domain and path of the form 'example.com/signer-name'"]);
    assert.deepEqual(sn('example/path'), ['spec.signerName: Invalid value: "example": should be a domain with at least two segments separated by dots']);
    assert.match(sn('Example.com/path')[0] ?? '', /^spec\.signerName: Invalid value: "Example\.com": validating label "Example": a lowercase RFC 1123 label/);
    assert.match(sn('example.com/Path')[0] ?? '', /^spec\.signerName: Invalid value: "Path": validating label "Path": a lowercase RFC 1123 subdomain/);
    assert.deepEqual(msgs(validateCSRCreate(csr({ signerName: 'kubernetes.io/legacy-unknown' }))), ['spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version']);
    assert.deepEqual(msgs(validateCSRCreate(csr({ expirationSeconds: 599 }))), ['spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)']);
  });

  test('conditions: type and status required, Approved/Denied/Failed only True, Approved and Denied exclusive, no duplicates', () => {
    const withConditions = (...conditions: { type: string; status: string }[]): string[] => msgs(validateCSRCreate(csr({}, { conditions })));
    assert.deepEqual(withConditions({ type: 'Approved', status: 'True' }, { type: 'Custom', status: 'Unknown' }), []);
    assert.deepEqual(withConditions({ type: '', status: '' }), ['status.conditions[0].type: Required value', 'status.conditions[0].status: Required value']);
    assert.deepEqual(withConditions({ type: 'Approved', status: 'False' }), ['status.conditions[0].status: Unsupported value: "False": supported values: "True"']);
    assert.deepEqual(withConditions({ type: 'Custom', status: 'Maybe' }), ['status.conditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"']);
    assert.deepEqual(withConditions({ type: 'Approved', status: 'True' }, { type: 'Denied', status: 'True' }), ['status.conditions[1].type: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive']);
    assert.deepEqual(withConditions({ type: 'Custom', status: 'True' }, { type: 'Custom', status: 'True' }), ['status.conditions[1].type: Duplicate value: "Custom"']);
  });

  test('the certificate: PEM CERTIFICATE blocks only', () => {
    assert.deepEqual(validateCSRCreate(csr({}, { certificate: b64(certPem) })), []);
    assert.deepEqual(msgs(validateCSRCreate(csr({}, { certificate: b64('junk') }))), ['status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block']);
    assert.deepEqual(msgs(validateCSRCreate(csr({}, { certificate: b64(ecPem) }))), ['status.certificate: Invalid value: "<certificate data>": only CERTIFICATE PEM blocks are allowed, found "CERTIFICATE REQUEST"']);
  });
});

describe('CSR through the API server', () => {
  let t: TestServer;
  const certs = { group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests' };
  const req = (verb: 'create' | 'get' | 'update' | 'patch', extra: { name?: string; subresource?: string; body?: unknown; patchType?: 'application/merge-patch+json' } = {}) =>
    t.server.handle({ ...certs, verb, ...extra });
  const get = async (name: string): Promise<CertificateSigningRequest> => asCSR(await req('get', { name }));

  before(async () => {
    t = await newTestServer({ strategies: [csrStrategy as unknown as ResourceStrategy] });
  });

  test('create writes the requester and clears the status', async () => {
    const body = csr({ username: 'mallory', uid: 'x', groups: ['system:masters'], extra: { a: ['b'] } }, { conditions: [{ type: 'Approved', status: 'True' }] });
    const created = asCSR(await req('create', { body }));
    assert.deepEqual([created.spec.username, created.spec.groups, created.spec.uid, created.spec.extra], ['kubeplane-admin', ['system:masters', 'system:authenticated'], undefined, undefined]);
    assert.equal(created.status?.conditions, undefined);
    // A request with a user (over HTTP, or an in-process transport acting as one) records that user.
    const asJane = asCSR(
      await t.server.handle({ ...certs, verb: 'create', body: { ...body, metadata: { name: 'from-jane' } }, user: { username: 'jane', uid: 'u-1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['a'] } } }),
    );
    assert.deepEqual([asJane.spec.username, asJane.spec.groups, asJane.spec.uid, asJane.spec.extra], ['jane', ['dev', 'system:authenticated'], 'u-1', { scopes: ['a'] }]);
    await rejectsWithStatus(req('create', { body: csr({ request: 'not base64!' }) }), 400, 'CertificateSigningRequest in version "v1" cannot be handled as a CertificateSigningRequest: illegal base64 data at input byte 3');
  });

  test('/approval sets Approved with server timestamps; the main resource and /status cannot', async () => {
    const current = await get('alice');
    const approved = { ...current, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'KubectlApprove', message: 'ok' }] } };
    const viaMain = asCSR(await req('update', { name: 'alice', body: approved }));
    assert.equal(viaMain.status?.conditions, undefined);
    await rejectsWithStatus(req('update', { name: 'alice', subresource: 'status', body: approved }), 422, /status\.conditions: Forbidden: updates may not add a condition of type "Approved"/);
    const after = asCSR(await req('update', { name: 'alice', subresource: 'approval', body: { ...approved, spec: { ...current.spec, usages: ['server auth'] } } }));
    const [c] = after.status?.conditions ?? [];
    assert.deepEqual([c?.type, c?.status, c?.reason, typeof c?.lastUpdateTime, typeof c?.lastTransitionTime], ['Approved', 'True', 'KubectlApprove', 'string', 'string']);
    assert.deepEqual(after.spec.usages, ['client auth'], '/approval keeps the spec');
    assert.equal(csrCondition(after), 'Approved');
    assert.equal((asCSR(await req('get', { name: 'alice', subresource: 'approval' }))).status?.conditions?.length, 1);
    await rejectsWithStatus(
      req('patch', { name: 'alice', subresource: 'approval', patchType: 'application/merge-patch+json', body: { status: { conditions: [{ type: 'Denied', status: 'True' }] } } }),
      422,
      /status\.conditions: Forbidden: updates may not remove a condition of type "Approved"/,
    );
  });

  test('/status sets the certificate once, keeping Approved', async () => {
    const current = await get('alice');
    const issued = asCSR(await req('update', { name: 'alice', subresource: 'status', body: { ...current, status: { ...current.status, certificate: b64(certPem) } } }));
    assert.equal(csrCondition(issued), 'Approved,Issued');
    await rejectsWithStatus(
      req('update', { name: 'alice', subresource: 'status', body: { ...issued, status: { ...issued.status, certificate: b64(`${certPem}${certPem}`) } } }),
      422,
      /status\.certificate: Forbidden: updates may not modify existing certificate content/,
    );
    await rejectsWithStatus(req('update', { name: 'alice', subresource: 'approval', body: { ...issued, status: { conditions: [] } } }), 422, /updates may not remove a condition of type "Approved"/);
  });

  test('table: NAME AGE SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION', async () => {
    assert.deepEqual(csrStrategy.table.columns.map((c) => c.name), ['Name', 'Age', 'SignerName', 'Requestor', 'RequestedDuration', 'Condition']);
    const row = (c: CertificateSigningRequest): unknown[] => csrStrategy.table.row({ ...c, metadata: { name: 'x', creationTimestamp: '2025-01-01T00:00:00Z' } }, Date.parse('2025-01-01T00:01:00Z')).cells;
    assert.deepEqual(row({ ...csr({ expirationSeconds: 3600, username: 'bob' }), status: { conditions: [{ type: 'Denied', status: 'True' }, { type: 'Failed', status: 'True' }] } }), ['x', '60s', 'example.com/signer', 'bob', '60m', 'Denied,Failed']);
    assert.deepEqual(row(csr({ signerName: '' })).slice(2), ['<none>', '', '<none>', 'Pending']);
    await t.server.close();
  });
});
