/**
 * Pure Deployment helpers: rollout arithmetic, new/old ReplicaSet identification, revision and
 * replica annotations, conditions and rollout-state predicates. No I/O.
 *
 * Follows kubernetes/kubernetes pkg/controller/deployment/util/deployment_util.go (names kept:
 * ResolveFenceposts, MaxUnavailable, MaxSurge, NewRSNewReplicas, EqualIgnoreHash, FindNewReplicaSet,
 * FindOldReplicaSets, SetNewReplicaSetAnnotations, GetReplicaSetProportion, DeploymentComplete, …).
 * Times are instants in ms; conditions carry RFC 3339 second-precision strings like metav1.Time.
 */
import type { Deployment, DeploymentCondition, DeploymentStatus, PodTemplateSpec, ReplicaSet, ReplicaSetCondition } from '../../../api/index.js';
import { getScaledValueFromIntOrPercent } from '../../../machinery/intstr/index.js';
import { deepCopy, semanticDeepEqual } from '../../../machinery/meta/index.js';
import { formatTime, parseTime } from '../../../util/clock/index.js';
import { compareByCreationTimestamp, filterActiveReplicaSets, specReplicas } from '../../controller-utils.js';

/** Rollout sequence number, on the Deployment and each of its ReplicaSets. */
export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
/** Earlier revisions a ReplicaSet served (when rolled back to), comma-separated. */
export const REVISION_HISTORY_ANNOTATION = 'deployment.kubernetes.io/revision-history';
/** `deployment.spec.replicas` when the ReplicaSet was last scaled. */
export const DESIRED_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/desired-replicas';
/** `replicas + maxSurge` when the ReplicaSet was last scaled; the denominator of proportional scaling. */
export const MAX_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/max-replicas';
/** Legacy rollback request (extensions/v1beta1 `rollbackTo`). */
export const DEPRECATED_ROLLBACK_TO_ANNOTATION = 'deprecated.deployment.rollback.to';
/** kubectl apply's record of the applied manifest (v1.LastAppliedConfigAnnotation). */
export const LAST_APPLIED_CONFIG_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
/** Label added to a ReplicaSet, its selector and its pods (apps.DefaultDeploymentUniqueLabelKey). */
export const DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY = 'pod-template-hash';
/** Longest revision-history annotation kept (oldest entries dropped). */
export const MAX_REV_HISTORY_LENGTH_IN_CHARS = 2000;

// Condition reasons (deployment_util.go).
export const REPLICA_SET_UPDATED_REASON = 'ReplicaSetUpdated';
export const FAILED_RS_CREATE_REASON = 'ReplicaSetCreateError';
export const NEW_REPLICA_SET_REASON = 'NewReplicaSetCreated';
export const FOUND_NEW_RS_REASON = 'FoundNewReplicaSet';
export const NEW_RS_AVAILABLE_REASON = 'NewReplicaSetAvailable';
export const TIMED_OUT_REASON = 'ProgressDeadlineExceeded';
export const PAUSED_DEPLOY_REASON = 'DeploymentPaused';
export const RESUMED_DEPLOY_REASON = 'DeploymentResumed';
export const MINIMUM_REPLICAS_AVAILABLE = 'MinimumReplicasAvailable';
export const MINIMUM_REPLICAS_UNAVAILABLE = 'MinimumReplicasUnavailable';

const MAX_INT32 = 2147483647;

/** Annotations never copied from a Deployment to its ReplicaSets (`annotationsToSkip`). */
export const ANNOTATIONS_TO_SKIP: ReadonlySet<string> = new Set([
  LAST_APPLIED_CONFIG_ANNOTATION,
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  DEPRECATED_ROLLBACK_TO_ANNOTATION,
]);

// ---- conditions ----

/** `NewDeploymentCondition`: lastUpdateTime = lastTransitionTime = `now` (ms). */
export function newDeploymentCondition(type: string, status: 'True' | 'False' | 'Unknown', reason: string, message: string, now: number): DeploymentCondition {
  const t = formatTime(now);
  return { type, status, lastUpdateTime: t, lastTransitionTime: t, reason, message };
}

export function getDeploymentCondition(status: DeploymentStatus | undefined, type: string): DeploymentCondition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}

