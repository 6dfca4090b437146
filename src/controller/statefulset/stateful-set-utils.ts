/**
 * Pure StatefulSet helpers: pod identity (`<set>-<ordinal>`, hostname, subdomain, labels), storage
 * (PVCs from volumeClaimTemplates), the PVC retention ownerReferences, revisions (patch, apply, new),
 * health predicates and status bookkeeping.
 *
 * Follows kubernetes/kubernetes v1.33 pkg/controller/statefulset/stateful_set_utils.go:
 * `getParentNameAndOrdinal`, `getOrdinal`, `getStartOrdinal`/`getEndOrdinal`, `podInOrdinalRange`,
 * `getPodName`, `getPersistentVolumeClaimName`, `isMemberOf`, `identityMatches`, `storageMatches`,
 * `getPersistentVolumeClaimRetentionPolicy`, `claimOwnerMatchesSetAndPod`/`isClaimOwnerUpToDate`,
 * `updateClaimOwnerRefForSetAndPod`, `hasUnexpectedController`, `hasNonControllerOwner`,
 * `hasStaleOwnerRef`, `getPersistentVolumeClaims`, `updateStorage`, `updateIdentity`/`initIdentity`,
 * `isRunningAndReady`, `isRunningAndAvailable`, `isCreated`, `isPending`, `isFailed`, `isSucceeded`,
 * `isTerminating`, `isHealthy`, `isUnavailable`, `allowsBurst`, `setPodRevision`/`getPodRevision`,
 * `newStatefulSetPod`, `newVersionedStatefulSetPod`, `getPatch`, `newRevision`, `ApplyRevision`,
 * `inconsistentStatus`, `completeRollingUpdate`, `getStatefulSetMaxUnavailable`.
 */
import type { ControllerRevision, OwnerReference, PersistentVolumeClaim, Pod, StatefulSet, StatefulSetStatus } from '../../api/index.js';
import { getScaledValueFromIntOrPercent } from '../../machinery/intstr/index.js';
import { newControllerRef } from '../../machinery/meta/index.js';
import type { ControllerKind } from '../controller-ref-manager.js';
import { isPodAvailable, isPodReady } from '../controller-utils.js';
import { CONTROLLER_REVISION_HASH_LABEL, newControllerRevision, templateFromRevision, templateRevisionPatch } from '../history/index.js';
import { getPodFromTemplate } from '../pod-control.js';

/** apps/v1 StatefulSet, for owner references and events (`controllerKind`). */
export const STATEFUL_SET_KIND: ControllerKind = { apiVersion: 'apps/v1', kind: 'StatefulSet' };
/** v1 Pod, for the PVC ownerReferences of the whenScaled=Delete policy (`podKind`). */
export const POD_KIND: ControllerKind = { apiVersion: 'v1', kind: 'Pod' };

/** `apps.StatefulSetPodNameLabel`. */
export const STATEFUL_SET_POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
/** `apps.PodIndexLabel` (PodIndexLabel gate, GA in 1.32). */
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';
/** `apps.StatefulSetRevisionLabel`: the pod's revision, the full ControllerRevision name. */
export const STATEFUL_SET_REVISION_LABEL = CONTROLLER_REVISION_HASH_LABEL;

type Meta = { metadata?: { name?: string; namespace?: string; uid?: string; ownerReferences?: OwnerReference[] } };

/** `statefulPodRegex`: `<parent>-<digits>` at the end of the name. */
const STATEFUL_POD_REGEX = /^(.*)-([0-9]+)$/;
const MAX_INT32 = 2 ** 31 - 1;

/**
 * `getParentNameAndOrdinal`: the set name and ordinal a pod name encodes; `{parent: '', ordinal: -1}`
 * when the name is not `<parent>-<int32>` (the parent alone when the number overflows int32).
 */
export function getParentNameAndOrdinal(pod: Pod): { parent: string; ordinal: number } {
  const m = STATEFUL_POD_REGEX.exec(pod.metadata?.name ?? '');
  if (!m) return { parent: '', ordinal: -1 };
  const n = Number(m[2]);
  return { parent: m[1] ?? '', ordinal: Number.isSafeInteger(n) && n <= MAX_INT32 ? n : -1 };
}

/** `getOrdinal`: the pod's ordinal, -1 when its name has none. */
export function getOrdinal(pod: Pod): number {
  return getParentNameAndOrdinal(pod).ordinal;
}

/** `getStartOrdinal`: `spec.ordinals.start`, 0 when unset. */
export function getStartOrdinal(set: StatefulSet): number {
  return set.spec?.ordinals?.start ?? 0;
}

