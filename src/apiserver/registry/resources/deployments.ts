/**
 * Deployments (apps/v1).
 *
 * Followed (v1.33): pkg/apis/apps/v1/defaults.go (SetDefaults_Deployment), pkg/registry/apps/deployment/
 * strategy.go (generation bump on spec or annotation change, selector immutable in apps/v1, status
 * strategy keeps spec and labels), pkg/apis/apps/validation/validation.go (ValidateDeploymentSpec,
 * ValidateDeploymentStrategy, ValidateRollingUpdateDeployment, ValidatePositiveIntOrPercent,
 * IsNotMoreThan100Percent, ValidateDeploymentStatus(Update)), pkg/registry/apps/deployment/storage/
 * storage.go (scale: status.selector is the selector's string form), pkg/printers/internalversion/
 * printers.go (printDeployment).
 *
 * Known difference: upstream prints an invalid int-or-percent as the Go struct
 * (`intstr.IntOrString{Type:1, IntVal:0, StrVal:"5"}`); here the JSON value (`"5"`, `0`) is shown.
 */
import { DEPLOYMENTS } from '../../../api/catalogue/index.js';
import type { Deployment, DeploymentSpec, DeploymentStrategy } from '../../../api/index.js';
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { regexError, validateNonnegativeField } from '../../../machinery/validation/index.js';
import { resourceInfo, type ResourceStrategy, type TableRowData } from '../strategy.js';
import { bumpGenerationIf, labelSelectorString, replicasScale, resetField, semanticDeepEqual, validateImmutableField, type ApiObject } from './helpers.js';
import { defaultPodTemplateSpec, validateSelectorAndTemplate } from './pod-template.js';
import { AGE_COLUMN, CONTAINERS_COLUMN, IMAGES_COLUMN, NAME_COLUMN, column, layoutContainerCells, translateTimestampSince } from './table-helpers.js';

type DeploymentObject = ApiObject<Deployment>;
type IntOrString = number | string;

/** `SetDefaults_Deployment` plus the pod template defaults. */
export function defaultDeployment(d: Deployment): void {
  // A spec without its required selector still gets defaults; validation then reports the selector.
  const spec = (d.spec ??= {} as DeploymentSpec);
  spec.replicas ??= 1;
  const strategy = (spec.strategy ??= {});
  strategy.type ||= 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const ru = (strategy.rollingUpdate ??= {});
    ru.maxUnavailable ??= '25%';
    ru.maxSurge ??= '25%';
  }
  spec.revisionHistoryLimit ??= 10;
  spec.progressDeadlineSeconds ??= 600;
  defaultPodTemplateSpec((spec.template ??= {}));
}

/** `validation.IsValidPercent`: `^[0-9]+%$`. */
function isValidPercent(v: string): string[] {
  return /^[0-9]+%$/.test(v) ? [] : [regexError("a valid percent string must be a numeric string followed by an ending '%'", '[0-9]+%', '1%', '93%')];
}

/** `getPercentValue`: the number of a valid percent string, else undefined. */
export function percentValue(v: IntOrString | undefined): number | undefined {
  return typeof v === 'string' && isValidPercent(v).length === 0 ? Number(v.slice(0, -1)) : undefined;
}

/** `getIntOrPercentValue`: a percent's number, an int, or a string's integer value (0 when not one, as Go's Atoi). */
export function intOrPercentValue(v: IntOrString | undefined): number {
  const pct = percentValue(v);
  if (pct !== undefined) return pct;
  if (typeof v === 'number') return v;
  return typeof v === 'string' && /^[+-]?[0-9]+$/.test(v) ? Number(v) : 0;
}

/** `ValidatePositiveIntOrPercent`: a string must be a valid percent, an int must be ≥ 0. */
export function validatePositiveIntOrPercent(v: IntOrString | undefined, path: string): FieldError[] {
  if (typeof v === 'string') return isValidPercent(v).map((msg) => field.invalid(path, v, msg));
  return validateNonnegativeField(v ?? 0, path);
}

/** `IsNotMoreThan100Percent`: a percent string above `100%` (`must not be greater than 100%`); ints pass. */
export function isNotMoreThan100Percent(v: IntOrString | undefined, path: string): FieldError[] {
  const pct = percentValue(v);
  return pct !== undefined && pct > 100 ? [field.invalid(path, v, 'must not be greater than 100%')] : [];
}

/** `ValidateDeploymentStrategy` with `ValidateRollingUpdateDeployment`. */
function validateDeploymentStrategy(strategy: DeploymentStrategy | undefined, path: string): FieldError[] {
  const s = strategy ?? {};
  switch (s.type) {
    case 'Recreate':
      return s.rollingUpdate ? [field.forbidden(`${path}.rollingUpdate`, "may not be specified when strategy `type` is 'Recreate'")] : [];
    case 'RollingUpdate': {
      const ru = s.rollingUpdate;
      if (!ru) return [field.required(`${path}.rollingUpdate`, 'this should be defaulted and never be nil')];
      const p = `${path}.rollingUpdate`;
      const errs = validatePositiveIntOrPercent(ru.maxUnavailable, `${p}.maxUnavailable`);
      errs.push(...validatePositiveIntOrPercent(ru.maxSurge, `${p}.maxSurge`));
      if (intOrPercentValue(ru.maxUnavailable) === 0 && intOrPercentValue(ru.maxSurge) === 0) {
        errs.push(field.invalid(`${p}.maxUnavailable`, ru.maxUnavailable ?? 0, 'may not be 0 when `maxSurge` is 0'));
      }
      errs.push(...isNotMoreThan100Percent(ru.maxUnavailable, `${p}.maxUnavailable`));
      return errs;
    }
    case undefined:
    default:
      return [field.notSupported(path, s, ['Recreate', 'RollingUpdate'])];
  }
}

