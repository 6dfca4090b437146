/**
 * The self-review kinds kubectl's `auth can-i` and `auth whoami` create: evaluated on the spot and
 * never stored (pkg/registry/authorization/selfsubjectaccessreview/rest.go,
 * pkg/registry/authentication/selfsubjectreview/rest.go).
 *
 * kubeplane has one identity — whoever holds the cluster's bearer token — and it may do everything,
 * as a cluster admin in `system:masters` may upstream: every SelfSubjectAccessReview is allowed, and
 * SelfSubjectReview reports that user.
 */
import type { KubeObject } from '../../../api/index.js';
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { SELF_SUBJECT_ACCESS_REVIEWS, SELF_SUBJECT_REVIEWS, type KindDescriptor } from '../../../api/catalogue/index.js';
import { NAME_AGE_TABLE } from './table-helpers.js';

/** The identity behind the bearer token (`kubectl auth whoami`). */
export const ADMIN_USER = { username: 'kubeplane-admin', groups: ['system:masters', 'system:authenticated'] };

function reviewStrategy(row: KindDescriptor, validate: (obj: KubeObject) => FieldError[], status: (obj: KubeObject) => unknown): ResourceStrategy {
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
    // Upstream answers with the request, metadata reduced to creationTimestamp: null, plus the status.
    review: (obj) => ({ ...obj, metadata: { creationTimestamp: null } as unknown as KubeObject['metadata'], status: status(obj) }),
  };
}

/** `ValidateSelfSubjectAccessReviewSpec`: exactly one of resourceAttributes and nonResourceAttributes. */
function validateSelfSubjectAccessReview(obj: KubeObject): FieldError[] {
  const spec = (obj.spec ?? {}) as { resourceAttributes?: unknown; nonResourceAttributes?: unknown };
  if (spec.resourceAttributes && spec.nonResourceAttributes) {
    return [field.invalid('spec.nonResourceAttributes', spec.nonResourceAttributes, 'cannot be specified in combination with resourceAttributes')];
  }
  if (!spec.resourceAttributes && !spec.nonResourceAttributes) {
    return [field.required('spec.resourceAttributes', 'exactly one of nonResourceAttributes or resourceAttributes must be specified')];
  }
  return [];
}

/** authorization.k8s.io/v1 selfsubjectaccessreviews: `kubectl auth can-i` → `yes`. */
export const selfSubjectAccessReviewStrategy = reviewStrategy(
  SELF_SUBJECT_ACCESS_REVIEWS,
  validateSelfSubjectAccessReview,
  () => ({ allowed: true }),
);

/** authentication.k8s.io/v1 selfsubjectreviews: `kubectl auth whoami`. */
export const selfSubjectReviewStrategy = reviewStrategy(
  SELF_SUBJECT_REVIEWS,
  () => [],
  () => ({ userInfo: { username: ADMIN_USER.username, groups: [...ADMIN_USER.groups] } }),
);
