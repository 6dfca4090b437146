/**
 * The untyped values structured-merge-diff works on, with upstream's total order, equality, `%v`
 * rendering and JSON encoding (sigs.k8s.io/structured-merge-diff/v4 value/value.go, value/fields.go,
 * value/map.go, value/list.go at v4.6.0).
 *
 * A value is plain JSON data as our objects carry it: null, boolean, number, string, array, object.
 * JavaScript has a single number type; upstream orders and compares ints and floats numerically
 * with each other, so treating every number alike gives the same order.
 */
import { goQuote } from '../errors/index.js';

/** A JSON value: what an object's field, a list item or a map-list key holds. */
export type Value = null | boolean | number | string | Value[] | { [k: string]: Value };

/** One named value of a list-map key (upstream value.Field). */
export interface KeyField {
  readonly name: string;
  readonly value: Value;
}

/**
 * `xs[i]` where the caller's loop bounds guarantee the item exists: the index type says
 * `T | undefined`, the algorithm says `T`.
 */
export function at<T>(xs: { readonly [i: number]: T } | { readonly [k: string]: T }, i: number | string): T {
  return (xs as Record<string | number, T>)[i] as T;
}

/** Is `v` a JSON object (not an array, not null)? */
export function isMap(v: unknown): v is { [k: string]: Value } {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Go's strings.Compare on the (ASCII in practice) strings Kubernetes uses as names and values. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Upstream's rank of the kinds of value: number < string < bool < list < map < null (value.Compare). */
function rank(v: Value): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (v !== null && typeof v === 'object') return 4;
  return 5;
}

/** The total order of values (value.Compare): -1, 0 or 1. */
export function compareValues(a: Value, b: Value): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 1:
      return compareStrings(a as string, b as string);
    case 2:
      return a === b ? 0 : a === false ? -1 : 1;
    case 3: {
      const la = a as Value[];
      const lb = b as Value[];
      for (let i = 0; ; i++) {
        if (i >= la.length && i >= lb.length) return 0;
        if (i >= la.length) return -1;
        if (i >= lb.length) return 1;
        const c = compareValues(at(la, i), at(lb, i));
        if (c !== 0) return c;
      }
    }
    case 4: {
      // value.MapCompare: walk the union of keys in lexical order; a key only on the left sorts it first.
      const ma = a as Record<string, Value>;
      const mb = b as Record<string, Value>;
      const keys = [...new Set([...Object.keys(ma), ...Object.keys(mb)])].sort(compareStrings);
      for (const k of keys) {
        const inA = Object.hasOwn(ma, k);
        const inB = Object.hasOwn(mb, k);
        if (!inA) return 1;
        if (!inB) return -1;
        const c = compareValues(at(ma, k), at(mb, k));
        if (c !== 0) return c;
      }
      return 0;
    }
    default:
      return 0;
  }
}

/** Deep equality of values (value.Equals). */
export function valuesEqual(a: Value, b: Value): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => valuesEqual(x, at(b, i)));
  }
  if (isMap(a)) {
    if (!isMap(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && valuesEqual(at(a, k), at(b, k)));
  }
  return false;
}

/**
 * Go's `%v` of a number: integers (int64 upstream, as decoded objects carry them) in full; other
 * numbers as Go's shortest `%g`, which switches to an exponent (two digits at least) below 1e-4 or
 * from 1e6 up.
 */
function numberString(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  const exp = n === 0 ? 0 : Math.floor(Math.log10(Math.abs(n)));
  if (exp < -4 || exp >= 6) return n.toExponential().replace(/e([+-])(\d)$/, 'e$10$2');
  return String(n);
}

/** A value as upstream's value.ToString renders it in path strings: `"a"`, `1`, `true`, `[1,2]`, `null`. */
export function valueString(v: Value): string {
  if (v === null) return 'null';
  if (typeof v === 'number') return numberString(v);
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return '[' + v.map(valueString).join(',') + ']';
  return Object.keys(v)
    .sort(compareStrings)
    .map((k) => `${k}=${valueString(at(v, k))}`)
    .join('');
}

const hex = '0123456789abcdef';

/**
 * A string as a JSON string literal the way json-iterator's standard-library-compatible stream
 * writes it: with `htmlEscape` (values, as encoding/json does) `<`, `>`, `&`, U+2028 and U+2029 are
 * escaped too; without it (object field names) only quotes, backslashes and control characters are.
 */
export function jsonString(s: string, htmlEscape: boolean): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = at(s, i);
    const c = s.charCodeAt(i);
    if (ch === '"' || ch === '\\') out += '\\' + ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20) out += '\\u00' + at(hex, c >> 4) + at(hex, c & 0xf);
    else if (htmlEscape && (ch === '<' || ch === '>' || ch === '&')) out += '\\u00' + at(hex, c >> 4) + at(hex, c & 0xf);
    else if (htmlEscape && (c === 0x2028 || c === 0x2029)) out += '\\u' + c.toString(16);
    else if (htmlEscape && c >= 0xd800 && c <= 0xdfff) {
      // A lone surrogate is invalid UTF-8 on the Go side, which encoding/json writes as U+FFFD.
      const next = s.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        out += ch + at(s, i + 1);
        i++;
      } else out += '\\ufffd';
    } else out += ch;
  }
  return out + '"';
}

/** A value as JSON, byte for byte as upstream's value.ToJSON (map keys sorted, HTML escaped). */
export function valueToJson(v: Value): string {
  if (v === null) return 'null';
  if (typeof v === 'number') return Number.isFinite(v) ? JSON.stringify(v) : 'null';
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return jsonString(v, true);
  if (Array.isArray(v)) return '[' + v.map(valueToJson).join(',') + ']';
  const keys = Object.keys(v).sort(compareStrings);
  return '{' + keys.map((k) => jsonString(k, true) + ':' + valueToJson(at(v, k))).join(',') + '}';
}

/** Order and compare list-map keys (value.FieldList.Compare): name by name, then value by value. */
export function compareKeys(a: readonly KeyField[], b: readonly KeyField[]): number {
  for (let i = 0; ; i++) {
    if (i >= a.length && i >= b.length) return 0;
    if (i >= a.length) return -1;
    if (i >= b.length) return 1;
    const c = compareStrings(at(a, i).name, at(b, i).name) || compareValues(at(a, i).value, at(b, i).value);
    if (c !== 0) return c;
  }
}

/** A list-map key from alternating names and values, sorted by name (fieldpath.KeyByFields). */
export function keyByFields(...nameValues: Value[]): KeyField[] {
  if (nameValues.length % 2 !== 0) throw new Error('must have a value for every name');
  const out: KeyField[] = [];
  for (let i = 0; i < nameValues.length; i += 2) out.push({ name: nameValues[i] as string, value: at(nameValues, i + 1) });
  return sortKeyFields(out);
}

/** Sort key fields by name, stably (value.FieldList.Sort). */
export function sortKeyFields(fields: KeyField[]): KeyField[] {
  return fields.sort((a, b) => compareStrings(a.name, b.name));
}
