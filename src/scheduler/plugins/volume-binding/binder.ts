/**
 * The scheduler's volume binder: which of a pod's claims are bound, which wait for the scheduler
 * (WaitForFirstConsumer) and which for the PV controller (Immediate); whether a node can serve them
 * (bound PVs' node affinity, a matching static PV, or dynamic provisioning allowed there); the assumed
 * decisions of Reserve; and PreBind's API writes and wait until the PV controller has bound everything.
 *
 * Follows upstream pkg/scheduler/framework/plugins/volumebinding/binder.go (v1.33): `GetPodVolumeClaims`,
 * `FindPodVolumes` (checkBoundClaims, findMatchingVolumes, checkVolumeProvisions, hasEnoughCapacity),
 * `AssumePodVolumes`, `RevertAssumedPodVolumes`, `BindPodVolumes` (bindAPIUpdate, then checkBindings
 * every second until `bindTimeout`). Static binding writes the PV with `spec.claimRef` set; dynamic
 * provisioning writes the PVC with the `volume.kubernetes.io/selected-node` annotation (the PV
 * controller then adds the storage-provisioner annotations and the provisioner creates the PV). In-tree
 * to CSI translation is not simulated.
 */
import type { CSIDriver, CSIStorageCapacity, Node, PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from '../../../api/index.js';
import type { Clientset } from '../../../client/index.js';
import type { Indexer, Lister } from '../../../informers/index.js';
import { errorMessage } from '../../../machinery/errors/index.js';
import { selectorFromLabelSelector } from '../../../machinery/labels/index.js';
import { parseQuantity, type Quantity } from '../../../machinery/quantity/index.js';
import {
  ANN_BIND_COMPLETED,
  ANN_SELECTED_NODE,
  NOT_SUPPORTED_PROVISIONER,
  checkNodeAffinity,
  claimRequest,
  findMatchingVolume,
  getBindVolumeToClaim,
  getPersistentVolumeClaimClass,
  isDelayBindingMode,
} from '../../../machinery/volume/index.js';
import { sleepUnlessAborted, type Clock } from '../../../util/clock/index.js';
import { AssumeCache, compareResourceVersion } from './assume-cache.js';

/** Filter reason: an unbound delayed claim finds no PV and cannot be provisioned on the node. */
export const ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind";
/** Filter reason: a bound PV's node affinity excludes the node. */
export const ERR_REASON_NODE_CONFLICT = 'node(s) had volume node affinity conflict';
/** Filter reason: no CSIStorageCapacity reachable from the node has room for a volume to provision. */
export const ERR_REASON_NOT_ENOUGH_SPACE = 'node(s) did not have enough free storage';
/** Filter reason: a claim is bound to a PV that does not exist. */
export const ERR_REASON_PV_NOT_EXIST = 'node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)';

/** The name of the PV informer index by storage class that the binder adds. */
export const PV_STORAGE_CLASS_INDEX = 'scheduler.volumebinding/storageClassName';

/** A pod's claims by binding state (upstream `PodVolumeClaims`). */
export interface PodVolumeClaims {
  /** Claims fully bound (volumeName set and bind-completed annotated). */
  boundClaims: PersistentVolumeClaim[];
  /** Unbound claims of WaitForFirstConsumer classes: the scheduler picks their node. */
  unboundClaimsDelayBinding: PersistentVolumeClaim[];
  /** Unbound claims the PV controller binds on its own (Immediate, or pre-bound by volumeName). */
  unboundClaimsImmediate: PersistentVolumeClaim[];
  /** Storage class → its PVs (assumed versions), for the delayed claims' static matching. */
  unboundVolumesDelayBinding: Map<string, PersistentVolume[]>;
}

/** A claim and the static PV proposed for it. */
export interface BindingInfo {
  pvc: PersistentVolumeClaim;
  pv: PersistentVolume;
}

/** What binding a pod's volumes on one node takes (upstream `PodVolumes`). */
export interface PodVolumes {
  /** Claims to bind to pre-provisioned PVs. */
  staticBindings: BindingInfo[];
  /** Claims to provision on the node. */
  dynamicProvisions: PersistentVolumeClaim[];
}

export interface VolumeBinderOptions {
  client: Clientset;
  clock: Clock;
  /** The PVC informer's cache. */
  pvcIndexer: Indexer<PersistentVolumeClaim>;
  /** The PV informer's cache, with the {@link PV_STORAGE_CLASS_INDEX} index. */
  pvIndexer: Indexer<PersistentVolume>;
  classLister: Lister<StorageClass>;
  podLister: Lister<Pod>;
  csiDriverLister: Lister<CSIDriver>;
  capacityLister: Lister<CSIStorageCapacity>;
  /** The scheduler's Node object by name. */
  getNode(name: string): Node | undefined;
  /** How long {@link VolumeBinder.bindPodVolumes} waits, ms (upstream bindTimeoutSeconds 600). */
  bindTimeoutMs: number;
  /** Interval of the binding checks, ms (default 1000, upstream's poll interval). */
  pollIntervalMs?: number;
}

/** `namespace/name` of a pod or claim. */
const nsName = (obj: Pod | PersistentVolumeClaim): string => `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;

/** `IsPVCFullyBound`: volumeName set and the PV controller has annotated bind-completed. */
export function isPVCFullyBound(pvc: PersistentVolumeClaim): boolean {
  return !!pvc.spec?.volumeName && Object.prototype.hasOwnProperty.call(pvc.metadata?.annotations ?? {}, ANN_BIND_COMPLETED);
}

/**
 * The claim a pod volume uses: `persistentVolumeClaim.claimName`, or `<pod>-<volume>` for a generic
 * ephemeral volume (component-helpers/storage/ephemeral `VolumeClaimName`); undefined for other volumes.
 */
export function podVolumeClaimName(pod: Pod, vol: NonNullable<NonNullable<Pod['spec']>['volumes']>[number]): { name: string; ephemeral: boolean } | undefined {
  if (vol.persistentVolumeClaim) return { name: vol.persistentVolumeClaim.claimName, ephemeral: false };
  if (vol.ephemeral) return { name: `${pod.metadata?.name ?? ''}-${vol.name}`, ephemeral: true };
  return undefined;
}

/**
 * component-helpers/storage/ephemeral `VolumeIsForPod`: an ephemeral volume's claim must be controlled
 * by the pod. Returns the error message, or undefined.
 */
export function ephemeralVolumeIsForPod(pod: Pod, pvc: PersistentVolumeClaim): string | undefined {
  const owner = pvc.metadata?.ownerReferences?.find((r) => r.controller);
  if (owner?.uid === pod.metadata?.uid) return undefined;
  return `PVC ${nsName(pvc)} was not created for pod ${nsName(pod)} (pod is not owner)`;
}

/** core/v1/helper `MatchTopologySelectorTerms`: no terms match everything; else one term's every expression. */
export function matchTopologySelectorTerms(terms: StorageClass['allowedTopologies'], labels: Readonly<Record<string, string>>): boolean {
  if (!terms || terms.length === 0) return true;
  return terms.some((t) => (t.matchLabelExpressions ?? []).every((e) => e.key in labels && e.values.includes(labels[e.key] as string)));
}

export class VolumeBinder {
  readonly pvcCache: AssumeCache<PersistentVolumeClaim>;
  readonly pvCache: AssumeCache<PersistentVolume>;
  private readonly opts: VolumeBinderOptions;

  constructor(opts: VolumeBinderOptions) {
    this.opts = opts;
    this.pvcCache = new AssumeCache(opts.pvcIndexer, 'PersistentVolumeClaim');
    this.pvCache = new AssumeCache(opts.pvIndexer, 'PersistentVolume');
  }

  /**
   * Splits the pod's claims (upstream `GetPodVolumeClaims`); unbound claims with a volumeName count as
   * immediate (the PV controller finishes those).
   * @throws Error when a claim is missing from the cache (`error getting PVC "ns/x": not found`), an
   *   ephemeral claim is not the pod's, or a class has no volumeBindingMode.
   */
  getPodVolumeClaims(pod: Pod): PodVolumeClaims {
    const claims: PodVolumeClaims = { boundClaims: [], unboundClaimsDelayBinding: [], unboundClaimsImmediate: [], unboundVolumesDelayBinding: new Map() };
    const ns = pod.metadata?.namespace ?? '';
    for (const vol of pod.spec?.volumes ?? []) {
      const ref = podVolumeClaimName(pod, vol);
      if (!ref) continue;
      const pvc = this.pvcCache.get(`${ns}/${ref.name}`);
      if (!pvc) throw new Error(`error getting PVC ${JSON.stringify(`${ns}/${ref.name}`)}: not found`);
      if (ref.ephemeral) {
        const msg = ephemeralVolumeIsForPod(pod, pvc);
        if (msg) throw new Error(msg);
      }
      if (isPVCFullyBound(pvc)) claims.boundClaims.push(pvc);
      else if (isDelayBindingMode(pvc, this.opts.classLister) && !pvc.spec?.volumeName) claims.unboundClaimsDelayBinding.push(pvc);
      else claims.unboundClaimsImmediate.push(pvc);
    }
    for (const pvc of claims.unboundClaimsDelayBinding) {
      const cls = getPersistentVolumeClaimClass(pvc);
      if (!claims.unboundVolumesDelayBinding.has(cls)) claims.unboundVolumesDelayBinding.set(cls, this.pvCache.byIndex(PV_STORAGE_CLASS_INDEX, cls));
    }
    return claims;
  }

  /**
   * Whether `node` can serve the pod's claims (upstream `FindPodVolumes`): the volumes to bind or
   * provision there, and the reasons it cannot (empty when it can).
   * @throws Error for a claim without class that needs provisioning (`no class for claim "ns/x"`), a
   *   missing class (`failed to find storage class "c"`), or a malformed claim selector.
   */
  findPodVolumes(pod: Pod, claims: PodVolumeClaims, node: Node): { podVolumes: PodVolumes; reasons: string[] } {
    const podVolumes: PodVolumes = { staticBindings: [], dynamicProvisions: [] };
    let unboundVolumesSatisfied = true;
    let boundVolumesSatisfied = true;
    let sufficientStorage = true;
    let boundPVsFound = true;
    const nodeName = node.metadata?.name ?? '';
    const labels = node.metadata?.labels ?? {};
    const done = (): { podVolumes: PodVolumes; reasons: string[] } => {
      const reasons: string[] = [];
      if (!boundVolumesSatisfied) reasons.push(ERR_REASON_NODE_CONFLICT);
      if (!unboundVolumesSatisfied) reasons.push(ERR_REASON_BIND_CONFLICT);
      if (!sufficientStorage) reasons.push(ERR_REASON_NOT_ENOUGH_SPACE);
      if (!boundPVsFound) reasons.push(ERR_REASON_PV_NOT_EXIST);
      return { podVolumes, reasons };
    };

    // checkBoundClaims: every bound PV must exist and admit the node.
    for (const pvc of claims.boundClaims) {
      const pv = this.pvCache.get(pvc.spec?.volumeName ?? '');
      if (!pv) {
        boundPVsFound = false;
        break;
      }
      if (checkNodeAffinity(pv, labels) !== undefined) {
        boundVolumesSatisfied = false;
        break;
      }
    }
    if (claims.unboundClaimsDelayBinding.length === 0) return done();

    const toMatch: PersistentVolumeClaim[] = [];
    const toProvision: PersistentVolumeClaim[] = [];
    for (const pvc of claims.unboundClaimsDelayBinding) {
      const selected = pvc.metadata?.annotations?.[ANN_SELECTED_NODE];
      if (selected !== undefined) {
        if (selected !== nodeName) {
          // Already being provisioned for another node.
          unboundVolumesSatisfied = false;
          return done();
        }
        toProvision.push(pvc);
      } else {
        toMatch.push(pvc);
      }
    }

    if (toMatch.length > 0) {
      // findMatchingVolumes: smallest claims first, so each gets the smallest PV that fits.
      const sorted = toMatch.map((pvc) => ({ pvc, size: claimRequest(pvc) })).sort((a, b) => a.size.cmp(b.size));
      const chosen = new Set<string>();
      for (const { pvc } of sorted) {
        const pvs = claims.unboundVolumesDelayBinding.get(getPersistentVolumeClaimClass(pvc)) ?? [];
        const pv = findMatchingVolume(pvc, pvs, node, chosen, true);
        if (!pv) {
          unboundVolumesSatisfied = false;
          toProvision.push(pvc);
          continue;
        }
        chosen.add(pv.metadata?.name ?? '');
        podVolumes.staticBindings.push({ pvc, pv });
      }
    }

    if (toProvision.length > 0) {
      // checkVolumeProvisions
      for (const pvc of toProvision) {
        const className = getPersistentVolumeClaimClass(pvc);
        if (className === '') throw new Error(`no class for claim ${JSON.stringify(nsName(pvc))}`);
        const cls = this.opts.classLister.get(className);
        if (!cls) throw new Error(`failed to find storage class ${JSON.stringify(className)}`);
        if (!cls.provisioner || cls.provisioner === NOT_SUPPORTED_PROVISIONER || !matchTopologySelectorTerms(cls.allowedTopologies, labels)) {
          unboundVolumesSatisfied = false;
          podVolumes.dynamicProvisions = [];
          return done();
        }
        if (!this.hasEnoughCapacity(cls.provisioner, pvc, cls, labels)) {
          unboundVolumesSatisfied = true;
          sufficientStorage = false;
          podVolumes.dynamicProvisions = [];
          return done();
        }
        podVolumes.dynamicProvisions.push(pvc);
      }
      unboundVolumesSatisfied = true;
    }
    return done();
  }

  /**
   * Upstream `hasEnoughCapacity`: only for CSI drivers that opt in (`spec.storageCapacity: true`), some
   * CSIStorageCapacity of the class, reachable from the node (`nodeTopology` selects its labels), must
   * have `maximumVolumeSize` (else `capacity`) ≥ the claim's request.
   */
  private hasEnoughCapacity(provisioner: string, pvc: PersistentVolumeClaim, cls: StorageClass, labels: Readonly<Record<string, string>>): boolean {
    const requested = pvc.spec?.resources?.requests?.storage;
    if (requested === undefined) return true;
    const driver = this.opts.csiDriverLister.get(provisioner);
    if (!driver?.spec?.storageCapacity) return true;
    const size = claimRequest(pvc);
    for (const cap of this.opts.capacityLister.list()) {
      if (cap.storageClassName !== cls.metadata?.name) continue;
      // maximumVolumeSize is the more precise limit when set.
      const limit = safeQuantity(cap.maximumVolumeSize ?? cap.capacity);
      if (!limit || limit.cmp(size) < 0 || !cap.nodeTopology) continue;
      let matches = false;
      try {
        matches = selectorFromLabelSelector(cap.nodeTopology).matches(labels);
      } catch {
        matches = false;
      }
      if (matches) return true;
    }
    return false;
  }

  /**
   * Reserve (upstream `AssumePodVolumes`): records the node's decisions in the assume caches — each
   * static PV pre-bound to its claim, each claim to provision annotated with the node — and replaces
   * `podVolumes`' entries with those assumed objects. Returns true when every claim is already bound
   * (nothing to do in PreBind).
   * @throws Error when an assumption conflicts with a newer cached object (already reverted).
   */
  assumePodVolumes(pod: Pod, nodeName: string, podVolumes: PodVolumes): boolean {
    if (this.arePodVolumesBound(pod)) return true;
    const bindings: BindingInfo[] = [];
    const provisions: PersistentVolumeClaim[] = [];
    try {
      for (const b of podVolumes.staticBindings) {
        const { volume, dirty } = getBindVolumeToClaim(b.pv, b.pvc);
        if (dirty) this.pvCache.assume(volume);
        bindings.push({ pvc: b.pvc, pv: volume });
      }
      for (const pvc of podVolumes.dynamicProvisions) {
        const clone = structuredClone(pvc);
        clone.metadata = { ...clone.metadata, annotations: { ...clone.metadata?.annotations, [ANN_SELECTED_NODE]: nodeName } };
        this.pvcCache.assume(clone);
        provisions.push(clone);
      }
    } catch (err) {
      this.revertAssumedPodVolumes({ staticBindings: bindings, dynamicProvisions: provisions });
      throw err;
    }
    podVolumes.staticBindings = bindings;
    podVolumes.dynamicProvisions = provisions;
    return false;
  }

  /** Unreserve (upstream `RevertAssumedPodVolumes`): drops the assumptions. */
  revertAssumedPodVolumes(podVolumes: PodVolumes): void {
    for (const b of podVolumes.staticBindings) this.pvCache.restore(b.pv.metadata?.name ?? '');
    for (const pvc of podVolumes.dynamicProvisions) this.pvcCache.restore(nsName(pvc));
  }

  /**
   * PreBind (upstream `BindPodVolumes`): writes the assumed PVs and PVCs, then checks every
   * `pollIntervalMs` until the PV controller has bound them all.
   * @throws Error `binding volumes: context deadline exceeded` after `bindTimeoutMs`;
   *   `binding volumes: <reason>` when binding cannot succeed any more (provisioning failed, claimRef
   *   reset, pod deleted…); the API error of a failed write (assumptions not yet written are reverted).
   */
  async bindPodVolumes(pod: Pod, nodeName: string, podVolumes: PodVolumes, signal: AbortSignal): Promise<void> {
    await this.bindAPIUpdate(podVolumes);
    const { clock } = this.opts;
    const interval = this.opts.pollIntervalMs ?? 1000;
    const deadline = clock.now() + this.opts.bindTimeoutMs;
    for (;;) {
      await sleepUnlessAborted(clock, Math.min(interval, Math.max(0, deadline - clock.now())), signal);
      if (signal.aborted) throw new Error('binding volumes: scheduler stopped');
      let bound: boolean;
      try {
        bound = this.checkBindings(pod, nodeName, podVolumes);
      } catch (err) {
        throw new Error(`binding volumes: ${errorMessage(err)}`, { cause: err });
      }
      if (bound) return;
      if (clock.now() >= deadline) throw new Error('binding volumes: context deadline exceeded');
    }
  }

  /** Upstream `bindAPIUpdate`: PV updates, then PVC updates; the objects written replace the assumed ones. */
  private async bindAPIUpdate(podVolumes: PodVolumes): Promise<void> {
    const { client } = this.opts;
    const bindings = podVolumes.staticBindings;
    const claims = podVolumes.dynamicProvisions;
    let doneBindings = 0;
    let doneClaims = 0;
    try {
      for (const b of bindings) {
        b.pv = await client.core.persistentVolumes().update(b.pv);
        doneBindings++;
      }
      for (let i = 0; i < claims.length; i++) {
        const pvc = claims[i] as PersistentVolumeClaim;
        claims[i] = await client.core.persistentVolumeClaims(pvc.metadata?.namespace ?? '').update(pvc);
        doneClaims++;
      }
    } finally {
      // Only what was not written is reverted; the rest is now the API's business.
      this.revertAssumedPodVolumes({ staticBindings: bindings.slice(doneBindings), dynamicProvisions: claims.slice(doneClaims) });
    }
  }

  /**
   * Upstream `checkBindings`, on the informers' (API) objects: true once every claim is fully bound;
   * false to check again; throws when binding can no longer succeed.
   */
  checkBindings(pod: Pod, nodeName: string, podVolumes: PodVolumes): boolean {
    const node = this.opts.getNode(nodeName);
    if (!node) throw new Error(`failed to get node ${JSON.stringify(nodeName)}: not found`);
    const labels = node.metadata?.labels ?? {};
    if (!this.opts.podLister.namespace(pod.metadata?.namespace ?? '').get(pod.metadata?.name ?? '')) {
      throw new Error(`pod does not exist any more: pods ${JSON.stringify(pod.metadata?.name ?? '')} not found`);
    }
    for (const b of podVolumes.staticBindings) {
      const pvName = b.pv.metadata?.name ?? '';
      const pv = this.pvCache.getAPIObj(pvName);
      if (!pv) throw new Error(`failed to check binding: cannot find PersistentVolume ${JSON.stringify(pvName)}`);
      const pvc = this.pvcCache.getAPIObj(nsName(b.pvc));
      if (!pvc) throw new Error(`failed to check binding: cannot find PersistentVolumeClaim ${JSON.stringify(nsName(b.pvc))}`);
      // Our own write has not reached the informer yet.
      if (compareResourceVersion(b.pv, pv) > 0) return false;
      const conflict = checkNodeAffinity(pv, labels);
      if (conflict) throw new Error(`pv ${JSON.stringify(pvName)} node affinity doesn't match node ${JSON.stringify(nodeName)}: ${conflict}`);
      if (!pv.spec?.claimRef?.uid) throw new Error(`ClaimRef got reset for pv ${JSON.stringify(pvName)}`);
      if (!isPVCFullyBound(pvc)) return false;
    }
    for (const claim of podVolumes.dynamicProvisions) {
      const pvc = this.pvcCache.getAPIObj(nsName(claim));
      if (!pvc) throw new Error(`failed to check provisioning pvc: cannot find PersistentVolumeClaim ${JSON.stringify(nsName(claim))}`);
      if (compareResourceVersion(claim, pvc) > 0) return false;
      const selected = pvc.metadata?.annotations?.[ANN_SELECTED_NODE];
      if (selected === undefined && !pvc.metadata?.annotations) throw new Error(`selectedNode annotation reset for PVC ${JSON.stringify(pvc.metadata?.name ?? '')}`);
      // The provisioner removes the annotation to ask for another node.
      if (selected !== nodeName) throw new Error(`provisioning failed for PVC ${JSON.stringify(pvc.metadata?.name ?? '')}`);
      const volumeName = pvc.spec?.volumeName;
      if (volumeName) {
        const pv = this.pvCache.getAPIObj(volumeName);
        // Not there yet (API delay); or deleted, and the claim will be unbound.
        if (!pv) return false;
        const conflict = checkNodeAffinity(pv, labels);
        if (conflict) throw new Error(`pv ${JSON.stringify(volumeName)} node affinity doesn't match node ${JSON.stringify(nodeName)}: ${conflict}`);
      }
      if (!isPVCFullyBound(pvc)) return false;
    }
    return true;
  }

  /** Upstream `arePodVolumesBound`: every claim the pod uses is fully bound (in the assume cache). */
  private arePodVolumesBound(pod: Pod): boolean {
    const ns = pod.metadata?.namespace ?? '';
    for (const vol of pod.spec?.volumes ?? []) {
      const ref = podVolumeClaimName(pod, vol);
      if (!ref) continue;
      const pvc = this.pvcCache.get(`${ns}/${ref.name}`);
      if (!pvc || !isPVCFullyBound(pvc)) return false;
    }
    return true;
  }
}

/** A quantity, or undefined when malformed (a bad CSIStorageCapacity must not fail the cycle). */
function safeQuantity(q: string | number | undefined): Quantity | undefined {
  if (q === undefined) return undefined;
  try {
    return parseQuantity(q);
  } catch {
    return undefined;
  }
}
