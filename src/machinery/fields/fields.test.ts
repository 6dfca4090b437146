import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { escapeValue, parseFieldSelector, SelectorParseError, unescapeValue } from './index.js';

const getter =
  (o: Record<string, string>) =>
  (f: string): string | undefined =>
    o[f];

describe('parseFieldSelector', () => {
  test('operators, AND, sorting', () => {
    const sel = parseFieldSelector('status.phase!=Failed,spec.nodeName==n1,metadata.name=web');
    assert.deepEqual(sel.requirements, [
      { field: 'metadata.name', operator: '=', value: 'web' },
      { field: 'spec.nodeName', operator: '=', value: 'n1' },
      { field: 'status.phase', operator: '!=', value: 'Failed' },
    ]);
    assert.equal(sel.toString(), 'metadata.name=web,spec.nodeName=n1,status.phase!=Failed');
    assert.equal(sel.matches(getter({ 'metadata.name': 'web', 'spec.nodeName': 'n1', 'status.phase': 'Running' })), true);
    assert.equal(sel.matches(getter({ 'metadata.name': 'web', 'spec.nodeName': 'n1', 'status.phase': 'Failed' })), false);
    assert.equal(sel.matches(getter({ 'metadata.name': 'web' })), false);
  });

  test('empty selects everything; empty terms are skipped', () => {
    assert.equal(parseFieldSelector('').empty(), true);
    assert.equal(parseFieldSelector('').matches(() => undefined), true);
    assert.equal(parseFieldSelector(',a=b,').requirements.length, 1);
  });

  test('absent fields compare as the empty string', () => {
    assert.equal(parseFieldSelector('spec.nodeName=').matches(() => undefined), true);
    assert.equal(parseFieldSelector('spec.nodeName!=').matches(() => undefined), false);
    assert.equal(parseFieldSelector('spec.nodeName!=n1').matches(() => undefined), true);
  });

  test('the first operator splits the term; the rest is the value', () => {
    assert.deepEqual(parseFieldSelector('a==b').requirements, [{ field: 'a', operator: '=', value: 'b' }]);
    assert.deepEqual(parseFieldSelector('a!=b').requirements, [{ field: 'a', operator: '!=', value: 'b' }]);
    assert.throws(() => parseFieldSelector('a=b=c'), { message: 'invalid field selector: unescaped character in value: 61' });
    assert.deepEqual(parseFieldSelector('a=b\\=c').requirements, [{ field: 'a', operator: '=', value: 'b=c' }]);
  });

  test('backslash escapes in values', () => {
    const sel = parseFieldSelector('metadata.name=a\\,b,x=c\\\\d');
    assert.deepEqual(sel.requirements, [
      { field: 'metadata.name', operator: '=', value: 'a,b' },
      { field: 'x', operator: '=', value: 'c\\d' },
    ]);
    assert.equal(sel.toString(), 'metadata.name=a\\,b,x=c\\\\d');
  });

  test('errors', () => {
    assert.throws(() => parseFieldSelector('a=b,foo'), (e: unknown) => {
      assert.ok(e instanceof SelectorParseError);
      assert.equal(e.message, "invalid selector: 'a=b,foo'; can't understand 'foo'");
      return true;
    });
    assert.throws(() => parseFieldSelector('a=b\\x'), { message: 'invalid field selector: invalid escape sequence: \\x' });
    assert.throws(() => parseFieldSelector('a=b\\'), { message: 'invalid field selector: unterminated escape sequence' });
  });

  test('exactMatch finds = terms only', () => {
    const sel = parseFieldSelector('spec.nodeName=n1,metadata.name!=x');
    assert.equal(sel.exactMatch('spec.nodeName'), 'n1');
    assert.equal(sel.exactMatch('metadata.name'), undefined);
    assert.equal(sel.exactMatch('other'), undefined);
  });

  test('kubectl encodings decode to the grammar', () => {
    const q = new URLSearchParams('fieldSelector=spec.nodeName%3Dnode-1%2Cstatus.phase%21%3DSucceeded');
    const sel = parseFieldSelector(q.get('fieldSelector') ?? '');
    assert.equal(sel.toString(), 'spec.nodeName=node-1,status.phase!=Succeeded');
  });
});

test('escapeValue and unescapeValue round-trip', () => {
  for (const v of ['', 'plain', 'a,b', 'x=y', 'back\\slash', '\\,=']) assert.equal(unescapeValue(escapeValue(v)), v);
});
