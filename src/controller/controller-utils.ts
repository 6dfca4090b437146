/**
 * Small pure helpers every workload controller uses: pod activity/readiness/availability, the ranking
 * of pods for scale-down, ReplicaSet orderings, and error predicates.
 *
 * Follows kubernetes/kubernetes pkg/controller/controller_utils.go (`IsPodActive`, `FilterActivePods`,
 * `ActivePodsWithRanks.Less`, `ReplicaSetsByCreationTimestamp`, `ReplicaSetsBySizeOlder/Newer`,
 * `FilterActiveReplicaSets`, `PodKey`) and pkg/api/v1/pod/util.go (`IsPodReady`, `IsPodAvailable`).
 */
import type { OwnerReference, Pod, PodCondition, ReplicaSet } from '../api/index.js';
import { DeletedFinalStateUnknown, type Indexer, type Lister, type MetaObject, type SummaryClass } from '../informers/index.js';
import { StatusError } from '../machinery/errors/index.js';
import { getControllerOf, semanticDeepEqual } from '../machinery/meta/index.js';
import { parseTime } from '../util/clock/index.js';

/** Annotation whose int32 value orders pods for deletion (lower cost goes first). */
export const POD_DELETION_COST_ANNOTATION = 'controller.kubernetes.io/pod-deletion-cost';

/** The StatusCause type the API server sets when a create fails because the namespace is terminating. */
export const NAMESPACE_TERMINATING_CAUSE = 'NamespaceTerminating';

