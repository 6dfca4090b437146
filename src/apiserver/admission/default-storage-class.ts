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
import { parseTime } from '../../util/clock/index.js';

/** `IsDefaultStorageClassAnnotation` and its beta form. */
export const DEFAULT_STORAGE_CLASS_ANNOTATIONS = ['storageclass.kubernetes.io/is-default-class', 'storageclass.beta.kubernetes.io/is-default-class'];
const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

/** `IsDefaultAnnotation`: either annotation is `"true"`. */
export function isDefaultStorageClass(sc: StorageClass): boolean {
  const annotations = sc.metadata?.annotations ?? {};
  return DEFAULT_STORAGE_CLASS_ANNOTATIONS.some((a) => annotations[a] === 'true');
}

/** `GetDefaultClass`: the newest default class, then the first by name; undefined when none is. */
export function defaultStorageClass(classes: Iterable<StorageClass>): StorageClass | undefined {
  const created = (sc: StorageClass): number => parseTime(sc.metadata?.creationTimestamp) ?? 0;
  const name = (sc: StorageClass): string => sc.metadata?.name ?? '';
  return [...classes].filter(isDefaultStorageClass).sort((a, b) => created(b) - created(a) || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0))[0];
}

/** Sets a new claim's `storageClassName` to the default class when it names none (see the module doc). */
export function admitDefaultStorageClass(obj: KubeObject, classes: Iterable<StorageClass>): void {
  const pvc = obj as PersistentVolumeClaim & KubeObject;
  if (pvc.metadata?.annotations?.[BETA_STORAGE_CLASS_ANNOTATION] !== undefined) return;
  const spec = (pvc.spec ??= {}) as { storageClassName?: string };
  if (spec.storageClassName !== undefined && spec.storageClassName !== null) return;
  const def = defaultStorageClass(classes);
  if (def?.metadata?.name) spec.storageClassName = def.metadata.name;
}
