import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock, formatTime, formatMicroTime, parseTime } from './index.js';

test('FakeClock fires due timers in target-time order, including timers set while stepping', () => {
  const clock = new FakeClock(0);
  const fired: string[] = [];
  clock.setTimer(30, () => fired.push('b@30'));
  clock.setTimer(10, () => {
    fired.push('a@10');
    clock.setTimer(5, () => fired.push('c@15'));
  });
  const t = clock.setTimer(20, () => fired.push('never'));
  assert.equal(t.stop(), true);
  clock.step(25);
  assert.deepEqual(fired, ['a@10', 'c@15']);
  assert.equal(clock.now(), 25);
  assert.equal(clock.nextTimerAt(), 30);
  clock.step(5);
  assert.deepEqual(fired, ['a@10', 'c@15', 'b@30']);
  assert.equal(clock.pendingTimers(), 0);
});

test('FakeClock.stepAsync lets sleepers continue', async () => {
  const clock = new FakeClock(0);
  const seen: number[] = [];
  void (async () => {
    await clock.sleep(10);
    seen.push(clock.now());
    await clock.sleep(10);
    seen.push(clock.now());
  })();
  await clock.stepAsync(25);
  assert.deepEqual(seen, [10, 20]);
});

test('time formatting follows metav1.Time and MicroTime', () => {
  const t = Date.UTC(2025, 0, 2, 3, 4, 5, 678);
  assert.equal(formatTime(t), '2025-01-02T03:04:05Z');
  assert.equal(formatMicroTime(t), '2025-01-02T03:04:05.678000Z');
  assert.equal(parseTime('2025-01-02T03:04:05Z'), Date.UTC(2025, 0, 2, 3, 4, 5));
  assert.equal(parseTime('nope'), undefined);
});
