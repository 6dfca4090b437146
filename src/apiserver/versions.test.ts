/**
 * A resource served in two versions (versionView): `widgets.example.com` is stored as v1
 * (`spec.replicas`) and also served as v1beta1, where the same field is `spec.count`. Every verb in
 * either version sees one set of objects; bodies, patches, lists and watch events are in the
 * version of the request; storage holds only v1; discovery lists both versions, v1 preferred.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { KubeList, KubeObject } from '../api/index.js';
import type { WatchEvent } from '../api/request.js';
import { flushAsync } from '../util/clock/index.js';
import { resourceIndexOf } from './http/resource-index.js';
import { versionView, type ResourceStrategy } from './registry/strategy.js';
import { newTestServer, rejectsWithStatus, resourceInfo, testStrategies, widgetStrategy, type Req, type TestServer } from './testing/fixtures.js';

type Spec = { replicas?: number; count?: number; color?: string };

/** Moves `spec[from]` to `spec[to]` when present. */
function renameSpecField(obj: KubeObject, from: 'replicas' | 'count', to: 'replicas' | 'count'): KubeObject {
  const spec = obj.spec as Spec | undefined;
  if (spec && from in spec) {
    spec[to] = spec[from];
    delete spec[from];
  }
  return obj;
}

const widgetV1beta1: ResourceStrategy = versionView(
  widgetStrategy,
  resourceInfo({ ...widgetStrategy.info, version: 'v1beta1', subresources: widgetStrategy.info.subresources.map((s) => (s.name === 'status' ? { ...s, version: 'v1beta1' } : s)) }),
  { toStorage: (obj) => renameSpecField(obj, 'count', 'replicas'), fromStorage: (obj) => renameSpecField(obj, 'replicas', 'count') },
);

function server(): Promise<TestServer> {
  return newTestServer({ strategies: [...testStrategies, widgetV1beta1] });
}

const inVersion = (t: TestServer, version: string, req: Req) =>
  t.server.handle({ group: 'example.com', version, resource: 'widgets', namespace: 'default', ...req }).then((r) => r.body as KubeObject);

const specOf = (obj: KubeObject): Spec => obj.spec as Spec;

describe('a resource served in two versions', () => {
  test('discovery lists both versions of the group, the stored one preferred; an unknown version is 404', async () => {
    const t = await server();
    const group = resourceIndexOf(t.server).group('example.com');
    assert.deepEqual(group?.versions.map((v) => v.version), ['v1', 'v1beta1']);
    await rejectsWithStatus(inVersion(t, 'v2', { verb: 'list' }), 404);
  });

  test('an object created in one version is read in both; storage holds the stored version', async () => {
    const t = await server();
    const created = await inVersion(t, 'v1beta1', { verb: 'create', body: { apiVersion: 'example.com/v1beta1', kind: 'Widget', metadata: { name: 'w' }, spec: { count: 3 } } });
    assert.equal(created.apiVersion, 'example.com/v1beta1');
    assert.deepEqual(specOf(created), { count: 3 });

    const v1 = await inVersion(t, 'v1', { verb: 'get', name: 'w' });
    assert.equal(v1.apiVersion, 'example.com/v1');
    assert.deepEqual(specOf(v1), { replicas: 3 });
    assert.equal(v1.metadata?.resourceVersion, created.metadata?.resourceVersion);

    const stored = JSON.parse((await t.backend.get('/registry/example.com/widgets/default/w'))?.value ?? '{}') as KubeObject;
    assert.equal(stored.apiVersion, 'example.com/v1');
    assert.deepEqual(specOf(stored), { replicas: 3 });

    // A v1beta1 body must say v1beta1.
    await rejectsWithStatus(
      inVersion(t, 'v1beta1', { verb: 'create', body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'x' } } }),
      400,
      'the API version in the data (example.com/v1) does not match the expected API version (example.com/v1beta1)',
    );
  });

  test('patches apply to the object in the request version; an unchanged round trip writes nothing', async () => {
    const t = await server();
    await inVersion(t, 'v1', { verb: 'create', body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { replicas: 2, color: 'red' } } });
    const merged = await inVersion(t, 'v1beta1', { verb: 'patch', name: 'w', patchType: 'application/merge-patch+json', body: { spec: { count: 5 } } });
    assert.deepEqual(specOf(merged), { count: 5, color: 'red' });
    const jsonPatched = await inVersion(t, 'v1beta1', { verb: 'patch', name: 'w', patchType: 'application/json-patch+json', body: [{ op: 'replace', path: '/spec/count', value: 6 }] });
    assert.deepEqual(specOf(jsonPatched), { count: 6, color: 'red' });
    const v1 = await inVersion(t, 'v1', { verb: 'get', name: 'w' });
    assert.deepEqual(specOf(v1), { replicas: 6, color: 'red' });
    assert.equal(v1.metadata?.generation, 3);

    // GET in v1beta1 and PUT it back: the same stored object, so no new resourceVersion.
    const beta = await inVersion(t, 'v1beta1', { verb: 'get', name: 'w' });
    const put = await inVersion(t, 'v1beta1', { verb: 'update', name: 'w', body: beta });
    assert.equal(put.metadata?.resourceVersion, v1.metadata?.resourceVersion);
    // Validation is the stored version's: a negative count is a negative replicas.
    await rejectsWithStatus(inVersion(t, 'v1beta1', { verb: 'patch', name: 'w', patchType: 'application/merge-patch+json', body: { spec: { count: -1 } } }), 422);
  });

  test('lists and watch events come in the version of the request', async () => {
    const t = await server();
    const events: WatchEvent[] = [];
    t.server.watch({ group: 'example.com', version: 'v1beta1', resource: 'widgets', namespace: 'default', verb: 'watch', query: { resourceVersion: '0' } }, (ev) => events.push(ev), () => undefined);
    await inVersion(t, 'v1', { verb: 'create', body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'a' }, spec: { replicas: 1 } } });
    await inVersion(t, 'v1', { verb: 'patch', name: 'a', patchType: 'application/merge-patch+json', body: { spec: { replicas: 4 } } });
    const list = (await t.server.handle({ group: 'example.com', version: 'v1beta1', resource: 'widgets', namespace: 'default', verb: 'list' })).body as KubeList;
    assert.equal(list.apiVersion, 'example.com/v1beta1');
    assert.equal(list.kind, 'WidgetList');
    assert.deepEqual(list.items.map((o) => [o.apiVersion, specOf(o).count]), [['example.com/v1beta1', 4]]);
    await flushAsync();
    assert.deepEqual(
      events.map((e) => [e.type, (e.object as KubeObject).apiVersion, specOf(e.object as KubeObject).count]),
      [
        ['ADDED', 'example.com/v1beta1', 1],
        ['MODIFIED', 'example.com/v1beta1', 4],
      ],
    );
  });

  test('the table printer of the view prints the object converted to the stored version', () => {
    const obj: KubeObject = { apiVersion: 'example.com/v1beta1', kind: 'Widget', metadata: { name: 'w', creationTimestamp: '2025-01-01T00:00:00Z' }, spec: { count: 7 } };
    const stored: KubeObject = { ...obj, apiVersion: 'example.com/v1', spec: { replicas: 7 } };
    const now = Date.parse('2025-01-01T00:05:00Z');
    assert.deepEqual(widgetV1beta1.table.row(obj, now), widgetStrategy.table.row(stored, now));
  });
});
