/**
 * The Kubernetes CEL library at run time (upstream k8s.io/apiserver pkg/cel/library: lists.go,
 * regex.go, urls.go, quantity.go; cel-go ext strings through `@bufbuild/cel/ext`), as
 * `@bufbuild/cel` functions. Their static signatures (for the checker) are in signatures.ts.
 *
 * Library values with no CEL counterpart in `@bufbuild/cel` (Quantity, URL, optional) are
 * carried as one-key maps tagged with {@link QUANTITY_TAG} / {@link URL_TAG} / {@link OPTIONAL_TAG};
 * rules cannot build such maps themselves because the checker types them as their library types.
 */
import { CelScalar, celError, celFunc, celMethod, isCelList, isCelMap, listType, mapType, objectType, type CelFunc, type CelList, type CelMap, type CelValue } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { parseQuantity, type Quantity } from '../../../../machinery/quantity/index.js';

export const QUANTITY_TAG = '@kubeplane.quantity';
export const URL_TAG = '@kubeplane.url';
export const OPTIONAL_TAG = '@kubeplane.optional';
/** The function `==` on set/map lists is rewritten to (`!=` to its negation). */
export const UNORDERED_EQUALS = 'kubeplaneUnorderedEquals';
/** The member function field selections on optionals are rewritten to. */
export const OPTIONAL_SELECT = 'kubeplaneOptionalSelect';

const { DYN, INT, STRING, BOOL, DOUBLE } = CelScalar;
const LIST = listType(DYN);
const MAP = mapType(STRING, DYN);

/** An optional value as the evaluator sees it: `{ '@kubeplane.optional': [] }` or `[v]`. */
export function optionalValue(v: unknown): Record<string, unknown> {
  return { [OPTIONAL_TAG]: v === undefined ? [] : [v] };
}

function tagged(m: CelMap, tag: string): CelValue | undefined {
  return m.size === 1 ? m.get(tag) : undefined;
}

function optionalOf(m: CelMap): CelList {
  const v = tagged(m, OPTIONAL_TAG);
  if (!isCelList(v)) throw new Error('no such overload');
  return v;
}

// ---------------------------------------------------------------------------------------------
// lists.go

/** CEL ordering of two comparable values (ints, uints, doubles, strings, bools, bytes). */
function compare(a: CelValue, b: CelValue): number {
  if ((typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number')) {
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (isCelMap(a) && isCelMap(b) && tagged(a, QUANTITY_TAG) !== undefined) return quantityOf(a).cmp(quantityOf(b));
  throw new Error('no such overload');
}

function listValues(l: CelList): CelValue[] {
  return [...l];
}

function sum(this: CelList): CelValue {
  const xs = listValues(this);
  if (xs.length === 0) return 0n;
  let acc = xs[0] as CelValue;
  for (const x of xs.slice(1)) {
    if (typeof acc === 'bigint' && typeof x === 'bigint') {
      acc += x;
      if (acc > 9223372036854775807n || acc < -9223372036854775808n) throw new Error('integer overflow');
    } else if (typeof acc === 'number' && typeof x === 'number') acc += x;
    else throw new Error('no such overload');
  }
  return acc;
}

function extreme(sign: number) {
  return function (this: CelList): CelValue {
    const xs = listValues(this);
    if (xs.length === 0) throw new Error(`${sign < 0 ? 'min' : 'max'} called on empty list`);
    let best = xs[0] as CelValue;
    for (const x of xs.slice(1)) if (compare(x, best) * sign > 0) best = x;
    return best;
  };
}

function celEquals(a: CelValue, b: CelValue): boolean {
  if (typeof a === 'bigint' || typeof a === 'number') return (typeof b === 'bigint' || typeof b === 'number') && a == b;
  if (isCelList(a) && isCelList(b)) {
    if (a.size !== b.size) return false;
    for (let i = 0; i < a.size; i++) if (!celEquals(a.get(i) as CelValue, b.get(i) as CelValue)) return false;
    return true;
  }
  if (isCelMap(a) && isCelMap(b)) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !celEquals(v, b.get(k) as CelValue)) return false;
    return true;
  }
  return a === b;
}

