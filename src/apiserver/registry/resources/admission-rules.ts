/**
 * What admissionregistration.k8s.io/v1 webhooks and ValidatingAdmissionPolicies share: the defaults
 * of rules and match resources, and the validation of rules, match resources and match conditions.
 *
 * Followed (v1.33): pkg/apis/admissionregistration/v1/defaults.go (SetDefaults_Rule,
 * SetDefaults_MatchResources) and zz_generated.defaults.go (which rules get them),
 * pkg/apis/admissionregistration/validation/validation.go (validateRuleWithOperations, validateRule,
 * validateResources, validateMatchResources, validateNamedRuleWithOperations, validateMatchConditions).
 *
 * Not done: CEL expressions (match conditions here; validations, variables and audit annotations in
 * validatingadmissionpolicies.ts) are checked for presence only, never compiled or type-checked — a
 * later issue, with the admission that evaluates them.
 */
import type { LabelSelector } from '../../../api/index.js';
import { field, goStringSlice, type FieldError } from '../../../machinery/errors/index.js';
import { isValidPathSegmentName, validateLabelSelector, validateQualifiedName } from '../../../machinery/validation/index.js';

/** `admissionregistration.Rule` + `RuleWithOperations` + `NamedRuleWithOperations` (kubernetes-types lacks `resources` and `scope`). */
export interface AdmissionRule {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: string;
  resourceNames?: string[];
}

/** `admissionregistration.MatchResources`. */
export interface MatchResources {
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  resourceRules?: AdmissionRule[];
  excludeResourceRules?: AdmissionRule[];
  matchPolicy?: string;
}

/** `admissionregistration.MatchCondition`. */
export interface MatchCondition {
  name?: string;
  expression?: string;
}

