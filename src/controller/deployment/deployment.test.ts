import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Deployment, DeploymentStrategy, KubeObject, Pod, ReplicaSet } from '../../api/index.js';
import { newClientset, type Clientset } from '../../client/index.js';
import { FakeTransport } from '../../client/fake/index.js';
import { SharedInformerFactory } from '../../informers/index.js';
import { getControllerOf } from '../../machinery/meta/index.js';
import { FakeClock, flushAsync, formatTime } from '../../util/clock/index.js';
import { SeededRand } from '../../util/random/index.js';
import { EventRecorder } from '../events.js';
import { processNextWorkItem, silentLogger } from '../framework.js';
import { ReplicaSetController } from '../replicaset/index.js';
import { DeploymentController } from './deployment-controller.js';
import { reconcileNewReplicaSet, reconcileOldReplicaSets } from './rolling.js';
import { calculateStatus, type DeploymentSyncContext } from './sync.js';

const T0 = Date.UTC(2025, 0, 1);

function newDeployment(name: string, replicas: number, strategy: DeploymentStrategy, image = 'v1'): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'ns', generation: 1 },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image }] } },
      strategy,
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    },
  };
}

const rolling = (maxSurge: number | string, maxUnavailable: number | string) => ({ type: 'RollingUpdate', rollingUpdate: { maxSurge, maxUnavailable } });

/** The API (FakeTransport), shared informers, both controllers, and a "kubelet" that makes pods ready. */
async function cluster(objects: KubeObject[] = []) {
  const clock = new FakeClock(T0);
  const transport = new FakeTransport({ clock, objects, rand: new SeededRand(7) });
  const client = newClientset(transport);
  const informers = new SharedInformerFactory(client, { clock, rand: new SeededRand(3) });
  const recorder = new EventRecorder(client, { component: 'kube-controller-manager', clock, logger: silentLogger });
  const rsc = new ReplicaSetController({ client, informers, clock, recorder, logger: silentLogger });
  const dc = new DeploymentController({ client, informers, clock, recorder, logger: silentLogger });
  informers.start();
  await informers.waitForCacheSync();
  const pods = async (): Promise<Pod[]> => (await client.core.pods('ns').list()).items;
  const rss = async (): Promise<ReplicaSet[]> => (await client.apps.replicaSets('ns').list()).items;

  /**
   * Runs queued keys (ReplicaSets first, as their pods lag their specs) until both queues are idle,
   * calling `check` after every sync.
   */
  async function settle(check: () => Promise<void> = () => Promise.resolve()): Promise<void> {
    for (let i = 0; i < 2000; i++) {
      await flushAsync();
      const ctl = rsc.queue.len() > 0 ? rsc : dc.queue.len() > 0 ? dc : undefined;
      if (!ctl) return;
      await processNextWorkItem(ctl.queue, ctl.syncHandler, { name: 'test', logger: silentLogger });
      await flushAsync();
      await check();
    }
    throw new Error('controllers did not settle');
  }

  /** Marks up to `max` not-ready pods Running and Ready (oldest name first). */
  async function makeReady(max = Infinity): Promise<number> {
    let n = 0;
    for (const p of (await pods()).sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''))) {
      if (n >= max) break;
      if (p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) continue;
      await client.core.pods('ns').updateStatus({
        ...p,
        status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: formatTime(clock.now()) }] },
      });
      n++;
    }
    return n;
  }
  return { clock, transport, client, informers, rsc, dc, pods, rss, settle, makeReady };
}

const isReady = (p: Pod) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
const ownerName = (p: Pod | ReplicaSet) => getControllerOf(p)?.name;

