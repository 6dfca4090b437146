/**
 * Small pieces the per-kind strategies share: writable object types, semantic equality of API values,
 * generation bumps, selector strings and immutable-field errors.
 */
import type { KubeObject, LabelSelector, ObjectMeta } from '../../../api/index.js';
import { field, type FieldError } from '../../../machinery/errors/index.js';
import { selectorFromLabelSelector } from '../../../machinery/labels/index.js';
import { FIELD_IMMUTABLE_ERROR_MSG } from '../../../machinery/validation/index.js';

/**
 * A kind's wire type with the fields kubernetes-types marks readonly (status, metadata.generation,
 * metadata.deletionTimestamp…) writable, since strategies set them; optionality is kept.
 */
export type ApiObject<T> = {
  -readonly [K in keyof T]: K extends 'metadata' ? { -readonly [M in keyof ObjectMeta]: ObjectMeta[M] } : T[K];
} & Omit<KubeObject, 'metadata'>;

/** Go's zero value: absent, null, 0, false, '', an empty list, or an object whose fields are all zero. */
function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null || v === 0 || v === false || v === '') return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object') return Object.keys(v).every((k) => isEmpty((v as Record<string, unknown>)[k]));
  return false;
}

/**
 * `apiequality.Semantic.DeepEqual` on JSON values. Upstream compares Go structs, where an omitted field
 * is its zero value and (in apimachinery's forked reflect.DeepEqual) a nil slice or map equals an empty
 * one; so here an absent field equals `null`, `0`, `false`, `''`, `[]` and `{}`: `{a: [], b: 0}` equals
 * `{}`. (Go pointer fields such as `replicas` can tell 0 from nil; the strategies only compare defaulted
 * objects, where those are always set.) Array order matters.
 */
export function semanticDeepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isEmpty(a) && isEmpty(b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => semanticDeepEqual(v, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  for (const k of Object.keys(ao)) if (!semanticDeepEqual(ao[k], bo[k])) return false;
  for (const k of Object.keys(bo)) if (!(k in ao) && !isEmpty(bo[k])) return false;
  return true;
}

/**
 * Sets `obj.metadata.generation` to the old generation, plus one when `changed` (upstream's
 * PrepareForUpdate, after rest.BeforeUpdate reset the generation to the stored one).
 */
export function bumpGenerationIf(obj: ApiObject<KubeObject>, old: KubeObject, changed: boolean): void {
  const meta = (obj.metadata ??= {});
  const oldGeneration = old.metadata?.generation ?? 0;
  meta.generation = changed ? oldGeneration + 1 : oldGeneration;
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
