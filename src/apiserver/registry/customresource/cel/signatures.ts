/**
 * Static signatures of CEL's standard functions and the Kubernetes library, for the checker: which
 * argument types a function accepts, the type and size bound of its result, and its estimated cost
 * (an approximation of cel-go's checker/cost.go and k8s.io/apiserver pkg/cel/library/cost.go:
 * string functions cost a tenth of the string's length, list functions one per element).
 */
import { T, type CelKind, type CelT } from './types.js';

/** A function's result for argument types, or undefined when no overload matches. */
export interface Resolved {
  type: CelT;
  /** Cost of the call itself, on top of its arguments'. */
  cost: number;
}

type Overload = (target: CelT | undefined, args: readonly CelT[]) => Resolved | undefined;

const NUMERIC: readonly CelKind[] = ['int', 'uint', 'double'];
const ORDERED: readonly CelKind[] = ['int', 'uint', 'double', 'string', 'bytes', 'bool', 'timestamp', 'duration'];

/** True when `t` is one of `kinds` or dyn (dyn matches anything at check time; `dyn` in `kinds` accepts any type). */
function is(t: CelT | undefined, ...kinds: readonly CelKind[]): boolean {
  return t !== undefined && (t.kind === 'dyn' || kinds.includes('dyn') || kinds.includes(t.kind));
}

const tenth = (t: CelT | undefined): number => Math.ceil((t?.maxSize ?? 1) * 0.1);
/** Comparing two strings stops at the shorter one (cel-go charges a tenth of the smaller size). */
const tenthOfSmaller = (a: CelT, b: CelT): number => Math.ceil(Math.min(a.maxSize, b.kind === 'dyn' || b.kind === 'null' ? a.maxSize : b.maxSize) * 0.1);

/** Whether values of two types may be compared for equality (cel-go's `(A, A)` with dyn and null assignable). */
export function compatible(a: CelT, b: CelT): boolean {
  if (a.kind === 'dyn' || b.kind === 'dyn' || a.kind === 'null' || b.kind === 'null') return true;
  if ((a.kind === 'object' || a.kind === 'map') && (b.kind === 'object' || b.kind === 'map')) {
    return a.kind === 'object' || b.kind === 'object' || compatible(a.value ?? T.dyn, b.value ?? T.dyn);
  }
  if (a.kind !== b.kind) return false;
  if (a.kind === 'list' || a.kind === 'optional') return compatible(a.elem ?? T.dyn, b.elem ?? T.dyn);
  return true;
}

/** The more specific of two compatible types (dyn yields). */
export function join(a: CelT, b: CelT): CelT {
  if (a.kind === 'dyn' || a.kind === 'null') return b;
  return a;
}

const global = (args: readonly CelKind[][], result: (a: readonly CelT[]) => CelT, cost: (a: readonly CelT[]) => number = () => 1): Overload =>
  (target, a) => (target === undefined && a.length === args.length && a.every((t, i) => is(t, ...(args[i] ?? []))) ? { type: result(a), cost: cost(a) } : undefined);

const member = (on: readonly CelKind[], args: CelKind[][], result: (t: CelT, a: readonly CelT[]) => CelT, cost: (t: CelT, a: readonly CelT[]) => number = () => 1): Overload =>
  (target, a) => (target !== undefined && is(target, ...on) && a.length === args.length && a.every((t, i) => is(t, ...(args[i] ?? [])))
    ? { type: result(target, a), cost: cost(target, a) }
    : undefined);

const fixed = (t: CelT) => () => t;
const sameNumeric: Overload = (target, a) => {
  if (target || a.length !== 2) return undefined;
  const [x, y] = a as [CelT, CelT];
  if (!is(x, ...NUMERIC) || !is(y, ...NUMERIC)) return undefined;
  if (x.kind !== 'dyn' && y.kind !== 'dyn' && x.kind !== y.kind) return undefined;
  return { type: join(x, y), cost: 1 };
};
const relational: Overload = (target, a) => {
  if (target || a.length !== 2) return undefined;
  const [x, y] = a as [CelT, CelT];
  if (!is(x, ...ORDERED) || !is(y, ...ORDERED)) return undefined;
  const numeric = is(x, ...NUMERIC) && is(y, ...NUMERIC);
  if (!numeric && x.kind !== 'dyn' && y.kind !== 'dyn' && x.kind !== y.kind) return undefined;
  return { type: T.bool, cost: x.kind === 'string' || x.kind === 'bytes' ? tenthOfSmaller(x, y) : 1 };
};
const equality: Overload = (target, a) => {
  if (target || a.length !== 2 || !compatible(a[0] as CelT, a[1] as CelT)) return undefined;
  const [x, y] = a as [CelT, CelT];
  const cost = x.kind === 'string' || x.kind === 'bytes' ? tenthOfSmaller(x, y) : x.kind === 'list' || x.kind === 'map' || x.kind === 'object' ? Math.min(x.maxSize, y.maxSize) : 1;
  return { type: T.bool, cost: Math.max(1, cost) };
};

