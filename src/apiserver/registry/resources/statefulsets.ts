/**
 * StatefulSets (apps/v1), served with their status and scale subresources. Nothing acts on them
 * yet: the StatefulSet controller (pods `<name>-<ordinal>`, their claims, revisions, status) is a
 * later issue and only adds a controller; this strategy is what it will write through.
 *
 * Followed (v1.33): pkg/apis/apps/v1/defaults.go (SetDefaults_StatefulSet; MaxUnavailableStatefulSet
 * is alpha and off by default — `--feature-gates=MaxUnavailableStatefulSet=true` defaults maxUnavailable
 * to 1 and keeps it), zz_generated.defaults.go (pod template defaults;
 * each volumeClaimTemplate gets core/v1 SetDefaults_PersistentVolumeClaim and
 * SetDefaults_PersistentVolumeClaimSpec), pkg/apis/apps/v1/conversion.go (claim templates carry
 * `apiVersion: v1, kind: PersistentVolumeClaim`), pkg/registry/apps/statefulset/strategy.go (status
 * reset on create, kept on update; generation bumps on spec change; `rollingUpdate.maxUnavailable`
 * dropped while the gate is off unless the stored object uses it; the status strategy keeps spec),
 * pkg/apis/apps/validation/validation.go (ValidateStatefulSetName: a DNS label; ValidateStatefulSetSpec,
 * ValidatePodTemplateSpecForStatefulSet, validateRollingUpdateStatefulSet,
 * ValidatePersistentVolumeClaimRetentionPolicy, ValidateStatefulSetUpdate, ValidateStatefulSetStatus(Update)),
 * kubernetes PR #130233 (1.33: `spec.serviceName`, when set, must be a DNS label),
 * pkg/registry/apps/statefulset/storage/storage.go (scale), pkg/printers/internalversion/printers.go
 * (printStatefulSet).
 *
 * As upstream, the template's PodSpec itself is not validated (only its labels, annotations,
 * restartPolicy and activeDeadlineSeconds; kubernetes issue #81147), nor are the claim templates.
 * Not done: ValidatePodSpecificAnnotations, and the warnings upstream returns on create/update.
 */
import { STATEFUL_SETS } from '../../../api/catalogue/index.js';
import type { PersistentVolumeClaim, StatefulSet, StatefulSetSpec } from '../../../api/index.js';
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { defaultFeatureGate } from '../../../machinery/featuregate/index.js';
import { selectorFromLabelSelector, type Selector } from '../../../machinery/labels/index.js';
import { isDNS1123Label, isDNS1123Subdomain, validateAnnotations, validateLabelSelector, validateLabels, validateNonnegativeField } from '../../../machinery/validation/index.js';
import { resourceInfo, type ResourceStrategy, type TableRowData } from '../strategy.js';
import { intOrPercentValue, percentValue, validateCollisionCount, validatePositiveIntOrPercent } from './deployments.js';
import { replicasScale, semanticDeepEqual, specStatusPreparation, type ApiObject } from './helpers.js';
import { defaultPodTemplateSpec } from './pod-template.js';
import { AGE_COLUMN, CONTAINERS_COLUMN, IMAGES_COLUMN, NAME_COLUMN, column, layoutContainerCells, translateTimestampSince } from './table-helpers.js';

type StatefulSetObject = ApiObject<StatefulSet>;
type RollingUpdate = NonNullable<NonNullable<StatefulSetSpec['updateStrategy']>['rollingUpdate']>;

/** The fields ValidateStatefulSetUpdate lets an update change. */
const MUTABLE_SPEC_FIELDS = ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'] as const;
const FORBIDDEN_UPDATE_MSG =
  "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";

/** core/v1 SetDefaults_PersistentVolumeClaim(Spec) on a claim template, with the TypeMeta apps/v1 conversion writes. */
function defaultClaimTemplate(pvc: PersistentVolumeClaim): void {
  const t = pvc as ApiObject<PersistentVolumeClaim>;
  t.apiVersion ||= 'v1';
  t.kind ||= 'PersistentVolumeClaim';
  const spec = (t.spec ??= {});
  spec.volumeMode ??= 'Filesystem';
  const status = (t.status ??= {});
  status.phase ||= 'Pending';
}

