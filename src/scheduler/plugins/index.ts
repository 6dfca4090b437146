/**
 * The default plugin set, in upstream's default profile order (pkg/scheduler/apis/config/v1/default_plugins.go):
 * cheap, unresolvable filters first, resources last.
 */
import { nodeAffinity } from './node-affinity.js';
import { nodeName } from './node-name.js';
import { nodeResourcesBalancedAllocation, nodeResourcesFit, nodeResourcesLeastAllocated } from './node-resources-fit.js';
import { nodeUnschedulable } from './node-unschedulable.js';
import { selectorSpread } from './selector-spread.js';
import { taintToleration } from './taint-toleration.js';
import type { FilterPlugin, ScorePlugin } from './types.js';

export * from './types.js';
export { nodeAffinity } from './node-affinity.js';
export { nodeName } from './node-name.js';
export {
  insufficientResources,
  nodeResourcesBalancedAllocation,
  nodeResourcesFit,
  nodeResourcesLeastAllocated,
} from './node-resources-fit.js';
export { nodeUnschedulable } from './node-unschedulable.js';
export { selectorSpread } from './selector-spread.js';
export { taintToleration } from './taint-toleration.js';

export const defaultFilterPlugins: readonly FilterPlugin[] = [
  nodeUnschedulable,
  nodeName,
  taintToleration,
  nodeAffinity,
  nodeResourcesFit,
];

export const defaultScorePlugins: readonly ScorePlugin[] = [
  nodeResourcesLeastAllocated,
  nodeResourcesBalancedAllocation,
  selectorSpread,
];
