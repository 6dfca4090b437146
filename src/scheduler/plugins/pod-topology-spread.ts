/**
 * PodTopologySpread: `spec.topologySpreadConstraints` — pods matching a constraint's selector should be
 * spread over the domains of its `topologyKey` (the values of that node label) with at most `maxSkew`
 * between the fullest and the emptiest domain.
 *
 * Follows upstream pkg/scheduler/framework/plugins/podtopologyspread (v1.33: common.go, filtering.go,
 * scoring.go, plugin.go) and pkg/scheduler/util `DefaultSelector`:
 * - Constraints: the selector is `labelSelector` (nil selects nothing) plus `key In (value)` for each
 *   `matchLabelKeys` key the pod has. A node takes part in a constraint's counts when it has every
 *   constraint's topology label and passes the inclusion policies: `nodeAffinityPolicy` Honor (default)
 *   = the pod's nodeSelector and required node affinity hold; `nodeTaintsPolicy` Honor (default
 *   Ignore) = its NoSchedule/NoExecute taints are tolerated. A node counts the pods on it in the
 *   pod's namespace, not being deleted, that the selector matches.
 * - Filter (DoNotSchedule constraints; PreFilter Skips when there are none): precomputed per cycle,
 *   per constraint, the count per domain and its minimum. A node without a constraint's topology label
 *   is `node(s) didn't match pod topology spread constraints (missing required label)`
 *   (UnschedulableAndUnresolvable); one where `count(domain) + (1 if the pod matches its own selector)
 *   - min` exceeds maxSkew is `node(s) didn't match pod topology spread constraints` (Unschedulable).
 *   With fewer domains than `minDomains`, the minimum is taken as 0.
 * - AddPod/RemovePod (filtering.go `AddPod`, `RemovePod`, `updateWithPod`): a pod added to or removed
 *   from a node moves the Filter counts of its domain (and their minimum) in a cloned state, so
 *   preemption sees the skew its victims' eviction resolves and the nominated-pods pass counts
 *   nominated pods.
 * - Score (ScheduleAnyway constraints): a node scores Σ over constraints of
 *   `count(its domain) × log(domains + 2) + (maxSkew - 1)` (domains of the feasible nodes; for
 *   `kubernetes.io/hostname` the node's own count and the number of feasible nodes), rounded; then
 *   normalised so fewer matching pods score higher: `100 × (max + min - s) / max` (100 for all when
 *   max is 0); nodes lacking a topology label score 0.
 * - System defaults: a pod without constraints gets `kubernetes.io/hostname` maxSkew 3 and
 *   `topology.kubernetes.io/zone` maxSkew 5, both ScheduleAnyway, with the selector of the Services
 *   selecting it and of its controlling ReplicationController, ReplicaSet or StatefulSet; none when that
 *   selector is empty. For these, nodes missing a topology label are not excluded from scoring.
 */
import type { LabelSelector, Pod, Service, StatefulSet, ReplicaSet, ReplicationController } from '../../api/index.js';
import type { NamespaceLister } from '../../informers/index.js';
import { matchNodeSelectorTerms, tolerationsTolerateTaint } from '../../machinery/scheduling/index.js';
import { nothing, selectorFromLabelSelector, selectorFromSet, type Selector } from '../../machinery/labels/index.js';
import type { NodeInfo, PodInfo } from '../node-info.js';
import { CycleState, type FilterPlugin, type FilterStatus, type NodeInfoLister, type PreFilterPlugin, type PreFilterResult, type ScorePlugin } from './types.js';
import { MAX_NODE_SCORE, unresolvable, unschedulable } from './types.js';

export const POD_TOPOLOGY_SPREAD = 'PodTopologySpread';
export const ERR_REASON_CONSTRAINTS_NOT_MATCH = "node(s) didn't match pod topology spread constraints";
export const ERR_REASON_NODE_LABEL_NOT_MATCH = `${ERR_REASON_CONSTRAINTS_NOT_MATCH} (missing required label)`;