/** `getEndOrdinal`: the last ordinal in range, start + replicas − 1. */
export function getEndOrdinal(set: StatefulSet): number {
  return getStartOrdinal(set) + (set.spec?.replicas ?? 1) - 1;
}

/** `podInOrdinalRange`: the pod's ordinal lies in [start, end]. */
export function podInOrdinalRange(pod: Pod, set: StatefulSet): boolean {
  const ord = getOrdinal(pod);
  return ord >= getStartOrdinal(set) && ord <= getEndOrdinal(set);
}

/** `getPodName`: `<set>-<ordinal>`. */
export function getPodName(set: StatefulSet, ordinal: number): string {
  return `${set.metadata?.name ?? ''}-${ordinal}`;
}

/** `getPersistentVolumeClaimName`: `<claim template>-<set>-<ordinal>`. */
export function getPersistentVolumeClaimName(set: StatefulSet, claimTemplateName: string, ordinal: number): string {
  return `${claimTemplateName}-${set.metadata?.name ?? ''}-${ordinal}`;
}

/** `isMemberOf`: the pod's name parses as `<set>-<ordinal>` for this set. */
export function isMemberOf(set: StatefulSet, pod: Pod): boolean {
  return getParentNameAndOrdinal(pod).parent === set.metadata?.name;
}

/** `identityMatches`: name, namespace and the pod-name / pod-index labels fit the set. */
export function identityMatches(set: StatefulSet, pod: Pod): boolean {
  const { parent, ordinal } = getParentNameAndOrdinal(pod);
  const labels = pod.metadata?.labels;
  return (
    ordinal >= 0 &&
    set.metadata?.name === parent &&
    pod.metadata?.name === getPodName(set, ordinal) &&
    pod.metadata?.namespace === set.metadata?.namespace &&
    labels !== undefined &&
    labels[STATEFUL_SET_POD_NAME_LABEL] === pod.metadata?.name &&
    labels[POD_INDEX_LABEL] === String(ordinal)
  );
}

/** `storageMatches`: every claim template has a pod volume of its name using the ordinal's PVC. */
export function storageMatches(set: StatefulSet, pod: Pod): boolean {
  const ordinal = getOrdinal(pod);
  if (ordinal < 0) return false;
  const volumes = new Map((pod.spec?.volumes ?? []).map((v) => [v.name, v]));
  for (const claim of set.spec?.volumeClaimTemplates ?? []) {
    const name = claim.metadata?.name ?? '';
    const v = volumes.get(name);
    if (!v?.persistentVolumeClaim || v.persistentVolumeClaim.claimName !== getPersistentVolumeClaimName(set, name, ordinal)) return false;
  }
  return true;
}

/** `getPersistentVolumeClaimRetentionPolicy`: the policy, Retain/Retain when unset. */
export function getPersistentVolumeClaimRetentionPolicy(set: StatefulSet): { whenDeleted: string; whenScaled: string } {
  const p = set.spec?.persistentVolumeClaimRetentionPolicy;
  return { whenDeleted: p?.whenDeleted ?? 'Retain', whenScaled: p?.whenScaled ?? 'Retain' };
}

/**
 * `getPersistentVolumeClaims`: the PVCs the pod needs, by claim template name: the template named
 * `<template>-<set>-<ordinal>` in the set's namespace, labelled with the selector's matchLabels.
 */
export function getPersistentVolumeClaims(set: StatefulSet, pod: Pod): Map<string, PersistentVolumeClaim> {
  const ordinal = getOrdinal(pod);
  const claims = new Map<string, PersistentVolumeClaim>();
  for (const t of set.spec?.volumeClaimTemplates ?? []) {
    const templateName = t.metadata?.name ?? '';
    // The template's own labels are replaced by the selector's, as upstream does.
    const meta = structuredClone(t.metadata ?? {});
    delete meta.labels;
    const matchLabels = set.spec?.selector?.matchLabels;
    const claim: PersistentVolumeClaim = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { ...meta, name: getPersistentVolumeClaimName(set, templateName, ordinal), namespace: set.metadata?.namespace ?? '', ...(matchLabels ? { labels: { ...matchLabels } } : {}) },
      ...(t.spec ? { spec: structuredClone(t.spec) } : {}),
    };
    claims.set(templateName, claim);
  }
  return claims;
}

