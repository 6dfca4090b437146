import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  everything,
  formatLabelSelector,
  nothing,
  parseSelector,
  SelectorParseError,
  selectorFromLabelSelector,
  selectorFromSet,
} from './index.js';

function parseError(s: string): string {
  try {
    parseSelector(s);
  } catch (e) {
    assert.ok(e instanceof SelectorParseError, `expected SelectorParseError for ${JSON.stringify(s)}`);
    return e.message;
  }
  assert.fail(`expected ${JSON.stringify(s)} to fail`);
}

describe('parseSelector', () => {
  test('empty and whitespace select everything', () => {
    for (const s of ['', '   ', '\t\n']) {
      const sel = parseSelector(s);
      assert.equal(sel.empty(), true);
      assert.equal(sel.matches({ a: 'b' }), true);
      assert.equal(sel.matches(undefined), true);
      assert.equal(sel.toString(), '');
    }
  });

  test('canonical strings, sorted by key, values sorted and de-duplicated', () => {
    const cases: [string, string][] = [
      ['x=a', 'x=a'],
      ['x==a', 'x==a'],
      ['x!=a', 'x!=a'],
      ['x=', 'x='],
      ['x==', 'x=='],
      ['x', 'x'],
      ['!x', '!x'],
      ['  ! x  ', '!x'],
      ['x in (b,a,b)', 'x in (a,b)'],
      ['x notin (a)', 'x notin (a)'],
      ['x in ()', 'x in ()'],
      ['x in (,a)', 'x in (,a)'],
      ['x in (a,)', 'x in (,a)'],
      ['x in (a,,b)', 'x in (,a,b)'],
      ['x>1', 'x>1'],
      ['x < 2', 'x<2'],
      ['z=1,a=2, m in (q) ,!b', 'a=2,!b,m in (q),z=1'],
      ['x in (in),notin', 'notin,x in (in)'],
      ['example.com/app=web', 'example.com/app=web'],
      ['x=a,x!=b', 'x=a,x!=b'],
    ];
    for (const [input, want] of cases) assert.equal(parseSelector(input).toString(), want, input);
  });

  test('requirements() exposes key, operator and values', () => {
    assert.deepEqual(parseSelector('b in (y,x),a,!c,d!=1,e==2,f>3').requirements(), [
      { key: 'a', operator: 'exists', values: [] },
      { key: 'b', operator: 'in', values: ['x', 'y'] },
      { key: 'c', operator: '!', values: [] },
      { key: 'd', operator: '!=', values: ['1'] },
      { key: 'e', operator: '==', values: ['2'] },
      { key: 'f', operator: 'gt', values: ['3'] },
    ]);
  });

  test("kubectl's URL encoding decodes to the set-based grammar", () => {
    const q = new URLSearchParams('labelSelector=app+in+%28web%29%2Ctier+notin+%28x%29%2C%21foo%2Capp');
    const sel = parseSelector(q.get('labelSelector') ?? '');
    assert.equal(sel.toString(), 'app in (web),app,!foo,tier notin (x)');
    assert.equal(sel.matches({ app: 'web' }), true);
    assert.equal(sel.matches({ app: 'web', tier: 'y' }), true);
    assert.equal(sel.matches({ app: 'web', tier: 'x' }), false);
    assert.equal(sel.matches({ app: 'web', foo: '' }), false);
    assert.equal(sel.matches({ app: 'db' }), false);
    assert.equal(sel.matches({}), false);
  });

  test('syntax errors carry upstream messages', () => {
    assert.equal(parseError('x IN (a)'), "unable to parse requirement: found 'IN', expected: in, notin, =, ==, !=, gt, lt");
    assert.equal(parseError('x=a b'), "found 'b', expected: ',' or 'end of string'");
    assert.equal(parseError('x=a,'), "found '', expected: identifier after ','");
    assert.equal(parseError('x=a,,y'), "found ',', expected: identifier after ','");
    assert.equal(parseError(',x'), "found ',', expected: !, identifier, or 'end of string'");
    assert.equal(parseError('=a'), "found '=', expected: !, identifier, or 'end of string'");
    assert.equal(parseError('x in a'), "unable to parse requirement: found 'a' expected: '('");
    assert.equal(parseError('x in (a b)'), "unable to parse requirement: found 'b', expected: ',' or ')'");
    assert.equal(parseError('x in (a'), "unable to parse requirement: found '', expected: ',' or ')'");
    assert.equal(parseError('x in (='), "unable to parse requirement: found '=', expected: ',', ')' or identifier");
    assert.equal(parseError('x==='), "unable to parse requirement: found '=', expected: identifier");
    assert.equal(parseError('!x=a'), "found '=', expected: ',' or 'end of string'");
    assert.equal(parseError('!=a'), "found '!=', expected: !, identifier, or 'end of string'");
    // `-2` is an integer but not a valid label value, so upstream rejects it too.
    assert.match(parseError('x<-2'), /^unable to parse requirement: values\[0\]\[x\]: Invalid value: "-2": a valid label/);
  });

  test('invalid keys and values are rejected with field errors', () => {
    assert.match(parseError('a$=b'), /^unable to parse requirement: <nil>: Invalid value: "a\$": name part must consist of alphanumeric/);
    assert.match(parseError('a=b$'), /^unable to parse requirement: values\[0\]\[a\]: Invalid value: "b\$": a valid label must be an empty string/);
    assert.equal(parseError('a>b'), `unable to parse requirement: values[0]: Invalid value: "b": for 'Gt', 'Lt' operators, the value must be an integer`);
    assert.match(parseError(`k=${'v'.repeat(64)}`), /must be no more than 63 characters/);
  });
});

