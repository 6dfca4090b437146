/**
 * Per-pod and per-node facts the scheduler computes once and then reads on every scheduling cycle.
 *
 * Follows upstream pkg/scheduler/framework/types.go (`PodInfo`, `NodeInfo`): a NodeInfo aggregates the
 * requests of every pod on the node (bound and assumed) so a filter or score is O(1) per node.
 */
import type { Node, NodeSelectorTerm, Pod, Taint, Toleration } from '../api/index.js';
import { parseQuantity } from '../machinery/quantity/index.js';
import {
  addResource,
  computePodNonZeroRequest,
  computePodResourceRequest,
  emptyResource,
  resourceFromList,
  type Resource,
} from './resources.js';

/** A pod with its scheduling inputs pre-computed. Immutable once built. */
export interface PodInfo {
  pod: Pod;
  /** `namespace/name`. */
  key: string;
  uid: string;
  /** Effective requests (see computePodResourceRequest). */
  requests: Resource;
  /** Requests with the non-zero defaults, for scoring. */
  nonZeroRequests: Resource;
  tolerations: readonly Toleration[];
  nodeSelector: Readonly<Record<string, string>>;
  /** `affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`, or undefined when unset. */
  requiredNodeAffinityTerms: readonly NodeSelectorTerm[] | undefined;
  /** uid of the controllerRef (`ownerReferences[].controller: true`), for spreading replicas. */
  controllerUID: string | undefined;
}

/** Builds a {@link PodInfo}. Throws when a request is not a valid quantity. */
export function newPodInfo(pod: Pod): PodInfo {
  const meta = pod.metadata ?? {};
  return {
    pod,
    key: `${meta.namespace ?? ''}/${meta.name ?? ''}`,
    uid: meta.uid ?? '',
    requests: computePodResourceRequest(pod),
    nonZeroRequests: computePodNonZeroRequest(pod),
    tolerations: pod.spec?.tolerations ?? [],
    nodeSelector: pod.spec?.nodeSelector ?? {},
    requiredNodeAffinityTerms:
      pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms,
    controllerUID: meta.ownerReferences?.find((r) => r.controller)?.uid,
  };
}

/**
 * The scheduler's view of one node: the Node object (undefined while pods are known to be on a node
 * the informer has not delivered yet) and the running totals of the pods on it.
 */
export class NodeInfo {
  node: Node | undefined;
  /** Allocatable resources; `allowedPodNumber` is `status.allocatable.pods`. */
  allocatable: Resource = emptyResource();
  allowedPodNumber = 0;
  /** Sum of the effective requests of the pods on this node. */
  readonly requested: Resource = emptyResource();
  /** Sum of the non-zero requests, for scoring. */
  readonly nonZeroRequested: Resource = emptyResource();
  /** Pods on this node (bound or assumed), by uid. */
  readonly pods = new Map<string, PodInfo>();
  /** Count of pods per controllerRef uid, for spreading. */
  readonly controllerCounts = new Map<string, number>();
  taints: readonly Taint[] = [];
  labels: Readonly<Record<string, string>> = {};
  unschedulable = false;

  constructor(readonly name: string) {}

  /** Replaces the Node object and re-parses what the filters read. Throws on a malformed allocatable. */
  setNode(node: Node): void {
    this.node = node;
    const alloc = node.status?.allocatable ?? node.status?.capacity;
    this.allocatable = resourceFromList(alloc);
    this.allowedPodNumber = alloc?.pods !== undefined ? parseQuantity(alloc.pods).value() : 0;
    this.taints = node.spec?.taints ?? [];
    this.labels = node.metadata?.labels ?? {};
    this.unschedulable = node.spec?.unschedulable === true;
  }

  addPod(p: PodInfo): void {
    this.pods.set(p.uid, p);
    this.account(p, 1);
  }

  /** Removes a pod; returns false when it was not on this node. */
  removePod(uid: string): boolean {
    const p = this.pods.get(uid);
    if (!p) return false;
    this.pods.delete(uid);
    this.account(p, -1);
    return true;
  }

  private account(p: PodInfo, sign: 1 | -1): void {
    addResource(this.requested, p.requests, sign);
    addResource(this.nonZeroRequested, p.nonZeroRequests, sign);
    if (p.controllerUID !== undefined) {
      const n = (this.controllerCounts.get(p.controllerUID) ?? 0) + sign;
      if (n === 0) this.controllerCounts.delete(p.controllerUID);
      else this.controllerCounts.set(p.controllerUID, n);
    }
  }
}
