/**
 * PersistentVolume and PersistentVolumeClaim defaulting and validation, shared by the two kinds and by
 * a VolumeAttachment's inline volume spec.
 *
 * Followed (v1.33): pkg/apis/core/v1/defaults.go (SetDefaults_PersistentVolume(Spec),
 * SetDefaults_PersistentVolumeClaim(Spec), SetDefaults_HostPathVolumeSource, SetDefaults_ISCSIVolumeSource,
 * SetDefaults_RBDPersistentVolumeSource, SetDefaults_AzureDiskVolumeSource,
 * SetDefaults_ScaleIOPersistentVolumeSource), pkg/apis/core/validation/validation.go
 * (ValidatePersistentVolumeSpec and the volume-source validators it calls, validateVolumeNodeAffinity,
 * ValidateNodeSelector, ValidatePersistentVolumeUpdate, ValidatePersistentVolumeClaimSpec,
 * ValidatePersistentVolumeClaimUpdate, ValidatePersistentVolumeClaimStatusUpdate),
 * pkg/volume/validation/pv_validation.go (mount options), pkg/api/persistentvolumeclaim/util.go
 * (NormalizeDataSources).
 *
 * Feature gates as a 1.33 server has them by default: VolumeAttributesClass is off (beta), so
 * `volumeAttributesClassName` is dropped on create and may not change; RecoverVolumeExpansionFailure
 * is on (beta), so a bound claim may shrink its request down to above `status.capacity`.
 *
 * Volume sources checked in depth: hostPath, local, nfs, csi, gcePersistentDisk, awsElasticBlockStore,
 * iscsi (without the IQN/EUI/NAA format regexes), rbd, cephfs, cinder, glusterfs, fc. The other sources
 * (flocker, quobyte, flexVolume, azureFile, vsphereVolume, photonPersistentDisk, portworxVolume,
 * azureDisk, scaleIO, storageos) count towards "exactly one volume type" but their contents are not
 * checked (upstream only asks a few required fields of each; none is used by kubeplane).
 */
import { posix } from 'node:path';
import type { NodeSelector, NodeSelectorRequirement, PersistentVolume, PersistentVolumeClaim } from '../../../api/index.js';
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { FIELD_IMMUTABLE_ERROR_MSG, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue, validateLabelSelector } from '../../../machinery/validation/index.js';
import { semanticDeepEqual, specDiff, validateImmutableField } from './helpers.js';
import { tryParseQuantity } from './pod-template.js';

type Spec = NonNullable<PersistentVolume['spec']>;
type PersistentVolumeClaimSpec = NonNullable<PersistentVolumeClaim['spec']>;
type Source = Record<string, unknown>;

/** `api.MountOptionAnnotation`. */
export const MOUNT_OPTIONS_ANNOTATION = 'volume.beta.kubernetes.io/mount-options';
/** `v1.BetaStorageClassAnnotation`: the class of PVs and PVCs before `storageClassName` existed. */
export const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';

const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
const RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'];
const VOLUME_MODES = ['Block', 'Filesystem'];
const HOST_PATH_TYPES = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];
/** `pdPartitionErrorMsg`. */
const PD_PARTITION_ERROR = 'must be between 1 and 255, inclusive';
const LUN_ERROR = 'must be between 0 and 255, inclusive';

/** Every PersistentVolumeSource field, in the order ValidatePersistentVolumeSpec checks them. */
export const PV_SOURCES = [
  'hostPath',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'glusterfs',
  'flocker',
  'nfs',
  'rbd',
  'quobyte',
  'cephfs',
  'iscsi',
  'cinder',
  'fc',
  'flexVolume',
  'azureFile',
  'vsphereVolume',
  'photonPersistentDisk',
  'portworxVolume',
  'azureDisk',
  'scaleIO',
  'local',
  'storageos',
  'csi',
] as const;

// ---------------------------------------------------------------------------------------------
// Defaults.

/**
 * `SetDefaults_PersistentVolumeSpec` (volumeMode Filesystem) and the generated defaults of the volume
 * sources a PersistentVolumeSpec can hold (also a VolumeAttachment's inline spec).
 */
export function defaultPersistentVolumeSpec(spec: Spec): void {
  spec.volumeMode ??= 'Filesystem';
  if (spec.hostPath) spec.hostPath.type ??= '';
  if (spec.iscsi) spec.iscsi.iscsiInterface ||= 'default';
  if (spec.rbd) {
    spec.rbd.pool ||= 'rbd';
    spec.rbd.user ||= 'admin';
    spec.rbd.keyring ||= '/etc/ceph/keyring';
  }
  if (spec.azureDisk) {
    spec.azureDisk.cachingMode ??= 'ReadWrite';
    spec.azureDisk.fsType ??= 'ext4';
    spec.azureDisk.readOnly ??= false;
    spec.azureDisk.kind ??= 'Shared';
  }
  if (spec.scaleIO) {
    spec.scaleIO.storageMode ||= 'ThinProvisioned';
    spec.scaleIO.fsType ||= 'xfs';
  }
}

