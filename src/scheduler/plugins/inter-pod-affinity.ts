/**
 * InterPodAffinity: `spec.affinity.podAffinity` / `podAntiAffinity` between the incoming pod and the
 * pods already placed (bound or assumed).
 *
 * Follows upstream pkg/scheduler/framework/plugins/interpodaffinity (v1.33):
 * - PreFilter (filtering.go `PreFilter`): Skip when the pod has no required terms and no pod in the
 *   cluster has required anti-affinity. Otherwise counts once per cycle, per topology pair
 *   (topologyKey, node label value): existing pods' required anti-affinity terms that select the
 *   incoming pod; existing pods that match all the pod's required affinity terms; existing pods that
 *   match each of its required anti-affinity terms. Filter is then O(terms) per node.
 * - Filter: in this order (the first failure is the node's reason):
 *   1. `node(s) didn't match pod affinity rules` (UnschedulableAndUnresolvable) when the node lacks a
 *      term's topology label, or some term's pair has no matching pod — unless no pod anywhere matches
 *      and the pod matches all its own affinity terms (the first pod of a group that attracts itself);
 *   2. `node(s) didn't match pod anti-affinity rules` (Unschedulable) when a pod matching one of its
 *      anti-affinity terms runs in the node's domain for that term;
 *   3. `node(s) didn't satisfy existing pods anti-affinity rules` (Unschedulable) when a pod whose
 *      required anti-affinity selects the incoming pod runs in the node's domain for that term.
 * - PreScore/Score/NormalizeScore (scoring.go): per topology pair, Σ weight of the pod's preferred
 *   affinity terms matching existing pods, minus those of its preferred anti-affinity terms; plus, for
 *   existing pods' terms selecting the incoming pod, `hardPodAffinityWeight` (1) per required affinity
 *   term and ± weight per preferred (anti-)affinity term. A node scores the sum over its labels'
 *   pairs; scores are normalised to `100 * (s - min) / (max - min)` (all 0 when equal). Only nodes
 *   hosting pods with affinity are visited unless the pod has preferred terms itself; Skip when nothing
 *   was counted.
 *
 * - AddPod/RemovePod (filtering.go `PreFilterExtensions`, `updateWithPod`): keep the three PreFilter
 *   counts right when preemption removes victims or the nominated-pods pass adds nominated pods; they
 *   change a cloned state, whose maps `clone()` copies.
 *
 * Terms name their namespaces (the pod's own when neither namespaces nor namespaceSelector is set);
 * `namespaceSelector` is matched against namespace labels from `namespaceLabels`.
 */
import type { NodeInfo, PodInfo } from '../node-info.js';
import { termMatches, type AffinityTerm, type WeightedAffinityTerm } from './affinity-term.js';
import { CycleState, type FilterPlugin, type FilterStatus, type NodeInfoLister, type PreFilterPlugin, type PreFilterResult, type ScorePlugin } from './types.js';
import { MAX_NODE_SCORE, unresolvable, unschedulable } from './types.js';

export const INTER_POD_AFFINITY = 'InterPodAffinity';
export const ERR_REASON_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod affinity rules";
export const ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't match pod anti-affinity rules";
export const ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH = "node(s) didn't satisfy existing pods anti-affinity rules";

const PRE_FILTER_KEY = 'PreFilterInterPodAffinity';
const PRE_SCORE_KEY = 'PreScoreInterPodAffinity';

/** Labels of a namespace, or undefined when unknown. */
export type NamespaceLabels = (namespace: string) => Readonly<Record<string, string>> | undefined;

export interface InterPodAffinityOptions {
  /** Namespace labels for `namespaceSelector` (default: every namespace unknown, i.e. without labels). */
  namespaceLabels?: NamespaceLabels;
  /** Score weight of an existing pod's required affinity term that selects the incoming pod (upstream default 1). */
  hardPodAffinityWeight?: number;
  /** Score weight of the plugin in the profile (upstream default profile: 2). */
  weight?: number;
}

/** Counts per topology pair, keyed `topologyKey + '\0' + value`. */
type PairCounts = Map<string, number>;

const pair = (key: string, value: string): string => `${key}\0${value}`;

