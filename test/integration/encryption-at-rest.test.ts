/**
 * Encryption at rest through the whole API path: the real API server (every served kind) over a
 * TransformingBackend built from an EncryptionConfiguration, on a memory backend whose raw values the
 * tests read. Restarts (a new ApiServer on the same store) change the configuration, as restarting
 * kube-apiserver with a new `--encryption-provider-config` does.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Secret } from '../../src/api/index.js';
import { ApiServer } from '../../src/apiserver/index.js';
import { buildEncryptionConfig, type EncryptionConfiguration } from '../../src/apiserver/encryption/index.js';
import { servedStrategies } from '../../src/apiserver/registry/resources/index.js';
import { newClientset, type Clientset } from '../../src/client/index.js';
import type { WatchEvent } from '../../src/api/request.js';
import { StatusError } from '../../src/machinery/errors/index.js';
import { MemoryBackend } from '../../src/storage/memory/index.js';
import { TransformingBackend } from '../../src/storage/value/index.js';
import { FakeClock, flushAsync } from '../../src/util/clock/index.js';
import { SeededRand } from '../../src/util/random/index.js';

type Provider = EncryptionConfiguration['resources'][number]['providers'][number];
const key = (name: string, fill: number, bytes = 32) => ({ name, secret: Buffer.alloc(bytes, fill).toString('base64') });
const aesgcm = (...keys: { name: string; secret: string }[]): Provider => ({ aesgcm: { keys } });
const KEY1 = key('key1', 1);
const KEY2 = key('key2', 2);

const SECRET_KEY = '/registry/core/secrets/default/db';
const PASSWORD = Buffer.from('s3cret-password').toString('base64');

/** A server on `inner` whose secrets are stored by `providers`. */
async function serve(inner: MemoryBackend, providers: Provider[]): Promise<{ api: ApiServer; cs: Clientset; clock: FakeClock }> {
  const config = buildEncryptionConfig({ resources: [{ resources: ['secrets'], providers }] });
  const clock = new FakeClock();
  const api = await ApiServer.create({ backend: new TransformingBackend(inner, config.transformerForKey), strategies: servedStrategies, clock, rand: new SeededRand(3) });
  return { api, cs: newClientset(api.inProcessTransport({ userAgent: 'test' })), clock };
}

const secret = (name: string): Secret => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'default' }, type: 'Opaque', data: { password: PASSWORD } });

/** A store holding Secret `name` written by a server that encrypted with KEY1 (and is stopped). */
async function writtenWithKey1(name: string): Promise<MemoryBackend> {
  const inner = new MemoryBackend();
  const before = await serve(inner, [aesgcm(KEY1)]);
  await before.cs.core.secrets('default').create(secret(name));
  await before.api.close();
  return inner;
}

/** The raw stored value of `key`. */
async function raw(inner: MemoryBackend, key: string): Promise<string> {
  return (await inner.get(key))?.value ?? '';
}

