/**
 * Serving certificates for `kubeplane up`. kubectl refuses to send a bearer token over plain HTTP
 * (kubernetes/kubectl#744), so the API server serves HTTPS, as every real cluster does: a self-signed
 * CA (`kubeplane-ca`) and a server certificate for `127.0.0.1`, `::1`, `localhost` and the listen host,
 * both ECDSA P-256 (WebCrypto generates those in milliseconds). They are written to the data directory
 * on first start and reused, so kubeconfigs stay valid across restarts.
 */
import 'reflect-metadata'; // @peculiar/x509 resolves its providers through tsyringe, which needs it
import { generateKeyPairSync, webcrypto } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isIP } from 'node:net';
import * as x509 from '@peculiar/x509';
import type { Clock } from '../util/clock/index.js';
import { makePrivate, writePrivateFile } from './private-files.js';

/** PEM-encoded serving material. */
export interface ServingCerts {
  /** CA certificate (PEM), for the kubeconfig's `certificate-authority-data`. */
  caCert: string;
  /** Server certificate (PEM). */
  cert: string;
  /** Server private key (PKCS#8 PEM). */
  key: string;
}

const ALG: webcrypto.EcKeyGenParams & webcrypto.EcdsaParams = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
/** Ten years, in ms: a local cluster's certificates should not expire under it. */
const VALIDITY_MS = 10 * 365 * 24 * 3600 * 1000;

function pemKey(der: ArrayBuffer): string {
  const b64 = Buffer.from(der).toString('base64').replace(/(.{64})/g, '$1\n');
  return `-----BEGIN PRIVATE KEY-----\n${b64.trimEnd()}\n-----END PRIVATE KEY-----\n`;
}

/** Serial numbers must be positive and unique per CA: 16 random bytes with the top bit cleared. */
function serial(): string {
  const b = webcrypto.getRandomValues(new Uint8Array(16));
  b[0] = (b[0] ?? 0) & 0x7f;
  return Buffer.from(b).toString('hex');
}

/** A self-signed `kubeplane-ca` valid from an hour before `clock.now()` for ten years, and its keys. */
async function newCA(clock: Clock): Promise<{ ca: x509.X509Certificate; caKeys: webcrypto.CryptoKeyPair; notBefore: Date; notAfter: Date }> {
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  const notBefore = new Date(clock.now() - 3600_000);
  const notAfter = new Date(clock.now() + VALIDITY_MS);
  const caKeys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: 'CN=kubeplane-ca',
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    ],
  });
  return { ca, caKeys, notBefore, notAfter };
}

/**
 * The PEM of a new self-signed CA kept nowhere: the cluster CA of an in-process control plane that
 * serves no HTTPS, which the root-ca-cert-publisher still publishes (pods' kube-api-access volumes
 * mount it, as on every cluster).
 */
export async function newEphemeralCACert(clock: Clock): Promise<string> {
  return (await newCA(clock)).ca.toString('pem') + '\n';
}

/**
 * Loads `ca.crt`, `server.crt` and `server.key` from `dataDir`, or generates and writes them. The
 * server certificate's subject alternative names cover `hosts` plus the loopback names; an existing
 * certificate is regenerated when it lacks one of them. Every file is mode 0600 (existing ones are
 * chmodded).
 */
