/**
 * RoleBindings (namespaced) and ClusterRoleBindings (rbac.authorization.k8s.io/v1), with upstream's
 * bootstrap bindings reconciled at start-up (rbac-bootstrap.ts, rbac-reconcile.ts: `cluster-admin`
 * for `system:masters`, the `system:*` and controller bindings, the RoleBindings of kube-system and
 * kube-public, and kubeadm's `kubeadm:cluster-admins`). The authorizer in src/apiserver/authz
 * evaluates them for every request.
 *
 * Followed (v1.33): pkg/apis/rbac/v1/defaults.go (SetDefaults_RoleBinding, SetDefaults_ClusterRoleBinding,
 * SetDefaults_Subject), pkg/apis/rbac/validation/validation.go (ValidateRoleBinding,
 * ValidateClusterRoleBinding, ValidateRoleBindingSubject, the roleRef immutability of the *Update
 * functions), pkg/registry/rbac/{rolebinding,clusterrolebinding}/strategy.go (AllowCreateOnUpdate and
 * AllowUnconditionalUpdate true), pkg/apis/rbac/helpers.go (SubjectsStrings),
 * pkg/printers/internalversion/printers.go (printRoleBinding, printClusterRoleBinding).
 */
import { CLUSTER_ROLE_BINDINGS, ROLE_BINDINGS } from '../../../api/catalogue/index.js';
import type { ClusterRoleBinding, RoleBinding, RoleRef, Subject } from '../../../api/index.js';
import { field, goQuote, GoSyntax, type FieldError } from '../../../machinery/errors/index.js';
import { isDNS1123Subdomain } from '../../../machinery/validation/index.js';
import { resourceInfo, type ResourceStrategy, type TablePrinter } from '../strategy.js';
import type { ApiObject } from './helpers.js';
import { BOOTSTRAP_CLUSTER_ROLE_BINDINGS, BOOTSTRAP_ROLE_BINDINGS } from './rbac-bootstrap.js';
import { rbacStorage } from './rbac-storage.js';
import { RBAC_STRATEGY, validateRBACName } from './roles.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';

type Binding = RoleBinding | ClusterRoleBinding;
type RoleBindingObject = ApiObject<RoleBinding>;
type ClusterRoleBindingObject = ApiObject<ClusterRoleBinding>;

/** `rbac.GroupName`. */
export const RBAC_GROUP_NAME = 'rbac.authorization.k8s.io';

/**
 * `SetDefaults_RoleBinding` / `SetDefaults_ClusterRoleBinding` and `SetDefaults_Subject`: an empty
 * roleRef.apiGroup becomes `rbac.authorization.k8s.io`; an empty subject apiGroup becomes it for User
 * and Group subjects and stays "" (absent on the wire) for ServiceAccounts.
 */
export function defaultBinding(binding: Binding): void {
  const ref = (binding.roleRef ??= { apiGroup: '', kind: '', name: '' });
  ref.apiGroup ||= RBAC_GROUP_NAME;
  for (const subject of binding.subjects ?? []) {
    if (subject.apiGroup) continue;
    if (subject.kind === 'User' || subject.kind === 'Group') subject.apiGroup = RBAC_GROUP_NAME;
    // A ServiceAccount's apiGroup defaults to "", which Go's omitempty leaves out of the object.
    else if (subject.kind === 'ServiceAccount') delete subject.apiGroup;
  }
}

/**
 * `ValidateRoleBindingSubject`: a name; a ServiceAccount's name is a DNS subdomain, its apiGroup empty
 * and, in a ClusterRoleBinding, its namespace required; Users and Groups are in the RBAC group; no
 * other kind.
 */
export function validateSubject(subject: Subject, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = subject.name ?? '';
  const apiGroup = subject.apiGroup ?? '';
  if (!name) errs.push(field.required(`${path}.name`));
  switch (subject.kind) {
    case 'ServiceAccount':
      if (name) for (const msg of isDNS1123Subdomain(name)) errs.push(field.invalid(`${path}.name`, name, msg));
      if (apiGroup) errs.push(field.notSupported(`${path}.apiGroup`, apiGroup, ['']));
      if (!namespaced && !subject.namespace) errs.push(field.required(`${path}.namespace`));
      break;
    case 'User':
    case 'Group':
      if (apiGroup !== RBAC_GROUP_NAME) errs.push(field.notSupported(`${path}.apiGroup`, apiGroup, [RBAC_GROUP_NAME]));
      break;
    default:
      errs.push(field.notSupported(`${path}.kind`, subject.kind ?? '', ['ServiceAccount', 'User', 'Group']));
  }
  return errs;
}

/**
 * `ValidateRoleBinding` (`namespaced`: a Role or a ClusterRole may be bound) and
 * `ValidateClusterRoleBinding` (only a ClusterRole) without the generic ObjectMeta checks.
 */
