/**
 * The reconciliation of the RBAC bootstrap policy (rbac-bootstrap.ts) at start-up, as upstream's
 * post-start hook `rbac/bootstrap-roles` does it: a missing object is created; an existing one whose
 * `rbac.authorization.kubernetes.io/autoupdate` annotation is not "false" gets the expected labels
 * and annotations it lacks (its own values win), the expected rules it is not covered for (a
 * ClusterRole's missing rules, broken down to one verb/resource/name each, are appended; nothing is
 * removed), the aggregation selectors it lacks (an aggregationRule the policy does not expect is
 * removed), and a binding the subjects it lacks; a binding whose roleRef differs is deleted and
 * created again (roleRef is immutable). Namespaced objects go into kube-system and kube-public,
 * which are created when missing (`tryEnsureNamespace`).
 *
 * Followed (v1.33): k8s.io/component-helpers auth/rbac/reconciliation reconcile_role.go
 * (ReconcileRoleOptions.run, computeReconciledRole, merge, aggregationRuleCovers),
 * reconcile_rolebindings.go (ReconcileRoleBindingOptions.run, computeReconciledRoleBinding,
 * diffSubjectLists), namespace.go (tryEnsureNamespace); pkg/registry/rbac/rest/storage_rbac.go
 * (`PolicyData.EnsureRBACPolicy`: union mode — RemoveExtraPermissions and RemoveExtraSubjects false —
 * with Confirm; a failure is retried on conflicts and otherwise reported, the other objects still
 * reconciled). The rules comparison is the escalation checks' `covers` (component-helpers
 * auth/rbac/validation policy_comparator.go `Covers`).
 */
import type { AggregationRule, KubeObject, LabelSelector, ObjectMeta, PolicyRule, RoleRef, Subject } from '../../../api/index.js';
import { stderrLogger } from '../../../util/runtime/index.js';
import { isAlreadyExists, isConflict, isForbidden, isNotFound } from '../../../machinery/errors/index.js';
import { covers } from '../../authz/index.js';
import type { StorageContext, StorageExtension } from '../extension.js';
import type { Store } from '../generic/store.js';
import { semanticDeepEqual } from './helpers.js';
import { AUTO_UPDATE_ANNOTATION } from './rbac-bootstrap.js';

/** `ReconcileOperation`. */
export type ReconcileOperation = 'create' | 'update' | 'recreate' | 'none';

/** A Role or ClusterRole (upstream's `RuleOwner`). */
export interface RuleOwner {
  metadata?: ObjectMeta;
  rules?: PolicyRule[];
  aggregationRule?: AggregationRule;
}

/** A RoleBinding or ClusterRoleBinding. */
export interface BindingObject {
  metadata?: ObjectMeta;
  roleRef?: RoleRef;
  subjects?: Subject[];
}

/** `ReconcileClusterRoleResult`. */
export interface ReconcileRoleResult<T extends RuleOwner = RuleOwner> {
  role: T;
  missingRules: PolicyRule[];
  extraRules: PolicyRule[];
  missingAggregationRuleSelectors: LabelSelector[];
  extraAggregationRuleSelectors: LabelSelector[];
  operation: ReconcileOperation;
  /** The existing object's autoupdate annotation is "false": nothing is written. */
  isProtected: boolean;
}

/** `ReconcileClusterRoleBindingResult`. */
export interface ReconcileBindingResult<T extends BindingObject = BindingObject> {
  binding: T;
  missingSubjects: Subject[];
  extraSubjects: Subject[];
  operation: ReconcileOperation;
  isProtected: boolean;
}

/** `merge(maps…)`: later maps win; undefined when every map is. */
export function mergeMaps(...maps: (Record<string, string> | undefined)[]): Record<string, string> | undefined {
  let out: Record<string, string> | undefined;
  for (const m of maps) {
    if (!m) continue;
    out ??= {};
    Object.assign(out, m);
  }
  return out;
}

