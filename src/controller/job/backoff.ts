/**
 * Exponential back-off of pod re-creation after failures.
 *
 * Follows kubernetes/kubernetes v1.33 pkg/controller/job/backoff_utils.go (`backoffRecord`,
 * `newBackoffRecord`, `getRemainingTimeForFailuresCount`, `getFinishedTime`) and the constants of
 * job_controller.go: `DefaultJobPodFailureBackOff` = 10 s, `MaxJobPodFailureBackOff` = 10 min (the
 * docs' 6 min is the pre-1.27 `MaxJobBackOff`).
 */
import type { Pod } from '../../api/index.js';
import { parseTime } from '../../util/clock/index.js';

/** `DefaultJobPodFailureBackOff`, ms. */
export const DEFAULT_JOB_POD_FAILURE_BACKOFF_MS = 10_000;
/** `MaxJobPodFailureBackOff`, ms. */
export const MAX_JOB_POD_FAILURE_BACKOFF_MS = 10 * 60_000;

/** Consecutive failures since the last success, and when the latest failed pod finished (ms). */
export interface BackoffRecord {
  failuresAfterLastSuccess: number;
  lastFailureTime: number | undefined;
}

/**
 * `getFinishedTime`: when a finished pod finished (ms): the latest container `finishedAt`, else its
 * deletionTimestamp, else `now` (a pod marked failed before any container ran).
 */
export function getFinishedTime(pod: Pod, now: number): number {
  let latest: number | undefined;
  for (const cs of [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])]) {
    const t = parseTime(cs.state?.terminated?.finishedAt);
    if (t !== undefined && (latest === undefined || t > latest)) latest = t;
  }
  return latest ?? parseTime(pod.metadata?.deletionTimestamp) ?? now;
}

/**
 * `newBackoffRecord`: `prev` updated with the pods that finished since: a success resets the count
 * to the failures finished after the latest success.
 */
export function newBackoffRecord(prev: BackoffRecord, newSucceeded: readonly Pod[], newFailed: readonly Pod[], now: number): BackoffRecord {
  const failTimes = newFailed.map((p) => getFinishedTime(p, now));
  if (newSucceeded.length === 0) {
    if (failTimes.length === 0) return prev;
    return { failuresAfterLastSuccess: prev.failuresAfterLastSuccess + failTimes.length, lastFailureTime: Math.max(prev.lastFailureTime ?? -Infinity, ...failTimes) };
  }
  const lastSuccess = Math.max(...newSucceeded.map((p) => getFinishedTime(p, now)));
  const after = failTimes.filter((t) => t > lastSuccess);
  if (after.length === 0) return { failuresAfterLastSuccess: 0, lastFailureTime: prev.lastFailureTime };
  return { failuresAfterLastSuccess: after.length, lastFailureTime: Math.max(...after) };
}

/**
 * `getRemainingTimeForFailuresCount`: ms until a pod may be created again after `failures`
 * consecutive failures, the latest at `lastFailureTime`: 10 s doubling per failure, capped at 10 min.
 * 0 when there is nothing to wait for.
 */
export function remainingBackoffMs(failures: number, lastFailureTime: number | undefined, now: number, baseMs = DEFAULT_JOB_POD_FAILURE_BACKOFF_MS, maxMs = MAX_JOB_POD_FAILURE_BACKOFF_MS): number {
  if (failures <= 0 || lastFailureTime === undefined) return 0;
  const backoff = Math.min(baseMs * 2 ** Math.min(failures - 1, 30), maxMs);
  const elapsed = now - lastFailureTime;
  if (elapsed < 0) return backoff;
  return Math.max(0, backoff - elapsed);
}
