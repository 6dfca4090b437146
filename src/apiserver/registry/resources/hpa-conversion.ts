/**
 * autoscaling/v1 HorizontalPodAutoscaler as a view of the stored autoscaling/v2 one
 * (pkg/apis/autoscaling/v1/conversion.go). v1 has one metric, `targetCPUUtilizationPercentage`;
 * everything else v2 holds travels in annotations, so that a v1 client that reads, changes and
 * writes an HPA keeps what it cannot see:
 * - `autoscaling.alpha.kubernetes.io/metrics`: the metrics other than CPU utilization, as v1's
 *   (v2beta1-shaped) MetricSpec list, e.g. `[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10"}}]`;
 * - `…/current-metrics`: every current metric, as v1 MetricStatus list;
 * - `…/conditions`: the status conditions;
 * - `…/behavior`: spec.behavior, encoded (as upstream does) from the internal type, whose JSON
 *   field names are Go's: `{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[…]},…}`.
 * Reading v1 back removes these annotations and restores the fields; an HPA with no metric at all
 * gets the CPU 80% one, as the v1 API always implied.
 *
 * Known difference: the 1.33 alpha `tolerance` of scaling rules (HPAConfigurableTolerance, off by
 * default) is not carried in the behavior annotation.
 */
import type { KubeObject } from '../../../api/index.js';
import type {
  HorizontalPodAutoscaler,
  HorizontalPodAutoscalerBehavior,
  HorizontalPodAutoscalerCondition,
  HPAScalingRules,
  MetricSpec,
  MetricStatus,
} from 'kubernetes-types/autoscaling/v2.js';
import { newBadRequest } from '../../../machinery/errors/index.js';
import { HORIZONTAL_POD_AUTOSCALERS } from '../../../api/catalogue/index.js';
import { resourceInfo, versionView, type ResourceStrategy, type VersionConversion } from '../strategy.js';
import { defaultCpuMetric, horizontalPodAutoscalerStrategy } from './horizontalpodautoscalers.js';

export const METRIC_SPECS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/metrics';
export const METRIC_STATUSES_ANNOTATION = 'autoscaling.alpha.kubernetes.io/current-metrics';
export const CONDITIONS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/conditions';
export const BEHAVIOR_ANNOTATION = 'autoscaling.alpha.kubernetes.io/behavior';
const ROUND_TRIP_ANNOTATIONS = [METRIC_SPECS_ANNOTATION, METRIC_STATUSES_ANNOTATION, CONDITIONS_ANNOTATION, BEHAVIOR_ANNOTATION];

type Json = Record<string, unknown>;
type Quantity = string;

const isCpuUtilization = (m: MetricSpec): boolean => m.type === 'Resource' && m.resource?.name === 'cpu' && m.resource.target?.averageUtilization != null;

/**
 * Drops undefined members, so converted objects carry no `"x": undefined` keys. (Members that Go
 * declares as non-pointer structs are read with `?.` throughout: a stored object may lack them.)
 */
function compact<T extends object>(obj: T): T {
  for (const k of Object.keys(obj) as (keyof T)[]) if (obj[k] === undefined) delete obj[k];
  return obj;
}

/** A v1 CrossVersionObjectReference (an Object metric's `target`) as v2's `describedObject`. */
function refToV2(t: Json | undefined): { kind: string; name: string; apiVersion?: string } {
  return compact({ kind: t?.kind as string, name: t?.name as string, apiVersion: t?.apiVersion as string | undefined });
}

/** v1's metric name and selector as v2's MetricIdentifier. */
function identifier(name: unknown, selector: unknown): { name: string; selector?: never } {
  return compact({ name: name as string, selector: selector as never });
}

