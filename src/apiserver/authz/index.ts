/**
 * Authorization: the authorizer contract, the RBAC authorizer and rule resolver, the union and
 * built-in authorizers, and RBAC privilege-escalation prevention for the RBAC storages.
 *
 * Upstream (v1.33): k8s.io/apiserver pkg/authorization/{authorizer,union,authorizerfactory},
 * plugin/pkg/auth/authorizer/rbac, pkg/registry/rbac (escalation_check.go, validation/).
 */
export type {
  Attributes,
  AuthorizationResult,
  Authorizer,
  Decision,
  NonResourceRuleInfo,
  ResourceRuleInfo,
  RuleResolver,
  SubjectRules,
} from './types.js';
export { SYSTEM_PRIVILEGED_GROUP } from './types.js';
export { aggregateMessages } from './aggregate.js';
export {
  alwaysAllowAuthorizer,
  alwaysDenyAuthorizer,
  privilegedGroupsAuthorizer,
  unionAuthorizer,
  unionRuleResolver,
  type RuleResolvingAuthorizer,
} from './union.js';
export {
  API_GROUP_ALL,
  apiGroupMatches,
  compactString,
  NON_RESOURCE_ALL,
  nonResourceURLMatches,
  policyRuleString,
  RESOURCE_ALL,
  resourceMatches,
  resourceNameMatches,
  ruleAllows,
  rulesAllow,
  VERB_ALL,
  verbMatches,
} from './rbac/rules.js';
export {
  appliesTo,
  appliesToUser,
  BindingSource,
  DefaultRuleResolver,
  describeSubject,
  GROUP_KIND,
  RBAC_GROUP,
  SERVICE_ACCOUNT_KIND,
  SERVICE_ACCOUNT_USERNAME_PREFIX,
  staticRBACGetters,
  USER_KIND,
  type AuthorizationRuleResolver,
  type RBACGetters,
  type RoleLookup,
  type RuleVisitor,
  type StaticRBACObjects,
} from './rbac/rule-resolver.js';
export { policyRulesToRuleInfo, RBACAuthorizer } from './rbac/authorizer.js';
export {
  AGGREGATION_RULE_FORBIDDEN,
  bindingAuthorized,
  breakdownRule,
  checkBindingEscalation,
  checkRoleEscalation,
  compactRules,
  confirmNoEscalation,
  covers,
  escalationAllowed,
  FULL_AUTHORITY,
  isOnlyMutatingGCFields,
  roleEscalationAuthorized,
  type BindingWrite,
  type EscalationContext,
  type RoleRequest,
  type RoleWrite,
} from './rbac/escalation.js';
