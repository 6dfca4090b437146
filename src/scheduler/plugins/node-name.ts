/**
 * NodeName filter: a pod that names a node (`spec.nodeName`) fits only that node.
 * Follows upstream pkg/scheduler/framework/plugins/nodename/node_name.go.
 */
import type { FilterPlugin } from './types.js';
import { unresolvable } from './types.js';

export const nodeName: FilterPlugin = {
  name: 'NodeName',
  filter(pod, node) {
    const wanted = pod.pod.spec?.nodeName;
    if (!wanted || wanted === node.name) return undefined;
    return unresolvable(this.name, "node(s) didn't match the requested node name");
  },
};