/** `namespace/name` of a pod (`PodKey`), the key deletion expectations track. */
export function podKey(pod: Pod): string {
  return `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
}

/** Not Succeeded, not Failed, and not being deleted (`IsPodActive`). */
export function isPodActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata?.deletionTimestamp;
}

/** The active pods of `pods`, in order (`FilterActivePods`). */
export function filterActivePods(pods: readonly Pod[]): Pod[] {
  return pods.filter(isPodActive);
}

/**
 * Ready conditions already looked up, by the (frozen) conditions array they were found in. Informer
 * objects are frozen and shared, so the answer for one array never changes; a ReplicaSet sync asks
 * for every one of its pods (10,000 pods × hundreds of syncs in a large scale-up), and the cache turns
 * the repeated scans into one lookup. Unfrozen arrays (tests that edit pods) are never cached.
 */
const readyConditionCache = new WeakMap<readonly PodCondition[], PodCondition | null>();

/** The pod's `Ready` condition, if any. */
export function getPodReadyCondition(pod: Pod): PodCondition | undefined {
  const conditions = pod.status?.conditions;
  if (!conditions) return undefined;
  const cached = readyConditionCache.get(conditions);
  if (cached !== undefined) return cached ?? undefined;
  let found: PodCondition | undefined;
  for (const c of conditions) {
    if (c.type === 'Ready') {
      found = c;
      break;
    }
  }
  if (Object.isFrozen(conditions)) readyConditionCache.set(conditions, found ?? null);
  return found;
}

/** The `Ready` condition is `True` (`podutil.IsPodReady`). */
export function isPodReady(pod: Pod): boolean {
  return getPodReadyCondition(pod)?.status === 'True';
}

/**
 * Ready for at least `minReadySeconds` at `now` (ms) (`podutil.IsPodAvailable`): with
 * minReadySeconds 0 every ready pod is available; otherwise the Ready condition's
 * lastTransitionTime + minReadySeconds must be strictly before now.
 */
export function isPodAvailable(pod: Pod, minReadySeconds: number, now: number): boolean {
  const c = getPodReadyCondition(pod);
  if (c?.status !== 'True') return false;
  if (minReadySeconds === 0) return true;
  const since = parseTime(c.lastTransitionTime);
  return since !== undefined && since + minReadySeconds * 1000 < now;
}

/** The value of the pod-deletion-cost annotation; 0 when absent or not a valid int32. */
export function getDeletionCost(pod: Pod): number {
  const v = pod.metadata?.annotations?.[POD_DELETION_COST_ANNOTATION];
  if (v === undefined || !/^[+-]?\d+$/.test(v.trim())) return 0;
  const n = Number(v.trim());
  return n >= -2147483648 && n <= 2147483647 ? n : 0;
}

const PHASE_ORDINAL: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

/** Max restart count over regular containers, then over restartable (sidecar) init containers. */
function maxContainerRestarts(pod: Pod): [regular: number, sidecar: number] {
  let regular = 0;
  for (const c of pod.status?.containerStatuses ?? []) regular = Math.max(regular, c.restartCount);
  const sidecars = new Set((pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always').map((c) => c.name));
  let sidecar = 0;
  for (const c of pod.status?.initContainerStatuses ?? []) {
    if (sidecars.has(c.name)) sidecar = Math.max(sidecar, c.restartCount);
  }
  return [regular, sidecar];
}

/** Ready condition's lastTransitionTime in ms, for a ready pod; undefined otherwise or when unset. */
function podReadyTime(pod: Pod): number | undefined {
  const c = getPodReadyCondition(pod);
  return c?.status === 'True' ? parseTime(c.lastTransitionTime) : undefined;
}

/** `afterOrZero`: an unset time sorts first, then the later time first. Returns <0 when `a` goes first. */
function compareAfterOrZero(a: number | undefined, b: number | undefined): number {
  if (a === undefined || b === undefined) return a === undefined ? (b === undefined ? 0 : -1) : 1;
  return b - a;
}

/**
 * `logarithmicRankDiff`: compares the ages of two instants at `now` in buckets of
 * ⌊log2(age in nanoseconds)⌋ (LogarithmicScaleDown, GA in 1.31), so pods created or ready at roughly
 * the same time tie and fall through to a random-but-stable order (UID). E.g. ages of 10 s and 15 s
 * (2^33.2 and 2^33.8 ns) share bucket 33; 10 s and 20 s (bucket 34) do not. Age ≤ 0 is bucket −1.
 */
function logarithmicRankDiff(a: number, b: number, now: number): number {
  const bucket = (t: number): number => {
    const ns = (now - t) * 1e6;
    return ns > 0 ? Math.floor(Math.log2(ns)) : -1;
  };
  return bucket(a) - bucket(b);
}

/** Compares two times as rule 6/8 of the ranking do: log buckets, ties broken by UID; unset first. */
function compareTimesLogarithmic(a: number | undefined, b: number | undefined, now: number, pa: Pod, pb: Pod): number {
  if (a === undefined || b === undefined) return compareAfterOrZero(a, b);
  const diff = logarithmicRankDiff(a, b, now);
  if (diff !== 0) return diff;
  const ua = pa.metadata?.uid ?? '';
  const ub = pb.metadata?.uid ?? '';
  return ua < ub ? -1 : ua > ub ? 1 : 0;
}

/**
 * Orders two active pods for deletion (`ActivePodsWithRanks.Less`): a negative result means `a` is
 * deleted before `b`. `rankA`/`rankB` count related active pods on the same node ("doubled up");
 * `now` is in ms. Rules, first difference wins:
 * 1. unassigned < assigned; 2. Pending < Unknown < Running; 3. not ready < ready;
 * 4. lower pod-deletion-cost < higher; 5. higher rank < lower rank;
 * 6. both ready: more recently ready < ready longer (log2 buckets, then UID);
 * 7. more container restarts < fewer (regular, then sidecar);
 * 8. no creationTimestamp < newer < older (log2 buckets, then UID).
 */
export function compareActivePodsWithRanks(a: Pod, b: Pod, rankA: number, rankB: number, now: number): number {
  const nodeA = a.spec?.nodeName ?? '';
  const nodeB = b.spec?.nodeName ?? '';
  if (nodeA !== nodeB && (nodeA === '' || nodeB === '')) return nodeA === '' ? -1 : 1;
  const phaseA = PHASE_ORDINAL[a.status?.phase ?? ''] ?? 0;
  const phaseB = PHASE_ORDINAL[b.status?.phase ?? ''] ?? 0;
  if (phaseA !== phaseB) return phaseA - phaseB;
  const readyA = isPodReady(a);
  const readyB = isPodReady(b);
  if (readyA !== readyB) return readyA ? 1 : -1;
  const costA = getDeletionCost(a);
  const costB = getDeletionCost(b);
  if (costA !== costB) return costA - costB;
  if (rankA !== rankB) return rankB - rankA;
  if (readyA && readyB) {
    const ta = podReadyTime(a);
    const tb = podReadyTime(b);
    if (ta !== tb) {
      const c = compareTimesLogarithmic(ta, tb, now, a, b);
      if (c !== 0) return c;
    }
  }
  const [regA, sideA] = maxContainerRestarts(a);
  const [regB, sideB] = maxContainerRestarts(b);
  if (regA !== regB) return regB - regA;
  if (sideA !== sideB) return sideB - sideA;
  const ca = parseTime(a.metadata?.creationTimestamp);
  const cb = parseTime(b.metadata?.creationTimestamp);
  if (ca !== cb) return compareTimesLogarithmic(ca, cb, now, a, b);
  return 0;
}

function creationTime(o: MetaObject): number {
  return parseTime(o.metadata?.creationTimestamp) ?? 0;
}

/** Oldest first, names breaking ties (`ReplicaSetsByCreationTimestamp`). */
export function compareByCreationTimestamp(a: MetaObject, b: MetaObject): number {
  const d = creationTime(a) - creationTime(b);
  if (d !== 0) return d;
  const na = a.metadata?.name ?? '';
  const nb = b.metadata?.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/** `spec.replicas`, defaulting to 1 like the API server does when it is unset. */
export function specReplicas(o: { spec?: { replicas?: number } }): number {
  return o.spec?.replicas ?? 1;
}

/** Larger first; equal sizes oldest first (`ReplicaSetsBySizeOlder`). */
export function compareBySizeOlder(a: ReplicaSet, b: ReplicaSet): number {
  const d = specReplicas(b) - specReplicas(a);
  return d !== 0 ? d : compareByCreationTimestamp(a, b);
}

/** Larger first; equal sizes newest first (`ReplicaSetsBySizeNewer`). */
export function compareBySizeNewer(a: ReplicaSet, b: ReplicaSet): number {
  const d = specReplicas(b) - specReplicas(a);
  return d !== 0 ? d : compareByCreationTimestamp(b, a);
}

/** ReplicaSets that ought to have pods: `spec.replicas > 0` (`FilterActiveReplicaSets`); drops undefined. */
export function filterActiveReplicaSets(rss: readonly (ReplicaSet | undefined)[]): ReplicaSet[] {
  return rss.filter((rs): rs is ReplicaSet => rs !== undefined && specReplicas(rs) > 0);
}

/** The error carries a StatusCause of `type` (apierrors.HasStatusCause), e.g. NamespaceTerminating. */
export function hasStatusCause(err: unknown, type: string): boolean {
  return err instanceof StatusError && (err.status.details?.causes ?? []).some((c) => c.reason === type);
}

/** `err` itself when it is an Error, else an Error carrying its string form (for rethrowing unknowns). */
export function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * One error standing for several (utilerrors.NewAggregate): undefined for none, the error itself for
 * one, else an AggregateError whose message is `[msg1, msg2]`.
 */
export function aggregateErrors(errs: readonly unknown[]): Error | undefined {
  if (errs.length === 0) return undefined;
  if (errs.length === 1) return toError(errs[0]);
  const msgs = errs.map((e) => (e instanceof Error ? e.message : String(e)));
  return new AggregateError(errs, `[${msgs.join(', ')}]`);
}

/** Name of the pod index by controller UID (`PodControllerUIDIndex`); orphans are under {@link ORPHAN_POD_INDEX_KEY}. */
export const POD_CONTROLLER_UID_INDEX = 'podControllerUID';
/** Indexed value of pods without a controller (`OrphanPodIndexKey`). */
export const ORPHAN_POD_INDEX_KEY = '_ORPHAN_POD';

/** Index names already added per informer, so several controllers sharing an informer add each once. */
const addedIndexers = new WeakMap<object, Set<string>>();

/**
 * Adds index `name` computed by `fn` to `informer` unless it was added through this function before
 * (cache.Indexer rejects a name twice; controllers sharing a factory ask for the same indices).
 */
export function addIndexerOnce<T>(informer: { addIndexers(indexers: Record<string, (obj: T) => string[]>): void }, name: string, fn: (obj: T) => string[]): void {
  let names = addedIndexers.get(informer);
  if (!names) {
    names = new Set();
    addedIndexers.set(informer, names);
  }
  if (names.has(name)) return;
  informer.addIndexers({ [name]: fn });
  names.add(name);
}

/**
 * `AddPodControllerUIDIndexer`: indexes `podInformer`'s cache by the pods' controller UID (orphans
 * under {@link ORPHAN_POD_INDEX_KEY}).
 */
export function addPodControllerUIDIndexer(podInformer: { addIndexers(indexers: Record<string, (pod: Pod) => string[]>): void }): void {
  addIndexerOnce<Pod>(podInformer, POD_CONTROLLER_UID_INDEX, (pod) => {
    const ref = pod.metadata?.ownerReferences?.find((r) => r.controller === true);
    return [ref ? ref.uid : ORPHAN_POD_INDEX_KEY];
  });
}

/**
 * Name of the summary over {@link POD_CONTROLLER_UID_INDEX} that counts each controller's active pods
 * by {@link activePodClass}.
 */
export const ACTIVE_POD_SUMMARY = 'activePodsByControllerUID';

/**
 * The class of an active pod for {@link ACTIVE_POD_SUMMARY}: what a ReplicaSet sync reads of each of
 * its pods — its labels (selector and template matching), whether it is Ready and since when
 * (availability after minReadySeconds). Inactive pods are left out, as `FilterActivePods` leaves them
 * out of a sync. E.g. `R2025-01-01T00:00:05Z|[["app","web"],["pod-template-hash","5d4f"]]` for a pod
 * Ready since 00:00:05. The pods of one ReplicaSet share their labels and become Ready within a few
 * seconds of each other during a rollout, so 10,000 pods fall into a handful of classes.
 */
export function activePodClass(pod: Pod): string | undefined {
  if (!isPodActive(pod)) return undefined;
  const ready = getPodReadyCondition(pod);
  const readiness = ready?.status === 'True' ? `R${ready.lastTransitionTime ?? ''}` : 'N';
  const labels = Object.entries(pod.metadata?.labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${readiness}|${JSON.stringify(labels)}`;
}

