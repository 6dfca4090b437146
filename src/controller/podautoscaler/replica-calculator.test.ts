/**
 * The replica calculator against upstream's table: kubernetes/kubernetes
 * pkg/controller/podautoscaler/replica_calculator_test.go (v1.33), every `TestReplicaCalc*` case,
 * with the same fixtures — pods `test-pod-<i>` of two containers each requesting `requests[i]`,
 * samples per container, tolerance 0.1, cpu initialization period 2 min, readiness delay 10 s,
 * "cool" pods started 3 min ago and "hot" pods started now — and `TestGroupPods`.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CrossVersionObjectReference } from 'kubernetes-types/autoscaling/v2.js';
import type { LabelSelector, Pod } from '../../api/index.js';
import type { Lister } from '../../informers/index.js';
import { selectorFromSet, type Selector } from '../../machinery/labels/index.js';
import { FakeClock, formatTime } from '../../util/clock/index.js';
import { GO_ZERO_TIME, containerMetricsFromList, podMetricsFromList, type MetricsClient, type PodMetricsInfo } from './metrics-client.js';
import { ReplicaCalculator, calculatePodRequests, groupPods } from './replica-calculator.js';

const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);
const MIN = 60_000;
const NAMESPACE = 'test-namespace';
const PREFIX = 'test-pod';
const CONTAINERS = 2;
/** upstream's defaultTesting* settings. */
const TOLERANCE = 0.1;
const CPU_INIT_MS = 2 * MIN;
const READINESS_DELAY_MS = 10_000;

/** upstream `coolCPUCreationTime` / `hotCPUCreationTime`. */
const COOL = NOW - 3 * MIN;
const HOT = NOW;

type Phase = 'Running' | 'Pending' | 'Failed' | 'Succeeded';
type Readiness = 'True' | 'False';

interface ResourceInfo {
  name: string;
  /** Per-pod request of each container, milli-units as a quantity string. */
  requests: string[];
  /** Per-pod sample of each container, millicores. */
  levels: number[][];
  podNames?: string[];
  targetUtilization: number;
  expectedUtilization?: number;
  expectedValue?: number;
}

type MetricType = 'object' | 'objectPerPod' | 'external' | 'externalPerPod' | 'pods';

interface MetricInfo {
  name: string;
  levels: number[];
  singleObject?: CrossVersionObjectReference;
  selector?: LabelSelector;
  metricType: MetricType;
  targetUsage?: number;
  perPodTargetUsage?: number;
  expectedUsage: number;
}

interface Case {
  currentReplicas: number;
  expectedReplicas?: number;
  expectedError?: string;
  resource?: ResourceInfo;
  metric?: MetricInfo;
  container?: string;
  podReadiness?: Readiness[];
  podStartTime?: number[];
  podPhase?: Phase[];
  podDeletionTimestamp?: boolean[];
}

/** upstream `makePodMetricLevels`: every container of pod i at `levels[i]`. */
const levels = (...perPod: number[]): number[][] => perPod.map((l) => Array.from({ length: CONTAINERS }, () => l));
const ones = (n: number): string[] => Array.from({ length: n }, () => '1.0');

/** A lister over fixed pods, filtering by namespace and selector as an informer's does. */
function podLister(pods: Pod[]): Lister<Pod> {
  const inNs = (ns: string, sel?: Selector): Pod[] => pods.filter((p) => p.metadata?.namespace === ns && (!sel || sel.matches(p.metadata?.labels)));
  return {
    list: (sel) => pods.filter((p) => !sel || sel.matches(p.metadata?.labels)),
    get: (key) => pods.find((p) => `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}` === key),
    namespace: (ns) => ({ list: (sel) => inNs(ns, sel), get: (name) => inNs(ns).find((p) => p.metadata?.name === name) }),
  };
}

/** upstream `prepareTestClientSet`'s pods. */
function makePods(tc: Case): Pod[] {
  const count = Math.max(tc.currentReplicas, tc.podPhase?.length ?? 0);
  return Array.from({ length: count }, (_, i): Pod => {
    const request = tc.resource && i < tc.resource.requests.length ? { requests: { [tc.resource.name]: tc.resource.requests[i] ?? '' } } : undefined;
    const start = tc.podStartTime?.[i];
    return {
      metadata: { name: `${PREFIX}-${i}`, namespace: NAMESPACE, labels: { name: PREFIX }, ...(tc.podDeletionTimestamp?.[i] ? { deletionTimestamp: formatTime(NOW) } : {}) },
      spec: { containers: ['container1', 'container2'].map((name) => ({ name, ...(request ? { resources: request } : {}) })) },
      status: {
        phase: tc.podPhase?.[i] ?? 'Running',
        // Upstream's zero start time when unset: long before the initialization period.
        startTime: start === undefined ? '0001-01-01T00:00:00Z' : formatTime(start),
        conditions: [{ type: 'Ready', status: tc.podReadiness?.[i] ?? 'True' }],
      },
    };
  });
}

