/**
 * The Deployment controller: rolls a Deployment's pod template out through ReplicaSets (one per
 * template revision) with the RollingUpdate or Recreate strategy, scales them, keeps history and
 * reports rollout status.
 *
 * Follows kubernetes/kubernetes pkg/controller/deployment/deployment_controller.go (handlers,
 * `syncDeployment`, `getReplicaSetsForDeployment`, `getPodMapForDeployment`, `handleErr` with
 * maxRetries 15); the phases are in sync.ts, rolling.ts, recreate.ts, rollback.ts and progress.ts.
 */
import type { Deployment, Pod, ReplicaSet } from '../../api/index.js';
import type { Clientset } from '../../client/index.js';
import { DeletedFinalStateUnknown, type Indexer, type Lister, type SharedInformerFactory } from '../../informers/index.js';
import { selectorFromLabelSelector, type Selector } from '../../machinery/labels/index.js';
import { deepCopy, getControllerOf, metaNamespaceKey, semanticDeepEqual, splitMetaNamespaceKey } from '../../machinery/meta/index.js';
import type { Clock } from '../../util/clock/index.js';
import { RateLimitingQueue } from '../../workqueue/index.js';
import { canAdoptByUncachedGet, claimReplicaSets } from '../controller-ref-manager.js';
import { NAMESPACE_TERMINATING_CAUSE, POD_CONTROLLER_UID_INDEX, addPodControllerUIDIndexer, hasStatusCause, resolveControllerRef } from '../controller-utils.js';
import { EventRecorder } from '../../client/record/index.js';
import { stderrLogger, type Logger } from '../../util/runtime/index.js';
import { runWorkersWhenSynced, type SyncResult } from '../../workqueue/index.js';
import { rolloutRecreate } from './recreate.js';
import { getRollbackTo, rollback } from './rollback.js';
import { rolloutRolling } from './rolling.js';
import { DEPLOYMENT_KIND, checkPausedConditions, isScalingEvent, recordEvent, sync, syncStatusOnly, updateDeploymentStatus, type DeploymentSyncContext } from './sync.js';

/** Retries of a failing key before it is dropped from the queue (deployment_controller.go). */
export const MAX_RETRIES = 15;

/** Options of {@link DeploymentController}. */
export interface DeploymentControllerOptions {
  client: Clientset;
  informers: SharedInformerFactory;
  clock: Clock;
  /** Default worker count of {@link DeploymentController.run} (`--concurrent-deployment-syncs`, 5). */
  workers?: number;
  /** Default: a recorder with component `deployment-controller`. */
  recorder?: EventRecorder;
  logger?: Logger;
}

/** The Deployments selecting `obj`'s labels, if it has labels (`GetDeploymentsForReplicaSet`); empty selectors select nothing. */
function deploymentsSelecting(deployments: readonly Deployment[], labels: Record<string, string> | undefined): Deployment[] {
  if (!labels || Object.keys(labels).length === 0) return [];
  return deployments.filter((d) => {
    let selector: Selector;
    try {
      selector = selectorFromLabelSelector(d.spec?.selector);
    } catch {
      return false;
    }
    return !selector.empty() && selector.matches(labels);
  });
}

export class DeploymentController implements DeploymentSyncContext {
  readonly queue: RateLimitingQueue;
  /** The per-key sync; a field so tests can wrap or replace it. */
  syncHandler: (key: string) => Promise<SyncResult>;
  readonly client: Clientset;
  readonly recorder: EventRecorder;
  readonly clock: Clock;
  readonly rsLister: Lister<ReplicaSet>;

  private readonly informers: SharedInformerFactory;
  private readonly dLister: Lister<Deployment>;
  private readonly podIndexer: Indexer<Pod>;
  private readonly defaultWorkers: number;
  private readonly logger: Logger;

  constructor(opts: DeploymentControllerOptions) {
    this.client = opts.client;
    this.clock = opts.clock;
    this.informers = opts.informers;
    this.defaultWorkers = opts.workers ?? 5;
    this.logger = opts.logger ?? stderrLogger;
    this.recorder = opts.recorder ?? new EventRecorder(opts.client, { component: 'deployment-controller', clock: opts.clock, logger: this.logger });
    this.queue = new RateLimitingQueue<string>({ clock: opts.clock, name: 'deployment' });

    const dInformer = opts.informers.apps.deployments();
    dInformer.addEventHandler({
      add: (d) => this.enqueueDeployment(d),
      update: (_old, cur) => this.enqueueDeployment(cur),
      delete: (obj) => this.enqueueDeployment(obj instanceof DeletedFinalStateUnknown ? obj.obj : obj),
    });
    const rsInformer = opts.informers.apps.replicaSets();
    rsInformer.addEventHandler({
      add: (rs) => this.addReplicaSet(rs),
      update: (oldRS, curRS) => this.updateReplicaSet(oldRS, curRS),
      delete: (obj) => this.deleteReplicaSet(obj),
    });
    const podInformer = opts.informers.core.pods();
    addPodControllerUIDIndexer(podInformer);
    podInformer.addEventHandler({ delete: (obj) => this.deletePod(obj) });
    this.dLister = dInformer.lister();
    this.rsLister = rsInformer.lister();
    this.podIndexer = podInformer.getIndexer();
    this.syncHandler = (key) => this.syncDeployment(key);
  }

