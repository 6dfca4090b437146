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

/** Runs once per cycle before any Filter (upstream `PreFilterPlugin`). Throws on internal errors. */
export interface PreFilterPlugin {
  name: string;
  preFilter(pod: PodInfo, state: CycleState): PreFilterResult;
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

/** A score plugin; final node score = Σ weight × score, each score in [0, MAX_NODE_SCORE] after normalize. */
export interface ScorePlugin {
  name: string;
  weight: number;
  score(pod: PodInfo, node: NodeInfo): number;
  /** Rewrites the raw scores of all feasible nodes (same order) into [0, MAX_NODE_SCORE], in place. */
  normalizeScore?(scores: number[]): void;
}

export function unschedulable(plugin: string, ...reasons: string[]): FilterStatus {
  return { code: 'Unschedulable', reasons, plugin };
}

export function unresolvable(plugin: string, ...reasons: string[]): FilterStatus {
  return { code: 'UnschedulableAndUnresolvable', reasons, plugin };
}
