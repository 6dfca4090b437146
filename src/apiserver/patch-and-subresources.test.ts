import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { PatchType, RestRequest } from '../api/request.js';
import type { KubeObject } from '../api/index.js';
import { newTestServer, obj, pods, rejectsWithStatus, widgets, type Req, type TestServer } from './testing/fixtures.js';
import type { HandleResult } from './index.js';

const spec = (o: KubeObject): Record<string, unknown> => o.spec as Record<string, unknown>;

async function withWidget(): Promise<{ t: TestServer; w: KubeObject }> {
  const t = await newTestServer();
  const w = obj(await widgets(t, { verb: 'create', body: { metadata: { name: 'a', labels: { app: 'web' } }, spec: { replicas: 2, selector: 'app=web' } } }));
  return { t, w };
}

const patch = (t: TestServer, patchType: PatchType, body: unknown, extra: Req = { verb: 'patch' }): Promise<HandleResult> =>
  widgets(t, { ...extra, verb: 'patch', name: 'a', patchType, body });

describe('patch', () => {
  test('JSON patch, merge patch and strategic merge patch', async () => {
    const { t } = await withWidget();
    const j = obj(await patch(t, 'application/json-patch+json', [{ op: 'replace', path: '/spec/replicas', value: 3 }, { op: 'add', path: '/metadata/labels/tier', value: 'x' }]));
    assert.equal(spec(j).replicas, 3);
    assert.deepEqual(j.metadata?.labels, { app: 'web', tier: 'x' });
    assert.equal(j.metadata?.generation, 2);
    const m = obj(await patch(t, 'application/merge-patch+json', { metadata: { labels: { tier: null } }, spec: { replicas: 4 } }));
    assert.deepEqual(m.metadata?.labels, { app: 'web' });
    assert.equal(spec(m).replicas, 4);
    // Widgets have no schema: a strategic merge patch is refused as for custom resources.
    await rejectsWithStatus(patch(t, 'application/strategic-merge-patch+json', { spec: { replicas: 5 } }), 415);
    const cm = await t.server.handle({ verb: 'create', group: '', version: 'v1', resource: 'configmaps', namespace: 'default', body: { metadata: { name: 'c', finalizers: ['a.io/x'] }, data: { a: '1' } } });
    const smp = await t.server.handle({
      verb: 'patch',
      group: '',
      version: 'v1',
      resource: 'configmaps',
      namespace: 'default',
      name: 'c',
      patchType: 'application/strategic-merge-patch+json',
      body: { metadata: { finalizers: ['b.io/y'] }, data: { b: '2' } },
    });
    assert.deepEqual([...(obj(smp).metadata?.finalizers ?? [])].sort(), ['a.io/x', 'b.io/y'], 'finalizers merge as a primitive list');
    assert.deepEqual(obj(smp).data, { a: '1', b: '2' });
    assert.notEqual(obj(cm).metadata?.resourceVersion, obj(smp).metadata?.resourceVersion);
  });

  test('a resourceVersion in the patch is a precondition', async () => {
    const { t, w } = await withWidget();
    await patch(t, 'application/merge-patch+json', { spec: { replicas: 3 } });
    await rejectsWithStatus(patch(t, 'application/merge-patch+json', { metadata: { resourceVersion: w.metadata?.resourceVersion }, spec: { replicas: 4 } }), 409, /the object has been modified/);
  });

  test('a patch without resourceVersion retries on a storage conflict', async () => {
    const { t, w } = await withWidget();
    // A write the cache has not seen yet: the first attempt's compare-and-swap fails, the retry applies the patch to it.
    await t.backend.update('/registry/example.com/widgets/default/a', JSON.stringify({ ...w, metadata: { ...w.metadata, resourceVersion: undefined, annotations: { seen: 'yes' } } }), Number(w.metadata?.resourceVersion));
    const res = obj(await patch(t, 'application/merge-patch+json', { spec: { replicas: 6 } }));
    assert.equal(spec(res).replicas, 6);
    assert.deepEqual(res.metadata?.annotations, { seen: 'yes' });
  });

  test('patch errors: 422 for an operation that does not apply, 400 for a malformed patch, 415 for an unknown type, 422 for an apply without fieldManager, 404 for a missing object', async () => {
    const { t } = await withWidget();
    const e = await rejectsWithStatus(patch(t, 'application/json-patch+json', [{ op: 'test', path: '/spec/replicas', value: 9 }]), 422, 'the server rejected our request due to an error in our request');
    assert.equal(e.reason, 'Invalid');
    await rejectsWithStatus(patch(t, 'application/json-patch+json', { op: 'replace' }), 400);
    const unknown = await rejectsWithStatus(patch(t, 'application/yaml' as PatchType, { spec: {} }), 415);
    assert.match(unknown.message, /application\/json-patch\+json, application\/merge-patch\+json, application\/strategic-merge-patch\+json, application\/apply-patch\+yaml/);
    // ValidatePatchOptions: an apply names its manager.
    await rejectsWithStatus(patch(t, 'application/apply-patch+yaml', { spec: {} }), 422, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    await rejectsWithStatus(widgets(t, { verb: 'patch', name: 'zz', patchType: 'application/merge-patch+json', body: {} }), 404, 'widgets.example.com "zz" not found');
    await rejectsWithStatus(patch(t, 'application/merge-patch+json', { metadata: { name: 'b' } }), 400, 'the name of the object (b) does not match the name on the URL (a)');
  });

  test('unknown fields in a patch: Strict is 422 on field patch, Warn warns, nothing is stored', async () => {
    const t = await newTestServer();
    await t.server.handle({ verb: 'create', group: '', version: 'v1', resource: 'configmaps', namespace: 'default', body: { metadata: { name: 'c' } } });
    const cm = (req: Partial<RestRequest>): Promise<HandleResult> =>
      t.server.handle({ verb: 'patch', group: '', version: 'v1', resource: 'configmaps', namespace: 'default', name: 'c', patchType: 'application/merge-patch+json', ...req });
    await rejectsWithStatus(cm({ body: { spec: { x: 1 } }, query: { fieldValidation: 'Strict' } }), 422, /^ "" is invalid: patch: Invalid value: .*strict decoding error: unknown field "spec"$/);
    const res = await cm({ body: { spec: { x: 1 }, data: { a: 'b' } } });
    assert.deepEqual(res.warnings, ['unknown field "spec"']);
    assert.equal(obj(res).spec, undefined);
  });

  test('dryRun patch does not write', async () => {
    const { t } = await withWidget();
    const before = t.server.currentRevision();
    const res = obj(await patch(t, 'application/merge-patch+json', { spec: { replicas: 8 } }, { verb: 'patch', query: { dryRun: 'All' } }));
    assert.equal(spec(res).replicas, 8);
    assert.equal(t.server.currentRevision(), before);
  });
});

describe('status subresource', () => {
  test('PUT and PATCH on /status change only status', async () => {
    const { t, w } = await withWidget();
    const put = obj(await widgets(t, { verb: 'update', name: 'a', subresource: 'status', body: { ...w, metadata: { ...w.metadata, labels: { app: 'changed' } }, spec: { replicas: 99 }, status: { replicas: 1 } } }));
    assert.deepEqual(put.status, { replicas: 1 });
    assert.equal(spec(put).replicas, 2);
    assert.deepEqual(put.metadata?.labels, { app: 'web' });
    assert.equal(put.metadata?.generation, 1);
    const p = obj(await widgets(t, { verb: 'patch', name: 'a', subresource: 'status', patchType: 'application/merge-patch+json', body: { status: { replicas: 2 }, spec: { replicas: 50 } } }));
    assert.deepEqual(p.status, { replicas: 2 });
    assert.equal(spec(p).replicas, 2);
    const got = obj(await widgets(t, { verb: 'get', name: 'a', subresource: 'status' }));
    assert.deepEqual(got, p);
  });

  test('the main resource ignores status', async () => {
    const { t, w } = await withWidget();
    const u = obj(await widgets(t, { verb: 'update', name: 'a', body: { ...w, status: { replicas: 7 } } }));
    assert.deepEqual(u.status, {});
  });
});

describe('scale subresource', () => {
  test('GET returns autoscaling/v1 Scale', async () => {
    const { t, w } = await withWidget();
    const s = obj(await widgets(t, { verb: 'get', name: 'a', subresource: 'scale' }));
    assert.deepEqual(s, {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name: 'a', namespace: 'default', uid: w.metadata?.uid, resourceVersion: w.metadata?.resourceVersion, creationTimestamp: w.metadata?.creationTimestamp },
      spec: { replicas: 2 },
      status: { replicas: 0, selector: 'app=web' },
    });
  });

  test('PUT with the current resourceVersion scales; a stale one is 409; negative is 422', async () => {
    const { t } = await withWidget();
    const s = obj(await widgets(t, { verb: 'get', name: 'a', subresource: 'scale' }));
    const put = obj(await widgets(t, { verb: 'update', name: 'a', subresource: 'scale', body: { ...s, spec: { replicas: 5 } } }));
    assert.equal(spec(put).replicas, 5);
    const w = obj(await widgets(t, { verb: 'get', name: 'a' }));
    assert.equal(spec(w).replicas, 5);
    assert.equal(w.metadata?.generation, 2);
    assert.equal(put.metadata?.resourceVersion, w.metadata?.resourceVersion);
    await rejectsWithStatus(widgets(t, { verb: 'update', name: 'a', subresource: 'scale', body: { ...s, spec: { replicas: 6 } } }), 409, /widgets\.example\.com "a": the object has been modified/);
    await rejectsWithStatus(
      widgets(t, { verb: 'update', name: 'a', subresource: 'scale', body: { ...put, spec: { replicas: -1 } } }),
      422,
      'Scale.autoscaling "a" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    );
  });

  test('PATCH with a merge patch (kubectl scale)', async () => {
    const { t } = await withWidget();
    const s = obj(await widgets(t, { verb: 'patch', name: 'a', subresource: 'scale', patchType: 'application/merge-patch+json', body: { spec: { replicas: 7 } } }));
    assert.equal(spec(s).replicas, 7);
    assert.equal(s.kind, 'Scale');
    await rejectsWithStatus(t.server.handle({ verb: 'get', group: '', version: 'v1', resource: 'pods', namespace: 'default', name: 'p', subresource: 'scale' }), 404);
  });
});

describe('pods/binding', () => {
  test('binds once: spec.nodeName, PodScheduled, 201 Success; a second binding is 409', async () => {
    const t = await newTestServer();
    await pods(t, { verb: 'create', body: { metadata: { name: 'p' }, spec: {} } });
    await t.clock.stepAsync(5000);
    const res = await pods(t, { verb: 'create', name: 'p', subresource: 'binding', body: { metadata: { name: 'p', annotations: { why: 'test' } }, target: { kind: 'Node', name: 'n1' } } });
    assert.equal(res.code, 201);
    assert.deepEqual(res.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    const p = obj(await pods(t, { verb: 'get', name: 'p' }));
    assert.equal(spec(p).nodeName, 'n1');
    assert.equal(p.metadata?.annotations?.why, 'test');
    assert.deepEqual((p.status as { conditions: unknown[] }).conditions, [{ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: '2025-01-01T00:00:05Z' }]);
    await rejectsWithStatus(
      pods(t, { verb: 'create', name: 'p', subresource: 'binding', body: { metadata: { name: 'p' }, target: { kind: 'Node', name: 'n2' } } }),
      409,
      'Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "n1"',
    );
    await rejectsWithStatus(pods(t, { verb: 'create', name: 'p', subresource: 'binding', body: { metadata: { name: 'q' }, target: { name: 'n2' } } }), 400, 'name in URL does not match name in Binding object');
    await rejectsWithStatus(pods(t, { verb: 'create', name: 'zz', subresource: 'binding', body: { metadata: { name: 'zz' }, target: { name: 'n2' } } }), 404, 'pods "zz" not found');
    await rejectsWithStatus(pods(t, { verb: 'update', name: 'p', subresource: 'binding', body: {} }), 405);
  });
});
