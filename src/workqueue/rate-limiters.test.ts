import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../util/clock/index.js';
import {
  bucketRateLimiter,
  defaultControllerRateLimiter,
  itemExponentialFailureRateLimiter,
  maxOfRateLimiter,
} from './rate-limiters.js';

describe('itemExponentialFailureRateLimiter', () => {
  test('doubles per failure from the base, capped, per item; forget resets', () => {
    const l = itemExponentialFailureRateLimiter<string>(5, 1000);
    assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 8, 9].map(() => l.when('a')), [5, 10, 20, 40, 80, 160, 320, 640, 1000]);
    assert.equal(l.numRequeues('a'), 9);
    assert.equal(l.when('b'), 5, 'items are independent');
    l.forget('a');
    assert.equal(l.numRequeues('a'), 0);
    assert.equal(l.when('a'), 5);
  });

  test('stays at the cap after thousands of failures (no overflow)', () => {
    const l = itemExponentialFailureRateLimiter<string>(5, 1000 * 1000);
    let last = 0;
    for (let i = 0; i < 2000; i++) last = l.when('a');
    assert.equal(last, 1000 * 1000);
  });
});

describe('bucketRateLimiter', () => {
  test('burst is free, then one token per 1/qps seconds; refills with clock time up to the burst', () => {
    const clock = new FakeClock(0);
    const l = bucketRateLimiter<string>(10, 3, clock);
    assert.deepEqual([l.when('a'), l.when('b'), l.when('c')], [0, 0, 0]);
    assert.equal(l.when('d'), 100);
    assert.equal(l.when('e'), 200);
    // 500 ms refill 5 tokens: the deficit of 2 is repaid and 3 remain (the bucket's size).
    clock.step(500);
    assert.deepEqual([l.when('f'), l.when('g'), l.when('h'), l.when('i')], [0, 0, 0, 100]);
    clock.step(10 * 1000);
    assert.deepEqual([l.when('j'), l.when('k'), l.when('l'), l.when('m')], [0, 0, 0, 100]);
    assert.equal(l.numRequeues('a'), 0);
  });
});

describe('maxOfRateLimiter / defaultControllerRateLimiter', () => {
  test('max of the limiters; forget and numRequeues reach all', () => {
    const clock = new FakeClock(0);
    const l = maxOfRateLimiter<string>(itemExponentialFailureRateLimiter(1, 100), itemExponentialFailureRateLimiter(3, 6));
    assert.deepEqual([l.when('a'), l.when('a'), l.when('a'), l.when('a')], [3, 6, 6, 8]);
    assert.equal(l.numRequeues('a'), 4);
    l.forget('a');
    assert.equal(l.numRequeues('a'), 0);
    const d = defaultControllerRateLimiter<string>(clock);
    assert.deepEqual([d.when('x'), d.when('x'), d.when('x')], [5, 10, 20]);
  });

  test('default: the overall bucket (10 qps, burst 100) dominates once the burst is spent', () => {
    const clock = new FakeClock(0);
    const d = defaultControllerRateLimiter<string>(clock);
    for (let i = 0; i < 100; i++) assert.equal(d.when(`k${i}`), 5);
    assert.equal(d.when('k100'), 100);
    assert.equal(d.when('k101'), 200);
  });
});
