/**
 * Compilation of x-kubernetes-validations rules, ported from k8s.io/apiextensions-apiserver
 * pkg/apiserver/schema/cel/compilation_test.go (TestCelCompilation: a representative subset;
 * TestCostEstimation: the `all` over unbounded and bounded arrays cases, whose figures our estimate
 * reproduces, and the O(n^2)/O(n^3) loops exceeding the limit) and the CEL part of
 * pkg/apis/apiextensions/validation/validation_test.go (compile and cost errors with their CRD paths).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorString } from '../../../../machinery/errors/index.js';
import { compileRules, STATIC_ESTIMATED_COST_LIMIT, type CelStructural, type CompiledRule, type ValidationRule } from './index.js';

/** Compiles `rules` placed on `s` (as property `x` of a root object, like upstream's non-root schemas). */
function compileAt(s: CelStructural, rules: (string | ValidationRule)[]): CompiledRule[] {
  const withRules: CelStructural = { ...s, 'x-kubernetes-validations': rules.map((r) => (typeof r === 'string' ? { rule: r } : r)) };
  const { rules: compiled } = compileRules({ type: 'object', properties: { x: withRules } }, 'openAPIV3Schema');
  return compiled.root?.properties.get('x')?.rules ?? [];
}

const ok = (r: CompiledRule | undefined, transition = false): void => {
  assert.equal(r?.error, undefined, r?.rule.rule);
  assert.ok(r?.program, r?.rule.rule);
  assert.equal(r.usesOldSelf, transition, r.rule.rule);
};
const invalid = (r: CompiledRule | undefined, want: string): void => {
  assert.ok(r?.error?.includes(want), `${r?.rule.rule}: got ${r?.error}, want …${want}…`);
};

describe('TestCelCompilation', () => {
  test('optional primitive transition rule type checking', () => {
    const r = compileAt({ type: 'integer' }, [
      { rule: 'self >= oldSelf.value()', optionalOldSelf: true },
      { rule: 'self >= oldSelf.orValue(1)', optionalOldSelf: true },
      { rule: 'oldSelf.hasValue() ? self >= oldSelf.value() : true', optionalOldSelf: true },
      { rule: 'self >= oldSelf', optionalOldSelf: true },
      { rule: "self >= oldSelf.orValue('')", optionalOldSelf: true },
    ]);
    ok(r[0], true);
    ok(r[1], true);
    ok(r[2], true);
    invalid(r[3], 'optional');
    invalid(r[4], 'orValue');
  });
  test('optional complex transition rule type checking', () => {
    const props = { i: { type: 'integer' }, b: { type: 'boolean' }, s: { type: 'string' }, a: { type: 'array', items: { type: 'integer' } } };
    const r = compileAt({ type: 'object', properties: { ...props, o: { type: 'object', properties: { ...props, o: { type: 'object' } } } } }, [
      { rule: 'self.i >= oldSelf.i.value()', optionalOldSelf: true },
      { rule: 'self.s == oldSelf.s.value()', optionalOldSelf: true },
      { rule: 'self.o == oldSelf.o.value()', optionalOldSelf: true },
      { rule: 'self.o.i >= oldSelf.o.i.orValue(1)', optionalOldSelf: true },
      { rule: 'oldSelf.hasValue() ? self.o.i >= oldSelf.o.i.value() : true', optionalOldSelf: true },
      { rule: 'self.o.i >= oldSelf.o.i', optionalOldSelf: true },
      { rule: 'self.o.i >= oldSelf.o.s.orValue(0)', optionalOldSelf: true },
    ]);
    for (let i = 0; i < 5; i++) ok(r[i], true);
    invalid(r[5], 'optional');
    invalid(r[6], 'orValue');
  });
  test('valid rules on each type', () => {
    ok(compileAt({ type: 'object', properties: { minReplicas: { type: 'integer' }, maxReplicas: { type: 'integer' } } }, ['self.minReplicas < self.maxReplicas'])[0]);
    ok(compileAt({ type: 'string' }, ["self.startsWith('s')"])[0]);
    ok(compileAt({ type: 'string', format: 'byte' }, ["string(self).endsWith('s')"])[0]);
    ok(compileAt({ type: 'boolean' }, ['self == true'])[0]);
    ok(compileAt({ type: 'integer' }, ['self > 0'])[0]);
    ok(compileAt({ type: 'number' }, ['self > 1.0'])[0]);
    ok(compileAt({ type: 'object', properties: { nestedObj: { type: 'object', properties: { val: { type: 'integer' } } } } }, ['self.nestedObj.val == 10'])[0]);
    ok(compileAt({ type: 'array', items: { type: 'string' } }, ['size(self) > 0'])[0]);
    ok(compileAt({ type: 'object', additionalProperties: { type: 'integer' } }, ["self['a'] == 1 && self.all(k, self[k] > 0)"])[0]);
  });
  test('invalid checking for number', () => {
    invalid(compileAt({ type: 'number' }, ['size(self) == 10'])[0], "compilation failed: ERROR: <input>:1:5: found no matching overload for 'size' applied to '(double)'");
  });
  test('escaping', () => {
    const s: CelStructural = {
      type: 'object',
      properties: { namespace: { type: 'array', items: { type: 'array', items: { type: 'string' } } }, if: { type: 'integer' }, self: { type: 'integer' } },
    };
    const r = compileAt(s, ['size(self.__namespace__[0]) == 10', 'self.__if__ == 10', 'self.self == 10', 'size(self.namespace[0]) == 10', 'self.if == 10', 'self == 10']);
    for (let i = 0; i < 5; i++) ok(r[i]);
    invalid(r[5], 'found no matching overload');
  });
  test('transition rule identified', () => {
    const r = compileAt({ type: 'integer' }, ['self > 0', 'self >= oldSelf']);
    ok(r[0], false);
    ok(r[1], true);
  });
  test('whitespace-only rule: nothing to compile', () => {
    const r = compileAt({ type: 'object' }, [' \t']);
    assert.equal(r[0]?.error, undefined);
    assert.equal(r[0]?.program, undefined);
  });
  test('expression must evaluate to bool', () => {
    invalid(compileAt({ type: 'object' }, ['42'])[0], 'cel expression must evaluate to a bool');
  });
  test('undeclared functions', () => {
    invalid(compileAt({ type: 'string' }, ["fakeFunction('abc') == 'ABC'"])[0], "undeclared reference to 'fakeFunction'");
  });
});

