/**
 * The shapes of the scheduler's plugins. Filter and score plugins are small pure functions of
 * (pod, node); the framework (../framework.ts, ../schedule-one.ts) runs them. Plugins that need more
 * (VolumeBinding) also implement the PreFilter, Reserve and PreBind extension points and keep what
 * they computed for one pod in the {@link CycleState} of that scheduling cycle.
 *
 * Follows upstream pkg/scheduler/framework/interface.go (`PreFilterPlugin`, `FilterPlugin`,
 * `ReservePlugin`, `PreBindPlugin`, `ScorePlugin`, `ScoreExtensions.NormalizeScore`, status codes
 * Success/Unschedulable/UnschedulableAndUnresolvable/Skip, errors) and cycle_state.go.
 */
import type { NodeInfo, PodInfo } from '../node-info.js';

/**
 * Why a node does not fit. `Unschedulable`: preemption could help (e.g. resources);
 * `UnschedulableAndUnresolvable`: it cannot (taints, affinity, cordon).
 */
export interface FilterStatus {
  code: 'Unschedulable' | 'UnschedulableAndUnresolvable';
  /** Human-readable reasons, aggregated across nodes in the FailedScheduling message. */
  reasons: string[];
  /** Plugin name. */
  plugin: string;
}

/**
 * What plugins compute for one pod in one scheduling cycle and read again in later phases (upstream
 * `framework.CycleState`). Created per cycle; the binding cycle keeps the one of its pod. Plugins key
 * their data by their own name.
 */
export class CycleState {
  private data: Map<string, unknown> | undefined;
  /** Filter plugins whose PreFilter returned Skip: their Filter is not run this cycle. */
  skipFilterPlugins: Set<string> | undefined;

  /** The value a plugin wrote under `key`, or undefined. */
  read(key: string): unknown {
    return this.data?.get(key);
  }

  /**
   * The value under `key`, which must be an instance of `type` (a plugin reading the state its own
   * PreFilter wrote). @throws Error `reading "<key>" from cycleState: not found` otherwise, upstream's
   * `framework.ErrNotFound` text.
   */
  readInstance<T>(key: string, type: abstract new (...args: never[]) => T): T {
    const v = this.data?.get(key);
    if (!(v instanceof type)) throw new Error(`reading ${JSON.stringify(key)} from cycleState: not found`);
    return v;
  }

  write(key: string, value: unknown): void {
    (this.data ??= new Map()).set(key, value);
  }

  /** Marks `plugin`'s Filter as skipped for this cycle (its PreFilter returned Skip). */
  skipFilter(plugin: string): void {
    (this.skipFilterPlugins ??= new Set()).add(plugin);
  }

  /**
   * A copy whose writes do not affect this one (upstream `CycleState.Clone`): values with a `clone()`
   * method are cloned with it, others are shared (they must then be immutable). Preemption and the
   * nominated-pods filter pass clone the state before PreFilter extensions change it for one node.
   */
  clone(): CycleState {
    const c = new CycleState();
    if (this.data) {
      for (const [k, v] of this.data) {
        const cloneable = v as { clone?: () => unknown } | null;
        c.write(k, typeof cloneable?.clone === 'function' ? cloneable.clone() : v);
      }
    }
    if (this.skipFilterPlugins) c.skipFilterPlugins = new Set(this.skipFilterPlugins);
    return c;
  }
}

/**
 * A filter: undefined when the node fits. Throwing is an internal error (the cycle fails with
 * `running "<name>" filter plugin: <message>`, as upstream's `RunFilterPlugins`). `state` is the
 * cycle's state (always passed by the framework; optional so pure filters can be called without one).
 */
export interface FilterPlugin {
  name: string;
  filter(pod: PodInfo, node: NodeInfo, state?: CycleState): FilterStatus | undefined;
}

/**
 * A PreFilter result: undefined = proceed; `'Skip'` = this plugin has nothing to check for this pod
 * (its Filter is skipped); a status = the pod cannot be scheduled on any node (rendered as upstream's
 * PreFilter message, see schedule-one.ts `fitErrorMessage`).
 */
export type PreFilterResult = FilterStatus | 'Skip' | undefined;

/**
 * The nodes of the scheduler's cache as plugins see them in a cycle (upstream `framework.NodeInfoLister`
 * over the cycle's snapshot). The arrays are live: read them within the cycle, do not keep them.
 */
