/**
 * Encoding JSON objects as Kubernetes protobuf (`application/vnd.kubernetes.protobuf`), the mirror of
 * decode.ts. Follows what the gogo-protobuf generated `Marshal` methods of k8s.io/api and
 * k8s.io/apimachinery write (generated.pb.go), so that our bytes are the bytes a Go server sends:
 * - fields in field-number order (not declaration order);
 * - non-pointer scalars are always written, zero or not (`hostPort: 0`, `imagePullPolicy: ""`);
 *   pointer scalars (`replicas`, `optional` …) only when set; `bytes` only when set;
 * - non-pointer nested messages are always written, an absent one as its zero value (which writes
 *   its own non-pointer scalars: an absent DeploymentStatus is `08 00 10 00 …`); pointer messages
 *   only when set;
 * - repeated fields element by element (proto2: not packed); maps as entries sorted by key, key and
 *   value both always written;
 * - special types (k8s.io/apimachinery/pkg/apis/meta/v1/time_proto.go, micro_time_proto.go,
 *   api/resource/quantity_proto.go, util/intstr): Time is `{seconds, nanos: 0}` and empty when zero,
 *   MicroTime keeps its nanoseconds, Quantity is its string (`"0"` when absent), IntOrString
 *   `{type, intVal, strVal}`, Duration nanoseconds, FieldsV1 and RawExtension carry the JSON text.
 *
 * The envelope (k8s.io/apimachinery/pkg/runtime/serializer/protobuf/protobuf.go `Serializer.Encode`)
 * is the `k8s\0` magic then a `runtime.Unknown` {typeMeta{apiVersion, kind}, raw, contentEncoding "",
 * contentType ""}.
 *
 * Values of the wrong JSON type are coerced (a number where a string is due is written as its text)
 * rather than thrown on: objects come out of our own storage, already validated.
 */
import { parseTime } from '../../util/clock/index.js';
import { PROTOBUF_MAGIC } from './decode.js';
import { DURATION, FIELDS_V1, INT_OR_STRING, MICRO_TIME, QUANTITY, RAW_EXTENSION, TIME, messageDef, messageForKind, wireTypeOf, type FieldDef, type MessageDef } from './schema.js';

/** The special messages, told apart once per field rather than by name on every value. */
const enum Special {
  None,
  Time,
  MicroTime,
  Duration,
  IntOrString,
  Quantity,
  Embedded,
}

const SPECIALS = new Map<string, Special>([
  [TIME, Special.Time],
  [MICRO_TIME, Special.MicroTime],
  [DURATION, Special.Duration],
  [INT_OR_STRING, Special.IntOrString],
  [QUANTITY, Special.Quantity],
  [FIELDS_V1, Special.Embedded],
  [RAW_EXTENSION, Special.Embedded],
]);

/** A field with its key precomputed. */
interface EncField {
  def: FieldDef;
  /** The field key as a varint value (`number << 3 | wireType`). */
  key: number;
  /** For message fields (and maps of messages): which special type, if any. */
  special: Special;
  /** The message's compiled fields, resolved on first use. */
  child?: Compiled;
}

/** A message compiled for encoding: its fields sorted by number. */
interface Compiled {
  def: MessageDef;
  fields: EncField[];
}

const compiled = new Map<string, Compiled>();

function compiledOf(name: string): Compiled {
  let c = compiled.get(name);
  if (!c) {
    const def = schemaOf(name);
    const fields = [...def.fields]
      .sort((a, b) => a.number - b.number)
      .map((f): EncField => ({ def: f, key: f.number * 8 + wireTypeOf(f), special: f.message ? (SPECIALS.get(f.type) ?? Special.None) : Special.None }));
    c = { def, fields };
    compiled.set(name, c);
  }
  return c;
}

function childOf(ef: EncField): Compiled {
  return (ef.child ??= compiledOf(ef.def.type));
}

function schemaOf(name: string): MessageDef {
  const def = messageDef(name);
  if (!def) throw new Error(`proto: no schema for message ${name}`);
  return def;
}

/**
 * A growable output buffer. Nested messages are written in place: one byte is reserved for the
 * length, and the body moved right when its length needs more (bodies of 128 bytes or more), which
 * is cheaper than encoding every nested message into a buffer of its own.
 */
