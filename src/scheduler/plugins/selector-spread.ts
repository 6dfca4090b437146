/**
 * SelectorSpread score: fewer pods of the same controller (controllerRef uid) on a node scores higher,
 * so the replicas of a ReplicaSet, StatefulSet or Job spread across nodes.
 *
 * A simplification of upstream's default spreading (pkg/scheduler/framework/plugins/podtopologyspread
 * with the system default constraint `maxSkew: 3, topologyKey: kubernetes.io/hostname, ScheduleAnyway`,
 * and the older selectorspread/selector_spread.go, whose normalization this follows):
 * `score = 100 * (maxCount - count) / maxCount` over the feasible nodes, 100 for all when no node has a
 * sibling. E.g. counts [2, 1, 1] ⇒ scores [0, 50, 50]. Weight 2, as PodTopologySpread's default.
 */
import type { ScorePlugin } from './types.js';
import { MAX_NODE_SCORE } from './types.js';

export const selectorSpread: ScorePlugin = {
  name: 'SelectorSpread',
  weight: 2,
  score(pod, node) {
    return pod.controllerUID === undefined ? 0 : (node.controllerCounts.get(pod.controllerUID) ?? 0);
  },
  normalizeScore(scores) {
    const max = scores.reduce((m, s) => Math.max(m, s), 0);
    for (let i = 0; i < scores.length; i++) {
      scores[i] = max === 0 ? MAX_NODE_SCORE : Math.floor((MAX_NODE_SCORE * (max - (scores[i] ?? 0))) / max);
    }
  },
};
