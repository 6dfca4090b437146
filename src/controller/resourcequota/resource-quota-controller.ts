/**
 * The resource quota controller: keeps each ResourceQuota's `status.hard` equal to `spec.hard` and its
 * `status.used` equal to what the namespace's objects use of each hard resource (compute resources of
 * pods that are not terminal, object counts `count/<resource>.<group>` and the legacy `pods`,
 * `services`, `configmaps`…, claims' storage; scoped quotas count only the pods in their scopes).
 *
 * Followed (v1.33): pkg/controller/resourcequota/resource_quota_controller.go (addQuota/updateQuota,
 * syncResourceQuotaFromKey, syncResourceQuota: used = previous used overwritten by the computed
 * usage, masked to the hard resources; an update only when hard or used changed; the periodic
 * resync of `--resource-quota-sync-period`, 5 min), resource_quota_monitor.go (replenishment: a
 * quota is recomputed when an object it counts is deleted, or updated so that its usage changes) and
 * staging/src/k8s.io/apiserver/pkg/quota/v1/resources.go CalculateUsage. The usage of one object is
 * machinery/quota's (shared with the API server's admission plugin, which charges creates at once).
 *
 * The informers of the counted resources are started when a quota first names them (upstream's
 * monitor discovers every resource up front): built-in resources from the catalogue, others (custom
 * resources) through `discoverResources` when it lists them; a resource found nowhere is not
 * counted, so its `count/…` does not appear in `used` (and admission refuses what it limits with
 * `status unknown for quota`) until it is served.
 */
import type { ResourceQuota } from '../../api/index.js';
import { kindOfResource, type ResourceDescriptor } from '../../api/catalogue/index.js';
import type { Clientset } from '../../client/index.js';
import { DeletedFinalStateUnknown, type Lister, type SharedIndexInformer, type SharedInformerFactory } from '../../informers/index.js';
import type { MetaObject } from '../../api/index.js';
import {
  addResources,
  groupResourceOfQuotaName,
  maskResources,
  objectUsage,
  quotaMatches,
  resourceListsEqual,
  type QuotaGroupResource,
  type ResourceList,
} from '../../machinery/quota/index.js';
import type { Clock } from '../../util/clock/index.js';
import { stderrLogger, type Logger } from '../../util/runtime/index.js';
import { RateLimitingQueue, runWorkersWhenSynced, type SyncResult } from '../../workqueue/index.js';

/** kube-controller-manager's `--resource-quota-sync-period` default (5 min), in ms. */
export const DEFAULT_RESOURCE_QUOTA_SYNC_PERIOD_MS = 5 * 60_000;
/** kube-controller-manager's `--concurrent-resource-quota-syncs` default. */
export const DEFAULT_RESOURCE_QUOTA_WORKERS = 5;

/** Options of {@link ResourceQuotaController}. */
export interface ResourceQuotaControllerOptions {
  client: Clientset;
  informers: SharedInformerFactory;
  clock: Clock;
  /** How often (ms) every quota is recomputed even without a change seen; default 5 min. */
  resyncPeriodMs?: number;
  /** The served resources (discovery's preferred versions), to count resources the catalogue does not know. */
  discoverResources?: () => Promise<readonly ResourceDescriptor[]>;
  logger?: Logger;
}

const grKey = (gr: QuotaGroupResource): string => `${gr.resource}.${gr.group}`;

/** Recomputes quota usage. Work items are quota keys `namespace/name`. */
export class ResourceQuotaController {
  private readonly queue: RateLimitingQueue;
  private readonly quotaLister: Lister<ResourceQuota>;
  private readonly logger: Logger;
  private readonly resyncPeriodMs: number;
  /** The informers of the counted resources, by `resource.group`, started on first use. */
  private readonly monitors = new Map<string, SharedIndexInformer<MetaObject>>();
  private signal: AbortSignal | undefined;
  /** Set by {@link run}: informers created from then on are started here (before, the factory's owner starts them). */
  private running = false;

  constructor(private readonly opts: ResourceQuotaControllerOptions) {
    this.logger = opts.logger ?? stderrLogger;
    this.resyncPeriodMs = opts.resyncPeriodMs ?? DEFAULT_RESOURCE_QUOTA_SYNC_PERIOD_MS;
    this.queue = new RateLimitingQueue<string>({ clock: opts.clock, name: 'resourcequota_primary' });
    const quotas = opts.informers.core.resourceQuotas();
    this.quotaLister = quotas.lister();
    quotas.addEventHandler({
      add: (rq) => this.enqueue(rq),
      // `updateQuota`: a spec change, or a status that no longer reflects the spec.
      update: (old, rq) => {
        if (!resourceListsEqual(old.spec?.hard, rq.spec?.hard) || JSON.stringify(old.spec) !== JSON.stringify(rq.spec) || !resourceListsEqual(rq.spec?.hard, rq.status?.hard)) this.enqueue(rq);
      },
    });
    // Pods are always watched (as upstream's replenishment of the pod evaluator).
    this.monitor(kindOfResource('', 'pods') as ResourceDescriptor);
  }

