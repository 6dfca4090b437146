/**
 * Which RBAC rules apply to a user in a namespace: the rules of the roles bound to the user (by name),
 * to one of its groups, or to it as a service account, by ClusterRoleBindings (everywhere) and by the
 * RoleBindings of the namespace.
 *
 * Followed (v1.33): pkg/registry/rbac/validation/rule.go (DefaultRuleResolver: VisitRulesFor,
 * RulesFor, GetRoleReferenceRules, appliesTo, the binding describers) and
 * k8s.io/apiserver/pkg/authentication/serviceaccount/util.go (MatchesUsername).
 *
 * The getters are synchronous: the API server backs them with its watch caches, as upstream backs the
 * authorizer's with informer listers. A getter may throw; its error is then one of the resolution
 * errors, as a lister error is upstream.
 */
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef, Subject } from '../../../api/index.js';
import type { RequestUser } from '../../../api/request.js';
import { errorMessage, goQuote, newNotFound } from '../../../machinery/errors/index.js';

/** The RBAC API group. */
export const RBAC_GROUP = 'rbac.authorization.k8s.io';

/** `rbacv1.UserKind`, `GroupKind`, `ServiceAccountKind`. */
export const USER_KIND = 'User';
export const GROUP_KIND = 'Group';
export const SERVICE_ACCOUNT_KIND = 'ServiceAccount';

/** `serviceaccount.ServiceAccountUsernamePrefix`: a service account's user is `system:serviceaccount:<namespace>:<name>`. */
export const SERVICE_ACCOUNT_USERNAME_PREFIX = 'system:serviceaccount:';

/**
 * Where the resolver reads RBAC objects (upstream's RoleGetter, RoleBindingLister, ClusterRoleGetter,
 * ClusterRoleBindingLister). `undefined` means not found. Returned objects are not changed.
 */
export interface RBACGetters {
  getRole(namespace: string, name: string): Role | undefined;
  getClusterRole(name: string): ClusterRole | undefined;
  /** The RoleBindings of one namespace (never called with ''). */
  listRoleBindings(namespace: string): readonly RoleBinding[];
  listClusterRoleBindings(): readonly ClusterRoleBinding[];
}

/**
 * Whose getters these stand for, which decides the text of a missing role's NotFound error:
 * - `informer` (default): the RBAC authorizer's listers — `role.rbac.authorization.k8s.io "x" not found`
 *   and `clusterrole.rbac.authorization.k8s.io "x" not found` (client-go listers name the singular);
 * - `registry`: the RBAC storage's resolver (pkg/registry/rbac/rest/storage_rbac.go builds it over the
 *   registries), which the escalation checks use — `roles.rbac.authorization.k8s.io "x" not found`,
 *   `clusterroles.rbac.authorization.k8s.io "x" not found`.
 */
export type RoleLookup = 'informer' | 'registry';

/**
 * The binding and subject through which a rule applies (upstream's `fmt.Stringer` sources).
 * `toString()` is upstream's text, e.g. `ClusterRoleBinding "admins" of ClusterRole "admin" to Group
 * "devs"` or `RoleBinding "edit/ns1" of Role "edit" to ServiceAccount "builder/ns1"`; it is built only
 * when asked for.
 */
export class BindingSource {
  constructor(
    readonly kind: 'ClusterRoleBinding' | 'RoleBinding',
    readonly binding: RoleBinding | ClusterRoleBinding,
    readonly subject: Subject,
  ) {}

  toString(): string {
    const b = this.binding;
    const name = b.metadata?.name ?? '';
    if (this.kind === 'ClusterRoleBinding') {
      return `ClusterRoleBinding ${goQuote(name)} of ${b.roleRef.kind} ${goQuote(b.roleRef.name)} to ${describeSubject(this.subject, '')}`;
    }
    const namespace = b.metadata?.namespace ?? '';
    return `RoleBinding ${goQuote(`${name}/${namespace}`)} of ${b.roleRef.kind} ${goQuote(b.roleRef.name)} to ${describeSubject(this.subject, namespace)}`;
  }
}

/** `describeSubject`: `User "alice"`, `Group "devs"`, `ServiceAccount "name/namespace"`. */
export function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === SERVICE_ACCOUNT_KIND) {
    const namespace = s.namespace !== undefined && s.namespace !== '' ? s.namespace : bindingNamespace;
    return `${s.kind} ${goQuote(`${s.name}/${namespace}`)}`;
  }
  return `${s.kind} ${goQuote(s.name)}`;
}

/**
 * Called with each rule that applies (source and rule set) and each error met (error set, source and
 * rule undefined); returns whether to go on.
 */
export type RuleVisitor = (source: BindingSource | undefined, rule: PolicyRule | undefined, err: Error | undefined) => boolean;

