/**
 * DaemonSets (apps/v1).
 *
 * Followed (v1.33): pkg/apis/apps/v1/defaults.go (SetDefaults_DaemonSet), pkg/registry/apps/daemonset/
 * strategy.go (status reset on create, generation 1 and templateGeneration ≥ 1; on update the status is
 * kept, templateGeneration and generation bump when the template changes, generation alone when other
 * spec fields change; the status strategy keeps spec), pkg/apis/apps/v1/conversion.go (the internal
 * `spec.templateGeneration` is the annotation `deprecated.daemonset.template.generation` in apps/v1:
 * read from the request on create, always written back), pkg/apis/apps/validation/validation.go
 * (ValidateDaemonSetSpec, ValidateDaemonSetUpdateStrategy, ValidateRollingUpdateDaemonSet,
 * ValidateDaemonSetStatusUpdate; selector immutable in apps/v1), pkg/printers/internalversion/
 * printers.go (printDaemonSet).
 *
 * Known difference: upstream rejects a non-integer template-generation annotation on create with a
 * conversion error (400); here it counts as absent (generation 1).
 */
import { DAEMON_SETS } from '../../../api/catalogue/index.js';
import type { DaemonSet, DaemonSetSpec, DaemonSetUpdateStrategy } from '../../../api/index.js';
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { selectorFromLabelSelector, type Selector } from '../../../machinery/labels/index.js';
import { validateLabelSelector, validateNonnegativeField } from '../../../machinery/validation/index.js';
import { resourceInfo, type ResourceStrategy, type TableRowData } from '../strategy.js';
import { intOrPercentValue, percentValue, validateCollisionCount, validatePositiveIntOrPercent } from './deployments.js';
import { bumpGenerationIf, labelSelectorString, resetField, semanticDeepEqual, validateImmutableField, type ApiObject } from './helpers.js';
import { defaultPodTemplateSpec, validatePodTemplateSpec } from './pod-template.js';
import { AGE_COLUMN, CONTAINERS_COLUMN, IMAGES_COLUMN, NAME_COLUMN, column, formatLabels, layoutContainerCells, translateTimestampSince } from './table-helpers.js';

type DaemonSetObject = ApiObject<DaemonSet>;
type IntOrString = number | string;

/** apps/v1 `DeprecatedTemplateGeneration`: the template generation, as a decimal string. */
export const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

/** `SetDefaults_DaemonSet`: updateStrategy RollingUpdate with maxUnavailable 1 and maxSurge 0; revisionHistoryLimit 10; template defaults. */
export function defaultDaemonSet(ds: DaemonSet): void {
  const spec = (ds.spec ??= {} as DaemonSetSpec);
  const strategy = (spec.updateStrategy ??= {});
  strategy.type ||= 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const ru = (strategy.rollingUpdate ??= {});
    ru.maxUnavailable ??= 1;
    ru.maxSurge ??= 0;
  }
  spec.revisionHistoryLimit ??= 10;
  defaultPodTemplateSpec((spec.template ??= {}));
}

/** The template generation an object carries in its annotation; undefined when absent or not an integer. */
export function templateGeneration(ds: DaemonSet): number | undefined {
  const v = ds.metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  return v !== undefined && /^[+-]?\d+$/.test(v) ? Number(v) : undefined;
}

function setTemplateGeneration(ds: DaemonSetObject, generation: number): void {
  const meta = (ds.metadata ??= {});
  meta.annotations = { ...meta.annotations, [TEMPLATE_GENERATION_ANNOTATION]: String(generation) };
}

/** `IsNotMoreThan100Percent`: `must not be greater than 100%`. */
function isNotMoreThan100Percent(v: IntOrString | undefined, path: string): FieldError[] {
  const pct = percentValue(v);
  return pct !== undefined && pct > 100 ? [field.invalid(path, v, 'must not be greater than 100%')] : [];
}

/**
 * `ValidateDaemonSetUpdateStrategy` with `ValidateRollingUpdateDaemonSet`: exactly one of maxSurge and
 * maxUnavailable must be non-zero (`maxSurge: Invalid value: 1: may not be set when maxUnavailable is
 * non-zero`, `maxUnavailable: Required value: cannot be 0 when maxSurge is 0`).
 */
