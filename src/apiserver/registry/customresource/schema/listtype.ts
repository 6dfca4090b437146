/**
 * The invariants of `x-kubernetes-list-type: set` and `map` lists in custom objects: upstream
 * k8s.io/apiextensions-apiserver pkg/apiserver/schema/listtype/validation.go (ValidateListSetsAndMaps).
 */
import { GoSyntax, field, type FieldError } from '../../../../machinery/errors/index.js';
import { isJSONObject, propertyOf, type Structural } from './structural.js';

/**
 * Go's `%#v` of a JSON value decoded into `interface{}`: `map[string]interface {}{"a":1, "b":"x"}`
 * (keys sorted), `[]interface {}{1, "a"}`, strings quoted, `interface {}(nil)` for null.
 */
export function goJSONRepr(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goJSONRepr).join(', ')}}`;
  if (isJSONObject(v)) {
    const entries = Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${goJSONRepr(v[k])}`);
    return `map[string]interface {}{${entries.join(', ')}}`;
  }
  return typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);
}

/** A bad value as upstream's field errors print it: scalars as they are, maps and lists with `%#v`. */
export function goBadValue(v: unknown): unknown {
  return typeof v === 'object' && v !== null ? new GoSyntax(goJSONRepr(v)) : v;
}

/** Go's `json.Marshal` of decoded JSON: object keys sorted, so equal values give equal text. */
function canonicalJSON(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJSON).join(',')}]`;
  if (isJSONObject(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJSON(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/** A key standing for "no key": upstream's `unspecifiedKeyValue{}`. */
const UNSPECIFIED = Symbol('unspecified');

/** `validateListSet`: the indexes of the second occurrence of each value seen more than once. */
function nonUniqueIndexes(items: readonly unknown[]): number[] {
  if (items.length <= 1) return [];
  const seen = new Map<unknown, number>();
  const out: number[] = [];
  items.forEach((x, i) => {
    const k = typeof x === 'object' && x !== null ? `json:${canonicalJSON(x)}` : x;
    const times = seen.get(k) ?? 0;
    seen.set(k, times + 1);
    if (times === 1) out.push(i);
  });
  return out;
}

function validateListMap(path: string, s: Structural, list: readonly unknown[]): FieldError[] {
  for (let i = 0; i < list.length; i++) {
    const x = list[i];
    if (x !== null && !isJSONObject(x)) return [field.invalid(`${path}[${i}]`, goBadValue(x), 'must be an object for an array of list-type map')];
  }
  if (list.length <= 1) return [];
  const keyFields = s.xListMapKeys ?? [];
  if (keyFields.length === 1) {
    const kf = keyFields[0] as string;
    const keys = list.map((x) => (isJSONObject(x) && Object.hasOwn(x, kf) ? x[kf] : UNSPECIFIED));
    return nonUniqueIndexes(keys).map((i) => {
      const k = keys[i];
      return field.duplicate(`${path}[${i}]`, goBadValue(k === UNSPECIFIED ? {} : { [kf]: k }));
    });
  }
  const keys = list.map((x) => {
    const key: Record<string, unknown> = {};
    if (isJSONObject(x)) for (const kf of keyFields) if (Object.hasOwn(x, kf)) key[kf] = x[kf];
    return key;
  });
  return nonUniqueIndexes(keys).map((i) => field.duplicate(`${path}[${i}]`, goBadValue(keys[i])));
}

function validateArray(path: string, s: Structural, list: readonly unknown[], errs: FieldError[]): void {
  if (s.xListType === 'set') {
    for (const i of nonUniqueIndexes(list)) errs.push(field.duplicate(`${path}[${i}]`, goBadValue(list[i])));
  } else if (s.xListType === 'map') {
    errs.push(...validateListMap(path, s, list));
  }
  if (s.items) list.forEach((x, i) => validateValue(`${path}[${i}]`, s.items as Structural, x, errs));
}

function validateValue(path: string, s: Structural, x: unknown, errs: FieldError[]): void {
  if (Array.isArray(x)) validateArray(path, s, x, errs);
  else if (isJSONObject(x)) validateObject(path, s, x, errs);
}

function validateObject(path: string, s: Structural, obj: Record<string, unknown>, errs: FieldError[]): void {
  const ap = s.additionalProperties?.structural;
  if (ap) for (const [k, v] of Object.entries(obj)) validateValue(`${path}[${k}]`, ap, v, errs);
  if (s.properties) {
    for (const [k, v] of Object.entries(obj)) {
      const sub = propertyOf(s, k);
      if (sub) validateValue(path ? `${path}.${k}` : k, sub, v, errs);
    }
  }
}

/**
 * `ValidateListSetsAndMaps`: duplicates in `set` lists (`spec.l[1]: Duplicate value: "a"`) and
 * duplicate keys in `map` lists (`spec.l[1]: Duplicate value: map[string]interface {}{"name":"a"}`,
 * an item without the key counting as the key `{}`), and non-object items of map lists.
 */
export function validateListSetsAndMaps(path: string, s: Structural | undefined, obj: unknown): FieldError[] {
  const errs: FieldError[] = [];
  if (s && isJSONObject(obj)) validateObject(path, s, obj, errs);
  return errs;
}