/** The metrics APIs of upstream's fakes, at the zero timestamp (upstream's `tc.timestamp`). */
function fakeMetricsClient(tc: Case): MetricsClient {
  return {
    getResourceMetric(resource, _ns, _sel, container) {
      const r = tc.resource;
      if (!r) return Promise.reject(new Error('no pod resource metrics specified in test client'));
      const items = r.levels.map((perContainer, i) => ({
        metadata: { name: r.podNames?.[i] ?? `${PREFIX}-${i}`, namespace: NAMESPACE },
        timestamp: '0001-01-01T00:00:00Z',
        window: '1m0s',
        containers: perContainer.map((m, j) => ({ name: `container${j + 1}`, usage: { [r.name]: `${m}m` } })),
      }));
      if (items.length === 0) return Promise.reject(new Error('no metrics returned from resource metrics API'));
      const metrics = container ? containerMetricsFromList(items, resource, container) : podMetricsFromList(items, resource);
      return Promise.resolve({ metrics, timestamp: GO_ZERO_TIME });
    },
    getRawMetric() {
      const m = tc.metric;
      if (!m) return Promise.reject(new Error('no custom metrics specified in test client'));
      const metrics: PodMetricsInfo = new Map(m.levels.map((v, i) => [`${PREFIX}-${i}`, { timestamp: GO_ZERO_TIME, window: MIN, value: v }]));
      return Promise.resolve({ metrics, timestamp: GO_ZERO_TIME });
    },
    getObjectMetric(name, _ns, ref) {
      const m = tc.metric;
      if (!m) return Promise.reject(new Error('no custom metrics specified in test client'));
      assert.equal(name, m.name);
      assert.deepEqual(ref, m.singleObject);
      return Promise.resolve({ value: m.levels[0] ?? 0, timestamp: GO_ZERO_TIME });
    },
    getExternalMetric(name) {
      const m = tc.metric;
      if (!m) return Promise.reject(new Error('no external metrics specified in test client'));
      assert.equal(name, m.name);
      return Promise.resolve({ values: m.levels, timestamp: GO_ZERO_TIME });
    },
  };
}

/** upstream `replicaCalcTestCase.runTest`. */
async function runTest(tc: Case): Promise<void> {
  const calc = new ReplicaCalculator({
    metricsClient: fakeMetricsClient(tc),
    podLister: podLister(makePods(tc)),
    clock: new FakeClock(NOW),
    tolerance: TOLERANCE,
    cpuInitializationPeriodMs: CPU_INIT_MS,
    delayOfInitialReadinessStatusMs: READINESS_DELAY_MS,
  });
  const selector = selectorFromSet({ name: PREFIX });
  const expectError = async (p: Promise<unknown>): Promise<void> => {
    await assert.rejects(p, (err: Error) => {
      assert.ok(err.message.includes(tc.expectedError ?? ''), `${err.message} should contain ${tc.expectedError ?? ''}`);
      return true;
    });
  };
  if (tc.resource) {
    const r = tc.resource;
    const out = calc.getResourceReplicas(tc.currentReplicas, r.targetUtilization, r.name, NAMESPACE, selector, tc.container ?? '');
    if (tc.expectedError !== undefined) return expectError(out);
    const got = await out;
    assert.equal(got.replicas, tc.expectedReplicas, 'replicas');
    assert.equal(got.utilization, r.expectedUtilization, 'utilization');
    assert.equal(got.rawUtilization, r.expectedValue, 'raw value');
    assert.equal(got.timestamp, GO_ZERO_TIME, 'timestamp');
    return;
  }
  const m = tc.metric;
  assert.ok(m);
  let out;
  switch (m.metricType) {
    case 'object':
      assert.ok(m.singleObject);
      out = calc.getObjectMetricReplicas(tc.currentReplicas, m.targetUsage ?? 0, m.name, NAMESPACE, m.singleObject, selector, selectorFromSet({}));
      break;
    case 'objectPerPod':
      assert.ok(m.singleObject);
      out = calc.getObjectPerPodMetricReplicas(tc.currentReplicas, m.perPodTargetUsage ?? 0, m.name, NAMESPACE, m.singleObject, selectorFromSet({}));
      break;
    case 'external':
      assert.ok(m.selector && (m.targetUsage ?? 0) > 0);
      out = calc.getExternalMetricReplicas(tc.currentReplicas, m.targetUsage ?? 0, m.name, NAMESPACE, m.selector, selector);
      break;
    case 'externalPerPod':
      assert.ok(m.selector && (m.perPodTargetUsage ?? 0) > 0);
      out = calc.getExternalPerPodMetricReplicas(tc.currentReplicas, m.perPodTargetUsage ?? 0, m.name, NAMESPACE, m.selector);
      break;
    case 'pods':
      out = calc.getMetricReplicas(tc.currentReplicas, m.targetUsage ?? 0, m.name, NAMESPACE, selector, selectorFromSet({}));
      break;
  }
  if (tc.expectedError !== undefined) return expectError(out);
  const got = await out;
  assert.equal(got.replicas, tc.expectedReplicas, 'replicas');
  assert.equal(got.usage, m.expectedUsage, 'usage');
  assert.equal(got.timestamp, GO_ZERO_TIME, 'timestamp');
}

const deployment: CrossVersionObjectReference = { kind: 'Deployment', apiVersion: 'apps/v1', name: 'some-deployment' };
const labelValue: LabelSelector = { matchLabels: { label: 'value' } };

