/**
 * Pure parts of the ReplicaSet controller (status, conditions, choice of pods to delete) and the status
 * write. Follows kubernetes/kubernetes pkg/controller/replicaset/replica_set_utils.go
 * (`calculateStatus`, `updateReplicaSetStatus`, `NewReplicaSetCondition`, `SetCondition`,
 * `RemoveCondition`) and replica_set.go (`getPodsToDelete`, `getPodsRankedByRelatedPodsOnSameNode`).
 */
import type { Pod, ReplicaSet, ReplicaSetCondition, ReplicaSetStatus } from '../../api/index.js';
import type { ResourceClient } from '../../client/index.js';
import { errorMessage } from '../../machinery/errors/index.js';
import { selectorFromSet } from '../../machinery/labels/index.js';
import { semanticDeepEqual } from '../../machinery/meta/index.js';
import { compareActivePodsWithRanks, getPodReadyCondition, isPodActive, isPodAvailable, isPodReady, specReplicas } from '../controller-utils.js';
import { formatTime, parseTime } from '../../util/clock/index.js';

/**
 * Pods counted by class: each entry stands for `count` pods that agree with `sample` on their labels
 * and readiness — a class of the active-pod index summary (controller-utils `activePodClass`), or one
 * pod with count 1 ({@link countEach}).
 */
export type CountedPods = Iterable<{ readonly count: number; readonly sample: Pod }>;

/** Each of `pods` counted once. */
export function countEach(pods: readonly Pod[]): CountedPods {
  return pods.map((sample) => ({ count: 1, sample }));
}

/** Condition type set while creating or deleting pods fails. */
export const REPLICA_FAILURE = 'ReplicaFailure';
/** How many times a conflicting status write is retried after re-reading the ReplicaSet. */
export const STATUS_UPDATE_RETRIES = 1;

/** `NewReplicaSetCondition`, with lastTransitionTime `now` (ms). */
export function newReplicaSetCondition(type: string, status: 'True' | 'False' | 'Unknown', reason: string, message: string, now: number): ReplicaSetCondition {
  return { type, status, lastTransitionTime: formatTime(now), reason, message };
}

/** `GetCondition`. */
export function getCondition(status: ReplicaSetStatus | undefined, type: string): ReplicaSetCondition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}

/** `SetCondition`: replaces the condition of that type unless status and reason are unchanged. Mutates `status`. */
export function setCondition(status: ReplicaSetStatus, condition: ReplicaSetCondition): void {
  const current = getCondition(status, condition.type);
  if (current && current.status === condition.status && current.reason === condition.reason) return;
  status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== condition.type), condition];
}

/** `RemoveCondition`. Mutates `status`; an emptied list is dropped (omitempty). */
export function removeCondition(status: ReplicaSetStatus, type: string): void {
  const rest = (status.conditions ?? []).filter((c) => c.type !== type);
  if (rest.length > 0) status.conditions = rest;
  else delete status.conditions;
}

/**
 * `calculateStatus`: counts over the RS's active, claimed pods — `replicas` (all), `fullyLabeledReplicas`
 * (labels ⊇ template labels), `readyReplicas`, `availableReplicas` (ready for more than
 * `minReadySeconds` at `now` ms) — and the ReplicaFailure condition: set (FailedCreate when pods are
 * missing, FailedDelete when there are too many) when `manageReplicasErr` is defined and no such
 * condition exists, removed after an error-free sync. `observedGeneration` is left as it was; the
 * write sets it. The pods come counted by class, so a sync reading an index summary costs one step
 * per class instead of one per pod.
 */
export function calculateStatus(rs: ReplicaSet, filteredPods: CountedPods, manageReplicasErr: unknown, now: number): ReplicaSetStatus {
  const newStatus: ReplicaSetStatus = { ...(rs.status ?? { replicas: 0 }) };
  const templateLabels = selectorFromSet(rs.spec?.template?.metadata?.labels);
  const minReadySeconds = rs.spec?.minReadySeconds ?? 0;
  let replicas = 0;
  let fullyLabeled = 0;
  let ready = 0;
  let available = 0;
  for (const { count, sample: pod } of filteredPods) {
    replicas += count;
    if (templateLabels.matches(pod.metadata?.labels)) fullyLabeled += count;
    if (isPodReady(pod)) {
      ready += count;
      if (isPodAvailable(pod, minReadySeconds, now)) available += count;
    }
  }
  const failure = getCondition(rs.status, REPLICA_FAILURE);
  if (manageReplicasErr !== undefined && !failure) {
    const diff = replicas - specReplicas(rs);
    const reason = diff < 0 ? 'FailedCreate' : diff > 0 ? 'FailedDelete' : '';
    setCondition(newStatus, newReplicaSetCondition(REPLICA_FAILURE, 'True', reason, errorMessage(manageReplicasErr), now));
  } else if (manageReplicasErr === undefined && failure) {
    removeCondition(newStatus, REPLICA_FAILURE);
  }
  newStatus.replicas = replicas;
  newStatus.fullyLabeledReplicas = fullyLabeled;
  newStatus.readyReplicas = ready;
  newStatus.availableReplicas = available;
  return newStatus;
}