/** reflect.DeepEqual of two string maps, an absent map equal to an empty one (JSON cannot tell them apart). */
function sameMap(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  return semanticDeepEqual(a ?? {}, b ?? {});
}

function setOrDelete(meta: ObjectMeta, key: 'labels' | 'annotations', value: Record<string, string> | undefined): void {
  if (value) meta[key] = value;
  else delete meta[key];
}

/**
 * `aggregationRuleCovers`: whether `owner`'s selectors include every one of `servant`'s (by semantic
 * equality), and those they do not.
 */
export function aggregationRuleCovers(owner: AggregationRule | undefined, servant: AggregationRule | undefined): { covered: boolean; missing: LabelSelector[] } {
  if (!servant) return { covered: true, missing: [] };
  if (!owner) return { covered: false, missing: [...(servant.clusterRoleSelectors ?? [])] };
  const ownerSelectors = owner.clusterRoleSelectors ?? [];
  const missing = (servant.clusterRoleSelectors ?? []).filter((s) => !ownerSelectors.some((o) => semanticDeepEqual(o, s)));
  return { covered: missing.length === 0, missing };
}

/**
 * `computeReconciledRole`: the object to write to make `existing` grant what `expected` does. In union
 * mode (`removeExtraPermissions` false) rules and selectors are only added; otherwise they are set to
 * the expected ones when anything differs.
 */
export function computeReconciledRole<T extends RuleOwner>(existing: T, expected: RuleOwner, removeExtraPermissions: boolean): ReconcileRoleResult<T> {
  const role = structuredClone(existing);
  const meta = (role.metadata ??= {});
  const result: ReconcileRoleResult<T> = {
    role,
    missingRules: [],
    extraRules: [],
    missingAggregationRuleSelectors: [],
    extraAggregationRuleSelectors: [],
    operation: 'none',
    isProtected: existing.metadata?.annotations?.[AUTO_UPDATE_ANNOTATION] === 'false',
  };
  setOrDelete(meta, 'annotations', mergeMaps(expected.metadata?.annotations, meta.annotations));
  if (!sameMap(meta.annotations, existing.metadata?.annotations)) result.operation = 'update';
  setOrDelete(meta, 'labels', mergeMaps(expected.metadata?.labels, meta.labels));
  if (!sameMap(meta.labels, existing.metadata?.labels)) result.operation = 'update';

  // Extra permissions are not computed when both roles are aggregated.
  if (!expected.aggregationRule || !existing.aggregationRule) result.extraRules = covers(expected.rules ?? [], existing.rules ?? []).missing;
  result.missingRules = covers(existing.rules ?? [], expected.rules ?? []).missing;
  if (!removeExtraPermissions && result.missingRules.length > 0) {
    role.rules = [...(role.rules ?? []), ...result.missingRules];
    result.operation = 'update';
  } else if (removeExtraPermissions && (result.missingRules.length > 0 || result.extraRules.length > 0)) {
    role.rules = structuredClone(expected.rules ?? []);
    result.operation = 'update';
  }

  result.extraAggregationRuleSelectors = aggregationRuleCovers(expected.aggregationRule, existing.aggregationRule).missing;
  result.missingAggregationRuleSelectors = aggregationRuleCovers(existing.aggregationRule, expected.aggregationRule).missing;
  if (!expected.aggregationRule && existing.aggregationRule) {
    // Not expected to be an aggregated role at all: the aggregation goes.
    delete role.aggregationRule;
    result.operation = 'update';
  } else if (!removeExtraPermissions && result.missingAggregationRuleSelectors.length > 0) {
    const rule = (role.aggregationRule ??= {});
    rule.clusterRoleSelectors = [...(rule.clusterRoleSelectors ?? []), ...structuredClone(result.missingAggregationRuleSelectors)];
    result.operation = 'update';
  } else if (removeExtraPermissions && (result.missingAggregationRuleSelectors.length > 0 || result.extraAggregationRuleSelectors.length > 0)) {
    if (expected.aggregationRule) role.aggregationRule = structuredClone(expected.aggregationRule);
    else delete role.aggregationRule;
    result.operation = 'update';
  }
  return result;
}

