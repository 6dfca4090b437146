/**
 * Objects are stored and served as Go encodes them: a field tagged `omitempty` that holds an empty
 * value is left out (machinery/serializer, driven by the schema's `omitempty`/`pointer` facts), whoever
 * wrote the object and however (create, update, status, patch).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Deployment, ReplicaSet } from '../api/index.js';
import { newClientset } from '../client/index.js';
import { servedStrategies } from './registry/resources/index.js';
import { newTestServer } from './testing/fixtures.js';

const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };

test('an orphaned ReplicaSet has no ownerReferences field, in the response and in storage', async () => {
  const { server, backend } = await newTestServer({ strategies: servedStrategies });
  const replicaSets = newClientset(server.inProcessTransport()).apps.replicaSets('default');
  const rs: ReplicaSet = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: 'web-1',
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'd-1', controller: true, blockOwnerDeletion: true }],
    },
    spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template },
  };
  const created = await replicaSets.create(rs);
  // The patch with which the garbage collector and the controller-ref manager release a dependent.
  const orphan = await replicaSets.patch('web-1', 'application/strategic-merge-patch+json', {
    metadata: { ownerReferences: [{ $patch: 'delete', uid: 'd-1' }], uid: created.metadata?.uid },
  });
  assert.equal('ownerReferences' in (orphan.metadata ?? {}), false);
  const stored = JSON.parse((await backend.get('/registry/apps/replicasets/default/web-1'))?.value ?? '{}') as ReplicaSet;
  assert.equal('ownerReferences' in (stored.metadata ?? {}), false);
  assert.equal('ownerReferences' in ((await replicaSets.get('web-1')).metadata ?? {}), false);
  await server.close();
});

test('a status with unavailableReplicas 0 is stored without it; writing it again changes nothing', async () => {
  const { server } = await newTestServer({ strategies: servedStrategies });
  const deployments = newClientset(server.inProcessTransport()).apps.deployments('default');
  const d: Deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 0, selector: { matchLabels: { app: 'web' } }, template } };
  const created = await deployments.create(d);
  const status = { observedGeneration: 1, replicas: 0, updatedReplicas: 0, readyReplicas: 0, availableReplicas: 0, unavailableReplicas: 0 };
  const updated = await deployments.updateStatus({ ...created, status });
  // DeploymentStatus' counters are `int32 omitempty`; spec.replicas is a pointer, so its 0 stays.
  assert.deepEqual(updated.status, { observedGeneration: 1 });
  assert.equal(updated.spec?.replicas, 0);
  const again = await deployments.updateStatus({ ...updated, status });
  assert.equal(again.metadata?.resourceVersion, updated.metadata?.resourceVersion, 'no write: the stored object is the same');
  await server.close();
});
