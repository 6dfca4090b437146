/**
 * The VolumeBinding plugin: pods using PersistentVolumeClaims are scheduled only where their volumes
 * can be: a claim the PV controller must bind first (Immediate class) keeps the pod Pending; a bound
 * PV's node affinity restricts the nodes; a WaitForFirstConsumer claim is bound on the chosen node (to
 * a matching static PV there, or provisioned with the node in `volume.kubernetes.io/selected-node`),
 * and the pod is bound only once the PV controller has bound its claims.
 *
 * Follows upstream pkg/scheduler/framework/plugins/volumebinding/volume_binding.go (v1.33): PreFilter
 * (`podHasPVCs`, unbound immediate claims ⇒ UnschedulableAndUnresolvable "pod has unbound immediate
 * PersistentVolumeClaims"), Filter (`FindPodVolumes` reasons, UnschedulableAndUnresolvable), Reserve
 * (`AssumePodVolumes`), PreBind (`BindPodVolumes`), Unreserve (`RevertAssumedPodVolumes`), and the
 * queueing hints of `EventsToRegister`. No Score (upstream's is behind the alpha
 * StorageCapacityScoring/VolumeCapacityPriority gates).
 *
 * Pods without PVC or generic ephemeral volumes return Skip from PreFilter after one scan of
 * `spec.volumes`: their Filter is not run, and Reserve/PreBind find no state.
 */
