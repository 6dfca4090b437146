/**
 * Cases ported from sigs.k8s.io/structured-merge-diff/v4 (v4.6.0) fieldpath/element_test.go,
 * fieldpath/serialize-pe_test.go, fieldpath/serialize_test.go, fieldpath/set_test.go and
 * fieldpath/managers_test.go, fieldpath/fromvalue_test.go and fieldpath/path_test.go; each describe block names its upstream test.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { SeededRand } from '../../util/random/index.js';
import {
  compareElements,
  deserializePathElement,
  FieldSet,
  keyByFields,
  makePath,
  managedFieldsDifference,
  managedFieldsEqual,
  PathElementSet,
  pathString,
  serializePathElement,
  setFromJson,
  setFromValue,
  setToJson,
  setToObject,
  UnknownPathElementTypeError,
  type ManagedFields,
  type PathElement,
  type PathPart,
  type Value,
} from './index.js';

const P = makePath;
const NS = (...paths: PathPart[][]): FieldSet => FieldSet.of(...paths.map((p) => P(...p)));
const assertSetEqual = (got: FieldSet, want: FieldSet): void => assert.ok(got.equals(want), `want:\n${want.toString()}\ngot:\n${got.toString()}`);

describe('element_test.go', () => {
  test('TestPathElementSet', () => {
    const s = new PathElementSet();
    assert.equal(s.has({}), false);
    const s2 = new PathElementSet();
    s2.insert({});
    assert.equal(s2.equals(s), false);
    assert.ok(s2.has({}));
    s2.insert({ fieldName: 'aoeu' });
    assert.ok(s2.has({ fieldName: 'aoeu' }));
    assert.equal(s2.has({ fieldName: 'asdf' }), false);
    s2.insert({ fieldName: 'asdf' });
    assert.deepEqual(s2.members.map((m) => m.fieldName), ['aoeu', 'asdf', undefined]);
  });

  test('TestPathElementLess', () => {
    const table: [string, PathElement, PathElement, boolean][] = [
      ['FieldName-0', {}, {}, true],
      ['FieldName-1', { fieldName: 'anteater' }, { fieldName: 'zebra' }, false],
      ['FieldName-2', { fieldName: 'bee' }, { fieldName: 'bee' }, true],
      ['FieldName-3', { fieldName: 'capybara' }, { key: keyByFields('dog', 3) }, false],
      ['FieldName-4', { fieldName: 'elephant' }, { value: 4 }, false],
      ['FieldName-5', { fieldName: 'falcon' }, { index: 5 }, false],
      ['Key-1', { key: keyByFields('goat', 1) }, { key: keyByFields('goat', 1) }, true],
      ['Key-2', { key: keyByFields('horse', 1) }, { key: keyByFields('horse', 2) }, false],
      ['Key-3', { key: keyByFields('ibex', 1) }, { key: keyByFields('jay', 1) }, false],
      ['Key-4', { key: keyByFields('kite', 1) }, { key: keyByFields('kite', 1, 'kite-2', 1) }, false],
      ['Key-5', { key: keyByFields('kite', 1) }, { value: 1 }, false],
      ['Key-6', { key: keyByFields('kite', 1) }, { index: 5 }, false],
      ['Value-1', { value: 1 }, { value: 2 }, false],
      ['Value-2', { value: 1 }, { value: 1 }, true],
      ['Value-3', { value: 1 }, { index: 1 }, false],
      ['Index-1', { index: 1 }, { index: 2 }, false],
      ['Index-2', { index: 1 }, { index: 1 }, true],
    ];
    for (const [name, a, b, eq] of table) {
      if (eq) assert.equal(compareElements(a, b), 0, name);
      else {
        assert.equal(compareElements(a, b), -1, name);
        assert.equal(compareElements(b, a), 1, name);
      }
    }
  });
});

describe('serialize-pe_test.go', () => {
  test('TestPathElementRoundTrip', () => {
    for (const s of [
      'i:0',
      'i:1234',
      'f:',
      'f:spec',
      'f:more-complicated-string',
      'k:{"name":"my-container"}',
      'k:{"port":"8080","protocol":"TCP"}',
      'k:{"optionalField":null}',
      'k:{"jsonField":{"A":1,"B":null,"C":"D","E":{"F":"G"}}}',
      'k:{"listField":["1","2","3"]}',
      'v:null',
      'v:"some-string"',
      'v:1234',
      'v:{"some":"json"}',
    ]) {
      assert.equal(serializePathElement(deserializePathElement(s)), s);
    }
  });

  test('TestPathElementIgnoreUnknown', () => {
    assert.throws(() => deserializePathElement('r:Hello'), UnknownPathElementTypeError);
  });

  test('TestDeserializePathElementError', () => {
    for (const s of ['', 'no-colon', 'i:index is not a number', 'i:1.23', 'i:', 'v:invalid json', 'v:', 'k:invalid json', 'k:{"name":invalid}']) {
      assert.throws(() => deserializePathElement(s), (e) => e instanceof Error && !(e instanceof UnknownPathElementTypeError), s);
    }
  });

  test('keys are sorted and values JSON-encoded as encoding/json does (HTML escaped)', () => {
    assert.equal(serializePathElement({ key: keyByFields('protocol', 'TCP', 'containerPort', 80) }), 'k:{"containerPort":80,"protocol":"TCP"}');
    assert.equal(serializePathElement({ value: 'a<b>&c' }), 'v:"a\\u003cb\\u003e\\u0026c"');
    assert.equal(serializePathElement(deserializePathElement('k:{"port":443,"protocol":"tcp"}')), 'k:{"port":443,"protocol":"tcp"}');
  });
});

/** serialize_test.go's randomPathMaker: random paths over a small alphabet of each element kind. */
function randomPath(rand: SeededRand, minLen: number, maxLen: number): PathElement[] {
  const elements: PathElement[] = [
    ...['aaa', 'aab', 'aac', 'aad', 'aae', 'aaf'].map((f) => ({ fieldName: f })),
    { key: keyByFields('name', 'first') },
    { key: keyByFields('name', 'second') },
    { key: keyByFields('port', 443, 'protocol', 'tcp') },
    { key: keyByFields('port', 443, 'protocol', 'udp') },
    { value: 1 },
    { value: 2 },
    { value: 3 },
    { value: 'aa' },
    { value: 'ab' },
    { value: true },
    { index: 1 },
    { index: 2 },
    { index: 3 },
    { index: 4 },
  ];
  const n = minLen + rand.int(maxLen - minLen);
  return Array.from({ length: n }, () => elements[rand.int(elements.length)]!);
}

