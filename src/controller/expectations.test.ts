import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../util/clock/index.js';
import { ControllerExpectations, EXPECTATIONS_TIMEOUT_MS, UIDTrackingControllerExpectations } from './expectations.js';

describe('ControllerExpectations', () => {
  test('no record is satisfied; raised expectations block until observed', () => {
    const e = new ControllerExpectations(new FakeClock());
    assert.equal(e.satisfiedExpectations('ns/rs'), true);
    e.expectCreations('ns/rs', 2);
    assert.equal(e.satisfiedExpectations('ns/rs'), false);
    e.creationObserved('ns/rs');
    assert.equal(e.satisfiedExpectations('ns/rs'), false);
    e.creationObserved('ns/rs');
    assert.equal(e.satisfiedExpectations('ns/rs'), true);
    assert.deepEqual({ ...e.getExpectations('ns/rs'), timestamp: 0 }, { add: 0, del: 0, timestamp: 0 });
  });

  test('deletions, lower/raise, and delete', () => {
    const e = new ControllerExpectations(new FakeClock());
    e.expectDeletions('k', 1);
    e.raiseExpectations('k', 1, 0);
    e.deletionObserved('k');
    assert.equal(e.satisfiedExpectations('k'), false, 'one creation still expected');
    e.lowerExpectations('k', 1, 0);
    assert.equal(e.satisfiedExpectations('k'), true);
    e.expectCreations('k', 5);
    e.deleteExpectations('k');
    assert.equal(e.getExpectations('k'), undefined);
    assert.equal(e.satisfiedExpectations('k'), true);
  });

  test('expectations expire after 5 minutes of clock time', () => {
    const clock = new FakeClock();
    const e = new ControllerExpectations(clock);
    e.expectCreations('k', 3);
    clock.step(EXPECTATIONS_TIMEOUT_MS);
    assert.equal(e.satisfiedExpectations('k'), false, 'exactly 5 min is not yet expired');
    clock.step(1);
    assert.equal(e.satisfiedExpectations('k'), true);
  });
});

describe('UIDTrackingControllerExpectations', () => {
  test('a deleted pod lowers the count once, unknown pods not at all', () => {
    const e = new UIDTrackingControllerExpectations(new FakeClock());
    e.expectDeletions('ns/rs', ['ns/a', 'ns/b']);
    e.deletionObserved('ns/rs', 'ns/a');
    e.deletionObserved('ns/rs', 'ns/a');
    e.deletionObserved('ns/rs', 'ns/zzz');
    assert.equal(e.satisfiedExpectations('ns/rs'), false);
    assert.deepEqual([...(e.getUIDs('ns/rs') ?? [])], ['ns/b']);
    e.deletionObserved('ns/rs', 'ns/b');
    assert.equal(e.satisfiedExpectations('ns/rs'), true);
    e.deleteExpectations('ns/rs');
    assert.equal(e.getUIDs('ns/rs'), undefined);
  });
});
