/**
 * What CSR validation needs of PEM, PKCS#10 and X.509, done synchronously: Go's `pem.Decode`,
 * `certificates.ParseCSR` (`PEM block type must be CERTIFICATE REQUEST`), the structure of
 * `x509.ParseCertificateRequest` and `CertificateRequest.CheckSignature` (RSA PKCS#1 v1.5, ECDSA and
 * Ed25519 with SHA-1/256/384/512, verified with node:crypto), and the certificate check of
 * pkg/apis/certificates/validation (`validateCertificate`).
 *
 * Messages for malformed DER are Go's in spirit (`asn1: syntax error: data truncated`); Go's
 * encoding/asn1 words some structure errors in more detail. RSA-PSS signatures are reported as not
 * implemented.
 *
 * Not @peculiar/x509 (a dependency, used for the API server's own certificates): its signature check
 * goes through WebCrypto and is asynchronous, while a strategy's `validate` is synchronous; and its
 * parse errors are not Go's, which upstream's messages quote.
 */
import { X509Certificate, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { base64ErrorOffset } from './secrets.js';

/** One PEM block: its type (`CERTIFICATE REQUEST`), headers and decoded bytes. */
export interface PemBlock {
  type: string;
  headers: Record<string, string>;
  bytes: Buffer;
}

const BLOCK = /(?:^|\n)-----BEGIN ([^\n]*)-----[ \t\r]*\n/g;

/**
 * `pem.Decode`: the first well-formed block of `text` and the text after it, or undefined. Headers
 * (`Key: value` lines before the body) are kept; a block whose body is not base64 is skipped.
 */
export function pemDecode(text: string): { block: PemBlock; rest: string } | undefined {
  BLOCK.lastIndex = 0;
  for (let m = BLOCK.exec(text); m; m = BLOCK.exec(text)) {
    const type = m[1] as string;
    const after = text.slice(m.index + m[0].length);
    const endMarker = `-----END ${type}-----`;
    const marker = after.startsWith(endMarker) ? -1 : after.indexOf(`\n${endMarker}`);
    if (marker < 0 && !after.startsWith(endMarker)) continue;
    const end = marker + 1;
    const lines = after.slice(0, end).split('\n');
    const headers: Record<string, string> = {};
    while (lines.length > 0 && (lines[0] as string).includes(':')) {
      const line = lines.shift() as string;
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
    }
    const body = lines.join('').replace(/[ \t\r\n]/g, '');
    if (base64ErrorOffset(body) >= 0) continue;
    const restStart = end + endMarker.length;
    const newline = after.indexOf('\n', restStart);
    return { block: { type, headers, bytes: Buffer.from(body, 'base64') }, rest: newline < 0 ? '' : after.slice(newline + 1) };
  }
  return undefined;
}

/** A DER element: tag byte, where its contents start and where it ends. */
interface Tlv {
  tag: number;
  start: number;
  contentStart: number;
  end: number;
}

class Asn1Error extends Error {}

function readTlv(der: Uint8Array, pos: number, limit: number): Tlv {
  if (pos + 2 > limit) throw new Asn1Error('asn1: syntax error: data truncated');
  const tag = der[pos] as number;
  let len = der[pos + 1] as number;
  let contentStart = pos + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4) throw new Asn1Error('asn1: syntax error: indefinite length found (not DER)');
    if (contentStart + n > limit) throw new Asn1Error('asn1: syntax error: data truncated');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + (der[contentStart + i] as number);
    contentStart += n;
  }
  const end = contentStart + len;
  if (end > limit) throw new Asn1Error('asn1: syntax error: data truncated');
  return { tag, start: pos, contentStart, end };
}

/** The children of a constructed element, each checked against the expected tags. */
function children(der: Uint8Array, parent: Tlv, tags: readonly number[]): Tlv[] {
  const out: Tlv[] = [];
  let pos = parent.contentStart;
  for (const tag of tags) {
    const t = readTlv(der, pos, parent.end);
    if (t.tag !== tag) throw new Asn1Error(`asn1: structure error: tags don't match (${tag & 0x1f} vs {tag:${t.tag & 0x1f}})`);
    out.push(t);
    pos = t.end;
  }
  return out;
}

/** An OBJECT IDENTIFIER's dotted form. */
function oidString(bytes: Uint8Array): string {
  const arcs: number[] = [];
  let value = 0;
  for (const b of bytes) {
    value = value * 128 + (b & 0x7f);
    if (!(b & 0x80)) {
      arcs.push(value);
      value = 0;
    }
  }
  const first = arcs.shift() ?? 0;
  const head = first < 80 ? [Math.floor(first / 40), first % 40] : [2, first - 80];
  return [...head, ...arcs].join('.');
}

