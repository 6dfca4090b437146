/**
 * Validation of the `default`s of a CRD version's structural schema: upstream k8s.io/apiextensions-apiserver
 * pkg/apiserver/schema/defaulting/validation.go (ValidateDefaults), run by CRD validation once the
 * schema is structural. A default must survive pruning (`must not have unknown fields`), give valid
 * embedded resources and metadata, and pass the schema's value validation. The CEL rules of the
 * schema are not run on defaults here (the cel helper's compiled rules are not available to CRD
 * validation yet).
 */
import { field, fieldErrorString, type FieldError } from '../../../../machinery/errors/index.js';
import { goBadValue } from './listtype.js';
import { coerce, validateEmbeddedResources } from './objectmeta.js';
import { pruneWithOptions } from './pruning.js';
import { deepCopyJSON, type Structural } from './structural.js';
import { jsonEqual, validateOpenAPI } from './validation.js';

/** Places a value where the walk is inside a resource (upstream SurroundingObjectFunc), rooted at a `validation/v1` object. */
type Surround = (x: unknown) => unknown;

const rootObject: Surround = (x) => {
  const obj = typeof x === 'object' && x !== null && !Array.isArray(x) ? { ...(x as Record<string, unknown>) } : {};
  return { kind: 'Validation', apiVersion: 'validation/v1', ...obj };
};

function aggregate(errs: FieldError[]): string {
  const msgs = [...new Set(errs.map(fieldErrorString))];
  return msgs.length === 1 ? (msgs[0] as string) : `[${msgs.join(', ')}]`;
}

function validateNode(path: string, s: Structural, rootSchema: Structural, f: Surround, insideMeta: boolean, requirePruned: boolean, errs: FieldError[]): void {
  if (s.xEmbeddedResource) {
    insideMeta = false;
    f = rootObject;
    rootSchema = s;
  }
  if (s.default !== undefined) {
    const at = `${path}.default`;
    const def = s.default;
    if (insideMeta) {
      const obj = f(deepCopyJSON(def));
      const coerceErr = coerce('', obj, rootSchema, true, { dropInvalidFields: false }).error;
      if (coerceErr) {
        errs.push(field.invalid(at, goBadValue(def), `must result in valid metadata: ${fieldErrorString(coerceErr)}`));
      } else {
        const metaErrs = validateEmbeddedResources('', obj, rootSchema, true);
        if (metaErrs.length > 0) errs.push(field.invalid(at, goBadValue(def), `must result in valid metadata: ${aggregate(metaErrs)}`));
        else errs.push(...validateOpenAPI(def, s, { basePath: at }));
      }
    } else {
      if (requirePruned) {
        const pruned = deepCopyJSON(def);
        pruneWithOptions(pruned, s, s.xEmbeddedResource ?? false);
        if (!jsonEqual(pruned, def)) errs.push(field.invalid(at, goBadValue(def), 'must not have unknown fields'));
      }
      const coerceErr = coerce(at, deepCopyJSON(def), s, s.xEmbeddedResource ?? false, { dropInvalidFields: false }).error;
      if (coerceErr) errs.push(coerceErr);
      else {
        const metaErrs = validateEmbeddedResources(at, def, s, s.xEmbeddedResource ?? false);
        if (metaErrs.length > 0) errs.push(...metaErrs);
        else errs.push(...validateOpenAPI(def, s, { basePath: at }));
      }
    }
  }
  if (s.items) {
    const g = f;
    validateNode(`${path}.items`, s.items, rootSchema, (x) => g([x]), insideMeta, requirePruned, errs);
  }
  for (const [k, sub] of Object.entries(s.properties ?? {})) {
    const subInsideMeta = insideMeta || (s.xEmbeddedResource === true && (k === 'metadata' || k === 'apiVersion' || k === 'kind'));
    const g = f;
    validateNode(`${path}.properties[${k}]`, sub, rootSchema, (x) => g({ [k]: x }), subInsideMeta, requirePruned, errs);
  }
}

/**
 * `ValidateDefaults(ctx, path, s, isResourceRoot, requirePrunedDefaults)`: the errors of every
 * `default` in `s`, at `<path>.properties[spec].properties[x].default` and the like; value-validation
 * messages name the path inside the default, as upstream's validator rooted there does
 * (`<path>.properties[c].default.foo: Invalid value: "integer": foo in body must be of type string: "integer"`).
 */
export function validateDefaults(path: string, s: Structural, isResourceRoot: boolean, requirePrunedDefaults: boolean): FieldError[] {
  const root = isResourceRoot && !s.xEmbeddedResource ? { ...s, xEmbeddedResource: true } : s;
  const errs: FieldError[] = [];
  validateNode(path, root, root, rootObject, false, requirePrunedDefaults, errs);
  return errs;
}
