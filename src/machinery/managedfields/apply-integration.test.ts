/**
 * Sequences from kubernetes test/integration/apiserver/apply/apply_test.go (v1.33) run through the
 * default FieldManager over the built-in schema, the way the API server calls it (create = update
 * from the zero object, patch = update from the stored object, apply = apply on the stored object):
 * TestApplyManagedFields, TestApplyRemovesEmptyManagedFields, TestApplyConvertsManagedFieldsVersion
 * (same-version part) and TestClearManagedFieldsWithMergePatch.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../api/index.js';
import { FakeClock } from '../../util/clock/index.js';
import { zeroObject } from '../merge/index.js';
import { FieldManager } from './field-manager.js';
import { builtinTypeConverter } from './type-converter.js';
import { sameVersionObjectConverter } from './version-converter.js';
import { obj } from './testing/test-field-manager.js';

function setup(apiVersion: string, kind: string, typeName: string): { fm: FieldManager; clock: FakeClock; creater: () => KubeObject } {
  const clock = new FakeClock(Date.UTC(2025, 0, 1, 0, 0, 0));
  const creater = (): KubeObject => ({ ...zeroObject(typeName), apiVersion, kind });
  const fm = new FieldManager({ typeConverter: builtinTypeConverter(), objectConverter: sameVersionObjectConverter, defaulter: () => undefined, creater, groupVersion: apiVersion, kind, hubVersion: apiVersion, subresource: '', resetFields: new Map(), clock });
  return { fm, clock, creater };
}

/** A JSON merge patch (RFC 7386), enough for these tests. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> = typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

describe('apply_test.go (integration) through the FieldManager', () => {
  it('TestApplyManagedFields', () => {
    const { fm, clock, creater } = setup('v1', 'ConfigMap', 'io.k8s.api.core.v1.ConfigMap');
    let live = fm.apply(creater(), obj('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "test-cm", "namespace": "default", "labels": {"test-label": "test"}}, "data": {"key": "value"}}'), 'apply_test', false);
    live = fm.update(live, mergePatch(live, { data: { 'new-key': 'value' } }) as KubeObject, 'updater');
    clock.step(1000);
    live = fm.update(live, mergePatch(live, { data: { key: 'new value' } }) as KubeObject, 'updater');
    assert.deepEqual(live.metadata?.managedFields, [
      { manager: 'apply_test', operation: 'Apply', apiVersion: 'v1', time: '2025-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:test-label': {} } } } },
      { manager: 'updater', operation: 'Update', apiVersion: 'v1', time: '2025-01-01T00:00:01Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:key': {}, 'f:new-key': {} } } },
    ]);
    assert.deepEqual(live.data, { key: 'new value', 'new-key': 'value' });
  });

  it('TestApplyRemovesEmptyManagedFields', () => {
    const { fm, creater } = setup('v1', 'ConfigMap', 'io.k8s.api.core.v1.ConfigMap');
    const config = obj('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "test-cm", "namespace": "default"}}');
    let live = fm.apply(creater(), config, 'apply_test', false);
    live = fm.apply(live, config, 'apply_test', false);
    assert.equal(live.metadata?.managedFields, undefined);
  });

  it('TestApplyConvertsManagedFieldsVersion: a create with undecodable managedFields records the creator; the apply records its own set', () => {
    const { fm, creater } = setup('apps/v1', 'Deployment', 'io.k8s.api.apps.v1.Deployment');
    const created = obj(`{"apiVersion": "apps/v1", "kind": "Deployment",
      "metadata": {"name": "deployment", "labels": {"app": "nginx"},
        "managedFields": [{"manager": "sidecar_controller", "operation": "Apply", "apiVersion": "extensions/v1beta1", "fieldsV1": {"f:metadata": {"f:labels": {"f:sidecar_version": {}}}}}]},
      "spec": {"selector": {"matchLabels": {"app": "nginx"}}, "template": {"metadata": {"labels": {"app": "nginx"}}, "spec": {"containers": [{"name": "nginx", "image": "nginx:latest"}]}}}}`);
    let live = fm.update(creater(), created, 'before');
    assert.deepEqual(
      live.metadata?.managedFields?.map((e) => e.manager),
      ['before'],
      'the entry without fieldsType is ignored',
    );
    live = fm.apply(live, obj('{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "deployment", "labels": {"sidecar_version": "release"}}, "spec": {"template": {"spec": {"containers": [{"name": "sidecar", "image": "sidecar:latest"}]}}}}'), 'sidecar_controller', false);
    const managed = live.metadata?.managedFields ?? [];
    assert.equal(managed.length, 2);
    const sidecar = managed.find((e) => e.manager === 'sidecar_controller' && e.apiVersion === 'apps/v1');
    assert.deepEqual(sidecar?.fieldsV1, { 'f:metadata': { 'f:labels': { 'f:sidecar_version': {} } }, 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"sidecar"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } } } });
  });

  it('TestClearManagedFieldsWithMergePatch', () => {
    const { fm, creater } = setup('v1', 'ConfigMap', 'io.k8s.api.core.v1.ConfigMap');
    let live = fm.apply(creater(), obj('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "test-cm", "namespace": "default", "labels": {"test-label": "test"}}, "data": {"key": "value"}}'), 'apply_test', false);
    assert.equal(live.metadata?.managedFields?.length, 1);
    live = fm.update(live, mergePatch(live, { metadata: { managedFields: [{}] } }) as KubeObject, 'kubectl-patch');
    assert.equal(live.metadata?.managedFields, undefined);
  });

  it('kubectl apply then kubectl apply --server-side: no conflict, shared ownership, the annotation follows the server-side config', () => {
    const { fm, creater } = setup('v1', 'ConfigMap', 'io.k8s.api.core.v1.ConfigMap');
    // kubectl's client-side apply creates the object with its annotation (manager kubectl-client-side-apply).
    const csa = obj('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default", "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{\\"apiVersion\\":\\"v1\\",\\"data\\":{\\"key\\":\\"v\\"},\\"kind\\":\\"ConfigMap\\",\\"metadata\\":{\\"annotations\\":{},\\"name\\":\\"c\\",\\"namespace\\":\\"default\\"}}\\n"}}, "data": {"key": "v"}}');
    let live = fm.update(creater(), csa, 'kubectl-client-side-apply');
    live = fm.apply(live, obj('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"}, "data": {"key": "v"}}'), 'kubectl', false);
    assert.deepEqual(
      live.metadata?.managedFields?.map((e) => [e.manager, e.operation, e.fieldsV1]),
      [
        ['kubectl', 'Apply', { 'f:data': { 'f:key': {} } }],
        ['kubectl-client-side-apply', 'Update', { 'f:data': { '.': {}, 'f:key': {} }, 'f:metadata': { 'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} } } }],
      ],
    );
    assert.equal(live.metadata?.annotations?.['kubectl.kubernetes.io/last-applied-configuration'], '{"apiVersion":"v1","data":{"key":"v"},"kind":"ConfigMap","metadata":{"name":"c","namespace":"default"}}\n');
    // A changed value kubectl set client-side is taken over without a conflict.
    live = fm.apply(live, obj('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"}, "data": {"key": "w"}}'), 'kubectl', false);
    assert.deepEqual(live.data, { key: 'w' });
    assert.deepEqual(
      live.metadata?.managedFields?.map((e) => [e.manager, e.fieldsV1]),
      [
        ['kubectl', { 'f:data': { 'f:key': {} } }],
        // The data map itself stays with the creator; only its key moved.
        ['kubectl-client-side-apply', { 'f:data': {}, 'f:metadata': { 'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} } } }],
      ],
    );
  });
});
