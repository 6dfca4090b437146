/**
 * API errors as `metav1.Status`, following apimachinery/pkg/api/errors/errors.go and
 * apimachinery/pkg/util/validation/field/errors.go. The same {@link StatusError} is thrown by the
 * registry, written as the HTTP response body, and rebuilt by the client from a response, so code on
 * either side tests errors with {@link isNotFound}, {@link isConflict}, … and never parses messages.
 */

/** `metav1.StatusCause`. */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

/** `metav1.StatusDetails`. `kind` is the resource plural for NotFound/AlreadyExists/Conflict, the Kind for Invalid. */
export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** `metav1.Status`. */
export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { resourceVersion?: string; continue?: string };
  status: 'Success' | 'Failure';
  message?: string;
  reason?: StatusReason;
  details?: StatusDetails;
  code: number;
}

/** `metav1.StatusReason` values used by kubeplane. */
export type StatusReason =
  | ''
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'Invalid'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'UnsupportedMediaType'
  | 'RequestEntityTooLarge'
  | 'TooManyRequests'
  | 'Timeout'
  | 'ServerTimeout'
  | 'InternalError'
  | 'ServiceUnavailable';

/** A group and resource, e.g. `{group: 'apps', resource: 'deployments'}`; core has group `''`. */
export interface GroupResource {
  group: string;
  resource: string;
}

/** A group and kind, e.g. `{group: 'apps', kind: 'Deployment'}`. */
export interface GroupKind {
  group: string;
  kind: string;
}

/** `deployments.apps`, or `pods` for the core group (schema.GroupResource.String). */
export function groupResourceString(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

/** `Deployment.apps`, or `Pod` for the core group (schema.GroupKind.String). */
export function groupKindString(gk: GroupKind): string {
  return gk.group ? `${gk.kind}.${gk.group}` : gk.kind;
}

/** An error carrying a `metav1.Status`: thrown by the API server and rebuilt by clients. */
export class StatusError extends Error {
  override readonly name = 'StatusError';
  readonly status: Status;

  constructor(status: Status) {
    super(status.message ?? status.reason ?? `status ${status.code}`);
    this.status = status;
  }

  /** HTTP status code, e.g. 404. */
  get code(): number {
    return this.status.code;
  }

  /** Status reason, e.g. `NotFound`. */
  get reason(): StatusReason {
    return this.status.reason ?? '';
  }
}

/**
 * `details` as Go's encoding/json writes `metav1.StatusDetails`: every field is omitempty and they
 * come in declaration order (name, group, kind, uid, causes, retryAfterSeconds), so the core group's
 * `group: ""` is left out, e.g. `{"name":"p","kind":"pods"}`.
 */
export function statusDetails(d: StatusDetails): StatusDetails {
  const out: StatusDetails = {};
  if (d.name) out.name = d.name;
  if (d.group) out.group = d.group;
  if (d.kind) out.kind = d.kind;
  if (d.uid) out.uid = d.uid;
  if (d.causes && d.causes.length > 0) out.causes = d.causes;
  if (d.retryAfterSeconds) out.retryAfterSeconds = d.retryAfterSeconds;
  return out;
}

/** A Failure Status with its fields in `metav1.Status`'s order (…, reason, details, code), as upstream writes it. */
function failure(code: number, reason: StatusReason, message: string, details?: StatusDetails): StatusError {
  return new StatusError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    ...(details ? { details: statusDetails(details) } : {}),
    code,
  });
}

/** 404 NotFound: `deployments.apps "web" not found`. */
export function newNotFound(gr: GroupResource, name: string): StatusError {
  return failure(404, 'NotFound', `${groupResourceString(gr)} ${goQuote(name)} not found`, {
    name,
    group: gr.group,
    kind: gr.resource,
  });
}

/** 409 AlreadyExists: `deployments.apps "web" already exists`. */
export function newAlreadyExists(gr: GroupResource, name: string): StatusError {
  return failure(409, 'AlreadyExists', `${groupResourceString(gr)} ${goQuote(name)} already exists`, {
    name,
    group: gr.group,
    kind: gr.resource,
  });
}

/** The message upstream's registry uses for a resourceVersion mismatch (storage.NewResourceVersionConflictsError). */
export const OPTIMISTIC_LOCK_ERROR_MSG =
  'the object has been modified; please apply your changes to the latest version and try again';

/** 409 Conflict: `Operation cannot be fulfilled on deployments.apps "web": <why>`. */
export function newConflict(gr: GroupResource, name: string, why: string = OPTIMISTIC_LOCK_ERROR_MSG): StatusError {
  return failure(409, 'Conflict', `Operation cannot be fulfilled on ${groupResourceString(gr)} ${goQuote(name)}: ${why}`, {
    name,
    group: gr.group,
    kind: gr.resource,
  });
}

