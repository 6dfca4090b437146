/**
 * The VolumeBinding plugin inside the running scheduler, against the real API server (fake transport)
 * and a FakeClock. The tests play the PV controller by hand: they bind claims and volumes through the
 * client as pkg/controller/volume/persistentvolume would.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolume, PersistentVolumeClaim } from '../api/index.js';
import type { Clientset } from '../client/index.js';
import { startScheduler } from './testing/harness.js';
import { makeNode, makePod, makePodWithClaims, makePV, makePVC, makeStorageClass } from './testing/fixtures.js';

const SELECTED_NODE = 'volume.kubernetes.io/selected-node';
const nodes = () => ['n1', 'n2', 'n3'].map((n) => makeNode(n));
const PREEMPTION_3_UNRESOLVABLE = 'preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.';

/** What the PV controller does once a claim has a volume: volumeName, bind-completed, phase Bound (and the PV's claimRef). */
async function bindClaim(client: Clientset, claimName: string, pv: PersistentVolume): Promise<void> {
  const pvcs = client.core.persistentVolumeClaims('default');
  const claim = await pvcs.get(claimName);
  const existing = await client.core.persistentVolumes().get(pv.metadata?.name ?? '').catch(() => undefined);
  const ref = { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: 'default', name: claimName, uid: claim.metadata?.uid };
  if (existing) await client.core.persistentVolumes().update({ ...existing, spec: { ...existing.spec, claimRef: ref } });
  else await client.core.persistentVolumes().create({ ...pv, metadata: { name: pv.metadata?.name }, spec: { ...pv.spec, claimRef: ref } });
  const updated = await pvcs.update({
    ...claim,
    metadata: { ...claim.metadata, annotations: { ...claim.metadata?.annotations, 'pv.kubernetes.io/bind-completed': 'yes' } },
    spec: { ...claim.spec, volumeName: pv.metadata?.name },
  });
  await pvcs.updateStatus({ ...updated, status: { phase: 'Bound' } });
}

const failedScheduling = async (s: Awaited<ReturnType<typeof startScheduler>>, pod: string) =>
  (await s.events()).filter((e) => e.reason === 'FailedScheduling' && e.involvedObject.name === pod).map((e) => e.message);
const nodeOf = async (s: Awaited<ReturnType<typeof startScheduler>>, pod: string) => (await s.client.core.pods('default').get(pod)).spec?.nodeName;
const claim = async (s: Awaited<ReturnType<typeof startScheduler>>, name: string): Promise<PersistentVolumeClaim> => s.client.core.persistentVolumeClaims('default').get(name);

