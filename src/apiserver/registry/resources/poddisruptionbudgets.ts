/**
 * PodDisruptionBudgets (policy/v1, namespaced, with a status subresource).
 *
 * Followed (v1.33): pkg/apis/policy/validation/validation.go (ValidatePodDisruptionBudgetSpec,
 * ValidatePodDisruptionBudgetStatusUpdate), pkg/apis/apps/validation (ValidatePositiveIntOrPercent,
 * IsNotMoreThan100Percent), pkg/registry/policy/poddisruptionbudget/strategy.go (status reset on create
 * and kept on update, generation bumped on spec change, the status strategy keeps spec;
 * AllowCreateOnUpdate and AllowUnconditionalUpdate false), pkg/printers/internalversion/printers.go
 * (printPodDisruptionBudget). policy/v1 has no defaults.
 *
 * The status is kept by the disruption controller (src/controller/disruption) and spent by pod
 * evictions (eviction.ts).
 *
 * Not done: the AllowInvalidLabelValueInSelector leniency for updates of budgets stored with an invalid selector
 * value; the v1 conversion's stripping of the v1beta1 match-none selector label. Invalid int-or-percent
 * values print as their JSON value, not as Go's `intstr.IntOrString{…}` (as deployments.ts).
 */
import { POD_DISRUPTION_BUDGETS } from '../../../api/catalogue/index.js';
import type { PodDisruptionBudget } from '../../../api/index.js';
import { field, goPointer, GoSyntax, type FieldError } from '../../../machinery/errors/index.js';
import { validateConditions, validateLabelSelector, validateNonnegativeField } from '../../../machinery/validation/index.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { isNotMoreThan100Percent, validatePositiveIntOrPercent } from './deployments.js';
import { bumpGenerationIf, resetField, semanticDeepEqual, type ApiObject } from './helpers.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';

type PodDisruptionBudgetObject = ApiObject<PodDisruptionBudget>;
type PodDisruptionBudgetSpec = NonNullable<PodDisruptionBudget['spec']>;
type PodDisruptionBudgetStatus = NonNullable<PodDisruptionBudget['status']>;

const UNHEALTHY_POD_EVICTION_POLICIES = ['AlwaysAllow', 'IfHealthyBudget'];
const STATUS_COUNTS = ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'] as const;

/** The status a budget is created with (`PodDisruptionBudgetStatus{}`; its counts have no omitempty). */
function initialStatus(): PodDisruptionBudgetStatus {
  return { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
}

/**
 * Go's `%#v` of the internal PodDisruptionBudgetSpec, the bad value of `minAvailable and maxUnavailable
 * cannot be both set`; its fields are pointers, so Go prints addresses, `(…)` here.
 */
function goSpec(spec: PodDisruptionBudgetSpec): GoSyntax {
  return new GoSyntax(
    `policy.PodDisruptionBudgetSpec{MinAvailable:${goPointer('intstr.IntOrString', spec.minAvailable != null)}, ` +
      `Selector:${goPointer('v1.LabelSelector', spec.selector != null)}, MaxUnavailable:${goPointer('intstr.IntOrString', spec.maxUnavailable != null)}, ` +
      `UnhealthyPodEvictionPolicy:${goPointer('policy.UnhealthyPodEvictionPolicyType', spec.unhealthyPodEvictionPolicy != null)}}`,
  );
}

/**
 * `ValidatePodDisruptionBudgetSpec`: minAvailable and maxUnavailable are exclusive; each a non-negative
 * int or a percent of at most 100%; the selector a valid label selector; unhealthyPodEvictionPolicy
 * `AlwaysAllow` or `IfHealthyBudget`.
 */
export function validatePodDisruptionBudget(pdb: PodDisruptionBudget): FieldError[] {
  const spec: PodDisruptionBudgetSpec = pdb.spec ?? {};
  const errs: FieldError[] = [];
  if (spec.minAvailable != null && spec.maxUnavailable != null) errs.push(field.invalid('spec', goSpec(spec), 'minAvailable and maxUnavailable cannot be both set'));
  for (const key of ['minAvailable', 'maxUnavailable'] as const) {
    const v = spec[key];
    if (v == null) continue;
    errs.push(...validatePositiveIntOrPercent(v, `spec.${key}`), ...isNotMoreThan100Percent(v, `spec.${key}`));
  }
  errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (policy != null && !UNHEALTHY_POD_EVICTION_POLICIES.includes(policy)) {
    errs.push(field.notSupported('spec.unhealthyPodEvictionPolicy', policy, UNHEALTHY_POD_EVICTION_POLICIES));
  }
  return errs;
}

/** `ValidatePodDisruptionBudgetStatusUpdate` (policy/v1): valid conditions, non-negative counts. */
export function validatePodDisruptionBudgetStatusUpdate(pdb: PodDisruptionBudget): FieldError[] {
  const status: Partial<PodDisruptionBudgetStatus> = pdb.status ?? {};
  const errs = validateConditions(status.conditions, 'status.conditions');
  for (const key of STATUS_COUNTS) errs.push(...validateNonnegativeField(status[key] ?? 0, `status.${key}`));
  return errs;
}

/** `IntOrString.String()`; `N/A` when unset (printPodDisruptionBudget). */
function intOrStringCell(v: number | string | undefined): string {
  return v == null ? 'N/A' : String(v);
}

/** The PodDisruptionBudget strategy. */
export const podDisruptionBudgetStrategy: ResourceStrategy<PodDisruptionBudgetObject> = {
  info: resourceInfo(POD_DISRUPTION_BUDGETS),
  hasStatus: true,
  defaults() {},
  prepareForCreate(pdb) {
    pdb.status = initialStatus();
    (pdb.metadata ??= {}).generation = 1;
  },
  prepareForUpdate(pdb, old) {
    pdb.status = old.status ?? initialStatus();
    bumpGenerationIf(pdb, old, !semanticDeepEqual(pdb.spec, old.spec));
  },
  prepareForStatusUpdate(pdb, old) {
    resetField(pdb, old, 'spec');
  },
  validate: validatePodDisruptionBudget,
  validateUpdate: validatePodDisruptionBudget,
  validateStatusUpdate: validatePodDisruptionBudgetStatusUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: false,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
  table: {
    columns: [
      NAME_COLUMN,
      column('Min Available', 'string', 'The minimum number of pods that must be available.'),
      column('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
      column('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
      AGE_COLUMN,
    ],
    row: (pdb, now) => ({
      cells: [
        pdb.metadata?.name ?? '',
        intOrStringCell(pdb.spec?.minAvailable),
        intOrStringCell(pdb.spec?.maxUnavailable),
        pdb.status?.disruptionsAllowed ?? 0,
        translateTimestampSince(pdb.metadata?.creationTimestamp, now),
      ],
    }),
  },
};