/** `SetDefaults_PersistentVolume`: reclaim policy Retain, volumeMode Filesystem, phase Pending. */
export function defaultPersistentVolume(pv: PersistentVolume): void {
  const spec = ((pv as { spec?: Spec }).spec ??= {});
  spec.persistentVolumeReclaimPolicy ||= 'Retain';
  defaultPersistentVolumeSpec(spec);
  const status = ((pv as { status?: { phase?: string } }).status ??= {});
  status.phase ||= 'Pending';
}

/** `SetDefaults_PersistentVolumeClaim` and `…ClaimSpec`: volumeMode Filesystem, phase Pending. */
export function defaultPersistentVolumeClaim(pvc: PersistentVolumeClaim): void {
  const spec = ((pvc as { spec?: PersistentVolumeClaimSpec }).spec ??= {});
  spec.volumeMode ??= 'Filesystem';
  const status = ((pvc as { status?: { phase?: string } }).status ??= {});
  status.phase ||= 'Pending';
}

/**
 * `NormalizeDataSources`: a claim naming its source in only one of dataSource and dataSourceRef gets
 * the other too (dataSource only when dataSourceRef has no namespace).
 */
export function normalizeDataSources(spec: PersistentVolumeClaimSpec): void {
  if (spec.dataSource && !spec.dataSourceRef) {
    const { apiGroup, kind, name } = spec.dataSource;
    spec.dataSourceRef = { kind, name, ...(apiGroup === undefined ? {} : { apiGroup }) };
  } else if (spec.dataSourceRef && !spec.dataSource && !spec.dataSourceRef.namespace) {
    const { apiGroup, kind, name } = spec.dataSourceRef;
    spec.dataSource = { kind, name, ...(apiGroup === undefined ? {} : { apiGroup }) };
  }
}

// ---------------------------------------------------------------------------------------------
// Small validators.

function invalidEach(path: string, value: unknown, msgs: string[]): FieldError[] {
  return msgs.map((m) => field.invalid(path, value, m));
}

/** `ValidateClassName` (a DNS subdomain) as Invalid errors at `path`. */
export function validateClassName(name: string, path: string): FieldError[] {
  return invalidEach(path, name, isDNS1123Subdomain(name));
}

/** The access modes of a PV or PVC: required, known, and ReadWriteOncePod alone. */
function validateAccessModes(modes: readonly string[] | undefined, path: string, requiredDetail: string): FieldError[] {
  const list = modes ?? [];
  const errs: FieldError[] = list.length === 0 ? [field.required(path, requiredDetail)] : [];
  let rwop = false;
  let other = false;
  for (const mode of list) {
    if (!ACCESS_MODES.includes(mode)) errs.push(field.notSupported(path, mode, ACCESS_MODES));
    else if (mode === 'ReadWriteOncePod') rwop = true;
    else other = true;
  }
  if (rwop && other) errs.push(field.forbidden(path, 'may not use ReadWriteOncePod with other access modes'));
  return errs;
}

/**
 * A quantity that must be positive: `validateBasicResource` (negative: `must be a valid resource
 * quantity`, with the integer value) and `ValidatePositiveQuantityValue` (`must be greater than zero`,
 * canonical form). A malformed quantity (refused while decoding upstream) is Invalid with the parser's words.
 */
function validatePositiveQuantity(q: unknown, path: string, basic: boolean): FieldError[] {
  const [quantity, parseErr] = tryParseQuantity(q as string | number);
  if (parseErr !== undefined) return [field.invalid(path, String(q), parseErr)];
  const errs: FieldError[] = [];
  if (basic && quantity.value() < 0) errs.push(field.invalid(path, quantity.value(), 'must be a valid resource quantity'));
  if (quantity.milliValue() <= 0) errs.push(field.invalid(path, quantity.toString(), 'must be greater than zero'));
  return errs;
}

/** `validatePathNoBacksteps`: no `..` element. */
function validatePathNoBacksteps(p: string, path: string): FieldError[] {
  return p.split(/[\\/]/).includes('..') ? [field.invalid(path, p, "must not contain '..'")] : [];
}