describe('matching', () => {
  const m = (s: string, labels: Record<string, string> | undefined): boolean => parseSelector(s).matches(labels);

  test('equality', () => {
    assert.equal(m('a=b', { a: 'b' }), true);
    assert.equal(m('a==b', { a: 'b' }), true);
    assert.equal(m('a=b', { a: 'c' }), false);
    assert.equal(m('a=b', {}), false);
    assert.equal(m('a=', { a: '' }), true);
    assert.equal(m('a=', {}), false);
  });

  test('!= and notin are true when the key is absent', () => {
    assert.equal(m('a!=b', {}), true);
    assert.equal(m('a!=b', undefined), true);
    assert.equal(m('a!=b', { a: 'b' }), false);
    assert.equal(m('a!=b', { a: 'c' }), true);
    assert.equal(m('a notin (b,c)', {}), true);
    assert.equal(m('a notin (b,c)', { a: 'c' }), false);
    assert.equal(m('a notin (b,c)', { a: 'd' }), true);
  });

  test('in, exists, does not exist', () => {
    assert.equal(m('a in (b,c)', { a: 'c' }), true);
    assert.equal(m('a in (b,c)', { a: 'd' }), false);
    assert.equal(m('a in (b,c)', {}), false);
    assert.equal(m('a in ()', { a: '' }), true);
    assert.equal(m('a', { a: '' }), true);
    assert.equal(m('a', { b: '' }), false);
    assert.equal(m('!a', { b: '' }), true);
    assert.equal(m('!a', { a: 'x' }), false);
  });

  test('gt and lt compare integers and never match non-integers or absent keys', () => {
    assert.equal(m('a>5', { a: '6' }), true);
    assert.equal(m('a>5', { a: '5' }), false);
    assert.equal(m('a<5', { a: '-1' }), true);
    assert.equal(m('a<5', { a: 'x' }), false);
    assert.equal(m('a<5', {}), false);
  });

  test('inherited object properties are not labels', () => {
    assert.equal(m('constructor', {}), false);
    assert.equal(m('!toString', {}), true);
    assert.equal(m('hasOwnProperty!=x', {}), true);
  });

  test('all requirements must hold (comma is AND)', () => {
    assert.equal(m('a=1,b=2', { a: '1', b: '2' }), true);
    assert.equal(m('a=1,b=2', { a: '1' }), false);
  });
});

