/**
 * CSIDrivers (storage.k8s.io/v1, cluster-scoped): what a CSI driver asks of Kubernetes. Nothing in
 * kubeplane mounts volumes; the objects are stored, defaulted and validated as upstream does.
 *
 * Followed (v1.33): pkg/apis/storage/v1/defaults.go (SetDefaults_CSIDriver, with the
 * SELinuxMountReadWriteOncePod gate on), pkg/apis/storage/validation/validation.go (ValidateCSIDriver,
 * ValidateCSIDriverUpdate, validateCSIDriverSpec — its paths, such as upstream's `spec.attachedRequired`),
 * pkg/registry/storage/csidriver/strategy.go (nodeAllocatableUpdatePeriodSeconds dropped while the
 * MutableCSINodeAllocatableCount gate is off; the generation counts changes of tokenRequests,
 * requiresRepublish and seLinuxMount), pkg/printers/internalversion/printers.go (printCSIDriver).
 */
import { CSI_DRIVERS } from '../../../api/catalogue/index.js';
import type { CSIDriver } from '../../../api/index.js';
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { semanticDeepEqual, validateImmutableField, type ApiObject } from './helpers.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';

type CSIDriverSpec = CSIDriver['spec'] & { nodeAllocatableUpdatePeriodSeconds?: number; seLinuxMount?: boolean };
type CSIDriverObject = ApiObject<CSIDriver> & { spec: CSIDriverSpec };

const FS_GROUP_POLICIES = ['File', 'None', 'ReadWriteOnceWithFSType'];
const LIFECYCLE_MODES = ['Persistent', 'Ephemeral'];
const TEN_MINUTES = 600;
const TWO_TO_32 = 2 ** 32;

// The column descriptions: storagev1.CSIDriverSpec{}.SwaggerDoc() of k8s.io/api v0.33.
const ATTACH_REQUIRED_DOC =
  "attachRequired indicates this CSI volume driver requires an attach operation (because it implements the CSI ControllerPublishVolume() method), and that the Kubernetes attach detach controller should call the attach volume interface which checks the volumeattachment status and waits until the volume is attached before proceeding to mounting. The CSI external-attacher coordinates with CSI volume driver and updates the volumeattachment status when the attach operation is complete. If the CSIDriverRegistry feature gate is enabled and the value is specified to false, the attach operation will be skipped. Otherwise the attach operation will be called.\n\nThis field is immutable.";
const POD_INFO_ON_MOUNT_DOC =
  "podInfoOnMount indicates this CSI volume driver requires additional pod information (like podName, podUID, etc.) during mount operations, if set to true. If set to false, pod information will not be passed on mount. Default is false.\n\nThe CSI driver specifies podInfoOnMount as part of driver deployment. If true, Kubelet will pass pod information as VolumeContext in the CSI NodePublishVolume() calls. The CSI driver is responsible for parsing and validating the information passed in as VolumeContext.\n\nThe following VolumeContext will be passed if podInfoOnMount is set to true. This list might grow, but the prefix will be used. \"csi.storage.k8s.io/pod.name\": pod.Name \"csi.storage.k8s.io/pod.namespace\": pod.Namespace \"csi.storage.k8s.io/pod.uid\": string(pod.UID) \"csi.storage.k8s.io/ephemeral\": \"true\" if the volume is an ephemeral inline volume\n                                defined by a CSIVolumeSource, otherwise \"false\"\n\n\"csi.storage.k8s.io/ephemeral\" is a new feature in Kubernetes 1.16. It is only required for drivers which support both the \"Persistent\" and \"Ephemeral\" VolumeLifecycleMode. Other drivers can leave pod info disabled and/or ignore this field. As Kubernetes 1.15 doesn't support this field, drivers can only support one mode when deployed on such a cluster and the deployment determines which mode that is, for example via a command line parameter of the driver.\n\nThis field was immutable in Kubernetes < 1.29 and now is mutable.";
