/**
 * One scheduling decision for one pod: filter the nodes, score the feasible ones, pick the best.
 * Pure functions over the cache's NodeInfos; the Scheduler class does the I/O.
 *
 * Follows upstream pkg/scheduler/schedule_one.go: `findNodesThatFitPod` (stops after
 * `numFeasibleNodesToFind` feasible nodes, starting where the previous cycle stopped, so large
 * clusters cost a fraction of the nodes per pod), `prioritizeNodes` (Σ weight × normalized score),
 * `selectHost` (highest score, ties broken uniformly at random by reservoir sampling), and
 * pkg/scheduler/framework/types.go `FitError.Error()` for the FailedScheduling message.
 */
import type { Rand } from '../util/random/index.js';
import type { NodeInfo, PodInfo } from './node-info.js';
import { errorMessage } from '../machinery/errors/index.js';
import { runFilterPluginsWithNominatedPods, type NominatedPodsForNode, type PreFilterExtensions } from './framework.js';
import { CycleState, type FilterPlugin, type FilterStatus, type NodeInfoLister, type ScorePlugin } from './plugins/index.js';

/** Below this many nodes every node is checked (upstream `minFeasibleNodesToFind`). */
const MIN_FEASIBLE_NODES_TO_FIND = 100;
/** Floor of the adaptive percentage (upstream `minFeasibleNodesPercentageToFind`). */
const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5;

/**
 * How many feasible nodes to look for (upstream `numFeasibleNodesToFind` with percentageOfNodesToScore
 * unset): all nodes below 100; otherwise `(50 - n/125)%` of them, at least 5 % and at least 100.
 * E.g. 1,000 nodes ⇒ 42 % ⇒ 420; 5,000 nodes ⇒ 10 % ⇒ 500.
 */
export function numFeasibleNodesToFind(numAllNodes: number): number {
  if (numAllNodes < MIN_FEASIBLE_NODES_TO_FIND) return numAllNodes;
  const percentage = Math.max(MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND, 50 - Math.floor(numAllNodes / 125));
  return Math.max(MIN_FEASIBLE_NODES_TO_FIND, Math.floor((numAllNodes * percentage) / 100));
}

/** Returned when no node fits; `message` is upstream's aggregated FailedScheduling text. */
export class FitError extends Error {
  constructor(
    readonly pod: PodInfo,
    readonly numAllNodes: number,
    /** Node name → why it was rejected (every node, since all were tried). */
    readonly statuses: ReadonlyMap<string, FilterStatus>,
    /** The rejecting PreFilter status's message, when PreFilter (not Filter) rejected the pod. */
    readonly preFilterMsg?: string,
    /** What PostFilter (preemption) said, appended after the reasons (upstream `Diagnosis.PostFilterMsg`). */
    readonly postFilterMsg?: string,
  ) {
    super(fitErrorMessage(numAllNodes, statuses, preFilterMsg, postFilterMsg));
    this.name = 'FitError';
  }
}

/**
 * Counts reasons across nodes and renders "N reason" items sorted as strings, as upstream's
 * `sortReasonsHistogram` does; `absent` more nodes count as `absentReason` (upstream
 * `NodeToStatus.SetAbsentNodesStatus`).
 */
export function reasonsHistogram(reasonsPerNode: Iterable<readonly string[]>, absent = 0, absentReason = ''): string {
  const counts = new Map<string, number>();
  for (const reasons of reasonsPerNode) for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  if (absent > 0) counts.set(absentReason, (counts.get(absentReason) ?? 0) + absent);
  return [...counts].map(([r, n]) => `${n} ${r}`).sort().join(', ');
}

/**
 * Upstream `FitError.Error()`: `0/3 nodes are available: 1 node(s) had untolerated taint {k: v}, 2
 * Insufficient cpu.` followed by the PostFilter (preemption) message, e.g. ` preemption: 0/3 nodes are
 * available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming
 * pod.` (see preemption/default-preemption.ts). Nothing follows when preemption succeeded.
 *
 * When a PreFilter plugin rejected the pod, its message replaces the per-node histogram (every node
 * carries that same status, upstream `Diagnosis.PreFilterMsg`): `0/3 nodes are available: pod has
 * unbound immediate PersistentVolumeClaims. preemption: 0/3 nodes are available: 3 Preemption is not
 * helpful for scheduling.`
 */
export function fitErrorMessage(numAllNodes: number, statuses: ReadonlyMap<string, FilterStatus>, preFilterMsg?: string, postFilterMsg?: string): string {
  if (numAllNodes === 0) return 'no nodes available to schedule pods';
  const reasons = preFilterMsg ?? reasonsHistogram([...statuses.values()].map((s) => s.reasons));
  const msg = `0/${numAllNodes} nodes are available: ${reasons}.`;
  return postFilterMsg ? `${msg} ${postFilterMsg}` : msg;
}