function validateBinding(binding: Binding, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ref: Partial<RoleRef> = binding.roleRef ?? {};
  if (ref.apiGroup !== RBAC_GROUP_NAME) errs.push(field.notSupported('roleRef.apiGroup', ref.apiGroup ?? '', [RBAC_GROUP_NAME]));
  const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
  if (!kinds.includes(ref.kind ?? '')) errs.push(field.notSupported('roleRef.kind', ref.kind ?? '', kinds));
  if (!ref.name) errs.push(field.required('roleRef.name'));
  else for (const msg of validateRBACName(ref.name)) errs.push(field.invalid('roleRef.name', ref.name, msg));
  (binding.subjects ?? []).forEach((s, i) => errs.push(...validateSubject(s, namespaced, `subjects[${i}]`)));
  return errs;
}

/** Go's `%#v` of an `rbac.RoleRef`, the bad value of `cannot change roleRef`. */
function goRoleRef(ref: Partial<RoleRef>): GoSyntax {
  return new GoSyntax(`rbac.RoleRef{APIGroup:${goQuote(ref.apiGroup ?? '')}, Kind:${goQuote(ref.kind ?? '')}, Name:${goQuote(ref.name ?? '')}}`);
}

/** The roleRef check of `ValidateRoleBindingUpdate` / `ValidateClusterRoleBindingUpdate`: it never changes. */
function validateRoleRefUpdate(binding: Binding, old: Binding): FieldError[] {
  const ref: Partial<RoleRef> = binding.roleRef ?? {};
  const oldRef: Partial<RoleRef> = old.roleRef ?? {};
  const same = (ref.apiGroup ?? '') === (oldRef.apiGroup ?? '') && (ref.kind ?? '') === (oldRef.kind ?? '') && (ref.name ?? '') === (oldRef.name ?? '');
  return same ? [] : [field.invalid('roleRef', goRoleRef(ref), 'cannot change roleRef')];
}

/** `rbac.SubjectsStrings`: users, groups and `namespace/name` of service accounts (other kinds are not printed). */
export function subjectsStrings(subjects: readonly Subject[] | undefined): [users: string[], groups: string[], serviceAccounts: string[]] {
  const users: string[] = [];
  const groups: string[] = [];
  const sas: string[] = [];
  for (const s of subjects ?? []) {
    if (s.kind === 'ServiceAccount') sas.push(`${s.namespace ?? ''}/${s.name}`);
    else if (s.kind === 'User') users.push(s.name);
    else if (s.kind === 'Group') groups.push(s.name);
  }
  return [users, groups, sas];
}

/** printRoleBinding / printClusterRoleBinding: NAME ROLE AGE, and with `-o wide` USERS GROUPS SERVICEACCOUNTS. */
function bindingPrinter(kind: 'roleBinding' | 'clusterRoleBinding', roleRefDescription: string): TablePrinter<Binding> {
  return {
    columns: [
      NAME_COLUMN,
      column('Role', 'string', roleRefDescription),
      AGE_COLUMN,
      column('Users', 'string', `Users in the ${kind}`, 1),
      column('Groups', 'string', `Groups in the ${kind}`, 1),
      column('ServiceAccounts', 'string', `ServiceAccounts in the ${kind}`, 1),
    ],
    row: (b, now) => {
      const [users, groups, sas] = subjectsStrings(b.subjects);
      return {
        cells: [
          b.metadata?.name ?? '',
          `${b.roleRef?.kind ?? ''}/${b.roleRef?.name ?? ''}`,
          translateTimestampSince(b.metadata?.creationTimestamp, now),
          users.join(', '),
          groups.join(', '),
          sas.join(', '),
        ],
      };
    },
  };
}

/** The RoleBinding strategy, which reconciles the bootstrap RoleBindings of kube-system and kube-public at start-up. */
export const roleBindingStrategy: ResourceStrategy<RoleBindingObject> = {
  ...RBAC_STRATEGY,
  info: resourceInfo(ROLE_BINDINGS),
  defaults: defaultBinding,
  validate: (rb) => validateBinding(rb, true),
  validateUpdate: (rb, old) => [...validateBinding(rb, true), ...validateRoleRefUpdate(rb, old)],
  storage: rbacStorage('rolebindings', BOOTSTRAP_ROLE_BINDINGS),
  table: bindingPrinter(
    'roleBinding',
    'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
  ),
};

/** The ClusterRoleBinding strategy, which reconciles the bootstrap ClusterRoleBindings at start-up. */
export const clusterRoleBindingStrategy: ResourceStrategy<ClusterRoleBindingObject> = {
  ...RBAC_STRATEGY,
  info: resourceInfo(CLUSTER_ROLE_BINDINGS),
  defaults: defaultBinding,
  validate: (crb) => validateBinding(crb, false),
  validateUpdate: (crb, old) => [...validateBinding(crb, false), ...validateRoleRefUpdate(crb, old)],
  storage: rbacStorage('clusterrolebindings', BOOTSTRAP_CLUSTER_ROLE_BINDINGS),
  table: bindingPrinter('clusterRoleBinding', 'RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.'),
};
