/**
 * Custom resources in the whole control plane: once its CRD is Established the garbage collector
 * (at its next discovery) follows ownerReferences between custom resources and built-in objects in
 * both directions, and the namespace controller deletes custom resources of a namespace being
 * deleted — both act on every resource discovery lists, as upstream's do.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/api/index.js';
import { CRDS, exists, GIZMOS, gizmoCrd, newPlane, ownerRef, stepFor, stepUntil, type Named } from './cluster-helpers.js';

function gizmo(name: string, namespace: string, owners: Named[] = []): KubeObject {
  return { apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name, namespace, ...(owners.length ? { ownerReferences: owners.map((o) => ownerRef(o)) } : {}) } };
}

describe('custom resources in the control plane', () => {
  test('garbage collection both ways, and namespace deletion', async () => {
    const { cp, clock } = await newPlane();
    const c = cp.client;
    const gizmos = (ns: string) => c.resource(GIZMOS, ns);
    await c.resource(CRDS).create(gizmoCrd);
    await stepUntil(clock, 'gizmos are served', async () => exists(() => gizmos('default').list()));
    // The garbage collector learns the resource at its next discovery.
    await stepFor(clock, 31_000);

    // A custom resource owned by a ConfigMap goes with it.
    const cm = await c.core.configMaps('default').create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner' } });
    await gizmos('default').create(gizmo('dependent', 'default', [cm]));
    await c.core.configMaps('default').delete('owner');
    await stepUntil(clock, 'the gizmo owned by the ConfigMap is collected', async () => !(await exists(() => gizmos('default').get('dependent'))));

    // A ConfigMap owned by a custom resource goes with it.
    const owner = await gizmos('default').create(gizmo('owner', 'default'));
    await c.core.configMaps('default').create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owned', ownerReferences: [ownerRef(owner)] } });
    await gizmos('default').delete('owner');
    await stepUntil(clock, 'the ConfigMap owned by the gizmo is collected', async () => !(await exists(() => c.core.configMaps('default').get('owned'))));

    // The namespace controller deletes custom resources of a namespace being deleted.
    await c.core.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'lab' } });
    await gizmos('lab').create(gizmo('g1', 'lab'));
    await c.core.namespaces().delete('lab');
    await stepUntil(clock, 'namespace lab is gone', async () => !(await exists(() => c.core.namespaces().get('lab'))));
    assert.deepEqual((await gizmos('lab').list()).items, []);
    await cp.stop();
  });
});
