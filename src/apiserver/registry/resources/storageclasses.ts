/**
 * StorageClasses (storage.k8s.io/v1, cluster-scoped; `sc`). No class is created at start-up: upstream's
 * API server creates none (kind and minikube install theirs as add-ons), and there is no provisioner to
 * act on one.
 *
 * Followed (v1.33): pkg/apis/storage/v1/defaults.go (SetDefaults_StorageClass),
 * pkg/apis/storage/validation/validation.go (ValidateStorageClass, ValidateStorageClassUpdate,
 * validateProvisioner, validateParameters, validateReclaimPolicy, validateVolumeBindingMode,
 * validateAllowedTopologies), pkg/apis/core/validation/validation.go (ValidateTopologySelectorTerm),
 * pkg/registry/storage/storageclass/strategy.go, pkg/printers/internalversion/printers.go (printStorageClass).
 */
import { STORAGE_CLASSES } from '../../../api/catalogue/index.js';
import type { StorageClass } from '../../../api/index.js';
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { isQualifiedName } from '../../../machinery/validation/index.js';
import { isDefaultStorageClass } from '../../admission/default-storage-class.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { semanticDeepEqual, validateImmutableField, type ApiObject } from './helpers.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';

type StorageClassObject = ApiObject<StorageClass>;

const MAX_PARAMETERS = 512;
const MAX_PARAMETERS_SIZE = 256 * 1024;
const RECLAIM_POLICIES = ['Delete', 'Retain'];
const BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'];

/**
 * `validateProvisioner`: required, and a qualified name once lower-cased (VolumeAttributesClass's
 * driverName follows the same rule upstream).
 */
export function validateProvisioner(provisioner: string, path: string): FieldError[] {
  if (provisioner.length === 0) return [field.required(path)];
  const lowered = provisioner.toLowerCase();
  return isQualifiedName(lowered).map((msg) => field.invalid(path, lowered, msg));
}

/** `validateParameters`: at most 512 entries, no empty key, at most 256 KiB of keys and values. */
function validateParameters(params: Record<string, string> | undefined, path: string): FieldError[] {
  const entries = Object.entries(params ?? {});
  if (entries.length > MAX_PARAMETERS) return [field.tooLong(path, MAX_PARAMETERS)];
  const errs: FieldError[] = [];
  let size = 0;
  for (const [k, v] of entries) {
    if (k.length < 1) errs.push(field.invalid(path, k, 'field can not be empty.'));
    size += Buffer.byteLength(k) + Buffer.byteLength(v);
  }
  if (size > MAX_PARAMETERS_SIZE) errs.push(field.tooLong(path, MAX_PARAMETERS_SIZE));
  return errs;
}

/**
 * `validateAllowedTopologies`: each term's label expressions need values, without duplicates, under
 * distinct qualified-name keys; a term equal to an earlier one is a duplicate. Upstream compares each
 * term with placeholders that equal an empty term too, so a term without expressions is always one.
 */
function validateAllowedTopologies(terms: NonNullable<StorageClass['allowedTopologies']>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen: Record<string, string[]>[] = [];
  terms.forEach((term, i) => {
    const exprPath = `${path}[${i}].matchLabelExpressions`;
    const exprs: Record<string, string[]> = {};
    (term.matchLabelExpressions ?? []).forEach((rq, j) => {
      const p = `${exprPath}[${j}]`;
      const values = rq.values ?? [];
      const key = rq.key ?? '';
      if (values.length === 0) errs.push(field.required(`${p}.values`));
      values.forEach((v, k) => {
        if (values.indexOf(v) < k) errs.push(field.duplicate(`${p}.values[${k}]`, v));
      });
      errs.push(...isQualifiedName(key).map((msg) => field.invalid(`${p}.key`, key, msg)));
      if (Object.hasOwn(exprs, key)) errs.push(field.duplicate(`${p}.key`, key));
      exprs[key] = [...new Set(values)].sort();
    });
    if (Object.keys(exprs).length === 0 || seen.some((s) => semanticDeepEqual(s, exprs))) errs.push(field.duplicate(exprPath, ''));
    seen.push(exprs);
  });
  return errs;
}

