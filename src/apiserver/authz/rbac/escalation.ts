/**
 * RBAC privilege-escalation prevention: a user may write a Role or ClusterRole only with rules it
 * already holds (or with the `escalate` verb on it), and a RoleBinding or ClusterRoleBinding only to a
 * role whose rules it already holds (or with the `bind` verb on that role).
 *
 * Followed (v1.33):
 * - pkg/registry/rbac/escalation_check.go (EscalationAllowed, RoleEscalationAuthorized, BindingAuthorized);
 * - pkg/registry/rbac/validation/rule.go (ConfirmNoEscalation and its message);
 * - k8s.io/component-helpers/auth/rbac/validation/policy_comparator.go (Covers, BreakdownRule; it was
 *   pkg/registry/rbac/validation/policy_comparator.go);
 * - pkg/registry/rbac/validation/policy_compact.go (CompactRules);
 * - pkg/registry/rbac/helpers.go (IsOnlyMutatingGCFields);
 * - pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/policybased/storage.go (the
 *   order of the checks on create and update, and the errors returned), which
 *   {@link checkRoleEscalation} and {@link checkBindingEscalation} implement for our storages.
 *
 * A refused grant reads, as upstream (the missing rules compacted, sorted, one per line):
 * ```
 * roles.rbac.authorization.k8s.io "pod-reader" is forbidden: user "jane" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
 * {APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}
 * ```
 * followed by `; resolution errors: [<errors>]` when some of the user's bindings could not be resolved.
 * Upstream adds no hint about the `escalate` or `bind` verbs.
 *
 * Where kubeplane differs: an undefined user is the in-process loopback caller (upstream's modern
 * EscalationAllowed refuses a context without a user; the loopback client there is in `system:masters`),
 * and is always allowed.
 */
import type { ClusterRole, ClusterRoleBinding, ObjectMeta, PolicyRule, Role, RoleBinding, RoleRef } from '../../../api/index.js';
import type { RequestUser } from '../../../api/request.js';
import { errorMessage, goQuote, newForbidden, StatusError } from '../../../machinery/errors/index.js';
import { semanticDeepEqual } from '../../../machinery/meta/index.js';
import { aggregateMessages, goQuoteList } from '../aggregate.js';
import type { Attributes, Authorizer } from '../types.js';
import { SYSTEM_PRIVILEGED_GROUP } from '../types.js';
import { RBAC_GROUP, type AuthorizationRuleResolver } from './rule-resolver.js';
import { API_GROUP_ALL, compactString, NON_RESOURCE_ALL, RESOURCE_ALL, VERB_ALL } from './rules.js';

// ---------------------------------------------------------------------------------------------
// Covers (policy_comparator.go).

/**
 * `Covers`: whether the owner's rules allow everything the servant rules do. Each servant rule is
 * broken down into rules of one group, resource, verb and resource name (or one URL and verb), and
 * each piece must be covered by a single owner rule; `missing` lists the pieces that are not.
 */
export function covers(ownerRules: readonly PolicyRule[], servantRules: readonly PolicyRule[]): { covered: boolean; missing: PolicyRule[] } {
  const missing: PolicyRule[] = [];
  for (const servant of servantRules) {
    for (const subrule of breakdownRule(servant)) {
      if (!ownerRules.some((owner) => ruleCovers(owner, subrule))) missing.push(subrule);
    }
  }
  return { covered: missing.length === 0, missing };
}

/**
 * `BreakdownRule`: the rule as rules of at most one verb, group, resource and resource name (group ×
 * resource × verb × name, in that nesting), then one per non-resource URL × verb.
 */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const subrules: PolicyRule[] = [];
  const verbs = rule.verbs ?? [];
  const names = rule.resourceNames ?? [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of verbs) {
        if (names.length > 0) {
          for (const name of names) subrules.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
        } else {
          subrules.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        }
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of verbs) subrules.push({ nonResourceURLs: [url], verbs: [verb] });
  }
  return subrules;
}

/** `hasAll`: every element of `contains` is in `set`. */
function hasAll(set: readonly string[], contains: readonly string[]): boolean {
  return contains.every((c) => set.includes(c));
}

/** `resourceCoversAll`: `*`, every resource listed, or each subresource covered by `*` then `/<sub>`. */
function resourceCoversAll(setResources: readonly string[], coversResources: readonly string[]): boolean {
  if (setResources.includes(RESOURCE_ALL) || hasAll(setResources, coversResources)) return true;
  for (const path of coversResources) {
    if (setResources.includes(path)) continue;
    const slash = path.indexOf('/');
    if (slash < 0) return false;
    if (!setResources.includes(`*/${path.slice(slash + 1)}`)) return false;
  }
  return true;
}