/** A v2 MetricSpec in v1's shape (`Convert_autoscaling_*MetricSource_To_v1_*`). A zero Quantity is written `0`, as Go writes a non-pointer one. */
function metricSpecToV1(m: MetricSpec): Json {
  const out: Json = { type: m.type };
  if (m.object) {
    const { describedObject: d, metric, target } = m.object;
    out.object = compact({ target: compact({ kind: d?.kind, name: d?.name, apiVersion: d?.apiVersion }), metricName: metric?.name, targetValue: target?.value ?? '0', selector: metric?.selector, averageValue: target?.averageValue });
  }
  if (m.pods) out.pods = compact({ metricName: m.pods.metric?.name, targetAverageValue: m.pods.target?.averageValue ?? '0', selector: m.pods.metric?.selector });
  if (m.resource) out.resource = compact({ name: m.resource.name, targetAverageUtilization: m.resource.target?.averageUtilization, targetAverageValue: m.resource.target?.averageValue });
  if (m.containerResource) {
    const c = m.containerResource;
    out.containerResource = compact({ name: c.name, targetAverageUtilization: c.target?.averageUtilization, targetAverageValue: c.target?.averageValue, container: c.container });
  }
  if (m.external) {
    const { metric, target } = m.external;
    out.external = compact({ metricName: metric?.name, metricSelector: metric?.selector, targetValue: target?.value, targetAverageValue: target?.averageValue });
  }
  return out;
}

/** A v1 MetricSpec (from the annotation) in v2's shape. */
function metricSpecToV2(m: Json): MetricSpec {
  const out = { type: m.type } as MetricSpec;
  const o = m.object as Json | undefined;
  if (o) {
    const target = o.target as Json | undefined;
    out.object = {
      describedObject: refToV2(target),
      metric: identifier(o.metricName, o.selector),
      target: compact({ type: o.averageValue == null ? 'Value' : 'AverageValue', value: (o.targetValue ?? '0') as Quantity, averageValue: o.averageValue as Quantity | undefined }),
    };
  }
  const p = m.pods as Json | undefined;
  if (p) out.pods = { metric: identifier(p.metricName, p.selector), target: { type: 'AverageValue', averageValue: (p.targetAverageValue ?? '0') as Quantity } };
  const r = (m.resource ?? m.containerResource) as Json | undefined;
  if (r) {
    const utilization = r.targetAverageUtilization as number | undefined;
    const target = compact({ type: utilization == null ? 'AverageValue' : 'Utilization', averageUtilization: utilization, averageValue: r.targetAverageValue as Quantity | undefined });
    if (m.resource) out.resource = { name: r.name as string, target };
    else out.containerResource = { name: r.name as string, container: r.container as string, target };
  }
  const e = m.external as Json | undefined;
  if (e) {
    out.external = {
      metric: identifier(e.metricName, e.metricSelector),
      target: compact({ type: e.targetValue == null ? 'AverageValue' : 'Value', value: e.targetValue as Quantity | undefined, averageValue: e.targetAverageValue as Quantity | undefined }),
    };
  }
  return out;
}

/** A v2 MetricStatus in v1's shape. */
function metricStatusToV1(m: MetricStatus): Json {
  const out: Json = { type: m.type };
  if (m.object) {
    const { describedObject: d, metric, current } = m.object;
    out.object = compact({ target: compact({ kind: d?.kind, name: d?.name, apiVersion: d?.apiVersion }), metricName: metric?.name, currentValue: current?.value ?? '0', selector: metric?.selector, averageValue: current?.averageValue });
  }
  if (m.pods) out.pods = compact({ metricName: m.pods.metric?.name, currentAverageValue: m.pods.current?.averageValue ?? '0', selector: m.pods.metric?.selector });
  if (m.resource) out.resource = compact({ name: m.resource.name, currentAverageUtilization: m.resource.current?.averageUtilization, currentAverageValue: m.resource.current?.averageValue ?? '0' });
  if (m.containerResource) {
    const c = m.containerResource;
    out.containerResource = compact({ name: c.name, currentAverageUtilization: c.current?.averageUtilization, currentAverageValue: c.current?.averageValue ?? '0', container: c.container });
  }
  if (m.external) {
    const { metric, current } = m.external;
    out.external = compact({ metricName: metric?.name, metricSelector: metric?.selector, currentValue: current?.value ?? '0', currentAverageValue: current?.averageValue });
  }
  return out;
}

