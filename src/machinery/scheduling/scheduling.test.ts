/**
 * The shared scheduling predicates: upstream's toleration_test.go and nodeaffinity_test.go cases.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { NodeSelectorRequirement, Taint, Toleration } from '../../api/index.js';
import { matchNodeSelectorRequirement, toleratesTaint } from './index.js';

describe('toleratesTaint', () => {
  const taint: Taint = { key: 'k', value: 'v', effect: 'NoSchedule' };
  const cases: Array<[string, Toleration, Taint, boolean]> = [
    ['Equal, same key/value/effect', { key: 'k', operator: 'Equal', value: 'v', effect: 'NoSchedule' }, taint, true],
    ['empty operator means Equal', { key: 'k', value: 'v', effect: 'NoSchedule' }, taint, true],
    ['Equal, other value', { key: 'k', operator: 'Equal', value: 'w', effect: 'NoSchedule' }, taint, false],
    ['Equal, empty value vs taint value', { key: 'k', operator: 'Equal', effect: 'NoSchedule' }, taint, false],
    ['Equal, empty value vs empty taint value', { key: 'k', operator: 'Equal' }, { key: 'k', effect: 'NoSchedule' }, true],
    ['Exists ignores value', { key: 'k', operator: 'Exists', effect: 'NoSchedule' }, taint, true],
    ['Exists, other key', { key: 'x', operator: 'Exists' }, taint, false],
    ['empty key + Exists tolerates everything', { operator: 'Exists' }, taint, true],
    ['empty key + Exists tolerates NoExecute too', { operator: 'Exists' }, { key: 'a', effect: 'NoExecute' }, true],
    ['empty key + Exists with effect: effect still must match', { operator: 'Exists', effect: 'NoExecute' }, taint, false],
    ['empty effect matches all effects', { key: 'k', operator: 'Equal', value: 'v' }, { ...taint, effect: 'NoExecute' }, true],
    ['other effect', { key: 'k', operator: 'Equal', value: 'v', effect: 'NoExecute' }, taint, false],
    ['PreferNoSchedule toleration does not match NoSchedule', { key: 'k', operator: 'Exists', effect: 'PreferNoSchedule' }, taint, false],
    ['unknown operator matches nothing', { key: 'k', operator: 'Gt', value: 'v' }, taint, false],
    ['other key, Equal', { key: 'x', operator: 'Equal', value: 'v' }, taint, false],
  ];
  for (const [name, tol, t, want] of cases) test(name, () => assert.equal(toleratesTaint(tol, t), want));
});

describe('matchNodeSelectorRequirement', () => {
  const labels = { zone: 'a', size: '10', gpu: '' };
  const cases: Array<[string, NodeSelectorRequirement, boolean]> = [
    ['In match', { key: 'zone', operator: 'In', values: ['a', 'b'] }, true],
    ['In no match', { key: 'zone', operator: 'In', values: ['b'] }, false],
    ['In missing key', { key: 'x', operator: 'In', values: ['a'] }, false],
    ['NotIn match', { key: 'zone', operator: 'NotIn', values: ['b'] }, true],
    ['NotIn no match', { key: 'zone', operator: 'NotIn', values: ['a'] }, false],
    ['NotIn missing key matches', { key: 'x', operator: 'NotIn', values: ['a'] }, true],
    ['Exists', { key: 'gpu', operator: 'Exists' }, true],
    ['Exists missing', { key: 'x', operator: 'Exists' }, false],
    ['DoesNotExist', { key: 'x', operator: 'DoesNotExist' }, true],
    ['DoesNotExist present', { key: 'gpu', operator: 'DoesNotExist' }, false],
    ['Gt true', { key: 'size', operator: 'Gt', values: ['9'] }, true],
    ['Gt equal is false', { key: 'size', operator: 'Gt', values: ['10'] }, false],
    ['Lt true', { key: 'size', operator: 'Lt', values: ['11'] }, true],
    ['Lt false', { key: 'size', operator: 'Lt', values: ['10'] }, false],
    ['Gt missing label', { key: 'x', operator: 'Gt', values: ['1'] }, false],
    ['Gt non-integer label', { key: 'zone', operator: 'Gt', values: ['1'] }, false],
    ['Gt non-integer value', { key: 'size', operator: 'Gt', values: ['x'] }, false],
    ['Gt two values is malformed', { key: 'size', operator: 'Gt', values: ['1', '2'] }, false],
    ['unknown operator', { key: 'zone', operator: 'Equals', values: ['a'] }, false],
  ];
  for (const [name, req, want] of cases) test(name, () => assert.equal(matchNodeSelectorRequirement(req, labels), want));
});
