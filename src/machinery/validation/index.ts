/**
 * Name, label, annotation, selector and ObjectMeta validation with upstream's exact messages.
 *
 * Followed (v1.33):
 * - apimachinery/pkg/util/validation/validation.go (IsDNS1123Subdomain, IsDNS1123Label, IsDNS1035Label,
 *   IsQualifiedName, IsValidLabelValue, MaxLenError, RegexError)
 * - apimachinery/pkg/apis/meta/v1/validation/validation.go (ValidateLabels, ValidateLabelSelector,
 *   ValidateManagedFields)
 * - apimachinery/pkg/api/validation/objectmeta.go (ValidateObjectMeta, ValidateObjectMetaUpdate,
 *   ValidateAnnotations, ValidateOwnerReferences, ValidateFinalizers)
 * - apimachinery/pkg/api/validation/generic.go (ValidateNonnegativeField, NameIsDNSSubdomain's prefix masking)
 *
 * Every function returns errors rather than throwing; an empty array means valid. Field paths are the
 * dotted strings upstream prints (`metadata.labels`, `spec.selector.matchExpressions[0].values`).
 */
import { field, type FieldError } from '../errors/index.js';
import type { LabelSelector, ObjectMeta, OwnerReference, ManagedFieldsEntry } from '../../api/index.js';

export { isValidCIDR, isValidCIDRForLegacyField, isValidIP, isValidIPForLegacyField } from './ip.js';

/** `validation.FieldImmutableErrorMsg`. */
export const FIELD_IMMUTABLE_ERROR_MSG = 'field is immutable';
/** `validation.IsNegativeErrorMsg`. */
export const IS_NEGATIVE_ERROR_MSG = 'must be greater than or equal to 0';
/** Total bytes of annotation keys plus values (`TotalAnnotationSizeLimitB`, 256 KiB). */
export const TOTAL_ANNOTATION_SIZE_LIMIT_B = 256 * 1024;

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_LABEL_ERR_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_LABEL_MAX_LENGTH = 63;
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_ERR_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL_ERR_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const DNS1035_LABEL_MAX_LENGTH = 63;
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME_ERR_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_MAX_LENGTH = 63;
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_ERR_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MAX_LENGTH = 63;

const dns1123LabelRegexp = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const dns1123SubdomainRegexp = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const dns1035LabelRegexp = new RegExp(`^${DNS1035_LABEL_FMT}$`);
const qualifiedNameRegexp = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const labelValueRegexp = new RegExp(`^${LABEL_VALUE_FMT}$`);

/** Go's `len(s)`: UTF-8 bytes. ASCII strings (nearly all of them) skip the encoder. */
function byteLength(s: string): number {
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\x7f]*$/.test(s) ? s.length : Buffer.byteLength(s, 'utf8');
}

/** `validation.MaxLenError`: `must be no more than 63 characters`. */
export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** `validation.RegexError`: `<msg> (e.g. 'a',  or 'b', regex used for validation is '<fmt>')`. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  // Upstream appends "'x', " per example and " or " between them, hence the double space: `'a',  or 'b', `.
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

/** `validation.EmptyError`. */
const EMPTY_ERROR = 'must be non-empty';

