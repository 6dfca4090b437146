/**
 * Server-side apply and managedFields through the in-process API server, with the real strategies
 * (ConfigMaps, Deployments, Pods, HorizontalPodAutoscalers, ValidatingWebhookConfigurations).
 *
 * Cases are ported from kubernetes/kubernetes test/integration/apiserver/apply (v1.33):
 * apply_test.go (TestApplyAlsoCreates, TestCreateOnApplyFailsWithUID, TestApplyUpdateApplyConflictForced,
 * TestApplyGroupsManySeparateUpdates, TestApplyManagedFields, TestApplyRemovesEmptyManagedFields,
 * TestApplyRequiresFieldManager, TestApplyFailsWithVersionMismatch, TestApplyConvertsManagedFieldsVersion,
 * TestClearManagedFieldsWith{Update,UpdateEmptyList,MergePatch}, TestErrorsDontFail*,
 * TestApplyDoesNotChangeManagedFieldsViaSubresources, TestApplyUnset{Exclusively,Shared}Fields,
 * TestApplyCanTransferFieldOwnershipToController, TestNoopChangeCreationTime), status_test.go (apply on
 * /status writes status only and is recorded with `subresource: status`) and scale_test.go (the
 * `/scale` writer owns the parent's replicas). The expected values follow the upstream rules the tests
 * check: k8s.io/apiserver pkg/endpoints/handlers (patch.go: uid mismatch on create-on-apply, options
 * validation; rest.go: managerOrUserAgent), k8s.io/apimachinery pkg/util/managedfields/internal
 * (versioncheck.go, structuredmerge.go, managedfieldsupdater.go, capmanagers.go, conflict.go,
 * fieldmanager.go `decodeLiveOrNew`).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, ManagedFieldsEntry } from '../api/index.js';
import type { RestRequest } from '../api/request.js';
import { formatTime } from '../util/clock/index.js';
import { servedStrategies } from './registry/resources/index.js';
import { newTestServer, obj, rejectsWithStatus, type Req, type TestServer } from './testing/fixtures.js';
import type { HandleResult } from './index.js';

const APPLY = 'application/apply-patch+yaml';

/** Where a request goes: group, version, resource and (for namespaced kinds) namespace. */
type Endpoint = Pick<RestRequest, 'group' | 'version' | 'resource' | 'namespace'>;

const CONFIGMAPS: Endpoint = { group: '', version: 'v1', resource: 'configmaps', namespace: 'default' };
const DEPLOYMENTS: Endpoint = { group: 'apps', version: 'v1', resource: 'deployments', namespace: 'default' };
const WEBHOOKS: Endpoint = { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingwebhookconfigurations' };
const hpas = (version: 'v1' | 'v2'): Endpoint => ({ group: 'autoscaling', version, resource: 'horizontalpodautoscalers', namespace: 'default' });

/** A server with every built-in kind. */
const server = (): Promise<TestServer> => newTestServer({ strategies: servedStrategies });

const send = (t: TestServer, at: Endpoint, req: Req): Promise<HandleResult> => t.server.handle({ ...at, ...req });

/** PATCH with `application/apply-patch+yaml` as `manager` (the fieldManager query parameter); `extra.query` adds parameters. */
function apply(t: TestServer, at: Endpoint, name: string, body: unknown, manager = 'apply_test', extra: Partial<RestRequest> = {}): Promise<HandleResult> {
  return send(t, at, { ...extra, verb: 'patch', name, patchType: APPLY, body, query: { fieldManager: manager, ...extra.query } });
}

/** POST of `body` as `manager`. */
const createAs = async (t: TestServer, at: Endpoint, manager: string, body: Record<string, unknown>): Promise<KubeObject> => obj(await send(t, at, { verb: 'create', query: { fieldManager: manager }, body }));

const get = async (t: TestServer, at: Endpoint, name: string): Promise<KubeObject> => obj(await send(t, at, { verb: 'get', name }));

const managedFields = (o: KubeObject): ManagedFieldsEntry[] | undefined => o.metadata?.managedFields;

/** The entries without their times. */
function untimed(o: KubeObject): ManagedFieldsEntry[] {
  return (managedFields(o) ?? []).map((e) => {
    const copy = { ...e };
    delete copy.time;
    return copy;
  });
}

/** An entry as upstream encodes it. */
function entry(manager: string, operation: 'Apply' | 'Update', apiVersion: string, fieldsV1: unknown, extra: { time?: string; subresource?: string } = {}): ManagedFieldsEntry {
  return {
    manager,
    operation,
    apiVersion,
    ...(extra.time !== undefined ? { time: extra.time } : {}),
    fieldsType: 'FieldsV1',
    fieldsV1,
    ...(extra.subresource !== undefined ? { subresource: extra.subresource } : {}),
  } as ManagedFieldsEntry;
}

/** apply_test.go's test-cm: label test-label=test, data key=value. */
const testConfigMap = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'test-cm', namespace: 'default', labels: { 'test-label': 'test' } },
  data: { key: 'value' },
};

/** apply_test.go's nginx Deployment (TestApplyUpdateApplyConflictForced), with `spec` overrides. */
function nginxDeployment(name = 'deployment', spec: Record<string, unknown> = { replicas: 3 }, podSpec: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: { app: 'nginx' } },
    spec: {
      ...spec,
      selector: { matchLabels: { app: 'nginx' } },
      template: { metadata: { labels: { app: 'nginx' } }, spec: { ...podSpec, containers: [{ name: 'nginx', image: 'nginx:latest' }] } },
    },
  };
}

const deploymentSpec = (o: KubeObject): { replicas?: number; template: { spec: { hostname?: string; containers: { name: string; workingDir?: string }[] } } } =>
  o.spec as { replicas?: number; template: { spec: { hostname?: string; containers: { name: string; workingDir?: string }[] } } };

const START = formatTime(Date.UTC(2025, 0, 1));

