/**
 * The garbage collector in the whole control plane under a FakeClock: each propagation policy on the
 * three-level chain Deployment → ReplicaSet → pods, several owners, blockOwnerDeletion, dangling and
 * invalid owner references, and a restart in the middle of a foreground deletion.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Deployment, Pod, ReplicaSet } from '../../src/api/index.js';
import type { ControlPlane } from '../../src/cli/cluster.js';
import { deployment, exists, newPlane, ownerRef, pod, startPlane, stepFor, stepUntil, uids } from './cluster-helpers.js';

/** A ReplicaSet of 0 replicas whose selector matches no bare pod: an owner the RS controller leaves alone. */
function idleReplicaSet(name: string, namespace = 'default'): ReplicaSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name, namespace },
    spec: { replicas: 0, selector: { matchLabels: { rs: name } }, template: { metadata: { labels: { rs: name } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
  };
}

async function rolledOut(cp: ControlPlane, clock: Parameters<typeof stepUntil>[0], name: string, replicas: number): Promise<{ d: Deployment; rs: ReplicaSet; pods: Pod[] }> {
  const deployments = cp.client.apps.deployments('default');
  await stepUntil(clock, `${name} available`, async () => (await deployments.get(name)).status?.availableReplicas === replicas);
  const rs = (await cp.client.apps.replicaSets('default').list({ labelSelector: `app=${name}` })).items;
  assert.equal(rs.length, 1);
  const pods = (await cp.client.core.pods('default').list({ labelSelector: `app=${name}` })).items;
  assert.equal(pods.length, replicas);
  return { d: await deployments.get(name), rs: rs[0] as ReplicaSet, pods };
}

const ready = (p: Pod): boolean => (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

describe('garbage collection on Deployment → ReplicaSet → pods', () => {
  test('Background: the Deployment goes at once, then its ReplicaSet, then the pods', async () => {
    const { cp, clock, backend } = await newPlane();
    await cp.client.apps.deployments('default').create(deployment('web', 3));
    const { rs } = await rolledOut(cp, clock, 'web', 3);
    const res = await cp.client.apps.deployments('default').delete('web', { propagationPolicy: 'Background' });
    assert.equal((res as { status: string }).status, 'Success');
    assert.equal(await exists(() => cp.client.apps.deployments('default').get('web')), false);
    await stepUntil(clock, 'ReplicaSet collected', async () => !(await exists(() => cp.client.apps.replicaSets('default').get(rs.metadata?.name ?? ''))));
    await stepUntil(clock, 'pods collected', async () => (await cp.client.core.pods('default').list({ labelSelector: 'app=web' })).items.length === 0);
    await cp.stop();
    await backend.close();
  });

  test('Foreground: pods go first, then the ReplicaSet, then the Deployment', async () => {
    const { cp, clock, backend } = await newPlane();
    await cp.client.apps.deployments('default').create(deployment('web', 3));
    const { rs } = await rolledOut(cp, clock, 'web', 3);
    const res = (await cp.client.apps.deployments('default').delete('web', { propagationPolicy: 'Foreground' })) as Deployment;
    assert.deepEqual(res.metadata?.finalizers, ['foregroundDeletion']);
    assert.ok(res.metadata?.deletionTimestamp);
    let rsSeenForeground = false;
    for (let step = 0; ; step++) {
      assert.ok(step < 1200, 'foreground deletion finished');
      const d = await cp.client.apps.deployments('default').get('web').catch(() => undefined);
      const r = await cp.client.apps.replicaSets('default').get(rs.metadata?.name ?? '').catch(() => undefined);
      const pods = (await cp.client.core.pods('default').list({ labelSelector: 'app=web' })).items;
      if (r?.metadata?.finalizers?.includes('foregroundDeletion')) rsSeenForeground = true;
      if (pods.length > 0) assert.ok(r, 'the ReplicaSet outlives its pods');
      if (r) assert.ok(d, 'the Deployment outlives its ReplicaSet');
      if (!d) break;
      await clock.stepAsync(100);
    }
    assert.ok(rsSeenForeground, 'the ReplicaSet, having dependents, was itself deleted in the foreground');
    await cp.stop();
    await backend.close();
  });

  test('Orphan: the ReplicaSet loses its owner and keeps running; a new Deployment adopts it', async () => {
    const { cp, clock, backend } = await newPlane();
    const deployments = cp.client.apps.deployments('default');
    await deployments.create(deployment('web', 3));
    const { rs, pods } = await rolledOut(cp, clock, 'web', 3);
    const res = (await deployments.delete('web', { propagationPolicy: 'Orphan' })) as Deployment;
    assert.deepEqual(res.metadata?.finalizers, ['orphan']);
    await stepUntil(clock, 'Deployment gone', async () => !(await exists(() => deployments.get('web'))));
    await stepFor(clock, 5000);
    const orphan = await cp.client.apps.replicaSets('default').get(rs.metadata?.name ?? '');
    assert.equal(orphan.metadata?.uid, rs.metadata?.uid);
    assert.equal((orphan.metadata?.ownerReferences ?? []).length, 0, 'no owner left');
    const left = (await cp.client.core.pods('default').list({ labelSelector: 'app=web' })).items;
    assert.deepEqual(uids(left), uids(pods), 'the same pods keep running');
    assert.ok(left.every(ready));
    assert.ok(left.every((p) => p.metadata?.ownerReferences?.[0]?.uid === rs.metadata?.uid), 'pods still belong to the ReplicaSet');

    const again = await deployments.create(deployment('web', 3));
    await stepUntil(clock, 'ReplicaSet adopted', async () => (await cp.client.apps.replicaSets('default').get(rs.metadata?.name ?? '')).metadata?.ownerReferences?.[0]?.uid === again.metadata?.uid);
    const after = await rolledOut(cp, clock, 'web', 3);
    assert.equal(after.rs.metadata?.uid, rs.metadata?.uid, 'no new ReplicaSet');
    assert.deepEqual(uids(after.pods), uids(pods), 'no new pods');
    await cp.stop();
    await backend.close();
  });
});

describe('garbage collection: owners and references', () => {
  test('a dependent with several owners stays while one is solid and loses the others’ references', async () => {
    const { cp, clock, backend } = await newPlane();
    const rss = cp.client.apps.replicaSets('default');
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((n) => rss.create(idleReplicaSet(n))));
    const pods = cp.client.core.pods('default');
    await pods.create(pod('shared', { owners: [ownerRef(a as ReplicaSet), ownerRef(b as ReplicaSet), ownerRef(c as ReplicaSet, { blockOwnerDeletion: true })] }));
    await stepFor(clock, 2000);

    await rss.delete('a', { propagationPolicy: 'Background' });
    await stepUntil(clock, 'reference to a removed', async () => (await pods.get('shared')).metadata?.ownerReferences?.length === 2);
    // c is deleted in the foreground: the pod, still owned by b, drops c's reference, so c can go.
    await rss.delete('c', { propagationPolicy: 'Foreground' });
    await stepUntil(clock, 'c gone', async () => !(await exists(() => rss.get('c'))));
    const shared = await pods.get('shared');
    assert.deepEqual(shared.metadata?.ownerReferences?.map((r) => r.name), ['b']);
    assert.equal(shared.metadata?.deletionTimestamp, undefined);

    await rss.delete('b', { propagationPolicy: 'Background' });
    await stepUntil(clock, 'pod collected with its last owner', async () => !(await exists(() => pods.get('shared'))));
    await cp.stop();
    await backend.close();
  });

  test('Foreground waits for dependents with blockOwnerDeletion=true only', async () => {
    const { cp, clock, backend } = await newPlane();
    const rss = cp.client.apps.replicaSets('default');
    const pods = cp.client.core.pods('default');
    const owner = (await rss.create(idleReplicaSet('owner')));
    const hold = ['example.com/hold'];
    await pods.create(pod('blocker', { owners: [ownerRef(owner, { blockOwnerDeletion: true })], finalizers: hold }));
    await pods.create(pod('bystander', { owners: [ownerRef(owner, { blockOwnerDeletion: false })], finalizers: hold }));
    await stepFor(clock, 2000);

    await rss.delete('owner', { propagationPolicy: 'Foreground' });
    await stepUntil(clock, 'both dependents being deleted', async () => {
      const [x, y] = await Promise.all([pods.get('blocker'), pods.get('bystander')]);
      return !!x.metadata?.deletionTimestamp && !!y.metadata?.deletionTimestamp;
    });
    await stepFor(clock, 35_000);
    const waiting = await rss.get('owner');
    assert.deepEqual(waiting.metadata?.finalizers, ['foregroundDeletion'], 'still waiting for the blocking dependent');

    const blocker = await pods.get('blocker');
    await pods.update({ ...blocker, metadata: { ...blocker.metadata, finalizers: [] } });
    await stepUntil(clock, 'owner gone once the blocker is', async () => !(await exists(() => rss.get('owner'))));
    assert.equal(await exists(() => pods.get('bystander')), true, 'the non-blocking dependent did not hold the owner');
    const bystander = await pods.get('bystander');
    await pods.update({ ...bystander, metadata: { ...bystander.metadata, finalizers: [] } });
    await stepUntil(clock, 'bystander gone', async () => !(await exists(() => pods.get('bystander'))));
    await cp.stop();
    await backend.close();
  });

  test('dangling references: an absent owner, or another uid under the owner’s name, lets the dependent go', async () => {
    const { cp, clock, backend } = await newPlane();
    const pods = cp.client.core.pods('default');
    const rs = (await cp.client.apps.replicaSets('default').create(idleReplicaSet('real')));
    await pods.create(pod('ghost-owned', { owners: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'ghost', uid: 'no-such-uid' }] }));
    await pods.create(pod('stale-uid', { owners: [{ ...ownerRef(rs), uid: 'recreated-since' }] }));
    await pods.create(pod('valid', { owners: [ownerRef(rs)] }));
    await stepUntil(clock, 'dangling dependents collected', async () => !(await exists(() => pods.get('ghost-owned'))) && !(await exists(() => pods.get('stale-uid'))));
    await stepFor(clock, 5000);
    assert.equal(await exists(() => pods.get('valid')), true);
    await cp.stop();
    await backend.close();
  });

  test('invalid references: a cross-namespace owner counts as absent; a cluster-scoped dependent of a namespaced owner is left; both are reported', async () => {
    const { cp, clock, backend } = await newPlane();
    const rs = (await cp.client.apps.replicaSets('default').create(idleReplicaSet('x')));
    await stepFor(clock, 1000);
    await cp.client.core.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'other' } });
    const cross = await cp.client.core.pods('other').create(pod('cross', { namespace: 'other', owners: [ownerRef(rs)] }));
    await cp.client.core.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'owned', ownerReferences: [ownerRef(rs)] } });

    await stepUntil(clock, 'cross-namespace dependent collected', async () => !(await exists(() => cp.client.core.pods('other').get('cross'))));
    const message = (ns: string): string => `ownerRef [apps/v1/ReplicaSet, namespace: ${ns}, name: x, uid: ${rs.metadata?.uid ?? ''}] does not exist in namespace "${ns}"`;
    await stepUntil(clock, 'events written', async () => {
      const inOther = (await cp.client.core.events('other').list()).items.filter((e) => e.reason === 'OwnerRefInvalidNamespace');
      const inDefault = (await cp.client.core.events('default').list()).items.filter((e) => e.reason === 'OwnerRefInvalidNamespace');
      return inOther.length === 1 && inDefault.length === 1;
    });
    const [podEvent] = (await cp.client.core.events('other').list()).items.filter((e) => e.reason === 'OwnerRefInvalidNamespace');
    assert.equal(podEvent?.type, 'Warning');
    assert.equal(podEvent?.message, message('other'));
    assert.deepEqual(podEvent?.involvedObject, { kind: 'Pod', namespace: 'other', name: 'cross', uid: cross.metadata?.uid, apiVersion: 'v1' });
    assert.equal(podEvent?.source?.component, 'garbage-collector-controller');
    const [nsEvent] = (await cp.client.core.events('default').list()).items.filter((e) => e.reason === 'OwnerRefInvalidNamespace');
    assert.equal(nsEvent?.message, message(''));
    assert.equal(nsEvent?.involvedObject.kind, 'Namespace');

    await stepFor(clock, 10_000);
    assert.equal((await cp.client.core.namespaces().get('owned')).metadata?.deletionTimestamp, undefined, 'the cluster-scoped dependent is not collected');
    await cp.stop();
    await backend.close();
  });
});

