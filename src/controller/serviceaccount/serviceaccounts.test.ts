import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, Namespace } from '../../api/index.js';
import { silentLogger } from '../../util/runtime/index.js';
import { fakeCluster } from '../endpoint/testing/index.js';
import { ServiceAccountsController } from './serviceaccounts-controller.js';

const ns = (name: string, phase: string): Namespace => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name }, status: { phase } });

test('every Active namespace gets a default service account, recreated after a delete; terminating ones get none', async () => {
  const c = await fakeCluster([ns('a', 'Active'), ns('gone', 'Terminating')] as KubeObject[]);
  const ctrl = new ServiceAccountsController({ client: c.client, informers: c.informers, clock: c.clock, logger: silentLogger });
  c.informers.start();
  void ctrl.run(1, c.stop.signal);
  await c.settle();
  const names = async (n: string): Promise<string[]> => (await c.client.core.serviceAccounts(n).list()).items.map((s) => s.metadata?.name ?? '');
  assert.deepEqual(await names('a'), ['default']);
  assert.deepEqual(await names('gone'), []);

  await c.client.core.namespaces().create(ns('b', 'Active'));
  await c.client.core.serviceAccounts('a').delete('default');
  await c.settle();
  assert.deepEqual(await names('b'), ['default']);
  assert.deepEqual(await names('a'), ['default']);
  c.stop.abort();
});
