import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SeededRand } from '../../util/random/index.js';
import { countPrefix, page, prefixEnd } from './keys.js';
import { SortedMap } from './sorted-map.js';

test('SortedMap matches a sorted reference under random sets and deletes across chunk splits', () => {
  const rand = new SeededRand(7);
  const map = new SortedMap<string>();
  const reference = new Map<string, string>();
  for (let i = 0; i < 20_000; i++) {
    const key = `/k/${rand.int(5000).toString().padStart(4, '0')}`;
    if (rand.float() < 0.7) {
      map.set(key, `${key}@${i}`);
      reference.set(key, `${key}@${i}`);
    } else {
      assert.equal(map.delete(key), reference.delete(key));
    }
  }
  const sorted = [...reference.keys()].sort();
  const values = sorted.map((k) => reference.get(k));
  assert.equal(map.size, sorted.length);
  assert.deepEqual(map.slice(0, map.size), values);
  for (const key of sorted.slice(0, 100)) assert.equal(map.get(key), reference.get(key));
  assert.equal(map.get('/k/x'), undefined);
  for (const probe of ['/k/0000', '/k/2500', '/k/2500\u0000', '/k/9999', '/a', '/z']) {
    const rank = sorted.filter((k) => k < probe).length;
    assert.equal(map.rank(probe), rank, `rank(${probe})`);
    assert.deepEqual(map.slice(rank, rank + 1500), values.slice(rank, rank + 1500), `slice from ${probe}`);
  }
});

test('page pages a prefix and counts what remains; countPrefix counts it', () => {
  const map = new SortedMap<string>();
  for (const key of ['/a', '/a/1', '/a/2', '/a/3', '/a0', '/ab/1', '/b/1']) map.set(key, key);
  assert.equal(prefixEnd('/a/'), '/a0');
  assert.equal(prefixEnd(''), undefined);
  assert.deepEqual(page(map, '/a/', undefined, 2), { values: ['/a/1', '/a/2'], more: true, remaining: 1 });
  assert.deepEqual(page(map, '/a/', '/a/2', 2), { values: ['/a/3'], more: false, remaining: 0 });
  assert.deepEqual(page(map, '', '/a0', 0), { values: ['/ab/1', '/b/1'], more: false, remaining: 0 });
  assert.deepEqual(page(map, '', undefined, 3), { values: ['/a', '/a/1', '/a/2'], more: true, remaining: 4 });
  assert.equal(countPrefix(map, '/a/'), 3);
  assert.equal(countPrefix(map, ''), 7);
});