/** Equality of lists regardless of order (cel-go's set and map list semantics); other values as usual. */
function unorderedEquals(a: CelValue, b: CelValue): boolean {
  if (!isCelList(a) || !isCelList(b)) return celEquals(a, b);
  if (a.size !== b.size) return false;
  const rest = listValues(b);
  for (const x of a) {
    const i = rest.findIndex((y) => celEquals(x, y));
    if (i < 0) return false;
    rest.splice(i, 1);
  }
  return true;
}

const listFuncs: CelFunc[] = [
  celFunc(UNORDERED_EQUALS, [DYN, DYN], BOOL, unorderedEquals),
  // cel-go ext sets: sets.contains(a, b) (every element of b is in a), sets.intersects, sets.equivalent.
  celFunc('sets.contains', [LIST, LIST], BOOL, (a: CelList, b: CelList) => listValues(b).every((y) => listValues(a).some((x) => celEquals(x, y)))),
  celFunc('sets.intersects', [LIST, LIST], BOOL, (a: CelList, b: CelList) => listValues(b).some((y) => listValues(a).some((x) => celEquals(x, y)))),
  celFunc('sets.equivalent', [LIST, LIST], BOOL, (a: CelList, b: CelList) =>
    listValues(b).every((y) => listValues(a).some((x) => celEquals(x, y))) && listValues(a).every((x) => listValues(b).some((y) => celEquals(x, y)))),
  celMethod('isSorted', LIST, [], BOOL, function (this: CelList) {
    const xs = listValues(this);
    for (let i = 1; i < xs.length; i++) if (compare(xs[i - 1] as CelValue, xs[i] as CelValue) > 0) return false;
    return true;
  }),
  celMethod('sum', LIST, [], DYN, sum),
  celMethod('min', LIST, [], DYN, extreme(-1)),
  celMethod('max', LIST, [], DYN, extreme(1)),
  celMethod('indexOf', LIST, [DYN], INT, function (this: CelList, x: CelValue) {
    return BigInt(listValues(this).findIndex((v) => celEquals(v, x)));
  }),
  celMethod('lastIndexOf', LIST, [DYN], INT, function (this: CelList, x: CelValue) {
    return BigInt(listValues(this).findLastIndex((v) => celEquals(v, x)));
  }),
];

// ---------------------------------------------------------------------------------------------
// regex.go

function compileRegex(pattern: string): RegExp {
  try {
    return new RegExp(pattern, 'gu');
  } catch {
    throw new Error(`invalid regex: ${pattern}`);
  }
}

const regexFuncs: CelFunc[] = [
  celMethod('find', STRING, [STRING], STRING, function (this: string, re: string) {
    return compileRegex(re).exec(this)?.[0] ?? '';
  }),
  celMethod('findAll', STRING, [STRING], listType(STRING), function (this: string, re: string) {
    return [...this.matchAll(compileRegex(re))].map((m) => m[0]);
  }),
  celMethod('findAll', STRING, [STRING, INT], listType(STRING), function (this: string, re: string, n: bigint) {
    const all = [...this.matchAll(compileRegex(re))].map((m) => m[0]);
    return n < 0n ? all : all.slice(0, Number(n));
  }),
];

// ---------------------------------------------------------------------------------------------
// urls.go

/** Parses a URL as Go's url.Parse followed by upstream's checks (absolute URI or absolute path). */
function parseURL(s: string): URL | undefined {
  try {
    return new URL(s);
  } catch {
    if (s.startsWith('/')) {
      try {
        return new URL(s, 'relative-path:/');
      } catch {
        return undefined;
      }
    }
    return undefined;
  }
}

function urlOf(m: CelMap): URL {
  const raw = tagged(m, URL_TAG);
  if (typeof raw !== 'string') throw new Error('no such overload');
  return parseURL(raw) as URL;
}