/** `nonResourceURLCovers`: the same path, or the owner ends in `*` and the path starts with what precedes it. */
export function nonResourceURLCovers(ownerPath: string, subPath: string): boolean {
  if (ownerPath === subPath) return true;
  return ownerPath.endsWith('*') && subPath.startsWith(ownerPath.replace(/\*+$/, ''));
}

function nonResourceURLsCoversAll(set: readonly string[], coversPaths: readonly string[]): boolean {
  return coversPaths.every((path) => set.some((owner) => nonResourceURLCovers(owner, path)));
}

/** `ruleCovers`: one owner rule against one broken-down rule. A servant `*` is covered only by an owner `*`. */
function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const ownerVerbs = owner.verbs ?? [];
  const ownerGroups = owner.apiGroups ?? [];
  const ownerNames = owner.resourceNames ?? [];
  const subNames = sub.resourceNames ?? [];
  const verbMatches = ownerVerbs.includes(VERB_ALL) || hasAll(ownerVerbs, sub.verbs ?? []);
  const groupMatches = ownerGroups.includes(API_GROUP_ALL) || hasAll(ownerGroups, sub.apiGroups ?? []);
  const resourceMatches = resourceCoversAll(owner.resources ?? [], sub.resources ?? []);
  const nonResourceURLMatches = nonResourceURLsCoversAll(owner.nonResourceURLs ?? [], sub.nonResourceURLs ?? []);
  const resourceNameMatches = subNames.length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, subNames);
  return verbMatches && groupMatches && resourceMatches && resourceNameMatches && nonResourceURLMatches;
}

// ---------------------------------------------------------------------------------------------
// CompactRules (policy_compact.go).

/**
 * `isSimpleResourceRule`: one group, one resource, at most one resource name, and no nonResourceURLs
 * (not even an empty list); returns the key its verbs are merged under, or undefined.
 */
export function isSimpleResourceRule(rule: PolicyRule): { group: string; resource: string; resourceNameExist: boolean; resourceName: string } | undefined {
  if ((rule.resourceNames?.length ?? 0) > 1 || rule.nonResourceURLs !== undefined) return undefined;
  const group = rule.apiGroups?.length === 1 ? rule.apiGroups[0] : undefined;
  const resource = rule.resources?.length === 1 ? rule.resources[0] : undefined;
  if (group === undefined || resource === undefined) return undefined;
  const resourceName = rule.resourceNames?.[0];
  return { group, resource, resourceNameExist: resourceName !== undefined, resourceName: resourceName ?? '' };
}

/**
 * `CompactRules`: merges the verbs of simple rules (see {@link isSimpleResourceRule}) on the same group,
 * resource and resource name; other rules are kept as they are, first. The input is not changed.
 */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const compacted: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const rule of rules) {
    const key = isSimpleResourceRule(rule);
    if (key === undefined) {
      compacted.push(rule);
      continue;
    }
    const id = JSON.stringify([key.group, key.resource, key.resourceNameExist, key.resourceName]);
    const existing = simple.get(id);
    if (existing) existing.verbs = [...(existing.verbs ?? []), ...(rule.verbs ?? [])];
    else simple.set(id, structuredClone(rule));
  }
  compacted.push(...simple.values());
  return compacted;
}

// ---------------------------------------------------------------------------------------------
// ConfirmNoEscalation (rule.go).

/**
 * `ConfirmNoEscalation`: undefined when the user's rules in the namespace ('' = cluster-wide) cover
 * `rules`; else upstream's message naming the missing rules (compacted, as {@link compactString},
 * sorted and deduplicated, one per line) and, when some of the user's bindings could not be resolved,
 * `; resolution errors: [<aggregate>]`.
 */
export function confirmNoEscalation(resolver: AuthorizationRuleResolver, user: RequestUser, namespace: string, rules: readonly PolicyRule[]): string | undefined {
  const { rules: ownerRules, errors } = resolver.rulesFor(user, namespace);
  const { covered, missing } = covers(ownerRules, rules);
  if (covered) return undefined;
  const descriptions = [...new Set(compactRules(missing).map(compactString))].sort(byteOrder);
  let msg = `user ${goQuote(user.username)} (groups=${goQuoteList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${descriptions.join('\n')}`;
  const resolutionErrors = aggregateMessages(errors.map((e) => e.message));
  if (resolutionErrors !== undefined) msg += `; resolution errors: [${resolutionErrors}]`;
  return msg;
}

/** Go's string order (sort.Strings), for ASCII text. */
function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// The authorizer checks (escalation_check.go).

