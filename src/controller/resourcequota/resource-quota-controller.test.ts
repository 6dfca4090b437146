/**
 * The resource quota controller under the fake clock, cases after upstream's
 * pkg/controller/resourcequota/resource_quota_controller_test.go (TestSyncResourceQuota: pods with
 * requests and limits, terminal pods not charged, BestEffort / NotBestEffort scopes, object counts)
 * and the replenishment of resource_quota_monitor.go.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, Pod, ResourceQuota } from '../../api/index.js';
import { silentLogger } from '../../util/runtime/index.js';
import { fakeCluster, type FakeCluster } from '../endpoint/testing/index.js';
import { ResourceQuotaController } from './resource-quota-controller.js';

type Res = { requests?: Record<string, string>; limits?: Record<string, string> };

const pod = (name: string, resources: Res = {}, phase = 'Running'): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'ns' },
  spec: { containers: [{ name: 'c', image: 'nginx', resources }] },
  status: { phase },
});

const quota = (name: string, hard: Record<string, string>, spec: Partial<NonNullable<ResourceQuota['spec']>> = {}): ResourceQuota => ({
  apiVersion: 'v1',
  kind: 'ResourceQuota',
  metadata: { name, namespace: 'ns' },
  spec: { hard, ...spec },
});

async function start(objects: KubeObject[], resyncPeriodMs?: number): Promise<FakeCluster> {
  const c = await fakeCluster(objects);
  const ctrl = new ResourceQuotaController({ client: c.client, informers: c.informers, clock: c.clock, logger: silentLogger, ...(resyncPeriodMs ? { resyncPeriodMs } : {}) });
  c.informers.start();
  void ctrl.run(2, c.stop.signal);
  await c.settle();
  return c;
}

const status = async (c: FakeCluster, name: string): Promise<ResourceQuota['status']> => (await c.client.core.resourceQuotas('ns').get(name)).status;

describe('resource quota controller', () => {
  test('compute usage of the pods that are not terminal; status.hard mirrors spec.hard (TestSyncResourceQuota)', async () => {
    const c = await start([
      pod('a', { requests: { cpu: '100m', memory: '1Gi' }, limits: { cpu: '200m', memory: '2Gi' } }),
      pod('b', { requests: { cpu: '100m', memory: '1Gi' }, limits: { cpu: '200m', memory: '2Gi' } }),
      pod('done', { requests: { cpu: '1' } }, 'Succeeded'),
      quota('q', { cpu: '3', memory: '100Gi', pods: '5', 'limits.cpu': '4', 'count/pods': '10' }),
    ] as KubeObject[]);
    assert.deepEqual(await status(c, 'q'), {
      hard: { cpu: '3', memory: '100Gi', pods: '5', 'limits.cpu': '4', 'count/pods': '10' },
      used: { cpu: '200m', memory: '2Gi', pods: '2', 'limits.cpu': '400m', 'count/pods': '3' },
    });
    c.stop.abort();
  });

  test('scopes: BestEffort counts only best-effort pods, NotBestEffort the others', async () => {
    const c = await start([
      pod('be'),
      pod('burstable', { requests: { cpu: '100m' } }),
      quota('be', { pods: '5' }, { scopes: ['BestEffort'] }),
      quota('nbe', { pods: '5', 'requests.cpu': '1' }, { scopes: ['NotBestEffort'] }),
    ] as KubeObject[]);
    assert.deepEqual((await status(c, 'be'))?.used, { pods: '1' });
    assert.deepEqual((await status(c, 'nbe'))?.used, { pods: '1', 'requests.cpu': '100m' });
    c.stop.abort();
  });

  test('object counts, and zero for resources nothing uses', async () => {
    const c = await start([
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1', namespace: 'ns' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm2', namespace: 'ns' } },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc', namespace: 'ns' }, spec: { type: 'NodePort', ports: [{ port: 80 }] } },
      quota('objects', { configmaps: '10', 'count/configmaps': '10', services: '2', 'services.nodeports': '3', secrets: '1', 'count/deployments.apps': '2' }),
    ] as KubeObject[]);
    assert.deepEqual((await status(c, 'objects'))?.used, {
      configmaps: '2',
      'count/configmaps': '2',
      services: '1',
      'services.nodeports': '1',
      secrets: '0',
      'count/deployments.apps': '0',
    });
    c.stop.abort();
  });

  test('replenishment: a deleted pod and a pod turning terminal give their usage back; a spec change is picked up', async () => {
    const c = await start([pod('a'), pod('b'), pod('c'), quota('q', { pods: '3' })] as KubeObject[]);
    assert.deepEqual((await status(c, 'q'))?.used, { pods: '3' });
    await c.client.core.pods('ns').delete('a', { gracePeriodSeconds: 0 });
    await c.settle();
    assert.deepEqual((await status(c, 'q'))?.used, { pods: '2' });
    const b = await c.client.core.pods('ns').get('b');
    await c.client.core.pods('ns').updateStatus({ ...b, status: { phase: 'Failed' } });
    await c.settle();
    assert.deepEqual((await status(c, 'q'))?.used, { pods: '1' });
    const q = await c.client.core.resourceQuotas('ns').get('q');
    await c.client.core.resourceQuotas('ns').update({ ...q, spec: { hard: { pods: '10', 'count/pods': '10' } } });
    await c.settle();
    assert.deepEqual(await status(c, 'q'), { hard: { pods: '10', 'count/pods': '10' }, used: { pods: '1', 'count/pods': '2' } });
    c.stop.abort();
  });

  test('a wrong status.used is corrected by the periodic resync', async () => {
    const c = await start([pod('a'), quota('q', { pods: '3' })] as KubeObject[], 60_000);
    const q = await c.client.core.resourceQuotas('ns').get('q');
    await c.client.core.resourceQuotas('ns').updateStatus({ ...q, status: { hard: { pods: '3' }, used: { pods: '3' } } });
    await c.settle();
    assert.deepEqual((await status(c, 'q'))?.used, { pods: '3' });
    c.clock.step(60_000);
    await c.settle();
    assert.deepEqual((await status(c, 'q'))?.used, { pods: '1' });
    c.stop.abort();
  });
});
