/**
 * The audit of one request, from the policy decision to the events written to the sink, as
 * upstream's audit filters do it (k8s.io/apiserver, v1.33):
 *
 * - pkg/endpoints/filters/audit.go `WithAudit`: the policy is evaluated once the request is
 *   authenticated (before impersonation and authorization); level None means no events at all.
 *   Otherwise a `RequestReceived` event is written at once, a `ResponseStarted` one when the response
 *   head goes out — only for long-running requests (watch, proxy, exec, attach, log, portforward) —
 *   and a `ResponseComplete` one when the response is done; a handler that crashes gives a `Panic`
 *   event instead (status 500 `APIServer panic'd: …`). Stages the policy omits are not written.
 * - pkg/audit/request.go `LogRequestMetadata`, `LogImpersonatedUser`, `LogRequestObject`,
 *   `LogRequestPatch`, `LogResponseObject`: what each event holds. Metadata level: user,
 *   impersonated user, verb, URI, source IPs, user agent, objectRef, responseStatus, annotations.
 *   Request adds `requestObject`, RequestResponse adds `responseObject`; `omitManagedFields` drops
 *   `metadata.managedFields` from both.
 * - pkg/audit/context.go `AddAuditAnnotation`: an annotation key keeps its first value.
 * - pkg/endpoints/filters/authn_audit.go `WithFailedAuthenticationAudit` and request_deadline.go
 *   `withFailedRequestAudit`: a request refused before it gets that far (authentication failed, bad
 *   `timeout`) gives a single `ResponseStarted` event when its response head goes out.
 *
 * Events are built afresh for each stage, so a sink may keep them; the request and response objects
 * inside are the caller's (shared, frozen objects are fine: nothing here changes them).
 */
import type { RequestUser } from '../../api/request.js';
import { handleError } from '../../util/runtime/index.js';
import type { Clock } from '../../util/clock/index.js';
import { realRand } from '../../util/random/index.js';
import { isLongRunning, type RequestInfo } from '../http/requestinfo.js';
import {
  auditIDFromHeaders,
  copyWithoutManagedFields,
  formatAuditTime,
  headerValue,
  maybeTruncateUserAgent,
  sourceIPs,
  type AuditHeaders,
} from './request.js';
import type { AuditSink } from './sink.js';
import {
  AUDIT_API_VERSION,
  levelLess,
  type AuditEvent,
  type AuditLevel,
  type AuditObjectReference,
  type AuditResponseStatus,
  type AuditStage,
  type AuditUserInfo,
  type PolicyRuleEvaluator,
  type RequestAuditConfig,
} from './types.js';

/** authorization.go: the annotation keys and values the authorization filter records. */
export const DECISION_ANNOTATION_KEY = 'authorization.k8s.io/decision';
export const REASON_ANNOTATION_KEY = 'authorization.k8s.io/reason';
export const DECISION_ALLOW = 'allow';
export const DECISION_FORBID = 'forbid';
/** The reason recorded (without a decision) when the authorizer failed: the request gets a 500. */
export const REASON_ERROR = 'internal error';

/** What the auditor needs to know of a request. */
export interface AuditRequest {
  /** The request's audit ID (see {@link auditIDFromHeaders}); default: the `Audit-Id` header, else a new ID. */
  auditID?: string | undefined;
  /** `req.url`: path and query as sent (Go's `URL.RequestURI()`). */
  requestURI: string;
  /** `req.headers` (User-Agent, X-Forwarded-For, X-Real-Ip, Audit-Id are read). */
  headers: AuditHeaders;
  /** `req.socket.remoteAddress`. */
  remoteAddress?: string | undefined;
  /** The request's RequestInfo: verb, path and, for resource requests, the objectRef. */
  info: RequestInfo;
  /** The authenticated user, before impersonation; undefined when nobody was authenticated. */
  user?: RequestUser | undefined;
  /** When the request arrived (ms, as the auditor's clock reads it); default: now. */
  receivedAt?: number | undefined;
  /** Whether the request is long-running (gets a ResponseStarted event); default: {@link isLongRunning}(info). */
  longRunning?: boolean | undefined;
}

/** Construction options of an {@link Auditor}. */
export interface AuditorOptions {
  /** The policy (see loadAuditPolicy). */
  policy: PolicyRuleEvaluator;
  sink: AuditSink;
  /** Timestamps come from `now()`, refined below the millisecond by `monotonic()`. */
  clock: Clock;
  /** Makes audit IDs for requests that bring none; default: random UUIDs (util/random). */
  newId?: (() => string) | undefined;
}

/**
 * The audit of one request whose level is not None. Call the setters as the request goes through the
 * server; the stage methods write events. Every method may be called any number of times and in any
 * order: after {@link AuditContext.complete} or {@link AuditContext.panic} nothing more is written.
 */
