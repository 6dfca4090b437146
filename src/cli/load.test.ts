/**
 * `kubeplane load`: workload references as kubectl writes them, the merge patch of the load
 * annotations (0 and --clear remove), the confirmation line, and the refusal of an object another
 * workload controls — against the real API server behind the test fake.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newClientset } from '../client/index.js';
import { CPU_LOAD_ANNOTATION, MEMORY_LOAD_ANNOTATION } from '../machinery/usage/index.js';
import { newFakeTransport } from '../testing/index.js';
import { loadPatch, parseWorkloadRef, setLoad } from './load.js';

test('workload references: kinds as kubectl names them', () => {
  for (const ref of ['deploy/web', 'deployment/web', 'deployments/web', 'deployment.apps/web', 'Deployment/web']) {
    assert.deepEqual([parseWorkloadRef(ref).kind.display, parseWorkloadRef(ref).name], ['deployment.apps', 'web'], ref);
  }
  assert.equal(parseWorkloadRef('sts/db').kind.display, 'statefulset.apps');
  assert.equal(parseWorkloadRef('ds/agent').kind.display, 'daemonset.apps');
  assert.equal(parseWorkloadRef('rs/x').kind.display, 'replicaset.apps');
  assert.equal(parseWorkloadRef('rc/x').kind.display, 'replicationcontroller');
  assert.equal(parseWorkloadRef('cj/x').kind.display, 'cronjob.batch');
  assert.throws(() => parseWorkloadRef('web'), /want <kind>\/<name>/);
  assert.throws(() => parseWorkloadRef('deploy/'), /want <kind>\/<name>/);
  assert.throws(() => parseWorkloadRef('pod/web'), /not "pod"/);
});

test('the patch: quantities set, 0 removes, --clear removes both; malformed quantities refused', () => {
  assert.deepEqual(loadPatch({ cpu: '1', memory: '512Mi' }), {
    patch: { metadata: { annotations: { [CPU_LOAD_ANNOTATION]: '1', [MEMORY_LOAD_ANNOTATION]: '512Mi' } } },
    summary: 'load set: cpu=1, memory=512Mi',
  });
  assert.deepEqual(loadPatch({ cpu: '0' }), { patch: { metadata: { annotations: { [CPU_LOAD_ANNOTATION]: null } } }, summary: 'load set: cpu removed' });
  assert.deepEqual(loadPatch({ clear: true }), {
    patch: { metadata: { annotations: { [CPU_LOAD_ANNOTATION]: null, [MEMORY_LOAD_ANNOTATION]: null } } },
    summary: 'load cleared',
  });
  assert.throws(() => loadPatch({ cpu: 'lots' }), /invalid --cpu "lots"/);
  assert.throws(() => loadPatch({ memory: '-1Gi' }), /invalid --memory "-1Gi"/);
  assert.throws(() => loadPatch({}), /give --cpu, --memory or --clear/);
});

test('setLoad patches the workload through the API; a ReplicaSet a Deployment controls is refused', async () => {
  const client = newClientset(await newFakeTransport());
  const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
  const deploy = await client.apps.deployments('default').create({ metadata: { name: 'web' }, spec: { selector: { matchLabels: { app: 'web' } }, template } });
  assert.equal(await setLoad(client, 'default', 'deploy/web', { cpu: '1' }), 'deployment.apps/web load set: cpu=1');
  assert.equal((await client.apps.deployments('default').get('web')).metadata?.annotations?.[CPU_LOAD_ANNOTATION], '1');
  assert.equal(await setLoad(client, 'default', 'deploy/web', { clear: true }), 'deployment.apps/web load cleared');
  assert.equal((await client.apps.deployments('default').get('web')).metadata?.annotations, undefined);

  const ownerReferences = [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: deploy.metadata?.uid ?? '', controller: true }];
  await client.apps.replicaSets('default').create({ metadata: { name: 'web-1', ownerReferences }, spec: { selector: { matchLabels: { app: 'web' } }, template } });
  await assert.rejects(setLoad(client, 'default', 'rs/web-1', { cpu: '1' }), /replicaset.apps\/web-1 is controlled by deployment.apps\/web: set the load there/);
  await assert.rejects(setLoad(client, 'default', 'deploy/nope', { cpu: '1' }), /deployments.apps "nope" not found/);
});
