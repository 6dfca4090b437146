/**
 * `cron.ParseStandard` (robfig/cron v3 parser_test.go cases TestRange, TestParseScheduleErrors,
 * TestStandardSpecSchedule, with the full messages) and `time.LoadLocation`.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadLocationError, parseStandard, scheduleError, type CronSchedule } from './index.js';

const spec = (s: string): Extract<CronSchedule, { kind: 'spec' }> => {
  const parsed = parseStandard(s);
  if (parsed.kind !== 'spec') assert.fail(`${s} is not a spec schedule`);
  return parsed;
};

describe('parseStandard: accepted schedules', () => {
  test('every minute; steps, ranges, lists and names', () => {
    const every = spec('* * * * *');
    assert.equal(every.minute.values.length, 60);
    assert.ok(every.minute.star && every.dom.star && every.dow.star);
    assert.deepEqual(spec('*/15 * * * *').minute, { values: [0, 15, 30, 45], star: false });
    assert.deepEqual(spec('*/1 * * * *').minute.star, true, '*/1 keeps the star bit');
    assert.deepEqual(spec('5-7/2 * * * *').minute, { values: [5, 7], star: false });
    assert.deepEqual(spec('5/20 * * * *').minute, { values: [5, 25, 45], star: false }, 'N/step is N-max/step');
    assert.deepEqual(spec('1,5-7/2,3 * * * *').minute.values, [1, 3, 5, 7]);
    assert.deepEqual(spec('0 0 * JAN-mar sun,SAT').month.values, [1, 2, 3]);
    assert.deepEqual(spec('0 0 * JAN-mar sun,SAT').dow.values, [0, 6]);
    assert.deepEqual(spec('0 0 ? * ?').dom.star, true);
    assert.deepEqual(spec('  0   0  1 1 *  ').dom.values, [1], 'any white space separates fields');
    assert.deepEqual(spec('*-5 * * * *').minute.values.length, 60, 'a star ignores what follows a hyphen, as robfig does');
    assert.deepEqual(spec(', * * * *').minute.values, [], 'empty list pieces are skipped');
  });

  test('descriptors and @every', () => {
    assert.deepEqual(spec('@hourly').minute.values, [0]);
    assert.equal(spec('@hourly').hour.values.length, 24);
    assert.deepEqual(spec('@weekly').dow.values, [0]);
    assert.deepEqual([spec('@yearly').month.values, spec('@annually').dom.values], [[1], [1]]);
    assert.deepEqual(parseStandard('@every 1h30m'), { kind: 'every', everyMs: 5_400_000 });
    assert.deepEqual(parseStandard('@every 10ms'), { kind: 'every', everyMs: 1000 });
  });

  test('a TZ= or CRON_TZ= prefix names the location', () => {
    assert.equal(spec('TZ=UTC 0 0 * * *').location, 'UTC');
    assert.equal(spec('CRON_TZ=America/New_York 0 0 * * *').location, 'America/New_York');
    assert.equal(spec('TZ=Europe/Berlin @daily').location, 'Europe/Berlin');
    assert.equal(spec('0 0 * * *').location, undefined);
  });
});

describe('parseStandard: robfig error messages', () => {
  const cases: [string, string][] = [
    ['', 'empty spec string'],
    ['foo', 'expected exactly 5 fields, found 1: [foo]'],
    ['* * * *', 'expected exactly 5 fields, found 4: [* * * *]'],
    ['0 * * * * *', 'expected exactly 5 fields, found 6: [0 * * * * *]'],
    ['61 * * * *', 'end of range (61) above maximum (59): 61'],
    ['* 5 j * *', 'failed to parse int from j: strconv.Atoi: parsing "j": invalid syntax'],
    ['5--5 * * * *', 'too many hyphens: 5--5'],
    ['jan-x * * * *', 'failed to parse int from jan: strconv.Atoi: parsing "jan": invalid syntax'],
    ['* * * jan-x *', 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax'],
    ['*/-12 * * * *', 'negative number (-12) not allowed: -12'],
    ['*//2 * * * *', 'too many slashes: *//2'],
    ['* * 0 * *', 'beginning of range (0) below minimum (1): 0'],
    ['5-3 * * * *', 'beginning of range (5) beyond end of range (3): 5-3'],
    ['*/0 * * * *', 'step of range should be a positive number: */0'],
    ['99999999999999999999 * * * *', 'failed to parse int from 99999999999999999999: strconv.Atoi: parsing "99999999999999999999": value out of range'],
    ['9999999999 * * * *', 'end of range (9999999999) above maximum (59): 9999999999'],
    ['-5 * * * *', 'failed to parse int from : strconv.Atoi: parsing "": invalid syntax'],
    ['@every Xm', 'failed to parse duration @every Xm: time: invalid duration "Xm"'],
    ['@every 1d', 'failed to parse duration @every 1d: time: unknown unit "d" in duration "1d"'],
    ['@unrecognized', 'unrecognized descriptor: @unrecognized'],
    ['@daily ', 'unrecognized descriptor: @daily '],
    ['TZ=Mars/Base * * * * *', 'provided bad location Mars/Base: unknown time zone Mars/Base'],
    ['TZ=../x * * * * *', 'provided bad location ../x: time: invalid location name'],
    ['TZ=UTC', 'expected exactly 5 fields, found 0: []'],
  ];
  for (const [s, msg] of cases) test(JSON.stringify(s), () => assert.equal(scheduleError(s), msg));
});

describe('loadLocationError (Go time.LoadLocation)', () => {
  test('zones Go knows', () => {
    for (const tz of ['', 'UTC', 'Local', 'America/New_York', 'Europe/Kiev', 'Asia/Calcutta', 'US/Eastern', 'Etc/GMT+5', 'EST', 'GMT']) {
      assert.equal(loadLocationError(tz), undefined, tz);
    }
  });
  test('unknown and invalid names', () => {
    assert.equal(loadLocationError('Mars/Base'), 'unknown time zone Mars/Base');
    assert.equal(loadLocationError('america/new_york'), 'unknown time zone america/new_york', 'case matters to Go');
    assert.equal(loadLocationError('utc'), 'unknown time zone utc');
    assert.equal(loadLocationError('us/eastern'), 'unknown time zone us/eastern');
    assert.equal(loadLocationError('a/../b'), 'time: invalid location name');
    assert.equal(loadLocationError('/etc/passwd'), 'time: invalid location name');
  });
});
