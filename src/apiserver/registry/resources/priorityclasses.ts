/**
 * PriorityClasses (scheduling.k8s.io/v1, cluster-scoped), with the two system classes every cluster has.
 *
 * Followed (v1.33): pkg/apis/scheduling/v1/defaults.go (SetDefaults_PriorityClass), pkg/apis/scheduling/
 * validation/validation.go (ValidatePriorityClass, ValidatePriorityClassUpdate), pkg/apis/scheduling/
 * helpers.go (SystemPriorityClasses, IsKnownSystemPriorityClass), pkg/registry/scheduling/rest/
 * storage_scheduling.go (the system classes created at start-up), pkg/printers/internalversion/
 * printers.go (printPriorityClass), plugin/pkg/admission/priority/admission.go (validatePriorityClass:
 * the Priority admission plugin allows one `globalDefault` class).
 */
import { PRIORITY_CLASSES } from '../../../api/catalogue/index.js';
import type { PriorityClass } from '../../../api/index.js';
import { field, newForbidden, type FieldError } from '../../../machinery/errors/index.js';
import { getDefaultPriorityClass } from '../../admission/pod-admission.js';
import type { StorageContext, StorageExtension } from '../extension.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { createMissing, validateImmutableField, type ApiObject } from './helpers.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';

type PriorityClassObject = ApiObject<PriorityClass>;

/** `scheduling.HighestUserDefinablePriority`. */
export const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;
const SYSTEM_PREFIX = 'system-';

/** `scheduling.SystemPriorityClasses()`: created at start-up, and the only names with the `system-` prefix. */
export const SYSTEM_PRIORITY_CLASSES: readonly PriorityClass[] = [
  {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: 'system-node-critical' },
    value: 2_000_001_000,
    description: 'Used for system critical pods that must not be moved from their current node.',
  },
  {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: 'system-cluster-critical' },
    value: 2_000_000_000,
    description: 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.',
  },
];

/** `IsKnownSystemPriorityClass`: undefined when `pc` is one, else the reason it is not. */
function systemClassError(pc: PriorityClass): string | undefined {
  const name = pc.metadata?.name ?? '';
  const known = SYSTEM_PRIORITY_CLASSES.find((s) => s.metadata?.name === name);
  if (!known) return `${name} is not a known system priority class`;
  if (known.value !== pc.value) return `value of ${name} PriorityClass must be ${known.value}`;
  if ((known.globalDefault ?? false) !== (pc.globalDefault ?? false)) return `globalDefault of ${name} PriorityClass must be ${known.globalDefault ?? false}`;
  return undefined;
}

/** `ValidatePriorityClass` without the generic ObjectMeta checks. */
export function validatePriorityClass(pc: PriorityClass): FieldError[] {
  const errs: FieldError[] = [];
  const name = pc.metadata?.name ?? '';
  if (name.startsWith(SYSTEM_PREFIX)) {
    const why = systemClassError(pc);
    if (why) errs.push(field.forbidden('metadata.name', `priority class names with '${SYSTEM_PREFIX}' prefix are reserved for system use only. error: ${why}`));
  } else if (pc.value > HIGHEST_USER_DEFINABLE_PRIORITY) {
    errs.push(field.forbidden('value', `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`));
  }
  const policy = pc.preemptionPolicy;
  if (policy != null && policy !== 'Never' && policy !== 'PreemptLowerPriority') errs.push(field.notSupported('preemptionPolicy', policy, ['Never', 'PreemptLowerPriority']));
  return errs;
}

/** `ValidatePriorityClassUpdate`: value and preemptionPolicy are immutable. */
function validatePriorityClassUpdate(pc: PriorityClass, old: PriorityClass): FieldError[] {
  const errs: FieldError[] = pc.value === old.value ? [] : [field.forbidden('value', 'may not be changed in an update.')];
  return [...errs, ...validateImmutableField(pc.preemptionPolicy, old.preemptionPolicy, 'preemptionPolicy')];
}

/**
 * The Priority admission plugin's `validatePriorityClass`, run after validation: a class marked
 * `globalDefault` is refused (403) while another one is the default — on create whatever the names, on
 * update unless it is the default itself: `priorityclasses.scheduling.k8s.io "b" is forbidden:
 * PriorityClass a is already marked as default. Only one default can exist`.
 */
export function admitPriorityClass(pc: PriorityClass, old: PriorityClass | undefined, classes: Iterable<PriorityClass>): void {
  if (!pc.globalDefault) return;
  const current = getDefaultPriorityClass(classes);
  if (!current) return;
  const name = pc.metadata?.name ?? '';
  const currentName = current.metadata?.name ?? '';
  if (old === undefined || currentName !== name) {
    throw newForbidden(
      { group: PRIORITY_CLASSES.group, resource: PRIORITY_CLASSES.resource },
      name,
      `PriorityClass ${currentName} is already marked as default. Only one default can exist`,
    );
  }
}

/** The system classes, created when missing (storage_scheduling.go's post-start hook), and the Priority plugin's admission. */
function priorityClassStorage({ store }: StorageContext): StorageExtension {
  return {
    bootstrap: () => createMissing(store, SYSTEM_PRIORITY_CLASSES),
    validateAdmission: (pc, old) =>
      admitPriorityClass(pc as unknown as PriorityClass, old as unknown as PriorityClass | undefined, store.cachedObjects() as unknown as PriorityClass[]),
  };
}

/** The PriorityClass strategy. */
export const priorityClassStrategy: ResourceStrategy<PriorityClassObject> = {
  info: resourceInfo(PRIORITY_CLASSES),
  hasStatus: false,
  /** `SetDefaults_PriorityClass`. */
  defaults(pc) {
    pc.preemptionPolicy ??= 'PreemptLowerPriority';
  },
  prepareForCreate() {},
  prepareForUpdate() {},
  validate: validatePriorityClass,
  validateUpdate: (pc, old) => [...validatePriorityClass(pc), ...validatePriorityClassUpdate(pc, old)],
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
  storage: priorityClassStorage,
  table: {
    columns: [
      NAME_COLUMN,
      column('Value', 'integer', 'value represents the integer value of this priority class. This is the actual priority that pods receive when they have the name of this class in their pod spec.'),
      column(
        'Global-Default',
        'boolean',
        'globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class. Only one PriorityClass can be marked as `globalDefault`. However, if more than one PriorityClasses exists with their `globalDefault` field set to true, the smallest value of such global default PriorityClasses will be used as the default priority.',
      ),
      AGE_COLUMN,
      column('PreemptionPolicy', 'string', 'preemptionPolicy is the Policy for preempting pods with lower priority. One of Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.'),
    ],
    row: (pc, now) => ({
      cells: [pc.metadata?.name ?? '', pc.value, pc.globalDefault ?? false, translateTimestampSince(pc.metadata?.creationTimestamp, now), pc.preemptionPolicy ?? ''],
    }),
  },
};
