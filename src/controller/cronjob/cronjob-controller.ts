/**
 * The CronJob controller: creates a Job for each activation of a CronJob's schedule, in its time
 * zone, honouring concurrencyPolicy, startingDeadlineSeconds and suspend; tracks the active Jobs,
 * lastScheduleTime and lastSuccessfulTime; deletes finished Jobs beyond the history limits; and
 * requeues each CronJob at its next activation on the clock.
 *
 * Follows kubernetes/kubernetes pkg/controller/cronjob/cronjob_controllerv2.go (v1.33):
 * `sync` → `getJobsToBeReconciled` → `cleanupFinishedJobs` → `syncCronJob` → one status PUT; the
 * handlers `addJob`/`updateJob`/`deleteJob` (by controllerRef) and `updateCronJob` (a schedule or
 * timeZone change requeues at the new next activation). The schedule arithmetic is in utils.ts.
 * Events (component `cronjob-controller`) carry upstream's reasons and messages.
 */
import type { CronJob, Job } from '../../api/index.js';
import type { Clientset } from '../../client/index.js';
import { EventRecorder, withTypeMeta, type EventType } from '../../client/record/index.js';
import { DeletedFinalStateUnknown, type Lister, type SharedInformerFactory } from '../../informers/index.js';
import { loadLocationError, parseStandard, type CronSchedule } from '../../machinery/cron/index.js';
import { goQuote, isAlreadyExists, isNotFound } from '../../machinery/errors/index.js';
import { deepCopy, getControllerOf, isControlledBy, metaNamespaceKey, semanticDeepEqual, splitMetaNamespaceKey } from '../../machinery/meta/index.js';
import { formatTime, parseTime, type Clock } from '../../util/clock/index.js';
import { stderrLogger, type Logger } from '../../util/runtime/index.js';
import { RateLimitingQueue, runWorkersWhenSynced, type SyncResult } from '../../workqueue/index.js';
import { finishedCondition, isJobFinished, isJobSucceeded } from '../batch-util.js';
import { NAMESPACE_TERMINATING_CAUSE, hasStatusCause, resolveControllerRef, toError } from '../controller-utils.js';
import {
  CRONJOB_KIND,
  compareJobsByStartTime,
  deleteFromActiveList,
  formatSchedule,
  getJobFromTemplate2,
  getJobName,
  getRef,
  inActiveList,
  inActiveListByName,
  mostRecentScheduleTime,
  nextScheduleTimeDuration,
} from './utils.js';

/** Options of {@link CronJobController}. */
export interface CronJobControllerOptions {
  client: Clientset;
  informers: SharedInformerFactory;
  clock: Clock;
  /** Default worker count of {@link CronJobController.run} (`--concurrent-cron-job-syncs`, 5). */
  workers?: number;
  /** Default: a recorder with component `cronjob-controller`. */
  recorder?: EventRecorder;
  /**
   * The zone of CronJobs without `timeZone` (upstream: the controller manager's local zone; its
   * images run in UTC). Default `UTC`, so that schedules do not depend on the host.
   */
  localTimeZone?: string;
  logger?: Logger;
}

/** What {@link CronJobController.syncCronJob} decided. */
interface SyncOutcome {
  requeueAfter?: number;
  updateStatus: boolean;
  error?: unknown;
}

/** Go's `%v` of an error: its message. */
const errText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** See the module documentation. */
export class CronJobController {
  readonly queue: RateLimitingQueue;
  /** The per-key sync; a field so tests can wrap or replace it. */
  syncHandler: (key: string) => Promise<SyncResult>;
  readonly recorder: EventRecorder;
  private readonly client: Clientset;
  private readonly clock: Clock;
  private readonly informers: SharedInformerFactory;
  private readonly jobLister: Lister<Job>;
  private readonly cronJobLister: Lister<CronJob>;
  private readonly defaultWorkers: number;
  private readonly localTimeZone: string;
  private readonly logger: Logger;