describe('server-side apply: create, ownership, conflicts', () => {
  test('apply creates the object (201); another manager applying the same configuration shares its fields (TestApplyAlsoCreates)', async () => {
    const t = await server();
    const created = await apply(t, CONFIGMAPS, 'test-cm', testConfigMap);
    assert.equal(created.code, 201);
    assert.deepEqual(obj(created).data, { key: 'value' });
    const again = await apply(t, CONFIGMAPS, 'test-cm', testConfigMap, 'apply_test_2');
    assert.equal(again.code, 200);
    const fields = { 'f:data': { 'f:key': {} }, 'f:metadata': { 'f:labels': { 'f:test-label': {} } } };
    // The second apply changes nothing in the object: the merge answers no object, so
    // managedfieldsupdater.go sets no time for its manager, and the entry without time sorts first
    // (sortEncodedManagedFields: operation, then time, then manager).
    assert.deepEqual(managedFields(await get(t, CONFIGMAPS, 'test-cm')), [entry('apply_test_2', 'Apply', 'v1', fields), entry('apply_test', 'Apply', 'v1', fields, { time: START })]);
  });

  test('create-on-apply with a uid is 409: no object has it (TestCreateOnApplyFailsWithUID, patch.go applyPatch)', async () => {
    const t = await server();
    const body = { ...testConfigMap, metadata: { name: 'test-cm', uid: '88e00824-7f0e-11e8-94a1-c8d3ffb15800' } };
    const err = await rejectsWithStatus(
      apply(t, CONFIGMAPS, 'test-cm', body),
      409,
      'Operation cannot be fulfilled on configmaps "test-cm": uid mismatch: the provided object specified uid 88e00824-7f0e-11e8-94a1-c8d3ffb15800, and no existing object was found',
    );
    assert.equal(err.reason, 'Conflict');
    await rejectsWithStatus(get(t, CONFIGMAPS, 'test-cm'), 404);
  });

  test('an update takes over the fields it changes; the entries are grouped per manager with the latest time (TestApplyManagedFields)', async () => {
    const t = await server();
    await apply(t, CONFIGMAPS, 'test-cm', testConfigMap);
    const patch = (data: Record<string, string>): Promise<HandleResult> =>
      send(t, CONFIGMAPS, { verb: 'patch', name: 'test-cm', patchType: 'application/merge-patch+json', body: { data }, query: { fieldManager: 'updater' } });
    await patch({ 'new-key': 'value' });
    await t.clock.stepAsync(1000);
    await patch({ key: 'new value' });
    const cm = await get(t, CONFIGMAPS, 'test-cm');
    assert.deepEqual(cm.data, { key: 'new value', 'new-key': 'value' });
    assert.deepEqual(managedFields(cm), [
      entry('apply_test', 'Apply', 'v1', { 'f:metadata': { 'f:labels': { 'f:test-label': {} } } }, { time: START }),
      entry('updater', 'Update', 'v1', { 'f:data': { 'f:key': {}, 'f:new-key': {} } }, { time: formatTime(Date.UTC(2025, 0, 1, 0, 0, 1)) }),
    ]);
  });

  test('an apply that owns nothing leaves no entry (TestApplyRemovesEmptyManagedFields)', async () => {
    const t = await server();
    const bare = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'test-cm', namespace: 'default' } };
    await apply(t, CONFIGMAPS, 'test-cm', bare);
    await apply(t, CONFIGMAPS, 'test-cm', bare);
    assert.equal(managedFields(await get(t, CONFIGMAPS, 'test-cm')), undefined);
  });

  test('a conflict with an update is 409 with upstream message and causes; force takes the field over (TestApplyUpdateApplyConflictForced)', async () => {
    const t = await server();
    await apply(t, DEPLOYMENTS, 'deployment', nginxDeployment());
    // kubectl scale-like merge patch with kubectl's User-Agent and no fieldManager: manager `kubectl`.
    await send(t, DEPLOYMENTS, { verb: 'patch', name: 'deployment', patchType: 'application/merge-patch+json', body: { spec: { replicas: 5 } }, userAgent: 'kubectl/v1.33.0 (linux/amd64) kubernetes/abcdef0' });
    const err = await rejectsWithStatus(apply(t, DEPLOYMENTS, 'deployment', nginxDeployment()), 409, 'Apply failed with 1 conflict: conflict with "kubectl" using apps/v1: .spec.replicas');
    assert.equal(err.reason, 'Conflict');
    assert.deepEqual(err.status.details?.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl" using apps/v1', field: '.spec.replicas' }]);
    assert.equal(deploymentSpec(await get(t, DEPLOYMENTS, 'deployment')).replicas, 5, 'nothing written');

    const forced = obj(await apply(t, DEPLOYMENTS, 'deployment', nginxDeployment(), 'apply_test', { query: { force: 'true' } }));
    assert.equal(deploymentSpec(forced).replicas, 3);
    // kubectl owned only spec.replicas: with it gone, its entry goes.
    assert.deepEqual(
      (managedFields(forced) ?? []).map((e) => e.manager),
      ['apply_test'],
    );
    assert.ok(JSON.stringify(managedFields(forced)?.[0]?.fieldsV1).includes('"f:replicas"'));
  });

  test('omitted fields: removed when only the applier owned them, kept when shared or taken over (TestApplyUnsetExclusivelyOwnedFields, TestApplyUnsetSharedFields, TestApplyCanTransferFieldOwnershipToController)', async () => {
    const t = await server();
    const full = nginxDeployment('exclusive', { replicas: 3 }, { hostname: 'test-hostname' });
    const trimmed = nginxDeployment('exclusive', {});
    await apply(t, DEPLOYMENTS, 'exclusive', full);
    const unset = obj(await apply(t, DEPLOYMENTS, 'exclusive', trimmed));
    assert.equal(deploymentSpec(unset).replicas, 1, 'the default again');
    assert.equal(deploymentSpec(unset).template.spec.hostname, undefined);

    const shared = nginxDeployment('shared', { replicas: 3 }, { hostname: 'test-hostname' });
    for (const m of ['shared_owner_1', 'shared_owner_2']) await apply(t, DEPLOYMENTS, 'shared', shared, m);
    const kept = obj(await apply(t, DEPLOYMENTS, 'shared', nginxDeployment('shared', {}), 'shared_owner_1'));
    assert.equal(deploymentSpec(kept).replicas, 3);
    assert.equal(deploymentSpec(kept).template.spec.hostname, 'test-hostname');

    const applied = obj(await apply(t, DEPLOYMENTS, 'transfer', nginxDeployment('transfer'), 'test_applier'));
    const updated = structuredClone(applied);
    deploymentSpec(updated).replicas = 4;
    await send(t, DEPLOYMENTS, { verb: 'update', name: 'transfer', body: updated, query: { fieldManager: 'test_updater' } });
    const after = obj(await apply(t, DEPLOYMENTS, 'transfer', nginxDeployment('transfer', {}), 'test_applier'));
    assert.equal(deploymentSpec(after).replicas, 4);
  });

  test('an applier removes a list item another manager changed (TestApplyCanRemoveMapItemsContributedToByControllers)', async () => {
    const t = await server();
    const applied = obj(await apply(t, DEPLOYMENTS, 'd', nginxDeployment('d', {}), 'test_applier'));
    const updated = structuredClone(applied);
    const container = deploymentSpec(updated).template.spec.containers[0];
    assert.ok(container);
    container.workingDir = '/home/replacement';
    await send(t, DEPLOYMENTS, { verb: 'update', name: 'd', body: updated, query: { fieldManager: 'test_updater' } });
    const other = nginxDeployment('d', { replicas: 3 }, { hostname: 'test-hostname' });
    (other.spec as { template: { spec: { containers: { name: string }[] } } }).template.spec.containers[0] = { name: 'other-container', image: 'nginx:latest' } as { name: string };
    const after = obj(await apply(t, DEPLOYMENTS, 'd', other, 'test_applier'));
    assert.deepEqual(deploymentSpec(after).template.spec.containers.map((c) => c.name), ['other-container']);
  });
});

describe('create-on-apply goes through create admission (handlers/patch.go: admission with operation CREATE when nothing is stored)', () => {
  const PODS: Endpoint = { group: '', version: 'v1', resource: 'pods', namespace: 'default' };
  const podConfig = (name: string, namespace = 'default', resources: Record<string, unknown> = {}): Record<string, unknown> => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace },
    spec: { containers: [{ name: 'c', image: 'nginx', resources }] },
  });

  test('into a namespace that does not exist: 404, as a POST (NamespaceLifecycle)', async () => {
    const t = await server();
    await rejectsWithStatus(apply(t, { ...CONFIGMAPS, namespace: 'nope' }, 'cm', { ...testConfigMap, metadata: { name: 'cm', namespace: 'nope' } }), 404, 'namespaces "nope" not found');
  });

  test('a pod gets priority and the default tolerations (Priority, DefaultTolerationSeconds); an unknown class is 403', async () => {
    const t = await server();
    const created = obj(await apply(t, PODS, 'p', podConfig('p')));
    const spec = created.spec as { priority?: number; preemptionPolicy?: string; tolerations?: { key: string; tolerationSeconds?: number }[] };
    assert.equal(spec.priority, 0);
    assert.equal(spec.preemptionPolicy, 'PreemptLowerPriority');
    assert.deepEqual(spec.tolerations?.map((x) => `${x.key} ${x.tolerationSeconds}`), ['node.kubernetes.io/not-ready 300', 'node.kubernetes.io/unreachable 300']);
    const withClass = { ...podConfig('q'), spec: { priorityClassName: 'missing', containers: [{ name: 'c', image: 'nginx' }] } };
    await rejectsWithStatus(apply(t, PODS, 'q', withClass), 403, 'pods "q" is forbidden: no PriorityClass with name missing was found');
    // An apply that updates is no create: the plugins stay out of it.
    const again = obj(await apply(t, PODS, 'p', { ...podConfig('p'), metadata: { name: 'p', namespace: 'default', labels: { a: 'b' } } }));
    assert.deepEqual(again.metadata?.labels, { a: 'b' });
  });

  test('a LimitRange default is set, and a quota refuses what it would exceed', async () => {
    const t = await server();
    const LIMITS: Endpoint = { group: '', version: 'v1', resource: 'limitranges', namespace: 'default' };
    const QUOTAS: Endpoint = { group: '', version: 'v1', resource: 'resourcequotas', namespace: 'default' };
    await send(t, LIMITS, { verb: 'create', body: { metadata: { name: 'lr' }, spec: { limits: [{ type: 'Container', defaultRequest: { cpu: '100m' }, default: { cpu: '200m' } }] } } });
    const created = obj(await apply(t, PODS, 'p', podConfig('p')));
    const container = (created.spec as { containers: { resources?: unknown }[] }).containers[0];
    assert.deepEqual(container?.resources, { limits: { cpu: '200m' }, requests: { cpu: '100m' } });
    assert.equal(created.metadata?.annotations?.['kubernetes.io/limit-ranger'], 'LimitRanger plugin set: cpu request for container c; cpu limit for container c');
    const q = obj(await send(t, QUOTAS, { verb: 'create', body: { metadata: { name: 'q' }, spec: { hard: { pods: '1' } } } }));
    await send(t, QUOTAS, { verb: 'update', name: 'q', subresource: 'status', body: { ...q, status: { hard: { pods: '1' }, used: { pods: '1' } } } });
    await rejectsWithStatus(apply(t, PODS, 'p2', podConfig('p2')), 403, 'pods "p2" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1');
  });
});

