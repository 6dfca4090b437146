/**
 * The disruption controller under the fake clock, against the real API server (the fake transport).
 * The cases are those of kubernetes/kubernetes pkg/controller/disruption/disruption_test.go: objects
 * are seeded (as upstream adds them to the informer stores), `sync` runs one budget, and the status
 * the server then holds is checked as `VerifyPdbStatus` does.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Deployment, KubeObject, OwnerReference, Pod, PodDisruptionBudget, ReplicaSet, ReplicationController, StatefulSet } from '../../api/index.js';
import { DEPLOYMENTS, newClientset, type ResourceDescriptor } from '../../client/index.js';
import { EventRecorder } from '../../client/record/index.js';
import { newSharedInformerFactory } from '../../informers/index.js';
import { isConflict, newConflict } from '../../machinery/errors/index.js';
import { newFakeTransport } from '../../testing/index.js';
import { FakeClock, flushAsync, formatTime } from '../../util/clock/index.js';
import { SeededRand } from '../../util/random/index.js';
import { silentLogger } from '../../util/runtime/index.js';
import type { RESTMapper } from '../rest-mapper.js';
import { DELETION_TIMEOUT_MS, DisruptionController, STALE_POD_DISRUPTION_TIMEOUT_MS } from './index.js';

const T0 = Date.UTC(2025, 0, 1);
const KEY = 'default/foobar';
const fooBar = (): Record<string, string> => ({ foo: 'bar' });

function newPdb(spec: { minAvailable?: number | string; maxUnavailable?: number | string }): PodDisruptionBudget {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: 'foobar', namespace: 'default', uid: 'pdb-uid', generation: 1 },
    spec: { ...spec, selector: { matchLabels: fooBar() } },
  };
}

function newPod(name: string, opts: { ready?: boolean; owner?: OwnerReference; labels?: Record<string, string>; deleting?: boolean; conditions?: NonNullable<Pod['status']>['conditions']; phase?: string } = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'default',
      uid: `uid-${name}`,
      labels: opts.labels ?? fooBar(),
      ...(opts.owner ? { ownerReferences: [opts.owner] } : {}),
      ...(opts.deleting ? { deletionTimestamp: formatTime(T0), deletionGracePeriodSeconds: 30 } : {}),
    },
    spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'nginx' }] },
    status: {
      phase: opts.phase ?? 'Running',
      conditions: opts.conditions ?? (opts.ready === false ? [] : [{ type: 'Ready', status: 'True' }]),
    },
  };
}

const ownerRef = (apiVersion: string, kind: string, name: string, uid: string): OwnerReference => ({ apiVersion, kind, name, uid, controller: true });

function newReplicaSet(name: string, replicas: number, owner?: OwnerReference): ReplicaSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, ...(owner ? { ownerReferences: [owner] } : {}) },
    spec: { replicas, selector: { matchLabels: fooBar() }, template: { metadata: { labels: fooBar() }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  };
}

function newReplicationController(name: string, replicas: number): ReplicationController {
  return { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name, namespace: 'default', uid: `uid-${name}` }, spec: { replicas, selector: fooBar() } };
}

function newStatefulSet(name: string, replicas: number): StatefulSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, namespace: 'default', uid: `uid-${name}` },
    spec: { replicas, serviceName: name, selector: { matchLabels: fooBar() }, template: { metadata: { labels: fooBar() }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  };
}

function newDeployment(name: string, replicas: number): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default', uid: `uid-${name}` },
    spec: { replicas, selector: { matchLabels: fooBar() }, template: { metadata: { labels: fooBar() }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
  };
}

async function setup(objects: KubeObject[] = [], opts: { restMapper?: RESTMapper } = {}) {
  const clock = new FakeClock(T0);
  const transport = await newFakeTransport({ clock, objects, rand: new SeededRand(7) });
  const client = newClientset(transport);
  const informers = newSharedInformerFactory(client, { clock, rand: new SeededRand(3) });
  const recorder = new EventRecorder(client, { component: 'controllermanager', clock, logger: silentLogger });
  const dc = new DisruptionController({ client, informers, clock, recorder, logger: silentLogger, ...opts });
  informers.start();
  await informers.waitForCacheSync();
  /** Stores objects as given (upstream's `add`/`update` on the informer stores) and lets the informers see them. */
  const seed = async (...objs: KubeObject[]): Promise<void> => {
    await transport.seed(objs);
    await flushAsync();
  };
  const sync = async (key = KEY) => {
    await flushAsync();
    const result = await dc.sync(key);
    await flushAsync();
    return result;
  };
  const getPdb = (): Promise<PodDisruptionBudget> => client.policy.podDisruptionBudgets('default').get('foobar');
  /** upstream `VerifyPdbStatus`: the counts, the recorded evictions, observedGeneration and the condition's status. */
  const verifyPdbStatus = async (disruptionsAllowed: number, currentHealthy: number, desiredHealthy: number, expectedPods: number, disruptedPods: Record<string, string> = {}): Promise<void> => {
    const pdb = await getPdb();
    const status = pdb.status;
    assert.deepEqual(
      { disruptionsAllowed: status?.disruptionsAllowed, currentHealthy: status?.currentHealthy, desiredHealthy: status?.desiredHealthy, expectedPods: status?.expectedPods, disruptedPods: status?.disruptedPods ?? {}, observedGeneration: status?.observedGeneration },
      { disruptionsAllowed, currentHealthy, desiredHealthy, expectedPods, disruptedPods, observedGeneration: pdb.metadata?.generation },
    );
    const cond = status?.conditions?.find((c) => c.type === 'DisruptionAllowed');
    assert.equal(cond?.status, disruptionsAllowed > 0 ? 'True' : 'False');
  };
  const events = async (): Promise<string[]> => {
    await recorder.flush();
    return (await client.core.events('default').list()).items.map((e) => `${e.type ?? ''} ${e.reason ?? ''} ${e.message ?? ''}`);
  };
  return { clock, transport, client, dc, seed, sync, getPdb, verifyPdbStatus, events };
}

