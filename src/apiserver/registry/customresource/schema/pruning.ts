/**
 * Pruning of the fields a structural schema does not specify: upstream k8s.io/apiextensions-apiserver
 * pkg/apiserver/schema/pruning/algorithm.go (PruneWithOptions), with the unknown-field paths of
 * pkg/apiserver/schema/options.go, and the metadata coercion the CRD handler runs right after it
 * (objectmeta coerce.go: unknown metadata fields go, at the root and in embedded resources).
 */
import { coerce } from './objectmeta.js';
import { isJSONObject, propertyOf, type Structural } from './structural.js';

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/** Walk state: the path of the current node (upstream's ParentPath joined) and the paths recorded. */
interface Walk {
  unknown: string[];
}

function key(parent: string, k: string): string {
  return parent ? `${parent}.${k}` : k;
}

function pruneNode(x: unknown, s: Structural | undefined, path: string, w: Walk): void {
  if (s?.xPreserveUnknownFields) {
    skipPrune(x, s, path, w);
    return;
  }
  if (isJSONObject(x)) {
    if (!s) {
      for (const k of Object.keys(x)) {
        w.unknown.push(key(path, k));
        delete x[k];
      }
      return;
    }
    for (const [k, v] of Object.entries(x)) {
      if (s.xEmbeddedResource && META_FIELDS.has(k)) continue;
      const prop = propertyOf(s, k);
      if (prop) pruneNode(v, prop, key(path, k), w);
      else if (s.additionalProperties) pruneNode(v, s.additionalProperties.structural, key(path, k), w);
      else {
        // apiVersion/kind/metadata at the root are dropped without a report (upstream: len(ParentPath) == 0).
        if (!META_FIELDS.has(k) || path !== '') w.unknown.push(key(path, k));
        delete x[k];
      }
    }
  } else if (Array.isArray(x)) {
    x.forEach((v, i) => pruneNode(v, s?.items, `${path}[${i}]`, w));
  }
}

/** Under `x-kubernetes-preserve-unknown-fields`: unknown fields stay, known ones are pruned inside. */
function skipPrune(x: unknown, s: Structural | undefined, path: string, w: Walk): void {
  if (!s) return;
  if (isJSONObject(x)) {
    for (const [k, v] of Object.entries(x)) {
      if (s.xEmbeddedResource && META_FIELDS.has(k)) continue;
      const prop = propertyOf(s, k);
      if (prop) pruneNode(v, prop, key(path, k), w);
      else if (s.additionalProperties) pruneNode(v, s.additionalProperties.structural, key(path, k), w);
    }
  } else if (Array.isArray(x)) {
    x.forEach((v, i) => skipPrune(v, s.items, `${path}[${i}]`, w));
  }
}

/**
 * `PruneWithOptions`: removes, in place, the fields of `obj` that `s` does not specify (unless under
 * `x-kubernetes-preserve-unknown-fields`); `apiVersion`, `kind` and `metadata` are kept at the root
 * (`isResourceRoot`) and in embedded resources, whose metadata then keeps only ObjectMeta's fields.
 * Returns the dropped fields' paths sorted (`spec.foo`, `spec.list[0].bar`, `metadata.foo`), for
 * Warn/Strict field validation. Non-nullable `null`s without a default are then removed too, as the
 * CRD handler does right after pruning ({@link pruneNonNullableNullsWithoutDefaults}).
 */
export function prune(obj: unknown, s: Structural | undefined, opts: { isResourceRoot: boolean }): string[] {
  const root = asRoot(s, opts.isResourceRoot);
  const w: Walk = { unknown: [] };
  pruneNode(obj, root, '', w);
  w.unknown.push(...coerce('', obj, root, false, { dropInvalidFields: true }).unknownFields);
  pruneNonNullableNullsWithoutDefaults(obj, s);
  return w.unknown.sort();
}

/** At a resource's root the schema acts as an embedded resource's (apiVersion, kind, metadata kept). */
function asRoot(s: Structural | undefined, isResourceRoot: boolean): Structural | undefined {
  return isResourceRoot && !s?.xEmbeddedResource ? { ...(s ?? {}), xEmbeddedResource: true } : s;
}

/**
 * `PruneWithOptions` alone, exactly upstream's algorithm: removes unspecified fields in place and
 * returns their paths sorted; `metadata` is left as it is (see {@link prune} for the whole step).
 */
export function pruneWithOptions(obj: unknown, s: Structural | undefined, isResourceRoot: boolean): string[] {
  const w: Walk = { unknown: [] };
  pruneNode(obj, asRoot(s, isResourceRoot), '', w);
  return w.unknown.sort();
}

/** Upstream's `isNonNullableNonDefaultableNull`. */
function isNonNullableNonDefaultableNull(x: unknown, s: Structural | undefined): boolean {
  return x === null && s !== undefined && !s.nullable && s.default === undefined;
}

function schemaForField(k: string, s: Structural | undefined): Structural | undefined {
  if (!s) return undefined;
  return propertyOf(s, k) ?? s.additionalProperties?.structural;
}

/**
 * `PruneNonNullableNullsWithoutDefaults` (pkg/apiserver/schema/defaulting/prunenulls.go): object
 * fields holding `null` where the schema is neither nullable nor defaulted are removed in place
 * (list items are kept: removing them would shift indexes).
 */
export function pruneNonNullableNullsWithoutDefaults(x: unknown, s: Structural | undefined): void {
  if (isJSONObject(x)) {
    for (const [k, v] of Object.entries(x)) {
      const fs = schemaForField(k, s);
      if (isNonNullableNonDefaultableNull(v, fs)) delete x[k];
      else pruneNonNullableNullsWithoutDefaults(v, fs);
    }
  } else if (Array.isArray(x)) {
    for (const v of x) pruneNonNullableNullsWithoutDefaults(v, s?.items);
  }
}
