/**
 * Leases (coordination.k8s.io/v1). No defaults and no status; PUT may create (leader election and node
 * heartbeats do), and an update must carry a resourceVersion.
 *
 * Followed (v1.33): pkg/registry/coordination/lease/strategy.go (AllowCreateOnUpdate true,
 * AllowUnconditionalUpdate false), pkg/apis/coordination/validation/validation.go (ValidateLeaseSpec,
 * ValidateCoordinatedLeaseStrategy), pkg/printers/internalversion/printers.go (printLease).
 */
import { LEASES } from '../../../api/catalogue/index.js';
import type { Lease } from '../../../api/index.js';
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { isQualifiedName } from '../../../machinery/validation/index.js';
import { type ApiObject } from './helpers.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';

type LeaseObject = ApiObject<Lease>;
/** LeaseSpec with the 1.31+ coordinated-election fields, newer than the kubernetes-types release. */
type LeaseSpec = NonNullable<Lease['spec']> & { strategy?: string; preferredHolder?: string };

const VALID_LEASE_STRATEGIES = ['OldestEmulationVersion'];

/**
 * `ValidateLeaseSpec`: leaseDurationSeconds > 0 (`must be greater than 0`), leaseTransitions ≥ 0, a
 * strategy that is `OldestEmulationVersion` or a qualified `domain/name` (reported at upstream's
 * doubled path `spec.strategy.strategy`), and preferredHolder only with a strategy.
 */
export function validateLease(lease: Lease): FieldError[] {
  const errs: FieldError[] = [];
  const spec: LeaseSpec = lease.spec ?? {};
  if (spec.leaseDurationSeconds !== undefined && spec.leaseDurationSeconds !== null && spec.leaseDurationSeconds <= 0) {
    errs.push(field.invalid('spec.leaseDurationSeconds', spec.leaseDurationSeconds, 'must be greater than 0'));
  }
  if (spec.leaseTransitions !== undefined && spec.leaseTransitions !== null && spec.leaseTransitions < 0) {
    errs.push(field.invalid('spec.leaseTransitions', spec.leaseTransitions, 'must be greater than or equal to 0'));
  }
  if (spec.strategy !== undefined && spec.strategy !== null) {
    const path = 'spec.strategy.strategy';
    if (!spec.strategy.includes('/')) {
      if (!VALID_LEASE_STRATEGIES.includes(spec.strategy)) errs.push(field.notSupported(path, spec.strategy, VALID_LEASE_STRATEGIES));
    } else {
      for (const msg of isQualifiedName(spec.strategy)) errs.push(field.invalid(path, spec.strategy, msg));
    }
  }
  if (spec.preferredHolder && !spec.strategy) {
    errs.push(field.forbidden('spec.preferredHolder', 'may only be specified if `strategy` is defined'));
  }
  return errs;
}

/** The leases strategy. */
export const leaseStrategy: ResourceStrategy<LeaseObject> = {
  info: resourceInfo(LEASES),
  hasStatus: false,
  defaults() {},
  prepareForCreate() {},
  prepareForUpdate() {},
  validate: validateLease,
  validateUpdate: validateLease,
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: false,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
  table: {
    columns: [NAME_COLUMN, column('Holder', 'string', 'holderIdentity contains the identity of the holder of a current lease.'), AGE_COLUMN],
    row: (lease, now) => ({
      cells: [lease.metadata?.name ?? '', lease.spec?.holderIdentity ?? '', translateTimestampSince(lease.metadata?.creationTimestamp, now)],
    }),
  },
};