function increment(counts: PairCounts, key: string, value: number): void {
  const n = (counts.get(key) ?? 0) + value;
  if (n === 0) counts.delete(key);
  else counts.set(key, n);
}

/**
 * What PreFilter counted for one pod. The PreFilter extensions change the counts of a clone (upstream
 * `preFilterState.Clone`: the three count maps are copied, the pod and its namespace labels shared).
 */
class PreFilterState {
  constructor(
    readonly pod: PodInfo,
    /** Labels of the incoming pod's namespace (for existing pods' terms with a namespaceSelector). */
    readonly podNsLabels: Readonly<Record<string, string>> | undefined,
    /** Namespace labels looked up during this cycle (for the incoming pod's terms). */
    readonly nsLabels: NamespaceLabels,
    /** Existing pods' required anti-affinity terms that select the incoming pod. */
    readonly existingAntiAffinityCounts: PairCounts = new Map(),
    /** Existing pods matching all the incoming pod's required affinity terms, once per term's pair. */
    readonly affinityCounts: PairCounts = new Map(),
    /** Existing pods matching each of the incoming pod's required anti-affinity terms. */
    readonly antiAffinityCounts: PairCounts = new Map(),
  ) {}

  clone(): PreFilterState {
    return new PreFilterState(this.pod, this.podNsLabels, this.nsLabels, new Map(this.existingAntiAffinityCounts), new Map(this.affinityCounts), new Map(this.antiAffinityCounts));
  }

  /**
   * Counts `p`, placed on `node`, in (`sign` 1) or out of (-1) the three maps, exactly as PreFilter
   * counted each existing pod (upstream `preFilterState.updateWithPod`).
   */
  updateWithPod(p: PodInfo, node: NodeInfo, sign: 1 | -1): void {
    for (const t of p.requiredAntiAffinityTerms) {
      const v = node.labels[t.topologyKey];
      if (v !== undefined && termMatches(t, this.pod.pod, this.podNsLabels)) increment(this.existingAntiAffinityCounts, pair(t.topologyKey, v), sign);
    }
    const affinityTerms = this.pod.requiredAffinityTerms;
    if (affinityTerms.length > 0 && matchesAllTerms(affinityTerms, p, this.nsLabels)) {
      for (const t of affinityTerms) {
        const v = node.labels[t.topologyKey];
        if (v !== undefined) increment(this.affinityCounts, pair(t.topologyKey, v), sign);
      }
    }
    const pNsLabels = this.nsLabels(p.pod.metadata?.namespace ?? '');
    for (const t of this.pod.requiredAntiAffinityTerms) {
      const v = node.labels[t.topologyKey];
      if (v !== undefined && termMatches(t, p.pod, pNsLabels)) increment(this.antiAffinityCounts, pair(t.topologyKey, v), sign);
    }
  }
}

/** Score totals per topology key, then per value. */
type TopologyScore = Map<string, Map<string, number>>;

/** True when `pod` matches every term (an empty list matches). */
function matchesAllTerms(terms: readonly AffinityTerm[], pod: PodInfo, nsLabels: NamespaceLabels): boolean {
  for (const t of terms) if (!termMatches(t, pod.pod, nsLabels(pod.pod.metadata?.namespace ?? ''))) return false;
  return true;
}

/** @throws Error when the cycle has no PreFilter state of this plugin. */
function readPreFilterState(state: CycleState | undefined): PreFilterState {
  return (state ?? new CycleState()).readInstance(PRE_FILTER_KEY, PreFilterState);
}

export class InterPodAffinity implements PreFilterPlugin, FilterPlugin, ScorePlugin {
  readonly name = INTER_POD_AFFINITY;
  readonly weight: number;
  private readonly namespaceLabels: NamespaceLabels;
  private readonly hardPodAffinityWeight: number;

  constructor(opts: InterPodAffinityOptions = {}) {
    this.namespaceLabels = opts.namespaceLabels ?? (() => undefined);
    this.hardPodAffinityWeight = opts.hardPodAffinityWeight ?? 1;
    this.weight = opts.weight ?? 2;
  }

