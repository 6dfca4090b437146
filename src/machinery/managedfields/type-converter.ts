/**
 * Objects ⇄ typed values of the structured-merge schema. Follows k8s.io/apimachinery
 * pkg/util/managedfields/internal/typeconverter.go (v0.33.9): a converter resolves the type of an
 * object from its apiVersion and kind; the deduced converter treats every map as granular and every
 * list as atomic.
 */
import type { KubeObject } from '../../api/index.js';
import { rootTypeName } from '../../api/schema/index.js';
import type { Value } from '../fieldpath/index.js';
import { builtinSchema, deducedTypeRef, TypedValue, type Schema, type TypeRef } from '../merge/index.js';

/** Converts objects to typed values and back (TypeConverter). */
export interface TypeConverter {
  /**
   * The typed value of an object, validated against its type; `allowDuplicates` accepts duplicate
   * set/map-list items (live objects). Throws {@link NoCorrespondingTypeError} for a kind without
   * a type, and the merge package's ValidationErrors for a value that does not fit.
   */
  objectToTyped(obj: object, opts?: { allowDuplicates?: boolean }): TypedValue;
  /** The object of a typed value; throws when the value is not a map. */
  typedToObject(tv: TypedValue): KubeObject;
}

/** Group and version of an apiVersion (schema.ParseGroupVersion without its errors): `apps/v1` → apps, v1; `v1` → '', v1. */
export function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/** GroupVersionKind.String(): `apps/v1, Kind=Deployment`, `/v1, Kind=Pod`. */
export function gvkString(apiVersion: string | undefined, kind: string | undefined): string {
  const { group, version } = parseGroupVersion(apiVersion ?? '');
  return `${group}/${version}, Kind=${kind ?? ''}`;
}

/** No type for the object's kind in this version (noCorrespondingTypeErr): such managers are dropped as of a removed version. */
export class NoCorrespondingTypeError extends Error {
  override readonly name = 'NoCorrespondingTypeError';
  constructor(apiVersion: string | undefined, kind: string | undefined) {
    super(`no corresponding type for ${gvkString(apiVersion, kind)}`);
  }
}

/** The value of a typed value as an object (valueToObject). */
function valueToObject(tv: TypedValue): KubeObject {
  const v = tv.value;
  if (v === null || v === undefined || typeof v !== 'object' || Array.isArray(v)) {
    throw new Error(`failed to convert value to unstructured for type ${v === null || v === undefined ? '<nil>' : Array.isArray(v) ? '[]interface {}' : typeof v}`);
  }
  return v;
}

function typed(obj: object, schema: Schema, ref: TypeRef, opts: { allowDuplicates?: boolean } | undefined): TypedValue {
  const tv = new TypedValue(obj as Value, schema, ref);
  tv.validate({ allowDuplicates: opts?.allowDuplicates === true });
  return tv;
}

/**
 * A converter over `schema` (the CRD case: NewTypeConverter over the CRD's OpenAPI), with the type of
 * each apiVersion+kind from `typeFor`; a kind `typeFor` does not know throws {@link NoCorrespondingTypeError}.
 */
export function schemaTypeConverter(schema: Schema, typeFor: (apiVersion: string, kind: string) => TypeRef | undefined): TypeConverter {
  return {
    objectToTyped(obj, opts) {
      const o = obj as KubeObject;
      const ref = typeFor(o.apiVersion ?? '', o.kind ?? '');
      if (ref === undefined) throw new NoCorrespondingTypeError(o.apiVersion, o.kind);
      return typed(obj, schema, ref, opts);
    },
    typedToObject: valueToObject,
  };
}

/** The converter of the deduced type (NewDeducedTypeConverter): maps granular, lists atomic, no validation beyond that. */
export function deducedTypeConverter(): TypeConverter {
  return {
    objectToTyped: (obj, opts) => typed(obj, builtinSchema(), deducedTypeRef, opts),
    typedToObject: valueToObject,
  };
}

/**
 * The converter of the built-in kinds: the type from apiVersion and kind through `rootTypeName`
 * (`apps/v1` Deployment → `io.k8s.api.apps.v1.Deployment`); a kind the schema does not know is deduced.
 */
export function builtinTypeConverter(): TypeConverter {
  const schema = builtinSchema();
  return schemaTypeConverter(schema, (apiVersion, kind) => {
    const { group, version } = parseGroupVersion(apiVersion);
    const name = rootTypeName(group, version, kind);
    return name === undefined ? deducedTypeRef : { namedType: name };
  });
}