  constructor(opts: CronJobControllerOptions) {
    this.client = opts.client;
    this.clock = opts.clock;
    this.informers = opts.informers;
    this.defaultWorkers = opts.workers ?? 5;
    this.localTimeZone = opts.localTimeZone ?? 'UTC';
    this.logger = opts.logger ?? stderrLogger;
    this.recorder = opts.recorder ?? new EventRecorder(opts.client, { component: 'cronjob-controller', clock: opts.clock, logger: this.logger });
    this.queue = new RateLimitingQueue<string>({ clock: opts.clock, name: 'cronjob' });

    const jobs = opts.informers.batch.jobs();
    jobs.addEventHandler({
      add: (job) => this.addJob(job),
      update: (old, cur) => this.updateJob(old, cur),
      delete: (obj) => this.deleteJob(obj instanceof DeletedFinalStateUnknown ? obj.obj : obj),
    });
    const cronJobs = opts.informers.batch.cronJobs();
    cronJobs.addEventHandler({
      add: (cj) => this.enqueueController(cj),
      update: (old, cur) => this.updateCronJob(old, cur),
      delete: (obj) => this.enqueueController(obj instanceof DeletedFinalStateUnknown ? obj.obj : obj),
    });
    this.jobLister = jobs.lister();
    this.cronJobLister = cronJobs.lister();
    this.syncHandler = (key) => this.sync(key);
  }

  /** Waits for the Job and CronJob caches, then runs `workers` workers until `signal` aborts. */
  async run(workers: number = this.defaultWorkers, signal?: AbortSignal): Promise<void> {
    await runWorkersWhenSynced([this.informers.batch.jobs(), this.informers.batch.cronJobs()], this.queue, workers, (key) => this.syncHandler(key), {
      name: 'cronjob',
      logger: this.logger,
      signal,
    });
  }

  private event(cj: CronJob, type: EventType, reason: string, message: string): void {
    this.recorder.event(withTypeMeta(cj, CRONJOB_KIND.apiVersion, CRONJOB_KIND.kind), type, reason, message);
  }

  // ---- event handlers ----

  private enqueueController(cj: CronJob): void {
    this.queue.add(metaNamespaceKey(cj));
  }

  private resolveControllerRef(namespace: string, ref: { kind: string; name: string; uid: string }): CronJob | undefined {
    return resolveControllerRef(this.cronJobLister, CRONJOB_KIND.kind, namespace, ref);
  }

  private addJob(job: Job): void {
    if (job.metadata?.deletionTimestamp) {
      // Seen for the first time while being deleted (after a restart): not a creation.
      this.deleteJob(job);
      return;
    }
    const ref = getControllerOf(job);
    if (!ref) return;
    const cj = this.resolveControllerRef(job.metadata?.namespace ?? '', ref);
    if (cj) this.enqueueController(cj);
  }

  private updateJob(old: Job, cur: Job): void {
    if (cur.metadata?.resourceVersion === old.metadata?.resourceVersion) return;
    const curRef = getControllerOf(cur);
    const oldRef = getControllerOf(old);
    if (oldRef && !semanticDeepEqual(curRef, oldRef)) {
      const cj = this.resolveControllerRef(old.metadata?.namespace ?? '', oldRef);
      if (cj) this.enqueueController(cj);
    }
    if (!curRef) return;
    const cj = this.resolveControllerRef(cur.metadata?.namespace ?? '', curRef);
    if (cj) this.enqueueController(cj);
  }

  private deleteJob(job: Job): void {
    const ref = getControllerOf(job);
    if (!ref) return;
    const cj = this.resolveControllerRef(job.metadata?.namespace ?? '', ref);
    if (cj) this.enqueueController(cj);
  }

  /**
   * `updateCronJob`: a new schedule or time zone requeues the key at its next activation (sooner
   * than the queued one, if it is); any other change syncs now.
   */
  private updateCronJob(old: CronJob, cur: CronJob): void {
    if (old.spec?.schedule !== cur.spec?.schedule || (old.spec?.timeZone ?? undefined) !== (cur.spec?.timeZone ?? undefined)) {
      let sched: CronSchedule;
      try {
        sched = parseStandard(formatSchedule(cur));
      } catch {
        this.event(cur, 'Warning', 'UnParseableCronJobSchedule', `unparseable schedule for cronjob: ${cur.spec?.schedule ?? ''}`);
        return;
      }
      const t = nextScheduleTimeDuration(cur, this.clock.now(), sched, this.localTimeZone);
      if (t !== undefined) this.queue.addAfter(metaNamespaceKey(cur), t);
      return;
    }
    this.enqueueController(cur);
  }

  // ---- sync ----

