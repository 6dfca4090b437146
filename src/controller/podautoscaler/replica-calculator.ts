/**
 * The replica calculation: how many replicas a metric asks for (kubernetes/kubernetes
 * pkg/controller/podautoscaler/replica_calculator.go, v1.33).
 *
 * - Resource metrics (Utilization / AverageValue, whole pod or one container): the pods of the
 *   target's selector are grouped by {@link groupPods} into ready, unready, missing (no sample) and
 *   ignored (deleted or Failed). With nothing unready or missing the answer is `ceil(ratio × ready)`,
 *   unless `|1 − ratio| ≤ tolerance`. Otherwise the ratio is recomputed with missing pods counted at
 *   100 % of their request (or the target, if above 100 %) on a scale-down and 0 on a scale-up, and
 *   unready pods at 0 on a scale-up; a recomputed ratio within tolerance or in the other direction
 *   keeps the current count.
 * - Pods metrics: the same over plain values, missing pods counting as the target on a scale-down.
 * - Object and External metrics: a value over the target times the ready pods, or (AverageValue) the
 *   total over the per-pod target.
 *
 * Times are ms from the Clock; values milli-units. Errors carry upstream's messages.
 */
import type { CrossVersionObjectReference } from 'kubernetes-types/autoscaling/v2.js';
import type { LabelSelector, Pod } from '../../api/index.js';
import type { Lister } from '../../informers/index.js';
import { selectorFromLabelSelector, type Selector } from '../../machinery/labels/index.js';
import { parseQuantity } from '../../machinery/quantity/index.js';
import { parseTime, type Clock } from '../../util/clock/index.js';
import { getPodReadyCondition, isPodReady } from '../controller-utils.js';
import { GO_ZERO_TIME, type MetricsClient, type PodMetricsInfo, type PodMetricsResult } from './metrics-client.js';
import { goLabelSelector } from './status.js';
import { getMetricUsageRatio, getResourceUtilizationRatio } from './utilization.js';

const timeOf = (s: string | undefined): number => parseTime(s) ?? GO_ZERO_TIME;
const errText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Options of {@link ReplicaCalculator}. */
export interface ReplicaCalculatorOptions {
  metricsClient: MetricsClient;
  podLister: Lister<Pod>;
  clock: Clock;
  /** `--horizontal-pod-autoscaler-tolerance` (default 0.1): ratios within 1 ± tolerance keep the count. */
  tolerance: number;
  /** `--horizontal-pod-autoscaler-cpu-initialization-period`, ms (default 5 min). */
  cpuInitializationPeriodMs: number;
  /** `--horizontal-pod-autoscaler-initial-readiness-delay`, ms (default 30 s). */
  delayOfInitialReadinessStatusMs: number;
}

/** A resource-utilization proposal: replicas, the utilization percentage, the raw average (milli), the sample time (ms). */
export interface ResourceReplicas {
  replicas: number;
  utilization: number;
  rawUtilization: number;
  timestamp: number;
}

/** A plain-metric proposal: replicas, the usage (milli) and the sample time (ms; {@link GO_ZERO_TIME} when unknown). */
export interface MetricReplicas {
  replicas: number;
  usage: number;
  timestamp: number;
}

/** How {@link groupPods} sorted the pods. */
export interface PodGroups {
  readyPodCount: number;
  unreadyPods: Set<string>;
  missingPods: Set<string>;
  ignoredPods: Set<string>;
}

/**
 * upstream `groupPods`. Deleted and Failed pods are ignored; Pending pods are unready; pods without a
 * sample are missing. For cpu only, a running pod is also unready when it has no Ready condition or
 * start time; or, within `cpuInitializationPeriodMs` of its start, when it is not Ready or its sample
 * does not cover a whole window since the last readiness change; or, after that period, when it is
 * not Ready and has never been Ready (its last transition came within
 * `delayOfInitialReadinessStatusMs` of its start).
 */
