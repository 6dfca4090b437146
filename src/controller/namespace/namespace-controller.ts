/**
 * The namespace controller: empties namespaces being deleted and finalizes them.
 *
 * Follows upstream pkg/controller/namespace/namespace_controller.go: namespace adds and updates with
 * a deletionTimestamp are queued 5 s later (`namespaceDeletionGracePeriod`, so every API server has
 * seen the deletion and refuses new content, and late creations are visible); a worker runs
 * {@link NamespacedResourcesDeleter.delete}; content still terminating is looked at again after
 * estimate/2 + 1 s (e.g. pods with the default 30 s grace period: 16 s), other failures are retried
 * with the namespace rate limiter (max of 5 ms…60 s exponential and 10 qps / burst 100). Defaults as
 * kube-controller-manager: 10 workers (`--concurrent-namespace-syncs`), resync 5 min
 * (`--namespace-sync-period`).
 */
import type { Namespace } from '../../api/index.js';
import type { Clientset } from '../../client/index.js';
import type { SharedInformerFactory } from '../../informers/index.js';
import { RateLimitingQueue, bucketRateLimiter, itemExponentialFailureRateLimiter, maxOfRateLimiter } from '../../workqueue/index.js';
import type { Clock, Timer } from '../../util/clock/index.js';
import { type Logger } from '../../util/runtime/index.js';
import { runWorkers, type SyncResult } from '../../workqueue/index.js';
import { NamespacedResourcesDeleter, ResourcesRemainingError, type NamespacedResource } from './namespaced-resources-deleter.js';

/** upstream `namespaceDeletionGracePeriod`, ms. */
export const NAMESPACE_DELETION_GRACE_PERIOD_MS = 5000;
/** kube-controller-manager `--namespace-sync-period` default, ms. */
export const NAMESPACE_RESYNC_PERIOD_MS = 5 * 60_000;

export interface NamespaceControllerOptions {
  client: Clientset;
  informers: SharedInformerFactory;
  clock: Clock;
  /**
   * The served resources, asked again at every namespace sync so that resources registered at run
   * time are emptied too (upstream's `discoverResourcesFn`: discovery's preferred resources).
   */
  discoverResources: () => Promise<readonly NamespacedResource[]>;
  logger?: Logger;
  /** Resync period, ms (default 5 min): every namespace is looked at again. */
  resyncPeriodMs?: number;
}

export class NamespaceController {
  private readonly queue: RateLimitingQueue;
  private readonly deleter: NamespacedResourcesDeleter;
  private readonly informers: SharedInformerFactory;
  private readonly clock: Clock;
  private readonly logger: Logger | undefined;
  private readonly resyncPeriodMs: number;
  private resyncTimer: Timer | undefined;

  constructor(opts: NamespaceControllerOptions) {
    this.informers = opts.informers;
    this.clock = opts.clock;
    this.logger = opts.logger;
    this.resyncPeriodMs = opts.resyncPeriodMs ?? NAMESPACE_RESYNC_PERIOD_MS;
    this.queue = new RateLimitingQueue<string>({
      clock: opts.clock,
      name: 'namespace',
      rateLimiter: maxOfRateLimiter(itemExponentialFailureRateLimiter(5, 60_000), bucketRateLimiter(10, 100, opts.clock)),
    });
    this.deleter = new NamespacedResourcesDeleter({
      client: opts.client,
      clock: opts.clock,
      discoverResources: opts.discoverResources,
      ...(opts.logger ? { logger: opts.logger } : {}),
    });
    opts.informers.core.namespaces().addEventHandler({
      add: (ns) => this.enqueueNamespace(ns),
      update: (_old, ns) => this.enqueueNamespace(ns),
    });
  }

  /** Queues a namespace being deleted, 5 s from now. */
  private enqueueNamespace(ns: Namespace): void {
    if (!ns.metadata?.deletionTimestamp) return;
    this.queue.addAfter(ns.metadata.name ?? '', NAMESPACE_DELETION_GRACE_PERIOD_MS);
  }

  /** Starts the informers, waits for the namespace cache, then runs `workers` workers until `signal` aborts. */
  async run(workers: number, signal?: AbortSignal): Promise<void> {
    const informer = this.informers.core.namespaces();
    this.informers.start();
    await informer.waitForSync(signal);
    if (signal?.aborted) return;
    this.scheduleResync();
    signal?.addEventListener('abort', () => this.resyncTimer?.stop(), { once: true });
    await runWorkers(this.queue, workers, (key) => this.syncNamespaceFromKey(key), { name: 'namespace', signal, logger: this.logger });
    this.resyncTimer?.stop();
  }

  /** The informer resync: every namespace passes through the handlers again. */
  private scheduleResync(): void {
    this.resyncTimer = this.clock.setTimer(this.resyncPeriodMs, () => {
      for (const ns of this.informers.core.namespaces().lister().list()) this.enqueueNamespace(ns);
      this.scheduleResync();
    });
  }

  /** upstream `syncNamespaceFromKey`; ResourcesRemainingError becomes a requeue after estimate/2 + 1 s. */
  private async syncNamespaceFromKey(key: string): Promise<SyncResult> {
    if (!this.informers.core.namespaces().lister().get(key)) return;
    try {
      await this.deleter.delete(key);
    } catch (err) {
      if (!(err instanceof ResourcesRemainingError)) throw err;
      // Integer division as upstream: estimate 30 s ⇒ 30/2 + 1 = 16 s.
      return { requeueAfter: (Math.floor(err.estimate / 2) + 1) * 1000 };
    }
  }
}
