import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../util/clock/index.js';
import { RateLimitingQueue } from './index.js';
import { silentLogger } from '../util/runtime/index.js';
import { TerminalError, processNextWorkItem, runWorkers } from './worker.js';

const opts = { name: 'test', logger: silentLogger };

describe('processNextWorkItem', () => {
  test('success forgets the key', async () => {
    const queue = new RateLimitingQueue({ clock: new FakeClock() });
    queue.add('k');
    queue.addRateLimited('other');
    assert.equal(await processNextWorkItem(queue, () => Promise.resolve(), opts), true);
    assert.equal(queue.numRequeues('k'), 0);
    assert.equal(queue.len(), 0);
  });

  test('errors requeue with backoff; success resets it', async () => {
    const clock = new FakeClock();
    const queue = new RateLimitingQueue({ clock });
    queue.add('k');
    await processNextWorkItem(queue, () => Promise.reject(new Error('x')), opts);
    assert.equal(queue.numRequeues('k'), 1);
    assert.equal(queue.len(), 0, 'requeued after the backoff, not at once');
    clock.step(5);
    assert.equal(queue.len(), 1);
    await processNextWorkItem(queue, () => Promise.resolve(), opts);
    assert.equal(queue.numRequeues('k'), 0);
  });

  test('requeueAfter forgets and adds after the delay', async () => {
    const clock = new FakeClock();
    const queue = new RateLimitingQueue({ clock });
    queue.add('k');
    await processNextWorkItem(queue, () => Promise.resolve({ requeueAfter: 30_000 }), opts);
    clock.step(29_999);
    assert.equal(queue.len(), 0);
    clock.step(1);
    assert.equal(queue.len(), 1);
  });

  test('TerminalError and maxRetries drop the key', async () => {
    const clock = new FakeClock();
    const queue = new RateLimitingQueue({ clock });
    queue.add('t');
    await processNextWorkItem(queue, () => Promise.reject(new TerminalError('bad spec')), opts);
    clock.step(10_000);
    assert.equal(queue.len(), 0);

    let calls = 0;
    queue.add('r');
    for (let i = 0; i < 5; i++) {
      clock.step(10_000);
      if (queue.len() === 0) break;
      await processNextWorkItem(queue, () => {
        calls++;
        return Promise.reject(new Error('x'));
      }, { ...opts, maxRetries: 2 });
    }
    assert.equal(calls, 3, 'first try + 2 retries');
  });
});

describe('runWorkers', () => {
  test('processes keys with several workers and returns after shutdown', async () => {
    const queue = new RateLimitingQueue({ clock: new FakeClock() });
    const seen: string[] = [];
    const ac = new AbortController();
    const done = runWorkers(queue, 3, (key) => {
      seen.push(key);
      if (seen.length === 4) ac.abort();
      return Promise.resolve();
    }, { ...opts, signal: ac.signal });
    for (const k of ['a', 'b', 'c', 'd']) queue.add(k);
    await done;
    assert.deepEqual(seen.sort(), ['a', 'b', 'c', 'd']);
    assert.equal(queue.shuttingDown(), true);
  });
});