function validateDaemonSetUpdateStrategy(strategy: DaemonSetUpdateStrategy | undefined, path: string): FieldError[] {
  const s = strategy ?? {};
  switch (s.type) {
    case 'OnDelete':
      return [];
    case 'RollingUpdate': {
      const ru = s.rollingUpdate;
      if (!ru) return [field.required(`${path}.rollingUpdate`)];
      const p = `${path}.rollingUpdate`;
      const errs = validatePositiveIntOrPercent(ru.maxUnavailable, `${p}.maxUnavailable`);
      errs.push(...validatePositiveIntOrPercent(ru.maxSurge, `${p}.maxSurge`));
      errs.push(...isNotMoreThan100Percent(ru.maxUnavailable, `${p}.maxUnavailable`));
      errs.push(...isNotMoreThan100Percent(ru.maxSurge, `${p}.maxSurge`));
      const hasUnavailable = intOrPercentValue(ru.maxUnavailable) !== 0;
      const hasSurge = intOrPercentValue(ru.maxSurge) !== 0;
      if (hasUnavailable && hasSurge) errs.push(field.invalid(`${p}.maxSurge`, ru.maxSurge, 'may not be set when maxUnavailable is non-zero'));
      else if (!hasUnavailable && !hasSurge) errs.push(field.required(`${p}.maxUnavailable`, 'cannot be 0 when maxSurge is 0'));
      return errs;
    }
    case undefined:
    default:
      return [field.notSupported(path, s, ['RollingUpdate', 'OnDelete'])];
  }
}

/**
 * `ValidateDaemonSetSpec`, in upstream's order: the selector's syntax; template labels not matched
 * (a missing selector matches nothing, so it is reported this way — apps/v1 has no Required check);
 * `empty selector is invalid for daemonset`; the template; restartPolicy other than `Always`;
 * `activeDeadlineSeconds in DaemonSet is not Supported`; minReadySeconds ≥ 0; the update strategy;
 * revisionHistoryLimit ≥ 0.
 */