/** `supportedFailurePolicies` (sorted, as `sets.List` prints them). */
export const FAILURE_POLICIES = ['Fail', 'Ignore'];
/** `supportedMatchPolicies`. */
export const MATCH_POLICIES = ['Equivalent', 'Exact'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const MAX_MATCH_CONDITIONS = 64;

/**
 * What every admissionregistration strategy.go says alike: no create on PUT, no update without a
 * resourceVersion, background deletion, no field selectors beyond the generic ones.
 */
export const ADMISSION_REGISTRATION_POLICY = {
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
} as const;

/** `SetDefaults_Rule`: scope `*`. */
export function defaultRule(rule: AdmissionRule): void {
  rule.scope ??= '*';
}

/** `SetDefaults_MatchResources` and the rules' defaults: matchPolicy Equivalent, empty selectors. */
export function defaultMatchResources(mr: MatchResources | undefined): void {
  if (!mr) return;
  mr.matchPolicy ??= 'Equivalent';
  mr.namespaceSelector ??= {};
  mr.objectSelector ??= {};
  for (const r of mr.resourceRules ?? []) defaultRule(r);
  for (const r of mr.excludeResourceRules ?? []) defaultRule(r);
}

/** Go's `%#v` of a list in an `Invalid value` (strings are `[]string`; operations are typed). */
const strings = (values: readonly string[]): ReturnType<typeof goStringSlice> => goStringSlice(values);

/**
 * `validateResources` (subresources allowed): non-empty entries; `x/*` excludes other `x/…`, `*\/x`
 * excludes other `…/x`; `*\/*` stands alone; `*` excludes plain resources. As upstream, whether a
 * plain resource was listed is decided by the last entry without a `/`.
 */
function validateResources(resources: readonly string[], path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(field.required(path));
  const resourcesWithWildcardSubresources = new Set<string>();
  const subresourcesWithWildcardResource = new Set<string>();
  let hasDoubleWildcard = false;
  let hasSingleWildcard = false;
  let hasResourceWithoutSubresource = false;
  resources.forEach((resSub, i) => {
    if (resSub === '') {
      errs.push(field.required(`${path}[${i}]`));
      return;
    }
    if (resSub === '*/*') hasDoubleWildcard = true;
    if (resSub === '*') hasSingleWildcard = true;
    const slash = resSub.indexOf('/');
    if (slash < 0) {
      hasResourceWithoutSubresource = resSub !== '*';
      return;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (resourcesWithWildcardSubresources.has(res)) errs.push(field.invalid(`${path}[${i}]`, resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    if (subresourcesWithWildcardResource.has(sub)) errs.push(field.invalid(`${path}[${i}]`, resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    if (sub === '*') resourcesWithWildcardSubresources.add(res);
    if (res === '*') subresourcesWithWildcardResource.add(sub);
  });
  if (resources.length > 1 && hasDoubleWildcard) errs.push(field.invalid(path, strings(resources), "if '*/*' is present, must not specify other resources"));
  if (hasSingleWildcard && hasResourceWithoutSubresource) {
    errs.push(field.invalid(path, strings(resources), "if '*' is present, must not specify other resources without subresources"));
  }
  return errs;
}

/** `validateRule` with subresources allowed: groups, versions, resources and scope. */
function validateRule(rule: AdmissionRule, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const groups = rule.apiGroups ?? [];
  const versions = rule.apiVersions ?? [];
  if (groups.length === 0) errs.push(field.required(`${path}.apiGroups`));
  if (groups.length > 1 && groups.includes('*')) errs.push(field.invalid(`${path}.apiGroups`, strings(groups), "if '*' is present, must not specify other API groups"));
  if (versions.length === 0) errs.push(field.required(`${path}.apiVersions`));
  if (versions.length > 1 && versions.includes('*')) {
    errs.push(field.invalid(`${path}.apiVersions`, strings(versions), "if '*' is present, must not specify other API versions"));
  }
  versions.forEach((v, i) => {
    if (v === '') errs.push(field.required(`${path}.apiVersions[${i}]`));
  });
  errs.push(...validateResources(rule.resources ?? [], `${path}.resources`));
  if (rule.scope != null && !SCOPES.includes(rule.scope)) errs.push(field.notSupported(`${path}.scope`, rule.scope, SCOPES));
  return errs;
}

/** `validateRuleWithOperations`: operations required, `*` alone, each supported; then the rule. */
export function validateRuleWithOperations(rule: AdmissionRule, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const ops = rule.operations ?? [];
  if (ops.length === 0) errs.push(field.required(`${path}.operations`));
  if (ops.length > 1 && ops.includes('*')) {
    errs.push(field.invalid(`${path}.operations`, goStringSlice(ops, '[]admissionregistration.OperationType'), "if '*' is present, must not specify other operations"));
  }
  ops.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) errs.push(field.notSupported(`${path}.operations[${i}]`, op, OPERATIONS));
  });
  return [...errs, ...validateRule(rule, path)];
}

/** `validateNamedRuleWithOperations`: resourceNames are unique path segments; then the rule. */
function validateNamedRuleWithOperations(rule: AdmissionRule, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (rule.resourceNames ?? []).forEach((name, i) => {
    const p = `${path}.resourceNames[${i}]`;
    for (const msg of isValidPathSegmentName(name)) errs.push(field.invalid(p, name, msg));
    if (seen.has(name)) errs.push(field.duplicate(p, name));
    seen.add(name);
  });
  return [...errs, ...validateRuleWithOperations(rule, path)];
}

/**
 * `validateMatchResources` (nothing for an absent one): matchPolicy and both selectors required
 * (they are defaulted, so only an explicit empty value misses), selectors strict, every rule valid.
 */
export function validateMatchResources(mr: MatchResources | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (!mr) return errs;
  if (mr.matchPolicy == null) errs.push(field.required(`${path}.matchPolicy`));
  else if (!MATCH_POLICIES.includes(mr.matchPolicy)) errs.push(field.notSupported(`${path}.matchPolicy`, mr.matchPolicy, MATCH_POLICIES));
  if (mr.namespaceSelector == null) errs.push(field.required(`${path}.namespaceSelector`));
  else errs.push(...validateLabelSelector(mr.namespaceSelector, `${path}.namespaceSelector`));
  if (mr.objectSelector == null) errs.push(field.required(`${path}.objectSelector`));
  else errs.push(...validateLabelSelector(mr.objectSelector, `${path}.objectSelector`));
  (mr.resourceRules ?? []).forEach((r, i) => errs.push(...validateNamedRuleWithOperations(r, `${path}.resourceRules[${i}]`)));
  (mr.excludeResourceRules ?? []).forEach((r, i) => errs.push(...validateNamedRuleWithOperations(r, `${path}.excludeResourceRules[${i}]`)));
  return errs;
}

/**
 * `validateMatchConditions`: at most 64, each with a non-blank expression and a qualified name,
 * names unique. The expression is not compiled (see the module comment).
 */
export function validateMatchConditions(conditions: readonly MatchCondition[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const list = conditions ?? [];
  if (list.length > MAX_MATCH_CONDITIONS) errs.push(field.tooMany(path, list.length, MAX_MATCH_CONDITIONS));
  const names = new Set<string>();
  list.forEach((c, i) => {
    const p = `${path}[${i}]`;
    if ((c.expression ?? '').trim() === '') errs.push(field.required(`${p}.expression`));
    const name = c.name ?? '';
    if (name === '') errs.push(field.required(`${p}.name`));
    else errs.push(...validateQualifiedName(name, `${p}.name`));
    if (name !== '') {
      if (names.has(name)) errs.push(field.duplicate(`${p}.name`, name));
      names.add(name);
    }
  });
  return errs;
}
