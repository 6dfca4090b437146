/**
 * The name a list or watch is about (k8s.io/apiserver pkg/endpoints/request/requestinfo.go: the field
 * selector's `RequiresExactMatch("metadata.name")`, kept when it is a valid path segment).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { requestAttributes, type RequestAttributes } from './attributes.js';

const list: RequestAttributes = { verb: 'list', resourceRequest: true, path: '', namespace: 'ns', apiGroup: '', apiVersion: 'v1', resource: 'pods', subresource: '', name: '' };
const nameOf = (fieldSelector: string, verb = 'list'): string => requestAttributes(undefined, { ...list, verb }, { fieldSelector }).name;

describe('requestAttributes: the name of a list or watch', () => {
  test('an exact metadata.name term names it, among other terms too', () => {
    assert.equal(nameOf('metadata.name=web'), 'web');
    assert.equal(nameOf('metadata.name==web', 'watch'), 'web');
    assert.equal(nameOf('status.phase=Running,metadata.name=web'), 'web');
  });
  test('no name for other operators, fields, invalid path segments, selectors that do not parse, or other verbs', () => {
    for (const selector of ['metadata.name!=web', 'spec.nodeName=n1', 'metadata.name=a/b', 'metadata.name=..', 'metadata.name=a%2F', 'metadata.name']) assert.equal(nameOf(selector), '', selector);
    assert.equal(nameOf('metadata.name=web', 'get'), '');
  });
  test('the URL name wins', () => {
    assert.equal(requestAttributes(undefined, { ...list, verb: 'get', name: 'x' }, { fieldSelector: 'metadata.name=web' }).name, 'x');
  });
});
