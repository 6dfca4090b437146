/**
 * The ReplicaSet controller: keeps `spec.replicas` active pods for every ReplicaSet and reports
 * their counts in its status.
 *
 * Follows kubernetes/kubernetes pkg/controller/replicaset/replica_set.go: informer handlers
 * (`addPod/updatePod/deletePod`, `addRS/updateRS/deleteRS`, `resolveControllerRef`,
 * `getPodReplicaSets`), `syncReplicaSet`, `manageReplicas`, `claimPods`,
 * `getIndirectlyRelatedPods`. The loop is level-triggered: every sync re-reads the cache, and the
 * expectations gate keeps a sync from acting again before its own creates/deletes are observed.
 */
import type { Pod, ReplicaSet } from '../../api/index.js';
import type { Clientset } from '../../client/index.js';
import { DeletedFinalStateUnknown, type Indexer, type Lister, type SharedInformerFactory } from '../../informers/index.js';
import { isNotFound } from '../../machinery/errors/index.js';
import { selectorFromLabelSelector, type Selector } from '../../machinery/labels/index.js';
import { getControllerOf, metaNamespaceKey, newControllerRef, semanticDeepEqual, splitMetaNamespaceKey } from '../../machinery/meta/index.js';
import type { Clock } from '../../util/clock/index.js';
import { RateLimitingQueue } from '../../workqueue/index.js';
import { canAdoptByUncachedGet, claimPods } from '../controller-ref-manager.js';
import {
  ORPHAN_POD_INDEX_KEY,
  POD_CONTROLLER_UID_INDEX,
  NAMESPACE_TERMINATING_CAUSE,
  activePodClassesOf,
  addActivePodSummary,
  addIndexerOnce,
  addPodControllerUIDIndexer,
  filterActivePods,
  filterPodsByOwner,
  hasStatusCause,
  isPodActive,
  isPodReady,
  podKey,
  specReplicas,
  toError, resolveControllerRef } from '../controller-utils.js';
import { EventRecorder, withTypeMeta } from '../../client/record/index.js';
import { UIDTrackingControllerExpectations } from '../expectations.js';
import { stderrLogger, type Logger } from '../../util/runtime/index.js';
import { runWorkersWhenSynced, type SyncResult } from '../../workqueue/index.js';
import { RealPodControl, SLOW_START_INITIAL_BATCH_SIZE, slowStartBatch, type PodControl } from '../pod-control.js';
import { calculateStatus, countEach, getPodsToDelete, nextAvailabilityCheckMs, updateReplicaSetStatus, type CountedPods } from './replica-set-utils.js';
import { REPLICA_SET, type ReplicatedKind } from './replicated-kind.js';

/** BurstReplicas: at most this many pods are created or deleted per sync. */
export const BURST_REPLICAS = 500;

/** Index of ReplicaSets by their controller's UID (a Deployment's ReplicaSets share one). */
const CONTROLLER_UID_INDEX = 'controllerUID';

/** Options of {@link ReplicaSetController}. */
export interface ReplicaSetControllerOptions {
  client: Clientset;
  informers: SharedInformerFactory;
  clock: Clock;
  /** Creations/deletions per sync (default {@link BURST_REPLICAS}). */
  burstReplicas?: number;
  /** Default worker count of {@link ReplicaSetController.run} (`--concurrent-replicaset-syncs`, 5). */
  workers?: number;
  /** The kind to keep pods for (default {@link REPLICA_SET}; the replication manager's is {@link REPLICATION_CONTROLLER}). */
  kind?: ReplicatedKind;
  /** Default: a recorder with the kind's component (`replicaset-controller`). */
  recorder?: EventRecorder;
  /** Default: {@link RealPodControl} over `client` and the recorder. */
  podControl?: PodControl;
  logger?: Logger;
}

/** Which pods a ReplicaSet would select (`GetPodReplicaSets` minus errors): empty selectors match nothing. */
function selectsPod(kind: ReplicatedKind, rs: ReplicaSet, pod: Pod): boolean {
  let selector: Selector;
  try {
    selector = selectorFromLabelSelector(kind.selector(rs));
  } catch {
    return false;
  }
  return !selector.empty() && selector.matches(pod.metadata?.labels);
}