const STORAGE_CAPACITY_DOC =
  "storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage capacity that the driver deployment will report by creating CSIStorageCapacity objects with capacity information, if set to true.\n\nThe check can be enabled immediately when deploying a driver. In that case, provisioning new volumes with late binding will pause until the driver deployment has published some suitable CSIStorageCapacity object.\n\nAlternatively, the driver can be deployed with the field unset or false and it can be flipped later when storage capacity information has been published.\n\nThis field was immutable in Kubernetes <= 1.22 and now is mutable.";
const TOKEN_REQUESTS_DOC =
  "tokenRequests indicates the CSI driver needs pods' service account tokens it is mounting volume for to do necessary authentication. Kubelet will pass the tokens in VolumeContext in the CSI NodePublishVolume calls. The CSI driver should parse and validate the following VolumeContext: \"csi.storage.k8s.io/serviceAccount.tokens\": {\n  \"<audience>\": {\n    \"token\": <token>,\n    \"expirationTimestamp\": <expiration timestamp in RFC3339>,\n  },\n  ...\n}\n\nNote: Audience in each TokenRequest should be different and at most one token is empty string. To receive a new token after expiry, RequiresRepublish can be used to trigger NodePublishVolume periodically.";
const REQUIRES_REPUBLISH_DOC =
  "requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called to reflect any possible change in the mounted volume. This field defaults to false.\n\nNote: After a successful initial NodePublishVolume call, subsequent calls to NodePublishVolume should only update the contents of the volume. New mount points will not be seen by a running container.";
const VOLUME_LIFECYCLE_MODES_DOC =
  "volumeLifecycleModes defines what kind of volumes this CSI volume driver supports. The default if the list is empty is \"Persistent\", which is the usage defined by the CSI specification and implemented in Kubernetes via the usual PV/PVC mechanism.\n\nThe other mode is \"Ephemeral\". In this mode, volumes are defined inline inside the pod spec with CSIVolumeSource and their lifecycle is tied to the lifecycle of that pod. A driver has to be aware of this because it is only going to get a NodePublishVolume call for such a volume.\n\nFor more information about implementing this mode, see https://kubernetes-csi.github.io/docs/ephemeral-local-volumes.html A driver can support one or more of these modes and more modes may be added in the future.\n\nThis field is beta. This field is immutable.";

/** `SetDefaults_CSIDriver`. */
function defaultCSIDriver(d: CSIDriverObject): void {
  const spec: CSIDriverSpec = (d.spec ??= {});
  spec.attachRequired ??= true;
  spec.podInfoOnMount ??= false;
  spec.storageCapacity ??= false;
  spec.fsGroupPolicy ??= 'ReadWriteOnceWithFSType';
  if (!spec.volumeLifecycleModes?.length) spec.volumeLifecycleModes = ['Persistent'];
  spec.requiresRepublish ??= false;
  spec.seLinuxMount ??= false;
}

/** `validateTokenRequests`: distinct audiences; expirations from 10 minutes to 2^32 seconds. */
function validateTokenRequests(requests: NonNullable<CSIDriverSpec['tokenRequests']>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const audiences = new Set<string>();
  requests.forEach((r, i) => {
    const p = `${path}[${i}]`;
    if (audiences.has(r.audience)) {
      errs.push(field.duplicate(`${p}.audience`, r.audience));
      return;
    }
    audiences.add(r.audience);
    const seconds = r.expirationSeconds;
    if (seconds === undefined || seconds === null) return;
    if (seconds < TEN_MINUTES) errs.push(field.invalid(`${p}.expirationSeconds`, seconds, 'may not specify a duration less than 10 minutes'));
    if (seconds > TWO_TO_32) errs.push(field.invalid(`${p}.expirationSeconds`, seconds, 'may not specify a duration larger than 2^32 seconds'));
  });
  return errs;
}

