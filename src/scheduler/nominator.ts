/**
 * The pods nominated to run on a node: preemptors waiting for their victims to terminate. While a
 * pod is nominated, filtering for pods of lower or equal priority counts it on that node, so the room
 * its victims free is not taken by someone else (framework.ts `runFilterPluginsWithNominatedPods`).
 *
 * Follows upstream pkg/scheduler/backend/queue/nominator.go (`AddNominatedPod`, `UpdateNominatedPod`,
 * `DeleteNominatedPodIfExists`, `NominatedPodsForNode`): a nomination comes from the pod's
 * `status.nominatedNodeName` or, before that status write is observed, from the scheduler's own
 * PostFilter result (which then survives an update that does not carry it yet).
 */
import type { Pod } from '../api/index.js';
import { newPodInfo, type PodInfo } from './node-info.js';

/** How a scheduling failure changes the pod's nomination (upstream `NominatingInfo`). */
export type NominatingInfo =
  /** Keep whatever `status.nominatedNodeName` says (upstream ModeNoop). */
  | undefined
  /** Nominate to `nodeName`, or clear the nomination when it is '' (upstream ModeOverride). */
  | { nodeName: string };

export class PodNominator {
  private readonly byNode = new Map<string, PodInfo[]>();
  private readonly nodeOf = new Map<string, string>();

  /** Number of nominated pods. */
  get size(): number {
    return this.nodeOf.size;
  }

  /** The nominated node of a pod, or undefined. */
  nominatedNodeOf(uid: string): string | undefined {
    return this.nodeOf.get(uid);
  }

  /** The pods nominated to `nodeName` (a live array: do not keep it). */
  readonly nominatedPodsForNode = (nodeName: string): readonly PodInfo[] => this.byNode.get(nodeName) ?? [];

  /**
   * (Re)nominates a pending pod: to `info.nodeName` when given, else to its `status.nominatedNodeName`;
   * an empty name only removes the nomination.
   */
  addNominatedPod(podInfo: PodInfo, info: NominatingInfo): void {
    this.delete(podInfo.uid);
    const nodeName = info ? info.nodeName : (podInfo.pod.status?.nominatedNodeName ?? '');
    if (!nodeName) return;
    this.nodeOf.set(podInfo.uid, nodeName);
    const list = this.byNode.get(nodeName);
    if (list) list.push(podInfo);
    else this.byNode.set(nodeName, [podInfo]);
  }

  /**
   * A pending pod changed. When neither the old nor the new object names a node but the scheduler
   * nominated one in memory, the nomination is kept: the status write carrying it is on its way.
   */
  updateNominatedPod(oldPod: Pod, newPod: Pod): void {
    const uid = newPod.metadata?.uid ?? '';
    const inMemory = this.nodeOf.get(uid);
    const keep = !oldPod.status?.nominatedNodeName && !newPod.status?.nominatedNodeName && inMemory !== undefined;
    if (!keep && !newPod.status?.nominatedNodeName && inMemory === undefined) return;
    this.addNominatedPod(newPodInfo(newPod), keep ? { nodeName: inMemory } : undefined);
  }

  /** Drops a pod's nomination (it was bound or deleted). */
  delete(uid: string): void {
    const nodeName = this.nodeOf.get(uid);
    if (nodeName === undefined) return;
    this.nodeOf.delete(uid);
    const list = this.byNode.get(nodeName);
    if (!list) return;
    const i = list.findIndex((p) => p.uid === uid);
    if (i >= 0) list.splice(i, 1);
    if (list.length === 0) this.byNode.delete(nodeName);
  }
}
