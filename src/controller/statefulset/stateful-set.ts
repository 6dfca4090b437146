/**
 * The StatefulSet controller: informers on StatefulSets, pods, ControllerRevisions and PVCs, a work
 * queue, pod event handlers that map pods to their set (by controllerRef, or orphans to the sets
 * selecting them), adoption and release of pods (only pods named `<set>-<ordinal>` belong) and of
 * revisions, and the per-key sync delegating to {@link StatefulSetControl}.
 *
 * Follows kubernetes/kubernetes v1.33 pkg/controller/statefulset/stateful_set.go: `NewStatefulSetController`
 * (handlers), `addPod`/`updatePod`/`deletePod`, `getPodsForStatefulSet`, `adoptOrphanRevisions`,
 * `getStatefulSetsForPod`, `resolveControllerRef`, `enqueueStatefulSet`/`enqueueSSAfter`, `sync`,
 * `syncStatefulSet`; KCM `--concurrent-statefulset-syncs` = 5 workers.
 *
 * Difference: with minReadySeconds the set is requeued when the next ready pod becomes available
 * (upstream requeues after the whole minReadySeconds).
 */
import type { ControllerRevision, PersistentVolumeClaim, Pod, StatefulSet } from '../../api/index.js';
import type { Clientset } from '../../client/index.js';
import { EventRecorder, withTypeMeta } from '../../client/record/index.js';
import { DeletedFinalStateUnknown, type Indexer, type Lister, type SharedInformerFactory } from '../../informers/index.js';
import { selectorFromLabelSelector, type Selector } from '../../machinery/labels/index.js';
import { getControllerOf, metaNamespaceKey, splitMetaNamespaceKey } from '../../machinery/meta/index.js';
import type { Clock } from '../../util/clock/index.js';
import { stderrLogger, type Logger } from '../../util/runtime/index.js';
import { RateLimitingQueue, runWorkersWhenSynced, type SyncResult } from '../../workqueue/index.js';
import { canAdoptByUncachedGet, claimPods } from '../controller-ref-manager.js';
import { addPodControllerUIDIndexer, filterPodsByOwner, enqueueWhenAvailable, dependentEventHandlers, resolveControllerRef } from '../controller-utils.js';
import { claimControllerRevisions } from '../history/index.js';
import { RealPodControl, type PodControl } from '../pod-control.js';
import { StatefulPodControl } from './stateful-pod-control.js';
import { StatefulSetControl } from './stateful-set-control.js';
import { isMemberOf, STATEFUL_SET_KIND } from './stateful-set-utils.js';

/** `--concurrent-statefulset-syncs` default. */
export const DEFAULT_STATEFUL_SET_WORKERS = 5;

/** Options of {@link StatefulSetController}. */
export interface StatefulSetControllerOptions {
  client: Clientset;
  informers: SharedInformerFactory;
  clock: Clock;
  /** Default worker count of {@link StatefulSetController.run} ({@link DEFAULT_STATEFUL_SET_WORKERS}). */
  workers?: number;
  /** Default: a recorder with component `statefulset-controller`. */
  recorder?: EventRecorder;
  /** Patches pods on adoption/release. Default: {@link RealPodControl} over `client`. */
  podControl?: PodControl;
  /**
   * The MaxUnavailableStatefulSet feature gate (alpha, off in 1.33): when false,
   * `rollingUpdate.maxUnavailable` is ignored and updates take one pod at a time.
   */
  maxUnavailableStatefulSet?: boolean;
  logger?: Logger;
}

/** A set's selector compiled; undefined when invalid (the set is skipped) . */
function compiledSelector(set: StatefulSet): Selector | undefined {
  try {
    return selectorFromLabelSelector(set.spec?.selector);
  } catch {
    return undefined;
  }
}

/** `StatefulSetController`. */
export class StatefulSetController {
  readonly queue: RateLimitingQueue;
  /** The per-key sync; a field so tests can wrap or replace it. */
  syncHandler: (key: string) => Promise<SyncResult>;
  readonly control: StatefulSetControl;
  readonly recorder: EventRecorder;
  /** Replaceable by tests (adoption and release patches). */
  podControl: PodControl;

  private readonly client: Clientset;
  private readonly informers: SharedInformerFactory;
  private readonly defaultWorkers: number;
  private readonly logger: Logger;
  private readonly setLister: Lister<StatefulSet>;
  private readonly historyLister: Lister<ControllerRevision>;
  private readonly podIndexer: Indexer<Pod>;