/** `ValidateNodeSelectorRequirement` (label-keyed expressions). */
function validateNodeSelectorRequirement(rq: NodeSelectorRequirement, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const values = rq.values ?? [];
  switch (rq.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) errs.push(field.required(`${path}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) errs.push(field.forbidden(`${path}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1) errs.push(field.required(`${path}.values`, "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      break;
    default:
      errs.push(field.invalid(`${path}.operator`, rq.operator, 'not a valid selector operator'));
  }
  const key = rq.key ?? '';
  errs.push(...invalidEach(`${path}.key`, key, isQualifiedName(key)));
  values.forEach((v, i) => errs.push(...invalidEach(`${path}.values[${i}]`, v, isValidLabelValue(v))));
  return errs;
}

/** `ValidateNodeFieldSelectorRequirement`: only `metadata.name`, with In/NotIn and one value. */
function validateNodeFieldSelectorRequirement(rq: NodeSelectorRequirement, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const values = rq.values ?? [];
  if (rq.operator === 'In' || rq.operator === 'NotIn') {
    if (values.length !== 1) errs.push(field.required(`${path}.values`, "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
  } else {
    errs.push(field.invalid(`${path}.operator`, rq.operator, 'not a valid selector operator'));
  }
  if (rq.key !== 'metadata.name') errs.push(field.invalid(`${path}.key`, rq.key, 'not a valid field selector key'));
  else values.forEach((v, i) => errs.push(...invalidEach(`${path}.values[${i}]`, v, isDNS1123Subdomain(v))));
  return errs;
}

/** `ValidateNodeSelector`: at least one term; each term's expressions and fields. */
export function validateNodeSelector(selector: NodeSelector, path: string): FieldError[] {
  const termsPath = `${path}.nodeSelectorTerms`;
  const terms = selector.nodeSelectorTerms ?? [];
  if (terms.length === 0) return [field.required(termsPath, 'must have at least one node selector term')];
  return terms.flatMap((term, i) => [
    ...(term.matchExpressions ?? []).flatMap((rq, j) => validateNodeSelectorRequirement(rq, `${termsPath}[${i}].matchExpressions[${j}]`)),
    ...(term.matchFields ?? []).flatMap((rq, j) => validateNodeFieldSelectorRequirement(rq, `${termsPath}[${i}].matchFields[${j}]`)),
  ]);
}

/** `ValidateCSIDriverName`: required, at most 63 characters, a DNS subdomain once lower-cased. */
export function validateCSIDriverName(name: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (name.length === 0) errs.push(field.required(path));
  if (name.length > 63) errs.push(field.tooLong(path, 63));
  errs.push(...invalidEach(path, name, isDNS1123Subdomain(name.toLowerCase())));
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Volume sources.

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const required = (src: Source, key: string, path: string): FieldError[] => (str(src[key]) === '' ? [field.required(`${path}.${key}`)] : []);

/** `validatePVSecretReference`: name (a DNS subdomain) and namespace (a DNS label) are required. */
function validatePVSecretReference(ref: Source, path: string): FieldError[] {
  const name = str(ref['name']);
  const namespace = str(ref['namespace']);
  return [
    ...(name === '' ? [field.required(`${path}.name`)] : invalidEach(`${path}.name`, name, isDNS1123Subdomain(name))),
    ...(namespace === '' ? [field.required(`${path}.namespace`)] : invalidEach(`${path}.namespace`, namespace, isDNS1123Label(namespace))),
  ];
}

function validateHostPath(src: Source, path: string): FieldError[] {
  const p = str(src['path']);
  if (p === '') return [field.required(`${path}.path`)];
  const errs = validatePathNoBacksteps(p, `${path}.path`);
  const type = src['type'];
  if (type !== undefined && type !== null && !HOST_PATH_TYPES.includes(str(type))) errs.push(field.notSupported(`${path}.type`, type, HOST_PATH_TYPES));
  return errs;
}

function validateLocal(src: Source, path: string): FieldError[] {
  const p = str(src['path']);
  return p === '' ? [field.required(`${path}.path`)] : validatePathNoBacksteps(p, `${path}.path`);
}

function validateNFS(src: Source, path: string): FieldError[] {
  const p = str(src['path']);
  const errs = [...required(src, 'server', path), ...required(src, 'path', path)];
  if (!p.startsWith('/')) errs.push(field.invalid(`${path}.path`, p, 'must be an absolute path'));
  return errs;
}

function validateCSI(src: Source, path: string): FieldError[] {
  const errs = [...validateCSIDriverName(str(src['driver']), `${path}.driver`), ...required(src, 'volumeHandle', path)];
  for (const ref of ['controllerPublishSecretRef', 'controllerExpandSecretRef', 'nodePublishSecretRef', 'nodeExpandSecretRef']) {
    const value = src[ref];
    if (value && typeof value === 'object') errs.push(...validatePVSecretReference(value as Source, `${path}.${ref}`));
  }
  return errs;
}

function validatePartitioned(key: string): (src: Source, path: string) => FieldError[] {
  return (src, path) => {
    const partition = num(src['partition']);
    return [...required(src, key, path), ...(partition < 0 || partition > 255 ? [field.invalid(`${path}.partition`, partition, PD_PARTITION_ERROR)] : [])];
  };
}

function validateISCSI(src: Source, path: string): FieldError[] {
  const errs = [...required(src, 'targetPortal', path), ...required(src, 'iqn', path)];
  const iqn = str(src['iqn']);
  if (iqn !== '' && !/^(iqn|eui|naa)/.test(iqn)) errs.push(field.invalid(`${path}.iqn`, iqn, 'must be valid format'));
  const lun = num(src['lun']);
  if (lun < 0 || lun > 255) errs.push(field.invalid(`${path}.lun`, lun, LUN_ERROR));
  if ((src['chapAuthDiscovery'] === true || src['chapAuthSession'] === true) && !src['secretRef']) errs.push(field.required(`${path}.secretRef`));
  return errs;
}

function validateRBD(src: Source, path: string): FieldError[] {
  const monitors = Array.isArray(src['monitors']) ? src['monitors'] : [];
  return [...(monitors.length === 0 ? [field.required(`${path}.monitors`)] : []), ...required(src, 'image', path)];
}

function validateCephFS(src: Source, path: string): FieldError[] {
  const monitors = Array.isArray(src['monitors']) ? src['monitors'] : [];
  return monitors.length === 0 ? [field.required(`${path}.monitors`)] : [];
}

function validateCinder(src: Source, path: string): FieldError[] {
  const errs = required(src, 'volumeID', path);
  const ref = src['secretRef'];
  if (ref && typeof ref === 'object') errs.push(...required(ref as Source, 'name', `${path}.secretRef`), ...required(ref as Source, 'namespace', `${path}.secretRef`));
  return errs;
}

function validateGlusterfs(src: Source, path: string): FieldError[] {
  const errs = [...required(src, 'endpoints', path), ...required(src, 'path', path)];
  const ns = src['endpointsNamespace'];
  if (ns === '') errs.push(field.invalid(`${path}.endpointsNamespace`, ns, 'if the endpointnamespace is set, it must be a valid namespace name'));
  else if (typeof ns === 'string') errs.push(...invalidEach(`${path}.endpointsNamespace`, ns, isDNS1123Label(ns)));
  return errs;
}

function validateFC(src: Source, path: string): FieldError[] {
  const wwns = Array.isArray(src['targetWWNs']) ? src['targetWWNs'] : [];
  const wwids = Array.isArray(src['wwids']) ? src['wwids'] : [];
  const errs: FieldError[] = [];
  if (wwns.length < 1 && wwids.length < 1) errs.push(field.required(`${path}.targetWWNs`, 'must specify either targetWWNs or wwids, but not both'));
  if (wwns.length !== 0 && wwids.length !== 0) errs.push(field.invalid(`${path}.targetWWNs`, wwns, 'targetWWNs and wwids can not be specified simultaneously'));
  if (wwns.length !== 0) {
    const lun = src['lun'];
    if (typeof lun !== 'number') errs.push(field.required(`${path}.lun`, 'lun is required if targetWWNs is specified'));
    else if (lun < 0 || lun > 255) errs.push(field.invalid(`${path}.lun`, lun, LUN_ERROR));
  }
  return errs;
}

/**
 * The validator of each source checked in depth, and the path its errors are reported under where
 * upstream's differs from the field name (`persistentDisk` for gcePersistentDisk).
 */
const SOURCE_VALIDATORS: Partial<Record<(typeof PV_SOURCES)[number], { validate: (src: Source, path: string) => FieldError[]; path?: string }>> = {
  hostPath: { validate: validateHostPath },
  gcePersistentDisk: { validate: validatePartitioned('pdName'), path: 'persistentDisk' },
  awsElasticBlockStore: { validate: validatePartitioned('volumeID') },
  glusterfs: { validate: validateGlusterfs },
  nfs: { validate: validateNFS },
  rbd: { validate: validateRBD },
  cephfs: { validate: validateCephFS },
  iscsi: { validate: validateISCSI },
  cinder: { validate: validateCinder },
  fc: { validate: validateFC },
  local: { validate: validateLocal },
  csi: { validate: validateCSI },
};

/** Where upstream reports "more than 1 volume type" when it differs from the field name. */
const FORBIDDEN_PATH: Partial<Record<(typeof PV_SOURCES)[number], string>> = { cephfs: 'cephFS' };

/**
 * The volume sources of a spec, as ValidatePersistentVolumeSpec counts them: the first is validated,
 * every further one is `may not specify more than 1 volume type` (flexVolume always counts and is
 * never refused, as upstream's check forgets it); none is `must specify a volume type`. A local volume
 * needs node affinity. Returns the errors and whether a source was found.
 */
function validateVolumeSources(spec: Spec, path: string, nodeAffinitySpecified: boolean): FieldError[] {
  const errs: FieldError[] = [];
  let found = 0;
  const sources = spec as unknown as Record<string, unknown>;
  for (const key of PV_SOURCES) {
    const src = sources[key];
    if (src === undefined || src === null) continue;
    if (found > 0 && key !== 'flexVolume') {
      errs.push(field.forbidden(`${path}.${FORBIDDEN_PATH[key] ?? key}`, 'may not specify more than 1 volume type'));
      continue;
    }
    found++;
    const validator = SOURCE_VALIDATORS[key];
    if (validator && typeof src === 'object') errs.push(...validator.validate(src as Source, `${path}.${validator.path ?? key}`));
    if (key === 'local' && !nodeAffinitySpecified) errs.push(field.required(`${path}.nodeAffinity`, 'Local volume requires node affinity'));
  }
  if (found === 0) errs.push(field.required(path, 'must specify a volume type'));
  return errs;
}

// ---------------------------------------------------------------------------------------------
// PersistentVolume.

/** `ValidatePersistentVolumeSpec` (inline: a VolumeAttachment's inlineVolumeSpec, with its restrictions). */
export function validatePersistentVolumeSpec(spec: Spec, path: string, inline: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const inlineForbidden = (key: string): FieldError => field.forbidden(`${path}.${key}`, 'may not be specified in the context of inline volumes');
  if (inline) {
    if (spec.claimRef) errs.push(inlineForbidden('claimRef'));
    if (Object.keys(spec.capacity ?? {}).length !== 0) errs.push(inlineForbidden('capacity'));
    if (!spec.csi) errs.push(field.required(`${path}.csi`, 'has to be specified in the context of inline volumes'));
  }
  errs.push(...validateAccessModes(spec.accessModes, `${path}.accessModes`, ''));
  if (!inline) {
    const capacity = (spec.capacity ?? {}) as Record<string, unknown>;
    const names = Object.keys(capacity);
    if (names.length === 0) errs.push(field.required(`${path}.capacity`));
    if (!names.includes('storage') || names.length > 1) errs.push(field.notSupported(`${path}.capacity`, spec.capacity ?? null, ['storage']));
    for (const name of names) errs.push(...validatePositiveQuantity(capacity[name], `${path}.capacity[${name}]`, true));
  }
  const policy = spec.persistentVolumeReclaimPolicy ?? '';
  if (policy !== '') {
    if (inline && policy !== 'Retain') errs.push(field.forbidden(`${path}.persistentVolumeReclaimPolicy`, 'may only be Retain in the context of inline volumes'));
    else if (!inline && !RECLAIM_POLICIES.includes(policy)) errs.push(field.notSupported(`${path}.persistentVolumeReclaimPolicy`, policy, RECLAIM_POLICIES));
  }
  let nodeAffinitySpecified = false;
  if (spec.nodeAffinity) {
    if (inline) errs.push(inlineForbidden('nodeAffinity'));
    else {
      nodeAffinitySpecified = true;
      if (spec.nodeAffinity.required) errs.push(...validateNodeSelector(spec.nodeAffinity.required, `${path}.nodeAffinity.required`));
      else errs.push(field.required(`${path}.nodeAffinity.required`, 'must specify required node constraints'));
    }
  }
  errs.push(...validateVolumeSources(spec, path, nodeAffinitySpecified));
  if (spec.hostPath && posix.normalize(str(spec.hostPath.path) || '.') === '/' && policy === 'Recycle') {
    errs.push(field.forbidden(`${path}.persistentVolumeReclaimPolicy`, "may not be 'recycle' for a hostPath mount of '/'"));
  }
  if (spec.storageClassName) {
    if (inline) errs.push(inlineForbidden('storageClassName'));
    else errs.push(...validateClassName(spec.storageClassName, `${path}.storageClassName`));
  }
  const mode = spec.volumeMode;
  if (mode !== undefined && mode !== null) {
    if (inline && mode !== 'Filesystem') errs.push(field.forbidden(`${path}.volumeMode`, 'may not specify volumeMode other than Filesystem in the context of inline volumes'));
    else if (!inline && !VOLUME_MODES.includes(mode)) errs.push(field.notSupported(`${path}.volumeMode`, mode, VOLUME_MODES));
  }
  return errs;
}

/**
 * pv_validation.go `checkMountOption`: the mount-options annotation only on the volume types that
 * take mount options.
 */
function validateMountOptions(pv: PersistentVolume): FieldError[] {
  const spec = (pv.spec ?? {}) as Record<string, unknown>;
  const mountable = ['gcePersistentDisk', 'awsElasticBlockStore', 'glusterfs', 'nfs', 'rbd', 'quobyte', 'iscsi', 'cinder', 'cephfs', 'azureFile', 'vsphereVolume', 'azureDisk', 'photonPersistentDisk'];
  if (mountable.some((k) => spec[k] !== undefined && spec[k] !== null)) return [];
  if (pv.metadata?.annotations?.[MOUNT_OPTIONS_ANNOTATION] === undefined) return [];
  return [field.forbidden(`metadata.annotations.${MOUNT_OPTIONS_ANNOTATION}`, 'may not specify mount options for this volume type')];
}

/** `ValidatePersistentVolume` (without ObjectMeta) plus the volume plugins' mount-option check. */
export function validatePersistentVolume(pv: PersistentVolume): FieldError[] {
  return [...validatePersistentVolumeSpec(pv.spec ?? {}, 'spec', false), ...validateMountOptions(pv)];
}

/** The PersistentVolumeSource fields of a spec (what may not change after creation). */
function volumeSource(spec: Spec): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of PV_SOURCES) {
    const value = (spec as unknown as Record<string, unknown>)[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/**
 * `ValidatePersistentVolumeUpdate`: the new PV is valid; its source is immutable (a CSI volume may
 * gain a controllerExpandSecretRef); volumeMode is immutable (upstream reports it at `volumeMode`);
 * node affinity, once set, is immutable; volumeAttributesClassName may not change (gate off).
 */
export function validatePersistentVolumeUpdate(pv: PersistentVolume, old: PersistentVolume): FieldError[] {
  const errs = validatePersistentVolume(pv);
  const spec = pv.spec ?? {};
  const oldSpec = old.spec ?? {};
  let newSource = volumeSource(spec);
  if (oldSpec.csi && !oldSpec.csi.controllerExpandSecretRef && spec.csi?.controllerExpandSecretRef) {
    const csi = { ...spec.csi };
    delete csi.controllerExpandSecretRef;
    newSource = { ...newSource, csi };
  }
  const oldSource = volumeSource(oldSpec);
  if (!semanticDeepEqual(newSource, oldSource)) {
    errs.push(field.forbidden('spec.persistentvolumesource', `spec.persistentvolumesource is immutable after creation\n${specDiff('core.PersistentVolumeSource', oldSource, newSource)}`));
  }
  errs.push(...validateImmutableField(spec.volumeMode, oldSpec.volumeMode, 'volumeMode'));
  if (oldSpec.nodeAffinity) errs.push(...validateImmutableField(spec.nodeAffinity, oldSpec.nodeAffinity, 'nodeAffinity'));
  if (!semanticDeepEqual(spec.volumeAttributesClassName, oldSpec.volumeAttributesClassName)) {
    errs.push(field.forbidden('spec.volumeAttributesClassName', 'update is forbidden when the VolumeAttributesClass feature gate is disabled'));
  }
  return errs;
}

// ---------------------------------------------------------------------------------------------
// PersistentVolumeClaim.

type TypedRef = { apiGroup?: string; kind?: string; name?: string; namespace?: string };

/** `validateDataSource` / `validateDataSourceRef`. */
function validateDataSource(ref: TypedRef, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!ref.name) errs.push(field.required(`${path}.name`));
  if (!ref.kind) errs.push(field.required(`${path}.kind`));
  const apiGroup = ref.apiGroup ?? '';
  if (apiGroup === '' && ref.kind !== 'PersistentVolumeClaim') errs.push(field.invalid(path, ref.kind ?? '', "must be 'PersistentVolumeClaim' when referencing the default apiGroup"));
  if (apiGroup !== '') errs.push(...invalidEach(`${path}.apiGroup`, apiGroup, isDNS1123Subdomain(apiGroup)));
  if (ref.namespace) errs.push(...invalidEach(`${path}.namespace`, ref.namespace, isDNS1123Label(ref.namespace)));
  return errs;
}

/** `ValidatePersistentVolumeClaimSpec`. */
export function validatePersistentVolumeClaimSpec(spec: PersistentVolumeClaimSpec, path: string): FieldError[] {
  const errs = validateAccessModes(spec.accessModes, `${path}.accessModes`, 'at least 1 access mode is required');
  if (spec.selector) errs.push(...validateLabelSelector(spec.selector, `${path}.selector`));
  const requests = (spec.resources?.requests ?? {}) as Record<string, unknown>;
  const storagePath = `${path}.resources[storage]`;
  if (!Object.hasOwn(requests, 'storage')) errs.push(field.required(storagePath));
  else errs.push(...validatePositiveQuantity(requests['storage'], storagePath, false));
  if (spec.storageClassName) errs.push(...validateClassName(spec.storageClassName, `${path}.storageClassName`));
  const mode = spec.volumeMode;
  if (mode !== undefined && mode !== null && !VOLUME_MODES.includes(mode)) errs.push(field.notSupported(`${path}.volumeMode`, mode, VOLUME_MODES));
  const source = spec.dataSource as TypedRef | undefined;
  const ref = spec.dataSourceRef as TypedRef | undefined;
  if (source) errs.push(...validateDataSource({ ...source, namespace: '' }, `${path}.dataSource`));
  if (ref) errs.push(...validateDataSource(ref, `${path}.dataSourceRef`));
  if (ref?.namespace) {
    if (source) errs.push(field.invalid(path, `${path}.dataSource`, 'may not be specified when dataSourceRef.namespace is specified'));
  } else if (source && ref && !(source.apiGroup === ref.apiGroup && source.kind === ref.kind && source.name === ref.name)) {
    errs.push(field.invalid(path, `${path}.dataSource`, 'must match dataSourceRef'));
  }
  return errs;
}

/** `ValidatePersistentVolumeClaim` without ObjectMeta. */
export function validatePersistentVolumeClaim(pvc: PersistentVolumeClaim): FieldError[] {
  return validatePersistentVolumeClaimSpec(pvc.spec ?? {}, 'spec');
}

/** The storage request of a claim as a quantity in milli-units, or undefined when absent or malformed. */
function storageMilli(list: Record<string, unknown> | undefined): number | undefined {
  const q = list?.['storage'];
  if (q === undefined) return undefined;
  const [quantity] = tryParseQuantity(q as string | number);
  return quantity?.milliValue();
}

/**
 * The spec a claim update is compared against the old one with (ValidatePersistentVolumeClaimUpdate's
 * clones): volumeName may be set once, the storage class may move from the beta annotation or from
 * nil to the field, a bound claim's storage request may change, and volumeAttributesClassName is
 * checked on its own. Returns the two specs to compare and the annotation errors.
 */
function comparableClaimSpecs(pvc: PersistentVolumeClaim, old: PersistentVolumeClaim): [PersistentVolumeClaimSpec, PersistentVolumeClaimSpec, FieldError[]] {
  const next: PersistentVolumeClaimSpec = structuredClone(pvc.spec ?? {});
  const prev: PersistentVolumeClaimSpec = structuredClone(old.spec ?? {});
  const errs: FieldError[] = [];
  if (!prev.volumeName && next.volumeName !== undefined) prev.volumeName = next.volumeName;
  const oldAnnotations = old.metadata?.annotations ?? {};
  const newAnnotations = pvc.metadata?.annotations ?? {};
  const oldClass = oldAnnotations[BETA_STORAGE_CLASS_ANNOTATION];
  const newClass = newAnnotations[BETA_STORAGE_CLASS_ANNOTATION];
  const fromAnnotation = oldClass !== undefined && prev.storageClassName === undefined && next.storageClassName === oldClass && (newClass === undefined || newClass === oldClass);
  if (fromAnnotation) delete next.storageClassName;
  else {
    if ((newClass ?? '') !== (oldClass ?? '')) errs.push(field.invalid(`metadata.annotations.${BETA_STORAGE_CLASS_ANNOTATION}`, newClass ?? '', FIELD_IMMUTABLE_ERROR_MSG));
    const fromNil = next.storageClassName !== undefined && prev.storageClassName === undefined && (oldClass === undefined || next.storageClassName === oldClass);
    if (fromNil) delete next.storageClassName;
  }
  if (pvc.status?.phase === 'Bound' && next.resources?.requests) {
    const oldStorage = old.spec?.resources?.requests?.['storage'];
    if (oldStorage === undefined) delete next.resources.requests['storage'];
    else next.resources.requests['storage'] = oldStorage;
  }
  if (prev.volumeAttributesClassName === undefined) delete next.volumeAttributesClassName;
  else next.volumeAttributesClassName = prev.volumeAttributesClassName;
  return [prev, next, errs];
}

/**
 * `ValidatePersistentVolumeClaimUpdate` (without the ObjectMeta checks the store runs): the spec is
 * immutable but for volumeName (once), the storage class's move from the beta annotation, and a bound
 * claim's storage request, which may not drop to status.capacity or below; volumeMode is immutable
 * (reported at `volumeMode`); volumeAttributesClassName may not change (gate off).
 */
export function validatePersistentVolumeClaimUpdate(pvc: PersistentVolumeClaim, old: PersistentVolumeClaim): FieldError[] {
  const errs = validatePersistentVolumeClaim(pvc);
  const [prev, next, annotationErrs] = comparableClaimSpecs(pvc, old);
  errs.push(...annotationErrs);
  if (!semanticDeepEqual(next, prev)) {
    errs.push(field.forbidden('spec', `spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n${specDiff('core.PersistentVolumeClaimSpec', prev, next)}`));
  }
  const newSize = storageMilli(pvc.spec?.resources?.requests) ?? 0;
  const oldSize = storageMilli(old.spec?.resources?.requests) ?? 0;
  const statusSize = storageMilli(old.status?.capacity) ?? 0;
  if (newSize < oldSize && newSize <= statusSize) {
    errs.push(field.forbidden('spec.resources.requests.storage', 'field can not be less than status.capacity'));
  }
  errs.push(...validateImmutableField(pvc.spec?.volumeMode, old.spec?.volumeMode, 'volumeMode'));
  if (!semanticDeepEqual(pvc.spec?.volumeAttributesClassName, old.spec?.volumeAttributesClassName)) {
    errs.push(field.forbidden('spec.volumeAttributesClassName', 'update is forbidden when the VolumeAttributesClass feature gate is disabled'));
  }
  return errs;
}

/**
 * `ValidatePersistentVolumeClaimStatusUpdate` (without the ObjectMeta checks): access modes are still
 * required (upstream's path is `Spec.accessModes`), capacities are valid quantities, and the
 * allocated resources name only `storage` with valid resize statuses.
 */
export function validatePersistentVolumeClaimStatusUpdate(pvc: PersistentVolumeClaim): FieldError[] {
  const errs: FieldError[] = [];
  if ((pvc.spec?.accessModes ?? []).length === 0) errs.push(field.required('Spec.accessModes'));
  const status = pvc.status ?? {};
  for (const [name, q] of Object.entries((status.capacity ?? {}) as Record<string, unknown>)) {
    const [quantity, parseErr] = tryParseQuantity(q as string | number);
    if (parseErr !== undefined) errs.push(field.invalid(`status.capacity[${name}]`, String(q), parseErr));
    else if (quantity.value() < 0) errs.push(field.invalid(`status.capacity[${name}]`, quantity.value(), 'must be a valid resource quantity'));
  }
  const resizeStatuses = ['ControllerResizeFailed', 'ControllerResizeInProgress', 'NodeResizeFailed', 'NodeResizeInProgress', 'NodeResizePending'];
  for (const [name, v] of Object.entries((status.allocatedResourceStatuses ?? {}) as Record<string, string>)) {
    errs.push(...validateClaimResourceKey(name, 'status.allocatedResourceStatus'));
    if (!resizeStatuses.includes(v)) errs.push(field.notSupported('status.allocatedResourceStatus', name, resizeStatuses));
  }
  for (const [name, q] of Object.entries((status.allocatedResources ?? {}) as Record<string, unknown>)) {
    const keyErrs = validateClaimResourceKey(name, 'status.allocatedResources');
    if (keyErrs.length > 0) {
      errs.push(...keyErrs);
      continue;
    }
    const [quantity, parseErr] = tryParseQuantity(q as string | number);
    if (parseErr !== undefined) errs.push(field.invalid(`status.allocatedResources[${name}]`, String(q), parseErr));
    else if (quantity.value() < 0) errs.push(field.invalid(`status.allocatedResources[${name}]`, quantity.value(), 'must be a valid resource quantity'));
  }
  return errs;
}

/** `validatePersistentVolumeClaimResourceKey`: a qualified name; native resource names may only be `storage`. */
function validateClaimResourceKey(name: string, path: string): FieldError[] {
  const errs = invalidEach(path, name, isQualifiedName(name));
  if (errs.length > 0) return errs;
  const native = !name.includes('/') || name.includes('kubernetes.io/');
  return native && name !== 'storage' ? [field.notSupported(path, name, ['storage'])] : [];
}
