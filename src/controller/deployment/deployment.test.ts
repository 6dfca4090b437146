import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Deployment, DeploymentStrategy, KubeObject, Pod, ReplicaSet } from '../../api/index.js';
import { newClientset, type Clientset } from '../../client/index.js';
import { newFakeTransport } from '../../testing/index.js';
import { newSharedInformerFactory } from '../../informers/index.js';
import { newForbidden } from '../../machinery/errors/index.js';
import { computeHash } from '../../machinery/hash/index.js';
import { getControllerOf } from '../../machinery/meta/index.js';
import { FakeClock, flushAsync, formatTime } from '../../util/clock/index.js';
import { SeededRand } from '../../util/random/index.js';
import { EventRecorder } from '../../client/record/index.js';
import { silentLogger } from '../../util/runtime/index.js';
import { processNextWorkItem } from '../../workqueue/index.js';
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

/** The API (the test fake in front of the real API server), shared informers, both controllers, and a "kubelet" that makes pods ready. */
async function cluster(objects: KubeObject[] = []) {
  const clock = new FakeClock(T0);
  const transport = await newFakeTransport({ clock, objects, rand: new SeededRand(7), namespaces: ['ns'] });
  const client = newClientset(transport);
  const informers = newSharedInformerFactory(client, { clock, rand: new SeededRand(3) });
  const recorder = new EventRecorder(client, { component: 'kube-controller-manager', clock, logger: silentLogger });
  const rsc = new ReplicaSetController({ client, informers, clock, recorder, logger: silentLogger });
  const dc = new DeploymentController({ client, informers, clock, recorder, logger: silentLogger });
  informers.start();
  await informers.waitForCacheSync();
  // Copies: the server's list items are its shared, frozen array.
  const pods = async (): Promise<Pod[]> => [...(await client.core.pods('ns').list()).items];
  const rss = async (): Promise<ReplicaSet[]> => [...(await client.apps.replicaSets('ns').list()).items];

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
      spec: {
        replicas,
        selector: { matchLabels: { app: 'web', 'pod-template-hash': name } },
        template: { metadata: { labels: { app: 'web', 'pod-template-hash': name } }, spec: { containers: [{ name: 'c', image: name }] } },
      },
      status: { replicas, readyReplicas: replicas, availableReplicas: replicas },
    });
    const transport = await newFakeTransport({ clock, objects: [mk('old', 10), mk('new', 0)] as KubeObject[] });
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
        const replicas = rs.spec?.replicas ?? 0;
        await client.apps.replicaSets('ns').updateStatus({ ...rs, status: { replicas, readyReplicas: replicas, availableReplicas: replicas } });
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

/** The Deployment's `type` condition as [status, reason, message]. */
async function condition(c: Awaited<ReturnType<typeof cluster>>, type: string, name = 'web'): Promise<[string?, string?, string?]> {
  const cond = (await c.client.apps.deployments('ns').get(name)).status?.conditions?.find((x) => x.type === type);
  return [cond?.status, cond?.reason, cond?.message];
}
const REVISION = 'deployment.kubernetes.io/revision';
const rev = (rs: ReplicaSet | undefined) => rs?.metadata?.annotations?.[REVISION];
const image = (rs: ReplicaSet | undefined) => rs?.spec?.template?.spec?.containers[0]?.image;
async function setImage(c: Awaited<ReturnType<typeof cluster>>, img: string, name = 'web', annotations?: Record<string, string>): Promise<void> {
  const cur = await c.client.apps.deployments('ns').get(name);
  const metadata = annotations ? { ...cur.metadata, annotations: { ...cur.metadata?.annotations, ...annotations } } : cur.metadata;
  await c.client.apps.deployments('ns').update({ ...cur, metadata, spec: { ...cur.spec!, template: { ...cur.spec!.template, spec: { containers: [{ name: 'c', image: img }] } } } });
}
async function annotate(c: Awaited<ReturnType<typeof cluster>>, annotations: Record<string, string>, name = 'web'): Promise<void> {
  const cur = await c.client.apps.deployments('ns').get(name);
  await c.client.apps.deployments('ns').update({ ...cur, metadata: { ...cur.metadata, annotations: { ...cur.metadata?.annotations, ...annotations } } });
}
async function rollOut(c: Awaited<ReturnType<typeof cluster>>): Promise<void> {
  await c.settle();
  while ((await c.makeReady()) > 0) await c.settle();
}
const eventsOf = async (c: Awaited<ReturnType<typeof cluster>>, reason: string) =>
  (await c.client.core.events('ns').list()).items.filter((e) => e.reason === reason).map((e) => `${e.type ?? ''} ${e.message ?? ''}`);

