/**
 * Evaluation of x-kubernetes-validations rules, ported from k8s.io/apiextensions-apiserver
 * pkg/apiserver/schema/cel/validation_test.go: TestValidationExpressions (a representative subset of
 * its cases: integers, numbers, numeric comparisons, unicode strings, bytes, booleans, duration/date/
 * date-time formats, enums, conversions, lists, string lists, maps, objects, int-or-string, embedded
 * resources, quantity, url, regex and list library functions), TestMessageExpression,
 * TestReasonAndFldPath, TestCELValidationLimit (the per-object cost budget) and transition rules
 * (TestValidationExpressions "transition rules", TestOptionalOldSelf).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString } from '../../../../machinery/errors/index.js';
import { compileRules, validateRules, type CelStructural, type ValidationRule } from './index.js';

const integerType: CelStructural = { type: 'integer' };
const numberType: CelStructural = { type: 'number' };
const stringType: CelStructural = { type: 'string' };
const byteType: CelStructural = { type: 'string', format: 'byte' };
const booleanType: CelStructural = { type: 'boolean' };
const durationFormat: CelStructural = { type: 'string', format: 'duration' };
const dateFormat: CelStructural = { type: 'string', format: 'date' };
const dateTimeFormat: CelStructural = { type: 'string', format: 'date-time' };
const intOrString: CelStructural = { 'x-kubernetes-int-or-string': true };
const listType = (items: CelStructural): CelStructural => ({ type: 'array', items, 'x-kubernetes-list-type': 'atomic' });
const listSetType = (items: CelStructural): CelStructural => ({ type: 'array', items, 'x-kubernetes-list-type': 'set' });
const listMapType = (keys: string[], items: CelStructural): CelStructural => ({ type: 'array', items, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': keys });
const mapType = (value: CelStructural): CelStructural => ({ type: 'object', additionalProperties: value });
const objectType = (properties: Record<string, CelStructural>): CelStructural => ({ type: 'object', properties });
const objs = (...vals: unknown[]): Record<string, unknown> => Object.fromEntries(vals.map((v, i) => [`val${i + 1}`, v]));
const schemas = (...s: CelStructural[]): CelStructural => objectType(Object.fromEntries(s.map((v, i) => [`val${i + 1}`, v])));
const valsEqual = (a: string, b: string, lit: string): string => `${a} == ${lit} && ${lit} == ${a} && ${a} == ${b}`;

/** Compiles `rules` on `schema`'s root and evaluates them on obj (and old); error strings. */
function run(schema: CelStructural, obj: unknown, rules: (string | ValidationRule)[], old?: unknown, budget?: number): string[] {
  const s: CelStructural = { ...schema, 'x-kubernetes-validations': rules.map((r) => (typeof r === 'string' ? { rule: r } : r)) };
  const { rules: compiled } = compileRules(s, 'openAPIV3Schema');
  return validateRules(compiled, obj, old, budget).map(fieldErrorString);
}

interface Case {
  name: string;
  schema: CelStructural;
  obj: unknown;
  valid?: string[];
  errors?: Record<string, string>;
}

