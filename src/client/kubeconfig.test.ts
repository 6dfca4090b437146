import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { loadKubeconfig, writeKubeconfig } from './kubeconfig.js';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

function withDir(fn: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'kubeconfig-test-'));
  try {
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('kubeconfig', () => {
  test('http round trip: insecure-skip-tls-verify for client-node, token, namespace; file is 0600', () => {
    withDir((dir) => {
      const path = join(dir, 'sub', 'config');
      writeKubeconfig(path, { server: 'http://127.0.0.1:6443', token: 'tok', namespace: 'default' });
      const doc = YAML.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
      assert.equal(doc['current-context'], 'kubeplane');
      assert.deepEqual(doc.clusters, [{ name: 'kubeplane', cluster: { server: 'http://127.0.0.1:6443', 'insecure-skip-tls-verify': true } }]);
      assert.equal(statSync(path).mode & 0o777, 0o600);
      assert.deepEqual(loadKubeconfig(path), { server: 'http://127.0.0.1:6443', token: 'tok', insecureSkipTLSVerify: true, namespace: 'default' });
    });
  });

  test('https round trip: CA as base64 certificate-authority-data, no skip flag', () => {
    withDir((dir) => {
      const path = join(dir, 'config');
      writeKubeconfig(path, { server: 'https://127.0.0.1:6443', token: 'tok', caData: PEM, clusterName: 'c1' });
      const doc = YAML.parse(readFileSync(path, 'utf8')) as { clusters: { cluster: Record<string, unknown> }[] };
      assert.equal(doc.clusters[0]?.cluster['certificate-authority-data'], Buffer.from(PEM).toString('base64'));
      assert.deepEqual(loadKubeconfig(path, 'c1'), { server: 'https://127.0.0.1:6443', token: 'tok', caData: PEM });
    });
  });

  test('reads a multi-context file with file references relative to it; errors name what is missing', () => {
    withDir((dir) => {
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
      assert.deepEqual(loadKubeconfig(path), { server: 'https://a:6443', caData: PEM, token: 'from-file' });
      assert.deepEqual(loadKubeconfig(path, 'b'), { server: 'https://b:6443' });
      assert.throws(() => loadKubeconfig(path, 'zzz'), /context "zzz" not found/);
      assert.throws(() => loadKubeconfig(path, 'broken'), /cluster "nope" of context "broken" not found/);
    });
  });
});
