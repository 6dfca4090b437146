import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../util/clock/index.js';
import { Backoff } from './backoff.js';

test('backoff doubles to the cap and starts over after 2 × max idle', () => {
  const clock = new FakeClock(0);
  const b = new Backoff(clock, 1000, 4000);
  assert.equal(b.isInBackOffSinceUpdate('k', 0), false);
  b.next('k', 0);
  assert.equal(b.get('k'), 1000);
  assert.equal(b.isInBackOffSinceUpdate('k', 999), true);
  assert.equal(b.isInBackOffSinceUpdate('k', 1000), false);
  b.next('k', 1000);
  b.next('k', 3000);
  b.next('k', 7000);
  assert.equal(b.get('k'), 4000, 'capped');
  b.next('k', 7000 + 8001);
  assert.equal(b.get('k'), 1000, 'expired entries restart');
  clock.step(30_000);
  b.gc();
  assert.equal(b.get('k'), 0);
});