describe('client-side to server-side apply (TestUpgradeClientSideToServerSideApply, lastappliedmanager.go)', () => {
  test('kubectl may take the fields whose live value is still the last-applied one; others conflict', async () => {
    const t = await server();
    const lastApplied = {
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      metadata: { name: 'my-deployment', labels: { app: 'my-app' } },
      spec: { replicas: 3, template: { metadata: { labels: { app: 'my-app' } }, spec: { containers: [{ name: 'my-c', image: 'my-image' }] } } },
    };
    const template = (image: string): Record<string, unknown> => ({ metadata: { labels: { app: 'my-app' } }, spec: { containers: [{ name: 'my-c', image }] } });
    await createAs(t, DEPLOYMENTS, 'kubectl-client-side-apply', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'my-deployment', labels: { app: 'my-app' }, annotations: { 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify(lastApplied) } },
      spec: { replicas: 100000, selector: { matchLabels: { app: 'my-app' } }, template: template('my-image') },
    });
    const config = (spec: Record<string, unknown>): Record<string, unknown> => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'my-deployment', labels: { app: 'my-new-label' } }, spec });
    // replicas: live 100000 is not the last-applied 3, so that conflict stands; the label's does not.
    await rejectsWithStatus(
      apply(t, DEPLOYMENTS, 'my-deployment', config({ replicas: 3, template: template('my-image') }), 'kubectl'),
      409,
      'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas',
    );
    // Another manager gets no such allowance (only `kubectl` upgrades).
    await rejectsWithStatus(apply(t, DEPLOYMENTS, 'my-deployment', config({ template: template('my-image-new') }), 'other'), 409, /^Apply failed with 2 conflicts: /);
    const upgraded = obj(await apply(t, DEPLOYMENTS, 'my-deployment', config({ template: template('my-image-new') }), 'kubectl'));
    assert.equal(deploymentSpec(upgraded).replicas, 100000);
    assert.equal((deploymentSpec(upgraded).template.spec.containers[0] as { image?: string } | undefined)?.image, 'my-image-new');
    assert.deepEqual(upgraded.metadata?.labels, { app: 'my-new-label' });
  });
});

