/**
 * The Job controller: runs a Job's pods to completion (NonIndexed or Indexed), counts finished pods
 * through the `batch.kubernetes.io/job-tracking` finalizer, and reports status and conditions.
 *
 * Follows kubernetes/kubernetes v1.33 pkg/controller/job/job_controller.go: informer handlers
 * (`addPod/updatePod/deletePod`, `updateJob/deleteJob`, `enqueueSyncJobBatched` with the 1 s
 * `syncJobBatchPeriod`), the orphan-pod queue (`cleanupPodFinalizers`, `syncOrphanPod`) and
 * `syncJob`; the phases live in sync.ts (manageJob), tracking.ts (status and finalizers),
 * pod-failure-policy.ts, success-policy.ts, indexed.ts, backoff.ts and status.ts.
 */
import type { Job, Pod } from '../../api/index.js';
import type { Clientset } from '../../client/index.js';
import { EventRecorder, withTypeMeta } from '../../client/record/index.js';
import { DeletedFinalStateUnknown, type Lister, type SharedInformerFactory } from '../../informers/index.js';
import { isNotFound } from '../../machinery/errors/index.js';
import { selectorFromLabelSelector, type Selector } from '../../machinery/labels/index.js';
import { getControllerOf, metaNamespaceKey, splitMetaNamespaceKey } from '../../machinery/meta/index.js';
import type { Clock } from '../../util/clock/index.js';
import { parseTime, formatTime } from '../../util/clock/index.js';
import { stderrLogger, type Logger } from '../../util/runtime/index.js';
import { RateLimitingQueue, runWorkersWhenSynced, type SyncResult } from '../../workqueue/index.js';
import { canAdoptByUncachedGet, claimPods } from '../controller-ref-manager.js';
import { addPodControllerUIDIndexer, filterActivePods, filterPodsByOwner, isPodReady, podKey, resolveControllerRef, toError } from '../controller-utils.js';
import { UIDTrackingControllerExpectations } from '../expectations.js';
import { RealPodControl, type PodControl } from '../pod-control.js';
import { newBackoffRecord, type BackoffRecord } from './backoff.js';
import { getCompletionIndex, hasIndex, intAnnotation, isIndexedJob, isValidIndex, parseIndexes, totalIndexes, withIndexes, JOB_INDEX_FAILURE_COUNT_ANNOTATION } from './indexed.js';
import { matchPodFailurePolicy } from './pod-failure-policy.js';
import { matchSuccessPolicy } from './success-policy.js';
import { JOB_CONTROLLER_NAME, JOB_TRACKING_FINALIZER, MAX_UNCOUNTED_PODS, MESSAGE, REASON, ensureCondition, findTrueCondition, newCondition } from './status.js';
import { isJobFinished } from '../batch-util.js';
import { JOB_KIND, deleteJobPods, hasTrackingFinalizer, isPodFailed, isPodTerminal, manageJob, requeueAt, type JobSyncContext, type JobSyncDeps } from './sync.js';
import { removeTrackingFinalizers, trackJobStatusAndRemoveFinalizers } from './tracking.js';

/** `syncJobBatchPeriod`: pod events are coalesced into one sync per this many ms. */
export const SYNC_JOB_BATCH_PERIOD_MS = 1000;

/** Options of {@link JobController}. */
export interface JobControllerOptions {
  client: Clientset;
  informers: SharedInformerFactory;
  clock: Clock;
  /** Default worker count of {@link JobController.run} (`--concurrent-job-syncs`, 5). */
  workers?: number;
  /** Default: a recorder with component `job-controller`. */
  recorder?: EventRecorder;
  /** Default: {@link RealPodControl} over `client` and the recorder (deletions and patches). */
  podControl?: PodControl;
  logger?: Logger;
}

export class JobController implements JobSyncDeps {
  readonly queue: RateLimitingQueue;
  /** Pods (`ns/name`) whose tracking finalizer may be left over by a deleted or finished Job. */
  readonly orphanQueue: RateLimitingQueue;
  readonly expectations: UIDTrackingControllerExpectations;
  readonly finalizerExpectations = new Map<string, Set<string>>();
  /** Pod-failure back-off per job key (upstream `podBackoffStore`). */
  readonly backoffStore = new Map<string, BackoffRecord>();
  podControl: PodControl;
  /** The per-key sync; a field so tests can wrap it (upstream's `syncHandler`). */
  syncHandler: (key: string) => Promise<SyncResult>;
  readonly client: Clientset;
  readonly clock: Clock;
  readonly recorder: EventRecorder;
  readonly logger: Logger;

