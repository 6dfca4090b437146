/**
 * Usage ratios from pod samples (kubernetes/kubernetes pkg/controller/podautoscaler/metrics/utilization.go).
 * Utilization is computed from totals — Σusage·100 / Σrequests, truncated to an integer percentage —
 * before it is divided by the target, as upstream does; values are milli-units.
 */
import type { PodMetricsInfo } from './metrics-client.js';

/** What {@link getResourceUtilizationRatio} computes. */
export interface UtilizationRatio {
  /** currentUtilization / targetUtilization. */
  usageRatio: number;
  /** Integer percentage of the requests used, truncated. */
  utilization: number;
  /** Average usage per pod that has a request, milli-units, truncated. */
  rawAverageValue: number;
}

/**
 * upstream `GetResourceUtilizationRatio`: the pods of `metrics` that have a request (others are
 * extraneous samples) give the utilization percentage and the average value.
 * @throws Error `no metrics returned matched known pods` when no sample has a request.
 */
export function getResourceUtilizationRatio(metrics: PodMetricsInfo, requests: ReadonlyMap<string, number>, targetUtilization: number): UtilizationRatio {
  let metricsTotal = 0;
  let requestsTotal = 0;
  let numEntries = 0;
  for (const [podName, metric] of metrics) {
    const request = requests.get(podName);
    // Missing requests are checked elsewhere: a sample without one is an extraneous metric.
    if (request === undefined) continue;
    metricsTotal += metric.value;
    requestsTotal += request;
    numEntries++;
  }
  // The requests and the samples may be disjoint sets of pods.
  if (requestsTotal === 0) throw new Error('no metrics returned matched known pods');
  const utilization = Math.trunc((metricsTotal * 100) / requestsTotal);
  return { usageRatio: utilization / targetUtilization, utilization, rawAverageValue: Math.trunc(metricsTotal / numEntries) };
}

/**
 * upstream `GetMetricUsageRatio`: the average sample (truncated) over the target. `metrics` must not
 * be empty.
 */
export function getMetricUsageRatio(metrics: PodMetricsInfo, targetUsage: number): { usageRatio: number; usage: number } {
  let total = 0;
  for (const m of metrics.values()) total += m.value;
  const usage = Math.trunc(total / metrics.size);
  return { usageRatio: usage / targetUsage, usage };
}
