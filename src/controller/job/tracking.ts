/**
 * Counting finished pods with the `batch.kubernetes.io/job-tracking` finalizer and writing status.
 *
 * Follows kubernetes/kubernetes v1.33 pkg/controller/job/job_controller.go
 * (`trackJobStatusAndRemoveFinalizers`, `flushUncountedAndRemoveFinalizers`,
 * `removeTrackingFinalizersFromAllPods`, `enactJobFinished`, `recordJobFinished`) and
 * tracking_utils.go (`uidTrackingExpectations`): a finished pod's UID first goes to
 * `status.uncountedTerminatedPods` (written), then its finalizer is removed, then the UID moves into
 * the succeeded/failed counters (written). A crash between the steps neither loses nor doubles a pod.
 */
import type { Job, JobStatus, Pod } from '../../api/index.js';
import { isNotFound } from '../../machinery/errors/index.js';
import { semanticDeepEqual } from '../../machinery/meta/index.js';
import { formatTime } from '../../util/clock/index.js';
import { aggregateErrors } from '../controller-utils.js';
import { formatIndexes, isIndexedJob } from './indexed.js';
import { ensureCondition } from './status.js';
import { JOB_TRACKING_FINALIZER } from './status.js';
import type { JobSyncContext, JobSyncDeps } from './sync.js';
import { hasTrackingFinalizer } from './sync.js';

/** The strategic merge patch removing the tracking finalizer (with a UID precondition). */
export function removeTrackingFinalizerPatch(pod: Pod): Record<string, unknown> {
  return { metadata: { uid: pod.metadata?.uid, '$deleteFromPrimitiveList/finalizers': [JOB_TRACKING_FINALIZER] } };
}

/**
 * Removes the tracking finalizer from `pods` in parallel, registering the UIDs as expected removals
 * under `key` first. Resolves the UIDs removed (a pod already gone counts); throws the aggregate of
 * the other errors only after all were tried (their UIDs are no longer expected).
 */
export async function removeTrackingFinalizers(deps: JobSyncDeps, key: string, pods: readonly Pod[]): Promise<{ removed: Set<string>; error: Error | undefined }> {
  const removed = new Set<string>();
  if (pods.length === 0) return { removed, error: undefined };
  let expected = deps.finalizerExpectations.get(key);
  if (!expected) deps.finalizerExpectations.set(key, (expected = new Set()));
  for (const p of pods) expected.add(p.metadata?.uid ?? '');
  const errs: unknown[] = [];
  await Promise.all(
    pods.map(async (pod) => {
      const uid = pod.metadata?.uid ?? '';
      try {
        await deps.podControl.patchPod(pod.metadata?.namespace ?? '', pod.metadata?.name ?? '', removeTrackingFinalizerPatch(pod));
        removed.add(uid);
      } catch (err) {
        expected.delete(uid);
        if (isNotFound(err)) removed.add(uid);
        else errs.push(err);
      }
    }),
  );
  return { removed, error: aggregateErrors(errs) };
}

function setUncounted(status: JobStatus, ctx: JobSyncContext): void {
  status.uncountedTerminatedPods = {};
  if (ctx.uncountedSucceeded.size > 0) status.uncountedTerminatedPods.succeeded = [...ctx.uncountedSucceeded];
  if (ctx.uncountedFailed.size > 0) status.uncountedTerminatedPods.failed = [...ctx.uncountedFailed];
}

/**
 * Writes `job`'s status when it differs from `before`; resolves the Job as stored (or `job` when
 * nothing was written). Throws the update error (a conflict requeues the key).
 */
async function writeStatus(deps: JobSyncDeps, job: Job, before: JobStatus | undefined): Promise<Job> {
  if (semanticDeepEqual(job.status, before)) return job;
  const updated = await deps.client.batch.jobs(job.metadata?.namespace ?? '').updateStatus(job);
  return { ...updated, apiVersion: job.apiVersion, kind: job.kind };
}

/**
 * `trackJobStatusAndRemoveFinalizers`: writes the status with the new uncounted UIDs, removes the
 * finalizers of the finished pods, moves the UIDs whose pods no longer hold a finalizer into the
 * counters, and enacts the terminal condition once nothing is uncounted or terminating (events
 * Completed `Job completed`, with Warning TooManySucceededPods when succeeded > completions, or
 * Warning `<reason>`; upstream `recordJobFinished`). `original` is the status read at the start of the
 * sync. Resolves the Job as last written; throws a status-write or finalizer-removal error.
 */
export async function trackJobStatusAndRemoveFinalizers(deps: JobSyncDeps, ctx: JobSyncContext, original: JobStatus | undefined): Promise<Job> {
  let job = ctx.job;
  const status = (job.status ??= {});
  setUncounted(status, ctx);
  if (isIndexedJob(job)) {
    status.completedIndexes = formatIndexes(ctx.succeededIndexes);
    if (job.spec?.backoffLimitPerIndex !== undefined && job.spec.backoffLimitPerIndex !== null) status.failedIndexes = formatIndexes(ctx.failedIndexes);
  }
  job = await writeStatus(deps, job, original);

  const { removed, error } = await removeTrackingFinalizers(deps, ctx.key, ctx.podsToRemoveFinalizer);
  // A UID is counted once its pod no longer holds the finalizer: removed now, earlier (expected), or gone.
  const expected = deps.finalizerExpectations.get(ctx.key) ?? new Set<string>();
  const holding = new Set(ctx.pods.filter((p) => hasTrackingFinalizer(p) && !expected.has(p.metadata?.uid ?? '')).map((p) => p.metadata?.uid ?? ''));
  const before = structuredClone(job.status);
  const st = (job = structuredClone(job)).status ?? {};
  for (const uid of [...ctx.uncountedSucceeded]) {
    if (removed.has(uid) || !holding.has(uid)) {
      ctx.uncountedSucceeded.delete(uid);
      st.succeeded = (st.succeeded ?? 0) + 1;
    }
  }
  for (const uid of [...ctx.uncountedFailed]) {
    if (removed.has(uid) || !holding.has(uid)) {
      ctx.uncountedFailed.delete(uid);
      st.failed = (st.failed ?? 0) + 1;
    }
  }
  setUncounted(st, ctx);
  const finished = enactJobFinished(ctx, st);
  job.status = st;
  job = await writeStatus(deps, job, before);
  if (finished) {
    const cond = ctx.finishedCondition;
    if (cond?.type === 'Complete') {
      const completions = job.spec?.completions;
      if (completions !== undefined && completions !== null && (job.status?.succeeded ?? 0) > completions) {
        deps.recorder.event(job, 'Warning', 'TooManySucceededPods', 'Too many succeeded pods running after completion count reached');
      }
      deps.recorder.event(job, 'Normal', 'Completed', 'Job completed');
    }
    else if (cond) deps.recorder.event(job, 'Warning', cond.reason ?? '', cond.message ?? '');
  }
  if (error) throw error;
  return job;
}

/**
 * `enactJobFinished`: adds the terminal condition to `status` when there is one and no pod is
 * uncounted or terminating; Complete also stamps completionTime. Returns whether it did.
 */
function enactJobFinished(ctx: JobSyncContext, status: JobStatus): boolean {
  const cond = ctx.finishedCondition;
  if (!cond) return false;
  if (ctx.uncountedSucceeded.size + ctx.uncountedFailed.size > 0 || ctx.terminating > 0) return false;
  if (!ensureCondition(status, cond)) return false;
  if (cond.type === 'Complete') status.completionTime = formatTime(ctx.now);
  return true;
}