const LABEL_HOSTNAME = 'kubernetes.io/hostname';
const LABEL_ZONE = 'topology.kubernetes.io/zone';
const PRE_FILTER_KEY = 'PreFilterPodTopologySpread';
const PRE_SCORE_KEY = 'PreScorePodTopologySpread';

type TopologySpreadConstraintSpec = NonNullable<NonNullable<Pod['spec']>['topologySpreadConstraints']>[number];

/** One compiled constraint. */
export interface SpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  selector: Selector;
  /** Id of (namespace, selector), the index into {@link NodeInfo.matchingPodCounts}. */
  countKey: number;
  minDomains: number;
  honorNodeAffinity: boolean;
  honorNodeTaints: boolean;
}

/** The system default constraints (upstream `systemDefaultConstraints`). */
const SYSTEM_DEFAULT_CONSTRAINTS: readonly TopologySpreadConstraintSpec[] = [
  { topologyKey: LABEL_HOSTNAME, whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 3 },
  { topologyKey: LABEL_ZONE, whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 5 },
];

/** The lookups the system default constraints need (all optional: without them, no defaults). */
export interface PodTopologySpreadListers {
  services?: (namespace: string) => NamespaceLister<Service>;
  replicationControllers?: (namespace: string) => NamespaceLister<ReplicationController>;
  replicaSets?: (namespace: string) => NamespaceLister<ReplicaSet>;
  statefulSets?: (namespace: string) => NamespaceLister<StatefulSet>;
}

export interface PodTopologySpreadOptions {
  /** Apply the system default constraints to pods without any (upstream `defaultingType: System`, the default). */
  systemDefaulted?: boolean;
  listers?: PodTopologySpreadListers;
  /** Score weight in the profile (upstream default profile: 2). */
  weight?: number;
}

function safeSelector(ls: LabelSelector | null | undefined): Selector {
  try {
    return selectorFromLabelSelector(ls);
  } catch {
    // API validation rejects these; a selector that cannot match is the safe reading.
    return nothing;
  }
}

/** Compiles constraints of `action`; `defaultSelector` replaces each one's labelSelector (system defaults). */
function compile(pod: Pod, specs: readonly TopologySpreadConstraintSpec[], action: 'DoNotSchedule' | 'ScheduleAnyway', defaultSelector?: Selector): SpreadConstraint[] {
  const labels = pod.metadata?.labels ?? {};
  const ns = pod.metadata?.namespace ?? '';
  const out: SpreadConstraint[] = [];
  for (const c of specs) {
    if (c.whenUnsatisfiable !== action) continue;
    let selector = defaultSelector;
    if (!selector) {
      let ls = c.labelSelector ?? undefined;
      const extra = (c.matchLabelKeys ?? []).filter((k) => labels[k] !== undefined).map((key) => ({ key, operator: 'In', values: [labels[key] as string] }));
      if (extra.length > 0) ls = { ...ls, matchExpressions: [...(ls?.matchExpressions ?? []), ...extra] };
      selector = safeSelector(ls);
    }
    out.push({
      maxSkew: c.maxSkew,
      topologyKey: c.topologyKey,
      selector,
      countKey: countKeyId(`${ns}\0${selector.toString()}${selector === nothing ? '\0nothing' : ''}`),
      minDomains: c.minDomains ?? 1,
      honorNodeAffinity: (c.nodeAffinityPolicy ?? 'Honor') === 'Honor',
      honorNodeTaints: c.nodeTaintsPolicy === 'Honor',
    });
  }
  return out;
}

/**
 * Small integer ids for (namespace, selector) strings: NodeInfo memos keyed by them are looked up on
 * every node in every cycle, and integer keys hash far cheaper than ~50-character strings. Grows by
 * one entry per distinct selector ever seen (one per workload).
 */
const countKeyIds = new Map<string, number>();
function countKeyId(key: string): number {
  let id = countKeyIds.get(key);
  if (id === undefined) countKeyIds.set(key, (id = countKeyIds.size));
  return id;
}