describe('formerly atomic ObjectReferences (TestApplyFormerlyAtomicFields)', () => {
  test('an apply of claimRef name and namespace keeps the uid another manager set, and owns only what it applied', async () => {
    const t = await server();
    const PVS: Endpoint = { group: '', version: 'v1', resource: 'persistentvolumes' };
    const claimRef = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', name: 'pvc-storage', namespace: 'default', resourceVersion: '15499', uid: '2018e302-7b12-406c-9fa2-e52535d29e48' };
    const created = await createAs(t, PVS, 'apply_test', {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { finalizers: ['kubernetes.io/pv-protection'], labels: { type: 'local' }, name: 'pv-storage' },
      spec: { accessModes: ['ReadWriteOnce'], capacity: { storage: '16Mi' }, claimRef, hostPath: { path: '/tmp/mydata', type: '' }, persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem' },
      status: { phase: 'Bound' },
    });
    // Ownership as a cluster of v1.22–1.24 left it: kube-controller-manager owning claimRef atomically.
    const entries = [
      entry('apply_test', 'Apply', 'v1', { 'f:metadata': { 'f:labels': { 'f:type': {} } }, 'f:spec': { 'f:accessModes': {}, 'f:capacity': { 'f:storage': {} }, 'f:hostPath': { 'f:path': {} }, 'f:storageClassName': {} } }, { time: '2022-06-08T23:46:32Z' }),
      entry('kube-controller-manager', 'Update', 'v1', { 'f:status': { 'f:phase': {} } }, { time: '2022-06-08T23:46:32Z', subresource: 'status' }),
      entry('kube-controller-manager', 'Update', 'v1', { 'f:spec': { 'f:claimRef': {} } }, { time: '2022-06-08T23:46:37Z' }),
    ];
    await send(t, PVS, { verb: 'patch', name: 'pv-storage', patchType: 'application/strategic-merge-patch+json', query: { fieldManager: 'apply_test' }, body: { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv-storage', managedFields: entries } } });
    const applied = obj(
      await apply(t, PVS, 'pv-storage', {
        kind: 'PersistentVolume',
        apiVersion: 'v1',
        metadata: { labels: { type: 'local' }, name: 'pv-storage' },
        spec: { storageClassName: '', capacity: { storage: '16Mi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/mydata' }, claimRef: { name: 'pvc-storage', namespace: 'default' } },
      }),
    );
    assert.deepEqual((applied.spec as { claimRef: unknown }).claimRef, (created.spec as { claimRef: unknown }).claimRef);
    assert.deepEqual(untimed(applied), [
      entry('apply_test', 'Apply', 'v1', {
        'f:metadata': { 'f:labels': { 'f:type': {} } },
        'f:spec': { 'f:accessModes': {}, 'f:capacity': { 'f:storage': {} }, 'f:claimRef': { 'f:name': {}, 'f:namespace': {} }, 'f:hostPath': { 'f:path': {} }, 'f:storageClassName': {} },
      }),
      entry('kube-controller-manager', 'Update', 'v1', { 'f:status': { 'f:phase': {} } }, { subresource: 'status' }),
      entry('kube-controller-manager', 'Update', 'v1', { 'f:spec': { 'f:claimRef': {} } }),
    ]);
  });
});

describe('server-side apply: request errors', () => {
  test('the configuration may not carry managedFields (400) nor another version or kind (400) (TestApplyFailsWithVersionMismatch)', async () => {
    const t = await server();
    await apply(t, DEPLOYMENTS, 'deployment', nginxDeployment());
    // versioncheck.go, the outermost manager, compares the whole group/version/kind first (structuredmerge.go's
    // `Incorrect version specified in apply patch` is behind it and not reached from the API server).
    await rejectsWithStatus(apply(t, DEPLOYMENTS, 'deployment', { ...nginxDeployment(), apiVersion: 'extensions/v1beta' }), 400, 'invalid object type: extensions/v1beta, Kind=Deployment');
    await rejectsWithStatus(apply(t, DEPLOYMENTS, 'deployment', { ...nginxDeployment(), kind: 'StatefulSet' }), 400, 'invalid object type: apps/v1, Kind=StatefulSet');
    const withManaged = nginxDeployment();
    (withManaged.metadata as Record<string, unknown>).managedFields = [{ manager: 'x', operation: 'Apply', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: {} }];
    const err = await rejectsWithStatus(apply(t, DEPLOYMENTS, 'deployment', withManaged), 400, 'metadata.managedFields must be nil');
    assert.equal(err.reason, 'BadRequest');
  });

  test('PatchOptions: fieldManager required for apply, at most 128 bytes, printable; force only for apply (422) (TestApplyRequiresFieldManager, ValidatePatchOptions)', async () => {
    const t = await server();
    const noManager = send(t, CONFIGMAPS, { verb: 'patch', name: 'test-cm', patchType: APPLY, body: testConfigMap });
    await rejectsWithStatus(noManager, 422, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    await rejectsWithStatus(get(t, CONFIGMAPS, 'test-cm'), 404, 'configmaps "test-cm" not found');
    await rejectsWithStatus(apply(t, CONFIGMAPS, 'test-cm', testConfigMap, 'x'.repeat(129)), 422, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes');
    await rejectsWithStatus(apply(t, CONFIGMAPS, 'test-cm', testConfigMap, 'a\u0007b'), 422, /^PatchOptions\.meta\.k8s\.io "" is invalid: fieldManager: Invalid value: .*: invalid character U\+0007 \(at position 1\)$/);
    await apply(t, CONFIGMAPS, 'test-cm', testConfigMap, 'x'.repeat(128));
    await rejectsWithStatus(
      send(t, CONFIGMAPS, { verb: 'patch', name: 'test-cm', patchType: 'application/merge-patch+json', body: { data: { a: 'b' } }, query: { force: 'true' } }),
      422,
      'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
    );
    // Create and update validate the manager too (ValidateCreateOptions / ValidateUpdateOptions).
    await rejectsWithStatus(
      send(t, CONFIGMAPS, { verb: 'create', body: { metadata: { name: 'other' } }, query: { fieldManager: 'y'.repeat(129) } }),
      422,
      'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes',
    );
  });

  test('dry-run apply answers the merged object with its managedFields and stores nothing', async () => {
    const t = await server();
    const before = t.server.currentRevision();
    const res = await apply(t, CONFIGMAPS, 'test-cm', testConfigMap, 'apply_test', { query: { dryRun: 'All' } });
    assert.equal(res.code, 201);
    assert.deepEqual(obj(res).data, { key: 'value' });
    assert.deepEqual(untimed(obj(res)), [entry('apply_test', 'Apply', 'v1', { 'f:data': { 'f:key': {} }, 'f:metadata': { 'f:labels': { 'f:test-label': {} } } })]);
    await rejectsWithStatus(get(t, CONFIGMAPS, 'test-cm'), 404);
    assert.equal(t.server.currentRevision(), before);

    await apply(t, CONFIGMAPS, 'test-cm', testConfigMap);
    const stored = await get(t, CONFIGMAPS, 'test-cm');
    const dry = obj(await apply(t, CONFIGMAPS, 'test-cm', { ...testConfigMap, data: { key: 'other' } }, 'second', { query: { dryRun: 'All', force: 'true' } }));
    assert.deepEqual(dry.data, { key: 'other' });
    assert.deepEqual(await get(t, CONFIGMAPS, 'test-cm'), stored);
  });
});

describe('managedFields on writes', () => {
  test('an unchanged write keeps the entry and its time, and the resourceVersion (TestNoopChangeCreationTime)', async () => {
    const t = await server();
    const first = obj(await apply(t, CONFIGMAPS, 'test-cm', testConfigMap));
    await t.clock.stepAsync(5000);
    const second = obj(await apply(t, CONFIGMAPS, 'test-cm', testConfigMap));
    assert.deepEqual(second, first);
    assert.equal(managedFields(second)?.[0]?.time, START);

    // An update that changes nothing keeps its time too; one that changes something moves it.
    const patch = (labels: Record<string, string>): Promise<HandleResult> =>
      send(t, CONFIGMAPS, { verb: 'patch', name: 'test-cm', patchType: 'application/merge-patch+json', body: { metadata: { labels } }, query: { fieldManager: 'updater' } });
    await patch({ extra: 'a' });
    const at5 = formatTime(Date.UTC(2025, 0, 1, 0, 0, 5));
    await t.clock.stepAsync(5000);
    const same = obj(await patch({ extra: 'a' }));
    assert.equal(managedFields(same)?.find((e) => e.manager === 'updater')?.time, at5);
    const changed = obj(await patch({ extra: 'b' }));
    assert.equal(managedFields(changed)?.find((e) => e.manager === 'updater')?.time, formatTime(Date.UTC(2025, 0, 1, 0, 0, 10)));
  });

  test('managedFields [{}] or [] in an update reset ownership; untracked objects stay untracked until an apply (TestClearManagedFieldsWithUpdate, …EmptyList, …MergePatch)', async () => {
    const t = await server();
    await apply(t, CONFIGMAPS, 'test-cm', testConfigMap);
    const put = obj(await send(t, CONFIGMAPS, { verb: 'update', name: 'test-cm', body: { ...testConfigMap, metadata: { ...testConfigMap.metadata, managedFields: [{}] } } }));
    assert.equal(managedFields(put), undefined);
    assert.deepEqual(put.metadata?.labels, { 'test-label': 'test' });

    await apply(t, CONFIGMAPS, 'cm2', { ...testConfigMap, metadata: { name: 'cm2', labels: { 'test-label': 'test' } } });
    await send(t, CONFIGMAPS, { verb: 'update', name: 'cm2', body: { ...testConfigMap, metadata: { name: 'cm2', managedFields: [], labels: { 'test-label': 'test' } } } });
    // skipnonapplied.go: an existing object without managers is not tracked by updates.
    const patched = obj(await send(t, CONFIGMAPS, { verb: 'patch', name: 'cm2', patchType: 'application/merge-patch+json', body: { metadata: { labels: { 'test-label': 'v1' } } }, userAgent: 'updater/1.0' }));
    assert.equal(managedFields(patched), undefined);
    assert.deepEqual(patched.metadata?.labels, { 'test-label': 'v1' });

    await apply(t, CONFIGMAPS, 'cm3', { ...testConfigMap, metadata: { name: 'cm3' } });
    const merged = obj(await send(t, CONFIGMAPS, { verb: 'patch', name: 'cm3', patchType: 'application/merge-patch+json', body: { metadata: { managedFields: [{}] } } }));
    assert.equal(managedFields(merged), undefined);
  });

  test('a JSON patch of managedFields renames a manager (kubectl csaupgrade), and a patch that does not touch them keeps them', async () => {
    const t = await server();
    const applied = obj(await apply(t, CONFIGMAPS, 'test-cm', testConfigMap, 'old-name'));
    const fields = managedFields(applied)?.[0]?.fieldsV1;
    // A patch of labels only: the apply entry stays as it was, and the patcher owns the new label.
    const labelled = obj(await send(t, CONFIGMAPS, { verb: 'patch', name: 'test-cm', patchType: 'application/json-patch+json', body: [{ op: 'add', path: '/metadata/labels/extra', value: 'x' }], userAgent: 'labeller/1.0' }));
    assert.deepEqual(untimed(labelled), [
      entry('old-name', 'Apply', 'v1', fields),
      entry('labeller', 'Update', 'v1', { 'f:metadata': { 'f:labels': { 'f:extra': {} } } }),
    ]);
    // The rename as kubectl sends it: the entries replaced with the manager's new name.
    const renamed = obj(await send(t, CONFIGMAPS, { verb: 'patch', name: 'test-cm', patchType: 'application/json-patch+json', body: [{ op: 'replace', path: '/metadata/managedFields/0/manager', value: 'new-name' }] }));
    assert.deepEqual(untimed(renamed).map((e) => e.manager), ['new-name', 'labeller']);
    // Strategic directives in metadata may replace it whole: those patches go through with managedFields too.
    const replaced = obj(await send(t, CONFIGMAPS, { verb: 'patch', name: 'test-cm', patchType: 'application/strategic-merge-patch+json', body: { metadata: { $patch: 'replace', name: 'test-cm', labels: { only: 'this' } } }, userAgent: 'replacer/1.0' }));
    assert.deepEqual(replaced.metadata?.labels, { only: 'this' });
    assert.ok(untimed(replaced).some((e) => e.manager === 'replacer'));
  });

  test('managedFields sent by a create or update replace the live ones; unserved versions and undecodable lists are dropped, the write goes on (TestApplyConvertsManagedFieldsVersion, TestErrorsDontFail)', async () => {
    const t = await server();
    const theirs = entry('other', 'Update', 'v1', { 'f:data': { 'f:key': {} } }, { time: '2019-07-08T09:31:18Z' });
    const created = obj(await send(t, CONFIGMAPS, { verb: 'create', body: { ...testConfigMap, metadata: { ...testConfigMap.metadata, managedFields: [theirs] } }, userAgent: 'creator/1.0' }));
    // The sent entries are the starting ownership (decodeLiveOrNew), but an update takes every field it
    // changes, and a create changes them all: `other` is left with nothing and dropped.
    assert.deepEqual(managedFields(created), [
      entry('creator', 'Update', 'v1', { 'f:data': { '.': {}, 'f:key': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:test-label': {} } } }, { time: START }),
    ]);

    const replaced = entry('someone', 'Apply', 'v1', { 'f:metadata': { 'f:labels': { 'f:test-label': {} } } }, { time: '2020-01-01T00:00:00Z' });
    const put = obj(await send(t, CONFIGMAPS, { verb: 'update', name: 'test-cm', body: { ...created, metadata: { ...created.metadata, managedFields: [replaced] } }, userAgent: 'creator/1.0' }));
    assert.deepEqual(managedFields(put), [replaced]);

    // fieldsType '' cannot be decoded: the live ownership stays and the write succeeds.
    const bad = { manager: 'apply_test', operation: 'Apply', apiVersion: 'v1', time: '2019-07-08T09:31:18Z', fieldsType: '', fieldsV1: {} };
    const put2 = obj(await send(t, CONFIGMAPS, { verb: 'update', name: 'test-cm', body: { ...put, metadata: { ...put.metadata, managedFields: [bad] }, data: { key: 'v2' } }, userAgent: 'creator/1.0' }));
    assert.deepEqual(put2.data, { key: 'v2' });
    assert.deepEqual((managedFields(put2) ?? []).map((e) => e.manager), ['someone', 'creator']);
    const createdBad = obj(await send(t, CONFIGMAPS, { verb: 'create', body: { metadata: { name: 'bad', managedFields: [bad] }, data: { a: 'b' } }, query: { fieldManager: 'apply_test' } }));
    assert.deepEqual(createdBad.data, { a: 'b' });

    // A Deployment created with an entry of extensions/v1beta1 (not served): the apply converts what it can.
    const deployment = nginxDeployment('sidecar', {});
    (deployment.metadata as Record<string, unknown>).managedFields = [
      { manager: 'sidecar_controller', operation: 'Apply', apiVersion: 'extensions/v1beta1', fieldsV1: { 'f:metadata': { 'f:labels': { 'f:sidecar_version': {} } } } },
    ];
    await send(t, DEPLOYMENTS, { verb: 'create', body: deployment, userAgent: 'apply.test/1.0' });
    const sidecar = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'sidecar', labels: { sidecar_version: 'release' } },
      spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'sidecar:latest' }] } } },
    };
    const applied = obj(await apply(t, DEPLOYMENTS, 'sidecar', sidecar, 'sidecar_controller'));
    const mine = managedFields(applied)?.filter((e) => e.manager === 'sidecar_controller');
    assert.deepEqual(mine, [
      entry(
        'sidecar_controller',
        'Apply',
        'apps/v1',
        { 'f:metadata': { 'f:labels': { 'f:sidecar_version': {} } }, 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"sidecar"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } } } },
        { time: START },
      ),
    ]);
    assert.equal(managedFields(applied)?.length, 2);
  });

  test('the 11th update manager folds the oldest into ancient-changes (TestApplyGroupsManySeparateUpdates, capmanagers.go)', async () => {
    const t = await server();
    const webhook = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'webhook', labels: { applier: 'true' } } };
    let last = obj(await apply(t, WEBHOOKS, 'webhook', webhook));
    for (let i = 0; i < 20; i++) {
      const unique = `updater${i}`;
      // A second between writes: capmanagers.go folds the oldest by time.
      await t.clock.stepAsync(1000);
      last = obj(await send(t, WEBHOOKS, { verb: 'patch', name: 'webhook', patchType: 'application/merge-patch+json', body: { metadata: { labels: { [unique]: 'new' } } }, query: { fieldManager: unique } }));
    }
    const managers = (managedFields(last) ?? []).map((e) => e.manager);
    assert.equal(managers.length, 11);
    assert.equal(managers[0], 'apply_test');
    assert.equal(managers[1], 'ancient-changes');
    assert.deepEqual(managers.slice(2), Array.from({ length: 9 }, (_, i) => `updater${i + 11}`));
    const ancient = managedFields(last)?.[1];
    assert.equal(ancient?.operation, 'Update');
    const ancientLabels = Object.keys((ancient?.fieldsV1 as { 'f:metadata': { 'f:labels': Record<string, unknown> } })['f:metadata']['f:labels']);
    for (let i = 0; i <= 10; i++) assert.ok(ancientLabels.includes(`f:updater${i}`), `updater${i} folded`);
  });

  test('the manager comes from fieldManager, else the User-Agent up to "/"; internal writes are kube-apiserver (rest.go managerOrUserAgent)', async () => {
    const t = await server();
    const cm = (name: string, userAgent?: string, fieldManager?: string): Promise<HandleResult> =>
      send(t, CONFIGMAPS, { verb: 'create', body: { metadata: { name }, data: { a: 'b' } }, ...(userAgent ? { userAgent } : {}), ...(fieldManager ? { query: { fieldManager } } : {}) });
    const managerOf = (r: HandleResult): string | undefined => managedFields(obj(r))?.[0]?.manager;
    assert.equal(managerOf(await cm('a', 'kubectl/v1.33.0 (linux/amd64) kubernetes/abcdef0')), 'kubectl');
    assert.equal(managerOf(await cm('b', 'kubectl/v1.33.0 (linux/amd64) kubernetes/abcdef0', 'helm')), 'helm');
    assert.equal(managerOf(await cm('c', 'kube-controller-manager/v1.33.0 (linux/amd64) kubernetes/abcdef0/system:serviceaccount:kube-system:deployment-controller')), 'kube-controller-manager');
    // The default namespaces are written by the server itself (bootstrap-controller in kube-apiserver).
    const ns = obj(await t.server.handle({ group: '', version: 'v1', resource: 'namespaces', verb: 'get', name: 'default' }));
    assert.deepEqual(managedFields(ns)?.map((e) => [e.manager, e.operation]), [['kube-apiserver', 'Update']]);
  });

  test('a version per entry: apply at autoscaling/v2, update at autoscaling/v1 (managedfieldsupdater.go, versionconverter.go)', async () => {
    const t = await server();
    const hpa = {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web' },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 5 },
    };
    await apply(t, hpas('v2'), 'web', hpa, 'applier');
    const v1 = await get(t, hpas('v1'), 'web');
    (v1.spec as { minReplicas?: number }).minReplicas = 2;
    const updated = obj(await send(t, hpas('v1'), { verb: 'update', name: 'web', body: v1, query: { fieldManager: 'v1-writer' } }));
    assert.equal(updated.apiVersion, 'autoscaling/v1');
    assert.deepEqual(untimed(updated), [
      entry('applier', 'Apply', 'autoscaling/v2', { 'f:spec': { 'f:maxReplicas': {}, 'f:scaleTargetRef': { 'f:apiVersion': {}, 'f:kind': {}, 'f:name': {} } } }),
      entry('v1-writer', 'Update', 'autoscaling/v1', { 'f:spec': { 'f:minReplicas': {} } }),
    ]);
    // The v2 applier still owns maxReplicas across versions: a v1 apply of another value conflicts.
    const v1Apply = { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 9 } };
    await rejectsWithStatus(apply(t, hpas('v1'), 'web', v1Apply, 'other'), 409, /conflict with "applier": \.spec\.maxReplicas/);
  });
});

