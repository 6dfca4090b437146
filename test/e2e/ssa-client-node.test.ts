/**
 * Server-side apply through @kubernetes/client-node, as a JavaScript operator uses it: a PATCH with
 * `PatchStrategy.ServerSideApply` (Content-Type `application/apply-patch+yaml`), `fieldManager` and
 * `force`. Expected values follow upstream (k8s.io/apimachinery pkg/util/managedfields and
 * pkg/api/errors `NewApplyConflict`; the flows of kubernetes/kubernetes
 * test/integration/apiserver/apply/apply_test.go TestApplyUpdateApplyConflictForced):
 * - an Apply entry owns exactly the applied fields, without apiVersion, kind, name and namespace;
 * - another manager applying a different value is answered 409 with a Status whose message lists
 *   each conflict and whose `details.causes` has one `FieldManagerConflict` per field, and client-node
 *   surfaces it as an ApiException with that body;
 * - `force` moves ownership; a manager left owning nothing disappears from managedFields.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { removeDataDir, startKubeplane, type Kubeplane } from './harness.js';

const applyHeaders = (): ReturnType<typeof k8s.setHeaderOptions> => k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.ServerSideApply);

/** The entries as plain data: time checked to be a Date (client-node's model) and dropped. */
function entries(managed: k8s.V1ManagedFieldsEntry[] | undefined): Omit<k8s.V1ManagedFieldsEntry, 'time'>[] {
  return (managed ?? []).map(({ time, ...rest }) => {
    assert.ok(time instanceof Date, 'time is set');
    return rest;
  });
}

describe('server-side apply with @kubernetes/client-node', { timeout: 180_000 }, () => {
  let kp: Kubeplane;
  let core: k8s.CoreV1Api;
  let apps: k8s.AppsV1Api;
  before(async () => {
    kp = await startKubeplane({ nodes: 1 });
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(kp.kubeconfig);
    core = kc.makeApiClient(k8s.CoreV1Api);
    apps = kc.makeApiClient(k8s.AppsV1Api);
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
  });

  const configMap = (color: string): k8s.V1ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'default' }, data: { color } });

  test('a ConfigMap: create-on-apply, a conflict as ApiException 409 with upstream body, force moves ownership', async () => {
    const created = await core.patchNamespacedConfigMap({ name: 'settings', namespace: 'default', body: configMap('blue'), fieldManager: 'web-ui' }, applyHeaders());
    assert.deepEqual(created.data, { color: 'blue' });
    assert.deepEqual(entries(created.metadata?.managedFields), [{ manager: 'web-ui', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:color': {} } } }]);

    const conflict = await core.patchNamespacedConfigMap({ name: 'settings', namespace: 'default', body: configMap('red'), fieldManager: 'ops' }, applyHeaders()).then(
      () => assert.fail('expected a conflict'),
      (e: unknown) => e,
    );
    assert.ok(conflict instanceof k8s.ApiException, String(conflict));
    assert.equal(conflict.code, 409);
    assert.deepEqual(JSON.parse(String(conflict.body)), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Apply failed with 1 conflict: conflict with "web-ui": .data.color',
      reason: 'Conflict',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "web-ui"', field: '.data.color' }] },
      code: 409,
    });
    assert.deepEqual((await core.readNamespacedConfigMap({ name: 'settings', namespace: 'default' })).data, { color: 'blue' }, 'nothing written');

    const forced = await core.patchNamespacedConfigMap({ name: 'settings', namespace: 'default', body: configMap('red'), fieldManager: 'ops', force: true }, applyHeaders());
    assert.deepEqual(forced.data, { color: 'red' });
    assert.deepEqual(entries(forced.metadata?.managedFields), [{ manager: 'ops', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:color': {} } } }]);

    // force on a merge patch is refused (ValidatePatchOptions).
    const mergeForce = await core
      .patchNamespacedConfigMap({ name: 'settings', namespace: 'default', body: { data: { color: 'green' } }, force: true }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch))
      .then(
        () => assert.fail('expected 422'),
        (e: unknown) => e,
      );
    assert.ok(mergeForce instanceof k8s.ApiException);
    assert.equal(mergeForce.code, 422);
    assert.equal((JSON.parse(String(mergeForce.body)) as { message: string }).message, 'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
  });

  test('a Deployment applied twice by two managers: shared and separate fields read back from managedFields', async () => {
    const deployment = (extra: Record<string, string> = {}): k8s.V1Deployment => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default', labels: { app: 'web', ...extra } },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.25' }] } },
      },
    });
    const first = await apps.patchNamespacedDeployment({ name: 'web', namespace: 'default', body: deployment(), fieldManager: 'deployer' }, applyHeaders());
    assert.equal(first.spec?.replicas, 2);
    const applied = {
      'f:metadata': { 'f:labels': { 'f:app': {} } },
      'f:spec': {
        'f:replicas': {},
        'f:selector': {},
        'f:template': { 'f:metadata': { 'f:labels': { 'f:app': {} } }, 'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } },
      },
    };
    const deployer = (first.metadata?.managedFields ?? []).find((e) => e.manager === 'deployer');
    assert.deepEqual(deployer && { operation: deployer.operation, apiVersion: deployer.apiVersion, fieldsV1: deployer.fieldsV1 }, { operation: 'Apply', apiVersion: 'apps/v1', fieldsV1: applied });

    // A second manager applies the same values plus a label: the shared fields stay with both, the label is its own.
    const second = await apps.patchNamespacedDeployment({ name: 'web', namespace: 'default', body: deployment({ tier: 'frontend' }), fieldManager: 'labeller' }, applyHeaders());
    assert.deepEqual(second.metadata?.labels, { app: 'web', tier: 'frontend' });
    const read = await apps.readNamespacedDeployment({ name: 'web', namespace: 'default' });
    const labeller = (read.metadata?.managedFields ?? []).find((e) => e.manager === 'labeller');
    assert.deepEqual((labeller?.fieldsV1 as { 'f:metadata': unknown })['f:metadata'], { 'f:labels': { 'f:app': {}, 'f:tier': {} } });
    assert.ok((read.metadata?.managedFields ?? []).some((e) => e.manager === 'deployer' && e.operation === 'Apply'));
  });
});
