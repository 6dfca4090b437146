/**
 * ResourceQuota across the whole control plane under a FakeClock: a Deployment of 3 in a namespace
 * limited to 2 pods gets 2, its ReplicaSet reports ReplicaFailure/FailedCreate with the quota's
 * message, and raising the quota lets the third pod in; LimitRange defaults reach the pods the
 * ReplicaSet controller creates; `count/<resource>.<group>` of a custom resource is counted and
 * enforced.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CRDS, deployment, exists, GIZMOS, gizmoCrd, newPlane, stepUntil } from './cluster-helpers.js';

test('quota: a Deployment is held at the quota with ReplicaFailure, and grows when the quota does', async () => {
  const { cp, clock } = await newPlane();
  const client = cp.client;
  try {
    await client.core.limitRanges('default').create({ metadata: { name: 'defaults' }, spec: { limits: [{ type: 'Container', defaultRequest: { cpu: '100m' }, default: { cpu: '200m' } }] } });
    await client.core.resourceQuotas('default').create({ metadata: { name: 'q' }, spec: { hard: { pods: '2', 'requests.cpu': '1' } } });
    await stepUntil(clock, 'the quota to be counted', async () => (await client.core.resourceQuotas('default').get('q')).status?.used?.['pods'] === '0');
    await client.apps.deployments('default').create(deployment('web', 3));
    const pods = async (): Promise<number> => (await client.core.pods('default').list({ labelSelector: 'app=web' })).items.length;
    const failure = async (): Promise<string | undefined> => {
      const rs = (await client.apps.replicaSets('default').list({ labelSelector: 'app=web' })).items[0];
      return rs?.status?.conditions?.find((c) => c.type === 'ReplicaFailure')?.message;
    };
    await stepUntil(clock, 'ReplicaFailure on the ReplicaSet', async () => (await failure()) !== undefined);
    assert.equal(await pods(), 2);
    assert.match((await failure()) ?? '', /exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2/);
    const q = await client.core.resourceQuotas('default').get('q');
    assert.deepEqual(q.status?.used, { pods: '2', 'requests.cpu': '200m' });
    const first = (await client.core.pods('default').list({ labelSelector: 'app=web' })).items[0];
    assert.deepEqual(first?.spec?.containers[0]?.resources, { limits: { cpu: '200m' }, requests: { cpu: '100m' } });

    await client.core.resourceQuotas('default').update({ ...q, spec: { hard: { pods: '5', 'requests.cpu': '1' } } });
    await stepUntil(clock, 'the third pod', async () => (await pods()) === 3);
    await stepUntil(clock, 'the quota to count it', async () => (await client.core.resourceQuotas('default').get('q')).status?.used?.['pods'] === '3');
  } finally {
    await cp.stop();
  }
});

test('quota: count/<resource>.<group> of a custom resource is counted through discovery and enforced', async () => {
  const { cp, clock } = await newPlane();
  const c = cp.client;
  try {
    await c.resource(CRDS).create(gizmoCrd);
    const gizmos = c.resource(GIZMOS, 'default');
    await stepUntil(clock, 'gizmos are served', async () => exists(() => gizmos.list()));
    await gizmos.create({ apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name: 'g1', namespace: 'default' } });
    await c.core.resourceQuotas('default').create({ metadata: { name: 'gizmos' }, spec: { hard: { 'count/gizmos.example.com': '2' } } });
    await stepUntil(clock, 'the gizmos to be counted', async () => (await c.core.resourceQuotas('default').get('gizmos')).status?.used?.['count/gizmos.example.com'] === '1');
    await gizmos.create({ apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name: 'g2', namespace: 'default' } });
    await assert.rejects(gizmos.create({ apiVersion: 'example.com/v1', kind: 'Gizmo', metadata: { name: 'g3', namespace: 'default' } }), {
      message: 'gizmos.example.com "g3" is forbidden: exceeded quota: gizmos, requested: count/gizmos.example.com=1, used: count/gizmos.example.com=2, limited: count/gizmos.example.com=2',
    });
    await gizmos.delete('g1');
    await stepUntil(clock, 'the deleted gizmo given back', async () => (await c.core.resourceQuotas('default').get('gizmos')).status?.used?.['count/gizmos.example.com'] === '1');
  } finally {
    await cp.stop();
  }
});
