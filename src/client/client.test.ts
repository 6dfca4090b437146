import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEPLOYMENTS, newClientset, type RestRequest, type Transport } from './index.js';

/** Records requests and answers `{}`. */
function recorder(): { transport: Transport; reqs: RestRequest[] } {
  const reqs: RestRequest[] = [];
  const transport: Transport = {
    request: (req) => {
      reqs.push(req);
      return Promise.resolve({});
    },
    watch: (req) => {
      reqs.push(req);
      return { stop: () => {} };
    },
  };
  return { transport, reqs };
}

describe('Clientset request shapes', () => {
  test('reads: get, list with options, watch with options', async () => {
    const { transport, reqs } = recorder();
    const cs = newClientset(transport, { userAgent: 'tester' });
    await cs.core.pods('ns1').get('p1');
    await cs.apps.deployments().list({ labelSelector: 'app=web', fieldSelector: 'metadata.name=x', limit: 500, continue: 'tok', resourceVersion: '0', resourceVersionMatch: 'NotOlderThan' });
    cs.coordination.leases('kube-node-lease').watch({ resourceVersion: '7', allowWatchBookmarks: true, timeoutSeconds: 300, sendInitialEvents: false }, () => {}, () => {});
    assert.deepEqual(reqs, [
      { verb: 'get', group: '', version: 'v1', resource: 'pods', namespace: 'ns1', name: 'p1', userAgent: 'tester' },
      {
        verb: 'list',
        group: 'apps',
        version: 'v1',
        resource: 'deployments',
        query: { labelSelector: 'app=web', fieldSelector: 'metadata.name=x', limit: '500', continue: 'tok', resourceVersion: '0', resourceVersionMatch: 'NotOlderThan' },
        userAgent: 'tester',
      },
      {
        verb: 'watch',
        group: 'coordination.k8s.io',
        version: 'v1',
        resource: 'leases',
        namespace: 'kube-node-lease',
        query: { resourceVersion: '7', allowWatchBookmarks: 'true', timeoutSeconds: '300', sendInitialEvents: 'false' },
        userAgent: 'tester',
      },
    ]);
  });

  test('writes: namespace from the object, write options, subresources, delete body', async () => {
    const { transport, reqs } = recorder();
    const cs = newClientset(transport);
    const rs = { metadata: { name: 'r', namespace: 'ns2' } };
    await cs.apps.replicaSets().create(rs, { dryRun: true, fieldManager: 'm', fieldValidation: 'Strict' });
    await cs.apps.replicaSets('ns2').update(rs);
    await cs.apps.replicaSets('ns2').updateStatus(rs);
    await cs.apps.deployments('ns2').patch('d', 'application/merge-patch+json', { spec: { replicas: 3 } }, { subresource: 'scale' });
    await cs.core.pods('ns2').delete('p', { propagationPolicy: 'Background' });
    await cs.core.pods('ns2').createSubresource('p', 'binding', { target: { name: 'n1' } });
    await cs.apps.deployments('ns2').getScale('d');
    await cs.apps.deployments('ns2').updateScale('d', { spec: { replicas: 2 } });
    await cs.core.nodes().delete('n1');
    const base = { group: 'apps', version: 'v1', resource: 'replicasets', namespace: 'ns2', name: 'r', body: rs };
    assert.deepEqual(reqs, [
      { verb: 'create', group: 'apps', version: 'v1', resource: 'replicasets', namespace: 'ns2', body: rs, query: { dryRun: 'All', fieldManager: 'm', fieldValidation: 'Strict' } },
      { verb: 'update', ...base },
      { verb: 'update', ...base, subresource: 'status' },
      { verb: 'patch', group: 'apps', version: 'v1', resource: 'deployments', namespace: 'ns2', name: 'd', subresource: 'scale', body: { spec: { replicas: 3 } }, patchType: 'application/merge-patch+json' },
      { verb: 'delete', group: '', version: 'v1', resource: 'pods', namespace: 'ns2', name: 'p', body: { propagationPolicy: 'Background' } },
      { verb: 'create', group: '', version: 'v1', resource: 'pods', namespace: 'ns2', name: 'p', subresource: 'binding', body: { target: { name: 'n1' } } },
      { verb: 'get', group: 'apps', version: 'v1', resource: 'deployments', namespace: 'ns2', name: 'd', subresource: 'scale' },
      { verb: 'update', group: 'apps', version: 'v1', resource: 'deployments', namespace: 'ns2', name: 'd', subresource: 'scale', body: { spec: { replicas: 2 } } },
      { verb: 'delete', group: '', version: 'v1', resource: 'nodes', name: 'n1' },
    ]);
  });

  test('resource(): generic client; cluster-scoped resources ignore the namespace', async () => {
    const { transport, reqs } = recorder();
    const cs = newClientset(transport);
    await cs.resource(DEPLOYMENTS, 'ns3').get('d');
    await cs.resource({ group: '', version: 'v1', resource: 'nodes', kind: 'Node', namespaced: false }, 'ns3').get('n');
    assert.equal(reqs[0]?.namespace, 'ns3');
    assert.equal(reqs[1]?.namespace, undefined);
  });
});
