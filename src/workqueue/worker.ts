/**
 * The worker loop every controller shares: take a key from the work queue, run the controller's sync
 * handler on it, and map the outcome to queue calls in exactly one place.
 *
 * Follows replica_set.go `worker`/`processNextWorkItem` and deployment_controller.go `handleErr`
 * (kubernetes/kubernetes pkg/controller), with controller-runtime's `reconcileHandler` result switch
 * (sigs.k8s.io/controller-runtime pkg/internal/controller/controller.go):
 *
 * | sync outcome                         | queue calls                                   |
 * |--------------------------------------|-----------------------------------------------|
 * | resolved, no `requeueAfter`          | `forget(key)`                                 |
 * | resolved with `{requeueAfter: ms}`   | `forget(key)`, `addAfter(key, ms)`            |
 * | threw {@link TerminalError}          | `forget(key)` + error log (no retry)          |
 * | threw, fewer than maxRetries retries | `addRateLimited(key)` + error log             |
 * | threw, maxRetries retries done       | `forget(key)` + "dropping … out of the queue" |
 *
 * and always `done(key)` afterwards. Controllers never call `forget` themselves. Every error goes
 * through util/runtime's `handleError`: logged with the key, counted in
 * `kubeplane_handled_errors_total{component=<name>}`; a throwing sync never stops the workers.
 */
import type { RateLimitingQueue } from './queue.js';
import { handleError, stderrLogger, type Logger } from '../util/runtime/index.js';

/** What a sync handler may ask for: `{requeueAfter: ms}` to be synced again after that delay. */
// eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- lets handlers that never requeue simply not return
export type SyncResult = { requeueAfter?: number } | undefined | void;

/**
 * An error a sync handler throws when retrying cannot help (e.g. an invalid spec): the key is
 * forgotten instead of requeued (controller-runtime `reconcile.TerminalError`).
 */
export class TerminalError extends Error {
  override readonly name = 'TerminalError';
}

/** Options of {@link runWorkers}. */
export interface RunWorkersOptions {
  /** Controller name for log lines, e.g. `replicaset`. */
  name: string;
  /**
   * Retries after which a failing key is dropped (deployment_controller.go `maxRetries = 15`): the
   * key is requeued while `queue.numRequeues(key) < maxRetries`. Unset: retry forever (RS controller).
   */
  maxRetries?: number;
  logger?: Logger;
  /** Aborting it shuts the queue down; the workers then drain what is queued and exit. */
  signal?: AbortSignal;
}

/**
 * Runs one item through the handler (`processNextWorkItem`). Resolves false once the queue is shut
 * down and empty, true otherwise. Never rejects: handler failures go to the queue and the log.
 */
export async function processNextWorkItem(
  queue: RateLimitingQueue,
  syncHandler: (key: string) => Promise<SyncResult>,
  opts: Omit<RunWorkersOptions, 'signal'>,
): Promise<boolean> {
  const next = await queue.get();
  if (next.shutdown) return false;
  const key = next.item;
  const logger = opts.logger ?? stderrLogger;
  try {
    const result = await syncHandler(key);
    queue.forget(key);
    if (result && result.requeueAfter !== undefined) queue.addAfter(key, result.requeueAfter);
  } catch (err) {
    // Every failure is logged with the key and counted (utilruntime.HandleError); only the queue call differs.
    let msg: string;
    if (err instanceof TerminalError) {
      queue.forget(key);
      msg = 'Terminal error syncing, not retrying';
    } else if (opts.maxRetries !== undefined && queue.numRequeues(key) >= opts.maxRetries) {
      queue.forget(key);
      msg = 'Dropping key out of the queue';
    } else {
      queue.addRateLimited(key);
      msg = 'Error syncing, requeuing';
    }
    handleError(err, { component: opts.name, logger, msg, controller: opts.name, key });
  } finally {
    queue.done(key);
  }
  return true;
}

/**
 * Starts `workers` concurrent loops of {@link processNextWorkItem} and resolves when all of them have
 * exited, i.e. after the queue was shut down (by `opts.signal` or by the caller) and drained.
 */
export async function runWorkers(
  queue: RateLimitingQueue,
  workers: number,
  syncHandler: (key: string) => Promise<SyncResult>,
  opts: RunWorkersOptions,
): Promise<void> {
  const { signal, ...itemOpts } = opts;
  if (signal) {
    if (signal.aborted) queue.shutDown();
    else signal.addEventListener('abort', () => queue.shutDown(), { once: true });
  }
  const worker = async (): Promise<void> => {
    while (await processNextWorkItem(queue, syncHandler, itemOpts)) {
      // keep going until shutdown
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, workers) }, () => worker()));
}

/** Anything whose cache can be waited for (a SharedIndexInformer). */
export interface Syncable {
  waitForSync(signal?: AbortSignal): Promise<boolean>;
}

/**
 * `cache.WaitForNamedCacheSync`, then {@link runWorkers}: waits until every informer in `caches` has
 * synced; if the wait ends without them (the signal aborted first), shuts the queue down and returns
 * without starting workers. Every controller's `run` is this.
 */
export async function runWorkersWhenSynced(
  caches: readonly Syncable[],
  queue: RateLimitingQueue,
  workers: number,
  syncHandler: (key: string) => Promise<SyncResult>,
  opts: RunWorkersOptions,
): Promise<void> {
  const synced = await Promise.all(caches.map((c) => c.waitForSync(opts.signal)));
  if (!synced.every(Boolean)) {
    queue.shutDown();
    return;
  }
  await runWorkers(queue, workers, syncHandler, opts);
}
