/**
 * The zone tainting queue. Cases from kubernetes/kubernetes
 * pkg/controller/nodelifecycle/scheduler/rate_limited_queue_test.go (TestAddNode, TestDelNode, TestTry,
 * TestTryOrdering, TestSwapLimiter), under a FakeClock.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../util/clock/index.js';
import { RateLimitedTimedQueue, TokenBucket } from './rate-limited-queue.js';

describe('RateLimitedTimedQueue', () => {
  test('TestAddNode: unique values, in order; a known value is refused', () => {
    const q = new RateLimitedTimedQueue(1000, new FakeClock());
    assert.equal(q.add('first', '11111'), true);
    assert.equal(q.add('second', '22222'), true);
    assert.equal(q.add('third', '33333'), true);
    assert.equal(q.add('second', '22222'), false);
    assert.deepEqual(q.pending(), ['first', 'second', 'third']);
  });

  test('TestDelNode: remove takes a value out of the queue and the set', () => {
    const q = new RateLimitedTimedQueue(1000, new FakeClock());
    for (const v of ['first', 'second', 'third']) q.add(v, v);
    assert.equal(q.remove('second'), true);
    assert.deepEqual(q.pending(), ['first', 'third']);
    assert.equal(q.add('second', 'x'), true, 'removed values may be added again');
  });

  test('TestTry: processed values leave the queue but stay known; a refused one is retried later', () => {
    const clock = new FakeClock();
    const q = new RateLimitedTimedQueue(1000, clock);
    for (const v of ['first', 'second', 'third']) q.add(v, v);
    const seen: string[] = [];
    // A token a millisecond (burst 1): one value per step.
    for (let i = 0; i < 3; i++) {
      clock.step(1);
      q.try((v) => {
        seen.push(v.value);
        return v.value === 'second' ? [false, 50] : [true, 0];
      });
    }
    assert.deepEqual(seen, ['first', 'second', 'third']);
    assert.deepEqual(q.pending(), ['second'], 'second waits for its retry');
    assert.equal(q.add('first', 'x'), false, 'processed values stay known');
    clock.step(20);
    q.try(() => [true, 0]);
    assert.deepEqual(q.pending(), ['second'], 'not due yet');
    clock.step(40);
    q.try(() => [true, 0]);
    assert.deepEqual(q.pending(), []);
  });

  test('the rate: one value per 1/qps seconds after a burst of 1', () => {
    const clock = new FakeClock();
    const q = new RateLimitedTimedQueue(0.1, clock);
    for (const v of ['a', 'b', 'c']) q.add(v, v);
    const done: string[] = [];
    const run = (): void => q.try((v) => (done.push(v.value), [true, 0]));
    run();
    assert.deepEqual(done, ['a']);
    clock.step(9_900);
    run();
    assert.deepEqual(done, ['a'], 'no token yet');
    clock.step(100);
    run();
    assert.deepEqual(done, ['a', 'b']);
    clock.step(10_000);
    run();
    assert.deepEqual(done, ['a', 'b', 'c']);
  });

  test('TestSwapLimiter: 0 stops processing; swapping from an empty bucket does not give a free token', () => {
    const clock = new FakeClock();
    const q = new RateLimitedTimedQueue(0.1, clock);
    q.add('a', 'a');
    q.add('b', 'b');
    q.swapLimiter(0);
    assert.equal(q.qps(), 0);
    const done: string[] = [];
    q.try((v) => (done.push(v.value), [true, 0]));
    clock.step(60_000);
    q.try((v) => (done.push(v.value), [true, 0]));
    assert.equal(done.length, 0, 'a zero rate processes nothing');
    q.swapLimiter(0.1);
    q.try((v) => (done.push(v.value), [true, 0]));
    assert.equal(done.length, 0, 'the new bucket was drained: the old one had no token');
    clock.step(10_000);
    q.try((v) => (done.push(v.value), [true, 0]));
    assert.deepEqual(done, ['a']);
  });
});

describe('TokenBucket', () => {
  test('starts full, refills at qps up to burst', () => {
    const clock = new FakeClock();
    const b = new TokenBucket(2, 2, clock);
    assert.deepEqual([b.tryAccept(), b.tryAccept(), b.tryAccept()], [true, true, false]);
    clock.step(500);
    assert.deepEqual([b.tryAccept(), b.tryAccept()], [true, false]);
    clock.step(10_000);
    assert.deepEqual([b.tryAccept(), b.tryAccept(), b.tryAccept()], [true, true, false], 'no more than burst');
  });
});
