/**
 * What the API server's JSON decoder does to a typed object, so that what kubeplane stores is what
 * upstream's typed decoding would have produced (k8s.io/apimachinery/pkg/runtime/serializer/json,
 * which decodes with sigs.k8s.io/json, a case-sensitive fork of Go's encoding/json):
 *
 * - **Types.** A value whose JSON kind does not fit its field fails with encoding/json's
 *   `UnmarshalTypeError` text: `json: cannot unmarshal string into Go struct field
 *   DeploymentSpec.spec.replicas of type int32`. Integers must fit their Go width: `2147483648` or
 *   `1e20` in an int32 field fail the same way (`number 2147483648`), as strconv.ParseInt's range
 *   error does. `metav1.Time` and `MicroTime` strings must parse as RFC 3339 (see machinery/time).
 * - **null.** Go decodes `null` into a pointer, slice or map as nil and leaves any other value at
 *   its zero value. So a `null` field is dropped (it is omitted when encoded again), and a `null`
 *   element of a list or value of a map becomes the element type's zero value: `{}` for a struct,
 *   `""`, `0`, `false`; e.g. `nodeSelectorTerms: [null]` decodes as `[{}]` (an empty term, which
 *   matches no node) and `labels: {a: null}` as `{a: ""}`. Nothing downstream ever sees a `null`
 *   inside a typed object.
 * - **Always-encoded scalars.** A string, number or boolean field that is neither a pointer nor
 *   tagged `omitempty` is always encoded by Go, zero value included: a Taint sent without `key` is
 *   stored and shown with `key: ""`, an Event without `reportingComponent` with
 *   `reportingComponent: ""`, and validation reports the empty value as upstream does. Code
 *   downstream can rely on such fields being present, as their TypeScript types say.
 * - **Omitted empty values.** A field tagged `omitempty` that is not a pointer and holds an empty
 *   value (encoding/json's `isEmptyValue`: `""`, `0`, `false`, an empty list or map; structs are
 *   never empty) is left out, as Go leaves it out when it encodes the decoded struct: an orphaned
 *   ReplicaSet has no `ownerReferences: []`, a Deployment status no `unavailableReplicas: 0`. A
 *   pointer keeps its zero value (`replicas: 0` is not `replicas` unset). So what is stored, served
 *   and compared to decide whether an update changes anything is Go's encoding, whichever client or
 *   controller sent it.
 * - **Depth.** encoding/json refuses documents nested deeper than 10,000 levels (`exceeded max
 *   depth`). kubeplane's limit is {@link MAX_NESTING_DEPTH}: V8's JSON.stringify and structuredClone
 *   recurse on the machine stack and overflow at about 3,300–4,100 levels, and a patch can nest a
 *   patch's depth under a stored object's, so objects must stay well under half of that.
 */
import { isStructType, lookupType, type FieldSchema } from '../../api/schema/index.js';
import { goTimeParseError, RFC3339, RFC3339_MICRO } from '../time/index.js';

/** The deepest nesting of objects and arrays a request body or a stored object may have. */
export const MAX_NESTING_DEPTH = 1000;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * encoding/json's scanner error for a document nested deeper than `max` (objects and arrays count
 * one level each): `invalid character '{' exceeded max depth` (`[` when the level that is one too
 * many is an array); undefined when `value` is within the limit. The walk stops descending at
 * `max + 1`, so its own recursion is bounded whatever the input's depth; it allocates nothing (it runs
 * on every request body).
 */
export function maxDepthError(value: unknown, max = MAX_NESTING_DEPTH): string | undefined {
  const tooDeep = deepestBeyond(value, 1, max);
  return tooDeep === undefined ? undefined : `invalid character '${Array.isArray(tooDeep) ? '[' : '{'}' exceeded max depth`;
}

