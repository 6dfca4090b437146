/**
 * Roles (namespaced) and ClusterRoles (rbac.authorization.k8s.io/v1), with upstream's bootstrap
 * policy reconciled at start-up (rbac-bootstrap.ts, rbac-reconcile.ts): the default ClusterRoles,
 * the controllers' roles and the Roles of kube-system and kube-public. The authorizer in
 * src/apiserver/authz evaluates them (with the bindings of rolebindings.ts) for every request.
 *
 * Followed (v1.33): pkg/apis/rbac/validation/validation.go (ValidateRBACName, ValidatePolicyRule,
 * ValidateRole, ValidateClusterRole with its aggregationRule, ValidateClusterRoleUpdate),
 * pkg/registry/rbac/role/strategy.go and pkg/registry/rbac/clusterrole/strategy.go (AllowCreateOnUpdate
 * and AllowUnconditionalUpdate true; nothing to prepare), pkg/registry/rbac/rest/storage_rbac.go (the
 * bootstrap policy created at start-up). printers.go has no printer for either kind, so `kubectl get`
 * shows the default table: NAME, CREATED AT.
 *
 * Upstream's ClusterRole strategy validates an update by calling ValidateClusterRole and then
 * ValidateClusterRoleUpdate, which calls it again: each rule error is a cause twice (the message lists
 * it once, as ErrorList.ToAggregate does); kept here. Not done: AllowInvalidLabelValueInSelector on
 * updates of a ClusterRole already stored with an invalid selector value (every value is checked).
 */
import { CLUSTER_ROLES, ROLES } from '../../../api/catalogue/index.js';
import type { AggregationRule, ClusterRole, PolicyRule, Role } from '../../../api/index.js';
import { field, goStringSlice, type FieldError } from '../../../machinery/errors/index.js';
import { selectorFromLabelSelector } from '../../../machinery/labels/index.js';
import { isValidPathSegmentName, validateLabelSelector } from '../../../machinery/validation/index.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import type { ApiObject } from './helpers.js';
import { BOOTSTRAP_CLUSTER_ROLES, BOOTSTRAP_ROLES } from './rbac-bootstrap.js';
import { rbacStorage } from './rbac-storage.js';
import { defaultTablePrinter } from './table-helpers.js';

type RoleObject = ApiObject<Role>;
type ClusterRoleObject = ApiObject<ClusterRole>;

/** `ValidateRBACName`: role, binding and roleRef names need only be one URL path segment (`system:node` is valid). */
export const validateRBACName = isValidPathSegmentName;

/**
 * `ValidatePolicyRule`: verbs are required; a rule with nonResourceURLs may not be namespaced nor name
 * API groups, resources or resourceNames; any other rule needs apiGroups and resources.
 */
export function validatePolicyRule(rule: PolicyRule, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if ((rule.verbs ?? []).length === 0) errs.push(field.required(`${path}.verbs`, 'verbs must contain at least one value'));
  const urls = rule.nonResourceURLs ?? [];
  if (urls.length > 0) {
    if (namespaced) errs.push(field.invalid(`${path}.nonResourceURLs`, goStringSlice(urls), 'namespaced rules cannot apply to non-resource URLs'));
    if ((rule.apiGroups ?? []).length > 0 || (rule.resources ?? []).length > 0 || (rule.resourceNames ?? []).length > 0) {
      errs.push(field.invalid(`${path}.nonResourceURLs`, goStringSlice(urls), 'rules cannot apply to both regular resources and non-resource URLs'));
    }
    return errs;
  }
  if ((rule.apiGroups ?? []).length === 0) errs.push(field.required(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  if ((rule.resources ?? []).length === 0) errs.push(field.required(`${path}.resources`, 'resource rules must supply at least one resource'));
  return errs;
}

function validateRules(rules: readonly PolicyRule[] | undefined, namespaced: boolean): FieldError[] {
  return (rules ?? []).flatMap((rule, i) => validatePolicyRule(rule, namespaced, `rules[${i}]`));
}

/**
 * The aggregationRule part of `ValidateClusterRole`: at least one clusterRoleSelector, each a valid
 * label selector (`LabelSelectorAsSelector` must accept it too: `invalid label selector.`).
 */
function validateAggregationRule(rule: AggregationRule | undefined): FieldError[] {
  if (!rule) return [];
  const path = 'aggregationRule.clusterRoleSelectors';
  const selectors = rule.clusterRoleSelectors ?? [];
  const errs: FieldError[] = [];
  if (selectors.length === 0) errs.push(field.required(path, 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
  selectors.forEach((selector, i) => {
    errs.push(...validateLabelSelector(selector, `${path}[${i}]`));
    try {
      selectorFromLabelSelector(selector);
    } catch {
      // Upstream reports the nil labels.Selector it got back, which prints as "null".
      errs.push(field.invalid(`${path}[${i}]`, 'null', 'invalid label selector.'));
    }
  });
  return errs;
}

/** `ValidateRole` without the generic ObjectMeta checks. */
export function validateRole(role: Role): FieldError[] {
  return validateRules(role.rules, true);
}

/** `ValidateClusterRole` without the generic ObjectMeta checks. */
export function validateClusterRole(role: ClusterRole): FieldError[] {
  return [...validateRules(role.rules, false), ...validateAggregationRule(role.aggregationRule)];
}

/** What the four RBAC strategies share: no defaults to apply beyond their own, no status, PUT may create. */
export const RBAC_STRATEGY = {
  hasStatus: false,
  nameValidator: validateRBACName,
  prepareForCreate() {},
  prepareForUpdate() {},
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
} as const;

/** The Role strategy, which reconciles the bootstrap Roles of kube-system and kube-public at start-up. */
export const roleStrategy: ResourceStrategy<RoleObject> = {
  ...RBAC_STRATEGY,
  info: resourceInfo(ROLES),
  defaults() {},
  validate: validateRole,
  validateUpdate: validateRole,
  storage: rbacStorage('roles', BOOTSTRAP_ROLES),
  table: defaultTablePrinter,
};

/** The ClusterRole strategy, which reconciles the bootstrap ClusterRoles at start-up. */
export const clusterRoleStrategy: ResourceStrategy<ClusterRoleObject> = {
  ...RBAC_STRATEGY,
  info: resourceInfo(CLUSTER_ROLES),
  defaults() {},
  validate: validateClusterRole,
  validateUpdate: (role) => [...validateClusterRole(role), ...validateClusterRole(role)],
  storage: rbacStorage('clusterroles', BOOTSTRAP_CLUSTER_ROLES),
  table: defaultTablePrinter,
};