/** Summaries already added per indexer (controllers sharing a pod informer add it once). */
const summarized = new WeakSet<object>();

/**
 * Adds {@link ACTIVE_POD_SUMMARY} to the pod informer's indexer unless it was added through this
 * function before; the indexer must have {@link POD_CONTROLLER_UID_INDEX}
 * ({@link addPodControllerUIDIndexer} first).
 */
export function addActivePodSummary(podIndexer: Indexer<Pod>): void {
  if (summarized.has(podIndexer)) return;
  podIndexer.addIndexSummary(POD_CONTROLLER_UID_INDEX, ACTIVE_POD_SUMMARY, activePodClass);
  summarized.add(podIndexer);
}

/** `owner`'s active pods by {@link activePodClass} (see {@link addActivePodSummary}). */
export function activePodClassesOf(podIndexer: Indexer<Pod>, owner: MetaObject): ReadonlyMap<string, SummaryClass<Pod>> {
  return podIndexer.summary(ACTIVE_POD_SUMMARY, owner.metadata?.uid ?? '');
}

/**
 * `FilterPodsByOwner`: the pods of `owner`'s namespace that it controls, plus (with
 * `includeOrphanedPods`) the orphans, read from the {@link POD_CONTROLLER_UID_INDEX} index: O(owned +
 * orphans) instead of a scan of the namespace.
 */
