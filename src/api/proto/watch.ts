/**
 * Protobuf watch streams (`application/vnd.kubernetes.protobuf;stream=watch`), as upstream writes
 * them: k8s.io/apimachinery/pkg/runtime/serializer/protobuf `LengthDelimitedFramer` (each frame a
 * 4-byte big-endian length, then the bytes) around a meta/v1 `WatchEvent` {type = 1, object = 2
 * (RawExtension{raw = 1})} encoded by the raw serializer (no magic, no envelope), whose `raw` holds
 * the object as a whole Kubernetes protobuf body (`k8s\0` + runtime.Unknown), as
 * k8s.io/apiserver/pkg/endpoints/handlers/watch.go embeds it.
 */
import { PROTOBUF_MAGIC, decodeKubernetesProtobuf, type TypeMeta } from './decode.js';
import { UNKNOWN_TRAILER, unknownPrefix, varintSize } from './encode.js';
import { ProtoError, WIRE_BYTES, WireReader } from './wire.js';

/**
 * The frame of one watch event whose object is the message `raw` of `apiVersion`/`kind`, as pieces
 * to write in order: a header (frame length, WatchEvent type, the RawExtension and envelope
 * prefixes), `raw` itself (not copied: a cached object's bytes are shared) and the envelope's trailer.
 */
export function watchEventFrame(type: string, apiVersion: string, kind: string, raw: Uint8Array): Uint8Array[] {
  const prefix = unknownPrefix(apiVersion, kind, raw.length);
  const embedded = PROTOBUF_MAGIC.length + prefix.length + raw.length + UNKNOWN_TRAILER.length;
  const extension = 1 + varintSize(embedded) + embedded;
  const typeBytes = Buffer.from(type, 'utf8');
  const eventLength = 1 + varintSize(typeBytes.length) + typeBytes.length + 1 + varintSize(extension) + extension;
  const head: number[] = [];
  const varint = (n: number): void => {
    while (n >= 0x80) {
      head.push((n % 0x80) | 0x80);
      n = Math.floor(n / 0x80);
    }
    head.push(n);
  };
  head.push((eventLength >>> 24) & 0xff, (eventLength >>> 16) & 0xff, (eventLength >>> 8) & 0xff, eventLength & 0xff);
  head.push(0x0a);
  varint(typeBytes.length);
  head.push(...typeBytes, 0x12);
  varint(extension);
  head.push(0x0a);
  varint(embedded);
  head.push(...PROTOBUF_MAGIC);
  return [Buffer.concat([Uint8Array.from(head), prefix]), raw, UNKNOWN_TRAILER];
}

/** One decoded watch event. */
export interface DecodedWatchEvent {
  type: string;
  object: Record<string, unknown>;
}

/**
 * Splits a protobuf watch stream into events: complete frames from `data`, each decoded (the object
 * through {@link decodeKubernetesProtobuf}, a missing kind defaulting to `defaults`), and the bytes
 * of an incomplete last frame in `rest`, to prepend to the next chunk.
 * @throws ProtoError or ProtobufDecodeError for a malformed frame
 */
export function decodeWatchFrames(data: Uint8Array, defaults: TypeMeta): { events: DecodedWatchEvent[]; rest: Uint8Array } {
  const events: DecodedWatchEvent[] = [];
  let pos = 0;
  while (data.length - pos >= 4) {
    const len = (((data[pos] as number) << 24) | ((data[pos + 1] as number) << 16) | ((data[pos + 2] as number) << 8) | (data[pos + 3] as number)) >>> 0;
    if (data.length - pos - 4 < len) break;
    const r = new WireReader(data, pos + 4, pos + 4 + len);
    pos += 4 + len;
    let type = '';
    let raw: Uint8Array | undefined;
    while (!r.eof()) {
      const [no, wireType] = r.key();
      if (no === 1 && wireType === WIRE_BYTES) type = Buffer.from(r.bytes()).toString('utf8');
      else if (no === 2 && wireType === WIRE_BYTES) {
        const ext = r.bytes();
        const er = new WireReader(ext);
        while (!er.eof()) {
          const [eno, ewt] = er.key();
          if (eno === 1 && ewt === WIRE_BYTES) raw = er.bytes();
          else er.skip(ewt);
        }
      } else r.skip(wireType);
    }
    if (!raw) throw new ProtoError('watch event without an object');
    events.push({ type, object: decodeKubernetesProtobuf(raw, defaults) });
  }
  return { events, rest: data.subarray(pos) };
}
