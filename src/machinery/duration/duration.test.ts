import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDuration } from './index.js';

describe('parseDuration (Go time.ParseDuration)', () => {
  const valid: [string, number][] = [
    ['0', 0],
    ['5s', 5000],
    ['30s', 30_000],
    ['1m0s', 60_000],
    ['-1.5h', -5_400_000],
    ['+2h45m', 9_900_000],
    ['300ms', 300],
    ['1500us', 1.5],
    ['1500µs', 1.5],
    ['1000000ns', 1],
    ['.5s', 500],
    ['1.s', 1000],
  ];
  for (const [s, ms] of valid) test(`${s} = ${ms} ms`, () => assert.equal(parseDuration(s), ms));

  const invalid: [string, string][] = [
    ['', 'time: invalid duration ""'],
    ['abc', 'time: invalid duration "abc"'],
    ['.s', 'time: invalid duration ".s"'],
    ['-', 'time: invalid duration "-"'],
    ['1', 'time: missing unit in duration "1"'],
    ['1d', 'time: unknown unit "d" in duration "1d"'],
    ['3000000h', 'time: invalid duration "3000000h"'],
    ['1"s', 'time: unknown unit "\\"s" in duration "1\\"s"'],
    ['1\ts', 'time: unknown unit "\\x09s" in duration "1\\x09s"'],
  ];
  for (const [s, message] of invalid) test(`${JSON.stringify(s)} is rejected`, () => assert.throws(() => parseDuration(s), { message }));
});
