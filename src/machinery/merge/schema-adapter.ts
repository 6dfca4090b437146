/**
 * Our Go-type schema (src/api/schema) as a structured-merge-diff schema, the way
 * k8s.io/apimachinery pkg/util/managedfields (typeconverter.go, via kube-openapi's schemaconv)
 * builds one from the OpenAPI of the built-in types:
 *
 * - a list with `+listType=atomic` is atomic, `set` a set, `map` a map list keyed by its
 *   `+listMapKey`s; without `+listType`, a `patchStrategy=merge` list is a map list keyed by its
 *   `patchMergeKey` (a set when it has none), and any other list is atomic;
 * - a map is granular unless `+mapType=atomic`; a struct is granular unless its type (or the field)
 *   says `+structType=atomic`;
 * - scalars: strings (Time, bytes too), numbers, booleans; IntOrString and Quantity are untyped
 *   (OpenAPI says int-or-string / string-or-number); free-form `any` fields are deduced.
 *
 * Struct types are named types (`io.k8s.api.apps.v1.Deployment`), built on first use.
 */
import { lookupType, type FieldSchema } from '../../api/schema/index.js';
import type { Value } from '../fieldpath/index.js';
import { OMITTABLE_SCALARS, zeroValue } from '../serializer/index.js';
import { DEDUCED_TYPE, Schema, type Atom, type ElementRelationship, type ScalarType, type StructField, type TypeRef } from './schema.js';

const scalarTypes: Record<string, ScalarType> = {
  string: 'string',
  bytes: 'string',
  Time: 'string',
  MicroTime: 'string',
  int32: 'numeric',
  int64: 'numeric',
  number: 'numeric',
  boolean: 'boolean',
  IntOrString: 'untyped',
  Quantity: 'untyped',
};

/** The reference for one value of Go type `type` (no list or map around it). */
function elementRef(type: string): TypeRef {
  const scalar = scalarTypes[type];
  if (scalar !== undefined) return { inlined: { scalar } };
  if (type === 'any') return { namedType: DEDUCED_TYPE };
  return { namedType: type };
}

function listRelationship(f: FieldSchema): { elementRelationship: ElementRelationship; keys?: readonly string[] } {
  switch (f.listType) {
    case 'atomic':
      return { elementRelationship: 'atomic' };
    case 'set':
      return { elementRelationship: 'associative' };
    case 'map':
      return { elementRelationship: 'associative', keys: f.listMapKeys ?? [] };
    case undefined:
    default:
      break;
  }
  if (f.patchStrategy?.split(',').includes('merge') === true) {
    return f.patchMergeKey !== undefined ? { elementRelationship: 'associative', keys: [f.patchMergeKey] } : { elementRelationship: 'associative' };
  }
  return { elementRelationship: 'atomic' };
}

/** The reference for a struct field. */
function fieldRef(f: FieldSchema): TypeRef {
  const element = elementRef(f.type);
  if (f.list === true) return { inlined: { list: { elementType: element, ...listRelationship(f) } } };
  if (f.map === true) return { inlined: { map: { elementType: element, elementRelationship: f.mapType === 'atomic' ? 'atomic' : 'separable' } } };
  if (f.structType !== undefined && element.namedType !== undefined && element.namedType !== DEDUCED_TYPE) {
    return { namedType: element.namedType, elementRelationship: f.structType === 'atomic' ? 'atomic' : 'separable' };
  }
  return element;
}

/** The atom of a struct type of our schema, undefined when the name is unknown. */
function structAtom(name: string): Atom | undefined {
  const t = lookupType(name);
  if (t === undefined) return undefined;
  const fields = Object.entries(t.fields).map(([fieldName, f]): StructField => ({ name: fieldName, type: fieldRef(f), ...(f.default !== undefined ? { default: f.default as Value } : {}) }));
  return { map: { fields, elementRelationship: t.structType === 'atomic' ? 'atomic' : 'separable' } };
}

let builtin: Schema | undefined;

/**
 * The schema of every built-in type, resolving type names (`io.k8s.api.apps.v1.Deployment`) on
 * demand. One shared instance: types are built once.
 */
export function builtinSchema(): Schema {
  builtin ??= new Schema([], structAtom);
  return builtin;
}

/** The reference to a built-in type by name, for {@link TypedValue}: `typeRefFor('io.k8s.api.apps.v1.Deployment')`. Throws for an unknown name. */
export function typeRefFor(typeName: string): TypeRef {
  if (builtinSchema().findNamedType(typeName) === undefined) throw new Error(`no type found matching: ${typeName}`);
  return { namedType: typeName };
}

/** Whether encoding/json's `omitempty` drops a zero field of this kind (it never drops a struct). */
function omittedWhenZero(f: FieldSchema): boolean {
  if (f.omitempty !== true) return false;
  if (f.pointer === true || f.list === true || f.map === true) return true;
  return OMITTABLE_SCALARS.has(f.type);
}

/**
 * The zero value of a built-in struct type as the API server's typed conversion sees it: what
 * encoding/json writes for the Go zero value (`metadata: {creationTimestamp: null}`, `spec: {…}`
 * with every non-pointer struct present, nil pointers, maps and lists omitted or null). Upstream's
 * field manager compares a created object against this (the `New()` of its type), which is why a
 * created Deployment's Update set has `f:spec` without `.` (it existed, empty) but `f:rollingUpdate`
 * with it (a nil pointer before). Unknown names give `{}`.
 */
export function zeroObject(typeName: string): Record<string, Value> {
  const t = lookupType(typeName);
  const out: Record<string, Value> = {};
  if (t === undefined) return out;
  for (const [name, f] of Object.entries(t.fields)) {
    if (omittedWhenZero(f)) continue;
    if (f.pointer === true || f.list === true || f.map === true || f.type === 'bytes') out[name] = null;
    // Time and free-form values encode their zero as null.
    else if (scalarTypes[f.type] !== undefined || f.type === 'any') out[name] = (zeroValue(f.type) as Value | undefined) ?? null;
    else out[name] = zeroObject(f.type);
  }
  return out;
}
