/** Ported from k8s.io/apimachinery pkg/util/managedfields/internal/skipnonapplied_test.go (v0.33.9). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../errors/index.js';
import { SkipNonAppliedManager } from './skip-non-applied.js';
import { obj, TestFieldManager } from './testing/test-field-manager.js';

/** NewSkipNonAppliedManager: probability 0, creates are not tracked. */
function newSkipping(): TestFieldManager {
  return new TestFieldManager('v1', 'Pod', { chain: (m) => new SkipNonAppliedManager(m, () => ({ apiVersion: 'v1', kind: 'Pod' }), 0) });
}

const nginxPod = '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "pod", "labels": {"app": "nginx"}}, "spec": {"containers": [{"name": "nginx", "image": "nginx:latest"}]}}';

describe('skipnonapplied_test.go', () => {
  it('TestNoUpdateBeforeFirstApply', () => {
    const f = newSkipping();
    f.apply(obj(nginxPod), 'fieldmanager_test_apply', false);
    assert.deepEqual(
      f.managedFields().map((e) => e.manager),
      ['fieldmanager_test_apply'],
    );
  });

  it('TestUpdateBeforeFirstApply', () => {
    const f = newSkipping();
    f.update(obj('{"kind": "Pod", "apiVersion": "v1", "metadata": {"labels": {"app": "my-nginx"}}}'), 'fieldmanager_test_update');
    assert.equal(f.managedFields().length, 0, 'managedFields are not tracked on update only');
    assert.throws(
      () => f.apply(obj(nginxPod), 'fieldmanager_test_apply', false),
      (e: unknown) => {
        assert.ok(e instanceof StatusError && e.code === 409);
        const causes = e.status.details?.causes ?? [];
        assert.equal(causes.length, 1);
        assert.equal(causes[0]?.field, '.metadata.labels.app');
        assert.match(causes[0]?.message ?? '', /before-first-apply/);
        return true;
      },
    );
    f.apply(obj(nginxPod), 'fieldmanager_test_apply', true);
    assert.deepEqual(
      f.managedFields().map((e) => e.manager),
      ['fieldmanager_test_apply', 'before-first-apply'],
    );
  });
});
