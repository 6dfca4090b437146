/**
 * nextActivation against robfig/cron v3 spec_test.go `TestNext` (the cases ParseStandard can
 * express: five fields, seconds at 0), including its daylight-saving cases, plus the CronJob-relevant
 * DST days of 2025.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formatRFC3339In, goDate, nextActivation, parseStandard } from './index.js';

const at = (iso: string): number => Date.parse(iso);
const next = (spec: string, from: string, zone?: string): string | undefined => {
  const sched = parseStandard(spec);
  const t = nextActivation(sched, at(from));
  if (t === undefined) return undefined;
  return formatRFC3339In(zone ?? sched.location ?? 'UTC', t);
};

describe('nextActivation (robfig spec_test.go TestNext)', () => {
  test('simple cases, wrap-around and leap years (UTC)', () => {
    const cases: [string, string, string | undefined][] = [
      ['2012-07-09T14:45:00Z', '0/15 * * * *', '2012-07-09T15:00:00Z'],
      ['2012-07-09T14:59:00Z', '0/15 * * * *', '2012-07-09T15:00:00Z'],
      ['2012-07-09T14:59:59Z', '0/15 * * * *', '2012-07-09T15:00:00Z'],
      // Wrap around hours, days, months, years.
      ['2012-07-09T15:45:00Z', '20-35/15 * * * *', '2012-07-09T16:20:00Z'],
      ['2012-07-09T23:46:00Z', '*/15 * * * *', '2012-07-10T00:00:00Z'],
      ['2012-07-09T23:45:00Z', '20-35/15 * * * *', '2012-07-10T00:20:00Z'],
      ['2012-12-31T21:59:55Z', '0/15 21-23 * * *', '2012-12-31T22:00:00Z'],
      ['2012-12-31T23:59:55Z', '0 0 1 1 *', '2013-01-01T00:00:00Z'],
      // Day of month or day of week.
      ['2012-07-09T23:35:00Z', '0 0 1,15 * Mon', '2012-07-15T00:00:00Z'],
      ['2012-07-09T23:35:00Z', '0 0 */10 * Sun', '2012-07-11T00:00:00Z'],
      ['2012-07-09T23:35:00Z', '0 0 */10 * ?', '2012-07-11T00:00:00Z'],
      ['2012-07-09T23:35:00Z', '0 0 * * Sun', '2012-07-15T00:00:00Z'],
      // Leap year.
      ['2012-07-09T23:35:00Z', '0 0 29 Feb ?', '2016-02-29T00:00:00Z'],
      // Unsatisfiable: robfig's zero time.
      ['2012-07-09T23:35:00Z', '0 0 30 Feb ?', undefined],
      ['2012-07-09T23:35:00Z', '0 0 31 Apr ?', undefined],
      // Monthly job.
      ['2012-11-04T00:00:00-04:00', 'TZ=America/New_York 0 3 3 * ?', '2012-12-03T03:00:00-05:00'],
    ];
    for (const [from, spec, want] of cases) assert.equal(next(spec, from), want, `${spec} after ${from}`);
  });

  test('daylight saving time (America/New_York, 2012)', () => {
    const ny = (spec: string): string => `TZ=America/New_York ${spec}`;
    const cases: [string, string, string][] = [
      // Spring forward: 02:30 does not exist on 2012-03-11; the next one is a year later.
      ['2012-03-11T00:00:00-05:00', ny('30 2 11 Mar ?'), '2013-03-11T02:30:00-04:00'],
      // Hourly across the gap: 01:00 EST, then 03:00 EDT.
      ['2012-03-11T00:00:00-05:00', ny('0 * * * ?'), '2012-03-11T01:00:00-05:00'],
      ['2012-03-11T01:00:00-05:00', ny('0 * * * ?'), '2012-03-11T03:00:00-04:00'],
      ['2012-03-11T03:00:00-04:00', ny('0 * * * ?'), '2012-03-11T04:00:00-04:00'],
      ['2012-03-11T04:00:00-04:00', ny('0 * * * ?'), '2012-03-11T05:00:00-04:00'],
      // Hourly with a range across the gap.
      ['2012-03-11T00:00:00-05:00', ny('0 1-3 * * ?'), '2012-03-11T01:00:00-05:00'],
      ['2012-03-11T01:00:00-05:00', ny('0 1-3 * * ?'), '2012-03-11T03:00:00-04:00'],
      // Daily at midnight across the gap.
      ['2012-03-11T00:00:00-05:00', ny('0 0 * * ?'), '2012-03-12T00:00:00-04:00'],
      // Fall back: 01:30 happens twice on 2012-11-04, and both run.
      ['2012-11-04T00:00:00-04:00', ny('30 1 04 Nov ?'), '2012-11-04T01:30:00-04:00'],
      ['2012-11-04T01:45:00-04:00', ny('30 1 04 Nov ?'), '2012-11-04T01:30:00-05:00'],
      // Hourly across the repeat.
      ['2012-11-04T00:00:00-04:00', ny('0 * * * ?'), '2012-11-04T01:00:00-04:00'],
      ['2012-11-04T01:00:00-04:00', ny('0 * * * ?'), '2012-11-04T01:00:00-05:00'],
      ['2012-11-04T01:00:00-05:00', ny('0 * * * ?'), '2012-11-04T02:00:00-05:00'],
      // Daily at midnight and at 1 across the repeat.
      ['2012-11-04T00:00:00-04:00', ny('0 0 * * ?'), '2012-11-05T00:00:00-05:00'],
      ['2012-11-04T00:00:00-04:00', ny('0 1 * * ?'), '2012-11-04T01:00:00-04:00'],
      ['2012-11-04T01:00:00-04:00', ny('0 1 * * ?'), '2012-11-04T01:00:00-05:00'],
      ['2012-11-04T01:00:00-05:00', ny('0 1 * * ?'), '2012-11-05T01:00:00-05:00'],
    ];
    for (const [from, spec, want] of cases) assert.equal(next(spec, from), want, `${spec} after ${from}`);
  });

  test('Europe/Berlin on 2025-03-30 (02:00 CET → 03:00 CEST) and @every', () => {
    assert.equal(next('TZ=Europe/Berlin 0 * * * *', '2025-03-30T01:00:00+01:00'), '2025-03-30T03:00:00+02:00');
    assert.equal(next('TZ=Europe/Berlin 30 2 * * *', '2025-03-29T12:00:00+01:00'), '2025-03-31T02:30:00+02:00');
    assert.equal(next('TZ=Europe/Berlin @daily', '2025-03-29T12:00:00+01:00'), '2025-03-30T00:00:00+01:00');
    assert.equal(next('TZ=Europe/Berlin @daily', '2025-03-30T00:00:00+01:00'), '2025-03-31T00:00:00+02:00');
    assert.equal(next('@every 90s', '2025-01-01T00:00:00.250Z'), '2025-01-01T00:01:30Z');
  });

  test('goDate normalises like Go time.Date and picks Go offsets for skipped and repeated wall times', () => {
    assert.equal(goDate('UTC', 2025, 13, 1, 0, 0, 0), at('2026-01-01T00:00:00Z'));
    assert.equal(goDate('UTC', 2025, 3, 0, 0, 0, 0), at('2025-02-28T00:00:00Z'));
    // 02:30 does not exist: Go takes the offset in force at 02:30 "as UTC" (EST), then at the instant
    // that gives (EDT): 01:30 EST.
    assert.equal(goDate('America/New_York', 2025, 3, 9, 2, 30, 0), at('2025-03-09T06:30:00Z'));
    // 01:30 exists twice: the first (EDT).
    assert.equal(goDate('America/New_York', 2025, 11, 2, 1, 30, 0), at('2025-11-02T05:30:00Z'));
  });
});
