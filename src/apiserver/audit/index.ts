/**
 * The audit log: which requests are recorded, at what level (a Policy of audit.k8s.io/v1), and the
 * events written for them (audit.k8s.io/v1 Event, one JSON object per line), as kube-apiserver's
 * `--audit-policy-file` / `--audit-log-path` do it (k8s.io/apiserver pkg/audit, pkg/audit/policy,
 * pkg/endpoints/filters/audit*.go, plugin/pkg/audit/log, v1.33).
 *
 * Wiring into the HTTP handler (upstream's filter order: audit init outermost, then authentication,
 * the audit filter, impersonation, max-in-flight, authorization, the handler):
 *
 * 1. Startup (cli): `const auditor = newAuditorFromOptions({ policyFile, logPath, logFormat }, { clock })`;
 *    undefined means auditing is off (no policy file, or no log path). On shutdown `await auditor.close()`.
 * 2. Every request, first thing (upstream's `WithAuditInit`, which runs even without auditing):
 *    `const auditID = auditIDFromHeaders(req.headers) ?? rand.uuid(); res.setHeader(AUDIT_ID_HEADER, auditID)`,
 *    and note the arrival time `receivedAt = auditor?.now()`.
 * 3. Authentication failed: `const ac = auditor?.beginRefused({ auditID, requestURI: req.url, headers:
 *    req.headers, remoteAddress: req.socket.remoteAddress, info, receivedAt }, authenticationFailedMessage({
 *    headers: req.headers, accessToken: query.access_token, clientCertificate }))`; if `ac`,
 *    `auditResponse(ac, res)`; then write the 401, passing its Status to `ac.setResponseObject`
 *    first. (Likewise for a request refused for a bad `timeout`, with the error's message.)
 * 4. Authenticated: `const ac = auditor?.begin({ auditID, requestURI: req.url, headers: req.headers,
 *    remoteAddress: req.socket.remoteAddress, info, user, receivedAt })` — the user before
 *    impersonation; `info` is the RequestInfo (upstream also names the object of a list/watch by
 *    `fieldSelector=metadata.name=x`: pass `{ ...info, name }` to match). If `ac`: `auditResponse(ac, res)`.
 *    Upgrades (exec/attach/portforward) have no ServerResponse: call `ac.responseStarted(101)` when
 *    switching protocols and `ac.complete()` when the socket closes.
 * 5. Impersonation succeeded: `ac.setImpersonatedUser(impersonated)`.
 * 6. Authorization: allowed → `ac.setAuthorizationDecision('allow', reason)`; denied →
 *    `ac.setAuthorizationDecision('forbid', reason)`; authorizer error → `ac.addAnnotation(REASON_ANNOTATION_KEY, REASON_ERROR)`.
 *    Admission plugins may `ac.addAnnotation(key, value)`.
 * 7. Handlers: the decoded (and defaulted) body of create/update/subresource posts →
 *    `ac.setRequestObject(obj)`; a patch → `ac.setRequestPatch(patch)`; every object or Status written
 *    as the response body → `ac.setResponseObject(obj)` before the head goes out (watch events are
 *    not recorded).
 * 8. An unexpected exception escaping the handler (what upstream's panic recovery turns into a 500):
 *    `ac.panic(err)` before answering. A thrown StatusError is an ordinary response, not a panic.
 *
 * Timestamps come from the auditor's clock (`auditor.now()`, microseconds), audit IDs from the
 * `Audit-Id` header or a UUID. Nothing here reads the wall clock or randomness directly.
 */
export {
  AUDIT_API_VERSION,
  AUDIT_ID_HEADER,
  AUDIT_LEVELS,
  AUDIT_STAGES,
  levelLess,
  type AuditAttributes,
  type AuditEvent,
  type AuditLevel,
  type AuditObjectReference,
  type AuditPolicy,
  type AuditResponseStatus,
  type AuditStage,
  type AuditUserInfo,
  type GroupResources,
  type PolicyRule,
  type PolicyRuleEvaluator,
  type RequestAuditConfig,
} from './types.js';
export { DEFAULT_AUDIT_LEVEL, newFakePolicyRuleEvaluator, newPolicyRuleEvaluator, pathMatches, ruleMatches, unionStages } from './policy.js';
export { validatePolicy } from './validation.js';
export { loadAuditPolicy, loadAuditPolicyFile, parseAuditPolicy, type LoadedAuditPolicy } from './reader.js';
export {
  auditIDFromHeaders,
  authenticationFailedMessage,
  copyWithoutManagedFields,
  formatAuditTime,
  maybeTruncateUserAgent,
  sourceIPs,
  type AuditHeaders,
  type AuthenticationAttempt,
} from './request.js';
export {
  Auditor,
  DECISION_ALLOW,
  DECISION_ANNOTATION_KEY,
  DECISION_FORBID,
  REASON_ANNOTATION_KEY,
  REASON_ERROR,
  type AuditContext,
  type AuditorOptions,
  type AuditRequest,
} from './context.js';
export { auditResponse } from './response.js';
export { eventString } from './format.js';
export { AUDIT_LOG_FORMATS, MemoryAuditSink, encodeAuditEvent, fileAuditSink, type AuditLogFormat, type AuditSink, type FileAuditSinkOptions } from './sink.js';
export { AUDIT_FLAG_HELP, newAuditorFromOptions, validateAuditOptions, type AuditDependencies, type AuditOptions } from './options.js';
