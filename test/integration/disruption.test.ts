/**
 * PodDisruptionBudgets across the whole control plane under a FakeClock: the disruption controller
 * keeps the status, evictions spend it, the Deployment replaces the evicted pod and the budget allows
 * a disruption again once the replacement is Ready.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod, PodDisruptionBudget } from '../../src/api/index.js';
import type { ControlPlane } from '../../src/cli/cluster.js';
import type { StatusError } from '../../src/machinery/errors/index.js';
import type { FakeClock } from '../../src/util/clock/index.js';
import type { MemoryBackend } from '../../src/storage/memory/index.js';
import { deployment, newPlane, stepUntil } from './cluster-helpers.js';
import { isPodReady as ready } from '../../src/controller/controller-utils.js';

describe('PodDisruptionBudgets in the control plane', { timeout: 120_000 }, () => {
  let cp: ControlPlane;
  let clock: FakeClock;
  let backend: MemoryBackend;

  before(async () => {
    ({ cp, clock, backend } = await newPlane());
  });
  after(async () => {
    await cp.stop();
    await backend.close();
  });

  const livePods = async (): Promise<Pod[]> => (await cp.client.core.pods('default').list({ labelSelector: 'app=web' })).items.filter((p) => !p.metadata?.deletionTimestamp);
  const pdb = (): Promise<PodDisruptionBudget> => cp.client.policy.podDisruptionBudgets('default').get('web');
  const evict = (name: string): Promise<unknown> =>
    cp.client.core.pods('default').createSubresource(name, 'eviction', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'default' } });

  test('an eviction spends the budget, the next is refused until the replacement is Ready', async () => {
    await cp.client.apps.deployments('default').create(deployment('web', 3));
    await cp.client.policy.podDisruptionBudgets('default').create({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web', namespace: 'default' },
      spec: { maxUnavailable: 1, selector: { matchLabels: { app: 'web' } } },
    });
    await stepUntil(clock, 'the budget allows one disruption of 3 Ready pods', async () => (await pdb()).status?.disruptionsAllowed === 1 && (await pdb()).status?.currentHealthy === 3);
    const status = (await pdb()).status;
    assert.deepEqual([status?.expectedPods, status?.desiredHealthy, status?.observedGeneration], [3, 2, 1], 'expected from the Deployment scale');

    const [first, second] = (await livePods()).map((p) => p.metadata?.name ?? '');
    await evict(first ?? '');
    const after = (await pdb()).status;
    assert.equal(after?.disruptionsAllowed, 0);
    assert.deepEqual(Object.keys(after?.disruptedPods ?? {}), [first]);
    await assert.rejects(evict(second ?? ''), (err: StatusError) => {
      assert.equal(err.code, 429);
      assert.equal(err.message, "Cannot evict pod as it would violate the pod's disruption budget.");
      return true;
    });

    // The evicted pod goes, its replacement becomes Ready, the controller lets one go again.
    await stepUntil(clock, 'a Ready replacement', async () => {
      const pods = await livePods();
      return pods.length === 3 && pods.every(ready) && !pods.some((p) => p.metadata?.name === first);
    });
    await stepUntil(clock, 'the budget allows one again', async () => (await pdb()).status?.disruptionsAllowed === 1);
    assert.deepEqual((await pdb()).status?.disruptedPods, undefined, 'the deleted pod left disruptedPods');
    await evict(second ?? '');
  });
});