/** Pods on `node` in `pod`'s namespace, not being deleted, matching `c.selector` (memoised on the NodeInfo). */
function countMatching(node: NodeInfo, c: SpreadConstraint, namespace: string): number {
  const memo = node.matchingPodCounts[c.countKey];
  if (memo !== undefined) return memo;
  let n = 0;
  for (const p of node.pods.values()) {
    const meta = p.pod.metadata;
    if (meta?.deletionTimestamp || (meta?.namespace ?? '') !== namespace) continue;
    if (c.selector.matches(meta?.labels)) n++;
  }
  node.matchingPodCounts[c.countKey] = n;
  return n;
}

/** True when the node has every constraint's topology label. */
function hasAllTopologyLabels(node: NodeInfo, constraints: readonly SpreadConstraint[]): boolean {
  for (const c of constraints) if (node.labels[c.topologyKey] === undefined) return false;
  return true;
}

/** The constraint's nodeAffinityPolicy / nodeTaintsPolicy admit the node (upstream `matchNodeInclusionPolicies`). */
function matchNodeInclusionPolicies(c: SpreadConstraint, pod: PodInfo, node: NodeInfo): boolean {
  if (c.honorNodeAffinity) {
    for (const k in pod.nodeSelector) if (node.labels[k] !== pod.nodeSelector[k]) return false;
    const terms = pod.requiredNodeAffinityTerms;
    if (terms !== undefined && !matchNodeSelectorTerms(terms, node.labels, node.name)) return false;
  }
  if (c.honorNodeTaints) {
    for (const t of node.taints) {
      if ((t.effect === 'NoSchedule' || t.effect === 'NoExecute') && !tolerationsTolerateTaint(pod.tolerations, t)) return false;
    }
  }
  return true;
}

/** Matching pods and eligible nodes per domain (topology value); a domain is listed while it has a node. */
type DomainCounts = Map<string, { pods: number; nodes: number }>;

/** What one node adds to a {@link DomainCounts}: undefined when it is not eligible. */
type NodeContribution = (node: NodeInfo) => { value: string; pods: number } | undefined;

interface TotalsEntry {
  gen: number;
  totals: DomainCounts;
  contrib: Map<NodeInfo, { value: string; pods: number }>;
}

function addTo(totals: DomainCounts, value: string, pods: number, sign: 1 | -1): void {
  const t = totals.get(value);
  if (!t) {
    if (sign === 1) totals.set(value, { pods, nodes: 1 });
    return;
  }
  t.pods += sign * pods;
  t.nodes += sign;
  if (t.nodes <= 0) totals.delete(value);
}

/** How many per-selector totals are kept across cycles (least recently used dropped first). */
const MAX_TOTALS_ENTRIES = 64;

/**
 * Per-domain totals kept across scheduling cycles and brought up to date from the nodes changed since
 * (the cache's journal) — one changed node per cycle in the common case — instead of visiting every
 * node for every pod, which upstream does in parallel but would dominate a cycle here (a zone
 * constraint, the system default one included, reads every node). Only used when the node
 * eligibility does not depend on the pod (no inclusion policy to check).
 */
class DomainTotalsCache {
  private readonly byLister = new WeakMap<NodeInfoLister, Map<string, TotalsEntry>>();