/** `updateStorage`: the pod's volumes named after claim templates become the ordinal's PVCs; others stay. */
export function updateStorage(set: StatefulSet, pod: Pod): void {
  const claims = getPersistentVolumeClaims(set, pod);
  const spec = (pod.spec ??= { containers: [] });
  const volumes: NonNullable<NonNullable<Pod['spec']>['volumes']> = [];
  for (const [name, claim] of claims) volumes.push({ name, persistentVolumeClaim: { claimName: claim.metadata?.name ?? '' } });
  for (const v of spec.volumes ?? []) if (!claims.has(v.name)) volumes.push(v);
  spec.volumes = volumes;
}

/** `updateIdentity`: name, namespace, and the pod-name and pod-index labels. */
export function updateIdentity(set: StatefulSet, pod: Pod): void {
  const ordinal = getOrdinal(pod);
  const meta = (pod.metadata ??= {});
  meta.name = getPodName(set, ordinal);
  meta.namespace = set.metadata?.namespace ?? '';
  meta.labels = { ...meta.labels, [STATEFUL_SET_POD_NAME_LABEL]: meta.name, [POD_INDEX_LABEL]: String(ordinal) };
}

/** `initIdentity`: updateIdentity plus the fields immutable after creation, hostname and subdomain. */
export function initIdentity(set: StatefulSet, pod: Pod): void {
  updateIdentity(set, pod);
  const spec = (pod.spec ??= { containers: [] });
  spec.hostname = pod.metadata?.name ?? '';
  if (set.spec?.serviceName) spec.subdomain = set.spec.serviceName;
  else delete spec.subdomain;
}

/** `isRunningAndReady`: phase Running and the Ready condition True. */
export function isRunningAndReady(pod: Pod): boolean {
  return pod.status?.phase === 'Running' && isPodReady(pod);
}

/** `isRunningAndAvailable`: Ready for more than minReadySeconds (s) at `now` (ms). */
export function isRunningAndAvailable(pod: Pod, minReadySeconds: number, now: number): boolean {
  return isPodAvailable(pod, minReadySeconds, now);
}

/** `isCreated`: the API server has the pod (it set a phase). */
export function isCreated(pod: Pod): boolean {
  return (pod.status?.phase ?? '') !== '';
}

/** `isPending`. */
export function isPending(pod: Pod): boolean {
  return pod.status?.phase === 'Pending';
}

/** `isFailed`. */
export function isFailed(pod: Pod): boolean {
  return pod.status?.phase === 'Failed';
}

/** `isSucceeded`. */
export function isSucceeded(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded';
}

/** `isTerminating`: the pod has a deletionTimestamp. */
export function isTerminating(pod: Pod): boolean {
  return pod.metadata?.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null;
}

/** `isHealthy`: running, ready and not terminating. */
export function isHealthy(pod: Pod): boolean {
  return isRunningAndReady(pod) && !isTerminating(pod);
}

/** `isUnavailable`: not healthy, or not yet available after minReadySeconds. */
export function isUnavailable(pod: Pod, minReadySeconds: number, now: number): boolean {
  return !isHealthy(pod) || !isPodAvailable(pod, minReadySeconds, now);
}

/** `allowsBurst`: podManagementPolicy Parallel. */
export function allowsBurst(set: StatefulSet): boolean {
  return set.spec?.podManagementPolicy === 'Parallel';
}

/** `getPodRevision`: the pod's controller-revision-hash label, '' when absent. */
export function getPodRevision(pod: Pod): string {
  return pod.metadata?.labels?.[STATEFUL_SET_REVISION_LABEL] ?? '';
}

/** `setPodRevision`. */
export function setPodRevision(pod: Pod, revision: string): void {
  const meta = (pod.metadata ??= {});
  meta.labels = { ...meta.labels, [STATEFUL_SET_REVISION_LABEL]: revision };
}

/** `newStatefulSetPod`: the pod of `ordinal` from the set's template, owned by the set, with identity and storage. */
export function newStatefulSetPod(set: StatefulSet, ordinal: number): Pod {
  const pod = getPodFromTemplate(set.spec?.template ?? {}, set, newControllerRef({ metadata: set.metadata }, STATEFUL_SET_KIND));
  const meta = (pod.metadata ??= {});
  delete meta.generateName;
  meta.name = getPodName(set, ordinal);
  initIdentity(set, pod);
  updateStorage(set, pod);
  return pod;
}

/**
 * `newVersionedStatefulSetPod`: a pod of `ordinal` at the current revision when it lies below the
 * partition (start + partition; or start + status.currentReplicas for a RollingUpdate without
 * rollingUpdate), else at the update revision. Upstream's operator precedence is kept: a partition
 * given with another strategy type still applies.
 */
