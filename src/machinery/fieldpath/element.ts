/**
 * Path elements: one step from a node of an object to one of its children, and their FieldsV1 string
 * forms. Follows sigs.k8s.io/structured-merge-diff/v4 fieldpath/element.go and
 * fieldpath/serialize-pe.go (v4.6.0).
 */
import { at, compareKeys, compareStrings, compareValues, isMap, jsonString, sortKeyFields, valueString, valueToJson, valuesEqual, type KeyField, type Value } from './value.js';

/**
 * One step of a path. Exactly one of the four is set (an element with none is the "invalid" element
 * upstream's zero PathElement is):
 * - `fieldName`: a field of a struct or a key of a map (`f:name`);
 * - `key`: the key fields, sorted by name, of an item of a list-map (`k:{"name":"c","port":80}`);
 * - `value`: an item of a set list, by its value (`v:"x"`);
 * - `index`: an item of an atomic-less list addressed by position (`i:0`, deduced types only).
 */
export interface PathElement {
  readonly fieldName?: string;
  readonly key?: readonly KeyField[];
  readonly value?: Value;
  readonly index?: number;
}

/** Upstream's order: field names, then keys, then values, then indices (PathElement.Compare). */
export function compareElements(a: PathElement, b: PathElement): number {
  if (a.fieldName !== undefined) return b.fieldName === undefined ? -1 : compareStrings(a.fieldName, b.fieldName);
  if (b.fieldName !== undefined) return 1;
  if (a.key !== undefined) return b.key === undefined ? -1 : compareKeys(a.key, b.key);
  if (b.key !== undefined) return 1;
  if (a.value !== undefined) return b.value === undefined ? -1 : compareValues(a.value, b.value);
  if (b.value !== undefined) return 1;
  if (a.index !== undefined) return b.index === undefined ? -1 : a.index < b.index ? -1 : a.index > b.index ? 1 : 0;
  if (b.index !== undefined) return 1;
  return 0;
}

/** Whether two elements address the same child (PathElement.Equals). */
export function elementsEqual(a: PathElement, b: PathElement): boolean {
  if (a.fieldName !== undefined || b.fieldName !== undefined) return a.fieldName === b.fieldName;
  if (a.key !== undefined || b.key !== undefined) {
    const bk = b.key;
    if (a.key === undefined || bk === undefined || a.key.length !== bk.length) return false;
    return a.key.every((f, i) => f.name === at(bk, i).name && valuesEqual(f.value, at(bk, i).value));
  }
  if (a.value !== undefined || b.value !== undefined) return a.value !== undefined && b.value !== undefined && valuesEqual(a.value, b.value);
  return a.index === b.index;
}

/** The element as upstream prints it in paths and conflict messages: `.name`, `[name="c",port=80]`, `[="x"]`, `[0]`. */
export function elementString(e: PathElement): string {
  if (e.fieldName !== undefined) return '.' + e.fieldName;
  if (e.key !== undefined) return '[' + e.key.map((k) => `${k.name}=${valueString(k.value)}`).join(',') + ']';
  if (e.value !== undefined) return `[=${valueString(e.value)}]`;
  if (e.index !== undefined) return `[${e.index}]`;
  return '{{invalid path element}}';
}

/** Thrown by {@link deserializePathElement} for a prefix other than f, k, v, i (upstream ErrUnknownPathElementType). */
export class UnknownPathElementTypeError extends Error {
  override readonly name = 'UnknownPathElementTypeError';
  constructor() {
    super('unknown path element type');
  }
}

/** The FieldsV1 key of an element: `f:name`, `k:{…}` (keys sorted, JSON as encoding/json writes it), `v:…`, `i:0`. Throws on an invalid element. */
export function serializePathElement(e: PathElement): string {
  if (e.fieldName !== undefined) return 'f:' + e.fieldName;
  if (e.key !== undefined) return 'k:{' + e.key.map((f) => jsonString(f.name, false) + ':' + valueToJson(f.value)).join(',') + '}';
  if (e.value !== undefined) return 'v:' + valueToJson(e.value);
  if (e.index !== undefined) return 'i:' + String(e.index);
  throw new Error('invalid PathElement');
}

function parseJson(s: string): Value {
  return JSON.parse(s) as Value;
}