  private readonly defaultWorkers: number;
  private readonly informers: SharedInformerFactory;
  private readonly jobLister: Lister<Job>;
  private readonly podIndexer: { byIndex(indexName: string, indexedValue: string): Pod[]; getByKey(key: string): Pod | undefined };

  constructor(opts: JobControllerOptions) {
    this.client = opts.client;
    this.clock = opts.clock;
    this.informers = opts.informers;
    this.defaultWorkers = opts.workers ?? 5;
    this.logger = opts.logger ?? stderrLogger;
    this.recorder = opts.recorder ?? new EventRecorder(opts.client, { component: 'job-controller', clock: opts.clock, logger: this.logger });
    this.podControl = opts.podControl ?? new RealPodControl(opts.client, this.recorder);
    this.queue = new RateLimitingQueue<string>({ clock: opts.clock, name: 'job' });
    this.orphanQueue = new RateLimitingQueue<string>({ clock: opts.clock, name: 'job_orphan_pod' });
    this.expectations = new UIDTrackingControllerExpectations(opts.clock);

    const jobInformer = opts.informers.batch.jobs();
    jobInformer.addEventHandler({
      add: (job) => this.enqueueJob(job),
      update: (oldJob, curJob) => this.updateJob(oldJob, curJob),
      delete: (obj) => this.deleteJob(obj),
    });
    const podInformer = opts.informers.core.pods();
    addPodControllerUIDIndexer(podInformer);
    podInformer.addEventHandler({
      add: (pod) => this.addPod(pod),
      update: (oldPod, curPod) => this.updatePod(oldPod, curPod),
      delete: (obj) => this.deletePod(obj),
    });
    this.jobLister = jobInformer.lister();
    this.podIndexer = podInformer.getIndexer();
    this.syncHandler = (key) => this.syncJob(key);
  }

  /**
   * Waits for the Job and pod caches, then runs `workers` job workers and one orphan-pod worker until
   * `signal` aborts. The informer factory must be started by the caller.
   */
  async run(workers: number = this.defaultWorkers, signal?: AbortSignal): Promise<void> {
    const caches = [this.informers.batch.jobs(), this.informers.core.pods()];
    await Promise.all([
      runWorkersWhenSynced(caches, this.queue, workers, (key) => this.syncHandler(key), { name: 'job', logger: this.logger, signal }),
      runWorkersWhenSynced(caches, this.orphanQueue, 1, (key) => this.syncOrphanPod(key), { name: 'job_orphan_pod', logger: this.logger, signal }),
    ]);
  }

  // ---- event handlers ----

  private enqueueJob(job: Job): void {
    this.queue.add(metaNamespaceKey(job));
  }

  /** `enqueueSyncJobBatched`: many pod events of one Job make one sync a batch period later. */
  private enqueueBatched(job: Job): void {
    this.queue.addAfter(metaNamespaceKey(job), SYNC_JOB_BATCH_PERIOD_MS);
  }

  private updateJob(oldJob: Job, curJob: Job): void {
    if (oldJob.metadata?.uid !== curJob.metadata?.uid) this.deleteJob(new DeletedFinalStateUnknown(metaNamespaceKey(oldJob), oldJob));
    this.enqueueJob(curJob);
    // A finished Job leaves pods behind whose finalizers must go.
    if (isJobFinished(curJob) && !isJobFinished(oldJob)) this.cleanupPodFinalizers(curJob);
  }

  private deleteJob(obj: Job | DeletedFinalStateUnknown<Job>): void {
    const job = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
    this.queue.add(metaNamespaceKey(job));
    this.cleanupPodFinalizers(job);
  }

  /** `cleanupPodFinalizers`: sends the Job's pods still holding the tracking finalizer to the orphan queue. */
  private cleanupPodFinalizers(job: Job): void {
    for (const pod of filterPodsByOwner(this.podIndexer, job, false)) {
      if (hasTrackingFinalizer(pod)) this.orphanQueue.add(podKey(pod));
    }
  }

  private resolveControllerRef(namespace: string, ref: { kind: string; name: string; uid: string }): Job | undefined {
    return resolveControllerRef(this.jobLister, JOB_KIND.kind, namespace, ref);
  }

  private jobOfPod(pod: Pod): Job | undefined {
    const ref = getControllerOf(pod);
    return ref ? this.resolveControllerRef(pod.metadata?.namespace ?? '', ref) : undefined;
  }

