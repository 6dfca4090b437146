/**
 * `kubectl scale` through the scale subresource, wired as upstream's deployment registry does it
 * (kubernetes pkg/registry/apps/deployment/storage/storage.go scaleUpdatedObjectInfo, v1.33): the
 * parent's entries become the Scale's (ScaleHandler.toSubresource), the scale endpoint's field
 * manager records the update, and the Scale's entries go back to the parent (toParent).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../api/index.js';
import { FakeClock } from '../../util/clock/index.js';
import { StatusError } from '../errors/index.js';
import { makePath } from '../fieldpath/index.js';
import { zeroObject } from '../merge/index.js';
import { FieldManager } from './field-manager.js';
import { ScaleHandler } from './scale-handler.js';
import { builtinTypeConverter } from './type-converter.js';
import { sameVersionObjectConverter } from './version-converter.js';
import { obj } from './testing/test-field-manager.js';

function fieldManager(apiVersion: string, kind: string, typeName: string, subresource: string, clock: FakeClock): { fm: FieldManager; creater: () => KubeObject } {
  const creater = (): KubeObject => ({ ...zeroObject(typeName), apiVersion, kind });
  return { fm: new FieldManager({ typeConverter: builtinTypeConverter(), objectConverter: sameVersionObjectConverter, defaulter: () => undefined, creater, groupVersion: apiVersion, kind, hubVersion: apiVersion, subresource, resetFields: new Map(), clock }), creater };
}

describe('scale subresource flow', () => {
  it('kubectl scale records an Update entry with subresource scale (and no time, as upstream), and a later apply conflicts on it', () => {
    const clock = new FakeClock();
    const main = fieldManager('apps/v1', 'Deployment', 'io.k8s.api.apps.v1.Deployment', '', clock);
    const scale = fieldManager('autoscaling/v1', 'Scale', 'io.k8s.api.autoscaling.v1.Scale', 'scale', clock);
    const config = obj('{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "namespace": "default"}, "spec": {"replicas": 2, "selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}}');
    let deployment = main.fm.apply(main.creater(), config, 'kubectl', false);
    clock.step(60_000);

    const handler = new ScaleHandler(deployment.metadata?.managedFields, 'apps/v1', new Map([['apps/v1', makePath('spec', 'replicas')]]));
    const oldScale: KubeObject = { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'd', namespace: 'default', managedFields: handler.toSubresource() as never }, spec: { replicas: 2 }, status: { replicas: 2, selector: 'a=b' } };
    const newScale = structuredClone(oldScale);
    (newScale.spec as { replicas: number }).replicas = 5;
    const scaled = scale.fm.update(oldScale, newScale, 'kubectl');
    deployment = structuredClone(deployment);
    (deployment.spec as { replicas: number }).replicas = 5;
    deployment.metadata = { ...deployment.metadata, managedFields: handler.toParent(scaled.metadata?.managedFields) as never };

    assert.deepEqual(deployment.metadata.managedFields, [
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        time: '2025-01-01T00:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:spec': {
            'f:selector': {},
            'f:template': { 'f:metadata': { 'f:labels': { 'f:a': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } },
          },
        },
      },
      { manager: 'kubectl', operation: 'Update', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } }, subresource: 'scale' },
    ]);

    const reapply = structuredClone(config);
    (reapply.spec as { replicas: number }).replicas = 3;
    assert.throws(
      () => main.fm.apply(deployment, reapply, 'kubectl', false),
      (e: unknown) => {
        assert.ok(e instanceof StatusError && e.code === 409);
        assert.equal(e.message, 'Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using apps/v1: .spec.replicas');
        return true;
      },
    );
    const forced = main.fm.apply(deployment, reapply, 'kubectl', true);
    assert.deepEqual(
      forced.metadata?.managedFields?.map((e) => [e.manager, e.operation, e.subresource]),
      [['kubectl', 'Apply', undefined]],
    );
  });
});