  /**
   * Waits for the Deployment, ReplicaSet and pod caches, then runs `workers` workers until `signal`
   * aborts. A key failing {@link MAX_RETRIES} times in a row is dropped (until its next event).
   */
  async run(workers: number = this.defaultWorkers, signal?: AbortSignal): Promise<void> {
    await runWorkersWhenSynced([this.informers.apps.deployments(), this.informers.apps.replicaSets(), this.informers.core.pods()], this.queue, workers, (key) => this.syncHandler(key), {
      name: 'deployment',
      maxRetries: MAX_RETRIES,
      logger: this.logger,
      signal,
    });
  }

  enqueueAfter(d: Deployment, ms: number): void {
    this.queue.addAfter(metaNamespaceKey(d), ms);
  }

  enqueueRateLimited(d: Deployment): void {
    this.queue.addRateLimited(metaNamespaceKey(d));
  }

  // ---- event handlers ----

  private enqueueDeployment(d: Deployment): void {
    this.queue.add(metaNamespaceKey(d));
  }

  /** `resolveControllerRef`: the Deployment a controllerRef names, if its UID still matches. */
  private resolveControllerRef(namespace: string, ref: { kind: string; name: string; uid: string }): Deployment | undefined {
    return resolveControllerRef(this.dLister, DEPLOYMENT_KIND.kind, namespace, ref);
  }

  /** `getDeploymentsForReplicaSet`: Deployments whose selector matches an orphan RS (to adopt it). */
  private getDeploymentsForReplicaSet(rs: ReplicaSet): Deployment[] {
    const ds = deploymentsSelecting(this.dLister.namespace(rs.metadata?.namespace ?? '').list(), rs.metadata?.labels);
    if (ds.length > 1) {
      this.logger.info({ replicaSet: metaNamespaceKey(rs), deployments: ds.map((d) => d.metadata?.name) }, 'user error! more than one deployment is selecting replica set');
    }
    return ds;
  }

  private addReplicaSet(rs: ReplicaSet): void {
    if (rs.metadata?.deletionTimestamp) {
      // Seen for the first time while being deleted (e.g. after a restart): a deletion for us.
      this.deleteReplicaSet(rs);
      return;
    }
    const ref = getControllerOf(rs);
    if (ref) {
      const d = this.resolveControllerRef(rs.metadata?.namespace ?? '', ref);
      if (d) this.enqueueDeployment(d);
      return;
    }
    for (const d of this.getDeploymentsForReplicaSet(rs)) this.enqueueDeployment(d);
  }

  private updateReplicaSet(oldRS: ReplicaSet, curRS: ReplicaSet): void {
    if (curRS.metadata?.resourceVersion === oldRS.metadata?.resourceVersion) return;
    const curRef = getControllerOf(curRS);
    const oldRef = getControllerOf(oldRS);
    const refChanged = !semanticDeepEqual(curRef, oldRef);
    if (refChanged && oldRef) {
      const d = this.resolveControllerRef(oldRS.metadata?.namespace ?? '', oldRef);
      if (d) this.enqueueDeployment(d);
    }
    if (curRef) {
      const d = this.resolveControllerRef(curRS.metadata?.namespace ?? '', curRef);
      if (d) this.enqueueDeployment(d);
      return;
    }
    const labelChanged = !semanticDeepEqual(curRS.metadata?.labels, oldRS.metadata?.labels);
    if (labelChanged || refChanged) {
      for (const d of this.getDeploymentsForReplicaSet(curRS)) this.enqueueDeployment(d);
    }
  }

  private deleteReplicaSet(obj: ReplicaSet | DeletedFinalStateUnknown<ReplicaSet>): void {
    const rs = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
    const ref = getControllerOf(rs);
    if (!ref) return;
    const d = this.resolveControllerRef(rs.metadata?.namespace ?? '', ref);
    if (d) this.enqueueDeployment(d);
  }

  /**
   * `deletePod`: a Recreate Deployment waits for its old pods to be gone; sync it when the last pod
   * of its ReplicaSets disappears. (Upstream lists the RSes live; the cache is enough here, since an
   * RS event also triggers a sync.)
   */
  private deletePod(obj: Pod | DeletedFinalStateUnknown<Pod>): void {
    const pod = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
    const d = this.getDeploymentForPod(pod);
    if (d?.spec?.strategy?.type !== 'Recreate') return;
    const rsList = this.rsLister
      .namespace(d.metadata?.namespace ?? '')
      .list()
      .filter((rs) => getControllerOf(rs)?.uid === d.metadata?.uid);
    let numPods = 0;
    for (const pods of this.getPodMapForDeployment(d, rsList).values()) numPods += pods.length;
    if (numPods === 0) this.enqueueDeployment(d);
  }