/** Subject equality of Go's `==` on the struct: kind, apiGroup, name and namespace. */
function sameSubject(a: Subject, b: Subject): boolean {
  return a.kind === b.kind && (a.apiGroup ?? '') === (b.apiGroup ?? '') && a.name === b.name && (a.namespace ?? '') === (b.namespace ?? '');
}

/** `diffSubjectLists`: the subjects only in `list1` and those only in `list2`, each once. */
export function diffSubjectLists(list1: readonly Subject[] = [], list2: readonly Subject[] = []): [list1Only: Subject[], list2Only: Subject[]] {
  const only = (from: readonly Subject[], other: readonly Subject[]): Subject[] => {
    const out: Subject[] = [];
    for (const s of from) if (!other.some((o) => sameSubject(o, s)) && !out.some((o) => sameSubject(o, s))) out.push(s);
    return out;
  };
  return [only(list1, list2), only(list2, list1)];
}

function sameRoleRef(a: RoleRef | undefined, b: RoleRef | undefined): boolean {
  return (a?.apiGroup ?? '') === (b?.apiGroup ?? '') && (a?.kind ?? '') === (b?.kind ?? '') && (a?.name ?? '') === (b?.name ?? '');
}

/**
 * `computeReconciledRoleBinding`: a different roleRef means recreate with the expected binding;
 * otherwise the existing one with the expected labels, annotations and subjects merged in (union
 * mode) or the subjects set to the expected ones (`removeExtraSubjects`).
 */
