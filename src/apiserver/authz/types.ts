/**
 * The authorizer contract (k8s.io/apiserver pkg/authorization/authorizer/interfaces.go): what a
 * request asks to do ({@link Attributes}), and the answer ({@link Decision} with a reason).
 */
import type { RequestUser } from '../../api/request.js';

/**
 * `authorizer.Attributes` of one request. Resource requests fill apiGroup…name; non-resource requests
 * (`/healthz`, `/api`, `/version`) fill `path`, with `verb` the lower-case HTTP method (`get`, `post`).
 */
export interface Attributes {
  /** The authenticated (or impersonated) user; undefined only for the in-process loopback caller. */
  user: RequestUser | undefined;
  /** `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, `deletecollection`, `impersonate`, `escalate`, `bind`, `approve`… or an HTTP verb for non-resource requests. */
  verb: string;
  resourceRequest: boolean;
  /** The URL path of a non-resource request; '' otherwise. */
  path: string;
  namespace: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  name: string;
}

/** `authorizer.Decision`. */
export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

/** An authorizer's answer: the decision, the reason (shown after the 403 message) and any error met evaluating it. */
export interface AuthorizationResult {
  decision: Decision;
  reason: string;
  /** Errors met while evaluating (a binding naming a missing role), as upstream returns them beside the decision. */
  error?: string;
}

/** `authorizer.Authorizer`. Never throws. */
export interface Authorizer {
  authorize(attrs: Attributes): AuthorizationResult | Promise<AuthorizationResult>;
}

/** `authorizer.ResourceRuleInfo` / `NonResourceRuleInfo`, as SelfSubjectRulesReview lists them. */
export interface ResourceRuleInfo {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames: string[];
}
export interface NonResourceRuleInfo {
  verbs: string[];
  nonResourceURLs: string[];
}

/**
 * What a {@link RuleResolver} answers (upstream's four results of `RulesFor`): the rules, whether the
 * list may lack some (`incomplete`, which RBAC never sets; a webhook may), and the error met while
 * listing them, as SelfSubjectRulesReview's `status.evaluationError` shows it.
 */
export interface SubjectRules {
  resourceRules: ResourceRuleInfo[];
  nonResourceRules: NonResourceRuleInfo[];
  incomplete: boolean;
  error?: string;
}

/** `authorizer.RuleResolver`: the rules a user has in a namespace ('' = cluster-wide only). */
export interface RuleResolver {
  rulesFor(user: RequestUser, namespace: string): SubjectRules | Promise<SubjectRules>;
}

/**
 * `user.SystemPrivilegedGroup`: members may do everything (the privileged-groups authorizer allows
 * them before RBAC is asked, and the RBAC escalation checks let them through).
 */
export const SYSTEM_PRIVILEGED_GROUP = 'system:masters';
