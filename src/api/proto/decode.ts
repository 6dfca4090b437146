/**
 * Decoding Kubernetes protobuf (`application/vnd.kubernetes.protobuf`) into the JSON object the same
 * client would have sent as JSON. Follows k8s.io/apimachinery/pkg/runtime/serializer/protobuf
 * (`Serializer.Decode`: the `k8s\0` magic, then a `runtime.Unknown` envelope whose `raw` holds the
 * object's message, named by `typeMeta`) and the JSON forms of the special apimachinery types.
 *
 * Fidelity to the JSON path (what `kubectl create … --dry-run=client -o json` shows):
 * - only fields present on the wire are set;
 * - gogo-protobuf always writes the non-pointer scalar fields of a Go struct, zero or not
 *   (`hostPort: 0`, `stdin: false`, `imagePullPolicy: ""`); for those a zero value means "unset" in
 *   Go, so it is dropped here, leaving defaulting to the registry as for JSON. Pointer fields
 *   (`replicas`, `revisionHistoryLimit`, `optional` …) are written only when set, so their zero values
 *   are kept (`replicas: 0`);
 * - non-pointer nested structs are always written, possibly empty: they become `{}` as in Go's JSON
 *   (`strategy: {}`, `resources: {}`), except the zero Time, IntOrString and Quantity, which are dropped
 *   (Go's JSON shows `creationTimestamp: null`);
 * - repeated and map entries are kept as sent, zero values included.
 *
 * Special JSON forms: meta/v1 Time `2025-01-01T00:00:00Z`, MicroTime `…00.123456Z`, Duration `1m30s`,
 * IntOrString a number or string, Quantity its string, `bytes` base64, FieldsV1 and RawExtension the
 * embedded JSON, maps objects, Verbs/ExtraValue arrays, int64 numbers (exact up to 2^53).
 */
import { formatMicroTime, formatTime } from '../../util/clock/index.js';
import { DURATION, FIELDS_V1, INT_OR_STRING, MICRO_TIME, QUANTITY, RAW_EXTENSION, TIME, TYPE_META, messageDef, messageForKind, wireTypeOf, type FieldDef, type MessageDef } from './schema.js';
import {
  ProtoError,
  WIRE_BYTES,
  WIRE_FIXED32,
  WIRE_FIXED64,
  WIRE_VARINT,
  WireReader,
  toDouble,
  toFloat,
  toInt64,
  toUint64,
  toZigzag,
  type Varint,
} from './wire.js';

export { ProtoError } from './wire.js';

/** The four bytes every Kubernetes protobuf body starts with: `k8s\0`. */
export const PROTOBUF_MAGIC = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

/** A decoded object, or `undefined` when the value is the zero of a non-pointer special type. */
type JsonValue = unknown;

function numberOf(type: string, v: Varint): number | boolean {
  switch (type) {
    case 'int32':
    case 'sfixed32':
      return v.lo | 0;
    case 'uint32':
    case 'fixed32':
      return v.lo;
    case 'int64':
    case 'sfixed64':
      return toInt64(v);
    case 'uint64':
    case 'fixed64':
      return toUint64(v);
    case 'sint32':
    case 'sint64':
      return toZigzag(v);
    case 'bool':
      return v.lo !== 0 || v.hi !== 0;
    case 'double':
      return toDouble(v);
    case 'float':
      return toFloat(v);
    default:
      throw new ProtoError(`proto: unsupported type ${type}`);
  }
}

/** One scalar value of `type` at the reader (wire type already checked). */
function readScalar(r: WireReader, type: string, wireType: number): unknown {
  if (type === 'string') return Buffer.from(r.bytes()).toString('utf8');
  if (type === 'bytes') return Buffer.from(r.bytes()).toString('base64');
  if (wireType === WIRE_FIXED64) return numberOf(type, r.fixed64());
  if (wireType === WIRE_FIXED32) return numberOf(type, r.fixed32());
  return numberOf(type, r.varint());
}

