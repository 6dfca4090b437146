/**
 * Matching claims to volumes, shared by the PersistentVolume controller (binding) and the scheduler's
 * VolumeBinding plugin (which runs it per node). kubeplane's
 * k8s.io/component-helpers/storage/volume/pv_helpers.go (v1.33).
 */
import type { Node, ObjectReference, PersistentVolume, PersistentVolumeClaim, StorageClass } from '../../api/index.js';
import { selectorFromLabelSelector, type Selector } from '../labels/index.js';
import { parseQuantity, type Quantity } from '../quantity/index.js';
import { ANN_BOUND_BY_CONTROLLER, ANN_SELECTED_NODE, checkNodeAffinity, getPersistentVolumeClaimClass, getPersistentVolumeClass } from './helpers.js';

/** The part of a StorageClass lister that {@link isDelayBindingMode} needs (a `Lister<StorageClass>` fits). */
export interface StorageClassGetter {
  get(name: string): StorageClass | undefined;
}

/** `claimToClaimKey`: `namespace/name`. */
export function claimToClaimKey(claim: PersistentVolumeClaim): string {
  return `${claim.metadata?.namespace ?? ''}/${claim.metadata?.name ?? ''}`;
}

/** `IsDelayBindingProvisioning`: the scheduler has chosen a node for the claim (it carries {@link ANN_SELECTED_NODE}). */
export function isDelayBindingProvisioning(claim: PersistentVolumeClaim): boolean {
  const ann = claim.metadata?.annotations;
  return !!ann && Object.prototype.hasOwnProperty.call(ann, ANN_SELECTED_NODE);
}

/**
 * `IsDelayBindingMode`: whether the claim's class binds WaitForFirstConsumer. No class or a class
 * that does not exist (yet) is not delayed.
 * @throws Error `VolumeBindingMode not set for StorageClass "<name>"` when the class has no mode
 *   (the API server defaults it, so only hand-made objects lack it).
 */
export function isDelayBindingMode(claim: PersistentVolumeClaim, classLister: StorageClassGetter): boolean {
  const className = getPersistentVolumeClaimClass(claim);
  if (className === '') return false;
  const cls = classLister.get(className);
  if (!cls) return false;
  if (cls.volumeBindingMode === undefined) throw new Error(`VolumeBindingMode not set for StorageClass ${JSON.stringify(className)}`);
  return cls.volumeBindingMode === 'WaitForFirstConsumer';
}

/**
 * `IsVolumeBoundToClaim`: the volume is pre-bound or bound to the claim: its claimRef names the
 * claim's namespace and name, and, when the claimRef has a UID, the claim's UID.
 */
export function isVolumeBoundToClaim(volume: PersistentVolume, claim: PersistentVolumeClaim): boolean {
  const ref = volume.spec?.claimRef;
  if (!ref) return false;
  if ((claim.metadata?.name ?? '') !== (ref.name ?? '') || (claim.metadata?.namespace ?? '') !== (ref.namespace ?? '')) return false;
  if ((ref.uid ?? '') !== '' && (claim.metadata?.uid ?? '') !== ref.uid) return false;
  return true;
}

/**
 * `reference.GetReference` of a claim, as the controller writes it into `spec.claimRef`: kind,
 * apiVersion, namespace, name, uid and resourceVersion.
 */
export function getClaimReference(claim: PersistentVolumeClaim): ObjectReference {
  const ref: ObjectReference = { kind: 'PersistentVolumeClaim', apiVersion: 'v1' };
  const m = claim.metadata ?? {};
  if (m.namespace !== undefined) ref.namespace = m.namespace;
  if (m.name !== undefined) ref.name = m.name;
  if (m.uid !== undefined) ref.uid = m.uid;
  if (m.resourceVersion !== undefined) ref.resourceVersion = m.resourceVersion;
  return ref;
}

/**
 * `GetBindVolumeToClaim`: a copy of the volume bound to the claim (claimRef set unless it already
 * names the claim with its UID; {@link ANN_BOUND_BY_CONTROLLER} `yes` added unless the user
 * pre-bound it) and whether anything changed. The input is never modified (it may be a frozen
 * informer object).
 */
export function getBindVolumeToClaim(volume: PersistentVolume, claim: PersistentVolumeClaim): { volume: PersistentVolume; dirty: boolean } {
  let dirty = false;
  const shouldSetBoundByController = !isVolumeBoundToClaim(volume, claim);
  const clone = structuredClone<PersistentVolume>(volume);
  const ref = volume.spec?.claimRef;
  if (
    !ref ||
    ref.name !== claim.metadata?.name ||
    ref.namespace !== claim.metadata?.namespace ||
    ref.uid !== claim.metadata?.uid
  ) {
    (clone.spec ??= {}).claimRef = getClaimReference(claim);
    dirty = true;
  }
  const meta = (clone.metadata ??= {});
  if (shouldSetBoundByController && !Object.prototype.hasOwnProperty.call(meta.annotations ?? {}, ANN_BOUND_BY_CONTROLLER)) {
    meta.annotations = { ...meta.annotations, [ANN_BOUND_BY_CONTROLLER]: 'yes' };
    dirty = true;
  }
  return { volume: clone, dirty };
}

/**
 * `CheckVolumeModeMismatches`: true when the claim's and the volume's volumeMode differ (an unset
 * mode counts as `Filesystem` on either side).
 */
export function checkVolumeModeMismatches(pvcSpec: PersistentVolumeClaim['spec'], pvSpec: PersistentVolume['spec']): boolean {
  return (pvcSpec?.volumeMode ?? 'Filesystem') !== (pvSpec?.volumeMode ?? 'Filesystem');
}

