/**
 * Matching one request against one RBAC PolicyRule, and the compact text of a rule.
 *
 * Followed (v1.33): pkg/apis/rbac/v1/evaluation_helpers.go (VerbMatches, APIGroupMatches,
 * ResourceMatches, ResourceNameMatches, NonResourceURLMatches, CompactString) and
 * plugin/pkg/auth/authorizer/rbac/rbac.go (RuleAllows, RulesAllow).
 *
 * The wildcards are exactly upstream's:
 * - verbs, apiGroups, nonResourceURLs and resources: `*` matches everything;
 * - resources: `pods/status` names a subresource exactly; `*` in place of the resource (`*` then
 *   `/scale`) names that subresource of every resource; there is no `pods/*` form (it matches only a
 *   subresource literally named `*`), and a rule for `pods` does not cover `pods/status`;
 * - nonResourceURLs: a trailing `*` is a prefix match (`/apis/*` matches `/apis/v1` and `/apis/`, not
 *   `/apis`); a `*` elsewhere is literal;
 * - resourceNames: empty means every name; otherwise an exact name (a list or create request has name
 *   '' and so never matches a rule restricted by name).
 * Verbs are compared exactly: `GET` does not match `get`.
 */
import type { PolicyRule } from '../../../api/index.js';
import { goQuoteList } from '../aggregate.js';
import type { Attributes } from '../types.js';

/** `rbacv1.VerbAll`, `APIGroupAll`, `ResourceAll`, `NonResourceAll`. */
export const VERB_ALL = '*';
export const API_GROUP_ALL = '*';
export const RESOURCE_ALL = '*';
export const NON_RESOURCE_ALL = '*';

/** `VerbMatches`: the rule lists the verb, or `*`. */
export function verbMatches(rule: PolicyRule, requestedVerb: string): boolean {
  for (const verb of rule.verbs ?? []) {
    if (verb === VERB_ALL || verb === requestedVerb) return true;
  }
  return false;
}

/** `APIGroupMatches`: the rule lists the group (`''` is core), or `*`. */
export function apiGroupMatches(rule: PolicyRule, requestedGroup: string): boolean {
  for (const group of rule.apiGroups ?? []) {
    if (group === API_GROUP_ALL || group === requestedGroup) return true;
  }
  return false;
}

/**
 * `ResourceMatches`: `combinedRequestedResource` is `resource` or `resource/subresource`; the rule
 * lists it, or `*`, or — for a subresource request — `*` then `/<subresource>`.
 */
export function resourceMatches(rule: PolicyRule, combinedRequestedResource: string, requestedSubresource: string): boolean {
  for (const resource of rule.resources ?? []) {
    if (resource === RESOURCE_ALL || resource === combinedRequestedResource) return true;
    // Upstream tests length, `*/` prefix and subresource suffix, which together mean equality.
    if (requestedSubresource !== '' && resource === `*/${requestedSubresource}`) return true;
  }
  return false;
}

/** `ResourceNameMatches`: the rule names no resource, or names this one. */
export function resourceNameMatches(rule: PolicyRule, requestedName: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(requestedName);
}

/** `NonResourceURLMatches`: `*`, the exact path, or a prefix ending in `*` (every trailing `*` dropped). */
export function nonResourceURLMatches(rule: PolicyRule, requestedURL: string): boolean {
  for (const url of rule.nonResourceURLs ?? []) {
    if (url === NON_RESOURCE_ALL || url === requestedURL) return true;
    if (url.endsWith('*') && requestedURL.startsWith(url.replace(/\*+$/, ''))) return true;
  }
  return false;
}

/** `RuleAllows`: whether the rule allows the request (resource or non-resource). */
export function ruleAllows(attrs: Attributes, rule: PolicyRule): boolean {
  if (attrs.resourceRequest) {
    const combined = attrs.subresource === '' ? attrs.resource : `${attrs.resource}/${attrs.subresource}`;
    return (
      verbMatches(rule, attrs.verb) &&
      apiGroupMatches(rule, attrs.apiGroup) &&
      resourceMatches(rule, combined, attrs.subresource) &&
      resourceNameMatches(rule, attrs.name)
    );
  }
  return verbMatches(rule, attrs.verb) && nonResourceURLMatches(rule, attrs.path);
}

/** `RulesAllow`: whether any of the rules allows the request. */
export function rulesAllow(attrs: Attributes, rules: readonly PolicyRule[]): boolean {
  return rules.some((rule) => ruleAllows(attrs, rule));
}

/**
 * `CompactString`, the form escalation messages print a rule in: the non-empty fields in the order
 * APIGroups, Resources, NonResourceURLs, ResourceNames, Verbs, each as Go's `%q` of a list, e.g.
 * `{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}`.
 */
export function compactString(rule: PolicyRule): string {
  const parts: string[] = [];
  const add = (name: string, values: readonly string[] | undefined): void => {
    if (values !== undefined && values.length > 0) parts.push(`${name}:${goQuoteList(values)}`);
  };
  add('APIGroups', rule.apiGroups);
  add('Resources', rule.resources);
  add('NonResourceURLs', rule.nonResourceURLs);
  add('ResourceNames', rule.resourceNames);
  add('Verbs', rule.verbs);
  return `{${parts.join(', ')}}`;
}

/** `rbacv1helpers.String`: `PolicyRule{…}`, the key upstream sorts rules by (SortableRuleSlice). */
export function policyRuleString(rule: PolicyRule): string {
  return `PolicyRule${compactString(rule)}`;
}
