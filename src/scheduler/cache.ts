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
import type { NodeInfoLister } from './plugins/types.js';

interface PodState {
  podInfo: PodInfo;
  nodeName: string;
  /** True until the informer shows the pod bound. */
  assumed: boolean;
}

/** Nodes of `set` that have a Node object, as an array rebuilt only after the set changed. */
class NodeSet {
  private readonly set = new Set<NodeInfo>();
  private list: NodeInfo[] | undefined;

  update(info: NodeInfo, member: boolean): void {
    if (member === this.set.has(info)) return;
    if (member) this.set.add(info);
    else this.set.delete(info);
    this.list = undefined;
  }

  nodes(): readonly NodeInfo[] {
    // A removed Node keeps its NodeInfo (and set membership) while pods remain; it is not listed.
    return (this.list ??= [...this.set].filter((n) => n.node !== undefined));
  }

  invalidate(): void {
    this.list = undefined;
  }
}

export class SchedulerCache implements NodeInfoLister {
  private readonly nodeInfos = new Map<string, NodeInfo>();
  /** NodeInfos that have a Node object, in a stable order for round-robin filtering. */
  private readonly nodeList: NodeInfo[] = [];
  private readonly nodeListIndex = new Map<string, number>();
  private readonly podStates = new Map<string, PodState>();
  private readonly withAffinity = new NodeSet();
  private readonly withRequiredAntiAffinity = new NodeSet();
  /** Bumped on every change to a NodeInfo (Node object or pods); see {@link changedSince}. */
  private generationCounter = 0;
  /** NodeInfos in the order they changed: `journal[i]` changed at generation `journalBase + i + 1`. */
  private journal: NodeInfo[] = [];
  private journalBase = 0;
  /** Image name → number of nodes (with a Node object) listing it in status.images. */
  private readonly imageNodes = new Map<string, number>();

  /** Nodes with a Node object; the array is live — do not keep it across awaits. */
  nodes(): readonly NodeInfo[] {
    return this.nodeList;
  }

  /** Same as {@link nodes} (the {@link NodeInfoLister} plugins see). */
  list(): readonly NodeInfo[] {
    return this.nodeList;
  }

  /** Nodes hosting a pod with any pod (anti-)affinity term (upstream snapshot `HavePodsWithAffinityList`). */
  havePodsWithAffinityList(): readonly NodeInfo[] {
    return this.withAffinity.nodes();
  }

  /** Nodes hosting a pod with required anti-affinity (upstream `HavePodsWithRequiredAntiAffinityList`). */
  havePodsWithRequiredAntiAffinityList(): readonly NodeInfo[] {
    return this.withRequiredAntiAffinity.nodes();
  }

  generation(): number {
    return this.generationCounter;
  }

  /**
   * The NodeInfos changed after generation `gen` (with repeats; removed nodes included, without a
   * Node object), or undefined when the journal no longer reaches back that far.
   */
  changedSince(gen: number): readonly NodeInfo[] | undefined {
    if (gen < this.journalBase) return undefined;
    return this.journal.slice(gen - this.journalBase);
  }

  /** Records a change to `info`; the journal is restarted once it is much longer than the node list. */
  private touch(info: NodeInfo): void {
    if (this.journal.length >= Math.max(1024, 4 * this.nodeList.length)) {
      this.journalBase = this.generationCounter;
      this.journal = [];
    }
    this.generationCounter++;
    this.journal.push(info);
  }

  imageNumNodes(image: string): number {
    return this.imageNodes.get(image) ?? 0;
  }

  private countImages(info: NodeInfo, sign: 1 | -1): void {
    for (const name of info.imageSizes.keys()) {
      const n = (this.imageNodes.get(name) ?? 0) + sign;
      if (n <= 0) this.imageNodes.delete(name);
      else this.imageNodes.set(name, n);
    }
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
    if (info.node) this.countImages(info, -1);
    try {
      info.setNode(node);
    } finally {
      // Even when setNode threw, imageSizes is what is counted from now on.
      this.countImages(info, 1);
      this.touch(info);
    }
    if (!this.nodeListIndex.has(name)) {
      this.nodeListIndex.set(name, this.nodeList.length);
      this.nodeList.push(info);
      this.withAffinity.invalidate();
      this.withRequiredAntiAffinity.invalidate();
    }
  }

  /** Removes a Node; its NodeInfo stays (without a node) while pods still point at it. */
  removeNode(name: string): void {
    const info = this.nodeInfos.get(name);
    if (!info) return;
    if (info.node) this.countImages(info, -1);
    info.node = undefined;
    this.touch(info);
    const i = this.nodeListIndex.get(name);
    if (i !== undefined) {
      const last = this.nodeList.pop() as NodeInfo;
      if (last !== info) {
        this.nodeList[i] = last;
        this.nodeListIndex.set(last.name, i);
      }
      this.nodeListIndex.delete(name);
    }
    this.withAffinity.invalidate();
    this.withRequiredAntiAffinity.invalidate();
    if (info.pods.size === 0) this.nodeInfos.delete(name);
  }

  /** Records the scheduler's decision before binding, so the next cycle sees the node as used. */
  assumePod(podInfo: PodInfo, nodeName: string): void {
    this.removePodState(podInfo.uid);
    this.podStates.set(podInfo.uid, { podInfo, nodeName, assumed: true });
    this.addToNode(nodeName, podInfo);
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
    this.addToNode(nodeName, podInfo);
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
      this.trackAffinity(info);
      this.touch(info);
      if (!info.node && info.pods.size === 0) this.nodeInfos.delete(state.nodeName);
    }
    return true;
  }

  private addToNode(nodeName: string, podInfo: PodInfo): void {
    const info = this.nodeInfoFor(nodeName);
    info.addPod(podInfo);
    this.trackAffinity(info);
    this.touch(info);
  }

  private trackAffinity(info: NodeInfo): void {
    this.withAffinity.update(info, info.podsWithAffinity.size > 0);
    this.withRequiredAntiAffinity.update(info, info.podsWithRequiredAntiAffinity.size > 0);
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
