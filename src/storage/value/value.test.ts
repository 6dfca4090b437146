import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryBackend } from '../memory/index.js';
import { SqliteBackend } from '../sqlite/index.js';
import { isStorageError } from '../interface.js';
import { runBackendConformance } from '../testing/conformance.js';
import { flushAsync } from '../../util/clock/index.js';
import {
  TransformingBackend,
  aggregateMessage,
  base64Transformer,
  identityTransformer,
  newCBCCipher,
  newGCMCipher,
  newPrefixTransformers,
  newSecretboxCipher,
  type BinaryCipher,
  type PrefixTransformer,
  type Transformer,
} from './index.js';
import type { WatchEvent } from '../interface.js';

const key = (n: number, fill = 1): Buffer => Buffer.alloc(n, fill);
const KEY = '/registry/core/secrets/default/s';
const PLAIN = '{"kind":"Secret","data":{"password":"czNjcmV0"}}';

/** One provider with one key, as the configuration builds it: prefix `k8s:enc:<provider>:v1:`, then `<key name>:`. */
function entry(name: string, keyName: string, cipher: BinaryCipher): PrefixTransformer {
  return { prefix: `k8s:enc:${name}:v1:`, transformer: newPrefixTransformers('no matching key was found', [{ prefix: `${keyName}:`, transformer: base64Transformer(cipher) }]) };
}

/** A resource's transformer: the providers in order. */
const chain = (...entries: PrefixTransformer[]): Transformer => newPrefixTransformers('no matching prefix found', entries);

const provider = (name: string, keyName: string, cipher: BinaryCipher): Transformer => chain(entry(name, keyName, cipher));

describe('ciphers round-trip with upstream layouts', () => {
  const cases: [string, BinaryCipher, number][] = [
    ['aesgcm 16', newGCMCipher(key(16)), 12 + 16],
    ['aesgcm 24', newGCMCipher(key(24)), 12 + 16],
    ['aesgcm 32', newGCMCipher(key(32)), 12 + 16],
    ['aescbc 32', newCBCCipher(key(32)), 16 + 16 - (Buffer.byteLength(PLAIN) % 16) ],
    ['aescbc 16', newCBCCipher(key(16)), 16 + 16 - (Buffer.byteLength(PLAIN) % 16)],
    ['secretbox', newSecretboxCipher(key(32)), 24 + 16],
  ];
  for (const [name, cipher, overhead] of cases) {
    test(name, () => {
      const t = base64Transformer(cipher);
      const a = t.transformToStorage(PLAIN, KEY);
      const b = t.transformToStorage(PLAIN, KEY);
      assert.notEqual(a, b, 'a fresh nonce or IV every time');
      assert.match(a, /^[A-Za-z0-9+/]+=*$/, 'stored as base64');
      assert.equal(Buffer.from(a, 'base64').length, Buffer.byteLength(PLAIN) + overhead);
      assert.deepEqual(t.transformFromStorage(a, KEY), { data: PLAIN, stale: false });
    });
  }

  test('tampered or foreign data fails with upstream\'s messages', () => {
    const gcm = newGCMCipher(key(32));
    const sealed = gcm.seal(Buffer.from(PLAIN), Buffer.from(KEY));
    sealed[20] = (sealed[20] as number) ^ 1;
    assert.throws(() => gcm.open(sealed, Buffer.from(KEY)), { message: 'cipher: message authentication failed' });
    const good = gcm.seal(Buffer.from(PLAIN), Buffer.from(KEY));
    assert.throws(() => gcm.open(good, Buffer.from('/registry/core/secrets/default/other')), { message: 'cipher: message authentication failed' }, 'bound to its key');
    assert.throws(() => gcm.open(Buffer.alloc(5), Buffer.from(KEY)), { message: 'the stored data was shorter than the required size' });
    assert.throws(() => newGCMCipher(key(32, 2)).open(good, Buffer.from(KEY)), { message: 'cipher: message authentication failed' });

    const cbc = newCBCCipher(key(32));
    assert.throws(() => cbc.open(Buffer.alloc(40), Buffer.alloc(0)), { message: 'the stored data is not a multiple of the block size' });
    const wrong = newCBCCipher(key(32, 2)).seal(Buffer.from(PLAIN), Buffer.alloc(0));
    assert.throws(() => cbc.open(wrong, Buffer.alloc(0)), /^Error: invalid (PKCS7 data \(empty or not padded\)|padding on input)$/);

    const box = newSecretboxCipher(key(32));
    const boxed = box.seal(Buffer.from(PLAIN), Buffer.alloc(0));
    assert.throws(() => newSecretboxCipher(key(32, 2)).open(boxed, Buffer.alloc(0)), { message: 'output array was not large enough for encryption' });
    assert.throws(() => box.open(Buffer.alloc(30), Buffer.alloc(0)), { message: 'the stored data was shorter than the required size' });
    assert.throws(() => newSecretboxCipher(key(16)), { message: 'expected key size 32 for secretbox provider, got 16' });
  });
});