export function computeReconciledRoleBinding<T extends BindingObject>(existing: T, expected: T, removeExtraSubjects: boolean): ReconcileBindingResult<T> {
  const isProtected = existing.metadata?.annotations?.[AUTO_UPDATE_ANNOTATION] === 'false';
  if (!sameRoleRef(expected.roleRef, existing.roleRef)) return { binding: structuredClone(expected), missingSubjects: [], extraSubjects: [], operation: 'recreate', isProtected };
  const binding = structuredClone(existing);
  const meta = (binding.metadata ??= {});
  const result: ReconcileBindingResult<T> = { binding, missingSubjects: [], extraSubjects: [], operation: 'none', isProtected };
  setOrDelete(meta, 'annotations', mergeMaps(expected.metadata?.annotations, meta.annotations));
  if (!sameMap(meta.annotations, existing.metadata?.annotations)) result.operation = 'update';
  setOrDelete(meta, 'labels', mergeMaps(expected.metadata?.labels, meta.labels));
  if (!sameMap(meta.labels, existing.metadata?.labels)) result.operation = 'update';
  [result.missingSubjects, result.extraSubjects] = diffSubjectLists(expected.subjects, existing.subjects);
  if (!removeExtraSubjects && result.missingSubjects.length > 0) {
    binding.subjects = [...(binding.subjects ?? []), ...structuredClone(result.missingSubjects)];
    result.operation = 'update';
  } else if (removeExtraSubjects && (result.missingSubjects.length > 0 || result.extraSubjects.length > 0)) {
    binding.subjects = structuredClone(expected.subjects ?? []);
    result.operation = 'update';
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Running a reconciliation against a store.

/** How a reconciliation reads and writes (upstream's `RuleOwnerModifier` / `RoleBindingModifier`). */
export interface ReconcileClient<T> {
  get(namespace: string | undefined, name: string): Promise<T | undefined>;
  create(obj: T): Promise<T>;
  update(obj: T): Promise<T>;
  /** Deletes with a UID precondition. */
  delete(namespace: string | undefined, name: string, uid: string | undefined): Promise<void>;
}

/**
 * `ReconcileRoleOptions.Run` with Confirm: computes and performs the write; an object created or
 * deleted meanwhile makes it start over (at most three attempts).
 */
export async function reconcileRole<T extends RuleOwner>(client: ReconcileClient<T>, expected: T, removeExtraPermissions: boolean, attempts = 0): Promise<ReconcileRoleResult<T>> {
  if (attempts > 2) throw new Error('exceeded maximum attempts');
  const existing = await client.get(expected.metadata?.namespace, expected.metadata?.name ?? '');
  const result: ReconcileRoleResult<T> = existing
    ? computeReconciledRole(existing, expected, removeExtraPermissions)
    : {
        role: expected,
        missingRules: expected.rules ?? [],
        extraRules: [],
        missingAggregationRuleSelectors: expected.aggregationRule?.clusterRoleSelectors ?? [],
        extraAggregationRuleSelectors: [],
        operation: 'create',
        isProtected: false,
      };
  if (result.isProtected) return result;
  try {
    if (result.operation === 'create') result.role = await client.create(structuredClone(result.role));
    else if (result.operation === 'update') result.role = await client.update(result.role);
  } catch (err) {
    if ((result.operation === 'create' && isAlreadyExists(err)) || (result.operation === 'update' && isNotFound(err))) return reconcileRole(client, expected, removeExtraPermissions, attempts + 1);
    throw err;
  }
  return result;
}

/**
 * `ReconcileRoleBindingOptions.Run` with Confirm: a recreate deletes the existing binding (UID
 * precondition; a conflict starts over) and creates the expected one.
 */
export async function reconcileRoleBinding<T extends BindingObject>(client: ReconcileClient<T>, expected: T, removeExtraSubjects: boolean, attempts = 0): Promise<ReconcileBindingResult<T>> {
  if (attempts > 3) throw new Error('exceeded maximum attempts');
  const existing = await client.get(expected.metadata?.namespace, expected.metadata?.name ?? '');
  const result: ReconcileBindingResult<T> = existing
    ? computeReconciledRoleBinding(existing, expected, removeExtraSubjects)
    : { binding: expected, missingSubjects: expected.subjects ?? [], extraSubjects: [], operation: 'create', isProtected: false };
  if (result.isProtected) return result;
  const again = (): Promise<ReconcileBindingResult<T>> => reconcileRoleBinding(client, expected, removeExtraSubjects, attempts + 1);
  if (result.operation === 'recreate' && existing) {
    try {
      await client.delete(existing.metadata?.namespace, existing.metadata?.name ?? '', existing.metadata?.uid);
    } catch (err) {
      if (isConflict(err)) return again();
      if (!isNotFound(err)) throw err;
    }
  }
  try {
    if (result.operation === 'create' || result.operation === 'recreate') result.binding = await client.create(structuredClone(result.binding));
    else if (result.operation === 'update') result.binding = await client.update(result.binding);
  } catch (err) {
    if ((result.operation !== 'update' && isAlreadyExists(err)) || (result.operation === 'update' && isNotFound(err))) return again();
    throw err;
  }
  return result;
}

/** A {@link ReconcileClient} over a generic store (writes as the API server's loopback client). */
export function storeReconcileClient<T extends KubeObject>(store: Store): ReconcileClient<T> {
  return {
    get: async (namespace, name) => (await store.storedObject(namespace, name)) as T | undefined,
    create: async (obj) => (await store.create(obj.metadata?.namespace, obj, {}, [])) as T,
    update: async (obj) => (await store.update(obj.metadata?.namespace, obj.metadata?.name ?? '', obj, {}, [])).obj as T,
    delete: async (namespace, name, uid) => {
      await store.delete(namespace, name, uid ? { preconditions: { uid } } : undefined, {});
    },
  };
}

/**
 * `tryEnsureNamespace`: creates `name` when the namespaces store does not hold it; a concurrent
 * creation or a refusal is not an error (the role's create then reports what is wrong).
 */
export async function tryEnsureNamespace(namespaces: Store | undefined, name: string): Promise<void> {
  if (!namespaces || (await namespaces.storedObject(undefined, name))) return;
  try {
    await namespaces.create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, {}, []);
  } catch (err) {
    if (!isAlreadyExists(err) && !isForbidden(err)) throw err;
  }
}

/** What a reconciliation pass reports for one object that could not be reconciled. */
export interface ReconcileFailure {
  namespace: string | undefined;
  name: string;
  error: unknown;
}

/** A conflict is retried this many times (client-go's `retry.DefaultBackoff` has 4 steps), without waiting: the store's current object is re-read each time. */
const CONFLICT_RETRIES = 4;

async function retryOnConflict<R>(fn: () => Promise<R>): Promise<R> {
  for (let i = 0; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (!isConflict(err) || i >= CONFLICT_RETRIES) throw err;
    }
  }
}