export async function loadOrCreateServingCerts(dataDir: string, hosts: string[], clock: Clock): Promise<ServingCerts> {
  const paths = { ca: join(dataDir, 'ca.crt'), cert: join(dataDir, 'server.crt'), key: join(dataDir, 'server.key'), caKey: join(dataDir, 'ca.key') };
  const names = [...new Set(['127.0.0.1', '::1', 'localhost', ...hosts.filter((h) => h !== '0.0.0.0' && h !== '::')])];
  makePrivate(...Object.values(paths));
  if (existsSync(paths.ca) && existsSync(paths.cert) && existsSync(paths.key)) {
    const cert = readFileSync(paths.cert, 'utf8');
    const san = new x509.X509Certificate(cert).getExtension(x509.SubjectAlternativeNameExtension);
    const covered = new Set(san?.names.items.map((n) => n.value) ?? []);
    if (names.every((n) => covered.has(n))) return { caCert: readFileSync(paths.ca, 'utf8'), cert, key: readFileSync(paths.key, 'utf8') };
  }

  const { ca, caKeys, notBefore, notAfter } = await newCA(clock);
  const serverKeys = (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']));
  const server = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: 'CN=kube-apiserver',
    issuer: ca.subject,
    notBefore,
    notAfter,
    publicKey: serverKeys.publicKey,
    signingKey: (caKeys).privateKey,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(names.map((n) => ({ type: isIP(n) ? ('ip' as const) : ('dns' as const), value: n }))),
    ],
  });
  const out: ServingCerts = {
    caCert: ca.toString('pem') + '\n',
    cert: server.toString('pem') + '\n',
    key: pemKey(await webcrypto.subtle.exportKey('pkcs8', serverKeys.privateKey)),
  };
  writePrivateFile(paths.ca, out.caCert);
  writePrivateFile(paths.caKey, pemKey(await webcrypto.subtle.exportKey('pkcs8', caKeys.privateKey)));
  // The certificate last: a start reuses the files when it covers the names, so it must not be there
  // before its key (a kill in between would pair a new certificate with the old key on every start).
  writePrivateFile(paths.key, out.key);
  writePrivateFile(paths.cert, out.cert);
  return out;
}

/** A client certificate and its key (PEM), for a kubeconfig's `client-certificate-data` / `client-key-data`. */
export interface ClientCertificate {
  cert: string;
  key: string;
}

/**
 * A client certificate for `commonName` (the user) in `organizations` (the groups), signed by the
 * data directory's cluster CA (`ca.crt`, `ca.key`, made by {@link loadOrCreateServingCerts}), valid
 * from an hour before `clock.now()` for ten years, for client authentication only — what kubeadm's
 * `kubeconfig user --client-name` issues. The API server authenticates it as that user and groups
 * (apiserver/authn/request.ts).
 * @throws Error when the data directory has no CA yet.
 */
export async function issueClientCertificate(dataDir: string, subject: { commonName: string; organizations: string[] }, clock: Clock): Promise<ClientCertificate> {
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  const caPaths = { cert: join(dataDir, 'ca.crt'), key: join(dataDir, 'ca.key') };
  if (!existsSync(caPaths.cert) || !existsSync(caPaths.key)) throw new Error(`no cluster CA in ${dataDir}: start the cluster once first`);
  const ca = new x509.X509Certificate(readFileSync(caPaths.cert, 'utf8'));
  const caKeyDer = Buffer.from(readFileSync(caPaths.key, 'utf8').replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  const caKey = await webcrypto.subtle.importKey('pkcs8', caKeyDer, ALG, false, ['sign']);
  const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
  // RFC 4514 escaping of the characters a DN gives meaning to (`system:masters` needs none).
  const escape = (v: string): string => v.replace(/([,+"\\<>;=])/g, '\\$1');
  const name = [`CN=${escape(subject.commonName)}`, ...subject.organizations.map((o) => `O=${escape(o)}`)].join(', ');
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: name,
    issuer: ca.subject,
    notBefore: new Date(clock.now() - 3600_000),
    notAfter: new Date(clock.now() + VALIDITY_MS),
    publicKey: keys.publicKey,
    signingKey: caKey,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
    ],
  });
  return { cert: cert.toString('pem') + '\n', key: pemKey(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)) };
}

/**
 * The service-account signing key, kubeadm's `sa.key` / `sa.pub` in the data directory: an RSA 2048
 * key made on first start and kept, so the tokens issued survive restarts. Returns the private key
 * (PKCS#8 PEM). Both files are mode 0600.
 */
export function loadOrCreateServiceAccountKey(dataDir: string): string {
  const paths = { key: join(dataDir, 'sa.key'), pub: join(dataDir, 'sa.pub') };
  makePrivate(paths.key, paths.pub);
  if (existsSync(paths.key)) return readFileSync(paths.key, 'utf8');
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  writePrivateFile(paths.pub, publicKey.export({ type: 'spki', format: 'pem' }) as string);
  // The private key last: its presence is what a start looks for.
  writePrivateFile(paths.key, key);
  return key;
}
