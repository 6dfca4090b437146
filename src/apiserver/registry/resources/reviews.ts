/**
 * The review kinds: created, evaluated on the spot and never stored. authentication.k8s.io/v1
 * TokenReview (who is this token?) and SelfSubjectReview (`kubectl auth whoami`); authorization.k8s.io/v1
 * SubjectAccessReview and LocalSubjectAccessReview (may this user do that?), SelfSubjectAccessReview
 * (`kubectl auth can-i`) and SelfSubjectRulesReview (`kubectl auth can-i --list`).
 *
 * Followed (v1.33): pkg/registry/authentication/{tokenreview/storage.go, selfsubjectreview/rest.go},
 * pkg/registry/authorization/{subjectaccessreview, localsubjectaccessreview, selfsubjectaccessreview,
 * selfsubjectrulesreview}/rest.go, pkg/apis/authorization/validation/validation.go,
 * plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go (the rules an admin's SelfSubjectRulesReview
 * lists).
 *
 * The access reviews ask the server's authorizer (`--authorization-mode`: `system:masters`, then RBAC)
 * about the spec's user and groups, or the requester; SelfSubjectRulesReview lists the requester's
 * rules from its rule resolver; SelfSubjectReview answers for the user the request authenticated as
 * (after impersonation). In-process requests, which carry no user, are the admin, {@link ADMIN_USER}.
 */
import type { KubeObject, ObjectMeta } from '../../../api/index.js';
import {
  LOCAL_SUBJECT_ACCESS_REVIEWS,
  SELF_SUBJECT_ACCESS_REVIEWS,
  SELF_SUBJECT_REVIEWS,
  SELF_SUBJECT_RULES_REVIEWS,
  SUBJECT_ACCESS_REVIEWS,
  TOKEN_REVIEWS,
  type KindDescriptor,
} from '../../../api/catalogue/index.js';
import { field, GoSyntax, goQuote, newBadRequest, type FieldError } from '../../../machinery/errors/index.js';
import { goObjectMeta, goStruct } from '../../../machinery/errors/go-repr.js';
import { semanticDeepEqual } from '../../../machinery/meta/index.js';
import { validateFieldSelectorRequirement, validateLabelSelectorRequirement, type SelectorRequirement } from '../../../machinery/validation/index.js';
import { ADMIN_USER, API_AUDIENCES, INVALID_BEARER_TOKEN, type UserInfo } from '../../authn/index.js';
import type { Attributes } from '../../authz/types.js';
import { resourceInfo, type ResourceStrategy, type ReviewContext } from '../strategy.js';
import { NAME_AGE_TABLE } from './table-helpers.js';

export { ADMIN_USER };

/** The part of a SubjectAccessReviewSpec (and SelfSubjectAccessReviewSpec) validation reads. */
interface AccessReviewSpec {
  resourceAttributes?: {
    namespace?: string;
    fieldSelector?: { rawSelector?: string; requirements?: SelectorRequirement[] };
    labelSelector?: { rawSelector?: string; requirements?: SelectorRequirement[] };
  };
  nonResourceAttributes?: { path?: string; verb?: string };
  user?: string;
  groups?: string[];
}

function specOf(obj: KubeObject): AccessReviewSpec {
  const spec: AccessReviewSpec = obj.spec ?? {};
  return spec;
}

/**
 * A review strategy: nothing stored, `respond` builds the answer to a create. The table printer is
 * never used (no review can be read back) but every strategy has one.
 */
function reviewStrategy(
  row: KindDescriptor,
  validate: (obj: KubeObject) => FieldError[],
  respond: (obj: KubeObject, ctx: ReviewContext) => KubeObject | Promise<KubeObject>,
): ResourceStrategy {
  return {
    info: resourceInfo(row),
    hasStatus: true,
    defaults() {},
    prepareForCreate() {},
    prepareForUpdate() {},
    validate,
    validateUpdate: () => [],
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    defaultGarbageCollectionPolicy: 'Background',
    fieldSelectors: {},
    table: NAME_AGE_TABLE,
    review: respond,
  };
}

/**
 * The request answered with `status`: upstream's review REST fills in the status of the object it
 * decoded and returns it; its zero creationTimestamp marshals as null.
 */
function answer(obj: KubeObject, status: unknown): KubeObject {
  return { ...obj, metadata: { ...obj.metadata, creationTimestamp: obj.metadata?.creationTimestamp ?? null } as unknown as ObjectMeta, status };
}