export interface AuditContext {
  readonly auditID: string;
  /** Metadata, Request or RequestResponse. */
  readonly level: Exclude<AuditLevel, 'None'>;
  /** The user the request acts as (the Impersonate-User headers), once impersonation succeeded. */
  setImpersonatedUser(user: RequestUser): void;
  /** Records an annotation; a key keeps its first value (context.go `addAuditAnnotationLocked`). */
  addAnnotation(key: string, value: string): void;
  /** The authorizer's answer: `authorization.k8s.io/decision` allow|forbid and `authorization.k8s.io/reason`. */
  setAuthorizationDecision(decision: typeof DECISION_ALLOW | typeof DECISION_FORBID, reason: string): void;
  /**
   * The decoded request body of a create, update or other object-carrying request (request.go
   * `LogRequestObject`): fills the objectRef's empty namespace, name, uid and resourceVersion from
   * its metadata, and is recorded from level Request on.
   */
  setRequestObject(obj: unknown): void;
  /** The body of a patch, as JSON values (request.go `LogRequestPatch`), recorded from level Request on. */
  setRequestPatch(patch: unknown): void;
  /**
   * The object about to be written as the response body (request.go `LogResponseObject`): a
   * `Status` becomes the event's responseStatus; the object is recorded at level RequestResponse.
   * Call it before the response head goes out, as upstream's response writers do.
   */
  setResponseObject(obj: unknown): void;
  /**
   * The response head goes out with `code` (the first WriteHeader or Write; 101 for an upgrade).
   * Only the first call counts. Writes ResponseStarted for long-running and refused requests.
   */
  responseStarted(code: number): void;
  /** The response is done (or the client went away): writes ResponseComplete. */
  complete(): void;
  /** The handler crashed with `err`: writes Panic with status 500 instead of ResponseComplete. */
  panic(err: unknown): void;
}

