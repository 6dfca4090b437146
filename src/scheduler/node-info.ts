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
import { newPodAffinityTerms, type PodAffinityTerms } from './plugins/affinity-term.js';
import { nodeImageSizes } from './plugins/image-locality.js';

/** A pod with its scheduling inputs pre-computed. Immutable once built. */
export interface PodInfo extends PodAffinityTerms {
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
    ...newPodAffinityTerms(pod),
  };
}

/** True when the pod has any pod (anti-)affinity term. */
export function hasAffinity(p: PodInfo): boolean {
  return (
    p.requiredAffinityTerms.length > 0 ||
    p.requiredAntiAffinityTerms.length > 0 ||
    p.preferredAffinityTerms.length > 0 ||
    p.preferredAntiAffinityTerms.length > 0
  );
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
  /** Pods with any pod affinity or anti-affinity term, required or preferred (upstream `PodsWithAffinity`). */
  readonly podsWithAffinity = new Set<PodInfo>();
  /** Pods with required anti-affinity terms (upstream `PodsWithRequiredAntiAffinity`). */
  readonly podsWithRequiredAntiAffinity = new Set<PodInfo>();
  /**
   * Memo of "pods on this node in namespace N matching selector S", indexed by PodTopologySpread's
   * small-integer id for (N, S) (a hole when not counted yet); emptied whenever a pod is added or
   * removed, so it is never stale. An array, not a Map: it is read for every feasible node in every
   * cycle's spread score, and the hash lookup was the largest single cost of a scheduling cycle.
   */
  readonly matchingPodCounts: number[] = [];
  /** `status.images` by every name (as listed, e.g. `nginx:1.27`) → sizeBytes, for ImageLocality. */
  imageSizes: ReadonlyMap<string, number> = new Map();
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
    this.imageSizes = nodeImageSizes(node.status?.images);
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
    if (this.matchingPodCounts.length > 0) this.matchingPodCounts.length = 0;
    addResource(this.requested, p.requests, sign);
    addResource(this.nonZeroRequested, p.nonZeroRequests, sign);
    if (hasAffinity(p)) {
      if (sign === 1) this.podsWithAffinity.add(p);
      else this.podsWithAffinity.delete(p);
    }
    if (p.requiredAntiAffinityTerms.length > 0) {
      if (sign === 1) this.podsWithRequiredAntiAffinity.add(p);
      else this.podsWithRequiredAntiAffinity.delete(p);
    }
  }
}
