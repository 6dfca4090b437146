/**
 * CEL types of schema nodes (upstream k8s.io/apiserver pkg/cel/common/schemas.go `SchemaDeclType`,
 * pkg/cel/types.go `DeclType`), with the size bounds the cost estimator works from: `maxSize` is the
 * most elements (lists, maps), bytes (strings) a value can have, from maxItems/maxProperties/
 * maxLength or, when unset, from the largest request the API server accepts (3 MiB) divided by the
 * smallest serialized element.
 */
import { additionalSchema, type CelStructural } from './structural.js';

/** Kinds of CEL types the checker knows. `quantity`, `url` and `regex`-free opaque kinds are Kubernetes library types. */
export type CelKind =
  | 'int' | 'uint' | 'double' | 'bool' | 'string' | 'bytes' | 'null' | 'dyn' | 'type'
  | 'duration' | 'timestamp' | 'list' | 'map' | 'object' | 'optional' | 'quantity' | 'url' | 'format';

/** A CEL type with its size bounds. */
export interface CelT {
  kind: CelKind;
  /** list element, optional's inner type. */
  elem?: CelT;
  /** map key and value. */
  key?: CelT;
  value?: CelT;
  /** object fields by (escaped) CEL name. */
  fields?: ReadonlyMap<string, CelT>;
  /** Most elements/bytes a value may have (cost estimation). */
  maxSize: number;
  /** Smallest JSON serialization of a value, in bytes (upstream MinSerializedSize). */
  minSize: number;
  /** x-kubernetes-list-type `set` or `map`: such lists compare regardless of order. */
  unordered?: boolean;
}

/** Upstream's maxRequestSizeBytes (3 MiB), the bound on unbounded strings, lists and maps. */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

const simple = (kind: CelKind, minSize = 1, maxSize = 1): CelT => ({ kind, minSize, maxSize });

/** Shared simple types. */
export const T = {
  int: simple('int'),
  uint: simple('uint'),
  double: simple('double'),
  bool: simple('bool', 4),
  null: simple('null', 4),
  dyn: simple('dyn'),
  type: simple('type'),
  duration: simple('duration', 4),
  timestamp: simple('timestamp', 4),
  quantity: simple('quantity', 3),
  url: simple('url', 3),
  format: simple('format', 3),
  string: simple('string', 2, MAX_REQUEST_SIZE_BYTES - 2),
  bytes: simple('bytes', 2, MAX_REQUEST_SIZE_BYTES - 2),
  list: (elem: CelT, maxSize = MAX_REQUEST_SIZE_BYTES): CelT => ({ kind: 'list', elem, minSize: 2, maxSize }),
  map: (key: CelT, value: CelT, maxSize = MAX_REQUEST_SIZE_BYTES): CelT => ({ kind: 'map', key, value, minSize: 2, maxSize }),
  optional: (elem: CelT): CelT => ({ kind: 'optional', elem, minSize: elem.minSize, maxSize: elem.maxSize }),
};

/** cel-go's FormatCheckedType: `int`, `list(string)`, `map(string, dyn)`, `optional_type(int)`; objects print `object`. */
export function typeName(t: CelT): string {
  if (t.kind === 'list') return `list(${typeName(t.elem ?? T.dyn)})`;
  if (t.kind === 'map') return `map(${typeName(t.key ?? T.dyn)}, ${typeName(t.value ?? T.dyn)})`;
  if (t.kind === 'optional') return `optional_type(${typeName(t.elem ?? T.dyn)})`;
  return SIMPLE_NAMES[t.kind] ?? t.kind;
}

const SIMPLE_NAMES: Partial<Record<CelKind, string>> = {
  null: 'null_type',
  duration: 'google.protobuf.Duration',
  timestamp: 'google.protobuf.Timestamp',
  quantity: 'kubernetes.Quantity',
  url: 'kubernetes.URL',
  format: 'kubernetes.NamedFormat',
};

const CEL_RESERVED = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop',
  'package', 'namespace', 'return', 'var', 'void', 'while',
]);

/**
 * Upstream's property-name escaping (pkg/cel/escaping.go `Escape`): reserved words become `__in__`,
 * `__` → `__underscores__`, `.` → `__dot__`, `-` → `__dash__`, `/` → `__slash__`; names with other
 * characters are not accessible (undefined).
 */