  /** A per-cycle memo of namespace labels (the pod's own namespace is looked up for every existing term). */
  private memoNamespaceLabels(): NamespaceLabels {
    const memo = new Map<string, Readonly<Record<string, string>> | undefined>();
    return (ns) => {
      if (!memo.has(ns)) memo.set(ns, this.namespaceLabels(ns));
      return memo.get(ns);
    };
  }

  preFilter(pod: PodInfo, state: CycleState, nodes: NodeInfoLister): PreFilterResult {
    const withAnti = nodes.havePodsWithRequiredAntiAffinityList();
    const affinityTerms = pod.requiredAffinityTerms;
    const antiTerms = pod.requiredAntiAffinityTerms;
    if (withAnti.length === 0 && affinityTerms.length === 0 && antiTerms.length === 0) return 'Skip';
    const nsLabels = this.memoNamespaceLabels();
    const podNsLabels = nsLabels(pod.pod.metadata?.namespace ?? '');
    const s = new PreFilterState(pod, podNsLabels, nsLabels);
    for (const node of withAnti) {
      for (const existing of node.podsWithRequiredAntiAffinity) {
        for (const t of existing.requiredAntiAffinityTerms) {
          const v = node.labels[t.topologyKey];
          if (v !== undefined && termMatches(t, pod.pod, podNsLabels)) increment(s.existingAntiAffinityCounts, pair(t.topologyKey, v), 1);
        }
      }
    }
    if (affinityTerms.length > 0 || antiTerms.length > 0) {
      for (const node of nodes.list()) {
        for (const existing of node.pods.values()) {
          const existingNsLabels = nsLabels(existing.pod.metadata?.namespace ?? '');
          if (affinityTerms.length > 0 && matchesAllTerms(affinityTerms, existing, nsLabels)) {
            for (const t of affinityTerms) {
              const v = node.labels[t.topologyKey];
              if (v !== undefined) increment(s.affinityCounts, pair(t.topologyKey, v), 1);
            }
          }
          for (const t of antiTerms) {
            const v = node.labels[t.topologyKey];
            if (v !== undefined && termMatches(t, existing.pod, existingNsLabels)) increment(s.antiAffinityCounts, pair(t.topologyKey, v), 1);
          }
        }
      }
    }
    state.write(PRE_FILTER_KEY, s);
    return undefined;
  }

  /**
   * PreFilter extension (upstream filtering.go `AddPod`): counts `podInfoToAdd`, now on `nodeInfo`, in
   * the cycle's (cloned) state — a nominated pod for the nominated-pods filter pass, a reprieved victim
   * in preemption's dry run.
   * @throws Error when PreFilter wrote no state.
   */
  addPod(state: CycleState, _podToSchedule: PodInfo, podInfoToAdd: PodInfo, nodeInfo: NodeInfo): void {
    readPreFilterState(state).updateWithPod(podInfoToAdd, nodeInfo, 1);
  }

  /**
   * PreFilter extension (upstream filtering.go `RemovePod`): uncounts `podInfoToRemove`, taken off
   * `nodeInfo`, so preemption sees the affinity and anti-affinity its victims' eviction resolves.
   * @throws Error when PreFilter wrote no state.
   */
  removePod(state: CycleState, _podToSchedule: PodInfo, podInfoToRemove: PodInfo, nodeInfo: NodeInfo): void {
    readPreFilterState(state).updateWithPod(podInfoToRemove, nodeInfo, -1);
  }

  filter(pod: PodInfo, node: NodeInfo, state?: CycleState): FilterStatus | undefined {
    const s = readPreFilterState(state);
    if (!this.satisfiesPodAffinity(s, node, pod)) return unresolvable(this.name, ERR_REASON_AFFINITY_RULES_NOT_MATCH);
    for (const t of pod.requiredAntiAffinityTerms) {
      const v = node.labels[t.topologyKey];
      if (v !== undefined && (s.antiAffinityCounts.get(pair(t.topologyKey, v)) ?? 0) > 0) {
        return unschedulable(this.name, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH);
      }
    }
    if (s.existingAntiAffinityCounts.size > 0) {
      for (const k in node.labels) {
        if ((s.existingAntiAffinityCounts.get(pair(k, node.labels[k] as string)) ?? 0) > 0) {
          return unschedulable(this.name, ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH);
        }
      }
    }
    return undefined;
  }

