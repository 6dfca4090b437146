import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock, flushAsync } from '../util/clock/index.js';
import { RateLimitingQueue, type GetResult } from './queue.js';
import { itemExponentialFailureRateLimiter } from './rate-limiters.js';
import { scrape, valueOf } from '../util/metrics/testing/index.js';

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

describe('workqueue metrics (client-go util/workqueue/metrics.go), timed by the FakeClock', () => {
  /** A queue with its own name, so each test reads its own series. */
  const named = (name: string, clock: FakeClock): RateLimitingQueue => new RateLimitingQueue<string>({ clock, name, rateLimiter: itemExponentialFailureRateLimiter(5, 1000) });
  const read = async (name: string): Promise<Record<string, number | undefined>> => {
    const exp = await scrape();
    return {
      depth: valueOf(exp, 'workqueue_depth', { name }),
      adds: valueOf(exp, 'workqueue_adds_total', { name }),
      retries: valueOf(exp, 'workqueue_retries_total', { name }),
      queueSum: valueOf(exp, 'workqueue_queue_duration_seconds_sum', { name }),
      queueCount: valueOf(exp, 'workqueue_queue_duration_seconds_count', { name }),
      workSum: valueOf(exp, 'workqueue_work_duration_seconds_sum', { name }),
      workCount: valueOf(exp, 'workqueue_work_duration_seconds_count', { name }),
      unfinished: valueOf(exp, 'workqueue_unfinished_work_seconds', { name }),
      longest: valueOf(exp, 'workqueue_longest_running_processor_seconds', { name }),
    };
  };

  test('adds, depth, queue and work durations, unfinished work and the longest runner, exactly', async () => {
    const clock = new FakeClock(0);
    const q = named('test-exact', clock);
    q.add('a');
    q.add('a'); // already dirty: not an add
    clock.step(250);
    q.add('b');
    // Every series of a named queue exists from its creation, as upstream's WithLabelValues makes them.
    assert.deepEqual(await read('test-exact'), { depth: 2, adds: 2, retries: 0, queueSum: 0, queueCount: 0, workSum: 0, workCount: 0, unfinished: 0, longest: 0 });

    clock.step(1250);
    assert.equal(await getItem(q), 'a'); // waited 1.5 s
    clock.step(500);
    assert.equal(await getItem(q), 'b'); // waited 1.75 s
    clock.step(2000);
    // a has run 2.5 s, b 2 s.
    assert.deepEqual(await read('test-exact'), { depth: 0, adds: 2, retries: 0, queueSum: 3.25, queueCount: 2, workSum: 0, workCount: 0, unfinished: 4.5, longest: 2.5 });

    q.add('a'); // dirtied while processing: an add, and depth counts it until it is handed out again
    q.done('a');
    clock.step(1000);
    q.done('b');
    assert.deepEqual(await read('test-exact'), { depth: 1, adds: 3, retries: 0, queueSum: 3.25, queueCount: 2, workSum: 2.5 + 3, workCount: 2, unfinished: 0, longest: 0 });

    assert.equal(await getItem(q), 'a'); // added 1 s ago
    const exp = await scrape();
    assert.equal(valueOf(exp, 'workqueue_queue_duration_seconds_sum', { name: 'test-exact' }), 4.25);
    // Buckets: 1.5 s and 1.75 s and 1 s are each ≤ 10 and > 1.
    assert.equal(valueOf(exp, 'workqueue_queue_duration_seconds_bucket', { name: 'test-exact', le: '1' }), 1);
    assert.equal(valueOf(exp, 'workqueue_queue_duration_seconds_bucket', { name: 'test-exact', le: '10' }), 3);
    assert.equal(valueOf(exp, 'workqueue_queue_duration_seconds_bucket', { name: 'test-exact', le: '9.999999999999999e-06' }), 0);
    assert.equal(exp.help.get('workqueue_depth'), '[ALPHA] Current depth of workqueue');
  });

  test('every addAfter and addRateLimited is a retry, as upstream counts them in AddAfter', async () => {
    const clock = new FakeClock(0);
    const q = named('test-retries', clock);
    q.addRateLimited('a');
    q.addRateLimited('a');
    q.addAfter('b', 0);
    q.addAfter('c', 100);
    let m = await read('test-retries');
    assert.equal(m.retries, 4);
    assert.equal(m.adds, 1, 'b is added at once; a and c wait');
    clock.step(100);
    m = await read('test-retries');
    assert.equal(m.adds, 3);
    assert.equal(m.depth, 3);
    q.shutDown();
    assert.equal((await read('test-retries')).depth, undefined, 'a queue shut down is no longer reported');
    q.addRateLimited('d');
    assert.equal((await read('test-retries')).retries, 4, 'nothing is counted after shutdown');
  });

  test('queues of the same name add up; a queue without a name has no metrics', async () => {
    const clock = new FakeClock(0);
    const q1 = named('test-shared', clock);
    const q2 = named('test-shared', clock);
    q1.add('a');
    q2.add('a');
    q2.add('b');
    const m = await read('test-shared');
    assert.equal(m.depth, 3);
    assert.equal(m.adds, 3);
    const unnamed = new RateLimitingQueue<string>({ clock });
    unnamed.add('x');
    assert.equal(valueOf(await scrape(), 'workqueue_depth', { name: '' }), undefined);
  });
});