/**
 * `SetDeploymentCondition`: no-op when a condition of that type has the same status and reason;
 * otherwise replaces it (moved to the end), keeping lastTransitionTime when the status is unchanged.
 * Mutates `status`.
 */
export function setDeploymentCondition(status: DeploymentStatus, condition: DeploymentCondition): void {
  const current = getDeploymentCondition(status, condition.type);
  if (current && current.status === condition.status && current.reason === condition.reason) return;
  const c = current && current.status === condition.status ? { ...condition, lastTransitionTime: current.lastTransitionTime } : condition;
  status.conditions = [...(status.conditions ?? []).filter((x) => x.type !== condition.type), c];
}

/** `RemoveDeploymentCondition`. Mutates `status`; an emptied list is dropped. */
export function removeDeploymentCondition(status: DeploymentStatus, type: string): void {
  const rest = (status.conditions ?? []).filter((c) => c.type !== type);
  if (rest.length > 0) status.conditions = rest;
  else delete status.conditions;
}

/** `ReplicaSetToDeploymentCondition`: lastUpdateTime is the RS condition's lastTransitionTime. */
export function replicaSetToDeploymentCondition(c: ReplicaSetCondition): DeploymentCondition {
  const out: DeploymentCondition = { type: c.type, status: c.status };
  if (c.lastTransitionTime) {
    out.lastTransitionTime = c.lastTransitionTime;
    out.lastUpdateTime = c.lastTransitionTime;
  }
  if (c.reason !== undefined) out.reason = c.reason;
  if (c.message !== undefined) out.message = c.message;
  return out;
}

// ---- strategy arithmetic ----

export function isRollingUpdate(d: Deployment): boolean {
  return d.spec?.strategy?.type === 'RollingUpdate';
}

/**
 * `ResolveFenceposts`: maxSurge as a count (percent of `desired` rounded **up**) and maxUnavailable
 * (percent rounded **down**); unset values count as 0. If both resolve to 0 — possible only through
 * rounding, validation rejects literal 0/0 — maxUnavailable becomes 1, since surging might be
 * impossible (quota). Examples: 25%/25% of 3 → surge ⌈0.75⌉ = 1, unavailable ⌊0.75⌋ = 0;
 * 0/10% of 5 → 0 and ⌊0.5⌋ = 0 ⇒ unavailable 1. Throws for a malformed percentage.
 */
