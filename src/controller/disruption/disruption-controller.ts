/**
 * The disruption controller: keeps the status of every PodDisruptionBudget — how many of its pods
 * are expected, healthy and needed healthy, and how many disruptions (evictions) are allowed now —
 * which the eviction subresource of pods reads and decrements.
 *
 * Follows kubernetes/kubernetes v1.33 pkg/controller/disruption/disruption.go:
 * - handlers (`addDB/updateDB/removeDB`, `addPod/updatePod/deletePod` → `getPdbForPod`) only enqueue;
 * - `sync` → `trySync`: the budget's pods (`getPodsForPdb`: its selector in its namespace),
 *   `getExpectedPodCount` (`minAvailable` integer: the pods found; otherwise the summed scale of the
 *   pods' controllers, found by `finders` — ReplicationController, Deployment (through its
 *   ReplicaSet), ReplicaSet, StatefulSet, then any `scale` subresource — with percentages rounded
 *   up), `buildDisruptedPodMap` (evictions not yet seen as deletions, dropped after
 *   {@link DELETION_TIMEOUT_MS}), `countHealthyPods` (Ready, not being deleted, not just evicted) and
 *   `updatePdbStatus` (written only when something changed); a failure other than a conflict
 *   falls back to `failSafe` (0 disruptions allowed, condition DisruptionAllowed=False/SyncFailed);
 * - `syncStalePodDisruption`: a pod that has carried the DisruptionTarget=True condition for
 *   {@link STALE_POD_DISRUPTION_TIMEOUT_MS} without being deleted gets it set to False.
 * The recheck queue of upstream is the main queue's `requeueAfter` here.
 */
import type { Deployment, Pod, PodDisruptionBudget, ReplicaSet, ReplicationController, StatefulSet } from '../../api/index.js';
import type { Clientset } from '../../client/index.js';
import { EventRecorder, withTypeMeta } from '../../client/record/index.js';
import { DeletedFinalStateUnknown, type Lister, type SharedInformerFactory } from '../../informers/index.js';
import { isConflict, isNotFound } from '../../machinery/errors/index.js';
import { getScaledValueFromIntOrPercent } from '../../machinery/intstr/index.js';
import { selectorFromLabelSelector, type Selector } from '../../machinery/labels/index.js';
import { deepCopy, getControllerOf, metaNamespaceKey, semanticDeepEqual, splitMetaNamespaceKey } from '../../machinery/meta/index.js';
import {
  DISRUPTION_ALLOWED_CONDITION,
  SYNC_FAILED_REASON,
  conditionsAreUpToDate,
  setStatusCondition,
  updateDisruptionAllowedCondition,
} from '../../machinery/poddisruptionbudget/index.js';
import { formatTime, parseTime, type Clock } from '../../util/clock/index.js';
import { stderrLogger, type Logger } from '../../util/runtime/index.js';
import { RateLimitingQueue, runWorkersWhenSynced, type SyncResult } from '../../workqueue/index.js';
import { isPodReady, resolveControllerRef, specReplicas, toError } from '../controller-utils.js';
import { catalogueRESTMapper, type RESTMapper } from '../rest-mapper.js';

/**
 * upstream `DeletionTimeout` (2 min, in ms): how long an eviction recorded in `status.disruptedPods`
 * keeps its pod out of the healthy count while the controller waits to see the pod being deleted.
 */
export const DELETION_TIMEOUT_MS = 2 * 60_000;

/**
 * upstream `stalePodDisruptionTimeout` (2 min, in ms): how long a pod may carry DisruptionTarget=True
 * without a deletionTimestamp before the condition is set to False.
 */
export const STALE_POD_DISRUPTION_TIMEOUT_MS = 2 * 60_000;

/** The DisruptionTarget pod condition (core/v1 `DisruptionTarget`). */
const DISRUPTION_TARGET = 'DisruptionTarget';
/** core/v1 `PodReasonTerminationByKubelet`: the kubelet's disruptions are never stale. */
const TERMINATION_BY_KUBELET = 'TerminationByKubelet';

