import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Endpoints, KubeObject } from '../../api/index.js';
import { isNotFound } from '../../machinery/errors/index.js';
import { silentLogger } from '../../util/runtime/index.js';
import { EndpointsController, endpointSubsets } from './endpoints-controller.js';
import { fakeCluster, testPod, testService } from './testing/index.js';
import { findPort, podEndpointsChanged } from '../endpoint-util.js';

async function run(objects: object[]) {
  const c = await fakeCluster(objects as KubeObject[]);
  const ctrl = new EndpointsController({ client: c.client, informers: c.informers, clock: c.clock, logger: silentLogger });
  c.informers.start();
  void ctrl.run(1, c.stop.signal);
  await c.settle();
  const get = async (name: string): Promise<Endpoints | undefined> => {
    try {
      return await c.client.core.endpoints('ns').get(name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };
  return { ...c, get };
}

describe('endpointSubsets', () => {
  test('ready and not-ready addresses, sorted, with target refs and node names; pods without IP or finished are left out', () => {
    const svc = testService('web');
    const pods = [
      testPod('b', { ip: '10.0.0.2' }),
      testPod('a', { ip: '10.0.0.1' }),
      testPod('c', { ip: '10.0.0.3', ready: false }),
      testPod('d'),
      { ...testPod('e', { ip: '10.0.0.5' }), status: { phase: 'Succeeded', podIP: '10.0.0.5' } },
    ];
    assert.deepEqual(endpointSubsets(svc, pods), [
      {
        addresses: [
          { ip: '10.0.0.1', nodeName: 'n1', targetRef: { kind: 'Pod', namespace: 'ns', name: 'a', uid: 'a-uid' } },
          { ip: '10.0.0.2', nodeName: 'n1', targetRef: { kind: 'Pod', namespace: 'ns', name: 'b', uid: 'b-uid' } },
        ],
        notReadyAddresses: [{ ip: '10.0.0.3', nodeName: 'n1', targetRef: { kind: 'Pod', namespace: 'ns', name: 'c', uid: 'c-uid' } }],
        ports: [{ port: 8080, protocol: 'TCP' }],
      },
    ]);
  });

  test('named target ports resolve per pod into separate subsets; headless without ports lists bare addresses', () => {
    const svc = testService('web', { ports: [{ name: 'http', port: 80, targetPort: 'web', protocol: 'TCP' }] });
    const pods = [testPod('a', { ip: '10.0.0.1', ports: [{ name: 'web', containerPort: 8080 }] }), testPod('b', { ip: '10.0.0.2', ports: [{ name: 'web', containerPort: 9090 }] }), testPod('c', { ip: '10.0.0.3' })];
    const subsets = endpointSubsets(svc, pods);
    assert.deepEqual(subsets.map((s) => [s.addresses?.map((a) => a.ip), s.ports]), [
      [['10.0.0.1'], [{ name: 'http', port: 8080, protocol: 'TCP' }]],
      [['10.0.0.2'], [{ name: 'http', port: 9090, protocol: 'TCP' }]],
    ]);
    const headless = testService('hl', { clusterIP: 'None', ports: [] });
    assert.deepEqual(endpointSubsets(headless, [testPod('a', { ip: '10.0.0.1' })]), [
      { addresses: [{ ip: '10.0.0.1', nodeName: 'n1', targetRef: { kind: 'Pod', namespace: 'ns', name: 'a', uid: 'a-uid' } }] },
    ]);
  });

  test('findPort and podEndpointsChanged', () => {
    const pod = testPod('a', { ports: [{ name: 'web', containerPort: 8080 }] });
    assert.equal(findPort(pod, { port: 80, targetPort: 'web' }), 8080);
    assert.equal(findPort(pod, { port: 80, targetPort: 'web', protocol: 'UDP' }), undefined);
    assert.equal(findPort(pod, { port: 80 }), 80);
    const ready = testPod('a', { ip: '1.1.1.1' });
    assert.deepEqual(podEndpointsChanged(ready, { ...ready, status: { ...ready.status, hostIP: 'x' } }), { labelsChanged: false, changed: false });
    assert.deepEqual(podEndpointsChanged(ready, testPod('a', { ip: '1.1.1.1', ready: false })), { labelsChanged: false, changed: true });
    assert.deepEqual(podEndpointsChanged(ready, testPod('a', { ip: '1.1.1.1', labels: { app: 'x' } })), { labelsChanged: true, changed: true });
  });
});

describe('EndpointsController', () => {
  test('creates Endpoints for a service, follows pods becoming ready and leaving, deletes them with the service', async () => {
    const c = await run([testService('web', {}, { team: 'a' }), testPod('a', { ip: '10.0.0.1' }), testPod('other', { ip: '10.0.0.9', labels: { app: 'db' } })]);
    let ep = await c.get('web');
    assert.deepEqual(ep?.metadata?.labels, { team: 'a' });
    assert.deepEqual(ep?.subsets?.map((s) => s.addresses?.map((a) => a.ip)), [['10.0.0.1']]);

    // A create resets the status (as upstream's pod strategy does); the kubelet writes it afterwards.
    const notReady = testPod('b', { ip: '10.0.0.2', ready: false });
    await c.client.core.pods('ns').updateStatus({ ...(await c.client.core.pods('ns').create(notReady)), status: notReady.status });
    await c.settle();
    ep = await c.get('web');
    assert.deepEqual(ep?.subsets?.[0]?.notReadyAddresses?.map((a) => a.ip), ['10.0.0.2']);

    const b = await c.client.core.pods('ns').get('b');
    await c.client.core.pods('ns').updateStatus({ ...b, status: { ...b.status, conditions: [{ type: 'Ready', status: 'True' }] } });
    await c.client.core.pods('ns').delete('a');
    await c.settle();
    ep = await c.get('web');
    assert.deepEqual(ep?.subsets, [{ addresses: [{ ip: '10.0.0.2', nodeName: 'n1', targetRef: { kind: 'Pod', namespace: 'ns', name: 'b', uid: b.metadata?.uid ?? '' } }], ports: [{ port: 8080, protocol: 'TCP' }] }]);

    // Nothing changed: no write.
    const writes = c.transport.actions.filter((a) => a.resource === 'endpoints' && a.verb === 'update').length;
    const b2 = await c.client.core.pods('ns').get('b');
    await c.client.core.pods('ns').updateStatus({ ...b2, status: { ...b2.status, hostIP: '1.2.3.4' } });
    await c.settle();
    assert.equal(c.transport.actions.filter((a) => a.resource === 'endpoints' && a.verb === 'update').length, writes);

    await c.client.core.services('ns').delete('web');
    await c.settle();
    assert.equal(await c.get('web'), undefined);
    c.stop.abort();
  });

  test('services without a selector and ExternalName services are left alone; headless ones are labelled', async () => {
    const c = await run([
      testService('manual', { selector: undefined }),
      testService('ext', { type: 'ExternalName', externalName: 'example.com' }),
      testService('hl', { clusterIP: 'None' }),
      testPod('a', { ip: '10.0.0.1' }),
    ]);
    assert.equal(await c.get('manual'), undefined);
    assert.equal(await c.get('ext'), undefined);
    assert.deepEqual((await c.get('hl'))?.metadata?.labels, { 'service.kubernetes.io/headless': '' });
    c.stop.abort();
  });
});