/**
 * `EscalationAllowed`: the user may write any RBAC object without checks — it is in `system:masters`,
 * or it is undefined (kubeplane's in-process loopback caller).
 */
export function escalationAllowed(user: RequestUser | undefined): boolean {
  return user === undefined || user.groups.includes(SYSTEM_PRIVILEGED_GROUP);
}

/** The parts of the request a role write checks the `escalate` verb against (upstream reads them from RequestInfo). */
export interface RoleRequest {
  resource: 'roles' | 'clusterroles';
  /** The request's namespace; '' for clusterroles. */
  namespace: string;
  /** The name in the request URL: '' for a create by POST, the object's name for update, patch or apply. */
  name: string;
}

/**
 * `RoleEscalationAuthorized`: whether the authorizer allows the user `escalate` on the role resource
 * of the request (group `rbac.authorization.k8s.io`, version `*`). False without an authorizer or user.
 */
export async function roleEscalationAuthorized(authorizer: Authorizer | undefined, user: RequestUser | undefined, request: RoleRequest): Promise<boolean> {
  if (authorizer === undefined || user === undefined) return false;
  const result = await authorizer.authorize(resourceAttributes(user, 'escalate', request.namespace, request.resource, request.name));
  return result.decision === 'Allow';
}

/**
 * `BindingAuthorized`: whether the authorizer allows the user `bind` on the role the binding refers
 * to, checked in the binding's namespace ('' for a ClusterRoleBinding): `bind` on `clusterroles` (or
 * `roles`) named roleRef.name in roleRef.apiGroup. False for another kind, or without an authorizer or user.
 */
export async function bindingAuthorized(authorizer: Authorizer | undefined, user: RequestUser | undefined, roleRef: RoleRef, bindingNamespace: string): Promise<boolean> {
  if (authorizer === undefined || user === undefined) return false;
  const resource = roleRef.kind === 'ClusterRole' ? 'clusterroles' : roleRef.kind === 'Role' ? 'roles' : undefined;
  if (resource === undefined) return false;
  const result = await authorizer.authorize({ ...resourceAttributes(user, 'bind', bindingNamespace, resource, roleRef.name), apiGroup: roleRef.apiGroup });
  return result.decision === 'Allow';
}

function resourceAttributes(user: RequestUser, verb: string, namespace: string, resource: string, name: string): Attributes {
  return { user, verb, resourceRequest: true, path: '', namespace, apiGroup: RBAC_GROUP, apiVersion: '*', resource, subresource: '', name };
}

/**
 * `IsOnlyMutatingGCFields`: whether an update changes nothing but what the garbage collector changes
 * (ownerReferences, finalizers) and the bookkeeping that comes with it (managedFields, selfLink),
 * compared semantically (an absent list equals an empty one). False without an old object.
 */
export function isOnlyMutatingGCFields(obj: { metadata?: ObjectMeta }, old: { metadata?: ObjectMeta } | undefined): boolean {
  if (old === undefined) return false;
  const oldMeta = old.metadata ?? {};
  const copied = {
    ...obj,
    metadata: {
      ...(obj.metadata ?? {}),
      ownerReferences: oldMeta.ownerReferences,
      finalizers: oldMeta.finalizers,
      selfLink: oldMeta.selfLink,
      managedFields: oldMeta.managedFields,
    },
  };
  return semanticDeepEqual(copied, old);
}

// ---------------------------------------------------------------------------------------------
// What the RBAC storages call (policybased/storage.go).

/** `*` on everything: what setting a ClusterRole's aggregationRule requires (clusterrole/policybased fullAuthority). */
export const FULL_AUTHORITY: readonly PolicyRule[] = Object.freeze([
  { verbs: [VERB_ALL], apiGroups: [API_GROUP_ALL], resources: [RESOURCE_ALL] },
  { verbs: [VERB_ALL], nonResourceURLs: [NON_RESOURCE_ALL] },
]);

/** The message for a ClusterRole aggregationRule set or changed without full authority. */
export const AGGREGATION_RULE_FORBIDDEN = 'must have cluster-admin privileges to use the aggregationRule';

/** Who writes, and with what the checks decide. */
export interface EscalationContext {
  /** The server's authorizer, asked about `escalate` and `bind`; undefined grants neither. */
  authorizer: Authorizer | undefined;
  /** The rules the user holds; build it with `lookup: 'registry'` for upstream's NotFound texts. */
  resolver: AuthorizationRuleResolver;
  /** The requesting user; undefined for the in-process loopback caller, which is always allowed. */
  user: RequestUser | undefined;
}