/** upstream's cases, by their Go test names. */
const CASES: Record<string, Case> = {
  DisjointResourcesMetrics: {
    currentReplicas: 1,
    expectedError: 'no metrics returned matched known pods',
    resource: { name: 'cpu', requests: ['1.0'], levels: levels(100), podNames: ['an-older-pod-name'], targetUtilization: 100 },
  },
  ScaleUp: {
    currentReplicas: 3,
    expectedReplicas: 5,
    resource: { name: 'cpu', requests: ones(3), levels: levels(300, 500, 700), targetUtilization: 30, expectedUtilization: 50, expectedValue: CONTAINERS * 500 },
  },
  ContainerScaleUp: {
    currentReplicas: 3,
    expectedReplicas: 5,
    resource: { name: 'cpu', requests: ones(3), levels: [[1000, 300], [1000, 500], [1000, 700]], targetUtilization: 30, expectedUtilization: 50, expectedValue: 500 },
    container: 'container2',
  },
  ScaleUpUnreadyLessScale: {
    currentReplicas: 3,
    expectedReplicas: 4,
    podReadiness: ['False', 'True', 'True'],
    resource: { name: 'cpu', requests: ones(3), levels: levels(300, 500, 700), targetUtilization: 30, expectedUtilization: 60, expectedValue: CONTAINERS * 600 },
  },
  ScaleUpContainerHotCpuLessScale: {
    currentReplicas: 3,
    expectedReplicas: 4,
    podStartTime: [HOT, COOL, COOL],
    resource: { name: 'cpu', requests: ones(3), levels: [[0, 300], [0, 500], [0, 700]], targetUtilization: 30, expectedUtilization: 60, expectedValue: 600 },
    container: 'container2',
  },
  ScaleUpHotCpuLessScale: {
    currentReplicas: 3,
    expectedReplicas: 4,
    podStartTime: [HOT, COOL, COOL],
    resource: { name: 'cpu', requests: ones(3), levels: levels(300, 500, 700), targetUtilization: 30, expectedUtilization: 60, expectedValue: CONTAINERS * 600 },
  },
  ScaleUpUnreadyNoScale: {
    currentReplicas: 3,
    expectedReplicas: 3,
    podReadiness: ['True', 'False', 'False'],
    resource: { name: 'cpu', requests: ones(3), levels: levels(400, 500, 700), targetUtilization: 30, expectedUtilization: 40, expectedValue: CONTAINERS * 400 },
  },
  ScaleHotCpuNoScale: {
    currentReplicas: 3,
    expectedReplicas: 3,
    podReadiness: ['True', 'False', 'False'],
    podStartTime: [COOL, HOT, HOT],
    resource: { name: 'cpu', requests: ones(3), levels: levels(400, 500, 700), targetUtilization: 30, expectedUtilization: 40, expectedValue: CONTAINERS * 400 },
  },
  ScaleUpIgnoresFailedPods: {
    currentReplicas: 2,
    expectedReplicas: 4,
    podReadiness: ['True', 'True', 'False', 'False'],
    podPhase: ['Running', 'Running', 'Failed', 'Failed'],
    resource: { name: 'cpu', requests: ones(4), levels: levels(500, 700), targetUtilization: 30, expectedUtilization: 60, expectedValue: CONTAINERS * 600 },
  },
  MissingContainerMetricScaleUpIgnoresFailedPods: {
    currentReplicas: 2,
    expectedReplicas: 4,
    podReadiness: ['True', 'True', 'False', 'False'],
    podPhase: ['Running', 'Running', 'Failed', 'Failed'],
    resource: { name: 'cpu', requests: ones(4), levels: [[1000, 500], [9000, 700], [1000], [9000]], targetUtilization: 30, expectedUtilization: 60, expectedValue: 600 },
    container: 'container2',
  },
  ScaleUpContainerIgnoresFailedPods: {
    currentReplicas: 2,
    expectedReplicas: 4,
    podReadiness: ['True', 'True', 'False', 'False'],
    podPhase: ['Running', 'Running', 'Failed', 'Failed'],
    resource: { name: 'cpu', requests: ones(4), levels: [[1000, 500], [9000, 700]], targetUtilization: 30, expectedUtilization: 60, expectedValue: 600 },
    container: 'container2',
  },
  ScaleUpIgnoresDeletionPods: {
    currentReplicas: 2,
    expectedReplicas: 4,
    podReadiness: ['True', 'True', 'False', 'False'],
    podPhase: ['Running', 'Running', 'Running', 'Running'],
    podDeletionTimestamp: [false, false, true, true],
    resource: { name: 'cpu', requests: ones(4), levels: levels(500, 700), targetUtilization: 30, expectedUtilization: 60, expectedValue: CONTAINERS * 600 },
  },
  ScaleUpContainerIgnoresDeletionPods: {
    currentReplicas: 2,
    expectedReplicas: 4,
    podReadiness: ['True', 'True', 'False', 'False'],
    podPhase: ['Running', 'Running', 'Running', 'Running'],
    podDeletionTimestamp: [false, false, true, true],
    resource: { name: 'cpu', requests: ones(4), levels: levels(500, 700), targetUtilization: 30, expectedUtilization: 60, expectedValue: 600 },
    container: 'container1',
  },
  ScaleUpCM: { currentReplicas: 3, expectedReplicas: 4, metric: { name: 'qps', levels: [20000, 10000, 30000], targetUsage: 15000, expectedUsage: 20000, metricType: 'pods' } },
  ScaleUpCMUnreadyHotCpuNoLessScale: {
    currentReplicas: 3,
    expectedReplicas: 6,
    podReadiness: ['True', 'True', 'False'],
    podStartTime: [COOL, COOL, HOT],
    metric: { name: 'qps', levels: [50000, 10000, 30000], targetUsage: 15000, expectedUsage: 30000, metricType: 'pods' },
  },
  ScaleUpCMUnreadyHotCpuScaleWouldScaleDown: {
    currentReplicas: 3,
    expectedReplicas: 7,
    podReadiness: ['False', 'True', 'False'],
    podStartTime: [HOT, COOL, HOT],
    metric: { name: 'qps', levels: [50000, 15000, 30000], targetUsage: 15000, expectedUsage: 31666, metricType: 'pods' },
  },
  ScaleUpCMObject: { currentReplicas: 3, expectedReplicas: 4, metric: { name: 'qps', levels: [20000], targetUsage: 15000, expectedUsage: 20000, singleObject: deployment, metricType: 'object' } },
  ScaleUpCMPerPodObject: {
    currentReplicas: 3,
    expectedReplicas: 4,
    metric: { metricType: 'objectPerPod', name: 'qps', levels: [20000], perPodTargetUsage: 5000, expectedUsage: 6667, singleObject: deployment },
  },
  ScaleUpCMObjectIgnoresUnreadyPods: {
    currentReplicas: 3,
    expectedReplicas: 5, // 15 if unready pods counted
    podReadiness: ['False', 'True', 'False'],
    metric: { name: 'qps', levels: [50000], targetUsage: 10000, expectedUsage: 50000, singleObject: deployment, metricType: 'object' },
  },
  ScaleUpCMExternal: { currentReplicas: 1, expectedReplicas: 2, metric: { name: 'qps', levels: [8600], targetUsage: 4400, expectedUsage: 8600, selector: labelValue, metricType: 'pods' } },
  ScaleUpCMExternalIgnoresUnreadyPods: {
    currentReplicas: 3,
    expectedReplicas: 2, // 6 if unready pods counted
    podReadiness: ['False', 'True', 'False'],
    metric: { name: 'qps', levels: [8600], targetUsage: 4400, expectedUsage: 8600, selector: labelValue, metricType: 'external' },
  },
  ScaleUpCMExternalNoLabels: { currentReplicas: 1, expectedReplicas: 2, metric: { name: 'qps', levels: [8600], targetUsage: 4400, expectedUsage: 8600, metricType: 'pods' } },
  ScaleUpPerPodCMExternal: {
    currentReplicas: 3,
    expectedReplicas: 4,
    metric: { name: 'qps', levels: [8600], perPodTargetUsage: 2150, expectedUsage: 2867, selector: labelValue, metricType: 'externalPerPod' },
  },
  ScaleDown: {
    currentReplicas: 5,
    expectedReplicas: 3,
    resource: { name: 'cpu', requests: ones(5), levels: levels(100, 300, 500, 250, 250), targetUtilization: 50, expectedUtilization: 28, expectedValue: CONTAINERS * 280 },
  },
  ContainerScaleDown: {
    currentReplicas: 5,
    expectedReplicas: 3,
    resource: { name: 'cpu', requests: ones(5), levels: [[1000, 100], [1000, 300], [1000, 500], [1000, 250], [1000, 250]], targetUtilization: 50, expectedUtilization: 28, expectedValue: 280 },
    container: 'container2',
  },
  ScaleDownCM: { currentReplicas: 5, expectedReplicas: 3, metric: { name: 'qps', levels: [12000, 12000, 12000, 12000, 12000], targetUsage: 20000, expectedUsage: 12000, metricType: 'pods' } },
  ScaleDownPerPodCMObject: {
    currentReplicas: 5,
    expectedReplicas: 3,
    metric: { name: 'qps', levels: [6000], perPodTargetUsage: 2000, expectedUsage: 1200, singleObject: deployment, metricType: 'objectPerPod' },
  },
  ScaleDownCMObject: { currentReplicas: 5, expectedReplicas: 3, metric: { name: 'qps', levels: [12000], targetUsage: 20000, expectedUsage: 12000, singleObject: deployment, metricType: 'object' } },
  ScaleDownCMExternal: { currentReplicas: 5, expectedReplicas: 3, metric: { name: 'qps', levels: [8600], targetUsage: 14334, expectedUsage: 8600, selector: labelValue, metricType: 'external' } },
  ScaleDownPerPodCMExternal: {
    currentReplicas: 5,
    expectedReplicas: 3,
    metric: { name: 'qps', levels: [8600], perPodTargetUsage: 2867, expectedUsage: 1720, selector: labelValue, metricType: 'externalPerPod' },
  },
  ScaleDownExcludeUnreadyPods: {
    currentReplicas: 5,
    expectedReplicas: 2,
    podReadiness: ['True', 'True', 'True', 'False', 'False'],
    resource: { name: 'cpu', requests: ones(5), levels: levels(100, 300, 500, 250, 250), targetUtilization: 50, expectedUtilization: 30, expectedValue: CONTAINERS * 300 },
  },
  ScaleDownContainerExcludeUnreadyPods: {
    currentReplicas: 5,
    expectedReplicas: 2,
    podReadiness: ['True', 'True', 'True', 'False', 'False'],
    resource: { name: 'cpu', requests: ones(5), levels: [[1000, 100], [1000, 300], [1000, 500], [1000, 250], [1000, 250]], targetUtilization: 50, expectedUtilization: 30, expectedValue: 300 },
    container: 'container2',
  },
  ScaleDownExcludeUnscheduledPods: {
    currentReplicas: 5,
    expectedReplicas: 1,
    podReadiness: ['True', 'False', 'False', 'False', 'False'],
    podPhase: ['Running', 'Pending', 'Pending', 'Pending', 'Pending'],
    resource: { name: 'cpu', requests: ones(5), levels: levels(100), targetUtilization: 50, expectedUtilization: 10, expectedValue: CONTAINERS * 100 },
  },
  ScaleDownContainerExcludeUnscheduledPods: {
    currentReplicas: 5,
    expectedReplicas: 1,
    podReadiness: ['True', 'False', 'False', 'False', 'False'],
    podPhase: ['Running', 'Pending', 'Pending', 'Pending', 'Pending'],
    resource: { name: 'cpu', requests: ones(5), levels: [[1000, 100], [1000, 300], [1000, 500], [1000, 250], [1000, 250]], targetUtilization: 50, expectedUtilization: 10, expectedValue: 100 },
    container: 'container2',
  },
  ScaleDownIgnoreHotCpuPods: {
    currentReplicas: 5,
    expectedReplicas: 2,
    podStartTime: [COOL, COOL, COOL, HOT, HOT],
    resource: { name: 'cpu', requests: ones(5), levels: levels(100, 300, 500, 250, 250), targetUtilization: 50, expectedUtilization: 30, expectedValue: CONTAINERS * 300 },
  },
  ScaleDownContainerIgnoreHotCpuPods: {
    currentReplicas: 5,
    expectedReplicas: 2,
    podStartTime: [COOL, COOL, COOL, HOT, HOT],
    resource: { name: 'cpu', requests: ones(5), levels: [[1000, 100], [1000, 300], [1000, 500], [1000, 1000], [1000, 1000]], targetUtilization: 50, expectedUtilization: 30, expectedValue: 300 },
    container: 'container2',
  },
  ScaleDownIgnoresFailedPods: {
    currentReplicas: 5,
    expectedReplicas: 3,
    podReadiness: ['True', 'True', 'True', 'True', 'True', 'False', 'False'],
    podPhase: ['Running', 'Running', 'Running', 'Running', 'Running', 'Failed', 'Failed'],
    resource: { name: 'cpu', requests: ones(7), levels: levels(100, 300, 500, 250, 250), targetUtilization: 50, expectedUtilization: 28, expectedValue: CONTAINERS * 280 },
  },
  ScaleDownContainerIgnoresFailedPods: {
    currentReplicas: 5,
    expectedReplicas: 3,
    podReadiness: ['True', 'True', 'True', 'True', 'True', 'False', 'False'],
    podPhase: ['Running', 'Running', 'Running', 'Running', 'Running', 'Failed', 'Failed'],
    resource: { name: 'cpu', requests: ones(7), levels: [[1000, 100], [1000, 300], [1000, 500], [1000, 250], [1000, 250]], targetUtilization: 50, expectedUtilization: 28, expectedValue: 280 },
    container: 'container2',
  },
  ScaleDownIgnoresDeletionPods: {
    currentReplicas: 5,
    expectedReplicas: 3,
    podReadiness: ['True', 'True', 'True', 'True', 'True', 'False', 'False'],
    podPhase: ['Running', 'Running', 'Running', 'Running', 'Running', 'Running', 'Running'],
    podDeletionTimestamp: [false, false, false, false, false, true, true],
    resource: { name: 'cpu', requests: ones(7), levels: levels(100, 300, 500, 250, 250), targetUtilization: 50, expectedUtilization: 28, expectedValue: CONTAINERS * 280 },
  },
  // Regression test for https://github.com/kubernetes/kubernetes/issues/83561
  ScaleDownIgnoresDeletionPods_StillRunning: {
    currentReplicas: 5,
    expectedReplicas: 3,
    podReadiness: ['True', 'True', 'True', 'True', 'True', 'False', 'False'],
    podPhase: ['Running', 'Running', 'Running', 'Running', 'Running', 'Running', 'Running'],
    podDeletionTimestamp: [false, false, false, false, false, true, true],
    resource: { name: 'cpu', requests: ones(7), levels: [[1000, 100], [1000, 300], [1000, 500], [1000, 250], [1000, 250]], targetUtilization: 50, expectedUtilization: 28, expectedValue: 280 },
    container: 'container2',
  },
  Tolerance: {
    currentReplicas: 3,
    expectedReplicas: 3,
    resource: { name: 'cpu', requests: ['0.9', '1.0', '1.1'], levels: levels(1010, 1030, 1020), targetUtilization: 100, expectedUtilization: 102, expectedValue: CONTAINERS * 1020 },
  },
  ToleranceCM: { currentReplicas: 3, expectedReplicas: 3, metric: { name: 'qps', levels: [20000, 21000, 21000], targetUsage: 20000, expectedUsage: 20666, metricType: 'pods' } },
  ToleranceCMObject: { currentReplicas: 3, expectedReplicas: 3, metric: { name: 'qps', levels: [20666], targetUsage: 20000, expectedUsage: 20666, singleObject: deployment, metricType: 'object' } },
  TolerancePerPodCMObject: {
    currentReplicas: 4,
    expectedReplicas: 4,
    metric: { metricType: 'objectPerPod', name: 'qps', levels: [20166], perPodTargetUsage: 5000, expectedUsage: 5042, singleObject: deployment },
  },
  ToleranceCMExternal: { currentReplicas: 3, expectedReplicas: 3, metric: { name: 'qps', levels: [8600], targetUsage: 8888, expectedUsage: 8600, selector: labelValue, metricType: 'external' } },
  TolerancePerPodCMExternal: {
    currentReplicas: 3,
    expectedReplicas: 3,
    metric: { name: 'qps', levels: [8600], perPodTargetUsage: 2900, expectedUsage: 2867, selector: labelValue, metricType: 'externalPerPod' },
  },
  SuperfluousMetrics: {
    currentReplicas: 4,
    expectedReplicas: 24,
    resource: { name: 'cpu', requests: ones(4), levels: levels(4000, 9500, 3000, 7000, 3200, 2000), targetUtilization: 100, expectedUtilization: 587, expectedValue: CONTAINERS * 5875 },
  },
  MissingMetrics: {
    currentReplicas: 4,
    expectedReplicas: 3,
    resource: { name: 'cpu', requests: ones(4), levels: levels(400, 95), targetUtilization: 100, expectedUtilization: 24, expectedValue: 495 },
  },
  EmptyMetrics: {
    currentReplicas: 4,
    expectedError: 'unable to get metrics for resource cpu: no metrics returned from resource metrics API',
    resource: { name: 'cpu', requests: ones(3), levels: levels(), targetUtilization: 100 },
  },
  EmptyCPURequest: { currentReplicas: 1, expectedError: 'missing request for', resource: { name: 'cpu', requests: [], levels: levels(200), targetUtilization: 100 } },
  PlainMetricMissingMetricsNoChangeEq: { currentReplicas: 5, expectedReplicas: 5, metric: { name: 'qps', levels: [20000, 19000, 21000], targetUsage: 20000, expectedUsage: 20000, metricType: 'pods' } },
  MissingMetricsNoChangeEq: {
    currentReplicas: 2,
    expectedReplicas: 2,
    resource: { name: 'cpu', requests: ones(2), levels: levels(1000), targetUtilization: 100, expectedUtilization: 100, expectedValue: CONTAINERS * 1000 },
  },
  MissingMetricsNoChangeGt: {
    currentReplicas: 2,
    expectedReplicas: 2,
    resource: { name: 'cpu', requests: ones(2), levels: levels(1900), targetUtilization: 100, expectedUtilization: 190, expectedValue: CONTAINERS * 1900 },
  },
  MissingMetricsNoChangeLt: {
    currentReplicas: 2,
    expectedReplicas: 2,
    resource: { name: 'cpu', requests: ones(2), levels: levels(600), targetUtilization: 100, expectedUtilization: 60, expectedValue: CONTAINERS * 600 },
  },
  MissingMetricsUnreadyChange: {
    currentReplicas: 3,
    expectedReplicas: 3,
    podReadiness: ['False', 'True', 'True'],
    resource: { name: 'cpu', requests: ones(3), levels: levels(100, 450), targetUtilization: 50, expectedUtilization: 45, expectedValue: CONTAINERS * 450 },
  },
  MissingMetricsHotCpuNoChange: {
    currentReplicas: 3,
    expectedReplicas: 3,
    podStartTime: [HOT, COOL, COOL],
    resource: { name: 'cpu', requests: ones(3), levels: levels(100, 450), targetUtilization: 50, expectedUtilization: 45, expectedValue: CONTAINERS * 450 },
  },
  MissingMetricsUnreadyScaleUp: {
    currentReplicas: 3,
    expectedReplicas: 4,
    podReadiness: ['False', 'True', 'True'],
    resource: { name: 'cpu', requests: ones(3), levels: levels(100, 2000), targetUtilization: 50, expectedUtilization: 200, expectedValue: CONTAINERS * 2000 },
  },
  MissingMetricsHotCpuScaleUp: {
    currentReplicas: 3,
    expectedReplicas: 4,
    podReadiness: ['False', 'True', 'True'],
    podStartTime: [HOT, COOL, COOL],
    resource: { name: 'cpu', requests: ones(3), levels: levels(100, 2000), targetUtilization: 50, expectedUtilization: 200, expectedValue: CONTAINERS * 2000 },
  },
  MissingMetricsUnreadyScaleDown: {
    currentReplicas: 4,
    expectedReplicas: 3,
    podReadiness: ['False', 'True', 'True', 'True'],
    resource: { name: 'cpu', requests: ones(4), levels: levels(100, 100, 100), targetUtilization: 50, expectedUtilization: 10, expectedValue: CONTAINERS * 100 },
  },
  MissingMetricsScaleDownTargetOver100: {
    currentReplicas: 4,
    expectedReplicas: 2,
    podReadiness: ['False', 'True', 'True', 'True'],
    resource: { name: 'cpu', requests: ['1.0', '1.0', '2.0', '2.0'], levels: levels(200, 100, 100), targetUtilization: 300, expectedUtilization: 6, expectedValue: CONTAINERS * 100 },
  },
  DuringRollingUpdateWithMaxSurge: {
    currentReplicas: 2,
    expectedReplicas: 2,
    podPhase: ['Running', 'Running', 'Running'],
    resource: { name: 'cpu', requests: ones(3), levels: levels(100, 100), targetUtilization: 50, expectedUtilization: 10, expectedValue: CONTAINERS * 100 },
  },
  DuringRollingUpdateWithMaxSurgeCM: {
    currentReplicas: 2,
    expectedReplicas: 2,
    podPhase: ['Running', 'Running', 'Running'],
    metric: { name: 'qps', levels: [10000, 10000], targetUsage: 17000, expectedUsage: 10000, metricType: 'pods' },
  },
};

