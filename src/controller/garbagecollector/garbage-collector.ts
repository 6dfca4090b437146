/**
 * The garbage collector: deletes objects whose owners are all gone (Background), deletes the
 * dependents of an owner being deleted with the `foregroundDeletion` finalizer before removing that
 * finalizer (Foreground), and removes an owner's references from its dependents before removing its
 * `orphan` finalizer (Orphan).
 *
 * Follows upstream pkg/controller/garbagecollector/garbagecollector.go:
 * - `attemptToDeleteWorker` / `attemptToDeleteItem`: an item being deleted without
 *   `foregroundDeletion` is skipped; a missing item (404 or another uid) is virtually deleted from
 *   the graph; an item deleting its dependents goes to `processDeletingDependentsItem` (remove the
 *   finalizer once no dependent with `blockOwnerDeletion: true` is left, else queue those
 *   dependents); otherwise its owner references are classified (`classifyReferences`, `isDangling`):
 *   **dangling** (owner absent: absent-owner cache, or a live GET in the dependent's namespace — cluster
 *   scope for cluster-scoped kinds — gives 404 or another uid), **waiting** (owner being deleted with
 *   `foregroundDeletion`), **solid** (otherwise);
 *   - any solid ⇒ keep it; remove the dangling and waiting references (a waiting owner must not
 *     wait for an object that stays);
 *   - some waiting and the item has dependents ⇒ delete it in the foreground (first unblocking its own
 *     references when one of its dependents is itself deleting dependents: a cycle guard);
 *   - otherwise delete it with the policy its finalizers ask for (orphan ⇒ Orphan, foregroundDeletion
 *     ⇒ Foreground, else Background), with uid and resourceVersion preconditions.
 *   A cluster-scoped item naming a namespaced owner is an error retrying cannot fix: the item is left
 *   alone (`namespacedOwnerOfClusterScopedObjectErr`).
 * - `attemptToOrphanWorker`: remove the owner's reference from every dependent, then the `orphan`
 *   finalizer; retried with backoff on failure.
 * - graph_builder.go: see graph-builder.ts; invalid cross-namespace references are reported as Warning
 *   events `OwnerRefInvalidNamespace` by the `garbage-collector-controller` component.
 * - ignored resources: `events` (core and events.k8s.io), as kube-controller-manager's defaults.
 *
 * Two choices of ours: an owner the graph has observed (same uid, same coordinates) is classified from
 * the graph without a GET (upstream notes this shortcut as a possible improvement; if the owner changes, its events re-queue the dependents); and
 * every 30 s the objects deleting their dependents are re-examined, so a missed event can never leave
 * one stuck with `foregroundDeletion` (upstream issue #77081). A restart needs nothing more: informers
 * deliver objects already being deleted as adds, which start their orphaning or foreground deletion
 * again.
 */
import type { KubeObject, OwnerReference } from '../../api/index.js';
import { groupVersionString, type Clientset, type ResourceDescriptor } from '../../client/index.js';
import { DeletedFinalStateUnknown, type SharedInformerFactory } from '../../informers/index.js';
import { isNotFound } from '../../machinery/errors/index.js';
import { RateLimitingQueue } from '../../workqueue/index.js';
import type { Clock, Timer } from '../../util/clock/index.js';
import type { EventRecorder } from '../../client/record/index.js';
import { handleError, type Logger } from '../../util/runtime/index.js';
import { runWorkers, type SyncResult } from '../../workqueue/index.js';
import { objectReferenceString, type GraphNode } from './graph.js';
import { absentKey, FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN, GraphBuilder, sameCoordinates } from './graph-builder.js';
import { GCOperations, type PropagationPolicy } from './operations.js';

/** A resource to monitor; `verbs`, when known (discovery), must include delete, list and watch. */
export type MonitoredResource = ResourceDescriptor & { verbs?: readonly string[] };

export interface GarbageCollectorOptions {
  client: Clientset;
  informers: SharedInformerFactory;
  clock: Clock;
  /**
   * The served resources (upstream: discovery's preferred resources). Owners and dependents alike are
   * monitored, except the ignored `events` and resources lacking delete/list/watch.
   */
  resources: readonly MonitoredResource[];
  /** Writes the `OwnerRefInvalidNamespace` events (component `garbage-collector-controller`). */
  recorder?: EventRecorder;
  logger?: Logger;
  /** Period of the re-scan of objects deleting their dependents, ms (default 30 s). */
  rescanPeriodMs?: number;
  /**
   * Asked every {@link resourceSyncPeriodMs} for the served resources, as upstream's
   * `GarbageCollector.Sync` re-reads discovery: resources registered since get monitors, resources
   * gone stop being observed. Absent: only `resources` are monitored.
   */
  discoverResources?: () => Promise<readonly MonitoredResource[]>;
  /** Period of {@link discoverResources}, ms (default 30 s, kube-controller-manager's). */
  resourceSyncPeriodMs?: number;
}

