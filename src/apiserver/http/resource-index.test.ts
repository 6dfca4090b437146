import { test } from 'node:test';
import assert from 'node:assert/strict';
import { servedStrategies } from '../registry/resources/index.js';
import { ResourceIndex } from './resource-index.js';
import type { ResourceStrategy } from '../registry/strategy.js';

/**
 * `kubectl get --raw /apis` on a 1.33 cluster with metrics-server (its APIService asks for priority
 * 100, after every other group): the groups in the order it lists them.
 */
const UPSTREAM_GROUPS = [
  'apiregistration.k8s.io',
  'apps',
  'events.k8s.io',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'networking.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'storage.k8s.io',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'scheduling.k8s.io',
  'coordination.k8s.io',
  'node.k8s.io',
  'discovery.k8s.io',
  'flowcontrol.apiserver.k8s.io',
  'metrics.k8s.io',
];

test('discovery lists core, then groups by APIService priority, versions by priority, resources by name', () => {
  const index = new ResourceIndex([...servedStrategies].reverse());
  const served = new Set(servedStrategies.map((s) => s.info.group));
  assert.deepEqual(
    index.groups.map((g) => g.name),
    ['', ...UPSTREAM_GROUPS.filter((g) => served.has(g))],
  );
  assert.deepEqual(
    index.group('autoscaling')?.versions.map((v) => v.version),
    ['v2', 'v1'],
  );
  for (const g of index.groups) {
    for (const v of g.versions) {
      const names = v.resources.map((r) => r.info.resource);
      assert.deepEqual(names, [...names].sort(), `${g.name}/${v.version}`);
    }
  }
});

test('a custom group comes after every kube-apiserver group, ties by name, and before metrics.k8s.io (100, as metrics-server asks)', () => {
  const fake = (group: string): ResourceStrategy => ({ ...(servedStrategies[0] as ResourceStrategy), info: { ...(servedStrategies[0] as ResourceStrategy).info, group, version: 'v1', resource: 'widgets' } });
  const index = new ResourceIndex([fake('z.example.com'), fake('a.example.com'), ...servedStrategies]);
  assert.deepEqual(index.groups.slice(-3).map((g) => g.name), ['a.example.com', 'z.example.com', 'metrics.k8s.io']);
});
