/**
 * The storage of the four RBAC kinds: the bootstrap policy reconciled at start-up (./rbac-reconcile.ts)
 * and privilege-escalation prevention on every create and update — a user may only store a role
 * whose rules it holds, or a binding to a role whose rules it holds, unless the authorizer grants it
 * `escalate` (roles) or `bind` (the referenced role). The check runs on the object about to be
 * stored, so patches and applies are checked on their result.
 *
 * Upstream (v1.33): pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/policybased/
 * storage.go (the checks around Create and Update), pkg/registry/rbac/rest/storage_rbac.go (their
 * rule resolver reads the registries: NotFound texts name the plural resource).
 */
import type { KubeObject, Role, RoleBinding } from '../../../api/index.js';
import { checkBindingEscalation, checkRoleEscalation, DefaultRuleResolver, type EscalationContext } from '../../authz/index.js';
import { rbacGettersOf } from '../../authorization.js';
import type { RequestUser } from '../../../api/request.js';
import type { StorageContext, StorageExtension } from '../extension.js';
import { rbacBootstrapStorage, type RBACKind } from './rbac-reconcile.js';

/**
 * The storage extension of the RBAC kind `kind`: bootstrap reconciliation of `objects`, and the
 * escalation check as validating admission.
 */
export function rbacStorage(kind: RBACKind, objects: Parameters<typeof rbacBootstrapStorage>[1]): (ctx: StorageContext) => StorageExtension {
  const bootstrap = rbacBootstrapStorage(kind, objects);
  return (ctx) => {
    const resolver = new DefaultRuleResolver(rbacGettersOf(ctx.storeOf), { lookup: 'registry' });
    const escalation = (user: RequestUser | undefined): EscalationContext => ({ authorizer: ctx.authorizer, resolver, user });
    const validateAdmission = async (obj: KubeObject, old: KubeObject | undefined, user: RequestUser | undefined): Promise<void> => {
      if (user === undefined) return;
      const namespace = obj.metadata?.namespace ?? '';
      const denied =
        kind === 'roles' || kind === 'clusterroles'
          ? // The name of a create is the URL's, which a POST has none of (upstream asks `escalate` with it).
            await checkRoleEscalation(escalation(user), { resource: kind, namespace, name: old ? (obj.metadata?.name ?? '') : '', role: obj as unknown as Role, old: old as unknown as Role | undefined })
          : await checkBindingEscalation(escalation(user), { resource: kind, namespace, binding: obj as unknown as RoleBinding, old: old as unknown as RoleBinding | undefined });
      if (denied) throw denied;
    };
    return { ...bootstrap(ctx), validateAdmission };
  };
}
