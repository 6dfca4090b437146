/**
 * Finalizers and propagation policies on DELETE, as store.go `Delete` /
 * `updateForGracefulDeletionAndFinalizers` and `deletionFinalizersForGarbageCollection` decide them.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  newTestServer,
  obj,
  plainStrategy,
  pods,
  rejectsWithStatus,
  resourceInfo,
  testStrategies,
  widgets,
  type Req,
  type TestServer,
} from '../../testing/fixtures.js';
import type { HandleResult } from '../../index.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteBackend } from '../../../storage/sqlite/index.js';

const namespaces = (t: TestServer, req: Req): Promise<HandleResult> => t.server.handle({ group: '', version: 'v1', resource: 'namespaces', ...req });
const jobs = (t: TestServer, req: Req): Promise<HandleResult> => t.server.handle({ group: 'batch', version: 'v1', resource: 'jobs', namespace: 'default', ...req });
/** A kind whose DefaultGarbageCollectionPolicy is Orphan, as batch/v1 Job. */
const jobStrategy = plainStrategy(resourceInfo({ group: 'batch', version: 'v1', resource: 'jobs', kind: 'Job' }), { defaultGarbageCollectionPolicy: 'Orphan' });

async function exists(p: Promise<HandleResult>): Promise<boolean> {
  return p.then(
    () => true,
    () => false,
  );
}

