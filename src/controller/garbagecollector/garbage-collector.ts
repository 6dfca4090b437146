/**
 * The garbage collector (background propagation): deletes objects whose owners are all gone, and
 * drops references to vanished owners from objects that still have a live one.
 *
 * Follows upstream pkg/controller/garbagecollector/garbagecollector.go: `attemptToDeleteWorker`
 * (virtual nodes are verified and re-checked until observed or found absent) and
 * `attemptToDeleteItem` / `classifyReferences` / `isDangling`:
 * - an owner reference is **dangling** when the owner is absent: in the absent-owner cache, or a live
 *   GET in the dependent's namespace (cluster-scoped kinds: no namespace) gives 404 or another uid;
 *   **waiting** when the owner is being deleted with `foregroundDeletion`; **solid** otherwise;
 * - any solid ⇒ keep the object; patch away the dangling references and clear `blockOwnerDeletion`
 *   on the waiting ones;
 * - no solid, some waiting, and the item has dependents of its own ⇒ delete it in the foreground;
 * - otherwise delete it with the policy its own finalizers ask for (orphan ⇒ Orphan,
 *   foregroundDeletion ⇒ Foreground, else Background), with a uid precondition.
 * One shortcut upstream leaves as a TODO: an owner the graph has observed (same uid, same coordinates)
 * is solid without a GET; if it was deleted meanwhile, its delete event re-queues this dependent.
 *
 * Not yet: the foreground owner side (`processDeletingDependentsItem`) and orphaning
 * (`attemptToOrphan`); objects carrying those finalizers are left alone (the graph records
 * `beingDeleted` / `deletingDependents` for them).
 */
import type { KubeObject, OwnerReference } from '../../api/index.js';
import type { Clientset, ResourceDescriptor } from '../../client/index.js';
import { DeletedFinalStateUnknown, type SharedInformerFactory } from '../../informers/index.js';
import { isConflict, isNotFound } from '../../machinery/errors/index.js';
import { RateLimitingQueue } from '../../workqueue/index.js';
import type { Clock } from '../../util/clock/index.js';
import { runWorkers, type Logger, type SyncResult } from '../framework.js';
import type { GraphNode } from './graph.js';
import { absentKey, FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN, GraphBuilder, sameCoordinates } from './graph-builder.js';
import { GCOperations, type PropagationPolicy } from './operations.js';

export interface GarbageCollectorOptions {
  client: Clientset;
  informers: SharedInformerFactory;
  clock: Clock;
  /** Every resource to monitor: owners and dependents alike (upstream: all deletable, listable resources). */
  resources: readonly ResourceDescriptor[];
  logger?: Logger;
}

/** How often an unobserved virtual owner that does exist is re-checked, ms. */
const VIRTUAL_RECHECK_MS = 1000;

export class GarbageCollector {
  readonly graph: GraphBuilder;
  private readonly informers: SharedInformerFactory;
  private readonly ops: GCOperations;
  private readonly logger: Logger | undefined;
  /** uids of graph nodes to examine. */
  private readonly attemptToDelete: RateLimitingQueue;

  constructor(opts: GarbageCollectorOptions) {
    this.informers = opts.informers;
    this.ops = new GCOperations(opts.client);
    this.logger = opts.logger;
    this.attemptToDelete = new RateLimitingQueue<string>({ clock: opts.clock, name: 'garbage_collector_attempt_to_delete' });
    this.graph = new GraphBuilder(opts.resources, (n) => this.attemptToDelete.add(n.identity.uid));
    for (const resource of opts.resources) {
      opts.informers.forResource(resource).addEventHandler({
        add: (obj) => this.graph.observe(resource, obj),
        update: (_old, obj) => this.graph.observe(resource, obj),
        delete: (obj) => this.graph.observeDelete(obj instanceof DeletedFinalStateUnknown ? obj.obj : obj),
      });
    }
  }

  /** Starts the informers, waits for every monitor to sync, then runs `workers` attemptToDelete workers until `signal` aborts. */
  async run(workers: number, signal?: AbortSignal): Promise<void> {
    this.informers.start();
    await this.informers.waitForCacheSync(signal);
    await runWorkers(this.attemptToDelete, workers, (uid) => this.attemptToDeleteWorker(uid), {
      name: 'garbagecollector',
      signal,
      logger: this.logger,
    });
  }

  /** upstream `attemptToDeleteWorker` for one queued uid. */
  private async attemptToDeleteWorker(uid: string): Promise<SyncResult> {
    const node = this.graph.uidToNode.get(uid);
    // Removed from the graph meanwhile, or a virtual node the informer has since observed: the
    // object's own events drive it from here.
    if (!node) return;
    const wasVirtual = node.virtual;
    const outcome = await this.attemptToDeleteItem(node);
    if (outcome === 'virtualDeleted') return;
    if (wasVirtual && node.virtual) return { requeueAfter: VIRTUAL_RECHECK_MS };
  }

  /** upstream `attemptToDeleteItem`. Throws API errors other than NotFound/Conflict (the worker retries). */
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
    if (latest.metadata?.uid !== item.identity.uid) {
      this.graph.virtualDelete(item);
      return 'virtualDeleted';
    }
    // The foreground owner side is not implemented yet (see the module doc).
    if (item.deletingDependents) return;
    const refs = latest.metadata?.ownerReferences ?? [];
    if (refs.length === 0) return;
    const { solid, dangling, waiting } = await this.classifyReferences(item, refs);
    try {
      if (solid.length > 0) {
        if (dangling.length === 0 && waiting.length === 0) return;
        const drop = new Set(dangling.map((r) => r.uid));
        const unblock = new Set(waiting.map((r) => r.uid));
        const kept = refs
          .filter((r) => !drop.has(r.uid))
          .map((r) => (unblock.has(r.uid) ? { ...r, blockOwnerDeletion: false } : r));
        await this.ops.patchOwnerReferences(item.identity, kept);
        return;
      }
      if (waiting.length > 0 && item.dependents.size > 0) {
        await this.ops.deleteObject(item.identity, 'Foreground');
        return;
      }
      const finalizers = latest.metadata?.finalizers ?? [];
      const policy: PropagationPolicy = finalizers.includes(FINALIZER_ORPHAN)
        ? 'Orphan'
        : finalizers.includes(FINALIZER_DELETE_DEPENDENTS)
          ? 'Foreground'
          : 'Background';
      await this.ops.deleteObject(item.identity, policy);
    } catch (err) {
      // Already gone, or replaced by a new object under the same name (uid precondition): done.
      if (isNotFound(err) || isConflict(err)) return;
      throw err;
    }
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
   */
  private async ownerState(item: GraphNode, ref: OwnerReference): Promise<'solid' | 'dangling' | 'waiting'> {
    const id = this.graph.ownerIdentity(ref, item.identity.namespace);
    if (!id) return 'solid';
    if (this.graph.absentOwnerCache.has(absentKey(id.namespace, id.uid))) return 'dangling';
    const known = this.graph.uidToNode.get(ref.uid);
    if (known && !known.virtual && sameCoordinates(known.identity, id)) {
      return known.deletingDependents ? 'waiting' : 'solid';
    }
    try {
      const owner = await this.ops.getObject(id);
      if (owner.metadata?.uid === ref.uid) {
        const waiting = owner.metadata.deletionTimestamp && owner.metadata.finalizers?.includes(FINALIZER_DELETE_DEPENDENTS);
        return waiting ? 'waiting' : 'solid';
      }
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    this.graph.absentOwnerCache.add(absentKey(id.namespace, id.uid));
    return 'dangling';
  }
}