describe('serialize_test.go', () => {
  test('TestSerializeV1: random sets survive a round trip', () => {
    const rand = new SeededRand(7);
    for (let i = 0; i < 200; i++) {
      const x = new FieldSet();
      for (let j = 0; j < 50; j++) x.insert(randomPath(rand, 2, 5));
      const json = setToJson(x);
      const x2 = setFromJson(json);
      assert.ok(x2.equals(x), json);
      assert.equal(setToJson(x2), json);
      // The object form has the same keys in the same order.
      assert.equal(JSON.stringify(setToObject(x)), json);
    }
  });

  test('TestSerializeV1GoldenData', () => {
    const examples = [
      '{"f:aaa":{},"f:aab":{},"f:aac":{},"f:aad":{},"f:aae":{},"f:aaf":{},"k:{\\"name\\":\\"first\\"}":{},"k:{\\"name\\":\\"second\\"}":{},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{},"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{},"v:1":{},"v:2":{},"v:3":{},"v:\\"aa\\"":{},"v:\\"ab\\"":{},"v:true":{},"i:1":{},"i:2":{},"i:3":{},"i:4":{}}',
      '{"f:aaa":{"k:{\\"name\\":\\"second\\"}":{"v:3":{"f:aab":{}}},"v:3":{},"v:true":{}},"f:aab":{"f:aaa":{},"f:aaf":{"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{}}},"k:{\\"name\\":\\"first\\"}":{}},"f:aac":{"f:aaa":{"v:1":{}},"f:aac":{},"v:3":{"k:{\\"name\\":\\"second\\"}":{}}},"f:aad":{"f:aac":{"v:1":{}},"f:aaf":{"k:{\\"name\\":\\"first\\"}":{"k:{\\"name\\":\\"first\\"}":{}}},"i:1":{"i:1":{},"i:3":{"v:true":{}}}},"f:aae":{"f:aae":{},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{}},"i:4":{"f:aaf":{}}},"f:aaf":{"i:1":{"f:aac":{}},"i:2":{},"i:3":{}},"k:{\\"name\\":\\"first\\"}":{"f:aad":{"f:aaf":{}}},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{"f:aaa":{"f:aad":{}}},"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{"f:aac":{},"k:{\\"name\\":\\"first\\"}":{"i:3":{}},"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{"i:4":{}}},"v:1":{"f:aac":{"i:4":{}},"f:aaf":{},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{}},"v:2":{"f:aad":{"f:aaf":{}},"i:1":{}},"v:3":{"f:aaa":{},"k:{\\"name\\":\\"first\\"}":{},"i:2":{}},"v:\\"aa\\"":{"f:aab":{"f:aaf":{}},"f:aae":{},"k:{\\"name\\":\\"first\\"}":{"f:aad":{}},"i:2":{}},"v:\\"ab\\"":{"f:aaf":{"i:4":{}},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{},"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{},"v:1":{"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{}},"i:1":{"f:aae":{"i:4":{}}}},"v:true":{"k:{\\"name\\":\\"second\\"}":{"f:aaa":{}},"i:2":{"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{}}},"i:1":{"i:3":{"f:aaf":{}}},"i:2":{"f:aae":{},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{"v:1":{}}},"i:3":{"f:aab":{"v:true":{"v:\\"aa\\"":{}}},"f:aaf":{},"i:1":{}},"i:4":{"v:\\"aa\\"":{"f:aab":{"k:{\\"name\\":\\"second\\"}":{}}}}}',
    ];
    for (const str of examples) {
      assert.equal(setToJson(setFromJson(str)), str);
      assert.equal(JSON.stringify(setToObject(setFromJson(str))), str);
    }
  });

  test('TestDropUnknown', () => {
    assert.equal(setToJson(setFromJson('{"f:aaa":{},"r:aab":{}}')), '{"f:aaa":{}}');
  });

  test('a node that is itself a member writes "." first (a Deployment as kubectl apply records it)', () => {
    const s = NS(['metadata', 'labels'], ['metadata', 'labels', 'app'], ['spec', 'template', 'spec', 'containers', keyByFields('name', 'nginx')], ['spec', 'template', 'spec', 'containers', keyByFields('name', 'nginx'), 'image'], ['spec', 'replicas']);
    assert.equal(setToJson(s), '{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:replicas":{},"f:template":{"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{}}}}}}}');
    assert.equal(setToJson(new FieldSet()), '{}');
  });
});