  /** `getDeploymentForPod`: pod → controlling ReplicaSet → controlling Deployment. */
  private getDeploymentForPod(pod: Pod): Deployment | undefined {
    const podRef = getControllerOf(pod);
    if (podRef?.kind !== 'ReplicaSet') return undefined;
    const ns = pod.metadata?.namespace ?? '';
    const rs = this.rsLister.namespace(ns).get(podRef.name);
    if (rs?.metadata?.uid !== podRef.uid) return undefined;
    const rsRef = getControllerOf(rs);
    return rsRef ? this.resolveControllerRef(ns, rsRef) : undefined;
  }

  // ---- sync ----

  /**
   * `getReplicaSetsForDeployment`: the namespace's ReplicaSets claimed by `d` (adopting matching
   * orphans after an uncached check that `d` still exists, releasing owned non-matching ones).
   */
  private getReplicaSetsForDeployment(d: Deployment, selector: Selector): Promise<ReplicaSet[]> {
    const ns = d.metadata?.namespace ?? '';
    return claimReplicaSets(
      {
        client: this.client,
        controller: d,
        controllerKind: DEPLOYMENT_KIND,
        selector,
        canAdopt: canAdoptByUncachedGet(d, DEPLOYMENT_KIND.kind, (n) => this.client.apps.deployments(ns).get(n)),
      },
      this.rsLister.namespace(ns).list(),
    );
  }

  /**
   * `getPodMapForDeployment`: RS UID → the pods it controls that match the Deployment's selector,
   * with an entry (possibly empty) for every RS of `rsList`. Read from the controller-UID pod index.
   */
  getPodMapForDeployment(d: Deployment, rsList: readonly ReplicaSet[]): Map<string, Pod[]> {
    let selector: Selector;
    try {
      selector = selectorFromLabelSelector(d.spec?.selector);
    } catch {
      return new Map();
    }
    const ns = d.metadata?.namespace ?? '';
    const podMap = new Map<string, Pod[]>();
    for (const rs of rsList) {
      const uid = rs.metadata?.uid ?? '';
      const pods = this.podIndexer.byIndex(POD_CONTROLLER_UID_INDEX, uid).filter((p) => (p.metadata?.namespace ?? '') === ns && selector.matches(p.metadata?.labels));
      podMap.set(uid, pods);
    }
    return podMap;
  }

  /**
   * `syncDeployment`: reconciles one Deployment (`namespace/name` key): empty-selector guard, claim
   * ReplicaSets, then by state — being deleted: status only; paused or resized: `sync` (scale); a
   * legacy rollback request: `rollback`;
   * otherwise the strategy's rollout step. Errors caused by a terminating namespace are not retried.
   */
  async syncDeployment(key: string): Promise<SyncResult> {
    try {
      await this.syncDeploymentOnce(key);
    } catch (err) {
      if (hasStatusCause(err, NAMESPACE_TERMINATING_CAUSE)) return;
      throw err;
    }
  }

  private async syncDeploymentOnce(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const cached = this.dLister.namespace(namespace).get(name);
    if (!cached) return;
    const d = deepCopy(cached);

    const selector = selectorFromLabelSelector(d.spec?.selector);
    if (selector.empty()) {
      recordEvent(this, d, 'Warning', 'SelectingAll', 'This deployment is selecting all pods. A non-empty selector is required.');
      const status = (d.status ??= {});
      if ((status.observedGeneration ?? 0) < (d.metadata?.generation ?? 0)) {
        status.observedGeneration = d.metadata?.generation ?? 0;
        await updateDeploymentStatus(this, d);
      }
      return;
    }

    // Claim first, so status and scaling see adoptions and releases of this very sync.
    const rsList = await this.getReplicaSetsForDeployment(d, selector);
    if (d.metadata?.deletionTimestamp) {
      await syncStatusOnly(this, d, rsList);
      return;
    }
    await checkPausedConditions(this, d);
    if (d.spec?.paused) {
      await sync(this, d, rsList);
      return;
    }
    if (getRollbackTo(d) !== undefined) {
      await rollback(this, d, rsList);
      return;
    }
    if (await isScalingEvent(this, d, rsList)) {
      await sync(this, d, rsList);
      return;
    }
    switch (d.spec?.strategy?.type) {
      case 'Recreate':
        await rolloutRecreate(this, d, rsList, this.getPodMapForDeployment(d, rsList));
        return;
      case 'RollingUpdate':
        await rolloutRolling(this, d, rsList);
        return;
      case undefined:
      default:
        throw new Error(`unexpected deployment strategy type: ${d.spec?.strategy?.type ?? ''}`);
    }
  }
}
