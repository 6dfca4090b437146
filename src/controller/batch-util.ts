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

/**
 * The status a Job controller writes when a Job finishes at `at` (RFC 3339): `startTime`, the
 * `SuccessCriteriaMet`+`Complete` or `FailureTarget`+`Failed` conditions, and `completionTime` for
 * Complete, as the API's Job status validation requires. Tests of the controllers that watch Jobs
 * finish them with it, since no Job runs there.
 */
export function finishedJobStatus(type: 'Complete' | 'Failed', at: string, startTime: string = at): NonNullable<Job['status']> {
  const condition = (t: string): JobCondition => ({ type: t, status: 'True', lastTransitionTime: at });
  return type === 'Complete'
    ? { startTime, completionTime: at, succeeded: 1, conditions: [condition('SuccessCriteriaMet'), condition('Complete')] }
    : { startTime, failed: 1, conditions: [condition('FailureTarget'), condition('Failed')] };
}
