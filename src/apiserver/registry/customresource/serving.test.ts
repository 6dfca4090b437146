/**
 * Serving custom resources from CustomResourceDefinitions, against the in-process API server: the
 * CRD lifecycle (names, conditions, finalizer), the custom resource strategy (status and scale
 * subresources, generation, field selectors, deprecation, patch types, webhook conversion), tables.
 * Cases follow k8s.io/apiextensions-apiserver v0.33.9 pkg/registry/customresource/strategy_test.go,
 * validator_test.go, pkg/controller/status/naming_controller_test.go and test/integration
 * (basic_test.go, subresources_test.go, deprecated_version_test.go, finalization_test.go).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CustomResourceDefinition, KubeList, KubeObject } from '../../../api/index.js';
import type { RestRequest } from '../../../api/request.js';
import { customResourceDefinitionStrategy } from '../resources/customresourcedefinitions.js';
import { newTestServer, plainStrategy, rejectsWithStatus, resourceInfo, testStrategies, type TestServer } from '../../testing/fixtures.js';
import { MemoryBackend } from '../../../storage/memory/index.js';
import { encodeForStorage } from '../generic/objects.js';
import type { ResourceStrategy } from '../strategy.js';
import { resourceIndexOf } from '../../http/resource-index.js';
import { buildOpenApiDocuments, openApiPath } from '../../http/openapi.js';
import * as apiSchema from '../../../api/schema/index.js';

const CRDS = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };

function crontabCrd(overrides: Partial<CustomResourceDefinition['spec']> = {}): CustomResourceDefinition {
  const schema = {
    openAPIV3Schema: {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { cronSpec: { type: 'string' }, replicas: { type: 'integer' }, color: { type: 'string' } },
        },
        status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      },
    },
  };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'crontabs.stable.example.com' },
    spec: {
      group: 'stable.example.com',
      scope: 'Namespaced',
      names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', shortNames: ['ct'], categories: ['all'] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema,
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
          additionalPrinterColumns: [
            { name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' },
            { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas', priority: 1 },
            { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
          selectableFields: [{ jsonPath: '.spec.color' }],
        },
        // A schema of its own: identical ones would be shared at spec level, where selectableFields are not.
        { name: 'v1beta1', served: true, storage: false, deprecated: true, schema: { openAPIV3Schema: { ...schema.openAPIV3Schema, description: 'old' } } },
      ],
      ...overrides,
    },
  };
}

async function newServer(backend?: MemoryBackend): Promise<TestServer> {
  return newTestServer({ strategies: [...testStrategies, customResourceDefinitionStrategy as unknown as ResourceStrategy], ...(backend ? { backend } : {}) });
}

/** Lets the lifecycle (promise chains inside the server) run until `done` holds; fails after many turns. */
async function until(done: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await done()) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  assert.fail(`timed out waiting for ${what}`);
}

async function getCrd(t: TestServer, name: string): Promise<CustomResourceDefinition | undefined> {
  try {
    return (await t.server.handle({ ...CRDS, verb: 'get', name })).body as CustomResourceDefinition;
  } catch {
    return undefined;
  }
}

function condition(crd: CustomResourceDefinition | undefined, type: string): { status: string; reason?: string; message?: string } | undefined {
  const c = crd?.status?.conditions?.find((x) => x.type === type);
  return c && { status: c.status, ...(c.reason ? { reason: c.reason } : {}), ...(c.message ? { message: c.message } : {}) };
}

/** Creates `crd`; once the server has settled (ApiServer.settled: the lifecycle's sync is done) it is Established and served. */
async function established(t: TestServer, crd: CustomResourceDefinition): Promise<void> {
  await t.server.handle({ ...CRDS, verb: 'create', body: crd });
  await t.server.settled();
  assert.equal(condition(await getCrd(t, crd.metadata?.name ?? ''), 'Established')?.status, 'True');
  assert.ok(resourceIndexOf(t.server).get(crd.spec.group, crd.spec.versions[0]?.name ?? '', crd.spec.names.plural), 'served');
}

const crontabs = (t: TestServer, req: Partial<RestRequest> & Pick<RestRequest, 'verb'>) =>
  t.server.handle({ group: 'stable.example.com', version: 'v1', resource: 'crontabs', namespace: 'default', ...req });

function crontab(name: string, spec: Record<string, unknown> = { cronSpec: '* * * * */5', replicas: 1 }): KubeObject {
  return { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name }, spec };
}