export interface NodeInfoLister {
  /** Every node with a Node object. */
  list(): readonly NodeInfo[];
  /** Nodes hosting at least one pod with a pod affinity or anti-affinity term (required or preferred). */
  havePodsWithAffinityList(): readonly NodeInfo[];
  /** Nodes hosting at least one pod with a required anti-affinity term. */
  havePodsWithRequiredAntiAffinityList(): readonly NodeInfo[];
  /** How many nodes list the (normalised) image name in `status.images`. */
  imageNumNodes(image: string): number;
  /** A counter bumped whenever a node or the pods on it change. */
  generation(): number;
  /**
   * The nodes changed after generation `gen` (possibly repeated; a removed node appears without a
   * Node object), or undefined when that is no longer known: recount everything.
   */
  changedSince(gen: number): readonly NodeInfo[] | undefined;
}

/**
 * Runs once per cycle before any Filter (upstream `PreFilterPlugin`), with every node (`nodes`, for
 * plugins that precompute cluster-wide counts). Throws on internal errors.
 */
export interface PreFilterPlugin {
  name: string;
  preFilter(pod: PodInfo, state: CycleState, nodes: NodeInfoLister): PreFilterResult;
}

/**
 * Reserve/Unreserve (upstream `ReservePlugin`): `reserve` runs after the node is chosen and the pod
 * assumed there, in the serial scheduling cycle; it throws on error. `unreserve` undoes it when a
 * later phase fails; it must be idempotent and never throw.
 */
export interface ReservePlugin {
  name: string;
  reserve(pod: PodInfo, state: CycleState, nodeName: string): void;
  unreserve(pod: PodInfo, state: CycleState, nodeName: string): void;
}

/**
 * PreBind (upstream `PreBindPlugin`): runs in the asynchronous binding cycle before the Binding POST;
 * rejects on error (the pod is unreserved, forgotten and retried with backoff). `signal` aborts when
 * the scheduler stops. `preBindPreFlight` (upstream v1.34's `PreBindPreFlight`) says cheaply whether
 * `preBind` has anything to do, so pods without work keep the fast binding path.
 */
export interface PreBindPlugin {
  name: string;
  preBindPreFlight(pod: PodInfo, state: CycleState, nodeName: string): boolean;
  preBind(pod: PodInfo, state: CycleState, nodeName: string, signal: AbortSignal): Promise<void>;
}

/** A plugin implementing any of the extension points. */
export type Plugin = Partial<PreFilterPlugin & FilterPlugin & ReservePlugin & PreBindPlugin> & { name: string };

/** Highest score a plugin gives after normalization (upstream `MaxNodeScore`). */
export const MAX_NODE_SCORE = 100;

/**
 * A score plugin; final node score = Σ weight × score, each score in [0, MAX_NODE_SCORE] after normalize
 * (upstream `PreScorePlugin`, `ScorePlugin`, `ScoreExtensions`).
 */
export interface ScorePlugin {
  name: string;
  weight: number;
  /**
   * Runs once per cycle before Score with the feasible nodes and every node; may keep what it computed
   * in `state`. `'Skip'`: this plugin has nothing to score for this pod (every node gets 0, Score and
   * normalizeScore are not called). Throws on internal errors.
   */
  preScore?(pod: PodInfo, state: CycleState, feasible: readonly NodeInfo[], nodes: NodeInfoLister): 'Skip' | undefined;
  /** The raw score of one feasible node. `state` is the cycle's (always passed by the framework). */
  score(pod: PodInfo, node: NodeInfo, state?: CycleState): number;
  /** Rewrites the raw scores of the feasible nodes (`feasible`, same order) into [0, MAX_NODE_SCORE], in place. */
  normalizeScore?(scores: number[], state?: CycleState, feasible?: readonly NodeInfo[]): void;
}

export function unschedulable(plugin: string, ...reasons: string[]): FilterStatus {
  return { code: 'Unschedulable', reasons, plugin };
}

export function unresolvable(plugin: string, ...reasons: string[]): FilterStatus {
  return { code: 'UnschedulableAndUnresolvable', reasons, plugin };
}

/**
 * Scales scores so the highest becomes MAX_NODE_SCORE (`100 × s / max`, truncated); `reverse` then
 * flips them (`100 - score`). When every score is 0: all 0, or all 100 when reversed (upstream
 * pkg/scheduler/framework/plugins/helper/normalize_score.go `DefaultNormalizeScore`).
 */
export function defaultNormalizeScore(scores: number[], reverse: boolean): void {
  let max = 0;
  for (const s of scores) if (s > max) max = s;
  for (let i = 0; i < scores.length; i++) {
    if (max === 0) {
      scores[i] = reverse ? MAX_NODE_SCORE : 0;
      continue;
    }
    const v = Math.trunc((MAX_NODE_SCORE * (scores[i] as number)) / max);
    scores[i] = reverse ? MAX_NODE_SCORE - v : v;
  }
}
