/**
 * TaintToleration filter: a node with a `NoSchedule` or `NoExecute` taint that none of the pod's
 * tolerations tolerates is rejected (UnschedulableAndUnresolvable) with
 * `node(s) had untolerated taint {key: value}` (the v1.33 wording).
 *
 * Follows upstream pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go and
 * staging/src/k8s.io/api/core/v1/toleration.go (`ToleratesTaint`).
 */
import { findUntoleratedTaint } from '../../machinery/scheduling/index.js';
import type { FilterPlugin } from './types.js';
import { unresolvable } from './types.js';

export const taintToleration: FilterPlugin = {
  name: 'TaintToleration',
  filter(pod, node) {
    if (node.taints.length === 0) return undefined;
    const taint = findUntoleratedTaint(node.taints, pod.tolerations);
    if (!taint) return undefined;
    return unresolvable(this.name, `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`);
  },
};