/**
 * Reconciles every role of `roles` in union mode, creating a namespaced role's namespace first.
 * Failures do not stop the others; they are returned (upstream logs them and retries the hook).
 */
export async function reconcileRoles(store: Store, roles: readonly RuleOwner[], namespaces?: Store): Promise<ReconcileFailure[]> {
  const client = storeReconcileClient<KubeObject & RuleOwner>(store);
  const failures: ReconcileFailure[] = [];
  for (const role of roles) {
    const namespace = role.metadata?.namespace;
    try {
      if (namespace) await tryEnsureNamespace(namespaces, namespace);
      await retryOnConflict(() => reconcileRole(client, role as KubeObject & RuleOwner, false));
    } catch (error) {
      failures.push({ namespace, name: role.metadata?.name ?? '', error });
    }
  }
  return failures;
}

/** The same for bindings (union of subjects; a changed roleRef is a delete and create). */
export async function reconcileRoleBindings(store: Store, bindings: readonly BindingObject[], namespaces?: Store): Promise<ReconcileFailure[]> {
  const client = storeReconcileClient<KubeObject & BindingObject>(store);
  const failures: ReconcileFailure[] = [];
  for (const binding of bindings) {
    const namespace = binding.metadata?.namespace;
    try {
      if (namespace) await tryEnsureNamespace(namespaces, namespace);
      await retryOnConflict(() => reconcileRoleBinding(client, binding as KubeObject & BindingObject, false));
    } catch (error) {
      failures.push({ namespace, name: binding.metadata?.name ?? '', error });
    }
  }
  return failures;
}

/** Which of the four RBAC kinds a {@link rbacBootstrapStorage} reconciles. */
export type RBACKind = 'clusterroles' | 'clusterrolebindings' | 'roles' | 'rolebindings';

/**
 * The storage extension of an RBAC kind whose bootstrap reconciles `objects` (storage_rbac.go's
 * post-start hook, split by kind: the server runs each kind's bootstrap in discovery order —
 * namespaces, then ClusterRoles, ClusterRoleBindings, Roles, RoleBindings). What could not be
 * reconciled is reported through `onFailure` (default: one line on stderr, as upstream logs
 * "unable to reconcile") and does not stop the server.
 */
export function rbacBootstrapStorage(
  kind: RBACKind,
  objects: readonly (RuleOwner & BindingObject)[],
  onFailure: (kind: RBACKind, failure: ReconcileFailure) => void = reportFailure,
): (ctx: StorageContext) => StorageExtension {
  return ({ store, storeOf }) => ({
    bootstrap: async () => {
      const namespaces = storeOf('', 'namespaces');
      const failures = kind === 'clusterroles' || kind === 'roles' ? await reconcileRoles(store, objects, namespaces) : await reconcileRoleBindings(store, objects, namespaces);
      for (const f of failures) onFailure(kind, f);
    },
  });
}

function reportFailure(kind: RBACKind, f: ReconcileFailure): void {
  const name = f.namespace ? `${f.namespace}/${f.name}` : f.name;
  stderrLogger.error({ kind, name, err: f.error instanceof Error ? f.error.message : String(f.error) }, `unable to reconcile ${kind}`);
}
