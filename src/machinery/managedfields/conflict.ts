/**
 * Apply conflicts as the API server's 409. Follows k8s.io/apimachinery
 * pkg/util/managedfields/internal/conflict.go (v0.33.9) and NewApplyConflict of
 * k8s.io/apimachinery/pkg/api/errors; the texts are in the merge package (applyConflictMessage).
 */
import { StatusError, statusDetails } from '../errors/index.js';
import { applyConflictMessage, conflictCauses, type Conflicts } from '../merge/index.js';

/**
 * 409 Conflict with a cause per conflicting field (NewConflictError): message
 * `Apply failed with 1 conflict: conflict with "kubectl" using apps/v1: .spec.replicas`, causes
 * `{reason: 'FieldManagerConflict', message: 'conflict with "kubectl" using apps/v1', field: '.spec.replicas'}`
 * (a StatusCause's `type` is written as `reason`).
 */
export function newConflictError(conflicts: Conflicts): StatusError {
  const causes = conflictCauses(conflicts.conflicts).map((c) => ({ reason: c.type, message: c.message, field: c.field }));
  return new StatusError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: applyConflictMessage(conflicts.conflicts),
    reason: 'Conflict',
    details: statusDetails({ causes }),
    code: 409,
  });
}
