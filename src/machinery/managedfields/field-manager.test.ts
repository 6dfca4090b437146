/**
 * Ported from k8s.io/apimachinery pkg/util/managedfields/fieldmanager_test.go (v0.33.9), over our
 * built-in schema instead of upstream's swagger.json.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../api/index.js';
import type { StatusError } from '../errors/index.js';
import { isBadRequest, isConflict } from '../errors/index.js';
import { LAST_APPLIED_CONFIG_ANNOTATION, setLastApplied } from './last-applied.js';
import { obj, TestFieldManager } from './testing/test-field-manager.js';

const nginxDeployment = `{
  "apiVersion": "apps/v1", "kind": "Deployment",
  "metadata": {"name": "deployment", "labels": {"app": "nginx"}},
  "spec": {"selector": {"matchLabels": {"app": "nginx"}},
    "template": {"metadata": {"labels": {"app": "nginx"}}, "spec": {"containers": [{"name": "nginx", "image": "nginx:latest"}]}}}}`;

const replicas101 = `{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "deployment"}, "spec": {"replicas": 101}}`;

function lastApplied(o: KubeObject): string {
  const v = o.metadata?.annotations?.[LAST_APPLIED_CONFIG_ANNOTATION];
  assert.ok(v !== undefined, 'expected last applied annotation');
  return v;
}

/** The YAML as the JSON kubectl puts in the annotation (yamlToJSON of the test). */
function setLastAppliedFromEncoded(o: KubeObject, yaml: string): void {
  setLastApplied(o, JSON.stringify(obj(yaml)));
}