const cases: Case[] = [
  {
    name: 'integers',
    obj: objs(9223372036854775807n, 9223372036854775807n, 2147483647, 2147483647),
    schema: schemas(integerType, integerType, integerType, integerType),
    valid: [
      valsEqual('self.val1', 'self.val2', '9223372036854775807'),
      valsEqual('self.val3', 'self.val4', '2147483647'),
      'type(self.val1) == int',
      'self.val3 + 1 == 2147483647 + 1',
      'type(self.val3) == int',
    ],
    errors: { 'self.val1 + 1 == 0': 'integer overflow', '1 / 0 == 1 / 0': 'division by zero' },
  },
  {
    name: 'numbers',
    obj: objs(1.5, 1.5, 1),
    schema: schemas(numberType, numberType, numberType),
    valid: [valsEqual('self.val1', 'self.val2', '1.5'), 'type(self.val1) == double', 'type(self.val3) == double', 'self.val3 == 1.0'],
  },
  {
    name: 'numeric comparisons',
    obj: objs(5, 10, 15, 10.0, 10),
    schema: schemas(integerType, integerType, integerType, numberType, numberType),
    valid: [
      'double(self.val1) < self.val4', 'double(self.val2) == self.val4', 'self.val1 < int(self.val4)', 'self.val2 == int(self.val4)',
      'double(self.val2) == self.val5', 'self.val3 > int(self.val5)', 'double(5) < 10.0', '10 == int(10.0)',
      'self.val1 < self.val4', 'self.val3 >= self.val4', 'self.val1 < self.val5', '5 < 10.0', '15 > 10.0', 'self.val1 < 10.0',
    ],
  },
  {
    name: 'unicode strings',
    obj: objs('Rook takes 👑', 'Rook takes 👑'),
    schema: schemas(stringType, stringType),
    valid: [
      valsEqual('self.val1', 'self.val2', "'Rook takes 👑'"),
      "self.val1.startsWith('Rook')", "!self.val1.startsWith('knight')", "self.val1.contains('takes')", "!self.val1.contains('gives')",
      "self.val1.endsWith('👑')", "!self.val1.endsWith('pawn')", "self.val1.matches('^[^0-9]*$')", "!self.val1.matches('^[0-9]*$')",
      'type(self.val1) == string', 'size(self.val1) == 12',
      "self.val1.charAt(3) == 'k'", "self.val1.indexOf('o') == 1", "self.val1.indexOf('o', 2) == 2",
      "self.val1.replace(' ', 'x') == 'Rookxtakesx👑'", "self.val1.replace(' ', 'x', 1) == 'Rookxtakes 👑'",
      "self.val1.split(' ') == ['Rook', 'takes', '👑']", "self.val1.split(' ', 2) == ['Rook', 'takes 👑']",
      "self.val1.substring(5) == 'takes 👑'", "self.val1.substring(0, 4) == 'Rook'", "self.val1.substring(4, 10).trim() == 'takes'",
      "self.val1.upperAscii() == 'ROOK TAKES 👑'", "self.val1.lowerAscii() == 'rook takes 👑'",
    ],
    errors: { "self.val1.matches(')')": 'compile error: compilation failed: ERROR: <input>:1:19: invalid matches argument' },
  },
  {
    name: 'escaped strings',
    obj: objs('l1\nl2', 'l1\nl2'),
    schema: schemas(stringType, stringType),
    valid: [valsEqual('self.val1', 'self.val2', "'l1\\nl2'"), "self.val1 == '''l1\nl2'''"],
  },
  {
    name: 'bytes',
    obj: objs('QUI=', 'QUI='),
    schema: schemas(byteType, byteType),
    valid: ['self.val1 == self.val2', "self.val1 == b'AB'", "self.val1 == bytes('AB')", "self.val1 == b'\\x41\\x42'", 'type(self.val1) == bytes', 'size(self.val1) == 2'],
  },
  {
    name: 'booleans',
    obj: objs(true, true, false, false),
    schema: schemas(booleanType, booleanType, booleanType, booleanType),
    valid: [valsEqual('self.val1', 'self.val2', 'true'), valsEqual('self.val3', 'self.val4', 'false'), 'self.val1 != self.val4', 'type(self.val1) == bool'],
  },
  {
    name: 'duration format',
    obj: objs('1h2m3s4ms', '1h2m3s4ms'),
    schema: schemas(durationFormat, durationFormat),
    valid: [
      valsEqual('self.val1', 'self.val2', "duration('1h2m3s4ms')"),
      "self.val1 == duration('1h2m') + duration('3s4ms')",
      'self.val1.getHours() == 1', 'self.val1.getMinutes() == 62', 'self.val1.getSeconds() == 3723', 'self.val1.getMilliseconds() == 3723004',
    ],
  },
  {
    name: 'date format',
    obj: objs('1997-07-16', '1997-07-16'),
    schema: schemas(dateFormat, dateFormat),
    valid: [valsEqual('self.val1', 'self.val2', "timestamp('1997-07-16T00:00:00.000Z')"), 'self.val1.getDate() == 16', 'self.val1.getMonth() == 06', 'self.val1.getFullYear() == 1997'],
  },
  {
    name: 'date-time format',
    obj: objs('2011-08-18T19:03:37.010000000+01:00', '2011-08-18T19:03:37.010000000+01:00'),
    schema: schemas(dateTimeFormat, dateTimeFormat),
    valid: [
      valsEqual('self.val1', 'self.val2', "timestamp('2011-08-18T19:03:37.010+01:00')"),
      "self.val1 == timestamp('2011-08-18T00:00:00.000+01:00') + duration('19h3m37s10ms')",
      "self.val1.getDate('01:00') == 18", "self.val1.getMonth('01:00') == 7", "self.val1.getHours('UTC') == 18",
    ],
  },
  {
    name: 'enums',
    obj: { enumStr: 'Pending' },
    schema: objectType({ enumStr: { type: 'string', enum: ['Pending', 'Available', 'Bound', 'Released', 'Failed'] } }),
    valid: ["self.enumStr == 'Pending'", "self.enumStr in ['Pending', 'Available']"],
  },
  {
    name: 'conversions',
    obj: objs(10, 10.0, 10.49, 10.5, true, '10', 'MTA='),
    schema: schemas(integerType, numberType, numberType, numberType, booleanType, stringType, byteType),
    valid: [
      'int(self.val2) == self.val1', 'int(self.val3) == self.val1', 'int(self.val4) == self.val1', 'int(self.val6) == self.val1',
      'double(self.val1) == self.val2', 'double(self.val6) == self.val2', 'bytes(self.val6) == self.val7', 'string(self.val1) == self.val6',
      "string(self.val2) == '10'", "string(self.val3) == '10.49'", "string(self.val4) == '10.5'", "string(self.val5) == 'true'",
    ],
  },
  {
    name: 'lists',
    obj: objs([1, 2, 3], [1, 2, 3]),
    schema: schemas(listType(integerType), listType(integerType)),
    valid: [
      valsEqual('self.val1', 'self.val2', '[1, 2, 3]'), '1 in self.val1', 'self.val2[0] in self.val1', '!(0 in self.val1)',
      'self.val1 + self.val2 == [1, 2, 3, 1, 2, 3]', 'self.val1 + [4, 5] == [1, 2, 3, 4, 5]',
    ],
    errors: { "[1, 'a', false].filter(x, string(x) == 'a')": "compilation failed: ERROR: <input>:1:5: expected type 'int' but found 'string'" },
  },
  {
    name: 'string lists',
    obj: objs(['a', 'b', 'c']),
    schema: schemas(listType(stringType)),
    valid: ["self.val1.join('-') == 'a-b-c'", "['a', 'b', 'c'].join('-') == 'a-b-c'", "self.val1.join() == 'abc'", "['a', 'b', 'c'].join() == 'abc'"],
  },
  {
    name: 'maps',
    obj: objs({ k1: 'a', k2: 'b' }, { k2: 'b', k1: 'a' }),
    schema: schemas(mapType(stringType), mapType(stringType)),
    valid: [
      'self.val1 == self.val2', "self.val1 == {'k1': 'a', 'k2': 'b'}", "'k1' in self.val1", "!('k3' in self.val1)",
      "self.val1.k1 == 'a'", "self.val1['k2'] == 'b'", "has(self.val1.k1)", "!has(self.val1.k3)",
      "self.val1.all(k, size(k) > 0)", "self.val1.exists_one(k, self.val1[k] == 'b')", 'size(self.val1) == 2',
    ],
    errors: { 'self.val1.k3 == "c"': 'no such key: k3' },
  },
  {
    name: 'objects',
    obj: { spec: { replicas: 3, name: 'x', 'dash-name': 'y', list: [{ v: 1 }, { v: 2 }] } },
    schema: objectType({
      spec: objectType({ replicas: integerType, name: stringType, 'dash-name': stringType, list: listType(objectType({ v: integerType })), absent: stringType }),
    }),
    valid: [
      'self.spec.replicas == 3', 'cel.bind(r, self.spec.replicas, r > 2 && r < 4)', 'cel.bind(vs, self.spec.list.map(e, e.v), vs.size() == 2 && 1 in vs)', "self.spec.dash__dash__name == 'y'", 'has(self.spec.name)', '!has(self.spec.absent)',
      'self.spec.list.all(e, e.v > 0)', 'self.spec.list.exists(e, e.v == 2)', 'self.spec.list.map(e, e.v) == [1, 2]',
      'self.spec.list.filter(e, e.v > 1).size() == 1', 'self.spec.list.exists_one(e, e.v == 1)',
    ],
    errors: {
      'self.spec.nope == 1': "compilation failed: ERROR: <input>:1:10: undefined field 'nope'",
      'cel.bind(r, self.spec.replicas, r > 5)': 'failed rule: cel.bind(r, self.spec.replicas, r > 5)',
      'self.spec.replicas + "a" == 1': "compilation failed: ERROR: <input>:1:20: found no matching overload for '_+_' applied to '(int, string)'",
      // cel-go places a relation at its operator token (parser.go VisitRelation), not the space before it.
      'self.spec.replicas > "3"': "compilation failed: ERROR: <input>:1:20: found no matching overload for '_>_' applied to '(int, string)'",
      'undeclared == 1': "compilation failed: ERROR: <input>:1:1: undeclared reference to 'undeclared' (in container '')",
      'self.spec.replicas': 'cel expression must evaluate to a bool',
      "self.spec.absent == 'x'": 'no such key: absent evaluating rule',
    },
  },
  {
    name: 'int-or-string',
    obj: objs(5, '50%'),
    schema: schemas(intOrString, intOrString),
    valid: [
      'type(self.val1) == int', 'type(self.val2) == string', 'self.val1 == 5', "self.val2.matches('^[0-9]+%$')",
      "type(self.val2) == int ? self.val2 < 5 : double(self.val2.replace('%', '')) / 100.0 < 0.6",
    ],
    errors: { 'self.val1 + self.val2 == 0': "'no such overload': call arguments did not match a supported operator, function or macro signature for rule: self.val1 + self.val2 == 0" },
  },
  {
    name: 'embedded resources and metadata at the root',
    obj: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'foo', generateName: 'pickItForMe', namespace: 'xyz' }, spec: { embedded: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } } } },
    schema: objectType({ spec: objectType({ embedded: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } }) }),
    valid: [
      "self.kind == 'Pod'", "self.apiVersion == 'v1'", "self.metadata.name == 'foo'", "self.metadata.generateName == 'pickItForMe'",
      "self.spec.embedded.kind == 'ConfigMap'", "self.spec.embedded.metadata.name == 'cm'",
    ],
    errors: { "self.metadata.namespace == 'xyz'": "undefined field 'namespace'" },
  },
  {
    name: 'library: lists',
    obj: objs([1, 2, 3], [3, 1], ['a', 'b', 'a'], [1.5, 0.5]),
    schema: schemas(listType(integerType), listType(integerType), listType(stringType), listType(numberType)),
    valid: [
      'self.val1.isSorted()', '!self.val2.isSorted()', 'self.val3.sum() == "aba" || true', 'self.val1.sum() == 6', 'self.val4.sum() == 2.0',
      'self.val1.min() == 1', 'self.val1.max() == 3', "self.val3.indexOf('a') == 0", "self.val3.lastIndexOf('a') == 2", "self.val3.indexOf('z') == -1",
      '[].sum() == 0',
    ],
    errors: { '[1, 2].filter(x, x > 5).min() == 0': 'min called on empty list' },
  },
  {
    name: 'library: regex',
    obj: objs('abc 123 def 456'),
    schema: schemas(stringType),
    valid: ["self.val1.matches('(?i)^ABC')", "!self.val1.matches('^ABC')", "self.val1.find('[0-9]+') == '123'", "self.val1.find('xyz') == ''", "self.val1.findAll('[0-9]+') == ['123', '456']", "self.val1.findAll('[0-9]+', 1) == ['123']"],
  },
  {
    name: 'library: url',
    obj: objs('https://user:pass@example.com:8080/path%20x?a=1&a=2&b=3', '/absolute-path'),
    schema: schemas(stringType, stringType),
    valid: [
      'isURL(self.val1)', 'isURL(self.val2)', "!isURL('relative')", "url(self.val1).getScheme() == 'https'", "url(self.val1).getHost() == 'example.com:8080'",
      "url(self.val1).getHostname() == 'example.com'", "url(self.val1).getPort() == '8080'", "url(self.val1).getEscapedPath() == '/path%20x'",
      "url(self.val1).getQuery() == {'a': ['1', '2'], 'b': ['3']}", "url(self.val2).getScheme() == ''",
    ],
  },
  {
    name: 'library: quantity',
    obj: objs('1Gi', '500m', '1.5'),
    schema: schemas(stringType, stringType, stringType),
    valid: [
      'isQuantity(self.val1)', "!isQuantity('1GiB')", "quantity(self.val1).isGreaterThan(quantity('1G'))", "quantity(self.val2).isLessThan(quantity('1'))",
      "quantity(self.val1).compareTo(quantity('1024Mi')) == 0", 'quantity(self.val1).asInteger() == 1073741824', 'quantity(self.val1).isInteger()',
      '!quantity(self.val3).isInteger()', 'quantity(self.val3).asApproximateFloat() == 1.5', 'quantity(self.val2).sign() == 1',
    ],
    errors: { 'quantity(self.val3).asInteger() == 1': 'cannot convert value to integer' },
  },
  {
    name: 'listSets',
    obj: objs(['a', 'b', 'c'], ['a', 'c', 'b']),
    schema: schemas(listSetType(stringType), listSetType(stringType)),
    valid: ["self.val1 == ['c', 'b', 'a']", 'self.val1 == self.val2', "sets.contains(self.val1, ['a'])", "!sets.contains(self.val1, ['x'])",
      "sets.intersects(self.val1, ['x', 'b'])", 'sets.equivalent(self.val1, self.val2)', "!sets.equivalent(self.val1, ['a'])", "'a' in self.val1", "!('x' in self.val1)", "self.val1 != ['a', 'b']", "self.val1.join('-') == 'a-b-c'"],
  },
  {
    name: 'listMaps',
    obj: objs([{ k: 'a', v: 1 }, { k: 'b', v: 2 }], [{ k: 'b', v: 2 }, { k: 'a', v: 1 }]),
    schema: schemas(listMapType(['k'], objectType({ k: stringType, v: integerType })), listMapType(['k'], objectType({ k: stringType, v: integerType }))),
    valid: ['self.val1 == self.val2', "self.val1.exists(e, e.k == 'a' && e.v == 1)", "self.val1.map(e, e.k) == ['a', 'b']"],
  },
  {
    name: 'library: format',
    obj: objs('my-name', 'Not_A_Label', 'gen-'),
    schema: schemas(stringType, stringType, stringType),
    valid: [
      '!format.dns1123Label().validate(self.val1).hasValue()',
      'format.dns1123Label().validate(self.val2).hasValue()',
      "format.named('dns1123Label').value().validate(self.val2).value().size() > 0",
      "!format.named('noSuchFormat').hasValue()",
      '!format.dns1123LabelPrefix().validate(self.val3).hasValue()',
      "!format.uuid().validate('123e4567-e89b-12d3-a456-426614174000').hasValue()",
      "format.date().validate('2023-02-30').hasValue()",
    ],
    errors: { 'format.nope().validate(self.val1).hasValue()': "undeclared reference to 'format.nope'" },
  },
];