/** `ValidateStorageClass` without the ObjectMeta checks the store runs. */
export function validateStorageClass(sc: StorageClass): FieldError[] {
  const errs = [...validateProvisioner(sc.provisioner ?? '', 'provisioner'), ...validateParameters(sc.parameters, 'parameters')];
  if (sc.reclaimPolicy && !RECLAIM_POLICIES.includes(sc.reclaimPolicy)) errs.push(field.notSupported('reclaimPolicy', sc.reclaimPolicy, RECLAIM_POLICIES));
  if (sc.volumeBindingMode === undefined || sc.volumeBindingMode === null) errs.push(field.required('volumeBindingMode'));
  else if (!BINDING_MODES.includes(sc.volumeBindingMode)) errs.push(field.notSupported('volumeBindingMode', sc.volumeBindingMode, BINDING_MODES));
  if (sc.allowedTopologies?.length) errs.push(...validateAllowedTopologies(sc.allowedTopologies, 'allowedTopologies'));
  return errs;
}

/** Go's reflect.DeepEqual of two string maps: an absent map differs from an empty one. */
function sameParameters(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
}

/** `ValidateStorageClassUpdate`: parameters, provisioner, reclaimPolicy and volumeBindingMode are immutable. */
function validateStorageClassUpdate(sc: StorageClass, old: StorageClass): FieldError[] {
  const errs: FieldError[] = [];
  if (!sameParameters(sc.parameters, old.parameters)) errs.push(field.forbidden('parameters', 'updates to parameters are forbidden.'));
  if (sc.provisioner !== old.provisioner) errs.push(field.forbidden('provisioner', 'updates to provisioner are forbidden.'));
  if ((sc.reclaimPolicy ?? '') !== (old.reclaimPolicy ?? '')) errs.push(field.forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  return [...errs, ...validateImmutableField(sc.volumeBindingMode, old.volumeBindingMode, 'volumeBindingMode')];
}

/** printStorageClass: `(default)` after the name of the default class; Delete, Immediate and false when unset. */
function printStorageClass(sc: StorageClass, now: number): unknown[] {
  return [
    `${sc.metadata?.name ?? ''}${isDefaultStorageClass(sc) ? ' (default)' : ''}`,
    sc.provisioner ?? '',
    sc.reclaimPolicy ?? 'Delete',
    sc.volumeBindingMode ?? 'Immediate',
    sc.allowVolumeExpansion ?? false,
    translateTimestampSince(sc.metadata?.creationTimestamp, now),
  ];
}

/** The storageclasses strategy. */
export const storageClassStrategy: ResourceStrategy<StorageClassObject> = {
  info: resourceInfo(STORAGE_CLASSES),
  hasStatus: false,
  /** `SetDefaults_StorageClass`. */
  defaults(sc) {
    sc.reclaimPolicy ??= 'Delete';
    sc.volumeBindingMode ??= 'Immediate';
  },
  prepareForCreate() {},
  prepareForUpdate() {},
  validate: validateStorageClass,
  validateUpdate: (sc, old) => [...validateStorageClass(sc), ...validateStorageClassUpdate(sc, old)],
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
  table: {
    columns: [
      NAME_COLUMN,
      column('Provisioner', 'string', 'provisioner indicates the type of the provisioner.'),
      column('ReclaimPolicy', 'string', 'reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete.'),
      column(
        'VolumeBindingMode',
        'string',
        'volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, VolumeBindingImmediate is used. This field is only honored by servers that enable the VolumeScheduling feature.',
      ),
      column('AllowVolumeExpansion', 'string', 'allowVolumeExpansion shows whether the storage class allow volume expand.'),
      AGE_COLUMN,
    ],
    row: (sc, now) => ({ cells: printStorageClass(sc, now) }),
  },
};
