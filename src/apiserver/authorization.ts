/**
 * The API server's authorizer (`--authorization-mode`): members of `system:masters` may do
 * everything, then each mode in order decides or passes (union.go: the first Allow or Deny wins).
 * RBAC reads Roles, ClusterRoles and their bindings from the server's watch caches, as upstream's
 * reads them from informers: a change is in force once the cache has it.
 *
 * Upstream (v1.33): pkg/kubeapiserver/authorizer/config.go (`New`: the privileged-groups authorizer
 * first, then the modes), pkg/kubeapiserver/authorizer/modes/modes.go (the mode names),
 * pkg/kubeapiserver/options/authorization.go (`Validate`: unknown and repeated modes).
 */
import type { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from '../api/index.js';
import { alwaysAllowAuthorizer, alwaysDenyAuthorizer, privilegedGroupsAuthorizer, RBACAuthorizer, unionAuthorizer, unionRuleResolver, type RBACGetters } from './authz/index.js';
import type { Authorizer, RuleResolver } from './authz/types.js';
import { SYSTEM_MASTERS } from './authn/index.js';

/** The modes kubeplane knows (modes.go's names). */
export const AUTHORIZATION_MODES = ['RBAC', 'AlwaysAllow', 'AlwaysDeny'] as const;
export type AuthorizationMode = (typeof AUTHORIZATION_MODES)[number];

/**
 * `--authorization-mode`'s value: a comma-separated list of modes.
 * @throws Error `authorization-mode "X" is not a valid mode`, `"X" is specified more than once`, or
 *   `at least one authorization-mode must be passed`.
 */
export function parseAuthorizationModes(value: string): AuthorizationMode[] {
  const modes = value.split(',').map((m) => m.trim()).filter((m) => m !== '');
  if (modes.length === 0) throw new Error('at least one authorization-mode must be passed');
  const seen = new Set<string>();
  for (const m of modes) {
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(m)) throw new Error(`authorization-mode ${JSON.stringify(m)} is not a valid mode`);
    if (seen.has(m)) throw new Error(`${JSON.stringify(m)} is specified more than once`);
    seen.add(m);
  }
  return modes as AuthorizationMode[];
}

/** What RBAC reads a kind from: a store's cache (the generic store's `cached`, `cachedObjects`, `cacheChanges`). */
export interface CachedObjects {
  cached(namespace: string | undefined, name: string): unknown;
  cachedObjects(namespace?: string): readonly unknown[];
  /** Changes when any object of the kind does. */
  cacheChanges(): number;
}

/**
 * RBAC's getters over the served stores (`storeOf(group, resource)`), as the authorizer and the RBAC
 * storage's escalation checks read them; a kind not served has no objects. The binding lists are kept
 * until their cache changes: every request reads them, and rebuilding 1,000 bindings' list from the
 * cache per request cost more than the rules' evaluation (bench/authorization.ts).
 */
export function rbacGettersOf(storeOf: (group: string, resource: string) => CachedObjects | undefined): RBACGetters {
  const store = (resource: string): CachedObjects | undefined => storeOf('rbac.authorization.k8s.io', resource);
  const lists = new Map<string, { store: CachedObjects; changes: number; objects: readonly unknown[] }>();
  const list = (resource: string, namespace?: string): readonly unknown[] => {
    const s = store(resource);
    if (!s) return [];
    const key = `${resource}/${namespace ?? ''}`;
    const kept = lists.get(key);
    const changes = s.cacheChanges();
    if (kept && kept.store === s && kept.changes === changes) return kept.objects;
    const objects = s.cachedObjects(namespace);
    lists.set(key, { store: s, changes, objects });
    return objects;
  };
  return {
    getRole: (namespace, name) => store('roles')?.cached(namespace, name) as Role | undefined,
    getClusterRole: (name) => store('clusterroles')?.cached(undefined, name) as ClusterRole | undefined,
    listRoleBindings: (namespace) => list('rolebindings', namespace) as readonly RoleBinding[],
    listClusterRoleBindings: () => list('clusterrolebindings') as readonly ClusterRoleBinding[],
  };
}

/** The server's authorizer, also answering which rules a user has (SelfSubjectRulesReview). */
export interface ServerAuthorizer {
  authorizer: Authorizer & RuleResolver;
  /** True when every request is allowed whoever sends it (the first mode is AlwaysAllow). */
  alwaysAllow: boolean;
}

/** Builds the authorizer of `modes` over RBAC's `getters`, `system:masters` first. */
export function newServerAuthorizer(modes: readonly AuthorizationMode[], getters: RBACGetters): ServerAuthorizer {
  const parts = modes.map((m) => (m === 'RBAC' ? new RBACAuthorizer(getters) : m === 'AlwaysAllow' ? alwaysAllowAuthorizer() : alwaysDenyAuthorizer()));
  const privileged = privilegedGroupsAuthorizer([SYSTEM_MASTERS]);
  const authorizer = unionAuthorizer(privileged, ...parts);
  return { authorizer: Object.assign(authorizer, unionRuleResolver(...parts)), alwaysAllow: modes[0] === 'AlwaysAllow' };
}