class Output {
  buf: Buffer;
  pos = 0;

  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }

  /** An unsigned varint of a non-negative integer up to 2^53. */
  uvarint(n: number): void {
    this.ensure(10);
    const buf = this.buf;
    let pos = this.pos;
    while (n >= 0x80) {
      buf[pos++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    buf[pos++] = n;
    this.pos = pos;
  }

  /** A signed integer as Go writes int32/int64: two's complement, negatives in ten bytes. */
  int64(n: number): void {
    if (n >= 0) {
      this.uvarint(n);
      return;
    }
    // Two's complement in 64 bits, ten bytes (rare: BigInt is fine here).
    let u = BigInt.asUintN(64, BigInt(n));
    this.ensure(10);
    while (u >= 0x80n) {
      this.buf[this.pos++] = Number(u & 0x7fn) | 0x80;
      u >>= 7n;
    }
    this.buf[this.pos++] = Number(u);
  }

  /** A length-delimited UTF-8 string. */
  string(s: string): void {
    // At most 3 bytes per UTF-16 unit: a string of up to 42 units has a one-byte length.
    if (s.length <= 42) {
      this.ensure(1 + s.length * 3);
      // ASCII by hand: cheaper than a call into the UTF-8 writer for the short strings most fields hold.
      const buf = this.buf;
      const start = this.pos + 1;
      let i = 0;
      for (; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[start + i] = c;
      }
      const n = i === s.length ? i : buf.write(s, start, 'utf8');
      this.buf[this.pos] = n;
      this.pos += 1 + n;
      return;
    }
    const n = Buffer.byteLength(s, 'utf8');
    this.uvarint(n);
    this.ensure(n);
    this.buf.write(s, this.pos, 'utf8');
    this.pos += n;
  }

  bytes(b: Uint8Array): void {
    this.uvarint(b.length);
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Starts a length-delimited body; returns the mark to pass to {@link endDelimited}. */
  beginDelimited(): number {
    this.ensure(1);
    return this.pos++;
  }

  /** Writes the length of the body begun at `mark`, moving the body right when the length takes more than one byte. */
  endDelimited(mark: number): void {
    const len = this.pos - mark - 1;
    if (len < 0x80) {
      this.buf[mark] = len;
      return;
    }
    const extra = varintSize(len) - 1;
    this.ensure(extra);
    this.buf.copyWithin(mark + 1 + extra, mark + 1, this.pos);
    this.pos += extra;
    let p = mark;
    let n = len;
    while (n >= 0x80) {
      this.buf[p++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[p] = n;
  }

  /** A copy of the bytes written. */
  result(): Buffer {
    const out = Buffer.allocUnsafe(this.pos);
    this.buf.copy(out, 0, 0, this.pos);
    return out;
  }
}

/** Bytes taken by the varint of a non-negative integer up to 2^53. */
export function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    size++;
  }
  return size;
}

/** Reused between calls: encoding is synchronous, and the result is copied out. */
let scratch = new Output(64 * 1024);

function asObject(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function asNumber(v: unknown): number {
  const n = typeof v === 'number' ? v : typeof v === 'boolean' ? Number(v) : Number(v ?? 0);
  return Number.isFinite(n) ? Math.trunc(n) : 0;
}

function asString(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined || v === null) return '';
  return typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint' ? String(v) : (JSON.stringify(v) ?? '');
}

/** One scalar value of `type` (the key already written). */
function writeScalar(out: Output, type: string, v: unknown): void {
  switch (type) {
    case 'string':
      out.string(asString(v));
      return;
    case 'bytes':
      out.bytes(typeof v === 'string' ? Buffer.from(v, 'base64') : v instanceof Uint8Array ? v : new Uint8Array());
      return;
    case 'bool':
      out.byte(v === true ? 1 : 0);
      return;
    case 'int32':
    case 'int64':
      out.int64(asNumber(v));
      return;
    case 'uint32':
    case 'uint64':
      out.uvarint(Math.max(0, asNumber(v)));
      return;
    case 'sint32':
    case 'sint64': {
      const n = asNumber(v);
      out.uvarint(n >= 0 ? n * 2 : -n * 2 - 1);
      return;
    }
    case 'double':
    case 'fixed64':
    case 'sfixed64': {
      out.ensure(8);
      const n = typeof v === 'number' ? v : Number(v ?? 0);
      if (type === 'double') out.buf.writeDoubleLE(n, out.pos);
      else out.buf.writeBigInt64LE(BigInt(Math.trunc(Number.isFinite(n) ? n : 0)), out.pos);
      out.pos += 8;
      return;
    }
    default: {
      // float, fixed32, sfixed32
      out.ensure(4);
      const n = typeof v === 'number' ? v : Number(v ?? 0);
      if (type === 'float') out.buf.writeFloatLE(n, out.pos);
      else out.buf.writeUInt32LE(asNumber(n) >>> 0, out.pos);
      out.pos += 4;
    }
  }
}

const UTC_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?Z$/;

/** Seconds and nanoseconds of an RFC 3339 timestamp; undefined when absent or malformed (the zero Time). */
function timestampOf(v: unknown): { seconds: number; nanos: number } | undefined {
  if (typeof v !== 'string') return undefined;
  // The form our server writes, `2025-03-01T12:00:00Z` (optionally with a fraction), read by hand:
  // Date.parse is a good part of a pod's encoding time.
  const m = UTC_TIME.exec(v);
  // Date.UTC maps years 0–99 to 1900–1999: those go the slow way.
  if (m && +(m[1] as string) >= 100) {
    const seconds = Date.UTC(+(m[1] as string), +(m[2] as string) - 1, +(m[3] as string), +(m[4] as string), +(m[5] as string), +(m[6] as string)) / 1000;
    if (Number.isFinite(seconds)) return { seconds, nanos: Number((m[7] ?? '').slice(0, 9).padEnd(9, '0')) };
  }
  const ms = parseTime(v);
  if (ms === undefined) return undefined;
  const seconds = Math.floor(ms / 1000);
  const frac = /\.(\d+)/.exec(v.slice(v.indexOf('T')))?.[1] ?? '';
  const nanos = Number(frac.slice(0, 9).padEnd(9, '0'));
  return { seconds, nanos };
}

const DURATION_UNITS: Record<string, number> = { ns: 1, us: 1e3, 'µs': 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, m: 6e10, h: 3.6e12 };

/** Nanoseconds of a Go duration string (`1m30s`, `-1.5h`); 0 for anything else. */
export function durationNanos(s: unknown): number {
  if (typeof s !== 'string') return 0;
  const m = /^([-+]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/.exec(s);
  if (!m) return 0;
  let total = 0;
  for (const [, num, unit] of s.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) total += Number(num) * (DURATION_UNITS[unit as string] as number);
  return Math.round(m[1] === '-' ? -total : total);
}

/**
 * Writes the body of the message of field `ef` for the JSON value `v` (undefined: the zero value).
 * Special types take their JSON forms.
 */
function writeMessageBody(out: Output, ef: EncField, v: unknown): void {
  switch (ef.special) {
    case Special.Time:
    case Special.MicroTime: {
      const ts = timestampOf(v);
      if (!ts) return;
      out.byte(0x08);
      out.int64(ts.seconds);
      out.byte(0x10);
      out.int64(ef.special === Special.Time ? 0 : Math.floor(ts.nanos / 1000) * 1000);
      return;
    }
    case Special.Duration:
      out.byte(0x08);
      out.int64(durationNanos(v));
      return;
    case Special.IntOrString: {
      const isString = typeof v === 'string';
      out.byte(0x08);
      out.byte(isString ? 1 : 0);
      out.byte(0x10);
      out.int64(isString ? 0 : asNumber(v));
      out.byte(0x1a);
      out.string(isString ? v : '');
      return;
    }
    case Special.Quantity:
      out.byte(0x0a);
      out.string(v === undefined || v === null ? '0' : asString(v));
      return;
    case Special.Embedded:
      if (v === undefined || v === null) return;
      out.byte(0x0a);
      out.string(JSON.stringify(v));
      return;
    case Special.None: {
      const child = childOf(ef);
      const obj = child.def.arrayWrapper && Array.isArray(v) ? { items: v } : (asObject(v) ?? EMPTY);
      writeFields(out, child, obj);
    }
  }
}

const EMPTY: Readonly<Record<string, unknown>> = Object.freeze({});

/** Writes a length-delimited message field: key, length, body. */
function writeMessageField(out: Output, key: number, ef: EncField, v: unknown): void {
  out.uvarint(key);
  const mark = out.beginDelimited();
  writeMessageBody(out, ef, v);
  out.endDelimited(mark);
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function writeMap(out: Output, ef: EncField, map: Record<string, unknown>): void {
  const f = ef.def;
  const keyType = f.mapKey as string;
  const keys = Object.keys(map);
  if (keyType === 'string') keys.sort(compareKeys);
  else keys.sort((a, b) => Number(a) - Number(b));
  const valueKey = f.message ? 0x12 : 0x10 | wireTypeOf({ ...f, mapKey: undefined });
  for (const k of keys) {
    const value = map[k];
    out.uvarint(ef.key);
    const mark = out.beginDelimited();
    out.byte(keyType === 'string' ? 0x0a : 0x08);
    writeScalar(out, keyType, keyType === 'string' ? k : Number(k));
    if (f.message) writeMessageField(out, 0x12, ef, value);
    else {
      out.byte(valueKey);
      writeScalar(out, f.type, value);
    }
    out.endDelimited(mark);
  }
}

/** Writes the fields of `def` from the JSON object `obj`, in field-number order. */
function writeFields(out: Output, msg: Compiled, obj: Readonly<Record<string, unknown>>): void {
  for (const ef of msg.fields) {
    const f = ef.def;
    if (f.inline) {
      // An embedded Go struct: its fields are the parent's JSON members.
      writeMessageField(out, ef.key, ef, obj);
      continue;
    }
    const v = obj[f.name];
    if (f.mapKey !== undefined) {
      const map = asObject(v);
      if (map) writeMap(out, ef, map);
      continue;
    }
    if (f.repeated) {
      if (!Array.isArray(v)) continue;
      for (const el of v as unknown[]) {
        if (f.message) writeMessageField(out, ef.key, ef, el);
        else {
          out.uvarint(ef.key);
          writeScalar(out, f.type, el);
        }
      }
      continue;
    }
    const absent = v === undefined || v === null;
    if (absent && (f.pointer || f.type === 'bytes')) continue;
    if (f.message) writeMessageField(out, ef.key, ef, absent ? undefined : v);
    else {
      out.uvarint(ef.key);
      writeScalar(out, f.type, v);
    }
  }
}

function withScratch(write: (out: Output) => void): Buffer {
  const out = scratch;
  out.pos = 0;
  try {
    write(out);
    return out.result();
  } finally {
    // Keep a grown buffer for the next call, unless a huge object made it unreasonably large.
    scratch = out.buf.length > 16 * 1024 * 1024 ? new Output(64 * 1024) : out;
  }
}

/**
 * The bytes of the message `name` (full name, e.g. `k8s.io.api.core.v1.Pod`) for the JSON object
 * `obj` (its `apiVersion` and `kind`, not fields of the message, are ignored).
 * @throws Error `proto: no schema for message …` for a name without a schema
 */
export function encodeMessage(name: string, obj: Readonly<Record<string, unknown>>): Buffer {
  const msg = compiledOf(name);
  return withScratch((out) => writeFields(out, msg, obj));
}

/** `apps/v1` → [`apps`, `v1`]; `v1` → [``, `v1`]. */
function splitApiVersion(apiVersion: string): [string, string] {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
}

/**
 * The message schema of an object by its own `apiVersion` and `kind` (`v1 Pod` →
 * `k8s.io.api.core.v1.Pod`, `v1 Status` → meta/v1 Status); undefined when either is missing or the
 * kind has no protobuf message.
 */
export function messageForObject(obj: Readonly<Record<string, unknown>>): MessageDef | undefined {
  const { apiVersion, kind } = obj;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || !apiVersion || !kind) return undefined;
  const [group, version] = splitApiVersion(apiVersion);
  return messageForKind(group, version, kind);
}

/**
 * The bytes of a `runtime.Unknown` envelope up to (and including) the length of `raw`, for a raw
 * message of `rawLength` bytes: `0a <len> typeMeta{apiVersion, kind} 12 <rawLength>`. The envelope is
 * completed by the raw bytes, then {@link UNKNOWN_TRAILER}.
 */
export function unknownPrefix(apiVersion: string, kind: string, rawLength: number): Buffer {
  return withScratch((out) => {
    out.byte(0x0a);
    const mark = out.beginDelimited();
    out.byte(0x0a);
    out.string(apiVersion);
    out.byte(0x12);
    out.string(kind);
    out.endDelimited(mark);
    out.byte(0x12);
    out.uvarint(rawLength);
  });
}

/** The end of a `runtime.Unknown` after `raw`: empty contentEncoding (3) and contentType (4), which gogo always writes. */
export const UNKNOWN_TRAILER: Uint8Array = Uint8Array.of(0x1a, 0x00, 0x22, 0x00);

/**
 * A whole Kubernetes protobuf body for a message already encoded: `k8s\0`, then the `runtime.Unknown`
 * naming `apiVersion`/`kind` around `raw`.
 */
export function wrapKubernetesProtobuf(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
  return Buffer.concat([PROTOBUF_MAGIC, unknownPrefix(apiVersion, kind, raw.length), raw, UNKNOWN_TRAILER]);
}

/**
 * Encodes an object as a Kubernetes protobuf body (upstream's protobuf `Serializer.Encode`): the
 * message of its `apiVersion`/`kind` in the envelope. Undefined when the object names no kind with
 * a protobuf message (custom resources, Tables); the caller then answers in JSON.
 */
export function encodeKubernetesProtobuf(obj: Readonly<Record<string, unknown>>): Buffer | undefined {
  const def = messageForObject(obj);
  if (!def) return undefined;
  return wrapKubernetesProtobuf(obj['apiVersion'] as string, obj['kind'] as string, encodeMessage(def.name, obj));
}