describe('prefix transformers (upstream NewPrefixTransformers)', () => {
  const k1 = provider('aesgcm', 'key1', newGCMCipher(key(32, 1)));
  const k2 = provider('aesgcm', 'key2', newGCMCipher(key(32, 2)));

  test('the stored value carries k8s:enc:<provider>:v1:<key>: and no plaintext', () => {
    const stored = k1.transformToStorage(PLAIN, KEY);
    assert.ok(stored.startsWith('k8s:enc:aesgcm:v1:key1:'));
    assert.ok(!stored.includes('czNjcmV0') && !stored.includes('Secret'));
  });

  test('rotation: the first provider writes, every one reads; reads through a later one are stale', () => {
    const rotated = chain(entry('aesgcm', 'key2', newGCMCipher(key(32, 2))), entry('aesgcm', 'key1', newGCMCipher(key(32, 1))));
    const old = k1.transformToStorage(PLAIN, KEY);
    assert.deepEqual(rotated.transformFromStorage(old, KEY), { data: PLAIN, stale: true });
    const fresh = rotated.transformToStorage(PLAIN, KEY);
    assert.ok(fresh.startsWith('k8s:enc:aesgcm:v1:key2:'));
    assert.deepEqual(rotated.transformFromStorage(fresh, KEY), { data: PLAIN, stale: false });
  });

  test('identity first reads plaintext, and falls through to the provider for encrypted data', () => {
    const t = chain({ prefix: '', transformer: identityTransformer }, entry('aesgcm', 'key1', newGCMCipher(key(32, 1))));
    assert.equal(t.transformToStorage(PLAIN, KEY), PLAIN);
    assert.deepEqual(t.transformFromStorage(PLAIN, KEY), { data: PLAIN, stale: false });
    assert.deepEqual(t.transformFromStorage(k1.transformToStorage(PLAIN, KEY), KEY), { data: PLAIN, stale: true });
    assert.throws(() => identityTransformer.transformFromStorage('k8s:enc:aesgcm:v1:x:AAAA', KEY), { message: 'identity transformer tried to read encrypted data' });
  });

  test('no matching prefix, or every match failing, is an error', () => {
    assert.throws(() => k1.transformFromStorage(PLAIN, KEY), { message: 'no matching prefix found' });
    assert.throws(() => k1.transformFromStorage(k2.transformToStorage(PLAIN, KEY), KEY), { message: 'no matching key was found' });
    const wrongKey = entry('aesgcm', 'key1', newGCMCipher(key(32, 9)));
    const both = chain(wrongKey, entry('aescbc', 'key1', newCBCCipher(key(32))), wrongKey);
    assert.throws(() => both.transformFromStorage(k1.transformToStorage(PLAIN, KEY), KEY), { message: 'cipher: message authentication failed' }, 'distinct messages, as Go aggregates');
    assert.equal(aggregateMessage([new Error('a'), new Error('b'), new Error('a')]), '[a, b]');
  });
});

/** Encrypts every key with AES-GCM key1. */
const everything = (): Transformer => provider('aesgcm', 'key1', newGCMCipher(key(32)));

