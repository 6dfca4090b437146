/**
 * fast-check arbitraries for the API fuzzer: hostile JSON values, schema-aware mutations of valid
 * objects, patches of every type, DeleteOptions, query parameters and malformed raw requests.
 */
import fc from 'fast-check';

/** `[[…]]` nested `depth` levels deep. */
export function nested(depth: number): unknown {
  let v: unknown = [];
  for (let i = 1; i < depth; i++) v = [v];
  return v;
}

/** Strings that mean something somewhere in the API, or are at an edge. */
const interestingStrings = [
  '', ' ', 'x'.repeat(300), '-1', '0', '1e3', '25%', '150%', '%', 'In', 'NotIn', 'Exists', 'Gt', 'NoSchedule', 'NoExecute', 'TCP', 'UDP',
  'ClusterIP', 'NodePort', 'None', 'Always', 'Never', 'IfNotPresent', 'Recreate', 'RollingUpdate', 'OnDelete', 'Orphan', 'Foreground',
  '2025-01-01T00:00:00Z', '0000-01-01T00:00:00Z', '9999-12-31T23:59:59Z', 'yesterday', '1Gi', '100m', '-1Gi', '1e30', 'abc', 'a/b',
  'a=b', '..', 'UPPER', 'node-1', 'default', 'kube-system', '10.0.0.1', '::1', '999.1.1.1', '*', '\u0000', 'line\nbreak', 'tab\there',
  '\u202eevil', '😀', 'kubernetes.io/hostname', 'app', 'v1', 'apps/v1',
];

/** Numbers at the edges of int32, int64, doubles. */
const interestingNumbers = [0, -1, 1, 0.5, -0.5, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 2 ** 53 + 2, -(2 ** 63), 1e20, 1e308, -1e308, 5e-324];

/** Any scalar JSON value, biased to edges. */
export const scalarArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(...interestingNumbers),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom(...interestingStrings),
);

/** Any JSON value: scalars, small lists and objects (with nulls inside), now and then one nested ~1,000 deep. */
export const valueArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: scalarArb },
  {
    weight: 3,
    arbitrary: fc.letrec<{ v: unknown }>((tie) => ({
      v: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        scalarArb,
        fc.array(tie('v'), { maxLength: 3 }),
        fc.dictionary(fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('name', 'key', 'value', 'port', 'type', 'effect', 'operator')), tie('v'), { maxKeys: 3 }),
      ),
    })).v,
  },
  { weight: 1, arbitrary: fc.constantFrom([null], [{}], {}, [[]], [null, null]) },
  { weight: 1, arbitrary: fc.integer({ min: 990, max: 1010 }).map(nested) },
);

/** One change to an object: set a value at (or delete) the path picked by `path` among the kind's field paths. */
export interface Mutation {
  /** Index into the kind's field paths (taken modulo their number). */
  path: number;
  action: 'set' | 'delete' | 'unknown';
  value: unknown;
  /** The field name an `unknown` mutation adds (any characters: it is echoed in warnings and errors). */
  unknownName: string;
}

export const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  path: fc.nat(),
  action: fc.constantFrom('set', 'set', 'set', 'delete', 'unknown'),
  value: valueArb,
  unknownName: fc.oneof(fc.constant('fuzzUnknownField'), fc.string({ unit: 'binary', minLength: 1, maxLength: 8 }), fc.constantFrom('😀', 'a\nb', '"', '\\', 'x'.repeat(5000))),
});

const queryNames = [
  'labelSelector', 'fieldSelector', 'limit', 'continue', 'resourceVersion', 'resourceVersionMatch', 'timeoutSeconds', 'allowWatchBookmarks',
  'sendInitialEvents', 'watch', 'dryRun', 'fieldValidation', 'fieldManager', 'propagationPolicy', 'gracePeriodSeconds', 'orphanDependents', 'pretty', 'force',
];
const queryValues = [
  'a=b', 'a in (x,y)', '!a', 'a==b,c!=d', 'a notin ()', 'metadata.name=x', 'metadata.namespace!=default', 'spec.nodeName=n', 'status.phase=Running', '=', ',', '(',
  'x=', '=x', 'a=b=c', 'All', 'Strict', 'Warn', 'Ignore', 'true', 'false', '1', '0', '-1', '99999999999999999999', 'Exact', 'NotOlderThan', 'Orphan', 'abc',
  'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJ4In0=', 'not-base64!', '%', '',
];

