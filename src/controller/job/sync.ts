/**
 * The per-sync state of a Job and `manageJob`: pod creation (slow start, Indexed indexes, back-off)
 * and deletion.
 *
 * Follows kubernetes/kubernetes v1.33 pkg/controller/job/job_controller.go (`syncJobCtx`,
 * `manageJob`, `activePodsForRemoval`, `deleteJobPods`, `deleteActivePods`, `isPodFailed`) and
 * indexed_job_utils.go (`firstPendingIndexes`, `appendDuplicatedIndexPodsForRemoval`,
 * `getNewIndexFailureCounts`).
 */
import type { Job, Pod, PodTemplateSpec } from '../../api/index.js';
import type { JobCondition } from 'kubernetes-types/batch/v1.js';
import type { Clientset } from '../../client/index.js';
import type { EventRecorder } from '../../client/record/index.js';
import { isNotFound } from '../../machinery/errors/index.js';
import { newControllerRef } from '../../machinery/meta/index.js';
import type { Clock } from '../../util/clock/index.js';
import type { Logger } from '../../util/runtime/index.js';
import type { ControllerKind } from '../controller-ref-manager.js';
import { NAMESPACE_TERMINATING_CAUSE, aggregateErrors, compareActivePodsWithRanks, hasStatusCause, podKey, toError } from '../controller-utils.js';
import type { UIDTrackingControllerExpectations } from '../expectations.js';
import { FAILED_CREATE_POD_REASON, SUCCESSFUL_CREATE_POD_REASON, SLOW_START_INITIAL_BATCH_SIZE, getPodFromTemplate, slowStartBatch, type PodControl } from '../pod-control.js';
import { getFinishedTime, remainingBackoffMs, type BackoffRecord } from './backoff.js';
import {
  JOB_INDEX_FAILURE_COUNT_ANNOTATION,
  JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION,
  firstPendingIndexes,
  getCompletionIndex,
  hasIndex,
  intAnnotation,
  isIndexedJob,
  isValidIndex,
  templateForIndex,
  type Interval,
} from './indexed.js';
import { matchPodFailurePolicy } from './pod-failure-policy.js';
import { JOB_TRACKING_FINALIZER, MAX_POD_CREATE_DELETE_PER_SYNC } from './status.js';

/** batch/v1 Job, for owner references and events. */
export const JOB_KIND: ControllerKind = { apiVersion: 'batch/v1', kind: 'Job' };

/** What the sync phases share of the controller. */
export interface JobSyncDeps {
  client: Clientset;
  clock: Clock;
  podControl: PodControl;
  recorder: EventRecorder;
  expectations: UIDTrackingControllerExpectations;
  logger: Logger;
  /** UIDs of pods whose finalizer removal was sent but not yet observed, per job key. */
  finalizerExpectations: Map<string, Set<string>>;
}

/** One sync's view of a Job (upstream `syncJobCtx`); `job` is a private, mutable copy. */
export interface JobSyncContext {
  key: string;
  job: Job;
  now: number;
  /** Pods owned by the job (after claiming). */
  pods: Pod[];
  activePods: Pod[];
  /** Status counters plus the uncounted UIDs (and the pods newly counted this sync). */
  succeeded: number;
  failed: number;
  ready: number;
  terminating: number;
  /** UIDs counted but with the finalizer maybe still on (status.uncountedTerminatedPods). */
  uncountedSucceeded: Set<string>;
  uncountedFailed: Set<string>;
  /** Finished pods, still carrying the finalizer, whose finalizer is to be removed now. */
  podsToRemoveFinalizer: Pod[];
  /** Pods newly finished this sync (for the back-off record). */
  newSucceededPods: Pod[];
  newFailedPods: Pod[];
  /** Indexed: succeeded and failed indexes, including this sync's pods. */
  succeededIndexes: Interval[];
  failedIndexes: Interval[];
  /** The first FailJob message of the pod failure policy among the new failures. */
  failJobMessage?: string;
  /** The terminal condition (Failed or Complete) to add once all pods are terminated and counted. */
  finishedCondition?: JobCondition;
  backoff: BackoffRecord;
  /** Set when the sync must run again after this many ms (deadline, back-off). */
  requeueAfterMs?: number;
}

/** Lowers a requeue delay to `ms` (0 or less ignored). */
export function requeueAt(ctx: JobSyncContext, ms: number): void {
  if (ms <= 0) return;
  ctx.requeueAfterMs = ctx.requeueAfterMs === undefined ? ms : Math.min(ctx.requeueAfterMs, ms);
}

/**
 * `isPodFailed`: phase Failed; or, unless pods are replaced only once Failed (podReplacementPolicy
 * Failed, implied by a podFailurePolicy), terminating and not Succeeded.
 */
export function isPodFailed(pod: Pod, job: Job): boolean {
  const phase = pod.status?.phase;
  if (phase === 'Failed') return true;
  if (job.spec?.podFailurePolicy || job.spec?.podReplacementPolicy === 'Failed') return false;
  return pod.metadata?.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null && phase !== 'Succeeded';
}