export function filterPodsByOwner(
  podIndexer: { byIndex(indexName: string, indexedValue: string): Pod[] },
  owner: MetaObject,
  includeOrphanedPods: boolean,
): Pod[] {
  const ns = owner.metadata?.namespace ?? '';
  const keys = [owner.metadata?.uid ?? ''];
  if (includeOrphanedPods) keys.push(ORPHAN_POD_INDEX_KEY);
  const result: Pod[] = [];
  for (const key of keys) {
    for (const pod of podIndexer.byIndex(POD_CONTROLLER_UID_INDEX, key)) {
      if ((pod.metadata?.namespace ?? '') === ns) result.push(pod);
    }
  }
  return result;
}

/**
 * `resolveControllerRef`: the controller of `kind` that a controllerRef names, looked up by name in
 * `lister` (the cache is keyed by name, not uid) and returned only when its uid is the ref's — an
 * owner deleted and recreated under the same name is a different controller. Undefined otherwise.
 */
export function resolveControllerRef<T extends MetaObject>(
  lister: Lister<T>,
  kind: string,
  namespace: string,
  ref: { kind: string; name: string; uid: string },
): T | undefined {
  if (ref.kind !== kind) return undefined;
  const owner = lister.namespace(namespace).get(ref.name);
  return owner?.metadata?.uid === ref.uid ? owner : undefined;
}

