/**
 * The StorageObjectInUseProtection admission plugin (plugin/pkg/admission/storage/
 * storageobjectinuseprotection/admission.go, v1.33; enabled in kube-apiserver by default): every new
 * PersistentVolumeClaim gets the `kubernetes.io/pvc-protection` finalizer and every new
 * PersistentVolume `kubernetes.io/pv-protection`, unless already present. The PVC- and PV-protection
 * controllers remove them once the object is no longer in use, so a claim a pod still mounts (or a
 * volume still bound) stays Terminating instead of disappearing. Create only.
 */
import type { KubeObject } from '../../api/index.js';
import { PV_PROTECTION_FINALIZER, PVC_PROTECTION_FINALIZER } from '../../machinery/volume/index.js';

function addFinalizer(obj: KubeObject, finalizer: string): void {
  const meta = (obj.metadata ??= {});
  const finalizers = meta.finalizers ?? [];
  if (!finalizers.includes(finalizer)) meta.finalizers = [...finalizers, finalizer];
}

/** Adds `kubernetes.io/pvc-protection` to a new claim. */
export function admitPersistentVolumeClaimProtection(obj: KubeObject): void {
  addFinalizer(obj, PVC_PROTECTION_FINALIZER);
}

/** Adds `kubernetes.io/pv-protection` to a new volume. */
export function admitPersistentVolumeProtection(obj: KubeObject): void {
  addFinalizer(obj, PV_PROTECTION_FINALIZER);
}