/** upstream's `AuthorizationRuleResolver`, what the authorizer and the escalation checks need. */
export interface AuthorizationRuleResolver {
  /**
   * The rules of the role a binding refers to; `bindingNamespace` is the binding's namespace ('' for a
   * ClusterRoleBinding). Throws a NotFound `StatusError` for a missing role, an `Error` for an unknown
   * kind (`unsupported role reference kind: "X"`) or a getter's error.
   */
  getRoleReferenceRules(roleRef: RoleRef, bindingNamespace: string): readonly PolicyRule[];
  /**
   * Every rule that applies, and the errors met: rules found are valid even when some could not be
   * resolved, since RBAC only adds permissions.
   */
  rulesFor(user: RequestUser | undefined, namespace: string): { rules: PolicyRule[]; errors: Error[] };
  /** Visits the rules that apply: ClusterRoleBindings first, then (namespace ≠ '') the namespace's RoleBindings. */
  visitRulesFor(user: RequestUser | undefined, namespace: string, visitor: RuleVisitor): void;
}

/** upstream's `DefaultRuleResolver`. */
export class DefaultRuleResolver implements AuthorizationRuleResolver {
  private readonly roleResource: string;
  private readonly clusterRoleResource: string;

  constructor(
    private readonly getters: RBACGetters,
    options: { lookup?: RoleLookup } = {},
  ) {
    const registry = options.lookup === 'registry';
    this.roleResource = registry ? 'roles' : 'role';
    this.clusterRoleResource = registry ? 'clusterroles' : 'clusterrole';
  }

  rulesFor(user: RequestUser | undefined, namespace: string): { rules: PolicyRule[]; errors: Error[] } {
    const rules: PolicyRule[] = [];
    const errors: Error[] = [];
    this.visitRulesFor(user, namespace, (_source, rule, err) => {
      if (rule) rules.push(rule);
      if (err) errors.push(err);
      return true;
    });
    return { rules, errors };
  }

  visitRulesFor(user: RequestUser | undefined, namespace: string, visitor: RuleVisitor): void {
    let clusterRoleBindings: readonly ClusterRoleBinding[];
    try {
      clusterRoleBindings = this.getters.listClusterRoleBindings();
    } catch (e) {
      if (!visitor(undefined, undefined, asError(e))) return;
      clusterRoleBindings = [];
    }
    for (const binding of bindingsNaming(clusterRoleBindings, user, '')) {
      if (!this.visitBinding('ClusterRoleBinding', binding, user, '', visitor)) return;
    }

    if (namespace === '') return;
    let roleBindings: readonly RoleBinding[];
    try {
      roleBindings = this.getters.listRoleBindings(namespace);
    } catch (e) {
      visitor(undefined, undefined, asError(e));
      return;
    }
    for (const binding of bindingsNaming(roleBindings, user, namespace)) {
      if (!this.visitBinding('RoleBinding', binding, user, namespace, visitor)) return;
    }
  }

  /** One binding: nothing if no subject applies; else its role's rules, or the error resolving it. Returns whether to go on. */
  private visitBinding(
    kind: 'ClusterRoleBinding' | 'RoleBinding',
    binding: RoleBinding | ClusterRoleBinding,
    user: RequestUser | undefined,
    namespace: string,
    visitor: RuleVisitor,
  ): boolean {
    const subjects = binding.subjects ?? [];
    const index = appliesTo(user, subjects, namespace);
    const subject = subjects[index];
    if (subject === undefined) return true;
    let rules: readonly PolicyRule[];
    try {
      rules = this.getRoleReferenceRules(binding.roleRef, namespace);
    } catch (e) {
      return visitor(undefined, undefined, asError(e));
    }
    const source = new BindingSource(kind, binding, subject);
    for (const rule of rules) {
      if (!visitor(source, rule, undefined)) return false;
    }
    return true;
  }

  getRoleReferenceRules(roleRef: RoleRef, bindingNamespace: string): readonly PolicyRule[] {
    switch (roleRef.kind) {
      case 'Role': {
        const role = this.getters.getRole(bindingNamespace, roleRef.name);
        if (role === undefined) throw newNotFound({ group: RBAC_GROUP, resource: this.roleResource }, roleRef.name);
        return role.rules ?? [];
      }
      case 'ClusterRole': {
        const clusterRole = this.getters.getClusterRole(roleRef.name);
        if (clusterRole === undefined) throw newNotFound({ group: RBAC_GROUP, resource: this.clusterRoleResource }, roleRef.name);
        return clusterRole.rules ?? [];
      }
      default:
        throw new Error(`unsupported role reference kind: ${goQuote(roleRef.kind)}`);
    }
  }
}