export function validateDaemonSetSpec(ds: DaemonSet): FieldError[] {
  const spec = ds.spec ?? ({} as Partial<DaemonSetSpec>);
  const errs = validateLabelSelector(spec.selector, 'spec.selector');
  let selector: Selector | undefined;
  try {
    selector = selectorFromLabelSelector(spec.selector);
  } catch {
    selector = undefined;
  }
  const template = spec.template ?? {};
  const labels = template.metadata?.labels ?? {};
  if (selector && !selector.matches(labels)) {
    errs.push(field.invalid('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
  }
  if (spec.selector && Object.keys(spec.selector.matchLabels ?? {}).length + (spec.selector.matchExpressions ?? []).length === 0) {
    errs.push(field.invalid('spec.selector', spec.selector, 'empty selector is invalid for daemonset'));
  }
  errs.push(...validatePodTemplateSpec(template, 'spec.template'));
  const restartPolicy = template.spec?.restartPolicy ?? '';
  if (restartPolicy !== 'Always') errs.push(field.notSupported('spec.template.spec.restartPolicy', restartPolicy, ['Always']));
  if (template.spec?.activeDeadlineSeconds !== undefined && template.spec.activeDeadlineSeconds !== null) {
    errs.push(field.forbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in DaemonSet is not Supported'));
  }
  errs.push(...validateNonnegativeField(spec.minReadySeconds ?? 0, 'spec.minReadySeconds'));
  errs.push(...validateDaemonSetUpdateStrategy(spec.updateStrategy, 'spec.updateStrategy'));
  if (spec.revisionHistoryLimit !== undefined && spec.revisionHistoryLimit !== null) {
    errs.push(...validateNonnegativeField(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  }
  return errs;
}

const STATUS_COUNTS = [
  'currentNumberScheduled',
  'numberMisscheduled',
  'desiredNumberScheduled',
  'numberReady',
  'observedGeneration',
  'updatedNumberScheduled',
  'numberAvailable',
  'numberUnavailable',
] as const;

/** `ValidateDaemonSetStatusUpdate`: every count ≥ 0, collisionCount ≥ 0 and never decremented. */
export function validateDaemonSetStatusUpdate(ds: DaemonSet, old: DaemonSet): FieldError[] {
  const s = ds.status ?? ({} as NonNullable<DaemonSet['status']>);
  const errs: FieldError[] = [];
  for (const k of STATUS_COUNTS) errs.push(...validateNonnegativeField(s[k] ?? 0, `status.${k}`));
  if (s.collisionCount !== undefined && s.collisionCount !== null) errs.push(...validateNonnegativeField(s.collisionCount, 'status.collisionCount'));
  errs.push(...validateCollisionCount(s.collisionCount, old.status?.collisionCount));
  return errs;
}

/** `printDaemonSet`: Name, Desired, Current, Ready, Up-to-date, Available, Node Selector, Age; wide: Containers, Images, Selector. */
export function printDaemonSet(ds: DaemonSet, now: number): TableRowData {
  const s = ds.status;
  const [names, images] = layoutContainerCells(ds.spec?.template?.spec?.containers);
  return {
    cells: [
      ds.metadata?.name ?? '',
      s?.desiredNumberScheduled ?? 0,
      s?.currentNumberScheduled ?? 0,
      s?.numberReady ?? 0,
      s?.updatedNumberScheduled ?? 0,
      s?.numberAvailable ?? 0,
      formatLabels(ds.spec?.template?.spec?.nodeSelector),
      translateTimestampSince(ds.metadata?.creationTimestamp, now),
      names,
      images,
      labelSelectorString(ds.spec?.selector),
    ],
  };
}

/** The status a new DaemonSet starts with: Go serializes the four non-omitempty counts as 0. */
function initialStatus(): NonNullable<DaemonSet['status']> {
  return { currentNumberScheduled: 0, desiredNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0 };
}

/** The daemonsets strategy. */
export const daemonSetStrategy: ResourceStrategy<DaemonSetObject> = {
  info: resourceInfo(DAEMON_SETS),
  hasStatus: true,
  defaults(ds) {
    defaultDaemonSet(ds);
    // Upstream decodes the annotation into the internal spec.templateGeneration (0 when absent) and
    // the apps/v1 conversion always writes it back, so every write's typed object, which the field
    // manager compares, carries it: the creator (and an update that drops it) owns the annotation
    // (test/integration/apiserver/apply/apply_test.go TestDuplicatesInAssociativeLists). The strategy
    // hooks below then set the real value.
    setTemplateGeneration(ds, templateGeneration(ds) ?? 0);
  },
  prepareForCreate(ds) {
    ds.status = initialStatus();
    (ds.metadata ??= {}).generation = 1;
    setTemplateGeneration(ds, Math.max(1, templateGeneration(ds) ?? 0));
  },
  prepareForUpdate(ds, old) {
    ds.status = old.status ?? initialStatus();
    // The annotation is the server's: a client cannot set it, only a template change moves it.
    const templateChanged = !semanticDeepEqual(ds.spec?.template, old.spec?.template);
    setTemplateGeneration(ds, (templateGeneration(old) ?? 1) + (templateChanged ? 1 : 0));
    bumpGenerationIf(ds, old, templateChanged || !semanticDeepEqual(ds.spec, old.spec));
  },
  prepareForStatusUpdate(ds, old) {
    resetField(ds, old, 'spec');
    // The annotation is the internal spec.templateGeneration, which the status strategy keeps with the spec.
    const generation = templateGeneration(old);
    if (generation === undefined) delete ds.metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
    else setTemplateGeneration(ds, generation);
  },
  validate: validateDaemonSetSpec,
  validateUpdate: (ds, old) => [
    ...validateDaemonSetSpec(ds),
    ...validateImmutableField(ds.spec?.selector, old.spec?.selector, 'spec.selector'),
  ],
  validateStatusUpdate: validateDaemonSetStatusUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
  table: {
    columns: [
      NAME_COLUMN,
      column('Desired', 'integer', 'The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/'),
      column('Current', 'integer', 'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/'),
      column('Ready', 'integer', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.'),
      column('Up-to-date', 'integer', 'The total number of nodes that are running updated daemon pod'),
      column('Available', 'integer', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)'),
      column('Node Selector', 'string', "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/"),
      AGE_COLUMN,
      CONTAINERS_COLUMN,
      IMAGES_COLUMN,
      column('Selector', 'string', 'A label query over pods that are managed by the daemon set. Must match in order to be controlled. If empty, defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors', 1),
    ],
    row: printDaemonSet,
  },
};