/** `hasJobTrackingFinalizer`. */
export function hasTrackingFinalizer(pod: Pod): boolean {
  return pod.metadata?.finalizers?.includes(JOB_TRACKING_FINALIZER) ?? false;
}

const isTerminal = (p: Pod): boolean => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

/**
 * `activePodsForRemoval`: `rmAtLeast` active pods to delete, plus (Indexed) every pod with an invalid,
 * duplicated, succeeded or failed index first. The rest are ranked as ReplicaSets rank theirs
 * (unassigned < pending < not ready < ready ...).
 */
export function activePodsForRemoval(ctx: JobSyncContext, rmAtLeast: number): Pod[] {
  let candidates = [...ctx.activePods];
  const rm: Pod[] = [];
  if (isIndexedJob(ctx.job)) {
    const completions = ctx.job.spec?.completions ?? 0;
    const seen = new Set<number>();
    // Older pods keep their index.
    candidates.sort((a, b) => (a.metadata?.creationTimestamp ?? '').localeCompare(b.metadata?.creationTimestamp ?? ''));
    const keep: Pod[] = [];
    for (const p of candidates) {
      const ix = getCompletionIndex(p);
      if (!isValidIndex(ix, completions) || seen.has(ix) || hasIndex(ctx.succeededIndexes, ix) || hasIndex(ctx.failedIndexes, ix)) rm.push(p);
      else {
        seen.add(ix);
        keep.push(p);
      }
    }
    candidates = keep;
  }
  const more = rmAtLeast - rm.length;
  if (more > 0) {
    candidates.sort((a, b) => compareActivePodsWithRanks(a, b, 0, 0, ctx.now));
    rm.push(...candidates.slice(0, more));
  }
  return rm;
}

/**
 * `deleteJobPods`: deletes `pods` in parallel, raising deletion expectations first. Resolves how
 * many were deleted (NotFound counts); throws the aggregate of the other errors.
 */
export async function deleteJobPods(deps: JobSyncDeps, ctx: JobSyncContext, pods: readonly Pod[]): Promise<number> {
  if (pods.length === 0) return 0;
  deps.expectations.expectDeletions(ctx.key, pods.map(podKey));
  let deleted = 0;
  const errs: unknown[] = [];
  await Promise.all(
    pods.map(async (pod) => {
      try {
        await deps.podControl.deletePod(pod.metadata?.namespace ?? '', pod.metadata?.name ?? '', ctx.job);
        deleted++;
      } catch (err) {
        // This deletion will never be observed.
        deps.expectations.deletionObserved(ctx.key, podKey(pod));
        if (isNotFound(err)) deleted++;
        else errs.push(err);
      }
    }),
  );
  const err = aggregateErrors(errs);
  if (err) throw err;
  return deleted;
}

/**
 * The failure counts a new pod of index `ix` carries (upstream `getNewIndexFailureCounts`): those of
 * the index's latest failed pod, plus that pod's own failure (counted or ignored by the policy).
 */
function indexFailureCounts(ctx: JobSyncContext, lastFailed: Pod | undefined): { failed: number; ignored: number } {
  if (!lastFailed) return { failed: 0, ignored: 0 };
  const failed = intAnnotation(lastFailed, JOB_INDEX_FAILURE_COUNT_ANNOTATION);
  const ignored = intAnnotation(lastFailed, JOB_INDEX_IGNORED_FAILURE_COUNT_ANNOTATION);
  const m = lastFailed.status?.phase === 'Failed' ? matchPodFailurePolicy(ctx.job.spec?.podFailurePolicy, lastFailed) : { countFailed: true };
  return m.countFailed ? { failed: failed + 1, ignored } : { failed, ignored: ignored + 1 };
}

/** The latest failed pod of every index (backoffLimitPerIndex), by finish time. */
function lastFailedPodPerIndex(ctx: JobSyncContext): Map<number, Pod> {
  const out = new Map<number, Pod>();
  for (const p of ctx.pods) {
    if (!isPodFailed(p, ctx.job)) continue;
    const ix = getCompletionIndex(p);
    const prev = out.get(ix);
    if (!prev || getFinishedTime(p, ctx.now) >= getFinishedTime(prev, ctx.now)) out.set(ix, p);
  }
  return out;
}

/**
 * `manageJob`: deletes every active pod of a suspended Job; otherwise deletes surplus pods (≤ 500,
 * deletions first) or creates missing ones (≤ 500, slow start, after the pod-failure back-off;
 * Indexed: the lowest pending indexes). Returns the active count after the writes; throws the
 * first create error or the aggregated delete errors.
 */
