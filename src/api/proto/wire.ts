/**
 * The protobuf wire format (proto2 as gogo-protobuf writes it for Kubernetes): a reader for the four
 * wire types Kubernetes messages use — varint (0), 64-bit (1), length-delimited (2) and 32-bit (5) —
 * and a small writer used by tests and tools to build bodies. Errors are {@link ProtoError}s worded as
 * gogo-protobuf's generated `Unmarshal` methods word them (`unexpected EOF`, `proto: illegal wireType 7`,
 * `proto: negative length found during unmarshaling`, `proto: integer overflow`).
 *
 * Spec: https://protobuf.dev/programming-guides/encoding/ .
 */

/** A malformed or truncated protobuf message. */
export class ProtoError extends Error {}

/** Wire types. Groups (3, 4) are not used by Kubernetes and are rejected. */
export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_BYTES = 2;
export const WIRE_FIXED32 = 5;

const TWO_32 = 4294967296;

/**
 * A varint split into its low and high 32 bits (both unsigned), so that 64-bit values, including the
 * ten-byte two's complement of negative int32/int64, are read without BigInt. Example: -1 as int32 is
 * sent as ff ff ff ff ff ff ff ff ff 01 → lo 0xffffffff, hi 0xffffffff → `lo | 0` = -1.
 */
export interface Varint {
  lo: number;
  hi: number;
}

/** Reads one message (or a slice of one) from `buf[start, end)`. */
export class WireReader {
  pos: number;

  constructor(
    readonly buf: Uint8Array,
    start = 0,
    readonly end = buf.length,
  ) {
    this.pos = start;
  }

  /** True when the slice is consumed. */
  eof(): boolean {
    return this.pos >= this.end;
  }

  /** The next field key: `[fieldNumber, wireType]`. @throws ProtoError for field 0 or an unknown wire type */
  key(): [number, number] {
    const { lo, hi } = this.varint();
    const wireType = lo & 7;
    const fieldNumber = hi * 0x20000000 + (lo >>> 3);
    if (fieldNumber <= 0 || fieldNumber > 0x1fffffff) throw new ProtoError(`proto: illegal tag ${fieldNumber} (wire type ${wireType})`);
    if (wireType !== WIRE_VARINT && wireType !== WIRE_FIXED64 && wireType !== WIRE_BYTES && wireType !== WIRE_FIXED32) {
      throw new ProtoError(`proto: illegal wireType ${wireType}`);
    }
    return [fieldNumber, wireType];
  }

  /** A varint of up to 10 bytes. @throws ProtoError `unexpected EOF`, `proto: integer overflow` */
  varint(): Varint {
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new ProtoError('unexpected EOF');
      const b = this.buf[this.pos++] as number;
      const bits = b & 0x7f;
      if (i < 4) lo += bits * 2 ** (7 * i);
      else if (i === 4) {
        // Bits 28..34: the low 4 go to lo, the high 3 to hi.
        lo += (bits & 0x0f) * 2 ** 28;
        hi += bits >>> 4;
      } else hi += bits * 2 ** (7 * i - 32);
      if (b < 0x80) return { lo: lo >>> 0, hi: hi >>> 0 };
    }
    throw new ProtoError('proto: integer overflow');
  }

  /** The payload of a length-delimited field, as a sub-range `[start, end)` of the buffer. */
  bytesRange(): [number, number] {
    const { lo, hi } = this.varint();
    if (hi >= 0x80000000) throw new ProtoError('proto: negative length found during unmarshaling');
    const len = hi * TWO_32 + lo;
    const start = this.pos;
    if (len > this.end - start) throw new ProtoError('unexpected EOF');
    this.pos = start + len;
    return [start, start + len];
  }

  /** The payload of a length-delimited field (a view, not a copy). */
  bytes(): Uint8Array {
    const [s, e] = this.bytesRange();
    return this.buf.subarray(s, e);
  }

  /** A 32-bit little-endian value as `{lo, hi: 0}`. */
  fixed32(): Varint {
    if (this.end - this.pos < 4) throw new ProtoError('unexpected EOF');
    const b = this.buf;
    const p = this.pos;
    this.pos += 4;
    return { lo: ((b[p] as number) | ((b[p + 1] as number) << 8) | ((b[p + 2] as number) << 16) | ((b[p + 3] as number) << 24)) >>> 0, hi: 0 };
  }

  /** A 64-bit little-endian value. */
  fixed64(): Varint {
    const lo = this.fixed32().lo;
    return { lo, hi: this.fixed32().lo };
  }

  /** Skips a field's value of `wireType`. */
  skip(wireType: number): void {
    if (wireType === WIRE_VARINT) this.varint();
    else if (wireType === WIRE_FIXED64) this.fixed64();
    else if (wireType === WIRE_BYTES) this.bytesRange();
    else if (wireType === WIRE_FIXED32) this.fixed32();
    else throw new ProtoError(`proto: illegal wireType ${wireType}`);
  }
}