describe('DELETE with finalizers and propagation policies', () => {
  test('a second DELETE with another policy swaps the GC finalizer, keeping the others', async () => {
    const t = await newTestServer();
    await widgets(t, { verb: 'create', body: { metadata: { name: 'w', finalizers: ['example.com/hold'] } } });
    const fg = obj(await widgets(t, { verb: 'delete', name: 'w', body: { propagationPolicy: 'Foreground' } }));
    assert.deepEqual(fg.metadata?.finalizers, ['example.com/hold', 'foregroundDeletion']);
    const deletedAt = fg.metadata?.deletionTimestamp;
    await t.clock.stepAsync(5000);
    const or = obj(await widgets(t, { verb: 'delete', name: 'w', body: { propagationPolicy: 'Orphan' } }));
    assert.deepEqual(or.metadata?.finalizers, ['example.com/hold', 'orphan']);
    assert.equal(or.metadata?.deletionTimestamp, deletedAt, 'the first deletionTimestamp stays');
    // Background drops the GC finalizer; the object stays for its own finalizer.
    const bg = obj(await widgets(t, { verb: 'delete', name: 'w', body: { propagationPolicy: 'Background' } }));
    assert.deepEqual(bg.metadata?.finalizers, ['example.com/hold']);
    // Without options the finalizers already there decide: nothing changes.
    const same = obj(await widgets(t, { verb: 'delete', name: 'w' }));
    assert.equal(same.metadata?.resourceVersion, bg.metadata?.resourceVersion);
  });

  test('a Background DELETE of an object held only by foregroundDeletion removes it at once', async () => {
    const t = await newTestServer();
    await widgets(t, { verb: 'create', body: { metadata: { name: 'w' } } });
    await widgets(t, { verb: 'delete', name: 'w', body: { propagationPolicy: 'Foreground' } });
    const res = await widgets(t, { verb: 'delete', name: 'w', body: { propagationPolicy: 'Background' } });
    assert.equal((res.body as { status: string }).status, 'Success');
    assert.equal(await exists(widgets(t, { verb: 'get', name: 'w' })), false);
  });

  test('orphanDependents=false means "do not orphan" (background): 202 while a finalizer holds the object', async () => {
    const t = await newTestServer();
    await widgets(t, { verb: 'create', body: { metadata: { name: 'a', finalizers: ['example.com/hold'] } } });
    await widgets(t, { verb: 'create', body: { metadata: { name: 'b' } } });
    await widgets(t, { verb: 'create', body: { metadata: { name: 'c' } } });
    const a = await widgets(t, { verb: 'delete', name: 'a', body: { orphanDependents: false } });
    assert.equal(a.code, 202);
    assert.deepEqual(obj(a).metadata?.finalizers, ['example.com/hold']);
    const b = await widgets(t, { verb: 'delete', name: 'b', body: { orphanDependents: false } });
    assert.equal((b.body as { status: string }).status, 'Success', 'deleted at once, no foregroundDeletion');
    const c = await widgets(t, { verb: 'delete', name: 'c', query: { orphanDependents: 'true' } });
    assert.equal(c.code, 200);
    assert.deepEqual(obj(c).metadata?.finalizers, ['orphan']);
    await rejectsWithStatus(
      widgets(t, { verb: 'delete', name: 'c', body: { orphanDependents: true, propagationPolicy: 'Orphan' } }),
      422,
      /orphanDependents and deletionPropagation cannot be both set/,
    );
  });

  test("the kind's default policy applies when the request names none (Job: Orphan)", async () => {
    const t = await newTestServer({ strategies: [...testStrategies, jobStrategy] });
    await jobs(t, { verb: 'create', body: { metadata: { name: 'j1' } } });
    await jobs(t, { verb: 'create', body: { metadata: { name: 'j2' } } });
    assert.deepEqual(obj(await jobs(t, { verb: 'delete', name: 'j1' })).metadata?.finalizers, ['orphan']);
    const bg = await jobs(t, { verb: 'delete', name: 'j2', body: { propagationPolicy: 'Background' } });
    assert.equal((bg.body as { status: string }).status, 'Success');
  });

  test('preconditions hold on objects already being deleted', async () => {
    const t = await newTestServer();
    const w = obj(await widgets(t, { verb: 'create', body: { metadata: { name: 'w', finalizers: ['example.com/hold'] } } }));
    await widgets(t, { verb: 'delete', name: 'w' });
    await rejectsWithStatus(widgets(t, { verb: 'delete', name: 'w', body: { propagationPolicy: 'Orphan', preconditions: { uid: 'other' } } }), 409, /the UID in the precondition \(other\)/);
    await rejectsWithStatus(widgets(t, { verb: 'delete', name: 'w', body: { preconditions: { resourceVersion: w.metadata?.resourceVersion } } }), 409, /the ResourceVersion in the precondition/);
  });

  test('a graceful pod deletion in progress ignores a new policy (finalizers are not changed)', async () => {
    const t = await newTestServer();
    await pods(t, { verb: 'create', body: { metadata: { name: 'p' }, spec: { nodeName: 'n1', terminationGracePeriodSeconds: 30 } } });
    const first = obj(await pods(t, { verb: 'delete', name: 'p', body: { propagationPolicy: 'Background' } }));
    const second = obj(await pods(t, { verb: 'delete', name: 'p', body: { propagationPolicy: 'Foreground' } }));
    assert.equal(second.metadata?.resourceVersion, first.metadata?.resourceVersion);
    assert.equal(second.metadata?.finalizers, undefined);
  });

  test('while being deleted an object may lose finalizers but gain none, by patch as by update', async () => {
    const t = await newTestServer();
    await widgets(t, { verb: 'create', body: { metadata: { name: 'w', finalizers: ['example.com/a', 'example.com/b'] } } });
    await widgets(t, { verb: 'delete', name: 'w' });
    await rejectsWithStatus(
      widgets(t, { verb: 'patch', name: 'w', patchType: 'application/merge-patch+json', body: { metadata: { finalizers: ['example.com/a', 'example.com/c'] } } }),
      422,
      'Widget.example.com "w" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/c"}',
    );
    await widgets(t, { verb: 'patch', name: 'w', patchType: 'application/merge-patch+json', body: { metadata: { finalizers: ['example.com/b'] } } });
    assert.equal(await exists(widgets(t, { verb: 'get', name: 'w' })), true);
    await widgets(t, { verb: 'patch', name: 'w', patchType: 'application/json-patch+json', body: [{ op: 'remove', path: '/metadata/finalizers' }] });
    assert.equal(await exists(widgets(t, { verb: 'get', name: 'w' })), false);
  });

  test('a namespace deleted in the foreground waits for both its finalizers', async () => {
    const t = await newTestServer();
    await namespaces(t, { verb: 'create', body: { metadata: { name: 'x' }, spec: { finalizers: ['kubernetes'] } } });
    const ns = obj(await namespaces(t, { verb: 'delete', name: 'x', body: { propagationPolicy: 'Foreground' } }));
    assert.deepEqual(ns.metadata?.finalizers, ['foregroundDeletion']);
    const fin = obj(await namespaces(t, { verb: 'update', name: 'x', subresource: 'finalize', body: { ...ns, spec: { finalizers: [] } } }));
    assert.equal(await exists(namespaces(t, { verb: 'get', name: 'x' })), true, 'metadata.finalizers still holds it');
    await namespaces(t, { verb: 'patch', name: 'x', patchType: 'application/merge-patch+json', body: { metadata: { resourceVersion: fin.metadata?.resourceVersion, finalizers: null } } });
    assert.equal(await exists(namespaces(t, { verb: 'get', name: 'x' })), false);
  });
});

describe('delete-on-update over a batching backend', () => {
  test('a second update racing the one that deletes the object (uncommitted SQLite batch) finishes instead of spinning', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubeplane-deletion-'));
    const backend = new SqliteBackend({ path: join(dir, 'db') });
    try {
      const t = await newTestServer({ backend });
      await widgets(t, { verb: 'create', body: { metadata: { name: 'w', finalizers: ['example.com/a'] } } });
      await widgets(t, { verb: 'delete', name: 'w' });
      const release = { metadata: { finalizers: null } };
      // Both in the same tick: the first removes the object inside the open write batch.
      const [first, second] = await Promise.allSettled([
        widgets(t, { verb: 'patch', name: 'w', patchType: 'application/merge-patch+json', body: release }),
        widgets(t, { verb: 'patch', name: 'w', patchType: 'application/merge-patch+json', body: release }),
      ]);
      // Upstream's delete-on-update answers with the object even when the delete found it gone.
      assert.equal(first.status, 'fulfilled');
      assert.equal(second.status, 'fulfilled');
      assert.equal(await exists(widgets(t, { verb: 'get', name: 'w' })), false);
      await t.server.close();
    } finally {
      await backend.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
