import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, Node, Pod } from '../api/index.js';
import { newClientset } from '../client/index.js';
import { newFakeTransport } from '../testing/index.js';
import { newSharedInformerFactory } from '../informers/index.js';
import { newConflict } from '../machinery/errors/index.js';
import { FakeClock, flushAsync, formatTime, parseTime } from '../util/clock/index.js';
import { SeededRand } from '../util/random/index.js';
import { NodeSimulator, NODE_SIMULATE_ANNOTATION, NODE_STOPPED, SIMULATED_ANNOTATION } from './simulator.js';
import { defaultStages } from './stages.js';

function boundPod(name: string, nodeName: string, extra: Partial<Pod['metadata']> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', ...extra },
    spec: { nodeName, containers: [{ name: 'app', image: 'nginx' }] },
    status: { phase: 'Pending' },
  };
}

async function setup(objects: KubeObject[] = [], stageOpts: Parameters<typeof defaultStages>[0] = { podReadyJitterMs: 0 }) {
  const clock = new FakeClock();
  // What the root-ca-cert-publisher keeps in every namespace: pods' kube-api-access volumes mount it.
  const rootCA = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kube-root-ca.crt', namespace: 'default' }, data: { 'ca.crt': 'PEM' } };
  const transport = await newFakeTransport({ clock, objects: [rootCA, ...objects] });
  const client = newClientset(transport);
  const informers = newSharedInformerFactory(client, { clock, rand: new SeededRand(3) });
  const sim = new NodeSimulator({ client, informers, clock, rand: new SeededRand(9), stages: defaultStages(stageOpts) });
  const ac = new AbortController();
  const done = sim.run(ac.signal);
  const settle = async (pred: () => Promise<boolean>, stepMs = 0) => {
    for (let i = 0; i < 100; i++) {
      if (await pred()) return;
      await clock.stepAsync(stepMs);
      await flushAsync();
    }
    assert.fail('condition not reached');
  };
  const pod = (name: string) => client.core.pods('default').get(name);
  const stop = async () => {
    ac.abort();
    await done;
    informers.shutdown();
  };
  return { clock, client, transport, sim, settle, pod, stop };
}

