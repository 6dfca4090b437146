import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryBackend } from '../../storage/memory/index.js';
import { SqliteBackend } from '../../storage/sqlite/index.js';
import type { Backend, KeyValue } from '../../storage/interface.js';
import { FakeClock } from '../../util/clock/index.js';
import { scrape, valueOf } from '../../util/metrics/testing/index.js';
import { newTestServer } from '../testing/fixtures.js';
import { groupResourceString, instrumentBackend } from './storage.js';

describe('etcd_request_* for a store\'s storage calls', () => {
  test('each call is timed by the clock and counted by operation and type; only real failures are errors', async () => {
    const clock = new FakeClock(0);
    const inner = new MemoryBackend();
    // A backend whose writes take 30 ms of clock time.
    const slow: Backend = Object.assign(Object.create(inner) as Backend, {
      create: async (key: string, value: string): Promise<KeyValue> => {
        clock.step(30);
        return inner.create(key, value);
      },
    });
    const b = instrumentBackend(slow, 'widgets.example.com', clock);
    await b.create('/registry/example.com/widgets/a', '{}');
    await assert.rejects(b.create('/registry/example.com/widgets/a', '{}'), { code: 'KeyExists' });
    assert.equal(await b.get('/registry/example.com/widgets/a') !== undefined, true);
    assert.equal(await b.get('/registry/example.com/widgets/none'), undefined);
    const listed = await b.list('/registry/example.com/widgets/');
    await b.update('/registry/example.com/widgets/a', '{"a":1}', listed.revision);
    await assert.rejects(b.update('/registry/example.com/widgets/a', '{}', 1), { code: 'Conflict' });
    await b.delete('/registry/example.com/widgets/a', 0);
    await assert.rejects(b.list('/registry/example.com/widgets/', { revision: 99 }), { code: 'FutureRevision' });
    assert.equal(await b.count('/registry/example.com/widgets/'), 0);

    const exp = await scrape();
    const type = 'widgets.example.com';
    const total = (operation: string): number | undefined => valueOf(exp, 'etcd_requests_total', { operation, type });
    const errors = (operation: string): number | undefined => valueOf(exp, 'etcd_request_errors_total', { operation, type });
    assert.deepEqual(['get', 'list', 'create', 'update', 'delete'].map(total), [2, 2, 2, 2, 1]);
    assert.deepEqual(['get', 'list', 'create', 'update', 'delete'].map(errors), [undefined, 1, undefined, undefined, undefined], 'KeyExists and Conflict are not errors; FutureRevision is');
    assert.equal(valueOf(exp, 'etcd_request_duration_seconds_sum', { operation: 'create', type }), 0.06);
    assert.equal(valueOf(exp, 'etcd_request_duration_seconds_bucket', { operation: 'create', type, le: '0.025' }), 0);
    assert.equal(valueOf(exp, 'etcd_request_duration_seconds_bucket', { operation: 'create', type, le: '0.05' }), 2);
    assert.equal(valueOf(exp, 'etcd_requests_total', { operation: 'listWithCount', type: '/registry/example.com/widgets/' }), 1, "a count is labelled with its prefix, as upstream's Count");
    assert.equal(exp.help.get('etcd_request_duration_seconds'), '[ALPHA] Etcd request latency in seconds for each operation and object type.');
  });

  test('the type is upstream\'s group-resource string', () => {
    assert.equal(groupResourceString({ group: '', resource: 'pods' }), 'pods');
    assert.equal(groupResourceString({ group: 'apps', resource: 'deployments' }), 'deployments.apps');
  });

  test('an API server\'s stores count their calls under their group-resource', async () => {
    const t = await newTestServer();
    const before = valueOf(await scrape(), 'etcd_requests_total', { operation: 'create', type: 'configmaps' }) ?? 0;
    await t.server.handle({ verb: 'create', group: '', version: 'v1', resource: 'configmaps', namespace: 'default', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } });
    assert.equal(valueOf(await scrape(), 'etcd_requests_total', { operation: 'create', type: 'configmaps' }), before + 1);
    await t.server.close();
  });
});

describe('apiserver_storage_objects and apiserver_storage_size_bytes', () => {
  test('objects per stored resource, from the watch cache; not-stored kinds are left out; a closed server is not counted', async () => {
    const t = await newTestServer();
    const cm = (name: string): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
    for (const name of ['a', 'b', 'c']) await t.server.handle({ verb: 'create', group: '', version: 'v1', resource: 'configmaps', namespace: 'default', body: cm(name) });
    await t.server.handle({ verb: 'create', group: 'example.com', version: 'v1', resource: 'gadgets', body: { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' } } });
    await t.server.waitUntilFresh();
    let exp = await scrape();
    assert.equal(valueOf(exp, 'apiserver_storage_objects', { resource: 'configmaps' }), 3);
    assert.equal(valueOf(exp, 'apiserver_storage_objects', { resource: 'gadgets.example.com' }), 1);
    assert.equal(valueOf(exp, 'apiserver_storage_objects', { resource: 'widgets.example.com' }), 0);
    assert.equal(valueOf(exp, 'apiserver_storage_objects', { resource: 'namespaces' }), 4, 'the four default namespaces');
    assert.equal(exp.help.get('apiserver_storage_objects'), '[STABLE] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.');
    assert.equal(valueOf(exp, 'apiserver_storage_size_bytes', { storage_cluster_id: 'etcd-0' }), undefined, 'a memory backend has no file');
    await t.server.close();
    exp = await scrape();
    assert.equal(valueOf(exp, 'apiserver_storage_objects', { resource: 'configmaps' }), undefined);
  });

  test('a SQLite backend reports the size of its database file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubeplane-metrics-'));
    const backend = new SqliteBackend({ path: join(dir, 'state.db') });
    try {
      const t = await newTestServer({ backend: backend as unknown as MemoryBackend });
      const size = valueOf(await scrape(), 'apiserver_storage_size_bytes', { storage_cluster_id: 'etcd-0' });
      assert.ok(size !== undefined && size > 0 && size % 4096 === 0, String(size));
      await t.server.close();
    } finally {
      await backend.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
