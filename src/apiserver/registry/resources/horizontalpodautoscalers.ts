/**
 * HorizontalPodAutoscalers (autoscaling/v2, stored; autoscaling/v1 is a view, see hpa-conversion.ts).
 * The HPA controller is src/controller/podautoscaler.
 *
 * Followed (v1.33): pkg/apis/autoscaling/v2/defaults.go (SetDefaults_HorizontalPodAutoscaler,
 * GenerateHPAScaleUpRules, GenerateHPAScaleDownRules), pkg/registry/autoscaling/horizontalpodautoscaler/
 * strategy.go (status reset on create, generation bump on spec change, status strategy keeps spec),
 * pkg/apis/autoscaling/validation/validation.go (ValidateHorizontalPodAutoscaler(Update),
 * ValidateHorizontalPodAutoscalerStatusUpdate, with HPAScaleToZero off as by default), and
 * pkg/printers/internalversion/printers.go (printHorizontalPodAutoscaler, formatHPAMetrics).
 *
 * Known difference: quantities in the TARGETS column are printed as stored (upstream prints their
 * canonical form, which the API server stores anyway for quantities it decoded).
 */
import { HORIZONTAL_POD_AUTOSCALERS } from '../../../api/catalogue/index.js';
import type { HorizontalPodAutoscaler } from '../../../api/index.js';
import type { HPAScalingRules, MetricSpec, MetricStatus, MetricTarget } from 'kubernetes-types/autoscaling/v2.js';
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { parseQuantity } from '../../../machinery/quantity/index.js';
import { isDNS1123Label, isValidPathSegmentName, validateNonnegativeField } from '../../../machinery/validation/index.js';
import { resourceInfo, type ResourceStrategy } from '../strategy.js';
import { bumpGenerationIf, resetField, semanticDeepEqual, type ApiObject } from './helpers.js';
import { AGE_COLUMN, NAME_COLUMN, column, translateTimestampSince } from './table-helpers.js';

type HPAObject = ApiObject<HorizontalPodAutoscaler>;

/** `autoscaling.DefaultCPUUtilization`: the target of an HPA that names no metric. */
export const DEFAULT_CPU_UTILIZATION = 80;
/** `MaxPeriodSeconds` and `MaxStabilizationWindowSeconds` of the validation. */
const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;

/** The CPU-utilization metric an HPA without metrics gets (v2 defaulting, v1 conversion). */
export function defaultCpuMetric(utilization = DEFAULT_CPU_UTILIZATION): MetricSpec {
  return { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: utilization } } };
}

/**
 * `GenerateHPAScaleUpRules` / `GenerateHPAScaleDownRules`: the rules with their unset fields defaulted —
 * except scale-down's stabilizationWindowSeconds, which stays unset so that the controller's
 * `--horizontal-pod-autoscaler-downscale-stabilization` (5 min by default) applies (defaults.go,
 * `defaultHPAScaleDownRules`).
 */
function defaultScalingRules(rules: HPAScalingRules | undefined, up: boolean): HPAScalingRules {
  const out: HPAScalingRules = { ...rules };
  if (up) out.stabilizationWindowSeconds ??= 0;
  out.selectPolicy ??= 'Max';
  if (!out.policies || out.policies.length === 0) {
    out.policies = up
      ? [
          { type: 'Pods', value: 4, periodSeconds: 15 },
          { type: 'Percent', value: 100, periodSeconds: 15 },
        ]
      : [{ type: 'Percent', value: 100, periodSeconds: 15 }];
  }
  return out;
}

/** `SetDefaults_HorizontalPodAutoscaler`: minReplicas 1, the CPU metric, and a given behavior completed. */
export function defaultHorizontalPodAutoscaler(hpa: HorizontalPodAutoscaler): void {
  const spec = (hpa.spec ??= { maxReplicas: 0, scaleTargetRef: { kind: '', name: '' } });
  spec.minReplicas ??= 1;
  if (!spec.metrics || spec.metrics.length === 0) spec.metrics = [defaultCpuMetric()];
  if (spec.behavior) spec.behavior = { scaleUp: defaultScalingRules(spec.behavior.scaleUp, true), scaleDown: defaultScalingRules(spec.behavior.scaleDown, false) };
}

// ---------------------------------------------------------------------------------------------
// Validation

function validatePathSegment(value: string | undefined, path: string, required: string): FieldError[] {
  if (!value) return [field.required(path, required)];
  return isValidPathSegmentName(value).map((msg) => field.invalid(path, value, msg));
}

/** `ValidateCrossVersionObjectReference`. */
function validateCrossVersionObjectReference(ref: { kind?: string; name?: string } | undefined, path: string): FieldError[] {
  return [...validatePathSegment(ref?.kind, `${path}.kind`, ''), ...validatePathSegment(ref?.name, `${path}.name`, '')];
}

