/**
 * The default plugin set, in upstream's default profile order and with its score weights
 * (pkg/scheduler/apis/config/v1/default_plugins.go, v1.33): cheap, unresolvable filters first,
 * resources, then the cluster-wide PodTopologySpread and InterPodAffinity; scores TaintToleration 3,
 * NodeAffinity 2, NodeResourcesFit 1, PodTopologySpread 2, InterPodAffinity 2,
 * NodeResourcesBalancedAllocation 1, ImageLocality 1. (SelectorSpread is not in upstream's default
 * profile since v1.23 — PodTopologySpread's system default constraints spread replicas instead.)
 */
import type { Namespace } from '../../api/index.js';
import type { Lister, SharedInformerFactory } from '../../informers/index.js';
import { ImageLocality } from './image-locality.js';
import { InterPodAffinity } from './inter-pod-affinity.js';
import { nodeAffinity, nodeAffinityScore } from './node-affinity.js';
import { nodeName } from './node-name.js';
import { nodeResourcesBalancedAllocation, nodeResourcesFit, nodeResourcesLeastAllocated } from './node-resources-fit.js';
import { nodeUnschedulable } from './node-unschedulable.js';
import { PodTopologySpread } from './pod-topology-spread.js';
import { taintToleration, taintTolerationScore } from './taint-toleration.js';
import type { FilterPlugin, Plugin, ScorePlugin } from './types.js';

export * from './types.js';
export { ImageLocality, calculatePriority, normalizedImageName } from './image-locality.js';
export {
  ERR_REASON_AFFINITY_RULES_NOT_MATCH,
  ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH,
  ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH,
  INTER_POD_AFFINITY,
  InterPodAffinity,
} from './inter-pod-affinity.js';
export { nodeAffinity, nodeAffinityScore } from './node-affinity.js';
export { nodeName } from './node-name.js';
export {
  insufficientResources,
  nodeResourcesBalancedAllocation,
  nodeResourcesFit,
  nodeResourcesLeastAllocated,
} from './node-resources-fit.js';
export { nodeUnschedulable } from './node-unschedulable.js';
export { ERR_REASON_CONSTRAINTS_NOT_MATCH, ERR_REASON_NODE_LABEL_NOT_MATCH, POD_TOPOLOGY_SPREAD, PodTopologySpread } from './pod-topology-spread.js';
export { taintToleration, taintTolerationScore } from './taint-toleration.js';

/** The default profile's plugins: `filter` (with PreFilter where they have one) and `score`, in order. */
export interface DefaultPlugins {
  filter: Array<FilterPlugin & Plugin>;
  score: ScorePlugin[];
}

/**
 * Builds the default plugins. With `informers`, InterPodAffinity reads namespace labels (for
 * namespaceSelector) and PodTopologySpread the Services, ReplicationControllers, ReplicaSets and
 * StatefulSets its system default constraints need; the informers are requested here, so call this
 * before the factory starts. Without, namespaces have no labels and pods get no default spreading.
 */
export function newDefaultPlugins(informers?: SharedInformerFactory): DefaultPlugins {
  let namespaces: Lister<Namespace> | undefined;
  let podTopologySpread: PodTopologySpread;
  if (informers) {
    namespaces = informers.core.namespaces().lister();
    const services = informers.core.services().lister();
    const rcs = informers.core.replicationControllers().lister();
    const rss = informers.apps.replicaSets().lister();
    const sss = informers.apps.statefulSets().lister();
    podTopologySpread = new PodTopologySpread({
      listers: {
        services: (ns) => services.namespace(ns),
        replicationControllers: (ns) => rcs.namespace(ns),
        replicaSets: (ns) => rss.namespace(ns),
        statefulSets: (ns) => sss.namespace(ns),
      },
    });
  } else {
    podTopologySpread = new PodTopologySpread();
  }
  const interPodAffinity = new InterPodAffinity({ namespaceLabels: namespaces && ((ns) => namespaces.get(ns)?.metadata?.labels) });
  return {
    filter: [nodeUnschedulable, nodeName, taintToleration, nodeAffinity, nodeResourcesFit, podTopologySpread, interPodAffinity],
    score: [
      taintTolerationScore,
      nodeAffinityScore,
      nodeResourcesLeastAllocated,
      podTopologySpread,
      interPodAffinity,
      nodeResourcesBalancedAllocation,
      new ImageLocality(),
    ],
  };
}

const defaults = newDefaultPlugins();

/** The default filters without informers (see {@link newDefaultPlugins}). */
export const defaultFilterPlugins: ReadonlyArray<FilterPlugin & Plugin> = defaults.filter;
/** The default scores without informers (see {@link newDefaultPlugins}). */
export const defaultScorePlugins: readonly ScorePlugin[] = defaults.score;