describe('set_test.go', () => {
  test('TestSetInsertHas', () => {
    const s1 = NS(
      ['foo', 0, 'bar', 'baz'],
      ['foo', 0, 'bar'],
      ['foo', 0],
      ['foo', 1, 'bar', 'baz'],
      ['foo', 1, 'bar'],
      ['qux', keyByFields('name', 'first')],
      ['qux', keyByFields('name', 'first'), 'bar'],
      ['qux', keyByFields('name', 'second'), 'bar'],
      ['canonicalOrder', keyByFields('a', 'a', 'b', 'a', 'c', 'a', 'd', 'a', 'e', 'a', 'f', 'a')],
    );
    const table: [PathPart[], boolean][] = [
      [['qux', keyByFields('name', 'second')], false],
      [['qux', keyByFields('name', 'second'), 'bar'], true],
      [['qux', keyByFields('name', 'first')], true],
      [['xuq', keyByFields('name', 'first')], false],
      [['foo', 0], true],
      [['foo', 0, 'bar'], true],
      [['foo', 0, 'bar', 'baz'], true],
      [['foo', 1], false],
      [['foo', 1, 'bar'], true],
      [['foo', 1, 'bar', 'baz'], true],
      [['canonicalOrder', keyByFields('f', 'a', 'e', 'a', 'd', 'a', 'c', 'a', 'b', 'a', 'a', 'a')], true],
    ];
    for (const [p, want] of table) assert.equal(s1.has(P(...p)), want, pathString(P(...p)));
    assert.equal(new FieldSet().has([]), false);
    assert.equal(FieldSet.of([]).has([]), false);
  });

  test('TestSetString', () => {
    const p = P('foo', keyByFields('name', 'first'));
    assert.equal(FieldSet.of(p).toString(), pathString(p));
    assert.equal(pathString(p), '.foo[name="first"]');
  });

  test('TestSetIterSize', () => {
    const s1 = NS(['foo', 0, 'bar', 'baz'], ['foo', 0, 'bar', 'zot'], ['foo', 0, 'bar'], ['foo', 0], ['foo', 1, 'bar', 'baz'], ['foo', 1, 'bar'], ['qux', keyByFields('name', 'first')], ['qux', keyByFields('name', 'first'), 'bar'], ['qux', keyByFields('name', 'second'), 'bar']);
    const s2 = new FieldSet();
    let added = 0;
    s1.iterate((p) => {
      assert.equal(s2.size(), added);
      assert.equal(s2.empty(), added === 0);
      s2.insert(p);
      added++;
    });
    assert.ok(s1.equals(s2));
  });

  test('TestSetEquals', () => {
    const table: [FieldSet, FieldSet, boolean][] = [
      [NS(['foo']), NS(['bar']), false],
      [NS(['foo']), NS(['foo']), true],
      [NS(), NS([0, 'foo']), false],
      [NS([1, 'foo']), NS([0, 'foo']), false],
      [NS([1, 'foo']), NS([1, 'foo', 'bar']), false],
      [NS([0], [1]), NS([1], [0]), true],
      [NS(['foo', 0], ['foo', 1]), NS(['foo', 1], ['foo', 0]), true],
      [NS(['foo', 0], ['foo'], ['bar', 'baz'], ['qux', keyByFields('name', 'first')]), NS(['foo', 1], ['bar', 'baz'], ['bar'], ['qux', keyByFields('name', 'second')]), false],
    ];
    for (const [a, b, want] of table) assert.equal(a.equals(b), want, `${a.toString()}\n--\n${b.toString()}`);
  });

  test('TestSetUnion', () => {
    const s1 = NS(['foo', 0], ['foo'], ['bar', 'baz'], ['qux', keyByFields('name', 'first')], ['parent', 'child', 'grandchild']);
    const s2 = NS(['foo', 1], ['bar', 'baz'], ['bar'], ['qux', keyByFields('name', 'second')], ['parent', 'child']);
    const u = NS(['foo', 0], ['foo', 1], ['foo'], ['bar', 'baz'], ['bar'], ['qux', keyByFields('name', 'first')], ['qux', keyByFields('name', 'second')], ['parent', 'child'], ['parent', 'child', 'grandchild']);
    assertSetEqual(s1.union(s2), u);
  });

  test('TestSetIntersectionDifference', () => {
    const nameFirst = keyByFields('name', 'first');
    const s1 = NS(['a0'], ['a1'], ['foo', 0], ['foo', 1], ['b0', nameFirst], ['b1', nameFirst], ['bar', 'c0'], ['cp', nameFirst, 'child']);
    const s2 = NS(['a1'], ['a2'], ['foo', 1], ['foo', 2], ['b1', nameFirst], ['b2', nameFirst], ['bar', 'c2'], ['cp', nameFirst]);
    const i = NS(['a1'], ['foo', 1], ['b1', nameFirst]);
    assertSetEqual(s1.intersection(s2), i);
    assertSetEqual(s1.difference(s2), NS(['a0'], ['foo', 0], ['b0', nameFirst], ['bar', 'c0'], ['cp', nameFirst, 'child']));
    assertSetEqual(s2.difference(s1), NS(['a2'], ['foo', 2], ['b2', nameFirst], ['bar', 'c2'], ['cp', nameFirst]));
    // Intersection the hard way: union minus the symmetric difference.
    assertSetEqual(s1.union(s2).difference(s2.difference(s1).union(s1.difference(s2))), i);
  });

  test('TestSetLeaves', () => {
    const a = keyByFields('name', 'a');
    const p = keyByFields('name', 'p');
    const table: [string, FieldSet, FieldSet][] = [
      ['empty set', NS(), NS()],
      ['all leaves', NS(['path1'], ['path2'], ['path3']), NS(['path1'], ['path2'], ['path3'])],
      ['only one leaf', NS(['root'], ['root', 'l1'], ['root', 'l1', 'l2'], ['root', 'l1', 'l2', 'l3']), NS(['root', 'l1', 'l2', 'l3'])],
      ['multiple values, check for overwrite', NS(['root', a], ['root', a, 'name'], ['root', a, 'value', 'b'], ['root', a, 'value', 'c']), NS(['root', a, 'name'], ['root', a, 'value', 'b'], ['root', a, 'value', 'c'])],
      ['multiple values and nested', NS(['root', a], ['root', a, 'name'], ['root', a, 'value', 'b'], ['root', a, 'value', 'b', 'd'], ['root', a, 'value', 'c']), NS(['root', a, 'name'], ['root', a, 'value', 'b', 'd'], ['root', a, 'value', 'c'])],
      [
        'all-in-one',
        NS(['root'], ['root', a], ['root', a, 'name'], ['root', a, 'value', 'b'], ['root', a, 'value', 'b', 'c'], ['root', a, 'value', 'd'], ['root', a, 'value', 'e'], ['root', 'x'], ['root', 'x', 'y'], ['root', 'x', 'z'], ['root', p], ['root', p, 'name'], ['root', p, 'value', 'q']),
        NS(['root', a, 'name'], ['root', a, 'value', 'b', 'c'], ['root', a, 'value', 'd'], ['root', a, 'value', 'e'], ['root', 'x', 'y'], ['root', 'x', 'z'], ['root', p, 'name'], ['root', p, 'value', 'q']),
      ],
    ];
    for (const [name, input, want] of table) assert.ok(input.leaves().equals(want), name);
  });

  test('TestSetDifference', () => {
    const table: [string, FieldSet, FieldSet, FieldSet, FieldSet][] = [
      ['removes simple path', NS(['a']), NS(['a']), NS(), NS()],
      ['removes direct path', NS(['a', 'b', 'c']), NS(['a', 'b', 'c']), NS(), NS()],
      ['only removes matching child', NS(['a', 'b', 'c'], ['b', 'b', 'c']), NS(['a', 'b', 'c']), NS(['b', 'b', 'c']), NS(['b', 'b', 'c'])],
      ['does not remove parent of specific path', NS(['a']), NS(['a', 'aa']), NS(['a']), NS(['a'])],
      ['RecursiveDifference removes nested path', NS(['a', 'b', 'c']), NS(['a']), NS(['a', 'b', 'c']), NS()],
      ['RecursiveDifference only removes nested path for matching children', NS(['a', 'aa', 'aab'], ['a', 'ab', 'aba']), NS(['a', 'aa']), NS(['a', 'aa', 'aab'], ['a', 'ab', 'aba']), NS(['a', 'ab', 'aba'])],
      ['RecursiveDifference removes all matching children', NS(['a', 'aa', 'aab'], ['a', 'ab', 'aba']), NS(['a']), NS(['a', 'aa', 'aab'], ['a', 'ab', 'aba']), NS()],
    ];
    for (const [name, a, b, diff, rdiff] of table) {
      assert.ok(a.difference(b).equals(diff), `${name}: difference`);
      assert.ok(a.recursiveDifference(b).equals(rdiff), `${name}: recursive difference`);
    }
  });

  test('a difference that takes nothing away is the set itself (ours: callers tell unchanged sets by identity)', () => {
    const a = NS(['a', 'b', 'c'], ['a', 'd'], ['e']);
    assert.equal(a.difference(NS()), a);
    assert.equal(a.difference(NS(['x'], ['a', 'b', 'x'])), a);
    assert.equal(a.recursiveDifference(NS(['a', 'x'])), a);
    const taken = a.difference(NS(['a', 'b', 'c']));
    assert.notEqual(taken, a);
    assertSetEqual(taken, NS(['a', 'd'], ['e']));
    assert.equal(taken.withPrefix({ fieldName: 'a' }).difference(NS(['b'])), taken.withPrefix({ fieldName: 'a' }));
  });

  test('prefixed and withPrefix are inverses', () => {
    const s = NS(['a'], ['b', 'c']);
    const moved = s.prefixed(P('spec', 'template'));
    assertSetEqual(moved, NS(['spec', 'template', 'a'], ['spec', 'template', 'b', 'c']));
    assertSetEqual(moved.withPrefix({ fieldName: 'spec' }).withPrefix({ fieldName: 'template' }), s);
    assert.ok(NS().prefixed(P('x')).empty());
  });
});