describe('ReplicaCalculator (upstream replica_calculator_test.go)', () => {
  for (const [name, tc] of Object.entries(CASES)) {
    test(`TestReplicaCalc${name}`, () => runTest(tc));
  }

  test('TestReplicaCalcComputedToleranceAlgImplementation: just past the tolerance scales down, just inside it does not', async () => {
    const startPods = 10;
    // 150 mCPU per pod, each requesting about twice that: 50 % of the requests used.
    const totalUsed = startPods * 150;
    const totalRequested = 2 * totalUsed;
    const requestedToUsed = Math.trunc(totalRequested / totalUsed);
    const perPodRequested = totalRequested / startPods;
    let target = Math.abs(1 / (requestedToUsed * (1 - TOLERANCE))) + 0.01;
    const finalCpuPercentTarget = Math.trunc(target * 100);
    const resourcesUsedRatio = totalUsed / (totalRequested * target);
    const finalPods = Math.ceil(resourcesUsedRatio * startPods);
    const jitter = [100, -100, 10, -10, 2, -2, 1, -1, 0, 0];
    const tc: Case = {
      currentReplicas: startPods,
      expectedReplicas: finalPods,
      resource: {
        name: 'cpu',
        levels: levels(...Array.from({ length: 10 }, () => totalUsed / 10)),
        requests: jitter.map((j) => `${perPodRequested + j}m`),
        targetUtilization: finalCpuPercentTarget,
        expectedUtilization: Math.trunc((totalUsed * 100) / totalRequested),
        expectedValue: (CONTAINERS * totalUsed) / 10,
      },
    };
    await runTest(tc);
    // Now within a very close margin of the tolerance: no scaling.
    target = Math.abs(1 / (requestedToUsed * (1 - TOLERANCE))) + 0.004;
    await runTest({ ...tc, expectedReplicas: startPods, resource: { ...(tc.resource as ResourceInfo), targetUtilization: Math.trunc(target * 100) } });
  });
});

