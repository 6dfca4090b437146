/**
 * Defaulting of custom objects from their structural schema: upstream k8s.io/apiextensions-apiserver
 * pkg/apiserver/schema/defaulting/algorithm.go (`Default`).
 */
import { deepCopyJSON, isJSONObject, propertyOf, type Structural } from './structural.js';

/** Upstream's `isNonNullableNull`: a `null` where the schema does not allow one. */
function isNonNullableNull(x: unknown, s: Structural | undefined): boolean {
  return x === null && s !== undefined && !s.nullable;
}

/**
 * `structuraldefaulting.Default`: in place, every property missing from an object (or holding a
 * non-nullable `null`) whose schema has a `default` gets a deep copy of it; additionalProperties
 * values and list items that are non-nullable `null`s get their schema's default (or stay `null`
 * when it has none); then the walk descends into every value. Run after pruning, so defaults apply
 * to known fields only.
 */
export function applyDefaults(x: unknown, s: Structural | undefined): void {
  if (!s) return;
  if (isJSONObject(x)) {
    for (const [k, prop] of Object.entries(s.properties ?? {})) {
      if (prop.default === undefined) continue;
      if (!Object.hasOwn(x, k) || isNonNullableNull(x[k], prop)) x[k] = deepCopyJSON(prop.default);
    }
    for (const k of Object.keys(x)) {
      const prop = propertyOf(s, k);
      if (prop) applyDefaults(x[k], prop);
      else if (s.additionalProperties) {
        const ap = s.additionalProperties.structural;
        if (isNonNullableNull(x[k], ap)) x[k] = ap?.default === undefined ? null : deepCopyJSON(ap.default);
        applyDefaults(x[k], ap);
      }
    }
  } else if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) {
      if (isNonNullableNull(x[i], s.items)) x[i] = s.items?.default === undefined ? null : deepCopyJSON(s.items.default);
      applyDefaults(x[i], s.items);
    }
  }
}
