/**
 * Job status conditions: types, upstream's reasons and messages, and the set-or-update helper.
 *
 * Follows kubernetes/kubernetes v1.33 pkg/controller/job/job_controller.go (`newCondition`,
 * `ensureJobConditionStatus`, `newFailedConditionForFailureTarget`, `IsJobFinished`) and the
 * reasons of staging/src/k8s.io/api/batch/v1/types.go.
 */
import type { JobCondition, JobStatus } from 'kubernetes-types/batch/v1.js';
import { formatTime } from '../../util/clock/index.js';

/** Finalizer on every Job pod until the Job has counted it. */
export const JOB_TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';
/** The value of `spec.managedBy` (or its absence) that this controller handles. */
export const JOB_CONTROLLER_NAME = 'kubernetes.io/job-controller';
/** `MaxUncountedPods`: UIDs held in `status.uncountedTerminatedPods` at most. */
export const MAX_UNCOUNTED_PODS = 500;
/** `MaxPodCreateDeletePerSync`. */
export const MAX_POD_CREATE_DELETE_PER_SYNC = 500;

/** Condition reasons (batch/v1 `JobReason*` and the controller's own). */
export const REASON = {
  backoffLimitExceeded: 'BackoffLimitExceeded',
  deadlineExceeded: 'DeadlineExceeded',
  podFailurePolicy: 'PodFailurePolicy',
  maxFailedIndexesExceeded: 'MaxFailedIndexesExceeded',
  failedIndexes: 'FailedIndexes',
  successPolicy: 'SuccessPolicy',
  completionsReached: 'CompletionsReached',
  suspended: 'JobSuspended',
  resumed: 'JobResumed',
} as const;

/** Condition messages of upstream. */
export const MESSAGE = {
  backoffLimitExceeded: 'Job has reached the specified backoff limit',
  deadlineExceeded: 'Job was active longer than specified deadline',
  maxFailedIndexesExceeded: 'Job has exceeded the specified maximal number of failed indexes',
  failedIndexes: 'Job has failed indexes',
  completionsReached: 'Reached expected number of succeeded pods',
  suspended: 'Job suspended',
  resumed: 'Job resumed',
} as const;

/** A True/False condition of `type` stamped `now` (ms). */
export function newCondition(type: string, status: 'True' | 'False', reason: string, message: string, now: number): JobCondition {
  const t = formatTime(now);
  return { type, status, reason, message, lastProbeTime: t, lastTransitionTime: t };
}

/** The condition of `type` with status True, if any. */
export function findTrueCondition(status: JobStatus | undefined, type: string): JobCondition | undefined {
  return status?.conditions?.find((c) => c.type === type && c.status === 'True');
}

/**
 * `ensureJobConditionStatus`: sets `cond` in `status.conditions` — a new condition is appended; an
 * existing one of the type changes (with a new transition time) only when its status differs, and
 * otherwise keeps its reason/message unless they differ. Returns whether anything changed.
 */
export function ensureCondition(status: JobStatus, cond: JobCondition): boolean {
  const conds = (status.conditions ??= []);
  const existing = conds.find((c) => c.type === cond.type);
  if (!existing) {
    // A False condition of a type never set adds nothing (upstream skips it).
    if (cond.status !== 'True') return false;
    conds.push(cond);
    return true;
  }
  if (existing.status !== cond.status) {
    Object.assign(existing, cond);
    return true;
  }
  if (existing.reason !== cond.reason || existing.message !== cond.message) {
    existing.reason = cond.reason;
    existing.message = cond.message;
    existing.lastProbeTime = cond.lastProbeTime;
    return true;
  }
  return false;
}
