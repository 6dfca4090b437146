import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock, flushAsync } from '../util/clock/index.js';
import { RateLimitingQueue, type GetResult } from './queue.js';
import { itemExponentialFailureRateLimiter } from './rate-limiters.js';

function newQueue(clock = new FakeClock(0)): { q: RateLimitingQueue; clock: FakeClock } {
  return { q: new RateLimitingQueue<string>({ clock, rateLimiter: itemExponentialFailureRateLimiter(5, 1000) }), clock };
}

async function getItem(q: RateLimitingQueue): Promise<string> {
  const r = await q.get();
  assert.equal(r.shutdown, false);
  return (r as { item: string }).item;
}

describe('RateLimitingQueue', () => {
  test('hands items out in FIFO order and deduplicates items waiting', async () => {
    const { q } = newQueue();
    q.add('a');
    q.add('b');
    q.add('a');
    assert.equal(q.len(), 2);
    assert.equal(await getItem(q), 'a');
    assert.equal(await getItem(q), 'b');
    assert.equal(q.len(), 0);
  });

  test('never hands an item to two workers; re-adds it on done() if dirtied while processing', async () => {
    const { q } = newQueue();
    q.add('a');
    assert.equal(await getItem(q), 'a');
    q.add('a'); // dirtied while processing
    q.add('a');
    assert.equal(q.len(), 0, 'a processing item is not queued again');
    let second: GetResult<string> | undefined;
    void q.get().then((r) => (second = r));
    await flushAsync();
    assert.equal(second, undefined, 'a second worker does not get the processing item');
    q.done('a');
    await flushAsync();
    assert.deepEqual(second, { item: 'a', shutdown: false });
    q.done('a');
    assert.equal(q.len(), 0, 'done without a new add does not requeue');
  });

  test('get() waits for an add; waiting getters are served in order', async () => {
    const { q } = newQueue();
    const got: string[] = [];
    void getItem(q).then((i) => got.push(`w1:${i}`));
    void getItem(q).then((i) => got.push(`w2:${i}`));
    await flushAsync();
    assert.deepEqual(got, []);
    q.add('x');
    q.add('y');
    await flushAsync();
    assert.deepEqual(got, ['w1:x', 'w2:y']);
  });

  test('shutDown wakes getters, ignores adds, and still drains queued items', async () => {
    const { q } = newQueue();
    const waiting = q.get();
    q.shutDown();
    assert.deepEqual(await waiting, { shutdown: true });

    const { q: q2 } = newQueue();
    q2.add('a');
    q2.shutDown();
    q2.add('b');
    assert.equal(q2.shuttingDown(), true);
    assert.equal(await getItem(q2), 'a');
    assert.deepEqual(await q2.get(), { shutdown: true });
  });

  test('addAfter fires on the clock, in deadline order, keeping the earliest deadline per item', async () => {
    const { q, clock } = newQueue();
    q.addAfter('late', 50);
    q.addAfter('early', 10);
    q.addAfter('early', 40); // later deadline: ignored
    q.addAfter('moved', 60);
    q.addAfter('moved', 20); // earlier deadline: wins
    assert.equal(q.len(), 0);
    clock.step(9);
    assert.equal(q.len(), 0);
    clock.step(1);
    assert.equal(q.len(), 1);
    clock.step(10);
    assert.equal(q.len(), 2);
    assert.equal(await getItem(q), 'early');
    assert.equal(await getItem(q), 'moved');
    clock.step(100);
    assert.equal(await getItem(q), 'late');
    assert.equal(q.len(), 0, 'the superseded deadlines add nothing');
    assert.equal(clock.pendingTimers(), 0);
  });

  test('addAfter with delay <= 0 adds at once; shutDown drops delayed items', () => {
    const { q, clock } = newQueue();
    q.addAfter('now', 0);
    assert.equal(q.len(), 1);
    q.addAfter('later', 10);
    q.shutDown();
    clock.step(20);
    assert.equal(q.len(), 1);
    assert.equal(clock.pendingTimers(), 0);
  });

  test('addRateLimited backs off per item; forget resets it', () => {
    const { q, clock } = newQueue();
    q.addRateLimited('a'); // 5 ms
    assert.equal(q.numRequeues('a'), 1);
    clock.step(4);
    assert.equal(q.len(), 0);
    clock.step(1);
    assert.equal(q.len(), 1);
    q.addRateLimited('b'); // 5 ms
    q.addRateLimited('b'); // 10 ms; the 5 ms deadline is earlier and stays
    assert.equal(q.numRequeues('b'), 2);
    q.forget('b');
    assert.equal(q.numRequeues('b'), 0);
    clock.step(5);
    assert.equal(q.len(), 2);
  });

  test('many delayed items fire in order', async () => {
    const { q, clock } = newQueue();
    const n = 200;
    // Deterministic shuffle of deadlines 1..n.
    for (let i = 0; i < n; i++) q.addAfter(`k${(i * 37) % n}`, ((i * 37) % n) + 1);
    clock.step(n);
    const order: string[] = [];
    for (let i = 0; i < n; i++) order.push(await getItem(q));
    assert.deepEqual(order, Array.from({ length: n }, (_, i) => `k${i}`));
  });
});