/** A v1 MetricStatus (from the annotation) in v2's shape. */
function metricStatusToV2(m: Json): MetricStatus {
  const out = { type: m.type } as MetricStatus;
  const o = m.object as Json | undefined;
  if (o) {
    const target = o.target as Json | undefined;
    out.object = {
      describedObject: refToV2(target),
      metric: identifier(o.metricName, o.selector),
      current: compact({ value: (o.currentValue ?? '0') as Quantity, averageValue: o.averageValue as Quantity | undefined }),
    };
  }
  const p = m.pods as Json | undefined;
  if (p) out.pods = { metric: identifier(p.metricName, p.selector), current: { averageValue: (p.currentAverageValue ?? '0') as Quantity } };
  const r = (m.resource ?? m.containerResource) as Json | undefined;
  if (r) {
    const current = compact({ averageValue: (r.currentAverageValue ?? '0') as Quantity, averageUtilization: r.currentAverageUtilization as number | undefined });
    if (m.resource) out.resource = { name: r.name as string, current };
    else out.containerResource = { name: r.name as string, container: r.container as string, current };
  }
  const e = m.external as Json | undefined;
  if (e) out.external = { metric: identifier(e.metricName, e.metricSelector), current: compact({ value: (e.currentValue ?? '0') as Quantity, averageValue: e.currentAverageValue as Quantity | undefined }) };
  return out;
}

/** Scaling rules as the internal type encodes them (Go field names, nil pointers as null). */
function rulesToInternal(r: HPAScalingRules | undefined): Json | null {
  if (!r) return null;
  return {
    StabilizationWindowSeconds: r.stabilizationWindowSeconds ?? null,
    SelectPolicy: r.selectPolicy ?? null,
    Policies: (r.policies ?? []).map((p) => ({ Type: p.type, Value: p.value, PeriodSeconds: p.periodSeconds })),
  };
}

function rulesFromInternal(r: unknown): HPAScalingRules | undefined {
  if (r === null || typeof r !== 'object') return undefined;
  const j = r as Json;
  const policies = Array.isArray(j.Policies) ? (j.Policies as Json[]).map((p) => ({ type: p.Type as string, value: p.Value as number, periodSeconds: p.PeriodSeconds as number })) : undefined;
  return compact({ stabilizationWindowSeconds: (j.StabilizationWindowSeconds ?? undefined) as number | undefined, selectPolicy: (j.SelectPolicy ?? undefined) as string | undefined, policies });
}

/** The JSON of an annotation. @throws StatusError 400 when it is not JSON of the expected shape */
function parseAnnotation(annotations: Record<string, string>, key: string, array: boolean): Json | Json[] | undefined {
  const text = annotations[key];
  if (text === undefined) return undefined;
  delete annotations[key];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw newBadRequest(`HorizontalPodAutoscaler in version "v1" cannot be handled as a HorizontalPodAutoscaler: annotation ${key}: ${(err as Error).message}`);
  }
  if (value === null) return undefined;
  if (array !== Array.isArray(value) || typeof value !== 'object') {
    throw newBadRequest(`HorizontalPodAutoscaler in version "v1" cannot be handled as a HorizontalPodAutoscaler: annotation ${key}: expected a JSON ${array ? 'array' : 'object'}`);
  }
  return value as Json | Json[];
}

/** v2 (stored) → v1 (`Convert_autoscaling_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler`). */
export function hpaToV1(obj: KubeObject): KubeObject {
  const hpa = obj as unknown as HorizontalPodAutoscaler;
  const spec = hpa.spec;
  const status = hpa.status;
  const annotations: Record<string, string> = { ...hpa.metadata?.annotations };
  for (const k of ROUND_TRIP_ANNOTATIONS) delete annotations[k];
  const others = (spec?.metrics ?? []).filter((m) => !isCpuUtilization(m));
  if (others.length > 0) annotations[METRIC_SPECS_ANNOTATION] = JSON.stringify(others.map(metricSpecToV1));
  if ((status?.currentMetrics ?? []).length > 0) annotations[METRIC_STATUSES_ANNOTATION] = JSON.stringify((status?.currentMetrics ?? []).map(metricStatusToV1));
  if ((status?.conditions ?? []).length > 0) annotations[CONDITIONS_ANNOTATION] = JSON.stringify(status?.conditions);
  if (spec?.behavior) annotations[BEHAVIOR_ANNOTATION] = JSON.stringify({ ScaleUp: rulesToInternal(spec.behavior.scaleUp), ScaleDown: rulesToInternal(spec.behavior.scaleDown) });
  const metadata = { ...hpa.metadata };
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  else delete metadata.annotations;
  // The first CPU resource metric decides targetCPUUtilizationPercentage; the last CPU status the current one.
  const cpu = (spec?.metrics ?? []).find((m) => m.type === 'Resource' && m.resource?.name === 'cpu');
  const cpuStatus = (status?.currentMetrics ?? []).filter((m) => m.type === 'Resource' && m.resource?.name === 'cpu' && m.resource.current?.averageUtilization != null).pop();
  return compact({
    ...obj,
    metadata,
    spec: spec && compact({ scaleTargetRef: spec.scaleTargetRef, minReplicas: spec.minReplicas, maxReplicas: spec.maxReplicas, targetCPUUtilizationPercentage: cpu?.resource?.target?.averageUtilization }),
    status:
      status &&
      compact({
        observedGeneration: status.observedGeneration,
        lastScaleTime: status.lastScaleTime,
        currentReplicas: status.currentReplicas,
        desiredReplicas: status.desiredReplicas,
        currentCPUUtilizationPercentage: cpuStatus?.resource?.current?.averageUtilization,
      }),
  });
}

