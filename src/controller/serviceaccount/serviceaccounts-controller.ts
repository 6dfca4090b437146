/**
 * The serviceaccounts controller: makes sure every active namespace has the `default` service
 * account, creating it when a namespace appears and again when someone deletes it.
 *
 * Followed (v1.33): pkg/controller/serviceaccount/serviceaccounts_controller.go (serviceAccountDeleted,
 * namespaceAdded/namespaceUpdated, syncNamespace: skip namespaces that are not Active, create the
 * missing accounts, ignore AlreadyExists and the Forbidden of a namespace being terminated).
 */
import type { Namespace, ServiceAccount } from '../../api/index.js';
import type { Clientset } from '../../client/index.js';
import { DeletedFinalStateUnknown, type Lister, type SharedInformerFactory } from '../../informers/index.js';
import { isAlreadyExists, isForbidden } from '../../machinery/errors/index.js';
import type { Clock } from '../../util/clock/index.js';
import { RateLimitingQueue } from '../../workqueue/index.js';
import { stderrLogger, type Logger } from '../../util/runtime/index.js';
import { runWorkersWhenSynced } from '../../workqueue/index.js';

/** The accounts every namespace gets (`DefaultServiceAccountsControllerOptions`). */
export const DEFAULT_SERVICE_ACCOUNTS: readonly string[] = ['default'];
/** kube-controller-manager's `--concurrent-serviceaccount-syncs` default. */
export const DEFAULT_SERVICE_ACCOUNT_WORKERS = 1;

/** Options of {@link ServiceAccountsController}. */
export interface ServiceAccountsControllerOptions {
  client: Clientset;
  informers: SharedInformerFactory;
  clock: Clock;
  logger?: Logger;
}

/** Creates the default service account of every namespace. Work items are namespace names. */
export class ServiceAccountsController {
  private readonly queue: RateLimitingQueue;
  private readonly namespaces: Lister<Namespace>;
  private readonly serviceAccounts: Lister<ServiceAccount>;
  private readonly logger: Logger;

  constructor(private readonly opts: ServiceAccountsControllerOptions) {
    this.logger = opts.logger ?? stderrLogger;
    this.queue = new RateLimitingQueue<string>({ clock: opts.clock, name: 'serviceaccount' });
    this.namespaces = opts.informers.core.namespaces().lister();
    this.serviceAccounts = opts.informers.core.serviceAccounts().lister();
    opts.informers.core.namespaces().addEventHandler({
      add: (ns) => this.queue.add(ns.metadata?.name ?? ''),
      update: (_old, ns) => this.queue.add(ns.metadata?.name ?? ''),
    });
    opts.informers.core.serviceAccounts().addEventHandler({
      delete: (obj) => {
        const sa = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
        if (DEFAULT_SERVICE_ACCOUNTS.includes(sa.metadata?.name ?? '')) this.queue.add(sa.metadata?.namespace ?? '');
      },
    });
  }

  /** Waits for the caches, then runs `workers` workers until `signal` aborts. */
  async run(workers = DEFAULT_SERVICE_ACCOUNT_WORKERS, signal?: AbortSignal): Promise<void> {
    const inf = this.opts.informers;
    await runWorkersWhenSynced([inf.core.namespaces(), inf.core.serviceAccounts()], this.queue, workers, (key) => this.syncNamespace(key), { name: 'serviceaccount', logger: this.logger, signal });
  }

  /** `syncNamespace`: creates the missing default accounts of an Active namespace. */
  async syncNamespace(name: string): Promise<void> {
    const ns = this.namespaces.get(name);
    if (!ns || ns.status?.phase !== 'Active' || ns.metadata?.deletionTimestamp) return;
    for (const sa of DEFAULT_SERVICE_ACCOUNTS) {
      if (this.serviceAccounts.namespace(name).get(sa)) continue;
      try {
        await this.opts.client.core.serviceAccounts(name).create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa, namespace: name } });
      } catch (err) {
        // Created meanwhile, or the namespace began terminating: nothing to do.
        if (!isAlreadyExists(err) && !isForbidden(err)) throw err;
      }
    }
  }
}
