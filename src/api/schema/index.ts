/**
 * The field schema of every Kubernetes API type, generated into types.json by
 * `node scripts/gen-schema.mjs` from upstream's Go types at v0.33.9 (Kubernetes v1.33): every GA
 * group-version of k8s.io/api, apimachinery's meta/v1, apiregistration/v1 (kube-aggregator),
 * apiextensions/v1 and metrics.k8s.io/v1beta1 (docs/adr/0008-schema-from-go-types.md). Types are named
 * as upstream's OpenAPI names them: `io.k8s.api.core.v1.Pod`, `io.k8s.api.apps.v1.DeploymentSpec`,
 * `io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`; resolve a kind with {@link rootTypeName}.
 *
 * Each field carries what the Go declaration says: its JSON name and type, pointer and `omitempty`
 * (how encoding/json treats its zero value), OpenAPI's `required`, the strategic-merge-patch tags
 * (`patchStrategy`, `patchMergeKey`) and the server-side-apply markers (`+listType`, `+listMapKey`,
 * `+mapType`, `+structType`), the values of `+enum` types and `+default`s. Descriptions are in
 * docs.json, loaded only on demand ({@link loadDocs}).
 *
 * Used for unknown-field pruning and warnings (`fieldValidation`, upstream's strict decoding in
 * apimachinery/pkg/runtime/serializer/json), typed decoding (machinery/serializer), OpenAPI documents
 * and strategic merge patch (apimachinery/pkg/util/strategicpatch reads the same struct tags).
 */
import data from './types.json' with { type: 'json' };

/**
 * One field of a struct type, as its Go declaration in k8s.io/api defines it.
 *
 * `type` is a type name (see {@link lookupType}) or a scalar: `string`, `int32`, `int64`, `number`
 * (float64), `boolean`, `bytes` (`[]byte`, base64 in JSON), `IntOrString`, `Quantity`, `Time`
 * (metav1.Time, RFC 3339 seconds), `MicroTime` (metav1.MicroTime, microseconds) or `any` (free-form:
 * RawExtension, FieldsV1, apiextensions' JSON). metav1.Duration and types.UID are `string`. `list`/`map`
 * mark `[]type` and `map[string]type`; a list or map of lists or maps (`map[string]ExtraValue`) has
 * `any` members.
 */
export interface FieldSchema {
  type: string;
  list?: boolean;
  map?: boolean;
  /**
   * Listed in upstream's OpenAPI `required` (kube-openapi's rule: marked `+required`, or neither
   * `+optional` nor `omitempty`). Without `omitempty`, Go always encodes the field, zero value included.
   */
  required?: boolean;
  /** A Go pointer (`*int32`): absent (nil) and the zero value are different values. */
  pointer?: boolean;
  /**
   * Tagged `omitempty`: Go leaves the field out when it holds an empty value (`""`, `0`, `false`, an
   * empty list or map, a nil pointer; never a struct). machinery/serializer applies this to every
   * object it decodes.
   */
  omitempty?: boolean;
  /** The `patchStrategy` struct tag: `merge`, `retainKeys` or `merge,retainKeys`. */
  patchStrategy?: string;
  /** The `patchMergeKey` struct tag: the field that identifies list elements (absent for primitive merge lists such as `finalizers`). */
  patchMergeKey?: string;
  /** `+listType`: `atomic`, `set` or `map` (server-side apply's `x-kubernetes-list-type`). */
  listType?: string;
  /** `+listMapKey`s of a `listType=map` list, in order: `Container.ports` → `['containerPort', 'protocol']`. */
  listMapKeys?: readonly string[];
  /** `+mapType` of a map: `atomic` or `granular`. */
  mapType?: string;
  /** `+structType` on the field: `atomic` or `granular` (overrides {@link TypeSchema.structType} of its type). */
  structType?: string;
  /** The values of the field's (or its members') `+enum` type, sorted: `PodSpec.restartPolicy` → `['Always', 'Never', 'OnFailure']`. */
  enum?: readonly string[];
  /** `+default`: the value upstream's defaulting (and OpenAPI) gives the field when it is absent. */
  default?: unknown;
}

/** A struct type: its JSON field names and their schemas, in Go's declaration order. */
export interface TypeSchema {
  name: string;
  fields: Record<string, FieldSchema>;
  /**
   * The type's own `+structType`: `atomic` for LabelSelector, OwnerReference,
   * CrossVersionObjectReference … (server-side apply replaces such a struct whole); absent: granular.
   */
  structType?: string;
}

interface SchemaFile {
  types: Record<string, Record<string, string>>;
  structTypes: Record<string, string>;
  enums: Record<string, string[]>;
  scalars: Record<string, string>;
  roots: Record<string, Record<string, string>>;
}

const file = data as SchemaFile;
const decoded = new Map<string, TypeSchema>();
const has = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** Decodes one field: `<type> [req] [ptr] [omit] [key=value…] [default=<json>]` (scripts/gen-schema.mjs). */
function decodeField(encoded: string): FieldSchema {
  const at = encoded.indexOf(' default=');
  const facts = (at < 0 ? encoded : encoded.slice(0, at)).split(' ');
  const type = facts[0] as string;
  const f: FieldSchema = { type };
  if (type.startsWith('[]')) {
    f.type = type.slice(2);
    f.list = true;
  } else if (type.startsWith('{}')) {
    f.type = type.slice(2);
    f.map = true;
  }
  for (const fact of facts.slice(1)) {
    const eq = fact.indexOf('=');
    const value = fact.slice(eq + 1);
    switch (eq < 0 ? fact : fact.slice(0, eq)) {
      case 'req':
        f.required = true;
        break;
      case 'ptr':
        f.pointer = true;
        break;
      case 'omit':
        f.omitempty = true;
        break;
      case 'patch':
        f.patchStrategy = value;
        break;
      case 'mergeKey':
        f.patchMergeKey = value;
        break;
      case 'listType':
        f.listType = value;
        break;
      case 'listMapKeys':
        f.listMapKeys = Object.freeze(value.split(','));
        break;
      case 'mapType':
        f.mapType = value;
        break;
      case 'structType':
        f.structType = value;
        break;
      case 'enum':
        f.enum = Object.freeze(file.enums[value] ?? []);
        break;
      default:
        throw new Error(`schema: unknown field fact ${fact}`);
    }
  }
  if (at >= 0) f.default = JSON.parse(encoded.slice(at + ' default='.length)) as unknown;
  return f;
}