describe('VolumeBinding in the scheduler', () => {
  test('an unbound Immediate claim keeps the pod Pending with upstream\'s PreFilter message; once bound, the pod is scheduled', async () => {
    const s = await startScheduler([...nodes(), makeStorageClass('fast', 'Immediate'), makePVC('data', { cls: 'fast' }), makePodWithClaims('p', 'data'), makePod('plain')]);
    await s.settle(async () => (await failedScheduling(s, 'p')).length > 0);
    assert.deepEqual(await failedScheduling(s, 'p'), [`0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. ${PREEMPTION_3_UNRESOLVABLE}`]);
    const cond = (await s.client.core.pods('default').get('p')).status?.conditions?.find((c) => c.type === 'PodScheduled');
    assert.equal(cond?.reason, 'Unschedulable');
    // A pod without claims is not held up.
    await s.settle(async () => (await nodeOf(s, 'plain')) !== undefined);
    // Parked: time alone does not retry it; the claim's update does.
    await s.clock.stepAsync(30_000);
    assert.equal(s.scheduler.queue.stats().unschedulable, 1);
    await bindClaim(s.client, 'data', makePV('pv-1', { cls: 'fast' }));
    await s.settle(async () => (await nodeOf(s, 'p')) !== undefined, 500);
    await s.stop();
  });

  test('a missing claim, and a claim being deleted, are reported as upstream does', async () => {
    const deleting = makePVC('going', { cls: '' });
    deleting.metadata = { ...deleting.metadata, deletionTimestamp: '2024-01-01T00:00:00Z', finalizers: ['kubernetes.io/pvc-protection'] };
    const s = await startScheduler([...nodes(), deleting, makePodWithClaims('a', 'nope'), makePodWithClaims('b', 'going')]);
    await s.settle(async () => (await failedScheduling(s, 'a')).length > 0 && (await failedScheduling(s, 'b')).length > 0);
    assert.deepEqual(await failedScheduling(s, 'a'), [`0/3 nodes are available: persistentvolumeclaim "nope" not found. ${PREEMPTION_3_UNRESOLVABLE}`]);
    assert.deepEqual(await failedScheduling(s, 'b'), [`0/3 nodes are available: persistentvolumeclaim "going" is being deleted. ${PREEMPTION_3_UNRESOLVABLE}`]);
    // Creating the missing claim (bound) brings pod a back.
    await s.client.core.persistentVolumes().create({ ...makePV('pv-a'), metadata: { name: 'pv-a' } });
    await s.client.core.persistentVolumeClaims('default').create({ ...makePVC('nope', { cls: '' }), metadata: { name: 'nope', namespace: 'default' } });
    await bindClaim(s.client, 'nope', makePV('pv-a'));
    await s.settle(async () => (await nodeOf(s, 'a')) !== undefined, 500);
    await s.stop();
  });

  test('WaitForFirstConsumer: the claim gets selected-node of the chosen node; the pod is bound once the claim is', async () => {
    const s = await startScheduler([...nodes(), makeStorageClass('standard', 'WaitForFirstConsumer'), makePVC('data', { cls: 'standard' }), makePodWithClaims('web-0', 'data')]);
    await s.settle(async () => (await claim(s, 'data')).metadata?.annotations?.[SELECTED_NODE] !== undefined);
    const chosen = (await claim(s, 'data')).metadata?.annotations?.[SELECTED_NODE] as string;
    assert.match(chosen, /^n[123]$/);
    // PreBind waits for the PV controller: the pod is not bound yet.
    await s.clock.stepAsync(3_000);
    assert.equal(await nodeOf(s, 'web-0'), undefined);
    // The provisioner creates a PV on that node and the PV controller binds the claim.
    await bindClaim(s.client, 'data', makePV('pvc-data', { cls: 'standard', node: chosen }));
    await s.settle(async () => (await nodeOf(s, 'web-0')) === chosen, 1000);
    await s.settle(async () => (await s.events()).some((e) => e.reason === 'Scheduled' && e.involvedObject.name === 'web-0'));
    assert.deepEqual(await failedScheduling(s, 'web-0'), []);
    await s.stop();
  });

  test('a bound PV with node affinity restricts the pod to that node; an impossible one is reported', async () => {
    const pvc = makePVC('data', { cls: 'local', boundTo: 'pv-n2' });
    const lost = makePVC('lost', { cls: 'local', boundTo: 'pv-gone' });
    const s = await startScheduler([
      ...nodes(),
      makeStorageClass('local', 'WaitForFirstConsumer', { provisioner: 'kubernetes.io/no-provisioner' }),
      pvc,
      makePV('pv-n2', { cls: 'local', node: 'n2', claim: pvc }),
      lost,
      makePV('pv-gone', { cls: 'local', node: 'gone', claim: lost }),
      ...Array.from({ length: 4 }, (_, i) => makePodWithClaims(`p${i}`, 'data')),
      makePodWithClaims('stuck', 'lost'),
    ]);
    await s.settle(async () => (await s.pods()).filter((p) => p.spec?.nodeName).length === 4);
    for (let i = 0; i < 4; i++) assert.equal(await nodeOf(s, `p${i}`), 'n2');
    await s.settle(async () => (await failedScheduling(s, 'stuck')).length > 0);
    assert.deepEqual(await failedScheduling(s, 'stuck'), [`0/3 nodes are available: 3 node(s) had volume node affinity conflict. ${PREEMPTION_3_UNRESOLVABLE}`]);
    await s.stop();
  });

  test('static PVs: the smallest matching PV reachable from a node is pre-bound by the scheduler; none ⇒ bind conflict', async () => {
    const cls = makeStorageClass('local', 'WaitForFirstConsumer', { provisioner: 'kubernetes.io/no-provisioner' });
    const s = await startScheduler([
      ...nodes(),
      cls,
      makePV('small-n1', { cls: 'local', node: 'n1', size: '1Gi' }),
      makePV('big-n3', { cls: 'local', node: 'n3', size: '10Gi' }),
      makePV('big-n2-other-class', { cls: 'other', node: 'n2', size: '10Gi' }),
      makePVC('data', { cls: 'local', size: '5Gi' }),
      makePVC('huge', { cls: 'local', size: '100Gi' }),
      makePodWithClaims('p', 'data'),
      makePodWithClaims('q', 'huge'),
    ]);
    await s.settle(async () => (await s.client.core.persistentVolumes().get('big-n3')).spec?.claimRef?.name === 'data');
    const pv = await s.client.core.persistentVolumes().get('big-n3');
    assert.equal(pv.spec?.claimRef?.uid, (await claim(s, 'data')).metadata?.uid);
    // Static binding does not ask for provisioning.
    assert.equal((await claim(s, 'data')).metadata?.annotations?.[SELECTED_NODE], undefined);
    await bindClaim(s.client, 'data', pv);
    await s.settle(async () => (await nodeOf(s, 'p')) === 'n3', 1000);
    await s.settle(async () => (await failedScheduling(s, 'q')).length > 0);
    assert.deepEqual(await failedScheduling(s, 'q'), [`0/3 nodes are available: 3 node(s) didn't find available persistent volumes to bind. ${PREEMPTION_3_UNRESOLVABLE}`]);
    await s.stop();
  });

  test('bind timeout: the pod is unreserved, reported and retried with backoff; it binds once the claim does', async () => {
    const s = await startScheduler(
      [...nodes(), makeStorageClass('standard', 'WaitForFirstConsumer'), makePVC('data', { cls: 'standard' }), makePodWithClaims('p', 'data')],
      { bindTimeoutMs: 5_000 },
    );
    await s.settle(async () => (await failedScheduling(s, 'p')).length > 0, 1000);
    assert.deepEqual(await failedScheduling(s, 'p'), ['running PreBind plugin "VolumeBinding": binding volumes: context deadline exceeded']);
    const cond = (await s.client.core.pods('default').get('p')).status?.conditions?.find((c) => c.type === 'PodScheduled');
    assert.equal(cond?.reason, 'SchedulerError');
    const chosen = (await claim(s, 'data')).metadata?.annotations?.[SELECTED_NODE] as string;
    assert.match(chosen, /^n[123]$/);
    assert.equal(s.scheduler.cache.isAssumed((await s.client.core.pods('default').get('p')).metadata?.uid ?? ''), false);
    assert.equal(s.scheduler.cache.getNodeInfo(chosen)?.pods.size ?? 0, 0);
    // Retried after the backoff: the claim stays annotated, so the same node is chosen; it times out again.
    await s.settle(async () => (await s.events()).filter((e) => e.reason === 'FailedScheduling' && e.involvedObject.name === 'p').some((e) => (e.count ?? 1) >= 2), 1000);
    await bindClaim(s.client, 'data', makePV('pvc-data', { cls: 'standard', node: chosen }));
    await s.settle(async () => (await nodeOf(s, 'p')) === chosen, 1000);
    await s.stop();
  });
});
