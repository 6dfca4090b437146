/**
 * NodeResourcesFit filter and the resource scores.
 *
 * Filter (upstream pkg/scheduler/framework/plugins/noderesources/fit.go `fitsRequest`): the node must
 * have room for one more pod (`Too many pods`), and for each resource the pod requests (cpu, memory,
 * ephemeral-storage, extended), `request <= allocatable - requested by the pods already there`
 * (`Insufficient cpu`, ...). Every shortfall is reported; the code is Unschedulable (preemption could
 * free room).
 *
 * Scores (upstream least_allocated.go and balanced_allocation.go), over cpu and memory with weight 1 each:
 * - LeastAllocated: `(allocatable - requested) * 100 / allocatable`, requested counting the non-zero
 *   defaults and this pod; e.g. 4000m allocatable, 1000m requested ⇒ 75.
 * - BalancedAllocation: `(1 - |cpuFraction - memoryFraction| / 2) * 100`, fractions capped at 1; a node
 *   whose cpu and memory are equally used scores 100.
 */
import type { NodeInfo, PodInfo } from '../node-info.js';
import type { FilterPlugin, ScorePlugin } from './types.js';
import { MAX_NODE_SCORE, unschedulable } from './types.js';

const NONE: readonly string[] = Object.freeze([]);

/** The reasons the pod does not fit the node's free resources; empty when it fits. Allocation-free when it fits. */
export function insufficientResources(pod: PodInfo, node: NodeInfo): readonly string[] {
  const req = pod.requests;
  const alloc = node.allocatable;
  const used = node.requested;
  const tooMany = node.pods.size + 1 > node.allowedPodNumber;
  const cpu = req.milliCPU > 0 && req.milliCPU > alloc.milliCPU - used.milliCPU;
  const memory = req.memory > 0 && req.memory > alloc.memory - used.memory;
  const storage = req.ephemeralStorage > 0 && req.ephemeralStorage > alloc.ephemeralStorage - used.ephemeralStorage;
  let scalar: string[] | undefined;
  if (req.scalar.size > 0) {
    for (const [name, q] of req.scalar) {
      if (q > 0 && q > (alloc.scalar.get(name) ?? 0) - (used.scalar.get(name) ?? 0)) (scalar ??= []).push(`Insufficient ${name}`);
    }
  }
  if (!tooMany && !cpu && !memory && !storage && !scalar) return NONE;
  const reasons: string[] = [];
  if (tooMany) reasons.push('Too many pods');
  if (cpu) reasons.push('Insufficient cpu');
  if (memory) reasons.push('Insufficient memory');
  if (storage) reasons.push('Insufficient ephemeral-storage');
  if (scalar) reasons.push(...scalar);
  return reasons;
}

export const nodeResourcesFit: FilterPlugin = {
  name: 'NodeResourcesFit',
  filter(pod, node) {
    const reasons = insufficientResources(pod, node);
    return reasons.length === 0 ? undefined : unschedulable(this.name, ...reasons);
  },
};

function leastRequestedScore(requested: number, capacity: number): number {
  if (capacity <= 0 || requested > capacity) return 0;
  return Math.floor(((capacity - requested) * MAX_NODE_SCORE) / capacity);
}

export const nodeResourcesLeastAllocated: ScorePlugin = {
  name: 'NodeResourcesFit',
  weight: 1,
  score(pod, node) {
    const cpu = leastRequestedScore(node.nonZeroRequested.milliCPU + pod.nonZeroRequests.milliCPU, node.allocatable.milliCPU);
    const mem = leastRequestedScore(node.nonZeroRequested.memory + pod.nonZeroRequests.memory, node.allocatable.memory);
    return Math.floor((cpu + mem) / 2);
  },
};

/** `requested / allocatable` capped at 1, or undefined when nothing is allocatable (the resource is skipped). */
function fraction(requested: number, allocatable: number): number | undefined {
  return allocatable > 0 ? Math.min(1, requested / allocatable) : undefined;
}

export const nodeResourcesBalancedAllocation: ScorePlugin = {
  name: 'NodeResourcesBalancedAllocation',
  weight: 1,
  score(pod, node) {
    const cpu = fraction(node.requested.milliCPU + pod.requests.milliCPU, node.allocatable.milliCPU);
    const mem = fraction(node.requested.memory + pod.requests.memory, node.allocatable.memory);
    const std = cpu !== undefined && mem !== undefined ? Math.abs(cpu - mem) / 2 : 0;
    return Math.floor((1 - std) * MAX_NODE_SCORE);
  },
};
