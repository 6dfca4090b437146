/**
 * The field schema of every Kubernetes type, generated into types.json by `node scripts/gen-schema.mjs`
 * from @kubernetes/client-node's models (Kubernetes 1.34 field set, a superset of 1.33), with
 * `resource.Quantity` fields from kubernetes-types and the `patchStrategy`/`patchMergeKey` struct tags
 * of k8s.io/api overlaid. Type names are client-node's model names (`V1Pod`, `V1PodSpec`,
 * `V2HorizontalPodAutoscaler`, `CoreV1Event`, `EventsV1Event`); resolve a kind with {@link rootTypeName}.
 *
 * Used for unknown-field pruning and warnings (`fieldValidation`, upstream's strict decoding in
 * apimachinery/pkg/runtime/serializer/json), OpenAPI documents and strategic merge patch.
 */
import data from './types.json' with { type: 'json' };

/**
 * One field: `type` is a type name (see {@link lookupType}), `string`, `integer`, `number`, `boolean`,
 * `IntOrString`, `Quantity`, `Time`, `MicroTime` or `any` (free-form, e.g. RawExtension, fieldsV1);
 * `list`/`map` mark `[]type` and `map[string]type`. Patch metadata as in k8s.io/api struct tags:
 * `patchStrategy` is `merge`, `retainKeys` or `merge,retainKeys`; `patchMergeKey` names the field that
 * identifies list elements (absent for primitive merge lists such as `finalizers`).
 */
export interface FieldSchema {
  type: string;
  list?: boolean;
  map?: boolean;
  /**
   * Listed in upstream's OpenAPI `required` (its Go field has no `omitempty`, so Go always encodes
   * it, zero value included).
   */
  required?: boolean;
  patchStrategy?: string;
  patchMergeKey?: string;
}

/** A struct type: its JSON field names and their schemas. */
export interface TypeSchema {
  name: string;
  fields: Record<string, FieldSchema>;
}

interface SchemaFile {
  types: Record<string, Record<string, string>>;
  required: Record<string, string[]>;
  patch: Record<string, string>;
  roots: Record<string, Record<string, string>>;
}

const file = data as SchemaFile;
const decoded = new Map<string, TypeSchema>();

function decodeField(typeName: string, fieldName: string, encoded: string): FieldSchema {
  const f: FieldSchema = { type: encoded };
  if (encoded.startsWith('[]')) {
    f.type = encoded.slice(2);
    f.list = true;
  } else if (encoded.startsWith('{}')) {
    f.type = encoded.slice(2);
    f.map = true;
  }
  const patch = file.patch[`${typeName}.${fieldName}`];
  if (patch !== undefined) {
    const [strategy, key] = patch.split(':');
    if (strategy) f.patchStrategy = strategy;
    if (key !== undefined) f.patchMergeKey = key;
  }
  return f;
}

/** The schema of a type by name (e.g. `V1PodSpec`); decoded on first use and cached. Treat as read-only. */
export function lookupType(name: string): TypeSchema | undefined {
  let t = decoded.get(name);
  if (t) return t;
  if (!Object.prototype.hasOwnProperty.call(file.types, name)) return undefined;
  const raw = file.types[name] as Record<string, string>;
  const fields: Record<string, FieldSchema> = Object.create(null) as Record<string, FieldSchema>;
  for (const [f, enc] of Object.entries(raw)) fields[f] = decodeField(name, f, enc);
  for (const f of file.required[name] ?? []) if (fields[f]) fields[f].required = true;
  t = { name, fields };
  decoded.set(name, t);
  return t;
}

/**
 * The type of a top-level object: `rootTypeName('apps', 'v1', 'Deployment')` → `V1Deployment`;
 * the core group is `''` (or `'core'`): `rootTypeName('', 'v1', 'Pod')` → `V1Pod`. List kinds
 * (`PodList`) and subresource bodies (`policy/v1` Eviction, `autoscaling/v1` Scale) are included. The
 * meta/v1 kinds (Status, DeleteOptions, WatchEvent, APIResourceList, …) resolve under any group with
 * version `v1`, since clients send DeleteOptions with their resource's apiVersion.
 */
export function rootTypeName(group: string, version: string, kind: string): string | undefined {
  const apiVersion = group === '' || group === 'core' ? version : `${group}/${version}`;
  const kinds = file.roots[apiVersion];
  const own = kinds && Object.prototype.hasOwnProperty.call(kinds, kind) ? kinds[kind] : undefined;
  if (own !== undefined) return own;
  const meta = file.roots['meta.k8s.io/v1'] as Record<string, string>;
  return version === 'v1' && Object.prototype.hasOwnProperty.call(meta, kind) ? meta[kind] : undefined;
}

/** Every top-level kind in the schema: `{apiVersion: 'apps/v1', kind: 'Deployment', type: 'V1Deployment'}`. */
export function rootTypes(): { apiVersion: string; kind: string; type: string }[] {
  const out: { apiVersion: string; kind: string; type: string }[] = [];
  for (const [apiVersion, kinds] of Object.entries(file.roots)) {
    for (const [kind, type] of Object.entries(kinds)) out.push({ apiVersion, kind, type });
  }
  return out;
}

/** All type names, sorted. */
export function allTypeNames(): string[] {
  return Object.keys(file.types);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Removes, in place, every field of `obj` that its type does not declare, recursing through nested
 * types, lists and maps (`any` subtrees and scalar values are left alone; values of the wrong JSON
 * kind are not pruning's business and are kept). Returns the removed paths in upstream's strict
 * decoding notation — `spec.foo`, `spec.template.spec.containers[0].bar`, `spec.selector.matchLabels`
 * entries as `a.b` — in document order. An unknown `rootType` removes nothing.
 *
 * The server turns these into `strict decoding error: unknown field "spec.foo"` (fieldValidation=Strict,
 * 400), `Warning: unknown field "spec.foo"` (Warn), or just drops them (Ignore). `obj` must be a
 * private, unfrozen copy.
 */
export function pruneUnknownFields(obj: unknown, rootType: string): string[] {
  const removed: string[] = [];
  pruneStruct(obj, rootType, '', removed);
  return removed;
}

function pruneStruct(obj: unknown, typeName: string, path: string, removed: string[]): void {
  if (!isPlainObject(obj)) return;
  const t = lookupType(typeName);
  if (!t) return;
  for (const key of Object.keys(obj)) {
    const fieldPath = path ? `${path}.${key}` : key;
    const f = t.fields[key];
    if (!f) {
      delete obj[key];
      removed.push(fieldPath);
      continue;
    }
    if (f.type === 'any' || !isStructType(f.type)) continue;
    const v = obj[key];
    if (f.list) {
      if (Array.isArray(v)) v.forEach((item, i) => pruneStruct(item, f.type, `${fieldPath}[${i}]`, removed));
    } else if (f.map) {
      if (isPlainObject(v)) for (const k of Object.keys(v)) pruneStruct(v[k], f.type, `${fieldPath}.${k}`, removed);
    } else {
      pruneStruct(v, f.type, fieldPath, removed);
    }
  }
}

const SCALARS = new Set(['string', 'int32', 'int64', 'integer', 'number', 'boolean', 'IntOrString', 'Quantity', 'Time', 'MicroTime', 'any']);

/** Whether a field type names a struct (a type in the schema) rather than a scalar or `any`. */
export function isStructType(type: string): boolean {
  return !SCALARS.has(type);
}
