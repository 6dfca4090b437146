import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { EndpointSlice, KubeObject, Node } from '../../api/index.js';
import { silentLogger } from '../../util/runtime/index.js';
import { fakeCluster, testPod, testService } from '../endpoint/testing/index.js';
import { EndpointSliceController, MAX_ENDPOINTS_PER_SLICE, desiredSlices, podToEndpoint, sliceLabels } from './endpointslice-controller.js';

async function run(objects: object[]) {
  const c = await fakeCluster(objects as KubeObject[]);
  const ctrl = new EndpointSliceController({ client: c.client, informers: c.informers, clock: c.clock, logger: silentLogger });
  c.informers.start();
  void ctrl.run(1, c.stop.signal);
  await c.settle();
  const slices = async (): Promise<EndpointSlice[]> => (await c.client.discovery.endpointSlices('ns').list()).items;
  return { ...c, slices };
}

describe('endpoint slices', () => {
  test('podToEndpoint: conditions, target ref, node, zone; terminating pods are not ready', () => {
    const node: Node = { metadata: { name: 'n1', labels: { 'topology.kubernetes.io/zone': 'z1' } } };
    const svc = testService('web');
    assert.deepEqual(podToEndpoint(testPod('a', { ip: '10.0.0.1' }), svc, node), {
      addresses: ['10.0.0.1'],
      conditions: { ready: true, serving: true, terminating: false },
      targetRef: { kind: 'Pod', namespace: 'ns', name: 'a', uid: 'a-uid' },
      nodeName: 'n1',
      zone: 'z1',
    });
    const terminating = { ...testPod('b', { ip: '10.0.0.2' }), metadata: { ...testPod('b').metadata, deletionTimestamp: '2025-01-01T00:00:00Z' } };
    assert.deepEqual(podToEndpoint(terminating, svc, undefined).conditions, { ready: false, serving: true, terminating: true });
  });

  test('desiredSlices: grouped by ports, chunks of 100, a placeholder when empty; labels', () => {
    const svc = testService('web', {}, { team: 'a', 'kubernetes.io/service-name': 'spoof' });
    assert.deepEqual(desiredSlices(svc, [], () => undefined), [{ endpoints: [] }]);
    const pods = Array.from({ length: MAX_ENDPOINTS_PER_SLICE + 1 }, (_, i) => testPod(`p${i}`, { ip: `10.0.${Math.floor(i / 200)}.${i % 200}` }));
    const slices = desiredSlices(svc, pods, () => undefined);
    assert.deepEqual(slices.map((s) => s.endpoints.length), [100, 1]);
    assert.deepEqual(slices[0]?.ports, [{ name: '', port: 8080, protocol: 'TCP' }]);
    assert.deepEqual(sliceLabels(svc), { team: 'a', 'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' });
  });

  test('the controller creates an owned slice, updates it as pods change, and keeps a placeholder when none are left', async () => {
    const c = await run([testService('web'), testPod('a', { ip: '10.0.0.1' }), testPod('b', { ip: '10.0.0.2', ready: false })]);
    let [slice, ...rest] = await c.slices();
    assert.equal(rest.length, 0);
    assert.match(slice?.metadata?.name ?? '', /^web-[a-z0-9]{5}$/);
    assert.equal(slice?.addressType, 'IPv4');
    assert.deepEqual(slice?.metadata?.ownerReferences, [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: 'web-uid', controller: true, blockOwnerDeletion: true }]);
    assert.deepEqual(slice?.endpoints?.map((e) => [e.addresses[0], e.conditions?.ready]), [['10.0.0.1', true], ['10.0.0.2', false]]);

    // Without grace, as the kubelet deletes them once their containers stopped (a graceful delete leaves them terminating).
    await c.client.core.pods('ns').delete('a', { gracePeriodSeconds: 0 });
    await c.client.core.pods('ns').delete('b', { gracePeriodSeconds: 0 });
    await c.settle();
    [slice, ...rest] = await c.slices();
    assert.equal(rest.length, 0);
    assert.deepEqual([slice?.endpoints, slice?.ports], [[], undefined]);
    c.stop.abort();
  });
});