describe('managers renamed or moved by a PUT of managedFields (apply_test.go TestRenaming*, TestDroppingSubresource*, TestSubresourceField)', () => {
  const PODS: Endpoint = { group: '', version: 'v1', resource: 'pods', namespace: 'default' };
  const justAPod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'just-a-pod' }, spec: { containers: [{ name: 'test-container-a', image: 'test-image-one' }] } };
  const labels = (l: Record<string, string>): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'just-a-pod', labels: l } });
  const mergePatch = (t: TestServer, manager: string, body: unknown, subresource?: string): Promise<HandleResult> =>
    send(t, PODS, { verb: 'patch', name: 'just-a-pod', patchType: 'application/merge-patch+json', body, query: { fieldManager: manager }, ...(subresource ? { subresource } : {}) });
  /** GET, rewrite every entry with `change`, PUT back: the result's entries. */
  async function putEntries(t: TestServer, change: (e: ManagedFieldsEntry) => ManagedFieldsEntry): Promise<ManagedFieldsEntry[]> {
    const pod = await get(t, PODS, 'just-a-pod');
    const body = { ...pod, metadata: { ...pod.metadata, managedFields: (managedFields(pod) ?? []).map(change) } };
    return managedFields(obj(await send(t, PODS, { verb: 'update', name: 'just-a-pod', body }))) ?? [];
  }
  const withoutSubresource = (e: ManagedFieldsEntry): ManagedFieldsEntry => {
    const copy = { ...e };
    delete copy.subresource;
    return copy;
  };
  const summary = (e: ManagedFieldsEntry | undefined): unknown => e && { manager: e.manager, operation: e.operation, subresource: e.subresource, fieldsV1: e.fieldsV1 };

  test('two Apply managers renamed to one: the last entry of that name wins (TestRenamingAppliedFieldManagers)', async () => {
    const t = await server();
    await apply(t, PODS, 'just-a-pod', { ...justAPod, metadata: { name: 'just-a-pod', labels: { a: 'one' } } }, 'multi_manager_one');
    await apply(t, PODS, 'just-a-pod', labels({ b: 'two' }), 'multi_manager_two');
    assert.deepEqual((await get(t, PODS, 'just-a-pod')).metadata?.labels, { a: 'one', b: 'two' });
    const entries = await putEntries(t, (e) => ({ ...e, manager: 'multi_manager' }));
    assert.deepEqual(entries.map(summary), [{ manager: 'multi_manager', operation: 'Apply', subresource: undefined, fieldsV1: { 'f:metadata': { 'f:labels': { 'f:b': {} } } } }]);
  });

  test('two Update managers renamed to one (TestRenamingUpdatedFieldManagers)', async () => {
    const t = await server();
    await apply(t, PODS, 'just-a-pod', justAPod, 'first');
    await mergePatch(t, 'multi_manager_one', { metadata: { labels: { a: 'one' } } });
    await mergePatch(t, 'multi_manager_two', { metadata: { labels: { b: 'two' } } });
    const entries = await putEntries(t, (e) => (e.manager === 'first' ? e : { ...e, manager: 'multi_manager' }));
    assert.equal(entries.length, 2);
    assert.deepEqual(summary(entries[1]), { manager: 'multi_manager', operation: 'Update', subresource: undefined, fieldsV1: { 'f:metadata': { 'f:labels': { 'f:b': {} } } } });
  });

  test('entries that differ only by subresource merge when the subresource is dropped (TestDroppingSubresourceField, TestDroppingSubresourceFromSpecField)', async () => {
    const t = await server();
    await apply(t, PODS, 'just-a-pod', justAPod, 'first');
    await apply(t, PODS, 'just-a-pod', labels({ a: 'one' }), 'label_manager');
    await apply(t, PODS, 'just-a-pod', labels({ b: 'two' }), 'label_manager', { subresource: 'status' });
    const pod = await get(t, PODS, 'just-a-pod');
    assert.deepEqual(pod.metadata?.labels, { a: 'one', b: 'two' }, 'the pod status strategy keeps labels from /status');
    assert.deepEqual(
      managedFields(pod)?.map((e) => [e.manager, e.operation, e.subresource ?? '']),
      [
        ['first', 'Apply', ''],
        ['label_manager', 'Apply', ''],
        ['label_manager', 'Apply', 'status'],
      ],
    );
    const entries = await putEntries(t, withoutSubresource);
    assert.equal(entries.length, 2);
    assert.deepEqual(summary(entries[1]), { manager: 'label_manager', operation: 'Apply', subresource: undefined, fieldsV1: { 'f:metadata': { 'f:labels': { 'f:b': {} } } } });

    const t2 = await server();
    await apply(t2, PODS, 'just-a-pod', justAPod, 'first');
    await mergePatch(t2, 'manager', { metadata: { labels: { a: 'two' } } });
    await mergePatch(t2, 'manager', { status: { phase: 'Running' } }, 'status');
    const pod2 = await get(t2, PODS, 'just-a-pod');
    assert.equal((pod2.status as { phase: string }).phase, 'Running');
    assert.deepEqual(managedFields(pod2)?.map((e) => [e.manager, e.operation, e.subresource ?? '']), [
      ['first', 'Apply', ''],
      ['manager', 'Update', ''],
      ['manager', 'Update', 'status'],
    ]);
    const entries2 = await putEntries(t2, withoutSubresource);
    assert.equal(entries2.length, 2);
    assert.deepEqual(summary(entries2[1]), { manager: 'manager', operation: 'Update', subresource: undefined, fieldsV1: { 'f:status': { 'f:phase': {} } } });
  });

  test('the same manager applying and scaling has two entries (TestSubresourceField)', async () => {
    const t = await server();
    await apply(t, DEPLOYMENTS, 'deployment', nginxDeployment(), 'manager');
    await send(t, DEPLOYMENTS, { verb: 'patch', name: 'deployment', subresource: 'scale', patchType: 'application/merge-patch+json', body: { spec: { replicas: 32 } }, query: { fieldManager: 'manager' } });
    const entries = managedFields(await get(t, DEPLOYMENTS, 'deployment')) ?? [];
    assert.equal(entries.length, 2);
    assert.deepEqual([entries[0]?.manager, entries[0]?.operation, entries[0]?.subresource], ['manager', 'Apply', undefined]);
    assert.deepEqual(summary(entries[1]), { manager: 'manager', operation: 'Update', subresource: 'scale', fieldsV1: { 'f:spec': { 'f:replicas': {} } } });
  });
});

