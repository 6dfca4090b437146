/**
 * PersistentVolumes (core/v1, cluster-scoped, with status; `pv`). The PersistentVolume controller
 * (controller/volume/persistentvolume) makes them Available, binds them and reclaims them. New
 * volumes get the `kubernetes.io/pv-protection` finalizer (the StorageObjectInUseProtection admission
 * plugin, admission/storage-object-in-use-protection.ts), which the PV-protection controller removes
 * once the volume is not Bound.
 *
 * Followed (v1.33): pkg/registry/core/persistentvolume/strategy.go (status reset to Pending with
 * lastPhaseTransitionTime on create, kept on update; the status strategy keeps the spec and stamps
 * lastPhaseTransitionTime when the phase changes; `name` field selector), defaulting and validation
 * in persistentvolume-validation.ts, pkg/printers/internalversion/printers.go (printPersistentVolume).
 *
 * Not done here: the deprecation warnings of in-tree volume types (pvutil.GetWarningsForPersistentVolume).
 */
import { PERSISTENT_VOLUMES } from '../../../api/catalogue/index.js';
import type { PersistentVolume } from '../../../api/index.js';
import { formatTime } from '../../../util/clock/index.js';
import { admitPersistentVolumeProtection } from '../../admission/storage-object-in-use-protection.js';
import type { StorageExtension } from '../extension.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { resetField, type ApiObject } from './helpers.js';
import { defaultPersistentVolume, validatePersistentVolume, validatePersistentVolumeUpdate } from './persistentvolume-validation.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';
import { accessModesString, dropVolumeAttributesClass, phaseOf, storageClassOf, storageString, volumeAttributesClassOf, volumeModeOf } from './volume-printing.js';

type PersistentVolumeObject = ApiObject<PersistentVolume>;

/**
 * The status strategy's PrepareForUpdate: the spec stays; a phase change the writer did not stamp
 * (no time, or the old one) gets lastPhaseTransitionTime = now; an unchanged phase keeps the old time.
 */
function prepareForStatusUpdate(pv: PersistentVolumeObject, old: PersistentVolume, now: number): void {
  resetField(pv, old, 'spec');
  const status = (pv.status ??= {});
  const oldStatus = old.status ?? {};
  if (status.phase === oldStatus.phase) {
    if (status.lastPhaseTransitionTime === undefined && oldStatus.lastPhaseTransitionTime !== undefined) status.lastPhaseTransitionTime = oldStatus.lastPhaseTransitionTime;
  } else if (status.lastPhaseTransitionTime === undefined || status.lastPhaseTransitionTime === oldStatus.lastPhaseTransitionTime) {
    status.lastPhaseTransitionTime = formatTime(now);
  }
}

/** printPersistentVolume. */
function printPersistentVolume(pv: PersistentVolume, now: number): unknown[] {
  const spec = pv.spec ?? {};
  const claim = spec.claimRef ? `${spec.claimRef.namespace ?? ''}/${spec.claimRef.name ?? ''}` : '';
  return [
    pv.metadata?.name ?? '',
    storageString(spec.capacity),
    accessModesString(spec.accessModes),
    spec.persistentVolumeReclaimPolicy ?? '',
    phaseOf(pv),
    claim,
    storageClassOf(pv),
    volumeAttributesClassOf(pv),
    pv.status?.reason ?? '',
    translateTimestampSince(pv.metadata?.creationTimestamp, now),
    volumeModeOf(pv),
  ];
}

/** The persistentvolumes strategy. */
export const persistentVolumeStrategy: ResourceStrategy<PersistentVolumeObject> = {
  info: resourceInfo(PERSISTENT_VOLUMES),
  hasStatus: true,
  defaults: defaultPersistentVolume,
  prepareForCreate(pv, now) {
    dropVolumeAttributesClass(pv.spec, undefined);
    pv.status = { phase: 'Pending', lastPhaseTransitionTime: formatTime(now) };
  },
  prepareForUpdate(pv, old) {
    resetField(pv, old, 'status');
    dropVolumeAttributesClass(pv.spec, old.spec);
  },
  prepareForStatusUpdate,
  validate: validatePersistentVolume,
  validateUpdate: validatePersistentVolumeUpdate,
  validateStatusUpdate: () => [],
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  // PersistentVolumeToSelectableFields: `name`, kept for backward compatibility.
  fieldSelectors: { name: (pv) => pv.metadata?.name ?? '' },
  storage: (): StorageExtension => ({ mutateCreate: admitPersistentVolumeProtection }),
  table: {
    columns: [
      NAME_COLUMN,
      column('Capacity', 'string', "capacity is the description of the persistent volume's resources and capacity. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity"),
      column('Access Modes', 'string', 'accessModes contains all ways the volume can be mounted. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes'),
      column(
        'Reclaim Policy',
        'string',
        'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim. Valid options are Retain (default for manually created PersistentVolumes), Delete (default for dynamically provisioned PersistentVolumes), and Recycle (deprecated). Recycle must be supported by the volume plugin underlying this PersistentVolume. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming',
      ),
      column('Status', 'string', 'phase indicates if a volume is available, bound to a claim, or released by a claim. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase'),
      column(
        'Claim',
        'string',
        'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim. Expected to be non-nil when bound. claim.VolumeName is the authoritative bind between PV and PVC. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding',
      ),
      column('StorageClass', 'string', 'StorageClass of the pv'),
      column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pv'),
      column('Reason', 'string', 'reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.'),
      AGE_COLUMN,
      column('VolumeMode', 'string', 'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state. Value of Filesystem is implied when not included in spec.', 1),
    ],
    row: (pv, now) => ({ cells: printPersistentVolume(pv, now) }),
  },
};