export function newVersionedStatefulSetPod(currentSet: StatefulSet, updateSet: StatefulSet, currentRevision: string, updateRevision: string, ordinal: number): Pod {
  const strategy = currentSet.spec?.updateStrategy;
  const start = getStartOrdinal(currentSet);
  const useCurrent =
    (strategy?.type === 'RollingUpdate' && strategy.rollingUpdate === undefined && ordinal < start + (currentSet.status?.currentReplicas ?? 0)) ||
    (strategy?.rollingUpdate !== undefined && ordinal < start + (strategy.rollingUpdate.partition ?? 0));
  const pod = newStatefulSetPod(useCurrent ? currentSet : updateSet, ordinal);
  setPodRevision(pod, useCurrent ? currentRevision : updateRevision);
  return pod;
}

/** `getPatch`: the revision data of the set's template (see templateRevisionPatch). */
export function getPatch(set: StatefulSet): Record<string, unknown> {
  return templateRevisionPatch(set.spec?.template);
}

/**
 * `newRevision`: the revision holding the set's template (name from the hash and `collisionCount`),
 * labelled with the template's labels, annotated with the set's annotations (so kubectl shows the
 * change-cause), numbered `revision`.
 */
export function newRevision(set: StatefulSet, revision: number, collisionCount: number): ControllerRevision {
  const cr = newControllerRevision(set, newControllerRef({ metadata: set.metadata }, STATEFUL_SET_KIND), set.spec?.template?.metadata?.labels, getPatch(set), revision, collisionCount);
  return set.metadata?.annotations ? { ...cr, metadata: { ...cr.metadata, annotations: { ...set.metadata.annotations } } } : cr;
}

/** `ApplyRevision`: a copy of the set whose template is the one the revision stores. */
export function applyRevision(set: StatefulSet, revision: ControllerRevision): StatefulSet {
  const clone = structuredClone(set);
  const template = templateFromRevision(revision);
  if (template && clone.spec) clone.spec.template = template;
  return clone;
}

/** `inconsistentStatus`: the computed status differs from the set's in a field upstream compares. */
export function inconsistentStatus(set: StatefulSet, status: StatefulSetStatus): boolean {
  const s = set.status;
  return (
    (status.observedGeneration ?? 0) > (s?.observedGeneration ?? 0) ||
    s?.observedGeneration === undefined ||
    status.replicas !== (s.replicas ?? 0) ||
    (status.currentReplicas ?? 0) !== (s.currentReplicas ?? 0) ||
    (status.readyReplicas ?? 0) !== (s.readyReplicas ?? 0) ||
    (status.updatedReplicas ?? 0) !== (s.updatedReplicas ?? 0) ||
    (status.currentRevision ?? '') !== (s.currentRevision ?? '') ||
    (status.availableReplicas ?? 0) !== (s.availableReplicas ?? 0) ||
    (status.updateRevision ?? '') !== (s.updateRevision ?? '')
  );
}

/**
 * `completeRollingUpdate`: under RollingUpdate, once every pod is updated and ready, the update
 * revision becomes the current one (status is changed in place).
 */
export function completeRollingUpdate(set: StatefulSet, status: StatefulSetStatus): void {
  if (set.spec?.updateStrategy?.type === 'RollingUpdate' && status.updatedReplicas === status.replicas && status.readyReplicas === status.replicas) {
    status.currentReplicas = status.updatedReplicas;
    status.currentRevision = status.updateRevision;
  }
}

/** `getStatefulSetMaxUnavailable`: maxUnavailable (default 1) scaled to `replicas`, rounded up, at least 1. */
export function getStatefulSetMaxUnavailable(set: StatefulSet, replicas: number): number {
  const v = set.spec?.updateStrategy?.rollingUpdate?.maxUnavailable ?? 1;
  return Math.max(1, getScaledValueFromIntOrPercent(v, replicas, true));
}

// ---- PVC retention: ownerReferences on claims ----

/** `matchesRef`: the reference names `owner` by apiVersion, kind and name (UID not compared). */
function matchesRef(ref: OwnerReference, owner: Meta, kind: ControllerKind): boolean {
  return ref.apiVersion === kind.apiVersion && ref.kind === kind.kind && ref.name === owner.metadata?.name;
}

/** `hasOwnerRef`: some reference of `target` has `owner`'s UID. */
export function hasOwnerRef(target: Meta, owner: Meta): boolean {
  const uid = owner.metadata?.uid;
  return (target.metadata?.ownerReferences ?? []).some((r) => r.uid === uid);
}

