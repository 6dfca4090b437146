/**
 * The ResourceQuota admission plugin through the API server, cases after upstream's
 * plugin/pkg/admission/resourcequota/admission_test.go (TestAdmitBelowQuotaLimit,
 * TestAdmitExceedQuotaLimit, TestAdmitEnforceQuotaConstraints, TestAdmitBelowBestEffortQuotaLimit,
 * TestAdmitRejectIfNoStatusUsage... ) with upstream's messages. The quotas' status is written here
 * as the quota controller would.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod, ResourceQuota } from '../../api/index.js';
import { newClientset, type Clientset } from '../../client/index.js';
import { servedStrategies } from '../registry/resources/index.js';
import { newTestServer } from '../testing/fixtures.js';

type Res = { requests?: Record<string, string>; limits?: Record<string, string> };

const pod = (name: string, resources: Res = {}, spec: Partial<NonNullable<Pod['spec']>> = {}): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default' },
  spec: { containers: [{ name: 'c', image: 'nginx', resources }], ...spec },
});

/** Creates quota `name` with `hard` and writes its status (hard, used) as the controller would. */
async function quota(client: Clientset, name: string, hard: Record<string, string>, used: Record<string, string>, spec: Partial<NonNullable<ResourceQuota['spec']>> = {}): Promise<void> {
  const created = await client.core.resourceQuotas('default').create({ metadata: { name, namespace: 'default' }, spec: { hard, ...spec } });
  await client.core.resourceQuotas('default').updateStatus({ ...created, status: { hard, used } });
}

async function setup(): Promise<{ client: Clientset; close: () => Promise<void> }> {
  const { server } = await newTestServer({ strategies: servedStrategies });
  return { client: newClientset(server.inProcessTransport()), close: () => server.close() };
}

const used = async (client: Clientset, name: string): Promise<Record<string, string> | undefined> => (await client.core.resourceQuotas('default').get(name)).status?.used;

describe('ResourceQuota admission', () => {
  test('below the limit is admitted and charged to status.used (TestAdmitBelowQuotaLimit)', async () => {
    const { client, close } = await setup();
    await quota(client, 'q', { cpu: '3', memory: '100Gi', pods: '5' }, { cpu: '1', memory: '50Gi', pods: '3' });
    await client.core.pods('default').create(pod('p', { requests: { cpu: '100m', memory: '2Gi' }, limits: { cpu: '200m', memory: '2Gi' } }));
    assert.deepEqual(await used(client, 'q'), { cpu: '1100m', memory: '52Gi', pods: '4' });
    await close();
  });

  test('the create that would exceed is refused with exceeded quota (TestAdmitExceedQuotaLimit)', async () => {
    const { client, close } = await setup();
    await quota(client, 'quota', { pods: '3' }, { pods: '3' });
    await assert.rejects(client.core.pods('default').create(pod('p4')), (err: Error & { status?: { code?: number } }) => {
      assert.equal(err.status?.code, 403);
      assert.equal(err.message, 'pods "p4" is forbidden: exceeded quota: quota, requested: pods=1, used: pods=3, limited: pods=3');
      return true;
    });
    assert.deepEqual(await used(client, 'quota'), { pods: '3' });
    await close();
  });

  test('only the exceeded resources are listed', async () => {
    const { client, close } = await setup();
    await quota(client, 'q', { 'requests.cpu': '1', pods: '10' }, { 'requests.cpu': '900m', pods: '1' });
    await assert.rejects(client.core.pods('default').create(pod('p', { requests: { cpu: '200m' } })), {
      message: 'pods "p" is forbidden: exceeded quota: q, requested: requests.cpu=200m, used: requests.cpu=900m, limited: requests.cpu=1',
    });
    await close();
  });

  test('a pod must state constrained compute resources (TestAdmitEnforceQuotaConstraints)', async () => {
    const { client, close } = await setup();
    await quota(client, 'compute', { 'limits.cpu': '2', 'requests.cpu': '1' }, { 'limits.cpu': '0', 'requests.cpu': '0' });
    await assert.rejects(client.core.pods('default').create(pod('p')), { message: 'pods "p" is forbidden: failed quota: compute: must specify limits.cpu,requests.cpu' });
    await close();
  });

  test('a quota the controller has not counted yet refuses (TestAdmitRejectIfNoStatusUsage... "status unknown")', async () => {
    const { client, close } = await setup();
    await quota(client, 'q', { pods: '3', 'count/pods': '3', secrets: '1' }, { pods: '0' });
    // Every resource the quota tracks for pods is named; the secrets it also limits are not.
    await assert.rejects(client.core.pods('default').create(pod('p')), { message: 'pods "p" is forbidden: status unknown for quota: q, resources: count/pods,pods' });
    await close();
  });

  test('object counts: count/configmaps and the legacy configmaps; other kinds are not limited', async () => {
    const { client, close } = await setup();
    await quota(client, 'objects', { 'count/configmaps': '1', secrets: '0' }, { 'count/configmaps': '1', secrets: '0' });
    await assert.rejects(client.core.configMaps('default').create({ metadata: { name: 'cm' } }), {
      message: 'configmaps "cm" is forbidden: exceeded quota: objects, requested: count/configmaps=1, used: count/configmaps=1, limited: count/configmaps=1',
    });
    await assert.rejects(client.core.secrets('default').create({ metadata: { name: 's' } }), { message: 'secrets "s" is forbidden: exceeded quota: objects, requested: secrets=1, used: secrets=0, limited: secrets=0' });
    await client.core.services('default').create({ metadata: { name: 'svc' }, spec: { ports: [{ port: 80 }] } });
    await close();
  });

  test('scopes: a BestEffort quota limits only best-effort pods (TestAdmitBelowBestEffortQuotaLimit)', async () => {
    const { client, close } = await setup();
    await quota(client, 'besteffort', { pods: '1' }, { pods: '1' }, { scopes: ['BestEffort'] });
    await client.core.pods('default').create(pod('burstable', { requests: { cpu: '100m' } }));
    await assert.rejects(client.core.pods('default').create(pod('be')), { message: /exceeded quota: besteffort/ });
    await close();
  });

  test('scopeSelector PriorityClass In limits only pods of those classes', async () => {
    const { client, close } = await setup();
    await client.scheduling.priorityClasses().create({ metadata: { name: 'high' }, value: 1000 });
    await quota(client, 'high', { pods: '0' }, { pods: '0' }, { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } });
    await client.core.pods('default').create(pod('plain'));
    await assert.rejects(client.core.pods('default').create(pod('vip', {}, { priorityClassName: 'high' })), { message: /exceeded quota: high, requested: pods=1/ });
    await close();
  });

  test('a dry run is checked but not charged', async () => {
    const { client, close } = await setup();
    await quota(client, 'q', { pods: '2' }, { pods: '1' });
    await client.core.pods('default').create(pod('p'), { dryRun: true });
    assert.deepEqual(await used(client, 'q'), { pods: '1' });
    await close();
  });

  test('racing creates cannot both take the last unit', async () => {
    const { client, close } = await setup();
    await quota(client, 'q', { pods: '1' }, { pods: '0' });
    const results = await Promise.allSettled([client.core.pods('default').create(pod('a')), client.core.pods('default').create(pod('b'))]);
    assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
    assert.deepEqual(await used(client, 'q'), { pods: '1' });
    await close();
  });
});
