/**
 * managerOrUserAgent (k8s.io/apiserver pkg/endpoints/handlers/rest.go) and ValidateFieldManager
 * (k8s.io/apimachinery pkg/apis/meta/v1/validation) (v0.33): cases written from their code.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorString } from '../errors/index.js';
import { managerOrUserAgent, validateFieldManager } from './manager-name.js';

describe('managerOrUserAgent', () => {
  for (const [ua, expected] of [
    ['', ''],
    ['kubectl/v1.33.0 (linux/amd64) kubernetes/abc', 'kubectl'],
    ['kube-controller-manager/v1.33.0 (linux/amd64) kubernetes/abc/system:serviceaccount:kube-system:deployment-controller', 'kube-controller-manager'],
    ['no-slash', 'no-slash'],
    ['tab\tand\nnewline/x', 'tabandnewline'],
    ['é-unicode/1', 'é-unicode'],
    ['a'.repeat(200), 'a'.repeat(128)],
    // A two-byte character that would cross the 128-byte limit is left out.
    ['a'.repeat(127) + 'é', 'a'.repeat(127)],
  ] as const) {
    it(`User-Agent ${JSON.stringify(ua.slice(0, 40))}`, () => {
      assert.equal(managerOrUserAgent(undefined, ua), expected);
      assert.equal(managerOrUserAgent('', ua), expected);
    });
  }

  it('the fieldManager parameter wins', () => {
    assert.equal(managerOrUserAgent('helm', 'kubectl/v1'), 'helm');
  });
});

describe('validateFieldManager', () => {
  it('accepts printable names and empty', () => {
    assert.deepEqual(validateFieldManager('kubectl-client-side-apply'), []);
    assert.deepEqual(validateFieldManager(''), []);
    assert.deepEqual(validateFieldManager('a'.repeat(128)), []);
  });

  it('rejects long names and unprintable characters as upstream', () => {
    assert.deepEqual(
      validateFieldManager('a'.repeat(129)).map((e) => fieldErrorString(e)),
      ['fieldManager: Too long: may not be more than 128 bytes'],
    );
    assert.deepEqual(
      validateFieldManager('ab\u0007c\td').map((e) => e.detail),
      ['invalid character U+0007 (at position 2)', 'invalid character U+0009 (at position 4)'],
    );
  });
});