/**
 * Which owners hear of a dependent's update (the `updatePod`/`updateHistory` handlers of the
 * ReplicaSet, DaemonSet and StatefulSet controllers): the previous controller when the controllerRef
 * changed (`previous`); the current controller (`current`, undefined when none or gone); and when
 * there is no controllerRef but the labels or the ref changed, the owners whose selector matches now
 * (`selecting`, which may adopt it). `resolve` maps a controllerRef to the live owner (by UID).
 */
export function ownersOfUpdatedDependent<O>(
  oldObj: MetaObject,
  curObj: MetaObject,
  resolve: (namespace: string, ref: OwnerReference) => O | undefined,
  selecting: (obj: MetaObject) => O[],
): { previous: O | undefined; current: O | undefined; selecting: O[] } {
  const curRef = getControllerOf(curObj);
  const oldRef = getControllerOf(oldObj);
  const refChanged = !semanticDeepEqual(curRef, oldRef);
  const previous = refChanged && oldRef ? resolve(oldObj.metadata?.namespace ?? '', oldRef) : undefined;
  if (curRef) return { previous, current: resolve(curObj.metadata?.namespace ?? '', curRef), selecting: [] };
  const labelsChanged = !semanticDeepEqual(curObj.metadata?.labels, oldObj.metadata?.labels);
  return { previous, current: undefined, selecting: refChanged || labelsChanged ? selecting(curObj) : [] };
}

/** What {@link dependentEventHandlers} needs to know of an owner kind. */
export interface DependentHandlerOptions<O, D extends MetaObject> {
  /** The live owner a controllerRef names (by UID), undefined when none is. */
  resolve: (namespace: string, ref: OwnerReference) => O | undefined;
  /** The owners whose selector matches an orphan (they may adopt it). */
  selecting: (obj: D) => O[];
  enqueue: (owner: O) => void;
  /** Instead of `enqueue` when an owned dependent is added (to observe a creation expectation). */
  ownedAdded?: (owner: O) => void;
  /** After `enqueue` when an owned dependent is updated (to schedule the minReadySeconds resync). */
  ownedUpdated?: (owner: O, oldObj: D, curObj: D) => void;
  /** Instead of `enqueue` when an owned dependent is deleted (to observe a deletion expectation). */
  ownedDeleted?: (owner: O) => void;
}

