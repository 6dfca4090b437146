import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../api/index.js';
import { newTestServer, obj, pods, rejectsWithStatus, widgets, type Req, type TestServer } from './testing/fixtures.js';
import type { HandleResult } from './index.js';

const namespaces = (t: TestServer, req: Req): Promise<HandleResult> => t.server.handle({ group: '', version: 'v1', resource: 'namespaces', ...req });

async function exists(t: TestServer, req: (t: TestServer, r: Req) => Promise<HandleResult>, name: string): Promise<boolean> {
  try {
    await req(t, { verb: 'get', name });
    return true;
  } catch {
    return false;
  }
}

describe('delete', () => {
  test('removes the object and answers a Success Status naming it', async () => {
    const t = await newTestServer();
    const w = obj(await widgets(t, { verb: 'create', body: { metadata: { name: 'a' } } }));
    const res = await widgets(t, { verb: 'delete', name: 'a', body: { propagationPolicy: 'Background' } });
    assert.equal(res.code, 200);
    assert.deepEqual(res.body, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'a', group: 'example.com', kind: 'widgets', uid: w.metadata?.uid },
    });
    assert.equal(await exists(t, widgets, 'a'), false);
    await rejectsWithStatus(widgets(t, { verb: 'delete', name: 'a' }), 404, 'widgets.example.com "a" not found');
  });

  test('uid and resourceVersion preconditions are 409', async () => {
    const t = await newTestServer();
    const w = obj(await widgets(t, { verb: 'create', body: { metadata: { name: 'a' } } }));
    await rejectsWithStatus(
      widgets(t, { verb: 'delete', name: 'a', body: { preconditions: { uid: 'nope' } } }),
      409,
      `Operation cannot be fulfilled on Widget.example.com "a": the UID in the precondition (nope) does not match the UID in record (${w.metadata?.uid}). The object might have been deleted and then recreated`,
    );
    await rejectsWithStatus(widgets(t, { verb: 'delete', name: 'a', body: { preconditions: { resourceVersion: '1' } } }), 409, /the ResourceVersion in the precondition \(1\) does not match/);
    const ok = await widgets(t, { verb: 'delete', name: 'a', body: { preconditions: { uid: w.metadata?.uid, resourceVersion: w.metadata?.resourceVersion } } });
    assert.equal(ok.code, 200);
  });

  test('an object with finalizers gets a deletionTimestamp; the update that empties them removes it', async () => {
    const t = await newTestServer();
    await widgets(t, { verb: 'create', body: { metadata: { name: 'a', finalizers: ['example.com/hold'] } } });
    const res = await widgets(t, { verb: 'delete', name: 'a' });
    const d = obj(res);
    assert.equal(res.code, 200);
    assert.equal(d.metadata?.deletionTimestamp, '2025-01-01T00:00:00Z');
    assert.equal(d.metadata?.deletionGracePeriodSeconds, 0);
    assert.equal(d.metadata?.generation, 2, 'markAsDeleting bumps generation');
    // Other changes are still allowed; the deletionTimestamp cannot be removed; finalizers cannot be added.
    const changed = obj(await widgets(t, { verb: 'update', name: 'a', body: { ...d, metadata: { ...d.metadata, deletionTimestamp: undefined }, spec: { replicas: 4 } } }));
    assert.equal(changed.metadata?.deletionTimestamp, d.metadata?.deletionTimestamp);
    assert.equal((changed.spec as { replicas: number }).replicas, 4);
    await rejectsWithStatus(
      widgets(t, { verb: 'update', name: 'a', body: { ...changed, metadata: { ...changed.metadata, finalizers: ['example.com/hold', 'example.com/more'] } } }),
      422,
      /no new finalizers can be added if the object is being deleted/,
    );
    const again = await widgets(t, { verb: 'delete', name: 'a' });
    assert.equal(obj(again).metadata?.resourceVersion, changed.metadata?.resourceVersion, 'a second delete changes nothing');
    const last = await widgets(t, { verb: 'update', name: 'a', body: { ...changed, metadata: { ...changed.metadata, finalizers: [] } } });
    assert.equal(last.code, 200);
    assert.equal(await exists(t, widgets, 'a'), false);
  });

  test('Foreground and Orphan add their finalizers and keep the object', async () => {
    const t = await newTestServer();
    await widgets(t, { verb: 'create', body: { metadata: { name: 'fg' } } });
    await widgets(t, { verb: 'create', body: { metadata: { name: 'or' } } });
    const fg = obj(await widgets(t, { verb: 'delete', name: 'fg', body: { propagationPolicy: 'Foreground' } }));
    assert.deepEqual(fg.metadata?.finalizers, ['foregroundDeletion']);
    assert.ok(fg.metadata?.deletionTimestamp);
    const or = obj(await widgets(t, { verb: 'delete', name: 'or', query: { propagationPolicy: 'Orphan' } }));
    assert.deepEqual(or.metadata?.finalizers, ['orphan']);
    await rejectsWithStatus(widgets(t, { verb: 'delete', name: 'or', body: { propagationPolicy: 'Sideways' } }), 422, /propagationPolicy: Unsupported value: "Sideways"/);
  });

  test('dryRun delete answers but keeps the object', async () => {
    const t = await newTestServer();
    await widgets(t, { verb: 'create', body: { metadata: { name: 'a' } } });
    const before = t.server.currentRevision();
    const res = await widgets(t, { verb: 'delete', name: 'a', query: { dryRun: 'All' } });
    assert.equal((res.body as { status: string }).status, 'Success');
    assert.equal(t.server.currentRevision(), before);
    assert.equal(await exists(t, widgets, 'a'), true);
  });

  test('a scheduled pod is deleted gracefully and returned; grace 0 then removes it', async () => {
    const t = await newTestServer();
    await pods(t, { verb: 'create', body: { metadata: { name: 'p' }, spec: { nodeName: 'n1', terminationGracePeriodSeconds: 45 } } });
    const res = await pods(t, { verb: 'delete', name: 'p', body: { propagationPolicy: 'Background' } });
    const p = obj(res);
    assert.equal(p.kind, 'Pod');
    assert.equal(p.metadata?.deletionTimestamp, '2025-01-01T00:00:45Z');
    assert.equal(p.metadata?.deletionGracePeriodSeconds, 45);
    // A second delete without a shorter grace period changes nothing.
    const again = obj(await pods(t, { verb: 'delete', name: 'p' }));
    assert.equal(again.metadata?.resourceVersion, p.metadata?.resourceVersion);
    // A shorter grace period moves the deadline: 45 → 10 means 00:00:10.
    const shorter = obj(await pods(t, { verb: 'delete', name: 'p', query: { gracePeriodSeconds: '10' } }));
    assert.equal(shorter.metadata?.deletionTimestamp, '2025-01-01T00:00:10Z');
    const gone = await pods(t, { verb: 'delete', name: 'p', body: { gracePeriodSeconds: 0 } });
    assert.equal((gone.body as KubeObject).kind, 'Pod', 'pods return the object');
    assert.equal((gone.body as KubeObject).metadata?.deletionGracePeriodSeconds, 0);
    assert.equal(await exists(t, pods, 'p'), false);
  });

  test('an unscheduled pod, or gracePeriodSeconds=0, is removed at once', async () => {
    const t = await newTestServer();
    await pods(t, { verb: 'create', body: { metadata: { name: 'u' }, spec: {} } });
    await pods(t, { verb: 'create', body: { metadata: { name: 's' }, spec: { nodeName: 'n1' } } });
    const u = await pods(t, { verb: 'delete', name: 'u' });
    assert.equal((u.body as KubeObject).metadata?.name, 'u');
    assert.equal(await exists(t, pods, 'u'), false);
    await pods(t, { verb: 'delete', name: 's', query: { gracePeriodSeconds: '0' } });
    assert.equal(await exists(t, pods, 's'), false);
  });

  test('a graceful pod with finalizers waits for both the finalizers and the grace-0 delete', async () => {
    const t = await newTestServer();
    await pods(t, { verb: 'create', body: { metadata: { name: 'p', finalizers: ['x.io/f'] }, spec: { nodeName: 'n1' } } });
    const d = obj(await pods(t, { verb: 'delete', name: 'p' }));
    const cleared = obj(await pods(t, { verb: 'update', name: 'p', body: { ...d, metadata: { ...d.metadata, finalizers: [] } } }));
    assert.equal(await exists(t, pods, 'p'), true, 'grace period still running');
    assert.equal(cleared.metadata?.finalizers, undefined, 'an empty finalizers list is omitted (omitempty), as Go encodes it');
    await pods(t, { verb: 'delete', name: 'p', query: { gracePeriodSeconds: '0' } });
    assert.equal(await exists(t, pods, 'p'), false);
  });

  test('namespaces: Terminating first, immortal ones are 403, finalize empties spec.finalizers and removes it', async () => {
    const t = await newTestServer();
    await rejectsWithStatus(namespaces(t, { verb: 'delete', name: 'default' }), 403, 'namespaces "default" is forbidden: this namespace may not be deleted');
    await namespaces(t, { verb: 'create', body: { metadata: { name: 'x' } } });
    const res = await namespaces(t, { verb: 'delete', name: 'x' });
    const ns = obj(res);
    assert.equal(res.code, 200);
    assert.equal((ns.status as { phase: string }).phase, 'Terminating');
    assert.equal(ns.metadata?.deletionTimestamp, '2025-01-01T00:00:00Z');
    const again = obj(await namespaces(t, { verb: 'delete', name: 'x' }));
    assert.equal(again.metadata?.resourceVersion, ns.metadata?.resourceVersion);
    const fin = await namespaces(t, { verb: 'update', name: 'x', subresource: 'finalize', body: { ...ns, spec: { finalizers: [] } } });
    assert.equal(fin.code, 200);
    assert.equal(await exists(t, namespaces, 'x'), false);
  });

  test('finalize replaces spec.finalizers and keeps status', async () => {
    const t = await newTestServer();
    const ns = obj(await namespaces(t, { verb: 'create', body: { metadata: { name: 'y' } } }));
    const fin = obj(await namespaces(t, { verb: 'update', name: 'y', subresource: 'finalize', body: { ...ns, spec: { finalizers: ['example.com/x'] }, status: { phase: 'Terminating' } } }));
    assert.deepEqual(fin.spec, { finalizers: ['example.com/x'] });
    assert.deepEqual(fin.status, { phase: 'Active' });
  });

  test('deletecollection deletes what the selector selects', async () => {
    const t = await newTestServer();
    await widgets(t, { verb: 'create', body: { metadata: { name: 'a', labels: { app: 'web' } } } });
    await widgets(t, { verb: 'create', body: { metadata: { name: 'b' } } });
    await widgets(t, { verb: 'deletecollection', query: { labelSelector: 'app=web' } });
    assert.equal(await exists(t, widgets, 'a'), false);
    assert.equal(await exists(t, widgets, 'b'), true);
  });
});

describe('the Success Status of a DELETE', () => {
  test('is written as upstream writes it: details without the core group', async () => {
    const t = await newTestServer();
    const cm = (req: Req): Promise<HandleResult> => t.server.handle({ group: '', version: 'v1', resource: 'configmaps', namespace: 'default', ...req });
    const created = obj(await cm({ verb: 'create', body: { metadata: { name: 'c' } } }));
    const res = await cm({ verb: 'delete', name: 'c' });
    assert.equal(
      JSON.stringify(res.body),
      `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"c","kind":"configmaps","uid":"${created.metadata?.uid ?? ''}"}}`,
    );
  });
});