/** `validateCSIDriverSpec`. */
function validateCSIDriverSpec(spec: CSIDriverSpec | undefined): FieldError[] {
  const s: CSIDriverSpec = spec ?? {};
  const errs: FieldError[] = [];
  const requiredBool = (v: unknown, path: string): void => {
    if (v === undefined || v === null) errs.push(field.required(path));
  };
  requiredBool(s.attachRequired, 'spec.attachedRequired');
  requiredBool(s.podInfoOnMount, 'spec.podInfoOnMount');
  requiredBool(s.storageCapacity, 'spec.storageCapacity');
  if (s.fsGroupPolicy !== undefined && s.fsGroupPolicy !== null && !FS_GROUP_POLICIES.includes(s.fsGroupPolicy)) {
    errs.push(field.notSupported('spec.fsGroupPolicy', s.fsGroupPolicy, FS_GROUP_POLICIES));
  }
  errs.push(...validateTokenRequests(s.tokenRequests ?? [], 'spec.tokenRequests'));
  for (const mode of s.volumeLifecycleModes ?? []) {
    if (!LIFECYCLE_MODES.includes(mode)) errs.push(field.notSupported('spec.volumeLifecycleModes', mode, LIFECYCLE_MODES));
  }
  requiredBool(s.seLinuxMount, 'spec.seLinuxMount');
  const period = s.nodeAllocatableUpdatePeriodSeconds;
  if (period !== undefined && period !== null && period < 10) errs.push(field.invalid('spec.nodeAllocatableUpdatePeriodSeconds', period, 'must be greater than or equal to 10 seconds'));
  return errs;
}

/** `ValidateCSIDriverUpdate`: attachRequired and volumeLifecycleModes are immutable. */
function validateCSIDriverUpdate(d: CSIDriver, old: CSIDriver): FieldError[] {
  return [
    ...validateCSIDriverSpec(d.spec),
    ...validateImmutableField(d.spec?.attachRequired, old.spec?.attachRequired, 'spec.attachedRequired'),
    ...validateImmutableField(d.spec?.volumeLifecycleModes, old.spec?.volumeLifecycleModes, 'spec.volumeLifecycleModes'),
  ];
}

/** printCSIDriver. */
function printCSIDriver(d: CSIDriver, now: number): unknown[] {
  const spec: CSIDriverSpec = d.spec ?? {};
  const modes = (spec.volumeLifecycleModes ?? []).join(',');
  const tokenRequests = spec.tokenRequests === undefined || spec.tokenRequests === null ? '<unset>' : spec.tokenRequests.map((t) => t.audience).join(',');
  return [
    d.metadata?.name ?? '',
    spec.attachRequired ?? true,
    spec.podInfoOnMount ?? false,
    spec.storageCapacity ?? false,
    tokenRequests,
    spec.requiresRepublish ?? false,
    modes || '<none>',
    translateTimestampSince(d.metadata?.creationTimestamp, now),
  ];
}

/** The csidrivers strategy. */
export const csiDriverStrategy: ResourceStrategy<CSIDriverObject> = {
  info: resourceInfo(CSI_DRIVERS),
  hasStatus: false,
  defaults: defaultCSIDriver,
  prepareForCreate(d) {
    delete d.spec.nodeAllocatableUpdatePeriodSeconds;
  },
  prepareForUpdate(d, old) {
    if (old.spec?.nodeAllocatableUpdatePeriodSeconds === undefined) delete d.spec.nodeAllocatableUpdatePeriodSeconds;
    const changed = (['tokenRequests', 'requiresRepublish', 'seLinuxMount'] as const).some((k) => !semanticDeepEqual(d.spec[k], old.spec?.[k]));
    if (changed) (d.metadata ??= {}).generation = (old.metadata?.generation ?? 0) + 1;
  },
  validate: (d) => validateCSIDriverSpec(d.spec),
  validateUpdate: validateCSIDriverUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
  table: {
    columns: [
      NAME_COLUMN,
      column('AttachRequired', 'boolean', ATTACH_REQUIRED_DOC),
      column('PodInfoOnMount', 'boolean', POD_INFO_ON_MOUNT_DOC),
      column('StorageCapacity', 'boolean', STORAGE_CAPACITY_DOC),
      column('TokenRequests', 'string', TOKEN_REQUESTS_DOC),
      column('RequiresRepublish', 'boolean', REQUIRES_REPUBLISH_DOC),
      column('Modes', 'string', VOLUME_LIFECYCLE_MODES_DOC),
      AGE_COLUMN,
    ],
    row: (d, now) => ({ cells: printCSIDriver(d, now) }),
  },
};
