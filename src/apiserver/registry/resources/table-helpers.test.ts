import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parseTime } from '../../../util/clock/index.js';
import { humanDuration, layoutContainerCells, translateTimestampSince } from './table-helpers.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;
const Y = 365 * D;

describe('humanDuration (apimachinery duration.HumanDuration)', () => {
  const cases: [number, string][] = [
    [-2 * S, '<invalid>'],
    [-1999, '0s'],
    [-1 * S, '0s'],
    [0, '0s'],
    [999, '0s'],
    [59 * S, '59s'],
    [119 * S + 999, '119s'],
    [2 * M, '2m'],
    [2 * M + 3 * S, '2m3s'],
    [9 * M + 59 * S, '9m59s'],
    [10 * M + 30 * S, '10m'],
    [179 * M + 59 * S, '179m'],
    [3 * H, '3h'],
    [3 * H + 5 * M, '3h5m'],
    [7 * H + 59 * M, '7h59m'],
    [8 * H + 30 * M, '8h'],
    [47 * H + 59 * M, '47h'],
    [2 * D, '2d'],
    [2 * D + 3 * H, '2d3h'],
    [7 * D + 23 * H, '7d23h'],
    [8 * D + 5 * H, '8d'],
    [729 * D, '729d'],
    [2 * Y, '2y'],
    [2 * Y + 10 * D, '2y10d'],
    [7 * Y + 364 * D, '7y364d'],
    [8 * Y + 100 * D, '8y'],
  ];
  for (const [ms, want] of cases) {
    test(`${ms} ms → ${want}`, () => assert.equal(humanDuration(ms), want));
  }
});

describe('translateTimestampSince', () => {
  test('age of a timestamp at now', () => {
    assert.equal(translateTimestampSince('2025-01-01T00:00:00Z', parseTime('2025-01-01T00:05:00Z')!), '5m');
  });
  test('missing or malformed timestamps are <unknown>', () => {
    assert.equal(translateTimestampSince(undefined, 0), '<unknown>');
    assert.equal(translateTimestampSince('', 0), '<unknown>');
    assert.equal(translateTimestampSince('yesterday', 0), '<unknown>');
  });
});

test('layoutContainerCells joins names and images with commas', () => {
  assert.deepEqual(
    layoutContainerCells([
      { name: 'a', image: 'nginx:1' },
      { name: 'b', image: 'busybox' },
    ]),
    ['a,b', 'nginx:1,busybox'],
  );
  assert.deepEqual(layoutContainerCells(undefined), ['', '']);
});