  private addPod(pod: Pod): void {
    if (pod.metadata?.deletionTimestamp) {
      this.deletePod(pod, false);
      return;
    }
    const ref = getControllerOf(pod);
    if (ref) {
      const job = this.resolveControllerRef(pod.metadata?.namespace ?? '', ref);
      if (!job) {
        if (hasTrackingFinalizer(pod)) this.orphanQueue.add(podKey(pod));
        return;
      }
      this.expectations.creationObserved(metaNamespaceKey(job));
      this.enqueueBatched(job);
      return;
    }
    if (hasTrackingFinalizer(pod)) this.orphanQueue.add(podKey(pod));
    // An orphan: the Jobs whose selector matches may adopt it.
    for (const job of this.jobLister.namespace(pod.metadata?.namespace ?? '').list()) {
      try {
        const sel = selectorFromLabelSelector(job.spec?.selector);
        if (!sel.empty() && sel.matches(pod.metadata?.labels)) this.enqueueBatched(job);
      } catch {
        // An invalid selector selects nothing.
      }
    }
  }

  private updatePod(oldPod: Pod, curPod: Pod): void {
    if (curPod.metadata?.resourceVersion === oldPod.metadata?.resourceVersion) return;
    if (hasTrackingFinalizer(oldPod) && !hasTrackingFinalizer(curPod)) this.finalizerRemovalObserved(curPod);
    if (curPod.metadata?.deletionTimestamp) {
      this.deletePod(curPod, false);
      return;
    }
    const oldRef = getControllerOf(oldPod);
    const curRef = getControllerOf(curPod);
    if (oldRef && oldRef.uid !== curRef?.uid) {
      const oldJob = this.resolveControllerRef(oldPod.metadata?.namespace ?? '', oldRef);
      if (oldJob) this.enqueueBatched(oldJob);
    }
    const job = this.jobOfPod(curPod);
    if (job) this.enqueueBatched(job);
    else if (hasTrackingFinalizer(curPod)) this.orphanQueue.add(podKey(curPod));
  }

  /** Observes a deletion (`final`: the pod is gone, else it just got a deletionTimestamp). */
  private deletePod(obj: Pod | DeletedFinalStateUnknown<Pod>, final = true): void {
    const pod = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
    if (final) this.finalizerRemovalObserved(pod);
    const job = this.jobOfPod(pod);
    if (!job) {
      if (!final && hasTrackingFinalizer(pod)) this.orphanQueue.add(podKey(pod));
      return;
    }
    const key = metaNamespaceKey(job);
    this.expectations.deletionObserved(key, podKey(pod));
    this.enqueueBatched(job);
  }

  private finalizerRemovalObserved(pod: Pod): void {
    const ref = getControllerOf(pod);
    if (!ref) return;
    const key = `${pod.metadata?.namespace ?? ''}/${ref.name}`;
    const set = this.finalizerExpectations.get(key);
    if (!set) return;
    set.delete(pod.metadata?.uid ?? '');
    if (set.size === 0) this.finalizerExpectations.delete(key);
  }

  /**
   * `syncOrphanPod`: removes the tracking finalizer from a pod whose Job is gone or finished, or that
   * has no Job at all. Throws the patch error (NotFound is success).
   */
  async syncOrphanPod(key: string): Promise<SyncResult> {
    const pod = this.podIndexer.getByKey(key);
    if (!pod || !hasTrackingFinalizer(pod)) return;
    const job = this.jobOfPod(pod);
    if (job && !isJobFinished(job)) return;
    const { error } = await removeTrackingFinalizers(this, job ? metaNamespaceKey(job) : `orphan/${key}`, [pod]);
    if (error) throw error;
    return;
  }

  // ---- sync ----