export class ReplicaSetController {
  readonly queue: RateLimitingQueue;
  readonly expectations: UIDTrackingControllerExpectations;
  /** Replaceable by tests (upstream's `podControl` field). */
  podControl: PodControl;
  /** The per-key sync; a field so tests can wrap or replace it (upstream's `syncHandler`). */
  syncHandler: (key: string) => Promise<SyncResult>;
  /** Cache-sync checks; fields so tests seeding indexers directly can replace them. */
  rsListerSynced: () => boolean;
  podListerSynced: () => boolean;

  private readonly client: Clientset;
  private readonly kind: ReplicatedKind;
  private readonly clock: Clock;
  private readonly burstReplicas: number;
  private readonly defaultWorkers: number;
  private readonly logger: Logger;
  private readonly informers: SharedInformerFactory;
  private readonly rsLister: Lister<ReplicaSet>;
  private readonly rsIndexer: Indexer<ReplicaSet>;
  private readonly podIndexer: Indexer<Pod>;

  constructor(opts: ReplicaSetControllerOptions) {
    this.client = opts.client;
    this.kind = opts.kind ?? REPLICA_SET;
    this.clock = opts.clock;
    this.informers = opts.informers;
    this.burstReplicas = opts.burstReplicas ?? BURST_REPLICAS;
    this.defaultWorkers = opts.workers ?? 5;
    this.logger = opts.logger ?? stderrLogger;
    const recorder = opts.recorder ?? new EventRecorder(opts.client, { component: this.kind.component, clock: opts.clock, logger: this.logger });
    this.podControl = opts.podControl ?? new RealPodControl(opts.client, recorder);
    this.queue = new RateLimitingQueue<string>({ clock: opts.clock, name: this.kind.queueName });
    this.expectations = new UIDTrackingControllerExpectations(opts.clock);

    const rsInformer = this.kind.informer(opts.informers);
    addIndexerOnce<ReplicaSet>(rsInformer, CONTROLLER_UID_INDEX, (rs) => {
      const ref = getControllerOf(rs);
      return ref ? [ref.uid] : [];
    });
    rsInformer.addEventHandler({
      add: (rs) => this.addRS(rs),
      update: (oldRS, curRS) => this.updateRS(oldRS, curRS),
      delete: (obj) => this.deleteRS(obj),
    });
    const podInformer = opts.informers.core.pods();
    addPodControllerUIDIndexer(podInformer);
    addActivePodSummary(podInformer.getIndexer());
    podInformer.addEventHandler({
      add: (pod) => this.addPod(pod),
      update: (oldPod, curPod) => this.updatePod(oldPod, curPod),
      delete: (obj) => this.deletePod(obj),
    });
    this.rsLister = rsInformer.lister();
    this.rsIndexer = rsInformer.getIndexer();
    this.podIndexer = podInformer.getIndexer();
    this.rsListerSynced = () => rsInformer.hasSynced();
    this.podListerSynced = () => podInformer.hasSynced();
    this.syncHandler = (key) => this.syncReplicaSet(key);
  }

  /**
   * Waits for the ReplicaSet and pod caches, then runs `workers` workers until `signal` aborts (the
   * queue is then shut down and drained). The informer factory must be started by the caller.
   */
  async run(workers: number = this.defaultWorkers, signal?: AbortSignal): Promise<void> {
    await runWorkersWhenSynced([this.kind.informer(this.informers), this.informers.core.pods()], this.queue, workers, (key) => this.syncHandler(key), { name: this.kind.queueName, logger: this.logger, signal });
  }

  // ---- event handlers: map an event to keys, nothing else ----

  private enqueueRS(rs: ReplicaSet): void {
    this.queue.add(metaNamespaceKey(rs));
  }

  /**
   * `resolveControllerRef`: the ReplicaSet a controllerRef points at, looked up by name (the cache
   * cannot look up by UID) and then checked by UID, so a recreated namespace/name is not confused.
   */
  private resolveControllerRef(namespace: string, ref: { kind: string; name: string; uid: string }): ReplicaSet | undefined {
    return resolveControllerRef(this.rsLister, this.kind.controllerKind.kind, namespace, ref);
  }