describe('encryption at rest', () => {
  test('a Secret is stored with the provider prefix and no plaintext; the API shows its data unchanged; other kinds stay plain', async () => {
    const inner = new MemoryBackend();
    const { api, cs } = await serve(inner, [aesgcm(KEY1)]);
    const created = await cs.core.secrets('default').create(secret('db'));
    await cs.core.configMaps('default').create({ metadata: { name: 'settings' }, data: { mode: 'fast' } });
    const stored = await raw(inner, SECRET_KEY);
    assert.ok(stored.startsWith('k8s:enc:aesgcm:v1:key1:'), stored.slice(0, 40));
    for (const plain of [PASSWORD, 's3cret', '"Secret"', 'password']) assert.ok(!stored.includes(plain), `no ${plain} in the stored value`);
    assert.match(await raw(inner, '/registry/core/configmaps/default/settings'), /^\{.*"mode":"fast"/);
    const got = await cs.core.secrets('default').get('db');
    assert.deepEqual(got.data, { password: PASSWORD });
    assert.equal(got.metadata?.resourceVersion, created.metadata?.resourceVersion);
    assert.deepEqual((await cs.core.secrets('default').list()).items.map((s) => s.data), [{ password: PASSWORD }]);
    await api.close();
  });

  test('every provider round-trips through the API', async () => {
    const providers: [string, Provider][] = [
      ['k8s:enc:aesgcm:v1:g:', aesgcm(key('g', 5, 16))],
      ['k8s:enc:aescbc:v1:c:', { aescbc: { keys: [key('c', 6)] } }],
      ['k8s:enc:secretbox:v1:s:', { secretbox: { keys: [key('s', 7)] } }],
      ['{', { identity: {} }],
    ];
    for (const [prefix, provider] of providers) {
      const inner = new MemoryBackend();
      const { api, cs } = await serve(inner, [provider]);
      await cs.core.secrets('default').create(secret('db'));
      assert.ok((await raw(inner, SECRET_KEY)).startsWith(prefix), prefix);
      await cs.core.secrets('default').patch('db', 'application/merge-patch+json', { stringData: { extra: 'x' } });
      assert.deepEqual((await cs.core.secrets('default').get('db')).data, { password: PASSWORD, extra: Buffer.from('x').toString('base64') });
      await api.close();
      // Read back by a fresh server (its cache primed from storage), not only from the cache of the writer.
      const again = await serve(inner, [provider]);
      assert.deepEqual((await again.cs.core.secrets('default').get('db')).data?.password, PASSWORD);
      await again.api.close();
    }
  });

  test('rotation: new key first, old key second; old Secrets read, and rewriting one re-encrypts it with the new key', async () => {
    const inner = await writtenWithKey1('db');

    const { api, cs } = await serve(inner, [aesgcm(KEY2, KEY1)]);
    const old = await cs.core.secrets('default').get('db');
    assert.deepEqual(old.data, { password: PASSWORD });
    assert.ok((await raw(inner, SECRET_KEY)).startsWith('k8s:enc:aesgcm:v1:key1:'), 'reading does not rewrite');
    // `kubectl get secrets -o json | kubectl replace -f -`: an update that changes nothing.
    const replaced = await cs.core.secrets('default').update(old);
    assert.notEqual(replaced.metadata?.resourceVersion, old.metadata?.resourceVersion, 'a stale value is written even though unchanged');
    assert.ok((await raw(inner, SECRET_KEY)).startsWith('k8s:enc:aesgcm:v1:key2:'));
    const again = await cs.core.secrets('default').update(replaced);
    assert.equal(again.metadata?.resourceVersion, replaced.metadata?.resourceVersion, 'once re-encrypted, a no-op update writes nothing');
    await cs.core.secrets('default').create(secret('new'));
    assert.ok((await raw(inner, '/registry/core/secrets/default/new')).startsWith('k8s:enc:aesgcm:v1:key2:'));
    await api.close();
  });

  test('identity first still reads encrypted values, and writes plaintext (decrypting everything)', async () => {
    const inner = await writtenWithKey1('db');
    const { api, cs } = await serve(inner, [{ identity: {} }, aesgcm(KEY1)]);
    const got = await cs.core.secrets('default').get('db');
    assert.deepEqual(got.data, { password: PASSWORD });
    await cs.core.secrets('default').update(got);
    assert.match(await raw(inner, SECRET_KEY), /^\{.*"password"/);
    await api.close();
  });

  test('a Secret that cannot be decrypted: its reads are 500, while lists, watches and other resources keep working', async () => {
    const inner = await writtenWithKey1('lost');

    // KEY1 is gone from the configuration: "lost" can no longer be decrypted.
    const { api, cs } = await serve(inner, [aesgcm(KEY2)]);
    const secrets = cs.core.secrets('default');
    const message = 'Internal error occurred: no matching key was found for the provided AES transformer';
    await assert.rejects(secrets.get('lost'), (err: unknown) => err instanceof StatusError && err.code === 500 && err.reason === 'InternalError' && err.message === message);
    await assert.rejects(secrets.patch('lost', 'application/merge-patch+json', { metadata: { labels: { a: 'b' } } }), (err: unknown) => err instanceof StatusError && err.code === 500);
    await secrets.create(secret('fine'));
    assert.deepEqual((await secrets.list()).items.map((s) => s.metadata?.name), ['fine']);
    assert.deepEqual((await secrets.list({ limit: 1, resourceVersion: String(api.currentRevision()) })).items.map((s) => s.metadata?.name), ['fine'], 'from storage too');
    assert.equal((await cs.core.namespaces().list()).items.length, 4, 'other resources are unaffected');

    // A value becoming unreadable at run time (as another server with another key would write it):
    // the watch goes on and sees it leave, as lists do.
    const events: WatchEvent[] = [];
    let closed: { err?: unknown } | undefined;
    api.watch({ verb: 'watch', group: '', version: 'v1', resource: 'secrets', namespace: 'default', query: { resourceVersion: String(api.currentRevision()) } }, (e) => events.push(e), (err) => (closed = { err }));
    await flushAsync();
    const fine = await inner.get('/registry/core/secrets/default/fine');
    await inner.update('/registry/core/secrets/default/fine', 'k8s:enc:aesgcm:v1:key1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', fine?.modRevision ?? 0);
    await secrets.create(secret('later'));
    await flushAsync();
    assert.equal(closed, undefined, 'the watch is still open');
    assert.deepEqual(events.map((e) => `${e.type} ${(e.object as Secret).metadata?.name ?? ''}`), ['DELETED fine', 'ADDED later']);
    await assert.rejects(secrets.get('fine'), (err: unknown) => err instanceof StatusError && err.code === 500 && err.message === 'Internal error occurred: no matching key was found for the provided AES transformer');
    assert.deepEqual((await secrets.list()).items.map((s) => s.metadata?.name), ['later']);
    await api.close();
  });
});