  /**
   * `syncJob`: reconciles one Job (`namespace/name` key): claims pods, counts finished ones, decides
   * failure (podFailurePolicy FailJob, backoffLimit, activeDeadlineSeconds, failed indexes) or success
   * (successPolicy, completions), manages pods, and tracks status and finalizers. Resolves a requeue
   * delay for deadlines and back-offs; throws a write error (the status is written first).
   */
  async syncJob(key: string): Promise<SyncResult> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const cached = this.jobLister.namespace(namespace).get(name);
    if (!cached) {
      this.expectations.deleteExpectations(key);
      this.finalizerExpectations.delete(key);
      this.backoffStore.delete(key);
      return;
    }
    const managedBy = cached.spec?.managedBy;
    if (managedBy && managedBy !== JOB_CONTROLLER_NAME) return;
    if (isJobFinished(cached)) {
      this.backoffStore.delete(key);
      this.cleanupPodFinalizers(cached);
      return;
    }
    const mode = cached.spec?.completionMode;
    if (mode !== undefined && mode !== 'NonIndexed' && mode !== 'Indexed') {
      this.recorder.event(withTypeMeta(cached, JOB_KIND.apiVersion, JOB_KIND.kind), 'Warning', 'UnknownCompletionMode', `${mode} is not a supported completion mode`);
      return;
    }
    let selector: Selector;
    try {
      selector = selectorFromLabelSelector(cached.spec?.selector);
    } catch (err) {
      this.logger.error({ job: key, err: String(err) }, 'Error converting pod selector to selector');
      return;
    }
    const job = withTypeMeta(structuredClone<Job>(cached), JOB_KIND.apiVersion, JOB_KIND.kind);
    const original = structuredClone(cached.status);
    const status = (job.status ??= {});
    const now = this.clock.now();
    const satisfied = this.expectations.satisfiedExpectations(key);
    const pods = await this.claimPods(job, selector, filterPodsByOwner(this.podIndexer, job, true));

    const ctx = this.newContext(key, job, pods, now);
    const spec = job.spec ?? { template: {} };
    const suspended = spec.suspend === true;
    if (!status.startTime && !suspended) status.startTime = formatTime(now);

    // Failure first, in upstream's order; a FailureTarget of an earlier sync stays decisive.
    const failureTarget = findTrueCondition(status, 'FailureTarget');
    const fail = (reason: string, message: string): void => {
      ensureCondition(status, newCondition('FailureTarget', 'True', reason, message, now));
      ctx.finishedCondition = newCondition('Failed', 'True', reason, message, now);
    };
    const completions = spec.completions ?? undefined;
    const perIndex = isIndexedJob(job) && spec.backoffLimitPerIndex !== undefined && spec.backoffLimitPerIndex !== null;
    if (failureTarget) {
      ctx.finishedCondition = newCondition('Failed', 'True', failureTarget.reason ?? '', failureTarget.message ?? '', now);
    } else if (ctx.failJobMessage !== undefined) {
      fail(REASON.podFailurePolicy, ctx.failJobMessage);
    } else if (this.exceedsBackoffLimit(ctx)) {
      fail(REASON.backoffLimitExceeded, MESSAGE.backoffLimitExceeded);
    } else if (this.pastActiveDeadline(job, now)) {
      fail(REASON.deadlineExceeded, MESSAGE.deadlineExceeded);
    } else if (perIndex && spec.maxFailedIndexes !== undefined && spec.maxFailedIndexes !== null && totalIndexes(ctx.failedIndexes) > spec.maxFailedIndexes) {
      fail(REASON.maxFailedIndexesExceeded, MESSAGE.maxFailedIndexesExceeded);
    } else if (spec.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds !== null && !suspended) {
      requeueAt(ctx, (parseTime(status.startTime) ?? now) + spec.activeDeadlineSeconds * 1000 - now);
    }
    if (!ctx.finishedCondition) {
      const met = findTrueCondition(status, 'SuccessCriteriaMet');
      if (met) {
        ctx.finishedCondition = newCondition('Complete', 'True', met.reason ?? '', met.message ?? '', now);
      } else if (isIndexedJob(job) && spec.successPolicy) {
        const msg = matchSuccessPolicy(spec.successPolicy, completions ?? 0, ctx.succeededIndexes);
        if (msg !== undefined) this.succeed(ctx, REASON.successPolicy, msg);
      }
    }

