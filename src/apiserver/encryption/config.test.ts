import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEncryptionConfig } from './index.js';

const dir = mkdtempSync(join(tmpdir(), 'kubeplane-encryption-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
/** Writes `text` to a fresh file and returns its path. */
function file(text: string): string {
  const path = join(dir, `config-${++n}.yaml`);
  writeFileSync(path, text);
  return path;
}

const b64 = (len: number, fill = 1): string => Buffer.alloc(len, fill).toString('base64');
const KEY32 = b64(32);
const SECRET_KEY = '/registry/core/secrets/default/s';
const PLAIN = '{"kind":"Secret"}';

/** The YAML of a config with `entries` (each `{resources, providers}` as YAML flow text). */
const config = (...entries: string[]): string =>
  ['apiVersion: apiserver.config.k8s.io/v1', 'kind: EncryptionConfiguration', 'resources:', ...entries.map((e) => `  - ${e}`)].join('\n');

describe('EncryptionConfiguration loading (upstream encryptionconfig/config.go)', () => {
  test('YAML and JSON; the first provider writes under its prefix and key name, for the named resource only', () => {
    const yaml = loadEncryptionConfig(file(config(`{resources: [secrets], providers: [{aesgcm: {keys: [{name: key1, secret: ${KEY32}}]}}, {identity: {}}]}`)));
    const json = loadEncryptionConfig(
      file(JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'EncryptionConfiguration', resources: [{ resources: ['secrets'], providers: [{ aesgcm: { keys: [{ name: 'key1', secret: KEY32 }] } }] }] })),
    );
    for (const c of [yaml, json]) {
      assert.deepEqual(c.resources, ['secrets']);
      const t = c.transformerForKey(SECRET_KEY);
      assert.ok(t);
      const stored = t.transformToStorage(PLAIN, SECRET_KEY);
      assert.ok(stored.startsWith('k8s:enc:aesgcm:v1:key1:'));
      assert.deepEqual(t.transformFromStorage(stored, SECRET_KEY), { data: PLAIN, stale: false });
      const other = c.transformerForKey('/registry/core/configmaps/default/c');
      assert.equal(other?.transformToStorage(PLAIN, 'k'), PLAIN, 'unnamed resources are stored as they are');
      assert.throws(() => other?.transformFromStorage(stored, 'k'), { message: 'identity transformer tried to read encrypted data' });
    }
    assert.equal(yaml.transformerForKey('/elsewhere/x'), undefined);
  });

  test('wildcards: resource.group first, then *.group, then *.*; *. is the core group', () => {
    const c = loadEncryptionConfig(
      file(
        config(
          '{resources: [events], providers: [{identity: {}}]}',
          `{resources: [deployments.apps], providers: [{secretbox: {keys: [{name: sb, secret: ${KEY32}}]}}]}`,
          `{resources: ['*.apps'], providers: [{aescbc: {keys: [{name: cbc, secret: ${KEY32}}]}}]}`,
          `{resources: ['*.'], providers: [{aesgcm: {keys: [{name: core, secret: ${b64(16)}}]}}]}`,
          `{resources: ['*.*'], providers: [{aesgcm: {keys: [{name: all, secret: ${b64(24)}}]}}]}`,
        ),
      ),
    );
    const prefixOf = (key: string): string => (c.transformerForKey(key)?.transformToStorage(PLAIN, key) ?? '').replace(/:[^:]*$/, ':');
    assert.equal(prefixOf('/registry/apps/deployments/default/d'), 'k8s:enc:secretbox:v1:sb:');
    assert.equal(prefixOf('/registry/apps/replicasets/default/r'), 'k8s:enc:aescbc:v1:cbc:');
    assert.equal(prefixOf('/registry/core/secrets/default/s'), 'k8s:enc:aesgcm:v1:core:');
    assert.equal(prefixOf('/registry/batch/jobs/default/j'), 'k8s:enc:aesgcm:v1:all:');
    assert.equal(c.transformerForKey('/registry/core/events/default/e')?.transformToStorage(PLAIN, 'k'), PLAIN, 'identity listed before *.* wins');
  });

  test('invalid files fail with upstream\'s messages', () => {
    const gcm = (secret: string, name = 'k'): string => `{resources: [secrets], providers: [{aesgcm: {keys: [{name: '${name}', secret: '${secret}'}]}}]}`;
    const cases: [string, string][] = [
      [config(gcm(b64(8))), `resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 8, expected one of [16 24 32]`],
      [config(`{resources: [secrets], providers: [{secretbox: {keys: [{name: k, secret: ${b64(16)}}]}}]}`), `resources[0].providers[0].secretbox.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 16, expected one of [32]`],
      [config(gcm('not base64!')), `resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: "REDACTED": secrets must be base64 encoded`],
      [config(gcm('', '')), `[resources[0].providers[0].aesgcm.keys[0].name: Required value: name is a mandatory field for a key, resources[0].providers[0].aesgcm.keys[0].secret: Required value: secret is a mandatory field for a key]`],
      [config('{resources: [secrets], providers: [{aesgcm: {keys: []}}]}'), 'resources[0].providers[0].aesgcm.keys: Required value: at least one keys is required'],
      [config('{resources: [secrets], providers: []}'), 'resources[0].providers: Required value: at least one resources[0].providers is required'],
      [config('{resources: [], providers: [{identity: {}}]}'), 'resources[0].resources: Required value: at least one resources[0].resources is required'],
      ['apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources: []', 'resources: Required value: at least one resources is required'],
      [config(`{resources: [secrets], providers: [{identity: {}, aescbc: {keys: [{name: k, secret: ${KEY32}}]}}]}`), 'resources[0].providers[0]: Invalid value: apiserver.ProviderConfiguration{AESGCM:(*apiserver.AESConfiguration)(nil), AESCBC:(*apiserver.AESConfiguration)(…), Secretbox:(*apiserver.SecretboxConfiguration)(nil), Identity:(*apiserver.IdentityConfiguration)(…), KMS:(*apiserver.KMSConfiguration)(nil)}: more than one provider specified in a single element, should split into different list elements'],
      [config('{resources: [secrets], providers: [{aesgsm: {}}]}'), 'resources[0].providers[0]: Invalid value: apiserver.ProviderConfiguration{AESGCM:(*apiserver.AESConfiguration)(nil), AESCBC:(*apiserver.AESConfiguration)(nil), Secretbox:(*apiserver.SecretboxConfiguration)(nil), Identity:(*apiserver.IdentityConfiguration)(nil), KMS:(*apiserver.KMSConfiguration)(nil)}: provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity'],
      [config("{resources: [secrets, '*.'], providers: [{identity: {}}]}"), `resources[0].resources: Invalid value: []string{"secrets", "*."}: using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked`],
      [config('{resources: [secrets, secrets], providers: [{identity: {}}]}'), 'resources[0].resources: Invalid value: []string{"secrets", "secrets"}: the same resource cannot be specified multiple times'],
      [config('{resources: [Secrets], providers: [{identity: {}}]}'), 'resources[0].resources[0]: Invalid value: "Secrets": resource name should not contain capital letters'],
      [config("{resources: ['*'], providers: [{identity: {}}]}"), `resources[0].resources[0]: Invalid value: "*": use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources`],
      [config("{resources: ['secrets.*'], providers: [{identity: {}}]}"), 'resources[0].resources[0]: Invalid value: "secrets.*": encrypting the same resource across groups is not supported'],
      [config("{resources: ['*.events.k8s.io'], providers: [{identity: {}}]}"), `resources[0].resources[0]: Invalid value: "*.events.k8s.io": '*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file`],
      [config('{resources: [secrets], providers: [{kms: {name: p, endpoint: "unix:///k.sock"}}]}'), 'resources[0].providers[0].kms: Forbidden: KMS providers are not supported by kubeplane (it has no KMS plugin client); use aesgcm, aescbc, secretbox or identity'],
    ];
    for (const [text, message] of cases) {
      assert.throws(() => loadEncryptionConfig(file(text)), { message: `error while parsing file: ${message}` }, text);
    }
  });

  test('rules masked by an earlier wildcard fail while building the transformers', () => {
    assert.throws(() => loadEncryptionConfig(file(config("{resources: ['*.'], providers: [{identity: {}}]}", '{resources: [secrets], providers: [{identity: {}}]}'))), {
      message: 'error while building transformers: resource "secrets" is masked by earlier rule "*."',
    });
    assert.throws(() => loadEncryptionConfig(file(config("{resources: ['*.*'], providers: [{identity: {}}]}", "{resources: ['*.apps'], providers: [{identity: {}}]}"))), {
      message: 'error while building transformers: resource "*.apps" is masked by earlier rule "*.*"',
    });
  });

  test('unreadable, empty, malformed and foreign files', () => {
    const missing = join(dir, 'missing.yaml');
    assert.throws(() => loadEncryptionConfig(missing), (err: Error) => err.message.startsWith(`error while parsing file: error while loading file: error reading encryption provider configuration file ${JSON.stringify(missing)}: `));
    const empty = file('');
    assert.throws(() => loadEncryptionConfig(empty), { message: `error while parsing file: error while loading file: encryption provider configuration file ${JSON.stringify(empty)} is empty` });
    const foreign = file('apiVersion: v1\nkind: ConfigMap\n');
    assert.throws(() => loadEncryptionConfig(foreign), { message: `error while parsing file: error decoding encryption provider configuration file ${JSON.stringify(foreign)}: no kind "ConfigMap" is registered for version "v1"` });
    const typed = file('apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources: secrets\n');
    assert.throws(() => loadEncryptionConfig(typed), {
      message: `error while parsing file: error decoding encryption provider configuration file ${JSON.stringify(typed)}: json: cannot unmarshal string into Go struct field EncryptionConfiguration.resources of type []v1.ResourceConfiguration`,
    });
  });
});