describe('TestValidationExpressions', () => {
  for (const c of cases) {
    test(c.name, () => {
      for (const rule of c.valid ?? []) assert.deepEqual(run(c.schema, c.obj, [rule]), [], rule);
      for (const [rule, want] of Object.entries(c.errors ?? {})) {
        const got = run(c.schema, c.obj, [rule]);
        assert.equal(got.length, 1, `${rule}: ${JSON.stringify(got)}`);
        assert.ok(got[0]?.includes(want), `${rule}: got ${got[0]}, want …${want}…`);
      }
    });
  }
});

describe('errors and paths', () => {
  const s = objectType({ spec: objectType({ x: integerType, items: listType(objectType({ v: { ...integerType, 'x-kubernetes-validations': [{ rule: 'self > 0' }] } })) }) });
  test('root rule: upstream nil path and the type name as the value', () => {
    assert.deepEqual(run(s, { spec: { x: 1 } }, ['self.spec.x == 2']), ['<nil>: Invalid value: "object": failed rule: self.spec.x == 2']);
  });
  test('message replaces the rule', () => {
    assert.deepEqual(run(s, { spec: { x: 1 } }, [{ rule: 'self.spec.x == 2', message: ' x must be 2 ' }]), ['<nil>: Invalid value: "object": x must be 2']);
  });
  test('nested rules report at the value path (list items by index)', () => {
    assert.deepEqual(run(s, { spec: { items: [{ v: 1 }, { v: 0 }] } }, []), ['spec.items[1].v: Invalid value: "integer": failed rule: self > 0']);
  });
  test('null values are not validated', () => {
    const n = objectType({ v: { ...integerType, nullable: true, 'x-kubernetes-validations': [{ rule: 'self > 0' }] } });
    assert.deepEqual(run(n, { v: null }, []), []);
  });
  test('map values are validated by key', () => {
    const m = objectType({ m: mapType({ ...stringType, 'x-kubernetes-validations': [{ rule: "self != 'bad'" }] }) });
    assert.deepEqual(run(m, { m: { a: 'ok', b: 'bad' } }, []), ['m[b]: Invalid value: "string": failed rule: self != \'bad\'']);
  });
});