describe('the scale subresource of every scalable kind (scale_test.go TestScaleAllResources, TestScaleUpdateOnlyStatus)', () => {
  const kinds: { kind: string; at: Endpoint; validObj: Record<string, unknown> }[] = [
    ...['Deployment', 'StatefulSet', 'ReplicaSet'].map((kind) => ({
      kind,
      at: { group: 'apps', version: 'v1', resource: `${kind.toLowerCase()}s`, namespace: 'default' },
      validObj: { ...nginxDeployment('test', { replicas: 1 }), kind, metadata: { name: 'test' } },
    })),
    {
      kind: 'ReplicationController',
      at: { group: '', version: 'v1', resource: 'replicationcontrollers', namespace: 'default' },
      validObj: {
        apiVersion: 'v1',
        kind: 'ReplicationController',
        metadata: { name: 'test' },
        spec: { replicas: 1, selector: { app: 'nginx' }, template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:latest' }] } } },
      },
    },
  ];
  const scaleBody = (replicas: number): Record<string, unknown> => ({ kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'test', namespace: 'default' }, spec: { replicas } });

  /** The replicas value and its owners, as assertReplicasValue and assertReplicasOwnership read them. */
  async function replicas(t: TestServer, at: Endpoint): Promise<{ value: unknown; owners: string[] }> {
    const o = await get(t, at, 'test');
    const owners = (managedFields(o) ?? []).filter((e) => JSON.stringify((e.fieldsV1 as { 'f:spec'?: unknown })['f:spec'] ?? {}).includes('"f:replicas"')).map((e) => e.manager ?? '');
    return { value: (o.spec as { replicas?: number }).replicas, owners: owners.sort() };
  }

  for (const { kind, at, validObj } of kinds) {
    test(`${kind}: apply, scale, conflicts, force, replace and co-ownership through /scale`, async () => {
      const t = await server();
      const scalePatch = (manager: string, body: unknown): Promise<HandleResult> =>
        send(t, at, { verb: 'patch', name: 'test', subresource: 'scale', patchType: 'application/merge-patch+json', body, query: { fieldManager: manager } });
      await apply(t, at, 'test', validObj);
      assert.deepEqual(await replicas(t, at), { value: 1, owners: ['apply_test'] });
      await scalePatch('scale_test', { spec: { replicas: 5 } });
      assert.deepEqual(await replicas(t, at), { value: 5, owners: ['scale_test'] });
      await rejectsWithStatus(apply(t, at, 'test', validObj), 409);
      await apply(t, at, 'test', validObj, 'apply_test', { query: { force: 'true' } });
      assert.deepEqual(await replicas(t, at), { value: 1, owners: ['apply_test'] });

      const applyScale = (manager: string, n: number, force = false): Promise<HandleResult> =>
        apply(t, at, 'test', scaleBody(n), manager, { subresource: 'scale', ...(force ? { query: { force: 'true' } } : {}) });
      await rejectsWithStatus(applyScale('apply_scale', 17), 409, /apply_test/);
      await applyScale('apply_scale', 17, true);
      assert.deepEqual(await replicas(t, at), { value: 17, owners: ['apply_scale'] });
      await send(t, at, { verb: 'update', name: 'test', subresource: 'scale', body: scaleBody(7), query: { fieldManager: 'replace_test' } });
      assert.deepEqual(await replicas(t, at), { value: 7, owners: ['replace_test'] });
      await applyScale('co_owning_test', 7);
      assert.deepEqual(await replicas(t, at), { value: 7, owners: ['co_owning_test', 'replace_test'] });
      await scalePatch('scale_test', { spec: { replicas: 5 } });
      assert.deepEqual(await replicas(t, at), { value: 5, owners: ['scale_test'] });
    });
  }

  test('a /scale write of status only changes neither replicas nor their owner (TestScaleUpdateOnlyStatus)', async () => {
    const t = await server();
    const deployments = kinds[0];
    assert.ok(deployments);
    await apply(t, deployments.at, 'test', deployments.validObj);
    await send(t, deployments.at, { verb: 'patch', name: 'test', subresource: 'scale', patchType: 'application/merge-patch+json', body: { status: { replicas: 42 } }, query: { fieldManager: 'scale_test' } });
    assert.deepEqual(await replicas(t, deployments.at), { value: 1, owners: ['apply_test'] });
  });
});

