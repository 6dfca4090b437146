/**
 * NodeAffinity filter: the node's labels must match `spec.nodeSelector` (every pair), and, when set,
 * one of `affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`
 * (terms are ORed; inside a term every matchExpression and matchField must hold; an empty term matches
 * nothing). matchFields only knows `metadata.name` — the way DaemonSets pin their pods.
 *
 * Follows upstream pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go and
 * staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go, with the
 * operator semantics of apimachinery labels.Requirement:
 * - `In`: label present with one of the values; `NotIn`: label absent or not one of the values;
 * - `Exists` / `DoesNotExist`: key present / absent;
 * - `Gt` / `Lt`: label present, both it and the single value parse as base-10 integers, and compare.
 * A requirement that is malformed (Gt with two values, a non-integer) matches nothing.
 *
 * Score (upstream node_affinity.go `Score`): Σ weight of the `preferredDuringSchedulingIgnoredDuringExecution`
 * terms the node matches, normalised to `100 × s / max`; skipped for pods without preferred terms.
 * Weight 2, as upstream's default.
 */
import { matchNodeSelectorTerms } from '../../machinery/scheduling/index.js';
import type { PodInfo } from '../node-info.js';
import type { FilterPlugin, ScorePlugin } from './types.js';
import { defaultNormalizeScore, unresolvable } from './types.js';

export const nodeAffinity: FilterPlugin = {
  name: 'NodeAffinity',
  filter(pod, node) {
    // for…in: no per-node allocation on this hot path.
    for (const k in pod.nodeSelector) {
      if (node.labels[k] !== pod.nodeSelector[k]) return unresolvable(this.name, "node(s) didn't match Pod's node affinity/selector");
    }
    const terms = pod.requiredNodeAffinityTerms;
    if (terms !== undefined && !matchNodeSelectorTerms(terms, node.labels, node.name)) {
      return unresolvable(this.name, "node(s) didn't match Pod's node affinity/selector");
    }
    return undefined;
  },
};

/**
 * The node-name part of upstream NodeAffinity's PreFilter: when every required term pins the pod with
 * `matchFields: metadata.name In [...]` (as DaemonSet pods are), the union over terms of the names each
 * term allows (the intersection of its In requirements); only those nodes need filtering, instead of
 * every node. Undefined when any term leaves all nodes possible (or there are no required terms).
 */
export function preFilterNodeNames(pod: PodInfo): Set<string> | undefined {
  const terms = pod.requiredNodeAffinityTerms;
  if (!terms || terms.length === 0) return undefined;
  const names = new Set<string>();
  for (const t of terms) {
    let termNames: Set<string> | undefined;
    for (const r of t.matchFields ?? []) {
      if (r.key !== 'metadata.name' || r.operator !== 'In') continue;
      const values = new Set(r.values ?? []);
      termNames = termNames ? new Set([...termNames].filter((n) => values.has(n))) : values;
    }
    if (!termNames) return undefined;
    for (const n of termNames) names.add(n);
  }
  return names;
}

export const nodeAffinityScore: ScorePlugin = {
  name: 'NodeAffinity',
  weight: 2,
  preScore(pod) {
    return (pod.pod.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution?.length ?? 0) > 0 ? undefined : 'Skip';
  },
  score(pod, node) {
    let total = 0;
    for (const t of pod.pod.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []) {
      // A zero weight adds nothing; an empty preference term matches nothing (as upstream's PreferredSchedulingTerms).
      if (t.weight !== 0 && matchNodeSelectorTerms([t.preference], node.labels, node.name)) total += t.weight;
    }
    return total;
  },
  normalizeScore(scores) {
    defaultNormalizeScore(scores, false);
  },
};