describe('TestReasonAndFldPath', () => {
  const s = objectType({ spec: objectType({ field1: stringType, 'dotted.name': stringType }) });
  test('reasons choose the error type', () => {
    assert.deepEqual(run(s, { spec: {} }, [{ rule: 'has(self.spec.field1)', reason: 'FieldValueRequired' }]), ['<nil>: Required value: failed rule: has(self.spec.field1)']);
    assert.deepEqual(run(s, { spec: {} }, [{ rule: 'false', reason: 'FieldValueForbidden' }]), ['<nil>: Forbidden: failed rule: false']);
    assert.deepEqual(run(s, { spec: {} }, [{ rule: 'false', reason: 'FieldValueDuplicate' }]), ['<nil>: Duplicate value: "object"']);
    assert.deepEqual(run(s, { spec: {} }, [{ rule: 'false', reason: 'FieldValueInvalid' }]), ['<nil>: Invalid value: "object": failed rule: false']);
  });
  test('fieldPath moves the error', () => {
    assert.deepEqual(run(s, { spec: { field1: 'a' } }, [{ rule: "self.spec.field1 == 'b'", fieldPath: '.spec.field1' }]), ['spec.field1: Invalid value: "object": failed rule: self.spec.field1 == \'b\'']);
    assert.deepEqual(run(s, { spec: {} }, [{ rule: 'false', fieldPath: ".spec['dotted.name']" }]), ['spec.dotted.name: Invalid value: "object": failed rule: false']);
  });
});