/** `IsDNS1123Subdomain`: lower-case RFC 1123 subdomain, at most 253 bytes. Used for most object names. */
export function isDNS1123Subdomain(v: string): string[] {
  const errs: string[] = [];
  if (byteLength(v) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!dns1123SubdomainRegexp.test(v)) errs.push(regexError(DNS1123_SUBDOMAIN_ERR_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errs;
}

/** `IsDNS1123Label`: lower-case RFC 1123 label (no dots), at most 63 bytes. Used for namespace names. */
export function isDNS1123Label(v: string): string[] {
  const errs: string[] = [];
  if (byteLength(v) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!dns1123LabelRegexp.test(v)) {
    // A valid subdomain that is not a valid label can only be failing on its dots.
    if (dns1123SubdomainRegexp.test(v)) errs.push('must not contain dots');
    else errs.push(regexError(DNS1123_LABEL_ERR_MSG, DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  }
  return errs;
}

/**
 * `IsDNS1035Label`: an RFC 1035 label — lower case, starts with a letter, at most 63 bytes. Used for
 * CRD version and resource names, e.g. `1beta` → [`a DNS-1035 label must consist of … (e.g. 'my-name',
 *  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`].
 */
export function isDNS1035Label(v: string): string[] {
  const errs: string[] = [];
  if (byteLength(v) > DNS1035_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1035_LABEL_MAX_LENGTH));
  if (!dns1035LabelRegexp.test(v)) errs.push(regexError(DNS1035_LABEL_ERR_MSG, DNS1035_LABEL_FMT, 'my-name', 'abc-123'));
  return errs;
}

const WILDCARD_DNS1123_SUBDOMAIN_FMT = `\\*\\.${DNS1123_SUBDOMAIN_FMT}`;
const WILDCARD_DNS1123_SUBDOMAIN_ERR_MSG =
  "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character";
const wildcardDNS1123SubdomainRegexp = new RegExp(`^${WILDCARD_DNS1123_SUBDOMAIN_FMT}$`);

/** `IsWildcardDNS1123Subdomain`: `*.` followed by a DNS subdomain (`*.example.com`), at most 253 bytes. */
export function isWildcardDNS1123Subdomain(v: string): string[] {
  const errs: string[] = [];
  if (byteLength(v) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!wildcardDNS1123SubdomainRegexp.test(v)) errs.push(regexError(WILDCARD_DNS1123_SUBDOMAIN_ERR_MSG, WILDCARD_DNS1123_SUBDOMAIN_FMT, '*.example.com'));
  return errs;
}

const HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const httpPathRegexp = new RegExp(`^${HTTP_PATH_FMT}$`);

/**
 * `IsDomainPrefixedPath`: `acme.io/foo` — a DNS subdomain, `/`, then RFC 3986 path characters.
 * Errors at `path`: `Required value`, `must be a domain-prefixed path (such as "acme.io/foo")`, the
 * subdomain's messages (on the host part), or `Invalid path (regex used for validation is '…')`.
 */
export function isDomainPrefixedPath(path: string, value: string): FieldError[] {
  if (value.length === 0) return [field.required(path)];
  const slash = value.indexOf('/');
  const host = slash < 0 ? value : value.slice(0, slash);
  const rest = slash < 0 ? '' : value.slice(slash + 1);
  if (slash < 0 || host.length === 0 || rest.length === 0) return [field.invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  const errs = isDNS1123Subdomain(host).map((msg) => field.invalid(path, host, msg));
  if (!httpPathRegexp.test(rest)) errs.push(field.invalid(path, rest, regexError('Invalid path', HTTP_PATH_FMT)));
  return errs;
}

/** `IsQualifiedName`: `[prefix/]name`, prefix a DNS subdomain, name ≤ 63 bytes. Label keys, finalizers. */
export function isQualifiedName(v: string): string[] {
  const errs: string[] = [];
  const parts = v.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0] as string;
  } else if (parts.length === 2) {
    const prefix = parts[0] as string;
    name = parts[1] as string;
    if (prefix.length === 0) errs.push(`prefix part ${EMPTY_ERROR}`);
    else for (const msg of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${msg}`);
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_ERR_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push(`name part ${EMPTY_ERROR}`);
  else if (byteLength(name) > QUALIFIED_NAME_MAX_LENGTH) errs.push(`name part ${maxLenError(QUALIFIED_NAME_MAX_LENGTH)}`);
  if (!qualifiedNameRegexp.test(name)) {
    errs.push(`name part ${regexError(QUALIFIED_NAME_ERR_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

/** `IsValidLabelValue`: empty, or a qualified-name-like string of at most 63 bytes. */
export function isValidLabelValue(v: string): string[] {
  const errs: string[] = [];
  if (byteLength(v) > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!labelValueRegexp.test(v)) errs.push(regexError(LABEL_VALUE_ERR_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

/**
 * `IsFullyQualifiedName` (util/validation): a DNS subdomain of at least three dot-separated segments
 * (admission webhook names), as field errors at `path`: `Required value` when empty, the subdomain
 * errors joined by `,`, or `should be a domain with at least three segments separated by dots`.
 */
export function isFullyQualifiedName(path: string, name: string): FieldError[] {
  if (name.length === 0) return [field.required(path)];
  const errs = isDNS1123Subdomain(name);
  if (errs.length > 0) return [field.invalid(path, name, errs.join(','))];
  if (name.split('.').length < 3) return [field.invalid(path, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

/** core `ValidateQualifiedName`: one `Invalid value` per {@link isQualifiedName} message. */
export function validateQualifiedName(value: string, path: string): FieldError[] {
  return isQualifiedName(value).map((msg) => field.invalid(path, value, msg));
}

/** metav1 `ValidateLabels`: each key a qualified name, each value a label value; errors at `path`. */
export function validateLabels(labels: Record<string, string> | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!labels) return errs;
  for (const [k, v] of Object.entries(labels)) {
    for (const msg of isQualifiedName(k)) errs.push(field.invalid(path, k, msg));
    for (const msg of isValidLabelValue(v)) errs.push(field.invalid(path, v, msg));
  }
  return errs;
}

/**
 * `ValidateAnnotations`: keys are qualified names compared case-insensitively (so `Example.com/A` is
 * fine), and keys plus values total at most 256 KiB (`Too long: may not be more than 262144 bytes`).
 */
export function validateAnnotations(annotations: Record<string, string> | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!annotations) return errs;
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(field.invalid(path, k, msg));
    total += byteLength(k) + byteLength(v);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT_B) errs.push(field.tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT_B));
  return errs;
}

/** `ValidateNonnegativeField`: `Invalid value: -1: must be greater than or equal to 0`. */
/**
 * `path.IsValidPathSegmentName`: a name that can be one segment of a URL path — not `.` or `..`,
 * no `/` and no `%`. E.g. `a/b` → [`may not contain '/'`].
 */
export function isValidPathSegmentName(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  const msgs: string[] = [];
  for (const illegal of ['/', '%']) if (name.includes(illegal)) msgs.push(`may not contain '${illegal}'`);
  return msgs;
}

export function validateNonnegativeField(value: number, path: string): FieldError[] {
  return value < 0 ? [field.invalid(path, value, IS_NEGATIVE_ERROR_MSG)] : [];
}

/** A `metav1.Condition` as {@link validateConditions} reads it. */
export interface MetaCondition {
  type?: string;
  status?: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

const CONDITION_STATUSES = ['False', 'True', 'Unknown'];
const CONDITION_REASON_FMT = '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?';
const CONDITION_REASON_ERR_MSG =
  "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'";
const conditionReasonRegexp = new RegExp(`^${CONDITION_REASON_FMT}$`);
const MAX_CONDITION_REASON_LEN = 1024;
const MAX_CONDITION_MESSAGE_LEN = 32 * 1024;

/**
 * metav1 `ValidateConditions` + `ValidateCondition`: unique types, each a qualified name; status
 * True/False/Unknown; observedGeneration ≥ 0; lastTransitionTime and reason set (`Required value: must
 * be set`); reason in CamelCase form of at most 1024 bytes, message of at most 32 KiB.
 */
export function validateConditions(conditions: readonly MetaCondition[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (conditions ?? []).forEach((c, i) => {
    const p = `${path}[${i}]`;
    const type = c.type ?? '';
    if (seen.has(type)) errs.push(field.duplicate(`${p}.type`, type));
    seen.add(type);
    errs.push(...validateQualifiedName(type, `${p}.type`));
    if (!CONDITION_STATUSES.includes(c.status ?? '')) errs.push(field.notSupported(`${p}.status`, c.status ?? '', CONDITION_STATUSES));
    if ((c.observedGeneration ?? 0) < 0) errs.push(field.invalid(`${p}.observedGeneration`, c.observedGeneration, 'must be greater than or equal to zero'));
    if (!c.lastTransitionTime) errs.push(field.required(`${p}.lastTransitionTime`, 'must be set'));
    const reason = c.reason ?? '';
    if (reason.length === 0) errs.push(field.required(`${p}.reason`, 'must be set'));
    else {
      if (!conditionReasonRegexp.test(reason)) {
        errs.push(field.invalid(`${p}.reason`, reason, regexError(CONDITION_REASON_ERR_MSG, CONDITION_REASON_FMT, 'my_name', 'MY_NAME', 'MyName', 'ReasonA,ReasonB', 'ReasonA:ReasonB')));
      }
      if (byteLength(reason) > MAX_CONDITION_REASON_LEN) errs.push(field.tooLong(`${p}.reason`, MAX_CONDITION_REASON_LEN));
    }
    if (byteLength(c.message ?? '') > MAX_CONDITION_MESSAGE_LEN) errs.push(field.tooLong(`${p}.message`, MAX_CONDITION_MESSAGE_LEN));
  });
  return errs;
}

/** `ValidateImmutableField` for scalar fields (strings, numbers, undefined). */
function validateImmutableField(newVal: unknown, oldVal: unknown, path: string): FieldError[] {
  // Semantic equality for the scalar metadata fields: absent and empty string are the same in Go.
  const norm = (v: unknown): unknown => (v === undefined || v === null ? '' : v);
  return norm(newVal) === norm(oldVal) ? [] : [field.invalid(path, newVal ?? '', FIELD_IMMUTABLE_ERROR_MSG)];
}

/** `schema.FromAPIVersionAndKind`'s version half: `apps/v1` → `v1`, `v1` → `v1`, `a/b/c` → ''. */
function versionOf(apiVersion: string): { group: string; version: string } {
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: parts[0] as string };
  if (parts.length === 2) return { group: parts[0] as string, version: parts[1] as string };
  return { group: '', version: '' };
}

/** `validateOwnerReference` + `ValidateOwnerReferences`: required parts, no core Event owners, one controller. */
function validateOwnerReferences(refs: readonly OwnerReference[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!refs) return errs;
  let firstController = '';
  for (const ref of refs) {
    const gv = versionOf(ref.apiVersion ?? '');
    if (!gv.version) errs.push(field.invalid(`${path}.apiVersion`, ref.apiVersion ?? '', 'version must not be empty'));
    if (!ref.kind) errs.push(field.invalid(`${path}.kind`, ref.kind ?? '', 'must not be empty'));
    if (!ref.name) errs.push(field.invalid(`${path}.name`, ref.name ?? '', 'must not be empty'));
    if (!ref.uid) errs.push(field.invalid(`${path}.uid`, ref.uid ?? '', 'must not be empty'));
    if (gv.group === '' && gv.version === 'v1' && ref.kind === 'Event') {
      errs.push(field.invalid(path, ref, '/v1, Kind=Event is disallowed from being an owner'));
    }
    if (ref.controller === true) {
      const current = `${ref.kind}/${ref.name}`;
      if (firstController) {
        errs.push(
          field.invalid(
            path,
            refs,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`,
          ),
        );
      } else {
        firstController = current;
      }
    }
  }
  return errs;
}

const FINALIZER_ORPHAN_DEPENDENTS = 'orphan';
const FINALIZER_DELETE_DEPENDENTS = 'foregroundDeletion';

/** `ValidateFinalizers`: qualified names; `orphan` and `foregroundDeletion` are mutually exclusive. */
function validateFinalizers(finalizers: readonly string[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!finalizers) return errs;
  for (const f of finalizers) for (const msg of isQualifiedName(f)) errs.push(field.invalid(path, f, msg));
  if (finalizers.includes(FINALIZER_ORPHAN_DEPENDENTS) && finalizers.includes(FINALIZER_DELETE_DEPENDENTS)) {
    errs.push(
      field.invalid(path, finalizers, `finalizer ${FINALIZER_ORPHAN_DEPENDENTS} and ${FINALIZER_DELETE_DEPENDENTS} cannot be both set`),
    );
  }
  return errs;
}

/** metav1 `ValidateManagedFields`: operation `Apply`|`Update`, fieldsType `FieldsV1`. */
function validateManagedFields(entries: readonly ManagedFieldsEntry[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!entries) return errs;
  entries.forEach((e, i) => {
    if (e.operation !== 'Apply' && e.operation !== 'Update') {
      errs.push(field.invalid(`${path}[${i}].operation`, e.operation ?? '', 'must be `Apply` or `Update`'));
    }
    if (e.fieldsType && e.fieldsType !== 'FieldsV1') {
      errs.push(field.invalid(`${path}[${i}].fieldsType`, e.fieldsType, 'must be `FieldsV1`'));
    }
  });
  return errs;
}

/**
 * `NameIsDNSSubdomain(name, prefix=true)` masking: a generateName such as `web-` is validated as if its
 * trailing dash were a letter, because random characters will follow it.
 */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -1)}a` : name;
}

/** Options of {@link validateObjectMeta}. */
export interface ObjectMetaValidationOptions {
  /** True for namespaced kinds: namespace is then required, otherwise it is forbidden. */
  namespaced: boolean;
  /** Validates `name` (and `generateName` with its trailing dash masked); defaults to {@link isDNS1123Subdomain}. */
  nameValidator?: (name: string) => string[];
}

/**
 * `ValidateObjectMeta` for create. Checks, in upstream's order: generateName format; name required
 * (`metadata.name: Required value: name or generateName is required`, only when both are empty — upstream
 * validates after the registry generated the name, we accept being called before) and format;
 * namespace required (`Required value`) and a DNS label, or forbidden (`Forbidden: not allowed on this
 * type`) for cluster-scoped kinds; generation ≥ 0; labels; annotations; ownerReferences (apiVersion,
 * kind, name, uid non-empty, at most one `controller: true`); finalizers; managedFields.
 */
export function validateObjectMeta(
  meta: ObjectMeta | undefined,
  opts: ObjectMetaValidationOptions,
  path = 'metadata',
): FieldError[] {
  const m = meta ?? {};
  const nameFn = opts.nameValidator ?? isDNS1123Subdomain;
  const errs: FieldError[] = [];
  if (m.generateName) {
    for (const msg of nameFn(maskTrailingDash(m.generateName))) errs.push(field.invalid(`${path}.generateName`, m.generateName, msg));
  }
  if (!m.name) {
    if (!m.generateName) errs.push(field.required(`${path}.name`, 'name or generateName is required'));
  } else {
    for (const msg of nameFn(m.name)) errs.push(field.invalid(`${path}.name`, m.name, msg));
  }
  if (opts.namespaced) {
    if (!m.namespace) errs.push(field.required(`${path}.namespace`));
    else for (const msg of isDNS1123Label(m.namespace)) errs.push(field.invalid(`${path}.namespace`, m.namespace, msg));
  } else if (m.namespace) {
    errs.push(field.forbidden(`${path}.namespace`, 'not allowed on this type'));
  }
  errs.push(...validateNonnegativeField(m.generation ?? 0, `${path}.generation`));
  errs.push(...validateMetaFields(m, path));
  return errs;
}

/**
 * The checks ValidateObjectMeta and ValidateObjectMetaUpdate share, in upstream's order: labels,
 * annotations, ownerReferences, finalizers and managedFields well-formed (paths under `path`).
 */
function validateMetaFields(m: ObjectMeta, path: string): FieldError[] {
  return [
    ...validateLabels(m.labels, `${path}.labels`),
    ...validateAnnotations(m.annotations, `${path}.annotations`),
    ...validateOwnerReferences(m.ownerReferences, `${path}.ownerReferences`),
    ...validateFinalizers(m.finalizers, `${path}.finalizers`),
    ...validateManagedFields(m.managedFields, `${path}.managedFields`),
  ];
}

/**
 * `ValidateObjectMetaUpdate`: no new finalizers once deletion started (`Forbidden: no new finalizers can
 * be added if the object is being deleted, found new finalizers []string{"x"}`); generation never
 * decreases (`must not be decremented`); name, namespace, uid, creationTimestamp, deletionTimestamp and
 * deletionGracePeriodSeconds immutable (`Invalid value: "b": field is immutable`); labels, annotations,
 * ownerReferences, finalizers and managedFields well-formed. Upstream's `resourceVersion: must be
 * specified for an update` is left to the registry, which fills in the resourceVersion of unconditional
 * updates. The store's own graceful-deletion writes (which set deletionTimestamp) must not call this.
 */
export function validateObjectMetaUpdate(meta: ObjectMeta | undefined, oldMeta: ObjectMeta | undefined, path = 'metadata'): FieldError[] {
  const m = meta ?? {};
  const o = oldMeta ?? {};
  const errs: FieldError[] = [];
  if (o.deletionTimestamp) {
    const old = new Set(o.finalizers ?? []);
    const added = [...new Set((m.finalizers ?? []).filter((f) => !old.has(f)))].sort();
    if (added.length > 0) {
      errs.push(
        field.forbidden(
          `${path}.finalizers`,
          `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`,
        ),
      );
    }
  }
  if ((m.generation ?? 0) < (o.generation ?? 0)) errs.push(field.invalid(`${path}.generation`, m.generation ?? 0, 'must not be decremented'));
  errs.push(...validateImmutableField(m.name, o.name, `${path}.name`));
  errs.push(...validateImmutableField(m.namespace, o.namespace, `${path}.namespace`));
  errs.push(...validateImmutableField(m.uid, o.uid, `${path}.uid`));
  errs.push(...validateImmutableField(m.creationTimestamp, o.creationTimestamp, `${path}.creationTimestamp`));
  errs.push(...validateImmutableField(m.deletionTimestamp, o.deletionTimestamp, `${path}.deletionTimestamp`));
  errs.push(...validateImmutableField(m.deletionGracePeriodSeconds, o.deletionGracePeriodSeconds, `${path}.deletionGracePeriodSeconds`));
  errs.push(...validateMetaFields(m, path));
  return errs;
}

/** A selector requirement: a key, an operator, values (a label selector's matchExpressions, SubjectAccessReview's selectors). */
export interface SelectorRequirement {
  key?: string | undefined;
  operator?: string | undefined;
  values?: readonly string[] | undefined;
}

/** Options of the selector requirement validations (metav1validation's LabelSelectorValidationOptions). */
export interface SelectorRequirementOptions {
  /** Accept an operator the server does not know (`AllowUnknownOperatorInRequirement`, *SubjectAccessReview). */
  allowUnknownOperator?: boolean;
}

/**
 * The operator rule both requirement validations share: `values` required for In/NotIn, forbidden
 * for Exists/DoesNotExist, anything else `Invalid value: "Foo": not a valid selector operator`.
 */
function validateRequirementOperator(r: SelectorRequirement, path: string, opts: SelectorRequirementOptions): FieldError[] {
  const values = r.values ?? [];
  switch (r.operator ?? '') {
    case 'In':
    case 'NotIn':
      return values.length === 0 ? [field.required(`${path}.values`, "must be specified when `operator` is 'In' or 'NotIn'")] : [];
    case 'Exists':
    case 'DoesNotExist':
      return values.length > 0 ? [field.forbidden(`${path}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")] : [];
    default:
      return opts.allowUnknownOperator ? [] : [field.invalid(`${path}.operator`, r.operator ?? '', 'not a valid selector operator')];
  }
}

/** metav1 `ValidateLabelSelectorRequirement`: the operator rule, a qualified-name key, label-value values. */
export function validateLabelSelectorRequirement(r: SelectorRequirement, path: string, opts: SelectorRequirementOptions = {}): FieldError[] {
  const errs = validateRequirementOperator(r, path, opts);
  const key = r.key ?? '';
  for (const msg of isQualifiedName(key)) errs.push(field.invalid(`${path}.key`, key, msg));
  (r.values ?? []).forEach((v, j) => {
    for (const msg of isValidLabelValue(v)) errs.push(field.invalid(`${path}.values[${j}]`, v, msg));
  });
  return errs;
}

/** metav1 `ValidateFieldSelectorRequirement`: a key (`Required value: must be specified`), then the operator rule. */
export function validateFieldSelectorRequirement(r: SelectorRequirement, path: string, opts: SelectorRequirementOptions = {}): FieldError[] {
  const errs: FieldError[] = r.key ? [] : [field.required(`${path}.key`, 'must be specified')];
  return [...errs, ...validateRequirementOperator(r, path, opts)];
}

/**
 * metav1 `ValidateLabelSelector`: matchLabels as labels; each matchExpressions[i] needs `values` for
 * In/NotIn (`Required value: must be specified when \`operator\` is 'In' or 'NotIn'`), forbids them for
 * Exists/DoesNotExist, has a known operator (`Invalid value: "Foo": not a valid selector operator`), a
 * qualified-name key and label-value values. `undefined` is valid.
 */
export function validateLabelSelector(sel: LabelSelector | undefined | null, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!sel) return errs;
  errs.push(...validateLabels(sel.matchLabels, `${path}.matchLabels`));
  (sel.matchExpressions ?? []).forEach((expr, i) => errs.push(...validateLabelSelectorRequirement(expr, `${path}.matchExpressions[${i}]`)));
  return errs;
}