/** Signature algorithms Go verifies: the hash (null for Ed25519) and the key type they need. */
const SIGNATURE_ALGORITHMS: Record<string, { hash: string | null; key: 'rsa' | 'ec' | 'ed25519'; name: string }> = {
  '1.2.840.113549.1.1.5': { hash: 'sha1', key: 'rsa', name: 'RSA' },
  '1.2.840.113549.1.1.11': { hash: 'sha256', key: 'rsa', name: 'RSA' },
  '1.2.840.113549.1.1.12': { hash: 'sha384', key: 'rsa', name: 'RSA' },
  '1.2.840.113549.1.1.13': { hash: 'sha512', key: 'rsa', name: 'RSA' },
  '1.2.840.10045.4.1': { hash: 'sha1', key: 'ec', name: 'ECDSA' },
  '1.2.840.10045.4.3.2': { hash: 'sha256', key: 'ec', name: 'ECDSA' },
  '1.2.840.10045.4.3.3': { hash: 'sha384', key: 'ec', name: 'ECDSA' },
  '1.2.840.10045.4.3.4': { hash: 'sha512', key: 'ec', name: 'ECDSA' },
  '1.3.101.112': { hash: null, key: 'ed25519', name: 'Ed25519' },
};

/** Go's `%T` of a parsed public key. */
const GO_KEY_TYPES: Record<string, string> = { rsa: '*rsa.PublicKey', ec: '*ecdsa.PublicKey', ed25519: 'ed25519.PublicKey' };

/** Go's CheckSignature failure for each algorithm family. */
const VERIFY_FAILURES: Record<string, string> = { rsa: 'crypto/rsa: verification error', ec: 'x509: ECDSA verification failure', ed25519: 'x509: Ed25519 verification failure' };

/** A parsed PKCS#10 request: what was signed, the signature, its algorithm and the public key. */
interface CertificateRequest {
  tbs: Uint8Array;
  signatureAlgorithm: string;
  signature: Uint8Array;
  publicKey: KeyObject;
}

/** `x509.ParseCertificateRequest`'s structure: CertificationRequest { info, algorithm, signature }. */
function parseCertificateRequest(der: Uint8Array): CertificateRequest {
  const outer = readTlv(der, 0, der.length);
  if (outer.tag !== 0x30) throw new Asn1Error('asn1: structure error: tags don\'t match');
  if (outer.end !== der.length) throw new Asn1Error('asn1: syntax error: trailing data');
  const [info, algorithm, signature] = children(der, outer, [0x30, 0x30, 0x03]) as [Tlv, Tlv, Tlv];
  const [, , spki] = children(der, info, [0x02, 0x30, 0x30, 0xa0]) as [Tlv, Tlv, Tlv, Tlv];
  const [oid] = children(der, algorithm, [0x06]) as [Tlv];
  if (signature.end - signature.contentStart < 1 || der[signature.contentStart] !== 0) throw new Asn1Error('asn1: syntax error: invalid padding bits in BIT STRING');
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey({ key: Buffer.from(der.subarray(spki.start, spki.end)), format: 'der', type: 'spki' });
  } catch {
    throw new Asn1Error('x509: failed to parse public key');
  }
  return {
    tbs: der.subarray(info.start, info.end),
    signatureAlgorithm: oidString(der.subarray(oid.contentStart, oid.end)),
    signature: der.subarray(signature.contentStart + 1, signature.end),
    publicKey,
  };
}

/** `CertificateRequest.CheckSignature`: undefined when the signature verifies, else Go's error text. */
function checkSignature(csr: CertificateRequest): string | undefined {
  const alg = SIGNATURE_ALGORITHMS[csr.signatureAlgorithm];
  if (!alg) return 'x509: cannot verify signature: algorithm unimplemented';
  const keyType = csr.publicKey.asymmetricKeyType ?? '';
  if (keyType !== alg.key) return `x509: signature algorithm specifies an ${alg.name} public key, but have public key of type ${GO_KEY_TYPES[keyType] ?? keyType}`;
  let ok: boolean;
  try {
    ok = verify(alg.hash, csr.tbs, csr.publicKey, csr.signature);
  } catch {
    ok = false;
  }
  return ok ? undefined : VERIFY_FAILURES[alg.key];
}

/**
 * `validateCSR`: undefined when `request` (PEM text) holds a CERTIFICATE REQUEST whose signature
 * verifies, else the error upstream reports on `spec.request`.
 */
export function csrError(request: Buffer): string | undefined {
  const decoded = pemDecode(request.toString('latin1'));
  if (!decoded || decoded.block.type !== 'CERTIFICATE REQUEST') return 'PEM block type must be CERTIFICATE REQUEST';
  try {
    return checkSignature(parseCertificateRequest(decoded.block.bytes));
  } catch (err) {
    if (err instanceof Asn1Error) return err.message;
    throw err;
  }
}

/** `x509.ParseCertificates` of one DER certificate succeeds. */
function parsesAsCertificate(der: Buffer): boolean {
  try {
    return new X509Certificate(der).raw.length > 0;
  } catch {
    return false;
  }
}

/**
 * `validateCertificate` (status.certificate): undefined when empty or one or more CERTIFICATE blocks
 * without headers, each a parsable certificate; else the error text.
 */
export function certificateError(pem: Buffer): string | undefined {
  if (pem.length === 0) return undefined;
  let text = pem.toString('latin1');
  let blocks = 0;
  for (let d = pemDecode(text); d; d = pemDecode(text)) {
    if (d.block.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(d.block.type)}`;
    if (Object.keys(d.block.headers).length > 0) return 'no PEM block headers are permitted';
    blocks++;
    if (!parsesAsCertificate(d.block.bytes)) return 'x509: malformed certificate';
    text = d.rest;
  }
  return blocks === 0 ? 'must contain at least one CERTIFICATE PEM block' : undefined;
}