export function escapeName(name: string): string | undefined {
  if (CEL_RESERVED.has(name)) return `__${name}__`;
  if (!/^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$/.test(name)) return undefined;
  let out = '';
  for (let i = 0; i < name.length; i++) {
    const c = name[i] as string;
    if (c === '_' && name[i + 1] === '_') {
      out += '__underscores__';
      i++;
    } else if (c === '.') out += '__dot__';
    else if (c === '-') out += '__dash__';
    else if (c === '/') out += '__slash__';
    else out += c;
  }
  return out;
}

/**
 * The names a property is reachable by in CEL: its escaped name and, since Kubernetes 1.32, a
 * reserved word such as `if` or `namespace` as it is (cel-go accepts it after a dot).
 */
export function celNames(name: string): string[] {
  const escaped = escapeName(name);
  if (escaped === undefined) return [];
  return escaped !== name && CEL_RESERVED.has(name) ? [escaped, name] : [escaped];
}

const maxFromMin = (minSize: number): number => Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minSize + 1));

/** The apiVersion/kind/metadata(name, generateName) fields always visible at a resource root (upstream WithTypeAndObjectMeta). */
function withTypeAndObjectMeta(s: CelStructural): CelStructural {
  return {
    ...s,
    type: 'object',
    properties: {
      ...s.properties,
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } },
    },
  };
}

/**
 * The CEL type of a schema node (upstream `SchemaDeclType`), or undefined when the node is not
 * visible to CEL (no type, an array without items…). x-kubernetes-int-or-string is `dyn`; a
 * resource root (and embedded resources) always has apiVersion, kind and metadata.name/generateName.
 */
export function schemaType(s: CelStructural | undefined, isResourceRoot: boolean): CelT | undefined {
  if (!s) return undefined;
  if (s['x-kubernetes-int-or-string']) return { kind: 'dyn', minSize: 1, maxSize: MAX_REQUEST_SIZE_BYTES - 2 };
  const node = isResourceRoot ? withTypeAndObjectMeta(s) : s;
  switch (node.type) {
    case 'array': {
      if (!node.items) return undefined;
      const elem = schemaType(node.items, !!node.items['x-kubernetes-embedded-resource']);
      if (!elem) return undefined;
      const list = T.list(elem, node.maxItems !== undefined ? Math.max(0, node.maxItems) : maxFromMin(elem.minSize));
      const lt = node['x-kubernetes-list-type'];
      return lt === 'set' || lt === 'map' ? { ...list, unordered: true } : list;
    }
    case 'object': {
      const additional = additionalSchema(node);
      if (additional) {
        const value = schemaType(additional, !!additional['x-kubernetes-embedded-resource']);
        if (!value) return undefined;
        return T.map(T.string, value, node.maxProperties !== undefined ? Math.max(0, node.maxProperties) : maxFromMin(value.minSize));
      }
      const fields = new Map<string, CelT>();
      const required = new Set(node.required ?? []);
      let minSize = 2;
      for (const [name, prop] of Object.entries(node.properties ?? {})) {
        const ft = schemaType(prop, !!prop['x-kubernetes-embedded-resource']);
        if (!ft) continue;
        for (const n of celNames(name)) fields.set(n, ft);
        if (required.has(name) && prop.default === undefined) minSize += name.length + ft.minSize + 4;
      }
      return { kind: 'object', fields, minSize, maxSize: fields.size };
    }
    case 'string': {
      if (node.format === 'byte') return { kind: 'bytes', minSize: 2, maxSize: node.maxLength ?? MAX_REQUEST_SIZE_BYTES - 2 };
      if (node.format === 'duration') return { ...T.duration, maxSize: MAX_REQUEST_SIZE_BYTES - 2 };
      if (node.format === 'date' || node.format === 'date-time') return { ...T.timestamp, maxSize: MAX_REQUEST_SIZE_BYTES - 2 };
      let maxSize = MAX_REQUEST_SIZE_BYTES - 2;
      if (node.maxLength !== undefined) maxSize = Math.max(0, node.maxLength) * 4;
      else if (node.enum?.length) maxSize = Math.max(...node.enum.map((e) => (typeof e === 'string' ? e.length : 0)));
      return { kind: 'string', minSize: 2, maxSize };
    }
    case 'boolean': return T.bool;
    case 'number': return T.double;
    case 'integer': return T.int;
    case undefined: return undefined;
  }
  return undefined;
}
