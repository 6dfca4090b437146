import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../util/clock/index.js';
import type { CacheEvent } from './cache-watcher.js';
import { DEFAULT_EVENT_FRESH_MS, DEFAULT_LOWER_BOUND_CAPACITY, DEFAULT_UPPER_BOUND_CAPACITY, EventWindow } from './event-window.js';

const event = (rv: number): CacheEvent => ({ type: 'MODIFIED', key: '/registry/core/pods/default/p', object: { metadata: { resourceVersion: String(rv) } }, rv });

/** Pushes revisions from..to, stepping the clock by `stepMs` before each. */
function pushRange(w: EventWindow, clock: FakeClock, from: number, to: number, stepMs = 0): void {
  for (let rv = from; rv <= to; rv++) {
    clock.step(stepMs);
    w.push(event(rv));
  }
}

const revisions = (evs: CacheEvent[] | undefined): number[] | undefined => evs?.map((e) => e.rv);

describe('EventWindow (upstream watch_cache.go sizing)', () => {
  test('upstream bounds: 100 to 102,400 events, 75 s fresh', () => {
    assert.equal(DEFAULT_LOWER_BOUND_CAPACITY, 100);
    assert.equal(DEFAULT_UPPER_BOUND_CAPACITY, 102_400);
    assert.equal(DEFAULT_EVENT_FRESH_MS, 75_000);
    assert.equal(new EventWindow(new FakeClock()).capacity, 100);
  });

  test('a full window of fresh changes doubles, up to the upper bound', () => {
    const clock = new FakeClock();
    const w = new EventWindow(clock, { lowerBound: 4, upperBound: 16 });
    w.reset(0);
    pushRange(w, clock, 1, 4);
    assert.equal(w.capacity, 4);
    pushRange(w, clock, 5, 5);
    assert.equal(w.capacity, 8);
    pushRange(w, clock, 6, 40);
    assert.equal(w.capacity, 16, 'capped');
    assert.equal(w.size, 16);
    assert.equal(w.oldestResumableRevision, 24, 'every change above 24 is here');
    assert.deepEqual(revisions(w.eventsAfter(24)), Array.from({ length: 16 }, (_, i) => 25 + i));
  });

  test('a full window whose oldest change is stale keeps its size; one whose newest quarter is stale halves', () => {
    const clock = new FakeClock();
    const w = new EventWindow(clock, { lowerBound: 2, upperBound: 8, eventFreshMs: 1000 });
    w.reset(0);
    pushRange(w, clock, 1, 9, 10); // grows 2 → 4 → 8 while everything is fresh
    assert.equal(w.capacity, 8);
    // One change every 300 ms: the oldest is stale but the newest quarter (2 changes) is not.
    pushRange(w, clock, 10, 13, 300);
    assert.equal(w.capacity, 8);
    // After a quiet spell, the newest quarter is stale too: halve, keeping the newest changes.
    clock.step(5000);
    w.push(event(14));
    assert.equal(w.capacity, 4);
    assert.deepEqual(revisions(w.eventsAfter(w.oldestResumableRevision)), [11, 12, 13, 14]);
    assert.equal(w.oldestResumableRevision, 10);
    clock.step(5000);
    w.push(event(15));
    assert.equal(w.capacity, 2, 'down to the lower bound');
    clock.step(5000);
    w.push(event(16));
    assert.equal(w.capacity, 2);
    assert.deepEqual(revisions(w.eventsAfter(14)), [15, 16]);
  });

  test('eventsAfter: from the listing revision on, undefined once a needed change has left', () => {
    const clock = new FakeClock();
    const w = new EventWindow(clock, { lowerBound: 3, upperBound: 3 });
    w.reset(10);
    assert.deepEqual(w.eventsAfter(10), []);
    assert.equal(w.eventsAfter(9), undefined, 'before the listing');
    for (const rv of [12, 15, 17]) w.push(event(rv));
    assert.deepEqual(revisions(w.eventsAfter(10)), [12, 15, 17]);
    assert.deepEqual(revisions(w.eventsAfter(13)), [15, 17]);
    w.push(event(20)); // drops 12
    assert.equal(w.oldestResumableRevision, 12);
    assert.equal(w.eventsAfter(11), undefined);
    assert.deepEqual(revisions(w.eventsAfter(12)), [15, 17, 20], 'nothing of this resource between 12 and 15 was lost');
  });

  test('compact drops the changes at or below the compacted revision, even in a window that had room', () => {
    const clock = new FakeClock();
    const w = new EventWindow(clock);
    w.reset(0);
    pushRange(w, clock, 1, 50);
    w.compact(30);
    assert.equal(w.size, 20);
    assert.equal(w.oldestResumableRevision, 30);
    assert.equal(w.eventsAfter(29), undefined);
    assert.deepEqual(revisions(w.eventsAfter(30)), Array.from({ length: 20 }, (_, i) => 31 + i));
    w.compact(20);
    assert.equal(w.oldestResumableRevision, 30, 'never moves back');
    w.compact(60);
    assert.equal(w.size, 0);
    assert.equal(w.oldestResumableRevision, 60);
    w.push(event(61));
    assert.deepEqual(revisions(w.eventsAfter(60)), [61]);
  });
});