export interface FilterResult {
  feasible: NodeInfo[];
  /** Rejected nodes and why. */
  statuses: Map<string, FilterStatus>;
  /** How many nodes were examined (to advance the round-robin start). */
  processed: number;
}

/**
 * Runs the filters over the nodes from `start` (wrapping), stopping at numFeasibleNodesToFind. Filters
 * whose PreFilter returned Skip (`state.skipFilterPlugins`) are not run. On a node with nominated pods
 * (`nominated`, preemptors waiting there) the filters run with those of priority ≥ the pod's counted
 * (see framework.ts `runFilterPluginsWithNominatedPods`); other nodes take the plain loop.
 * @throws Error `running "<plugin>" filter plugin: <message>` when a filter throws (upstream `RunFilterPlugins`).
 */
export function findNodesThatFitPod(
  pod: PodInfo,
  nodes: readonly NodeInfo[],
  start: number,
  filters: readonly FilterPlugin[],
  state: CycleState = new CycleState(),
  nominated?: { pods: NominatedPodsForNode; preFilterExtensions: readonly PreFilterExtensions[] },
): FilterResult {
  const skip = state.skipFilterPlugins;
  const active = skip ? filters.filter((f) => !skip.has(f.name)) : filters;
  const n = nodes.length;
  const want = numFeasibleNodesToFind(n);
  const feasible: NodeInfo[] = [];
  const statuses = new Map<string, FilterStatus>();
  const profile = nominated ? { filter: active, preFilterExtensions: nominated.preFilterExtensions } : undefined;
  let processed = 0;
  let current: FilterPlugin | undefined;
  try {
    for (; processed < n && feasible.length < want; processed++) {
      const node = nodes[(start + processed) % n] as NodeInfo;
      let status: FilterStatus | undefined;
      if (profile && nominated && nominated.pods(node.name).length > 0) {
        current = undefined;
        status = runFilterPluginsWithNominatedPods(profile, pod, node, state, nominated.pods);
      } else {
        for (const f of active) {
          current = f;
          status = f.filter(pod, node, state);
          if (status) break;
        }
      }
      if (status) statuses.set(node.name, status);
      else feasible.push(node);
    }
  } catch (err) {
    // runFilterPluginsWithNominatedPods wraps its own errors.
    if (current === undefined) throw err;
    throw new Error(`running ${JSON.stringify(current.name)} filter plugin: ${errorMessage(err)}`, { cause: err });
  }
  return { feasible, statuses, processed };
}

/**
 * Total weighted score per feasible node (same order): each plugin's PreScore (a plugin returning Skip
 * adds nothing), Score per node, NormalizeScore (upstream `RunPreScorePlugins`, `RunScorePlugins`).
 * `nodes` (every node) defaults to the feasible ones, for callers without a cache.
 */
export function prioritizeNodes(
  pod: PodInfo,
  feasible: readonly NodeInfo[],
  scorers: readonly ScorePlugin[],
  state: CycleState = new CycleState(),
  nodes: NodeInfoLister = feasibleOnly(feasible),
): number[] {
  const totals = new Array<number>(feasible.length).fill(0);
  for (const s of scorers) {
    if (s.preScore?.(pod, state, feasible, nodes) === 'Skip') continue;
    const scores = feasible.map((node) => s.score(pod, node, state));
    s.normalizeScore?.(scores, state, feasible);
    for (let i = 0; i < scores.length; i++) totals[i] = (totals[i] ?? 0) + s.weight * (scores[i] ?? 0);
  }
  return totals;
}

/** A lister over just `feasible`, computing the affinity lists on demand. */
function feasibleOnly(feasible: readonly NodeInfo[]): NodeInfoLister {
  return {
    list: () => feasible,
    havePodsWithAffinityList: () => feasible.filter((n) => n.podsWithAffinity.size > 0),
    havePodsWithRequiredAntiAffinityList: () => feasible.filter((n) => n.podsWithRequiredAntiAffinity.size > 0),
    imageNumNodes: (image) => feasible.filter((n) => n.imageSizes.has(image)).length,
    generation: () => 0,
    changedSince: () => undefined,
  };
}

/** The node with the highest score; among equal scores each is equally likely (reservoir sampling). */
export function selectHost(feasible: readonly NodeInfo[], scores: readonly number[], rand: Rand): NodeInfo {
  let best = 0;
  let ties = 1;
  for (let i = 1; i < feasible.length; i++) {
    const s = scores[i] ?? 0;
    const b = scores[best] ?? 0;
    if (s > b) {
      best = i;
      ties = 1;
    } else if (s === b) {
      ties++;
      if (rand.int(ties) === 0) best = i;
    }
  }
  return feasible[best] as NodeInfo;
}
