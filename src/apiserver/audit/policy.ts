/**
 * Evaluating an audit policy for one request: the first rule that matches decides the level, the
 * stages to omit (the rule's and the policy's together) and whether managedFields are dropped from the
 * recorded bodies; no matching rule means level None. Follows k8s.io/apiserver
 * pkg/audit/policy/checker.go (v1.33) rule for rule:
 *
 * - `users`, `userGroups`, `verbs`: the request's must be listed (no user matches no rule that names
 *   users or groups);
 * - `namespaces` / `resources` make a rule match resource requests only: the namespace must be listed
 *   (`''` for cluster-scoped ones); a GroupResources entry matches its group and, when it lists
 *   resources, `pods`, `pods/log` (resource/subresource), `*` (anything, subresources too), `*\/log`
 *   (that subresource of anything) or `pods/*` (pods and any subresource of pods), limited to
 *   `resourceNames` when listed;
 * - `nonResourceURLs` make it match non-resource requests only: `*`, the exact path, or a prefix
 *   ending with `*`;
 * - a rule with none of these matches every request its users/groups/verbs allow.
 */
import type { AuditAttributes, AuditPolicy, AuditStage, PolicyRule, PolicyRuleEvaluator, RequestAuditConfig } from './types.js';

/** checker.go `DefaultAuditLevel`: the level of a request no rule matches. */
export const DEFAULT_AUDIT_LEVEL = 'None';

/** checker.go `unionStages`: every stage named in any of the lists, once. */
export function unionStages(...stageLists: (readonly AuditStage[] | undefined)[]): AuditStage[] {
  const out = new Set<AuditStage>();
  for (const list of stageLists) for (const s of list ?? []) out.add(s);
  return [...out];
}

/**
 * checker.go `NewPolicyRuleEvaluator`: evaluates `policy` (which it does not change; each rule's
 * omitStages is merged with the policy's up front, as upstream does).
 */
export function newPolicyRuleEvaluator(policy: AuditPolicy): PolicyRuleEvaluator {
  const policyStages = policy.omitStages ?? [];
  const policyOmitManagedFields = policy.omitManagedFields ?? false;
  const rules = policy.rules.map((rule) => ({ rule, omitStages: unionStages(policyStages, rule.omitStages) }));
  return {
    evaluatePolicyRule(attrs: AuditAttributes): RequestAuditConfig {
      for (const { rule, omitStages } of rules) {
        if (ruleMatches(rule, attrs)) {
          return { level: rule.level, omitStages, omitManagedFields: rule.omitManagedFields ?? policyOmitManagedFields };
        }
      }
      return { level: DEFAULT_AUDIT_LEVEL, omitStages: [...policyStages], omitManagedFields: policyOmitManagedFields };
    },
  };
}

/** checker.go `NewFakePolicyRuleEvaluator`: one level and set of omitted stages for every request (tests). */
export function newFakePolicyRuleEvaluator(level: RequestAuditConfig['level'], omitStages: AuditStage[] = []): PolicyRuleEvaluator {
  return { evaluatePolicyRule: () => ({ level, omitStages, omitManagedFields: false }) };
}

const nonEmpty = (list: readonly unknown[] | undefined): boolean => list !== undefined && list.length > 0;

/** checker.go `ruleMatches`. */
export function ruleMatches(r: PolicyRule, attrs: AuditAttributes): boolean {
  const user = attrs.user;
  if (nonEmpty(r.users) && (!user || !(r.users as string[]).includes(user.username))) return false;
  if (nonEmpty(r.userGroups) && (!user || !user.groups.some((g) => (r.userGroups as string[]).includes(g)))) return false;
  if (nonEmpty(r.verbs) && !(r.verbs as string[]).includes(attrs.verb)) return false;
  if (nonEmpty(r.namespaces) || nonEmpty(r.resources)) return ruleMatchesResource(r, attrs);
  if (nonEmpty(r.nonResourceURLs)) return ruleMatchesNonResource(r, attrs);
  return true;
}

/** checker.go `ruleMatchesNonResource`. */
function ruleMatchesNonResource(r: PolicyRule, attrs: AuditAttributes): boolean {
  if (attrs.isResourceRequest) return false;
  return (r.nonResourceURLs ?? []).some((spec) => pathMatches(attrs.path, spec));
}

/** checker.go `pathMatches`: `*`, the exact path, or a trailing-`*` prefix. */
export function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  return spec.endsWith('*') && path.startsWith(spec.replace(/\*+$/, ''));
}

/** checker.go `ruleMatchesResource`. */
function ruleMatchesResource(r: PolicyRule, attrs: AuditAttributes): boolean {
  if (!attrs.isResourceRequest) return false;
  // Cluster-scoped resources have the namespace ''.
  if (nonEmpty(r.namespaces) && !(r.namespaces as string[]).includes(attrs.namespace)) return false;
  if (!nonEmpty(r.resources)) return true;

  const { resource, subresource, name } = attrs;
  // With a subresource, a rule's resource must read `<resource>/<subresource>`.
  const combined = subresource !== '' ? `${resource}/${subresource}` : resource;
  for (const gr of r.resources ?? []) {
    if ((gr.group ?? '') !== attrs.apiGroup) continue;
    if (!nonEmpty(gr.resources)) return true;
    if (nonEmpty(gr.resourceNames) && !(gr.resourceNames as string[]).includes(name)) continue;
    for (const res of gr.resources ?? []) {
      if (res === combined || res === '*') return true;
      if (subresource !== '' && res.startsWith('*/') && subresource === res.slice(2)) return true;
      if (res.endsWith('/*') && resource === res.slice(0, -2)) return true;
    }
  }
  return false;
}
