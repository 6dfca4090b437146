import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SeededRand } from '../../util/random/index.js';
import { OrderedStore, type OrderedView } from './ordered-store.js';

/** What a view holds, in order. */
const contents = (view: OrderedView<string>, prefix = '/'): [string, string][] => [...view.entries(prefix)];

test('OrderedStore matches a sorted reference across chunk splits, and every snapshot keeps what it saw', () => {
  const rand = new SeededRand(11);
  const store = new OrderedStore<string>();
  const reference = new Map<string, string>();
  const snapshots: { view: OrderedView<string>; expected: [string, string][] }[] = [];
  for (let i = 0; i < 30_000; i++) {
    const key = `/k/${String.fromCharCode(97 + rand.int(3))}/${rand.int(3000).toString().padStart(4, '0')}`;
    if (rand.float() < 0.7) {
      store.set(key, `${key}@${i}`);
      reference.set(key, `${key}@${i}`);
    } else {
      assert.equal(store.delete(key), reference.delete(key));
    }
    if (i % 3000 === 0) {
      snapshots.push({ view: store.snapshot(), expected: [...reference].sort(([a], [b]) => (a < b ? -1 : 1)) });
      // A store forked from a snapshot changes apart from it and from the store.
      const fork = (snapshots.at(-1) as { view: OrderedView<string> }).view.fork();
      fork.set('/k/a/0000', 'forked');
      fork.delete('/k/c/2999');
    }
  }
  const sorted = [...reference].sort(([a], [b]) => (a < b ? -1 : 1));
  assert.equal(store.size, sorted.length);
  assert.deepEqual(contents(store), sorted);
  for (const { view, expected } of snapshots) {
    assert.deepEqual(contents(view), expected, 'a snapshot is unchanged by later writes');
    assert.equal(view.size, expected.length);
  }
  const keys = sorted.map(([k]) => k);
  for (const probe of ['/k/a/0000', '/k/b/1500', '/k/b/1500\u0000', '/k/c/9999', '/a', '/z']) {
    assert.equal(store.rank(probe), keys.filter((k) => k < probe).length, `rank(${probe})`);
  }
  for (const prefix of ['/k/a/', '/k/b/', '/k/c/', '/k/d/']) {
    const under = sorted.filter(([k]) => k.startsWith(prefix));
    assert.deepEqual(contents(store, prefix), under, `entries(${prefix})`);
    assert.equal(store.countAfter(prefix), under.length);
    const middle = under[Math.floor(under.length / 2)]?.[0] ?? prefix + '1';
    const after = under.filter(([k]) => k > middle);
    assert.deepEqual([...store.entries(prefix, middle)], after, `entries(${prefix}, after ${middle})`);
    assert.equal(store.countAfter(prefix, middle), after.length);
    // A startAfter before the prefix starts at the prefix.
    assert.deepEqual([...store.entries(prefix, '/a')], under);
  }
  for (const [k, v] of sorted.slice(0, 200)) assert.equal(store.get(k), v);
  assert.equal(store.get('/k/x'), undefined);
});

test('a snapshot costs no copy until a write, and a write after it copies only the chunk it changes', () => {
  const store = new OrderedStore<number>();
  for (let i = 0; i < 5000; i++) store.set(`/k/${i.toString().padStart(5, '0')}`, i);
  const before = store.snapshot();
  store.set('/k/00000', -1);
  const after = store.snapshot();
  assert.equal(before.get('/k/00000'), 0);
  assert.equal(after.get('/k/00000'), -1);
  // The chunks of the untouched keys are the same arrays in both views.
  const chunksOf = (v: OrderedView<number>): { keys: string[] }[] => (v as unknown as { chunks: { keys: string[] }[] }).chunks;
  const shared = chunksOf(before).filter((c, i) => chunksOf(after)[i] === c).length;
  assert.equal(shared, chunksOf(before).length - 1);
  // An empty store's fork starts with a root of its own.
  const empty = new OrderedStore<number>().snapshot();
  empty.fork().set('/a', 1);
  assert.equal(empty.size, 0);
  assert.deepEqual([...empty.entries('/')], []);
});
