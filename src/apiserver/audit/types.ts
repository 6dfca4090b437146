/**
 * The audit.k8s.io/v1 types: the Policy a `--audit-policy-file` holds, and the Event the log backend
 * writes, one per line. Field names and JSON order are upstream's
 * (k8s.io/apiserver pkg/apis/audit/v1/types.go, v1.33); `?` marks the `omitempty` fields, and an
 * event is built in this order so that `JSON.stringify` prints it as upstream's encoder does.
 */
import type { StatusDetails } from 'kubernetes-types/meta/v1.js';

/** audit.k8s.io/v1, the only version the policy reader and the log backend know (1.24 dropped v1alpha1 and v1beta1). */
export const AUDIT_API_VERSION = 'audit.k8s.io/v1';

/** types.go `HeaderAuditID`: the request header a client may set the audit ID with; the server echoes it (Go writes it `Audit-Id`). */
export const AUDIT_ID_HEADER = 'Audit-Id';

/** How much of a request is recorded (types.go `Level`). */
export type AuditLevel = 'None' | 'Metadata' | 'Request' | 'RequestResponse';

/** The levels, least first: `Level.Less` compares positions here. */
export const AUDIT_LEVELS: readonly AuditLevel[] = ['None', 'Metadata', 'Request', 'RequestResponse'];

/** `Level.Less`: `a` records less than `b`. */
export function levelLess(a: AuditLevel, b: AuditLevel): boolean {
  return AUDIT_LEVELS.indexOf(a) < AUDIT_LEVELS.indexOf(b);
}

/** When in a request's life an event is written (types.go `Stage`). */
export type AuditStage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

/** The stages in upstream's order (validation.go `validOmitStages`). */
export const AUDIT_STAGES: readonly AuditStage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];

/** types.go `GroupResources`: resources of one API group (`''` is core), optionally only some names. */
export interface GroupResources {
  group?: string;
  /** Plurals; `pods/log` names a subresource, `*` any resource, `*\/status` a subresource of any, `pods/*` any subresource of pods. */
  resources?: string[];
  resourceNames?: string[];
}

/** types.go `PolicyRule`: which requests it matches, and the level it records them at. The first matching rule wins. */
export interface PolicyRule {
  level: AuditLevel;
  users?: string[];
  userGroups?: string[];
  verbs?: string[];
  resources?: GroupResources[];
  /** `''` matches cluster-scoped resources (and requests with no namespace). */
  namespaces?: string[];
  /** Paths of non-resource requests; a trailing `*` matches any suffix, `*` alone any path. */
  nonResourceURLs?: string[];
  omitStages?: AuditStage[];
  /** Overrides the policy's omitManagedFields when set. */
  omitManagedFields?: boolean;
}

/** types.go `Policy`, as a policy file holds it (after decoding: `rules` is always present). */
export interface AuditPolicy {
  apiVersion?: string;
  kind?: string;
  metadata?: Record<string, unknown>;
  rules: PolicyRule[];
  omitStages?: AuditStage[];
  omitManagedFields?: boolean;
}

/** authentication/v1 `UserInfo`, as an event records the requesting or impersonated user. */
export interface AuditUserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** types.go `ObjectReference`: what a resource request is about. */
export interface AuditObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

/**
 * The `metav1.Status` an event records as `responseStatus`: `metadata` is always there (`{}`, Go does
 * not omit an empty struct), then the bounded fields upstream copies from a Status response.
 */
export interface AuditResponseStatus {
  metadata: Record<string, never>;
  status?: string;
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

/** types.go `Event`: one line of the audit log. */
export interface AuditEvent {
  kind: 'Event';
  apiVersion: typeof AUDIT_API_VERSION;
  level: AuditLevel;
  auditID: string;
  stage: AuditStage;
  requestURI: string;
  verb: string;
  /** `{}` when nobody was authenticated (a failed authentication). */
  user: AuditUserInfo;
  impersonatedUser?: AuditUserInfo;
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: AuditObjectReference;
  responseStatus?: AuditResponseStatus;
  /** The request body at level Request and above (the object as decoded, or the patch). */
  requestObject?: unknown;
  /** The response body at level RequestResponse. */
  responseObject?: unknown;
  /** RFC 3339 with microseconds: `2024-01-01T00:00:00.123456Z` (metav1.MicroTime). */
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

/** pkg/audit/evaluator.go `RequestAuditConfig`: what the policy says about one request. */
export interface RequestAuditConfig {
  level: AuditLevel;
  omitStages: AuditStage[];
  omitManagedFields: boolean;
}

/**
 * What the policy looks at (upstream's `authorizer.Attributes` as GetAuthorizerAttributes builds them
 * from RequestInfo): a {@link RequestInfo} of src/apiserver/http/requestinfo.ts plus the user fits.
 */
export interface AuditAttributes {
  /** The authenticated user (before impersonation); undefined when nobody was authenticated. */
  user?: { username: string; groups: readonly string[] } | undefined;
  /** RequestInfo's verb: `get`, `list`, `watch`, `create`… for resource requests, the lower-case HTTP method otherwise. */
  verb: string;
  isResourceRequest: boolean;
  /** The URL path (nonResourceURLs match it). */
  path: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

/** pkg/audit/evaluator.go `PolicyRuleEvaluator`. */
export interface PolicyRuleEvaluator {
  evaluatePolicyRule(attrs: AuditAttributes): RequestAuditConfig;
}