    let active = ctx.activePods.length;
    let manageErr: unknown;
    if (ctx.finishedCondition) {
      // Finishing: stop what runs; the terminal condition waits until the pods are gone and counted.
      try {
        const deleted = await deleteJobPods(this, ctx, ctx.activePods);
        active -= deleted;
        ctx.terminating += deleted;
      } catch (err) {
        manageErr = err;
      }
    } else {
      const manageJobCalled = satisfied && !job.metadata?.deletionTimestamp;
      if (manageJobCalled) {
        try {
          active = await manageJob(this, ctx);
        } catch (err) {
          manageErr = err;
          // The writes that failed are not observed; the cache's count stands.
          active = ctx.activePods.length;
        }
      }
      const succeeded = isIndexedJob(job) ? totalIndexes(ctx.succeededIndexes) : ctx.succeeded;
      if (perIndex && totalIndexes(ctx.failedIndexes) > 0 && totalIndexes(ctx.failedIndexes) + succeeded >= (completions ?? 0) && active === 0) {
        fail(REASON.failedIndexes, MESSAGE.failedIndexes);
      } else if (completions === undefined ? ctx.succeeded > 0 && active === 0 : succeeded >= completions && active === 0) {
        this.succeed(ctx, REASON.completionsReached, MESSAGE.completionsReached);
      }
      // As upstream: the Suspended condition follows only syncs that managed pods, and not on completion.
      if (manageJobCalled && !ctx.finishedCondition) this.updateSuspendedCondition(job, now, active + ctx.terminating === 0);
    }
    status.active = active;
    status.ready = ctx.activePods.filter(isPodReady).length;
    status.terminating = ctx.terminating;
    if (ctx.finishedCondition && active === 0) status.ready = 0;