describe('managers_test.go', () => {
  const vs = (paths: string[], apiVersion: string) => ({ set: NS(...paths.map((p) => [p])), apiVersion, applied: false });
  const mf = (entries: [string, ReturnType<typeof vs>][] = []): ManagedFields => new Map(entries);
  const nsb = ['numeric', 'string', 'bool'];

  test('TestManagersEquals (upstream name; it tests Difference)', () => {
    const table: [string, ManagedFields, ManagedFields, ManagedFields][] = [
      ['Empty sets', mf(), mf(), mf()],
      ['Empty RHS', mf([['default', vs(nsb, 'v1')]]), mf(), mf([['default', vs(nsb, 'v1')]])],
      ['Empty LHS', mf(), mf([['default', vs(nsb, 'v1')]]), mf([['default', vs(nsb, 'v1')]])],
      ['Different managers', mf([['one', vs(nsb, 'v1')]]), mf([['two', vs(nsb, 'v1')]]), mf([['one', vs(nsb, 'v1')], ['two', vs(nsb, 'v1')]])],
      ['Same manager, different version', mf([['one', vs(['numeric', 'string', 'integer'], 'v1')]]), mf([['one', vs(nsb, 'v2')]]), mf([['one', vs(nsb, 'v2')]])],
      ['Set difference', mf([['one', vs(['numeric', 'string'], 'v1')]]), mf([['one', vs(['string', 'bool'], 'v1')]]), mf([['one', vs(['numeric', 'bool'], 'v1')]])],
    ];
    for (const [name, lhs, rhs, want] of table) assert.ok(managedFieldsEqual(managedFieldsDifference(lhs, rhs), want), name);
  });

  test('TestManagersDifference (upstream name; it tests Equals)', () => {
    const table: [string, ManagedFields, ManagedFields, boolean][] = [
      ['Empty sets', mf(), mf(), true],
      ['Same everything', mf([['one', vs(nsb, 'v1')]]), mf([['one', vs(nsb, 'v1')]]), true],
      ['Empty RHS', mf([['default', vs(nsb, 'v1')]]), mf(), false],
      ['Empty LHS', mf(), mf([['default', vs(nsb, 'v1')]]), false],
      ['Different managers', mf([['one', vs(nsb, 'v1')]]), mf([['two', vs(nsb, 'v1')]]), false],
      ['Same manager, different version', mf([['one', vs(['numeric', 'string', 'integer'], 'v1')]]), mf([['one', vs(nsb, 'v2')]]), false],
      ['Set difference', mf([['one', vs(['numeric', 'string'], 'v1')]]), mf([['one', vs(['string', 'bool'], 'v1')]]), false],
    ];
    for (const [name, lhs, rhs, want] of table) assert.equal(managedFieldsEqual(lhs, rhs), want, name);
  });
});

