/**
 * The root CA publisher under the fake clock, with the cases of upstream's publisher_test.go
 * (TestConfigMapCreation: a new namespace, a deleted ConfigMap, one whose data or description changed,
 * one that is right, a terminating namespace).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap, KubeObject, Namespace } from '../../api/index.js';
import { silentLogger } from '../../util/runtime/index.js';
import { fakeCluster } from '../endpoint/testing/index.js';
import { DESCRIPTION, DESCRIPTION_ANNOTATION, ROOT_CA_CONFIG_MAP, RootCACertPublisher } from './publisher.js';

const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const ns = (name: string, phase: string): Namespace => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name }, status: { phase } });

test('every namespace gets kube-root-ca.crt; a deleted or changed one is put back, other metadata kept; a right one is not rewritten', async () => {
  const c = await fakeCluster([ns('a', 'Active')] as KubeObject[]);
  const publisher = new RootCACertPublisher({ client: c.client, informers: c.informers, clock: c.clock, rootCA: CA, logger: silentLogger });
  c.informers.start();
  void publisher.run(1, c.stop.signal);
  await c.settle();
  const get = (n: string): Promise<ConfigMap> => c.client.core.configMaps(n).get(ROOT_CA_CONFIG_MAP);
  const created = await get('a');
  assert.deepEqual(created.data, { 'ca.crt': CA });
  assert.deepEqual(created.metadata?.annotations, { [DESCRIPTION_ANNOTATION]: DESCRIPTION });

  await c.client.core.namespaces().create(ns('b', 'Active'));
  await c.settle();
  assert.deepEqual((await get('b')).data, { 'ca.crt': CA });

  // Changed data and description: both put back; a label and another annotation stay.
  await c.client.core.configMaps('a').update({ ...created, metadata: { ...created.metadata, labels: { team: 'x' }, annotations: { other: 'y' } }, data: { 'ca.crt': 'wrong', extra: 'z' } });
  await c.settle();
  const fixed = await get('a');
  assert.deepEqual(fixed.data, { 'ca.crt': CA });
  assert.deepEqual(fixed.metadata?.annotations, { other: 'y', [DESCRIPTION_ANNOTATION]: DESCRIPTION });
  assert.deepEqual(fixed.metadata?.labels, { team: 'x' });

  // Right as it is: no write on the next sync.
  await publisher.syncNamespace('a');
  assert.equal((await get('a')).metadata?.resourceVersion, fixed.metadata?.resourceVersion);

  await c.client.core.configMaps('b').delete(ROOT_CA_CONFIG_MAP);
  await c.settle();
  assert.deepEqual((await get('b')).data, { 'ca.crt': CA });
  c.stop.abort();
});

test('a namespace that is gone or terminating is not an error', async () => {
  const c = await fakeCluster([ns('t', 'Active')] as KubeObject[]);
  const publisher = new RootCACertPublisher({ client: c.client, informers: c.informers, clock: c.clock, rootCA: CA, logger: silentLogger });
  await publisher.syncNamespace('missing');
  await c.client.core.namespaces().delete('t');
  await publisher.syncNamespace('t');
  await assert.rejects(c.client.core.configMaps('t').get(ROOT_CA_CONFIG_MAP), /not found/);
  c.stop.abort();
});
