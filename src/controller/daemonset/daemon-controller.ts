/**
 * The DaemonSet controller: one daemon pod on every node that should run it, pods removed from nodes
 * that no longer qualify, failed daemon pods replaced with per-node backoff, template history in
 * ControllerRevisions, RollingUpdate (update.ts) and OnDelete, and the status counts.
 *
 * Follows kubernetes/kubernetes pkg/controller/daemon/daemon_controller.go: informer handlers
 * (`addDaemonset/updateDaemonset/deleteDaemonset`, `addHistory/updateHistory/deleteHistory`,
 * `addPod/updatePod/deletePod`, `addNode/updateNode` with `shouldIgnoreNodeUpdate`), `syncDaemonSet`,
 * `updateDaemonSet`, `manage`, `podsShouldBeOnNode`, `getUnscheduledPodsWithoutNode`, `syncNodes`,
 * `getDaemonPods`, `getNodesToDaemonPods`, `updateDaemonSetStatus`, `storeDaemonSetStatus`.
 *
 * Differences: a node deletion also resyncs every DaemonSet (upstream waits for the pod GC to delete
 * the pods of the gone node; the status here drops the node at once); pod creations refused because
 * the namespace is terminating lower the expectations (upstream leaves them to expire).
 */
import type { ControllerRevision, DaemonSet, Node, OwnerReference, Pod } from '../../api/index.js';
import type { Clientset } from '../../client/index.js';
import { DeletedFinalStateUnknown, type Indexer, type Lister, type SharedInformerFactory } from '../../informers/index.js';
import { isNotFound } from '../../machinery/errors/index.js';
import { selectorFromLabelSelector, type Selector } from '../../machinery/labels/index.js';
import { metaNamespaceKey, newControllerRef, semanticDeepEqual, splitMetaNamespaceKey } from '../../machinery/meta/index.js';
import type { Clock } from '../../util/clock/index.js';
import { RateLimitingQueue } from '../../workqueue/index.js';
import { canAdoptByUncachedGet, claimPods, type ControllerKind } from '../controller-ref-manager.js';
import {
  NAMESPACE_TERMINATING_CAUSE,
  addPodControllerUIDIndexer,
  aggregateErrors,
  filterPodsByOwner,
  hasStatusCause,
  isPodAvailable,
  isPodReady,
  enqueueWhenAvailable,
  dependentEventHandlers,
  toError, resolveControllerRef } from '../controller-utils.js';
import { EventRecorder, withTypeMeta } from '../../client/record/index.js';
import { ControllerExpectations } from '../expectations.js';
import { stderrLogger, type Logger } from '../../util/runtime/index.js';
import { runWorkersWhenSynced, type SyncResult } from '../../workqueue/index.js';
import { RealPodControl, SLOW_START_INITIAL_BATCH_SIZE, slowStartBatch, type PodControl } from '../pod-control.js';
import { Backoff } from './backoff.js';
import { cleanupHistory, constructHistory, rollingUpdate, type DaemonSetSyncContext } from './update.js';
import {
  CONTROLLER_REVISION_HASH_LABEL,
  allowsSurge,
  comparePodsByCreationTimestampAndPhase,
  createPodTemplate,
  getTargetNodeName,
  getTemplateGeneration,
  isPodUpdated,
  nodeShouldRunDaemonPod,
  replaceDaemonSetPodNodeNameNodeAffinity,
} from './util.js';

/** apps/v1 DaemonSet, for owner references and events. */
export const DAEMON_SET_KIND: ControllerKind = { apiVersion: 'apps/v1', kind: 'DaemonSet' };

/** BurstReplicas: at most this many pods are created, and as many deleted, per sync. */
export const BURST_REPLICAS = 250;
/** Failed-pod backoff per node: 1 s doubling to 15 min (`failedPodsBackoff`). */
export const FAILED_POD_BACKOFF_INITIAL_MS = 1000;
export const FAILED_POD_BACKOFF_MAX_MS = 15 * 60 * 1000;

export const SELECTING_ALL_REASON = 'SelectingAll';
export const FAILED_DAEMON_POD_REASON = 'FailedDaemonPod';