describe('messageExpression', () => {
  const s: CelStructural = { type: 'object', properties: { x: { type: 'integer', 'x-kubernetes-validations': [] } } };
  const errs = (r: ValidationRule): string[] =>
    compileRules({ ...s, 'x-kubernetes-validations': [r] }, 'openAPIV3Schema').errors.map(fieldErrorString);
  test('messageExpression inclusion', () => {
    assert.deepEqual(errs({ rule: 'self.x > 0', messageExpression: "'x is ' + string(self.x)" }), []);
  });
  test('messageExpression must evaluate to a string', () => {
    const e = errs({ rule: 'self.x == 5', messageExpression: '42' });
    assert.equal(e.length, 1);
    assert.ok(e[0]?.startsWith('openAPIV3Schema.x-kubernetes-validations[0].messageExpression: Invalid value: apiextensions.ValidationRule{Rule:"self.x == 5", Message:"", MessageExpression:"42",'), e[0]);
    assert.ok(e[0]?.endsWith(': messageExpression must evaluate to a string'), e[0]);
  });
  test('messageExpression syntax error', () => {
    const e = errs({ rule: 'self.x < 32', messageExpression: 'self.x ++' });
    assert.equal(e.length, 1);
    assert.ok(e[0]?.includes('messageExpression compilation failed: ERROR: <input>:1:'), e[0]);
  });
});

