/**
 * The HPA controller under the FakeClock, against the real API server behind the fake transport.
 * Pods are seeded by the test (a stand-in for the ReplicaSet controller and kubelet follows the
 * Deployment's replicas); their cpu usage is served as metrics.k8s.io PodMetrics by a reactor, so the
 * controller reads metrics through the API as it reads metrics-server. Scenarios after upstream
 * horizontal_test.go (TestScaleUp, TestScaleDown*, TestScaleUpRCImmediately, TestMinReplicas,
 * TestMaxReplicas, TestSuperfluousMetrics, TestEventCreated, TestScalingWithRules,
 * TestScaleDownStabilizeInitialSize, TestAvoidUnnecessaryUpdates, TestMultipleHPAs).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { HorizontalPodAutoscalerBehavior, MetricSpec } from 'kubernetes-types/autoscaling/v2.js';
import type { Deployment, HorizontalPodAutoscaler, Pod } from '../../api/index.js';
import { newClientset } from '../../client/index.js';
import { EventRecorder } from '../../client/record/index.js';
import { newSharedInformerFactory } from '../../informers/index.js';
import { parseSelector } from '../../machinery/labels/index.js';
import { newFakeTransport } from '../../testing/index.js';
import { FakeClock, flushAsync, formatTime } from '../../util/clock/index.js';
import { SeededRand } from '../../util/random/index.js';
import { silentLogger } from '../../util/runtime/index.js';
import { HorizontalController, type HorizontalControllerOptions } from './horizontal.js';
import type { MetricsClient } from './metrics-client.js';

const T0 = Date.UTC(2025, 0, 1);
const SYNC = 15_000;
const MIN = 60_000;

function newDeployment(name: string, replicas: number): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'ns' },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '1' } } }] } },
    },
  };
}

function newHPA(name: string, spec: { min?: number; max: number; target?: string; kind?: string; apiVersion?: string; metrics?: MetricSpec[]; behavior?: HorizontalPodAutoscalerBehavior }): HorizontalPodAutoscaler {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name, namespace: 'ns' },
    spec: {
      scaleTargetRef: { apiVersion: spec.apiVersion ?? 'apps/v1', kind: spec.kind ?? 'Deployment', name: spec.target ?? 'web' },
      ...(spec.min !== undefined ? { minReplicas: spec.min } : {}),
      maxReplicas: spec.max,
      metrics: spec.metrics ?? [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }],
      ...(spec.behavior ? { behavior: spec.behavior } : {}),
    },
  };
}

/** The API, the controller, a stand-in kubelet, and metrics served from `usage` (millicores per pod). */
async function setup(opts: Partial<HorizontalControllerOptions> = {}) {
  const clock = new FakeClock(T0);
  const transport = await newFakeTransport({ clock, rand: new SeededRand(7), namespaces: ['ns'] });
  const client = newClientset(transport);
  const informers = newSharedInformerFactory(client, { clock, rand: new SeededRand(3) });
  const recorder = new EventRecorder(client, { component: 'horizontal-pod-autoscaler', clock, logger: silentLogger });
  /** cpu usage per pod name, millicores; a pod absent here has no sample. */
  const usage = new Map<string, number>();
  /** Labels of the pods the test made, for the reactor's selector. */
  const podLabels = new Map<string, Record<string, string>>();
  let metricsDown: Error | undefined;
  transport.prependReactor('list', 'pods', (req) => {
    if (req.group !== 'metrics.k8s.io') return { handled: false };
    if (metricsDown) return { handled: true, error: metricsDown };
    const sel = parseSelector(req.query?.labelSelector ?? '');
    const items = [...usage]
      .filter(([name]) => sel.matches(podLabels.get(name)))
      .map(([name, cpu]) => ({
        metadata: { name, namespace: 'ns', labels: podLabels.get(name) },
        timestamp: formatTime(clock.now()),
        window: '10s',
        containers: [{ name: 'c', usage: { cpu: `${cpu}m`, memory: '64Mi' } }],
      }));
    return { handled: true, result: { kind: 'PodMetricsList', apiVersion: 'metrics.k8s.io/v1beta1', metadata: {}, items } };
  });
  const ac = new AbortController();
  const hpac = new HorizontalController({ client, informers, clock, recorder, logger: silentLogger, ...opts });
  informers.start();
  const running = hpac.run(1, ac.signal);

  async function settle(): Promise<void> {
    for (let i = 0; i < 5; i++) await clock.stepAsync(0);
    await flushAsync(10);
  }
  /** Steps the clock `ms`, timer by timer, settling after each; then lets the pods follow the Deployments. */
  async function stepFor(ms: number): Promise<void> {
    const end = clock.now() + ms;
    for (;;) {
      const next = clock.nextTimerAt();
      const to = next === undefined || next > end ? end : next;
      await clock.stepAsync(to - clock.now());
      await settle();
      await follow();
      if (to >= end) return;
    }
  }
  /** Ready, running pods `<deploy>-<i>`, started long ago, each requesting 1 cpu and using `cpu` millicores. */
  async function addPods(deploy: string, from: number, to: number, cpu: number): Promise<void> {
    const pods: Pod[] = [];
    for (let i = from; i < to; i++) {
      const name = `${deploy}-${i}`;
      const labels = { app: deploy };
      podLabels.set(name, labels);
      usage.set(name, cpu);
      const long = formatTime(T0 - 10 * MIN);
      pods.push({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, namespace: 'ns', labels },
        spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '1' } } }] },
        status: { phase: 'Running', startTime: long, conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: long }] },
      });
    }
    await transport.seed(pods);
    await settle();
  }
  /** cpu usage of every new pod of a Deployment, set by {@link follow}. */
  const newPodUsage = new Map<string, number>();
  /** The ReplicaSet controller's part: each Deployment's pods follow its spec.replicas (newest removed first). */
  async function follow(): Promise<void> {
    for (const d of (await client.apps.deployments('ns').list()).items) {
      const name = d.metadata?.name ?? '';
      const want = d.spec?.replicas ?? 0;
      const have = [...podLabels.keys()].filter((p) => p.startsWith(`${name}-`)).length;
      if (have < want) await addPods(name, have, want, newPodUsage.get(name) ?? usage.get(`${name}-0`) ?? 0);
      for (let i = have - 1; i >= want; i--) {
        await client.core.pods('ns').delete(`${name}-${i}`, { gracePeriodSeconds: 0 });
        podLabels.delete(`${name}-${i}`);
        usage.delete(`${name}-${i}`);
      }
    }
    await settle();
  }
  /** Sets the usage of every pod of `deploy` (and of the pods it gets later). */
  function setUsage(deploy: string, cpu: number): void {
    newPodUsage.set(deploy, cpu);
    for (const name of usage.keys()) if (name.startsWith(`${deploy}-`)) usage.set(name, cpu);
  }
  const replicas = async (name = 'web'): Promise<number> => (await client.apps.deployments('ns').get(name)).spec?.replicas ?? 0;
  const hpa = (name = 'web'): Promise<HorizontalPodAutoscaler> => client.autoscaling.horizontalPodAutoscalers('ns').get(name);
  const condition = async (type: string, name = 'web'): Promise<string> => {
    const c = (await hpa(name)).status?.conditions?.find((x) => x.type === type);
    return `${c?.status ?? ''} ${c?.reason ?? ''}: ${c?.message ?? ''}`;
  };
  const events = async (reason?: string): Promise<string[]> => {
    await recorder.flush();
    return (await client.core.events('ns').list()).items
      .filter((e) => reason === undefined || e.reason === reason)
      .sort((a, b) => (a.firstTimestamp ?? '').localeCompare(b.firstTimestamp ?? ''))
      .map((e) => `${e.type ?? ''} ${e.reason ?? ''} ${e.message ?? ''}`);
  };
  async function start(deploy: Deployment, podCpu: number, ...hpas: HorizontalPodAutoscaler[]): Promise<void> {
    await client.apps.deployments('ns').create(deploy);
    await addPods(deploy.metadata?.name ?? '', 0, deploy.spec?.replicas ?? 0, podCpu);
    for (const h of hpas) await client.autoscaling.horizontalPodAutoscalers('ns').create(h);
    await settle();
  }
  const stop = async (): Promise<void> => {
    ac.abort();
    informers.shutdown();
    await running;
  };
  const setMetricsDown = (err: Error | undefined): void => {
    metricsDown = err;
  };
  return { clock, client, transport, hpac, start, stepFor, settle, setUsage, replicas, hpa, condition, events, stop, setMetricsDown, usage, podLabels };
}