  get(nodes: NodeInfoLister, key: string, contribution: NodeContribution): DomainCounts {
    let entries = this.byLister.get(nodes);
    if (!entries) this.byLister.set(nodes, (entries = new Map<string, TotalsEntry>()));
    let entry = entries.get(key);
    const changed = entry ? nodes.changedSince(entry.gen) : undefined;
    if (!entry || !changed) {
      entry = { gen: nodes.generation(), totals: new Map(), contrib: new Map() };
      for (const node of nodes.list()) {
        const c = contribution(node);
        if (!c) continue;
        entry.contrib.set(node, c);
        addTo(entry.totals, c.value, c.pods, 1);
      }
    } else {
      for (const node of changed) {
        const old = entry.contrib.get(node);
        if (old) {
          addTo(entry.totals, old.value, old.pods, -1);
          entry.contrib.delete(node);
        }
        const c = node.node === undefined ? undefined : contribution(node);
        if (!c) continue;
        entry.contrib.set(node, c);
        addTo(entry.totals, c.value, c.pods, 1);
      }
      entry.gen = nodes.generation();
    }
    // Most recently used last.
    entries.delete(key);
    entries.set(key, entry);
    if (entries.size > MAX_TOTALS_ENTRIES) entries.delete(entries.keys().next().value as string);
    return entry.totals;
  }
}

/** False when the inclusion policies admit every node for this pod (nothing to check per node). */
function needsInclusionCheck(c: SpreadConstraint, pod: PodInfo): boolean {
  if (c.honorNodeTaints) return true;
  if (!c.honorNodeAffinity) return false;
  if (pod.requiredNodeAffinityTerms !== undefined) return true;
  for (const _ in pod.nodeSelector) return true;
  return false;
}

/** The minimum matching pods over the domains (Infinity when there are none). */
function minPods(counts: DomainCounts): number {
  let min = Infinity;
  for (const d of counts.values()) if (d.pods < min) min = d.pods;
  return min;
}

/**
 * What PreFilter computed for one pod. The per-domain counts may be the {@link DomainTotalsCache}'s
 * own maps, shared across cycles: they are only ever changed in a clone, which copies a constraint's
 * map on its first change (upstream `preFilterState.Clone` copies them all; copying on write keeps
 * preemption's one clone per node from costing O(domains) when nothing changes on it).
 */
class PreFilterState {
  constructor(
    readonly constraints: readonly SpreadConstraint[],
    /** Per constraint: matching pods per domain (every eligible domain present, possibly with 0 pods). */
    readonly counts: DomainCounts[],
    /** Per constraint: the minimum over its domains (Infinity when there are none). */
    readonly minCounts: number[],
    /** Per constraint: 1 when the pod matches its own selector. */
    readonly selfMatch: readonly number[],
    /** Per constraint: true once `counts[i]` is this state's own copy (only a clone changes counts). */
    private readonly owned: boolean[] = constraints.map(() => false),
  ) {}

  clone(): PreFilterState {
    return new PreFilterState(this.constraints, [...this.counts], [...this.minCounts], this.selfMatch);
  }

  /** Adds `delta` matching pods to `value`'s domain of constraint `i`, keeping its minimum exact. */
  update(i: number, value: string, delta: number): void {
    let counts = this.counts[i] as DomainCounts;
    if (!this.owned[i]) {
      const copy: DomainCounts = new Map();
      for (const [v, d] of counts) copy.set(v, { pods: d.pods, nodes: d.nodes });
      this.counts[i] = counts = copy;
      this.owned[i] = true;
    }
    let d = counts.get(value);
    if (!d) counts.set(value, (d = { pods: 0, nodes: 1 }));
    const old = d.pods;
    d.pods += delta;
    const min = this.minCounts[i] as number;
    if (d.pods < min) this.minCounts[i] = d.pods;
    // The domain held the minimum and grew: another domain may now hold it.
    else if (old === min && d.pods > old) this.minCounts[i] = minPods(counts);
  }
}

interface PreScoreState {
  constraints: SpreadConstraint[];
  /** Feasible nodes not scored (missing a topology label while all are required). */
  ignored: Set<string>;
  /** Per constraint: matching pods per domain of the feasible nodes (empty for hostname: counted in Score). */
  counts: Map<string, number>[];
  /** Per constraint: log(domains + 2). */
  weights: number[];
}

/** @throws Error when the cycle has no PreFilter state of this plugin. */
function readPreFilterState(state: CycleState | undefined): PreFilterState {
  return (state ?? new CycleState()).readInstance(PRE_FILTER_KEY, PreFilterState);
}