describe('TestMessageExpression', () => {
  const s = objectType({ spec: objectType({ x: integerType, name: stringType }) });
  test('the message expression replaces the message', () => {
    assert.deepEqual(run(s, { spec: { x: 1, name: 'n' } }, [{ rule: 'self.spec.x > 5', messageExpression: "'x is ' + string(self.spec.x)" }]), ['<nil>: Invalid value: "object": x is 1']);
  });
  test('an empty, failing or multi-line result falls back to the message', () => {
    for (const messageExpression of ["''", 'string(1 / 0)', "'a\\nb'"]) {
      assert.deepEqual(run(s, { spec: { x: 1 } }, [{ rule: 'false', message: 'static', messageExpression }]), ['<nil>: Invalid value: "object": static'], messageExpression);
    }
  });
});

describe('transition rules', () => {
  const s = objectType({ spec: objectType({ immutable: { ...stringType, 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'Value is immutable' }] } }) });
  test('skipped on create (no old value)', () => {
    assert.deepEqual(run(s, { spec: { immutable: 'a' } }, []), []);
  });
  test('run on update against the correlated old value', () => {
    assert.deepEqual(run(s, { spec: { immutable: 'a' } }, [], { spec: { immutable: 'a' } }), []);
    assert.deepEqual(run(s, { spec: { immutable: 'b' } }, [], { spec: { immutable: 'a' } }), ['spec.immutable: Invalid value: "string": Value is immutable']);
  });
  test('list-map items correlate by key', () => {
    const lm = objectType({
      l: listMapType(['k'], objectType({ k: stringType, v: { ...integerType, 'x-kubernetes-validations': [{ rule: 'self >= oldSelf' }] } })),
    });
    const old = { l: [{ k: 'a', v: 5 }, { k: 'b', v: 1 }] };
    assert.deepEqual(run(lm, { l: [{ k: 'b', v: 2 }, { k: 'a', v: 6 }, { k: 'c', v: 0 }] }, [], old), []);
    assert.deepEqual(run(lm, { l: [{ k: 'b', v: 0 }, { k: 'a', v: 6 }] }, [], old), ['l[0].v: Invalid value: "integer": failed rule: self >= oldSelf']);
  });
  test('TestOptionalOldSelf: optionalOldSelf runs on create with oldSelf an optional', () => {
    const rule: ValidationRule = { rule: "!oldSelf.hasValue() || self.spec.immutable == oldSelf.value().spec.immutable", optionalOldSelf: true };
    const o = objectType({ spec: objectType({ immutable: stringType }) });
    assert.deepEqual(run(o, { spec: { immutable: 'a' } }, [rule]), []);
    assert.deepEqual(run(o, { spec: { immutable: 'a' } }, [rule], { spec: { immutable: 'a' } }), []);
    assert.equal(run(o, { spec: { immutable: 'b' } }, [rule], { spec: { immutable: 'a' } }).length, 1);
    assert.deepEqual(run(o, { spec: { immutable: 'b' } }, [{ rule: "oldSelf.orValue(self).spec.immutable == 'b'", optionalOldSelf: true }]), []);
  });
  test('TestOptionalOldSelf: fields of an optional oldSelf are optionals', () => {
    const rule: ValidationRule = { rule: 'self.spec.immutable == oldSelf.spec.immutable.orValue(self.spec.immutable)', optionalOldSelf: true };
    const o = objectType({ spec: objectType({ immutable: stringType }) });
    assert.deepEqual(run(o, { spec: { immutable: 'a' } }, [rule]), []);
    assert.deepEqual(run(o, { spec: { immutable: 'a' } }, [rule], { spec: {} }), []);
    assert.deepEqual(run(o, { spec: { immutable: 'b' } }, [rule], { spec: { immutable: 'a' } }), [
      '<nil>: Invalid value: "object": failed rule: self.spec.immutable == oldSelf.spec.immutable.orValue(self.spec.immutable)',
    ]);
  });
});

