import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJSON, computeHash, fnv32a, safeEncodeString } from './index.js';

test('fnv32a matches the FNV-1a 32-bit reference vectors', () => {
  assert.equal(fnv32a(''), 0x811c9dc5);
  assert.equal(fnv32a('a'), 0xe40c292c);
  assert.equal(fnv32a('foobar'), 0xbf9cf968);
  // UTF-8 bytes, not UTF-16 code units.
  assert.notEqual(fnv32a('é'), fnv32a('\u00e9'.normalize('NFD')));
});

test('safeEncodeString maps by code point modulo 27', () => {
  assert.equal(safeEncodeString('0123456789'), '456789bcdf');
  assert.equal(safeEncodeString(''), '');
});

test('canonicalJSON sorts keys at every level and skips undefined', () => {
  assert.equal(canonicalJSON({ b: 1, a: { d: [2, { z: 1, y: null }], c: 'x' }, u: undefined }), '{"a":{"c":"x","d":[2,{"y":null,"z":1}]},"b":1}');
});

test('computeHash is deterministic, key-order independent and template sensitive', () => {
  const t1 = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } };
  const t2 = { spec: { containers: [{ image: 'nginx:1.27', name: 'nginx' }] }, metadata: { labels: { app: 'web' } } };
  const h = computeHash(t1);
  assert.equal(h, computeHash(t2));
  assert.match(h, /^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
  assert.notEqual(computeHash({ ...t1, spec: { containers: [{ name: 'nginx', image: 'nginx:1.28' }] } }), h);
  // Pinned so any change to the algorithm is noticed: existing ReplicaSets would otherwise be orphaned by name.
  assert.equal(h, '787cdcbd95');
  assert.equal(computeHash(t1, 1), '7bdfb4cd9d');
  assert.equal(safeEncodeString(String(fnv32a(canonicalJSON(t1)))), h);
});

test('collisionCount changes the hash; undefined and 0 differ', () => {
  const t = { spec: { containers: [{ name: 'a', image: 'b' }] } };
  const h = computeHash(t);
  const h0 = computeHash(t, 0);
  const h1 = computeHash(t, 1);
  assert.notEqual(h, h0);
  assert.notEqual(h0, h1);
  assert.equal(computeHash(t, 1), h1);
});