function isZeroScalar(v: unknown): boolean {
  return v === 0 || v === false || v === '';
}

function wrongWireType(msg: MessageDef, f: FieldDef, wireType: number): ProtoError {
  return new ProtoError(`proto: wrong wireType = ${wireType} for field ${f.name} in ${msg.name.slice(msg.name.lastIndexOf('.') + 1)}`);
}

/** Go's time.Duration.String for whole and fractional seconds: `1h2m3s`, `1.5s`, `0s`, `500ms`. */
export function formatDuration(ns: number): string {
  if (ns === 0) return '0s';
  const sign = ns < 0 ? '-' : '';
  let rest = Math.abs(ns);
  if (rest < 1e9) {
    const [unit, div] = rest < 1e3 ? ['ns', 1] : rest < 1e6 ? ['µs', 1e3] : ['ms', 1e6];
    return `${sign}${trimFraction(rest / div)}${unit}`;
  }
  const h = Math.floor(rest / 3.6e12);
  rest -= h * 3.6e12;
  const m = Math.floor(rest / 6e10);
  rest -= m * 6e10;
  const s = trimFraction(rest / 1e9);
  if (h > 0) return `${sign}${h}h${m}m${s}s`;
  if (m > 0) return `${sign}${m}m${s}s`;
  return `${sign}${s}s`;
}

function trimFraction(n: number): string {
  return String(Number(n.toFixed(9)));
}

/**
 * The JSON value of a message of type `name` from its bytes `[start, end)`. Special apimachinery
 * types convert to their JSON forms; `undefined` marks the zero value of a type whose zero Go's
 * JSON omits or shows as null (Time, IntOrString, Quantity, Duration).
 */
function decodeMessageValue(buf: Uint8Array, start: number, end: number, name: string, into?: Record<string, unknown>): JsonValue {
  const def = messageDef(name);
  if (!def) throw new ProtoError(`proto: no schema for message ${name}`);
  const obj = decodeFields(def, new WireReader(buf, start, end), into ?? {});
  switch (name) {
    case TIME:
    case MICRO_TIME: {
      const seconds = (obj['seconds'] as number | undefined) ?? 0;
      const nanos = (obj['nanos'] as number | undefined) ?? 0;
      if (seconds === 0 && nanos === 0) return undefined;
      if (name === TIME) return formatTime(seconds * 1000);
      const micros = String(Math.floor(nanos / 1000)).padStart(6, '0');
      return formatMicroTime(seconds * 1000).replace(/\.\d{6}Z$/, `.${micros}Z`);
    }
    case DURATION: {
      const ns = (obj['duration'] as number | undefined) ?? 0;
      return ns === 0 ? undefined : formatDuration(ns);
    }
    case INT_OR_STRING:
      if (obj['type'] === 1) return (obj['strVal']) ?? '';
      return obj['intVal'] === undefined && obj['strVal'] === undefined ? undefined : ((obj['intVal']) ?? 0);
    case QUANTITY:
      return obj['string'] === undefined ? undefined : obj['string'];
    case FIELDS_V1:
    case RAW_EXTENSION:
      return embeddedJson((name === FIELDS_V1 ? obj['Raw'] : obj['raw']) as string | undefined);
    default:
      return def.arrayWrapper ? ((obj['items']) ?? []) : obj;
  }
}

/** The JSON embedded in a FieldsV1 or RawExtension (`raw` is base64 here, as decoded). */
function embeddedJson(b64: string | undefined): JsonValue {
  if (b64 === undefined) return {};
  const text = Buffer.from(b64, 'base64').toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ProtoError('embedded object is not JSON');
  }
}