/** True for a quantity above zero; false for zero, negative, or one that does not parse (the decoder rejects those first). */
function isPositive(q: string | number): boolean {
  try {
    return parseQuantity(q).milliValue() > 0;
  } catch {
    return false;
  }
}

/** `validateMetricTarget`. */
function validateMetricTarget(t: MetricTarget | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = t?.type ?? '';
  if (!type) errs.push(field.required(`${path}.type`, 'must specify a metric target type'));
  if (type !== 'Utilization' && type !== 'Value' && type !== 'AverageValue') {
    errs.push(field.invalid(`${path}.type`, type, 'must be either Utilization, Value, or AverageValue'));
  }
  if (t?.value != null && !isPositive(t.value)) errs.push(field.invalid(`${path}.value`, t.value, 'must be positive'));
  if (t?.averageValue != null && !isPositive(t.averageValue)) errs.push(field.invalid(`${path}.averageValue`, t.averageValue, 'must be positive'));
  if (t?.averageUtilization != null && t.averageUtilization < 1) errs.push(field.invalid(`${path}.averageUtilization`, t.averageUtilization, 'must be greater than 0'));
  return errs;
}

/** `validateMetricIdentifier`. */
function validateMetricIdentifier(name: string | undefined, path: string): FieldError[] {
  return validatePathSegment(name, `${path}.name`, 'must specify a metric name');
}

/** The utilization-or-value rule of Resource and ContainerResource sources. */
function validateUtilizationOrValue(t: MetricTarget | undefined, path: string): FieldError[] {
  if (t?.averageUtilization == null && t?.averageValue == null) {
    return [field.required(`${path}.averageUtilization`, 'must set either a target raw value or a target utilization')];
  }
  if (t.averageUtilization != null && t.averageValue != null) {
    return [field.forbidden(`${path}.averageValue`, 'may not set both a target raw value and a target utilization')];
  }
  return [];
}

const METRIC_SOURCES = ['object', 'external', 'pods', 'resource', 'containerResource'] as const;
const METRIC_TYPES: Record<string, (typeof METRIC_SOURCES)[number]> = {
  Object: 'object',
  Pods: 'pods',
  Resource: 'resource',
  External: 'external',
  ContainerResource: 'containerResource',
};
const METRIC_TYPE_NAMES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];

/** The source-specific checks of one populated metric source (`validate<Kind>Source`). */
function validateMetricSource(metric: MetricSpec, source: (typeof METRIC_SOURCES)[number], path: string): FieldError[] {
  const target = `${path}.target`;
  switch (source) {
    case 'object': {
      const src = metric.object;
      const errs = [...validateCrossVersionObjectReference(src?.describedObject, `${path}.describedObject`), ...validateMetricIdentifier(src?.metric?.name, `${path}.metric`), ...validateMetricTarget(src?.target, target)];
      if (src?.target?.value == null && src?.target?.averageValue == null) errs.push(field.required(`${target}.averageValue`, 'must set either a target value or averageValue'));
      return errs;
    }
    case 'external': {
      const t = metric.external?.target;
      const errs = [...validateMetricIdentifier(metric.external?.metric?.name, `${path}.metric`), ...validateMetricTarget(t, target)];
      if (t?.value == null && t?.averageValue == null) errs.push(field.required(`${target}.averageValue`, 'must set either a target value for metric or a per-pod target'));
      if (t?.value != null && t.averageValue != null) errs.push(field.forbidden(`${target}.value`, 'may not set both a target value for metric and a per-pod target'));
      return errs;
    }
    case 'pods': {
      const t = metric.pods?.target;
      const errs = [...validateMetricIdentifier(metric.pods?.metric?.name, `${path}.metric`), ...validateMetricTarget(t, target)];
      if (t?.averageValue == null) errs.push(field.required(`${target}.averageValue`, 'must specify a positive target averageValue'));
      return errs;
    }
    case 'resource': {
      const src = metric.resource;
      const errs = src?.name ? [] : [field.required(`${path}.name`, 'must specify a resource name')];
      return [...errs, ...validateMetricTarget(src?.target, target), ...validateUtilizationOrValue(src?.target, target)];
    }
    case 'containerResource': {
      const src = metric.containerResource;
      const errs = src?.name ? [] : [field.required(`${path}.name`, 'must specify a resource name')];
      if (!src?.container) errs.push(field.required(`${path}.container`, 'must specify a container'));
      else errs.push(...isDNS1123Label(src.container).map((msg) => field.invalid(`${path}.container`, src.container, msg)));
      return [...errs, ...validateMetricTarget(src?.target, target), ...validateUtilizationOrValue(src?.target, target)];
    }
  }
}