/**
 * The add/update/delete handlers of a dependent kind for an owner kind, as the `addPod`/`updatePod`/
 * `deletePod` (and `addHistory`/…) handlers of upstream's DaemonSet and StatefulSet controllers
 * (pkg/controller/daemon/daemon_controller.go, pkg/controller/statefulset/stateful_set.go):
 * - add: a dependent seen already terminating (e.g. after a restart) counts as deleted; an owned one
 *   wakes its owner; an orphan wakes the owners whose selector matches it.
 * - update: unchanged resyncs are ignored; otherwise {@link ownersOfUpdatedDependent}'s owners wake.
 * - delete: an owned dependent wakes its owner (tombstones are unwrapped).
 */
export function dependentEventHandlers<O, D extends MetaObject>(
  o: DependentHandlerOptions<O, D>,
): { add(obj: D): void; update(oldObj: D, curObj: D): void; delete(obj: D | DeletedFinalStateUnknown<D>): void } {
  const ownerOf = (obj: D): O | undefined => {
    const ref = getControllerOf(obj);
    return ref ? o.resolve(obj.metadata?.namespace ?? '', ref) : undefined;
  };
  const handlers = {
    add(obj: D): void {
      if (obj.metadata?.deletionTimestamp) {
        handlers.delete(obj);
        return;
      }
      if (getControllerOf(obj)) {
        const owner = ownerOf(obj);
        if (owner) (o.ownedAdded ?? o.enqueue)(owner);
        return;
      }
      for (const owner of o.selecting(obj)) o.enqueue(owner);
    },
    update(oldObj: D, curObj: D): void {
      if (curObj.metadata?.resourceVersion === oldObj.metadata?.resourceVersion) return;
      const { previous, current, selecting } = ownersOfUpdatedDependent(oldObj, curObj, o.resolve, (obj) => o.selecting(obj as D));
      if (previous) o.enqueue(previous);
      if (current) {
        o.enqueue(current);
        o.ownedUpdated?.(current, oldObj, curObj);
      }
      for (const owner of selecting) o.enqueue(owner);
    },
    delete(obj: D | DeletedFinalStateUnknown<D>): void {
      const owner = ownerOf(obj instanceof DeletedFinalStateUnknown ? obj.obj : obj);
      if (owner) (o.ownedDeleted ?? o.enqueue)(owner);
    },
  };
  return handlers;
}

/**
 * A pod that just turned Ready becomes available `minReadySeconds` later, and no event marks that
 * moment: schedules its owner's key then, plus 1 s for clock skew (the owners' `updatePod`).
 */
export function enqueueWhenAvailable(queue: { addAfter(key: string, delayMs: number): void }, key: string, oldPod: Pod, curPod: Pod, minReadySeconds: number): void {
  if (minReadySeconds > 0 && !isPodReady(oldPod) && isPodReady(curPod)) queue.addAfter(key, minReadySeconds * 1000 + 1000);
}

/** Index of pods by `spec.nodeName` (upstream `PodNodeNameKeyIndex`, "spec.nodeName"). */
export const POD_NODE_NAME_INDEX = 'spec.nodeName';

/**
 * `AddPodNodeNameIndexer`: indexes `podInformer`'s cache by the node the pod is bound to (unbound
 * pods are not indexed).
 */
export function addPodNodeNameIndexer(podInformer: { addIndexers(indexers: Record<string, (pod: Pod) => string[]>): void }): void {
  addIndexerOnce<Pod>(podInformer, POD_NODE_NAME_INDEX, (pod) => (pod.spec?.nodeName ? [pod.spec.nodeName] : []));
}

/** The cached pods bound to `nodeName`, read from the {@link POD_NODE_NAME_INDEX} index (which must have been added). */
export function podsAssignedToNode(podInformer: { getIndexer(): { byIndex(name: string, value: string): Pod[] } }, nodeName: string): Pod[] {
  return podInformer.getIndexer().byIndex(POD_NODE_NAME_INDEX, nodeName);
}