const TIME_GETTERS = ['getFullYear', 'getMonth', 'getDayOfMonth', 'getDate', 'getDayOfYear', 'getDayOfWeek', 'getHours', 'getMinutes', 'getSeconds', 'getMilliseconds'];
const strOf = (t: CelT): CelT => ({ ...T.string, maxSize: t.maxSize });

/** Overloads by function name (operators as cel-go names them: `_+_`, `_[_]`, `@in`). */
export const OVERLOADS: ReadonlyMap<string, readonly Overload[]> = new Map<string, Overload[]>([
  // Logical operators cost only their operands (cel-go's cost.go).
  ['_&&_', [global([['bool'], ['bool']], fixed(T.bool), () => 0)]],
  ['_||_', [global([['bool'], ['bool']], fixed(T.bool), () => 0)]],
  ['!_', [global([['bool']], fixed(T.bool))]],
  ['@not_strictly_false', [global([['bool']], fixed(T.bool))]],
  ['-_', [global([['int', 'double']], (a) => a[0] as CelT)]],
  ['_?_:_', [(target, a) => (!target && a.length === 3 && is(a[0], 'bool') && compatible(a[1] as CelT, a[2] as CelT) ? { type: join(a[1] as CelT, a[2] as CelT), cost: 0 } : undefined)]],
  ['_==_', [equality]],
  ['_!=_', [equality]],
  ['_<_', [relational]], ['_<=_', [relational]], ['_>_', [relational]], ['_>=_', [relational]],
  ['_+_', [
    sameNumeric,
    global([['string'], ['string']], (a) => ({ ...T.string, maxSize: (a[0] as CelT).maxSize + (a[1] as CelT).maxSize }), (a) => tenth(a[0]) + tenth(a[1])),
    global([['bytes'], ['bytes']], fixed(T.bytes)),
    (target, a) => (!target && a.length === 2 && is(a[0], 'list') && is(a[1], 'list') && compatible(a[0] as CelT, a[1] as CelT)
      ? { type: { ...join(a[0] as CelT, a[1] as CelT), maxSize: (a[0] as CelT).maxSize + (a[1] as CelT).maxSize }, cost: 1 }
      : undefined),
    global([['timestamp'], ['duration']], fixed(T.timestamp)),
    global([['duration'], ['timestamp']], fixed(T.timestamp)),
    global([['duration'], ['duration']], fixed(T.duration)),
  ]],
  ['_-_', [
    sameNumeric,
    global([['timestamp'], ['timestamp']], fixed(T.duration)),
    global([['timestamp'], ['duration']], fixed(T.timestamp)),
    global([['duration'], ['duration']], fixed(T.duration)),
  ]],
  ['_*_', [sameNumeric]], ['_/_', [sameNumeric]],
  ['_%_', [(t, a) => (a.some((x) => x.kind === 'double') ? undefined : sameNumeric(t, a))]],
  ['_[_]', [
    global([['list'], ['int', 'uint']], (a) => (a[0] as CelT).elem ?? T.dyn),
    global([['map'], ORDERED as CelKind[]], (a) => (a[0] as CelT).value ?? T.dyn),
  ]],
  ['@in', [
    (target, a) => (!target && a.length === 2 && is(a[1], 'list') && compatible(a[0] as CelT, (a[1] as CelT).elem ?? T.dyn) ? { type: T.bool, cost: (a[1] as CelT).maxSize } : undefined),
    (target, a) => (!target && a.length === 2 && is(a[1], 'map') && compatible(a[0] as CelT, (a[1] as CelT).key ?? T.dyn) ? { type: T.bool, cost: 1 } : undefined),
  ]],
  ['size', [global([['string', 'bytes', 'list', 'map']], fixed(T.int)), member(['string', 'bytes', 'list', 'map'], [], fixed(T.int))]],
  ['matches', [
    member(['string'], [['string']], fixed(T.bool), (t) => tenth(t) * 10),
    global([['string'], ['string']], fixed(T.bool), (a) => tenth(a[0]) * 10),
  ]],
  // startsWith/endsWith read only as much of the string as the prefix/suffix is long.
  ...(['startsWith', 'endsWith'] as const).map((n): [string, Overload[]] => [n, [member(['string'], [['string']], fixed(T.bool), (_t, a) => tenth(a[0]))]]),
  ['contains', [member(['string'], [['string']], fixed(T.bool), (t) => tenth(t))]],
  ['int', [global([['int', 'uint', 'double', 'string', 'timestamp', 'duration']], fixed(T.int))]],
  ['uint', [global([['int', 'uint', 'double', 'string']], fixed(T.uint))]],
  ['double', [global([['int', 'uint', 'double', 'string']], fixed(T.double))]],
  ['string', [global([['int', 'uint', 'double', 'string', 'bytes', 'bool', 'timestamp', 'duration']], (a) => strOf(a[0] as CelT))]],
  ['bool', [global([['bool', 'string']], fixed(T.bool))]],
  ['bytes', [global([['bytes', 'string']], fixed(T.bytes))]],
  ['dyn', [(t, a) => (!t && a.length === 1 ? { type: { ...(a[0] as CelT), kind: 'dyn' }, cost: 0 } : undefined)]],
  ['type', [(t, a) => (!t && a.length === 1 ? { type: T.type, cost: 1 } : undefined)]],
  ['duration', [global([['string', 'duration']], fixed(T.duration))]],
  ['timestamp', [global([['string', 'int', 'timestamp']], fixed(T.timestamp))]],
  ...TIME_GETTERS.map((n): [string, Overload[]] => [n, [member(['timestamp', 'duration'], [], fixed(T.int)), member(['timestamp'], [['string']], fixed(T.int))]]),
  // cel-go ext strings
  ['charAt', [member(['string'], [['int']], fixed({ ...T.string, maxSize: 4 }), (t) => tenth(t))]],
  ['indexOf', [
    member(['string'], [['string']], fixed(T.int), (t) => tenth(t)),
    member(['string'], [['string'], ['int']], fixed(T.int), (t) => tenth(t)),
    member(['list'], [['dyn']], fixed(T.int), (t) => t.maxSize),
  ]],
  ['lastIndexOf', [
    member(['string'], [['string']], fixed(T.int), (t) => tenth(t)),
    member(['string'], [['string'], ['int']], fixed(T.int), (t) => tenth(t)),
    member(['list'], [['dyn']], fixed(T.int), (t) => t.maxSize),
  ]],
  ...(['lowerAscii', 'upperAscii', 'trim'] as const).map((n): [string, Overload[]] => [n, [member(['string'], [], strOf, (t) => tenth(t))]]),
  ['replace', [
    member(['string'], [['string'], ['string']], (t) => ({ ...T.string, maxSize: t.maxSize * 4 }), (t) => tenth(t)),
    member(['string'], [['string'], ['string'], ['int']], (t) => ({ ...T.string, maxSize: t.maxSize * 4 }), (t) => tenth(t)),
  ]],
  ['split', [
    member(['string'], [['string']], (t) => T.list(strOf(t), t.maxSize), (t) => tenth(t)),
    member(['string'], [['string'], ['int']], (t) => T.list(strOf(t), t.maxSize), (t) => tenth(t)),
  ]],
  ['substring', [member(['string'], [['int']], strOf, (t) => tenth(t)), member(['string'], [['int'], ['int']], strOf, (t) => tenth(t))]],
  ['join', [
    member(['list'], [], (t) => ({ ...T.string, maxSize: t.maxSize * (t.elem?.maxSize ?? 1) }), (t) => t.maxSize),
    member(['list'], [['string']], (t) => ({ ...T.string, maxSize: t.maxSize * (t.elem?.maxSize ?? 1) }), (t) => t.maxSize),
  ]],
  ['format', [member(['string'], [['list']], strOf, (t) => tenth(t))]],
  ['strings.quote', [global([['string']], (a) => strOf(a[0] as CelT), (a) => tenth(a[0]))]],
  // k8s lists.go
  ['isSorted', [member(['list'], [], fixed(T.bool), (t) => t.maxSize)]],
  ...(['sum', 'min', 'max'] as const).map((n): [string, Overload[]] => [n, [member(['list'], [], (t) => t.elem ?? T.dyn, (t) => t.maxSize)]]),
  // k8s regex.go
  ['find', [member(['string'], [['string']], strOf, (t) => tenth(t) * 10)]],
  ['findAll', [
    member(['string'], [['string']], (t) => T.list(strOf(t), t.maxSize), (t) => tenth(t) * 10),
    member(['string'], [['string'], ['int']], (t) => T.list(strOf(t), t.maxSize), (t) => tenth(t) * 10),
  ]],
  // k8s urls.go
  ['url', [global([['string']], fixed(T.url), (a) => tenth(a[0]))]],
  ['isURL', [global([['string']], fixed(T.bool), (a) => tenth(a[0]))]],
  ...(['getScheme', 'getHost', 'getHostname', 'getPort', 'getEscapedPath'] as const).map((n): [string, Overload[]] => [n, [member(['url'], [], fixed(T.string))]]),
  ['getQuery', [member(['url'], [], fixed(T.map(T.string, T.list(T.string))))]],
  // k8s quantity.go
  ['quantity', [global([['string']], fixed(T.quantity), (a) => tenth(a[0]))]],
  ['isQuantity', [global([['string']], fixed(T.bool), (a) => tenth(a[0]))]],
  ['sign', [member(['quantity'], [], fixed(T.int))]],
  ['isInteger', [member(['quantity'], [], fixed(T.bool))]],
  ['asInteger', [member(['quantity'], [], fixed(T.int))]],
  ['asApproximateFloat', [member(['quantity'], [], fixed(T.double))]],
  ['compareTo', [member(['quantity'], [['quantity']], fixed(T.int))]],
  ['isGreaterThan', [member(['quantity'], [['quantity']], fixed(T.bool))]],
  ['isLessThan', [member(['quantity'], [['quantity']], fixed(T.bool))]],
  // k8s format.go
  ...['dns1123Label', 'dns1123Subdomain', 'dns1035Label', 'qualifiedName', 'dns1123LabelPrefix', 'dns1123SubdomainPrefix', 'dns1035LabelPrefix', 'labelValue', 'uri', 'uuid', 'byte', 'date', 'datetime']
    .map((n): [string, Overload[]] => [`format.${n}`, [global([], fixed(T.format))]]),
  ['format.named', [global([['string']], fixed(T.optional(T.format)))]],
  ['validate', [member(['format'], [['string']], (_t, a) => T.optional(T.list(T.string, (a[0] as CelT).maxSize)), (_t, a) => tenth(a[0]) * 10)]],
  // cel-go optional types
  ['hasValue', [member(['optional'], [], fixed(T.bool))]],
  ['value', [member(['optional'], [], (t) => t.elem ?? T.dyn)]],
  ['orValue', [(t, a) => (t && is(t, 'optional') && a.length === 1 && compatible(t.elem ?? T.dyn, a[0] as CelT) ? { type: join(t.elem ?? T.dyn, a[0] as CelT), cost: 1 } : undefined)]],
  ...(['sets.contains', 'sets.intersects', 'sets.equivalent'] as const).map((n): [string, Overload[]] => [n, [
    (t, a) => (!t && a.length === 2 && is(a[0], 'list') && is(a[1], 'list') && compatible(a[0] as CelT, a[1] as CelT)
      ? { type: T.bool, cost: Math.max(1, (a[0] as CelT).maxSize * (a[1] as CelT).maxSize) }
      : undefined),
  ]]),
  ['kubeplaneUnorderedEquals', [global([['dyn'], ['dyn']], fixed(T.bool))]],
  ['kubeplaneOptionalSelect', [member(['optional'], [['string']], fixed(T.optional(T.dyn)))]],
  ['optional.none', [global([], fixed(T.optional(T.dyn)))]],
  ['optional.of', [(t, a) => (!t && a.length === 1 ? { type: T.optional(a[0] as CelT), cost: 1 } : undefined)]],
]);
