/**
 * Request options from query parameters and bodies, validated as upstream validates
 * `metainternalversion.ListOptions` (apimachinery/pkg/apis/meta/internalversion/validation) and
 * `metav1.DeleteOptions` (apimachinery/pkg/api/validation `ValidateDeleteOptions`): bad values are
 * 422 Invalid on the options kind (`ListOptions.meta.k8s.io "" is invalid: …`), unparsable numbers 400.
 */
import { field, newBadRequest, newInvalid, type FieldError } from '../../../machinery/errors/index.js';
import { deepCopy } from '../../../machinery/meta/index.js';
import { decodeTypedObject } from '../../../machinery/serializer/index.js';
import { defaultFeatureGate } from '../../../machinery/featuregate/index.js';
import { validateFieldManager } from '../../../machinery/managedfields/index.js';

type Query = Record<string, string>;

/** `resourceVersionMatch` values. */
export type ResourceVersionMatch = '' | 'Exact' | 'NotOlderThan';

/** Options of a list or watch. */
export interface ListOptions {
  labelSelector: string;
  fieldSelector: string;
  /** 0: no limit. */
  limit: number;
  continue: string;
  /** `''` (consistent), `'0'` (any), or a revision as a string. */
  resourceVersion: string;
  resourceVersionMatch: ResourceVersionMatch;
  allowWatchBookmarks: boolean;
  /** Seconds; undefined: no timeout. */
  timeoutSeconds?: number;
  /** undefined when not sent. */
  sendInitialEvents?: boolean;
}

