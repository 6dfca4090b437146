/**
 * A resource registered while the whole control plane runs (what a CustomResourceDefinition does):
 * it is served at once, the garbage collector picks it up at its next discovery (every 30 s, as
 * kube-controller-manager's `GarbageCollector.Sync`) and collects its orphans, the namespace
 * controller empties it from a namespace being deleted, and removing it stops serving it.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ResourceDescriptor } from '../../src/api/catalogue/index.js';
import type { KubeObject } from '../../src/api/index.js';
import { StatusError } from '../../src/machinery/errors/index.js';
import { plainStrategy, resourceInfo } from '../../src/apiserver/testing/fixtures.js';
import { exists, newPlane, ownerRef, stepFor, stepUntil, type Named } from './cluster-helpers.js';

const gizmoInfo = resourceInfo({ group: 'example.com', version: 'v1', resource: 'gizmos', kind: 'Gizmo' });
const GIZMOS: ResourceDescriptor = { group: 'example.com', version: 'v1', resource: 'gizmos', kind: 'Gizmo', namespaced: true };

function gizmo(name: string, namespace: string, owners: Named[] = []): KubeObject {
  return { apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name, namespace, ...(owners.length ? { ownerReferences: owners.map((o) => ownerRef(o)) } : {}) } };
}

describe('a resource registered at run time', () => {
  test('is served, garbage-collected, emptied from a deleted namespace, and removed again', async () => {
    const { cp, clock } = await newPlane();
    const c = cp.client;
    const gizmos = (ns: string) => c.resource(GIZMOS, ns);
    await assert.rejects(gizmos('default').list(), (err: unknown) => err instanceof StatusError && err.code === 404);

    await cp.api.addResource(plainStrategy(gizmoInfo));
    assert.ok(cp.api.preferredResources().some((r) => r.resource === 'gizmos'));

    // Served at once: create, get, list, watch.
    const owner = await c.core.configMaps('default').create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner' } });
    const dependent = await gizmos('default').create(gizmo('dependent', 'default', [owner]));
    assert.equal((await gizmos('default').get('dependent')).metadata?.uid, dependent.metadata?.uid);
    assert.deepEqual((await gizmos('default').list()).items.map((g) => g.metadata?.name), ['dependent']);

    // The garbage collector learns the resource at its next discovery, then collects the orphan.
    await stepFor(clock, 31_000);
    await c.core.configMaps('default').delete('owner');
    await stepUntil(clock, 'the orphaned gizmo is collected', async () => !(await exists(() => gizmos('default').get('dependent'))));

    // The namespace controller empties it from a namespace being deleted.
    await c.core.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'lab' } });
    await gizmos('lab').create(gizmo('g1', 'lab'));
    await gizmos('lab').create(gizmo('g2', 'lab'));
    await c.core.namespaces().delete('lab');
    await stepUntil(clock, 'namespace lab is gone', async () => !(await exists(() => c.core.namespaces().get('lab'))));
    assert.deepEqual((await gizmos('lab').list()).items, []);

    // Removed: 404 again, and discovery no longer lists it.
    assert.equal(cp.api.removeResource('example.com', 'gizmos'), true);
    await assert.rejects(gizmos('default').list(), (err: unknown) => err instanceof StatusError && err.code === 404);
    assert.ok(!cp.api.preferredResources().some((r) => r.resource === 'gizmos'));
    await cp.stop();
  });
});
