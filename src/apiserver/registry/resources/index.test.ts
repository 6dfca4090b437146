import { test } from 'node:test';
import assert from 'node:assert/strict';
import { servedStrategies } from './index.js';
import { semanticDeepEqual } from './helpers.js';

test('served strategies: namespaces first, as their bootstrap objects hold every other kind\'s', () => {
  // Discovery sorts them itself (http/resource-index.ts); this order is the start-up order of `bootstrap`.
  assert.equal(servedStrategies[0]?.info.resource, 'namespaces');
  assert.deepEqual(
    servedStrategies.map((s) => `${s.info.group || 'core'}/${s.info.version}/${s.info.resource}`).sort(),
    [
      'apps/v1/controllerrevisions',
      'apps/v1/daemonsets',
      'apps/v1/deployments',
      'apps/v1/replicasets',
      'authentication.k8s.io/v1/selfsubjectreviews',
      'authorization.k8s.io/v1/selfsubjectaccessreviews',
      'autoscaling/v1/horizontalpodautoscalers',
      'autoscaling/v2/horizontalpodautoscalers',
      'coordination.k8s.io/v1/leases',
      'core/v1/bindings',
      'core/v1/componentstatuses',
      'core/v1/configmaps',
      'core/v1/endpoints',
      'core/v1/events',
      'core/v1/namespaces',
      'core/v1/nodes',
      'core/v1/persistentvolumeclaims',
      'core/v1/persistentvolumes',
      'core/v1/pods',
      'core/v1/secrets',
      'core/v1/serviceaccounts',
      'core/v1/services',
      'discovery.k8s.io/v1/endpointslices',
      'events.k8s.io/v1/events',
      'scheduling.k8s.io/v1/priorityclasses',
      'storage.k8s.io/v1/csidrivers',
      'storage.k8s.io/v1/csinodes',
      'storage.k8s.io/v1/csistoragecapacities',
      'storage.k8s.io/v1/storageclasses',
      'storage.k8s.io/v1/volumeattachments',
    ],
  );
  const resources = (pick: (s: (typeof servedStrategies)[number]) => unknown) => [...new Set(servedStrategies.filter(pick).map((s) => s.info.resource))].sort();
  assert.deepEqual(resources((s) => s.info.categories.includes('all')), ['daemonsets', 'deployments', 'horizontalpodautoscalers', 'pods', 'replicasets', 'services']);
  assert.deepEqual(resources((s) => s.scale), ['deployments', 'replicasets']);
  assert.deepEqual(resources((s) => s.allowCreateOnUpdate), ['endpoints', 'events', 'leases', 'services']);
  assert.ok(servedStrategies.every((s) => s.defaultGarbageCollectionPolicy === 'Background'));
  for (const s of servedStrategies) {
    assert.equal(s.info.listKind, `${s.info.kind}List`);
    // One name column; upstream formats VolumeAttachment's Attacher as a name too.
    assert.equal(s.table.columns.filter((c) => c.format === 'name').length, s.info.resource === 'volumeattachments' ? 2 : 1, s.info.resource);
  }
});

test('semanticDeepEqual treats zero values like absent fields', () => {
  assert.ok(semanticDeepEqual({ a: [], b: {}, c: 0, d: false, e: '' }, {}));
  assert.ok(semanticDeepEqual({ x: { y: [1, { z: null }] } }, { x: { y: [1, {}] } }));
  assert.ok(!semanticDeepEqual({ a: [1] }, { a: [1, 2] }));
  assert.ok(!semanticDeepEqual({ a: 1 }, {}));
  assert.ok(!semanticDeepEqual([1, 2], [2, 1]));
});