/** A Role or ClusterRole about to be stored. */
export interface RoleWrite extends RoleRequest {
  /** The object to store (after the update was applied). */
  role: Role | ClusterRole;
  /** The stored object, for an update; undefined for a create (also a create by update or apply). */
  old?: Role | ClusterRole | undefined;
}

/**
 * The escalation check of a Role or ClusterRole create or update (role/policybased and
 * clusterrole/policybased storage.go). Undefined when allowed — a loopback or `system:masters` user,
 * `escalate` granted by the authorizer, an update changing only GC fields, or rules the user holds —
 * else the 403 to return: `roles.rbac.authorization.k8s.io "<name>" is forbidden: user … is attempting
 * to grant RBAC permissions not currently held: …`, or for a ClusterRole whose new or old object has an
 * aggregationRule, without `*` on everything, `… is forbidden: must have cluster-admin privileges to
 * use the aggregationRule`.
 */
export async function checkRoleEscalation(ctx: EscalationContext, write: RoleWrite): Promise<StatusError | undefined> {
  const { user } = ctx;
  if (user === undefined || escalationAllowed(user)) return undefined;
  if (await roleEscalationAuthorized(ctx.authorizer, user, write)) return undefined;
  if (isOnlyMutatingGCFields(write.role, write.old)) return undefined;

  const gr = { group: RBAC_GROUP, resource: write.resource };
  const name = write.role.metadata?.name ?? '';
  const denied = confirmNoEscalation(ctx.resolver, user, write.namespace, write.role.rules ?? []);
  if (denied !== undefined) return newForbidden(gr, name, denied);
  if (write.resource === 'clusterroles' && (hasAggregationRule(write.role) || hasAggregationRule(write.old))) {
    if (confirmNoEscalation(ctx.resolver, user, write.namespace, FULL_AUTHORITY) !== undefined) return newForbidden(gr, name, AGGREGATION_RULE_FORBIDDEN);
  }
  return undefined;
}

/** A RoleBinding or ClusterRoleBinding about to be stored. */
export interface BindingWrite {
  resource: 'rolebindings' | 'clusterrolebindings';
  /** The request's namespace (the binding's); '' for clusterrolebindings. */
  namespace: string;
  /** The object to store (after the update was applied). */
  binding: RoleBinding | ClusterRoleBinding;
  /** The stored object, for an update; undefined for a create. */
  old?: RoleBinding | ClusterRoleBinding | undefined;
}

/**
 * The escalation check of a RoleBinding or ClusterRoleBinding create or update
 * (rolebinding/policybased and clusterrolebinding/policybased storage.go). Undefined when allowed — a
 * loopback or `system:masters` user, an update changing only GC fields, `bind` on the referenced role
 * granted by the authorizer, or the role's rules all held by the user in the binding's namespace —
 * else the error to return: the referenced role's NotFound as the resolver gives it (404
 * `roles.rbac.authorization.k8s.io "x" not found` with a registry-lookup resolver), a 500 for an
 * unresolvable reference (`unsupported role reference kind: "X"`), or the 403
 * `rolebindings.rbac.authorization.k8s.io "<name>" is forbidden: user … is attempting to grant RBAC
 * permissions not currently held: …`.
 */
export async function checkBindingEscalation(ctx: EscalationContext, write: BindingWrite): Promise<StatusError | undefined> {
  const { user } = ctx;
  if (user === undefined || escalationAllowed(user)) return undefined;
  if (isOnlyMutatingGCFields(write.binding, write.old)) return undefined;
  const { roleRef } = write.binding;
  if (await bindingAuthorized(ctx.authorizer, user, roleRef, write.namespace)) return undefined;

  let rules: readonly PolicyRule[];
  try {
    rules = ctx.resolver.getRoleReferenceRules(roleRef, write.namespace);
  } catch (e) {
    return e instanceof StatusError ? e : unknownError(errorMessage(e));
  }
  const denied = confirmNoEscalation(ctx.resolver, user, write.namespace, rules);
  if (denied === undefined) return undefined;
  return newForbidden({ group: RBAC_GROUP, resource: write.resource }, write.binding.metadata?.name ?? '', denied);
}

function hasAggregationRule(role: Role | ClusterRole | undefined): boolean {
  const selectors = (role as ClusterRole | undefined)?.aggregationRule?.clusterRoleSelectors;
  return selectors !== undefined && selectors.length > 0;
}

/** What the API server answers for an error that is not a Status (apierrors.ErrorToAPIStatus): 500, no reason, the error's text. */
function unknownError(message: string): StatusError {
  return new StatusError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 });
}