/** Options of {@link DisruptionController}. */
export interface DisruptionControllerOptions {
  client: Clientset;
  informers: SharedInformerFactory;
  clock: Clock;
  /** Finds the resource of a controller kind for the scale fallback. Default: the catalogue. */
  restMapper?: RESTMapper;
  /** Default: a recorder with component `controllermanager`, as upstream's. */
  recorder?: EventRecorder;
  /** Default {@link STALE_POD_DISRUPTION_TIMEOUT_MS} (upstream's `NewDisruptionControllerInternal` parameter). */
  stalePodDisruptionTimeoutMs?: number;
  logger?: Logger;
}

/** upstream `controllerAndScale`: a controller's UID and its desired replica count. */
interface ControllerAndScale {
  uid: string;
  scale: number;
}

/** A controllerRef as the finders read it. */
interface ControllerRef {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
}

/** upstream `podControllerFinder`: the controller and scale a controllerRef names, undefined when not this finder's kind or gone. */
type PodControllerFinder = (ref: ControllerRef, namespace: string) => Promise<ControllerAndScale | undefined>;

/** `schema.ParseGroupVersion`'s group. @throws Error `unexpected GroupVersion string: <s>` for more than one slash */
function groupOf(apiVersion: string): string {
  const parts = apiVersion.split('/');
  if (parts.length > 2) throw new Error(`unexpected GroupVersion string: ${apiVersion}`);
  return parts.length === 2 ? (parts[0] ?? '') : '';
}

/** upstream `verifyGroupKind`: the ref's kind is `kind` and its group one of `groups`. */
function verifyGroupKind(ref: ControllerRef, kind: string, groups: readonly string[]): boolean {
  const group = groupOf(ref.apiVersion);
  return ref.kind === kind && groups.includes(group);
}

/** The time (ms) an RFC 3339 `disruptedPods` entry names; 0 for an unreadable one (long expired). */
function disruptionTimeOf(s: string): number {
  return parseTime(s) ?? 0;
}

/** See the module documentation. */
export class DisruptionController {
  /** PodDisruptionBudget keys to sync. */
  readonly queue: RateLimitingQueue;
  /** Pod keys whose DisruptionTarget condition may be stale. */
  readonly stalePodDisruptionQueue: RateLimitingQueue;
  /** The per-key sync; a field so tests can wrap or replace it (upstream's `sync`). */
  syncHandler: (key: string) => Promise<SyncResult>;

  private readonly client: Clientset;
  private readonly clock: Clock;
  private readonly informers: SharedInformerFactory;
  private readonly recorder: EventRecorder;
  private readonly logger: Logger;
  private readonly mapper: RESTMapper;
  private readonly staleTimeoutMs: number;
  private readonly pdbLister: Lister<PodDisruptionBudget>;
  private readonly podLister: Lister<Pod>;
  private readonly rcLister: Lister<ReplicationController>;
  private readonly rsLister: Lister<ReplicaSet>;
  private readonly dLister: Lister<Deployment>;
  private readonly ssLister: Lister<StatefulSet>;