describe('FieldManager (fieldmanager_test.go)', () => {
  it('TestUpdateApplyConflict', () => {
    const f = new TestFieldManager('apps/v1', 'Deployment');
    const patch = obj(nginxDeployment);
    (patch.spec as Record<string, unknown>).replicas = 3;
    (patch.metadata as Record<string, unknown>).labels = { app: 'nginx' };
    f.update(patch, 'fieldmanager_test');
    assert.throws(
      () => f.apply(obj(replicas101), 'fieldmanager_conflict', false),
      (e: unknown) => {
        assert.ok(isConflict(e));
        const s = (e as StatusError).status;
        assert.equal(s.message, 'Apply failed with 1 conflict: conflict with "fieldmanager_test" using apps/v1: .spec.replicas');
        assert.deepEqual(s.details, { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "fieldmanager_test" using apps/v1', field: '.spec.replicas' }] });
        return true;
      },
    );
  });

  it('TestApplyStripsFields', () => {
    const f = new TestFieldManager('apps/v1', 'Deployment');
    const newObj: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'b', namespace: 'b', uid: 'b', resourceVersion: 'b', creationTimestamp: '2025-01-01T00:00:00Z', managedFields: [{ manager: 'update', operation: 'Apply', apiVersion: 'apps/v1' }] },
    };
    f.update(newObj, 'fieldmanager_test');
    assert.equal(f.managedFields().length, 0);
  });

  it('TestVersionCheck', () => {
    const f = new TestFieldManager('apps/v1', 'Deployment');
    f.apply(obj('{"apiVersion": "apps/v1", "kind": "Deployment"}'), 'fieldmanager_test', false);
    assert.throws(
      () => f.apply(obj('{"apiVersion": "apps/v1beta1", "kind": "Deployment"}'), 'fieldmanager_test', false),
      (e: unknown) => isBadRequest(e) && (e as StatusError).message === 'invalid object type: apps/v1beta1, Kind=Deployment',
    );
  });

  it('TestVersionCheckDoesNotPanic', () => {
    const f = new TestFieldManager('apps/v1', 'Deployment');
    f.apply(obj('{"apiVersion": "apps/v1", "kind": "Deployment"}'), 'fieldmanager_test', false);
    assert.throws(() => f.apply(obj('{}'), 'fieldmanager_test', false), (e: unknown) => isBadRequest(e) && (e as StatusError).message === 'invalid object type: /, Kind=');
  });

  it('TestApplyDoesNotStripLabels', () => {
    const f = new TestFieldManager('v1', 'Pod');
    f.apply(obj('{"apiVersion": "v1", "kind": "Pod", "metadata": {"labels": {"a": "b"}}}'), 'fieldmanager_test', false);
    assert.equal(f.managedFields().length, 1);
    assert.deepEqual(f.managedFields()[0]?.fieldsV1, { 'f:metadata': { 'f:labels': { 'f:a': {} } } });
  });

  it('TestApplyFailsWithManagedFields', () => {
    const f = new TestFieldManager('v1', 'Pod');
    assert.throws(
      () => f.apply(obj('{"apiVersion": "v1", "kind": "Pod", "metadata": {"managedFields": [{"manager": "test"}]}}'), 'fieldmanager_test', false),
      (e: unknown) => isBadRequest(e) && (e as StatusError).message === 'metadata.managedFields must be nil',
    );
  });

  it('TestApplySuccessWithNoManagedFields', () => {
    const f = new TestFieldManager('v1', 'Pod');
    f.apply(obj('{"apiVersion": "v1", "kind": "Pod", "metadata": {"labels": {"a": "b"}}}'), 'fieldmanager_test', false);
  });

  it('TestNoOpChanges', () => {
    const f = new TestFieldManager('v1', 'Pod');
    const o = obj('{"apiVersion": "v1", "kind": "Pod", "metadata": {"labels": {"a": "b"}, "creationTimestamp": null}}');
    f.apply(structuredClone(o), 'fieldmanager_test_apply', false);
    let before = f.live();
    f.clock.step(1000);
    f.apply(structuredClone(o), 'fieldmanager_test_apply_other', false);
    assert.notDeepEqual(f.live(), before, 'applying a no-op apply with a new manager changes the object');
    before = f.live();
    f.clock.step(1000);
    f.update(structuredClone(o), 'fieldmanager_test_update');
    assert.deepEqual(f.live(), before, 'a no-op update changes nothing');
    before = f.live();
    f.clock.step(1000);
    f.apply(structuredClone(o), 'fieldmanager_test_apply', true);
    assert.deepEqual(f.live(), before, 'a no-op apply changes nothing');
  });

  for (const [name, reset] of [
    ['TestResetManagedFieldsEmptyList', []],
    ['TestResetManagedFieldsEmptyItem', [{}]],
  ] as const) {
    it(name, () => {
      const f = new TestFieldManager('v1', 'Pod');
      f.apply(obj('{"apiVersion": "v1", "kind": "Pod", "metadata": {"labels": {"a": "b"}}}'), 'fieldmanager_test_apply', false);
      assert.equal(f.managedFields().length, 1);
      f.update({ apiVersion: 'v1', kind: 'Pod', metadata: { managedFields: reset as never, labels: { a: 'b' } } }, 'update_manager');
      assert.equal(f.managedFields().length, 0);
    });
  }

  it('TestServerSideApplyWithInvalidLastApplied', () => {
    const f = new TestFieldManager('apps/v1', 'Deployment');
    const newObj = obj('apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: my-deployment\n  labels:\n    app: my-app-v1\nspec:\n  replicas: 1\n');
    setLastApplied(newObj, 'invalid-object');
    f.update(newObj, 'kubectl-client-side-apply-test');
    assert.equal(lastApplied(f.live()), 'invalid-object');
    const applied = obj('apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: my-deployment\n  labels:\n    app: my-app-v2\nspec:\n  replicas: 100\n');
    assert.throws(() => f.apply(applied, 'kubectl', false), isConflict);
    assert.equal(lastApplied(f.live()), 'invalid-object');
    f.apply(applied, 'kubectl', true);
    assert.match(lastApplied(f.live()), /my-app-v2/);
  });

  it('TestInteropForClientSideApplyAndServerSideApply', () => {
    const f = new TestFieldManager('apps/v1', 'Deployment');
    const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: my-deployment
  labels:
    app: my-app
spec:
  replicas: 100
  selector:
    matchLabels:
      app: my-app
  template:
    metadata:
      labels:
        app: my-app
    spec:
      containers:
      - name: my-c
        image: my-image-v1
`;
    const newObj = obj(deployment);
    setLastAppliedFromEncoded(newObj, deployment);
    f.update(newObj, 'kubectl-client-side-apply-test');
    assert.match(lastApplied(f.live()), /my-image-v1/);
    const applied = obj(deployment.replaceAll('my-app', 'my-app-v2').replace('my-image-v1', 'my-image-v2').replace('replicas: 100', 'replicas: 8'));
    f.apply(applied, 'kubectl', false);
    const value = lastApplied(f.live());
    assert.match(value, /my-image-v2/);
    // The annotation is the applied configuration as encoding/json writes it (sorted keys), with a newline.
    assert.ok(value.startsWith('{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"labels":{"app":"my-app-v2"},"name":"my-deployment"},"spec":{"replicas":8,'), value);
    assert.ok(value.endsWith('}\n'));
  });

  it('TestNoTrackManagedFieldsForClientSideApply', () => {
    const f = new TestFieldManager('apps/v1', 'Deployment');
    const deployment = 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: my-deployment\n  labels:\n    app: my-app\nspec:\n  replicas: 100\n';
    f.update(obj(deployment), 'test_kubectl_create');
    assert.notEqual(f.managedFields().length, 0);

    let newObj = obj(deployment);
    newObj.metadata = { ...newObj.metadata, managedFields: [], uid: 'nonempty' };
    f.update(newObj, 'test_kubectl_replace');
    assert.equal(f.managedFields().length, 0, 'stopped tracking');

    newObj = obj(deployment);
    setLastAppliedFromEncoded(newObj, deployment);
    f.update(newObj, 'test_k_client_side_apply');
    assert.equal(f.managedFields().length, 0, 'still not tracking');
    assert.match(lastApplied(f.live()), /my-app/);

    f.apply(obj(deployment), 'test_server_side_apply_without_upgrade', false);
    assert.ok(f.managedFields().length >= 2);
    assert.equal(f.managedFields()[0]?.manager, 'test_server_side_apply_without_upgrade');
    assert.equal(f.managedFields()[1]?.manager, 'before-first-apply');

    f.apply(obj('apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: my-deployment\n  labels:\n    app: my-app-v2\nspec:\n  replicas: 8\n'), 'kubectl', false);
    assert.notEqual(f.managedFields().length, 0);
    assert.match(lastApplied(f.live()), /my-app-v2/);
  });

  it('TestUpdateViaSubresources', () => {
    const f = new TestFieldManager('v1', 'Pod', { subresource: 'scale' });
    const o = obj('{"apiVersion": "v1", "kind": "Pod", "metadata": {"labels": {"a": "b"}}}');
    o.metadata = { ...o.metadata, managedFields: [{ manager: 'test', operation: 'Apply', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:another_field': {} } } } }] };
    f.update(o, 'fieldmanager_test_subresource');
    assert.equal(f.managedFields().length, 1);
    assert.equal(f.managedFields()[0]?.manager, 'fieldmanager_test_subresource');
    assert.equal(f.managedFields()[0]?.subresource, 'scale');
    const reset = structuredClone(o);
    reset.metadata = { ...reset.metadata, managedFields: [] };
    f.update(reset, 'fieldmanager_test_subresource');
    assert.equal(f.managedFields().length, 1, 'managed fields cannot be reset through a subresource');
  });

  it('TestApplyDoesNotChangeManagedFields', () => {
    const f = new TestFieldManager('apps/v1', 'Deployment');
    f.apply(obj(nginxDeployment), 'fieldmanager_z', false);
    f.apply(obj(replicas101), 'fieldmanager_b', false);
    const original = structuredClone(f.managedFields());
    f.clock.step(2000);
    f.apply(obj(nginxDeployment), 'fieldmanager_z', false);
    assert.deepEqual(f.managedFields(), original);
  });

  it('TestUpdateDoesNotChangeManagedFields', () => {
    const f = new TestFieldManager('apps/v1', 'Deployment');
    f.update(obj(nginxDeployment), 'fieldmanager_z');
    const original = structuredClone(f.managedFields());
    f.clock.step(2000);
    f.update(obj(nginxDeployment), 'fieldmanager_z');
    assert.deepEqual(f.managedFields(), original);
  });

  it('TestLiveObjectManagedFieldsNotRemoved', () => {
    const f = new TestFieldManager('apps/v1', 'Deployment');
    f.apply(obj(nginxDeployment), 'fieldmanager_z', false);
    const originalLive = f.live();
    assert.notEqual(originalLive.metadata?.managedFields?.length ?? 0, 0);
    f.apply(obj(replicas101), 'fieldmanager_z', false);
    assert.notEqual(originalLive.metadata?.managedFields?.length ?? 0, 0);
  });
});