/** `CheckAccessModes`: the volume offers every access mode the claim requests. */
export function checkAccessModes(claim: PersistentVolumeClaim, volume: PersistentVolume): boolean {
  const offered = new Set(volume.spec?.accessModes ?? []);
  return (claim.spec?.accessModes ?? []).every((m) => offered.has(m));
}

const ZERO = parseQuantity('0');

/** A storage quantity, `0` when absent; undefined when malformed (validation rejects those, but the caller skips them). */
function storageQuantity(list: Readonly<Record<string, unknown>> | undefined): Quantity | undefined {
  const raw = list?.['storage'];
  if (raw === undefined || raw === null) return ZERO;
  try {
    return parseQuantity(raw as string | number);
  } catch {
    return undefined;
  }
}

/** The storage capacity of a volume (`spec.capacity.storage`), `0` when absent or malformed. */
export function volumeCapacity(volume: PersistentVolume): Quantity {
  return storageQuantity(volume.spec?.capacity) ?? ZERO;
}

/** The storage a claim requests (`spec.resources.requests.storage`), `0` when absent or malformed. */
export function claimRequest(claim: PersistentVolumeClaim): Quantity {
  return storageQuantity(claim.spec?.resources?.requests) ?? ZERO;
}

/**
 * `FindMatchingVolume`: the volume for the claim among `volumes`, or undefined.
 *
 * A volume pre-bound to the claim (its claimRef names it) wins whatever its size order, if it is big
 * enough, has the claim's volumeMode (and VolumeAttributesClass), is not being deleted, and, on the
 * scheduler path, fits the node (if it does not, there is no match at all). Otherwise the smallest
 * volume that is Available, unclaimed, big enough, of the same mode, class and (with a claim selector)
 * labels, not being deleted, and, on the scheduler path, fits the node and offers the claim's access
 * modes. (The controller path does not check access modes here, as upstream.)
 *
 * @param node set only on the scheduler path: the volume's node affinity must admit its labels.
 * @param excludedVolumes names of volumes already chosen for other claims of the same pod (scheduler path).
 * @param delayBinding true on the PV controller path for WaitForFirstConsumer claims: only pre-bound
 *   volumes are returned; unbound ones are left to the scheduler.
 * @param vacEnabled the VolumeAttributesClass gate (beta, off by default in v1.33, and kubeplane drops
 *   the field): when off, volumes with a VAC never match.
 * @throws Error when the claim's selector is malformed, or (VAC gate off) the claim names a VAC.
 */
export function findMatchingVolume(
  claim: PersistentVolumeClaim,
  volumes: readonly PersistentVolume[],
  node: Node | undefined,
  excludedVolumes: ReadonlySet<string> | undefined,
  delayBinding: boolean,
  vacEnabled = false,
): PersistentVolume | undefined {
  const claimVAC = claim.spec?.volumeAttributesClassName ?? '';
  if (!vacEnabled && claimVAC !== '') {
    throw new Error(`unsupported volumeAttributesClassName is set on claim ${claimToClaimKey(claim)} when the feature-gate VolumeAttributesClass is disabled`);
  }
  const requestedQty = storageQuantity(claim.spec?.resources?.requests) ?? ZERO;
  const requestedClass = getPersistentVolumeClaimClass(claim);
  let selector: Selector | undefined;
  if (claim.spec?.selector) {
    try {
      selector = selectorFromLabelSelector(claim.spec.selector);
    } catch (e) {
      throw new Error(`error creating internal label selector for claim: ${claimToClaimKey(claim)}: ${(e as Error).message}`);
    }
  }

  let smallest: PersistentVolume | undefined;
  let smallestQty: Quantity | undefined;
  for (const volume of volumes) {
    if (excludedVolumes?.has(volume.metadata?.name ?? '')) continue;
    const boundToClaim = isVolumeBoundToClaim(volume, claim);
    if (volume.spec?.claimRef && !boundToClaim) continue;
    const volumeQty = storageQuantity(volume.spec?.capacity);
    if (!volumeQty || volumeQty.cmp(requestedQty) < 0) continue;
    if (checkVolumeModeMismatches(claim.spec, volume.spec)) continue;
    const volumeVAC = volume.spec?.volumeAttributesClassName ?? '';
    if (vacEnabled ? claimVAC !== volumeVAC : volumeVAC !== '') continue;
    if (volume.metadata?.deletionTimestamp) continue;

    const nodeAffinityValid = !node || checkNodeAffinity(volume, node.metadata?.labels) === undefined;
    if (boundToClaim) {
      // A pre-bound volume that does not fit the node makes the claim (so the pod) unfit for it.
      return nodeAffinityValid ? volume : undefined;
    }
    // The PV controller leaves unbound volumes of WaitForFirstConsumer claims to the scheduler.
    if (!node && delayBinding) continue;
    // Volumes not yet Available are skipped: binding them would likely conflict with their own sync.
    if (volume.status?.phase !== 'Available') continue;
    if (selector && !selector.matches(volume.metadata?.labels)) continue;
    if (getPersistentVolumeClass(volume) !== requestedClass) continue;
    if (!nodeAffinityValid) continue;
    if (node && !checkAccessModes(claim, volume)) continue;
    if (!smallestQty || smallestQty.cmp(volumeQty) > 0) {
      smallest = volume;
      smallestQty = volumeQty;
    }
  }
  return smallest;
}