describe('legacy rollback (deprecated.deployment.rollback.to)', () => {
  test('to 0 = the previous revision: template and change-cause restored, old RS re-used as revision 3', async () => {
    const d = newDeployment('web', 2, rolling(1, 0));
    d.metadata = { ...d.metadata, annotations: { 'kubernetes.io/change-cause': 'create v1' } };
    const c = await cluster([d as KubeObject]);
    await rollOut(c);
    await setImage(c, 'v2', 'web', { 'kubernetes.io/change-cause': 'set v2' });
    await rollOut(c);
    const v1 = (await c.rss()).find((rs) => image(rs) === 'v1');
    assert.equal(rev(v1), '1');

    await annotate(c, { 'deprecated.deployment.rollback.to': '0' });
    await rollOut(c);
    const dep = await c.client.apps.deployments('ns').get('web');
    assert.equal(dep.spec?.template?.spec?.containers[0]?.image, 'v1');
    assert.equal(dep.spec?.template?.metadata?.labels?.['pod-template-hash'], undefined, 'hash label not copied back');
    assert.equal(dep.metadata?.annotations?.['deprecated.deployment.rollback.to'], undefined, 'request cleared');
    assert.equal(dep.metadata?.annotations?.['kubernetes.io/change-cause'], 'create v1');
    assert.deepEqual(await eventsOf(c, 'DeploymentRollback'), ['Normal Rolled back deployment "web" to revision 1']);
    const rss = await c.rss();
    assert.equal(rss.length, 2, 'no new ReplicaSet: the old one is re-used');
    const back = rss.find((rs) => rs.metadata?.uid === v1?.metadata?.uid);
    assert.equal(rev(back), '3');
    assert.equal(back?.metadata?.annotations?.['deployment.kubernetes.io/revision-history'], '1');
    assert.equal(back?.spec?.replicas, 2);
    c.informers.shutdown();
  });

  test('a missing revision, no previous revision, an unchanged template: warnings, request cleared', async () => {
    const c = await cluster([newDeployment('web', 1, rolling(1, 0)) as KubeObject]);
    await rollOut(c);
    await annotate(c, { 'deprecated.deployment.rollback.to': '0' });
    await rollOut(c);
    await annotate(c, { 'deprecated.deployment.rollback.to': '7' });
    await rollOut(c);
    await annotate(c, { 'deprecated.deployment.rollback.to': '1' });
    await rollOut(c);
    assert.deepEqual(await eventsOf(c, 'DeploymentRollbackRevisionNotFound'), [
      'Warning Unable to find last revision.',
      'Warning Unable to find the revision to rollback to.',
    ]);
    assert.deepEqual(await eventsOf(c, 'DeploymentRollbackTemplateUnchanged'), [
      'Warning The rollback revision contains the same template as current deployment "web"',
    ]);
    const dep = await c.client.apps.deployments('ns').get('web');
    assert.equal(dep.metadata?.annotations?.['deprecated.deployment.rollback.to'], undefined);
    assert.equal((await c.rss()).length, 1);
    c.informers.shutdown();
  });
});