/** Options of {@link DaemonSetsController}. */
export interface DaemonSetsControllerOptions {
  client: Clientset;
  informers: SharedInformerFactory;
  clock: Clock;
  /** Creations/deletions per sync (default {@link BURST_REPLICAS}). */
  burstReplicas?: number;
  /** Default worker count of {@link DaemonSetsController.run} (`--concurrent-daemonset-syncs`, 2). */
  workers?: number;
  /** Default: a recorder with component `daemonset-controller`. */
  recorder?: EventRecorder;
  /** Default: {@link RealPodControl} over `client` and the recorder. */
  podControl?: PodControl;
  logger?: Logger;
}

/** A DaemonSet's selector compiled, or undefined when it cannot select anything (invalid or empty). */
function compiledSelector(ds: DaemonSet): Selector | undefined {
  try {
    const s = selectorFromLabelSelector(ds.spec?.selector);
    return s.empty() ? undefined : s;
  } catch {
    return undefined;
  }
}

/** Daemon pods grouped by the node they are on or pinned to. */
export type NodeToDaemonPods = Map<string, Pod[]>;

/** What one sync asks of the queue afterwards: the shortest delay anyone wanted (ms). */
class Requeue {
  afterMs: number | undefined;
  after(ms: number): void {
    this.afterMs = this.afterMs === undefined ? ms : Math.min(this.afterMs, ms);
  }
}

export class DaemonSetsController implements DaemonSetSyncContext {
  readonly queue: RateLimitingQueue;
  readonly expectations: ControllerExpectations;
  readonly failedPodsBackoff: Backoff;
  /** Replaceable by tests (upstream's `podControl` field). */
  podControl: PodControl;
  /** The per-key sync; a field so tests can wrap or replace it. */
  syncHandler: (key: string) => Promise<SyncResult>;
  readonly client: Clientset;
  readonly clock: Clock;
  readonly recorder: EventRecorder;
  readonly historyLister: Lister<ControllerRevision>;
  readonly nodeLister: Lister<Node>;

  private readonly informers: SharedInformerFactory;
  private readonly burstReplicas: number;
  private readonly defaultWorkers: number;
  private readonly logger: Logger;
  private readonly dsLister: Lister<DaemonSet>;
  private readonly podIndexer: Indexer<Pod>;

  constructor(opts: DaemonSetsControllerOptions) {
    this.client = opts.client;
    this.clock = opts.clock;
    this.informers = opts.informers;
    this.burstReplicas = opts.burstReplicas ?? BURST_REPLICAS;
    this.defaultWorkers = opts.workers ?? 2;
    this.logger = opts.logger ?? stderrLogger;
    this.recorder = opts.recorder ?? new EventRecorder(opts.client, { component: 'daemonset-controller', clock: opts.clock, logger: this.logger });
    this.podControl = opts.podControl ?? new RealPodControl(opts.client, this.recorder);
    this.queue = new RateLimitingQueue<string>({ clock: opts.clock, name: 'daemonset' });
    this.expectations = new ControllerExpectations(opts.clock);
    this.failedPodsBackoff = new Backoff(opts.clock, FAILED_POD_BACKOFF_INITIAL_MS, FAILED_POD_BACKOFF_MAX_MS);

    const dsInformer = opts.informers.apps.daemonSets();
    dsInformer.addEventHandler({
      add: (ds) => this.enqueueDaemonSet(ds),
      update: (oldDS, curDS) => this.updateDaemonset(oldDS, curDS),
      delete: (obj) => this.deleteDaemonset(obj),
    });
    const historyInformer = opts.informers.apps.controllerRevisions();
    const dependentOptions = {
      resolve: (ns: string, ref: OwnerReference) => this.resolveControllerRef(ns, ref),
      selecting: (obj: ControllerRevision | Pod) => this.daemonSetsSelecting(obj),
      enqueue: (ds: DaemonSet) => this.enqueueDaemonSet(ds),
    };
    historyInformer.addEventHandler(dependentEventHandlers<DaemonSet, ControllerRevision>(dependentOptions));
    const podInformer = opts.informers.core.pods();
    addPodControllerUIDIndexer(podInformer);
    podInformer.addEventHandler(
      dependentEventHandlers<DaemonSet, Pod>({
        ...dependentOptions,
        ownedAdded: (ds) => this.observe(ds, (key) => this.expectations.creationObserved(key)),
        ownedUpdated: (ds, oldPod, curPod) => enqueueWhenAvailable(this.queue, metaNamespaceKey(ds), oldPod, curPod, ds.spec?.minReadySeconds ?? 0),
        ownedDeleted: (ds) => this.observe(ds, (key) => this.expectations.deletionObserved(key)),
      }),
    );
    const nodeInformer = opts.informers.core.nodes();
    nodeInformer.addEventHandler({
      add: (node) => this.addNode(node),
      update: (oldNode, curNode) => this.updateNode(oldNode, curNode),
      delete: () => this.enqueueAll(),
    });
    this.dsLister = dsInformer.lister();
    this.historyLister = historyInformer.lister();
    this.nodeLister = nodeInformer.lister();
    this.podIndexer = podInformer.getIndexer();
    this.syncHandler = (key) => this.syncDaemonSet(key);
  }

