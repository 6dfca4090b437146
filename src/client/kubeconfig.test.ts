import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { loadKubeconfig, writeKubeconfig } from './kubeconfig.js';
import type { KubeconfigConnection } from './kubeconfig.js';

/** The connection without its headers function, and the headers it gives. */
async function settled(conn: Promise<KubeconfigConnection>): Promise<[Omit<KubeconfigConnection, 'headers'>, Record<string, string> | undefined]> {
  const { headers, ...rest } = await conn;
  return [rest, await headers?.()];
}

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

async function withDir(fn: (dir: string) => void | Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'kubeconfig-test-'));
  try {
    await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('kubeconfig', () => {
  test('http round trip: insecure-skip-tls-verify for client-node, token, namespace; file is 0600', async () => {
    await withDir(async (dir) => {
      const path = join(dir, 'sub', 'config');
      writeKubeconfig(path, { server: 'http://127.0.0.1:6443', token: 'tok', namespace: 'default' });
      const doc = YAML.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
      assert.equal(doc['current-context'], 'kubeplane');
      assert.deepEqual(doc.clusters, [{ name: 'kubeplane', cluster: { server: 'http://127.0.0.1:6443', 'insecure-skip-tls-verify': true } }]);
      assert.equal(statSync(path).mode & 0o777, 0o600);
      assert.deepEqual(await settled(loadKubeconfig(path)), [
        { server: 'http://127.0.0.1:6443', insecureSkipTLSVerify: true, namespace: 'default' },
        { Authorization: 'Bearer tok' },
      ]);
    });
  });

  test('https round trip: CA as base64 certificate-authority-data, no skip flag', async () => {
    await withDir(async (dir) => {
      const path = join(dir, 'config');
      writeKubeconfig(path, { server: 'https://127.0.0.1:6443', token: 'tok', caData: PEM, clusterName: 'c1' });
      const doc = YAML.parse(readFileSync(path, 'utf8')) as { clusters: { cluster: Record<string, unknown> }[] };
      assert.equal(doc.clusters[0]?.cluster['certificate-authority-data'], Buffer.from(PEM).toString('base64'));
      assert.deepEqual(await settled(loadKubeconfig(path, 'c1')), [{ server: 'https://127.0.0.1:6443', caData: PEM }, { Authorization: 'Bearer tok' }]);
    });
  });

  test('reads a multi-context file with file references relative to it; errors name what is missing', async () => {
    await withDir(async (dir) => {
      writeFileSync(join(dir, 'ca.pem'), PEM);
      writeFileSync(join(dir, 'token'), 'from-file\n');
      const path = join(dir, 'config');
      writeFileSync(
        path,
        YAML.stringify({
          apiVersion: 'v1',
          kind: 'Config',
          'current-context': 'a',
          clusters: [
            { name: 'ca', cluster: { server: 'https://a:6443', 'certificate-authority': 'ca.pem' } },
            { name: 'cb', cluster: { server: 'https://b:6443' } },
          ],
          users: [{ name: 'ua', user: { tokenFile: 'token' } }],
          contexts: [
            { name: 'a', context: { cluster: 'ca', user: 'ua' } },
            { name: 'b', context: { cluster: 'cb', user: 'nobody' } },
            { name: 'broken', context: { cluster: 'nope' } },
          ],
        }),
      );
      assert.deepEqual(await settled(loadKubeconfig(path)), [{ server: 'https://a:6443', caData: PEM }, { Authorization: 'Bearer from-file' }]);
      assert.deepEqual(await settled(loadKubeconfig(path, 'b')), [{ server: 'https://b:6443' }, {}]);
      await assert.rejects(loadKubeconfig(path, 'zzz'), /context "zzz" not found/);
      await assert.rejects(loadKubeconfig(path, 'broken'), /cluster "nope" of context "broken" not found/);
    });
  });

  test('a client certificate and key, and a token from an exec credential plugin', async () => {
    await withDir(async (dir) => {
      const plugin = join(dir, 'plugin.mjs');
      writeFileSync(
        plugin,
        `process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1beta1', kind: 'ExecCredential', status: { token: 'from-plugin' } }));`,
      );
      const path = join(dir, 'config');
      writeFileSync(
        path,
        YAML.stringify({
          apiVersion: 'v1',
          kind: 'Config',
          'current-context': 'cert',
          clusters: [{ name: 'c', cluster: { server: 'https://c:6443', 'certificate-authority-data': Buffer.from(PEM).toString('base64') } }],
          users: [
            { name: 'cert', user: { 'client-certificate-data': Buffer.from('CERT').toString('base64'), 'client-key-data': Buffer.from('KEY').toString('base64') } },
            { name: 'exec', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1beta1', command: process.execPath, args: [plugin], interactiveMode: 'Never' } } },
          ],
          contexts: [
            { name: 'cert', context: { cluster: 'c', user: 'cert' } },
            { name: 'exec', context: { cluster: 'c', user: 'exec' } },
          ],
        }),
      );
      assert.deepEqual(await settled(loadKubeconfig(path)), [{ server: 'https://c:6443', caData: PEM, cert: 'CERT', key: 'KEY' }, {}]);
      assert.deepEqual((await settled(loadKubeconfig(path, 'exec')))[1], { Authorization: 'Bearer from-plugin' });
    });
  });
});
