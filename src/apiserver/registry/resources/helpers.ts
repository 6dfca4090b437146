/**
 * Small pieces the per-kind strategies share: writable object types, semantic
 * equality of API values, generation bumps, field resets, selector strings, immutable-field errors
 * and the scale subresource of replicated workloads.
 */
import type { KubeObject, LabelSelector, ObjectMeta } from '../../../api/index.js';
import { field, goQuote, type FieldError } from '../../../machinery/errors/index.js';
import { selectorFromLabelSelector } from '../../../machinery/labels/index.js';
import { FIELD_IMMUTABLE_ERROR_MSG } from '../../../machinery/validation/index.js';
import { semanticDeepEqual } from '../../../machinery/meta/index.js';
import type { ScaleStrategy } from '../strategy.js';

export { semanticDeepEqual };

/**
 * A kind's wire type with the fields kubernetes-types marks readonly (status, metadata.generation,
 * metadata.deletionTimestamp…) writable, since strategies set them; optionality is kept.
 */
export type ApiObject<T> = {
  -readonly [K in keyof T]: K extends 'metadata' ? { -readonly [M in keyof ObjectMeta]: ObjectMeta[M] } : T[K];
} & Omit<KubeObject, 'metadata'>;

/**
 * Sets `obj.metadata.generation` to the old generation, plus one when `changed` (upstream's
 * PrepareForUpdate, after rest.BeforeUpdate reset the generation to the stored one).
 */
export function bumpGenerationIf(obj: ApiObject<KubeObject>, old: KubeObject, changed: boolean): void {
  const meta = (obj.metadata ??= {});
  const oldGeneration = old.metadata?.generation ?? 0;
  meta.generation = changed ? oldGeneration + 1 : oldGeneration;
}

/**
 * Resets `obj[key]` to the stored `old[key]`, removing it when the stored object has none — upstream's
 * `newObj.Status = oldObj.Status` in PrepareForUpdate, where a nil becomes an absent field here rather
 * than an explicit `undefined`.
 */
export function resetField<T extends object>(obj: T, old: T | undefined, key: keyof T): void {
  const value = old?.[key];
  if (value) obj[key] = value;
  else delete obj[key];
}

/** `ValidateImmutableField`: `<path>: Invalid value: <new>: field is immutable` when the values differ semantically. */
export function validateImmutableField(newVal: unknown, oldVal: unknown, path: string): FieldError[] {
  return semanticDeepEqual(newVal, oldVal) ? [] : [field.invalid(path, newVal ?? null, FIELD_IMMUTABLE_ERROR_MSG)];
}

/**
 * `metav1.LabelSelectorAsSelector(sel).String()`: `app=nginx,tier in (a,b)`; `''` for an absent or empty
 * selector; `<invalid>` when it cannot be compiled (printDeployment's fallback). Used for the Selector
 * cell of Deployments and the Scale subresource's `status.selector`.
 */
export function labelSelectorString(ls: LabelSelector | undefined): string {
  try {
    return selectorFromLabelSelector(ls).toString();
  } catch {
    return '<invalid>';
  }
}

/** A workload with a replica count and a pod selector (Deployments, ReplicaSets). */
interface ReplicatedObject {
  spec?: { replicas?: number; selector?: LabelSelector };
  status?: { replicas?: number };
}

/**
 * The `scale` subresource of a replicated workload (upstream's ScaleREST in
 * pkg/registry/apps/{deployment,replicaset}/storage/storage.go): spec.replicas (1 when unset),
 * status.replicas (0 when unset) and the selector's string form as `status.selector`.
 */
export const replicasScale: ScaleStrategy<ReplicatedObject> = {
  specReplicas: (obj) => obj.spec?.replicas ?? 1,
  setSpecReplicas(obj, replicas) {
    (obj.spec ??= {}).replicas = replicas;
  },
  statusReplicas: (obj) => obj.status?.replicas ?? 0,
  selector: (obj) => labelSelectorString(obj.spec?.selector),
};

/**
 * `field.Invalid` whose bad value Go prints with `%#v` (a slice, a struct, a `[]byte`): `rendered` is
 * that text, carried in the detail so the message reads as upstream's
 * (`spec: Invalid value: []networking.IngressRule(nil): either …`).
 */
export function invalidGoValue(path: string, rendered: string, detail: string): FieldError {
  return field.invalidOmitValue(path, `${rendered}: ${detail}`);
}

/**
 * Go's `%#v` of a slice of a string type: `[]string{"a", "b"}`, `[]string{}` when empty, `[]string(nil)`
 * when absent; `type` is the element type's Go name (`networking.PolicyType`).
 */
export function goStringSlice(values: readonly string[] | undefined | null, type = 'string'): string {
  if (values == null) return `[]${type}(nil)`;
  return `[]${type}{${values.map(goQuote).join(', ')}}`;
}

/** Go's `%#v` of a `[]byte`: `[]byte{0x2d, 0x2d}`, `[]byte{}` when empty, `[]byte(nil)` when absent. */
export function goByteSlice(bytes: Uint8Array | undefined): string {
  if (bytes === undefined) return '[]byte(nil)';
  return `[]byte{${Array.from(bytes, (b) => `0x${b.toString(16)}`).join(', ')}}`;
}