  /**
   * Waits for the DaemonSet, ControllerRevision, pod and node caches, then runs `workers` workers until
   * `signal` aborts. The informer factory must be started by the caller.
   */
  async run(workers: number = this.defaultWorkers, signal?: AbortSignal): Promise<void> {
    await runWorkersWhenSynced([this.informers.apps.daemonSets(), this.informers.apps.controllerRevisions(), this.informers.core.pods(), this.informers.core.nodes()], this.queue, workers, (key) => this.syncHandler(key), { name: 'daemonset', logger: this.logger, signal });
  }

  // ---- event handlers: map an event to keys, nothing else ----

  private enqueueDaemonSet(ds: DaemonSet): void {
    this.queue.add(metaNamespaceKey(ds));
  }

  private enqueueAll(): void {
    for (const ds of this.dsLister.list()) this.enqueueDaemonSet(ds);
  }

  private updateDaemonset(oldDS: DaemonSet, curDS: DaemonSet): void {
    // A new UID under the same name: the old one was deleted and its delete event missed.
    if (curDS.metadata?.uid !== oldDS.metadata?.uid) this.deleteDaemonset(new DeletedFinalStateUnknown(metaNamespaceKey(oldDS), oldDS));
    this.enqueueDaemonSet(curDS);
  }

  private deleteDaemonset(obj: DaemonSet | DeletedFinalStateUnknown<DaemonSet>): void {
    const ds = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
    const key = metaNamespaceKey(ds);
    this.expectations.deleteExpectations(key);
    this.queue.add(key);
  }

  /** `resolveControllerRef`: the DaemonSet a controllerRef points at, checked by UID. */
  private resolveControllerRef(namespace: string, ref: { kind: string; name: string; uid: string }): DaemonSet | undefined {
    return resolveControllerRef(this.dsLister, DAEMON_SET_KIND.kind, namespace, ref);
  }

  /** DaemonSets of the object's namespace whose selector matches its labels (`getDaemonSetsForPod/History`). */
  private daemonSetsSelecting(obj: { metadata?: { namespace?: string; labels?: Record<string, string> } }): DaemonSet[] {
    const labels = obj.metadata?.labels;
    if (!labels || Object.keys(labels).length === 0) return [];
    return this.dsLister
      .namespace(obj.metadata?.namespace ?? '')
      .list()
      .filter((ds) => compiledSelector(ds)?.matches(labels) ?? false);
  }

  /** Records a creation or deletion the DaemonSet expected, then syncs it. */
  private observe(ds: DaemonSet, observed: (key: string) => void): void {
    const key = metaNamespaceKey(ds);
    observed(key);
    this.queue.add(key);
  }

  /** A new node: sync the DaemonSets that should run on it. */
  private addNode(node: Node): void {
    for (const ds of this.dsLister.list()) if (nodeShouldRunDaemonPod(node, ds).shouldRun) this.enqueueDaemonSet(ds);
  }