describe('rolling update, end to end', () => {
  test('10 replicas, maxSurge 3, maxUnavailable 2: bounds hold at every step', async () => {
    const d = newDeployment('web', 10, rolling(3, 2));
    const c = await cluster([d as KubeObject]);
    await c.settle();
    while ((await c.makeReady()) > 0) await c.settle();
    const [rs1] = await c.rss();
    assert.equal(rs1?.metadata?.annotations?.['deployment.kubernetes.io/revision'], '1');
    assert.equal(rs1?.metadata?.name, `web-${rs1?.metadata?.labels?.['pod-template-hash'] ?? ''}`);
    assert.equal(rs1?.spec?.selector.matchLabels?.['pod-template-hash'], rs1?.metadata?.labels?.['pod-template-hash']);
    assert.equal((await c.pods()).length, 10);

    // Roll out v2.
    const cur = await c.client.apps.deployments('ns').get('web');
    await c.client.apps.deployments('ns').update({ ...cur, spec: { ...cur.spec!, template: { ...cur.spec!.template, spec: { containers: [{ name: 'c', image: 'v2' }] } } } });

    let maxTotal = 0;
    let minAvailable = Infinity;
    const check = async () => {
      const specTotal = (await c.rss()).reduce((n, rs) => n + (rs.spec?.replicas ?? 0), 0);
      const pods = await c.pods();
      const available = pods.filter(isReady).length;
      assert.ok(specTotal <= 13, `replica specs ${specTotal} > replicas + maxSurge`);
      assert.ok(available >= 8, `available ${available} < replicas − maxUnavailable`);
      maxTotal = Math.max(maxTotal, specTotal);
      minAvailable = Math.min(minAvailable, available);
    };
    let rounds = 0;
    do {
      await c.settle(check);
      const pods = await c.pods();
      assert.ok(pods.length <= 13, `${pods.length} pods > replicas + maxSurge`);
      rounds++;
      // Make at most 2 pods ready per round so the rollout takes several steps.
    } while ((await c.makeReady(2)) > 0 && rounds < 100);
    await c.settle(check);

    assert.ok(rounds > 3, `rollout in several rounds (${rounds})`);
    assert.equal(maxTotal, 13, 'surge was used');
    assert.equal(minAvailable, 8, 'unavailability budget was used');
    const rss = await c.rss();
    assert.equal(rss.length, 2);
    const byRevision = Object.fromEntries(rss.map((rs) => [rs.metadata?.annotations?.['deployment.kubernetes.io/revision'], rs]));
    assert.equal(byRevision['1']?.spec?.replicas, 0);
    assert.equal(byRevision['2']?.spec?.replicas, 10);
    assert.equal(byRevision['2']?.status?.availableReplicas, 10);
    assert.ok((await c.pods()).every((p) => ownerName(p) === byRevision['2']?.metadata?.name));

    const dep = await c.client.apps.deployments('ns').get('web');
    const s = dep.status;
    assert.deepEqual([s?.replicas, s?.updatedReplicas, s?.readyReplicas, s?.availableReplicas, s?.unavailableReplicas ?? 0, s?.observedGeneration], [10, 10, 10, 10, 0, 2]);
    const conds = Object.fromEntries((s?.conditions ?? []).map((x) => [x.type, x]));
    assert.deepEqual([conds.Available?.status, conds.Available?.reason, conds.Available?.message], ['True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.']);
    assert.deepEqual(
      [conds.Progressing?.status, conds.Progressing?.reason, conds.Progressing?.message],
      ['True', 'NewReplicaSetAvailable', `ReplicaSet "${byRevision['2']?.metadata?.name ?? ''}" has successfully progressed.`],
    );

    const events = (await c.client.core.events('ns').list()).items.filter((e) => e.reason === 'ScalingReplicaSet').map((e) => e.message);
    assert.ok(events.includes(`Scaled up replica set ${byRevision['2']?.metadata?.name ?? ''} from 0 to 3`), events.join('\n'));
    assert.ok(events.some((m) => m?.startsWith(`Scaled down replica set ${byRevision['1']?.metadata?.name ?? ''} from 10 to 8`)), events.join('\n'));
    c.informers.shutdown();
  });
});

describe('Recreate', () => {
  test('old and new pods never run at the same time', async () => {
    const c = await cluster([newDeployment('db', 3, { type: 'Recreate' }) as KubeObject]);
    await c.settle();
    while ((await c.makeReady()) > 0) await c.settle();
    const cur = await c.client.apps.deployments('ns').get('db');
    await c.client.apps.deployments('ns').update({ ...cur, spec: { ...cur.spec!, template: { ...cur.spec!.template, spec: { containers: [{ name: 'c', image: 'v2' }] } } } });
    let sawZero = false;
    const check = async () => {
      const owners = new Set((await c.pods()).map(ownerName));
      assert.ok(owners.size <= 1, `pods of ${[...owners].join(', ')} at once`);
      if (owners.size === 0) sawZero = true;
    };
    do await c.settle(check);
    while ((await c.makeReady()) > 0);
    assert.ok(sawZero);
    const rss = await c.rss();
    const newRS = rss.find((rs) => rs.metadata?.annotations?.['deployment.kubernetes.io/revision'] === '2');
    assert.equal(newRS?.spec?.replicas, 3);
    assert.equal(newRS?.status?.availableReplicas, 3);
    assert.equal((await c.pods()).length, 3);
    c.informers.shutdown();
  });
});