const urlFuncs: CelFunc[] = [
  celFunc('url', [STRING], MAP, (s: string) => {
    if (!parseURL(s)) throw new Error(`URL parse error during conversion from string: parse "${s}": invalid URI for request`);
    return { [URL_TAG]: s };
  }),
  celFunc('isURL', [STRING], BOOL, (s: string) => parseURL(s) !== undefined),
  celMethod('getScheme', MAP, [], STRING, function (this: CelMap) {
    const u = urlOf(this);
    return u.protocol === 'relative-path:' ? '' : u.protocol.replace(/:$/, '');
  }),
  celMethod('getHost', MAP, [], STRING, function (this: CelMap) {
    return urlOf(this).host;
  }),
  celMethod('getHostname', MAP, [], STRING, function (this: CelMap) {
    return urlOf(this).hostname.replace(/^\[(.*)\]$/, '$1');
  }),
  celMethod('getPort', MAP, [], STRING, function (this: CelMap) {
    return urlOf(this).port;
  }),
  celMethod('getEscapedPath', MAP, [], STRING, function (this: CelMap) {
    return urlOf(this).pathname;
  }),
  celMethod('getQuery', MAP, [], mapType(STRING, listType(STRING)), function (this: CelMap) {
    const out = new Map<string, string[]>();
    for (const [k, v] of urlOf(this).searchParams) out.set(k, [...(out.get(k) ?? []), v]);
    return out;
  }),
];

// ---------------------------------------------------------------------------------------------
// quantity.go

function quantityOf(m: CelMap): Quantity {
  const raw = tagged(m, QUANTITY_TAG);
  if (typeof raw !== 'string') throw new Error('no such overload');
  return parseQuantity(raw);
}

function tryQuantity(s: string): Quantity | undefined {
  try {
    return parseQuantity(s);
  } catch {
    return undefined;
  }
}

const MAX_INT64 = 9223372036854775807n;

/** The exact integer value of a quantity, or undefined when it has a fraction or overflows int64. */
function quantityInteger(q: Quantity): bigint | undefined {
  const nano = q.scaledValue(-9);
  // scaledValue returns a JS number; use the canonical string for exactness where possible.
  const canonical = q.toString();
  const m = /^(-?\d+)$/.exec(canonical);
  if (m) {
    const v = BigInt(m[1] as string);
    return v > MAX_INT64 || v < -MAX_INT64 - 1n ? undefined : v;
  }
  if (nano % 1e9 !== 0) return undefined;
  const v = BigInt(q.value());
  return v > MAX_INT64 || v < -MAX_INT64 - 1n ? undefined : v;
}