describe('progress deadline', () => {
  test('no progress for progressDeadlineSeconds: Progressing=False ProgressDeadlineExceeded, checked right at the deadline', async () => {
    const d = newDeployment('web', 3, rolling(1, 0));
    d.spec = { ...d.spec!, progressDeadlineSeconds: 10 };
    const c = await cluster([d as KubeObject]);
    await c.settle(); // pods created, none ever Ready
    const rs = (await c.rss())[0];
    const name = rs?.metadata?.name ?? '';
    // Creating the pods was the last progress (updatedReplicas 0 → 3).
    assert.deepEqual(await condition(c, 'Progressing'), ['True', 'ReplicaSetUpdated', `ReplicaSet "${name}" is progressing.`]);
    assert.deepEqual(await condition(c, 'Available'), ['False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.']);
    // The last progress was at T0; the check is queued for T0 + 10 s + 1 s (no event marks that moment).
    await c.clock.stepAsync(10_900);
    await c.settle();
    assert.equal((await condition(c, 'Progressing'))[1], 'ReplicaSetUpdated');
    await c.clock.stepAsync(100);
    await c.settle();
    assert.deepEqual(await condition(c, 'Progressing'), ['False', 'ProgressDeadlineExceeded', `ReplicaSet "${name}" has timed out progressing.`]);
    // Timed out is not final: progress resumes the rollout's conditions.
    while ((await c.makeReady()) > 0) await c.settle();
    assert.deepEqual(await condition(c, 'Progressing'), ['True', 'NewReplicaSetAvailable', `ReplicaSet "${name}" has successfully progressed.`]);
    c.informers.shutdown();
  });

  test('progress refreshes the deadline: ReplicaSetUpdated moves lastUpdateTime', async () => {
    const d = newDeployment('web', 3, rolling(1, 0));
    d.spec = { ...d.spec!, progressDeadlineSeconds: 10 };
    const c = await cluster([d as KubeObject]);
    await c.settle();
    await c.clock.stepAsync(8_000);
    await c.makeReady(1);
    await c.settle();
    const cond = (await c.client.apps.deployments('ns').get('web')).status?.conditions?.find((x) => x.type === 'Progressing');
    assert.equal(cond?.reason, 'ReplicaSetUpdated');
    assert.equal(cond?.lastUpdateTime, formatTime(T0 + 8_000));
    assert.equal(cond?.lastTransitionTime, formatTime(T0), 'still True: transition time kept');
    await c.clock.stepAsync(5_000);
    await c.settle();
    assert.equal((await condition(c, 'Progressing'))[1], 'ReplicaSetUpdated', '13 s after the start but 5 s after progress');
    await c.clock.stepAsync(6_000);
    await c.settle();
    assert.equal((await condition(c, 'Progressing'))[1], 'ProgressDeadlineExceeded');
    c.informers.shutdown();
  });
});

describe('minReadySeconds', () => {
  test('AVAILABLE lags READY by minReadySeconds; the ReplicaSet and the Deployment are requeued for that moment', async () => {
    const d = newDeployment('web', 3, rolling(1, 0));
    d.spec = { ...d.spec!, minReadySeconds: 5 };
    const c = await cluster([d as KubeObject]);
    await c.settle();
    assert.equal((await c.rss())[0]?.spec?.minReadySeconds, 5, 'copied to the ReplicaSet');
    await c.makeReady();
    await c.settle();
    let s = (await c.client.apps.deployments('ns').get('web')).status;
    assert.deepEqual([s?.readyReplicas, s?.availableReplicas ?? 0], [3, 0]);
    await c.clock.stepAsync(5_000);
    await c.settle();
    s = (await c.client.apps.deployments('ns').get('web')).status;
    assert.equal(s?.availableReplicas ?? 0, 0, 'ready for exactly 5 s is not yet available (strictly longer)');
    await c.clock.stepAsync(1_000);
    await c.settle();
    s = (await c.client.apps.deployments('ns').get('web')).status;
    assert.deepEqual([s?.readyReplicas, s?.availableReplicas], [3, 3]);
    assert.deepEqual(await condition(c, 'Available'), ['True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.']);
    c.informers.shutdown();
  });
});

describe('ReplicaFailure', () => {
  test('copied from the ReplicaSet while pod creation fails, removed after', async () => {
    const c = await cluster([newDeployment('web', 2, rolling(1, 0)) as KubeObject]);
    let failing = true;
    c.transport.prependReactor('create', 'pods', () =>
      failing ? { handled: true, error: newForbidden({ group: '', resource: 'pods' }, '', 'exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2') } : { handled: false },
    );
    await c.settle();
    const msg = 'pods is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2';
    const rsCond = (await c.rss())[0]?.status?.conditions?.find((x) => x.type === 'ReplicaFailure');
    assert.deepEqual([rsCond?.status, rsCond?.reason, rsCond?.message], ['True', 'FailedCreate', msg]);
    assert.deepEqual(await condition(c, 'ReplicaFailure'), ['True', 'FailedCreate', msg]);
    failing = false;
    await c.clock.stepAsync(1_000);
    await rollOut(c);
    assert.deepEqual(await condition(c, 'ReplicaFailure'), [undefined, undefined, undefined]);
    assert.equal((await c.pods()).length, 2);
    c.informers.shutdown();
  });
});

