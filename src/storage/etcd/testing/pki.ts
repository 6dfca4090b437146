/**
 * A throwaway PKI for etcd's TLS in tests: a CA, a server certificate for 127.0.0.1 (serverAuth) and a
 * client certificate (clientAuth), ECDSA P-256, written as PEM files into `dir` for etcd's
 * `--trusted-ca-file`/`--cert-file`/`--key-file` and kube-apiserver's `--etcd-cafile`/`--etcd-certfile`/
 * `--etcd-keyfile`.
 */
import 'reflect-metadata'; // @peculiar/x509 resolves its providers through tsyringe, which needs it
import { webcrypto } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';

const ALG: webcrypto.EcKeyGenParams & webcrypto.EcdsaParams = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };

/** Paths of the PEM files {@link writeTestPKI} writes. */
export interface TestPKI {
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

function pemKey(der: ArrayBuffer): string {
  const b64 = Buffer.from(der).toString('base64').replace(/(.{64})/g, '$1\n');
  return `-----BEGIN PRIVATE KEY-----\n${b64.trimEnd()}\n-----END PRIVATE KEY-----\n`;
}

/** Writes a CA, a 127.0.0.1 server certificate and a client certificate into `dir`; returns their paths. */
export async function writeTestPKI(dir: string): Promise<TestPKI> {
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  const notBefore = new Date(Date.UTC(2000, 0, 1));
  const notAfter = new Date(Date.UTC(2099, 0, 1));
  const caKeys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=etcd-test-ca',
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm: ALG,
    extensions: [new x509.BasicConstraintsExtension(true, 0, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true)],
  });
  const leaf = async (cn: string, serial: string, usage: string, ip?: string) => {
    const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: serial,
      subject: `CN=${cn}`,
      issuer: ca.subject,
      notBefore,
      notAfter,
      publicKey: keys.publicKey,
      signingKey: caKeys.privateKey,
      signingAlgorithm: ALG,
      extensions: [
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([usage]),
        ...(ip ? [new x509.SubjectAlternativeNameExtension([{ type: 'ip', value: ip }])] : []),
      ],
    });
    return { cert: cert.toString('pem') + '\n', key: pemKey(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)) };
  };
  const server = await leaf('etcd', '02', x509.ExtendedKeyUsage.serverAuth, '127.0.0.1');
  const client = await leaf('kube-apiserver-etcd-client', '03', x509.ExtendedKeyUsage.clientAuth);
  const paths: TestPKI = {
    ca: join(dir, 'ca.crt'),
    serverCert: join(dir, 'server.crt'),
    serverKey: join(dir, 'server.key'),
    clientCert: join(dir, 'client.crt'),
    clientKey: join(dir, 'client.key'),
  };
  writeFileSync(paths.ca, ca.toString('pem') + '\n');
  writeFileSync(paths.serverCert, server.cert);
  writeFileSync(paths.serverKey, server.key);
  writeFileSync(paths.clientCert, client.cert);
  writeFileSync(paths.clientKey, client.key);
  return paths;
}