describe('groupPods (upstream TestGroupPods)', () => {
  const pod = (name: string, status: Pod['status']): Pod => ({ metadata: { name }, status: { phase: 'Succeeded', ...status } });
  const at = (ms: number): string => formatTime(NOW + ms);
  const sample = (timestampMs: number, windowMs: number) => ({ value: 1, timestamp: NOW + timestampMs, window: windowMs });
  const zero = { value: 1, timestamp: GO_ZERO_TIME, window: 0 };
  const cases: { name: string; pods: Pod[]; metrics: PodMetricsInfo; resource: string; ready: number; unready: string[]; missing: string[]; ignored: string[] }[] = [
    { name: 'void', pods: [], metrics: new Map(), resource: 'cpu', ready: 0, unready: [], missing: [], ignored: [] },
    { name: 'count in a ready pod - memory', pods: [pod('bentham', {})], metrics: new Map([['bentham', sample(0, MIN)]]), resource: 'memory', ready: 1, unready: [], missing: [], ignored: [] },
    { name: 'unready a pod without ready condition - CPU', pods: [pod('lucretius', { startTime: at(0) })], metrics: new Map([['lucretius', zero]]), resource: 'cpu', ready: 0, unready: ['lucretius'], missing: [], ignored: [] },
    {
      name: 'count in a ready pod with fresh metrics during initialization period - CPU',
      pods: [pod('bentham', { startTime: at(-MIN), conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at(-30_000) }] })],
      metrics: new Map([['bentham', sample(0, 30_000)]]),
      resource: 'cpu',
      ready: 1,
      unready: [],
      missing: [],
      ignored: [],
    },
    {
      name: 'unready a ready pod without fresh metrics during initialization period - CPU',
      pods: [pod('bentham', { startTime: at(-MIN), conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at(-30_000) }] })],
      metrics: new Map([['bentham', sample(0, MIN)]]),
      resource: 'cpu',
      ready: 0,
      unready: ['bentham'],
      missing: [],
      ignored: [],
    },
    {
      name: 'unready an unready pod during initialization period - CPU',
      pods: [pod('lucretius', { startTime: at(-10 * MIN), conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: at(-9 * MIN - 54_000) }] })],
      metrics: new Map([['lucretius', zero]]),
      resource: 'cpu',
      ready: 0,
      unready: ['lucretius'],
      missing: [],
      ignored: [],
    },
    {
      name: 'count in a ready pod without fresh metrics after initialization period - CPU',
      pods: [pod('bentham', { startTime: at(-3 * MIN), conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at(-3 * MIN) }] })],
      metrics: new Map([['bentham', sample(-2 * MIN, MIN)]]),
      resource: 'cpu',
      ready: 1,
      unready: [],
      missing: [],
      ignored: [],
    },
    {
      name: 'count in an unready pod that was ready after initialization period - CPU',
      pods: [pod('lucretius', { startTime: at(-10 * MIN), conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: at(-9 * MIN) }] })],
      metrics: new Map([['lucretius', zero]]),
      resource: 'cpu',
      ready: 1,
      unready: [],
      missing: [],
      ignored: [],
    },
    {
      name: 'unready pod that has never been ready after initialization period - CPU',
      pods: [pod('lucretius', { startTime: at(-10 * MIN), conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: at(-9 * MIN - 50_000) }] })],
      metrics: new Map([['lucretius', zero]]),
      resource: 'cpu',
      ready: 1,
      unready: [],
      missing: [],
      ignored: [],
    },
    { name: 'a missing pod', pods: [pod('epicurus', { startTime: at(-3 * MIN) })], metrics: new Map(), resource: 'cpu', ready: 0, unready: [], missing: ['epicurus'], ignored: [] },
    {
      name: 'several pods',
      pods: [
        pod('lucretius', { startTime: at(0) }),
        pod('niccolo', { startTime: at(-3 * MIN), conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at(-3 * MIN) }] }),
        pod('epicurus', { startTime: at(-3 * MIN) }),
      ],
      metrics: new Map([
        ['lucretius', zero],
        ['niccolo', zero],
      ]),
      resource: 'cpu',
      ready: 1,
      unready: ['lucretius'],
      missing: ['epicurus'],
      ignored: [],
    },
    { name: 'pending pods are unreadied', pods: [pod('unscheduled', { phase: 'Pending' })], metrics: new Map(), resource: 'cpu', ready: 0, unready: ['unscheduled'], missing: [], ignored: [] },
    {
      name: 'ignore pods with deletion timestamps',
      pods: [{ metadata: { name: 'deleted', deletionTimestamp: '1970-01-01T00:00:01Z' }, status: { phase: 'Pending' } }],
      metrics: new Map([['deleted', zero]]),
      resource: 'cpu',
      ready: 0,
      unready: [],
      missing: [],
      ignored: ['deleted'],
    },
    { name: 'ignore pods in a failed state', pods: [pod('failed', { phase: 'Failed' })], metrics: new Map([['failed', zero]]), resource: 'cpu', ready: 0, unready: [], missing: [], ignored: ['failed'] },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const g = groupPods(c.pods, c.metrics, c.resource, CPU_INIT_MS, READINESS_DELAY_MS, NOW);
      assert.equal(g.readyPodCount, c.ready);
      assert.deepEqual([...g.unreadyPods].sort(), [...c.unready].sort());
      assert.deepEqual([...g.missingPods].sort(), [...c.missing].sort());
      assert.deepEqual([...g.ignoredPods].sort(), [...c.ignored].sort());
    });
  }
});