import type { CSINode, Node, PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from '../../../api/index.js';
import type { Clientset } from '../../../client/index.js';
import type { SharedInformerFactory } from '../../../informers/index.js';
import { semanticDeepEqual } from '../../../machinery/meta/index.js';
import { getPersistentVolumeClass } from '../../../machinery/volume/index.js';
import type { Clock } from '../../../util/clock/index.js';
import type { NodeInfo, PodInfo } from '../../node-info.js';
import type { CycleState, FilterPlugin, FilterStatus, PreBindPlugin, PreFilterPlugin, PreFilterResult, ReservePlugin } from '../types.js';
import { unresolvable } from '../types.js';
import { PV_STORAGE_CLASS_INDEX, VolumeBinder, ephemeralVolumeIsForPod, podVolumeClaimName, type PodVolumeClaims, type PodVolumes } from './binder.js';

/** The plugin's name (upstream `names.VolumeBinding`). */
export const VOLUME_BINDING = 'VolumeBinding';

/** PreFilter reason when a claim of an Immediate class is not bound yet. */
export const ERR_REASON_UNBOUND_IMMEDIATE = 'pod has unbound immediate PersistentVolumeClaims';

/** What PreFilter found, read by Filter, Reserve, PreBind and Unreserve (upstream `stateData`). */
interface StateData {
  podVolumeClaims: PodVolumeClaims;
  /** Node name → the volumes to bind there, found by Filter. */
  podVolumesByNode: Map<string, PodVolumes>;
  /** Set by Reserve: every claim was already bound, PreBind has nothing to do. */
  allBound: boolean;
}

export interface VolumeBindingOptions {
  client: Clientset;
  informers: SharedInformerFactory;
  clock: Clock;
  /** The scheduler's Node object by name. */
  getNode(name: string): Node | undefined;
  /** ms; default 600000 (upstream `bindTimeoutSeconds`). */
  bindTimeoutMs?: number;
  /** ms between PreBind's binding checks; default 1000. */
  pollIntervalMs?: number;
}

const readState = (state: CycleState): StateData | undefined => state.read(VOLUME_BINDING) as StateData | undefined;

/** True when the pod has a PVC or generic ephemeral volume (cheap: no lookups). */
function usesClaims(pod: Pod): boolean {
  const vols = pod.spec?.volumes;
  if (!vols) return false;
  for (const v of vols) if (v.persistentVolumeClaim || v.ephemeral) return true;
  return false;
}

export class VolumeBinding implements PreFilterPlugin, FilterPlugin, ReservePlugin, PreBindPlugin {
  readonly name = VOLUME_BINDING;
  readonly binder: VolumeBinder;
  private readonly pvcLister;

  constructor(opts: VolumeBindingOptions) {
    const { informers } = opts;
    const pvInformer = informers.core.persistentVolumes();
    try {
      pvInformer.addIndexers({ [PV_STORAGE_CLASS_INDEX]: (pv: PersistentVolume) => [getPersistentVolumeClass(pv)] });
    } catch {
      // Another scheduler on this factory added the same index already.
    }
    const pvcInformer = informers.core.persistentVolumeClaims();
    this.pvcLister = pvcInformer.lister();
    this.binder = new VolumeBinder({
      client: opts.client,
      clock: opts.clock,
      pvcIndexer: pvcInformer.getIndexer(),
      pvIndexer: pvInformer.getIndexer(),
      classLister: informers.storage.storageClasses().lister(),
      podLister: informers.core.pods().lister(),
      csiDriverLister: informers.storage.csiDrivers().lister(),
      capacityLister: informers.storage.csiStorageCapacities().lister(),
      getNode: (name) => opts.getNode(name),
      bindTimeoutMs: opts.bindTimeoutMs ?? 600_000,
      pollIntervalMs: opts.pollIntervalMs,
    });
  }

  /**
   * Upstream `podHasPVCs`: a missing claim, one bound to a lost PV, or one being deleted make the pod
   * unschedulable with that message (`persistentvolumeclaim "x" not found`, `… is being deleted`).
   */
  private checkPodClaims(pod: Pod): string | undefined {
    const lister = this.pvcLister.namespace(pod.metadata?.namespace ?? '');
    for (const vol of pod.spec?.volumes ?? []) {
      const ref = podVolumeClaimName(pod, vol);
      if (!ref) continue;
      const pvc = lister.get(ref.name);
      if (!pvc) {
        return ref.ephemeral
          ? `waiting for ephemeral volume controller to create the persistentvolumeclaim ${JSON.stringify(ref.name)}`
          : `persistentvolumeclaim ${JSON.stringify(ref.name)} not found`;
      }
      if (pvc.status?.phase === 'Lost') {
        return `persistentvolumeclaim ${JSON.stringify(ref.name)} bound to non-existent persistentvolume ${JSON.stringify(pvc.spec?.volumeName ?? '')}`;
      }
      if (pvc.metadata?.deletionTimestamp) return `persistentvolumeclaim ${JSON.stringify(ref.name)} is being deleted`;
      if (ref.ephemeral) {
        const msg = ephemeralVolumeIsForPod(pod, pvc);
        if (msg) return msg;
      }
    }
    return undefined;
  }

  preFilter(podInfo: PodInfo, state: CycleState): PreFilterResult {
    const pod = podInfo.pod;
    if (!usesClaims(pod)) return 'Skip';
    const problem = this.checkPodClaims(pod);
    if (problem) return unresolvable(this.name, problem);
    const podVolumeClaims = this.binder.getPodVolumeClaims(pod);
    // The PV controller binds these; the PVC update event brings the pod back.
    if (podVolumeClaims.unboundClaimsImmediate.length > 0) return unresolvable(this.name, ERR_REASON_UNBOUND_IMMEDIATE);
    state.write(VOLUME_BINDING, { podVolumeClaims, podVolumesByNode: new Map(), allBound: false } satisfies StateData);
    return undefined;
  }

  filter(podInfo: PodInfo, nodeInfo: NodeInfo, state?: CycleState): FilterStatus | undefined {
    const s = (state && readState(state));
    const node = nodeInfo.node;
    if (!s || !node) return undefined;
    const { podVolumes, reasons } = this.binder.findPodVolumes(podInfo.pod, s.podVolumeClaims, node);
    if (reasons.length > 0) return unresolvable(this.name, ...reasons);
    s.podVolumesByNode.set(nodeInfo.name, podVolumes);
    return undefined;
  }

  reserve(podInfo: PodInfo, state: CycleState, nodeName: string): void {
    const s = readState(state);
    if (!s) return;
    const podVolumes = s.podVolumesByNode.get(nodeName);
    s.allBound = podVolumes ? this.binder.assumePodVolumes(podInfo.pod, nodeName, podVolumes) : true;
  }

  unreserve(_podInfo: PodInfo, state: CycleState, nodeName: string): void {
    const podVolumes = readState(state)?.podVolumesByNode.get(nodeName);
    if (podVolumes) this.binder.revertAssumedPodVolumes(podVolumes);
  }

  preBindPreFlight(_podInfo: PodInfo, state: CycleState): boolean {
    const s = readState(state);
    return !!s && !s.allBound;
  }

  async preBind(podInfo: PodInfo, state: CycleState, nodeName: string, signal: AbortSignal): Promise<void> {
    const s = readState(state);
    if (!s || s.allBound) return;
    const podVolumes = s.podVolumesByNode.get(nodeName);
    if (!podVolumes) throw new Error(`no pod volumes found for node ${JSON.stringify(nodeName)}`);
    await this.binder.bindPodVolumes(podInfo.pod, nodeName, podVolumes, signal);
  }
}

/** Queueing hint for a PVC add/update: the pod uses this claim (same namespace, same name). */
export function isSchedulableAfterPersistentVolumeClaimChange(pod: Pod, pvc: PersistentVolumeClaim): boolean {
  if ((pod.metadata?.namespace ?? '') !== (pvc.metadata?.namespace ?? '')) return false;
  const name = pvc.metadata?.name ?? '';
  return (pod.spec?.volumes ?? []).some((v) => podVolumeClaimName(pod, v)?.name === name);
}

/** Queueing hint for a StorageClass update: only a change of allowedTopologies may help. */
export function isSchedulableAfterStorageClassChange(oldClass: StorageClass, newClass: StorageClass): boolean {
  return !semanticDeepEqual(oldClass.allowedTopologies, newClass.allowedTopologies);
}

/** The CSINode annotation listing in-tree plugins migrated to CSI on the node. */
const MIGRATED_PLUGINS_ANNOTATION = 'storage.alpha.kubernetes.io/migrated-plugins';

/** Queueing hint for a CSINode update: only a change of the migrated-plugins annotation may help. */
export function isSchedulableAfterCSINodeChange(oldNode: CSINode, newNode: CSINode): boolean {
  return oldNode.metadata?.annotations?.[MIGRATED_PLUGINS_ANNOTATION] !== newNode.metadata?.annotations?.[MIGRATED_PLUGINS_ANNOTATION];
}