const quantityFuncs: CelFunc[] = [
  celFunc('quantity', [STRING], MAP, (s: string) => {
    if (!tryQuantity(s)) throw new Error('quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'');
    return { [QUANTITY_TAG]: s };
  }),
  celFunc('isQuantity', [STRING], BOOL, (s: string) => tryQuantity(s) !== undefined),
  celMethod('sign', MAP, [], INT, function (this: CelMap) {
    return BigInt(quantityOf(this).cmp(parseQuantity('0')));
  }),
  celMethod('isInteger', MAP, [], BOOL, function (this: CelMap) {
    return quantityInteger(quantityOf(this)) !== undefined;
  }),
  celMethod('asInteger', MAP, [], INT, function (this: CelMap) {
    const v = quantityInteger(quantityOf(this));
    if (v === undefined) throw new Error('cannot convert value to integer');
    return v;
  }),
  celMethod('asApproximateFloat', MAP, [], DOUBLE, function (this: CelMap) {
    return quantityOf(this).scaledValue(-9) / 1e9;
  }),
  celMethod('compareTo', MAP, [MAP], INT, function (this: CelMap, other: CelMap) {
    return BigInt(quantityOf(this).cmp(quantityOf(other)));
  }),
  celMethod('isGreaterThan', MAP, [MAP], BOOL, function (this: CelMap, other: CelMap) {
    return quantityOf(this).cmp(quantityOf(other)) > 0;
  }),
  celMethod('isLessThan', MAP, [MAP], BOOL, function (this: CelMap, other: CelMap) {
    return quantityOf(this).cmp(quantityOf(other)) < 0;
  }),
];

// ---------------------------------------------------------------------------------------------
// optional types (cel-go's OptionalTypes, used by optionalOldSelf)

const optionalFuncs: CelFunc[] = [
  celMethod('hasValue', MAP, [], BOOL, function (this: CelMap) {
    return optionalOf(this).size > 0;
  }),
  celMethod('value', MAP, [], DYN, function (this: CelMap) {
    const l = optionalOf(this);
    if (l.size === 0) throw new Error('optional.none() dereference');
    return l.get(0) as CelValue;
  }),
  celMethod('orValue', MAP, [DYN], DYN, function (this: CelMap, other: CelValue) {
    const l = optionalOf(this);
    return l.size === 0 ? other : (l.get(0) as CelValue);
  }),
  // `x.f` on an optional x (the checker rewrites such selections to this call): optional of the field.
  celMethod(OPTIONAL_SELECT, MAP, [STRING], MAP, function (this: CelMap, name: string) {
    const l = optionalOf(this);
    const v = l.get(0);
    const inner = isCelMap(v) ? v.get(name) : undefined;
    if (inner === undefined) return optionalValue(undefined) as Record<string, never>;
    return { [OPTIONAL_TAG]: [inner] };
  }),
  celFunc('optional.none', [], MAP, () => optionalValue(undefined) as Record<string, never>),
  celFunc('optional.of', [DYN], MAP, (v: CelValue) => ({ [OPTIONAL_TAG]: [v] })),
];

// ---------------------------------------------------------------------------------------------
// Corrections of @bufbuild/cel 0.6 where it differs from cel-go

const DURATION = objectType('google.protobuf.Duration');

const corrections: CelFunc[] = [
  // Go's strings.SplitN: the last part keeps the rest of the string (JS's split drops it).
  celMethod('split', STRING, [STRING, INT], listType(STRING), function (this: string, sep: string, n: bigint) {
    if (n === 0n) return [];
    const all = this.split(sep);
    if (n < 0n || all.length <= n) return all;
    const k = Number(n);
    return [...all.slice(0, k - 1), all.slice(k - 1).join(sep)];
  }),
  // cel-go's duration.getMilliseconds() is the whole duration in milliseconds.
  celMethod('getMilliseconds', DURATION, [], INT, function (this: unknown) {
    const d = (this as { message?: { seconds: bigint; nanos: number } }).message;
    if (!d) throw new Error('no such overload');
    return d.seconds * 1000n + BigInt(Math.trunc(d.nanos / 1e6));
  }),
];

const regexCache = new Map<string, RegExp>();
const REGEX_CACHE_SIZE = 1000;

/**
 * The regular-expression engine of `matches`: JavaScript's (Unicode mode), compiled once per pattern
 * — `@bufbuild/cel`'s RE2 port recompiles the pattern on every call, which dominated evaluation
 * time. RE2's leading flag group (`(?i)`, `(?s)`, `(?m)`) becomes RegExp flags; other RE2-only
 * syntax fails to compile (a rule error) where cel-go would accept it.
 */
export const CACHED_REGEX_ENGINE = {
  compile(pattern: string): { test(text: string): boolean } {
    let re = regexCache.get(pattern);
    if (!re) {
      const m = /^\(\?([ims]+)\)/.exec(pattern);
      re = new RegExp(m ? pattern.slice(m[0].length) : pattern, `u${m?.[1] ?? ''}`);
      if (regexCache.size >= REGEX_CACHE_SIZE) regexCache.clear();
      regexCache.set(pattern, re);
    }
    const compiled = re;
    return { test: (text: string) => compiled.test(text) };
  },
};

/** Every function the evaluator registers beyond CEL's standard ones. */
export const KUBERNETES_FUNCS: readonly CelFunc[] = [...strings, ...corrections, ...listFuncs, ...regexFuncs, ...urlFuncs, ...quantityFuncs, ...optionalFuncs];

/** celError re-export for callers that build evaluation errors. */
export { celError };