  constructor(opts: DisruptionControllerOptions) {
    this.client = opts.client;
    this.clock = opts.clock;
    this.informers = opts.informers;
    this.logger = opts.logger ?? stderrLogger;
    this.mapper = opts.restMapper ?? catalogueRESTMapper;
    this.staleTimeoutMs = opts.stalePodDisruptionTimeoutMs ?? STALE_POD_DISRUPTION_TIMEOUT_MS;
    this.recorder = opts.recorder ?? new EventRecorder(opts.client, { component: 'controllermanager', clock: opts.clock, logger: this.logger });
    this.queue = new RateLimitingQueue<string>({ clock: opts.clock, name: 'disruption' });
    this.stalePodDisruptionQueue = new RateLimitingQueue<string>({ clock: opts.clock, name: 'stale_pod_disruption' });

    const pods = opts.informers.core.pods();
    pods.addEventHandler({
      add: (pod) => this.addPod(pod),
      update: (_old, cur) => this.updatePod(cur),
      delete: (obj) => this.deletePod(obj),
    });
    const pdbs = opts.informers.policy.podDisruptionBudgets();
    pdbs.addEventHandler({
      add: (pdb) => this.enqueuePdb(pdb),
      update: (_old, cur) => this.enqueuePdb(cur),
      delete: (obj) => this.enqueuePdb(obj instanceof DeletedFinalStateUnknown ? obj.obj : obj),
    });
    this.pdbLister = pdbs.lister();
    this.podLister = pods.lister();
    this.rcLister = opts.informers.core.replicationControllers().lister();
    this.rsLister = opts.informers.apps.replicaSets().lister();
    this.dLister = opts.informers.apps.deployments().lister();
    this.ssLister = opts.informers.apps.statefulSets().lister();
    this.syncHandler = (key) => this.sync(key);
  }

  /**
   * Waits for the caches (pods, budgets and the four controller kinds), then runs one worker on each
   * queue until `signal` aborts. The informer factory must be started by the caller.
   */
  async run(signal?: AbortSignal): Promise<void> {
    const i = this.informers;
    const caches = [i.core.pods(), i.policy.podDisruptionBudgets(), i.core.replicationControllers(), i.apps.replicaSets(), i.apps.deployments(), i.apps.statefulSets()];
    const opts = { logger: this.logger, ...(signal ? { signal } : {}) };
    await Promise.all([
      runWorkersWhenSynced(caches, this.queue, 1, (key) => this.syncHandler(key), { ...opts, name: 'disruption' }),
      runWorkersWhenSynced(caches, this.stalePodDisruptionQueue, 1, (key) => this.syncStalePodDisruption(key), { ...opts, name: 'stale_pod_disruption' }),
    ]);
  }

  // ---- event handlers: map an event to keys, nothing else ----

  private enqueuePdb(pdb: PodDisruptionBudget): void {
    this.queue.add(metaNamespaceKey(pdb));
  }

  private addPod(pod: Pod): void {
    this.updatePod(pod);
  }

  private updatePod(pod: Pod): void {
    const pdb = this.getPdbForPod(pod);
    if (pdb) this.enqueuePdb(pdb);
    const stale = this.nonTerminatingPodHasStaleDisruptionCondition(pod);
    if (stale.has) this.stalePodDisruptionQueue.addAfter(metaNamespaceKey(pod), stale.cleanAfterMs);
  }

  private deletePod(obj: Pod | DeletedFinalStateUnknown<Pod>): void {
    const pod = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
    const pdb = this.getPdbForPod(pod);
    if (pdb) this.enqueuePdb(pdb);
  }

  /**
   * `getPdbForPod`: the first budget of the pod's namespace whose selector matches the pod (the
   * policy/v1 lister's `GetPodPodDisruptionBudgets`: an empty selector matches every pod, an invalid
   * one none). Several → a Warning `MultiplePodDisruptionBudgets` event on the pod.
   */
  private getPdbForPod(pod: Pod): PodDisruptionBudget | undefined {
    const labels = pod.metadata?.labels ?? {};
    const pdbs = this.pdbLister.namespace(pod.metadata?.namespace ?? '').list().filter((pdb) => {
      try {
        return selectorFromLabelSelector(pdb.spec?.selector).matches(labels);
      } catch {
        return false;
      }
    });
    const first = pdbs[0];
    if (!first) return undefined;
    if (pdbs.length > 1) {
      const msg = `Pod ${JSON.stringify(pod.metadata?.namespace ?? '')}/${JSON.stringify(pod.metadata?.name ?? '')} matches multiple PodDisruptionBudgets.  Chose ${JSON.stringify(first.metadata?.name ?? '')} arbitrarily.`;
      this.logger.info({ pod: metaNamespaceKey(pod) }, msg);
      this.recorder.event(withTypeMeta(pod, 'v1', 'Pod'), 'Warning', 'MultiplePodDisruptionBudgets', msg);
    }
    return first;
  }