const RESCALE_UP = 'Normal SuccessfulRescale New size: 4; reason: cpu resource utilization (percentage of request) above target';

describe('HorizontalPodAutoscaler controller', () => {
  test('the first sync comes one sync period after creation; a burst scales up at once (max(2 × current, 4) without behavior)', async () => {
    const s = await setup();
    // 2 pods at 100 % of their request, target 50 %: 4 replicas.
    await s.start(newDeployment('web', 2), 1000, newHPA('web', { min: 1, max: 10 }));
    await s.stepFor(SYNC - 1000);
    assert.equal(await s.replicas(), 2, 'not before the first sync period');
    await s.stepFor(1000);
    assert.equal(await s.replicas(), 4);
    assert.deepEqual(await s.events('SuccessfulRescale'), [RESCALE_UP]);
    const h = await s.hpa();
    assert.equal(h.status?.currentReplicas, 2);
    assert.equal(h.status?.desiredReplicas, 4);
    assert.equal(h.status?.lastScaleTime, formatTime(T0 + SYNC));
    assert.deepEqual(h.status?.currentMetrics, [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 100, averageValue: '1' } } }]);
    assert.equal(await s.condition('AbleToScale'), 'True SucceededRescale: the HPA controller was able to update the target scale to 4');
    assert.equal(await s.condition('ScalingActive'), 'True ValidMetricFound: the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)');
    assert.equal(await s.condition('ScalingLimited'), 'False DesiredWithinRange: the desired count is within the acceptable range');

    // The next period: 4 pods at 100 % ask for 8, the scale-up limit of 4 is max(2 × 4, 4) = 8.
    await s.stepFor(SYNC);
    assert.equal(await s.replicas(), 8);
    // Load spread over 8 pods: 8 × 500m at 50 % is on target.
    s.setUsage('web', 500);
    await s.stepFor(SYNC);
    assert.equal(await s.replicas(), 8);
    const status = (await s.hpa()).status;
    assert.equal(status?.currentReplicas, 8);
    assert.equal(status?.desiredReplicas, 8);
    assert.equal(await s.condition('AbleToScale'), 'True ReadyForNewScale: recommended size matches current size');
    await s.stop();
  });

  test('the scale-up limit without behavior: from 1 replica at most 4', async () => {
    const s = await setup();
    await s.start(newDeployment('web', 1), 5000, newHPA('web', { max: 20 }));
    await s.stepFor(SYNC);
    assert.equal(await s.replicas(), 4);
    assert.equal(await s.condition('ScalingLimited'), 'True ScaleUpLimit: the desired replica count is increasing faster than the maximum scale rate');
    await s.stop();
  });

  test('within the 10 % tolerance nothing changes, and the status is not rewritten', async () => {
    const s = await setup();
    // 54 % against a 50 % target: a ratio of 1.08.
    await s.start(newDeployment('web', 3), 540, newHPA('web', { max: 10 }));
    await s.stepFor(SYNC);
    assert.equal(await s.replicas(), 3);
    const rv = (await s.hpa()).metadata?.resourceVersion;
    assert.deepEqual(await s.events('SuccessfulRescale'), []);
    await s.stepFor(SYNC);
    assert.equal((await s.hpa()).metadata?.resourceVersion, rv, 'an unchanged status is not written (TestAvoidUnnecessaryUpdates)');
    // 56 %: outside the tolerance, 4 replicas.
    s.setUsage('web', 560);
    await s.stepFor(SYNC);
    assert.equal(await s.replicas(), 4);
    await s.stop();
  });

  test('a scale-down waits for the highest recommendation of the last 300 s to age out', async () => {
    const s = await setup();
    await s.start(newDeployment('web', 2), 1000, newHPA('web', { max: 10 }));
    await s.stepFor(SYNC);
    assert.equal(await s.replicas(), 4);
    // The load goes: 10 % of the requests asks for 1 replica.
    s.setUsage('web', 100);
    await s.stepFor(SYNC);
    assert.equal(await s.replicas(), 4);
    assert.equal(await s.condition('AbleToScale'), 'True ScaleDownStabilized: recent recommendations were higher than current one, applying the highest recent recommendation');
    assert.equal((await s.hpa()).status?.desiredReplicas, 4);
    // The recommendation of 4 was made at T0+15 s; it holds until T0+315 s, the next sync (T0+330 s) scales down.
    await s.stepFor(T0 + 320_000 - s.clock.now());
    assert.equal(await s.replicas(), 4);
    await s.stepFor(SYNC);
    assert.equal(await s.replicas(), 1);
    assert.deepEqual(await s.events('SuccessfulRescale'), [RESCALE_UP, 'Normal SuccessfulRescale New size: 1; reason: All metrics below target']);
    await s.stop();
  });

  test('--horizontal-pod-autoscaler-downscale-stabilization shortens the wait', async () => {
    const s = await setup({ downscaleStabilizationMs: 30_000 });
    await s.start(newDeployment('web', 4), 100, newHPA('web', { max: 10 }));
    // The initial recommendation (4 at the first sync) holds for 30 s.
    await s.stepFor(SYNC);
    assert.equal(await s.replicas(), 4);
    await s.stepFor(2 * SYNC);
    assert.equal(await s.replicas(), 4);
    await s.stepFor(SYNC);
    assert.equal(await s.replicas(), 1);
    await s.stop();
  });

  test('behavior: scale-up policies 4 pods or 100 % per 15 s, Max: 1 → 5 → 10 → 20 → 30 (maxReplicas)', async () => {
    const s = await setup();
    const behavior: HorizontalPodAutoscalerBehavior = { scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] } };
    // 500 % of the request against 50 %: always 10 × the current count.
    await s.start(newDeployment('web', 1), 5000, newHPA('web', { max: 30, behavior }));
    const seen: number[] = [];
    for (let i = 0; i < 5; i++) {
      await s.stepFor(SYNC);
      seen.push(await s.replicas());
    }
    assert.deepEqual(seen, [5, 10, 20, 30, 30]);
    assert.equal(await s.condition('ScalingLimited'), 'True TooManyReplicas: the desired replica count is more than the maximum replica count');
    await s.stop();
  });

  test('behavior: selectPolicy Min takes the smaller change; Disabled stops scaling up', async () => {
    const min = await setup();
    const policies = [
      { type: 'Pods', value: 4, periodSeconds: 15 },
      { type: 'Percent', value: 100, periodSeconds: 15 },
    ];
    await min.start(newDeployment('web', 1), 5000, newHPA('web', { max: 30, behavior: { scaleUp: { selectPolicy: 'Min', policies } } }));
    const seen: number[] = [];
    for (let i = 0; i < 4; i++) {
      await min.stepFor(SYNC);
      seen.push(await min.replicas());
    }
    assert.deepEqual(seen, [2, 4, 8, 12]);
    assert.equal(await min.condition('ScalingLimited'), 'True ScaleUpLimit: the desired replica count is increasing faster than the maximum scale rate');
    await min.stop();

    const disabled = await setup();
    await disabled.start(newDeployment('web', 1), 5000, newHPA('web', { max: 30, behavior: { scaleUp: { selectPolicy: 'Disabled' } } }));
    await disabled.stepFor(2 * SYNC);
    assert.equal(await disabled.replicas(), 1);
    assert.equal(await disabled.condition('ScalingLimited'), 'True ScaleUpLimit: the desired replica count is increasing faster than the maximum scale rate');
    await disabled.stop();
  });

  test('behavior: a scale-down policy of 1 pod per 60 s and a 0 s window', async () => {
    const s = await setup();
    const behavior: HorizontalPodAutoscalerBehavior = { scaleDown: { stabilizationWindowSeconds: 0, policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] } };
    await s.start(newDeployment('web', 5), 100, newHPA('web', { max: 10, behavior }));
    await s.stepFor(SYNC);
    assert.equal(await s.replicas(), 4);
    assert.equal(await s.condition('ScalingLimited'), 'True ScaleDownLimit: the desired replica count is decreasing faster than the maximum scale rate');
    // The next pod goes once the first removal is 60 s old.
    await s.stepFor(3 * SYNC);
    assert.equal(await s.replicas(), 4);
    await s.stepFor(SYNC);
    assert.equal(await s.replicas(), 3);
    await s.stop();
  });

  test('min/max: a count outside the range is brought in; a large proposal is capped at maxReplicas', async () => {
    const s = await setup();
    await s.start(newDeployment('web', 5), 500, newHPA('web', { max: 3 }));
    await s.stepFor(SYNC);
    assert.equal(await s.replicas(), 3);
    assert.deepEqual(await s.events('SuccessfulRescale'), ['Normal SuccessfulRescale New size: 3; reason: Current number of replicas above Spec.MaxReplicas']);
    await s.stop();

    const low = await setup();
    await low.start(newDeployment('web', 1), 500, newHPA('web', { min: 2, max: 5 }));
    await low.stepFor(SYNC);
    assert.equal(await low.replicas(), 2);
    assert.deepEqual(await low.events('SuccessfulRescale'), ['Normal SuccessfulRescale New size: 2; reason: Current number of replicas below Spec.MinReplicas']);
    // 2 pods at 50 % with minReplicas 2 and low load: stays at the minimum.
    low.setUsage('web', 10);
    await low.stepFor(SYNC * 25);
    assert.equal(await low.replicas(), 2);
    assert.equal(await low.condition('ScalingLimited'), 'True TooFewReplicas: the desired replica count is less than the minimum replica count');
    await low.stop();

    const high = await setup();
    await high.start(newDeployment('web', 3), 1000, newHPA('web', { max: 5 }));
    await high.stepFor(SYNC);
    assert.equal(await high.replicas(), 5);
    assert.equal(await high.condition('ScalingLimited'), 'True TooManyReplicas: the desired replica count is more than the maximum replica count');
    await high.stop();
  });

  test('a target scaled to zero disables autoscaling', async () => {
    const s = await setup();
    await s.start(newDeployment('web', 0), 1000, newHPA('web', { max: 5 }));
    await s.stepFor(SYNC);
    assert.equal(await s.replicas(), 0);
    assert.equal(await s.condition('ScalingActive'), 'False ScalingDisabled: scaling is disabled since the replica count of the target is zero');
    assert.equal((await s.hpa()).status?.desiredReplicas, 0);
    await s.stop();
  });

  test('metrics unavailable: FailedGetResourceMetric and FailedComputeMetricsReplicas, no scaling', async () => {
    const s = await setup();
    s.setMetricsDown(new Error('the server is currently unable to handle the request (get pods.metrics.k8s.io)'));
    await s.start(newDeployment('web', 2), 1000, newHPA('web', { max: 5 }));
    await s.stepFor(SYNC);
    assert.equal(await s.replicas(), 2);
    const cause = 'unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server is currently unable to handle the request (get pods.metrics.k8s.io)';
    assert.equal(await s.condition('ScalingActive'), `False FailedGetResourceMetric: the HPA was unable to compute the replica count: failed to get cpu utilization: ${cause}`);
    assert.deepEqual(await s.events('FailedGetResourceMetric'), [`Warning FailedGetResourceMetric failed to get cpu utilization: ${cause}`]);
    assert.deepEqual(await s.events('FailedComputeMetricsReplicas'), [
      `Warning FailedComputeMetricsReplicas invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: failed to get cpu utilization: ${cause}`,
    ]);
    const h = await s.hpa();
    assert.equal(h.status?.currentReplicas, 2);
    assert.deepEqual(h.status?.currentMetrics, [{ type: '' }]);
    assert.equal(await s.condition('AbleToScale'), "True SucceededGetScale: the HPA controller was able to get the target's current scale");
    // Metrics back: the next period scales.
    s.setMetricsDown(undefined);
    await s.stepFor(SYNC);
    assert.equal(await s.replicas(), 4);
    assert.equal(await s.condition('ScalingActive'), 'True ValidMetricFound: the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)');
    await s.stop();
  });

  test('Pods metrics without a custom metrics API: FailedGetPodsMetric', async () => {
    const s = await setup();
    const metrics: MetricSpec[] = [{ type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '10' } } }];
    await s.start(newDeployment('web', 2), 1000, newHPA('web', { max: 5, metrics }));
    await s.stepFor(SYNC);
    assert.equal(await s.replicas(), 2);
    const c = (await s.hpa()).status?.conditions?.find((x) => x.type === 'ScalingActive');
    assert.equal(c?.status, 'False');
    assert.equal(c?.reason, 'FailedGetPodsMetric');
    assert.match(c?.message ?? '', /^the HPA was unable to compute the replica count: unable to get metric qps: unable to fetch metrics from custom metrics API: /);
    const [ev] = await s.events('FailedGetPodsMetric');
    assert.match(ev ?? '', /^Warning FailedGetPodsMetric unable to get metric qps: unable to fetch metrics from custom metrics API: /);
    await s.stop();
  });

  test('a failing metric does not block a scale-up the others ask for, but blocks a scale-down', async () => {
    const s = await setup();
    const metrics: MetricSpec[] = [
      { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
      { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '10' } } },
    ];
    await s.start(newDeployment('web', 2), 1000, newHPA('web', { max: 5, metrics }));
    await s.stepFor(SYNC);
    assert.equal(await s.replicas(), 4);
    assert.equal(await s.condition('ScalingActive'), 'True ValidMetricFound: the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)');
    s.setUsage('web', 10);
    await s.stepFor(SYNC * 25);
    assert.equal(await s.replicas(), 4);
    assert.equal((await s.hpa()).status?.conditions?.find((x) => x.type === 'ScalingActive')?.reason, 'FailedGetPodsMetric');
    await s.stop();
  });

  test('a target kind nobody serves: FailedGetScale', async () => {
    const s = await setup();
    await s.start(newDeployment('web', 2), 1000, newHPA('web', { max: 5, kind: 'Widget', apiVersion: 'example.com/v1' }));
    await s.stepFor(SYNC);
    const message = 'no matches for kind "Widget" in group "example.com"';
    assert.equal(await s.condition('AbleToScale'), `False FailedGetScale: the HPA controller was unable to get the target's current scale: ${message}`);
    assert.deepEqual(await s.events('FailedGetScale'), [`Warning FailedGetScale ${message}`]);
    await s.stop();
  });

  test('any kind with a scale subresource: a StatefulSet', async () => {
    const s = await setup();
    await s.client.apps.statefulSets('ns').create({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: 'ns' },
      spec: {
        replicas: 2,
        serviceName: 'db',
        selector: { matchLabels: { app: 'db' } },
        template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'c', image: 'postgres', resources: { requests: { cpu: '1' } } }] } },
      },
    });
    // Pods of the StatefulSet, labelled app=db (the stand-in kubelet only follows Deployments).
    await s.start(newDeployment('unrelated', 0), 0);
    s.usage.clear();
    await s.transport.seed(
      [0, 1].map((i) => ({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `db-${i}`, namespace: 'ns', labels: { app: 'db' } },
        spec: { containers: [{ name: 'c', image: 'postgres', resources: { requests: { cpu: '1' } } }] },
        status: { phase: 'Running', startTime: formatTime(T0 - 10 * MIN), conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: formatTime(T0 - 10 * MIN) }] },
      })),
    );
    await s.client.autoscaling.horizontalPodAutoscalers('ns').create(newHPA('db', { max: 5, kind: 'StatefulSet', target: 'db' }));
    await s.settle();
    // No PodMetrics for db pods: every pod is missing, so no metrics at all.
    await s.stepFor(SYNC);
    assert.equal((await s.hpa('db')).status?.conditions?.find((x) => x.type === 'AbleToScale')?.reason, 'SucceededGetScale');
    assert.equal((await s.hpa('db')).status?.currentReplicas, 2);
    await s.stop();
  });

  test('two HPAs selecting the same pods: AmbiguousSelector on both, no scaling until one goes', async () => {
    const s = await setup();
    await s.start(newDeployment('web', 2), 1000, newHPA('web', { max: 10 }), newHPA('web-too', { max: 10 }));
    // Each HPA's selector is known from its first reconcile on: the first of the two may still scale once.
    await s.stepFor(2 * SYNC);
    for (const name of ['web', 'web-too']) {
      assert.equal(await s.condition('ScalingActive', name), 'False AmbiguousSelector: pods by selector app=web are controlled by multiple HPAs: [ns/web ns/web-too]');
    }
    const before = await s.replicas();
    await s.stepFor(SYNC);
    assert.equal(await s.replicas(), before);
    assert.ok((await s.events('AmbiguousSelector')).length > 0);
    // Deleting one lets the other work.
    await s.client.autoscaling.horizontalPodAutoscalers('ns').delete('web-too');
    await s.stepFor(SYNC);
    assert.ok((await s.replicas()) > before);
    await s.stop();
  });

  test('a deleted HPA is dropped from the queue and its history forgotten', async () => {
    const s = await setup();
    await s.start(newDeployment('web', 2), 1000, newHPA('web', { max: 10 }));
    await s.stepFor(SYNC);
    assert.equal(await s.replicas(), 4);
    await s.client.autoscaling.horizontalPodAutoscalers('ns').delete('web');
    await s.stepFor(3 * SYNC);
    assert.equal(await s.replicas(), 4, 'nobody scales it any more');
    assert.equal(s.hpac.queue.len(), 0);
    await s.stop();
  });

  test('AverageValue and ContainerResource targets: their descriptions and statuses', async () => {
    const s = await setup();
    const metrics: MetricSpec[] = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'AverageValue', averageValue: '500m' } } }];
    await s.start(newDeployment('web', 2), 1000, newHPA('web', { max: 10, metrics }));
    await s.stepFor(SYNC);
    assert.equal(await s.replicas(), 4);
    assert.deepEqual(await s.events('SuccessfulRescale'), ['Normal SuccessfulRescale New size: 4; reason: cpu resource above target']);
    assert.deepEqual((await s.hpa()).status?.currentMetrics, [{ type: 'Resource', resource: { name: 'cpu', current: { averageValue: '1' } } }]);
    await s.stop();

    const c = await setup();
    const containerMetrics: MetricSpec[] = [{ type: 'ContainerResource', containerResource: { name: 'cpu', container: 'c', target: { type: 'Utilization', averageUtilization: 50 } } }];
    await c.start(newDeployment('web', 2), 750, newHPA('web', { max: 10, metrics: containerMetrics }));
    await c.stepFor(SYNC);
    assert.equal(await c.replicas(), 3);
    assert.deepEqual(await c.events('SuccessfulRescale'), ['Normal SuccessfulRescale New size: 3; reason: cpu container resource utilization (percentage of request) above target']);
    assert.deepEqual((await c.hpa()).status?.currentMetrics, [{ type: 'ContainerResource', containerResource: { name: 'cpu', container: 'c', current: { averageUtilization: 75, averageValue: '750m' } } }]);
    await c.stop();
  });

  test('a scale that cannot be written: FailedRescale and AbleToScale FailedUpdateScale', async () => {
    const s = await setup();
    s.transport.prependReactor('update', 'deployments/scale', () => ({ handled: true, error: new Error('the scale is on strike') }));
    await s.start(newDeployment('web', 2), 1000, newHPA('web', { max: 10 }));
    await s.stepFor(SYNC);
    assert.equal(await s.replicas(), 2);
    assert.deepEqual(await s.events('FailedRescale'), ['Warning FailedRescale New size: 4; reason: cpu resource utilization (percentage of request) above target; error: the scale is on strike']);
    assert.equal(await s.condition('AbleToScale'), 'False FailedUpdateScale: the HPA controller was unable to update the target scale: the scale is on strike');
    const h = await s.hpa();
    assert.equal(h.status?.currentReplicas, 2);
    assert.equal(h.status?.lastScaleTime, undefined);
    await s.stop();
  });

  test("a target's scale without a selector, or with a bad one: InvalidSelector", async () => {
    const s = await setup();
    let selector = '';
    s.transport.prependReactor('get', 'deployments/scale', (req) => ({
      handled: true,
      result: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: req.name, namespace: 'ns' }, spec: { replicas: 2 }, status: { replicas: 2, selector } },
    }));
    await s.start(newDeployment('web', 2), 1000, newHPA('web', { max: 10 }));
    await s.stepFor(SYNC);
    assert.equal(await s.condition('ScalingActive'), "False InvalidSelector: the HPA target's scale is missing a selector");
    assert.deepEqual(await s.events('SelectorRequired'), ['Warning SelectorRequired selector is required']);
    selector = 'app in (web';
    await s.stepFor(SYNC);
    const c = (await s.hpa()).status?.conditions?.find((x) => x.type === 'ScalingActive');
    assert.equal(c?.reason, 'InvalidSelector');
    assert.match(c?.message ?? '', /^couldn't convert selector into a corresponding internal selector object: /);
    assert.equal(await s.replicas(), 2);
    await s.stop();
  });

  test('--horizontal-pod-autoscaler-sync-period and --horizontal-pod-autoscaler-tolerance', async () => {
    const s = await setup({ syncPeriodMs: 5000, tolerance: 0.5 });
    // 70 % against 50 %: a ratio of 1.4, within a tolerance of 0.5.
    await s.start(newDeployment('web', 2), 700, newHPA('web', { max: 10 }));
    await s.stepFor(5000);
    assert.equal((await s.hpa()).status?.currentReplicas, 2, 'synced after 5 s');
    assert.equal(await s.replicas(), 2);
    s.setUsage('web', 800);
    await s.stepFor(5000);
    assert.equal(await s.replicas(), 4);
    await s.stop();
  });

  test('new pods whose cpu is not yet trusted count as 0 on a scale-up (cpu initialization period)', async () => {
    const s = await setup();
    await s.start(newDeployment('web', 2), 1000, newHPA('web', { max: 10 }));
    // Two more pods that just started and became Ready now: their samples do not yet cover a window.
    const now = formatTime(T0);
    await s.transport.seed(
      [2, 3].map((i) => ({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `fresh-${i}`, namespace: 'ns', labels: { app: 'web' } },
        spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '1' } } }] },
        status: { phase: 'Running', startTime: now, conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: formatTime(T0 + SYNC) }] },
      })),
    );
    for (const name of ['fresh-2', 'fresh-3']) {
      s.podLabels.set(name, { app: 'web' });
      s.usage.set(name, 1000);
    }
    await s.stepFor(SYNC);
    // Ready pods at 100 % ask for ratio 2; counting the fresh ones at 0 gives (2000 / 4000) / 0.5 = 1: no change.
    assert.equal(await s.replicas(), 2);
    assert.equal((await s.hpa()).status?.currentMetrics?.[0]?.resource?.current?.averageUtilization, 100);
    await s.stop();
  });

  test('a fake MetricsClient can be injected (what the integration tests do)', async () => {
    const fake: MetricsClient = {
      getResourceMetric: () => Promise.reject(new Error('injected')),
      getRawMetric: () => Promise.reject(new Error('injected')),
      getObjectMetric: () => Promise.reject(new Error('injected')),
      getExternalMetric: () => Promise.reject(new Error('injected')),
    };
    const s = await setup({ metricsClient: fake });
    await s.start(newDeployment('web', 2), 1000, newHPA('web', { max: 10 }));
    await s.stepFor(SYNC);
    assert.equal(await s.condition('ScalingActive'), 'False FailedGetResourceMetric: the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: injected');
    await s.stop();
  });
});
