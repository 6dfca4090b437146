/**
 * The default StorageClass: kubeplane's pkg/volume/util/storageclass.go (`GetDefaultClass`), used by
 * the DefaultStorageClass admission plugin (new claims) and by the PersistentVolume controller
 * (`assignDefaultStorageClass`: claims created before a default class existed get it later).
 */
import type { StorageClass } from '../../api/index.js';
import { parseTime } from '../../util/clock/index.js';

/** `IsDefaultStorageClassAnnotation` and its beta form. */
export const DEFAULT_STORAGE_CLASS_ANNOTATIONS = ['storageclass.kubernetes.io/is-default-class', 'storageclass.beta.kubernetes.io/is-default-class'];

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
