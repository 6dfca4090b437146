/**
 * Job-state helpers shared by the controllers that watch Jobs without running them (CronJob,
 * TTL-after-finished): upstream pkg/controller/job/util/utils.go (`FinishedCondition`,
 * `IsJobFinished`, `IsJobSucceeded`).
 */
import type { Job, JobCondition } from '../api/index.js';

/**
 * `FinishedCondition`: the first `Complete` or `Failed` condition whose status is `True`, or
 * undefined while the Job still runs.
 */
export function finishedCondition(job: Job): JobCondition | undefined {
  return job.status?.conditions?.find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
}

/** `IsJobFinished`: the Job has a true `Complete` or `Failed` condition. */
export function isJobFinished(job: Job): boolean {
  return finishedCondition(job) !== undefined;
}

/** `IsJobSucceeded`: the Job has a true `Complete` condition. */
export function isJobSucceeded(job: Job): boolean {
  return job.status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') ?? false;
}