describe('reconcileNewReplicaSet / reconcileOldReplicaSets: upstream worked example (10, maxSurge 3, maxUnavailable 2)', () => {
  test('step by step, new pods becoming available between syncs', async () => {
    const clock = new FakeClock(T0);
    const d = { ...newDeployment('web', 10, rolling(3, 2)), metadata: { name: 'web', namespace: 'ns', uid: 'd-uid', generation: 1 } };
    const mk = (name: string, replicas: number): ReplicaSet => ({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name, namespace: 'ns', uid: name, creationTimestamp: formatTime(name === 'old' ? T0 : T0 + 1000) },
      spec: { replicas, selector: {} },
      status: { replicas, availableReplicas: replicas },
    });
    const transport = new FakeTransport({ clock, objects: [mk('old', 10), mk('new', 0)] as KubeObject[] });
    const client: Clientset = newClientset(transport);
    const ctx: DeploymentSyncContext = {
      client,
      clock,
      recorder: new EventRecorder(client, { component: 't', clock, logger: silentLogger }),
      rsLister: { list: () => [], get: () => undefined, namespace: () => ({ list: () => [], get: () => undefined }) },
      enqueueAfter: () => undefined,
      enqueueRateLimited: () => undefined,
    };
    const get = (n: string) => client.apps.replicaSets('ns').get(n);
    /** One rolloutRolling step: scale up, or else scale down. Returns [old, new] specs. */
    const step = async (): Promise<[number, number]> => {
      const [oldRS, newRS] = [await get('old'), await get('new')];
      if (!(await reconcileNewReplicaSet(ctx, [oldRS, newRS], newRS, d))) await reconcileOldReplicaSets(ctx, [oldRS, newRS], [oldRS], newRS, d);
      return [(await get('old')).spec?.replicas ?? 0, (await get('new')).spec?.replicas ?? 0];
    };
    /** The pods of both RSes become available (the RS controller's status, simplified). */
    const available = async () => {
      for (const n of ['old', 'new']) {
        const rs = await get(n);
        await client.apps.replicaSets('ns').updateStatus({ ...rs, status: { replicas: rs.spec?.replicas ?? 0, availableReplicas: rs.spec?.replicas ?? 0 } });
      }
    };
    const steps: [number, number][] = [];
    steps.push(await step()); // new 0 → 3: total 13 = 10 + surge 3
    steps.push(await step()); // maxScaledDown = 13 − 8 − 3 unavailable = 2: old 10 → 8
    await available();
    steps.push(await step()); // total 11: new 3 → 5
    steps.push(await step()); // 13 − 8 − 2 = 3; available 11 − 8 = 3: old 8 → 5
    await available();
    steps.push(await step()); // total 10: new 5 → 8
    steps.push(await step()); // 13 − 8 − 3 = 2; available 10 − 8 = 2: old 5 → 3
    await available();
    steps.push(await step()); // total 11: new 8 → 10
    steps.push(await step()); // 13 − 8 − 2 = 3; available 11 − 8 = 3: old 3 → 0
    assert.deepEqual(steps, [[10, 3], [8, 3], [8, 5], [5, 5], [5, 8], [3, 8], [3, 10], [0, 10]]);
  });
});

describe('calculateStatus', () => {
  test('sums RS statuses; unavailable counts RS specs; Available condition', () => {
    const d = newDeployment('web', 4, rolling(1, 1));
    const rs = (n: string, spec: number, replicas: number, ready: number, available: number): ReplicaSet => ({
      metadata: { name: n },
      spec: { replicas: spec, selector: {} },
      status: { replicas, readyReplicas: ready, availableReplicas: available },
    });
    const newRS = rs('new', 3, 2, 2, 1);
    const s = calculateStatus([rs('old', 2, 2, 2, 2), newRS], newRS, d, T0);
    assert.deepEqual([s.replicas, s.updatedReplicas, s.readyReplicas, s.availableReplicas, s.unavailableReplicas, s.observedGeneration], [4, 2, 4, 3, 2, 1]);
    assert.equal(s.conditions?.[0]?.reason, 'MinimumReplicasAvailable', '3 ≥ 4 − 1');
    const low = calculateStatus([rs('old', 2, 2, 2, 0), newRS], newRS, d, T0);
    assert.deepEqual([low.conditions?.[0]?.status, low.conditions?.[0]?.reason], ['False', 'MinimumReplicasUnavailable']);
  });
});
