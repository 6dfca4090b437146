/**
 * `spec.podFailurePolicy`: which rule a failed pod matches and what that means for the Job.
 *
 * Follows kubernetes/kubernetes v1.33 pkg/controller/job/pod_failure_policy.go
 * (`matchPodFailurePolicy`, `matchOnExitCodes`, `matchOnPodConditions`).
 */
import type { Pod } from '../../api/index.js';
import type { PodFailurePolicy, PodFailurePolicyOnExitCodesRequirement, PodFailurePolicyOnPodConditionsPattern } from 'kubernetes-types/batch/v1.js';
import type { ContainerStatus, PodCondition } from 'kubernetes-types/core/v1.js';

/** The action of the first matching rule. */
export type PodFailurePolicyAction = 'FailJob' | 'FailIndex' | 'Ignore' | 'Count';

/** What {@link matchPodFailurePolicy} decided for a failed pod. */
export interface PodFailurePolicyMatch {
  /** The Job failure message when the action is FailJob. */
  failJobMessage?: string;
  /** Whether the failure counts towards backoffLimit (false only for Ignore). */
  countFailed: boolean;
  /** The matched rule's action; undefined when no rule matched (counted as usual). */
  action?: PodFailurePolicyAction;
}

function matchOnExitCodes(pod: Pod, req: PodFailurePolicyOnExitCodesRequirement): ContainerStatus | undefined {
  for (const cs of [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])]) {
    if (req.containerName && req.containerName !== cs.name) continue;
    const exitCode = cs.state?.terminated?.exitCode;
    // Exit code 0 is success, never a match (validation rejects `In` with 0).
    if (exitCode === undefined || exitCode === 0) continue;
    const listed = req.values.includes(exitCode);
    if ((req.operator === 'In' && listed) || (req.operator === 'NotIn' && !listed)) return cs;
  }
  return undefined;
}

function matchOnPodConditions(pod: Pod, patterns: readonly PodFailurePolicyOnPodConditionsPattern[]): PodCondition | undefined {
  for (const pattern of patterns) {
    const status = pattern.status || 'True';
    const c = pod.status?.conditions?.find((cond) => cond.type === pattern.type && cond.status === status);
    if (c) return c;
  }
  return undefined;
}

/**
 * `matchPodFailurePolicy`: the first rule of `policy` matching the failed `pod` (rules in order; a rule
 * matches by `onExitCodes` on any terminated container, or by `onPodConditions`). No policy or no
 * match: counted. Messages are upstream's, e.g. `Container main for pod ns/p failed with exit code 42
 * matching FailJob rule at index 0`.
 */
export function matchPodFailurePolicy(policy: PodFailurePolicy | undefined, pod: Pod): PodFailurePolicyMatch {
  if (!policy) return { countFailed: true };
  const podRef = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
  for (const [index, rule] of (policy.rules ?? []).entries()) {
    const action = rule.action as PodFailurePolicyAction;
    let what: string | undefined;
    if (rule.onExitCodes) {
      const cs = matchOnExitCodes(pod, rule.onExitCodes);
      if (cs) what = `Container ${cs.name} for pod ${podRef} failed with exit code ${cs.state?.terminated?.exitCode ?? ''}`;
    } else if (rule.onPodConditions) {
      const c = matchOnPodConditions(pod, rule.onPodConditions);
      if (c) what = `Pod ${podRef} has condition ${c.type}`;
    }
    if (what === undefined) continue;
    switch (action) {
      case 'Ignore':
        return { countFailed: false, action };
      case 'FailIndex':
      case 'Count':
        return { countFailed: true, action };
      case 'FailJob':
        return { countFailed: true, action, failJobMessage: `${what} matching ${action} rule at index ${index}` };
      default:
        // An unknown action (newer API): the rule does not apply.
        continue;
    }
  }
  return { countFailed: true };
}