/** True when writing `newStatus` would change nothing (the comparison of updateReplicaSetStatus). */
export function replicaSetStatusUnchanged(rs: ReplicaSet, newStatus: ReplicaSetStatus): boolean {
  const s = rs.status;
  return (
    (s?.replicas ?? 0) === newStatus.replicas &&
    (s?.fullyLabeledReplicas ?? 0) === (newStatus.fullyLabeledReplicas ?? 0) &&
    (s?.readyReplicas ?? 0) === (newStatus.readyReplicas ?? 0) &&
    (s?.availableReplicas ?? 0) === (newStatus.availableReplicas ?? 0) &&
    (rs.metadata?.generation ?? 0) === (s?.observedGeneration ?? 0) &&
    semanticDeepEqual(s?.conditions ?? [], newStatus.conditions ?? [])
  );
}

/**
 * `updateReplicaSetStatus`: PUTs `/status` with `newStatus` and `observedGeneration = generation`,
 * unless nothing changed. On failure it re-GETs the ReplicaSet and tries once more
 * ({@link STATUS_UPDATE_RETRIES}). Returns the written (or unchanged) ReplicaSet; throws the last error.
 */
export async function updateReplicaSetStatus(client: ResourceClient<ReplicaSet>, rs: ReplicaSet, newStatus: ReplicaSetStatus): Promise<ReplicaSet> {
  if (replicaSetStatusUnchanged(rs, newStatus)) return rs;
  const status: ReplicaSetStatus = { ...newStatus, observedGeneration: rs.metadata?.generation ?? 0 };
  let current = rs;
  for (let i = 0; ; i++) {
    try {
      return await client.updateStatus({ ...current, status });
    } catch (err) {
      if (i >= STATUS_UPDATE_RETRIES) throw err;
    }
    current = await client.get(current.metadata?.name ?? '');
  }
}

/**
 * `getPodsToDelete`: the first `diff` pods of `filteredPods` in deletion order. When fewer than all
 * are deleted, pods are ranked by {@link compareActivePodsWithRanks} with rank = number of active
 * `relatedPods` (pods of ReplicaSets with the same controller, e.g. a Deployment's other RSes) on the
 * pod's node, so scale-down first removes pods that share a node with a sibling ("doubled up").
 * `now` (ms) anchors the log-scale age buckets.
 */
export function getPodsToDelete(filteredPods: readonly Pod[], relatedPods: readonly Pod[], diff: number, now: number): Pod[] {
  if (diff >= filteredPods.length) return filteredPods.slice(0, diff);
  const podsOnNode = new Map<string, number>();
  for (const pod of relatedPods) {
    if (!isPodActive(pod)) continue;
    const node = pod.spec?.nodeName ?? '';
    podsOnNode.set(node, (podsOnNode.get(node) ?? 0) + 1);
  }
  const ranked = filteredPods.map((pod) => ({ pod, rank: podsOnNode.get(pod.spec?.nodeName ?? '') ?? 0 }));
  ranked.sort((a, b) => compareActivePodsWithRanks(a.pod, b.pod, a.rank, b.rank, now));
  return ranked.slice(0, diff).map((r) => r.pod);
}

/**
 * When to sync a ReplicaSet again so that its ready pods are counted available on time (no event
 * marks that moment): the earliest `Ready.lastTransitionTime + minReadySeconds` among ready, not yet
 * available pods, plus 1 s since availability needs strictly more than minReadySeconds and times
 * have second precision — in ms from `now`. Undefined when no pod is waiting to become available.
 * E.g. minReadySeconds 5, pods ready 2 s and 4 s ago: in 5 − 4 + 1 = 2 s.
 * Follows FindMinNextPodAvailabilityCheck (pkg/controller/controller_utils.go, v1.34), which replaced
 * the flat `AddAfter(minReadySeconds)` of earlier releases.
 */
export function nextAvailabilityCheckMs(pods: CountedPods, minReadySeconds: number, now: number): number | undefined {
  if (minReadySeconds <= 0) return undefined;
  let next: number | undefined;
  for (const { sample: pod } of pods) {
    if (!isPodReady(pod) || isPodAvailable(pod, minReadySeconds, now)) continue;
    const readyAt = parseTime(getPodReadyCondition(pod)?.lastTransitionTime);
    if (readyAt === undefined) continue;
    const after = Math.max(0, readyAt + minReadySeconds * 1000 - now) + 1000;
    if (next === undefined || after < next) next = after;
  }
  return next;
}