/**
 * Parse a FieldsV1 key back into an element (DeserializePathElement). Throws
 * {@link UnknownPathElementTypeError} for an unknown prefix (callers drop those, as a newer
 * version may know them) and a plain Error for anything malformed.
 */
export function deserializePathElement(s: string): PathElement {
  let pe = parsedElements.get(s);
  if (pe === undefined) {
    pe = parsePathElement(s);
    // Every write decodes its object's managedFields, and their keys repeat; elements are never changed.
    if (parsedElements.size >= PARSED_ELEMENTS_MAX) parsedElements.clear();
    if (pe.key !== undefined) Object.freeze(pe.key);
    parsedElements.set(s, Object.freeze(pe));
  }
  return pe;
}

/** Parsed path elements by their serialized form, at most {@link PARSED_ELEMENTS_MAX}. */
const parsedElements = new Map<string, PathElement>();
const PARSED_ELEMENTS_MAX = 8192;

function parsePathElement(s: string): PathElement {
  if (s.length < 2) throw new Error('key must be 2 characters long:');
  if (s[1] !== ':') throw new Error(`missing colon: ${s}`);
  const rest = s.slice(2);
  switch (s.charAt(0)) {
    case 'f':
      return { fieldName: rest };
    case 'v':
      return { value: parseJson(rest) };
    case 'k': {
      const obj = parseJson(rest);
      if (!isMap(obj)) throw new Error(`k: expects a JSON object: ${s}`);
      return { key: sortKeyFields(Object.entries(obj).map(([name, value]) => ({ name, value }))) };
    }
    case 'i': {
      if (!/^[+-]?\d+$/.test(rest)) throw new Error(`strconv.Atoi: parsing ${JSON.stringify(rest)}: invalid syntax`);
      return { index: Number(rest) };
    }
    default:
      throw new UnknownPathElementTypeError();
  }
}

/** A sorted set of path elements (PathElementSet). */
export class PathElementSet {
  /** Sorted by {@link compareElements}, no duplicates. */
  members: PathElement[] = [];

  /** Index of the first member not less than `pe`. */
  private search(pe: PathElement): number {
    let lo = 0;
    let hi = this.members.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compareElements(at(this.members, mid), pe) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  insert(pe: PathElement): void {
    const loc = this.search(pe);
    if (loc < this.members.length && elementsEqual(at(this.members, loc), pe)) return;
    this.members.splice(loc, 0, pe);
  }

  has(pe: PathElement): boolean {
    const loc = this.search(pe);
    return loc < this.members.length && elementsEqual(at(this.members, loc), pe);
  }

  size(): number {
    return this.members.length;
  }

  equals(other: PathElementSet): boolean {
    return this.members.length === other.members.length && this.members.every((m, i) => elementsEqual(m, at(other.members, i)));
  }

  union(other: PathElementSet): PathElementSet {
    const out = new PathElementSet();
    const a = this.members;
    const b = other.members;
    let i = 0;
    let j = 0;
    while (i < a.length && j < b.length) {
      const c = compareElements(at(a, i), at(b, j));
      if (c < 0) out.members.push(at(a, i++));
      else {
        out.members.push(at(b, j));
        if (c === 0) i++;
        j++;
      }
    }
    out.members.push(...a.slice(i), ...b.slice(j));
    return out;
  }

  intersection(other: PathElementSet): PathElementSet {
    const out = new PathElementSet();
    const a = this.members;
    const b = other.members;
    let i = 0;
    let j = 0;
    while (i < a.length && j < b.length) {
      const c = compareElements(at(a, i), at(b, j));
      if (c < 0) i++;
      else {
        if (c === 0) out.members.push(at(a, i++));
        j++;
      }
    }
    return out;
  }

  difference(other: PathElementSet): PathElementSet {
    const out = new PathElementSet();
    const a = this.members;
    const b = other.members;
    let i = 0;
    let j = 0;
    while (i < a.length && j < b.length) {
      const c = compareElements(at(a, i), at(b, j));
      if (c < 0) out.members.push(at(a, i++));
      else {
        if (c === 0) i++;
        j++;
      }
    }
    out.members.push(...a.slice(i));
    return out;
  }
}
