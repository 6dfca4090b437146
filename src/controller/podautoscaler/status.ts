/**
 * HPA status helpers: conditions (kubernetes/kubernetes pkg/controller/podautoscaler/horizontal.go
 * `setCondition` / `setConditionInList`) and the Go formats that upstream's messages and status
 * quantities use.
 */
import type { HorizontalPodAutoscaler, LabelSelector } from '../../api/index.js';
import type { HorizontalPodAutoscalerCondition } from 'kubernetes-types/autoscaling/v2.js';
import { parseQuantity } from '../../machinery/quantity/index.js';
import { formatTime } from '../../util/clock/index.js';

/** Condition types of an HPA. */
export type HPAConditionType = 'AbleToScale' | 'ScalingActive' | 'ScalingLimited';

/** A condition to set: status, reason and (already formatted) message. */
export interface ConditionValue {
  type: HPAConditionType;
  status: 'True' | 'False';
  reason: string;
  message: string;
}

/**
 * upstream `setCondition`: sets condition `c.type` on `hpa` (a copy), adding it at the end when
 * absent; `lastTransitionTime` becomes `now` only when the status changes (or the condition is new).
 */
export function setCondition(hpa: HorizontalPodAutoscaler, c: ConditionValue, now: number): void {
  const status = (hpa.status ??= { desiredReplicas: 0 });
  const conditions: HorizontalPodAutoscalerCondition[] = [...(status.conditions ?? [])];
  let i = conditions.findIndex((x) => x.type === c.type);
  if (i < 0) {
    conditions.push({ type: c.type, status: '' });
    i = conditions.length - 1;
  }
  const existing = conditions[i] ?? { type: c.type, status: '' };
  const next: HorizontalPodAutoscalerCondition = { ...existing, status: c.status, reason: c.reason, message: c.message };
  if (existing.status !== c.status) next.lastTransitionTime = formatTime(now);
  conditions[i] = next;
  status.conditions = conditions;
}

/** `resource.NewMilliQuantity(v, DecimalSI).String()`: `500` → `500m`, `2000` → `2`. */
export function formatMilli(milli: number): string {
  return parseQuantity(`${Math.trunc(milli)}m`).toString();
}

/**
 * Go's `%+v` of a `*metav1.LabelSelector` (its generated String()), as upstream's messages print it:
 * `nil`, or `&LabelSelector{MatchLabels:map[string]string{k: v,},MatchExpressions:[]LabelSelectorRequirement{},}`.
 */
export function goLabelSelector(ls: LabelSelector | null | undefined): string {
  if (!ls) return 'nil';
  const labels = Object.keys(ls.matchLabels ?? {})
    .sort()
    .map((k) => `${k}: ${ls.matchLabels?.[k] ?? ''},`)
    .join('');
  const exprs = (ls.matchExpressions ?? []).map((e) => `LabelSelectorRequirement{Key:${e.key},Operator:${e.operator},Values:[${(e.values ?? []).join(' ')}],},`).join('');
  return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
}