describe('NodeSimulator', () => {
  test('addNode registers a Node shaped like a kubelet registration', async () => {
    const s = await setup();
    await s.sim.addNode({ name: 'n1', labels: { zone: 'a' }, taints: [{ key: 'k', effect: 'NoSchedule' }] });
    const node = await s.client.core.nodes().get('n1');
    assert.equal(node.metadata?.annotations?.[SIMULATED_ANNOTATION], 'true');
    assert.deepEqual(node.metadata?.labels, {
      'beta.kubernetes.io/arch': 'amd64',
      'beta.kubernetes.io/os': 'linux',
      'kubernetes.io/arch': 'amd64',
      'kubernetes.io/hostname': 'n1',
      'kubernetes.io/os': 'linux',
      zone: 'a',
    });
    assert.deepEqual(node.spec?.taints, [{ key: 'k', effect: 'NoSchedule' }]);
    assert.equal(node.spec?.podCIDR, '10.128.0.0/24');
    await s.settle(async () => (await s.client.core.nodes().get('n1')).status?.conditions?.some((c) => c.type === 'Ready') ?? false);
    const st = (await s.client.core.nodes().get('n1')).status!;
    assert.deepEqual(st.capacity, { cpu: '32', memory: '256Gi', pods: '110', 'ephemeral-storage': '100Gi' });
    assert.deepEqual(st.allocatable, st.capacity);
    const ready = st.conditions?.find((c) => c.type === 'Ready');
    assert.deepEqual([ready?.status, ready?.reason, ready?.message], ['True', 'KubeletReady', 'kubelet is posting ready status']);
    assert.deepEqual(
      st.conditions?.map((c) => [c.type, c.status]),
      [['MemoryPressure', 'False'], ['DiskPressure', 'False'], ['PIDPressure', 'False'], ['Ready', 'True']],
    );
    assert.deepEqual(st.addresses, [{ type: 'InternalIP', address: '10.0.0.2' }, { type: 'Hostname', address: 'n1' }]);
    assert.equal(st.nodeInfo?.kubeletVersion, 'v1.33.0');
    assert.match(st.nodeInfo?.containerRuntimeVersion ?? '', /^kubeplane:\/\//);
    assert.equal(st.nodeInfo?.operatingSystem, 'linux');
    assert.equal(st.nodeInfo?.architecture, 'amd64');
    await s.stop();
  });

  test('keeps a Lease per node and renews it every 10 s of clock time', async () => {
    const s = await setup();
    await s.sim.addNode({ name: 'n1' });
    const leases = s.client.coordination.leases('kube-node-lease');
    const lease = async () => leases.get('n1').catch(() => undefined);
    await s.settle(async () => (await lease()) !== undefined);
    const node = await s.client.core.nodes().get('n1');
    const first = (await lease())!;
    assert.equal(first.spec?.holderIdentity, 'n1');
    assert.equal(first.spec?.leaseDurationSeconds, 40);
    assert.match(first.spec?.renewTime ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.deepEqual(first.metadata?.ownerReferences, [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: node.metadata?.uid }]);
    const t0 = parseTime(first.spec?.renewTime)!;
    await s.clock.stepAsync(9_999);
    assert.equal((await lease())?.spec?.renewTime, first.spec?.renewTime);
    await s.clock.stepAsync(1);
    await s.settle(async () => parseTime((await lease())?.spec?.renewTime) === t0 + 10_000);
    await s.clock.stepAsync(10_000);
    await s.settle(async () => parseTime((await lease())?.spec?.renewTime) === t0 + 20_000);
    await s.stop();
  });

  test('a bound pod goes Pending → Running/Ready after the stage delay', async () => {
    const s = await setup([boundPod('p', 'n1')] as KubeObject[]);
    await s.sim.addNode({ name: 'n1' });
    await s.settle(() => Promise.resolve(s.sim.nodeNames().includes('n1')));
    await s.clock.stepAsync(499);
    assert.equal((await s.pod('p')).status?.phase, 'Pending');
    await s.clock.stepAsync(1);
    await s.settle(async () => (await s.pod('p')).status?.phase === 'Running');
    const st = (await s.pod('p')).status!;
    assert.equal(st.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
    assert.equal(st.hostIP, '10.0.0.2');
    assert.equal(st.podIP, '10.128.0.1');
    assert.equal(st.containerStatuses?.[0]?.ready, true);
    assert.equal(st.startTime, formatTime(s.clock.now()));
    await s.stop();
  });

  test('a status write that conflicts is retried from the latest object', async () => {
    const s = await setup([boundPod('p', 'n1')] as KubeObject[]);
    let conflicts = 0;
    s.transport.prependReactor('update', 'pods/status', () => {
      if (conflicts > 0) return { handled: false };
      conflicts++;
      return { handled: true, error: newConflict({ group: '', resource: 'pods' }, 'p') };
    });
    await s.sim.addNode({ name: 'n1' });
    await s.settle(async () => (await s.pod('p')).status?.phase === 'Running', 100);
    assert.equal(conflicts, 1);
    await s.stop();
  });

  test('pods bound to a node that does not exist stay Pending', async () => {
    const s = await setup([boundPod('p', 'ghost')] as KubeObject[]);
    await s.sim.addNode({ name: 'n1' });
    await s.clock.stepAsync(10_000);
    assert.equal((await s.pod('p')).status?.phase, 'Pending');
    await s.stop();
  });

  test('a Job pod completes after running', async () => {
    const job = boundPod('j', 'n1', { ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'job', uid: 'job-uid', controller: true }] });
    job.spec = { ...job.spec!, restartPolicy: 'Never' };
    const s = await setup([job] as KubeObject[]);
    await s.sim.addNode({ name: 'n1' });
    await s.settle(async () => (await s.pod('j')).status?.phase === 'Succeeded', 250);
    const cs = (await s.pod('j')).status?.containerStatuses?.[0];
    assert.equal(cs?.state?.terminated?.reason, 'Completed');
    assert.equal(cs?.state?.terminated?.exitCode, 0);
    await s.stop();
  });

  test('a terminating pod is removed after its grace period (capped), not before', async () => {
    const terminating = boundPod('t', 'n1', { deletionTimestamp: '2025-01-01T00:00:02Z', deletionGracePeriodSeconds: 2 });
    const s = await setup([terminating] as KubeObject[], { podReadyJitterMs: 0, podDeleteDelayMs: 60_000 });
    await s.sim.addNode({ name: 'n1' });
    await s.settle(() => Promise.resolve(s.sim.nodeNames().includes('n1')));
    await s.clock.stepAsync(1_999);
    assert.equal((await s.pod('t')).metadata?.name, 't');
    await s.clock.stepAsync(1);
    await s.settle(async () => s.pod('t').then(() => false, () => true));
    await s.stop();
  });

  test('a Node created by hand is adopted', async () => {
    const s = await setup();
    const manual: Node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'hand', labels: { role: 'x' } } };
    await s.client.core.nodes().create(manual);
    await s.settle(async () => {
      const n = await s.client.core.nodes().get('hand');
      return n.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True' && n.metadata?.annotations?.[SIMULATED_ANNOTATION] === 'true';
    });
    const n = await s.client.core.nodes().get('hand');
    assert.equal(n.metadata?.labels?.role, 'x');
    assert.equal(n.metadata?.labels?.['kubernetes.io/hostname'], 'hand');
    assert.equal(n.status?.capacity?.cpu, '32');
    await s.settle(async () => s.client.coordination.leases('kube-node-lease').get('hand').then(() => true, () => false));
    await s.stop();
  });

  test('a Node with its own Ready condition (a real kubelet) is not adopted', async () => {
    const real: Node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'real' },
      status: { conditions: [{ type: 'Ready', status: 'False', reason: 'KubeletNotReady' }] },
    };
    const s = await setup([real as KubeObject]);
    await s.clock.stepAsync(20_000);
    assert.deepEqual(s.sim.nodeNames(), []);
    await s.stop();
  });

  test('heartbeats refresh lastHeartbeatTime every 5 minutes', async () => {
    const s = await setup();
    await s.sim.addNode({ name: 'n1' });
    const beat = async () => (await s.client.core.nodes().get('n1')).status?.conditions?.find((c) => c.type === 'Ready')?.lastHeartbeatTime;
    await s.settle(async () => (await beat()) !== undefined);
    const t0 = parseTime(await beat())!;
    await s.clock.stepAsync(299_000);
    assert.equal(parseTime(await beat()), t0);
    await s.settle(async () => (parseTime(await beat()) ?? 0) >= t0 + 300_000, 1000);
    await s.stop();
  });

  test('kubeplane.io/simulate=Stopped: no lease renewals, no status, pods frozen; removed: all resume', async () => {
    const s = await setup([boundPod('p', 'n1')] as KubeObject[]);
    await s.sim.addNode({ name: 'n1' });
    const leases = s.client.coordination.leases('kube-node-lease');
    const renewTime = async () => (await leases.get('n1').catch(() => undefined))?.spec?.renewTime;
    await s.settle(async () => (await renewTime()) !== undefined && (await s.pod('p')).status?.phase === 'Running', 100);
    const annotate = (value: string | null) => s.client.core.nodes().patch('n1', 'application/merge-patch+json', { metadata: { annotations: { [NODE_SIMULATE_ANNOTATION]: value } } });
    await annotate(NODE_STOPPED);
    await flushAsync();
    const frozenLease = await renewTime();
    // What the node lifecycle controller would write: the kubelet must not overwrite it.
    const n = await s.client.core.nodes().get('n1');
    await s.client.core.nodes().updateStatus({ ...n, status: { ...n.status, conditions: [{ type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown' }] } });
    await s.client.core.pods('default').delete('p');
    for (let i = 0; i < 12; i++) await s.clock.stepAsync(10_000);
    assert.equal(await renewTime(), frozenLease, 'no renewal while stopped');
    assert.equal((await s.client.core.nodes().get('n1')).status?.conditions?.[0]?.status, 'Unknown', 'no status while stopped');
    assert.ok((await s.pod('p')).metadata?.deletionTimestamp, 'the deleted pod stays Terminating: no kubelet finishes it');
    await annotate(null);
    await s.settle(async () => (await s.client.core.nodes().get('n1')).status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True', 100);
    await s.settle(async () => (await renewTime()) !== frozenLease, 100);
    await s.settle(async () => s.pod('p').then(() => false, () => true), 1000);
    await s.stop();
  });
});

/** Steps 100 ms at a time for `ms`, recording every change of `observe()` with its time (s since start). */
async function timeline(s: Awaited<ReturnType<typeof setup>>, ms: number, observe: () => Promise<string>): Promise<Array<[number, string]>> {
  const t0 = s.clock.now();
  const seen: Array<[number, string]> = [];
  for (let t = 0; t <= ms; t += 100) {
    await flushAsync();
    const v = await observe();
    if (seen.at(-1)?.[1] !== v) seen.push([(s.clock.now() - t0) / 1000, v]);
    await s.clock.stepAsync(100);
  }
  return seen;
}

describe('NodeSimulator failure paths', () => {
  test('an image containing "doesnotexist": ErrImagePull, ImagePullBackOff, pulls again after 10 s, 20 s, 40 s; never Ready', async () => {
    const pod = boundPod('bad', 'n1');
    pod.spec = { nodeName: 'n1', containers: [{ name: 'app', image: 'nginx:doesnotexist' }, { name: 'side', image: 'busybox' }] };
    const s = await setup();
    await s.sim.addNode({ name: 'n1' });
    await s.settle(() => Promise.resolve(s.sim.nodeNames().includes('n1')));
    await s.client.core.pods('default').create(pod);
    const seen = await timeline(s, 75_000, async () => {
      const p = await s.pod('bad');
      return `${p.status?.phase ?? ''}/${p.status?.containerStatuses?.[0]?.state?.waiting?.reason ?? ''}`;
    });
    assert.deepEqual(seen, [
      [0, 'Pending/ContainerCreating'],
      [0.5, 'Pending/ErrImagePull'],
      [1.5, 'Pending/ImagePullBackOff'],
      [10, 'Pending/ErrImagePull'],
      [11, 'Pending/ImagePullBackOff'],
      [30, 'Pending/ErrImagePull'],
      [31, 'Pending/ImagePullBackOff'],
      [70, 'Pending/ErrImagePull'],
      [71, 'Pending/ImagePullBackOff'],
    ]);
    const st = (await s.pod('bad')).status!;
    const ready = st.conditions?.find((c) => c.type === 'Ready');
    assert.deepEqual([ready?.status, ready?.reason, ready?.message], ['False', 'ContainersNotReady', 'containers with unready status: [app]']);
    const err = 'rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/nginx:doesnotexist": failed to resolve reference "docker.io/library/nginx:doesnotexist": docker.io/library/nginx:doesnotexist: not found';
    assert.equal(st.containerStatuses?.[0]?.state?.waiting?.message, `Back-off pulling image "nginx:doesnotexist": ErrImagePull: ${err}`);
    assert.equal(st.containerStatuses?.[1]?.ready, true, 'the other container runs');
    const events = (await s.client.core.events('default').list()).items;
    assert.ok(events.some((e) => e.reason === 'Failed' && e.type === 'Warning' && e.message === `Failed to pull image "nginx:doesnotexist": ${err}`));
    assert.ok(events.some((e) => e.reason === 'BackOff' && e.message === 'Back-off pulling image "nginx:doesnotexist"'));
    await s.stop();
  });

  test('annotation kubeplane.io/simulate=CrashLoopBackOff: Error, immediate restart, then back-off 10 s, 20 s, 40 s', async () => {
    const s = await setup([boundPod('crash', 'n1', { uid: 'u-crash', annotations: { 'kubeplane.io/simulate': 'CrashLoopBackOff' } })] as KubeObject[]);
    await s.sim.addNode({ name: 'n1' });
    await s.settle(() => Promise.resolve(s.sim.nodeNames().includes('n1')));
    const seen = await timeline(s, 40_000, async () => {
      const p = await s.pod('crash');
      const c = p.status?.containerStatuses?.[0];
      const state = c?.state?.waiting?.reason ?? c?.state?.terminated?.reason ?? (c?.state?.running ? 'Running' : '');
      const ready = p.status?.conditions?.find((x) => x.type === 'Ready')?.status ?? '';
      return `${p.status?.phase ?? ''}/${state}/${c?.restartCount ?? ''}/${ready}`;
    });
    assert.deepEqual(seen, [
      [0, 'Pending/ContainerCreating/0/False'],
      [0.5, 'Running/Error/0/False'],
      [1.5, 'Running/Error/1/False'],
      [2.5, 'Running/CrashLoopBackOff/1/False'],
      [12.5, 'Running/Error/2/False'],
      [13.5, 'Running/CrashLoopBackOff/2/False'],
      [33.5, 'Running/Error/3/False'],
      [34.5, 'Running/CrashLoopBackOff/3/False'],
    ]);
    const c = (await s.pod('crash')).status?.containerStatuses?.[0];
    assert.equal(c?.state?.waiting?.message, 'back-off 40s restarting failed container=app pod=crash_default(u-crash)');
    assert.equal(c?.lastState?.terminated?.exitCode, 1);
    assert.equal(c?.lastState?.terminated?.reason, 'Error');
    const events = (await s.client.core.events('default').list()).items;
    assert.ok(events.some((e) => e.reason === 'BackOff' && e.type === 'Warning' && e.message === 'Back-off restarting failed container app in pod crash_default(u-crash)'));
    await s.stop();
  });

  test('a crashing pod with restartPolicy Never fails', async () => {
    const pod = boundPod('once', 'n1', { annotations: { 'kubeplane.io/simulate': 'CrashLoopBackOff' } });
    pod.spec = { ...pod.spec!, restartPolicy: 'Never' };
    const s = await setup([pod] as KubeObject[]);
    await s.sim.addNode({ name: 'n1' });
    await s.settle(async () => (await s.pod('once')).status?.phase === 'Failed', 100);
    await s.clock.stepAsync(30_000);
    const c = (await s.pod('once')).status?.containerStatuses?.[0];
    assert.deepEqual([c?.state?.terminated?.exitCode, c?.restartCount], [1, 0]);
    await s.stop();
  });
});

describe('NodeSimulator run-to-completion pods', () => {
  const withSpec = (name: string, spec: Partial<NonNullable<Pod['spec']>>, meta: Partial<Pod['metadata']> = {}): Pod => {
    const p = boundPod(name, 'n1', { uid: `u-${name}`, ...meta });
    p.spec = { ...p.spec!, ...spec };
    return p;
  };
  const sh = (script: string) => ({ name: 'app', image: 'busybox', command: ['sh', '-c', script] });
  const state = async (s: Awaited<ReturnType<typeof setup>>, name: string): Promise<string> => {
    const p = await s.pod(name);
    const c = p.status?.containerStatuses?.[0];
    const st = c?.state?.waiting?.reason ?? (c?.state?.terminated ? `${c.state.terminated.reason}(${c.state.terminated.exitCode})` : c?.state?.running ? 'Running' : '');
    const ready = p.status?.conditions?.find((x) => x.type === 'Ready');
    return `${p.status?.phase ?? ''}/${st}/${c?.restartCount ?? ''}/${ready?.status ?? ''}${ready?.reason ? `:${ready.reason}` : ''}`;
  };
  // Container times count from status startedAt, which has RFC 3339 second precision (as the API's
  // metav1.Time): a container started at 0.5 s (startedAt 0 s) running 5 s ends at 5 s.
  const start = async (pods: Pod[]) => {
    const s = await setup(pods as KubeObject[]);
    await s.sim.addNode({ name: 'n1' });
    await s.settle(() => Promise.resolve(s.sim.nodeNames().includes('n1')));
    return s;
  };

  test("restartPolicy Never, sh -c 'sleep 5; exit 3': Error with exit code 3 five seconds after it started, pod Failed", async () => {
    const s = await start([withSpec('x', { restartPolicy: 'Never', containers: [sh('echo hello; sleep 5; exit 3')] })]);
    const seen = await timeline(s, 8000, () => state(s, 'x'));
    assert.deepEqual(seen, [
      [0, 'Pending/ContainerCreating/0/False:ContainersNotReady'],
      [0.5, 'Running/Running/0/True'],
      [5, 'Failed/Error(3)/0/False:PodFailed'],
    ]);
    const p = await s.pod('x');
    const t = p.status?.containerStatuses?.[0]?.state?.terminated;
    assert.equal(parseTime(t?.finishedAt)! - parseTime(t?.startedAt)!, 5000);
    assert.match(String(t?.containerID), /^kubeplane:\/\//);
    assert.equal(p.status?.containerStatuses?.[0]?.ready, false);
    assert.equal(p.status?.conditions?.find((c) => c.type === 'ContainersReady')?.reason, 'PodFailed');
    await s.stop();
  });

  test('restartPolicy Never, all containers exit 0 at their own times: Running until the last, then Succeeded / PodCompleted', async () => {
    const pod = withSpec('ok', { restartPolicy: 'Never', containers: [sh('sleep 1'), { ...sh('sleep 3'), name: 'b' }] });
    const s = await start([pod]);
    await s.clock.stepAsync(500);
    await s.settle(async () => (await s.pod('ok')).status?.phase === 'Running');
    await s.clock.stepAsync(1000);
    await s.settle(async () => !!(await s.pod('ok')).status?.containerStatuses?.[0]?.state?.terminated);
    let p = await s.pod('ok');
    assert.equal(p.status?.phase, 'Running');
    assert.equal(p.status?.conditions?.find((c) => c.type === 'Ready')?.message, 'containers with unready status: [app]');
    await s.clock.stepAsync(2000);
    await s.settle(async () => (await s.pod('ok')).status?.phase === 'Succeeded');
    p = await s.pod('ok');
    assert.deepEqual(p.status?.containerStatuses?.map((c) => [c.name, c.state?.terminated?.reason, c.state?.terminated?.exitCode]), [['app', 'Completed', 0], ['b', 'Completed', 0]]);
    assert.deepEqual(
      p.status?.conditions?.map((c) => [c.type, c.status, c.reason ?? '']),
      [['PodReadyToStartContainers', 'False', ''], ['Initialized', 'True', 'PodCompleted'], ['Ready', 'False', 'PodCompleted'], ['ContainersReady', 'False', 'PodCompleted'], ['PodScheduled', 'True', '']],
    );
    await s.stop();
  });

  test('no command: the image entrypoint runs 1 s and succeeds; restartPolicy Always keeps running', async () => {
    const s = await start([withSpec('img', { restartPolicy: 'Never' }), withSpec('svc', { restartPolicy: 'Always' })]);
    const seen = await timeline(s, 5000, async () => `${await state(s, 'img')} ${await state(s, 'svc')}`);
    assert.deepEqual(seen.map(([t, v]) => [t, v.split(' ')[0]]).filter((x, i, a) => i === 0 || x[1] !== a[i - 1]![1]), [
      [0, 'Pending/ContainerCreating/0/False:ContainersNotReady'],
      [0.5, 'Running/Running/0/True'],
      [1, 'Succeeded/Completed(0)/0/False:PodCompleted'],
    ]);
    assert.equal((await s.pod('svc')).status?.phase, 'Running');
    await s.stop();
  });

  test('restartPolicy OnFailure: restarted at once, then CrashLoopBackOff 10 s, 20 s; lastState keeps the exit; Running throughout', async () => {
    const s = await start([withSpec('retry', { restartPolicy: 'OnFailure', containers: [sh('sleep 2; exit 1')] })]);
    const seen = await timeline(s, 40_000, () => state(s, 'retry'));
    assert.deepEqual(seen, [
      [0, 'Pending/ContainerCreating/0/False:ContainersNotReady'],
      [0.5, 'Running/Running/0/True'],
      [2, 'Running/Error(1)/0/False:ContainersNotReady'],
      [3, 'Running/Running/1/True'],
      [5, 'Running/Error(1)/1/False:ContainersNotReady'],
      [6, 'Running/CrashLoopBackOff/1/False:ContainersNotReady'],
      [16, 'Running/Running/2/True'],
      [18, 'Running/Error(1)/2/False:ContainersNotReady'],
      [19, 'Running/CrashLoopBackOff/2/False:ContainersNotReady'],
      [39, 'Running/Running/3/True'],
    ]);
    const c = (await s.pod('retry')).status?.containerStatuses?.[0];
    assert.equal(c?.lastState?.terminated?.exitCode, 1);
    assert.equal(c?.lastState?.terminated?.reason, 'Error');
    await s.stop();
  });

  test('restartPolicy Always, a program that ends (even with 0): Completed, restarted, then CrashLoopBackOff; a server keeps running', async () => {
    const s = await start([
      withSpec('oneshot', { restartPolicy: 'Always', containers: [sh('echo hi; sleep 2')] }),
      withSpec('server', { restartPolicy: 'Always', containers: [sh('echo starting; exec my-server')] }),
    ]);
    const seen = await timeline(s, 20_000, () => state(s, 'oneshot'));
    assert.deepEqual(seen, [
      [0, 'Pending/ContainerCreating/0/False:ContainersNotReady'],
      [0.5, 'Running/Running/0/True'],
      [2, 'Running/Completed(0)/0/False:ContainersNotReady'],
      [3, 'Running/Running/1/True'],
      [5, 'Running/Completed(0)/1/False:ContainersNotReady'],
      [6, 'Running/CrashLoopBackOff/1/False:ContainersNotReady'],
      [16, 'Running/Running/2/True'],
      [18, 'Running/Completed(0)/2/False:ContainersNotReady'],
      [19, 'Running/CrashLoopBackOff/2/False:ContainersNotReady'],
    ]);
    assert.equal((await s.pod('oneshot')).status?.containerStatuses?.[0]?.lastState?.terminated?.reason, 'Completed');
    assert.equal(await state(s, 'server'), 'Running/Running/0/True');
    await s.stop();
  });

  test('restartPolicy OnFailure, a run that exits 0 ends the pod Succeeded', async () => {
    const s = await start([withSpec('once', { restartPolicy: 'OnFailure', containers: [sh('echo done')] })]);
    await s.settle(async () => (await s.pod('once')).status?.phase === 'Succeeded', 100);
    assert.equal((await s.pod('once')).status?.containerStatuses?.[0]?.restartCount, 0);
    await s.stop();
  });

  test('activeDeadlineSeconds: Failed / DeadlineExceeded at startTime + deadline, running containers killed (137); also for restartPolicy Always', async () => {
    const s = await start([
      withSpec('slow', { restartPolicy: 'Never', activeDeadlineSeconds: 3, containers: [sh('sleep 60')] }),
      withSpec('svc', { restartPolicy: 'Always', activeDeadlineSeconds: 4 }),
    ]);
    const seen = await timeline(s, 6000, async () => `${await state(s, 'slow')} ${await state(s, 'svc')}`);
    assert.deepEqual(seen.at(-1), [4, 'Failed/Error(137)/0/False:PodFailed Failed/Error(137)/0/False:PodFailed']);
    assert.ok(seen.some(([t, v]) => t === 3 && v.startsWith('Failed/') && v.includes(' Running/')));
    const p = await s.pod('slow');
    assert.equal(p.status?.reason, 'DeadlineExceeded');
    assert.equal(p.status?.message, 'Pod was active on the node longer than the specified deadline');
    await s.clock.stepAsync(120_000);
    assert.equal((await s.pod('slow')).status?.phase, 'Failed');
    await s.stop();
  });

  test('init containers of a Never pod run first, one after the other; one failing fails the pod (Init:Error)', async () => {
    const init = (name: string, script: string) => ({ ...sh(script), name });
    const s = await start([
      withSpec('inits', { restartPolicy: 'Never', initContainers: [init('i1', 'sleep 2'), init('i2', 'sleep 1')], containers: [sh('echo main')] }),
      withSpec('badinit', { restartPolicy: 'Never', initContainers: [init('i1', 'sleep 1; exit 2'), init('i2', 'true')], containers: [sh('echo main')] }),
    ]);
    const seen = await timeline(s, 5000, async () => (await s.pod('inits')).status?.phase ?? '');
    assert.deepEqual(seen.map(([t, v]) => [t, v]), [[0, 'Pending'], [3.5, 'Succeeded']]);
    const p = await s.pod('inits');
    const ts = p.status?.initContainerStatuses?.map((c) => [c.name, c.state?.terminated?.reason, (parseTime(c.state?.terminated?.finishedAt) ?? 0) - (parseTime(c.state?.terminated?.startedAt) ?? 0)]);
    assert.deepEqual(ts, [['i1', 'Completed', 2000], ['i2', 'Completed', 1000]]);
    const bad = await s.pod('badinit');
    assert.equal(bad.status?.phase, 'Failed');
    assert.deepEqual(bad.status?.initContainerStatuses?.map((c) => [c.name, c.state?.terminated?.exitCode ?? c.state?.waiting?.reason]), [['i1', 2], ['i2', 'PodInitializing']]);
    assert.equal(bad.status?.containerStatuses?.[0]?.state?.waiting?.reason, 'PodInitializing');
    await s.stop();
  });

  test('OnFailure, a failing init container: Pending, restarted at once, then Init:CrashLoopBackOff 10 s; the app never starts', async () => {
    const init = (name: string, script: string) => ({ ...sh(script), name });
    const s = await start([withSpec('initloop', { restartPolicy: 'OnFailure', initContainers: [init('i1', 'true'), init('i2', 'sleep 2; exit 4')], containers: [sh('echo main')] })]);
    const initState = async (): Promise<string> => {
      const p = await s.pod('initloop');
      const c = p.status?.initContainerStatuses?.[1];
      const st = c?.state?.waiting?.reason ?? (c?.state?.terminated ? `${c.state.terminated.reason}(${c.state.terminated.exitCode})` : c?.state?.running ? 'Running' : '-');
      return `${p.status?.phase ?? ''}/${st}/${c?.restartCount ?? ''}/${p.status?.containerStatuses?.[0]?.state?.waiting?.reason ?? ''}`;
    };
    const seen = await timeline(s, 20_000, initState);
    // i1 (`true`) takes no time and i2 2 s: the first init run ends at 0.5 + 2 s. Restarts count from
    // startedAt, which has second precision: the run restarted at 3.5 s (startedAt 3 s) fails at 5 s.
    assert.deepEqual(seen, [
      [0, 'Pending/-//ContainerCreating'],
      [2.5, 'Pending/Error(4)/0/PodInitializing'],
      [3.5, 'Pending/Running/1/PodInitializing'],
      [5, 'Pending/Error(4)/1/PodInitializing'],
      [6, 'Pending/CrashLoopBackOff/1/PodInitializing'],
      [16, 'Pending/Running/2/PodInitializing'],
      [18, 'Pending/Error(4)/2/PodInitializing'],
      [19, 'Pending/CrashLoopBackOff/2/PodInitializing'],
    ]);
    const p = await s.pod('initloop');
    assert.deepEqual(p.status?.initContainerStatuses?.map((c) => [c.name, c.ready, c.lastState?.terminated?.exitCode]), [['i1', true, undefined], ['i2', false, 4]]);
    const initialized = p.status?.conditions?.find((c) => c.type === 'Initialized');
    assert.deepEqual([initialized?.status, initialized?.reason, initialized?.message], ['False', 'ContainersNotInitialized', 'containers with incomplete status: [i2]']);
    assert.equal(p.status?.conditions?.find((c) => c.type === 'Ready')?.message, 'containers with unready status: [app]');
    await s.stop();
  });

  test('a deleted pod held by a finalizer: killed (137) and Failed at the end of its grace, DisruptionTarget kept; gone once released', async () => {
    const s = await start([withSpec('held', { restartPolicy: 'Never', containers: [sh('sleep 600')] }, { finalizers: ['batch.kubernetes.io/job-tracking'] })]);
    await s.settle(async () => (await s.pod('held')).status?.phase === 'Running', 100);
    const pods = s.client.core.pods('default');
    const running = await s.pod('held');
    const disruption = { type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' };
    await pods.updateStatus({ ...running, status: { ...running.status, conditions: [...(running.status?.conditions ?? []), disruption] } });
    await pods.delete('held', { gracePeriodSeconds: 30 });
    const seen = await timeline(s, 3000, () => state(s, 'held'));
    assert.deepEqual(seen, [
      [0, 'Running/Running/0/True'],
      [0.5, 'Failed/Error(137)/0/False:PodFailed'],
    ]);
    const p = await s.pod('held');
    assert.deepEqual(p.status?.conditions?.find((c) => c.type === 'DisruptionTarget')?.reason, 'EvictionByEvictionAPI');
    assert.ok(p.metadata?.deletionTimestamp, 'still there: the finalizer holds it');
    const rv = p.metadata?.resourceVersion;
    await s.clock.stepAsync(60_000);
    await flushAsync();
    assert.equal((await s.pod('held')).metadata?.resourceVersion, rv, 'no further writes while it waits for its finalizer');
    await pods.update({ ...(await s.pod('held')), metadata: { ...p.metadata, finalizers: [] } });
    await s.settle(async () => s.pod('held').then(() => false, () => true));
    await s.stop();
  });

  test('a deleted pod whose containers never started ends ContainerStatusUnknown', async () => {
    const s = await start([withSpec('early', { restartPolicy: 'Never', containers: [sh('sleep 600')] }, { finalizers: ['example.com/hold'] })]);
    await s.settle(async () => (await s.pod('early')).status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ContainerCreating');
    await s.client.core.pods('default').delete('early', { gracePeriodSeconds: 0 });
    await s.settle(async () => (await s.pod('early')).status?.phase === 'Failed', 100);
    assert.deepEqual((await s.pod('early')).status?.containerStatuses?.[0]?.state?.terminated, {
      exitCode: 137,
      reason: 'ContainerStatusUnknown',
      message: 'The container could not be located when the pod was terminated',
    });
    await s.stop();
  });
});