  // ---- sync ----

  /**
   * `sync`: recomputes the status of budget `key` (`namespace/name`). A conflict is thrown (the key is
   * retried with rate limit); any other failure is recorded by {@link failSafe}, whose own write error
   * is thrown. Resolves `{requeueAfter}` (ms) when a recorded eviction expires before anything else
   * would wake the budget.
   */
  async sync(key: string): Promise<SyncResult> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const pdb = this.pdbLister.namespace(namespace).get(name);
    if (!pdb) return undefined;
    try {
      return await this.trySync(pdb);
    } catch (err) {
      if (isConflict(err)) throw err;
      this.logger.error({ podDisruptionBudget: key, err: String(err) }, 'Failed to sync PDB');
      await this.failSafe(pdb, toError(err));
      return undefined;
    }
  }

  private pdbEvent(pdb: PodDisruptionBudget, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.recorder.event(withTypeMeta(pdb, 'policy/v1', 'PodDisruptionBudget'), type, reason, message);
  }

  /** `trySync`: pods, expected and desired counts, recorded evictions, healthy count; writes the status. */
  private async trySync(pdb: PodDisruptionBudget): Promise<SyncResult> {
    let pods: Pod[];
    try {
      pods = this.getPodsForPdb(pdb);
    } catch (err) {
      this.pdbEvent(pdb, 'Warning', 'NoPods', `Failed to get pods: ${toError(err).message}`);
      throw err;
    }
    if (pods.length === 0) this.pdbEvent(pdb, 'Normal', 'NoPods', 'No matching pods found');

    let counts: { expectedCount: number; desiredHealthy: number; unmanagedPods: string[] };
    try {
      counts = await this.getExpectedPodCount(pdb, pods);
    } catch (err) {
      this.pdbEvent(pdb, 'Warning', 'CalculateExpectedPodCountFailed', `Failed to calculate the number of expected pods: ${toError(err).message}`);
      throw err;
    }
    if (counts.unmanagedPods.length > 0) {
      this.logger.info({ podDisruptionBudget: metaNamespaceKey(pdb), pods: counts.unmanagedPods }, 'Found unmanaged pods associated with this PDB');
      this.pdbEvent(
        pdb,
        'Warning',
        'UnmanagedPods',
        `Pods selected by this PodDisruptionBudget (selector: ${goLabelSelector(pdb)}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set ".spec.minAvailable" field of the PDB to an integer value.`,
      );
    }
    const now = this.clock.now();
    const { disruptedPods, recheckTime } = this.buildDisruptedPodMap(pods, pdb, now);
    const currentHealthy = countHealthyPods(pods, disruptedPods, now);
    await this.updatePdbStatus(pdb, currentHealthy, counts.desiredHealthy, counts.expectedCount, disruptedPods);
    return recheckTime === undefined ? undefined : { requeueAfter: Math.max(0, recheckTime - now) };
  }

  /** `getPodsForPdb`: the pods of the budget's namespace its selector matches. @throws the selector's parse error */
  private getPodsForPdb(pdb: PodDisruptionBudget): Pod[] {
    const selector: Selector = selectorFromLabelSelector(pdb.spec?.selector);
    return this.podLister
      .namespace(pdb.metadata?.namespace ?? '')
      .list()
      .filter((pod) => selector.matches(pod.metadata?.labels));
  }

  /**
   * `getExpectedPodCount`: with `maxUnavailable`, expected = the controllers' scale and desired =
   * expected − maxUnavailable (a percentage of expected, rounded up), at least 0; with an integer
   * `minAvailable`, expected = the pods found and desired = minAvailable; with a percentage,
   * expected = the controllers' scale and desired = that percentage of it, rounded up. Worked
   * example: maxUnavailable 25% of 5 replicas rounds 1.25 up to 2, so desired is 3.
   * @throws Error from {@link getExpectedScale} or an unreadable int-or-percent
   */
  private async getExpectedPodCount(pdb: PodDisruptionBudget, pods: readonly Pod[]): Promise<{ expectedCount: number; desiredHealthy: number; unmanagedPods: string[] }> {
    const spec = pdb.spec ?? {};
    if (spec.maxUnavailable != null) {
      const { expectedCount, unmanagedPods } = await this.getExpectedScale(pods);
      const maxUnavailable = getScaledValueFromIntOrPercent(spec.maxUnavailable, expectedCount, true);
      return { expectedCount, desiredHealthy: Math.max(0, expectedCount - maxUnavailable), unmanagedPods };
    }
    if (typeof spec.minAvailable === 'number') return { expectedCount: pods.length, desiredHealthy: spec.minAvailable, unmanagedPods: [] };
    if (typeof spec.minAvailable === 'string') {
      const { expectedCount, unmanagedPods } = await this.getExpectedScale(pods);
      return { expectedCount, desiredHealthy: getScaledValueFromIntOrPercent(spec.minAvailable, expectedCount, true), unmanagedPods };
    }
    return { expectedCount: 0, desiredHealthy: 0, unmanagedPods: [] };
  }

  /**
   * `getExpectedScale`: the sum of the scales of the pods' controllers, each controller counted once.
   * Pods without a controller are listed as unmanaged (they count nothing).
   * @throws Error `found no controllers for pod "<name>"` when no finder knows a pod's controller, or a finder's error
   */
  private async getExpectedScale(pods: readonly Pod[]): Promise<{ expectedCount: number; unmanagedPods: string[] }> {
    const controllerScale = new Map<string, number>();
    const unmanagedPods: string[] = [];
    for (const pod of pods) {
      const ref = getControllerOf(pod);
      if (!ref) {
        unmanagedPods.push(pod.metadata?.name ?? '');
        continue;
      }
      if (controllerScale.has(ref.uid)) continue;
      let found: ControllerAndScale | undefined;
      for (const finder of this.finders()) {
        found = await finder(ref, pod.metadata?.namespace ?? '');
        if (found) break;
      }
      if (!found) throw new Error(`found no controllers for pod ${JSON.stringify(pod.metadata?.name ?? '')}`);
      controllerScale.set(found.uid, found.scale);
    }
    let expectedCount = 0;
    for (const scale of controllerScale.values()) expectedCount += scale;
    return { expectedCount, unmanagedPods };
  }

  /**
   * upstream `finders`: the workload kinds through their listers, then any kind through its `scale`
   * subresource (listers cannot serve scales).
   */
  private finders(): PodControllerFinder[] {
    return [
      (ref, ns) => Promise.resolve(this.getPodReplicationController(ref, ns)),
      (ref, ns) => Promise.resolve(this.getPodDeployment(ref, ns)),
      (ref, ns) => Promise.resolve(this.getPodReplicaSet(ref, ns)),
      (ref, ns) => Promise.resolve(this.getPodStatefulSet(ref, ns)),
      (ref, ns) => this.getScaleController(ref, ns),
    ];
  }

  /** `getPodReplicaSet`: a ReplicaSet not controlled by a Deployment (those are the Deployment finder's). */
  private getPodReplicaSet(ref: ControllerRef, namespace: string): ControllerAndScale | undefined {
    if (!verifyGroupKind(ref, 'ReplicaSet', ['apps', 'extensions'])) return undefined;
    const rs = resolveControllerRef(this.rsLister, 'ReplicaSet', namespace, ref);
    if (!rs) return undefined;
    if (getControllerOf(rs)?.kind === 'Deployment') return undefined;
    return { uid: ref.uid, scale: specReplicas(rs) };
  }

  /** `getPodStatefulSet`. */
  private getPodStatefulSet(ref: ControllerRef, namespace: string): ControllerAndScale | undefined {
    if (!verifyGroupKind(ref, 'StatefulSet', ['apps'])) return undefined;
    const ss = resolveControllerRef(this.ssLister, 'StatefulSet', namespace, ref);
    return ss ? { uid: ref.uid, scale: specReplicas(ss) } : undefined;
  }

  /** `getPodDeployment`: the Deployment controlling the pod's ReplicaSet. */
  private getPodDeployment(ref: ControllerRef, namespace: string): ControllerAndScale | undefined {
    if (!verifyGroupKind(ref, 'ReplicaSet', ['apps', 'extensions'])) return undefined;
    const rs = resolveControllerRef(this.rsLister, 'ReplicaSet', namespace, ref);
    if (!rs) return undefined;
    const rsRef = getControllerOf(rs);
    if (!rsRef || !verifyGroupKind(rsRef, 'Deployment', ['apps', 'extensions'])) return undefined;
    const d = resolveControllerRef(this.dLister, 'Deployment', namespace, rsRef);
    return d ? { uid: rsRef.uid, scale: specReplicas(d) } : undefined;
  }

  /** `getPodReplicationController`. */
  private getPodReplicationController(ref: ControllerRef, namespace: string): ControllerAndScale | undefined {
    if (!verifyGroupKind(ref, 'ReplicationController', [''])) return undefined;
    const rc = resolveControllerRef(this.rcLister, 'ReplicationController', namespace, ref);
    return rc ? { uid: ref.uid, scale: specReplicas(rc) } : undefined;
  }

  /**
   * `getScaleController`: any kind with a `scale` subresource (custom resources included, when the
   * mapper is discovery's). A kind the mapper does not know → Error `no matches for kind …`; a
   * NotFound from a resource without a scale subresource → Error `<resource>.<group> does not implement the scale subresource`.
   */
  private async getScaleController(ref: ControllerRef, namespace: string): Promise<ControllerAndScale | undefined> {
    const group = groupOf(ref.apiVersion);
    const version = ref.apiVersion.split('/').pop() ?? '';
    const mappings = this.mapper.mappings(group, ref.kind);
    const mapping = mappings.find((m) => m.version === version) ?? mappings[0];
    if (!mapping) throw new Error(`no matches for kind ${JSON.stringify(ref.kind)} in version ${JSON.stringify(ref.apiVersion)}`);
    try {
      const scale = await this.client.resource(mapping, namespace).getScale(ref.name);
      if (scale.metadata?.uid !== ref.uid) return undefined;
      return { uid: ref.uid, scale: scale.spec?.replicas ?? 0 };
    } catch (err) {
      if (!isNotFound(err)) throw err;
      // NotFound is either a missing object or a resource without the scale subresource.
      const subresources = (mapping as { subresources?: readonly { name: string }[] }).subresources;
      if (subresources && !subresources.some((s) => s.name === 'scale')) {
        throw new Error(`${mapping.group ? `${mapping.resource}.${mapping.group}` : mapping.resource} does not implement the scale subresource`);
      }
      return undefined;
    }
  }

  /**
   * `buildDisruptedPodMap`: the entries of `status.disruptedPods` still waiting for their pod's
   * deletion — dropped when the pod is gone or already being deleted, and when older than
   * {@link DELETION_TIMEOUT_MS} (Warning `NotDeleted` on the pod) — and the earliest time (ms) one
   * of the kept entries expires.
   */
  private buildDisruptedPodMap(pods: readonly Pod[], pdb: PodDisruptionBudget, now: number): { disruptedPods: Record<string, string>; recheckTime: number | undefined } {
    const recorded = pdb.status?.disruptedPods ?? {};
    const disruptedPods: Record<string, string> = {};
    let recheckTime: number | undefined;
    for (const pod of pods) {
      if (pod.metadata?.deletionTimestamp) continue;
      const name = pod.metadata?.name ?? '';
      const disruptionTime = recorded[name];
      if (disruptionTime === undefined) continue;
      const expectedDeletion = disruptionTimeOf(disruptionTime) + DELETION_TIMEOUT_MS;
      if (expectedDeletion < now) {
        this.logger.info({ pod: metaNamespaceKey(pod), podDisruptionBudget: metaNamespaceKey(pdb) }, "pod was expected to be deleted but it wasn't, updating PDB");
        // Upstream's message names the budget's namespace twice (its format's arguments); kept as is.
        const ns = pdb.metadata?.namespace ?? '';
        this.recorder.event(withTypeMeta(pod, 'v1', 'Pod'), 'Warning', 'NotDeleted', `Pod was expected by PDB ${ns}/${ns} to be deleted but it wasn't`);
      } else {
        if (recheckTime === undefined || expectedDeletion < recheckTime) recheckTime = expectedDeletion;
        disruptedPods[name] = disruptionTime;
      }
    }
    return { disruptedPods, recheckTime };
  }

  /**
   * `failSafe`: when the status cannot be computed, at least stop evictions: disruptionsAllowed 0 and
   * DisruptionAllowed=False/SyncFailed with the error's message. @throws the status write's error
   */
  private async failSafe(pdb: PodDisruptionBudget, err: Error): Promise<void> {
    const newPdb = deepCopy(pdb);
    const status = (newPdb.status ??= { currentHealthy: 0, desiredHealthy: 0, disruptionsAllowed: 0, expectedPods: 0 });
    status.disruptionsAllowed = 0;
    setStatusCondition(
      (status.conditions ??= []),
      {
        type: DISRUPTION_ALLOWED_CONDITION,
        status: 'False',
        reason: SYNC_FAILED_REASON,
        message: err.message,
        ...(status.observedGeneration !== undefined ? { observedGeneration: status.observedGeneration } : {}),
      },
      formatTime(this.clock.now()),
    );
    await this.writePdbStatus(newPdb);
  }

  /**
   * `updatePdbStatus`: disruptionsAllowed = currentHealthy − desiredHealthy, but 0 while no pod is
   * expected (a budget whose first pods the controller has not seen yet is safe); written only when a
   * count, the recorded evictions, observedGeneration or the condition differ.
   */
  private async updatePdbStatus(pdb: PodDisruptionBudget, currentHealthy: number, desiredHealthy: number, expectedCount: number, disruptedPods: Record<string, string>): Promise<void> {
    let disruptionsAllowed = currentHealthy - desiredHealthy;
    if (expectedCount <= 0 || disruptionsAllowed <= 0) disruptionsAllowed = 0;
    const status = pdb.status;
    const generation = pdb.metadata?.generation ?? 0;
    if (
      status &&
      status.currentHealthy === currentHealthy &&
      status.desiredHealthy === desiredHealthy &&
      status.expectedPods === expectedCount &&
      status.disruptionsAllowed === disruptionsAllowed &&
      semanticDeepEqual(status.disruptedPods ?? {}, disruptedPods) &&
      (status.observedGeneration ?? 0) === generation &&
      conditionsAreUpToDate(pdb)
    ) {
      return;
    }
    const newPdb = deepCopy(pdb);
    newPdb.status = {
      currentHealthy,
      desiredHealthy,
      expectedPods: expectedCount,
      disruptionsAllowed,
      // An empty map is omitted on the wire (omitempty).
      ...(Object.keys(disruptedPods).length > 0 ? { disruptedPods } : {}),
      observedGeneration: generation,
      ...(newPdb.status?.conditions ? { conditions: newPdb.status.conditions } : {}),
    };
    updateDisruptionAllowedCondition(newPdb, formatTime(this.clock.now()));
    await this.writePdbStatus(newPdb);
  }

  /** `writePdbStatus`: one PUT of `/status`, not retried here (a conflict requeues the budget). */
  private async writePdbStatus(pdb: PodDisruptionBudget): Promise<void> {
    await this.client.policy.podDisruptionBudgets(pdb.metadata?.namespace).updateStatus(pdb);
  }

  // ---- stale DisruptionTarget conditions ----

  /**
   * `nonTerminatingPodHasStaleDisruptionCondition`: a pod not being deleted, not finished, with
   * DisruptionTarget=True set by anything but the kubelet; `cleanAfterMs` is what remains of the
   * timeout since the condition's transition (0 when past).
   */
  private nonTerminatingPodHasStaleDisruptionCondition(pod: Pod): { has: boolean; cleanAfterMs: number } {
    if (pod.metadata?.deletionTimestamp) return { has: false, cleanAfterMs: 0 };
    const cond = pod.status?.conditions?.find((c) => c.type === DISRUPTION_TARGET);
    const phase = pod.status?.phase;
    if (!cond || cond.status !== 'True' || cond.reason === TERMINATION_BY_KUBELET || phase === 'Succeeded' || phase === 'Failed') {
      return { has: false, cleanAfterMs: 0 };
    }
    const since = this.clock.now() - (parseTime(cond.lastTransitionTime) ?? 0);
    return { has: true, cleanAfterMs: Math.max(0, this.staleTimeoutMs - since) };
  }

  /**
   * `syncStalePodDisruption`: sets a stale DisruptionTarget condition of pod `key` to False (reason
   * and message cleared, as `UpdatePodCondition` replaces the condition), or requeues it for when it
   * becomes stale. @throws the status write's error
   */
  async syncStalePodDisruption(key: string): Promise<SyncResult> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const pod = this.podLister.namespace(namespace).get(name);
    if (!pod) return undefined;
    const stale = this.nonTerminatingPodHasStaleDisruptionCondition(pod);
    if (!stale.has) return undefined;
    if (stale.cleanAfterMs > 0) return { requeueAfter: stale.cleanAfterMs };
    const copy = deepCopy(pod);
    const now = formatTime(this.clock.now());
    const newPod: Pod = {
      ...copy,
      status: {
        ...copy.status,
        conditions: (copy.status?.conditions ?? []).map((c) => (c.type === DISRUPTION_TARGET ? { type: DISRUPTION_TARGET, status: 'False', lastTransitionTime: now } : c)),
      },
    };
    await this.client.core.pods(namespace).updateStatus(newPod);
    this.logger.info({ pod: key }, 'Reset stale DisruptionTarget condition to False');
    return undefined;
  }
}