  /**
   * `sync`: reconciles one CronJob (`namespace/name` key): history cleanup, then {@link syncCronJob},
   * then one status PUT if anything changed. Resolves with the requeue at the next activation.
   * @throws the status update's error, or the sync's error when no requeue was decided.
   */
  async sync(key: string): Promise<SyncResult> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const cached = this.cronJobLister.namespace(namespace).get(name);
    if (!cached) return undefined;
    const jobsToBeReconciled = this.getJobsToBeReconciled(cached);
    // One copy collects every change, for a single status update.
    const cronJob = deepCopy(cached);
    const updateStatusAfterCleanup = await this.cleanupFinishedJobs(cronJob, jobsToBeReconciled);
    const outcome = await this.syncCronJob(cronJob, jobsToBeReconciled);
    if (updateStatusAfterCleanup || outcome.updateStatus) {
      await this.client.batch.cronJobs(namespace).updateStatus(outcome.cronJob);
    }
    if (outcome.requeueAfter !== undefined) return { requeueAfter: outcome.requeueAfter };
    if (outcome.error !== undefined) {
      if (hasStatusCause(outcome.error, NAMESPACE_TERMINATING_CAUSE)) return undefined;
      throw toError(outcome.error);
    }
    return undefined;
  }

  /** `getJobsToBeReconciled`: the namespace's Jobs whose controllerRef names this CronJob. */
  private getJobsToBeReconciled(cj: CronJob): Job[] {
    return this.jobLister
      .namespace(cj.metadata?.namespace ?? '')
      .list()
      .filter((j) => getControllerOf(j)?.name === cj.metadata?.name);
  }

  /**
   * `syncCronJob`: reconciles status.active with the Jobs, then (unless the CronJob is being deleted,
   * names an unknown zone, is suspended or has an unusable schedule) creates the Job of the most
   * recent unmet activation if its deadline allows and the concurrency policy permits. Mutates
   * `cronJob` (a copy); may replace it with a fresher copy read from the API.
   */
  private async syncCronJob(cronJobIn: CronJob, jobs: readonly Job[]): Promise<SyncOutcome & { cronJob: CronJob }> {
    let cronJob = cronJobIn;
    const now = this.clock.now();
    let updateStatus = false;
    const out = (o: SyncOutcome): SyncOutcome & { cronJob: CronJob } => ({ ...o, cronJob });
    const ns = cronJob.metadata?.namespace ?? '';

    const childrenJobs = new Set<string | undefined>();
    for (const j of jobs) {
      childrenJobs.add(j.metadata?.uid);
      const found = inActiveList(cronJob, j.metadata?.uid);
      if (!found && !isJobFinished(j)) {
        let fresh: CronJob;
        try {
          fresh = await this.client.batch.cronJobs(ns).get(cronJob.metadata?.name ?? '');
        } catch (error) {
          return out({ updateStatus, error });
        }
        if (inActiveList(fresh, j.metadata?.uid)) {
          cronJob = fresh;
          continue;
        }
        // Ours but not in our active list: we crashed between creating it and updating status, our
        // cache is older than the Job, or someone created it for us to adopt.
        this.event(cronJob, 'Warning', 'UnexpectedJob', `Saw a job that the controller did not create or forgot: ${j.metadata?.name ?? ''}`);
      } else if (isJobFinished(j)) {
        if (found) {
          deleteFromActiveList(cronJob, j.metadata?.uid);
          this.event(cronJob, 'Normal', 'SawCompletedJob', `Saw completed job: ${j.metadata?.name ?? ''}, condition: ${finishedCondition(j)?.type ?? ''}`);
          updateStatus = true;
        }
        // Not only in a later sync: by then the history limit (or a TTL) may have deleted the Job,
        // and its success would never be recorded (upstream #122025).
        if (!isJobSucceeded(j)) continue;
        // A Job need not be active to count: any succeeded one moves lastSuccessfulTime.
        const completion = parseTime(j.status?.completionTime);
        const last = parseTime(cronJob.status?.lastSuccessfulTime);
        if (completion !== undefined && (last === undefined || completion > last)) {
          (cronJob.status ??= {}).lastSuccessfulTime = j.status?.completionTime;
          updateStatus = true;
        }
      }
    }

    // Active entries whose Job is gone (checked live: the cache may lag) are dropped, or the CronJob
    // would look busy forever.
    for (const ref of [...(cronJob.status?.active ?? [])]) {
      if (childrenJobs.has(ref.uid)) continue;
      try {
        await this.client.batch.jobs(ref.namespace ?? ns).get(ref.name ?? '');
      } catch (error) {
        if (!isNotFound(error)) return out({ updateStatus, error });
        this.event(cronJob, 'Normal', 'MissingJob', `Active job went missing: ${ref.name ?? ''}`);
        deleteFromActiveList(cronJob, ref.uid);
        updateStatus = true;
      }
    }

    if (cronJob.metadata?.deletionTimestamp) return out({ updateStatus });

    const timeZone = cronJob.spec?.timeZone;
    if (timeZone !== undefined && timeZone !== null) {
      const why = loadLocationError(timeZone);
      if (why !== undefined) {
        this.event(cronJob, 'Warning', 'UnknownTimeZone', `invalid timeZone: ${goQuote(timeZone)}: ${why}`);
        return out({ updateStatus });
      }
    }

    if (cronJob.spec?.suspend) return out({ updateStatus });

    let sched: CronSchedule;
    try {
      sched = parseStandard(formatSchedule(cronJob, (m) => this.event(cronJob, 'Warning', 'UnsupportedSchedule', m)));
    } catch (err) {
      // A user error in the spec: nothing to do until the spec changes.
      this.event(cronJob, 'Warning', 'UnparseableSchedule', `unparseable schedule: ${goQuote(cronJob.spec?.schedule ?? '')} : ${errText(err)}`);
      return out({ updateStatus });
    }

    let scheduledTime: number | undefined;
    try {
      scheduledTime = this.nextScheduleTime(cronJob, now, sched);
    } catch (err) {
      this.event(cronJob, 'Warning', 'InvalidSchedule', `invalid schedule: ${cronJob.spec?.schedule ?? ''} : ${errText(err)}`);
      return out({ updateStatus });
    }
    const requeue = (): SyncOutcome & { cronJob: CronJob } => {
      const t = nextScheduleTimeDuration(cronJob, now, sched, this.localTimeZone);
      return out(t === undefined ? { updateStatus } : { requeueAfter: t, updateStatus });
    };
    // No unmet activation: only after a restart or an early wake-up.
    if (scheduledTime === undefined) return requeue();

    const deadline = cronJob.spec?.startingDeadlineSeconds;
    if (deadline !== undefined && deadline !== null && scheduledTime + deadline * 1000 < now) {
      this.event(cronJob, 'Warning', 'MissSchedule', `Missed scheduled time to start a job: ${formatRFC1123Z(scheduledTime)}`);
      return requeue();
    }
    if (inActiveListByName(cronJob, ns, getJobName(cronJob, scheduledTime)) || parseTime(cronJob.status?.lastScheduleTime) === scheduledTime) {
      // Already processed.
      return requeue();
    }
    const policy = cronJob.spec?.concurrencyPolicy;
    if (policy === 'Forbid' && (cronJob.status?.active?.length ?? 0) > 0) {
      // This run is lost, as upstream: the next activation gets a new chance.
      this.event(cronJob, 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid');
      return requeue();
    }
    if (policy === 'Replace') {
      for (const ref of [...(cronJob.status?.active ?? [])]) {
        let job: Job;
        try {
          job = await this.client.batch.jobs(ref.namespace ?? ns).get(ref.name ?? '');
        } catch (error) {
          this.event(cronJob, 'Warning', 'FailedGet', `Get job: ${errText(error)}`);
          return out({ updateStatus, error });
        }
        if (!(await this.deleteJob2(cronJob, job))) {
          return out({ updateStatus, error: new Error(`could not replace job ${job.metadata?.namespace ?? ''}/${job.metadata?.name ?? ''}`) });
        }
        updateStatus = true;
      }
    }

    let jobReq: Job;
    try {
      jobReq = getJobFromTemplate2(cronJob, scheduledTime);
    } catch (error) {
      return out({ updateStatus, error });
    }
    let jobResp: Job;
    let jobAlreadyExists = false;
    try {
      jobResp = await this.client.batch.jobs(ns).create(jobReq);
    } catch (error) {
      if (hasStatusCause(error, NAMESPACE_TERMINATING_CAUSE)) return out({ updateStatus, error });
      if (!isAlreadyExists(error)) {
        this.event(cronJob, 'Warning', 'FailedCreate', `Error creating job: ${errText(error)}`);
        return out({ updateStatus, error });
      }
      // Created before, by us (then put it back in the active list) or by someone else (then
      // assume they keep the status).
      jobAlreadyExists = true;
      try {
        jobResp = await this.client.batch.jobs(ns).get(jobReq.metadata?.name ?? '');
      } catch (getError) {
        return out({ updateStatus, error: getError });
      }
      if (!isControlledBy(jobResp, cronJob) || inActiveList(cronJob, jobResp.metadata?.uid)) return out({ updateStatus });
    }
    if (jobAlreadyExists) this.logger.info({ cronjob: metaNamespaceKey(cronJob), job: jobReq.metadata?.name }, 'Job already exists');
    else this.event(cronJob, 'Normal', 'SuccessfulCreate', `Created job ${jobResp.metadata?.name ?? ''}`);

    // If we restart after creating the Job and before this status update, the deterministic name
    // keeps us from creating it twice.
    const status = (cronJob.status ??= {});
    status.active = [...(status.active ?? []), getRef(jobResp)];
    status.lastScheduleTime = formatTime(scheduledTime);
    updateStatus = true;
    return requeue();
  }

  /**
   * `nextScheduleTime`: the most recent unmet activation at or before `now` (undefined if none),
   * with the TooManyMissedTimes warning when more than 100 were missed (the most recent still runs).
   * @throws Error for a schedule whose activations do not exist.
   */
  private nextScheduleTime(cj: CronJob, now: number, sched: CronSchedule): number | undefined {
    const r = mostRecentScheduleTime(cj, now, sched, true, this.localTimeZone);
    if (r.mostRecentTime === undefined || r.mostRecentTime > now) return undefined;
    if (r.missedSchedules === 'many') {
      this.event(cj, 'Warning', 'TooManyMissedTimes', 'too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew');
      this.logger.info({ cronjob: metaNamespaceKey(cj) }, 'too many missed times');
    }
    return r.mostRecentTime;
  }

  /**
   * `cleanupFinishedJobs`: deletes the oldest Complete and Failed Jobs beyond
   * successfulJobsHistoryLimit and failedJobsHistoryLimit. Returns whether status changed.
   */
  private async cleanupFinishedJobs(cj: CronJob, jobs: readonly Job[]): Promise<boolean> {
    const successLimit = cj.spec?.successfulJobsHistoryLimit;
    const failedLimit = cj.spec?.failedJobsHistoryLimit;
    if ((successLimit === undefined || successLimit === null) && (failedLimit === undefined || failedLimit === null)) return false;
    const successful: Job[] = [];
    const failed: Job[] = [];
    for (const job of jobs) {
      const type = finishedCondition(job)?.type;
      if (type === 'Complete') successful.push(job);
      else if (type === 'Failed') failed.push(job);
    }
    let updateStatus = false;
    if (successLimit !== undefined && successLimit !== null && (await this.removeOldestJobs(cj, successful, successLimit))) updateStatus = true;
    if (failedLimit !== undefined && failedLimit !== null && (await this.removeOldestJobs(cj, failed, failedLimit))) updateStatus = true;
    return updateStatus;
  }

  /** `removeOldestJobs`: deletes all but the `maxJobs` newest (by start time) of `jobs`. */
  private async removeOldestJobs(cj: CronJob, jobs: Job[], maxJobs: number): Promise<boolean> {
    const numToDelete = jobs.length - maxJobs;
    if (numToDelete <= 0) return false;
    let updateStatus = false;
    const sorted = [...jobs].sort(compareJobsByStartTime);
    for (const job of sorted.slice(0, numToDelete)) {
      if (await this.deleteJob2(cj, job)) updateStatus = true;
    }
    return updateStatus;
  }

  /**
   * upstream `deleteJob` (of the controller, not the handler): deletes the Job (Background
   * propagation, so its pods follow) and drops it from status.active. Returns false on failure,
   * after a FailedDelete event.
   */
  private async deleteJob2(cj: CronJob, job: Job): Promise<boolean> {
    try {
      await this.client.batch.jobs(job.metadata?.namespace ?? '').delete(job.metadata?.name ?? '', { propagationPolicy: 'Background' });
    } catch (err) {
      this.event(cj, 'Warning', 'FailedDelete', `Deleted job: ${errText(err)}`);
      this.logger.error({ err, job: metaNamespaceKey(job), cronjob: metaNamespaceKey(cj) }, 'Error deleting job from cronjob');
      return false;
    }
    deleteFromActiveList(cj, job.metadata?.uid);
    this.event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${job.metadata?.name ?? ''}`);
    return true;
  }
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Go's `t.UTC().Format(time.RFC1123Z)`: `Sun, 09 Mar 2025 07:00:00 +0000`. */
export function formatRFC1123Z(t: number): string {
  const d = new Date(t);
  const p2 = (n: number): string => String(n).padStart(2, '0');
  return `${DAYS[d.getUTCDay()] ?? ''}, ${p2(d.getUTCDate())} ${MONTHS[d.getUTCMonth()] ?? ''} ${d.getUTCFullYear()} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())} +0000`;
}