  constructor(opts: StatefulSetControllerOptions) {
    this.client = opts.client;
    this.informers = opts.informers;
    this.defaultWorkers = opts.workers ?? DEFAULT_STATEFUL_SET_WORKERS;
    this.logger = opts.logger ?? stderrLogger;
    this.recorder = opts.recorder ?? new EventRecorder(opts.client, { component: 'statefulset-controller', clock: opts.clock, logger: this.logger });
    this.podControl = opts.podControl ?? new RealPodControl(opts.client, this.recorder);
    this.queue = new RateLimitingQueue<string>({ clock: opts.clock, name: 'statefulset' });

    const setInformer = opts.informers.apps.statefulSets();
    setInformer.addEventHandler({
      add: (set) => this.enqueueStatefulSet(set),
      update: (_old, cur) => this.enqueueStatefulSet(cur),
      delete: (obj) => this.enqueueStatefulSet(obj instanceof DeletedFinalStateUnknown ? obj.obj : obj),
    });
    const podInformer = opts.informers.core.pods();
    addPodControllerUIDIndexer(podInformer);
    podInformer.addEventHandler(
      dependentEventHandlers<StatefulSet, Pod>({
        resolve: (ns, ref) => this.resolveControllerRef(ns, ref),
        selecting: (pod) => this.getStatefulSetsForPod(pod),
        enqueue: (set) => this.enqueueStatefulSet(set),
        ownedUpdated: (set, oldPod, curPod) => enqueueWhenAvailable(this.queue, metaNamespaceKey(set), oldPod, curPod, set.spec?.minReadySeconds ?? 0),
      }),
    );
    const historyInformer = opts.informers.apps.controllerRevisions();
    const claimInformer = opts.informers.core.persistentVolumeClaims();
    this.setLister = setInformer.lister();
    this.historyLister = historyInformer.lister();
    this.podIndexer = podInformer.getIndexer();
    const claimLister: Lister<PersistentVolumeClaim> = claimInformer.lister();
    const statefulPodControl = new StatefulPodControl(opts.client, claimLister, this.recorder, (set) => this.owner(set));
    this.control = new StatefulSetControl({
      client: opts.client,
      clock: opts.clock,
      historyLister: this.historyLister,
      podControl: statefulPodControl,
      maxUnavailableStatefulSet: opts.maxUnavailableStatefulSet ?? false,
    });
    this.syncHandler = (key) => this.sync(key);
  }

  /**
   * Waits for the StatefulSet, pod, ControllerRevision and PVC caches, then runs `workers` workers
   * until `signal` aborts. The informer factory must be started by the caller.
   */
  async run(workers: number = this.defaultWorkers, signal?: AbortSignal): Promise<void> {
    const i = this.informers;
    await runWorkersWhenSynced([i.apps.statefulSets(), i.core.pods(), i.apps.controllerRevisions(), i.core.persistentVolumeClaims()], this.queue, workers, (key) => this.syncHandler(key), {
      name: 'statefulset',
      logger: this.logger,
      signal,
    });
  }

  /** The set with apiVersion/kind, as an event's involved object. */
  owner(set: StatefulSet): StatefulSet {
    return withTypeMeta(set, STATEFUL_SET_KIND.apiVersion, STATEFUL_SET_KIND.kind);
  }

  // ---- event handlers: map an event to keys, nothing else ----

  private enqueueStatefulSet(set: StatefulSet): void {
    this.queue.add(metaNamespaceKey(set));
  }

  private resolveControllerRef(namespace: string, ref: { kind: string; name: string; uid: string }): StatefulSet | undefined {
    return resolveControllerRef(this.setLister, STATEFUL_SET_KIND.kind, namespace, ref);
  }

  /** `getStatefulSetsForPod`: the sets of the pod's namespace whose selector matches its labels. */
  private getStatefulSetsForPod(pod: { metadata?: { namespace?: string; labels?: Record<string, string> } }): StatefulSet[] {
    const labels = pod.metadata?.labels;
    if (!labels || Object.keys(labels).length === 0) return [];
    return this.setLister
      .namespace(pod.metadata?.namespace ?? '')
      .list()
      .filter((set) => {
        const s = compiledSelector(set);
        return s !== undefined && !s.empty() && s.matches(labels);
      });
  }

  // ---- sync ----

  /**
   * `sync`: handles one StatefulSet (`namespace/name`): adopts orphan revisions, claims pods, runs
   * the control loop. Resolves `{requeueAfter}` while ready pods wait out minReadySeconds; throws
   * API errors (the key is retried with backoff).
   */
  async sync(key: string): Promise<SyncResult> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const set = this.setLister.namespace(namespace).get(name);
    if (!set) return;
    const selector = compiledSelector(set);
    if (!selector) {
      // Validation forbids it; a malformed set must not be retried forever.
      this.logger.info({ statefulSet: key }, 'error converting StatefulSet selector');
      return;
    }
    await this.adoptOrphanRevisions(set, selector);
    const pods = await this.getPodsForStatefulSet(set, selector);
    const { status, requeueAfterMs } = await this.control.updateStatefulSet(set, pods);
    const replicas = set.spec?.replicas ?? 1;
    if (requeueAfterMs !== undefined && status && status.availableReplicas !== replicas) return { requeueAfter: requeueAfterMs };
    return undefined;
  }

  /** `adoptOrphanRevisions`: orphan revisions the selector matches get the set as controller. */
  private async adoptOrphanRevisions(set: StatefulSet, selector: Selector): Promise<void> {
    const orphans = this.control.listRevisions(set).filter((r) => !getControllerOf(r));
    if (orphans.length === 0) return;
    await claimControllerRevisions(
      {
        client: this.client,
        controller: set,
        controllerKind: STATEFUL_SET_KIND,
        selector,
        canAdopt: this.canAdopt(set),
      },
      orphans,
    );
  }

  /**
   * `getPodsForStatefulSet`: the set's pods plus matching orphans named `<set>-<ordinal>` (adopted);
   * owned pods that no longer match, or whose name is not the set's, are released.
   */
  private getPodsForStatefulSet(set: StatefulSet, selector: Selector): Promise<Pod[]> {
    const pods = filterPodsByOwner(this.podIndexer, set, true);
    return claimPods({ controller: set, controllerKind: STATEFUL_SET_KIND, selector, canAdopt: this.canAdopt(set), podControl: this.podControl }, pods, [(pod) => isMemberOf(set, pod)]);
  }

  /** `canAdoptFunc`: adoption only while a fresh read shows the same, undeleted set. */
  private canAdopt(set: StatefulSet): () => Promise<void> {
    return canAdoptByUncachedGet(set, STATEFUL_SET_KIND.kind, (n) => this.client.apps.statefulSets(set.metadata?.namespace).get(n));
  }
}