// ---------------------------------------------------------------------------------------------
// Validation (pkg/apis/authorization/validation/validation.go).

/** `%#v` of the internal NonResourceAttributes, as upstream's messages print it. */
function goNonResourceAttributes(a: { path?: string; verb?: string }): string {
  return goStruct('authorization.NonResourceAttributes', [
    ['Path', goQuote(a.path ?? '')],
    ['Verb', goQuote(a.verb ?? '')],
  ]);
}

/** `validateFieldSelectorAttributes` / `validateLabelSelectorAttributes`, with unknown operators allowed. */
function validateSelectorAttributes(
  sel: { rawSelector?: string; requirements?: SelectorRequirement[] } | undefined,
  path: string,
  validateRequirement: typeof validateLabelSelectorRequirement,
): FieldError[] {
  if (!sel) return [];
  const errs: FieldError[] = [];
  const requirements = sel.requirements ?? [];
  if (sel.rawSelector && requirements.length > 0) errs.push(field.invalid(`${path}.rawSelector`, sel.rawSelector, 'may not specified at the same time as requirements'));
  if (!sel.rawSelector && requirements.length === 0) errs.push(field.required(`${path}.requirements`, `when ${path} is specified, requirements or rawSelector is required`));
  requirements.forEach((r, i) => errs.push(...validateRequirement(r, `${path}.requirements[${i}]`, { allowUnknownOperator: true })));
  return errs;
}

/**
 * `ValidateSelfSubjectAccessReviewSpec`: exactly one of resourceAttributes and nonResourceAttributes
 * (the missing one reported as upstream does, its nil value printed `"null"`), then the selectors.
 */