/** 400 BadRequest with a free-text message. */
export function newBadRequest(message: string): StatusError {
  return failure(400, 'BadRequest', message);
}

/** 401 Unauthorized. */
export function newUnauthorized(message = 'Unauthorized'): StatusError {
  return failure(401, 'Unauthorized', message);
}

/**
 * 403 Forbidden, worded as upstream's `NewForbidden`: `pods "x" is forbidden: <why>`, `pods is
 * forbidden: <why>` without a name, `forbidden: <why>` without a resource (a non-resource URL);
 * optionally with causes. Empty details fields are left out, as their `omitempty` tags do.
 */
export function newForbidden(gr: GroupResource, name: string, why: string, causes?: StatusCause[]): StatusError {
  const details: StatusDetails = {};
  if (name) details.name = name;
  if (gr.group) details.group = gr.group;
  if (gr.resource) details.kind = gr.resource;
  if (causes) details.causes = causes;
  const message = !gr.group && !gr.resource ? `forbidden: ${why}` : name === '' ? `${groupResourceString(gr)} is forbidden: ${why}` : `${groupResourceString(gr)} ${goQuote(name)} is forbidden: ${why}`;
  return failure(403, 'Forbidden', message, details);
}

/** 410 Gone. */
export function newGone(message: string): StatusError {
  return failure(410, 'Gone', message);
}

/** 410 Expired: used for `too old resource version: 5 (120)` and expired continue tokens. */
export function newResourceExpired(message: string): StatusError {
  return failure(410, 'Expired', message);
}

/** 405 MethodNotAllowed: `<verb> is not supported on resources of kind "<resource>"`. */
export function newMethodNotSupported(gr: GroupResource, action: string): StatusError {
  return failure(405, 'MethodNotAllowed', `${action} is not supported on resources of kind ${JSON.stringify(groupResourceString(gr))}`, {
    group: gr.group,
    kind: gr.resource,
  });
}

/** 415 UnsupportedMediaType, listing the media types the endpoint accepts. */
export function newUnsupportedMediaType(contentType: string, accepted: readonly string[]): StatusError {
  return failure(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
    { causes: [{ reason: 'UnsupportedMediaType', message: contentType }] },
  );
}