export function resolveFenceposts(maxSurge: number | string | undefined, maxUnavailable: number | string | undefined, desired: number): [surge: number, unavailable: number] {
  const surge = getScaledValueFromIntOrPercent(maxSurge ?? 0, desired, true);
  let unavailable = getScaledValueFromIntOrPercent(maxUnavailable ?? 0, desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return [surge, unavailable];
}

/** `MaxUnavailable`: 0 unless RollingUpdate with replicas > 0; never more than replicas. */
export function maxUnavailable(d: Deployment): number {
  const replicas = specReplicas(d);
  if (!isRollingUpdate(d) || replicas === 0) return 0;
  const ru = d.spec?.strategy?.rollingUpdate;
  const [, unavailable] = resolveFenceposts(ru?.maxSurge, ru?.maxUnavailable, replicas);
  return Math.min(unavailable, replicas);
}

/** `MaxSurge`: 0 unless RollingUpdate. */
export function maxSurge(d: Deployment): number {
  if (!isRollingUpdate(d)) return 0;
  const ru = d.spec?.strategy?.rollingUpdate;
  return resolveFenceposts(ru?.maxSurge, ru?.maxUnavailable, specReplicas(d))[0];
}

/** Σ spec.replicas (`GetReplicaCountForReplicaSets`). */
export function getReplicaCountForReplicaSets(rss: readonly (ReplicaSet | undefined)[]): number {
  let n = 0;
  for (const rs of rss) if (rs) n += specReplicas(rs);
  return n;
}

/** Σ status.replicas (`GetActualReplicaCountForReplicaSets`). */
export function getActualReplicaCountForReplicaSets(rss: readonly (ReplicaSet | undefined)[]): number {
  let n = 0;
  for (const rs of rss) if (rs) n += rs.status?.replicas ?? 0;
  return n;
}

/** Σ status.readyReplicas. */
export function getReadyReplicaCountForReplicaSets(rss: readonly (ReplicaSet | undefined)[]): number {
  let n = 0;
  for (const rs of rss) if (rs) n += rs.status?.readyReplicas ?? 0;
  return n;
}

/** Σ status.availableReplicas. */
export function getAvailableReplicaCountForReplicaSets(rss: readonly (ReplicaSet | undefined)[]): number {
  let n = 0;
  for (const rs of rss) if (rs) n += rs.status?.availableReplicas ?? 0;
  return n;
}

/**
 * `NewRSNewReplicas`: the size the new ReplicaSet may have now. Recreate: `replicas`. RollingUpdate:
 * grow towards `replicas` without the total of all RS specs exceeding `replicas + maxSurge`; e.g.
 * replicas 10, maxSurge 3, old RS at 10, new at 0 → total 10 < 13 → new = 0 + min(3, 10) = 3.
 * Throws for another strategy type.
 */
export function newRSNewReplicas(d: Deployment, allRSs: readonly (ReplicaSet | undefined)[], newRS: ReplicaSet): number {
  const replicas = specReplicas(d);
  switch (d.spec?.strategy?.type) {
    case 'RollingUpdate': {
      const surge = getScaledValueFromIntOrPercent(d.spec.strategy.rollingUpdate?.maxSurge ?? 0, replicas, true);
      const current = getReplicaCountForReplicaSets(allRSs);
      const maxTotal = replicas + surge;
      if (current >= maxTotal) return specReplicas(newRS);
      const scaleUp = Math.min(maxTotal - current, replicas - specReplicas(newRS));
      return specReplicas(newRS) + scaleUp;
    }
    case 'Recreate':
      return replicas;
    case undefined:
    default:
      throw new Error(`deployment type ${d.spec?.strategy?.type ?? ''} isn't supported`);
  }
}

// ---- new / old ReplicaSets ----

/** A template with the pod-template-hash label removed (an emptied label map is kept, as upstream's delete). */
function withoutHash(t: PodTemplateSpec): PodTemplateSpec {
  const labels = t.metadata?.labels;
  if (!labels || !(DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY in labels)) return t;
  const rest = { ...labels };
  delete rest[DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY];
  return { ...t, metadata: { ...t.metadata, labels: rest } };
}

/** `EqualIgnoreHash`: the templates are semantically equal once the pod-template-hash label is ignored. */
export function equalIgnoreHash(a: PodTemplateSpec | undefined, b: PodTemplateSpec | undefined): boolean {
  return semanticDeepEqual(withoutHash(a ?? {}), withoutHash(b ?? {}));
}

/**
 * `FindNewReplicaSet`: the oldest ReplicaSet whose template equals the Deployment's (ignoring the
 * hash label); several can exist after cluster upgrades changed hashing (kubernetes#40415).
 */
export function findNewReplicaSet(d: Deployment, rsList: readonly ReplicaSet[]): ReplicaSet | undefined {
  const sorted = [...rsList].sort(compareByCreationTimestamp);
  return sorted.find((rs) => equalIgnoreHash(rs.spec?.template, d.spec?.template));
}

/**
 * `FindOldReplicaSets`: every ReplicaSet except the new one (`allOldRSs`), and those of them with
 * spec.replicas ≠ 0 (`requiredRSs`).
 */
export function findOldReplicaSets(d: Deployment, rsList: readonly ReplicaSet[]): { requiredRSs: ReplicaSet[]; allOldRSs: ReplicaSet[] } {
  const newRS = findNewReplicaSet(d, rsList);
  const allOldRSs = rsList.filter((rs) => !newRS || rs.metadata?.uid !== newRS.metadata?.uid);
  return { requiredRSs: allOldRSs.filter((rs) => specReplicas(rs) !== 0), allOldRSs };
}

/**
 * `FindActiveOrLatest`: the only active (spec.replicas > 0) ReplicaSet; with none active, the new RS
 * or else the newest old one; undefined when several are active.
 */
export function findActiveOrLatest(newRS: ReplicaSet | undefined, oldRSs: readonly ReplicaSet[]): ReplicaSet | undefined {
  if (!newRS && oldRSs.length === 0) return undefined;
  const newestFirst = [...oldRSs].sort((a, b) => compareByCreationTimestamp(b, a));
  const active = filterActiveReplicaSets([...newestFirst, newRS]);
  if (active.length === 0) return newRS ?? newestFirst[0];
  return active.length === 1 ? active[0] : undefined;
}

// ---- revisions and annotations ----

/** `Revision`: the revision annotation as a number; 0 when absent; NaN when malformed. */
export function revision(obj: { metadata?: { annotations?: Record<string, string> } }): number {
  const v = obj.metadata?.annotations?.[REVISION_ANNOTATION];
  if (v === undefined) return 0;
  return /^\d+$/.test(v) ? Number(v) : NaN;
}

/** `MaxRevision`: the highest valid revision among `rss` (0 for none). */
export function maxRevision(rss: readonly ReplicaSet[]): number {
  let max = 0;
  for (const rs of rss) {
    const r = revision(rs);
    if (r > max) max = r;
  }
  return max;
}

/**
 * `LastRevision`: the second-highest valid revision among `rss` — the one before the current — or 0.
 * E.g. revisions 1, 3, 2 → 2; a single revision 4 → 0.
 */
export function lastRevision(rss: readonly ReplicaSet[]): number {
  let max = 0;
  let secMax = 0;
  for (const rs of rss) {
    const v = revision(rs);
    if (Number.isNaN(v)) continue;
    if (v >= max) {
      secMax = max;
      max = v;
    } else if (v > secMax) {
      secMax = v;
    }
  }
  return secMax;
}

/**
 * `SetFromReplicaSetTemplate`: the Deployment's pod template becomes a copy of `template` without the
 * pod-template-hash label. Mutates `d`.
 */
export function setFromReplicaSetTemplate(d: Deployment, template: PodTemplateSpec): void {
  const t = withoutHash(deepCopy(template));
  (d.spec ??= { selector: {}, template: {} }).template = t;
}

/**
 * `SetDeploymentAnnotationsTo`: the Deployment keeps only its {@link ANNOTATIONS_TO_SKIP} annotations
 * and takes every other annotation of the ReplicaSet rolled back to (e.g. its change-cause). Mutates `d`.
 */
export function setDeploymentAnnotationsTo(d: Deployment, rollbackToRS: ReplicaSet): void {
  const annotations: Record<string, string> = {};
  for (const [k, v] of Object.entries(d.metadata?.annotations ?? {})) if (ANNOTATIONS_TO_SKIP.has(k)) annotations[k] = v;
  for (const [k, v] of Object.entries(rollbackToRS.metadata?.annotations ?? {})) if (!ANNOTATIONS_TO_SKIP.has(k)) annotations[k] = v;
  (d.metadata ??= {}).annotations = annotations;
}

/** Oldest revision first, creation time breaking ties (`ReplicaSetsByRevision`). */
export function compareReplicaSetsByRevision(a: ReplicaSet, b: ReplicaSet): number {
  const ra = revision(a) || 0;
  const rb = revision(b) || 0;
  return ra !== rb ? ra - rb : compareByCreationTimestamp(a, b);
}

/**
 * `copyDeploymentAnnotationsToReplicaSet`: copies the Deployment's annotations (except
 * {@link ANNOTATIONS_TO_SKIP}) onto `rs` (mutated). Returns whether anything changed.
 */
export function copyDeploymentAnnotationsToReplicaSet(d: Deployment, rs: ReplicaSet): boolean {
  rs.metadata ??= {};
  const annotations = (rs.metadata.annotations ??= {});
  let changed = false;
  for (const [k, v] of Object.entries(d.metadata?.annotations ?? {})) {
    if (ANNOTATIONS_TO_SKIP.has(k) || annotations[k] === v) continue;
    annotations[k] = v;
    changed = true;
  }
  return changed;
}

/**
 * `SetReplicasAnnotations`: sets desired-replicas and max-replicas on `rs` (mutated); returns whether
 * either changed.
 */
export function setReplicasAnnotations(rs: ReplicaSet, desiredReplicas: number, maxReplicas: number): boolean {
  rs.metadata ??= {};
  const annotations = (rs.metadata.annotations ??= {});
  let updated = false;
  if (annotations[DESIRED_REPLICAS_ANNOTATION] !== String(desiredReplicas)) {
    annotations[DESIRED_REPLICAS_ANNOTATION] = String(desiredReplicas);
    updated = true;
  }
  if (annotations[MAX_REPLICAS_ANNOTATION] !== String(maxReplicas)) {
    annotations[MAX_REPLICAS_ANNOTATION] = String(maxReplicas);
    updated = true;
  }
  return updated;
}

/** `ReplicasAnnotationsNeedUpdate`. */
export function replicasAnnotationsNeedUpdate(rs: ReplicaSet, desiredReplicas: number, maxReplicas: number): boolean {
  const a = rs.metadata?.annotations;
  return a?.[DESIRED_REPLICAS_ANNOTATION] !== String(desiredReplicas) || a[MAX_REPLICAS_ANNOTATION] !== String(maxReplicas);
}

/** A non-negative int32 annotation value, or undefined when absent or malformed. */
function int32Annotation(rs: ReplicaSet, key: string): number | undefined {
  const v = rs.metadata?.annotations?.[key];
  if (v === undefined || !/^\d+$/.test(v)) return undefined;
  const n = Number(v);
  return n <= MAX_INT32 ? n : undefined;
}

/** `GetDesiredReplicasAnnotation`. */
export function getDesiredReplicasAnnotation(rs: ReplicaSet): number | undefined {
  return int32Annotation(rs, DESIRED_REPLICAS_ANNOTATION);
}

/** `getMaxReplicasAnnotation`. */
export function getMaxReplicasAnnotation(rs: ReplicaSet): number | undefined {
  return int32Annotation(rs, MAX_REPLICAS_ANNOTATION);
}

/**
 * `SetNewReplicaSetAnnotations`: copies the Deployment's annotations, raises the revision to
 * `newRevision` when the RS's is lower (a re-used RS being rolled back to records its previous
 * revision in revision-history, capped at `revHistoryLimitInChars` by dropping the oldest), and for a
 * not yet existing RS (`exists` false) sets desired/max-replicas. Mutates `rs`; returns whether any
 * annotation changed.
 */
export function setNewReplicaSetAnnotations(d: Deployment, rs: ReplicaSet, newRevision: number, exists: boolean, revHistoryLimitInChars = MAX_REV_HISTORY_LENGTH_IN_CHARS): boolean {
  let changed = copyDeploymentAnnotationsToReplicaSet(d, rs);
  const annotations = ((rs.metadata ??= {}).annotations ??= {});
  const oldRevision = annotations[REVISION_ANNOTATION];
  let oldRevisionInt = 0;
  if (oldRevision !== undefined && oldRevision !== '') {
    if (!/^\d+$/.test(oldRevision)) return false;
    oldRevisionInt = Number(oldRevision);
  }
  if (oldRevisionInt < newRevision) {
    annotations[REVISION_ANNOTATION] = String(newRevision);
    changed = true;
    if (oldRevision !== undefined) {
      const history = annotations[REVISION_HISTORY_ANNOTATION] ?? '';
      if (history === '') {
        annotations[REVISION_HISTORY_ANNOTATION] = oldRevision;
      } else {
        const entries = history.split(',');
        let totalLen = history.length + oldRevision.length + 1;
        let start = 0;
        while (totalLen > revHistoryLimitInChars && start < entries.length) {
          totalLen -= (entries[start] ?? '').length + 1;
          start++;
        }
        if (totalLen <= revHistoryLimitInChars) annotations[REVISION_HISTORY_ANNOTATION] = [...entries.slice(start), oldRevision].join(',');
      }
    }
  }
  if (!exists && setReplicasAnnotations(rs, specReplicas(d), specReplicas(d) + maxSurge(d))) changed = true;
  return changed;
}

/** `SetDeploymentRevision`: sets the Deployment's revision annotation (mutated); returns whether it changed. */
export function setDeploymentRevision(d: Deployment, rev: string): boolean {
  d.metadata ??= {};
  const annotations = (d.metadata.annotations ??= {});
  if (annotations[REVISION_ANNOTATION] === rev) return false;
  annotations[REVISION_ANNOTATION] = rev;
  return true;
}

// ---- proportional scaling ----

/**
 * `IsSaturated`: the new RS is at `replicas` in spec, in its desired-replicas annotation, and in
 * available pods.
 */
export function isSaturated(d: Deployment, rs: ReplicaSet | undefined): boolean {
  if (!rs) return false;
  const desired = getDesiredReplicasAnnotation(rs);
  const replicas = specReplicas(d);
  return desired !== undefined && specReplicas(rs) === replicas && desired === replicas && (rs.status?.availableReplicas ?? 0) === replicas;
}

/**
 * `getReplicaSetFraction`: how many replicas `rs` should gain (or lose) so that its share of the new
 * maximum (`replicas + maxSurge`) equals its share of the maximum it was last scaled for (its
 * max-replicas annotation, else the Deployment's status.replicas):
 * round(rs.spec × newMax / oldMax) − rs.spec. Scaling to 0 ⇒ −rs.spec.
 * Example: RSes of 8 and 5 under max 13 (10 + surge 3), scaled to 20 + surge 5 = 25:
 * round(8·25/13) − 8 = 15 − 8 = 7 and round(5·25/13) − 5 = 10 − 5 = 5.
 */
export function getReplicaSetFraction(rs: ReplicaSet, d: Deployment): number {
  const replicas = specReplicas(d);
  if (replicas === 0) return -specReplicas(rs);
  const deploymentMaxReplicas = replicas + maxSurge(d);
  let before = getMaxReplicasAnnotation(rs);
  if (before === undefined || before === 0) {
    // Someone removed the annotation: the current size is the best estimate.
    before = d.status?.replicas ?? 0;
    if (before === 0) return 0;
  }
  return Math.round((specReplicas(rs) * deploymentMaxReplicas) / before) - specReplicas(rs);
}

/**
 * `GetReplicaSetProportion`: `rs`'s share of `toAdd` replicas (negative when scaling down), given
 * that `added` were already handed out; never overshoots the remainder `toAdd − added`.
 */
export function getReplicaSetProportion(rs: ReplicaSet | undefined, d: Deployment, toAdd: number, added: number): number {
  if (!rs || specReplicas(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = getReplicaSetFraction(rs, d);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

// ---- rollout state ----

/** `HasProgressDeadline`: progressDeadlineSeconds set and not MaxInt32. */
export function hasProgressDeadline(d: Deployment): boolean {
  const p = d.spec?.progressDeadlineSeconds;
  return p !== undefined && p !== MAX_INT32;
}

/** `HasRevisionHistoryLimit`: revisionHistoryLimit set and not MaxInt32. */
export function hasRevisionHistoryLimit(d: Deployment): boolean {
  const l = d.spec?.revisionHistoryLimit;
  return l !== undefined && l !== MAX_INT32;
}

/**
 * `DeploymentComplete`: all replicas updated, no old ones left, all available, and the status is for
 * the current generation.
 */
export function deploymentComplete(d: Deployment, s: DeploymentStatus): boolean {
  const replicas = specReplicas(d);
  return (
    (s.updatedReplicas ?? 0) === replicas &&
    (s.replicas ?? 0) === replicas &&
    (s.availableReplicas ?? 0) === replicas &&
    (s.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0)
  );
}

/**
 * `DeploymentProgressing`: compared with the Deployment's current status, `s` has more updated,
 * fewer old, more ready or more available replicas.
 */
export function deploymentProgressing(d: Deployment, s: DeploymentStatus): boolean {
  const old = d.status ?? {};
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (s.replicas ?? 0) - (s.updatedReplicas ?? 0);
  return (
    (s.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) ||
    newOld < oldOld ||
    (s.readyReplicas ?? 0) > (old.readyReplicas ?? 0) ||
    (s.availableReplicas ?? 0) > (old.availableReplicas ?? 0)
  );
}

/**
 * `DeploymentTimedOut`: the Progressing condition of `s` was last updated more than
 * progressDeadlineSeconds before `now` (ms). Never for a completed rollout (NewReplicaSetAvailable);
 * always once ProgressDeadlineExceeded is set.
 */
export function deploymentTimedOut(d: Deployment, s: DeploymentStatus, now: number): boolean {
  if (!hasProgressDeadline(d)) return false;
  const c = getDeploymentCondition(s, 'Progressing');
  if (!c) return false;
  if (c.reason === NEW_RS_AVAILABLE_REASON) return false;
  if (c.reason === TIMED_OUT_REASON) return true;
  const from = parseTime(c.lastUpdateTime) ?? 0;
  return from + (d.spec?.progressDeadlineSeconds ?? 0) * 1000 < now;
}
