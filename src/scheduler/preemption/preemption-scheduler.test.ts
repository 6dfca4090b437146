/**
 * Preemption in the running scheduler against the real API server under the fake clock: victims
 * deleted gracefully with DisruptionTarget and a Preempted event, the preemptor nominated and bound
 * once they are gone, nominated pods holding their room, PDBs steering the choice, and
 * `preemptionPolicy: Never` (upstream test/integration/scheduler/preemption/preemption_test.go
 * TestPreemption, TestNominatedNodeCleanUp, TestPDBInPreemption, in spirit), and a preemptor whose
 * required pod anti-affinity rejects every node.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod, PodDisruptionBudget, PriorityClass } from '../../api/index.js';
import { startScheduler } from '../testing/harness.js';
import { makeNode, makePod } from '../testing/fixtures.js';

/** A pod bound to `node` with priority `priority` requesting `cpu`. */
const bound = (name: string, node: string, cpu: string, priority: number, labels?: Record<string, string>): Pod => {
  const p = makePod(name, { uid: `uid-${name}`, requests: { cpu }, spec: { nodeName: node, priority } });
  return { ...p, metadata: { ...p.metadata, ...(labels ? { labels } : {}) }, status: { phase: 'Running' } };
};
const pending = (name: string, cpu: string, priority: number, extra: Partial<NonNullable<Pod['spec']>> = {}): Pod =>
  makePod(name, { uid: `uid-${name}`, requests: { cpu }, spec: { priority, ...extra } });
const priorityClass = (name: string, value: number): PriorityClass => ({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value });

