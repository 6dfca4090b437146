/**
 * Cell helpers the PersistentVolume and PersistentVolumeClaim printers share
 * (pkg/apis/core/helper/helpers.go GetAccessModesAsString, GetPersistentVolumeClass,
 * GetPersistentVolumeClaimClass; resource.Quantity's String).
 */
import type { ObjectMeta } from '../../../api/index.js';
import { BETA_STORAGE_CLASS_ANNOTATION } from './persistentvolume-validation.js';
import { tryParseQuantity } from './pod-template.js';

/** `GetAccessModesAsString`: the modes present, abbreviated, in a fixed order: `RWO,ROX,RWX,RWOP`. */
export function accessModesString(modes: readonly string[] | undefined): string {
  const present = new Set(modes ?? []);
  const short: [string, string][] = [
    ['ReadWriteOnce', 'RWO'],
    ['ReadOnlyMany', 'ROX'],
    ['ReadWriteMany', 'RWX'],
    ['ReadWriteOncePod', 'RWOP'],
  ];
  return short.filter(([mode]) => present.has(mode)).map(([, abbr]) => abbr).join(',');
}

/** The `storage` entry of a resource list in canonical form (`1Gi`), `0` when absent, as written when malformed. */
export function storageString(list: Record<string, unknown> | undefined): string {
  const q = list?.['storage'];
  if (q === undefined || q === null) return '0';
  const [quantity] = tryParseQuantity(q as string | number);
  return quantity ? quantity.toString() : JSON.stringify(q);
}

/**
 * The storage class of a PV or PVC: the beta annotation when present, else `storageClassName`
 * (`GetPersistentVolumeClass`, `GetPersistentVolumeClaimClass`).
 */
export function storageClassOf(obj: { metadata?: ObjectMeta; spec?: { storageClassName?: string } }): string {
  return obj.metadata?.annotations?.[BETA_STORAGE_CLASS_ANNOTATION] ?? obj.spec?.storageClassName ?? '';
}

/** The phase column: `Terminating` once deletion was requested. */
export function phaseOf(obj: { metadata?: ObjectMeta; status?: { phase?: string } }): string {
  return obj.metadata?.deletionTimestamp ? 'Terminating' : (obj.status?.phase ?? '');
}

/** `volumeAttributesClassName`, or `<unset>`. */
export function volumeAttributesClassOf(obj: { spec?: { volumeAttributesClassName?: string } }): string {
  return obj.spec?.volumeAttributesClassName ?? '<unset>';
}

/** `volumeMode`, or `<unset>`. */
export function volumeModeOf(obj: { spec?: { volumeMode?: string } }): string {
  return obj.spec?.volumeMode ?? '<unset>';
}

/**
 * Drops `volumeAttributesClassName` from a new spec unless the stored one had it (DropDisabledFields
 * with the VolumeAttributesClass gate off, as 1.33 has it by default).
 */
export function dropVolumeAttributesClass(spec: { volumeAttributesClassName?: string } | undefined, old: { volumeAttributesClassName?: string } | undefined): void {
  if (spec && old?.volumeAttributesClassName === undefined) delete spec.volumeAttributesClassName;
}