describe('TestRatcheting', () => {
  const s = objectType({
    spec: objectType({
      a: { ...stringType, 'x-kubernetes-validations': [{ rule: "self != 'bad'" }] },
      l: listType({ ...stringType, 'x-kubernetes-validations': [{ rule: "self != 'bad'" }] }),
    }),
  });
  test('an unchanged invalid value is allowed on update', () => {
    assert.deepEqual(run(s, { spec: { a: 'bad' } }, [], { spec: { a: 'bad' } }), []);
    assert.deepEqual(run(s, { spec: { a: 'bad' } }, []), ['spec.a: Invalid value: "string": failed rule: self != \'bad\'']);
    assert.deepEqual(run(s, { spec: { a: 'bad' } }, [], { spec: { a: 'ok' } }), ['spec.a: Invalid value: "string": failed rule: self != \'bad\'']);
  });
  test('uncorrelatable items ratchet with their nearest correlated ancestor', () => {
    assert.deepEqual(run(s, { spec: { l: ['bad'] } }, [], { spec: { l: ['bad'] } }), []);
    assert.deepEqual(run(s, { spec: { l: ['bad', 'x'] } }, [], { spec: { l: ['bad'] } }), ['spec.l[0]: Invalid value: "string": failed rule: self != \'bad\'']);
  });
});

describe('TestCELValidationLimit', () => {
  const s = objectType({ list: listType(stringType) });
  const obj = { list: Array.from({ length: 1000 }, (_, i) => `item-${i}`) };
  test('running out of the runtime cost budget stops validation', () => {
    assert.deepEqual(run(s, obj, ['self.list.all(x, self.list.all(y, true))'], undefined, 100_000), [
      '<nil>: Invalid value: "object": validation failed due to running out of cost budget, no further validation rules will be run',
    ]);
    assert.deepEqual(run(s, obj, ['self.list.all(x, size(x) > 0)'], undefined, 100_000), []);
  });
});
