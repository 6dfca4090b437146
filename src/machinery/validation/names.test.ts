/**
 * IsDNS1035Label, IsWildcardDNS1123Subdomain and IsDomainPrefixedPath (apimachinery/pkg/util/validation/
 * validation_test.go cases at v0.33.9).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldErrorString } from '../errors/index.js';
import { isDNS1035Label, isDomainPrefixedPath, isWildcardDNS1123Subdomain } from './index.js';

test('IsDNS1035Label: starts with a letter', () => {
  for (const ok of ['a', 'ab', 'a-1', 'a--1--2--b']) assert.deepEqual(isDNS1035Label(ok), [], ok);
  assert.deepEqual(isDNS1035Label('1abc'), [
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
  ]);
  assert.equal(isDNS1035Label('a'.repeat(64))[0], 'must be no more than 63 characters');
});

test('IsWildcardDNS1123Subdomain: *. then a subdomain', () => {
  assert.deepEqual(isWildcardDNS1123Subdomain('*.example.com'), []);
  for (const bad of ['*.*.bar.com', '*.foo.*.com', '*bar.com', 'f*.bar.com', '*']) {
    assert.deepEqual(isWildcardDNS1123Subdomain(bad), [
      "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ], bad);
  }
});

test('IsDomainPrefixedPath', () => {
  const msgs = (v: string): string[] => isDomainPrefixedPath('c', v).map(fieldErrorString);
  for (const ok of ['a.b/c', 'example.com/path/to/thing', 'acme.io/foo_bar~baz']) assert.deepEqual(msgs(ok), [], ok);
  assert.deepEqual(msgs(''), ['c: Required value']);
  assert.deepEqual(msgs('acme.io'), ['c: Invalid value: "acme.io": must be a domain-prefixed path (such as "acme.io/foo")']);
  assert.deepEqual(msgs('/foo'), ['c: Invalid value: "/foo": must be a domain-prefixed path (such as "acme.io/foo")']);
  assert.deepEqual(msgs('acme.io/foo bar'), ["c: Invalid value: \"foo bar\": Invalid path (regex used for validation is '[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')"]);
  assert.equal(msgs('Acme.io/foo')[0]?.startsWith('c: Invalid value: "Acme.io": a lowercase RFC 1123 subdomain'), true);
});