describe('CRD validation errors', () => {
  test('a rule that does not compile: the rule is printed as Go prints the ValidationRule', () => {
    const { errors } = compileRules({ type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.foo == 1' }] } } }, 'spec.validation.openAPIV3Schema');
    assert.deepEqual(errors.map(fieldErrorString), [
      'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: ' +
        'apiextensions.ValidationRule{Rule:"self.foo == 1", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: ' +
        "compilation failed: ERROR: <input>:1:5: undefined field 'foo'\n | self.foo == 1\n | ....^",
    ]);
  });
  test('a syntax error carries its position', () => {
    const { errors } = compileRules({ type: 'object', 'x-kubernetes-validations': [{ rule: 'self.a +' }] }, 'openAPIV3Schema');
    assert.equal(errors.length, 1);
    assert.match(fieldErrorString(errors[0] as never), /compilation failed: ERROR: <input>:1:\d+: Syntax error: .*\n \| self\.a \+\n \| \.*\^$/);
  });
  test('oldSelf on the items of a non-map list is uncorrelatable', () => {
    const { errors } = compileRules(
      { type: 'object', properties: { l: { type: 'array', 'x-kubernetes-list-type': 'set', maxItems: 10, items: { type: 'string', maxLength: 10, 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] } } } },
      'openAPIV3Schema',
    );
    assert.deepEqual(errors.map(fieldErrorString), [
      'openAPIV3Schema.properties[l].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within openAPIV3Schema.properties[l]',
    ]);
  });
  test('optionalOldSelf without oldSelf', () => {
    const { errors } = compileRules({ type: 'object', 'x-kubernetes-validations': [{ rule: 'true', optionalOldSelf: true }] }, 'openAPIV3Schema');
    assert.deepEqual(errors.map(fieldErrorString), ['openAPIV3Schema.x-kubernetes-validations[0].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule']);
  });
  test('per-rule estimated cost limit', () => {
    const { errors } = compileRules(
      { type: 'object', properties: { l: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x == y))' }] } } },
      'openAPIV3Schema',
    );
    assert.deepEqual(errors.map(fieldErrorString), [
      'openAPIV3Schema.properties[l].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
      'openAPIV3Schema.properties[l].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema',
      'openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
    ]);
  });
  test('rules under unbounded lists are multiplied by the list size; the CRD total is limited too', () => {
    const item: CelStructural = { type: 'object', properties: { s: { type: 'string', maxLength: 10 } }, 'x-kubernetes-validations': [{ rule: "self.s.startsWith('a')" }] };
    const properties = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`p${i}`, { type: 'array', items: item }]));
    const { errors } = compileRules({ type: 'object', properties }, 'openAPIV3Schema');
    const msgs = errors.map(fieldErrorString);
    // Each rule is within the per-rule limit; together they exceed the CRD's: the 4 most expensive and the root are reported.
    assert.equal(msgs.length, 5, msgs.join('\n'));
    assert.match(msgs[msgs.length - 1] ?? '', /^openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of \d\.\d{6}x \(try/);
    assert.equal(msgs[0], 'openAPIV3Schema.properties[p0].items.x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema');
  });
});

describe('TestCostEstimation', () => {
  const arrayWithRule = (itemType: string, rule: string, maxItems?: number): CompiledRule | undefined =>
    compileAt({ type: 'array', items: { type: itemType }, ...(maxItems === undefined ? {} : { maxItems }) }, [rule])[0];
  const cases: [name: string, type: string, rule: string, calc: number | 'exceeds', maxItems: number, set: number][] = [
    ['number array with all', 'number', 'self.all(x, true)', 4718591, 10, 32],
    ['string array with all', 'string', 'self.all(x, true)', 3145727, 20, 62],
    ['boolean array with all', 'boolean', 'self.all(x, true)', 1887437, 5, 17],
    ['O(n^2) loop with numbers', 'number', 'self.all(x, self.all(y, true))', 'exceeds', 10, 352],
    ['O(n^3) loop with numbers', 'number', 'self.all(x, self.all(y, self.all(z, true)))', 'exceeds', 10, 3552],
  ];
  for (const [name, type, rule, calc, maxItems, set] of cases) {
    test(name, () => {
      const unbounded = arrayWithRule(type, rule);
      if (calc === 'exceeds') assert.ok((unbounded?.cost ?? 0) > STATIC_ESTIMATED_COST_LIMIT);
      else assert.equal(unbounded?.cost, calc);
      assert.equal(arrayWithRule(type, rule, maxItems)?.cost, set);
    });
  }
});