  /** Waits for the caches, then runs `workers` workers until `signal` aborts. */
  async run(workers = DEFAULT_RESOURCE_QUOTA_WORKERS, signal?: AbortSignal): Promise<void> {
    this.signal = signal;
    this.running = true;
    const caches = [this.opts.informers.core.resourceQuotas(), ...this.monitors.values()];
    await runWorkersWhenSynced(caches, this.queue, workers, (key) => this.syncResourceQuotaFromKey(key), { name: 'resourcequota', logger: this.logger, signal });
  }

  private enqueue(rq: ResourceQuota): void {
    this.queue.add(`${rq.metadata?.namespace ?? ''}/${rq.metadata?.name ?? ''}`);
  }

  /** The informer of `gr`: the running one, or one started for the catalogue's or discovery's descriptor; undefined when neither serves it namespaced. */
  private async monitorOf(gr: QuotaGroupResource): Promise<SharedIndexInformer<MetaObject> | undefined> {
    const existing = this.monitors.get(grKey(gr));
    if (existing) return existing;
    let desc: ResourceDescriptor | undefined = kindOfResource(gr.group, gr.resource);
    if (!desc && this.opts.discoverResources) desc = (await this.opts.discoverResources()).find((d) => d.group === gr.group && d.resource === gr.resource);
    return desc?.namespaced ? this.monitor(desc) : undefined;
  }

  /** The informer of `desc`, created with its replenishment handlers and started on first use. */
  private monitor(desc: ResourceDescriptor): SharedIndexInformer<MetaObject> {
    const gr = { group: desc.group, resource: desc.resource };
    const existing = this.monitors.get(grKey(gr));
    if (existing) return existing;
    const informer = this.opts.informers.forResource<MetaObject>(desc);
    informer.addEventHandler({
      update: (old, obj) => {
        // Every pod status write arrives here: look at usage only in namespaces that have a quota
        // (upstream's replenishQuota checks the namespace's quotas first too).
        if (this.quotaLister.namespace(obj.metadata?.namespace ?? '').list().length === 0) return;
        const now = this.opts.clock.now();
        if (!resourceListsEqual(objectUsage(gr, old, now), objectUsage(gr, obj, now))) this.replenish(gr, obj);
      },
      delete: (obj) => this.replenish(gr, obj instanceof DeletedFinalStateUnknown ? (obj.obj) : obj),
    });
    this.monitors.set(grKey(gr), informer);
    if (this.running) this.opts.informers.start();
    return informer;
  }

  /** `replenishQuota`: every quota of the object's namespace that tracks a resource of `gr` is recomputed. */
  private replenish(gr: QuotaGroupResource, obj: MetaObject): void {
    const ns = obj.metadata?.namespace;
    if (!ns) return;
    const tracks = (name: string): boolean => {
      const counted = groupResourceOfQuotaName(name);
      return counted !== undefined && grKey(counted) === grKey(gr);
    };
    for (const rq of this.quotaLister.namespace(ns).list()) if (Object.keys(rq.spec?.hard ?? {}).some(tracks)) this.enqueue(rq);
  }

  /** `syncResourceQuotaFromKey`: a quota gone from the cache needs nothing; the next periodic resync is scheduled. */
  async syncResourceQuotaFromKey(key: string): Promise<SyncResult> {
    const rq = this.quotaLister.get(key);
    if (!rq) return undefined;
    await this.syncResourceQuota(rq);
    return { requeueAfter: this.resyncPeriodMs };
  }

  /**
   * `syncResourceQuota`: status.hard = spec.hard; status.used = the previous used overwritten by the
   * usage computed now, masked to the hard resources; written only when either changed.
   * @throws StatusError from the status update (a Conflict is retried with rate limit)
   */
  async syncResourceQuota(rq: ResourceQuota): Promise<void> {
    const hard: ResourceList = { ...rq.spec?.hard };
    const names = Object.keys(hard);
    const newUsage = await this.calculateUsage(rq, hard);
    const used = maskResources({ ...rq.status?.used, ...newUsage }, names);
    if (resourceListsEqual(rq.status?.hard, hard) && resourceListsEqual(rq.status?.used, used)) return;
    const updated: ResourceQuota = { ...structuredClone(rq), status: { hard, used } };
    await this.opts.client.core.resourceQuotas(rq.metadata?.namespace ?? '').updateStatus(updated);
  }

  /** `CalculateUsage`: per counted resource, the sum over the namespace's objects the quota matches (zero when none). */
  private async calculateUsage(rq: ResourceQuota, hard: ResourceList): Promise<ResourceList> {
    const ns = rq.metadata?.namespace ?? '';
    const byGR = new Map<string, { gr: QuotaGroupResource; names: string[] }>();
    for (const name of Object.keys(hard)) {
      const gr = groupResourceOfQuotaName(name);
      if (!gr) continue;
      const entry = byGR.get(grKey(gr)) ?? { gr, names: [] };
      entry.names.push(name);
      byGR.set(grKey(gr), entry);
    }
    let usage: ResourceList = {};
    const now = this.opts.clock.now();
    for (const { gr, names } of byGR.values()) {
      const informer = await this.monitorOf(gr);
      if (!informer) continue;
      if (!informer.hasSynced() && !(await informer.waitForSync(this.signal))) continue;
      for (const name of names) usage[name] = '0';
      for (const obj of informer.lister().namespace(ns).list()) {
        if (!quotaMatches(rq, hard, gr, obj)) continue;
        usage = addResources(usage, maskResources(objectUsage(gr, obj, now), names));
      }
    }
    return usage;
  }
}
