import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { goSyntaxQuantity, parseQuantity } from './index.js';

const ERR_FORMAT = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

describe('parseQuantity', () => {
  test('cpu in millicores', () => {
    const cases: [string | number, number][] = [
      ['100m', 100],
      ['0.1', 100],
      ['1', 1000],
      ['1.5', 1500],
      ['2', 2000],
      [0.25, 250],
      [3, 3000],
      ['1u', 1], // rounded up
      ['0', 0],
      ['-100m', -100],
      ['1k', 1_000_000],
    ];
    for (const [s, milli] of cases) assert.equal(parseQuantity(s).milliValue(), milli, String(s));
  });

  test('memory in bytes, value() rounds up', () => {
    const cases: [string, number][] = [
      ['128Mi', 134217728],
      ['1Gi', 1073741824],
      ['1.5Gi', 1610612736],
      ['1Ki', 1024],
      ['500M', 500_000_000],
      ['1e3', 1000],
      ['1E3', 1000],
      ['1.5e-1', 1],
      ['100m', 1],
      ['-1.5', -2],
      ['12', 12],
    ];
    for (const [s, v] of cases) assert.equal(parseQuantity(s).value(), v, s);
  });

  test('canonical strings, as the API server writes them', () => {
    const cases: [string | number, string][] = [
      ['0', '0'],
      ['0.0', '0'],
      ['0Mi', '0'],
      ['100m', '100m'],
      ['0.1', '100m'],
      ['0.5', '500m'],
      [0.5, '500m'],
      ['1000m', '1'],
      ['1.5', '1500m'],
      ['1500', '1500'],
      ['15000', '15k'],
      ['1k', '1k'],
      ['1000k', '1M'],
      ['128Mi', '128Mi'],
      ['1024Mi', '1Gi'],
      ['1.5Gi', '1536Mi'],
      ['1025Ki', '1025Ki'],
      ['0.5Ki', '512'],
      ['1023Ki', '1023Ki'],
      ['512Ki', '512Ki'],
      ['1Ei', '1Ei'],
      ['1024Ei', '1024Ei'],
      ['0.5Mi', '512Ki'],
      ['1e3', '1e3'],
      ['1.5e3', '1500'],
      ['1e-3', '1e-3'],
      ['12e6', '12e6'],
      ['1n', '1n'],
      ['0.1n', '1n'],
      ['1.0000000001', '1000000001n'],
      ['-1.5', '-1500m'],
      ['+2', '2'],
      ['007', '7'],
      ['1.', '1'],
      ['.5', '500m'],
      ['1E', '1E'],
      ['1000E', '1000E'],
      ['1e21', '1e21'],
    ];
    for (const [s, want] of cases) assert.equal(parseQuantity(s).toString(), want, String(s));
  });

  test('format follows the suffix; binary values below one become DecimalSI', () => {
    assert.equal(parseQuantity('1Gi').format, 'BinarySI');
    assert.equal(parseQuantity('1G').format, 'DecimalSI');
    assert.equal(parseQuantity('1e9').format, 'DecimalExponent');
    assert.equal(parseQuantity('0.5Ki').format, 'BinarySI');
    assert.equal(parseQuantity('0.0001Ki').format, 'DecimalSI');
    assert.equal(parseQuantity('0.0001Ki').toString(), '102400u');
    assert.equal(parseQuantity('0.5n').format, 'DecimalSI');
  });

  test('errors', () => {
    for (const bad of ['', 'abc', '1 Ki', '1.2.3', '1KiB', '1Ki2x', 'x1', Number.NaN]) {
      assert.throws(() => parseQuantity(bad), { message: ERR_FORMAT }, String(bad));
    }
    for (const bad of ['1e', '1m3', '1ki', '1Kii', '--1']) assert.throws(() => parseQuantity(bad), { message: "unable to parse quantity's suffix" }, bad);
    // Upstream quirk: a number part without digits is zero.
    for (const zero of ['Ki', '.', '-']) assert.equal(parseQuantity(zero).toString(), '0', zero);
  });
});

describe('Quantity.cmp', () => {
  test('compares exactly across suffixes and formats', () => {
    const cases: [string, string, number][] = [
      ['1', '1000m', 0],
      ['500m', '1', -1],
      ['1Gi', '1G', 1],
      ['1Ki', '1024', 0],
      ['-1', '0', -1],
      ['1E', '999999999999999999', 1],
      ['1n', '0', 1],
    ];
    for (const [a, b, want] of cases) assert.equal(parseQuantity(a).cmp(parseQuantity(b)), want, `${a} vs ${b}`);
  });
});

describe('goSyntaxQuantity', () => {
  const go = (value: string, scale: number, s: string, format: string, dec = 'nil'): string =>
    `resource.Quantity{i:resource.int64Amount{value:${value}, scale:${scale}}, d:resource.infDecAmount{Dec:(*inf.Dec)(${dec})}, s:"${s}", Format:"${format}"}`;
  test('the int64 fast path, with the input kept when ParseQuantity finds it canonical', () => {
    // The first three as real API servers print them in field errors (hugepages, HPA targets, a PVC size).
    assert.equal(goSyntaxQuantity('0'), go('0', 0, '0', 'DecimalSI'));
    assert.equal(goSyntaxQuantity('8Gi'), go('8589934592', 0, '', 'BinarySI'));
    assert.equal(goSyntaxQuantity('1Gi'), go('1073741824', 0, '1Gi', 'BinarySI'));
    assert.equal(goSyntaxQuantity('2'), go('2', 0, '2', 'DecimalSI'));
    assert.equal(goSyntaxQuantity(2), go('2', 0, '2', 'DecimalSI'));
    assert.equal(goSyntaxQuantity('500m'), go('500', -3, '500m', 'DecimalSI'));
    assert.equal(goSyntaxQuantity('1.5'), go('15', -1, '', 'DecimalSI'));
    assert.equal(goSyntaxQuantity('1000m'), go('1000', -3, '', 'DecimalSI'));
    assert.equal(goSyntaxQuantity('0.5'), go('5', -1, '', 'DecimalSI'));
    assert.equal(goSyntaxQuantity('-2'), go('-2', 0, '-2', 'DecimalSI'));
    assert.equal(goSyntaxQuantity('1e3'), go('1', 3, '1e3', 'DecimalExponent'));
  });
  test('the inf.Dec slow path', () => {
    assert.equal(goSyntaxQuantity('1.5Gi'), go('0', 0, '', 'BinarySI', '…'));
    assert.equal(goSyntaxQuantity('1234567890123456789'), go('0', 0, '', 'DecimalSI', '…'));
  });
});

describe('add and sub', () => {
  test('exact, in the receiver format (quantity_test.go TestAdd/TestSub cases)', () => {
    assert.equal(parseQuantity('10m').add(parseQuantity('10m')).toString(), '20m');
    assert.equal(parseQuantity('1').add(parseQuantity('500m')).toString(), '1500m');
    assert.equal(parseQuantity('1Gi').add(parseQuantity('1Gi')).toString(), '2Gi');
    assert.equal(parseQuantity('1Gi').sub(parseQuantity('512Mi')).toString(), '512Mi');
    assert.equal(parseQuantity('1').sub(parseQuantity('2')).toString(), '-1');
    assert.equal(parseQuantity('0').sub(parseQuantity('0')).cmp(parseQuantity('0')), 0);
    // A zero receiver takes the other's format.
    assert.equal(parseQuantity('0').add(parseQuantity('2Gi')).toString(), '2Gi');
  });
});
