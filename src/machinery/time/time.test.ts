/**
 * Go's time.Parse errors for the two layouts metav1 uses. Cases follow go/src/time/format_test.go
 * (`parseErrorTests`, the RFC3339 rows and the fractional-second rules), reworded for these layouts.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { goTimeParseError, RFC3339, RFC3339_MICRO } from './index.js';

describe('goTimeParseError', () => {
  test('valid RFC 3339 times, with and without a fraction and offset', () => {
    for (const v of ['2025-01-01T00:00:00Z', '2024-02-29T23:59:59Z', '2025-06-30T12:00:00.123Z', '2025-06-30T12:00:00+02:00', '2025-06-30T5:00:00-08:00']) {
      assert.equal(goTimeParseError(v, RFC3339), undefined, v);
    }
  });

  test('malformed elements name the element that failed', () => {
    const cases: [string, string][] = [
      ['abc', 'parsing time "abc" as "2006-01-02T15:04:05Z07:00": cannot parse "abc" as "2006"'],
      ['', 'parsing time "" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "2006"'],
      ['2025-1-01T00:00:00Z', 'parsing time "2025-1-01T00:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse "1-01T00:00:00Z" as "01"'],
      ['2006-01-02T15:04_abc', 'parsing time "2006-01-02T15:04_abc" as "2006-01-02T15:04:05Z07:00": cannot parse "_abc" as ":"'],
      ['2006-01-02T15:04:05_abc', 'parsing time "2006-01-02T15:04:05_abc" as "2006-01-02T15:04:05Z07:00": cannot parse "_abc" as "Z07:00"'],
      ['2025-01-01 00:00:00Z', 'parsing time "2025-01-01 00:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse " 00:00:00Z" as "T"'],
      ['2025-01-01T00:00:00+0200', 'parsing time "2025-01-01T00:00:00+0200" as "2006-01-02T15:04:05Z07:00": cannot parse "+0200" as "Z07:00"'],
    ];
    for (const [v, want] of cases) assert.equal(goTimeParseError(v, RFC3339), want);
  });

  test('extra text and values out of range', () => {
    const cases: [string, string][] = [
      ['2006-01-02T15:04:05Z07:00', 'parsing time "2006-01-02T15:04:05Z07:00": extra text: "07:00"'],
      ['2006-01-02T15:04:05Z_abc', 'parsing time "2006-01-02T15:04:05Z_abc": extra text: "_abc"'],
      ['2025-13-01T00:00:00Z', 'parsing time "2025-13-01T00:00:00Z": month out of range'],
      ['2025-00-01T00:00:00Z', 'parsing time "2025-00-01T00:00:00Z": month out of range'],
      ['2025-02-29T00:00:00Z', 'parsing time "2025-02-29T00:00:00Z": day out of range'],
      ['2025-04-31T00:00:00Z', 'parsing time "2025-04-31T00:00:00Z": day out of range'],
      ['2025-04-00T00:00:00Z', 'parsing time "2025-04-00T00:00:00Z": day out of range'],
      ['2025-01-01T24:00:00Z', 'parsing time "2025-01-01T24:00:00Z": hour out of range'],
      ['2025-01-01T00:60:00Z', 'parsing time "2025-01-01T00:60:00Z": minute out of range'],
      ['2010-02-04T21:00:67.012345678-08:00', 'parsing time "2010-02-04T21:00:67.012345678-08:00": second out of range'],
      ['2025-01-01T00:00:00+25:00', 'parsing time "2025-01-01T00:00:00+25:00": time zone offset hour out of range'],
    ];
    for (const [v, want] of cases) assert.equal(goTimeParseError(v, RFC3339), want);
  });

  test('MicroTime needs exactly six fractional digits', () => {
    assert.equal(goTimeParseError('2025-01-01T00:00:00.123456Z', RFC3339_MICRO), undefined);
    assert.equal(
      goTimeParseError('2025-01-01T00:00:00Z', RFC3339_MICRO),
      'parsing time "2025-01-01T00:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"',
    );
    assert.equal(
      goTimeParseError('2025-01-01T00:00:00.1234567Z', RFC3339_MICRO),
      'parsing time "2025-01-01T00:00:00.1234567Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "7Z" as "Z07:00"',
    );
  });

  test('quotes in the value are escaped as Go quotes them', () => {
    assert.equal(goTimeParseError('a"b', RFC3339), 'parsing time "a\\"b" as "2006-01-02T15:04:05Z07:00": cannot parse "a\\"b" as "2006"');
  });
});