/** Decodes the fields of `def` into `obj` (inline fields merge into it). */
function decodeFields(def: MessageDef, r: WireReader, obj: Record<string, unknown>): Record<string, unknown> {
  while (!r.eof()) {
    const [no, wireType] = r.key();
    const f = def.byNumber.get(no);
    if (!f) {
      r.skip(wireType);
      continue;
    }
    const expected = wireTypeOf(f);
    if (f.repeated && !f.message && wireType === WIRE_BYTES && expected !== WIRE_BYTES) {
      // A packed repeated scalar: the payload is the values back to back.
      const [s, e] = r.bytesRange();
      const inner = new WireReader(r.buf, s, e);
      const list = (obj[f.name] ??= []) as unknown[];
      while (!inner.eof()) list.push(readScalar(inner, f.type, expected));
      continue;
    }
    if (wireType !== expected) throw wrongWireType(def, f, wireType);
    if (f.mapKey !== undefined) {
      const [s, e] = r.bytesRange();
      const map = (obj[f.name] ??= {}) as Record<string, unknown>;
      decodeMapEntry(r.buf, s, e, f, map);
      continue;
    }
    if (f.message) {
      const [s, e] = r.bytesRange();
      if (f.repeated) {
        ((obj[f.name] ??= []) as unknown[]).push(decodeMessageValue(r.buf, s, e, f.type) ?? zeroOfSpecial(f.type));
      } else if (f.inline) {
        decodeMessageValue(r.buf, s, e, f.type, obj);
      } else {
        const existing = obj[f.name];
        const into = existing !== null && typeof existing === 'object' && !Array.isArray(existing) ? (existing as Record<string, unknown>) : undefined;
        const v = decodeMessageValue(r.buf, s, e, f.type, into);
        if (v !== undefined) obj[f.name] = v;
        else if (f.pointer) obj[f.name] = zeroOfSpecial(f.type);
        else delete obj[f.name];
      }
      continue;
    }
    const v = readScalar(r, f.type, wireType);
    if (f.repeated) ((obj[f.name] ??= []) as unknown[]).push(v);
    else if (f.pointer || !isZeroScalar(v)) obj[f.name] = v;
    else delete obj[f.name];
  }
  return obj;
}

/** The JSON of a special type's zero value when it must be kept (a set pointer, a list or map element). */
function zeroOfSpecial(type: string): JsonValue {
  if (type === INT_OR_STRING) return 0;
  if (type === QUANTITY) return '0';
  if (type === DURATION) return '0s';
  return null;
}

/** One `map<K, V>` entry message: key = 1, value = 2 (missing parts are the types' zero values). */
function decodeMapEntry(buf: Uint8Array, start: number, end: number, f: FieldDef, map: Record<string, unknown>): void {
  const r = new WireReader(buf, start, end);
  let key: unknown = '';
  let value: unknown;
  const keyType = f.mapKey as string;
  while (!r.eof()) {
    const [no, wireType] = r.key();
    if (no === 1) {
      if (wireType !== (keyType === 'string' ? WIRE_BYTES : WIRE_VARINT)) throw new ProtoError(`proto: wrong wireType = ${wireType} for map key of ${f.name}`);
      key = readScalar(r, keyType, wireType);
    } else if (no === 2) {
      const expected = f.message ? WIRE_BYTES : wireTypeOf({ ...f, mapKey: undefined });
      if (wireType !== expected) throw new ProtoError(`proto: wrong wireType = ${wireType} for map value of ${f.name}`);
      if (f.message) {
        const [s, e] = r.bytesRange();
        value = decodeMessageValue(buf, s, e, f.type);
      } else value = readScalar(r, f.type, wireType);
    } else r.skip(wireType);
  }
  map[String(key)] = value ?? (f.message ? (zeroOfSpecial(f.type) ?? {}) : f.type === 'string' || f.type === 'bytes' ? '' : f.type === 'bool' ? false : 0);
}

/**
 * Decodes one message of type `name` (full name, e.g. `k8s.io.api.core.v1.ConfigMap`) to its JSON object.
 * @throws ProtoError for malformed or truncated data, or a name without a schema
 */
