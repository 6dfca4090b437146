/**
 * The protobuf message schemas of the Kubernetes API: one declarative table, messages.json, generated
 * by `node scripts/gen-proto-schema.mjs` from the `generated.proto` descriptors of k8s.io/api and
 * k8s.io/apimachinery (v1.33) that kubectl carries. Field numbers are part of the wire protocol; the
 * table maps `message full name → fields` (number, JSON name, type, repeated/pointer/inline).
 *
 * Covered packages: every stable k8s.io/api group (core, apps, batch, autoscaling v1 and v2,
 * coordination, policy, authorization, authentication, discovery, events, networking, rbac, storage,
 * scheduling, node, certificates, admissionregistration, flowcontrol …) and apimachinery's meta/v1,
 * runtime, runtime/schema, util/intstr and api/resource.
 */
import data from './messages.json' with { type: 'json' };
import { WIRE_BYTES, WIRE_FIXED32, WIRE_FIXED64, WIRE_VARINT } from './wire.js';

/** Scalar proto types that appear in the table. */
export type ScalarType =
  | 'double'
  | 'float'
  | 'int32'
  | 'int64'
  | 'uint32'
  | 'uint64'
  | 'sint32'
  | 'sint64'
  | 'fixed32'
  | 'fixed64'
  | 'sfixed32'
  | 'sfixed64'
  | 'bool'
  | 'string'
  | 'bytes';

/** One field of a message. */
export interface FieldDef {
  number: number;
  /** The JSON field name (equal to the proto field name in Kubernetes' generated.proto). */
  name: string;
  /** Scalar type, or the full name of a message (`k8s.io.api.core.v1.PodSpec`). For maps: the value type. */
  type: string;
  /** True when `type` is a message. */
  message: boolean;
  repeated: boolean;
  /** `map<key, type>`: the key's scalar type. */
  mapKey?: ScalarType;
  /**
   * A Go pointer field (gogo `nullable` not false): gogo writes it only when set, so a zero value on
   * the wire is meaningful (`replicas: 0`). Non-pointer fields are always written, zero or not.
   */
  pointer: boolean;
  /** A Go struct embedded with `json:",inline"`: its fields belong to the parent's JSON object. */
  inline: boolean;
}

/** A compiled message schema. */
export interface MessageDef {
  name: string;
  fields: FieldDef[];
  byNumber: Map<number, FieldDef>;
  /**
   * True for wrappers whose JSON form is a plain array of strings: a single repeated scalar `items`
   * field (meta/v1 `Verbs`, the authentication/authorization/certificates `ExtraValue`).
   */
  arrayWrapper: boolean;
}

type RawField = [number, string, string, string];

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
/** The apimachinery messages whose JSON form is not their fields (decode.ts, encode.ts). */
export const TIME = `${META}.Time`;
export const MICRO_TIME = `${META}.MicroTime`;
export const DURATION = `${META}.Duration`;
export const FIELDS_V1 = `${META}.FieldsV1`;
export const INT_OR_STRING = 'k8s.io.apimachinery.pkg.util.intstr.IntOrString';
export const QUANTITY = 'k8s.io.apimachinery.pkg.api.resource.Quantity';
export const RAW_EXTENSION = 'k8s.io.apimachinery.pkg.runtime.RawExtension';
export const TYPE_META = 'k8s.io.apimachinery.pkg.runtime.TypeMeta';

const table = (data as unknown as { source: string; messages: Record<string, RawField[]> }).messages;
const compiled = new Map<string, MessageDef>();

const SCALARS = new Set<string>(['double', 'float', 'int32', 'int64', 'uint32', 'uint64', 'sint32', 'sint64', 'fixed32', 'fixed64', 'sfixed32', 'sfixed64', 'bool', 'string', 'bytes']);

/** True for a scalar type name. */
export function isScalarType(t: string): t is ScalarType {
  return SCALARS.has(t);
}

function compileField([number, name, type, flags]: RawField): FieldDef {
  const f: FieldDef = { number, name, type, message: false, repeated: flags.includes('r'), pointer: flags.includes('p'), inline: flags.includes('i') };
  if (type.startsWith('map:')) {
    // `map:<key>:<value>`; the value may be a dotted message name.
    const [, key, ...value] = type.split(':');
    f.mapKey = key as ScalarType;
    f.type = value.join(':');
  }
  f.message = !isScalarType(f.type);
  return f;
}

/** The wire type of one value of `f` (of one element for repeated fields; 2 for maps and messages). */
export function wireTypeOf(f: FieldDef): number {
  if (f.message || f.mapKey !== undefined || f.type === 'string' || f.type === 'bytes') return WIRE_BYTES;
  if (f.type === 'double' || f.type === 'fixed64' || f.type === 'sfixed64') return WIRE_FIXED64;
  if (f.type === 'float' || f.type === 'fixed32' || f.type === 'sfixed32') return WIRE_FIXED32;
  return WIRE_VARINT;
}

/** The schema of a message by full name (`k8s.io.api.apps.v1.Deployment`), or undefined. Compiled on first use. */
export function messageDef(name: string): MessageDef | undefined {
  let def = compiled.get(name);
  if (def) return def;
  if (!Object.prototype.hasOwnProperty.call(table, name)) return undefined;
  const fields = (table[name] as RawField[]).map(compileField);
  const only = fields[0];
  def = {
    name,
    fields,
    byNumber: new Map(fields.map((f) => [f.number, f])),
    arrayWrapper: fields.length === 1 && only !== undefined && only.name === 'items' && only.repeated && !only.message,
  };
  compiled.set(name, def);
  return def;
}

/** Every message name in the table, sorted. */
export function messageNames(): string[] {
  return Object.keys(table).sort();
}

/** The package of meta/v1, where kinds every group version serves (DeleteOptions …) are defined. */
export const META_V1_PACKAGE = 'k8s.io.apimachinery.pkg.apis.meta.v1';

/**
 * The proto package of an API group version: `v1` → `k8s.io.api.core.v1`, `apps/v1` →
 * `k8s.io.api.apps.v1`, `coordination.k8s.io/v1` → `k8s.io.api.coordination.v1` (the group's first
 * label, as k8s.io/api lays out its packages).
 */
export function packageOf(group: string, version: string): string {
  const name = group === '' ? 'core' : (group.split('.')[0] as string);
  return `k8s.io.api.${name}.${version}`;
}

/**
 * The message of `kind` in `group/version`, e.g. (`apps`, `v1`, `Deployment`) →
 * `k8s.io.api.apps.v1.Deployment`; meta/v1 kinds such as DeleteOptions resolve under any group
 * version (clients encode them with their resource's apiVersion). Undefined for unknown kinds.
 */
export function messageForKind(group: string, version: string, kind: string): MessageDef | undefined {
  return messageDef(`${packageOf(group, version)}.${kind}`) ?? (version === 'v1' ? messageDef(`${META_V1_PACKAGE}.${kind}`) : undefined);
}