describe('calculatePodRequests (upstream TestCalculatePodRequests)', () => {
  const withContainers = (containers: NonNullable<Pod['spec']>['containers'], initContainers?: NonNullable<Pod['spec']>['initContainers']): Pod[] => [
    { metadata: { name: 'test-pod', namespace: NAMESPACE }, spec: { containers, ...(initContainers ? { initContainers } : {}) } },
  ];
  const cpu = (milli: number) => ({ requests: { cpu: `${milli}m` } });

  test('void', () => assert.deepEqual(calculatePodRequests([], '', 'cpu'), new Map()));
  test('pod with regular containers', () => {
    const pods = withContainers([
      { name: 'container1', resources: cpu(100) },
      { name: 'container2', resources: cpu(50) },
    ]);
    assert.deepEqual(calculatePodRequests(pods, '', 'cpu'), new Map([['test-pod', 150]]));
    assert.deepEqual(calculatePodRequests(pods, 'container1', 'cpu'), new Map([['test-pod', 100]]), 'calculate requests with special container');
  });
  test('container missing requests', () => {
    assert.throws(() => calculatePodRequests(withContainers([{ name: 'container1' }]), '', 'cpu'), { message: 'missing request for cpu in container container1 of Pod test-pod' });
  });
  test('pod with restartable init containers', () => {
    const pods = withContainers(
      [{ name: 'container1', resources: cpu(100) }],
      [
        { name: 'init-container1', resources: cpu(20) },
        { name: 'restartable-container1', restartPolicy: 'Always', resources: cpu(50) },
      ],
    );
    assert.deepEqual(calculatePodRequests(pods, '', 'cpu'), new Map([['test-pod', 150]]));
  });
});