/** `validateMetricSpec`: a known type, its source populated, no other source, the source valid. */
function validateMetricSpec(metric: MetricSpec, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const type = metric.type ?? '';
  if (!type) errs.push(field.required(`${path}.type`, 'must specify a metric source type'));
  const expected = METRIC_TYPES[type];
  if (!expected) errs.push(field.notSupported(`${path}.type`, type, METRIC_TYPE_NAMES));
  const present = METRIC_SOURCES.filter((s) => metric[s] != null);
  // Only the first populated source is validated, as upstream's typesPresent.Len() == 1 checks do.
  const first = present[0];
  if (first) errs.push(...validateMetricSource(metric, first, `${path}.${first}`));
  if (expected && metric[expected] == null) errs.push(field.required(`${path}.${expected}`, 'must populate information for the given metric source'));
  // Upstream's switch reports an unknown type a second time.
  if (expected === undefined) errs.push(field.notSupported(`${path}.type`, type, METRIC_TYPE_NAMES));
  if (present.length !== 1) {
    for (const s of present) if (s !== expected) errs.push(field.forbidden(`${path}.${s}`, 'must populate the given metric source only'));
  }
  return errs;
}

/** `validateScalingRules`. */
function validateScalingRules(rules: HPAScalingRules | undefined, path: string): FieldError[] {
  if (!rules) return [];
  const errs: FieldError[] = [];
  const window = rules.stabilizationWindowSeconds;
  if (window != null && window < 0) errs.push(field.invalid(`${path}.stabilizationWindowSeconds`, window, 'must be greater than or equal to zero'));
  if (window != null && window > MAX_STABILIZATION_WINDOW_SECONDS) {
    errs.push(field.invalid(`${path}.stabilizationWindowSeconds`, window, `must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`));
  }
  if (rules.selectPolicy != null && !['Disabled', 'Max', 'Min'].includes(rules.selectPolicy)) {
    errs.push(field.notSupported(`${path}.selectPolicy`, rules.selectPolicy, ['Disabled', 'Max', 'Min']));
  }
  if (!rules.policies || rules.policies.length === 0) errs.push(field.required(`${path}.policies`, 'must specify at least one Policy'));
  (rules.policies ?? []).forEach((policy, i) => {
    const pp = `${path}.policies[${i}]`;
    // Go's int32 fields are 0 when absent.
    const p = { type: policy.type, value: policy.value ?? 0, periodSeconds: policy.periodSeconds ?? 0 };
    if (p.type !== 'Pods' && p.type !== 'Percent') errs.push(field.notSupported(`${pp}.type`, p.type, ['Percent', 'Pods']));
    if (p.value <= 0) errs.push(field.invalid(`${pp}.value`, p.value, 'must be greater than zero'));
    if (p.periodSeconds <= 0) errs.push(field.invalid(`${pp}.periodSeconds`, p.periodSeconds, 'must be greater than zero'));
    if (p.periodSeconds > MAX_PERIOD_SECONDS) errs.push(field.invalid(`${pp}.periodSeconds`, p.periodSeconds, `must be less than or equal to ${MAX_PERIOD_SECONDS}`));
  });
  return errs;
}