describe('duplicates in associative lists (TestDuplicatesInAssociativeLists)', () => {
  const DAEMONSETS: Endpoint = { group: 'apps', version: 'v1', resource: 'daemonsets', namespace: 'default' };
  const key = (o: Record<string, unknown>): string => `k:${JSON.stringify(o)}`;
  const nginx = key({ name: 'nginx' });
  const port = (containerPort: number): string => key({ containerPort, protocol: 'TCP' });
  const envVar = (name: string): string => key({ name });
  const named = { '.': {}, 'f:name': {}, 'f:value': {} };

  /**
   * What `create` owns: everything it set and every default (upstream's expectation, verbatim), the
   * annotation and the duplicated items until an update takes them.
   */
  const createdFields = (annotations: Record<string, unknown>, duplicates = true): unknown => ({
    'f:metadata': { 'f:annotations': annotations, 'f:labels': { '.': {}, 'f:app': {} } },
    'f:spec': {
      'f:revisionHistoryLimit': {},
      'f:selector': {},
      'f:template': {
        'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
        'f:spec': {
          'f:containers': {
            [nginx]: {
              '.': {},
              'f:env': { '.': {}, [envVar('ENV0')]: named, ...(duplicates ? { [envVar('PATH')]: {} } : {}) },
              'f:image': {},
              'f:imagePullPolicy': {},
              'f:name': {},
              'f:ports': { '.': {}, [port(1)]: { '.': {}, 'f:containerPort': {}, 'f:name': {}, 'f:protocol': {} }, ...(duplicates ? { [port(80)]: {} } : {}) },
              'f:resources': {},
              'f:terminationMessagePath': {},
              'f:terminationMessagePolicy': {},
            },
          },
          'f:dnsPolicy': {},
          'f:restartPolicy': {},
          'f:schedulerName': {},
          'f:securityContext': {},
          'f:terminationGracePeriodSeconds': {},
        },
      },
      'f:updateStrategy': { 'f:rollingUpdate': { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} }, 'f:type': {} },
    },
  });

  const applied = (env: string, containerPort: number): unknown => ({
    'f:metadata': { 'f:labels': { 'f:app': {} } },
    'f:spec': {
      'f:selector': {},
      'f:template': {
        'f:spec': {
          'f:containers': {
            [nginx]: { '.': {}, 'f:env': { [envVar(env)]: named }, 'f:image': {}, 'f:name': {}, 'f:ports': { [port(containerPort)]: { '.': {}, 'f:containerPort': {}, 'f:name': {} } } },
          },
        },
      },
    },
  });

  const daemonSet = (ports: { name: string; containerPort: number }[], env: { name: string; value: string }[], templateLabels = true): Record<string, unknown> => ({
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'example-daemonset', labels: { app: 'example' } },
    spec: {
      selector: { matchLabels: { app: 'example' } },
      template: { ...(templateLabels ? { metadata: { labels: { app: 'example' } } } : {}), spec: { containers: [{ name: 'nginx', image: 'nginx', ports, env }] } },
    },
  });
  const container = (o: KubeObject): { env: unknown[]; ports: unknown[] } => (o.spec as { template: { spec: { containers: { env: unknown[]; ports: unknown[] }[] } } }).template.spec.containers[0] ?? { env: [], ports: [] };

  test('a create with duplicate keys owns the duplicated items atomically; applies and updates keep every item apart', async () => {
    const t = await server();
    /** A create or update (PUT) by `manager` of the DaemonSet with these ports (name, containerPort) and env (name, value). */
    const write = async (verb: 'create' | 'update', manager: string, ports: [string, number][], env: [string, string][]): Promise<KubeObject> => {
      const body = daemonSet(
        ports.map(([name, containerPort]) => ({ name, containerPort })),
        env.map(([name, value]) => ({ name, value })),
      );
      return obj(await send(t, DAEMONSETS, { verb, ...(verb === 'update' ? { name: 'example-daemonset' } : {}), query: { fieldManager: manager }, body }));
    };
    const created = await write(
      'create',
      'create',
      [
        ['port0', 1],
        ['port1', 80],
        ['port2', 80],
      ],
      [
        ['ENV0', '/env0value'],
        ['PATH', '/bin'],
        ['PATH', '$PATH:/usr/bin'],
      ],
    );
    assert.equal(container(created).env.length, 3);
    assert.equal(container(created).ports.length, 3);
    const annotationOwned = { '.': {}, 'f:deprecated.daemonset.template.generation': {} };
    assert.deepEqual(untimed(created), [entry('create', 'Update', 'apps/v1', createdFields(annotationOwned))]);

    // Apply unrelated fields: the field manager is strictly additive.
    const first = obj(await apply(t, DAEMONSETS, 'example-daemonset', daemonSet([{ name: 'port3', containerPort: 443 }], [{ name: 'HOME', value: '/usr/home' }], false), 'apply'));
    assert.equal(container(first).env.length, 4);
    assert.equal(container(first).ports.length, 4);
    assert.deepEqual(untimed(first), [entry('apply', 'Apply', 'apps/v1', applied('HOME', 443)), entry('create', 'Update', 'apps/v1', createdFields(annotationOwned))]);

    // An update renames some ports and changes a duplicated variable: it takes the duplicated items (and the annotation it dropped).
    const put = await write(
      'update',
      'update',
      [
        ['port0', 1],
        ['port3', 443],
        ['port4', 80],
        ['port5', 80],
      ],
      [
        ['ENV0', '/env0value'],
        ['PATH', '/bin'],
        ['PATH', '$PATH:/usr/bin:/usr/local/bin'],
        ['HOME', '/usr/home'],
      ],
    );
    assert.equal(container(put).env.length, 4);
    assert.equal(container(put).ports.length, 4);
    const updateAnnotation = { 'f:metadata': { 'f:annotations': { 'f:deprecated.daemonset.template.generation': {} } } };
    assert.deepEqual(untimed(put), [
      entry('apply', 'Apply', 'apps/v1', applied('HOME', 443)),
      entry('create', 'Update', 'apps/v1', createdFields({}, false)),
      entry('update', 'Update', 'apps/v1', {
        ...updateAnnotation,
        'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { [nginx]: { 'f:env': { [envVar('PATH')]: {} }, 'f:ports': { [port(80)]: {} } } } } } },
      }),
    ]);

    // A forced apply replaces the duplicated items with one each and drops what it no longer applies.
    const forced = obj(
      await apply(t, DAEMONSETS, 'example-daemonset', daemonSet([{ name: 'port80', containerPort: 80 }], [{ name: 'PATH', value: '/bin:/usr/bin:/usr/local/bin' }], false), 'apply', { query: { force: 'true' } }),
    );
    assert.equal(container(forced).env.length, 2, 'HOME removed, PATH replaced by one item');
    assert.equal(container(forced).ports.length, 2);
    assert.deepEqual(untimed(forced), [
      entry('apply', 'Apply', 'apps/v1', applied('PATH', 80)),
      entry('create', 'Update', 'apps/v1', createdFields({}, false)),
      entry('update', 'Update', 'apps/v1', updateAnnotation),
    ]);

    // A status write without the annotation keeps it: it is the internal spec.templateGeneration, kept with the spec.
    const generation = forced.metadata?.annotations?.['deprecated.daemonset.template.generation'];
    assert.equal(generation, '4', 'created 1, bumped by both applies and the update: each changed the template');
    const statusBody = { ...forced, metadata: { ...forced.metadata, annotations: {} }, status: { ...(forced.status as object), numberMisscheduled: 0, observedGeneration: 4 } };
    const afterStatus = obj(await send(t, DAEMONSETS, { verb: 'update', name: 'example-daemonset', subresource: 'status', body: statusBody, query: { fieldManager: 'status' } }));
    assert.equal(afterStatus.metadata?.annotations?.['deprecated.daemonset.template.generation'], '4');
  });
});

