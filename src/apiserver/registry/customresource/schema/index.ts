/**
 * What is done with the structural schema of a CRD version on custom objects (upstream
 * k8s.io/apiextensions-apiserver pkg/apiserver/schema/… and pkg/registry/customresource/strategy.go):
 * pruning, defaulting, OpenAPI v3 value validation, list-type validation and the embedded resources'
 * metadata. CEL rules (`x-kubernetes-validations`) are the `cel/` helper's.
 *
 * Order on a write, as upstream's CRD handler: {@link prune} when decoding the request (returns the
 * unknown-field paths for Warn/Strict field validation; also drops unknown metadata fields and
 * non-nullable nulls), then {@link applyDefaults}, then {@link validateCustomObject} /
 * {@link validateCustomObjectUpdate} (the root metadata and type meta are validated as for any kind).
 * A status update validates `status` alone: `validateOpenAPI(obj.status, s.properties.status, {basePath:
 * 'status', old: old.status})`.
 */
import type { FieldError } from '../../../../machinery/errors/index.js';
import { validateListSetsAndMaps } from './listtype.js';
import { validateEmbeddedResources } from './objectmeta.js';
import type { Structural } from './structural.js';
import { validateOpenAPI } from './validation.js';

export type { NestedValueValidation, Structural, StructuralOrBool, ValidationRule, ValueValidation } from './structural.js';
export { toStructural } from './structural.js';
export { prune, pruneNonNullableNullsWithoutDefaults, pruneWithOptions } from './pruning.js';
export { applyDefaults } from './defaulting.js';
export { validateDefaults } from './default-validation.js';
export { validateOpenAPI, type OpenAPIValidationOptions } from './validation.js';
export { validateListSetsAndMaps } from './listtype.js';
export { coerce, coerceMetadataOf, coerceObjectMeta, validateEmbeddedResources, type CoercedObjectMeta, type CoerceResult } from './objectmeta.js';

/**
 * The schema checks of a custom object on create, in upstream's order (customResourceStrategy.Validate
 * without the type meta, the root metadata and CEL): OpenAPI v3 value validation of the whole object,
 * embedded resources (apiVersion, kind, metadata), then `set`/`map` list invariants.
 */
export function validateCustomObject(obj: Record<string, unknown>, s: Structural): FieldError[] {
  return [...validateOpenAPI(obj, s), ...validateEmbeddedResources('', obj, s, false), ...validateListSetsAndMaps('', s, obj)];
}

/**
 * The same for an update, as customResourceStrategy.ValidateUpdate ratchets: value-validation errors
 * of values equal to their old counterpart (fields, and `map`-list items by key) are dropped, and the
 * list-type invariants are checked only when the old object satisfied them.
 */
export function validateCustomObjectUpdate(obj: Record<string, unknown>, old: Record<string, unknown>, s: Structural): FieldError[] {
  const errs = [...validateOpenAPI(obj, s, { old }), ...validateEmbeddedResources('', obj, s, false)];
  if (validateListSetsAndMaps('', s, old).length === 0) errs.push(...validateListSetsAndMaps('', s, obj));
  return errs;
}