function int(query: Query, name: string): number | undefined {
  const v = query[name];
  if (v === undefined || v === '') return undefined;
  if (!/^-?\d+$/.test(v)) throw newBadRequest(`invalid value for ${name}: ${JSON.stringify(v)}: strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  return Number(v);
}

function bool(query: Query, name: string): boolean | undefined {
  const v = query[name];
  if (v === undefined || v === '') return undefined;
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw newBadRequest(`invalid value for ${name}: ${JSON.stringify(v)}: strconv.ParseBool: parsing ${JSON.stringify(v)}: invalid syntax`);
}

/** Parses a revision string; undefined for `''` and `'0'`. @throws StatusError 400 for a non-number. */
export function parseResourceVersion(rv: string | undefined): number | undefined {
  if (rv === undefined || rv === '' || rv === '0') return undefined;
  if (!/^\d+$/.test(rv)) throw newBadRequest(`Invalid value: ${JSON.stringify(rv)}: resourceVersion is not a number`);
  return Number(rv);
}

/**
 * upstream `ValidateListOptions` for a list (apimachinery v0.33 pkg/apis/meta/internalversion/
 * validation/validation.go), its errors in its order.
 */
function listOptionsErrors(opts: ListOptions): FieldError[] {
  const errs: FieldError[] = [];
  const match = opts.resourceVersionMatch;
  if (match !== '') {
    if (opts.resourceVersion === '') errs.push(field.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (opts.continue !== '') errs.push(field.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== 'Exact' && match !== 'NotOlderThan') errs.push(field.notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    if (match === 'Exact' && opts.resourceVersion === '0') {
      errs.push(field.forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
  }
  if (opts.sendInitialEvents !== undefined) errs.push(field.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  return errs;
}

/**
 * upstream `validateWatchOptions` (same file): `sendInitialEvents` needs
 * `resourceVersionMatch=NotOlderThan` and the WatchList gate (beta but off in v1.33);
 * `resourceVersionMatch` needs `sendInitialEvents`, can only be NotOlderThan, and not with continue.
 */
function watchOptionsErrors(opts: ListOptions): FieldError[] {
  const errs: FieldError[] = [];
  const match = opts.resourceVersionMatch;
  if (opts.sendInitialEvents !== undefined) {
    if (match !== 'NotOlderThan') errs.push(field.forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    if (!defaultFeatureGate.enabled('WatchList')) {
      errs.push(field.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled'));
    }
  }
  if (match !== '') {
    if (opts.sendInitialEvents === undefined) {
      errs.push(field.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    }
    if (match !== 'NotOlderThan') errs.push(field.notSupported('resourceVersionMatch', match, ['NotOlderThan']));
    if (opts.continue !== '') errs.push(field.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
  }
  return errs;
}

/** List/watch options from the query, validated (ValidateListOptions). */
export function parseListOptions(query: Query, watch: boolean): ListOptions {
  const opts: ListOptions = {
    labelSelector: query.labelSelector ?? '',
    fieldSelector: query.fieldSelector ?? '',
    limit: int(query, 'limit') ?? 0,
    continue: query.continue ?? '',
    resourceVersion: query.resourceVersion ?? '',
    resourceVersionMatch: (query.resourceVersionMatch ?? '') as ResourceVersionMatch,
    allowWatchBookmarks: bool(query, 'allowWatchBookmarks') ?? false,
  };
  const timeout = int(query, 'timeoutSeconds');
  if (timeout !== undefined) opts.timeoutSeconds = timeout;
  const sie = bool(query, 'sendInitialEvents');
  if (sie !== undefined) opts.sendInitialEvents = sie;
  parseResourceVersion(opts.resourceVersion);

  const errs = watch ? watchOptionsErrors(opts) : listOptionsErrors(opts);
  if (errs.length > 0) throw newInvalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', errs);
  if (opts.continue !== '' && opts.resourceVersion !== '' && opts.resourceVersion !== '0') {
    throw newBadRequest('specifying resource version is not allowed when using continue');
  }
  return opts;
}

/** `ValidateDryRun`: only `All` (or nothing). */
function dryRunErrors(v: string): FieldError[] {
  return v === '' || v === 'All' ? [] : [field.notSupported('dryRun', v, ['All'])];
}

/** `ValidateFieldValidation`: empty, Ignore, Warn or Strict (listed sorted, as upstream's set). */
function fieldValidationErrors(v: string): FieldError[] {
  return ['', 'Ignore', 'Warn', 'Strict'].includes(v) ? [] : [field.notSupported('fieldValidation', v, ['', 'Ignore', 'Strict', 'Warn'])];
}

/** `dryRun=All` → true; absent → false. @throws StatusError 422 for another value. */
export function parseDryRun(query: Query, optionsKind: string): boolean {
  const v = query.dryRun ?? '';
  const errs = dryRunErrors(v);
  if (errs.length > 0) throw newInvalid({ group: 'meta.k8s.io', kind: optionsKind }, '', errs);
  return v === 'All';
}

/** `fieldValidation`: Strict, Warn (the default when absent) or Ignore. */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** Reads `fieldValidation` (handlers `fieldValidation()`: empty means Warn). @throws StatusError 422 for another value. */
export function parseFieldValidation(query: Query, optionsKind: string): FieldValidation {
  const v = query.fieldValidation ?? '';
  const errs = fieldValidationErrors(v);
  if (errs.length > 0) throw newInvalid({ group: 'meta.k8s.io', kind: optionsKind }, '', errs);
  return v === '' ? 'Warn' : (v as FieldValidation);
}

/** The options every write takes (`metav1.CreateOptions`, `UpdateOptions`, `PatchOptions`). */
export interface WriteOptions {
  dryRun: boolean;
  validation: FieldValidation;
  /** The `fieldManager` query parameter; `''` when not sent. */
  fieldManager: string;
  /** `force` (apply only); undefined when not sent. */
  force?: boolean;
}

/** The patch type of server-side apply. */
export const APPLY_PATCH_TYPE = 'application/apply-patch+yaml';

/**
 * Reads and validates a write's options as `ValidateCreateOptions` / `ValidateUpdateOptions` /
 * `ValidatePatchOptions` do, all problems in one 422 on the options kind
 * (`PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch`):
 * an apply needs a fieldManager, `force` is only for apply, then fieldManager, dryRun and
 * fieldValidation values. `patchType` is given for patches only.
 * @throws StatusError 400 for a `force` that is not a bool, 422 as above
 */
export function parseWriteOptions(query: Query, optionsKind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions', patchType?: string): WriteOptions {
  const force = bool(query, 'force');
  const fieldManager = query.fieldManager ?? '';
  const errs: FieldError[] = [];
  if (optionsKind === 'PatchOptions') {
    if (patchType === APPLY_PATCH_TYPE) {
      if (fieldManager === '') errs.push(field.required('fieldManager', 'is required for apply patch'));
    } else if (force !== undefined) errs.push(field.forbidden('force', 'may not be specified for non-apply patch'));
  }
  errs.push(...validateFieldManager(fieldManager));
  const dryRun = query.dryRun ?? '';
  errs.push(...dryRunErrors(dryRun));
  const validation = query.fieldValidation ?? '';
  errs.push(...fieldValidationErrors(validation));
  if (errs.length > 0) throw newInvalid({ group: 'meta.k8s.io', kind: optionsKind }, '', errs);
  return { dryRun: dryRun === 'All', validation: validation === '' ? 'Warn' : (validation as FieldValidation), fieldManager, ...(force !== undefined ? { force } : {}) };
}

/** `metav1.DeleteOptions` as the store uses them. */
export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  /** Deprecated `orphanDependents`. */
  orphanDependents?: boolean;
  preconditions: { uid?: string; resourceVersion?: string };
  dryRun: boolean;
}

/**
 * DeleteOptions from the body (kubectl always sends one) merged with the query parameters
 * `gracePeriodSeconds`, `propagationPolicy`, `orphanDependents` and `dryRun` (query wins, as upstream's
 * handler decodes the query into the body's options).
 * @throws StatusError 400 for a non-object body or a value of the wrong type, 422 for an unknown
 *   propagationPolicy or both policies set
 */
export function parseDeleteOptions(body: unknown, query: Query): DeleteOptions {
  if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) {
    throw newBadRequest('the body of the request must be a DeleteOptions object');
  }
  const decoded = deepCopy((body ?? {}) as Record<string, unknown>);
  // A value of the wrong type fails decoding; upstream leaks that error as a 500 (ADR 5).
  const typeError = decodeTypedObject(decoded, 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions');
  if (typeError) throw newBadRequest(typeError);
  const b = decoded as {
    gracePeriodSeconds?: unknown;
    propagationPolicy?: unknown;
    orphanDependents?: unknown;
    preconditions?: { uid?: unknown; resourceVersion?: unknown } | null;
    dryRun?: unknown;
  };
  const opts: DeleteOptions = { preconditions: {}, dryRun: false };
  const grace = int(query, 'gracePeriodSeconds') ?? (typeof b.gracePeriodSeconds === 'number' ? b.gracePeriodSeconds : undefined);
  if (grace !== undefined) opts.gracePeriodSeconds = grace;
  const policy = query.propagationPolicy ?? (typeof b.propagationPolicy === 'string' ? b.propagationPolicy : undefined);
  const orphan = bool(query, 'orphanDependents') ?? (typeof b.orphanDependents === 'boolean' ? b.orphanDependents : undefined);
  if (orphan !== undefined) opts.orphanDependents = orphan;
  const errs: FieldError[] = [];
  if (policy !== undefined && policy !== '') {
    if (policy === 'Orphan' || policy === 'Background' || policy === 'Foreground') opts.propagationPolicy = policy;
    else errs.push(field.notSupported('propagationPolicy', policy, ['Foreground', 'Background', 'Orphan', 'nil']));
    if (orphan !== undefined) {
      errs.push(field.invalid('propagationPolicy', policy, 'orphanDependents and deletionPropagation cannot be both set'));
    }
  }
  if (errs.length > 0) throw newInvalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', errs);
  if (typeof b.preconditions?.uid === 'string') opts.preconditions.uid = b.preconditions.uid;
  if (typeof b.preconditions?.resourceVersion === 'string') opts.preconditions.resourceVersion = b.preconditions.resourceVersion;
  const dryRun = query.dryRun ?? (Array.isArray(b.dryRun) ? (b.dryRun as unknown[]).join(',') : undefined);
  opts.dryRun = parseDryRun(dryRun === undefined ? {} : { dryRun }, 'DeleteOptions');
  return opts;
}