/**
 * `SetDefaults_StatefulSet` plus the generated nested defaults: podManagementPolicy OrderedReady;
 * updateStrategy RollingUpdate with `rollingUpdate: {partition: 0}` when no type was given (a given
 * RollingUpdate without rollingUpdate stays so); PVC retention Retain/Retain; replicas 1;
 * revisionHistoryLimit 10; pod template and claim template defaults. `serviceName` has no omitempty,
 * so Go writes `""` for an absent one.
 */
export function defaultStatefulSet(sts: StatefulSet): void {
  const spec = (sts.spec ??= {} as StatefulSetSpec);
  spec.podManagementPolicy ||= 'OrderedReady';
  const strategy = (spec.updateStrategy ??= {});
  if (!strategy.type) {
    strategy.type = 'RollingUpdate';
    strategy.rollingUpdate ??= {};
  }
  if (strategy.type === 'RollingUpdate' && strategy.rollingUpdate) {
    strategy.rollingUpdate.partition ??= 0;
    if (defaultFeatureGate.enabled('MaxUnavailableStatefulSet')) strategy.rollingUpdate.maxUnavailable ??= 1;
  }
  const retention = (spec.persistentVolumeClaimRetentionPolicy ??= {});
  retention.whenDeleted ||= 'Retain';
  retention.whenScaled ||= 'Retain';
  spec.replicas ??= 1;
  spec.revisionHistoryLimit ??= 10;
  spec.serviceName ??= '';
  defaultPodTemplateSpec((spec.template ??= {}));
  for (const pvc of spec.volumeClaimTemplates ?? []) defaultClaimTemplate(pvc);
}

/** `validateRollingUpdateStatefulSet`: partition ≥ 0; maxUnavailable a positive int or percent, not 0, at most 100%. */
function validateRollingUpdate(ru: RollingUpdate, path: string): FieldError[] {
  const errs = validateNonnegativeField(ru.partition ?? 0, `${path}.partition`);
  const mu = ru.maxUnavailable;
  if (mu !== undefined && mu !== null) {
    const p = `${path}.maxUnavailable`;
    errs.push(...validatePositiveIntOrPercent(mu, p));
    if (intOrPercentValue(mu) === 0) errs.push(field.invalid(p, mu, 'cannot be 0'));
    const pct = percentValue(mu);
    if (pct !== undefined && pct > 100) errs.push(field.invalid(p, mu, 'must not be greater than 100%'));
  }
  return errs;
}

/** The podManagementPolicy and updateStrategy checks of ValidateStatefulSetSpec. */
function validatePolicies(spec: Partial<StatefulSetSpec>): FieldError[] {
  const errs: FieldError[] = [];
  const policy = spec.podManagementPolicy ?? '';
  if (policy === '') errs.push(field.required('spec.podManagementPolicy'));
  else if (policy !== 'OrderedReady' && policy !== 'Parallel') {
    errs.push(field.invalid('spec.podManagementPolicy', policy, "must be 'OrderedReady' or 'Parallel'"));
  }
  const strategy = spec.updateStrategy ?? {};
  switch (strategy.type ?? '') {
    case '':
      errs.push(field.required('spec.updateStrategy'));
      break;
    case 'OnDelete':
      if (strategy.rollingUpdate) {
        errs.push(field.invalid('spec.updateStrategy.rollingUpdate', strategy.rollingUpdate, "only allowed for updateStrategy 'RollingUpdate'"));
      }
      break;
    case 'RollingUpdate':
      if (strategy.rollingUpdate) errs.push(...validateRollingUpdate(strategy.rollingUpdate, 'spec.updateStrategy.rollingUpdate'));
      break;
    default:
      errs.push(field.invalid('spec.updateStrategy', strategy, "must be 'RollingUpdate' or 'OnDelete'"));
  }
  const retention = spec.persistentVolumeClaimRetentionPolicy;
  if (retention) {
    for (const k of ['whenDeleted', 'whenScaled'] as const) {
      const v = retention[k] ?? '';
      if (v !== 'Retain' && v !== 'Delete') errs.push(field.notSupported(`spec.persistentVolumeClaimRetentionPolicy.${k}`, v, ['Retain', 'Delete']));
    }
  }
  return errs;
}

