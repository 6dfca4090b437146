/**
 * Storage helpers shared by the PersistentVolume controller, the scheduler's VolumeBinding plugin and
 * the provisioner: the binding annotations, the class of a claim or volume, and whether a volume's
 * node affinity admits a node. kubeplane's k8s.io/component-helpers/storage/volume/helpers.go (v1.33).
 */
import type { Node, PersistentVolume, PersistentVolumeClaim } from '../../api/index.js';
import { matchNodeSelectorTerms } from '../scheduling/index.js';

/**
 * `AnnBindCompleted` (claims): the claim has been through its initial binding; its value does not
 * matter. With it, a claim whose volume disappears is Lost rather than still being set up.
 */
export const ANN_BIND_COMPLETED = 'pv.kubernetes.io/bind-completed';

/**
 * `AnnBoundByController` (volumes and claims): the controller, not the user, wrote the binding
 * (claimRef / volumeName). Its absence means the user pre-bound the object. Value `yes`.
 */
export const ANN_BOUND_BY_CONTROLLER = 'pv.kubernetes.io/bound-by-controller';

/** `AnnSelectedNode` (claims): set by the scheduler for WaitForFirstConsumer claims; the chosen node's name. */
export const ANN_SELECTED_NODE = 'volume.kubernetes.io/selected-node';

/** `NotSupportedProvisioner`: a class with this provisioner has no dynamic provisioning. */
export const NOT_SUPPORTED_PROVISIONER = 'kubernetes.io/no-provisioner';

/** `AnnDynamicallyProvisioned` (volumes): the provisioner that created the volume. */
export const ANN_DYNAMICALLY_PROVISIONED = 'pv.kubernetes.io/provisioned-by';

/** `AnnMigratedTo` (volumes and claims): the CSI driver an in-tree volume was migrated to. */
export const ANN_MIGRATED_TO = 'pv.kubernetes.io/migrated-to';

/** `AnnStorageProvisioner` (claims): the provisioner asked to provision the claim. */
export const ANN_STORAGE_PROVISIONER = 'volume.kubernetes.io/storage-provisioner';

/** `AnnBetaStorageProvisioner`: the deprecated beta spelling of {@link ANN_STORAGE_PROVISIONER}, still written. */
export const ANN_BETA_STORAGE_PROVISIONER = 'volume.beta.kubernetes.io/storage-provisioner';

/** `PVDeletionProtectionFinalizer`: put on volumes by external provisioners (HonorPVReclaimPolicy). */
export const PV_DELETION_PROTECTION_FINALIZER = 'external-provisioner.volume.kubernetes.io/finalizer';

/** `PVDeletionInTreeProtectionFinalizer`: the in-tree equivalent of {@link PV_DELETION_PROTECTION_FINALIZER}. */
export const PV_DELETION_IN_TREE_PROTECTION_FINALIZER = 'kubernetes.io/pv-controller';

/** `v1.BetaStorageClassAnnotation`: the class of a volume or claim before `storageClassName` existed; it wins over the field. */
export const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

/** `PVCProtectionFinalizer` (k8s.io/kubernetes/pkg/util): keeps a claim used by a pod from going away. */
export const PVC_PROTECTION_FINALIZER = 'kubernetes.io/pvc-protection';

/** `PVProtectionFinalizer`: keeps a volume bound to a claim from going away. */
export const PV_PROTECTION_FINALIZER = 'kubernetes.io/pv-protection';

/** `GetPersistentVolumeClaimClass`: the beta annotation, else `spec.storageClassName`, else `""` (no class). */
export function getPersistentVolumeClaimClass(claim: PersistentVolumeClaim): string {
  const ann = claim.metadata?.annotations;
  if (ann && Object.prototype.hasOwnProperty.call(ann, BETA_STORAGE_CLASS_ANNOTATION)) {
    return ann[BETA_STORAGE_CLASS_ANNOTATION] ?? '';
  }
  return claim.spec?.storageClassName ?? '';
}

/**
 * `PersistentVolumeClaimHasClass`: the claim names a class, by the beta annotation or by
 * `storageClassName` (`""` counts: it asks for no class).
 */
export function persistentVolumeClaimHasClass(claim: PersistentVolumeClaim): boolean {
  const ann = claim.metadata?.annotations;
  if (ann && Object.prototype.hasOwnProperty.call(ann, BETA_STORAGE_CLASS_ANNOTATION)) return true;
  const sc = claim.spec?.storageClassName as string | null | undefined;
  return sc !== undefined && sc !== null;
}

/** `GetPersistentVolumeClass`: the beta annotation, else `spec.storageClassName` (`""` when none). */
export function getPersistentVolumeClass(volume: PersistentVolume): string {
  const ann = volume.metadata?.annotations;
  if (ann && Object.prototype.hasOwnProperty.call(ann, BETA_STORAGE_CLASS_ANNOTATION)) {
    return ann[BETA_STORAGE_CLASS_ANNOTATION] ?? '';
  }
  return volume.spec?.storageClassName ?? '';
}

/**
 * `CheckNodeAffinity`: undefined when the volume's required node affinity admits a node with these
 * labels (or the volume has none), else the reason (`no matching NodeSelectorTerms`). Upstream
 * returns an error; a string is returned here so callers need no try/catch. Upstream matches only the
 * labels (the node it builds has no name), so `matchFields` on `metadata.name` never match: kept.
 */
export function checkNodeAffinity(pv: PersistentVolume, nodeLabels: Readonly<Record<string, string>> | undefined): string | undefined {
  const required = pv.spec?.nodeAffinity?.required;
  if (!required) return undefined;
  if (!matchNodeSelectorTerms(required.nodeSelectorTerms ?? [], nodeLabels ?? {}, '')) return 'no matching NodeSelectorTerms';
  return undefined;
}

/** `v1.VolumeNodeAffinity`. */
export type VolumeNodeAffinity = NonNullable<NonNullable<PersistentVolume['spec']>['nodeAffinity']>;

/** `GetVolumeNodeAffinity`: a required affinity `key In [value]`, as local volumes carry. */
export function getVolumeNodeAffinity(key: string, value: string): VolumeNodeAffinity {
  return { required: { nodeSelectorTerms: [{ matchExpressions: [{ key, operator: 'In', values: [value] }] }] } };
}

/** Convenience: {@link checkNodeAffinity} against a Node object; true when the volume may be used there. */
export function volumeFitsNode(pv: PersistentVolume, node: Node): boolean {
  return checkNodeAffinity(pv, node.metadata?.labels) === undefined;
}