export class PodTopologySpread implements PreFilterPlugin, FilterPlugin, ScorePlugin {
  readonly name = POD_TOPOLOGY_SPREAD;
  readonly weight: number;
  private readonly systemDefaulted: boolean;
  private readonly listers: PodTopologySpreadListers;
  private readonly totals = new DomainTotalsCache();

  constructor(opts: PodTopologySpreadOptions = {}) {
    this.systemDefaulted = opts.systemDefaulted ?? true;
    this.listers = opts.listers ?? {};
    this.weight = opts.weight ?? 2;
  }

  /** The pod's constraints of `action`, or the system defaults (only ScheduleAnyway) when it has none. */
  private constraints(pod: Pod, action: 'DoNotSchedule' | 'ScheduleAnyway'): SpreadConstraint[] {
    const specs = pod.spec?.topologySpreadConstraints;
    if (specs && specs.length > 0) return compile(pod, specs, action);
    if (!this.systemDefaulted || action === 'DoNotSchedule') return [];
    const selector = this.defaultSelector(pod);
    return selector.empty() ? [] : compile(pod, SYSTEM_DEFAULT_CONSTRAINTS, action, selector);
  }

  /**
   * The selectors of the Services selecting the pod and of its controlling RC/RS/StatefulSet, merged
   * (upstream pkg/scheduler/util `DefaultSelector`). Empty when there are none.
   */
  defaultSelector(pod: Pod): Selector {
    const ns = pod.metadata?.namespace ?? '';
    const labels = pod.metadata?.labels ?? {};
    const set: Record<string, string> = {};
    for (const svc of this.listers.services?.(ns).list() ?? []) {
      const sel = svc.spec?.selector;
      // A Service without a selector selects nothing (upstream GetPodServices skips it).
      if (!sel || Object.keys(sel).length === 0) continue;
      if (selectorFromSet(sel).matches(labels)) Object.assign(set, sel);
    }
    const exprs: NonNullable<LabelSelector['matchExpressions']> = [];
    const owner = pod.metadata?.ownerReferences?.find((r) => r.controller);
    const group = owner?.apiVersion.includes('/') ? owner.apiVersion.split('/')[0] : '';
    const fromLabelSelector = (ls: LabelSelector | undefined): void => {
      for (const [key, v] of Object.entries(ls?.matchLabels ?? {})) exprs.push({ key, operator: 'In', values: [v] });
      exprs.push(...(ls?.matchExpressions ?? []));
    };
    if (owner && group === '' && owner.kind === 'ReplicationController') {
      Object.assign(set, this.listers.replicationControllers?.(ns).get(owner.name)?.spec?.selector ?? {});
    } else if (owner && group === 'apps' && owner.kind === 'ReplicaSet') {
      fromLabelSelector(this.listers.replicaSets?.(ns).get(owner.name)?.spec?.selector);
    } else if (owner && group === 'apps' && owner.kind === 'StatefulSet') {
      fromLabelSelector(this.listers.statefulSets?.(ns).get(owner.name)?.spec?.selector);
    }
    return safeSelector({ matchLabels: set, matchExpressions: exprs });
  }

  /**
   * Matching pods per domain of constraint `c` over every eligible node: with `requireAll`, nodes
   * must have every constraint's topology label (a node lacking `c`'s counts under `''` otherwise);
   * and they must pass `c`'s inclusion policies for `pod`.
   */
  private domainCounts(pod: PodInfo, c: SpreadConstraint, constraints: readonly SpreadConstraint[], requireAll: boolean, nodes: NodeInfoLister): DomainCounts {
    const ns = pod.pod.metadata?.namespace ?? '';
    const checkInclusion = needsInclusionCheck(c, pod);
    const contribution: NodeContribution = (node) => {
      if (requireAll && !hasAllTopologyLabels(node, constraints)) return undefined;
      if (checkInclusion && !matchNodeInclusionPolicies(c, pod, node)) return undefined;
      return { value: node.labels[c.topologyKey] ?? '', pods: countMatching(node, c, ns) };
    };
    if (!checkInclusion) {
      const key = `${c.countKey}\0${c.topologyKey}\0${requireAll ? constraints.map((k) => k.topologyKey).join('\0') : ''}`;
      return this.totals.get(nodes, key, contribution);
    }
    const counts: DomainCounts = new Map();
    for (const node of nodes.list()) {
      const x = contribution(node);
      if (x) addTo(counts, x.value, x.pods, 1);
    }
    return counts;
  }

