/** Ported from k8s.io/apimachinery pkg/util/managedfields/internal/conflict_test.go (v0.33.9). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makePath } from '../fieldpath/index.js';
import { Conflicts } from '../merge/index.js';
import { newConflictError } from './conflict.js';

const foo = '{"manager":"foo","operation":"Update","apiVersion":"v1","time":"2001-02-03T04:05:06Z"}';

describe('conflict_test.go TestNewConflictError', () => {
  const cases: [Conflicts, string, { message: string; field: string }[]][] = [
    [
      new Conflicts([{ manager: foo, path: makePath('spec', 'replicas') }]),
      'Apply failed with 1 conflict: conflict with "foo" using v1 at 2001-02-03T04:05:06Z: .spec.replicas',
      [{ message: 'conflict with "foo" using v1 at 2001-02-03T04:05:06Z', field: '.spec.replicas' }],
    ],
    [
      new Conflicts([
        { manager: foo, path: makePath('spec', 'replicas') },
        { manager: '{"manager":"bar","operation":"Apply"}', path: makePath('metadata', 'labels', 'app') },
      ]),
      'Apply failed with 2 conflicts: conflicts with "bar":\n- .metadata.labels.app\nconflicts with "foo" using v1 at 2001-02-03T04:05:06Z:\n- .spec.replicas',
      [
        { message: 'conflict with "foo" using v1 at 2001-02-03T04:05:06Z', field: '.spec.replicas' },
        { message: 'conflict with "bar"', field: '.metadata.labels.app' },
      ],
    ],
    [
      new Conflicts([{ manager: '{"manager":"foo","operation":"Update","subresource":"scale","apiVersion":"v1","time":"2001-02-03T04:05:06Z"}', path: makePath('spec', 'replicas') }]),
      'Apply failed with 1 conflict: conflict with "foo" with subresource "scale" using v1 at 2001-02-03T04:05:06Z: .spec.replicas',
      [{ message: 'conflict with "foo" with subresource "scale" using v1 at 2001-02-03T04:05:06Z', field: '.spec.replicas' }],
    ],
  ];
  for (const [i, [conflicts, message, causes]] of cases.entries()) {
    it(`case ${i}`, () => {
      const e = newConflictError(conflicts);
      assert.equal(e.status.code, 409);
      assert.equal(e.status.reason, 'Conflict');
      assert.equal(e.status.status, 'Failure');
      assert.equal(e.status.message, message);
      assert.deepEqual(e.status.details, { causes: causes.map((c) => ({ reason: 'FieldManagerConflict', ...c })) });
    });
  }
});