export function groupPods(pods: readonly Pod[], metrics: PodMetricsInfo, resource: string, cpuInitializationPeriodMs: number, delayOfInitialReadinessStatusMs: number, now: number): PodGroups {
  const out: PodGroups = { readyPodCount: 0, unreadyPods: new Set(), missingPods: new Set(), ignoredPods: new Set() };
  for (const pod of pods) {
    const name = pod.metadata?.name ?? '';
    if (pod.metadata?.deletionTimestamp || pod.status?.phase === 'Failed') {
      out.ignoredPods.add(name);
      continue;
    }
    if (pod.status?.phase === 'Pending') {
      out.unreadyPods.add(name);
      continue;
    }
    const metric = metrics.get(name);
    if (!metric) {
      out.missingPods.add(name);
      continue;
    }
    if (resource === 'cpu') {
      const condition = getPodReadyCondition(pod);
      const startTime = pod.status?.startTime;
      let unready: boolean;
      if (!condition || !startTime) {
        unready = true;
      } else {
        const start = timeOf(startTime);
        const lastTransition = timeOf(condition.lastTransitionTime);
        if (start + cpuInitializationPeriodMs > now) {
          // Still initializing: its cpu is not trusted unless Ready for a whole metric window.
          unready = condition.status === 'False' || metric.timestamp < lastTransition + metric.window;
        } else {
          // Unready and never became ready after starting.
          unready = condition.status === 'False' && start + delayOfInitialReadinessStatusMs > lastTransition;
        }
      }
      if (unready) {
        out.unreadyPods.add(name);
        continue;
      }
    }
    out.readyPodCount++;
  }
  return out;
}

/**
 * upstream `calculatePodRequests`: each pod's request of `resource` (milli-units), summed over its
 * containers and restartable (sidecar) init containers, or only `container`'s when set.
 * @throws Error `missing request for <resource> in container <c> of Pod <pod>`
 */
export function calculatePodRequests(pods: readonly Pod[], container: string, resource: string): Map<string, number> {
  const requests = new Map<string, number>();
  for (const pod of pods) {
    let podSum = 0;
    const containers = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always')];
    for (const c of containers) {
      if (container !== '' && container !== c.name) continue;
      const request = c.resources?.requests?.[resource];
      if (request === undefined) throw new Error(`missing request for ${resource} in container ${c.name} of Pod ${pod.metadata?.name ?? ''}`);
      podSum += parseQuantity(request).milliValue();
    }
    requests.set(pod.metadata?.name ?? '', podSum);
  }
  return requests;
}

function removeMetricsForPods(metrics: PodMetricsInfo, pods: ReadonlySet<string>): void {
  for (const p of pods) metrics.delete(p);
}

/** See the module documentation. */
export class ReplicaCalculator {
  private readonly metricsClient: MetricsClient;
  private readonly podLister: Lister<Pod>;
  private readonly clock: Clock;
  private readonly tolerance: number;
  private readonly cpuInitializationPeriodMs: number;
  private readonly delayOfInitialReadinessStatusMs: number;

  constructor(opts: ReplicaCalculatorOptions) {
    this.metricsClient = opts.metricsClient;
    this.podLister = opts.podLister;
    this.clock = opts.clock;
    this.tolerance = opts.tolerance;
    this.cpuInitializationPeriodMs = opts.cpuInitializationPeriodMs;
    this.delayOfInitialReadinessStatusMs = opts.delayOfInitialReadinessStatusMs;
  }

  /** `|1 − ratio| ≤ tolerance`: too small a change to act on. */
  private withinTolerance(usageRatio: number): boolean {
    return Math.abs(1 - usageRatio) <= this.tolerance;
  }

  /**
   * The pods of `selector` in `namespace`.
   * @throws Error `no pods returned by selector while calculating replica count`
   */
  private listPods(namespace: string, selector: Selector): Pod[] {
    const pods = this.podLister.namespace(namespace).list(selector);
    if (pods.length === 0) throw new Error('no pods returned by selector while calculating replica count');
    return pods;
  }