/** The selector and template checks of ValidateStatefulSetSpec (ValidatePodTemplateSpecForStatefulSet). */
function validateSelectorAndTemplate(spec: Partial<StatefulSetSpec>): FieldError[] {
  const errs: FieldError[] = [];
  const sel = spec.selector;
  if (!sel) errs.push(field.required('spec.selector'));
  else {
    errs.push(...validateLabelSelector(sel, 'spec.selector'));
    if (Object.keys(sel.matchLabels ?? {}).length + (sel.matchExpressions ?? []).length === 0) {
      errs.push(field.invalid('spec.selector', sel, 'empty selector is invalid for statefulset'));
    }
  }
  let selector: Selector | undefined;
  try {
    selector = selectorFromLabelSelector(sel);
  } catch {
    errs.push(field.invalid('spec.selector', sel, ''));
  }
  const template = spec.template ?? {};
  if (selector) {
    // A missing selector matches nothing, so it is also reported as not matching; an empty one is skipped.
    const labels = template.metadata?.labels ?? {};
    if (!selector.empty() && !selector.matches(labels)) {
      errs.push(field.invalid('spec.template.metadata.labels', labels, '`selector` does not match template `labels`'));
    }
    errs.push(...validateLabels(template.metadata?.labels, 'spec.template.labels'));
    errs.push(...validateAnnotations(template.metadata?.annotations, 'spec.template.annotations'));
  }
  const restartPolicy = template.spec?.restartPolicy ?? '';
  if (restartPolicy !== 'Always') errs.push(field.notSupported('spec.template.spec.restartPolicy', restartPolicy, ['Always']));
  if (template.spec?.activeDeadlineSeconds !== undefined && template.spec.activeDeadlineSeconds !== null) {
    errs.push(field.forbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in StatefulSet is not Supported'));
  }
  return errs;
}

/**
 * `ValidateStatefulSetSpec`, in upstream's order: podManagementPolicy, updateStrategy, PVC retention
 * policy, replicas, minReadySeconds and ordinals.start ≥ 0, serviceName, selector and template.
 */
export function validateStatefulSetSpec(sts: StatefulSet): FieldError[] {
  const spec = sts.spec ?? ({} as Partial<StatefulSetSpec>);
  const errs = validatePolicies(spec);
  errs.push(...validateNonnegativeField(spec.replicas ?? 0, 'spec.replicas'));
  errs.push(...validateNonnegativeField(spec.minReadySeconds ?? 0, 'spec.minReadySeconds'));
  if (spec.ordinals) errs.push(...validateNonnegativeField(spec.ordinals.start ?? 0, 'spec.ordinals.start'));
  if (spec.serviceName) {
    for (const msg of isDNS1123Label(spec.serviceName)) errs.push(field.invalid('spec.serviceName', spec.serviceName, msg));
  }
  errs.push(...validateSelectorAndTemplate(spec));
  return errs;
}

/**
 * `ValidateStatefulSet` without the generic ObjectMeta checks: the spec, and the name must be a DNS
 * label (pods are named `<name>-<ordinal>` and get it as hostname); reported only when it is a valid
 * subdomain, since the store already reports subdomain violations.
 */
export function validateStatefulSet(sts: StatefulSet): FieldError[] {
  const errs: FieldError[] = [];
  const name = sts.metadata?.name ?? '';
  if (name && isDNS1123Subdomain(name).length === 0) {
    for (const msg of isDNS1123Label(name)) errs.push(field.invalid('metadata.name', name, msg));
  }
  return [...errs, ...validateStatefulSetSpec(sts)];
}

/**
 * `ValidateStatefulSetUpdate`: the new spec is valid, and nothing but the mutable fields changed
 * (`spec: Forbidden: updates to statefulset spec for fields other than …`). The name is not
 * re-validated (older names may be subdomains).
 */
export function validateStatefulSetUpdate(sts: StatefulSet, old: StatefulSet): FieldError[] {
  const errs = validateStatefulSetSpec(sts);
  const rest = { ...sts.spec } as Record<string, unknown>;
  const oldRest = { ...old.spec } as Record<string, unknown>;
  for (const k of MUTABLE_SPEC_FIELDS) {
    delete rest[k];
    delete oldRest[k];
  }
  if (!semanticDeepEqual(rest, oldRest)) errs.push(field.forbidden('spec', FORBIDDEN_UPDATE_MSG));
  return errs;
}

/** `ValidateStatefulSetStatusUpdate`: counts ≥ 0, none above status.replicas, available ≤ ready, collisionCount not decremented. */
export function validateStatefulSetStatusUpdate(sts: StatefulSet, old: StatefulSet): FieldError[] {
  const s = sts.status ?? { replicas: 0 };
  const errs: FieldError[] = [];
  for (const k of ['replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas', 'observedGeneration', 'collisionCount'] as const) {
    errs.push(...validateNonnegativeField(s[k] ?? 0, `status.${k}`));
  }
  const replicas = s.replicas ?? 0;
  for (const k of ['readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas'] as const) {
    if ((s[k] ?? 0) > replicas) errs.push(field.invalid(`status.${k}`, s[k] ?? 0, 'cannot be greater than status.replicas'));
  }
  if ((s.availableReplicas ?? 0) > (s.readyReplicas ?? 0)) {
    errs.push(field.invalid('status.availableReplicas', s.availableReplicas ?? 0, 'cannot be greater than status.readyReplicas'));
  }
  errs.push(...validateCollisionCount(s.collisionCount, old.status?.collisionCount));
  return errs;
}

/** `dropStatefulSetDisabledFields`: while MaxUnavailableStatefulSet is off, a new maxUnavailable is dropped unless the stored object has one. */
function dropDisabledFields(sts: StatefulSetObject, old: StatefulSet | undefined): void {
  if (defaultFeatureGate.enabled('MaxUnavailableStatefulSet')) return;
  const inUse = old?.spec?.updateStrategy?.rollingUpdate?.maxUnavailable !== undefined;
  const ru = sts.spec?.updateStrategy?.rollingUpdate;
  if (ru && !inUse) delete ru.maxUnavailable;
}

/** `printStatefulSet`: Name, Ready (`ready/desired`), Age; wide: Containers, Images. */
export function printStatefulSet(sts: StatefulSet, now: number): TableRowData {
  const [names, images] = layoutContainerCells(sts.spec?.template?.spec?.containers);
  return {
    cells: [
      sts.metadata?.name ?? '',
      `${sts.status?.readyReplicas ?? 0}/${sts.spec?.replicas ?? 0}`,
      translateTimestampSince(sts.metadata?.creationTimestamp, now),
      names,
      images,
    ],
  };
}

/** The status a new StatefulSet starts with: Go serializes the two non-omitempty counts as 0. */
function initialStatus(): NonNullable<StatefulSet['status']> {
  return { replicas: 0, availableReplicas: 0 };
}

const preparation = specStatusPreparation<NonNullable<StatefulSet['status']>, StatefulSetObject>(initialStatus);

/** The statefulsets strategy. */
export const statefulSetStrategy: ResourceStrategy<StatefulSetObject> = {
  info: resourceInfo(STATEFUL_SETS),
  hasStatus: true,
  defaults: defaultStatefulSet,
  ...preparation,
  prepareForCreate(sts, now) {
    preparation.prepareForCreate(sts, now);
    dropDisabledFields(sts, undefined);
  },
  prepareForUpdate(sts, old) {
    dropDisabledFields(sts, old);
    preparation.prepareForUpdate(sts, old);
  },
  validate: validateStatefulSet,
  validateUpdate: validateStatefulSetUpdate,
  validateStatusUpdate: validateStatefulSetStatusUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
  table: {
    columns: [NAME_COLUMN, column('Ready', 'string', 'Number of the pod with ready state'), AGE_COLUMN, CONTAINERS_COLUMN, IMAGES_COLUMN],
    row: printStatefulSet,
  },
  scale: replicasScale,
};