/** kube-controller-manager's default `--garbage-collector` ignored resources. */
export const IGNORED_RESOURCES: readonly { group: string; resource: string }[] = [
  { group: '', resource: 'events' },
  { group: 'events.k8s.io', resource: 'events' },
];

/** How often an unobserved virtual owner that does exist is re-checked, ms. */
const VIRTUAL_RECHECK_MS = 1000;
const DEFAULT_RESCAN_PERIOD_MS = 30_000;
const DEFAULT_RESOURCE_SYNC_PERIOD_MS = 30_000;
/** Dependents orphaned concurrently (upstream: one goroutine each; bounded here). */
const ORPHAN_BATCH = 500;

/** upstream `namespacedOwnerOfClusterScopedObjectErr`: the item is forgotten, not retried. */
class NamespacedOwnerOfClusterScopedObjectError extends Error {
  constructor() {
    super('cluster-scoped objects cannot refer to namespaced owners');
  }
}

/** True for resources the collector monitors. */
export function isMonitored(r: MonitoredResource): boolean {
  if (IGNORED_RESOURCES.some((i) => i.group === r.group && i.resource === r.resource)) return false;
  return !r.verbs || ['delete', 'list', 'watch'].every((v) => r.verbs?.includes(v));
}

export class GarbageCollector {
  readonly graph: GraphBuilder;
  private readonly informers: SharedInformerFactory;
  private readonly ops: GCOperations;
  private readonly clock: Clock;
  private readonly logger: Logger | undefined;
  private readonly recorder: EventRecorder | undefined;
  private readonly rescanPeriodMs: number;
  private readonly discoverResources: (() => Promise<readonly MonitoredResource[]>) | undefined;
  private readonly resourceSyncPeriodMs: number;
  /** uids of graph nodes to examine. */
  private readonly attemptToDelete: RateLimitingQueue;
  /** uids of owners whose dependents must be orphaned. */
  private readonly attemptToOrphan: RateLimitingQueue;
  private rescanTimer: Timer | undefined;
  private resourceSyncTimer: Timer | undefined;
  /** `group/resource` of the resources observed now. */
  private readonly monitored = new Set<string>();
  /** `group/resource` of the resources whose informer has our handler (it stays when a resource goes). */
  private readonly handled = new Set<string>();

  constructor(opts: GarbageCollectorOptions) {
    this.informers = opts.informers;
    this.ops = new GCOperations(opts.client);
    this.clock = opts.clock;
    this.logger = opts.logger;
    this.recorder = opts.recorder;
    this.rescanPeriodMs = opts.rescanPeriodMs ?? DEFAULT_RESCAN_PERIOD_MS;
    this.attemptToDelete = new RateLimitingQueue<string>({ clock: opts.clock, name: 'garbage_collector_attempt_to_delete' });
    this.attemptToOrphan = new RateLimitingQueue<string>({ clock: opts.clock, name: 'garbage_collector_attempt_to_orphan' });
    this.discoverResources = opts.discoverResources;
    this.resourceSyncPeriodMs = opts.resourceSyncPeriodMs ?? DEFAULT_RESOURCE_SYNC_PERIOD_MS;
    this.graph = new GraphBuilder({
      attemptToDelete: (n) => this.attemptToDelete.add(n.identity.uid),
      attemptToOrphan: (n) => this.attemptToOrphan.add(n.identity.uid),
      reportInvalidNamespaceOwnerRef: (d, ref) => this.reportInvalidNamespaceOwnerRef(d, ref),
    });
    for (const resource of opts.resources.filter(isMonitored)) this.monitor(resource);
  }

  /** Observes `resource` from now on (upstream `controllerFor`): its informer feeds the graph. */
  private monitor(resource: MonitoredResource): void {
    const key = `${resource.group}/${resource.resource}`;
    this.monitored.add(key);
    this.graph.addResource(resource);
    if (this.handled.has(key)) return;
    this.handled.add(key);
    const observed = (): boolean => this.monitored.has(key);
    this.informers.forResource(resource).addEventHandler({
      add: (obj) => observed() && this.graph.observe(resource, obj),
      update: (old, obj) => observed() && this.graph.observe(resource, obj, old),
      delete: (obj) => observed() && this.graph.observeDelete(obj instanceof DeletedFinalStateUnknown ? obj.obj : obj),
    });
  }