/** `validateHorizontalPodAutoscalerSpec` with `minReplicas` at least `minReplicasLowerBound`. */
function validateSpec(hpa: HorizontalPodAutoscaler, minReplicasLowerBound: number): FieldError[] {
  const spec = hpa.spec;
  const errs: FieldError[] = [];
  const min = spec?.minReplicas;
  const max = spec?.maxReplicas ?? 0;
  if (min != null && min < minReplicasLowerBound) errs.push(field.invalid('spec.minReplicas', min, `must be greater than or equal to ${minReplicasLowerBound}`));
  if (max < 1) errs.push(field.invalid('spec.maxReplicas', max, 'must be greater than 0'));
  if (min != null && max < min) errs.push(field.invalid('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
  errs.push(...validateCrossVersionObjectReference(spec?.scaleTargetRef, 'spec.scaleTargetRef'));
  (spec?.metrics ?? []).forEach((m, i) => errs.push(...validateMetricSpec(m, `spec.metrics[${i}]`)));
  errs.push(...validateScalingRules(spec?.behavior?.scaleUp, 'spec.behavior.scaleUp'), ...validateScalingRules(spec?.behavior?.scaleDown, 'spec.behavior.scaleDown'));
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Printer

/** One metric of the TARGETS column, e.g. `cpu: 35%/80%`, `cpu: <unknown>/80%`, `<unknown>/10 (avg)`. */
function formatMetric(spec: MetricSpec, status: MetricStatus | undefined): string {
  const unknown = '<unknown>';
  const str = (q: string | number | undefined): string => (q === undefined ? unknown : String(q));
  const utilization = (name: string, target: MetricTarget | undefined, current: number | undefined): string =>
    `${name}: ${current === undefined ? unknown : `${current}%`}/${target?.averageUtilization == null ? '<auto>' : `${target.averageUtilization}%`}`;
  switch (spec.type) {
    case 'External': {
      const t = spec.external?.target;
      const cur = status?.external?.current;
      return t?.averageValue != null ? `${str(cur?.averageValue)}/${str(t.averageValue)} (avg)` : `${str(cur?.value)}/${str(t?.value)}`;
    }
    case 'Pods':
      return `${str(status?.pods?.current?.averageValue)}/${str(spec.pods?.target?.averageValue)}`;
    case 'Object': {
      const t = spec.object?.target;
      const cur = status?.object?.current;
      return t?.averageValue != null ? `${str(cur?.averageValue)}/${str(t.averageValue)} (avg)` : `${str(cur?.value)}/${str(t?.value)}`;
    }
    case 'Resource': {
      const src = spec.resource;
      if (!src) return '<unknown type>';
      if (src.target?.averageValue != null) return `${src.name}: ${str(status?.resource?.current?.averageValue)}/${str(src.target?.averageValue)}`;
      return utilization(src.name, src.target, status?.resource?.current?.averageUtilization);
    }
    case 'ContainerResource': {
      const src = spec.containerResource;
      if (!src) return '<unknown type>';
      if (src.target?.averageValue != null) return `${src.name}: ${str(status?.containerResource?.current?.averageValue)}/${str(src.target?.averageValue)}`;
      return utilization(src.name, src.target, status?.containerResource?.current?.averageUtilization);
    }
    default:
      return '<unknown type>';
  }
}

/** `formatHPAMetrics`: the first two metrics, then `+ N more...`; `<none>` without metrics. */
export function formatHPAMetrics(specs: readonly MetricSpec[] | undefined, statuses: readonly MetricStatus[] | undefined): string {
  if (!specs || specs.length === 0) return '<none>';
  const list = specs.map((s, i) => formatMetric(s, statuses?.[i]));
  return list.length > 2 ? `${list.slice(0, 2).join(', ')} + ${list.length - 2} more...` : list.join(', ');
}

/** The HorizontalPodAutoscaler strategy (autoscaling/v2). */
export const horizontalPodAutoscalerStrategy: ResourceStrategy<HPAObject> = {
  info: resourceInfo(HORIZONTAL_POD_AUTOSCALERS),
  hasStatus: true,
  defaults: defaultHorizontalPodAutoscaler,
  prepareForCreate(hpa) {
    hpa.status = { desiredReplicas: 0 };
    (hpa.metadata ??= {}).generation = 1;
  },
  prepareForUpdate(hpa, old) {
    resetField(hpa, old, 'status');
    bumpGenerationIf(hpa, old, !semanticDeepEqual(hpa.spec, old.spec));
  },
  prepareForStatusUpdate(hpa, old) {
    resetField(hpa, old, 'spec');
  },
  validate: (hpa) => validateSpec(hpa, 1),
  // An HPA that already has minReplicas 0 may keep it (HPAScaleToZero off).
  validateUpdate: (hpa, old) => validateSpec(hpa, old.spec?.minReplicas === 0 ? 0 : 1),
  validateStatusUpdate: (hpa) => [
    ...validateNonnegativeField(hpa.status?.currentReplicas ?? 0, 'status.currentReplicas'),
    ...validateNonnegativeField(hpa.status?.desiredReplicas ?? 0, 'status.desiredReplicas'),
  ],
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  defaultGarbageCollectionPolicy: 'Background',
  fieldSelectors: {},
  table: {
    columns: [
      NAME_COLUMN,
      column('Reference', 'string', 'scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.'),
      column('Targets', 'string', 'metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).'),
      column('MinPods', 'string', 'minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.'),
      column('MaxPods', 'integer', 'maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up.'),
      column('Replicas', 'integer', 'currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.'),
      AGE_COLUMN,
    ],
    row: (hpa, now) => ({
      cells: [
        hpa.metadata?.name ?? '',
        `${hpa.spec?.scaleTargetRef?.kind ?? ''}/${hpa.spec?.scaleTargetRef?.name ?? ''}`,
        formatHPAMetrics(hpa.spec?.metrics, hpa.status?.currentMetrics),
        hpa.spec?.minReplicas == null ? '<unset>' : String(hpa.spec.minReplicas),
        hpa.spec?.maxReplicas ?? 0,
        hpa.status?.currentReplicas ?? 0,
        translateTimestampSince(hpa.metadata?.creationTimestamp, now),
      ],
    }),
  },
};