describe('history', () => {
  test('revisionHistoryLimit: the oldest fully scaled-down ReplicaSets are deleted once a rollout completes', async () => {
    const d = newDeployment('web', 1, rolling(1, 0));
    d.spec = { ...d.spec!, revisionHistoryLimit: 1 };
    const c = await cluster([d as KubeObject]);
    await rollOut(c);
    for (const img of ['v2', 'v3', 'v4']) {
      await setImage(c, img);
      await rollOut(c);
    }
    const rss = await c.rss();
    assert.deepEqual(rss.map((rs) => [rev(rs), image(rs), rs.spec?.replicas]).sort(), [['3', 'v3', 0], ['4', 'v4', 1]]);
    c.informers.shutdown();
  });

  test('a name collision with a foreign ReplicaSet bumps status.collisionCount and picks another hash', async () => {
    const c = await cluster([newDeployment('web', 1, rolling(1, 0)) as KubeObject]);
    // The hash is of the template as stored, with the server's defaults.
    const template = (await c.client.apps.deployments('ns').get('web')).spec?.template;
    const squatter: ReplicaSet = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: `web-${computeHash(template)}`, namespace: 'ns', labels: { app: 'other' } },
      spec: { replicas: 0, selector: { matchLabels: { app: 'other' } }, template: { metadata: { labels: { app: 'other' } }, spec: { containers: [{ name: 'c', image: 'other' }] } } },
    };
    await c.client.apps.replicaSets('ns').create(squatter);
    await rollOut(c);
    const dep = await c.client.apps.deployments('ns').get('web');
    assert.equal(dep.status?.collisionCount, 1);
    const own = (await c.rss()).filter((rs) => ownerName(rs) === 'web');
    assert.equal(own.length, 1);
    assert.equal(own[0]?.metadata?.name, `web-${computeHash(template, 1)}`);
    assert.equal(own[0]?.status?.availableReplicas, 1);
    c.informers.shutdown();
  });
});

describe('pause, resume and proportional scaling', () => {
  test('paused: no new ReplicaSet, no deadline; scaling still proportional; resume rolls out the last template once', async () => {
    // 25%/25% of 10: maxSurge 3, maxUnavailable 2 (of 20: 5 and 5).
    const d = newDeployment('web', 10, rolling('25%', '25%'));
    d.spec = { ...d.spec!, progressDeadlineSeconds: 10 };
    const c = await cluster([d as KubeObject]);
    await rollOut(c);
    await setImage(c, 'v2');
    await c.settle(); // v2 pods never become ready: old 10 → 8, new 0 → 3 → 5
    const specs = async (): Promise<Record<string, number | undefined>> => Object.fromEntries((await c.rss()).map((rs): [string, number | undefined] => [image(rs) ?? '', rs.spec?.replicas]));
    assert.deepEqual(await specs(), { v1: 8, v2: 5 });

    const cur = await c.client.apps.deployments('ns').get('web');
    await c.client.apps.deployments('ns').update({ ...cur, spec: { ...cur.spec!, paused: true } });
    await c.settle();
    assert.deepEqual(await condition(c, 'Progressing'), ['Unknown', 'DeploymentPaused', 'Deployment is paused']);
    await setImage(c, 'v3');
    await setImage(c, 'v4');
    await c.settle();
    assert.deepEqual(await specs(), { v1: 8, v2: 5 }, 'no ReplicaSet for template changes while paused');

    // Scaled 10 → 20 (maxSurge 3 → 5): allowed 25, 12 to add in proportion to 8:5 of the old max 13.
    const paused = await c.client.apps.deployments('ns').get('web');
    await c.client.apps.deployments('ns').update({ ...paused, spec: { ...paused.spec!, replicas: 20 } });
    await c.settle();
    assert.deepEqual(await specs(), { v1: 15, v2: 10 });
    for (const rs of await c.rss()) {
      assert.equal(rs.metadata?.annotations?.['deployment.kubernetes.io/desired-replicas'], '20');
      assert.equal(rs.metadata?.annotations?.['deployment.kubernetes.io/max-replicas'], '25');
    }
    await c.clock.stepAsync(60_000);
    await c.settle();
    assert.equal((await condition(c, 'Progressing'))[1], 'DeploymentPaused', 'no deadline while paused');

    const p2 = await c.client.apps.deployments('ns').get('web');
    await c.client.apps.deployments('ns').update({ ...p2, spec: { ...p2.spec!, paused: false } });
    await rollOut(c);
    const rss = await c.rss();
    assert.equal(rss.length, 3, 'one new ReplicaSet for the two edits');
    assert.deepEqual(await specs(), { v1: 0, v2: 0, v4: 20 });
    assert.equal(rev(rss.find((rs) => image(rs) === 'v4')), '3');
    assert.equal((await condition(c, 'Progressing'))[1], 'NewReplicaSetAvailable');
    c.informers.shutdown();
  });
});
