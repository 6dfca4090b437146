/**
 * The TTL-after-finished controller: deletes a finished Job (a true `Complete` or `Failed`
 * condition) `spec.ttlSecondsAfterFinished` seconds after it finished, with its pods.
 *
 * Follows kubernetes/kubernetes pkg/controller/ttlafterfinished/ttlafterfinished_controller.go:
 * - handlers enqueue Jobs not being deleted that have a TTL and have finished (`needsCleanup`);
 * - `processJob`: from the cache, `processTTL` either requeues the key after the time left (on the
 *   clock) or reports the TTL expired; then the fresh Job is read from the API and checked again
 *   (the TTL may have been changed or the Job re-created), and only then deleted, with
 *   `propagationPolicy: Foreground` and the fresh UID as a precondition, as upstream (the pods go
 *   first, the Job last);
 * - the finish time is the `lastTransitionTime` of that condition; a condition without one is an
 *   error (retried with back-off); a finish time in the future (clock skew) only defers the cleanup.
 * Upstream records no events here, and neither do we.
 */
import type { Job } from '../../api/index.js';
import type { Clientset } from '../../client/index.js';
import type { Lister, SharedInformerFactory } from '../../informers/index.js';
import { isNotFound } from '../../machinery/errors/index.js';
import { metaNamespaceKey, splitMetaNamespaceKey } from '../../machinery/meta/index.js';
import { parseTime, type Clock } from '../../util/clock/index.js';
import { stderrLogger, type Logger } from '../../util/runtime/index.js';
import { RateLimitingQueue, runWorkersWhenSynced, type SyncResult } from '../../workqueue/index.js';
import { finishedCondition } from '../batch-util.js';

/** Options of {@link TTLAfterFinishedController}. */
export interface TTLAfterFinishedControllerOptions {
  client: Clientset;
  informers: SharedInformerFactory;
  clock: Clock;
  /** Default worker count of {@link TTLAfterFinishedController.run} (`--concurrent-ttl-after-finished-syncs`, 5). */
  workers?: number;
  logger?: Logger;
}

/** `needsCleanup`: the Job has a TTL and has finished. */
export function needsCleanup(job: Job): boolean {
  return job.spec?.ttlSecondsAfterFinished !== undefined && job.spec.ttlSecondsAfterFinished !== null && finishedCondition(job) !== undefined;
}

/**
 * `getFinishAndExpireTime`: when the Job finished and when its TTL expires, in ms since the epoch.
 * @throws Error when the Job does not need cleanup or its finished condition has no (valid)
 *   `lastTransitionTime` (upstream's "unable to find the time when the Job x/y finished").
 */
export function getFinishAndExpireTime(job: Job): { finishAt: number; expireAt: number } {
  const id = `${job.metadata?.namespace ?? ''}/${job.metadata?.name ?? ''}`;
  if (!needsCleanup(job)) throw new Error(`job ${id} should not be cleaned up`);
  const finishAt = parseTime(finishedCondition(job)?.lastTransitionTime);
  if (finishAt === undefined) throw new Error(`unable to find the time when the Job ${id} finished`);
  return { finishAt, expireAt: finishAt + (job.spec?.ttlSecondsAfterFinished ?? 0) * 1000 };
}

/** See the module documentation. */
export class TTLAfterFinishedController {
  readonly queue: RateLimitingQueue;
  /** The per-key sync; a field so tests can wrap or replace it. */
  syncHandler: (key: string) => Promise<SyncResult>;
  private readonly client: Clientset;
  private readonly clock: Clock;
  private readonly informers: SharedInformerFactory;
  private readonly jLister: Lister<Job>;
  private readonly defaultWorkers: number;
  private readonly logger: Logger;

  constructor(opts: TTLAfterFinishedControllerOptions) {
    this.client = opts.client;
    this.clock = opts.clock;
    this.informers = opts.informers;
    this.defaultWorkers = opts.workers ?? 5;
    this.logger = opts.logger ?? stderrLogger;
    this.queue = new RateLimitingQueue<string>({ clock: opts.clock, name: 'ttl_jobs_to_delete' });
    const jobs = opts.informers.batch.jobs();
    jobs.addEventHandler({
      add: (job) => this.addJob(job),
      update: (_old, cur) => this.addJob(cur),
    });
    this.jLister = jobs.lister();
    this.syncHandler = (key) => this.processJob(key);
  }

  /** Waits for the Job cache, then runs `workers` workers until `signal` aborts. */
  async run(workers: number = this.defaultWorkers, signal?: AbortSignal): Promise<void> {
    await runWorkersWhenSynced([this.informers.batch.jobs()], this.queue, workers, (key) => this.syncHandler(key), {
      name: 'ttlafterfinished',
      logger: this.logger,
      signal,
    });
  }

  /** `addJob` / `updateJob`: only Jobs that are not being deleted and need cleanup. */
  private addJob(job: Job): void {
    if (job.metadata?.deletionTimestamp || !needsCleanup(job)) return;
    this.queue.add(metaNamespaceKey(job));
  }

  /**
   * `processJob`: deletes the Job `key` names once its TTL has expired, as read first from the cache
   * and then from a fresh GET; requeues the key at the expiry otherwise.
   */
  async processJob(key: string): Promise<SyncResult> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const cached = this.jLister.namespace(namespace).get(name);
    if (!cached) return undefined;
    const first = this.processTTL(cached);
    if (first.expiredAt === undefined) return first.result;

    // The cached TTL may be stale: check the Job as it is now before deleting it.
    let fresh: Job;
    try {
      fresh = await this.client.batch.jobs(namespace).get(name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
    const second = this.processTTL(fresh);
    if (second.expiredAt === undefined) return second.result;
    this.logger.info({ job: key }, 'Cleaning up Job');
    try {
      await this.client.batch.jobs(namespace).delete(name, {
        propagationPolicy: 'Foreground',
        ...(fresh.metadata?.uid ? { preconditions: { uid: fresh.metadata.uid } } : {}),
      });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
    return undefined;
  }

  /**
   * `processTTL`: `expiredAt` set when the TTL has expired; otherwise `result` requeues the key when
   * it will (nothing when the Job is being deleted or needs no cleanup).
   * @throws Error from {@link getFinishAndExpireTime} (the key is retried with back-off).
   */
  private processTTL(job: Job): { expiredAt?: number; result?: SyncResult } {
    if (job.metadata?.deletionTimestamp || !needsCleanup(job)) return {};
    const now = this.clock.now();
    const { finishAt, expireAt } = getFinishAndExpireTime(job);
    if (finishAt > now) {
      this.logger.info({ job: metaNamespaceKey(job) }, 'Warning: Found Job finished in the future. This is likely due to time skew in the cluster. Job cleanup will be deferred.');
    }
    const remaining = expireAt - now;
    if (remaining <= 0) return { expiredAt: expireAt };
    return { result: { requeueAfter: remaining } };
  }
}