/** The schema of a type by name (e.g. `io.k8s.api.core.v1.PodSpec`); decoded on first use and cached. Treat as read-only. */
export function lookupType(name: string): TypeSchema | undefined {
  let t = decoded.get(name);
  if (t) return t;
  if (!has(file.types, name)) return undefined;
  const raw = file.types[name] as Record<string, string>;
  const fields: Record<string, FieldSchema> = Object.create(null) as Record<string, FieldSchema>;
  for (const [f, enc] of Object.entries(raw)) fields[f] = decodeField(enc);
  t = { name, fields };
  if (has(file.structTypes, name)) t.structType = file.structTypes[name];
  decoded.set(name, t);
  return t;
}

/**
 * The type of a top-level object: `rootTypeName('apps', 'v1', 'Deployment')` →
 * `io.k8s.api.apps.v1.Deployment`; the core group is `''` (or `'core'`): `rootTypeName('', 'v1', 'Pod')`
 * → `io.k8s.api.core.v1.Pod`. Top-level kinds are the structs that inline TypeMeta and have object or
 * list metadata: list kinds (`PodList`) and subresource bodies (`policy/v1` Eviction, `autoscaling/v1`
 * Scale, `authentication.k8s.io/v1` TokenRequest, core Binding) included. The meta/v1 kinds (Status,
 * DeleteOptions, WatchEvent, APIResourceList, …) resolve under any group with version `v1`, since
 * clients send DeleteOptions with their resource's apiVersion.
 */
export function rootTypeName(group: string, version: string, kind: string): string | undefined {
  const apiVersion = group === '' || group === 'core' ? version : `${group}/${version}`;
  const kinds = file.roots[apiVersion];
  const own = kinds && has(kinds, kind) ? kinds[kind] : undefined;
  if (own !== undefined) return own;
  const meta = file.roots['meta.k8s.io/v1'] as Record<string, string>;
  return version === 'v1' && has(meta, kind) ? meta[kind] : undefined;
}

/** Every top-level kind in the schema: `{apiVersion: 'apps/v1', kind: 'Deployment', type: 'io.k8s.api.apps.v1.Deployment'}`. */
export function rootTypes(): { apiVersion: string; kind: string; type: string }[] {
  const out: { apiVersion: string; kind: string; type: string }[] = [];
  for (const [apiVersion, kinds] of Object.entries(file.roots)) {
    for (const [kind, type] of Object.entries(kinds)) out.push({ apiVersion, kind, type });
  }
  return out;
}

/**
 * The OpenAPI definition name of a scalar that upstream's OpenAPI defines by name (a self-encoding Go
 * type with OpenAPISchemaType/Format methods): `Quantity` → `io.k8s.apimachinery.pkg.api.resource.Quantity`,
 * `IntOrString`, `Time`, `MicroTime`; undefined for the others (`string`, `int32`, `any` …). docs.json
 * has its description.
 */
export function scalarDefinitionName(scalar: string): string | undefined {
  return has(file.scalars, scalar) ? file.scalars[scalar] : undefined;
}

/** All type names, by package (as scripts/gen-schema.mjs reads them), then by name. */
export function allTypeNames(): string[] {
  return Object.keys(file.types);
}

/** Upstream's descriptions of the types and their fields (docs.json). */
export interface SchemaDocs {
  /** A type's description (`io.k8s.api.core.v1.Pod` → `Pod is a collection of containers …`), or undefined. */
  describeType(name: string): string | undefined;
  /**
   * A field's description, as upstream's OpenAPI serves it: a field of an enum type ends with a
   * `Possible enum values:` paragraph listing each value and its constant's comment.
   */
  describeField(type: string, field: string): string | undefined;
}

let docs: Promise<SchemaDocs> | undefined;

/**
 * Loads docs.json (about 0.7 MB) on first call; only what shows descriptions (the OpenAPI documents
 * behind `kubectl explain`) needs it, so the server does not parse it at start-up.
 */
export function loadDocs(): Promise<SchemaDocs> {
  docs ??= import('./docs.json', { with: { type: 'json' } }).then((m) => {
    const text = m.default as Record<string, Record<string, string>>;
    const entry = (type: string, key: string): string | undefined => {
      const t = has(text, type) ? text[type] : undefined;
      return t && has(t, key) ? t[key] : undefined;
    };
    return { describeType: (name) => entry(name, ''), describeField: (type, field) => (field === '' ? undefined : entry(type, field)) };
  });
  return docs;
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

const SCALARS = new Set(['string', 'int32', 'int64', 'number', 'boolean', 'bytes', 'IntOrString', 'Quantity', 'Time', 'MicroTime', 'any']);

/** Whether a field type names a struct (a type in the schema) rather than a scalar or `any`. */
export function isStructType(type: string): boolean {
  return !SCALARS.has(type);
}
