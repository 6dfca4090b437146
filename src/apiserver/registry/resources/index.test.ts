import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jobStrategy, replicationControllerStrategy, servedStrategies } from './index.js';
import { semanticDeepEqual } from './helpers.js';

test('served strategies: namespaces first, as their bootstrap objects hold every other kind\'s', () => {
  // Discovery sorts them itself (http/resource-index.ts); this order is the start-up order of `bootstrap`.
  assert.equal(servedStrategies[0]?.info.resource, 'namespaces');
  assert.deepEqual(
    servedStrategies.map((s) => `${s.info.group || 'core'}/${s.info.version}/${s.info.resource}`).sort(),
    [
      'admissionregistration.k8s.io/v1/mutatingwebhookconfigurations',
      'admissionregistration.k8s.io/v1/validatingadmissionpolicies',
      'admissionregistration.k8s.io/v1/validatingadmissionpolicybindings',
      'admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
      'apiextensions.k8s.io/v1/customresourcedefinitions',
      'apiregistration.k8s.io/v1/apiservices',
      'apps/v1/controllerrevisions',
      'apps/v1/daemonsets',
      'apps/v1/deployments',
      'apps/v1/replicasets',
      'apps/v1/statefulsets',
      'authentication.k8s.io/v1/selfsubjectreviews',
      'authentication.k8s.io/v1/tokenreviews',
      'authorization.k8s.io/v1/localsubjectaccessreviews',
      'authorization.k8s.io/v1/selfsubjectaccessreviews',
      'authorization.k8s.io/v1/selfsubjectrulesreviews',
      'authorization.k8s.io/v1/subjectaccessreviews',
      'autoscaling/v1/horizontalpodautoscalers',
      'autoscaling/v2/horizontalpodautoscalers',
      'batch/v1/cronjobs',
      'batch/v1/jobs',
      'certificates.k8s.io/v1/certificatesigningrequests',
      'coordination.k8s.io/v1/leases',
      'core/v1/bindings',
      'core/v1/componentstatuses',
      'core/v1/configmaps',
      'core/v1/endpoints',
      'core/v1/events',
      'core/v1/limitranges',
      'core/v1/namespaces',
      'core/v1/nodes',
      'core/v1/persistentvolumeclaims',
      'core/v1/persistentvolumes',
      'core/v1/pods',
      'core/v1/podtemplates',
      'core/v1/replicationcontrollers',
      'core/v1/resourcequotas',
      'core/v1/secrets',
      'core/v1/serviceaccounts',
      'core/v1/services',
      'discovery.k8s.io/v1/endpointslices',
      'events.k8s.io/v1/events',
      'flowcontrol.apiserver.k8s.io/v1/flowschemas',
      'flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations',
      'metrics.k8s.io/v1beta1/nodes',
      'metrics.k8s.io/v1beta1/pods',
      'networking.k8s.io/v1/ingressclasses',
      'networking.k8s.io/v1/ingresses',
      'networking.k8s.io/v1/ipaddresses',
      'networking.k8s.io/v1/networkpolicies',
      'networking.k8s.io/v1/servicecidrs',
      'node.k8s.io/v1/runtimeclasses',
      'policy/v1/poddisruptionbudgets',
      'rbac.authorization.k8s.io/v1/clusterrolebindings',
      'rbac.authorization.k8s.io/v1/clusterroles',
      'rbac.authorization.k8s.io/v1/rolebindings',
      'rbac.authorization.k8s.io/v1/roles',
      'scheduling.k8s.io/v1/priorityclasses',
      'storage.k8s.io/v1/csidrivers',
      'storage.k8s.io/v1/csinodes',
      'storage.k8s.io/v1/csistoragecapacities',
      'storage.k8s.io/v1/storageclasses',
      'storage.k8s.io/v1/volumeattachments',
    ],
  );
  const resources = (pick: (s: (typeof servedStrategies)[number]) => unknown) => [...new Set(servedStrategies.filter(pick).map((s) => s.info.resource))].sort();
  assert.deepEqual(resources((s) => s.info.categories.includes('all')), [
    'cronjobs',
    'daemonsets',
    'deployments',
    'horizontalpodautoscalers',
    'jobs',
    'pods',
    'replicasets',
    'replicationcontrollers',
    'services',
    'statefulsets',
  ]);
  assert.deepEqual(resources((s) => s.scale), ['deployments', 'replicasets', 'replicationcontrollers', 'statefulsets']);
  assert.deepEqual(resources((s) => s.allowCreateOnUpdate), [
    'clusterrolebindings',
    'clusterroles',
    'endpoints',
    'events',
    'leases',
    'limitranges',
    'rolebindings',
    'roles',
    'runtimeclasses',
    'services',
  ]);
  assert.deepEqual(resources((s) => s.info.categories.includes('api-extensions')), [
    'apiservices',
    'customresourcedefinitions',
    'mutatingwebhookconfigurations',
    'validatingadmissionpolicies',
    'validatingadmissionpolicybindings',
    'validatingwebhookconfigurations',
  ]);
  // ReplicationControllers keep v1's Orphan default, from before server-side garbage collection, and
  // batch/v1 Jobs orphan their pods (pkg/registry/batch/job/strategy.go); the rest delete in the background.
  assert.deepEqual(resources((s) => s.defaultGarbageCollectionPolicy !== 'Background'), ['jobs', 'replicationcontrollers']);
  assert.equal(replicationControllerStrategy.defaultGarbageCollectionPolicy, 'Orphan');
  assert.equal(jobStrategy.defaultGarbageCollectionPolicy, 'Orphan');
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