  /**
   * The pods of `selector` grouped by {@link groupPods}, with the samples of ignored and unready pods
   * dropped from `metrics` (mutated).
   * @throws Error when no pod is selected, or no sample is left
   */
  private groupAndFilter(metrics: PodMetricsInfo, namespace: string, selector: Selector, resource: string): { pods: Pod[]; groups: PodGroups } {
    const pods = this.listPods(namespace, selector);
    const groups = groupPods(pods, metrics, resource, this.cpuInitializationPeriodMs, this.delayOfInitialReadinessStatusMs, this.clock.now());
    removeMetricsForPods(metrics, groups.ignoredPods);
    removeMetricsForPods(metrics, groups.unreadyPods);
    if (metrics.size === 0) throw new Error('did not receive metrics for targeted pods (pods might be unready)');
    return { pods, groups };
  }

  /**
   * The rules shared by resource and plain metrics once the first ratio is known (see the module
   * documentation): `ratioOf` recomputes the ratio over `metrics` (mutated) after missing pods are
   * filled in — with `missingOnScaleDown(pod)` on a scale-down, 0 on a scale-up — and unready pods
   * with 0 on a scale-up.
   */
  private replicasFromRatio(
    groups: PodGroups,
    metrics: PodMetricsInfo,
    currentReplicas: number,
    usageRatio: number,
    ratioOf: (m: PodMetricsInfo) => number,
    missingOnScaleDown: (pod: string) => number,
  ): number {
    const { readyPodCount, unreadyPods, missingPods } = groups;
    const scaleUpWithUnready = unreadyPods.size > 0 && usageRatio > 1;
    if (!scaleUpWithUnready && missingPods.size === 0) {
      if (this.withinTolerance(usageRatio)) return currentReplicas;
      return Math.ceil(usageRatio * readyPodCount);
    }
    const sample = (value: number) => ({ timestamp: GO_ZERO_TIME, window: 0, value });
    if (usageRatio < 1) for (const p of missingPods) metrics.set(p, sample(missingOnScaleDown(p)));
    else if (usageRatio > 1) for (const p of missingPods) metrics.set(p, sample(0));
    if (scaleUpWithUnready) for (const p of unreadyPods) metrics.set(p, sample(0));

    const newUsageRatio = ratioOf(metrics);
    // Too small a change, or the assumptions turned the direction round.
    if (this.withinTolerance(newUsageRatio) || (usageRatio < 1 && newUsageRatio > 1) || (usageRatio > 1 && newUsageRatio < 1)) return currentReplicas;
    const newReplicas = Math.ceil(newUsageRatio * metrics.size);
    // Counting more pods than before would turn the direction round.
    if ((newUsageRatio < 1 && newReplicas > currentReplicas) || (newUsageRatio > 1 && newReplicas < currentReplicas)) return currentReplicas;
    return newReplicas;
  }

  /**
   * The samples of `resource`.
   * @throws Error `unable to get metrics for resource <resource>: …`
   */
  private async resourceMetric(resource: string, namespace: string, selector: Selector, container: string): Promise<PodMetricsResult> {
    try {
      return await this.metricsClient.getResourceMetric(resource, namespace, selector, container);
    } catch (err) {
      throw new Error(`unable to get metrics for resource ${resource}: ${errText(err)}`);
    }
  }

  /**
   * upstream `GetResourceReplicas`: replicas for a target utilization (percentage of request) of
   * `resource`, over the pods of `selector`, summed per pod or for `container` alone. Missing pods
   * count at 100 % of their request (or the target, if higher) on a scale-down.
   * @throws Error when metrics, pods or requests are missing (upstream's messages)
   */
  async getResourceReplicas(currentReplicas: number, targetUtilization: number, resource: string, namespace: string, selector: Selector, container: string): Promise<ResourceReplicas> {
    const { metrics, timestamp } = await this.resourceMetric(resource, namespace, selector, container);
    const { pods, groups } = this.groupAndFilter(metrics, namespace, selector, resource);
    const requests = calculatePodRequests(pods, container, resource);
    const { usageRatio, utilization, rawAverageValue: rawUtilization } = getResourceUtilizationRatio(metrics, requests, targetUtilization);
    const fallbackUtilization = Math.max(100, targetUtilization);
    const replicas = this.replicasFromRatio(
      groups,
      metrics,
      currentReplicas,
      usageRatio,
      (m) => getResourceUtilizationRatio(m, requests, targetUtilization).usageRatio,
      (p) => Math.trunc(((requests.get(p) ?? 0) * fallbackUtilization) / 100),
    );
    return { replicas, utilization, rawUtilization, timestamp };
  }