/**
 * `ValidateDeploymentSpec`, in upstream's order: replicas ≥ 0; selector and template (see
 * validateSelectorAndTemplate); strategy; minReadySeconds ≥ 0; revisionHistoryLimit ≥ 0;
 * progressDeadlineSeconds ≥ 0 and > minReadySeconds (`must be greater than minReadySeconds`).
 */
export function validateDeploymentSpec(d: Deployment): FieldError[] {
  const spec = d.spec ?? ({} as Partial<DeploymentSpec>);
  const errs = validateNonnegativeField(spec.replicas ?? 0, 'spec.replicas');
  errs.push(...validateSelectorAndTemplate(spec.selector, spec.template, 'spec'));
  errs.push(...validateDeploymentStrategy(spec.strategy, 'spec.strategy'));
  const minReady = spec.minReadySeconds ?? 0;
  errs.push(...validateNonnegativeField(minReady, 'spec.minReadySeconds'));
  if (spec.revisionHistoryLimit !== undefined && spec.revisionHistoryLimit !== null) {
    errs.push(...validateNonnegativeField(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  }
  const pds = spec.progressDeadlineSeconds;
  if (pds !== undefined && pds !== null) {
    errs.push(...validateNonnegativeField(pds, 'spec.progressDeadlineSeconds'));
    if (pds <= minReady) errs.push(field.invalid('spec.progressDeadlineSeconds', pds, 'must be greater than minReadySeconds'));
  }
  return errs;
}

/** `IsDecremented` check of status.collisionCount. */
export function validateCollisionCount(now: number | undefined, old: number | undefined): FieldError[] {
  if (old === undefined || old === null) return [];
  if (now !== undefined && now !== null && now >= old) return [];
  return [field.invalid('status.collisionCount', now ?? 0, 'cannot be decremented')];
}

/** `ValidateDeploymentStatusUpdate`: counts ≥ 0, none above status.replicas, available ≤ ready, collisionCount not decremented. */
export function validateDeploymentStatusUpdate(d: Deployment, old: Deployment): FieldError[] {
  const s = d.status ?? {};
  const errs: FieldError[] = [];
  for (const k of ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas'] as const) {
    errs.push(...validateNonnegativeField(s[k] ?? 0, `status.${k}`));
  }
  if (s.collisionCount !== undefined && s.collisionCount !== null) errs.push(...validateNonnegativeField(s.collisionCount, 'status.collisionCount'));
  const replicas = s.replicas ?? 0;
  const msg = 'cannot be greater than status.replicas';
  for (const k of ['updatedReplicas', 'readyReplicas', 'availableReplicas'] as const) {
    if ((s[k] ?? 0) > replicas) errs.push(field.invalid(`status.${k}`, s[k] ?? 0, msg));
  }
  if ((s.availableReplicas ?? 0) > (s.readyReplicas ?? 0)) {
    errs.push(field.invalid('status.availableReplicas', s.availableReplicas ?? 0, 'cannot be greater than readyReplicas'));
  }
  errs.push(...validateCollisionCount(s.collisionCount, old.status?.collisionCount));
  return errs;
}

/** `printDeployment`: Name, `ready/desired`, Up-to-date, Available, Age, Containers, Images, Selector. */
export function printDeployment(d: Deployment, now: number): TableRowData {
  const [names, images] = layoutContainerCells(d.spec?.template?.spec?.containers);
  return {
    cells: [
      d.metadata?.name ?? '',
      `${d.status?.readyReplicas ?? 0}/${d.spec?.replicas ?? 0}`,
      d.status?.updatedReplicas ?? 0,
      d.status?.availableReplicas ?? 0,
      translateTimestampSince(d.metadata?.creationTimestamp, now),
      names,
      images,
      labelSelectorString(d.spec?.selector),
    ],
  };
}

/** The deployments strategy. */
export const deploymentStrategy: ResourceStrategy<DeploymentObject> = {
  info: resourceInfo(DEPLOYMENTS),
  hasStatus: true,
  defaults: defaultDeployment,
  prepareForCreate(d) {
    d.status = {};
    (d.metadata ??= {}).generation = 1;
  },
  prepareForUpdate(d, old) {
    d.status = old.status ?? {};
    // Spec changes tell template changes from scaling; annotations are copied to the ReplicaSets.
    const changed = !semanticDeepEqual(d.spec, old.spec) || !semanticDeepEqual(d.metadata?.annotations, old.metadata?.annotations);
    bumpGenerationIf(d, old, changed);
  },
  prepareForStatusUpdate(d, old) {
    d.spec = old.spec;
    const meta = (d.metadata ??= {});
    resetField(meta, old.metadata, 'labels');
  },
  validate: validateDeploymentSpec,
  validateUpdate: (d, old) => [
    ...validateDeploymentSpec(d),
    ...validateImmutableField(d.spec?.selector, old.spec?.selector, 'spec.selector'),
  ],
  validateStatusUpdate: validateDeploymentStatusUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
  table: {
    columns: [
      NAME_COLUMN,
      column('Ready', 'string', 'Number of the pod with ready state'),
      column('Up-to-date', 'string', 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.'),
      column('Available', 'string', 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.'),
      AGE_COLUMN,
      CONTAINERS_COLUMN,
      IMAGES_COLUMN,
      column('Selector', 'string', 'Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.', 1),
    ],
    row: printDeployment,
  },
  scale: replicasScale,
};
