/**
 * The VolumeBinding plugin and its binder (upstream pkg/scheduler/framework/plugins/volumebinding).
 */
export {
  VOLUME_BINDING,
  ERR_REASON_UNBOUND_IMMEDIATE,
  VolumeBinding,
  isSchedulableAfterCSINodeChange,
  isSchedulableAfterPersistentVolumeClaimChange,
  isSchedulableAfterStorageClassChange,
  type VolumeBindingOptions,
} from './volume-binding.js';
export {
  ERR_REASON_BIND_CONFLICT,
  ERR_REASON_NODE_CONFLICT,
  ERR_REASON_NOT_ENOUGH_SPACE,
  ERR_REASON_PV_NOT_EXIST,
  PV_STORAGE_CLASS_INDEX,
  VolumeBinder,
  isPVCFullyBound,
  matchTopologySelectorTerms,
  type BindingInfo,
  type PodVolumeClaims,
  type PodVolumes,
  type VolumeBinderOptions,
} from './binder.js';
export { AssumeCache, compareResourceVersion } from './assume-cache.js';
