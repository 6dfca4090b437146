/**
 * Resources registered and removed while the server runs (ApiServer.addResource / removeResource):
 * what a CustomResourceDefinition needs. The new resource serves what storage already holds, sees
 * changes made while it was being added, appears in discovery and OpenAPI at once, and leaves them
 * when removed, ending its watches.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeList, KubeObject } from '../api/index.js';
import type { WatchEvent } from '../api/request.js';
import { resourceIndexOf } from './http/resource-index.js';
import { buildOpenApiDocuments, openApiPath } from './http/openapi.js';
import * as apiSchema from '../api/schema/index.js';
import { encodeForStorage } from './registry/generic/objects.js';
import type { ResourceStrategy } from './registry/strategy.js';
import { newTestServer, plainStrategy, rejectsWithStatus, resourceInfo, testStrategies } from './testing/fixtures.js';

/** `gizmos.example.com/v1`, namespaced, not served at start-up. */
const gizmoStrategy: ResourceStrategy = plainStrategy(resourceInfo({ group: 'example.com', version: 'v1', resource: 'gizmos', kind: 'Gizmo' }));

const gizmos = { group: 'example.com', version: 'v1', resource: 'gizmos', namespace: 'default' };

function gizmo(name: string): KubeObject {
  return { apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name, namespace: 'default', uid: `uid-${name}`, creationTimestamp: '2025-01-01T00:00:00Z' } };
}

describe('run-time registration', () => {
  test('an added resource serves what storage holds and what is written while it is added; discovery and OpenAPI list it', async () => {
    const t = await newTestServer();
    await rejectsWithStatus(t.server.handle({ ...gizmos, verb: 'list' }), 404);
    const before = t.server.resources();
    assert.equal(resourceIndexOf(t.server).get('example.com', 'v1', 'gizmos'), undefined);

    // One object stored before the resource is served (a CRD re-created over old data), one written
    // to storage during the listing of the new cache.
    await t.backend.create('/registry/example.com/gizmos/default/old', encodeForStorage(gizmo('old')));
    const adding = t.server.addResource(gizmoStrategy);
    await t.backend.create('/registry/example.com/gizmos/default/racing', encodeForStorage(gizmo('racing')));
    await adding;

    const list = (await t.server.handle({ ...gizmos, verb: 'list' })).body as KubeList;
    assert.deepEqual(list.items.map((o) => o.metadata?.name), ['old', 'racing']);
    const created = (await t.server.handle({ ...gizmos, verb: 'create', body: { apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name: 'new' } } })).body as KubeObject;
    assert.equal(created.metadata?.name, 'new');

    assert.notEqual(t.server.resources(), before, 'the resources array is replaced, so discovery caches rebuild');
    assert.equal(resourceIndexOf(t.server).get('example.com', 'v1', 'gizmos'), gizmoStrategy);
    const docs = buildOpenApiDocuments(resourceIndexOf(t.server), apiSchema);
    const doc = docs.documents.get(openApiPath('example.com', 'v1'));
    assert.ok(doc?.text.includes('/apis/example.com/v1/namespaces/{namespace}/gizmos'), 'the OpenAPI document has the new paths');
    await assert.rejects(t.server.addResource(gizmoStrategy), /example.com\/gizmos\/v1 is already served/);
  });

  test('a removed resource is 404, leaves discovery, and its watches end; storage keeps its objects', async () => {
    const t = await newTestServer();
    await t.server.addResource(gizmoStrategy);
    await t.server.handle({ ...gizmos, verb: 'create', body: { apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name: 'a' } } });
    const events: WatchEvent[] = [];
    let closed = false;
    t.server.watch({ ...gizmos, verb: 'watch', query: { resourceVersion: '0' } }, (ev) => events.push(ev), () => (closed = true));
    await Promise.resolve();

    assert.equal(t.server.removeResource('example.com', 'gizmos'), true);
    assert.equal(t.server.removeResource('example.com', 'gizmos'), false);
    assert.equal(closed, true, 'the watch ended');
    await rejectsWithStatus(t.server.handle({ ...gizmos, verb: 'get', name: 'a' }), 404);
    assert.equal(resourceIndexOf(t.server).get('example.com', 'v1', 'gizmos'), undefined);
    assert.deepEqual(t.server.resources(), testStrategies);
    assert.ok(await t.backend.get('/registry/example.com/gizmos/default/a'), 'the stored object stays');

    // Served again, it picks up what storage holds.
    await t.server.addResource(gizmoStrategy);
    const list = (await t.server.handle({ ...gizmos, verb: 'list' })).body as KubeList;
    assert.deepEqual(list.items.map((o) => o.metadata?.name), ['a']);
  });
});
