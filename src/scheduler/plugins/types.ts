/**
 * The shapes of filter and score plugins. Plugins are small pure functions of (pod, node); the
 * framework (../schedule-one.ts) runs them. Follows upstream pkg/scheduler/framework/interface.go
 * (`FilterPlugin`, `ScorePlugin`, `ScoreExtensions.NormalizeScore`, status codes).
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

/** A filter: undefined when the node fits. */
export interface FilterPlugin {
  name: string;
  filter(pod: PodInfo, node: NodeInfo): FilterStatus | undefined;
}

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
