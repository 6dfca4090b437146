/**
 * `spec.successPolicy` of Indexed Jobs: whether the succeeded indexes satisfy a rule.
 *
 * Follows kubernetes/kubernetes v1.33 pkg/controller/job/success_policy.go (`matchSuccessPolicy`).
 */
import type { SuccessPolicy } from 'kubernetes-types/batch/v1.js';
import { hasIndex, parseIndexes, totalIndexes, type Interval } from './indexed.js';

/**
 * `matchSuccessPolicy`: the message `Matched rules at index <i>` of the first rule that the succeeded
 * indexes satisfy, undefined when none does. A rule with `succeededIndexes` only needs them all; with
 * `succeededCount` only, that many succeeded indexes; with both, that many among `succeededIndexes`.
 */
export function matchSuccessPolicy(policy: SuccessPolicy | undefined, completions: number, succeeded: readonly Interval[]): string | undefined {
  for (const [index, rule] of (policy?.rules ?? []).entries()) {
    let matched: boolean;
    if (rule.succeededIndexes !== undefined) {
      const wanted = parseIndexes(rule.succeededIndexes, completions);
      let n = 0;
      let all = true;
      for (const v of wanted) {
        for (let ix = v.first; ix <= v.last; ix++) {
          if (hasIndex(succeeded, ix)) n++;
          else all = false;
        }
      }
      matched = rule.succeededCount === undefined ? all && wanted.length > 0 : n >= rule.succeededCount;
    } else if (rule.succeededCount !== undefined) {
      matched = totalIndexes(succeeded) >= rule.succeededCount;
    } else {
      matched = false;
    }
    if (matched) return `Matched rules at index ${index}`;
  }
  return undefined;
}
