/**
 * pods/eviction honouring PodDisruptionBudgets: the cases of kubernetes/kubernetes
 * pkg/registry/core/pod/storage/eviction_test.go (TestEviction, TestEvictionIgnorePDB,
 * TestEvictionDryRun, TestEvictionPDBStatus, the unhealthyPodEvictionPolicy table of
 * TestEvictionIgnorePDB/TestEviction) against the real in-process server.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { servedStrategies } from './registry/resources/index.js';
import { newTestServer } from './testing/fixtures.js';
import { newClientset } from '../client/index.js';
import { isNotFound, type StatusError } from '../machinery/errors/index.js';
import type { Pod, PodDisruptionBudget } from '../api/index.js';

interface PdbOpts {
  name?: string;
  disruptionsAllowed?: number;
  currentHealthy?: number;
  desiredHealthy?: number;
  selector?: Record<string, string>;
  policy?: 'AlwaysAllow' | 'IfHealthyBudget';
  /** Leave observedGeneration behind the generation. */
  stale?: boolean;
}

async function setup() {
  const { server } = await newTestServer({ strategies: servedStrategies });
  const client = newClientset(server.inProcessTransport());
  const pods = client.core.pods('default');
  const pdbs = client.policy.podDisruptionBudgets('default');
  /** A pod in `phase` (Running by default) and Ready unless `ready` is false. */
  const pod = async (name: string, phase = 'Running', ready = true): Promise<void> => {
    const created = await pods.create({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { a: 'true' } }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'nginx' }] } });
    await pods.updateStatus({ ...created, status: { phase, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] } });
  };
  /** A budget over `a=true` pods with the given status (as the disruption controller would write it). */
  const pdb = async (o: PdbOpts = {}): Promise<void> => {
    const created = await pdbs.create({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: o.name ?? 'foo', namespace: 'default' },
      spec: { minAvailable: 1, selector: { matchLabels: o.selector ?? { a: 'true' } }, ...(o.policy ? { unhealthyPodEvictionPolicy: o.policy } : {}) },
    });
    await pdbs.updateStatus({
      ...created,
      status: {
        disruptionsAllowed: o.disruptionsAllowed ?? 0,
        currentHealthy: o.currentHealthy ?? 0,
        desiredHealthy: o.desiredHealthy ?? 0,
        expectedPods: 0,
        observedGeneration: o.stale ? 0 : 1,
        conditions: [{ type: 'DisruptionAllowed', status: (o.disruptionsAllowed ?? 0) > 0 ? 'True' : 'False', reason: (o.disruptionsAllowed ?? 0) > 0 ? 'SufficientPods' : 'InsufficientPods', message: '', observedGeneration: 1, lastTransitionTime: '2025-01-01T00:00:00Z' }],
      },
    });
  };
  const evict = (name: string, extra: Record<string, unknown> = {}, opts: { dryRun?: boolean } = {}) =>
    pods.createSubresource(name, 'eviction', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'default' }, ...extra }, opts);
  /** Whether the pod is gone or being deleted. */
  const evicted = async (name: string): Promise<boolean> => {
    try {
      return Boolean((await pods.get(name)).metadata?.deletionTimestamp);
    } catch (err) {
      if (isNotFound(err)) return true;
      throw err;
    }
  };
  const getPdb = (name = 'foo'): Promise<PodDisruptionBudget> => pdbs.get(name);
  return { server, client, pods, pod, pdb, evict, evicted, getPdb };
}

const tooManyRequests = (cause: string) => (err: StatusError) => {
  assert.equal(err.code, 429);
  assert.equal(err.status.reason, 'TooManyRequests');
  assert.equal(err.message, "Cannot evict pod as it would violate the pod's disruption budget.");
  assert.deepEqual(err.status.details?.causes, [{ reason: 'DisruptionBudget', message: cause }]);
  return true;
};

