/**
 * PersistentVolumeClaims (core/v1, namespaced, with status; `pvc`). The PersistentVolume controller
 * (controller/volume/persistentvolume) binds them to volumes or hands them to a provisioner.
 *
 * New claims that name no class get the default StorageClass (the DefaultStorageClass admission
 * plugin, admission/default-storage-class.ts), and the `kubernetes.io/pvc-protection` finalizer (the
 * StorageObjectInUseProtection admission plugin, admission/storage-object-in-use-protection.ts),
 * which the PVC-protection controller removes once no pod uses the claim.
 *
 * Followed (v1.33): pkg/registry/core/persistentvolumeclaim/strategy.go (status reset on create —
 * upstream stores an empty status and defaults its phase to Pending on every read; here Pending is
 * stored —, dataSource kept only for PersistentVolumeClaim and VolumeSnapshot sources and mirrored to
 * dataSourceRef, the status strategy keeps the spec, `name` field selector), defaulting and validation
 * in persistentvolume-validation.ts, pkg/printers/internalversion/printers.go
 * (printPersistentVolumeClaim).
 *
 * Not done here: the deprecation warnings of pvcutil.GetWarningsForPersistentVolumeClaim; the
 * PersistentVolumeClaimResize admission plugin (kubeplane's volumes cannot be expanded).
 */
import { PERSISTENT_VOLUME_CLAIMS, STORAGE_CLASSES } from '../../../api/catalogue/index.js';
import type { PersistentVolumeClaim, StorageClass } from '../../../api/index.js';
import { admitDefaultStorageClass } from '../../admission/default-storage-class.js';
import { admitLimitRangerClaim, limitRangesFor, limitRangesOf } from '../../admission/limit-ranger.js';
import { LiveLookup } from '../../admission/live-lookup.js';
import { admitPersistentVolumeClaimProtection } from '../../admission/storage-object-in-use-protection.js';
import type { StorageContext, StorageExtension } from '../extension.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { resetField, type ApiObject } from './helpers.js';
import {
  defaultPersistentVolumeClaim,
  normalizeDataSources,
  validatePersistentVolumeClaim,
  validatePersistentVolumeClaimStatusUpdate,
  validatePersistentVolumeClaimUpdate,
} from './persistentvolume-validation.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';
import { accessModesString, dropVolumeAttributesClass, phaseOf, storageClassOf, storageString, volumeAttributesClassOf, volumeModeOf } from './volume-printing.js';

type PersistentVolumeClaimObject = ApiObject<PersistentVolumeClaim>;
type ClaimSpec = NonNullable<PersistentVolumeClaim['spec']>;

/**
 * `EnforceDataSourceBackwardsCompatibility`: unless the stored claim already had one, a dataSource
 * other than a PersistentVolumeClaim or a snapshot.storage.k8s.io VolumeSnapshot is dropped (such
 * sources belong in dataSourceRef).
 */
function enforceDataSourceBackwardsCompatibility(spec: ClaimSpec, old: ClaimSpec | undefined): void {
  if (old?.dataSource || !spec.dataSource) return;
  const { apiGroup, kind } = spec.dataSource;
  const enabled = (kind === 'PersistentVolumeClaim' && !apiGroup) || (kind === 'VolumeSnapshot' && apiGroup === 'snapshot.storage.k8s.io');
  if (!enabled) delete spec.dataSource;
}

/**
 * The admission of new claims: DefaultStorageClass, over the served StorageClasses (none when they
 * are not served), StorageObjectInUseProtection, then LimitRanger's claim checks, which also apply
 * to updates.
 */
function persistentVolumeClaimStorage({ storeOf, clock }: StorageContext): StorageExtension {
  const limitRanges = new LiveLookup(clock);
  return {
    mutateCreate: async (pvc, namespace) => {
      const classes = storeOf(STORAGE_CLASSES.group, STORAGE_CLASSES.resource)?.cachedObjects() ?? [];
      admitDefaultStorageClass(pvc, classes as unknown as StorageClass[]);
      admitPersistentVolumeClaimProtection(pvc);
      admitLimitRangerClaim(pvc, await limitRangesFor(limitRanges, storeOf, namespace));
    },
    // LimitRanger checks updates of claims too (a resize past the max), not only creates.
    validateAdmission: (pvc, old) => {
      if (old) admitLimitRangerClaim(pvc, limitRangesOf(storeOf, pvc.metadata?.namespace ?? ''));
    },
  };
}

/** printPersistentVolumeClaim: capacity and access modes only once bound to a volume. */
function printPersistentVolumeClaim(pvc: PersistentVolumeClaim, now: number): unknown[] {
  const spec = pvc.spec ?? {};
  const bound = !!spec.volumeName;
  return [
    pvc.metadata?.name ?? '',
    phaseOf(pvc),
    spec.volumeName ?? '',
    bound ? storageString(pvc.status?.capacity) : '',
    bound ? accessModesString(pvc.status?.accessModes) : '',
    storageClassOf(pvc),
    volumeAttributesClassOf(pvc),
    translateTimestampSince(pvc.metadata?.creationTimestamp, now),
    volumeModeOf(pvc),
  ];
}

/** The persistentvolumeclaims strategy. */
export const persistentVolumeClaimStrategy: ResourceStrategy<PersistentVolumeClaimObject> = {
  info: resourceInfo(PERSISTENT_VOLUME_CLAIMS),
  hasStatus: true,
  defaults: defaultPersistentVolumeClaim,
  prepareForCreate(pvc) {
    pvc.status = { phase: 'Pending' };
    const spec = (pvc.spec ??= {});
    dropVolumeAttributesClass(spec, undefined);
    enforceDataSourceBackwardsCompatibility(spec, undefined);
    normalizeDataSources(spec);
  },
  prepareForUpdate(pvc, old) {
    resetField(pvc, old, 'status');
    const spec = (pvc.spec ??= {});
    dropVolumeAttributesClass(spec, old.spec);
    enforceDataSourceBackwardsCompatibility(spec, old.spec);
    normalizeDataSources(spec);
    // The stored claim too, so that one saved before dataSourceRef existed passes validation.
    if (old.spec) normalizeDataSources(old.spec);
  },
  prepareForStatusUpdate(pvc, old) {
    resetField(pvc, old, 'spec');
  },
  validate: validatePersistentVolumeClaim,
  validateUpdate: validatePersistentVolumeClaimUpdate,
  validateStatusUpdate: validatePersistentVolumeClaimStatusUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  // PersistentVolumeClaimToSelectableFields: `name`, kept for backward compatibility.
  fieldSelectors: { name: (pvc) => pvc.metadata?.name ?? '' },
  storage: persistentVolumeClaimStorage,
  table: {
    columns: [
      NAME_COLUMN,
      column('Status', 'string', 'phase represents the current phase of PersistentVolumeClaim.'),
      column('Volume', 'string', 'volumeName is the binding reference to the PersistentVolume backing this claim.'),
      column('Capacity', 'string', 'capacity represents the actual resources of the underlying volume.'),
      column('Access Modes', 'string', 'accessModes contains the actual access modes the volume backing the PVC has. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1'),
      column('StorageClass', 'string', 'StorageClass of the pvc'),
      column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pvc'),
      AGE_COLUMN,
      column('VolumeMode', 'string', 'volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not included in claim spec.', 1),
    ],
    row: (pvc, now) => ({ cells: printPersistentVolumeClaim(pvc, now) }),
  },
};