/** 406 NotAcceptable. */
export function newNotAcceptable(accepted: readonly string[]): StatusError {
  return failure(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`);
}

/** 413 RequestEntityTooLarge. */
export function newRequestEntityTooLarge(message: string): StatusError {
  return failure(413, 'RequestEntityTooLarge', `Request entity too large: ${message}`);
}

/** `details` with `retryAfterSeconds` only when positive (Go's `omitempty` leaves a zero out). */
function retryAfter(seconds: number): StatusDetails {
  return seconds > 0 ? { retryAfterSeconds: seconds } : {};
}

/** 429 TooManyRequests. */
export function newTooManyRequests(message: string, retryAfterSeconds: number): StatusError {
  return failure(429, 'TooManyRequests', message, retryAfter(retryAfterSeconds));
}

/** 500 InternalError: `Internal error occurred: <why>`. */
export function newInternalError(why: string): StatusError {
  return failure(500, 'InternalError', `Internal error occurred: ${why}`, { causes: [{ message: why }] });
}

/** 504 Timeout. */
export function newTimeoutError(message: string, retryAfterSeconds = 0): StatusError {
  return failure(504, 'Timeout', `Timeout: ${message}`, retryAfter(retryAfterSeconds));
}

/** 404 for a URL that names no resource (upstream's `the server could not find the requested resource`). */
export function newNotFoundPath(): StatusError {
  return failure(404, 'NotFound', 'the server could not find the requested resource', {});
}

// ---------------------------------------------------------------------------------------------
// Field errors (apimachinery/pkg/util/validation/field) and Invalid.

/** `field.ErrorType` as it appears in a StatusCause reason. */
export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid';

const fieldErrorTypeText: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

const omitValue = Symbol('omitValue');

/** One validation failure at a field path such as `spec.template.spec.containers[0].image`. */
export interface FieldError {
  type: FieldErrorType;
  field: string;
  badValue: unknown;
  detail: string;
}

const GO_ESCAPES: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '"': '\\"', '\\': '\\\\' };
/** Go's `unicode.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const GO_PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/**
 * Go's `strconv.Quote` (`%q`): the string in double quotes, `"` and `\` escaped, `\n` `\t` and the
 * other C escapes spelled so, other unprintable characters as `\x01` (below U+0080) or `\u202e`;
 * printable Unicode kept. E.g. `goQuote('a\u0001😀')` → `"a\x01😀"`.
 */
export function goQuote(s: string): string {
  let out = '"';
  for (const c of s) {
    const esc = GO_ESCAPES[c];
    if (esc !== undefined) out += esc;
    else if (GO_PRINTABLE.test(c)) out += c;
    else {
      const cp = c.codePointAt(0) as number;
      out += cp < 0x80 ? `\\x${cp.toString(16).padStart(2, '0')}` : cp <= 0xffff ? `\\u${cp.toString(16).padStart(4, '0')}` : `\\U${cp.toString(16).padStart(8, '0')}`;
    }
  }
  return `${out}"`;
}

/**
 * A bad value as Go prints it with `%#v` (structs and slices, which have no `String()`), for the
 * messages where upstream passes one to `field.Invalid`: `rbac.RoleRef{APIGroup:"x", Kind:"Role", Name:"r"}`.
 */
export class GoSyntax {
  constructor(readonly text: string) {}
}

/**
 * Go's `%#v` of a pointer field inside a struct: `(*intstr.IntOrString)(nil)` when absent; for a
 * present one Go prints its address, which means nothing here, so `(…)` stands for it.
 */
export function goPointer(typeName: string, present: boolean): string {
  return `(*${typeName})(${present ? '…' : 'nil'})`;
}

/**
 * Go's `%#v` of a string slice: `[]string{"secrets", "*."}`, and `[]string(nil)` for a nil (absent)
 * slice; `type` names a typed slice such as `[]admissionregistration.OperationType`, whose elements
 * Go prints the same way.
 */
export function goStringSlice(values: readonly string[] | undefined, type = '[]string'): GoSyntax {
  return new GoSyntax(values === undefined ? `${type}(nil)` : `${type}{${values.map(goQuote).join(', ')}}`);
}

/** Go's `%#v` of a `[]byte`: `[]byte{0x2d, 0x2d}`, `[]byte{}` when empty, `[]byte(nil)` when absent. */
export function goByteSlice(bytes: Uint8Array | undefined): GoSyntax {
  if (bytes === undefined) return new GoSyntax('[]byte(nil)');
  return new GoSyntax(`[]byte{${Array.from(bytes, (b) => `0x${b.toString(16)}`).join(', ')}}`);
}

/**
 * Renders a bad value the way Go's `%v`/`%q` does in upstream messages: strings quoted, numbers bare.
 * A nil value (or nil pointer) becomes the string "null" and is quoted like any string (apimachinery
 * pkg/util/validation/field/errors.go `ErrorBody`): `spec.parentRef: Invalid value: "null": field is immutable`.
 */
function formatBadValue(v: unknown): string {
  if (v instanceof GoSyntax) return v.text;
  if (typeof v === 'string') return goQuote(v);
  if (v === null || v === undefined) return goQuote('null');
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

/** `field.Error.ErrorBody()`: `Invalid value: -1: must be greater than or equal to 0`, or `Required value`. */
export function fieldErrorBody(e: FieldError): string {
  let s: string;
  switch (e.type) {
    case 'FieldValueRequired':
    case 'FieldValueForbidden':
    case 'FieldValueTooLong':
    case 'InternalError':
      s = fieldErrorTypeText[e.type];
      break;
    case 'FieldValueNotFound':
    case 'FieldValueDuplicate':
    case 'FieldValueInvalid':
    case 'FieldValueNotSupported':
    case 'FieldValueTooMany':
    case 'FieldValueTypeInvalid':
      s = e.badValue === omitValue ? fieldErrorTypeText[e.type] : `${fieldErrorTypeText[e.type]}: ${formatBadValue(e.badValue)}`;
  }
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

/** `field.Error.Error()`: `spec.replicas: Invalid value: -1: must be greater than or equal to 0`. */
export function fieldErrorString(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}

/** How Go prints a nil `*field.Path`: the field of an error about a whole object (`<nil>: Invalid value: …`). */
export const NIL_PATH = '<nil>';

/** Constructors for {@link FieldError}s, named as upstream's `field.Required(path, detail)` etc. */
export const field = {
  required: (path: string, detail = ''): FieldError => ({ type: 'FieldValueRequired', field: path, badValue: '', detail }),
  invalid: (path: string, value: unknown, detail = ''): FieldError => ({ type: 'FieldValueInvalid', field: path, badValue: value, detail }),
  /** Invalid without echoing the value (e.g. secrets). */
  invalidOmitValue: (path: string, detail = ''): FieldError => ({ type: 'FieldValueInvalid', field: path, badValue: omitValue, detail }),
  /**
   * Invalid with a bad value Go prints with `%#v` (a struct or a slice): `rendered` is that text (e.g.
   * from {@link goStringSlice}), carried in the detail so the message reads as upstream's
   * (`Invalid value: []string{"v1"}: <detail>`).
   */
  notSupported: (path: string, value: unknown, valid: readonly string[]): FieldError => ({
    type: 'FieldValueNotSupported',
    field: path,
    badValue: value,
    detail: valid.length ? `supported values: ${valid.map((v) => JSON.stringify(v)).join(', ')}` : '',
  }),
  forbidden: (path: string, detail: string): FieldError => ({ type: 'FieldValueForbidden', field: path, badValue: '', detail }),
  duplicate: (path: string, value: unknown): FieldError => ({ type: 'FieldValueDuplicate', field: path, badValue: value, detail: '' }),
  notFound: (path: string, value: unknown): FieldError => ({ type: 'FieldValueNotFound', field: path, badValue: value, detail: '' }),
  tooLong: (path: string, maxLength: number): FieldError => ({
    type: 'FieldValueTooLong',
    field: path,
    badValue: '',
    detail: `may not be more than ${maxLength} bytes`,
  }),
  tooMany: (path: string, actual: number, max: number): FieldError => ({
    type: 'FieldValueTooMany',
    field: path,
    badValue: actual,
    detail: `must have at most ${max} items`,
  }),
  internal: (path: string, detail: string): FieldError => ({ type: 'InternalError', field: path, badValue: '', detail }),
};

/**
 * 422 Invalid: `Deployment.apps "x" is invalid: [spec.replicas: Invalid value: -1: …, …]` (a single
 * error is not bracketed), with one `details.causes` entry per field error. The message lists each
 * distinct error once (`ErrorList.ToAggregate` drops repeated messages); the causes keep them all.
 */
export function newInvalid(gk: GroupKind, name: string, errs: readonly FieldError[]): StatusError {
  const causes: StatusCause[] = errs.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field }));
  const kind = groupKindString(gk);
  const messages = [...new Set(errs.map(fieldErrorString))];
  let message = `${kind} ${JSON.stringify(name)} is invalid`;
  if (messages.length === 1) message += `: ${messages[0] as string}`;
  else if (messages.length > 1) message += `: [${messages.join(', ')}]`;
  return failure(422, 'Invalid', message, { name, group: gk.group, kind: gk.kind, causes });
}

// ---------------------------------------------------------------------------------------------
// Predicates.

function reasonOf(err: unknown): StatusReason | undefined {
  return err instanceof StatusError ? err.reason : undefined;
}

/** True for a 404 NotFound StatusError. */
export const isNotFound = (err: unknown): boolean => reasonOf(err) === 'NotFound';
/** True for a 409 AlreadyExists StatusError. */
export const isAlreadyExists = (err: unknown): boolean => reasonOf(err) === 'AlreadyExists';
/** True for a 409 Conflict StatusError. */
export const isConflict = (err: unknown): boolean => reasonOf(err) === 'Conflict';
/** True for a 422 Invalid StatusError. */
export const isInvalid = (err: unknown): boolean => reasonOf(err) === 'Invalid';
/** True for a 400 BadRequest StatusError. */
export const isBadRequest = (err: unknown): boolean => reasonOf(err) === 'BadRequest';
/** True for a 403 Forbidden StatusError. */
export const isForbidden = (err: unknown): boolean => reasonOf(err) === 'Forbidden';
/** True for 410 Gone or Expired (`too old resource version`): the caller must relist. */
export const isResourceExpired = (err: unknown): boolean => reasonOf(err) === 'Expired' || reasonOf(err) === 'Gone';
/** True for 429 TooManyRequests. */
export const isTooManyRequests = (err: unknown): boolean => reasonOf(err) === 'TooManyRequests';

/** Rebuilds a StatusError from an HTTP response status and (possibly non-Status) body. */
export function statusErrorFromResponse(code: number, body: unknown): StatusError {
  if (body && typeof body === 'object' && (body as { kind?: unknown }).kind === 'Status') {
    const s = body as Status;
    return new StatusError({ ...s, code: s.code || code });
  }
  const reasons: Record<number, StatusReason> = {
    400: 'BadRequest',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'NotFound',
    405: 'MethodNotAllowed',
    409: 'Conflict',
    410: 'Gone',
    415: 'UnsupportedMediaType',
    422: 'Invalid',
    429: 'TooManyRequests',
    500: 'InternalError',
    504: 'Timeout',
  };
  const message = typeof body === 'string' && body ? body : `the server responded with status ${code}`;
  return failure(code, reasons[code] ?? 'InternalError', message);
}

/** The message of any thrown value (StatusError message, Error message, or String(value)). */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