  /** `getPodReplicaSets`: ReplicaSets of the pod's namespace whose selector matches it (orphan adoption). */
  private getPodReplicaSets(pod: Pod): ReplicaSet[] {
    if (!pod.metadata?.labels || Object.keys(pod.metadata.labels).length === 0) return [];
    const rss = this.rsLister.namespace(pod.metadata.namespace ?? '').list().filter((rs) => selectsPod(this.kind, rs, pod));
    if (rss.length > 1) {
      this.logger.info({ pod: podKey(pod), replicaSets: rss.map((rs) => rs.metadata?.name) }, 'user error! more than one ReplicaSet is selecting pods with labels');
    }
    return rss;
  }

  private addRS(rs: ReplicaSet): void {
    this.enqueueRS(rs);
  }

  private updateRS(oldRS: ReplicaSet, curRS: ReplicaSet): void {
    // A new UID under the same name: the old one was deleted and the delete event missed.
    if (curRS.metadata?.uid !== oldRS.metadata?.uid) {
      this.deleteRS(new DeletedFinalStateUnknown(metaNamespaceKey(oldRS), oldRS));
    }
    this.enqueueRS(curRS);
  }

  private deleteRS(obj: ReplicaSet | DeletedFinalStateUnknown<ReplicaSet>): void {
    const rs = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
    const key = metaNamespaceKey(rs);
    // A ReplicaSet recreated under this name must start with clean expectations.
    this.expectations.deleteExpectations(key);
    this.queue.add(key);
  }

  /** A new pod: lower its owner's creation expectations, or offer an orphan to matching ReplicaSets. */
  private addPod(pod: Pod): void {
    if (pod.metadata?.deletionTimestamp) {
      // Created already terminating (e.g. after a controller restart): count it as a deletion.
      this.deletePod(pod);
      return;
    }
    const ref = getControllerOf(pod);
    if (ref) {
      const rs = this.resolveControllerRef(pod.metadata?.namespace ?? '', ref);
      if (!rs) return;
      const key = metaNamespaceKey(rs);
      this.expectations.creationObserved(key);
      this.queue.add(key);
      return;
    }
    for (const rs of this.getPodReplicaSets(pod)) this.enqueueRS(rs);
  }

  private updatePod(oldPod: Pod, curPod: Pod): void {
    // Periodic resyncs deliver unchanged objects; nothing to do.
    if (curPod.metadata?.resourceVersion === oldPod.metadata?.resourceVersion) return;
    const labelChanged = !semanticDeepEqual(curPod.metadata?.labels, oldPod.metadata?.labels);
    if (curPod.metadata?.deletionTimestamp) {
      // Graceful deletion started: the RS can replace the pod now rather than after it is gone.
      this.deletePod(curPod);
      if (labelChanged) this.deletePod(oldPod);
      return;
    }
    const curRef = getControllerOf(curPod);
    const oldRef = getControllerOf(oldPod);
    const refChanged = !semanticDeepEqual(curRef, oldRef);
    if (refChanged && oldRef) {
      const oldRS = this.resolveControllerRef(oldPod.metadata?.namespace ?? '', oldRef);
      if (oldRS) this.enqueueRS(oldRS);
    }
    if (curRef) {
      const rs = this.resolveControllerRef(curPod.metadata?.namespace ?? '', curRef);
      if (!rs) return;
      this.enqueueRS(rs);
      // Ready → available after minReadySeconds: sync again then (+1 s for clock skew), since no
      // pod event will arrive at that moment.
      const minReadySeconds = rs.spec?.minReadySeconds ?? 0;
      if (!isPodReady(oldPod) && isPodReady(curPod) && minReadySeconds > 0) {
        this.queue.addAfter(metaNamespaceKey(rs), minReadySeconds * 1000 + 1000);
      }
      return;
    }
    if (labelChanged || refChanged) {
      for (const rs of this.getPodReplicaSets(curPod)) this.enqueueRS(rs);
    }
  }

