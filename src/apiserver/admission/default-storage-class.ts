/**
 * The DefaultStorageClass admission plugin (plugin/pkg/admission/storage/storageclass/setdefault/
 * admission.go, pkg/volume/util/storageclass.go GetDefaultClass), enabled in kube-apiserver by
 * default: a new PersistentVolumeClaim that names no class — neither `storageClassName` (an empty
 * string counts as naming "no class") nor the beta annotation — gets the cluster's default
 * StorageClass, the one annotated `storageclass.kubernetes.io/is-default-class: "true"` (or the beta
 * annotation); when several are, the newest, then the first by name. Without a default class the
 * claim is left as it is. Create only, after defaulting and before validation.
 */
import type { KubeObject, PersistentVolumeClaim, StorageClass } from '../../api/index.js';
import { defaultStorageClass, persistentVolumeClaimHasClass } from '../../machinery/volume/index.js';

// The default-class rule lives in machinery/volume: the PersistentVolume controller applies it too.
export { DEFAULT_STORAGE_CLASS_ANNOTATIONS, defaultStorageClass, isDefaultStorageClass } from '../../machinery/volume/index.js';

/** Sets a new claim's `storageClassName` to the default class when it names none (see the module doc). */
export function admitDefaultStorageClass(obj: KubeObject, classes: Iterable<StorageClass>): void {
  const pvc = obj as PersistentVolumeClaim & KubeObject;
  if (persistentVolumeClaimHasClass(pvc)) return;
  const spec = (pvc.spec ??= {}) as { storageClassName?: string };
  const def = defaultStorageClass(classes);
  if (def?.metadata?.name) spec.storageClassName = def.metadata.name;
}