  /**
   * upstream `GetRawResourceReplicas`: replicas for a target average usage (milli-units) of `resource`.
   * @throws Error when metrics or pods are missing
   */
  async getRawResourceReplicas(currentReplicas: number, targetUsage: number, resource: string, namespace: string, selector: Selector, container: string): Promise<MetricReplicas> {
    const { metrics, timestamp } = await this.resourceMetric(resource, namespace, selector, container);
    return { ...this.calcPlainMetricReplicas(metrics, currentReplicas, targetUsage, namespace, selector, resource), timestamp };
  }

  /**
   * upstream `GetMetricReplicas`: replicas for a target average (milli-units) of a per-pod custom metric.
   * @throws Error when metrics or pods are missing
   */
  async getMetricReplicas(currentReplicas: number, targetUsage: number, metricName: string, namespace: string, selector: Selector, metricSelector: Selector): Promise<MetricReplicas> {
    let result: PodMetricsResult;
    try {
      result = await this.metricsClient.getRawMetric(metricName, namespace, selector, metricSelector);
    } catch (err) {
      throw new Error(`unable to get metric ${metricName}: ${errText(err)}`);
    }
    return { ...this.calcPlainMetricReplicas(result.metrics, currentReplicas, targetUsage, namespace, selector, ''), timestamp: result.timestamp };
  }

  /**
   * upstream `calcPlainMetricReplicas`: {@link getResourceReplicas}'s rules over plain values; a
   * missing pod counts exactly at the target on a scale-down.
   */
  private calcPlainMetricReplicas(metrics: PodMetricsInfo, currentReplicas: number, targetUsage: number, namespace: string, selector: Selector, resource: string): { replicas: number; usage: number } {
    const { groups } = this.groupAndFilter(metrics, namespace, selector, resource);
    const { usageRatio, usage } = getMetricUsageRatio(metrics, targetUsage);
    const replicas = this.replicasFromRatio(
      groups,
      metrics,
      currentReplicas,
      usageRatio,
      (m) => getMetricUsageRatio(m, targetUsage).usageRatio,
      () => targetUsage,
    );
    return { replicas, usage };
  }

  /**
   * upstream `GetObjectMetricReplicas`: replicas for a target value (milli-units) of an object's metric,
   * scaled by the ready pods.
   * @throws Error when the metric or the pods cannot be read
   */
  async getObjectMetricReplicas(currentReplicas: number, targetUsage: number, metricName: string, namespace: string, objectRef: CrossVersionObjectReference, selector: Selector, metricSelector: Selector): Promise<MetricReplicas> {
    let usage: number;
    try {
      ({ value: usage } = await this.metricsClient.getObjectMetric(metricName, namespace, objectRef, metricSelector));
    } catch (err) {
      throw new Error(`unable to get metric ${metricName}: ${errText(err)} on ${objectRef.kind} ${namespace}/${objectRef.name}`);
    }
    const replicas = this.getUsageRatioReplicaCount(currentReplicas, usage / targetUsage, namespace, selector);
    // Upstream returns the zero time here: the object's timestamp is not passed on.
    return { replicas, usage, timestamp: GO_ZERO_TIME };
  }

