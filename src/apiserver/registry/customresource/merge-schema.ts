/**
 * The structured-merge schema of a custom resource version, for server-side apply and managedFields:
 * the CRD's structural schema read as kube-openapi `pkg/schemaconv/openapi.go` reads the OpenAPI the
 * apiextensions-apiserver publishes for it (`ToSchemaFromOpenAPI`):
 *
 * - `type: object` is a map: `properties` are its fields; unknown keys take `additionalProperties`'
 *   schema, or any value (deduced) when the object has no properties or unknown fields are preserved
 *   here or above, else none are allowed; `x-kubernetes-map-type: atomic|granular`;
 * - `type: array` is a list: `x-kubernetes-list-type` `atomic` (also the default), `set`, or `map`
 *   keyed by `x-kubernetes-list-map-keys`;
 * - `integer`/`number` are numeric scalars, `string` and `boolean` their own; no type (int-or-string,
 *   a preserved free-form value) is anything;
 * - the root and every `x-kubernetes-embedded-resource` get `apiVersion`, `kind` and the built-in
 *   ObjectMeta as `metadata`, as the published schema does (apiextensions-apiserver
 *   pkg/controller/openapi/builder).
 */
import { DEDUCED_TYPE, UNTYPED_ATOMIC_TYPE, type Atom, type ElementRelationship, type MapAtom, type StructField, type TypeRef } from '../../../machinery/merge/index.js';
import type { Structural } from './schema/index.js';

/** The type name of metav1.ObjectMeta in the built-in schema. */
const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

const STRING: TypeRef = { inlined: { scalar: 'string' } };

function mapRelationship(s: Structural): ElementRelationship | undefined {
  if (s.xMapType === 'atomic') return 'atomic';
  if (s.xMapType === 'granular') return 'separable';
  return undefined;
}

/** The list of a `type: array` node (parseList). */
function listAtom(s: Structural, preserve: boolean): Atom['list'] {
  const elementType: TypeRef = s.items ? typeRef(s.items, preserve) : { namedType: UNTYPED_ATOMIC_TYPE };
  if (s.xListType === 'set') return { elementType, elementRelationship: 'associative' };
  if (s.xListType === 'map') return { elementType, elementRelationship: 'associative', keys: s.xListMapKeys ?? [] };
  return { elementType, elementRelationship: 'atomic' };
}

/** The map of a `type: object` node (parseObject), with apiVersion/kind/metadata for a resource. */
function mapAtom(s: Structural, preserve: boolean, resource: boolean): MapAtom {
  const fields: StructField[] = Object.entries(s.properties ?? {})
    .filter(([name]) => !(resource && (name === 'apiVersion' || name === 'kind' || name === 'metadata')))
    .map(([name, p]) => ({ name, type: typeRef(p, preserve), ...(p.default !== undefined ? { default: p.default as never } : {}) }));
  if (resource) fields.push({ name: 'apiVersion', type: STRING }, { name: 'kind', type: STRING }, { name: 'metadata', type: { namedType: OBJECT_META } });
  let elementType: TypeRef | undefined;
  if (s.additionalProperties?.structural) elementType = typeRef(s.additionalProperties.structural, preserve);
  else if (s.additionalProperties?.bool === true || preserve || Object.keys(s.properties ?? {}).length === 0) elementType = { namedType: DEDUCED_TYPE };
  const relationship = mapRelationship(s);
  return { fields, ...(elementType ? { elementType } : {}), ...(relationship ? { elementRelationship: relationship } : {}) };
}

/** The atom of a node (parseSchema); `preserve` is inherited from ancestors. */
function atomOf(s: Structural, inherited: boolean, resource = false): Atom {
  const preserve = inherited || s.xPreserveUnknownFields === true;
  const embedded = resource || s.xEmbeddedResource === true;
  switch (s.type ?? '') {
    case '':
      return { scalar: 'untyped', list: listAtom(s, preserve), map: mapAtom(s, preserve, embedded) };
    case 'object':
      return { map: mapAtom(s, preserve, embedded) };
    case 'array':
      return { list: listAtom(s, preserve) };
    case 'integer':
    case 'number':
      return { scalar: 'numeric' };
    case 'boolean':
      return { scalar: 'boolean' };
    case 'string':
      return { scalar: 'string' };
    default:
      return { scalar: 'untyped' };
  }
}

function typeRef(s: Structural, preserve: boolean): TypeRef {
  return { inlined: atomOf(s, preserve) };
}

/**
 * The merge type of a CRD version from its structural schema, an inline type whose named references
 * (ObjectMeta) resolve in the built-in schema (merge's `builtinSchema()`); `preserveUnknownFields` is the CRD's legacy
 * `spec.preserveUnknownFields`. Without a schema everything is deduced (maps granular, lists
 * atomic), as for a type the server does not know.
 */
export function customResourceMergeType(structural: Structural | undefined, preserveUnknownFields = false): TypeRef {
  if (!structural) return { namedType: DEDUCED_TYPE };
  return { inlined: atomOf(structural, preserveUnknownFields, true) };
}