describe('DisruptionController (disruption_test.go)', () => {
  test('TestNoSelector: an empty selector matches every pod of the namespace', async () => {
    const pdb = newPdb({ minAvailable: 3 });
    const h = await setup([{ ...pdb, spec: { ...pdb.spec, selector: {} } }]);
    await h.sync();
    await h.verifyPdbStatus(0, 0, 3, 0);
    await h.seed(newPod('yo-yo-yo', { labels: { other: 'x' } }) as KubeObject);
    await h.sync();
    await h.verifyPdbStatus(0, 1, 3, 1);
  });

  test('TestUnavailable: counts go up with pods and down with a pod that is not Ready', async () => {
    const h = await setup([newPdb({ minAvailable: 3 }) as KubeObject]);
    await h.sync();
    for (let i = 0; i < 4; i++) {
      await h.verifyPdbStatus(0, i, 3, i);
      await h.seed(newPod(`yo-yo-yo-${i}`) as KubeObject);
      await h.sync();
    }
    await h.verifyPdbStatus(1, 4, 3, 4);
    assert.deepEqual(
      (await h.getPdb()).status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message, c.observedGeneration]),
      [['DisruptionAllowed', 'True', 'SufficientPods', '', 1]],
    );
    await h.seed(newPod('yo-yo-yo-0', { ready: false }) as KubeObject);
    await h.sync();
    await h.verifyPdbStatus(0, 3, 3, 4);
    assert.deepEqual(
      (await h.getPdb()).status?.conditions?.map((c) => [c.type, c.status, c.reason]),
      [['DisruptionAllowed', 'False', 'InsufficientPods']],
    );
  });

  test('TestIntegerMaxUnavailable: a pod without a controller allows no disruption (UnmanagedPods event)', async () => {
    const h = await setup([newPdb({ maxUnavailable: 1 }) as KubeObject]);
    await h.sync();
    assert.equal((await h.getPdb()).status?.disruptionsAllowed, 0);
    assert.ok((await h.events()).includes('Normal NoPods No matching pods found'));
    await h.seed(newPod('naked') as KubeObject);
    await h.sync();
    assert.equal((await h.getPdb()).status?.disruptionsAllowed, 0);
    assert.ok(
      (await h.events()).includes(
        'Warning UnmanagedPods Pods selected by this PodDisruptionBudget (selector: &LabelSelector{MatchLabels:map[string]string{foo: bar,},MatchExpressions:[]LabelSelectorRequirement{},}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set ".spec.minAvailable" field of the PDB to an integer value.',
      ),
    );
    // TestStatusForUnmanagedPod: unmanaged pods are not a sync failure.
    assert.notEqual((await h.getPdb()).status?.conditions?.[0]?.reason, 'SyncFailed');
  });

  test('TestIntegerMaxUnavailableWithScaling and TestPercentageMaxUnavailableWithScaling: the ReplicaSet scale is the expected count', async () => {
    const rs = newReplicaSet('rs', 7);
    const owner = ownerRef('apps/v1', 'ReplicaSet', 'rs', 'uid-rs');
    const h = await setup([newPdb({ maxUnavailable: 2 }) as KubeObject, rs as KubeObject, newPod('pod', { owner }) as KubeObject]);
    await h.sync();
    await h.verifyPdbStatus(0, 1, 5, 7);
    await h.seed(newReplicaSet('rs', 5) as KubeObject);
    await h.sync();
    await h.verifyPdbStatus(0, 1, 3, 5);

    const p = await setup([newPdb({ maxUnavailable: '30%' }) as KubeObject, rs as KubeObject, newPod('pod', { owner }) as KubeObject]);
    await p.sync();
    // 30% of 7 is 2.1, rounded up to 3 unavailable: 4 needed.
    await p.verifyPdbStatus(0, 1, 4, 7);
    await p.seed(newReplicaSet('rs', 3) as KubeObject);
    await p.sync();
    await p.verifyPdbStatus(0, 1, 2, 3);
  });

  test('TestNakedPod: a percentage budget over a pod without a controller allows no disruption', async () => {
    const h = await setup([newPdb({ minAvailable: '28%' }) as KubeObject, newPod('naked') as KubeObject]);
    await h.sync();
    await h.verifyPdbStatus(0, 1, 0, 0);
  });

  test('TestUnsupportedControllerPod: an unknown controller kind fails the sync safe (SyncFailed, 0 allowed)', async () => {
    const owner = ownerRef('apps.test.io/v1', 'TestWorkload', 'fake-controller', 'b7329742-8daa-493a-8881-6ca07139172b');
    const h = await setup([newPdb({ minAvailable: '28%' }) as KubeObject, newPod('naked', { owner }) as KubeObject]);
    await h.sync();
    const pdb = await h.getPdb();
    assert.equal(pdb.status?.disruptionsAllowed, 0);
    const cond = pdb.status?.conditions?.find((c) => c.type === 'DisruptionAllowed');
    assert.deepEqual([cond?.status, cond?.reason, cond?.message], ['False', 'SyncFailed', 'no matches for kind "TestWorkload" in version "apps.test.io/v1"']);
    assert.ok((await h.events()).some((e) => e.startsWith('Warning CalculateExpectedPodCountFailed Failed to calculate the number of expected pods: no matches for kind')));
  });

  test('TestReplicaSet: the scale of a ReplicaSet without a Deployment counts (20% of 10 → 2)', async () => {
    const owner = ownerRef('apps/v1', 'ReplicaSet', 'rs', 'uid-rs');
    const h = await setup([newPdb({ minAvailable: '20%' }) as KubeObject, newReplicaSet('rs', 10) as KubeObject, newPod('pod', { owner }) as KubeObject]);
    await h.sync();
    await h.verifyPdbStatus(0, 1, 2, 10);
  });

  test('TestReplicationController: 34% of 3 rounds up to 2; a rogue pod is healthy but expected nothing', async () => {
    const h = await setup([newPdb({ minAvailable: '34%' }) as KubeObject, newReplicationController('rc', 3) as KubeObject]);
    await h.sync();
    await h.verifyPdbStatus(0, 0, 0, 0);
    const owner = ownerRef('v1', 'ReplicationController', 'rc', 'uid-rc');
    for (let i = 0; i < 3; i++) {
      await h.seed(newPod(`foobar-${i}`, { owner }) as KubeObject);
      await h.sync();
      if (i < 2) await h.verifyPdbStatus(0, i + 1, 2, 3);
      else await h.verifyPdbStatus(1, 3, 2, 3);
    }
    await h.seed(newPod('rogue') as KubeObject);
    await h.sync();
    assert.equal((await h.getPdb()).status?.disruptionsAllowed, 2);
  });

  test('TestStatefulSetController: a StatefulSet scale counts', async () => {
    const h = await setup([newPdb({ minAvailable: '34%' }) as KubeObject, newStatefulSet('ss', 3) as KubeObject]);
    const owner = ownerRef('apps/v1', 'StatefulSet', 'ss', 'uid-ss');
    for (let i = 0; i < 3; i++) {
      await h.seed(newPod(`foobar-${i}`, { owner }) as KubeObject);
      await h.sync();
      if (i < 2) await h.verifyPdbStatus(0, i + 1, 2, 3);
      else await h.verifyPdbStatus(1, 3, 2, 3);
    }
  });

  test('TestDeploymentFinderFunction: a Deployment behind the pods’ ReplicaSet gives the scale, not the ReplicaSet', async () => {
    const rsOwner = ownerRef('apps/v1', 'Deployment', 'dep', 'uid-dep');
    const owner = ownerRef('apps/v1', 'ReplicaSet', 'rs', 'uid-rs');
    const h = await setup([
      newPdb({ maxUnavailable: 1 }) as KubeObject,
      newDeployment('dep', 10) as KubeObject,
      newReplicaSet('rs', 5, rsOwner) as KubeObject,
      newPod('a', { owner }) as KubeObject,
      newPod('b', { owner }) as KubeObject,
    ]);
    await h.sync();
    await h.verifyPdbStatus(0, 2, 9, 10);
    // "invalid deployment kind": no Deployment finder result, so the ReplicaSet finder counts the ReplicaSet.
    await h.seed(newReplicaSet('rs', 5, ownerRef('extensions/v1', 'InvalidKind', 'dep', 'uid-dep')) as KubeObject);
    await h.sync();
    await h.verifyPdbStatus(0, 2, 4, 5);
  });

  test('TestTwoControllers: scales of two controllers add up', async () => {
    const rcOwner = ownerRef('v1', 'ReplicationController', 'rc', 'uid-rc');
    const rsOwner = ownerRef('apps/v1', 'ReplicaSet', 'rs', 'uid-rs');
    const objects: KubeObject[] = [newPdb({ minAvailable: '28%' }) as KubeObject, newReplicationController('rc', 11) as KubeObject, newReplicaSet('rs', 11) as KubeObject];
    for (let i = 0; i < 11; i++) {
      objects.push(newPod(`quux-${i}`, { owner: rcOwner, ready: i >= 6 }) as KubeObject, newPod(`quuux-${i}`, { owner: rsOwner, ready: i >= 9 }) as KubeObject);
    }
    const h = await setup(objects);
    await h.sync();
    // 28% of 22 = 6.16 → 7 needed; 5 + 2 Ready.
    await h.verifyPdbStatus(0, 7, 7, 22);
    await h.seed(newPod('quuux-0', { owner: rsOwner }) as KubeObject, newPod('quuux-1', { owner: rsOwner }) as KubeObject);
    await h.sync();
    await h.verifyPdbStatus(2, 9, 7, 22);
  });

  test('TestScaleResource: any kind with a scale subresource gives the expected count', async () => {
    // The mapper sends the custom kind to deployments, whose scale subresource answers with the Deployment's uid.
    const restMapper: RESTMapper = { mappings: (group, kind) => (group === 'custom.k8s.io' && kind === 'customresource' ? [DEPLOYMENTS] : []) };
    const owner = ownerRef('custom.k8s.io/v1', 'customresource', 'dep', 'uid-dep');
    const objects: KubeObject[] = [newPdb({ maxUnavailable: 5 }) as KubeObject, newDeployment('dep', 10) as KubeObject];
    for (let i = 0; i < 4; i++) objects.push(newPod(`pod-${i}`, { owner }) as KubeObject);
    const h = await setup(objects, { restMapper });
    await h.sync();
    await h.verifyPdbStatus(0, 4, 5, 10);
  });

  test('TestScaleFinderNoResource: a NotFound from a resource without a scale subresource is an error', async () => {
    const configMaps = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true, subresources: [] } as ResourceDescriptor;
    const restMapper: RESTMapper = { mappings: (_group, kind) => (kind === 'customresource' ? [configMaps] : []) };
    const owner = ownerRef('custom.k8s.io/v1', 'customresource', 'cm', 'uid-cm');
    const h = await setup([newPdb({ maxUnavailable: 1 }) as KubeObject, newPod('p', { owner }) as KubeObject], { restMapper });
    await h.sync();
    const cond = (await h.getPdb()).status?.conditions?.[0];
    assert.deepEqual([cond?.reason, cond?.message], ['SyncFailed', 'configmaps does not implement the scale subresource']);
  });

  test('TestPDBNotExist: a missing budget is no error', async () => {
    const h = await setup([newPdb({ minAvailable: '67%' }) as KubeObject]);
    assert.equal(await h.sync('default/notExist'), undefined);
  });

  test('TestUpdateDisruptedPods: recorded evictions are dropped once the pod is deleting, gone or 2 minutes old; the rest hold the pod out', async () => {
    const now = formatTime(T0);
    const pdb = newPdb({ minAvailable: 1 });
    pdb.status = {
      currentHealthy: 0,
      desiredHealthy: 0,
      disruptionsAllowed: 0,
      expectedPods: 0,
      disruptedPods: { p1: now, p2: formatTime(T0 - 3 * 60_000), p3: formatTime(T0 - 60_000), notthere: now },
    };
    const h = await setup([pdb as KubeObject, newPod('p1', { deleting: true }) as KubeObject, newPod('p2') as KubeObject, newPod('p3') as KubeObject]);
    const result = await h.sync();
    await h.verifyPdbStatus(0, 1, 1, 3, { p3: formatTime(T0 - 60_000) });
    // Synced again when p3's entry expires (1 minute left).
    assert.deepEqual(result, { requeueAfter: DELETION_TIMEOUT_MS - 60_000 });
    assert.ok((await h.events()).includes("Warning NotDeleted Pod was expected by PDB default/default to be deleted but it wasn't"));
    h.clock.step(60_001);
    await h.sync();
    await h.verifyPdbStatus(1, 2, 1, 3);
  });

  test('TestInvalidSelectors: an invalid selector fails safe with 0 allowed', async () => {
    const pdb = newPdb({ minAvailable: 3 });
    const bad = { ...pdb, spec: { ...pdb.spec, selector: { matchExpressions: [{ key: 'foo', operator: 'illegal', values: ['bar'] }] } } };
    const h = await setup([bad, newPod('p') as KubeObject]);
    await h.sync();
    const status = (await h.getPdb()).status;
    assert.deepEqual([status?.disruptionsAllowed, status?.currentHealthy, status?.desiredHealthy, status?.expectedPods], [0, 0, 0, 0]);
    assert.equal(status?.conditions?.[0]?.reason, 'SyncFailed');
  });

  test('TestUpdatePDBStatusRetries: a status written from a stale budget conflicts and is retried, never overwriting an eviction', async () => {
    const h = await setup([newPdb({ minAvailable: 1 }) as KubeObject, newPod('moe') as KubeObject, newPod('larry') as KubeObject, newPod('curly') as KubeObject]);
    await h.sync();
    await h.verifyPdbStatus(2, 3, 1, 3);
    // (A) A pod goes; (B) while the controller writes the status that follows, an eviction of the two
    // others writes the budget first, so the controller's write conflicts; (C) the eviction's status stays.
    const evicted = structuredClone(await h.getPdb());
    evicted.status = { ...evicted.status!, disruptionsAllowed: 0, disruptedPods: { larry: formatTime(T0), curly: formatTime(T0) } };
    let evictedOnce = false;
    h.transport.prependReactor('update', 'poddisruptionbudgets/status', () => {
      if (evictedOnce) return { handled: false };
      evictedOnce = true;
      void h.client.policy.podDisruptionBudgets('default').updateStatus(evicted);
      return { handled: true, error: newConflict({ group: 'policy', resource: 'poddisruptionbudgets' }, 'foobar', 'conflict') };
    });
    await h.client.core.pods('default').delete('moe', { gracePeriodSeconds: 0 });
    await flushAsync();
    await assert.rejects(h.dc.sync(KEY), (err: unknown) => isConflict(err));
    await flushAsync();
    assert.equal((await h.getPdb()).status?.disruptionsAllowed, 0);
    // The retry sees the eviction: the evicted pods do not count as healthy.
    await h.sync();
    await h.verifyPdbStatus(0, 0, 1, 2, { larry: formatTime(T0), curly: formatTime(T0) });
  });

  test('getPdbForPod: a pod selected by two budgets gets a Warning MultiplePodDisruptionBudgets event', async () => {
    const other = { ...newPdb({ minAvailable: 1 }), metadata: { name: 'zoo', namespace: 'default', uid: 'zoo-uid', generation: 1 } };
    const h = await setup([newPdb({ minAvailable: 1 }) as KubeObject, other]);
    const ac = new AbortController();
    const running = h.dc.run(ac.signal);
    await h.seed(newPod('a') as KubeObject);
    await h.clock.stepAsync(0);
    // Upstream takes the lister's first budget ("arbitrarily").
    assert.ok((await h.events()).some((e) => /^Warning MultiplePodDisruptionBudgets Pod "default"\/"a" matches multiple PodDisruptionBudgets\. {2}Chose "(foobar|zoo)" arbitrarily\.$/.test(e)));
    ac.abort();
    await running;
  });

  test('the controller runs on its own: pod events resync the budget', async () => {
    const h = await setup([newPdb({ minAvailable: 1 }) as KubeObject, newPod('a') as KubeObject]);
    const ac = new AbortController();
    const running = h.dc.run(ac.signal);
    await h.clock.stepAsync(0);
    await flushAsync();
    await h.verifyPdbStatus(0, 1, 1, 1);
    await h.seed(newPod('b') as KubeObject);
    await h.clock.stepAsync(0);
    await flushAsync();
    await h.verifyPdbStatus(1, 2, 1, 2);
    ac.abort();
    await running;
  });
});