/**
 * v1 → v2 (stored) (`Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler`).
 * @throws StatusError 400 when a round-trip annotation is not the JSON it must be
 */
export function hpaFromV1(obj: KubeObject): KubeObject {
  const spec = (obj.spec ?? undefined) as Json | undefined;
  const status = (obj.status ?? undefined) as Json | undefined;
  const annotations: Record<string, string> = { ...obj.metadata?.annotations };
  const otherMetrics = parseAnnotation(annotations, METRIC_SPECS_ANNOTATION, true) as Json[] | undefined;
  const currentMetrics = parseAnnotation(annotations, METRIC_STATUSES_ANNOTATION, true) as Json[] | undefined;
  const conditions = parseAnnotation(annotations, CONDITIONS_ANNOTATION, true) as HorizontalPodAutoscalerCondition[] | undefined;
  const behavior = parseAnnotation(annotations, BEHAVIOR_ANNOTATION, false) as Json | undefined;
  const cpu = spec?.targetCPUUtilizationPercentage as number | undefined;
  // The annotation's metrics first, then the CPU one; no metric at all means CPU 80%.
  const metrics: MetricSpec[] = [...(otherMetrics ?? []).map(metricSpecToV2), ...(cpu == null ? [] : [defaultCpuMetric(cpu)])];
  if (metrics.length === 0) metrics.push(defaultCpuMetric());
  const currentCpu = status?.currentCPUUtilizationPercentage as number | undefined;
  const v2Behavior: HorizontalPodAutoscalerBehavior | undefined = behavior && compact({ scaleUp: rulesFromInternal(behavior.ScaleUp), scaleDown: rulesFromInternal(behavior.ScaleDown) });
  const metadata = { ...obj.metadata };
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  else delete metadata.annotations;
  return compact({
    ...obj,
    metadata,
    spec: spec && compact({ scaleTargetRef: spec.scaleTargetRef, minReplicas: spec.minReplicas, maxReplicas: spec.maxReplicas, metrics, behavior: v2Behavior }),
    status:
      status &&
      compact({
        observedGeneration: status.observedGeneration,
        lastScaleTime: status.lastScaleTime,
        currentReplicas: status.currentReplicas,
        desiredReplicas: status.desiredReplicas,
        currentMetrics: currentMetrics
          ? currentMetrics.map(metricStatusToV2)
          : currentCpu == null
            ? undefined
            : [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: currentCpu } } }],
        conditions,
      }),
  });
}

/** The conversion of the autoscaling/v1 view. */
export const hpaV1Conversion: VersionConversion = { toStorage: hpaFromV1, fromStorage: hpaToV1 };

/** autoscaling/v1 HorizontalPodAutoscalers: the v2 strategy's objects through {@link hpaV1Conversion}. */
export const horizontalPodAutoscalerV1Strategy: ResourceStrategy = versionView(
  horizontalPodAutoscalerStrategy as unknown as ResourceStrategy,
  resourceInfo(HORIZONTAL_POD_AUTOSCALERS, 'v1'),
  hpaV1Conversion,
);