export function decodeMessage(name: string, data: Uint8Array): Record<string, unknown> {
  const v = decodeMessageValue(data, 0, data.length, name);
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new ProtoError(`proto: ${name} is not an object message`);
  return v as Record<string, unknown>;
}

/** What a `runtime.Unknown` envelope names. */
export interface TypeMeta {
  apiVersion: string;
  kind: string;
}

/** Why {@link decodeKubernetesProtobuf} could not produce an object. */
export class ProtobufDecodeError extends Error {
  constructor(
    message: string,
    /** The group/version/kind the envelope named (after defaulting), when it was read. */
    readonly typeMeta?: TypeMeta,
  ) {
    super(message);
  }
}

/** `apps/v1` → [`apps`, `v1`]; `v1` → [``, `v1`]. */
function splitApiVersion(apiVersion: string): [string, string] {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
}

/**
 * Decodes a Kubernetes protobuf body: checks the `k8s\0` magic, reads the `runtime.Unknown` envelope,
 * defaults a missing kind or version from `defaults` (the endpoint's, as `copyKindDefaults`), finds the
 * message of the kind and decodes `raw`. Returns the JSON object with `apiVersion` and `kind` set.
 * @throws ProtobufDecodeError with upstream's messages: `empty data`, `provided data does not appear to
 *   be a protobuf message, expected prefix [107 56 115 0]`, `empty body`, `no kind "Foo" is registered
 *   for version "v1" in scheme "pkg/api/legacyscheme/scheme.go:30"`, or the wire error (`unexpected EOF` …)
 */
export function decodeKubernetesProtobuf(data: Uint8Array, defaults: TypeMeta): Record<string, unknown> {
  if (data.length === 0) throw new ProtobufDecodeError('empty data');
  if (data.length < PROTOBUF_MAGIC.length || PROTOBUF_MAGIC.some((b, i) => data[i] !== b)) {
    throw new ProtobufDecodeError(`provided data does not appear to be a protobuf message, expected prefix [${PROTOBUF_MAGIC.join(' ')}]`);
  }
  if (data.length === PROTOBUF_MAGIC.length) throw new ProtobufDecodeError('empty body');
  let envelope: Record<string, unknown> = {};
  let raw: Uint8Array = new Uint8Array();
  try {
    // runtime.Unknown: typeMeta = 1, raw = 2, contentEncoding = 3, contentType = 4. `raw` is taken
    // as a view rather than through the table, which would turn bytes into base64.
    const r = new WireReader(data, PROTOBUF_MAGIC.length);
    while (!r.eof()) {
      const [no, wireType] = r.key();
      if (no === 1 && wireType === WIRE_BYTES) envelope = decodeMessage(TYPE_META, r.bytes());
      else if (no === 2 && wireType === WIRE_BYTES) raw = r.bytes();
      else r.skip(wireType);
    }
  } catch (err) {
    throw new ProtobufDecodeError((err as Error).message);
  }
  let apiVersion = (envelope['apiVersion'] as string | undefined) ?? '';
  const kind = (envelope['kind'] as string | undefined) || defaults.kind;
  const [group0, version0] = splitApiVersion(apiVersion);
  if (version0 === '') apiVersion = defaults.apiVersion;
  const [group, version] = version0 === '' ? splitApiVersion(defaults.apiVersion) : [group0, version0];
  const typeMeta = { apiVersion, kind };
  const def = messageForKind(group, version, kind);
  if (!def) {
    throw new ProtobufDecodeError(`no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)} in scheme "pkg/api/legacyscheme/scheme.go:30"`, typeMeta);
  }
  let obj: Record<string, unknown>;
  try {
    obj = decodeMessage(def.name, raw);
  } catch (err) {
    throw new ProtobufDecodeError((err as Error).message, typeMeta);
  }
  return { apiVersion, kind, ...obj };
}
