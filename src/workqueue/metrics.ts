/**
 * The work queues' Prometheus metrics, with upstream's names, labels, help texts and buckets
 * (k8s.io/component-base/metrics/prometheus/workqueue/metrics.go, which kube-controller-manager
 * registers as client-go's workqueue MetricsProvider; client-go util/workqueue/metrics.go says when
 * each is updated). Every metric has the one label `name`, the queue's name (`deployment`,
 * `replicaset`, …); a queue without a name has no metrics, as upstream's.
 *
 * Counters and histograms are updated by the queue as upstream's are. The three gauges are computed
 * at scrape time from the live queues instead of being kept up to date on every operation
 * (upstream: `depth.Inc()/Dec()` on add/get, the other two set every 500 ms):
 * - `workqueue_depth`: the items added and not yet handed out — upstream's adds minus gets, which is
 *   exactly the queue's dirty set;
 * - `workqueue_unfinished_work_seconds` and `workqueue_longest_running_processor_seconds`: from the
 *   times the items being processed were handed out.
 * Queues of the same name (two clusters in one test process) add up; the longest runner is the
 * longest of them. A queue stops being reported when it is shut down.
 */
import { CounterVec, exponentialBuckets, GaugeVec, HistogramVec, LiveSet } from '../util/metrics/index.js';

/** `ExponentialBuckets(10e-9, 10, 10)`: 10 ns … 10 s. */
const WORKQUEUE_BUCKETS = exponentialBuckets(10e-9, 10, 10);

export const addsTotal = new CounterVec({
  name: 'workqueue_adds_total',
  help: 'Total number of adds handled by workqueue',
  stabilityLevel: 'ALPHA',
  labelNames: ['name'] as const,
});

export const queueDuration = new HistogramVec({
  name: 'workqueue_queue_duration_seconds',
  help: 'How long in seconds an item stays in workqueue before being requested.',
  stabilityLevel: 'ALPHA',
  labelNames: ['name'] as const,
  buckets: WORKQUEUE_BUCKETS,
});

export const workDuration = new HistogramVec({
  name: 'workqueue_work_duration_seconds',
  help: 'How long in seconds processing an item from workqueue takes.',
  stabilityLevel: 'ALPHA',
  labelNames: ['name'] as const,
  buckets: WORKQUEUE_BUCKETS,
});

export const retriesTotal = new CounterVec({
  name: 'workqueue_retries_total',
  help: 'Total number of retries handled by workqueue',
  stabilityLevel: 'ALPHA',
  labelNames: ['name'] as const,
});

/** What a live queue reports at scrape time. */
export interface QueueGauges {
  readonly name: string;
  /** Items added and not yet handed out. */
  depth(): number;
  /** Seconds each item being processed has been processing, per item. */
  processingAges(): Iterable<number>;
}

/** The queues with a name that are not shut down. */
export const liveQueues = new LiveSet<QueueGauges>();

/** Sums (or takes the max of) one number per live queue, by queue name. */
function byName(gauge: GaugeVec<'name'>, valueOf: (q: QueueGauges) => number, combine: (a: number, b: number) => number): void {
  const totals = new Map<string, number>();
  for (const q of liveQueues) {
    const v = valueOf(q);
    const prev = totals.get(q.name);
    totals.set(q.name, prev === undefined ? v : combine(prev, v));
  }
  for (const [name, v] of totals) gauge.with(name).set(v);
}

function sumOf(ages: Iterable<number>): number {
  let total = 0;
  for (const a of ages) total += a;
  return total;
}

function maxOf(ages: Iterable<number>): number {
  let max = 0;
  for (const a of ages) if (a > max) max = a;
  return max;
}

export const depthGauge = new GaugeVec({
  name: 'workqueue_depth',
  help: 'Current depth of workqueue',
  stabilityLevel: 'ALPHA',
  labelNames: ['name'] as const,
  collect: (g) => byName(g, (q) => q.depth(), (a, b) => a + b),
});

export const unfinishedWorkSeconds = new GaugeVec({
  name: 'workqueue_unfinished_work_seconds',
  help:
    'How many seconds of work has done that is in progress and hasn\'t been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.',
  stabilityLevel: 'ALPHA',
  labelNames: ['name'] as const,
  collect: (g) => byName(g, (q) => sumOf(q.processingAges()), (a, b) => a + b),
});

export const longestRunningProcessorSeconds = new GaugeVec({
  name: 'workqueue_longest_running_processor_seconds',
  help: 'How many seconds has the longest running processor for workqueue been running.',
  stabilityLevel: 'ALPHA',
  labelNames: ['name'] as const,
  collect: (g) => byName(g, (q) => maxOf(q.processingAges()), Math.max),
});
