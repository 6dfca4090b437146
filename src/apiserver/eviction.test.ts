import { test } from 'node:test';
import assert from 'node:assert/strict';
import { servedStrategies } from './registry/resources/index.js';
import { newTestServer } from './testing/fixtures.js';
import { newClientset } from '../client/index.js';
import { isNotFound, type StatusError } from '../machinery/errors/index.js';
import type { Pod } from '../api/index.js';

test('pods/eviction: DisruptionTarget, then a graceful delete; 201 Success; 404 and 400 as upstream', async () => {
  const { server } = await newTestServer({ strategies: servedStrategies });
  const pods = newClientset(server.inProcessTransport()).core.pods('default');
  await pods.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'nginx' }] } });
  const eviction = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p', namespace: 'default' } };
  assert.deepEqual(await pods.createSubresource('p', 'eviction', eviction), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
  const evicted: Pod = await pods.get('p');
  assert.ok(evicted.metadata?.deletionTimestamp, 'a bound pod is deleted gracefully');
  assert.equal(evicted.metadata.deletionGracePeriodSeconds, 30);
  const condition = evicted.status?.conditions?.find((c) => c.type === 'DisruptionTarget');
  assert.deepEqual([condition?.status, condition?.reason, condition?.message], ['True', 'EvictionByEvictionAPI', 'Eviction API: evicting']);

  await assert.rejects(pods.createSubresource('nope', 'eviction', { ...eviction, metadata: { name: 'nope' } }), isNotFound);
  await assert.rejects(pods.createSubresource('p', 'eviction', { ...eviction, metadata: { name: 'other' } }), (err: StatusError) => {
    assert.equal(err.code, 400);
    assert.equal(err.message, 'name in URL does not match name in Eviction object');
    return true;
  });
  await server.close();
});
