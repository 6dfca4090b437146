/**
 * Server-side apply of custom resources through the in-process API server: the CRD's structural
 * schema decides how lists merge (merge-schema.ts). Upstream's rules (kube-openapi
 * pkg/schemaconv/openapi.go, sigs.k8s.io/structured-merge-diff merge/update.go) and cases from
 * kubernetes/kubernetes test/integration/apiserver/apply/apply_crd_test.go (TestApplyCRDStructuralSchema,
 * ported whole: a `map` list merges item by item and finalizers are a set; TestApplyCRDNoSchema,
 * TestApplyCRDUnhandledSchema: lists without list type are atomic):
 *
 * - `x-kubernetes-list-type: map` (keys `name`): each manager owns its own items (`k:{"name":"a"}`),
 *   removing an item from one's configuration removes only that item;
 * - `set`: members are owned one by one (`v:"x"`);
 * - no list type (atomic): the list is one value; another manager's different list conflicts on
 *   `.spec.args`, the same list is shared, force replaces it whole;
 * - an object property is a granular map, `x-kubernetes-map-type: atomic` makes it one value.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CustomResourceDefinition, KubeObject, ManagedFieldsEntry } from '../../../api/index.js';
import type { RestRequest } from '../../../api/request.js';
import type { HandleResult } from '../../index.js';
import { newTestServer, rejectsWithStatus, testStrategies, type TestServer } from '../../testing/fixtures.js';
import { customResourceDefinitionStrategy } from '../resources/customresourcedefinitions.js';
import type { ResourceStrategy } from '../strategy.js';

const GROUP = 'ssa.example.com';

/** `tests.ssa.example.com`: spec.ports (map list keyed by name), spec.tags (set), spec.args (atomic), spec.labels (granular map), spec.config (atomic map). */
function testCrd(): CustomResourceDefinition {
  const spec = {
    type: 'object',
    properties: {
      ports: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
      },
      tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
      args: { type: 'array', items: { type: 'string' } },
      replicas: { type: 'integer' },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      config: { type: 'object', 'x-kubernetes-map-type': 'atomic', properties: { mode: { type: 'string' }, level: { type: 'integer' } } },
    },
  };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `tests.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural: 'tests', singular: 'test', kind: 'Test' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec, status: { type: 'object', properties: { phase: { type: 'string' }, replicas: { type: 'integer' } } } } } },
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
        },
      ],
    },
  };
}

/** A server with the CRD created and served (ApiServer.settled lets its lifecycle establish it). */
async function serverWithCrd(): Promise<TestServer> {
  const t = await newTestServer({ strategies: [...testStrategies, customResourceDefinitionStrategy as unknown as ResourceStrategy] });
  await t.server.handle({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', verb: 'create', body: testCrd() });
  await t.server.settled();
  return t;
}

/** Applies `spec` (and `status` at /status) to test `name` as `manager`. */
function applyTest(t: TestServer, manager: string, spec: Record<string, unknown>, extra: Partial<RestRequest> = {}, name = 'x'): Promise<HandleResult> {
  const body = { apiVersion: `${GROUP}/v1`, kind: 'Test', metadata: { name }, spec };
  return t.server.handle({ group: GROUP, version: 'v1', resource: 'tests', namespace: 'default', ...extra, verb: 'patch', name, patchType: 'application/apply-patch+yaml', body, query: { fieldManager: manager, ...extra.query } });
}

const specOf = (r: HandleResult): Record<string, unknown> => (r.body as KubeObject).spec as Record<string, unknown>;

/** The fieldsV1 of each manager's entry. */
function owned(r: HandleResult): Record<string, unknown> {
  const entries: ManagedFieldsEntry[] = (r.body as KubeObject).metadata?.managedFields ?? [];
  return Object.fromEntries(entries.map((e): [string, unknown] => [e.manager ?? '', e.fieldsV1]));
}

describe('server-side apply of custom resources: list and map types from the CRD schema', () => {
  test('a map list: each manager owns its items; dropping an item from a configuration removes only it', async () => {
    const t = await serverWithCrd();
    const first = await applyTest(t, 'a', { ports: [{ name: 'http', port: 80 }] });
    assert.equal(first.code, 201);
    const both = await applyTest(t, 'b', { ports: [{ name: 'metrics', port: 9090 }] });
    assert.deepEqual(specOf(both).ports, [
      { name: 'http', port: 80 },
      { name: 'metrics', port: 9090 },
    ]);
    assert.deepEqual(owned(both), {
      a: { 'f:spec': { 'f:ports': { 'k:{"name":"http"}': { '.': {}, 'f:name': {}, 'f:port': {} } } } },
      b: { 'f:spec': { 'f:ports': { 'k:{"name":"metrics"}': { '.': {}, 'f:name': {}, 'f:port': {} } } } },
    });
    // b changing a's item is a conflict on that item's field only.
    await rejectsWithStatus(applyTest(t, 'b', { ports: [{ name: 'metrics', port: 9090 }, { name: 'http', port: 8080 }] }), 409, 'Apply failed with 1 conflict: conflict with "a": .spec.ports[name="http"].port');
    const dropped = await applyTest(t, 'a', { ports: [] });
    assert.deepEqual(specOf(dropped).ports, [{ name: 'metrics', port: 9090 }]);
  });

  test('a set: members are owned one by one', async () => {
    const t = await serverWithCrd();
    await applyTest(t, 'a', { tags: ['x'] });
    const both = await applyTest(t, 'b', { tags: ['y'] });
    assert.deepEqual(specOf(both).tags, ['x', 'y']);
    assert.deepEqual(owned(both), { a: { 'f:spec': { 'f:tags': { 'v:"x"': {} } } }, b: { 'f:spec': { 'f:tags': { 'v:"y"': {} } } } });
    const removed = await applyTest(t, 'a', {});
    assert.deepEqual(specOf(removed).tags, ['y']);
  });

  test('a list without list type is atomic: replaced whole, a different list conflicts, the same one is shared, force takes it', async () => {
    const t = await serverWithCrd();
    await applyTest(t, 'a', { args: ['--one', '--two'] });
    const err = await rejectsWithStatus(applyTest(t, 'b', { args: ['--three'] }), 409, 'Apply failed with 1 conflict: conflict with "a": .spec.args');
    assert.deepEqual(err.status.details?.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "a"', field: '.spec.args' }]);
    const shared = await applyTest(t, 'b', { args: ['--one', '--two'] });
    assert.deepEqual(owned(shared), { a: { 'f:spec': { 'f:args': {} } }, b: { 'f:spec': { 'f:args': {} } } });
    const forced = await applyTest(t, 'c', { args: ['--three'] }, { query: { force: 'true' } });
    assert.deepEqual(specOf(forced).args, ['--three']);
    // Force moves the whole list to c; a and b own nothing else and are gone.
    assert.deepEqual(owned(forced), { c: { 'f:spec': { 'f:args': {} } } });
  });

  test('an object is a granular map unless x-kubernetes-map-type is atomic', async () => {
    const t = await serverWithCrd();
    await applyTest(t, 'a', { labels: { team: 'x' }, config: { mode: 'fast' } });
    const both = await applyTest(t, 'b', { labels: { tier: 'web' } });
    assert.deepEqual(specOf(both).labels, { team: 'x', tier: 'web' });
    await rejectsWithStatus(applyTest(t, 'b', { config: { level: 3 } }), 409, 'Apply failed with 1 conflict: conflict with "a": .spec.config');
    assert.deepEqual(owned(both).a, { 'f:spec': { 'f:config': {}, 'f:labels': { 'f:team': {} } } });
  });

  test('apply on /status writes status only, recorded with subresource status', async () => {
    const t = await serverWithCrd();
    await applyTest(t, 'a', { args: ['--one'] });
    const body = { apiVersion: `${GROUP}/v1`, kind: 'Test', metadata: { name: 'x' }, spec: { args: ['--changed'] }, status: { phase: 'Ready' } };
    const res = await t.server.handle({ group: GROUP, version: 'v1', resource: 'tests', namespace: 'default', verb: 'patch', name: 'x', subresource: 'status', patchType: 'application/apply-patch+yaml', body, query: { fieldManager: 'ctrl' } });
    const o = res.body as KubeObject;
    assert.deepEqual(o.status, { phase: 'Ready' });
    assert.deepEqual(specOf(res).args, ['--one']);
    const entry = (o.metadata?.managedFields ?? []).find((e) => e.manager === 'ctrl');
    assert.deepEqual({ operation: entry?.operation, subresource: entry?.subresource, fieldsV1: entry?.fieldsV1 }, { operation: 'Apply', subresource: 'status', fieldsV1: { 'f:status': { 'f:phase': {} } } });
  });

  test('the /scale writer owns the specReplicasPath field of the custom resource (scalehandler.go)', async () => {
    const t = await serverWithCrd();
    await applyTest(t, 'a', { replicas: 1 });
    await t.server.handle({
      group: GROUP,
      version: 'v1',
      resource: 'tests',
      namespace: 'default',
      verb: 'patch',
      name: 'x',
      subresource: 'scale',
      patchType: 'application/merge-patch+json',
      body: { spec: { replicas: 4 } },
      userAgent: 'kubectl/v1.33.0 (linux/amd64) kubernetes/abcdef0',
    });
    const got = await t.server.handle({ group: GROUP, version: 'v1', resource: 'tests', namespace: 'default', verb: 'get', name: 'x' });
    assert.equal(specOf(got).replicas, 4);
    assert.deepEqual(owned(got), { kubectl: { 'f:spec': { 'f:replicas': {} } } });
    const entry = (got.body as KubeObject).metadata?.managedFields?.find((e) => e.manager === 'kubectl');
    assert.equal(entry?.subresource, 'scale');
    await rejectsWithStatus(applyTest(t, 'a', { replicas: 1 }), 409, 'Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using ssa.example.com/v1: .spec.replicas');
  });

  test('TestApplyCRDStructuralSchema: finalizers are a set, unknown preserved fields conflict, a map list keyed by containerPort and protocol', async () => {
    const t = await newTestServer({ strategies: [...testStrategies, customResourceDefinitionStrategy as unknown as ResourceStrategy] });
    const port = { type: 'object', required: ['containerPort', 'protocol'], properties: { containerPort: { type: 'integer', format: 'int32' }, hostIP: { type: 'string' }, hostPort: { type: 'integer', format: 'int32' }, name: { type: 'string' }, protocol: { type: 'string' } } };
    const spec = {
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      properties: {
        cronSpec: { type: 'string', pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$' },
        ports: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['containerPort', 'protocol'], items: port },
      },
    };
    const crd: CustomResourceDefinition = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'noxus.mygroup.example.com' },
      spec: {
        group: 'mygroup.example.com',
        scope: 'Cluster',
        names: { plural: 'noxus', singular: 'nonenglishnoxu', kind: 'WishIHadChosenNoxu', listKind: 'NoxuItemList' },
        versions: [{ name: 'v1beta1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec } } } }],
      },
    };
    await t.server.handle({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', verb: 'create', body: crd });
    await t.server.settled();
    const noxus = { group: 'mygroup.example.com', version: 'v1beta1', resource: 'noxus' };
    const doc = (spec: Record<string, unknown>, finalizers?: string[]): Record<string, unknown> => ({
      apiVersion: 'mygroup.example.com/v1beta1',
      kind: 'WishIHadChosenNoxu',
      metadata: { name: 'mytest', ...(finalizers ? { finalizers } : {}) },
      spec,
    });
    const yamlBody = doc({ cronSpec: '* * * * */5', replicas: 1, ports: [{ name: 'x', containerPort: 80, protocol: 'TCP' }] }, ['test-finalizer']);
    const applyAs = (manager: string, body: unknown, force = false): Promise<HandleResult> =>
      t.server.handle({ ...noxus, verb: 'patch', name: 'mytest', patchType: 'application/apply-patch+yaml', body, query: { fieldManager: manager, ...(force ? { force: 'true' } : {}) } });
    const merge = (body: unknown): Promise<HandleResult> => t.server.handle({ ...noxus, verb: 'patch', name: 'mytest', patchType: 'application/merge-patch+json', body });
    const finalizers = (r: HandleResult): string[] | undefined => (r.body as KubeObject).metadata?.finalizers;

    const created = await applyAs('apply_test', yamlBody);
    assert.deepEqual(finalizers(created), ['test-finalizer']);
    assert.equal(specOf(created).replicas, 1);
    assert.equal((specOf(created).ports as unknown[]).length, 1);
    assert.deepEqual(finalizers(await merge({ metadata: { finalizers: ['test-finalizer', 'another-one'] } })), ['test-finalizer', 'another-one']);
    // Finalizers are a set: the same configuration again keeps the other one.
    assert.deepEqual(finalizers(await applyAs('apply_test', yamlBody)), ['test-finalizer', 'another-one']);

    assert.equal(specOf(await merge({ spec: { replicas: 5 } })).replicas, 5);
    const conflict = await rejectsWithStatus(applyAs('apply_test', yamlBody), 409);
    assert.equal(conflict.status.details?.causes?.length, 1);
    assert.equal(specOf(await applyAs('apply_test', yamlBody, true)).replicas, 1);

    // Another applier may not change apply_test's item, but may add its own.
    const edit = await rejectsWithStatus(applyAs('apply_test_2', doc({ ports: [{ name: 'y', containerPort: 80, protocol: 'TCP' }] })), 409);
    assert.deepEqual(edit.status.details?.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "apply_test"', field: '.spec.ports[containerPort=80,protocol="TCP"].name' }]);
    const added = await applyAs('apply_test_2', doc({ ports: [{ name: 'y', containerPort: 8080, protocol: 'TCP' }] }));
    assert.equal((specOf(added).ports as unknown[]).length, 2);

    // No create on update for custom resources.
    await rejectsWithStatus(t.server.handle({ ...noxus, verb: 'update', name: 'should-not-exist', body: { ...yamlBody, metadata: { name: 'should-not-exist' } }, query: { fieldManager: 'apply_test' } }), 404);
  });
});
