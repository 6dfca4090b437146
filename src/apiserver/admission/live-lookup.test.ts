/**
 * The admission plugins' reads (live-lookup.ts): the cache when it has objects; a caught-up cache when
 * it has none, remembered for upstream's 30 s TTL unless the store begins a write.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../api/index.js';
import { FakeClock } from '../../util/clock/index.js';
import { LiveLookup, LIVE_LOOKUP_TTL_MS, type CachedObjects } from './live-lookup.js';

/** A store whose cache shows `visible` and, after a wait, `committed`. */
function fakeStore(): CachedObjects & { visible: KubeObject[]; committed: KubeObject[]; waits: number; writeCount: number } {
  const s = {
    visible: [] as KubeObject[],
    committed: [] as KubeObject[],
    waits: 0,
    writeCount: 0,
    cachedObjects: () => s.visible,
    waitForResourceVersion: () => {
      s.waits++;
      s.visible = s.committed;
      return Promise.resolve();
    },
  };
  return s;
}

const quota: KubeObject = { metadata: { name: 'q', namespace: 'a' } };

describe('LiveLookup', () => {
  test('objects in the cache are used as they are; an empty cache is caught up once, then believed for the TTL', async () => {
    const clock = new FakeClock(0);
    const store = fakeStore();
    const lookup = new LiveLookup(clock);
    assert.deepEqual(await lookup.objectsIn(store, 'a'), []);
    assert.equal(store.waits, 1);
    assert.deepEqual(await lookup.objectsIn(store, 'a'), []);
    assert.equal(store.waits, 1, 'believed empty');
    clock.step(LIVE_LOOKUP_TTL_MS);
    await lookup.objectsIn(store, 'a');
    assert.equal(store.waits, 2, 'the TTL ran out');
    store.visible = [quota];
    assert.deepEqual(await lookup.objectsIn(store, 'a'), [quota]);
    assert.equal(store.waits, 2, 'no wait when the cache has objects');
    assert.deepEqual(await lookup.objectsIn(undefined, 'a'), [], 'a kind not served has none');
  });

  test('a write begun by the store ends the belief: a quota created just before is seen', async () => {
    const store = fakeStore();
    const lookup = new LiveLookup(new FakeClock(0));
    await lookup.objectsIn(store, 'a');
    store.committed = [quota];
    store.writeCount++;
    assert.deepEqual(await lookup.objectsIn(store, 'a'), [quota]);
  });
});