describe('selectorFromLabelSelector', () => {
  test('null selects nothing, {} selects everything', () => {
    assert.equal(selectorFromLabelSelector(null), nothing);
    assert.equal(selectorFromLabelSelector(undefined).matches({}), false);
    assert.equal(selectorFromLabelSelector(undefined).empty(), false);
    assert.equal(selectorFromLabelSelector({}).matches({}), true);
    assert.equal(selectorFromLabelSelector({ matchLabels: {}, matchExpressions: [] }).empty(), true);
  });

  test('matchLabels and matchExpressions combine', () => {
    const sel = selectorFromLabelSelector({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['b', 'a'] },
        { key: 'env', operator: 'NotIn', values: ['prod'] },
        { key: 'track', operator: 'Exists' },
        { key: 'canary', operator: 'DoesNotExist' },
      ],
    });
    assert.equal(sel.toString(), 'app=web,!canary,env notin (prod),tier in (a,b),track');
    assert.equal(sel.matches({ app: 'web', tier: 'a', track: '' }), true);
    assert.equal(sel.matches({ app: 'web', tier: 'a', track: '', env: 'prod' }), false);
    assert.equal(sel.matches({ app: 'web', tier: 'a', track: '', canary: 'y' }), false);
    assert.equal(sel.matches({ app: 'web', tier: 'c', track: '' }), false);
  });

  test('invalid selectors throw', () => {
    assert.throws(() => selectorFromLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Foo' }] }), {
      name: 'SelectorParseError',
      message: '"Foo" is not a valid label selector operator',
    });
    assert.throws(() => selectorFromLabelSelector({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }), {
      message: `values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty`,
    });
    assert.throws(() => selectorFromLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }), {
      message: 'values: Invalid value: ["x"]: values set must be empty for exists and does not exist',
    });
    assert.throws(() => selectorFromLabelSelector({ matchLabels: { 'bad key': 'v' } }), { message: /^key: Invalid value: "bad key": name part/ });
    assert.throws(() => selectorFromLabelSelector({ matchLabels: { '-a': 'bad value' } }), {
      message: /^\[key: Invalid value: "-a".*, values\[0\]\[-a\]: Invalid value: "bad value".*\]$/,
    });
  });
});

describe('formatLabelSelector, selectorFromSet, constants', () => {
  test('formatLabelSelector', () => {
    assert.equal(formatLabelSelector({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] }), 'app=web,tier in (a,b)');
    assert.equal(formatLabelSelector({}), '<none>');
    assert.equal(formatLabelSelector(undefined), '<none>');
    assert.equal(formatLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Bad' }] }), '<error>');
  });

  test('selectorFromSet', () => {
    const sel = selectorFromSet({ b: '2', a: '1' });
    assert.equal(sel.toString(), 'a=1,b=2');
    assert.equal(sel.matches({ a: '1', b: '2', c: '3' }), true);
    assert.equal(sel.matches({ a: '1' }), false);
    assert.equal(selectorFromSet({}).empty(), true);
    assert.equal(selectorFromSet(undefined), everything);
  });

  test('everything and nothing', () => {
    assert.equal(everything.matches(null), true);
    assert.equal(everything.empty(), true);
    assert.equal(nothing.matches({ a: 'b' }), false);
    assert.equal(nothing.toString(), '');
    assert.deepEqual(nothing.requirements(), []);
  });

  test('requirements() returns copies', () => {
    const sel = parseSelector('a in (x,y)');
    sel.requirements()[0]?.values.push('z');
    assert.equal(sel.toString(), 'a in (x,y)');
  });
});