describe('pods/eviction with PodDisruptionBudgets (eviction_test.go)', () => {
  test('TestEviction: matching pdbs with no disruptions allowed, pod running → 429 with the DisruptionBudget cause', async () => {
    const h = await setup();
    await h.pod('p');
    await h.pdb({ disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1 });
    await assert.rejects(h.evict('p'), tooManyRequests('The disruption budget foo needs 1 healthy pods and has 1 currently'));
    assert.equal(await h.evicted('p'), false);
    const pod: Pod = await h.pods.get('p');
    assert.equal(pod.status?.conditions?.find((c) => c.type === 'DisruptionTarget'), undefined, 'a refused eviction leaves no condition');
    await h.server.close();
  });

  test('TestEviction: matching pdbs with disruptions allowed, pod running → deleted, the budget decremented and the pod recorded', async () => {
    const h = await setup();
    await h.pod('p');
    await h.pdb({ disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1 });
    assert.deepEqual(await h.evict('p'), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    assert.equal(await h.evicted('p'), true);
    // TestEvictionPDBStatus: 1 → 0 turns the condition to InsufficientPods.
    const status = (await h.getPdb()).status;
    assert.equal(status?.disruptionsAllowed, 0);
    assert.deepEqual(Object.keys(status?.disruptedPods ?? {}), ['p']);
    assert.deepEqual(status?.conditions?.map((c) => [c.type, c.status, c.reason]), [['DisruptionAllowed', 'False', 'InsufficientPods']]);
    await h.server.close();
  });

  test('TestEvictionPDBStatus: 2 → 1 leaves the condition SufficientPods', async () => {
    const h = await setup();
    await h.pod('p');
    await h.pdb({ disruptionsAllowed: 2, currentHealthy: 3, desiredHealthy: 1 });
    await h.evict('p');
    const status = (await h.getPdb()).status;
    assert.equal(status?.disruptionsAllowed, 1);
    assert.deepEqual(status?.conditions?.map((c) => [c.status, c.reason]), [['True', 'SufficientPods']]);
    await h.server.close();
  });

  test('TestEviction: non-matching pdbs → deleted', async () => {
    const h = await setup();
    await h.pod('p');
    await h.pdb({ selector: { b: 'true' } });
    await h.evict('p');
    assert.equal(await h.evicted('p'), true);
    await h.server.close();
  });

  test('TestEviction: pod pending, succeeded or failed → deleted without the budget', async () => {
    const h = await setup();
    await h.pdb({ disruptionsAllowed: 0 });
    for (const phase of ['Pending', 'Succeeded', 'Failed']) {
      await h.pod(phase.toLowerCase(), phase);
      await h.evict(phase.toLowerCase());
      assert.equal(await h.evicted(phase.toLowerCase()), true, phase);
    }
    assert.equal((await h.getPdb()).status?.disruptionsAllowed, 0);
    await h.server.close();
  });

  test('TestEvictionIgnorePDB: a pod already terminating is evicted without the budget', async () => {
    const h = await setup();
    await h.pod('t');
    await h.pods.delete('t');
    await h.pdb({ disruptionsAllowed: 0 });
    assert.deepEqual(await h.evict('t'), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    await h.server.close();
  });

  test('more than one matching budget → 500 Failure', async () => {
    const h = await setup();
    await h.pod('p');
    await h.pdb({ name: 'one', disruptionsAllowed: 1 });
    await h.pdb({ name: 'two', disruptionsAllowed: 1 });
    await assert.rejects(h.evict('p'), (err: StatusError) => {
      assert.equal(err.code, 500);
      assert.equal(err.message, 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.');
      return true;
    });
    assert.equal(await h.evicted('p'), false);
    await h.server.close();
  });

  test('a budget whose status has not observed its generation → 429 "still being processed", retry after 10 s', async () => {
    const h = await setup();
    await h.pod('p');
    await h.pdb({ disruptionsAllowed: 1, stale: true });
    await assert.rejects(h.evict('p'), (err: StatusError) => {
      tooManyRequests('The disruption budget foo is still being processed by the server.')(err);
      assert.equal(err.status.details?.retryAfterSeconds, 10);
      return true;
    });
    await h.server.close();
  });

  test('TestEvictionDryRun: the budget is checked but neither it nor the pod is written', async () => {
    const h = await setup();
    await h.pod('p');
    await h.pdb({ disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1 });
    await h.evict('p', {}, { dryRun: true });
    await h.evict('p', { deleteOptions: { dryRun: ['All'] } });
    assert.equal(await h.evicted('p'), false);
    const pod: Pod = await h.pods.get('p');
    assert.equal(pod.status?.conditions?.find((c) => c.type === 'DisruptionTarget'), undefined);
    assert.equal((await h.getPdb()).status?.disruptionsAllowed, 1);
    await h.pdb({ name: 'bar', selector: { a: 'true' } });
    await assert.rejects(h.evict('p', {}, { dryRun: true }), (err: StatusError) => err.code === 500);
    await h.server.close();
  });

  // The unhealthyPodEvictionPolicy table (eviction_test.go, `unhealthyPodEvictionPolicy` cases): a pod
  // that is not Ready is evicted without spending the budget when the policy is AlwaysAllow, or when
  // the budget has its healthy pods (IfHealthyBudget, the default); otherwise the budget decides.
  const cases: { name: string; policy?: 'AlwaysAllow' | 'IfHealthyBudget'; ready: boolean; current: number; desired: number; allowed: number; evicted: boolean }[] = [
    { name: 'unready pod, default policy, healthy budget', ready: false, current: 2, desired: 2, allowed: 0, evicted: true },
    { name: 'unready pod, IfHealthyBudget, unhealthy budget', policy: 'IfHealthyBudget', ready: false, current: 1, desired: 2, allowed: 0, evicted: false },
    { name: 'unready pod, AlwaysAllow, unhealthy budget', policy: 'AlwaysAllow', ready: false, current: 1, desired: 2, allowed: 0, evicted: true },
    { name: 'ready pod, AlwaysAllow, no disruption allowed', policy: 'AlwaysAllow', ready: true, current: 2, desired: 2, allowed: 0, evicted: false },
    { name: 'unready pod, default policy, desiredHealthy 0', ready: false, current: 0, desired: 0, allowed: 0, evicted: false },
  ];
  for (const c of cases) {
    test(`unhealthyPodEvictionPolicy: ${c.name} → ${c.evicted ? 'evicted' : '429'}`, async () => {
      const h = await setup();
      await h.pod('p', 'Running', c.ready);
      await h.pdb({ disruptionsAllowed: c.allowed, currentHealthy: c.current, desiredHealthy: c.desired, ...(c.policy ? { policy: c.policy } : {}) });
      if (c.evicted) {
        await h.evict('p');
        // The budget is not spent on an unhealthy pod.
        assert.deepEqual((await h.getPdb()).status?.disruptedPods, undefined);
      } else {
        await assert.rejects(h.evict('p'), (err: StatusError) => err.code === 429);
      }
      assert.equal(await h.evicted('p'), c.evicted);
      await h.server.close();
    });
  }
});