  /**
   * upstream `getUsageRatioReplicaCount`: `ceil(ratio × ready pods)` unless within tolerance; with no
   * current replicas (scale from zero), `ceil(ratio)`.
   */
  private getUsageRatioReplicaCount(currentReplicas: number, usageRatio: number, namespace: string, selector: Selector): number {
    if (currentReplicas === 0) return Math.ceil(usageRatio);
    if (this.withinTolerance(usageRatio)) return currentReplicas;
    let readyPodCount: number;
    try {
      readyPodCount = this.listPods(namespace, selector).filter((p) => p.status?.phase === 'Running' && isPodReady(p)).length;
    } catch (err) {
      throw new Error(`unable to calculate ready pods: ${errText(err)}`);
    }
    return Math.ceil(usageRatio * readyPodCount);
  }

  /**
   * upstream `GetObjectPerPodMetricReplicas`: replicas for a target average per pod (milli-units) of an
   * object's metric: `ceil(value / target)` unless within tolerance of the current count.
   * @throws Error when the metric cannot be read
   */
  async getObjectPerPodMetricReplicas(statusReplicas: number, targetAverageUsage: number, metricName: string, namespace: string, objectRef: CrossVersionObjectReference, metricSelector: Selector): Promise<MetricReplicas> {
    let value: number;
    let timestamp: number;
    try {
      ({ value, timestamp } = await this.metricsClient.getObjectMetric(metricName, namespace, objectRef, metricSelector));
    } catch (err) {
      throw new Error(`unable to get metric ${metricName}: ${errText(err)} on ${objectRef.kind} ${namespace}/${objectRef.name}`);
    }
    return { ...this.perPodReplicas(statusReplicas, value, targetAverageUsage), timestamp };
  }

  /** The per-pod (AverageValue) rule of Object and External metrics. */
  private perPodReplicas(statusReplicas: number, total: number, targetPerPod: number): { replicas: number; usage: number } {
    let replicas = statusReplicas;
    const usageRatio = total / (targetPerPod * replicas);
    if (Math.abs(1 - usageRatio) > this.tolerance) replicas = Math.ceil(total / targetPerPod);
    return { replicas, usage: Math.ceil(total / statusReplicas) };
  }

  /**
   * upstream `GetExternalMetricReplicas`: replicas for a target value (milli-units) of the sum of an
   * external metric's series, scaled by the ready pods of `podSelector`.
   * @throws Error when the metric or the pods cannot be read
   */
  async getExternalMetricReplicas(currentReplicas: number, targetUsage: number, metricName: string, namespace: string, metricSelector: LabelSelector | undefined, podSelector: Selector): Promise<MetricReplicas> {
    const usage = await this.externalTotal(metricName, namespace, metricSelector);
    const replicas = this.getUsageRatioReplicaCount(currentReplicas, usage.total / targetUsage, namespace, podSelector);
    // The zero time, as upstream's.
    return { replicas, usage: usage.total, timestamp: GO_ZERO_TIME };
  }

  /**
   * upstream `GetExternalPerPodMetricReplicas`: replicas for a target average per pod of an external
   * metric's total.
   * @throws Error when the metric cannot be read
   */
  async getExternalPerPodMetricReplicas(statusReplicas: number, targetUsagePerPod: number, metricName: string, namespace: string, metricSelector: LabelSelector | undefined): Promise<MetricReplicas> {
    const usage = await this.externalTotal(metricName, namespace, metricSelector);
    return { ...this.perPodReplicas(statusReplicas, usage.total, targetUsagePerPod), timestamp: usage.timestamp };
  }

  private async externalTotal(metricName: string, namespace: string, metricSelector: LabelSelector | undefined): Promise<{ total: number; timestamp: number }> {
    const selector = selectorFromLabelSelector(metricSelector);
    try {
      const { values, timestamp } = await this.metricsClient.getExternalMetric(metricName, namespace, selector);
      return { total: values.reduce((a, b) => a + b, 0), timestamp };
    } catch (err) {
      throw new Error(`unable to get external metric ${namespace}/${metricName}/${goLabelSelector(metricSelector)}: ${errText(err)}`);
    }
  }
}