describe('fromvalue_test.go', () => {
  test('TestFromValue', () => {
    const table: [string, FieldSet][] = [
      ['a: a', NS(['a'])],
      ['{"a": [{"a": null}]}', NS(['a', 0, 'a'])],
      ['{"a": [{"id": a}]}', NS(['a', keyByFields('id', 'a'), 'id'])],
      ['{"a": [{"name": a}]}', NS(['a', keyByFields('name', 'a'), 'name'])],
      ['{"a": [{"key": a}]}', NS(['a', keyByFields('key', 'a'), 'key'])],
      ['{"a": [{"name": "a", "key": "b"}]}', NS(['a', keyByFields('key', 'b', 'name', 'a'), 'key'], ['a', keyByFields('key', 'b', 'name', 'a'), 'name'])],
      ['{"a": [5]}', NS(['a', 0])],
      ['{"a": [5,4,3]}', NS(['a', 0], ['a', 1], ['a', 2])],
      ['{"a": [[5]]}', NS(['a', 0, 0])],
      ['{"a": 1, "b": true, "c": 1.5, "d": null}', NS(['a'], ['b'], ['c'], ['d'])],
    ];
    for (const [yaml, want] of table) assertSetEqual(setFromValue(parse(yaml) as Value), want);
  });
});

describe('path_test.go', () => {
  test('TestPathString', () => {
    assert.equal(pathString(P('foo', 1)), '.foo[1]');
    assert.equal(pathString(P('foo', 'bar', 1, 'baz')), '.foo.bar[1].baz');
    assert.equal(pathString(P('foo', keyByFields('a', 'b', 'c', 1, 'd', 1.5, 'e', true))), '.foo[a="b",c=1,d=1.5,e=true]');
    assert.equal(pathString(P('foo', { value: 'b' }, { value: 5 }, { value: false }, { value: 3.14159 })), '.foo[="b"][=5][=false][=3.14159]');
  });
});
