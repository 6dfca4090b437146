/**
 * The scheduler's Prometheus metrics, with upstream's names, labels, help texts and buckets
 * (pkg/scheduler/metrics/metrics.go and profile_metrics.go, v1.33):
 *
 * - `scheduler_schedule_attempts_total{result, profile}` and
 *   `scheduler_scheduling_attempt_duration_seconds{result, profile}`: one per scheduling attempt,
 *   `result` `scheduled` (bound), `unschedulable` (no node fits) or `error`, `profile`
 *   `default-scheduler`; the duration runs from the pod's pop to the end of its binding (scheduled)
 *   or to the failure.
 * - `scheduler_pod_scheduling_sli_duration_seconds{attempts}`: for a pod bound, the time since it
 *   first entered the queue, by its attempts (`15+` from 15). Upstream's older
 *   `scheduler_pod_scheduling_duration_seconds` was deprecated in 1.29 and is gone in 1.33
 *   (kubernetes/kubernetes#128906), so only the SLI one is exposed, as a v1.33 scheduler does.
 * - `scheduler_pod_scheduling_attempts`: the attempts a bound pod took.
 * - `scheduler_pending_pods{queue}`: `active`, `backoff` and `unschedulable`, read from the live
 *   scheduling queues at scrape time. Upstream's fourth value, `gated`, is not reported: pods with
 *   scheduling gates never enter kubeplane's queue, so it does not know how many there are.
 */
import { CounterVec, exponentialBuckets, GaugeVec, HistogramVec, LiveSet, type CounterChild, type HistogramChild } from '../util/metrics/index.js';

export const SCHEDULED_RESULT = 'scheduled' as const;
export const UNSCHEDULABLE_RESULT = 'unschedulable' as const;
export const ERROR_RESULT = 'error' as const;

export const scheduleAttempts = new CounterVec({
  name: 'scheduler_schedule_attempts_total',
  help: "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could not be scheduled, while 'error' means an internal scheduler problem.",
  stabilityLevel: 'STABLE',
  labelNames: ['result', 'profile'] as const,
});

export const schedulingAttemptDuration = new HistogramVec({
  name: 'scheduler_scheduling_attempt_duration_seconds',
  help: 'Scheduling attempt latency in seconds (scheduling algorithm + binding)',
  stabilityLevel: 'STABLE',
  labelNames: ['result', 'profile'] as const,
  buckets: exponentialBuckets(0.001, 2, 15),
});

export const podSchedulingSLIDuration = new HistogramVec({
  name: 'scheduler_pod_scheduling_sli_duration_seconds',
  help: 'E2e latency for a pod being scheduled, from the time the pod enters the scheduling queue and might involve multiple scheduling attempts.',
  stabilityLevel: 'BETA',
  labelNames: ['attempts'] as const,
  buckets: exponentialBuckets(0.01, 2, 20),
});

export const podSchedulingAttempts = new HistogramVec({
  name: 'scheduler_pod_scheduling_attempts',
  help: 'Number of attempts to successfully schedule a pod.',
  stabilityLevel: 'STABLE',
  labelNames: [] as const,
  buckets: exponentialBuckets(1, 2, 5),
});

/** What a live scheduling queue reports at scrape time. */
export interface PendingPods {
  stats(): { active: number; backoff: number; unschedulable: number };
}

/** The scheduling queues of the running schedulers. */
export const liveSchedulingQueues = new LiveSet<PendingPods>();

export const pendingPods = new GaugeVec({
  name: 'scheduler_pending_pods',
  help: "Number of pending pods, by the queue type. 'active' means number of pods in activeQ; 'backoff' means number of pods in backoffQ; 'unschedulable' means number of pods in unschedulablePods that the scheduler attempted to schedule and failed; 'gated' is the number of unschedulable pods that the scheduler never attempted to schedule because they are gated.",
  stabilityLevel: 'STABLE',
  labelNames: ['queue'] as const,
  collect: (g) => {
    for (const q of liveSchedulingQueues) {
      const s = q.stats();
      g.with('active').inc(s.active);
      g.with('backoff').inc(s.backoff);
      g.with('unschedulable').inc(s.unschedulable);
    }
  },
});

/** upstream `getAttemptsLabel`: the attempts, capped at `15+` to bound the label's values. */
export function attemptsLabel(attempts: number): string {
  return attempts >= 15 ? '15+' : String(attempts);
}

/** What a scheduling attempt ended with. */
export type AttemptResult = typeof SCHEDULED_RESULT | typeof UNSCHEDULABLE_RESULT | typeof ERROR_RESULT;

/** The children of one profile's attempt results (`observeScheduleAttemptAndLatency`), made at first use as upstream's series. */
export class ProfileMetrics {
  private readonly attempts = new Map<AttemptResult, { total: CounterChild; duration: HistogramChild }>();

  constructor(private readonly profile: string) {}

  /** `PodScheduled`, `PodUnschedulable`, `PodScheduleError`: one attempt that took `seconds`. */
  attempt(result: AttemptResult, seconds: number): void {
    let m = this.attempts.get(result);
    if (!m) {
      m = { total: scheduleAttempts.with(result, this.profile), duration: schedulingAttemptDuration.with(result, this.profile) };
      this.attempts.set(result, m);
    }
    m.duration.observe(seconds);
    m.total.inc();
  }
}