  /**
   * upstream `resyncMonitors`: monitors every deletable resource discovery lists now and stops
   * observing the ones it no longer lists; new informers start at once.
   * @throws what discovery throws
   */
  async resyncMonitors(): Promise<void> {
    if (!this.discoverResources) return;
    const found = (await this.discoverResources()).filter(isMonitored);
    const keys = new Set(found.map((r) => `${r.group}/${r.resource}`));
    for (const key of [...this.monitored]) if (!keys.has(key)) this.monitored.delete(key);
    for (const resource of found) this.monitor(resource);
    this.informers.start();
  }

  /**
   * Starts the informers, waits for every monitor to sync, then runs `workers` attemptToDelete and
   * `workers` attemptToOrphan workers and the periodic re-scan until `signal` aborts.
   */
  async run(workers: number, signal?: AbortSignal): Promise<void> {
    this.informers.start();
    await this.informers.waitForCacheSync(signal);
    if (signal?.aborted) return;
    this.scheduleRescan();
    this.scheduleResourceSync();
    signal?.addEventListener(
      'abort',
      () => {
        this.rescanTimer?.stop();
        this.resourceSyncTimer?.stop();
      },
      { once: true },
    );
    await Promise.all([
      runWorkers(this.attemptToDelete, workers, (uid) => this.attemptToDeleteWorker(uid), { name: 'garbagecollector', signal, logger: this.logger }),
      runWorkers(this.attemptToOrphan, workers, (uid) => this.attemptToOrphanWorker(uid), { name: 'garbagecollector-orphan', signal, logger: this.logger }),
    ]);
    this.rescanTimer?.stop();
    this.resourceSyncTimer?.stop();
  }

  /** Every resource sync period: {@link resyncMonitors}; a failed discovery is retried at the next. */
  private scheduleResourceSync(): void {
    if (!this.discoverResources) return;
    this.resourceSyncTimer = this.clock.setTimer(this.resourceSyncPeriodMs, () => {
      this.resyncMonitors()
        .catch((err: unknown) => handleError(err, { component: 'garbage-collector', msg: 'Failed to discover the served resources' }))
        .finally(() => this.scheduleResourceSync());
    });
  }

  /** Every period: queue each object deleting its dependents again (see the module doc). */
  private scheduleRescan(): void {
    this.rescanTimer = this.clock.setTimer(this.rescanPeriodMs, () => {
      for (const n of this.graph.uidToNode.values()) if (n.deletingDependents) this.attemptToDelete.add(n.identity.uid);
      this.scheduleRescan();
    });
  }

  private reportInvalidNamespaceOwnerRef(dependent: GraphNode, ref: OwnerReference): void {
    const id = dependent.identity;
    const involved = {
      apiVersion: groupVersionString(id.resource),
      kind: id.resource.kind,
      metadata: { name: id.name, namespace: id.namespace, uid: id.uid },
    };
    const message = `ownerRef ${objectReferenceString(ref, id.namespace)} does not exist in namespace ${JSON.stringify(id.namespace)}`;
    this.recorder?.event(involved, 'Warning', 'OwnerRefInvalidNamespace', message);
  }

  /** upstream `attemptToDeleteWorker` for one queued uid. */
  private async attemptToDeleteWorker(uid: string): Promise<SyncResult> {
    const node = this.graph.uidToNode.get(uid);
    // Removed from the graph meanwhile: nothing to do (its dependents were queued by the removal).
    if (!node) return;
    const wasVirtual = node.virtual;
    let outcome: 'virtualDeleted' | undefined;
    try {
      outcome = await this.attemptToDeleteItem(node);
    } catch (err) {
      if (err instanceof NamespacedOwnerOfClusterScopedObjectError) return;
      throw err;
    }
    if (outcome === 'virtualDeleted') return;
    // A virtual owner that exists but has not been observed yet: look again until the informer sees it.
    if (wasVirtual && node.virtual) return { requeueAfter: VIRTUAL_RECHECK_MS };
  }

  /** upstream `attemptToDeleteItem`. Throws API errors (the worker retries with backoff). */
  private async attemptToDeleteItem(item: GraphNode): Promise<'virtualDeleted' | undefined> {
    // Deletion is a one-way trip: wait for the delete event, then handle the dependents.
    if (item.beingDeleted && !item.deletingDependents) return;
    let latest: KubeObject;
    try {
      latest = await this.ops.getObject(item.identity);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      this.graph.virtualDelete(item);
      return 'virtualDeleted';
    }
    const meta = latest.metadata ?? {};
    if (meta.uid !== item.identity.uid) {
      this.graph.virtualDelete(item);
      return 'virtualDeleted';
    }
    if (item.deletingDependents) return this.processDeletingDependentsItem(item);

    const refs = meta.ownerReferences ?? [];
    if (refs.length === 0) return;
    const { solid, dangling, waiting } = await this.classifyReferences(item, refs);
    if (solid.length > 0) {
      if (dangling.length === 0 && waiting.length === 0) return;
      await this.ops.deleteOwnerReferences(item.identity, [...dangling, ...waiting].map((r) => r.uid));
      return;
    }
    let policy: PropagationPolicy;
    if (waiting.length > 0 && item.dependents.size > 0) {
      if ([...item.dependents].some((d) => d.deletingDependents)) await this.ops.unblockOwnerReferences(item.identity, refs);
      policy = 'Foreground';
    } else {
      const finalizers = meta.finalizers ?? [];
      policy = finalizers.includes(FINALIZER_ORPHAN) ? 'Orphan' : finalizers.includes(FINALIZER_DELETE_DEPENDENTS) ? 'Foreground' : 'Background';
    }
    try {
      await this.ops.deleteObject(item.identity, policy, meta.resourceVersion, refs);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      this.graph.virtualDelete(item);
      return 'virtualDeleted';
    }
  }