  private deletePod(obj: Pod | DeletedFinalStateUnknown<Pod>): void {
    const pod = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
    const ref = getControllerOf(pod);
    if (!ref) return;
    const rs = this.resolveControllerRef(pod.metadata?.namespace ?? '', ref);
    if (!rs) return;
    const key = metaNamespaceKey(rs);
    this.expectations.deletionObserved(key, podKey(pod));
    this.queue.add(key);
  }

  // ---- sync ----

  /**
   * `syncReplicaSet`: reconciles one ReplicaSet (`namespace/name` key). Acts (creates/deletes) only
   * when expectations are satisfied and the RS is not being deleted; always writes status. Resolves
   * `{requeueAfter}` at the moment the next ready pod becomes available (nextAvailabilityCheckMs); throws the
   * claim, status-write or manageReplicas error (the status is written first).
   */
  async syncReplicaSet(key: string): Promise<SyncResult> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const rs = this.rsLister.namespace(namespace).get(name);
    if (!rs) {
      this.expectations.deleteExpectations(key);
      return;
    }
    const rsNeedsSync = this.expectations.satisfiedExpectations(key);
    let selector: Selector;
    try {
      selector = selectorFromLabelSelector(this.kind.selector(rs));
    } catch (err) {
      // Validation prevents this; retrying cannot fix it.
      this.logger.error({ replicaSet: key, err: String(err) }, 'Error converting pod selector to selector');
      return;
    }
    // The common sync reads the summary of the RS's pods; a claim to make (an orphan to adopt, an
    // owned pod to release) or pods to choose for deletion need the pods themselves.
    let counted = this.countOwnedPods(rs, selector);
    let filteredPods: Pod[] | undefined;
    if (!counted) {
      filteredPods = await this.claimPods(rs, selector, filterActivePods(filterPodsByOwner(this.podIndexer, rs, true)));
      counted = { pods: countEach(filteredPods), active: filteredPods.length };
    }
    let manageReplicasErr: unknown;
    if (rsNeedsSync && !rs.metadata?.deletionTimestamp) {
      try {
        await this.manageReplicas(counted.active, rs, () => filteredPods ?? filterActivePods(filterPodsByOwner(this.podIndexer, rs, false)));
      } catch (err) {
        manageReplicasErr = err;
      }
    }
    const newStatus = calculateStatus(rs, counted.pods, manageReplicasErr, this.clock.now());
    const updated = await updateReplicaSetStatus(this.kind.client(this.client, namespace), rs, newStatus);
    if (manageReplicasErr !== undefined) throw toError(manageReplicasErr);
    // No event marks the moment ready pods become available: sync again then.
    const minReadySeconds = updated.spec?.minReadySeconds ?? 0;
    if (minReadySeconds > 0 && (updated.status?.readyReplicas ?? 0) !== (updated.status?.availableReplicas ?? 0)) {
      return { requeueAfter: nextAvailabilityCheckMs(counted.pods, minReadySeconds, this.clock.now()) ?? minReadySeconds * 1000 };
    }
    return;
  }

  /**
   * The RS's active pods counted by class from the pod index summary, when claiming would change
   * nothing: every class of its pods still matches the selector (none to release) and no active orphan
   * of its namespace matches it (none to adopt). Undefined otherwise, and the sync claims pod by pod.
   * Either way the counts are those of the claimed pods (upstream's sync walks every pod each time; a
   * 10,000-pod scale-up syncs its ReplicaSet thousands of times, so that walk made the cost quadratic).
   */
  private countOwnedPods(rs: ReplicaSet, selector: Selector): { pods: CountedPods; active: number } | undefined {
    const classes = activePodClassesOf(this.podIndexer, rs);
    let active = 0;
    for (const c of classes.values()) {
      if (!selector.matches(c.sample.metadata?.labels)) return undefined;
      active += c.count;
    }
    const namespace = rs.metadata?.namespace ?? '';
    for (const orphan of this.podIndexer.byIndex(POD_CONTROLLER_UID_INDEX, ORPHAN_POD_INDEX_KEY)) {
      if ((orphan.metadata?.namespace ?? '') === namespace && isPodActive(orphan) && selector.matches(orphan.metadata?.labels)) return undefined;
    }
    // A copy: the summary changes as the cache does, and the sync awaits before it counts.
    return { pods: [...classes.values()].map(({ count, sample }) => ({ count, sample })), active };
  }

  /** `claimPods`: adopts matching orphans and releases non-matching owned pods; returns the owned ones. */
  private claimPods(rs: ReplicaSet, selector: Selector, pods: Pod[]): Promise<Pod[]> {
    return claimPods(
      {
        controller: rs,
        controllerKind: this.kind.controllerKind,
        selector,
        canAdopt: canAdoptByUncachedGet(rs, this.kind.controllerKind.kind, (n) => this.kind.client(this.client, rs.metadata?.namespace).get(n)),
        podControl: this.podControl,
      },
      pods,
    );
  }

  /**
   * `manageReplicas`: creates or deletes up to burstReplicas pods to reach spec.replicas, given the
   * number of active claimed pods and a way to list them (only deletions need the list).
   * Expectations are raised before any write; creations run in slow-start batches and the skipped
   * ones are subtracted again; deletions run in parallel. Throws the first create error or a delete
   * error other than NotFound.
   */
  private async manageReplicas(activeCount: number, rs: ReplicaSet, activePods: () => Pod[]): Promise<void> {
    const key = metaNamespaceKey(rs);
    const namespace = rs.metadata?.namespace ?? '';
    const { controllerKind } = this.kind;
    const owner = withTypeMeta(rs, controllerKind.apiVersion, controllerKind.kind);
    let diff = activeCount - specReplicas(rs);
    if (diff < 0) {
      diff = Math.min(-diff, this.burstReplicas);
      // Raise first: a pod's add event may arrive before createPods returns.
      this.expectations.expectCreations(key, diff);
      const template = rs.spec?.template ?? {};
      const controllerRef = newControllerRef({ metadata: rs.metadata }, controllerKind);
      const { successes, error } = await slowStartBatch(diff, SLOW_START_INITIAL_BATCH_SIZE, async () => {
        try {
          await this.podControl.createPods(namespace, template, owner, controllerRef);
        } catch (err) {
          // The namespace is going away: every further create fails the same; not an error.
          if (hasStatusCause(err, NAMESPACE_TERMINATING_CAUSE)) return;
          throw err;
        }
      });
      // Creations never attempted will never be observed.
      const skipped = diff - successes;
      if (skipped > 0) this.expectations.lowerExpectations(key, skipped, 0);
      if (error !== undefined) throw toError(error);
      return;
    }
    if (diff > 0) {
      diff = Math.min(diff, this.burstReplicas);
      const podsToDelete = getPodsToDelete(activePods(), this.getIndirectlyRelatedPods(rs), diff, this.clock.now());
      // Snapshot the keys first so deletions observed during the calls are matched.
      this.expectations.expectDeletions(key, podsToDelete.map(podKey));
      const results = await Promise.allSettled(
        podsToDelete.map(async (pod) => {
          try {
            await this.podControl.deletePod(namespace, pod.metadata?.name ?? '', owner);
          } catch (err) {
            // This deletion will never be observed.
            this.expectations.deletionObserved(key, podKey(pod));
            if (!isNotFound(err)) throw err;
          }
        }),
      );
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw toError(failed.reason);
    }
  }

  /**
   * `getIndirectlyRelatedPods`: the pods of every ReplicaSet with the same controller as `rs`
   * (including `rs`), each pod once. Empty when `rs` has no controller.
   */
  private getIndirectlyRelatedPods(rs: ReplicaSet): Pod[] {
    const ref = getControllerOf(rs);
    if (!ref) return [];
    const seen = new Set<string>();
    const related: Pod[] = [];
    for (const relatedRS of this.rsIndexer.byIndex(CONTROLLER_UID_INDEX, ref.uid)) {
      for (const pod of this.podIndexer.byIndex(POD_CONTROLLER_UID_INDEX, relatedRS.metadata?.uid ?? '')) {
        const uid = pod.metadata?.uid ?? '';
        if (seen.has(uid)) continue;
        seen.add(uid);
        related.push(pod);
      }
    }
    return related;
  }
}