  preFilter(pod: PodInfo, state: CycleState, nodes: NodeInfoLister): PreFilterResult {
    const constraints = this.constraints(pod.pod, 'DoNotSchedule');
    if (constraints.length === 0) return 'Skip';
    const counts = constraints.map((c) => this.domainCounts(pod, c, constraints, true, nodes));
    const selfMatch = constraints.map((c) => (c.selector.matches(pod.pod.metadata?.labels) ? 1 : 0));
    state.write(PRE_FILTER_KEY, new PreFilterState(constraints, counts, counts.map(minPods), selfMatch));
    return undefined;
  }

  /**
   * PreFilter extension (upstream filtering.go `AddPod`): counts `podInfoToAdd`, now on `nodeInfo`, in
   * the cycle's (cloned) state — a nominated pod for the nominated-pods filter pass, a reprieved victim
   * in preemption's dry run.
   * @throws Error when PreFilter wrote no state.
   */
  addPod(state: CycleState, podToSchedule: PodInfo, podInfoToAdd: PodInfo, nodeInfo: NodeInfo): void {
    this.updateWithPod(readPreFilterState(state), podInfoToAdd, podToSchedule, nodeInfo, 1);
  }

  /**
   * PreFilter extension (upstream filtering.go `RemovePod`): uncounts `podInfoToRemove`, taken off
   * `nodeInfo`, so preemption sees the skew its victims' eviction resolves.
   * @throws Error when PreFilter wrote no state.
   */
  removePod(state: CycleState, podToSchedule: PodInfo, podInfoToRemove: PodInfo, nodeInfo: NodeInfo): void {
    this.updateWithPod(readPreFilterState(state), podInfoToRemove, podToSchedule, nodeInfo, -1);
  }

  /**
   * Moves `updated`'s count in each constraint it matches by `delta`, when PreFilter would have counted
   * it: same namespace as the pod to schedule, not being deleted (as {@link countMatching}; upstream's
   * `updateWithPod` does not look at deletion, but PreFilter never counted such a pod), on a node with
   * every constraint's topology label that passes the constraint's inclusion policies.
   */
  private updateWithPod(s: PreFilterState, updated: PodInfo, preemptor: PodInfo, node: NodeInfo, delta: 1 | -1): void {
    const meta = updated.pod.metadata;
    if (node.node === undefined || meta?.deletionTimestamp || (meta?.namespace ?? '') !== (preemptor.pod.metadata?.namespace ?? '')) return;
    if (!hasAllTopologyLabels(node, s.constraints)) return;
    for (let i = 0; i < s.constraints.length; i++) {
      const c = s.constraints[i] as SpreadConstraint;
      if (!c.selector.matches(meta?.labels) || !matchNodeInclusionPolicies(c, preemptor, node)) continue;
      s.update(i, node.labels[c.topologyKey] as string, delta);
    }
  }

  filter(_pod: PodInfo, node: NodeInfo, state?: CycleState): FilterStatus | undefined {
    const s = readPreFilterState(state);
    for (let i = 0; i < s.constraints.length; i++) {
      const c = s.constraints[i] as SpreadConstraint;
      const value = node.labels[c.topologyKey];
      if (value === undefined) return unresolvable(this.name, ERR_REASON_NODE_LABEL_NOT_MATCH);
      const counts = s.counts[i] as DomainCounts;
      // Fewer domains than minDomains: the global minimum is taken as 0.
      const min = counts.size < c.minDomains ? 0 : (s.minCounts[i] as number);
      const skew = (counts.get(value)?.pods ?? 0) + (s.selfMatch[i] as number) - min;
      if (skew > c.maxSkew) return unschedulable(this.name, ERR_REASON_CONSTRAINTS_NOT_MATCH);
    }
    return undefined;
  }