function validateAccessReviewAttributes(spec: AccessReviewSpec): FieldError[] {
  const errs: FieldError[] = [];
  const ra = spec.resourceAttributes;
  const nra = spec.nonResourceAttributes;
  if (ra && nra) errs.push(field.invalid('spec.nonResourceAttributes', new GoSyntax(goNonResourceAttributes(nra)), 'cannot be specified in combination with resourceAttributes'));
  if (!ra && !nra) errs.push(field.invalid('spec.resourceAttributes', 'null', 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  return errs;
}

/** `validateResourceAttributes`: the field and label selectors of spec.resourceAttributes. */
function validateResourceAttributes(spec: AccessReviewSpec): FieldError[] {
  const ra = spec.resourceAttributes;
  if (!ra) return [];
  const path = 'spec.resourceAttributes';
  return [
    ...validateSelectorAttributes(ra.fieldSelector, `${path}.fieldSelector`, validateFieldSelectorRequirement),
    ...validateSelectorAttributes(ra.labelSelector, `${path}.labelSelector`, validateLabelSelectorRequirement),
  ];
}

/** `ValidateSubjectAccessReviewSpec`: the attributes, a user or a group, the selectors. */
function validateSubjectAccessReviewSpec(spec: AccessReviewSpec): FieldError[] {
  const errs = validateAccessReviewAttributes(spec);
  if (!spec.user && (spec.groups ?? []).length === 0) errs.push(field.invalid('spec.user', spec.user ?? '', 'at least one of user or group must be specified'));
  return [...errs, ...validateResourceAttributes(spec)];
}

/**
 * Upstream's `ObjectMeta` must equal the empty one but for managedFields (and, `except`, the
 * namespace): Semantic equality, where an empty map or list is no map or list.
 */
function validateEmptyMetadata(meta: ObjectMeta | undefined, except?: 'namespace'): FieldError[] {
  const m = meta ?? {};
  const compared: Record<string, unknown> = { ...m, managedFields: undefined };
  if (except) compared[except] = undefined;
  if (semanticDeepEqual(compared, {})) return [];
  return [field.invalid('metadata', new GoSyntax(goObjectMeta(m)), except ? 'must be empty except for namespace' : 'must be empty')];
}

/** `ValidateSelfSubjectAccessReview`. */
function validateSelfSubjectAccessReview(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  return [...validateAccessReviewAttributes(spec), ...validateResourceAttributes(spec), ...validateEmptyMetadata(obj.metadata)];
}

/** `ValidateSubjectAccessReview`. */
function validateSubjectAccessReview(obj: KubeObject): FieldError[] {
  return [...validateSubjectAccessReviewSpec(specOf(obj)), ...validateEmptyMetadata(obj.metadata)];
}

/**
 * `ValidateLocalSubjectAccessReview`: as a SubjectAccessReview, in the review's namespace (which the
 * server set from the URL): resourceAttributes.namespace must be it, nonResourceAttributes are refused.
 */
function validateLocalSubjectAccessReview(obj: KubeObject): FieldError[] {
  const spec = specOf(obj);
  const errs = [...validateSubjectAccessReviewSpec(spec), ...validateEmptyMetadata(obj.metadata, 'namespace')];
  const ra = spec.resourceAttributes;
  const namespace = obj.metadata?.namespace ?? '';
  if (ra && (ra.namespace ?? '') !== namespace) errs.push(field.invalid('spec.resourceAttributes.namespace', ra.namespace ?? '', 'must match metadata.namespace'));
  if (spec.nonResourceAttributes) errs.push(field.invalid('spec.nonResourceAttributes', new GoSyntax(goNonResourceAttributes(spec.nonResourceAttributes)), 'disallowed on this kind of request'));
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Answers.

/** The part of a SubjectAccessReviewSpec the authorizer reads. */
interface AccessReviewRequest {
  resourceAttributes?: { namespace?: string; verb?: string; group?: string; version?: string; resource?: string; subresource?: string; name?: string };
  nonResourceAttributes?: { path?: string; verb?: string };
  user?: string;
  groups?: string[];
  uid?: string;
  extra?: Record<string, string[]>;
}

/**
 * `authorizationutil.ResourceAttributesFrom` / `NonResourceAttributesFrom`: the authorizer attributes
 * a review asks about, for `user`.
 */
function reviewAttributes(user: UserInfo, spec: AccessReviewRequest): Attributes {
  const ra = spec.resourceAttributes;
  if (ra) {
    return {
      user,
      verb: ra.verb ?? '',
      resourceRequest: true,
      path: '',
      namespace: ra.namespace ?? '',
      apiGroup: ra.group ?? '',
      apiVersion: ra.version ?? '',
      resource: ra.resource ?? '',
      subresource: ra.subresource ?? '',
      name: ra.name ?? '',
    };
  }
  const nra = spec.nonResourceAttributes ?? {};
  return { user, verb: nra.verb ?? '', resourceRequest: false, path: nra.path ?? '', namespace: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '' };
}

/**
 * The status of an access review (subjectaccessreview/rest.go): allowed on Allow, denied on Deny, the
 * authorizer's reason, and its evaluation error when it met one (a binding to a missing role).
 */
async function accessReviewStatus(user: UserInfo, spec: AccessReviewRequest, ctx: ReviewContext): Promise<Record<string, unknown>> {
  const res = await ctx.authorizer.authorize(reviewAttributes(user, spec));
  const status: Record<string, unknown> = { allowed: res.decision === 'Allow' };
  if (res.decision === 'Deny') status['denied'] = true;
  if (res.reason) status['reason'] = res.reason;
  if (res.error) status['evaluationError'] = res.error;
  return status;
}

/** The subject of a (Local)SubjectAccessReview: `AuthorizationAttributesFrom`'s user. */
function subjectOf(spec: AccessReviewRequest): UserInfo {
  const user: UserInfo = { username: spec.user ?? '', groups: [...(spec.groups ?? [])] };
  if (spec.uid) user.uid = spec.uid;
  if (spec.extra) user.extra = structuredClone(spec.extra);
  return user;
}

/**
 * A SelfSubjectRulesReview's answer (selfsubjectrulesreview/rest.go): a new object (the request's spec
 * is not echoed) listing the requester's rules in spec.namespace, from the authorizer's rule
 * resolver; 400 `no namespace on request` without spec.namespace, as upstream.
 */
async function rulesReviewAnswer(obj: KubeObject, ctx: ReviewContext): Promise<KubeObject> {
  const namespace = (obj.spec as { namespace?: string } | undefined)?.namespace;
  if (!namespace) throw newBadRequest('no namespace on request');
  const rules = await ctx.authorizer.rulesFor(ctx.user ?? ADMIN_USER, namespace);
  const status: Record<string, unknown> = {
    resourceRules: rules.resourceRules.map((r) => ({ verbs: [...r.verbs], ...(r.apiGroups.length ? { apiGroups: [...r.apiGroups] } : {}), ...(r.resources.length ? { resources: [...r.resources] } : {}), ...(r.resourceNames.length ? { resourceNames: [...r.resourceNames] } : {}) })),
    nonResourceRules: rules.nonResourceRules.map((r) => ({ verbs: [...r.verbs], ...(r.nonResourceURLs.length ? { nonResourceURLs: [...r.nonResourceURLs] } : {}) })),
    incomplete: rules.incomplete,
  };
  if (rules.error) status['evaluationError'] = rules.error;
  return {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectRulesReview',
    metadata: { creationTimestamp: null } as unknown as ObjectMeta,
    spec: {},
    status,
  };
}

/**
 * A TokenReview's status (tokenreview/storage.go): the token's user when the server's authenticator
 * knows it — the static admin token, or a service-account token of this server — for the audiences
 * asked (default: the server's API audiences) that it is valid for; else not authenticated, with
 * bearertoken.go's `invalid bearer token`.
 */
async function tokenReviewStatus(obj: KubeObject, ctx: ReviewContext): Promise<unknown> {
  const spec = (obj.spec ?? {}) as { token?: string; audiences?: string[] };
  if (!spec.token) throw newBadRequest('token is required for TokenReview in authentication');
  const res = await ctx.authenticator.authenticateToken(spec.token, spec.audiences?.length ? spec.audiences : API_AUDIENCES);
  if (!res) return { user: {}, error: INVALID_BEARER_TOKEN };
  return { authenticated: true, user: userInfoOf(res.user), audiences: res.audiences };
}

/** `authenticationv1.UserInfo` of a user: uid and extra only when set. */
function userInfoOf(user: UserInfo): UserInfo {
  return {
    username: user.username,
    ...(user.uid ? { uid: user.uid } : {}),
    groups: [...user.groups],
    ...(user.extra && Object.keys(user.extra).length > 0 ? { extra: structuredClone(user.extra) } : {}),
  };
}

/** authentication.k8s.io/v1 tokenreviews. */
export const tokenReviewStrategy = reviewStrategy(TOKEN_REVIEWS, () => [], async (obj, ctx) => answer(obj, await tokenReviewStatus(obj, ctx)));

/**
 * authentication.k8s.io/v1 selfsubjectreviews: `kubectl auth whoami` — the user the request
 * authenticated as (the admin for in-process requests).
 */
export const selfSubjectReviewStrategy = reviewStrategy(
  SELF_SUBJECT_REVIEWS,
  () => [],
  (obj, ctx) => ({ ...obj, metadata: { creationTimestamp: null } as unknown as ObjectMeta, status: { userInfo: userInfoOf(ctx.user ?? ADMIN_USER) } }),
);

/** authorization.k8s.io/v1 subjectaccessreviews: may the user and groups of the spec do that? */
export const subjectAccessReviewStrategy = reviewStrategy(SUBJECT_ACCESS_REVIEWS, validateSubjectAccessReview, async (obj, ctx) => {
  const spec = specOf(obj) as AccessReviewRequest;
  return answer(obj, await accessReviewStatus(subjectOf(spec), spec, ctx));
});

/** authorization.k8s.io/v1 localsubjectaccessreviews (namespaced): the same, within the review's namespace. */
export const localSubjectAccessReviewStrategy = reviewStrategy(LOCAL_SUBJECT_ACCESS_REVIEWS, validateLocalSubjectAccessReview, async (obj, ctx) => {
  const spec = specOf(obj) as AccessReviewRequest;
  return answer(obj, await accessReviewStatus(subjectOf(spec), spec, ctx));
});

/**
 * authorization.k8s.io/v1 selfsubjectaccessreviews: `kubectl auth can-i` — may the requester (the
 * admin for in-process requests) do that?
 */
export const selfSubjectAccessReviewStrategy = reviewStrategy(SELF_SUBJECT_ACCESS_REVIEWS, validateSelfSubjectAccessReview, async (obj, ctx) =>
  answer(obj, await accessReviewStatus(ctx.user ?? ADMIN_USER, specOf(obj), ctx)),
);

/** authorization.k8s.io/v1 selfsubjectrulesreviews: `kubectl auth can-i --list`. */
export const selfSubjectRulesReviewStrategy = reviewStrategy(SELF_SUBJECT_RULES_REVIEWS, () => [], rulesReviewAnswer);