    await trackJobStatusAndRemoveFinalizers(this, ctx, original);
    this.backoffStore.set(key, ctx.backoff);
    if (manageErr !== undefined) throw toError(manageErr);
    return ctx.requeueAfterMs === undefined ? undefined : { requeueAfter: ctx.requeueAfterMs };
  }

  /** Interim SuccessCriteriaMet now, Complete (same reason and message) once all pods are done. */
  private succeed(ctx: JobSyncContext, reason: string, message: string): void {
    ensureCondition((ctx.job.status ??= {}), newCondition('SuccessCriteriaMet', 'True', reason, message, ctx.now));
    ctx.finishedCondition = newCondition('Complete', 'True', reason, message, ctx.now);
  }

  /**
   * Suspended True on suspension (event Suspended; startTime cleared once no pod runs or terminates,
   * as the API allows startTime to change only while suspended), False on resume (event Resumed,
   * startTime now).
   */
  private updateSuspendedCondition(job: Job, now: number, noPods: boolean): void {
    const status = (job.status ??= {});
    if (job.spec?.suspend === true) {
      if (ensureCondition(status, newCondition('Suspended', 'True', REASON.suspended, MESSAGE.suspended, now))) {
        this.recorder.event(job, 'Normal', 'Suspended', 'Job suspended');
      }
      if (noPods) delete status.startTime;
    } else if (findTrueCondition(status, 'Suspended')) {
      ensureCondition(status, newCondition('Suspended', 'False', REASON.resumed, MESSAGE.resumed, now));
      this.recorder.event(job, 'Normal', 'Resumed', 'Job resumed');
      // activeDeadlineSeconds counts from the resume.
      status.startTime = formatTime(now);
    }
  }

  /**
   * `exceedsBackoffLimit` / `pastBackoffLimitOnFailure`: more failures than backoffLimit, or for
   * restartPolicy OnFailure as many container restarts among the active pods (any when the limit is 0).
   */
  private exceedsBackoffLimit(ctx: JobSyncContext): boolean {
    const limit = ctx.job.spec?.backoffLimit ?? 6;
    if (ctx.failed > limit) return true;
    if (ctx.job.spec?.template?.spec?.restartPolicy !== 'OnFailure') return false;
    let restarts = 0;
    for (const p of ctx.activePods) {
      for (const cs of [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])]) restarts += cs.restartCount ?? 0;
    }
    return limit === 0 ? restarts > 0 : restarts >= limit;
  }

  /** `pastActiveDeadline`: running (not suspended) at least activeDeadlineSeconds since startTime. */
  private pastActiveDeadline(job: Job, now: number): boolean {
    const ads = job.spec?.activeDeadlineSeconds;
    const start = parseTime(job.status?.startTime);
    if (ads === undefined || ads === null || start === undefined || job.spec?.suspend === true) return false;
    return now - start >= ads * 1000;
  }

  /**
   * Builds the sync context: active pods, terminating count, and the finished pods still holding
   * the finalizer — new ones counted into the uncounted UIDs (≤ {@link MAX_UNCOUNTED_PODS}),
   * podFailurePolicy applied (Ignore: not counted; FailJob: message; FailIndex / per-index limit:
   * failed index), Indexed successes counted once per index.
   */
  private newContext(key: string, job: Job, pods: Pod[], now: number): JobSyncContext {
    const status = job.status ?? {};
    const indexed = isIndexedJob(job);
    const completions = job.spec?.completions ?? 0;
    const perIndexLimit = job.spec?.backoffLimitPerIndex ?? undefined;
    const ctx: JobSyncContext = {
      key,
      job,
      now,
      pods,
      activePods: filterActivePods(pods),
      succeeded: 0,
      failed: 0,
      ready: 0,
      terminating: pods.filter((p) => p.metadata?.deletionTimestamp && !isPodTerminal(p)).length,
      uncountedSucceeded: new Set(status.uncountedTerminatedPods?.succeeded ?? []),
      uncountedFailed: new Set(status.uncountedTerminatedPods?.failed ?? []),
      podsToRemoveFinalizer: [],
      newSucceededPods: [],
      newFailedPods: [],
      succeededIndexes: indexed ? parseIndexes(status.completedIndexes, completions) : [],
      failedIndexes: indexed && perIndexLimit !== undefined ? parseIndexes(status.failedIndexes, completions) : [],
      backoff: this.backoffStore.get(key) ?? { failuresAfterLastSuccess: 0, lastFailureTime: undefined },
    };
    const expected = this.finalizerExpectations.get(key);
    for (const pod of pods) {
      const uid = pod.metadata?.uid ?? '';
      if (!hasTrackingFinalizer(pod) || expected?.has(uid)) continue;
      const succeeded = pod.status?.phase === 'Succeeded';
      if (!succeeded && !isPodFailed(pod, job)) continue;
      if (ctx.uncountedSucceeded.has(uid) || ctx.uncountedFailed.has(uid)) {
        ctx.podsToRemoveFinalizer.push(pod);
        continue;
      }
      // Room for more uncounted UIDs: the rest wait for the next sync.
      if (ctx.uncountedSucceeded.size + ctx.uncountedFailed.size >= MAX_UNCOUNTED_PODS) {
        requeueAt(ctx, 1);
        continue;
      }
      ctx.podsToRemoveFinalizer.push(pod);
      const ix = getCompletionIndex(pod);
      if (succeeded) {
        // Indexed: a second success of an index is not counted again.
        if (indexed && (!isValidIndex(ix, completions) || hasIndex(ctx.succeededIndexes, ix))) continue;
        if (indexed) ctx.succeededIndexes = withIndexes(ctx.succeededIndexes, [ix]);
        ctx.uncountedSucceeded.add(uid);
        ctx.newSucceededPods.push(pod);
        continue;
      }
      const match = pod.status?.phase === 'Failed' ? matchPodFailurePolicy(job.spec?.podFailurePolicy, pod) : { countFailed: true };
      if (!match.countFailed) continue;
      if (match.failJobMessage !== undefined) ctx.failJobMessage ??= match.failJobMessage;
      if (indexed && perIndexLimit !== undefined && isValidIndex(ix, completions)) {
        if (match.action === 'FailIndex' || intAnnotation(pod, JOB_INDEX_FAILURE_COUNT_ANNOTATION) + 1 > perIndexLimit) {
          ctx.failedIndexes = withIndexes(ctx.failedIndexes, [ix]);
        }
      }
      ctx.uncountedFailed.add(uid);
      ctx.newFailedPods.push(pod);
    }
    ctx.succeeded = (status.succeeded ?? 0) + ctx.uncountedSucceeded.size;
    ctx.failed = (status.failed ?? 0) + ctx.uncountedFailed.size;
    ctx.backoff = newBackoffRecord(ctx.backoff, ctx.newSucceededPods, ctx.newFailedPods, now);
    return ctx;
  }

  /** `getPodsForJob`: adopts matching orphans (adding the tracking finalizer) and releases others. */
  private async claimPods(job: Job, selector: Selector, pods: Pod[]): Promise<Pod[]> {
    return claimPods(
      {
        controller: job,
        controllerKind: JOB_KIND,
        selector,
        canAdopt: canAdoptByUncachedGet(job, JOB_KIND.kind, async (n) => {
          const fresh = await this.client.batch.jobs(job.metadata?.namespace).get(n);
          // A finished Job adopts nothing (upstream's recheck).
          if (isJobFinished(fresh)) throw new Error(`job ${n} has finished`);
          return fresh;
        }),
        podControl: this.podControl,
        finalizers: [JOB_TRACKING_FINALIZER],
      },
      pods,
    ).catch((err: unknown) => {
      if (isNotFound(err)) return pods.filter((p) => getControllerOf(p)?.uid === job.metadata?.uid);
      throw err;
    });
  }
}