/**
 * `appliesTo`: the index of the first subject that applies to the user, or -1. `namespace` is the
 * default namespace of ServiceAccount subjects without one (a RoleBinding's own namespace; '' for a
 * ClusterRoleBinding, where such a subject matches no one). A `*` name is not a wildcard. An undefined
 * user matches nothing.
 */
export function appliesTo(user: RequestUser | undefined, subjects: readonly Subject[], namespace: string): number {
  if (user === undefined) return -1;
  return subjects.findIndex((subject) => appliesToUser(user, subject, namespace));
}

/**
 * The key a subject matches under: `u:<username>` for a User, and for a ServiceAccount the username it
 * stands for (`system:serviceaccount:<ns>:<name>`, its namespace defaulting to the binding's); `g:<group>`
 * for a Group; undefined for a subject that matches no one (an unknown kind, a ServiceAccount of a
 * ClusterRoleBinding without a namespace). Keys as {@link appliesToUser} compares.
 */
function subjectKey(subject: Subject, namespace: string): string | undefined {
  switch (subject.kind) {
    case USER_KIND:
      return `u:${subject.name}`;
    case GROUP_KIND:
      return `g:${subject.name}`;
    case SERVICE_ACCOUNT_KIND: {
      const saNamespace = subject.namespace !== undefined && subject.namespace !== '' ? subject.namespace : namespace;
      return saNamespace === '' ? undefined : `u:${SERVICE_ACCOUNT_USERNAME_PREFIX}${saNamespace}:${subject.name}`;
    }
    default:
      return undefined;
  }
}

/** Per binding list (the getters return the same array while nothing changed): subject key → positions. */
const subjectIndexes = new WeakMap<readonly (RoleBinding | ClusterRoleBinding)[], { namespace: string; index: Map<string, number[]> }>();

/**
 * The bindings of `bindings` with a subject that may apply to `user`, in list order — what visiting
 * every binding and skipping those {@link appliesTo} rejects would visit, without reading them all: a
 * request of a user named by one of 1,000 bindings reads one (bench/authorization.ts). The index is
 * built once per list.
 */
function bindingsNaming<B extends RoleBinding | ClusterRoleBinding>(bindings: readonly B[], user: RequestUser | undefined, namespace: string): B[] {
  if (user === undefined || bindings.length === 0) return [];
  let entry = subjectIndexes.get(bindings);
  if (entry?.namespace !== namespace) {
    const index = new Map<string, number[]>();
    bindings.forEach((binding, i) => {
      for (const subject of binding.subjects ?? []) {
        const key = subjectKey(subject, namespace);
        if (key === undefined) continue;
        const at = index.get(key);
        if (at === undefined) index.set(key, [i]);
        else if (at[at.length - 1] !== i) at.push(i);
      }
    });
    entry = { namespace, index };
    subjectIndexes.set(bindings, entry);
  }
  const positions = new Set<number>();
  for (const key of [`u:${user.username}`, ...user.groups.map((g) => `g:${g}`)]) for (const i of entry.index.get(key) ?? []) positions.add(i);
  return [...positions].sort((a, b) => a - b).map((i) => bindings[i] as B);
}

/** `appliesToUser`: one subject against the user's name and groups. */
export function appliesToUser(user: RequestUser, subject: Subject, namespace: string): boolean {
  switch (subject.kind) {
    case USER_KIND:
      return user.username === subject.name;
    case GROUP_KIND:
      return user.groups.includes(subject.name);
    case SERVICE_ACCOUNT_KIND: {
      const saNamespace = subject.namespace !== undefined && subject.namespace !== '' ? subject.namespace : namespace;
      if (saNamespace === '') return false;
      return user.username === `${SERVICE_ACCOUNT_USERNAME_PREFIX}${saNamespace}:${subject.name}`;
    }
    default:
      return false;
  }
}

/** Lists of RBAC objects, as {@link staticRBACGetters} reads them. */
export interface StaticRBACObjects {
  roles?: readonly Role[];
  roleBindings?: readonly RoleBinding[];
  clusterRoles?: readonly ClusterRole[];
  clusterRoleBindings?: readonly ClusterRoleBinding[];
}

/** Getters over fixed lists (upstream's `StaticRoles` / `NewTestRuleResolver`), for tests and tools. */
export function staticRBACGetters(objs: StaticRBACObjects): RBACGetters {
  return {
    getRole: (namespace, name) => objs.roles?.find((r) => (r.metadata?.namespace ?? '') === namespace && r.metadata?.name === name),
    getClusterRole: (name) => objs.clusterRoles?.find((r) => r.metadata?.name === name),
    listRoleBindings: (namespace) => (objs.roleBindings ?? []).filter((b) => (b.metadata?.namespace ?? '') === namespace),
    listClusterRoleBindings: () => objs.clusterRoleBindings ?? [],
  };
}

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(errorMessage(e));
}