/** `hasStaleOwnerRef`: a reference names `owner` but with another UID (an earlier incarnation). */
export function hasStaleOwnerRef(target: Meta, owner: Meta, kind: ControllerKind): boolean {
  return (target.metadata?.ownerReferences ?? []).some((r) => matchesRef(r, owner, kind) && r.uid !== (owner.metadata?.uid ?? ''));
}

/**
 * `hasUnexpectedController`: with a non-Retain/Retain policy, the claim is controlled by something
 * other than this set or pod (or by an earlier set/pod of the same name).
 */
export function hasUnexpectedController(claim: PersistentVolumeClaim, set: StatefulSet, pod: Pod): boolean {
  const policy = getPersistentVolumeClaimRetentionPolicy(set);
  if (policy.whenScaled === 'Retain' && policy.whenDeleted === 'Retain') return false;
  for (const ref of claim.metadata?.ownerReferences ?? []) {
    if (matchesRef(ref, set, STATEFUL_SET_KIND)) {
      if (ref.uid !== set.metadata?.uid) return true;
      continue;
    }
    if (matchesRef(ref, pod, POD_KIND)) {
      if (ref.uid !== pod.metadata?.uid) return true;
      continue;
    }
    if (ref.controller) return true;
  }
  return false;
}

/** `hasNonControllerOwner`: the set or pod owns the claim without being its controller. */
function hasNonControllerOwner(claim: PersistentVolumeClaim, set: StatefulSet, pod: Pod): boolean {
  return (claim.metadata?.ownerReferences ?? []).some((r) => (r.uid === set.metadata?.uid || r.uid === pod.metadata?.uid) && !r.controller);
}

/**
 * `isClaimOwnerUpToDate`: the claim's ownerReferences agree with the retention policy — Retain/Retain:
 * none to set or pod; whenDeleted=Delete: a controller ref to the set (unless the pod is scaled down
 * with whenScaled=Delete); whenScaled=Delete: a controller ref to the pod exactly when the pod's
 * ordinal is out of range. Claims with stale references, or another controller, are left alone (true).
 */
export function isClaimOwnerUpToDate(claim: PersistentVolumeClaim, set: StatefulSet, pod: Pod): boolean {
  if (hasStaleOwnerRef(claim, set, STATEFUL_SET_KIND) || hasStaleOwnerRef(claim, pod, POD_KIND)) return true;
  if (hasUnexpectedController(claim, set, pod)) return !(hasOwnerRef(claim, set) || hasOwnerRef(claim, pod));
  if (hasNonControllerOwner(claim, set, pod)) return false;
  const policy = getPersistentVolumeClaimRetentionPolicy(set);
  const setRef = hasOwnerRef(claim, set);
  const podRef = hasOwnerRef(claim, pod);
  const scaledDown = !podInOrdinalRange(pod, set);
  if (policy.whenScaled === 'Delete' && policy.whenDeleted === 'Delete') return scaledDown !== setRef && scaledDown === podRef;
  if (policy.whenScaled === 'Delete') return !setRef && scaledDown === podRef;
  if (policy.whenDeleted === 'Delete') return setRef && !podRef;
  return !setRef && !podRef;
}

/**
 * `updateClaimOwnerRefForSetAndPod`: rewrites the claim's references to the set and pod (in place)
 * as the retention policy wants them; with an unexpected controller only removes ours.
 */
export function updateClaimOwnerRefForSetAndPod(claim: PersistentVolumeClaim, set: StatefulSet, pod: Pod): void {
  const unexpected = hasUnexpectedController(claim, set, pod);
  const meta = (claim.metadata ??= {});
  const refs = (meta.ownerReferences ?? []).filter((r) => !matchesRef(r, set, STATEFUL_SET_KIND) && !matchesRef(r, pod, POD_KIND));
  if (!unexpected) {
    const policy = getPersistentVolumeClaimRetentionPolicy(set);
    const scaledDown = !podInOrdinalRange(pod, set);
    const add = (owner: Meta, kind: ControllerKind): void => {
      if (!refs.some((r) => r.uid === owner.metadata?.uid)) refs.push(newControllerRef({ metadata: owner.metadata }, kind));
    };
    if (policy.whenScaled === 'Delete' && scaledDown) add(pod, POD_KIND);
    if (policy.whenDeleted === 'Delete' && (policy.whenScaled !== 'Delete' || !scaledDown)) add(set, STATEFUL_SET_KIND);
  }
  if (refs.length > 0) meta.ownerReferences = refs;
  else delete meta.ownerReferences;
}
