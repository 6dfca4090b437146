/**
 * Data at rest on a started `kubeplane up`: the data directory is private (0700, every file 0600, also
 * when an older run left them open), and with `--encryption-provider-config` a Secret created with the
 * real kubectl is stored encrypted while kubectl sees its data unchanged. A bad configuration stops
 * `kubeplane up` with upstream's message.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { removeDataDir, startKubeplane, type Kubeplane } from './harness.js';

const mode = (path: string): string => (statSync(path).mode & 0o777).toString(8);

/** An EncryptionConfiguration for secrets with one aesgcm key of `bytes` bytes. */
function configFile(dir: string, bytes: number): string {
  const path = join(dir, `encryption-${bytes}.yaml`);
  writeFileSync(
    path,
    [
      'apiVersion: apiserver.config.k8s.io/v1',
      'kind: EncryptionConfiguration',
      'resources:',
      '  - resources: [secrets]',
      '    providers:',
      `      - aesgcm: {keys: [{name: key1, secret: ${Buffer.alloc(bytes, 7).toString('base64')}}]}`,
      '      - identity: {}',
      '',
    ].join('\n'),
  );
  return path;
}

describe('data at rest', () => {
  let kp: Kubeplane;
  let configDir: string;
  let dataDir: string;
  before(async () => {
    configDir = mkdtempSync(join(tmpdir(), 'kubeplane-enc-'));
    dataDir = mkdtempSync(join(tmpdir(), 'kubeplane-e2e-'));
    // As an older kubeplane left them: an open directory and a readable token.
    chmodSync(dataDir, 0o755);
    writeFileSync(join(dataDir, 'token'), 'a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0\n', { mode: 0o644 });
    kp = await startKubeplane({ nodes: 1, dataDir, args: ['--encryption-provider-config', configFile(configDir, 32)] });
  });
  after(async () => {
    await kp.stop();
    removeDataDir(dataDir);
    removeDataDir(configDir);
  });

  test('the data directory is 0700 and every file in it 0600', async () => {
    await kp.kubectlOk(['create', 'configmap', 'touch', '--from-literal=a=b']); // the WAL exists by now
    assert.equal(mode(dataDir), '700');
    const files = readdirSync(dataDir).sort();
    for (const f of ['ca.crt', 'ca.key', 'kubeconfig', 'server.crt', 'server.key', 'state.db', 'state.db-shm', 'state.db-wal', 'token']) assert.ok(files.includes(f), `${f} in ${files.join(' ')}`);
    for (const f of files) assert.equal(mode(join(dataDir, f)), '600', f);
  });

  test('a Secret is stored encrypted; kubectl sees its data unchanged', async () => {
    await kp.kubectlOk(['create', 'secret', 'generic', 'creds', '--from-literal=password=s3cret']);
    assert.equal(await kp.kubectlOk(['get', 'secret', 'creds', '-o', 'jsonpath={.data.password}']), Buffer.from('s3cret').toString('base64'));
    const db = new Database(join(dataDir, 'state.db'), { readonly: true, fileMustExist: true });
    try {
      const row = db.prepare<[string], { value: string }>('SELECT value FROM kine WHERE name = ? ORDER BY id DESC LIMIT 1').get('/registry/core/secrets/default/creds');
      assert.ok(row?.value.startsWith('k8s:enc:aesgcm:v1:key1:'), row?.value.slice(0, 40));
      for (const plain of [Buffer.from('s3cret').toString('base64'), 's3cret', 'password', 'creds']) assert.ok(!row?.value.includes(plain), plain);
    } finally {
      db.close();
    }
  });

  test('an invalid configuration stops kubeplane up with upstream\'s message', async () => {
    await assert.rejects(startKubeplane({ nodes: 0, dataDir: join(configDir, 'never-created'), args: ['--encryption-provider-config', configFile(configDir, 8)] }), (err: Error) => {
      assert.match(err.message, /exited with 1 before it was ready/);
      assert.ok(
        err.message.includes('kubeplane: error while parsing file: resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 8, expected one of [16 24 32]'),
        err.message,
      );
      return true;
    });
    assert.throws(() => statSync(join(configDir, 'never-created')), /ENOENT/, 'nothing was created');
  });
});
