/**
 * TaintToleration filter and score. Filter: a node with a `NoSchedule` or `NoExecute` taint that none of the pod's
 * tolerations tolerates is rejected (UnschedulableAndUnresolvable) with
 * `node(s) had untolerated taint {key: value}` (the v1.33 wording).
 *
 * Score: the number of the node's `PreferNoSchedule` taints that none of the pod's tolerations with
 * effect PreferNoSchedule (or empty) tolerates; normalised reversed, so fewer scores higher:
 * `100 - 100 × count / max` (100 everywhere when no node has one). Weight 3, as upstream's default.
 *
 * Follows upstream pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go and
 * staging/src/k8s.io/api/core/v1/toleration.go (`ToleratesTaint`).
 */
import { findUntoleratedTaint, tolerationsTolerateTaint } from '../../machinery/scheduling/index.js';
import type { FilterPlugin, ScorePlugin } from './types.js';
import { defaultNormalizeScore, unresolvable } from './types.js';

export const taintToleration: FilterPlugin = {
  name: 'TaintToleration',
  filter(pod, node) {
    if (node.taints.length === 0) return undefined;
    const taint = findUntoleratedTaint(node.taints, pod.tolerations);
    if (!taint) return undefined;
    return unresolvable(this.name, `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`);
  },
};

export const taintTolerationScore: ScorePlugin = {
  name: 'TaintToleration',
  weight: 3,
  score(pod, node) {
    let count = 0;
    for (const t of node.taints) {
      if (t.effect !== 'PreferNoSchedule') continue;
      // Only tolerations that could apply to PreferNoSchedule count (upstream getAllTolerationPreferNoSchedule).
      if (!tolerationsTolerateTaint(pod.tolerations.filter((tol) => !tol.effect || tol.effect === 'PreferNoSchedule'), t)) count++;
    }
    return count;
  },
  normalizeScore(scores) {
    defaultNormalizeScore(scores, true);
  },
};
