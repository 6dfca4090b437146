/**
 * VolumeAttachments (storage.k8s.io/v1, cluster-scoped, with status): a request to attach a volume to
 * a node, which an external attacher answers in the status. Stored and validated; kubeplane runs no
 * attach/detach controller, so none is ever attached unless a client writes the status.
 *
 * Followed (v1.33): pkg/apis/storage/validation/validation.go (ValidateVolumeAttachment,
 * ValidateVolumeAttachmentV1, ValidateVolumeAttachmentUpdate — the spec is immutable),
 * pkg/registry/storage/volumeattachment/strategy.go (v1: status reset on create and kept on update; the
 * status subresource changes only the status), pkg/printers/internalversion/printers.go
 * (printVolumeAttachment; upstream gives the Attacher column the `name` format too).
 */
import { VOLUME_ATTACHMENTS } from '../../../api/catalogue/index.js';
import type { VolumeAttachment } from '../../../api/index.js';
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { FIELD_IMMUTABLE_ERROR_MSG, isDNS1123Subdomain } from '../../../machinery/validation/index.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { resetField, semanticDeepEqual, type ApiObject } from './helpers.js';
import { defaultPersistentVolumeSpec, validateCSIDriverName, validatePersistentVolumeSpec } from './persistentvolume-validation.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';

type VolumeAttachmentObject = ApiObject<VolumeAttachment>;
type VolumeError = NonNullable<NonNullable<VolumeAttachment['status']>['attachError']>;

const MAX_ATTACHED_VOLUME_METADATA_SIZE = 256 * 1024;
const MAX_VOLUME_ERROR_MESSAGE_SIZE = 1024;
const EXACTLY_ONE_SOURCE = 'must specify exactly one of inlineVolumeSpec and persistentVolumeName';

/** `validateVolumeAttachmentSource`: exactly one of a PV name (non-empty) and an inline PV spec. */
function validateSource(source: VolumeAttachment['spec']['source'] | undefined, path: string): FieldError[] {
  const inline = source?.inlineVolumeSpec;
  const pvName = source?.persistentVolumeName;
  const hasName = pvName !== undefined && pvName !== null;
  if (!inline && !hasName) return [field.required(path, EXACTLY_ONE_SOURCE)];
  if (inline && hasName) return [field.forbidden(path, EXACTLY_ONE_SOURCE)];
  if (hasName) return pvName === '' ? [field.required(`${path}.persistentVolumeName`, 'must specify non empty persistentVolumeName')] : [];
  return validatePersistentVolumeSpec(inline ?? {}, `${path}.inlineVolumeSpec`, true);
}

/** `validateVolumeError`: a message of at most 1 KiB (reported with upstream's 256 KiB limit) and a non-negative code. */
function validateVolumeError(e: VolumeError | undefined, path: string): FieldError[] {
  if (!e) return [];
  const errs: FieldError[] = [];
  if ((e.message ?? '').length > MAX_VOLUME_ERROR_MESSAGE_SIZE) errs.push(field.tooLong(`${path}.message`, MAX_ATTACHED_VOLUME_METADATA_SIZE));
  const code = (e as { errorCode?: number }).errorCode;
  if (code !== undefined && code !== null && code < 0) errs.push(field.invalid(`${path}.errorCode`, code, 'must be between 0 and 2147483647, inclusive'));
  return errs;
}

/** `ValidateVolumeAttachment` and `ValidateVolumeAttachmentV1` without the ObjectMeta checks. */
function validateVolumeAttachment(va: VolumeAttachment): FieldError[] {
  const spec = va.spec ?? {};
  const attacher = spec.attacher ?? '';
  const errs: FieldError[] = attacher === '' ? [field.required('spec.attacher')] : [];
  errs.push(...validateSource(spec.source, 'spec.source'));
  const nodeName = spec.nodeName ?? '';
  errs.push(...isDNS1123Subdomain(nodeName).map((msg) => field.invalid('spec.nodeName', nodeName, msg)));
  const status: NonNullable<VolumeAttachment['status']> = va.status ?? { attached: false };
  let metadataSize = 0;
  for (const [k, v] of Object.entries(status.attachmentMetadata ?? {})) metadataSize += Buffer.byteLength(k) + Buffer.byteLength(v);
  if (metadataSize > MAX_ATTACHED_VOLUME_METADATA_SIZE) errs.push(field.tooLong('status.attachmentMetadata', MAX_ATTACHED_VOLUME_METADATA_SIZE));
  errs.push(...validateVolumeError(status.attachError, 'status.attachError'), ...validateVolumeError(status.detachError, 'status.detachError'));
  // The v1 checks: the attacher is a CSI driver name, the PV name a valid name.
  errs.push(...validateCSIDriverName(attacher, 'spec.attacher'));
  const pvName = spec.source?.persistentVolumeName;
  if (pvName !== undefined && pvName !== null) errs.push(...isDNS1123Subdomain(pvName).map((msg) => field.invalid('spec.source.persistentVolumeName', pvName, msg)));
  return errs;
}

/** `ValidateVolumeAttachmentUpdate`: the spec is read-only. */
function validateVolumeAttachmentUpdate(va: VolumeAttachment, old: VolumeAttachment): FieldError[] {
  const errs = validateVolumeAttachment(va);
  if (!semanticDeepEqual(va.spec, old.spec)) errs.push(field.invalid('spec', va.spec, FIELD_IMMUTABLE_ERROR_MSG));
  return errs;
}

/** The volumeattachments strategy. */
export const volumeAttachmentStrategy: ResourceStrategy<VolumeAttachmentObject> = {
  info: resourceInfo(VOLUME_ATTACHMENTS),
  hasStatus: true,
  /** The generated defaults reach the inline volume spec. */
  defaults(va) {
    const inline = va.spec?.source?.inlineVolumeSpec;
    if (inline) defaultPersistentVolumeSpec(inline);
  },
  prepareForCreate(va) {
    // `attached` is not omitted when false: an empty status encodes as {attached: false}.
    va.status = { attached: false };
  },
  prepareForUpdate(va, old) {
    resetField(va, old, 'status');
  },
  validate: validateVolumeAttachment,
  validateUpdate: validateVolumeAttachmentUpdate,
  validateStatusUpdate: validateVolumeAttachmentUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
  table: {
    columns: [
      NAME_COLUMN,
      column('Attacher', 'string', 'attacher indicates the name of the volume driver that MUST handle this request. This is the name returned by GetPluginName().', 0, 'name'),
      column('PV', 'string', 'persistentVolumeName represents the name of the persistent volume to attach.'),
      column('Node', 'string', 'nodeName represents the node that the volume should be attached to.'),
      column('Attached', 'boolean', 'attached indicates the volume is successfully attached. This field must only be set by the entity completing the attach operation, i.e. the external-attacher.'),
      AGE_COLUMN,
    ],
    row: (va, now) => ({
      cells: [
        va.metadata?.name ?? '',
        va.spec?.attacher ?? '',
        va.spec?.source?.persistentVolumeName ?? '',
        va.spec?.nodeName ?? '',
        va.status?.attached ?? false,
        translateTimestampSince(va.metadata?.creationTimestamp, now),
      ],
    }),
  },
};