describe('Scheduler preemption', () => {
  test('a high-priority pod preempts on a full node, is nominated, and binds after the victim is gone', async () => {
    const s = await startScheduler([makeNode('n1', { cpu: '1' }), bound('victim', 'n1', '800m', 0), pending('high', '500m', 1000)]);
    const pods = s.client.core.pods('default');
    await s.settle(async () => !!(await pods.get('victim')).metadata?.deletionTimestamp);
    const victim = await pods.get('victim');
    assert.deepEqual(
      victim.status?.conditions?.filter((c) => c.type === 'DisruptionTarget').map((c) => [c.status, c.reason, c.message]),
      [['True', 'PreemptionByScheduler', 'default-scheduler: preempting to accommodate a higher priority pod']],
    );
    await s.settle(async () => (await pods.get('high')).status?.nominatedNodeName === 'n1');
    await s.settle(async () => (await s.events()).some((e) => e.reason === 'Preempted'));
    const events = await s.events();
    const preempted = events.find((e) => e.reason === 'Preempted');
    assert.equal(preempted?.involvedObject.name, 'victim');
    assert.equal(preempted?.type, 'Normal');
    assert.equal(preempted?.message, 'Preempted by pod uid-high on node n1');
    // Preemption succeeded: nothing follows the filters' reasons (upstream's PostFilter returns no message).
    assert.equal(events.find((e) => e.reason === 'FailedScheduling' && e.involvedObject.name === 'high')?.message, '0/1 nodes are available: 1 Insufficient cpu.');

    // The victim terminates during its grace period; the preemptor waits (it does not preempt again).
    await s.clock.stepAsync(5_000);
    assert.equal((await pods.get('high')).spec?.nodeName, undefined);
    assert.equal((await s.events()).filter((e) => e.reason === 'Preempted').length, 1);

    await pods.delete('victim', { gracePeriodSeconds: 0 });
    await s.settle(async () => (await pods.get('high')).spec?.nodeName === 'n1', 500);
    assert.equal(s.scheduler.nominator.size, 0);
    await s.stop();
  });

  test('a nominated pod keeps its room from a lower-priority pod that arrives meanwhile', async () => {
    const s = await startScheduler([
      priorityClass('mid', 500),
      makeNode('n1', { cpu: '1' }),
      bound('victim', 'n1', '800m', 0),
      pending('high', '500m', 1000),
    ]);
    const pods = s.client.core.pods('default');
    await s.settle(async () => (await pods.get('high')).status?.nominatedNodeName === 'n1');
    // The victim goes at once; the preemptor is still backing off (1 s) when a pod of lower priority
    // that would fit the freed node is created: it must not take the nominated room.
    await pods.delete('victim', { gracePeriodSeconds: 0 });
    await pods.create({ ...pending('mid', '600m', 0), spec: { ...pending('mid', '600m', 0).spec!, priority: undefined, priorityClassName: 'mid' } });
    await s.settle(async () => (await s.events()).some((e) => e.reason === 'FailedScheduling' && e.involvedObject.name === 'mid'));
    assert.equal((await pods.get('mid')).spec?.nodeName, undefined);
    await s.settle(async () => (await pods.get('high')).spec?.nodeName === 'n1', 500);
    assert.equal((await pods.get('mid')).spec?.nodeName, undefined);
    await s.stop();
  });

  test('a higher-priority preemptor takes the node over: the lower-priority nominee loses its nomination', async () => {
    const s = await startScheduler([makeNode('n1', { cpu: '1' }), bound('victim', 'n1', '800m', 0), pending('mid', '500m', 500)]);
    const pods = s.client.core.pods('default');
    await s.settle(async () => (await pods.get('mid')).status?.nominatedNodeName === 'n1');
    assert.equal(s.scheduler.nominator.nominatedNodeOf('uid-mid'), 'n1');
    // 900m fits n1 only without the victim and without mid's claim (lower priority: not counted).
    await pods.create({ ...pending('high', '900m', 0), spec: { ...pending('high', '900m', 0).spec!, priority: undefined, priorityClassName: 'system-cluster-critical' } });
    await s.settle(async () => (await pods.get('high')).status?.nominatedNodeName === 'n1');
    await s.settle(async () => (await pods.get('mid')).status?.nominatedNodeName === undefined);
    await s.settle(() => Promise.resolve(s.scheduler.nominator.nominatedNodeOf('uid-mid') === undefined));
    await pods.delete('victim', { gracePeriodSeconds: 0 });
    await s.settle(async () => (await pods.get('high')).spec?.nodeName === 'n1', 500);
    assert.equal((await pods.get('mid')).spec?.nodeName, undefined);
    await s.stop();
  });

  test('the node whose victims violate no PodDisruptionBudget is chosen', async () => {
    const pdb: PodDisruptionBudget = {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'guard', namespace: 'default' },
      spec: { selector: { matchLabels: { app: 'guarded' } }, minAvailable: 1 },
      status: { disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1 },
    };
    const s = await startScheduler([
      pdb,
      makeNode('n1', { cpu: '1' }),
      makeNode('n2', { cpu: '1' }),
      bound('guarded', 'n1', '800m', 0, { app: 'guarded' }),
      bound('free', 'n2', '800m', 0),
      pending('high', '500m', 1000),
    ]);
    const pods = s.client.core.pods('default');
    await s.settle(async () => (await pods.get('high')).status?.nominatedNodeName !== undefined);
    assert.equal((await pods.get('high')).status?.nominatedNodeName, 'n2');
    assert.ok((await pods.get('free')).metadata?.deletionTimestamp);
    assert.equal((await pods.get('guarded')).metadata?.deletionTimestamp, undefined);
    await s.stop();
  });

  test('preemptionPolicy Never: the pod stays pending and nothing is evicted', async () => {
    const s = await startScheduler([makeNode('n1', { cpu: '1' }), bound('victim', 'n1', '800m', 0), pending('polite', '500m', 1000, { preemptionPolicy: 'Never' })]);
    await s.settle(async () => (await s.events()).some((e) => e.reason === 'FailedScheduling'));
    const ev = (await s.events()).find((e) => e.reason === 'FailedScheduling');
    assert.equal(ev?.message, '0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.');
    await s.clock.stepAsync(30_000);
    const pods = s.client.core.pods('default');
    assert.equal((await pods.get('victim')).metadata?.deletionTimestamp, undefined);
    assert.equal((await pods.get('polite')).status?.nominatedNodeName, undefined);
    await s.stop();
  });

  test('required anti-affinity against lower-priority pods: the preemptor evicts the one on the node with fewest victims', async () => {
    // Without InterPodAffinity's RemovePod, the dry run would still count the victims' labels and
    // find no node where preemption helps.
    const s = await startScheduler([
      makeNode('n1'),
      makeNode('n2'),
      bound('low-1', 'n1', '100m', 0, { app: 'low' }),
      bound('low-2', 'n2', '100m', 0, { app: 'low' }),
      bound('low-3', 'n2', '100m', 0, { app: 'low' }),
      pending('high', '100m', 1000, {
        affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'low' } }, topologyKey: 'kubernetes.io/hostname' }] } },
      }),
    ]);
    const pods = s.client.core.pods('default');
    await s.settle(async () => (await pods.get('high')).status?.nominatedNodeName === 'n1');
    assert.ok((await pods.get('low-1')).metadata?.deletionTimestamp);
    assert.equal((await pods.get('low-2')).metadata?.deletionTimestamp, undefined);
    assert.equal((await pods.get('low-3')).metadata?.deletionTimestamp, undefined);
    assert.equal(
      (await s.events()).find((e) => e.reason === 'FailedScheduling' && e.involvedObject.name === 'high')?.message,
      "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules.",
    );
    await pods.delete('low-1', { gracePeriodSeconds: 0 });
    await s.settle(async () => (await pods.get('high')).spec?.nodeName === 'n1', 500);
    await s.stop();
  });

  test('pods of equal priority are not preempted', async () => {
    const s = await startScheduler([makeNode('n1', { cpu: '1' }), bound('peer', 'n1', '800m', 1000), pending('high', '500m', 1000)]);
    await s.settle(async () => (await s.events()).some((e) => e.reason === 'FailedScheduling'));
    assert.equal(
      (await s.events()).find((e) => e.reason === 'FailedScheduling')?.message,
      '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.',
    );
    assert.equal((await s.client.core.pods('default').get('peer')).metadata?.deletionTimestamp, undefined);
    await s.stop();
  });
});
