/**
 * Writes racing inside one SQLite batch. The backend checks a write against the open batch while reads
 * see committed data only, so after a failed compare-and-swap the store must let the batch commit
 * before it re-reads; otherwise it retried forever on microtasks, the batch never committed, and
 * `kubectl delete --grace-period=0 --force` hung the whole server.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteBackend } from '../storage/sqlite/index.js';
import { servedStrategies } from './registry/resources/index.js';
import { newTestServer } from './testing/fixtures.js';
import { newClientset } from '../client/index.js';
import { isNotFound } from '../machinery/errors/index.js';
import type { Pod } from '../api/index.js';

const pod: Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default' },
  spec: { containers: [{ name: 'c', image: 'nginx' }] },
};

async function setup() {
  const backend = new SqliteBackend({ path: ':memory:' });
  const { server } = await newTestServer({ backend, strategies: servedStrategies });
  const pods = newClientset(server.inProcessTransport()).core.pods('default');
  const created = await pods.create(pod);
  return { server, backend, pods, rev: Number(created.metadata?.resourceVersion) };
}

describe('writes racing in one storage batch', { timeout: 10_000 }, () => {
  test('a delete whose key another write of the same batch removed answers NotFound instead of spinning', async () => {
    const { server, backend, pods, rev } = await setup();
    // The same tick: a storage delete opens the batch, then the API delete runs against the cached pod.
    const raw = backend.delete('/registry/core/pods/default/p', rev);
    const viaApi = pods.delete('p', { gracePeriodSeconds: 0 });
    await raw;
    await assert.rejects(viaApi, isNotFound);
    await server.close();
    await backend.close();
  });

  test('two deletes of one pod in the same tick both settle and the pod is gone', async () => {
    const { server, backend, pods } = await setup();
    const results = await Promise.allSettled([pods.delete('p', { gracePeriodSeconds: 0 }), pods.delete('p', { gracePeriodSeconds: 0 })]);
    for (const r of results) if (r.status === 'rejected') assert.ok(isNotFound(r.reason), String(r.reason));
    await assert.rejects(pods.get('p'), isNotFound);
    await server.close();
    await backend.close();
  });
});