/** `int64` from a varint: two's complement; exact up to 2^53 in magnitude. */
export function toInt64(v: Varint): number {
  return v.hi >= 0x80000000 ? (v.hi - TWO_32) * TWO_32 + v.lo : v.hi * TWO_32 + v.lo;
}

/** `uint64` from a varint; exact up to 2^53. */
export function toUint64(v: Varint): number {
  return v.hi * TWO_32 + v.lo;
}

/** `sint32`/`sint64` (zigzag): 0 → 0, 1 → -1, 2 → 1, 3 → -2 … */
export function toZigzag(v: Varint): number {
  const n = toUint64(v);
  return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
}

/** A float64 from its 64 bits. */
export function toDouble(v: Varint): number {
  const dv = new DataView(new ArrayBuffer(8));
  dv.setUint32(0, v.lo, true);
  dv.setUint32(4, v.hi, true);
  return dv.getFloat64(0, true);
}

/** A float32 from its 32 bits. */
export function toFloat(v: Varint): number {
  const dv = new DataView(new ArrayBuffer(4));
  dv.setUint32(0, v.lo, true);
  return dv.getFloat32(0, true);
}

/**
 * Builds protobuf messages (tests and tools). Numbers are written as varints in two's complement
 * (negative values take ten bytes, as Go writes int32 and int64).
 */
export class WireWriter {
  private readonly chunks: number[] = [];

  /** Appends a raw varint. */
  varint(n: number): this {
    let v = BigInt.asUintN(64, BigInt(n));
    while (v > 0x7fn) {
      this.chunks.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.chunks.push(Number(v));
    return this;
  }

  /** A field key. */
  key(field: number, wireType: number): this {
    return this.varint(field * 8 + wireType);
  }

  /** A varint field (int32, int64, bool as 0/1). */
  int(field: number, n: number | boolean): this {
    return this.key(field, WIRE_VARINT).varint(typeof n === 'boolean' ? (n ? 1 : 0) : n);
  }

  /** A length-delimited field: a string (UTF-8), raw bytes, or a nested message built by a writer. */
  bytes(field: number, v: string | Uint8Array | WireWriter): this {
    const data = typeof v === 'string' ? Buffer.from(v, 'utf8') : v instanceof WireWriter ? v.finish() : v;
    this.key(field, WIRE_BYTES).varint(data.length);
    for (const b of data) this.chunks.push(b);
    return this;
  }

  /** A 64-bit double field. */
  double(field: number, n: number): this {
    const dv = new DataView(new ArrayBuffer(8));
    dv.setFloat64(0, n, true);
    this.key(field, WIRE_FIXED64);
    for (let i = 0; i < 8; i++) this.chunks.push(dv.getUint8(i));
    return this;
  }

  /** The bytes written so far. */
  finish(): Uint8Array {
    return Uint8Array.from(this.chunks);
  }
}