/**
 * `countHealthyPods`: Ready pods, except those being deleted and those whose eviction was recorded
 * less than {@link DELETION_TIMEOUT_MS} ago (they are about to go).
 */
export function countHealthyPods(pods: readonly Pod[], disruptedPods: Readonly<Record<string, string>>, now: number): number {
  let currentHealthy = 0;
  for (const pod of pods) {
    if (pod.metadata?.deletionTimestamp) continue;
    const disruptionTime = disruptedPods[pod.metadata?.name ?? ''];
    if (disruptionTime !== undefined && disruptionTimeOf(disruptionTime) + DELETION_TIMEOUT_MS > now) continue;
    if (isPodReady(pod)) currentHealthy++;
  }
  return currentHealthy;
}

/**
 * Go's `%v` of a `*metav1.LabelSelector` (its generated `String()`), as the UnmanagedPods event
 * prints it: `&LabelSelector{MatchLabels:map[string]string{app: web,},MatchExpressions:[]LabelSelectorRequirement{},}`.
 */
function goLabelSelector(pdb: PodDisruptionBudget): string {
  const sel = pdb.spec?.selector;
  if (!sel) return '<nil>';
  const labels = Object.entries(sel.matchLabels ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}: ${v},`)
    .join('');
  const exprs = (sel.matchExpressions ?? []).map((e) => `LabelSelectorRequirement{Key:${e.key},Operator:${e.operator},Values:[${(e.values ?? []).join(' ')}],},`).join('');
  return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
}