/** The first container found at a depth beyond `max` (`v` being at `depth`), or undefined. */
function deepestBeyond(v: unknown, depth: number, max: number): unknown {
  if (v === null || typeof v !== 'object') return undefined;
  if (depth > max) return v;
  if (Array.isArray(v)) {
    for (const c of v) {
      const found = deepestBeyond(c, depth + 1, max);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const k in v) {
    const found = deepestBeyond((v as Record<string, unknown>)[k], depth + 1, max);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** `io.k8s.api.apps.v1.DeploymentSpec` → `DeploymentSpec`: the Go struct's name, as encoding/json names it in errors. */
function goStructName(typeName: string): string {
  return typeName.slice(typeName.lastIndexOf('.') + 1);
}

/** `io.k8s.api.apps.v1.DeploymentSpec` → `v1.DeploymentSpec`: Go's `reflect.Type.String()`, package name first. */
function goQualifiedName(typeName: string): string {
  const parts = typeName.split('.');
  return parts.slice(-2).join('.');
}

const GO_SCALARS: Record<string, string> = {
  string: 'string',
  int32: 'int32',
  int64: 'int64',
  number: 'float64',
  boolean: 'bool',
  bytes: '[]uint8',
  IntOrString: 'intstr.IntOrString',
  Quantity: 'resource.Quantity',
  Time: 'v1.Time',
  MicroTime: 'v1.MicroTime',
  any: 'interface {}',
};

/** Go's spelling of a field type: `int32`, `string`, `v1.PodSpec`, `[]v1.Container`, `map[string]string`. */
function goTypeName(f: Pick<FieldSchema, 'type' | 'list' | 'map'>): string {
  const base = GO_SCALARS[f.type] ?? goQualifiedName(f.type);
  if (f.list) return `[]${base}`;
  if (f.map) return `map[string]${base}`;
  return base;
}

/** encoding/json's name for the JSON value that did not fit: `string`, `number 1.5`, `bool`, `object`, `array`. */
function jsonKind(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return `number ${String(v)}`;
  return Array.isArray(v) ? 'array' : 'object';
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
/** 2^63: the nearest double to int64's bounds (JSON.parse has already rounded the literal). */
const INT64_LIMIT = 2 ** 63;

/** Whether a scalar JSON value fits a scalar type, integers within their Go width. */
function scalarFits(type: string, v: unknown): boolean {
  switch (type) {
    case 'string':
    case 'bytes':
    case 'Time':
    case 'MicroTime':
      return typeof v === 'string';
    case 'int32':
      return typeof v === 'number' && Number.isInteger(v) && v >= INT32_MIN && v <= INT32_MAX;
    case 'int64':
      return typeof v === 'number' && Number.isInteger(v) && v >= -INT64_LIMIT && v < INT64_LIMIT;
    case 'number':
      return typeof v === 'number';
    case 'boolean':
      return typeof v === 'boolean';
    case 'IntOrString':
      // intstr.IntOrString decodes a number into an int32.
      return typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v) && v >= INT32_MIN && v <= INT32_MAX);
    case 'Quantity':
      return typeof v === 'string' || typeof v === 'number';
    default:
      return true;
  }
}

/** The error a well-typed scalar can still have: a Time or MicroTime that does not parse. */
function scalarValueError(type: string, v: unknown): string | undefined {
  if (type === 'Time') return goTimeParseError(v as string, RFC3339);
  if (type === 'MicroTime') return goTimeParseError(v as string, RFC3339_MICRO);
  return undefined;
}

/**
 * The Go zero value a `null` list element or map value decodes to; undefined for types whose zero
 * value encodes as `null` (Time, free-form), which are left as they are. A nil `[]byte` encodes as
 * `null` too, but becomes `''` here (a Secret's `data: {a: null}` is stored as `{a: ''}`), so that
 * nothing downstream meets a `null` where it expects a string.
 */
export function zeroValue(type: string): unknown {
  switch (type) {
    case 'string':
    case 'bytes':
      return '';
    case 'int32':
    case 'int64':
    case 'number':
    case 'IntOrString':
      return 0;
    case 'boolean':
      return false;
    case 'Quantity':
      return '0';
    case 'Time':
    case 'MicroTime':
    case 'any':
      return undefined;
    default:
      return {};
  }
}

/**
 * Decodes `obj` in place as Go would decode it into `rootType` (see the module doc): checks every
 * value against its declared type, applies Go's `null` semantics, and returns the first error as
 * the decoder words it, or undefined. Fields the type does not declare and free-form (`any`) values
 * are left alone (unknown fields are pruning's business). `obj` must be a private, unfrozen copy
 * within {@link MAX_NESTING_DEPTH}; an unknown `rootType` checks nothing.
 */
export function decodeTypedObject(obj: Record<string, unknown>, rootType: string): string | undefined {
  return decodeStruct(obj, rootType, '');
}

/**
 * Scalar types whose zero value encoding/json's `isEmptyValue` counts as empty (`""`, `0`, `false`, a
 * nil or empty `[]byte`); the others are structs (IntOrString, Quantity, Time, RawExtension …), which
 * `omitempty` never leaves out.
 */
export const OMITTABLE_SCALARS = new Set(['string', 'bytes', 'int32', 'int64', 'number', 'boolean']);

/** A list or map without members (a nil or empty Go slice or map). */
function isEmptyContainer(v: unknown[] | Record<string, unknown>): boolean {
  if (Array.isArray(v)) return v.length === 0;
  for (const _ in v) return false;
  return true;
}

/** Scalar types whose Go zero value is encoded as a value (not `null`). */
const ENCODED_ZERO = new Set(['string', 'int32', 'int64', 'number', 'boolean']);
/** Per type: its scalar fields whose zero value Go encodes (neither pointer nor `omitempty`). */
const encodedScalars = new Map<string, [string, unknown][]>();

function encodedScalarsOf(typeName: string, fields: Record<string, FieldSchema>): [string, unknown][] {
  let out = encodedScalars.get(typeName);
  if (!out) {
    out = Object.entries(fields)
      .filter(([, f]) => !f.omitempty && !f.pointer && !f.list && !f.map && ENCODED_ZERO.has(f.type))
      .map(([name, f]) => [name, zeroValue(f.type)]);
    encodedScalars.set(typeName, out);
  }
  return out;
}

function decodeStruct(obj: Record<string, unknown>, typeName: string, path: string): string | undefined {
  const t = lookupType(typeName);
  if (!t) return undefined;
  for (const [name, zero] of encodedScalarsOf(typeName, t.fields)) if (obj[name] === undefined || obj[name] === null) obj[name] = zero;
  // for…in: no key array per object on this per-write path (deleting the current key is allowed).
  for (const key in obj) {
    const f = t.fields[key];
    const v = obj[key];
    if (!f || v === undefined) continue;
    if (v === null) {
      delete obj[key];
      continue;
    }
    if (f.type === 'any') continue;
    const fieldPath = path ? `${path}.${key}` : key;
    const misfit = (value: unknown, goType: string): string =>
      `json: cannot unmarshal ${jsonKind(value)} into Go struct field ${goStructName(typeName)}.${fieldPath} of type ${goType}`;
    if (f.list || f.map) {
      if (f.list ? !Array.isArray(v) : !isPlainObject(v)) return misfit(v, goTypeName(f));
      const err = decodeMembers(v as unknown[] | Record<string, unknown>, f.type, fieldPath, misfit);
      if (err) return err;
      if (f.omitempty && !f.pointer && isEmptyContainer(v as unknown[] | Record<string, unknown>)) delete obj[key];
      continue;
    }
    const err = decodeValue(v, f.type, fieldPath, misfit);
    if (err) return err;
    if (f.omitempty && !f.pointer && OMITTABLE_SCALARS.has(f.type) && (v === '' || v === 0 || v === false)) delete obj[key];
  }
  return undefined;
}

type Misfit = (value: unknown, goType: string) => string;

/** One non-null value of `type`. */
function decodeValue(v: unknown, type: string, path: string, misfit: Misfit): string | undefined {
  if (isStructType(type)) {
    if (!isPlainObject(v)) return misfit(v, goTypeName({ type }));
    return decodeStruct(v, type, path);
  }
  if (!scalarFits(type, v)) return misfit(v, goTypeName({ type }));
  return scalarValueError(type, v);
}

/** The elements of a list or the values of a map, each of `type`; `null` members become zero values. */
function decodeMembers(members: unknown[] | Record<string, unknown>, type: string, path: string, misfit: Misfit): string | undefined {
  if (type === 'any') return undefined;
  const container = members as Record<string, unknown>;
  for (const k in container) {
    let v = container[k];
    if (v === null) {
      v = zeroValue(type);
      if (v === undefined) continue;
      // A zero struct is decoded too, so that its always-encoded scalars get their zero values.
      container[k] = v;
    }
    const err = decodeValue(v, type, path, misfit);
    if (err) return err;
  }
  return undefined;
}
