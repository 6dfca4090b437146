import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getScaledValueFromIntOrPercent, isPercent } from './index.js';

test('integers pass through', () => {
  assert.equal(getScaledValueFromIntOrPercent(3, 10, true), 3);
  assert.equal(getScaledValueFromIntOrPercent(0, 10, false), 0);
});

test('percentages scale with rounding', () => {
  assert.equal(getScaledValueFromIntOrPercent('25%', 10, true), 3);
  assert.equal(getScaledValueFromIntOrPercent('25%', 10, false), 2);
  assert.equal(getScaledValueFromIntOrPercent('100%', 7, false), 7);
  assert.equal(getScaledValueFromIntOrPercent('0%', 7, true), 0);
  assert.equal(getScaledValueFromIntOrPercent('50%', 3, true), 2);
  assert.equal(getScaledValueFromIntOrPercent('50%', 3, false), 1);
  assert.equal(getScaledValueFromIntOrPercent('+10%', 10, false), 1);
});

test('upstream error messages', () => {
  assert.throws(() => getScaledValueFromIntOrPercent(undefined, 10, true), { message: 'nil value for IntOrString' });
  assert.throws(() => getScaledValueFromIntOrPercent('5', 10, true), {
    message: 'invalid value for IntOrString: invalid type: string is not a percentage',
  });
  assert.throws(() => getScaledValueFromIntOrPercent('x%', 10, true), {
    message: 'invalid value for IntOrString: invalid value "x%": strconv.Atoi: parsing "x": invalid syntax',
  });
  assert.throws(() => getScaledValueFromIntOrPercent('1.5%', 10, true), { message: /strconv\.Atoi: parsing "1\.5": invalid syntax/ });
});

test('isPercent', () => {
  assert.equal(isPercent('25%'), true);
  assert.equal(isPercent('25'), false);
  assert.equal(isPercent(25), false);
  assert.equal(isPercent(undefined), false);
});
