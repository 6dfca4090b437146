import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LruCache } from './index.js';

test('LruCache holds at most its capacity and keeps what is read', () => {
  const c = new LruCache<number, string>(100);
  for (let i = 0; i < 1000; i++) {
    c.set(i, `v${i}`);
    // Key 0 is read after every write: it is never dropped.
    assert.equal(c.get(0), 'v0');
    assert.ok(c.size <= 100, `size ${c.size}`);
  }
  // The most recent writes are there; far older unread ones are gone.
  assert.equal(c.get(951), 'v951');
  assert.equal(c.get(999), 'v999');
  assert.equal(c.get(500), undefined);
  assert.equal(c.get(0), 'v0');
});