/** Query parameters: known names with hostile values, and now and then an unknown one. */
export const queryArb: fc.Arbitrary<Record<string, string>> = fc.dictionary(
  fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...queryNames) }, { weight: 1, arbitrary: fc.string({ maxLength: 6 }) }),
  fc.oneof(fc.constantFrom(...queryValues), fc.string({ maxLength: 12 }), fc.integer().map(String)),
  { maxKeys: 4 },
);

/** A JSON-patch operation; `path` picks a schema path (or is replaced by `rawPath`). */
export interface JsonPatchOp {
  op: string;
  path: number;
  rawPath?: string;
  from: number;
  value: unknown;
}

const jsonPatchOpArb: fc.Arbitrary<JsonPatchOp> = fc.record(
  {
    op: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus'),
    path: fc.nat(),
    rawPath: fc.oneof(fc.constantFrom('', '/', '/metadata/name', '/spec/-', '/~2', '/a//b', 'no-slash', '/metadata/labels/x~1y'), fc.string({ maxLength: 10 })),
    from: fc.nat(),
    value: valueArb,
  },
  { requiredKeys: ['op', 'path', 'from', 'value'] },
);

/** One fuzz case against one served resource (picked by `resource` modulo their number). */
export type FuzzCase =
  | { type: 'create' | 'update'; resource: number; mutations: Mutation[]; yaml: boolean; query: Record<string, string> }
  | { type: 'merge' | 'strategic'; resource: number; mutations: Mutation[]; query: Record<string, string> }
  | { type: 'apply'; resource: number; mutations: Mutation[]; existing: boolean; yaml: boolean; query: Record<string, string> }
  | { type: 'json'; resource: number; ops: JsonPatchOp[]; query: Record<string, string> }
  | { type: 'delete'; resource: number; body: unknown; query: Record<string, string> }
  | { type: 'read'; resource: number; item: boolean; query: Record<string, string> }
  | { type: 'raw'; resource: number; method: string; suffix: string; contentType: string; body: string };

const contentTypes = [
  'application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'application/json-patch+json', 'application/merge-patch+json',
  'application/strategic-merge-patch+json', 'application/apply-patch+yaml', 'text/plain', 'application/json; charset=utf-8', 'application/cbor', '',
];
const bodyFragments = [
  '', '{', '}', '[]', 'null', '"x"', '1', '{"apiVersion":"v1"}', '{"kind":"Pod","apiVersion":"v2"}', '{"metadata":{"name":"x"}}', 'k8s\u0000garbage',
  '---\na: [', 'a: *alias', '{"metadata":{"name":"x","namespace":"other"}}', '[{"op":"add","path":"/x","value":1}]', '\u0000\u0001\u0002',
];

export const caseArb: fc.Arbitrary<FuzzCase> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ type: fc.constantFrom('create' as const, 'update' as const), resource: fc.nat(), mutations: fc.array(mutationArb, { minLength: 1, maxLength: 3 }), yaml: fc.boolean(), query: queryArb }) },
  { weight: 3, arbitrary: fc.record({ type: fc.constantFrom('merge' as const, 'strategic' as const), resource: fc.nat(), mutations: fc.array(mutationArb, { minLength: 1, maxLength: 3 }), query: queryArb }) },
  {
    weight: 2,
    arbitrary: fc.record({ type: fc.constant('apply' as const), resource: fc.nat(), mutations: fc.array(mutationArb, { minLength: 1, maxLength: 3 }), existing: fc.boolean(), yaml: fc.boolean(), query: queryArb }),
  },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('json' as const), resource: fc.nat(), ops: fc.array(jsonPatchOpArb, { maxLength: 3 }), query: queryArb }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('delete' as const), resource: fc.nat(), body: fc.oneof(fc.constant(undefined), valueArb, fc.record({ gracePeriodSeconds: valueArb, propagationPolicy: valueArb, preconditions: valueArb, dryRun: valueArb }, { requiredKeys: [] })), query: queryArb }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('read' as const), resource: fc.nat(), item: fc.boolean(), query: queryArb }) },
  {
    weight: 2,
    arbitrary: fc.record({
      type: fc.constant('raw' as const),
      resource: fc.nat(),
      method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'PROPFIND'),
      suffix: fc.oneof(fc.constantFrom('', '/x', '/x/status', '/x/scale', '/x/binding', '/x/eviction', '/x/finalize', '/x/log', '/x/y/z', '/%zz', '/%2F', '/..', '/x?watch=1'), fc.webPath()),
      contentType: fc.constantFrom(...contentTypes),
      body: fc.oneof(fc.constantFrom(...bodyFragments), fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }), fc.json({ maxDepth: 3 })),
    }),
  },
);