describe('server-side apply on subresources', () => {
  test('apply on /status changes status only and records subresource status; a missing object is 404 (status_test.go)', async () => {
    const t = await server();
    await apply(t, DEPLOYMENTS, 'deployment', nginxDeployment());
    const status = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'deployment' },
      spec: { replicas: 9 },
      status: { replicas: 2, observedGeneration: 1 },
    };
    const res = obj(await apply(t, DEPLOYMENTS, 'deployment', status, 'status_writer', { subresource: 'status' }));
    assert.equal(deploymentSpec(res).replicas, 3, 'spec is not written through /status');
    assert.deepEqual(res.status, { replicas: 2, observedGeneration: 1 });
    const mine = managedFields(res)?.find((e) => e.manager === 'status_writer');
    assert.deepEqual(mine, entry('status_writer', 'Apply', 'apps/v1', { 'f:status': { 'f:observedGeneration': {}, 'f:replicas': {} } }, { time: START, subresource: 'status' }));
    await rejectsWithStatus(apply(t, DEPLOYMENTS, 'nope', { ...status, metadata: { name: 'nope' } }, 'status_writer', { subresource: 'status' }), 404, 'deployments.apps "nope" not found');
    await rejectsWithStatus(get(t, DEPLOYMENTS, 'nope'), 404);
  });

  test('reset fields are never owned: status applied at the main resource is dropped, and causes no conflict later (reset_fields_test.go)', async () => {
    const t = await server();
    const withStatus = { ...nginxDeployment(), status: { replicas: 42 } };
    const created = obj(await apply(t, DEPLOYMENTS, 'deployment', withStatus, 'main_writer'));
    assert.notEqual((created.status as { replicas?: number } | undefined)?.replicas, 42);
    assert.ok(!JSON.stringify(managedFields(created)).includes('f:status'), 'the main resource owns no status');
    // Another manager applies status through /status: the main writer never owned it, so no conflict.
    const status = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'deployment' }, status: { replicas: 7 } };
    const res = obj(await apply(t, DEPLOYMENTS, 'deployment', status, 'status_writer', { subresource: 'status' }));
    assert.equal((res.status as { replicas?: number }).replicas, 7);
    // And the main writer re-applying its status is still a no-op for status, not a conflict.
    const again = obj(await apply(t, DEPLOYMENTS, 'deployment', withStatus, 'main_writer'));
    assert.equal((again.status as { replicas?: number }).replicas, 7);
  });

  test('an update of /status keeps the live managedFields whatever the request sends (TestApplyDoesNotChangeManagedFieldsViaSubresources)', async () => {
    const t = await server();
    const live = obj(await apply(t, DEPLOYMENTS, 'deployment', nginxDeployment()));
    const body = {
      metadata: { managedFields: [{ manager: 'testing', operation: 'Update', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:paused': {} } } }] },
      status: { conditions: [{ type: 'MyStatus', status: 'True' }] },
    };
    const res = obj(await send(t, DEPLOYMENTS, { verb: 'patch', name: 'deployment', subresource: 'status', patchType: 'application/merge-patch+json', body, query: { fieldManager: 'update_managedfields_test' } }));
    const entries = managedFields(res) ?? [];
    assert.equal(entries.length, 2);
    assert.deepEqual(entries[0], managedFields(live)?.[0]);
    assert.equal(entries[1]?.manager, 'update_managedfields_test');
    assert.equal(entries[1]?.subresource, 'status');
  });

  test('the /scale writer owns the parent replicas; an apply of a Scale conflicts with it (scale_test.go)', async () => {
    const t = await server();
    await apply(t, DEPLOYMENTS, 'deployment', nginxDeployment());
    await send(t, DEPLOYMENTS, { verb: 'patch', name: 'deployment', subresource: 'scale', patchType: 'application/merge-patch+json', body: { spec: { replicas: 5 } }, userAgent: 'kubectl/v1.33.0 (linux/amd64) kubernetes/abcdef0' });
    const d = await get(t, DEPLOYMENTS, 'deployment');
    assert.equal(deploymentSpec(d).replicas, 5);
    // scalehandler.go ToParent keeps only the parent's times: a manager that came through /scale has none.
    assert.deepEqual(managedFields(d)?.find((e) => e.manager === 'kubectl'), entry('kubectl', 'Update', 'apps/v1', { 'f:spec': { 'f:replicas': {} } }, { subresource: 'scale' }));
    const scale = { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'deployment' }, spec: { replicas: 7 } };
    // The Scale's managedFields are the parent's owners of replicas re-encoded at autoscaling/v1
    // (scalehandler.go ToSubresource), so the Update manager's identifier names that version.
    await rejectsWithStatus(
      apply(t, DEPLOYMENTS, 'deployment', scale, 'scaler', { subresource: 'scale' }),
      409,
      'Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using autoscaling/v1: .spec.replicas',
    );
    const forced = obj(await apply(t, DEPLOYMENTS, 'deployment', scale, 'scaler', { subresource: 'scale', query: { force: 'true' } }));
    assert.equal((forced.spec as { replicas: number }).replicas, 7);
    const after = await get(t, DEPLOYMENTS, 'deployment');
    assert.deepEqual(
      managedFields(after)?.find((e) => e.manager === 'scaler'),
      entry('scaler', 'Apply', 'apps/v1', { 'f:spec': { 'f:replicas': {} } }, { subresource: 'scale' }),
    );
    assert.equal(managedFields(after)?.find((e) => e.manager === 'kubectl'), undefined);
  });
});