describe('CRD lifecycle', () => {
  test('a new CRD gets accepted names, NamesAccepted and Established, and its versions are served', async () => {
    const t = await newServer();
    await established(t, crontabCrd());
    const crd = await getCrd(t, 'crontabs.stable.example.com');
    assert.deepEqual(condition(crd, 'NamesAccepted'), { status: 'True', reason: 'NoConflicts', message: 'no conflicts found' });
    assert.deepEqual(condition(crd, 'Established'), { status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' });
    assert.deepEqual(crd?.status?.acceptedNames, { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList', shortNames: ['ct'], categories: ['all'] });
    const v1 = resourceIndexOf(t.server).get('stable.example.com', 'v1', 'crontabs');
    assert.deepEqual(v1?.info.shortNames, ['ct']);
    assert.deepEqual(v1?.info.categories, ['all']);
    assert.deepEqual(v1?.info.subresources.map((s) => s.name), ['status', 'scale']);
    assert.ok(resourceIndexOf(t.server).get('stable.example.com', 'v1beta1', 'crontabs'), 'the second served version');
  });

  test('a CRD whose plural another CRD of the group accepted is not established (naming_controller_test)', async () => {
    const t = await newServer();
    await established(t, crontabCrd());
    const clash = crontabCrd({ names: { plural: 'crontabs', singular: 'other', kind: 'Other', listKind: 'OtherList' } });
    clash.metadata = { name: 'crontabs2.stable.example.com' };
    // CRD validation wants the name to be <plural>.<group>; use a matching plural with a clashing short name instead.
    clash.metadata.name = 'others.stable.example.com';
    clash.spec.names = { plural: 'others', singular: 'other', kind: 'Other', shortNames: ['ct'] };
    await t.server.handle({ ...CRDS, verb: 'create', body: clash });
    await until(async () => condition(await getCrd(t, 'others.stable.example.com'), 'NamesAccepted') !== undefined, 'NamesAccepted');
    const crd = await getCrd(t, 'others.stable.example.com');
    assert.deepEqual(condition(crd, 'NamesAccepted'), { status: 'False', reason: 'ShortNamesConflict', message: '"ct" is already in use' });
    assert.deepEqual(condition(crd, 'Established'), { status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' });
    assert.equal(resourceIndexOf(t.server).get('stable.example.com', 'v1', 'others'), undefined);

    // Once the CRD holding the name is gone, the other one gets it.
    await t.server.handle({ ...CRDS, verb: 'delete', name: 'crontabs.stable.example.com' });
    await until(async () => condition(await getCrd(t, 'others.stable.example.com'), 'Established')?.status === 'True', 'the other CRD established');
    assert.deepEqual(condition(await getCrd(t, 'others.stable.example.com'), 'NamesAccepted'), { status: 'True', reason: 'NoConflicts', message: 'no conflicts found' });
  });

  test('deleting a CRD marks it Terminating, deletes its custom resources, refuses creates, then it goes (finalization_test)', async () => {
    const t = await newServer();
    await established(t, crontabCrd());
    await crontabs(t, { verb: 'create', body: crontab('a') });
    await crontabs(t, { verb: 'create', body: { ...crontab('held'), metadata: { name: 'held', finalizers: ['example.com/hold'] } } });
    const first = (await t.server.handle({ ...CRDS, verb: 'delete', name: 'crontabs.stable.example.com' })).body as CustomResourceDefinition;
    assert.ok(first.metadata?.deletionTimestamp);
    assert.deepEqual(first.metadata?.finalizers, ['customresourcecleanup.apiextensions.k8s.io']);
    assert.deepEqual(condition(first, 'Terminating'), {
      status: 'True',
      reason: 'InstanceDeletionPending',
      message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
    });
    await until(async () => condition(await getCrd(t, 'crontabs.stable.example.com'), 'Terminating')?.reason === 'InstanceDeletionInProgress', 'deletion in progress');
    await rejectsWithStatus(crontabs(t, { verb: 'create', body: crontab('late') }), 405, 'create is not supported on resources of kind "crontabs.stable.example.com"');
    await until(async () => ((await crontabs(t, { verb: 'list' })).body as KubeList).items.every((o) => o.metadata?.name === 'held'), 'instances deleted');
    assert.ok(await getCrd(t, 'crontabs.stable.example.com'), 'the CRD waits for the instance with a finalizer');
    await crontabs(t, { verb: 'patch', name: 'held', patchType: 'application/merge-patch+json', body: { metadata: { finalizers: null } } });
    t.clock.step(1_000);
    await until(async () => (await getCrd(t, 'crontabs.stable.example.com')) === undefined, 'CRD gone');
    await until(() => resourceIndexOf(t.server).get('stable.example.com', 'v1', 'crontabs') === undefined, 'unserved');
  });

  test('a plural a built-in resource of the group has is a conflict', async () => {
    const t = await newServer();
    const crd = crontabCrd({ group: 'example.com', names: { plural: 'widgets', kind: 'Widget2' } });
    crd.metadata = { name: 'widgets.example.com' };
    await t.server.handle({ ...CRDS, verb: 'create', body: crd });
    await until(async () => condition(await getCrd(t, 'widgets.example.com'), 'NamesAccepted') !== undefined, 'NamesAccepted');
    assert.deepEqual(condition(await getCrd(t, 'widgets.example.com'), 'NamesAccepted'), { status: 'False', reason: 'PluralConflict', message: '"widgets" is already in use' });
  });

  test('CRDs stored before start-up are served when the server starts; a broken one does not stop the others', async () => {
    const backend = new MemoryBackend();
    const good = crontabCrd();
    good.metadata = { name: 'crontabs.stable.example.com', uid: 'u1', creationTimestamp: '2025-01-01T00:00:00Z' };
    // No storage version: CRD validation would refuse it, so only storage written behind its back holds one.
    const broken = crontabCrd({ group: 'broken.example.com', names: { plural: 'crontabs', kind: 'CronTab' } });
    broken.metadata = { name: 'crontabs.broken.example.com', uid: 'u2', creationTimestamp: '2025-01-01T00:00:00Z' };
    for (const v of broken.spec.versions) v.storage = false;
    await backend.create('/registry/apiextensions.k8s.io/customresourcedefinitions/crontabs.broken.example.com', encodeForStorage(broken as unknown as KubeObject));
    await backend.create('/registry/apiextensions.k8s.io/customresourcedefinitions/crontabs.stable.example.com', encodeForStorage(good as unknown as KubeObject));
    const t = await newServer(backend);
    assert.ok(resourceIndexOf(t.server).get('stable.example.com', 'v1', 'crontabs'), 'served once start-up is done');
    assert.equal(condition(await getCrd(t, 'crontabs.stable.example.com'), 'Established')?.status, 'True');
    await crontabs(t, { verb: 'create', body: crontab('a') });
    assert.equal(resourceIndexOf(t.server).get('broken.example.com', 'v1', 'crontabs'), undefined);
  });

  test('a changed CRD is served again: a new printer column appears', async () => {
    const t = await newServer();
    await established(t, crontabCrd());
    const crd = (await getCrd(t, 'crontabs.stable.example.com')) as CustomResourceDefinition;
    const next = structuredClone(crd);
    (next.spec.versions[0] as { additionalPrinterColumns?: unknown[] }).additionalPrinterColumns = [{ name: 'Color', type: 'string', jsonPath: '.spec.color' }];
    await t.server.handle({ ...CRDS, verb: 'update', name: crd.metadata?.name ?? '', body: next });
    await until(() => resourceIndexOf(t.server).get('stable.example.com', 'v1', 'crontabs')?.table.columns[1]?.name === 'Color', 'new columns');
  });
});

describe('custom resources', () => {
  test('create resets status, sets generation 1; spec changes bump generation, status updates do not', async () => {
    const t = await newServer();
    await established(t, crontabCrd());
    const created = (await crontabs(t, { verb: 'create', body: { ...crontab('a'), status: { replicas: 3 } } })).body as KubeObject;
    assert.equal(created.status, undefined);
    assert.equal(created.metadata?.generation, 1);
    const withStatus = (await crontabs(t, { verb: 'update', name: 'a', subresource: 'status', body: { ...created, status: { replicas: 2 }, spec: { cronSpec: 'ignored' } } })).body as KubeObject;
    assert.deepEqual(withStatus.status, { replicas: 2 });
    assert.equal((withStatus.spec as { cronSpec: string }).cronSpec, '* * * * */5');
    assert.equal(withStatus.metadata?.generation, 1);
    const labelled = (await crontabs(t, { verb: 'patch', name: 'a', patchType: 'application/merge-patch+json', body: { metadata: { labels: { a: 'b' } }, status: { replicas: 9 } } })).body as KubeObject;
    assert.equal(labelled.metadata?.generation, 1, 'metadata and status changes keep the generation');
    assert.deepEqual(labelled.status, { replicas: 2 }, 'status is kept on updates of the main resource');
    const changed = (await crontabs(t, { verb: 'patch', name: 'a', patchType: 'application/json-patch+json', body: [{ op: 'replace', path: '/spec/replicas', value: 4 }] })).body as KubeObject;
    assert.equal(changed.metadata?.generation, 2);
  });

  test('without a status subresource, status is stored and any non-metadata change bumps generation', async () => {
    const t = await newServer();
    const crd = crontabCrd();
    delete (crd.spec.versions[0] as { subresources?: unknown }).subresources;
    await established(t, crd);
    const created = (await crontabs(t, { verb: 'create', body: { ...crontab('a'), status: { replicas: 3 } } })).body as KubeObject;
    assert.deepEqual(created.status, { replicas: 3 });
    const changed = (await crontabs(t, { verb: 'patch', name: 'a', patchType: 'application/merge-patch+json', body: { status: { replicas: 4 } } })).body as KubeObject;
    assert.equal(changed.metadata?.generation, 2);
    await rejectsWithStatus(crontabs(t, { verb: 'get', name: 'a', subresource: 'status' }), 404);
  });

  test('strategic merge patch is refused with upstream 415', async () => {
    const t = await newServer();
    await established(t, crontabCrd());
    await crontabs(t, { verb: 'create', body: crontab('a') });
    await rejectsWithStatus(
      crontabs(t, { verb: 'patch', name: 'a', patchType: 'application/strategic-merge-patch+json', body: { spec: { replicas: 2 } } }),
      415,
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    );
  });

  test('the scale subresource reads and writes the CRD paths; a bad replicas value is refused (validator_test)', async () => {
    const t = await newServer();
    await established(t, crontabCrd());
    await crontabs(t, { verb: 'create', body: crontab('a') });
    await crontabs(t, { verb: 'patch', name: 'a', subresource: 'status', patchType: 'application/merge-patch+json', body: { status: { replicas: 1, selector: 'app=x' } } });
    const scale = (await crontabs(t, { verb: 'get', name: 'a', subresource: 'scale' })).body as KubeObject;
    assert.deepEqual(scale.spec, { replicas: 1 });
    assert.deepEqual(scale.status, { replicas: 1, selector: 'app=x' });
    const scaled = (await crontabs(t, { verb: 'patch', name: 'a', subresource: 'scale', patchType: 'application/merge-patch+json', body: { spec: { replicas: 5 } } })).body as KubeObject;
    assert.deepEqual(scaled.spec, { replicas: 5 });
    const stored = (await crontabs(t, { verb: 'get', name: 'a' })).body as KubeObject;
    assert.equal((stored.spec as { replicas: number }).replicas, 5);
    assert.equal(stored.metadata?.generation, 2);
    await rejectsWithStatus(
      crontabs(t, { verb: 'patch', name: 'a', patchType: 'application/merge-patch+json', body: { spec: { replicas: -1 } } }),
      422,
      'CronTab.stable.example.com "a" is invalid: .spec.replicas: Invalid value: -1: should be a non-negative integer',
    );
    await rejectsWithStatus(
      crontabs(t, { verb: 'patch', name: 'a', patchType: 'application/merge-patch+json', body: { spec: { replicas: 'x' } } }),
      422,
      // The schema's type error first, then the scale accessor's (upstream validator.go: ValidateCustomResource, then ValidateScaleSpec).
      'CronTab.stable.example.com "a" is invalid: [spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string", .spec.replicas: Invalid value: 0: .spec.replicas accessor error: x is of the type string, expected int64]',
    );
  });

  test('field selectors: metadata.name and selectableFields', async () => {
    const t = await newServer();
    await established(t, crontabCrd());
    await crontabs(t, { verb: 'create', body: crontab('red', { color: 'red' }) });
    await crontabs(t, { verb: 'create', body: crontab('blue', { color: 'blue' }) });
    const names = async (fieldSelector: string): Promise<string[]> =>
      ((await crontabs(t, { verb: 'list', query: { fieldSelector } })).body as KubeList).items.map((o) => o.metadata?.name ?? '');
    assert.deepEqual(await names('spec.color=red'), ['red']);
    assert.deepEqual(await names('metadata.name=blue'), ['blue']);
    await rejectsWithStatus(crontabs(t, { verb: 'list', query: { fieldSelector: 'spec.size=1' } }), 400);
  });

  test('a deprecated version warns with upstream default text and serves the same objects in its apiVersion', async () => {
    const t = await newServer();
    await established(t, crontabCrd());
    await crontabs(t, { verb: 'create', body: crontab('a') });
    const res = await crontabs(t, { verb: 'get', name: 'a', version: 'v1beta1' });
    assert.deepEqual(res.warnings, ['stable.example.com/v1beta1 CronTab is deprecated; use stable.example.com/v1 CronTab']);
    assert.equal((res.body as KubeObject).apiVersion, 'stable.example.com/v1beta1');
    const created = (await crontabs(t, { verb: 'create', version: 'v1beta1', body: { ...crontab('b'), apiVersion: 'stable.example.com/v1beta1' } })).body as KubeObject;
    assert.equal(created.apiVersion, 'stable.example.com/v1beta1');
    const inV1 = (await crontabs(t, { verb: 'get', name: 'b' })).body as KubeObject;
    assert.equal(inV1.apiVersion, 'stable.example.com/v1');
  });

  test('a Webhook conversion fails as an unreachable webhook does', async () => {
    const t = await newServer();
    await established(
      t,
      crontabCrd({
        conversion: {
          strategy: 'Webhook',
          webhook: { conversionReviewVersions: ['v1'], clientConfig: { service: { name: 'conv', namespace: 'system', path: '/convert' } } },
        },
      }),
    );
    await crontabs(t, { verb: 'create', body: crontab('a') });
    await rejectsWithStatus(
      crontabs(t, { verb: 'get', name: 'a', version: 'v1beta1' }),
      500,
      'Internal error occurred: conversion webhook for stable.example.com/v1, Kind=CronTab failed: Post "https://conv.system.svc:443/convert?timeout=30s": service "conv" not found',
    );
  });

  test('unknown fields follow the strategy pruning: Strict refuses, Warn warns, both with upstream words', async () => {
    const info = resourceInfo({ group: 'example.com', version: 'v1', resource: 'gizmos', kind: 'Gizmo' });
    const pruning = plainStrategy(info, {
      pruneUnknownFields: (obj) => {
        const spec = obj.spec as Record<string, unknown> | undefined;
        if (!spec || !('foo' in spec)) return [];
        delete spec['foo'];
        return ['spec.foo'];
      },
    });
    const t = await newServer();
    await t.server.addResource(pruning);
    const gizmos = { group: 'example.com', version: 'v1', resource: 'gizmos', namespace: 'default' };
    const body = { apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name: 'a' }, spec: { foo: 1, bar: 2 } };
    await rejectsWithStatus(
      t.server.handle({ ...gizmos, verb: 'create', body, query: { fieldValidation: 'Strict' } }),
      400,
      'Gizmo in version "v1" cannot be handled as a Gizmo: strict decoding error: unknown field "spec.foo"',
    );
    const res = await t.server.handle({ ...gizmos, verb: 'create', body, query: { fieldValidation: 'Warn' } });
    assert.deepEqual(res.warnings, ['unknown field "spec.foo"']);
    assert.deepEqual((res.body as KubeObject).spec, { bar: 2 });
  });

  test('a strategy defaultOnRead completes objects read from storage: listed at start and changed behind the store', async () => {
    const info = resourceInfo({ group: 'example.com', version: 'v1', resource: 'gizmos', kind: 'Gizmo' });
    const defaulting = plainStrategy(info, {
      defaultOnRead: (obj) => {
        ((obj.spec ??= {}) as Record<string, unknown>)['size'] ??= 'M';
      },
    });
    const t = await newServer();
    const stored = (name: string): KubeObject => ({ apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name, namespace: 'default', uid: name }, spec: {} });
    await t.backend.create('/registry/example.com/gizmos/default/old', encodeForStorage(stored('old')));
    await t.server.addResource(defaulting);
    await t.backend.create('/registry/example.com/gizmos/default/later', encodeForStorage(stored('later')));
    const gizmos = { group: 'example.com', version: 'v1', resource: 'gizmos', namespace: 'default' };
    const list = (await t.server.handle({ ...gizmos, verb: 'list' })).body as KubeList;
    assert.deepEqual(list.items.map((o) => [o.metadata?.name, o.spec]), [
      ['later', { size: 'M' }],
      ['old', { size: 'M' }],
    ]);
  });

  test('finalizers a write adds get upstream warnings (validator.go validateKubeFinalizerName)', async () => {
    const t = await newServer();
    await established(t, crontabCrd());
    const res = await crontabs(t, { verb: 'create', body: { ...crontab('a'), metadata: { name: 'a', finalizers: ['example.com/ok', 'kubernetes', 'mine', 'my.domain'] } } });
    assert.deepEqual(res.warnings, [
      'metadata.finalizers: "mine": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers',
      'metadata.finalizers: "my.domain": prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers',
    ]);
    const updated = await crontabs(t, { verb: 'patch', name: 'a', patchType: 'application/merge-patch+json', body: { metadata: { finalizers: ['mine', 'other'] } } });
    assert.deepEqual(updated.warnings, ['metadata.finalizers: "other": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers']);
  });

  test('the body apiVersion and kind are checked; names must be DNS subdomains', async () => {
    const t = await newServer();
    await established(t, crontabCrd());
    await rejectsWithStatus(
      crontabs(t, { verb: 'create', body: { ...crontab('a'), apiVersion: 'stable.example.com/v2' } }),
      400,
      'the API version in the data (stable.example.com/v2) does not match the expected API version (stable.example.com/v1)',
    );
    await rejectsWithStatus(crontabs(t, { verb: 'create', body: crontab('Bad_Name') }), 422, /metadata.name: Invalid value: "Bad_Name"/);
  });

  test('tables: Name, the printer columns with their types and priorities, values by JSONPath, dates as ages', async () => {
    const t = await newServer();
    await established(t, crontabCrd());
    const created = (await crontabs(t, { verb: 'create', body: crontab('a') })).body as KubeObject;
    await crontabs(t, { verb: 'patch', name: 'a', subresource: 'status', patchType: 'application/merge-patch+json', body: { status: { conditions: [{ type: 'Other', status: 'False' }, { type: 'Ready', status: 'True' }] } } });
    const table = resourceIndexOf(t.server).get('stable.example.com', 'v1', 'crontabs')?.table;
    assert.deepEqual(table?.columns.map((c) => [c.name, c.type, c.priority]), [
      ['Name', 'string', 0],
      ['Spec', 'string', 0],
      ['Replicas', 'integer', 1],
      ['Ready', 'string', 0],
      ['Age', 'date', 0],
    ]);
    const stored = (await crontabs(t, { verb: 'get', name: 'a' })).body as KubeObject;
    const created0 = Date.parse(created.metadata?.creationTimestamp ?? '');
    assert.deepEqual(table?.row(stored, created0 + 5 * 60_000).cells, ['a', '* * * * */5', 1, 'True', '5m']);
    const plain = resourceIndexOf(t.server).get('stable.example.com', 'v1beta1', 'crontabs')?.table;
    assert.deepEqual(plain?.columns.map((c) => [c.name, c.type]), [['Name', 'string'], ['Age', 'date']]);
  });

  test('OpenAPI: the version schema under its REST-friendly name, with apiVersion, kind, ObjectMeta and a list', async () => {
    const t = await newServer();
    await established(t, crontabCrd());
    const docs = buildOpenApiDocuments(resourceIndexOf(t.server), apiSchema);
    const doc = JSON.parse(docs.documents.get(openApiPath('stable.example.com', 'v1'))?.text ?? '{}') as { components: { schemas: Record<string, Record<string, unknown>> }; paths: Record<string, unknown> };
    const schema = doc.components.schemas['com.example.stable.v1.CronTab'];
    assert.deepEqual(schema?.['x-kubernetes-group-version-kind'], [{ group: 'stable.example.com', kind: 'CronTab', version: 'v1' }]);
    const props = schema?.['properties'] as Record<string, Record<string, unknown>>;
    assert.deepEqual(Object.keys(props).sort(), ['apiVersion', 'kind', 'metadata', 'spec', 'status']);
    assert.deepEqual(props['metadata']?.['allOf'], [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }]);
    assert.ok(doc.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']);
    assert.deepEqual(doc.components.schemas['com.example.stable.v1.CronTabList']?.['x-kubernetes-group-version-kind'], [{ group: 'stable.example.com', kind: 'CronTabList', version: 'v1' }]);
    assert.ok(doc.paths['/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}/scale']);
    assert.match(docs.v2().json, /"com\.example\.stable\.v1\.CronTab"/);
  });
});