  /** Only labels and taints change eligibility (`shouldIgnoreNodeUpdate`); sync the DaemonSets whose answer changed. */
  private updateNode(oldNode: Node, curNode: Node): void {
    if (semanticDeepEqual(oldNode.metadata?.labels, curNode.metadata?.labels) && semanticDeepEqual(oldNode.spec?.taints, curNode.spec?.taints)) return;
    for (const ds of this.dsLister.list()) {
      const before = nodeShouldRunDaemonPod(oldNode, ds);
      const after = nodeShouldRunDaemonPod(curNode, ds);
      if (before.shouldRun !== after.shouldRun || before.shouldContinueRunning !== after.shouldContinueRunning) this.enqueueDaemonSet(ds);
    }
  }

  // ---- sync ----

  /**
   * `syncDaemonSet`: reconciles one DaemonSet (`namespace/name`). Builds its history, then — when its
   * expectations are satisfied — creates and deletes pods (manage, then the update strategy) and
   * cleans up history; always writes status (raising observedGeneration only after acting). Resolves
   * `{requeueAfter}` for failed-pod backoffs and minReadySeconds; throws the first error after the
   * status was written.
   */
  async syncDaemonSet(key: string): Promise<SyncResult> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const ds = this.dsLister.namespace(namespace).get(name);
    if (!ds) {
      this.expectations.deleteExpectations(key);
      return;
    }
    const nodes = this.nodeLister.list();
    const selector = ds.spec?.selector;
    if (selector && semanticDeepEqual(selector, {})) {
      this.recorder.event(this.owner(ds), 'Warning', SELECTING_ALL_REASON, 'This daemon set is selecting all pods. A non-empty selector is required.');
      return;
    }
    // Being deleted (background, foreground or orphan): its history may be going away; do nothing.
    if (ds.metadata?.deletionTimestamp) return;
    this.failedPodsBackoff.gc();
    const requeue = new Requeue();
    const { cur, old } = await constructHistory(this, ds);
    const hash = cur.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? '';
    if (!this.expectations.satisfiedExpectations(key)) {
      await this.updateDaemonSetStatus(ds, nodes, hash, false, requeue);
      return requeue.afterMs === undefined ? undefined : { requeueAfter: requeue.afterMs };
    }
    let err: unknown;
    try {
      await this.updateDaemonSet(ds, nodes, hash, key, old, requeue);
    } catch (e) {
      err = e;
    }
    try {
      await this.updateDaemonSetStatus(ds, nodes, hash, true, requeue);
    } catch (e) {
      err ??= e;
    }
    if (err !== undefined) throw toError(err);
    return requeue.afterMs === undefined ? undefined : { requeueAfter: requeue.afterMs };
  }

  /** `updateDaemonSet`: manage, then the update strategy if the expectations allow, then cleanupHistory. */
  private async updateDaemonSet(ds: DaemonSet, nodes: Node[], hash: string, key: string, old: ControllerRevision[], requeue: Requeue): Promise<void> {
    await this.manage(ds, nodes, hash, requeue);
    if (this.expectations.satisfiedExpectations(key) && ds.spec?.updateStrategy?.type === 'RollingUpdate') {
      await rollingUpdate(this, ds, nodes, hash);
    }
    await cleanupHistory(this, ds, old);
  }

  /** The DaemonSet with apiVersion/kind, as an event's involved object and pod owner. */
  owner(ds: DaemonSet): DaemonSet {
    return withTypeMeta(ds, DAEMON_SET_KIND.apiVersion, DAEMON_SET_KIND.kind);
  }

  /**
   * `getDaemonPods`: the pods `ds` controls plus matching orphans of its namespace (adopted), with
   * owned pods that no longer match released. Terminal and deleted pods included.
   */
  private async getDaemonPods(ds: DaemonSet): Promise<Pod[]> {
    const selector = compiledSelector(ds);
    if (!selector) return [];
    const pods = filterPodsByOwner(this.podIndexer, ds, true);
    return claimPods(
      {
        controller: ds,
        controllerKind: DAEMON_SET_KIND,
        selector,
        canAdopt: canAdoptByUncachedGet(ds, DAEMON_SET_KIND.kind, (n) => this.client.apps.daemonSets(ds.metadata?.namespace).get(n)),
        podControl: this.podControl,
      },
      pods,
    );
  }

  /**
   * `getNodesToDaemonPods`: the daemon pods by target node (bound node, or the node an unscheduled pod
   * is pinned to); pods with no target are skipped, and so are deleted terminal pods unless
   * `includeDeletedTerminal`.
   */
  async getNodesToDaemonPods(ds: DaemonSet, includeDeletedTerminal: boolean): Promise<NodeToDaemonPods> {
    const map: NodeToDaemonPods = new Map();
    for (const pod of await this.getDaemonPods(ds)) {
      if (!includeDeletedTerminal && pod.metadata?.deletionTimestamp && (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed')) continue;
      const nodeName = getTargetNodeName(pod);
      if (nodeName === undefined) {
        this.logger.info({ pod: `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}` }, 'Failed to get target node name of Pod in DaemonSet');
        continue;
      }
      let list = map.get(nodeName);
      if (!list) map.set(nodeName, (list = []));
      list.push(pod);
    }
    return map;
  }

  /** `manage`: for every node decide creations and deletions (podsShouldBeOnNode), then syncNodes. */
  private async manage(ds: DaemonSet, nodes: Node[], hash: string, requeue: Requeue): Promise<void> {
    const nodeToDaemonPods = await this.getNodesToDaemonPods(ds, false);
    const nodesNeedingDaemonPods: string[] = [];
    const podsToDelete: string[] = [];
    for (const node of nodes) this.podsShouldBeOnNode(node, nodeToDaemonPods, ds, hash, nodesNeedingDaemonPods, podsToDelete, requeue);
    podsToDelete.push(...getUnscheduledPodsWithoutNode(nodes, nodeToDaemonPods));
    await this.syncNodes(ds, podsToDelete, nodesNeedingDaemonPods, hash);
  }

  /**
   * `podsShouldBeOnNode`, appending to `nodesNeedingDaemonPods` and `podsToDelete`:
   * - should run, no pod ⇒ create;
   * - may continue: delete Failed pods (once per backoff period per node, event FailedDaemonPod) and
   *   Succeeded pods; without surge keep only the oldest running pod; with surge keep the oldest new
   *   pod and the oldest old pod, the old one only while it is ready and the new one not yet available;
   * - may not continue ⇒ delete every pod there.
   */
  private podsShouldBeOnNode(
    node: Node,
    nodeToDaemonPods: NodeToDaemonPods,
    ds: DaemonSet,
    hash: string,
    nodesNeedingDaemonPods: string[],
    podsToDelete: string[],
    requeue: Requeue,
  ): void {
    const nodeName = node.metadata?.name ?? '';
    const { shouldRun, shouldContinueRunning } = nodeShouldRunDaemonPod(node, ds);
    const daemonPods = nodeToDaemonPods.get(nodeName);
    if (shouldRun && !daemonPods) {
      nodesNeedingDaemonPods.push(nodeName);
      return;
    }
    if (!shouldContinueRunning) {
      for (const pod of daemonPods ?? []) if (!pod.metadata?.deletionTimestamp) podsToDelete.push(pod.metadata?.name ?? '');
      return;
    }
    const running: Pod[] = [];
    for (const pod of daemonPods ?? []) {
      if (pod.metadata?.deletionTimestamp) continue;
      const phase = pod.status?.phase;
      if (phase === 'Failed') {
        // Paced per node: a pod that fails at once on this node must not be recreated in a hot loop.
        const backoffKey = `${ds.metadata?.uid ?? ''}/${nodeName}`;
        const now = this.clock.now();
        if (this.failedPodsBackoff.isInBackOffSinceUpdate(backoffKey, now)) {
          requeue.after(this.failedPodsBackoff.get(backoffKey));
          continue;
        }
        this.failedPodsBackoff.next(backoffKey, now);
        const msg = `Found failed daemon pod ${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''} on node ${nodeName}, will try to kill it`;
        this.recorder.event(this.owner(ds), 'Warning', FAILED_DAEMON_POD_REASON, msg);
        podsToDelete.push(pod.metadata?.name ?? '');
      } else if (phase === 'Succeeded') {
        podsToDelete.push(pod.metadata?.name ?? '');
      } else {
        running.push(pod);
      }
    }
    if (!allowsSurge(ds)) {
      if (running.length <= 1) return;
      running.sort(comparePodsByCreationTimestampAndPhase);
      for (const pod of running.slice(1)) podsToDelete.push(pod.metadata?.name ?? '');
      return;
    }
    if (running.length <= 1) {
      if (running.length === 0 && shouldRun) nodesNeedingDaemonPods.push(nodeName);
      return;
    }
    running.sort(comparePodsByCreationTimestampAndPhase);
    let oldestNewPod: Pod | undefined;
    let oldestOldPod: Pod | undefined;
    for (const pod of running) {
      if (pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] === hash) {
        if (!oldestNewPod) {
          oldestNewPod = pod;
          continue;
        }
      } else if (!oldestOldPod) {
        oldestOldPod = pod;
        continue;
      }
      podsToDelete.push(pod.metadata?.name ?? '');
    }
    if (oldestNewPod && oldestOldPod) {
      if (!isPodReady(oldestOldPod) || isPodAvailable(oldestNewPod, ds.spec?.minReadySeconds ?? 0, this.clock.now())) {
        podsToDelete.push(oldestOldPod.metadata?.name ?? '');
      }
    }
  }

  /**
   * `syncNodes`: deletes `podsToDelete` and creates a daemon pod pinned to each of
   * `nodesNeedingDaemonPods`, at most burstReplicas of each, with expectations set first. Creations
   * run in slow-start batches (1, 2, 4 …) and stop after a failing batch; deletions in parallel.
   * Throws the errors together (NotFound deletions and namespace-terminating creations are not errors).
   */
  async syncNodes(ds: DaemonSet, podsToDelete: readonly string[], nodesNeedingDaemonPods: readonly string[], hash: string): Promise<void> {
    const key = metaNamespaceKey(ds);
    const namespace = ds.metadata?.namespace ?? '';
    const createDiff = Math.min(nodesNeedingDaemonPods.length, this.burstReplicas);
    const deleteDiff = Math.min(podsToDelete.length, this.burstReplicas);
    this.expectations.setExpectations(key, createDiff, deleteDiff);
    const errs: unknown[] = [];
    const owner = this.owner(ds);
    const controllerRef = newControllerRef({ metadata: ds.metadata }, DAEMON_SET_KIND);
    if (createDiff > 0) {
      const template = createPodTemplate(ds.spec?.template ?? {}, getTemplateGeneration(ds), hash);
      let next = 0;
      const { error } = await slowStartBatch(createDiff, SLOW_START_INITIAL_BATCH_SIZE, async () => {
        const nodeName = nodesNeedingDaemonPods[next++] ?? '';
        const podTemplate = { ...template, spec: { ...(template.spec ?? { containers: [] }) } };
        podTemplate.spec.affinity = replaceDaemonSetPodNodeNameNodeAffinity(structuredClone(podTemplate.spec.affinity), nodeName);
        try {
          await this.podControl.createPods(namespace, podTemplate, owner, controllerRef);
        } catch (err) {
          // This creation will never be observed.
          this.expectations.creationObserved(key);
          if (hasStatusCause(err, NAMESPACE_TERMINATING_CAUSE)) return;
          throw err;
        }
      });
      // Creations never attempted will never be observed either; failed ones were lowered above.
      const attempted = next;
      if (createDiff - attempted > 0) this.expectations.lowerExpectations(key, createDiff - attempted, 0);
      if (error !== undefined) errs.push(error);
    }
    const results = await Promise.allSettled(
      podsToDelete.slice(0, deleteDiff).map(async (podName) => {
        try {
          await this.podControl.deletePod(namespace, podName, owner);
        } catch (err) {
          this.expectations.deletionObserved(key);
          if (!isNotFound(err)) throw err;
        }
      }),
    );
    for (const r of results) if (r.status === 'rejected') errs.push(r.reason);
    const err = aggregateErrors(errs);
    if (err) throw err;
  }

  /**
   * `updateDaemonSetStatus`: counts, over the nodes that should run the pod, those with a pod
   * (current), whose oldest pod is ready / available / updated, and the nodes with a pod that should
   * not (misscheduled); writes them with `storeDaemonSetStatus`. Requeues after minReadySeconds while
   * some ready pods are not yet available.
   */
  private async updateDaemonSetStatus(ds: DaemonSet, nodes: Node[], hash: string, updateObservedGen: boolean, requeue: Requeue): Promise<void> {
    const nodeToDaemonPods = await this.getNodesToDaemonPods(ds, false);
    const now = this.clock.now();
    const minReadySeconds = ds.spec?.minReadySeconds ?? 0;
    const generation = getTemplateGeneration(ds);
    let desired = 0;
    let current = 0;
    let misscheduled = 0;
    let ready = 0;
    let available = 0;
    let updated = 0;
    for (const node of nodes) {
      const { shouldRun } = nodeShouldRunDaemonPod(node, ds);
      const pods = nodeToDaemonPods.get(node.metadata?.name ?? '');
      const scheduled = pods !== undefined && pods.length > 0;
      if (!shouldRun) {
        if (scheduled) misscheduled++;
        continue;
      }
      desired++;
      if (!scheduled) continue;
      current++;
      const pod = pods.length === 1 ? (pods[0] as Pod) : ([...pods].sort(comparePodsByCreationTimestampAndPhase)[0] as Pod);
      if (isPodReady(pod)) {
        ready++;
        if (isPodAvailable(pod, minReadySeconds, now)) available++;
      }
      if (isPodUpdated(pod, hash, generation)) updated++;
    }
    const counts = {
      desiredNumberScheduled: desired,
      currentNumberScheduled: current,
      numberMisscheduled: misscheduled,
      numberReady: ready,
      updatedNumberScheduled: updated,
      numberAvailable: available,
      numberUnavailable: desired - available,
    };
    await this.storeDaemonSetStatus(ds, counts, updateObservedGen);
    if (minReadySeconds > 0 && ready !== available) requeue.after(minReadySeconds * 1000);
  }

  /**
   * `storeDaemonSetStatus`: nothing when the counts are unchanged and observedGeneration is current;
   * otherwise PUT status (observedGeneration = the synced generation when `updateObservedGen`), and
   * on failure re-read the DaemonSet and try once more. Throws the last error.
   */
  private async storeDaemonSetStatus(ds: DaemonSet, counts: Record<string, number>, updateObservedGen: boolean): Promise<void> {
    const status = (ds.status ?? {}) as Record<string, unknown>;
    const generation = ds.metadata?.generation ?? 0;
    const unchanged = Object.entries(counts).every(([k, v]) => (status[k] ?? 0) === v);
    if (unchanged && (ds.status?.observedGeneration ?? 0) >= generation) return;
    const client = this.client.apps.daemonSets(ds.metadata?.namespace);
    let toUpdate = ds;
    for (let attempt = 0; ; attempt++) {
      const newStatus = { ...toUpdate.status, ...counts } as NonNullable<DaemonSet['status']> & { observedGeneration?: number };
      if (updateObservedGen) newStatus.observedGeneration = generation;
      try {
        await client.updateStatus({ ...toUpdate, status: newStatus });
        return;
      } catch (err) {
        if (attempt >= 1) throw err;
      }
      toUpdate = await client.get(ds.metadata?.name ?? '');
    }
  }
}

/**
 * `getUnscheduledPodsWithoutNode`: names of unscheduled daemon pods pinned to nodes that do not exist
 * (the pod GC only collects scheduled pods, so nobody else would delete them).
 */
export function getUnscheduledPodsWithoutNode(nodes: readonly Node[], nodeToDaemonPods: NodeToDaemonPods): string[] {
  const existing = new Set(nodes.map((n) => n.metadata?.name ?? ''));
  const result: string[] = [];
  for (const [nodeName, pods] of nodeToDaemonPods) {
    if (existing.has(nodeName)) continue;
    for (const pod of pods) if (!pod.spec?.nodeName) result.push(pod.metadata?.name ?? '');
  }
  return result;
}