describe('garbage collection across a restart', () => {
  test('a foreground deletion interrupted by a restart finishes; nothing is left behind, nothing extra deleted', async () => {
    const { cp, clock, backend } = await newPlane();
    const deployments = cp.client.apps.deployments('default');
    await deployments.create(deployment('web', 4));
    await deployments.create(deployment('keep', 2));
    const web = await rolledOut(cp, clock, 'web', 4);
    const keep = await rolledOut(cp, clock, 'keep', 2);

    await deployments.delete('web', { propagationPolicy: 'Foreground' });
    await stepUntil(
      clock,
      'the ReplicaSet being deleted in the foreground',
      async () => !!(await cp.client.apps.replicaSets('default').get(web.rs.metadata?.name ?? '')).metadata?.deletionTimestamp,
      200,
    );
    await cp.stop();
    const mid = await backend.list('/registry/apps/deployments/default/web');
    assert.equal(mid.kvs.length, 1, 'stopped in the middle: the Deployment is still there');

    const cp2 = await startPlane(backend, clock, 43);
    await stepUntil(clock, 'web and everything it owned gone', async () => {
      const rs = (await cp2.client.apps.replicaSets('default').list({ labelSelector: 'app=web' })).items;
      const pods = (await cp2.client.core.pods('default').list({ labelSelector: 'app=web' })).items;
      return !(await exists(() => cp2.client.apps.deployments('default').get('web'))) && rs.length === 0 && pods.length === 0;
    });
    const allRS = (await cp2.client.apps.replicaSets('default').list()).items;
    assert.deepEqual(uids(allRS), uids([keep.rs]), 'only keep’s ReplicaSet is left');
    const allPods = (await cp2.client.core.pods('default').list()).items;
    assert.deepEqual(uids(allPods), uids(keep.pods), 'only keep’s pods are left, untouched');
    assert.ok(allPods.every((p) => !p.metadata?.deletionTimestamp && ready(p)));
    assert.equal((await cp2.client.apps.deployments('default').get('keep')).metadata?.uid, keep.d.metadata?.uid);
    await cp2.stop();
    await backend.close();
  });
});
