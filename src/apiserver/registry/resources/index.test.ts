import { test } from 'node:test';
import assert from 'node:assert/strict';
import { servedStrategies } from './index.js';
import { semanticDeepEqual } from './helpers.js';

test('served strategies in discovery order', () => {
  assert.deepEqual(
    servedStrategies.map((s) => `${s.info.group || 'core'}/${s.info.version}/${s.info.resource}`),
    [
      'core/v1/namespaces',
      'core/v1/nodes',
      'core/v1/pods',
      'core/v1/services',
      'core/v1/endpoints',
      'core/v1/configmaps',
      'core/v1/secrets',
      'core/v1/serviceaccounts',
      'core/v1/events',
      'scheduling.k8s.io/v1/priorityclasses',
      'coordination.k8s.io/v1/leases',
      'apps/v1/controllerrevisions',
      'apps/v1/daemonsets',
      'apps/v1/deployments',
      'apps/v1/replicasets',
      'events.k8s.io/v1/events',
      'authentication.k8s.io/v1/selfsubjectreviews',
      'authorization.k8s.io/v1/selfsubjectaccessreviews',
      'autoscaling/v2/horizontalpodautoscalers',
      'autoscaling/v1/horizontalpodautoscalers',
      'discovery.k8s.io/v1/endpointslices',
    ],
  );
  assert.deepEqual(
    servedStrategies.map((s) => s.info.shortNames.join(',')),
    ['ns', 'no', 'po', 'svc', 'ep', 'cm', '', 'sa', 'ev', 'pc', '', '', 'ds', 'deploy', 'rs', 'ev', '', '', 'hpa', 'hpa', ''],
  );
  assert.deepEqual(servedStrategies.filter((s) => s.info.categories.includes('all')).map((s) => s.info.resource), ['pods', 'services', 'daemonsets', 'deployments', 'replicasets', 'horizontalpodautoscalers', 'horizontalpodautoscalers']);
  assert.deepEqual(servedStrategies.filter((s) => s.scale).map((s) => s.info.resource), ['deployments', 'replicasets']);
  assert.deepEqual(servedStrategies.filter((s) => s.allowCreateOnUpdate).map((s) => s.info.resource), ['services', 'endpoints', 'events', 'leases', 'events']);
  assert.ok(servedStrategies.every((s) => s.defaultGarbageCollectionPolicy === 'Background'));
  for (const s of servedStrategies) {
    assert.equal(s.info.listKind, `${s.info.kind}List`);
    assert.equal(s.table.columns.filter((c) => c.format === 'name').length, 1, s.info.resource);
  }
});

test('semanticDeepEqual treats zero values like absent fields', () => {
  assert.ok(semanticDeepEqual({ a: [], b: {}, c: 0, d: false, e: '' }, {}));
  assert.ok(semanticDeepEqual({ x: { y: [1, { z: null }] } }, { x: { y: [1, {}] } }));
  assert.ok(!semanticDeepEqual({ a: [1] }, { a: [1, 2] }));
  assert.ok(!semanticDeepEqual({ a: 1 }, {}));
  assert.ok(!semanticDeepEqual([1, 2], [2, 1]));
});