  /**
   * upstream `processDeletingDependentsItem`: with no blocking dependent left, remove
   * `foregroundDeletion`; else queue the blocking dependents that are not on their way out already
   * (those being deleted are skipped by attemptToDeleteItem anyway, and their delete events re-queue
   * this owner).
   */
  private async processDeletingDependentsItem(item: GraphNode): Promise<undefined> {
    const blocking = item.blockingDependents();
    if (blocking.length === 0) {
      await this.ops.removeFinalizer(item.identity, FINALIZER_DELETE_DEPENDENTS);
      return;
    }
    for (const d of blocking) if (!d.beingDeleted) this.attemptToDelete.add(d.identity.uid);
    return;
  }

  /** Splits an object's owner references into solid, dangling and waiting (upstream `classifyReferences`). */
  private async classifyReferences(
    item: GraphNode,
    refs: readonly OwnerReference[],
  ): Promise<{ solid: OwnerReference[]; dangling: OwnerReference[]; waiting: OwnerReference[] }> {
    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    for (const ref of refs) {
      const state = await this.ownerState(item, ref);
      (state === 'dangling' ? dangling : state === 'waiting' ? waiting : solid).push(ref);
    }
    return { solid, dangling, waiting };
  }

  /**
   * Whether the owner a reference names is absent ('dangling', upstream `isDangling`), being deleted
   * in the foreground ('waiting'), or there ('solid'). An owner of a kind the GC does not monitor
   * counts as solid, so nothing is deleted on a guess.
   * @throws NamespacedOwnerOfClusterScopedObjectError for a cluster-scoped item naming a namespaced kind
   */
  private async ownerState(item: GraphNode, ref: OwnerReference): Promise<'solid' | 'dangling' | 'waiting'> {
    const cache = this.graph.absentOwnerCache;
    if (cache.has(absentKey('', ref.uid)) || cache.has(absentKey(item.identity.namespace, ref.uid))) return 'dangling';
    const id = this.graph.ownerIdentity(ref, item.identity.namespace);
    if (!id) return 'solid';
    if (item.identity.namespace === '' && id.resource.namespaced) throw new NamespacedOwnerOfClusterScopedObjectError();
    const known = this.graph.uidToNode.get(ref.uid);
    if (known && !known.virtual && sameCoordinates(known.identity, id)) return known.deletingDependents ? 'waiting' : 'solid';
    try {
      const owner = await this.ops.getObject(id);
      if (owner.metadata?.uid === ref.uid) {
        const isWaiting = owner.metadata.deletionTimestamp && owner.metadata.finalizers?.includes(FINALIZER_DELETE_DEPENDENTS);
        return isWaiting ? 'waiting' : 'solid';
      }
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    cache.add(absentKey(id.namespace, ref.uid));
    return 'dangling';
  }

  /** upstream `attemptToOrphanWorker`: orphan every dependent, then remove the `orphan` finalizer. */
  private async attemptToOrphanWorker(uid: string): Promise<SyncResult> {
    const owner = this.graph.uidToNode.get(uid);
    if (!owner) return;
    const dependents = [...owner.dependents];
    const failures: string[] = [];
    for (let i = 0; i < dependents.length; i += ORPHAN_BATCH) {
      await Promise.all(
        dependents.slice(i, i + ORPHAN_BATCH).map((d) =>
          this.ops.deleteOwnerReferences(d.identity, [uid]).catch((err: unknown) => {
            if (!isNotFound(err)) failures.push(`orphaning ${d.identity.name} failed, ${String(err)}`);
          }),
        ),
      );
    }
    if (failures.length > 0) throw new Error(`failed to orphan dependents of owner ${owner.identity.name}, got errors: ${failures.join(', ')}`);
    await this.ops.removeFinalizer(owner.identity, FINALIZER_ORPHAN);
  }
}
