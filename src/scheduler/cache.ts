/**
 * The scheduler cache: one {@link NodeInfo} per node with the running totals of the pods on it, kept
 * incrementally from informer events and from the scheduler's own decisions ("assumed" pods: chosen
 * a node, binding in flight or not yet observed bound). Every pod and node event is O(1) (plus the
 * pod's own containers); a scheduling cycle reads the totals without recounting.
 *
 * Follows upstream pkg/scheduler/backend/cache/cache.go (`AssumePod`, `FinishBinding`, `ForgetPod`,
 * `AddPod` confirming an assumed pod, `RemoveNode` keeping a ghost NodeInfo while pods remain).
 * Assumed pods never expire here (upstream's durationToExpireAssumedPod is 0 since v1.26 as well);
 * they are confirmed by the pod informer or forgotten when the bind fails.
 */
import type { Node, Pod } from '../api/index.js';
import { newPodInfo, NodeInfo, type PodInfo } from './node-info.js';

interface PodState {
  podInfo: PodInfo;
  nodeName: string;
  /** True until the informer shows the pod bound. */
  assumed: boolean;
}

export class SchedulerCache {
  private readonly nodeInfos = new Map<string, NodeInfo>();
  /** NodeInfos that have a Node object, in a stable order for round-robin filtering. */
  private readonly nodeList: NodeInfo[] = [];
  private readonly nodeListIndex = new Map<string, number>();
  private readonly podStates = new Map<string, PodState>();

  /** Nodes with a Node object; the array is live — do not keep it across awaits. */
  nodes(): readonly NodeInfo[] {
    return this.nodeList;
  }

  getNodeInfo(name: string): NodeInfo | undefined {
    return this.nodeInfos.get(name);
  }

  /** Number of pods (bound or assumed) the cache accounts for. */
  podCount(): number {
    return this.podStates.size;
  }

  isAssumed(uid: string): boolean {
    return this.podStates.get(uid)?.assumed === true;
  }

  /** Adds or replaces a Node. Throws when its allocatable has a malformed quantity. */
  addOrUpdateNode(node: Node): void {
    const name = node.metadata?.name ?? '';
    const info = this.nodeInfoFor(name);
    info.setNode(node);
    if (!this.nodeListIndex.has(name)) {
      this.nodeListIndex.set(name, this.nodeList.length);
      this.nodeList.push(info);
    }
  }

  /** Removes a Node; its NodeInfo stays (without a node) while pods still point at it. */
  removeNode(name: string): void {
    const info = this.nodeInfos.get(name);
    if (!info) return;
    info.node = undefined;
    const i = this.nodeListIndex.get(name);
    if (i !== undefined) {
      const last = this.nodeList.pop() as NodeInfo;
      if (last !== info) {
        this.nodeList[i] = last;
        this.nodeListIndex.set(last.name, i);
      }
      this.nodeListIndex.delete(name);
    }
    if (info.pods.size === 0) this.nodeInfos.delete(name);
  }

  /** Records the scheduler's decision before binding, so the next cycle sees the node as used. */
  assumePod(podInfo: PodInfo, nodeName: string): void {
    this.removePodState(podInfo.uid);
    this.podStates.set(podInfo.uid, { podInfo, nodeName, assumed: true });
    this.nodeInfoFor(nodeName).addPod(podInfo);
  }

  /** Undoes {@link assumePod} after a failed bind. A pod already observed bound is left alone. */
  forgetPod(uid: string): void {
    if (this.podStates.get(uid)?.assumed) this.removePodState(uid);
  }

  /**
   * A bound, non-terminal pod was observed (add or update): confirms an assumption or replaces the entry
   * (requests are recomputed, since an in-place resize may have changed them).
   */
  addOrUpdatePod(pod: Pod): void {
    const uid = pod.metadata?.uid ?? '';
    const nodeName = pod.spec?.nodeName ?? '';
    this.removePodState(uid);
    const podInfo = newPodInfo(pod);
    this.podStates.set(uid, { podInfo, nodeName, assumed: false });
    this.nodeInfoFor(nodeName).addPod(podInfo);
  }

  /** A bound pod was deleted or became terminal. Returns true when it was accounted for. */
  removePod(uid: string): boolean {
    return this.removePodState(uid);
  }

  private removePodState(uid: string): boolean {
    const state = this.podStates.get(uid);
    if (!state) return false;
    this.podStates.delete(uid);
    const info = this.nodeInfos.get(state.nodeName);
    if (info) {
      info.removePod(uid);
      if (!info.node && info.pods.size === 0) this.nodeInfos.delete(state.nodeName);
    }
    return true;
  }

  private nodeInfoFor(name: string): NodeInfo {
    let info = this.nodeInfos.get(name);
    if (!info) {
      info = new NodeInfo(name);
      this.nodeInfos.set(name, info);
    }
    return info;
  }
}