export async function manageJob(deps: JobSyncDeps, ctx: JobSyncContext): Promise<number> {
  const { job } = ctx;
  let active = ctx.activePods.length;
  if (job.spec?.suspend === true) {
    return active - (await deleteJobPods(deps, ctx, ctx.activePods));
  }
  const parallelism = job.spec?.parallelism ?? 1;
  const completions = job.spec?.completions;
  let wantActive: number;
  if (completions === undefined || completions === null) {
    // A work-queue Job: once one pod succeeded, no new ones start.
    wantActive = ctx.succeeded > 0 ? active : parallelism;
  } else {
    wantActive = Math.max(0, Math.min(completions - ctx.succeeded, parallelism));
  }
  const podsToDelete = activePodsForRemoval(ctx, Math.max(0, active - wantActive)).slice(0, MAX_POD_CREATE_DELETE_PER_SYNC);
  if (podsToDelete.length > 0) {
    return active - (await deleteJobPods(deps, ctx, podsToDelete));
  }
  let diff = wantActive - active;
  if (job.spec?.podReplacementPolicy === 'Failed') diff -= ctx.terminating;
  if (diff <= 0) return active;

  let indexes: number[] | undefined;
  let lastFailed: Map<number, Pod> | undefined;
  if (isIndexedJob(job)) {
    const perIndex = job.spec?.backoffLimitPerIndex !== undefined && job.spec.backoffLimitPerIndex !== null;
    lastFailed = perIndex ? lastFailedPodPerIndex(ctx) : undefined;
    const activeIndexes = new Set(ctx.activePods.map(getCompletionIndex));
    indexes = firstPendingIndexes(Math.min(diff, MAX_POD_CREATE_DELETE_PER_SYNC), completions ?? 0, [ctx.succeededIndexes, ctx.failedIndexes], activeIndexes, (ix) => {
      if (!lastFailed) return false;
      const pod = lastFailed.get(ix);
      if (!pod) return false;
      const wait = remainingBackoffMs(intAnnotation(pod, JOB_INDEX_FAILURE_COUNT_ANNOTATION) + 1, getFinishedTime(pod, ctx.now), ctx.now);
      requeueAt(ctx, wait);
      return wait > 0;
    });
    if (!perIndex) {
      const wait = remainingBackoffMs(ctx.backoff.failuresAfterLastSuccess, ctx.backoff.lastFailureTime, ctx.now);
      if (wait > 0) {
        requeueAt(ctx, wait);
        return active;
      }
    }
    diff = indexes.length;
  } else {
    const wait = remainingBackoffMs(ctx.backoff.failuresAfterLastSuccess, ctx.backoff.lastFailureTime, ctx.now);
    if (wait > 0) {
      requeueAt(ctx, wait);
      return active;
    }
    diff = Math.min(diff, MAX_POD_CREATE_DELETE_PER_SYNC);
  }
  if (diff <= 0) return active;

  // Raise first: a pod's add event may arrive before the create call returns.
  deps.expectations.expectCreations(ctx.key, diff);
  let next = 0;
  const { successes, error } = await slowStartBatch(diff, SLOW_START_INITIAL_BATCH_SIZE, async () => {
    const ix = indexes?.[next++];
    try {
      await createJobPod(deps, job, ix, ix === undefined ? undefined : lastFailed ? indexFailureCounts(ctx, lastFailed.get(ix)) : undefined);
    } catch (err) {
      // The namespace is going away: every further create fails the same; not an error.
      if (hasStatusCause(err, NAMESPACE_TERMINATING_CAUSE)) return;
      throw err;
    }
  });
  const skipped = diff - successes;
  if (skipped > 0) deps.expectations.lowerExpectations(ctx.key, skipped, 0);
  active += successes;
  if (error !== undefined) throw toError(error);
  return active;
}

/**
 * Creates one pod of `job` with the tracking finalizer; Indexed pods (`ix` given) get the index
 * annotation/label/env, hostname and generateName `<job>-<ix>-` (upstream `podGenerateNameWithIndex`).
 * Records SuccessfulCreate `Created pod: <name>` or FailedCreate; throws the create error.
 */
export async function createJobPod(deps: JobSyncDeps, job: Job, ix: number | undefined, failureCounts?: { failed: number; ignored: number }): Promise<void> {
  let template: PodTemplateSpec = structuredClone(job.spec?.template ?? {});
  if (ix !== undefined) template = templateForIndex(job, template, ix, failureCounts);
  const metadata = (template.metadata ??= {});
  metadata.finalizers = [...(metadata.finalizers ?? []).filter((f) => f !== JOB_TRACKING_FINALIZER), JOB_TRACKING_FINALIZER];
  const pod = getPodFromTemplate(template, job, newControllerRef({ metadata: job.metadata }, JOB_KIND));
  if (ix !== undefined && pod.metadata) {
    const base = `${job.metadata?.name ?? ''}-${ix}-`;
    // Names are at most 63 characters with the 5 random ones the server appends.
    pod.metadata.generateName = base.length > 58 ? base.slice(0, 58) : base;
  }
  let created: Pod;
  try {
    created = await deps.client.core.pods(job.metadata?.namespace ?? '').create(pod);
  } catch (err) {
    if (!hasStatusCause(err, NAMESPACE_TERMINATING_CAUSE)) {
      deps.recorder.event(job, 'Warning', FAILED_CREATE_POD_REASON, `Error creating: ${toError(err).message}`);
    }
    throw err;
  }
  deps.recorder.event(job, 'Normal', SUCCESSFUL_CREATE_POD_REASON, `Created pod: ${created.metadata?.name ?? ''}`);
}

export { isTerminal as isPodTerminal };
