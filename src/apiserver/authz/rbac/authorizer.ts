/**
 * The RBAC authorizer: a request is allowed when a rule of a role bound to its user allows it; else RBAC
 * has no opinion (the next authorizer, or a 403, decides).
 *
 * Followed (v1.33): plugin/pkg/auth/authorizer/rbac/rbac.go (RBACAuthorizer.Authorize, the
 * authorizingVisitor, RulesFor).
 *
 * Reasons, as upstream gives them:
 * - allowed: `RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters"`
 *   (see {@link BindingSource});
 * - not allowed: '' — or, when a binding's role could not be found, `RBAC: ` and the errors met, e.g.
 *   `RBAC: clusterrole.rbac.authorization.k8s.io "missing" not found`, several as `RBAC: [a, b]`.
 * RBAC never returns `Deny` and never an error.
 */
import type { PolicyRule } from '../../../api/index.js';
import type { RequestUser } from '../../../api/request.js';
import { aggregateMessages } from '../aggregate.js';
import type { Attributes, AuthorizationResult, Authorizer, NonResourceRuleInfo, ResourceRuleInfo, RuleResolver, SubjectRules } from '../types.js';
import { DefaultRuleResolver, type AuthorizationRuleResolver, type RBACGetters } from './rule-resolver.js';
import { ruleAllows } from './rules.js';

/**
 * upstream's `RBACAuthorizer`: {@link Authorizer} and {@link RuleResolver} (for SelfSubjectRulesReview).
 * Built over getters (upstream's `rbac.New`), its resolver names a missing role as listers do
 * (`clusterrole.rbac.authorization.k8s.io "x" not found`); or over any rule resolver.
 */
export class RBACAuthorizer implements Authorizer, RuleResolver {
  readonly ruleResolver: AuthorizationRuleResolver;

  constructor(source: RBACGetters | AuthorizationRuleResolver) {
    this.ruleResolver = 'visitRulesFor' in source ? source : new DefaultRuleResolver(source);
  }

  /** Stops at the first rule that allows the request; collects the resolution errors met before. */
  authorize(attrs: Attributes): AuthorizationResult {
    let reason = '';
    const errors: string[] = [];
    this.ruleResolver.visitRulesFor(attrs.user, attrs.namespace, (source, rule, err) => {
      if (source !== undefined && rule !== undefined && ruleAllows(attrs, rule)) {
        reason = `RBAC: allowed by ${source.toString()}`;
        return false;
      }
      if (err) errors.push(err.message);
      return true;
    });
    if (reason !== '') return { decision: 'Allow', reason };
    const aggregate = aggregateMessages(errors);
    return { decision: 'NoOpinion', reason: aggregate === undefined ? '' : `RBAC: ${aggregate}` };
  }

  /**
   * The user's rules for SelfSubjectRulesReview: each PolicyRule with resources as a resource rule,
   * each with nonResourceURLs as a non-resource rule (a rule with both gives one of each), in the order
   * the bindings were visited; `incomplete` is false, `error` the resolution errors as one message.
   */
  rulesFor(user: RequestUser, namespace: string): SubjectRules {
    const { rules, errors } = this.ruleResolver.rulesFor(user, namespace);
    const out: SubjectRules = { ...policyRulesToRuleInfo(rules), incomplete: false };
    const error = aggregateMessages(errors.map((e) => e.message));
    if (error !== undefined) out.error = error;
    return out;
  }
}

/** PolicyRules as upstream's RulesFor converts them (copies: the rules may be frozen cache objects). */
export function policyRulesToRuleInfo(rules: readonly PolicyRule[]): { resourceRules: ResourceRuleInfo[]; nonResourceRules: NonResourceRuleInfo[] } {
  const resourceRules: ResourceRuleInfo[] = [];
  const nonResourceRules: NonResourceRuleInfo[] = [];
  for (const rule of rules) {
    if (rule.resources !== undefined && rule.resources.length > 0) {
      resourceRules.push({
        verbs: [...rule.verbs],
        apiGroups: [...(rule.apiGroups ?? [])],
        resources: [...rule.resources],
        resourceNames: [...(rule.resourceNames ?? [])],
      });
    }
    if (rule.nonResourceURLs !== undefined && rule.nonResourceURLs.length > 0) {
      nonResourceRules.push({ verbs: [...rule.verbs], nonResourceURLs: [...rule.nonResourceURLs] });
    }
  }
  return { resourceRules, nonResourceRules };
}
