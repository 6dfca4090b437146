/**
 * Duplicate keys as goyaml.v2's strict decoding reports them. The cases of the first block are
 * upstream's: apiserver pkg/endpoints/handlers/rest_test.go `TestParseYAMLWarnings` and goyaml.v2
 * decode_test.go `unmarshalStrictTests` (its map cases; the struct ones do not apply to a map).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonMayRepeatKeys, recordSource, strictDuplicateKeyErrors, yamlDuplicateKeys } from './yaml-keys.js';

const SPEC = `---
apiVersion: foo
kind: bar
metadata:
  name: no-errors
spec:
  field1: val1
  field2: val2
`;

describe('yamlDuplicateKeys: upstream cases', () => {
  test('TestParseYAMLWarnings: no errors', () => {
    assert.deepEqual(yamlDuplicateKeys(`${SPEC}  nested:\n  - name: nestedName\n    nestedField1: val1`), []);
  });
  test('TestParseYAMLWarnings: one error', () => {
    assert.deepEqual(yamlDuplicateKeys(`${SPEC}  field2: val3\n  nested:\n  - name: nestedName\n    nestedField1: val1`), ['line 9: key "field2" already set in map']);
  });
  test('TestParseYAMLWarnings: many errors', () => {
    const text = `${SPEC}  field2: val3\n  nested:\n  - name: nestedName\n    nestedField1: val1\n    nestedField2: val2\n    nestedField2: val3`;
    assert.deepEqual(yamlDuplicateKeys(text), ['line 9: key "field2" already set in map', 'line 14: key "nestedField2" already set in map']);
  });
  test('unmarshalStrictTests: a string key', () => {
    assert.deepEqual(yamlDuplicateKeys('c: 1\na: 1\nb: 2\nc: 3\n'), ['line 4: key "c" already set in map']);
  });
  test('unmarshalStrictTests: an integer key is not its string, and null is a key', () => {
    assert.deepEqual(yamlDuplicateKeys('a: 1\n9: 2\nnull: 3\n9: 4'), ['line 4: key 9 already set in map']);
    assert.deepEqual(yamlDuplicateKeys('a: 1\n9: 2\n"9": 3'), []);
  });
});

describe('yamlDuplicateKeys: lines and order', () => {
  test('the line is the repeated key\'s value\'s: a nested mapping starts at its first key', () => {
    assert.deepEqual(yamlDuplicateKeys('a: 1\nspec:\n  x: 1\nspec:\n\n  y: 2\n'), ['line 6: key "spec" already set in map']);
  });
  test('a value\'s own duplicates come before its key\'s', () => {
    assert.deepEqual(yamlDuplicateKeys('spec: 1\nspec:\n  r: 1\n  r: 2\n'), ['line 4: key "r" already set in map', 'line 3: key "spec" already set in map']);
  });
  test('JSON on one line, as kubectl sends it: every duplicate is on line 1', () => {
    assert.deepEqual(yamlDuplicateKeys('{"spec":{"replicas":1,"paused":true,"replicas":2},"kind":"Deployment","kind":"Deployment"}'), [
      'line 1: key "replicas" already set in map',
      'line 1: key "kind" already set in map',
    ]);
  });
  test('a key repeated three times is reported twice; keys in list items are per item', () => {
    assert.deepEqual(yamlDuplicateKeys('a: 1\na: 2\na: 3\nl:\n- n: 1\n- n: 2\n'), ['line 2: key "a" already set in map', 'line 3: key "a" already set in map']);
  });
  test('keys are quoted as Go quotes them; merge keys are not checked', () => {
    assert.deepEqual(yamlDuplicateKeys('"a\\tb": 1\n"a\\tb": 2\n'), ['line 2: key "a\\tb" already set in map']);
    assert.deepEqual(yamlDuplicateKeys('base: &b {x: 1}\nm:\n  <<: *b\n  <<: *b\n'), []);
  });
  test('text that is not YAML reports nothing (the lenient decoding rejects it)', () => {
    assert.deepEqual(yamlDuplicateKeys('a: [1\n'), []);
  });
});

describe('jsonMayRepeatKeys', () => {
  test('counts member names in the text against the keys JSON.parse kept', () => {
    const ok = '{"a":"x:\\"y\\":","b":{"c":[{"d":1},{"d":"e:"}]},"__proto__":{}}';
    assert.equal(jsonMayRepeatKeys(ok, JSON.parse(ok)), false);
    const dup = '{"a":1,"b":{"c":1, "c" : 2}}';
    assert.equal(jsonMayRepeatKeys(dup, JSON.parse(dup)), true);
  });
});

describe('strictDuplicateKeyErrors', () => {
  test('checks the recorded text of a decoded configuration', () => {
    const json = '{"a":1,"a":2}';
    const v = JSON.parse(json) as object;
    assert.deepEqual(strictDuplicateKeyErrors(v), [], 'nothing recorded: an in-process object');
    recordSource(v, json, true);
    assert.deepEqual(strictDuplicateKeyErrors(v), ['line 1: key "a" already set in map']);
    const clean = JSON.parse('{"a":1}') as object;
    recordSource(clean, '{"a":1}', true);
    assert.deepEqual(strictDuplicateKeyErrors(clean), []);
  });
});
