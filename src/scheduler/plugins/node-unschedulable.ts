/**
 * NodeUnschedulable filter: a cordoned node (`spec.unschedulable: true`) is rejected unless the pod
 * tolerates the taint `node.kubernetes.io/unschedulable:NoSchedule` (DaemonSet pods do).
 * Follows upstream pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go.
 */
import type { Taint } from '../../api/index.js';
import { tolerationsTolerateTaint } from '../../machinery/scheduling/index.js';
import type { FilterPlugin } from './types.js';
import { unresolvable } from './types.js';

const UNSCHEDULABLE_TAINT: Taint = { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' };

export const nodeUnschedulable: FilterPlugin = {
  name: 'NodeUnschedulable',
  filter(pod, node) {
    if (!node.unschedulable || tolerationsTolerateTaint(pod.tolerations, UNSCHEDULABLE_TAINT)) return undefined;
    return unresolvable(this.name, 'node(s) were unschedulable');
  },
};