/** The status of a request whose response never started (audit.go `fakedSuccessStatus`). */
const connectionClosedEarly = (): AuditResponseStatus => ({ metadata: {}, status: 'Success', message: 'Connection closed early', code: 200 });

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** authentication/v1 UserInfo of a user (empty fields omitted, as Go's omitempty does). */
function userInfo(user: RequestUser | undefined): AuditUserInfo {
  if (!user) return {};
  const out: AuditUserInfo = {};
  if (user.username !== '') out.username = user.username;
  if (user.uid) out.uid = user.uid;
  if (user.groups.length > 0) out.groups = [...user.groups];
  const extra = Object.keys(user.extra ?? {}).sort();
  if (extra.length > 0) out.extra = Object.fromEntries(extra.map((k) => [k, [...(user.extra?.[k] ?? [])]]));
  return out;
}

/** An objectRef with its empty fields left out, in upstream's field order. */
function compactObjectRef(ref: AuditObjectReference): AuditObjectReference {
  const out: AuditObjectReference = {};
  for (const key of ['resource', 'namespace', 'name', 'uid', 'apiGroup', 'apiVersion', 'resourceVersion', 'subresource'] as const) {
    const v = ref[key];
    if (v) out[key] = v;
  }
  return out;
}

/** A copy of a responseStatus with its fields in metav1.Status's JSON order. */
function copyStatus(s: AuditResponseStatus): AuditResponseStatus {
  const out: AuditResponseStatus = { metadata: {} };
  if (s.status) out.status = s.status;
  if (s.message) out.message = s.message;
  if (s.reason) out.reason = s.reason;
  if (s.details) out.details = s.details;
  if (s.code) out.code = s.code;
  return out;
}

/**
 * Audits requests against one policy into one sink (upstream's `WithAudit` with its
 * `PolicyRuleEvaluator` and `Sink`). Without a policy file kube-apiserver has no auditor at all and
 * writes no events; the CLI then builds none (see options.ts).
 */
export class Auditor {
  private readonly policy: PolicyRuleEvaluator;
  private readonly sink: AuditSink;
  private readonly clock: Clock;
  private readonly newId: () => string;
  /** The wall clock reading and the monotonic one taken together, for sub-millisecond timestamps. */
  private anchorWall: number;
  private anchorMono: number;

  constructor(options: AuditorOptions) {
    this.policy = options.policy;
    this.sink = options.sink;
    this.clock = options.clock;
    this.newId = options.newId ?? (() => realRand.uuid());
    this.anchorWall = this.clock.now();
    this.anchorMono = this.clock.monotonic();
  }

  /**
   * The current instant in ms with microsecond detail: the wall clock advanced by the monotonic
   * clock since the anchor, re-anchored whenever the two disagree by a millisecond (the wall clock
   * reads whole milliseconds). With a fake clock both read the same, so this is exactly `now()`.
   */
  now(): number {
    const wall = this.clock.now();
    const mono = this.clock.monotonic();
    const t = this.anchorWall + (mono - this.anchorMono);
    if (t >= wall && t < wall + 1) return t;
    this.anchorWall = wall;
    this.anchorMono = mono;
    return wall;
  }

  /** The policy's decision for a request (for callers that want the level without starting an audit). */
  evaluate(req: Pick<AuditRequest, 'info' | 'user'>): RequestAuditConfig {
    return this.policy.evaluatePolicyRule({ ...req.info, user: req.user });
  }

  /**
   * Starts auditing a request that passed authentication (audit.go `WithAudit`): evaluates the
   * policy and, unless the level is None (then it returns undefined and nothing is written), writes
   * the RequestReceived event and returns the request's {@link AuditContext}.
   */
  begin(req: AuditRequest): AuditContext | undefined {
    const config = this.evaluate(req);
    if (config.level === 'None') return undefined;
    const ctx = new RequestAuditContext(this, req, config, req.longRunning ?? isLongRunning(req.info), false);
    ctx.emit('RequestReceived');
    return ctx;
  }

  /**
   * Audits a request refused before the audit filter (authn_audit.go, request_deadline.go): the
   * policy is evaluated with no user, and the only event is ResponseStarted with `message` in its
   * responseStatus, written by {@link AuditContext.responseStarted}. For a failed authentication
   * pass {@link authenticationFailedMessage}; for a bad request, the error's message. Undefined when
   * the level is None.
   */
  beginRefused(req: AuditRequest, message: string): AuditContext | undefined {
    const config = this.evaluate({ info: req.info, user: undefined });
    if (config.level === 'None') return undefined;
    const ctx = new RequestAuditContext(this, { ...req, user: undefined }, config, false, true);
    ctx.responseStatus = { metadata: {}, message };
    return ctx;
  }

  /** Hands one event to the sink; a failing sink is reported, never thrown (upstream's blocking mode ignores errors). */
  write(event: AuditEvent): void {
    try {
      this.sink.write(event);
    } catch (err) {
      handleError(err, { component: 'audit', msg: 'Error in audit plugin', auditID: event.auditID });
    }
  }

  /** Closes the sink (server shutdown): flushes the log. */
  close(): Promise<void> {
    return this.sink.close();
  }

  /** A new audit ID. */
  makeID(): string {
    return this.newId();
  }
}

/** One request's audit; see {@link AuditContext}. */
class RequestAuditContext implements AuditContext {
  readonly auditID: string;
  readonly level: Exclude<AuditLevel, 'None'>;
  private readonly omitStages: ReadonlySet<AuditStage>;
  private readonly omitManagedFields: boolean;
  private readonly receivedAt: number;
  private readonly requestURI: string;
  private readonly verb: string;
  private readonly user: AuditUserInfo;
  private impersonatedUser: AuditUserInfo | undefined;
  private readonly sourceIPs: string[];
  private readonly userAgent: string;
  private objectRef: AuditObjectReference | undefined;
  responseStatus: AuditResponseStatus | undefined;
  private requestObject: unknown;
  private responseObject: unknown;
  private readonly annotations = new Map<string, string>();
  private started = false;
  private done = false;

  constructor(
    private readonly auditor: Auditor,
    req: AuditRequest,
    config: RequestAuditConfig,
    /** Long-running requests get a ResponseStarted event. */
    private readonly longRunning: boolean,
    /** A refused request: ResponseStarted is its only event. */
    private readonly refused: boolean,
  ) {
    this.auditID = req.auditID ?? auditIDFromHeaders(req.headers) ?? auditor.makeID();
    this.level = config.level as Exclude<AuditLevel, 'None'>;
    this.omitStages = new Set(config.omitStages);
    this.omitManagedFields = config.omitManagedFields;
    this.receivedAt = req.receivedAt ?? auditor.now();
    this.requestURI = req.requestURI;
    this.verb = req.info.verb;
    this.user = userInfo(req.user);
    this.sourceIPs = sourceIPs(req.headers, req.remoteAddress);
    this.userAgent = maybeTruncateUserAgent(headerValue(req.headers, 'User-Agent'));
    const { info } = req;
    if (info.isResourceRequest) {
      this.objectRef = {
        resource: info.resource,
        namespace: info.namespace,
        name: info.name,
        apiGroup: info.apiGroup,
        apiVersion: info.apiVersion,
        subresource: info.subresource,
      };
    }
  }

  setImpersonatedUser(user: RequestUser): void {
    const info = userInfo(user);
    // LogImpersonatedUser always sets the username, even an empty one.
    this.impersonatedUser = { username: user.username, ...info };
  }

  addAnnotation(key: string, value: string): void {
    if (!this.annotations.has(key)) this.annotations.set(key, value);
  }

  setAuthorizationDecision(decision: typeof DECISION_ALLOW | typeof DECISION_FORBID, reason: string): void {
    this.addAnnotation(DECISION_ANNOTATION_KEY, decision);
    this.addAnnotation(REASON_ANNOTATION_KEY, reason);
  }

  setRequestObject(obj: unknown): void {
    const ref = (this.objectRef ??= {});
    const meta = isObject(obj) && isObject(obj['metadata']) ? obj['metadata'] : undefined;
    if (meta) {
      const str = (k: string): string => (typeof meta[k] === 'string' ? meta[k] : '');
      ref.namespace ||= str('namespace');
      ref.name ||= str('name');
      ref.uid ||= str('uid');
      ref.resourceVersion ||= str('resourceVersion');
    }
    if (levelLess(this.level, 'Request')) return;
    this.requestObject = this.omitManagedFields ? copyWithoutManagedFields(obj) : obj;
  }

  setRequestPatch(patch: unknown): void {
    if (levelLess(this.level, 'Request')) return;
    this.requestObject = patch;
  }

  setResponseObject(obj: unknown): void {
    if (isObject(obj) && obj['kind'] === 'Status') {
      // Only the bounded fields of a Status, as upstream copies them.
      const s = obj as { status?: string; message?: string; reason?: string; details?: AuditResponseStatus['details']; code?: number };
      this.responseStatus = copyStatus({ metadata: {}, status: s.status, message: s.message, reason: s.reason, details: s.details, code: s.code });
    }
    if (levelLess(this.level, 'RequestResponse')) return;
    this.responseObject = this.omitManagedFields ? copyWithoutManagedFields(obj) : obj;
  }

  responseStarted(code: number): void {
    if (this.started || this.done) return;
    this.started = true;
    this.responseStatus = { ...(this.responseStatus ?? { metadata: {} }), code };
    if (this.longRunning || this.refused) this.emit('ResponseStarted');
    if (this.refused) this.done = true;
  }

  complete(): void {
    if (this.done) return;
    this.done = true;
    if (this.refused) return;
    // A long-running request whose response never started still gets its ResponseStarted event.
    if (this.responseStatus === undefined && this.longRunning) {
      this.responseStatus = connectionClosedEarly();
      this.emit('ResponseStarted');
    }
    this.responseStatus ??= connectionClosedEarly();
    this.emit('ResponseComplete');
  }

  panic(err: unknown): void {
    if (this.done) return;
    this.done = true;
    const text = err instanceof Error ? err.message : String(err);
    this.responseStatus = { metadata: {}, status: 'Failure', message: `APIServer panic'd: ${text}`, reason: 'InternalError', code: 500 };
    this.emit('Panic');
  }

  /** audit.go `processAuditEvent`: writes the event of `stage` unless the policy omits it. */
  emit(stage: AuditStage): void {
    if (this.omitStages.has(stage)) return;
    // RequestReceived is stamped with the arrival time, later stages with the present.
    const stageTimestamp = stage === 'RequestReceived' ? this.receivedAt : this.auditor.now();
    this.auditor.write(this.event(stage, stageTimestamp));
  }

  /** The event as it stands, fields in upstream's order, empty ones left out. */
  private event(stage: AuditStage, stageTimestamp: number): AuditEvent {
    const ev: Partial<AuditEvent> = {
      kind: 'Event',
      apiVersion: AUDIT_API_VERSION,
      level: this.level,
      auditID: this.auditID,
      stage,
      requestURI: this.requestURI,
      verb: this.verb,
      user: this.user,
    };
    if (this.impersonatedUser) ev.impersonatedUser = this.impersonatedUser;
    if (this.sourceIPs.length > 0) ev.sourceIPs = this.sourceIPs;
    if (this.userAgent !== '') ev.userAgent = this.userAgent;
    if (this.objectRef) ev.objectRef = compactObjectRef(this.objectRef);
    if (this.responseStatus) ev.responseStatus = copyStatus(this.responseStatus);
    if (this.requestObject !== undefined && this.requestObject !== null) ev.requestObject = this.requestObject;
    if (this.responseObject !== undefined && this.responseObject !== null) ev.responseObject = this.responseObject;
    ev.requestReceivedTimestamp = formatAuditTime(this.receivedAt);
    ev.stageTimestamp = formatAuditTime(stageTimestamp);
    if (this.annotations.size > 0) {
      // Go writes a map's keys sorted.
      ev.annotations = Object.fromEntries([...this.annotations].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return ev as AuditEvent;
  }
}