  private satisfiesPodAffinity(s: PreFilterState, node: NodeInfo, pod: PodInfo): boolean {
    let podsExist = true;
    for (const t of pod.requiredAffinityTerms) {
      const v = node.labels[t.topologyKey];
      // Every term's topology label must be on the node, even for the first pod of a group.
      if (v === undefined) return false;
      if ((s.affinityCounts.get(pair(t.topologyKey, v)) ?? 0) <= 0) podsExist = false;
    }
    if (podsExist) return true;
    // The first pod of a group with affinity to itself: no pod anywhere matches, but it would.
    return s.affinityCounts.size === 0 && matchesAllTerms(pod.requiredAffinityTerms, pod, this.memoNamespaceLabels());
  }

  preScore(pod: PodInfo, state: CycleState, feasible: readonly NodeInfo[], nodes: NodeInfoLister): 'Skip' | undefined {
    if (feasible.length === 0) return 'Skip';
    const hasConstraints = pod.preferredAffinityTerms.length > 0 || pod.preferredAntiAffinityTerms.length > 0;
    // Without preferred terms of its own, only existing pods' terms can score: visit their nodes only.
    const visit = hasConstraints ? nodes.list() : nodes.havePodsWithAffinityList();
    if (visit.length === 0) return 'Skip';
    const nsLabels = this.memoNamespaceLabels();
    const podNsLabels = nsLabels(pod.pod.metadata?.namespace ?? '');
    const scores: TopologyScore = new Map();
    const add = (term: AffinityTerm, weight: number, target: PodInfo, targetNsLabels: Readonly<Record<string, string>> | undefined, node: NodeInfo): void => {
      const v = node.labels[term.topologyKey];
      if (v === undefined || !termMatches(term, target.pod, targetNsLabels)) return;
      let byValue = scores.get(term.topologyKey);
      if (!byValue) scores.set(term.topologyKey, (byValue = new Map<string, number>()));
      byValue.set(v, (byValue.get(v) ?? 0) + weight);
    };
    const addWeighted = (terms: readonly WeightedAffinityTerm[], sign: 1 | -1, target: PodInfo, targetNsLabels: Readonly<Record<string, string>> | undefined, node: NodeInfo): void => {
      for (const t of terms) add(t, sign * t.weight, target, targetNsLabels, node);
    };
    for (const node of visit) {
      const existingPods = hasConstraints ? node.pods.values() : node.podsWithAffinity.values();
      for (const existing of existingPods) {
        // The pod's own preferred terms against the existing pod.
        const existingNsLabels = nsLabels(existing.pod.metadata?.namespace ?? '');
        addWeighted(pod.preferredAffinityTerms, 1, existing, existingNsLabels, node);
        addWeighted(pod.preferredAntiAffinityTerms, -1, existing, existingNsLabels, node);
        // The existing pod's terms against the incoming pod.
        if (this.hardPodAffinityWeight > 0) for (const t of existing.requiredAffinityTerms) add(t, this.hardPodAffinityWeight, pod, podNsLabels, node);
        addWeighted(existing.preferredAffinityTerms, 1, pod, podNsLabels, node);
        addWeighted(existing.preferredAntiAffinityTerms, -1, pod, podNsLabels, node);
      }
    }
    if (scores.size === 0) return 'Skip';
    state.write(PRE_SCORE_KEY, scores);
    return undefined;
  }

  score(_pod: PodInfo, node: NodeInfo, state?: CycleState): number {
    const scores = state?.read(PRE_SCORE_KEY) as TopologyScore | undefined;
    if (!scores) return 0;
    let total = 0;
    for (const [key, byValue] of scores) {
      const v = node.labels[key];
      if (v !== undefined) total += byValue.get(v) ?? 0;
    }
    return total;
  }

  normalizeScore(scores: number[]): void {
    let min = Infinity;
    let max = -Infinity;
    for (const s of scores) {
      if (s < min) min = s;
      if (s > max) max = s;
    }
    const diff = max - min;
    for (let i = 0; i < scores.length; i++) {
      scores[i] = diff > 0 ? Math.trunc((MAX_NODE_SCORE * ((scores[i] as number) - min)) / diff) : 0;
    }
  }
}
