/**
 * Helpers shared by the disruption controller and the eviction subresource: the DisruptionAllowed
 * condition of a PodDisruptionBudget and which budgets select a pod.
 *
 * Follows k8s.io/component-helpers apps/poddisruptionbudget/helpers.go (`UpdateDisruptionAllowedCondition`,
 * `ConditionsAreUpToDate`), apimachinery pkg/api/meta/conditions.go (`SetStatusCondition`) and the
 * selector rule of pkg/registry/core/pod/storage/eviction.go `getPodDisruptionBudgets` (an empty
 * selector matches nothing).
 */
import type { Condition, Pod, PodDisruptionBudget } from '../../api/index.js';
import { selectorFromLabelSelector } from '../labels/index.js';

/** policy/v1 `DisruptionAllowedCondition`. */
export const DISRUPTION_ALLOWED_CONDITION = 'DisruptionAllowed';
/** policy/v1 `SyncFailedReason`: the controller could not compute the status. */
export const SYNC_FAILED_REASON = 'SyncFailed';
/** policy/v1 `SufficientPodsReason`: at least one disruption is allowed. */
export const SUFFICIENT_PODS_REASON = 'SufficientPods';
/** policy/v1 `InsufficientPodsReason`: no disruption is allowed. */
export const INSUFFICIENT_PODS_REASON = 'InsufficientPods';
/** policy/v1 `DisruptionBudgetCause`: the cause type of an eviction refused by a budget. */
export const DISRUPTION_BUDGET_CAUSE = 'DisruptionBudget';

/** A condition to set: `lastTransitionTime` is filled in by {@link setStatusCondition}. */
export type NewCondition = Omit<Condition, 'lastTransitionTime'> & { lastTransitionTime?: string };

/**
 * `meta.SetStatusCondition`: replaces the condition of the same type in place (adding it when
 * missing). The transition time changes only when the status does (`now`, RFC 3339, when the new
 * condition carries none); reason, message and observedGeneration always follow `cond`.
 * Returns whether anything changed.
 */
export function setStatusCondition(conditions: Condition[], cond: NewCondition, now: string): boolean {
  const existing = conditions.find((c) => c.type === cond.type);
  if (!existing) {
    conditions.push({ ...cond, lastTransitionTime: cond.lastTransitionTime ?? now });
    return true;
  }
  let changed = false;
  if (existing.status !== cond.status) {
    existing.status = cond.status;
    existing.lastTransitionTime = cond.lastTransitionTime ?? now;
    changed = true;
  }
  if (existing.reason !== cond.reason) {
    existing.reason = cond.reason;
    changed = true;
  }
  if (existing.message !== cond.message) {
    existing.message = cond.message;
    changed = true;
  }
  if (existing.observedGeneration !== cond.observedGeneration) {
    if (cond.observedGeneration === undefined) delete existing.observedGeneration;
    else existing.observedGeneration = cond.observedGeneration;
    changed = true;
  }
  return changed;
}

/**
 * `UpdateDisruptionAllowedCondition`: sets DisruptionAllowed from `status.disruptionsAllowed` on `pdb`
 * (changed in place): True/SufficientPods when above 0, else False/InsufficientPods, with an empty
 * message and the status's observedGeneration.
 */
export function updateDisruptionAllowedCondition(pdb: PodDisruptionBudget, now: string): void {
  const status = (pdb.status ??= { currentHealthy: 0, desiredHealthy: 0, disruptionsAllowed: 0, expectedPods: 0 });
  const conditions = (status.conditions ??= []);
  const allowed = status.disruptionsAllowed > 0;
  setStatusCondition(
    conditions,
    {
      type: DISRUPTION_ALLOWED_CONDITION,
      status: allowed ? 'True' : 'False',
      reason: allowed ? SUFFICIENT_PODS_REASON : INSUFFICIENT_PODS_REASON,
      message: '',
      ...(status.observedGeneration !== undefined ? { observedGeneration: status.observedGeneration } : {}),
    },
    now,
  );
}

/**
 * `ConditionsAreUpToDate`: the DisruptionAllowed condition exists, the status observed the current
 * generation, and the condition's status and reason agree with `disruptionsAllowed`.
 */
export function conditionsAreUpToDate(pdb: PodDisruptionBudget): boolean {
  const cond = pdb.status?.conditions?.find((c) => c.type === DISRUPTION_ALLOWED_CONDITION);
  if (!cond) return false;
  if ((pdb.status?.observedGeneration ?? 0) !== (pdb.metadata?.generation ?? 0)) return false;
  if ((pdb.status?.disruptionsAllowed ?? 0) > 0) return cond.status === 'True' && cond.reason === SUFFICIENT_PODS_REASON;
  return cond.status === 'False' && cond.reason === INSUFFICIENT_PODS_REASON;
}

/**
 * Whether `pdb` selects `pod`: same namespace, and a valid, non-empty selector matching the pod's
 * labels (a nil or empty selector matches nothing; an invalid one matches nothing either).
 */
export function pdbSelectsPod(pdb: PodDisruptionBudget, pod: Pod): boolean {
  if ((pdb.metadata?.namespace ?? '') !== (pod.metadata?.namespace ?? '')) return false;
  try {
    const selector = selectorFromLabelSelector(pdb.spec?.selector);
    return !selector.empty() && selector.matches(pod.metadata?.labels);
  } catch {
    return false;
  }
}