runBackendConformance('TransformingBackend(MemoryBackend, aesgcm)', () => {
  const t = everything();
  return new TransformingBackend(new MemoryBackend(), () => t);
});
runBackendConformance('TransformingBackend(SqliteBackend, secretbox)', () => {
  const t = provider('secretbox', 'k', newSecretboxCipher(key(32)));
  return new TransformingBackend(new SqliteBackend({ path: ':memory:' }), () => t);
});

describe('TransformingBackend', () => {
  const setup = () => {
    const inner = new MemoryBackend();
    const t = everything();
    const b = new TransformingBackend(inner, (k) => (k.startsWith('/registry/core/secrets/') ? t : undefined));
    return { inner, b };
  };

  test('stores configured keys encrypted and others as they are; every read gives the plain value back', async () => {
    const { inner, b } = setup();
    const s = await b.create(KEY, PLAIN);
    assert.equal(s.value, PLAIN);
    await b.create('/registry/core/configmaps/default/c', '{"data":{}}');
    const raw = await inner.get(KEY);
    assert.ok(raw?.value.startsWith('k8s:enc:aesgcm:v1:key1:'));
    assert.ok(!raw?.value.includes('czNjcmV0'));
    assert.equal((await inner.get('/registry/core/configmaps/default/c'))?.value, '{"data":{}}');
    assert.equal((await b.get(KEY))?.value, PLAIN);
    assert.deepEqual((await b.list('/registry/')).kvs.map((kv) => kv.value), ['{"data":{}}', PLAIN]);
    const events: WatchEvent[] = [];
    b.watch('/registry/', 0, (evs) => events.push(...evs));
    const u = await b.update(KEY, PLAIN.replace('czNjcmV0', 'bmV3'), s.modRevision);
    await b.delete(KEY, u.modRevision);
    await flushAsync();
    assert.deepEqual(
      events.map((e) => [e.type, e.kv.value.includes('data'), e.prevKv?.value.includes('data') ?? null]),
      [
        ['create', true, null],
        ['create', true, null],
        ['update', true, true],
        ['delete', true, true],
      ],
    );
  });

  test('identity reads hand the stored version through without a copy', async () => {
    const inner = new MemoryBackend();
    const b = new TransformingBackend(inner, () => identityTransformer);
    await b.create('/registry/core/configmaps/default/c', '{}');
    assert.equal(await b.get('/registry/core/configmaps/default/c'), await inner.get('/registry/core/configmaps/default/c'));
  });

  test('a Conflict carries the current version decrypted', async () => {
    const { b } = setup();
    const s = await b.create(KEY, PLAIN);
    await b.update(KEY, PLAIN, s.modRevision);
    await assert.rejects(b.update(KEY, PLAIN, s.modRevision), (err: unknown) => isStorageError(err, 'Conflict') && err.current?.value === PLAIN);
  });

  test('a value that cannot be decrypted is marked readError in get, list and watch; the others are unaffected', async () => {
    const { inner, b } = setup();
    await b.create(KEY, PLAIN);
    await inner.create('/registry/core/secrets/default/bad', 'k8s:enc:aesgcm:v1:key1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    await inner.create('/registry/core/secrets/default/other-key', 'k8s:enc:aesgcm:v1:gone:AAAA');
    const bad = await b.get('/registry/core/secrets/default/bad');
    assert.equal(bad?.readError, 'cipher: message authentication failed');
    assert.equal((await b.get('/registry/core/secrets/default/other-key'))?.readError, 'no matching key was found');
    const list = await b.list('/registry/core/secrets/');
    assert.deepEqual(list.kvs.map((kv) => [kv.key, kv.readError ?? null]), [
      ['/registry/core/secrets/default/bad', 'cipher: message authentication failed'],
      ['/registry/core/secrets/default/other-key', 'no matching key was found'],
      [KEY, null],
    ]);
    const events: WatchEvent[] = [];
    b.watch('/registry/', 0, (evs) => events.push(...evs));
    await flushAsync();
    assert.deepEqual(events.map((e) => e.kv.readError ?? null), [null, 'cipher: message authentication failed', 'no matching key was found']);
  });
});
