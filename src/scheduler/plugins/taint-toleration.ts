/**
 * TaintToleration filter: a node with a `NoSchedule` or `NoExecute` taint that none of the pod's
 * tolerations tolerates is rejected (UnschedulableAndUnresolvable) with
 * `node(s) had untolerated taint {key: value}` (the v1.33 wording).
 *
 * Follows upstream pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go and
 * staging/src/k8s.io/api/core/v1/toleration.go (`ToleratesTaint`).
 */
import type { Taint, Toleration } from '../../api/index.js';
import type { FilterPlugin } from './types.js';
import { unresolvable } from './types.js';

/**
 * Upstream `Toleration.ToleratesTaint`, rule for rule:
 * - a non-empty effect must equal the taint's effect (empty matches every effect);
 * - a non-empty key must equal the taint's key (empty key, with operator Exists, matches every key);
 * - operator `Exists` matches any value; `Equal` or empty compares values; any other operator matches nothing.
 */
export function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect && t.effect !== taint.effect) return false;
  if (t.key && t.key !== taint.key) return false;
  switch (t.operator ?? '') {
    case '':
    case 'Equal':
      return (t.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/** True when any toleration tolerates the taint (upstream `TolerationsTolerateTaint`). */
export function tolerationsTolerateTaint(tolerations: readonly Toleration[], taint: Taint): boolean {
  return tolerations.some((t) => toleratesTaint(t, taint));
}

/** The first taint with effect NoSchedule/NoExecute that is not tolerated, or undefined. */
export function findUntoleratedTaint(taints: readonly Taint[], tolerations: readonly Toleration[]): Taint | undefined {
  return taints.find(
    (taint) =>
      (taint.effect === 'NoSchedule' || taint.effect === 'NoExecute') &&
      !tolerationsTolerateTaint(tolerations, taint),
  );
}

export const taintToleration: FilterPlugin = {
  name: 'TaintToleration',
  filter(pod, node) {
    if (node.taints.length === 0) return undefined;
    const taint = findUntoleratedTaint(node.taints, pod.tolerations);
    if (!taint) return undefined;
    return unresolvable(this.name, `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`);
  },
};