  preScore(pod: PodInfo, state: CycleState, feasible: readonly NodeInfo[], nodes: NodeInfoLister): 'Skip' | undefined {
    if (feasible.length === 0) return 'Skip';
    const constraints = this.constraints(pod.pod, 'ScheduleAnyway');
    if (constraints.length === 0) return 'Skip';
    const requireAll = (pod.pod.spec?.topologySpreadConstraints?.length ?? 0) > 0 || !this.systemDefaulted;
    const ignored = new Set<string>();
    const counts = constraints.map(() => new Map<string, number>());
    for (const node of feasible) {
      if (requireAll && !hasAllTopologyLabels(node, constraints)) {
        ignored.add(node.name);
        continue;
      }
      for (let i = 0; i < constraints.length; i++) {
        const c = constraints[i] as SpreadConstraint;
        // Per-node counts are taken in Score.
        if (c.topologyKey !== LABEL_HOSTNAME) (counts[i] as Map<string, number>).set(node.labels[c.topologyKey] ?? '', 0);
      }
    }
    const weights = constraints.map((c, i) => Math.log((c.topologyKey === LABEL_HOSTNAME ? feasible.length - ignored.size : (counts[i] as Map<string, number>).size) + 2));
    // Only domains of feasible nodes are counted (their totals over every eligible node).
    for (let i = 0; i < constraints.length; i++) {
      const m = counts[i] as Map<string, number>;
      if (m.size === 0) continue;
      const totals = this.domainCounts(pod, constraints[i] as SpreadConstraint, constraints, requireAll, nodes);
      for (const value of m.keys()) m.set(value, totals.get(value)?.pods ?? 0);
    }
    state.write(PRE_SCORE_KEY, { constraints, ignored, counts, weights } satisfies PreScoreState);
    return undefined;
  }

  score(pod: PodInfo, node: NodeInfo, state?: CycleState): number {
    const s = state?.read(PRE_SCORE_KEY) as PreScoreState | undefined;
    if (!s || (s.ignored.size > 0 && s.ignored.has(node.name))) return 0;
    let score = 0;
    for (let i = 0; i < s.constraints.length; i++) {
      const c = s.constraints[i] as SpreadConstraint;
      const value = node.labels[c.topologyKey];
      if (value === undefined) continue;
      const cnt = c.topologyKey === LABEL_HOSTNAME ? countMatching(node, c, pod.pod.metadata?.namespace ?? '') : ((s.counts[i] as Map<string, number>).get(value) ?? 0);
      score += cnt * (s.weights[i] as number) + (c.maxSkew - 1);
    }
    return Math.round(score);
  }

  normalizeScore(scores: number[], state?: CycleState, feasible?: readonly NodeInfo[]): void {
    const s = state?.read(PRE_SCORE_KEY) as PreScoreState | undefined;
    const ignored = (i: number): boolean => s !== undefined && s.ignored.size > 0 && feasible !== undefined && s.ignored.has(feasible[i]?.name ?? '');
    let min = Infinity;
    let max = 0;
    for (let i = 0; i < scores.length; i++) {
      if (ignored(i)) continue;
      const v = scores[i] as number;
      if (v < min) min = v;
      if (v > max) max = v;
    }
    for (let i = 0; i < scores.length; i++) {
      if (ignored(i)) scores[i] = 0;
      else if (max === 0) scores[i] = MAX_NODE_SCORE;
      else scores[i] = Math.trunc((MAX_NODE_SCORE * (max + min - (scores[i] as number))) / max);
    }
  }
}