describe('DisruptionController stale DisruptionTarget conditions (TestStalePodDisruption)', () => {
  const target = (status: string, reason?: string) => [{ type: 'DisruptionTarget', status, lastTransitionTime: formatTime(T0), ...(reason ? { reason } : {}) }];
  const cases: { name: string; pod: Pod; passedMs: number; want: string | undefined }[] = [
    { name: 'stale pod disruption', pod: newPod('foo', { conditions: target('True') }), passedMs: STALE_POD_DISRUPTION_TIMEOUT_MS + 1000, want: 'False' },
    { name: 'pod disruption in progress', pod: newPod('foo', { conditions: target('True') }), passedMs: STALE_POD_DISRUPTION_TIMEOUT_MS - 1000, want: 'True' },
    { name: 'pod disruption actuated', pod: newPod('foo', { conditions: target('True'), deleting: true }), passedMs: STALE_POD_DISRUPTION_TIMEOUT_MS + 1000, want: 'True' },
    { name: 'no pod disruption', pod: newPod('foo', { conditions: [], deleting: true }), passedMs: STALE_POD_DISRUPTION_TIMEOUT_MS + 1000, want: undefined },
    { name: 'pod disruption cleared', pod: newPod('foo', { conditions: target('False') }), passedMs: STALE_POD_DISRUPTION_TIMEOUT_MS + 1000, want: 'False' },
    { name: 'set by the kubelet', pod: newPod('foo', { conditions: target('True', 'TerminationByKubelet') }), passedMs: STALE_POD_DISRUPTION_TIMEOUT_MS + 1000, want: 'True' },
    { name: 'terminal pod', pod: newPod('foo', { conditions: target('True'), phase: 'Failed' }), passedMs: STALE_POD_DISRUPTION_TIMEOUT_MS + 1000, want: 'True' },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const h = await setup([c.pod as KubeObject]);
      const ac = new AbortController();
      const running = h.dc.run(ac.signal);
      await h.clock.stepAsync(0);
      await h.clock.stepAsync(c.passedMs);
      await flushAsync();
      const pod = await h.client.core.pods('default').get('foo');
      const cond = pod.status?.conditions?.find((x) => x.type === 'DisruptionTarget');
      assert.equal(cond?.status, c.want);
      if (c.want === 'False' && c.name === 'stale pod disruption') {
        assert.equal(cond?.reason, undefined);
        assert.notEqual(cond?.lastTransitionTime, formatTime(T0));
      }
      ac.abort();
      await running;
    });
  }
});
