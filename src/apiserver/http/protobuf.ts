/**
 * Kubernetes protobuf responses (`application/vnd.kubernetes.protobuf`), as upstream's protobuf
 * serializer writes them (k8s.io/apimachinery/pkg/runtime/serializer/protobuf/protobuf.go): the
 * `k8s\0` magic, then a `runtime.Unknown` whose `raw` is the object's message. Objects out of the
 * watch cache are encoded once (`serializedProtobuf`), as their JSON is.
 *
 * Lists are written item by item. The envelope carries the length of `raw`, the whole list message,
 * before any item, so every item is encoded first and its bytes kept; the sum gives the length, then
 * the pieces are written. Encoding once and keeping the buffers was chosen over a sizing pass
 * followed by an encoding pass: cached items (the common case, a LIST served from the watch cache)
 * cost nothing to keep since the cache holds them anyway, and uncached ones would otherwise be
 * walked twice. The list is thus never copied into one buffer: each item goes out as its own piece
 * after a few bytes of key and length.
 */
import { PROTOBUF_MAGIC, UNKNOWN_TRAILER, encodeMessage, messageForKind, messageForObject, unknownPrefix, watchEventFrame, type MessageDef } from '../../api/proto/index.js';
import type { ResourceStrategy, SubresourceInfo } from '../registry/strategy.js';
import { serializedProtobuf } from '../watchcache/serialized.js';
import { isList } from './table.js';

/** The Content-Type of a protobuf watch stream (handlers/watch.go adds `;stream=watch` to non-JSON media types). */
export const PROTOBUF_WATCH_CONTENT_TYPE = 'application/vnd.kubernetes.protobuf;stream=watch';

/**
 * True when the endpoint can answer in protobuf: its kind (or its subresource's, e.g. autoscaling/v1
 * Scale) has a protobuf message, and it is not a custom resource — upstream's CRD handler leaves
 * protobuf out of the serializers it negotiates objects with (apiextensions-apiserver
 * customresource_handler.go `StandardSerializers`).
 */
export function servesProtobuf(strategy: ResourceStrategy, subresource?: SubresourceInfo): boolean {
  if (strategy.pruneUnknownFields || strategy.openApiSchema) return false;
  const { group, version, kind } = subresource ?? strategy.info;
  return messageForKind(group, version, kind) !== undefined;
}

function asRecord(v: unknown): Readonly<Record<string, unknown>> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** The key and length bytes of a length-delimited field `field` of `length` bytes. */
function delimitedHeader(field: number, length: number): Buffer {
  const bytes = [field * 8 + 2];
  let n = length;
  while (n >= 0x80) {
    bytes.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  bytes.push(n);
  return Buffer.from(bytes);
}

/**
 * The pieces of a list body: magic and envelope prefix, the list's other fields (its ListMeta),
 * then per item its key and length and its (cached) message bytes, then the envelope trailer.
 * Undefined when the items field is not the list message's last field, which piecewise writing
 * relies on (true of every Kubernetes list: metadata = 1, items = 2).
 */
function listPieces(list: Readonly<Record<string, unknown>>, def: MessageDef, items: readonly unknown[]): Uint8Array[] | undefined {
  const itemsField = def.fields.find((f) => f.name === 'items');
  if (!itemsField?.message || def.fields.some((f) => f.number > itemsField.number)) return undefined;
  const rest = encodeMessage(def.name, { ...list, items: undefined });
  const pieces: Uint8Array[] = [];
  let rawLength = rest.length;
  for (const item of items) {
    const bytes = serializedProtobuf(asRecord(item) ?? {}, itemsField.type);
    const header = delimitedHeader(itemsField.number, bytes.length);
    pieces.push(header, bytes);
    rawLength += header.length + bytes.length;
  }
  return [PROTOBUF_MAGIC, unknownPrefix(list['apiVersion'] as string, list['kind'] as string, rawLength), rest, ...pieces, UNKNOWN_TRAILER];
}

/**
 * A response body as Kubernetes protobuf pieces, to write in order: a list item by item, any other
 * object as magic, envelope and message. Undefined when the body names no kind with a protobuf
 * message (the caller answers in JSON then, which client-go decodes by the response Content-Type).
 * @throws Error only for a broken schema table
 */
export function protobufBodyPieces(body: unknown): Uint8Array[] | undefined {
  const obj = asRecord(body);
  if (!obj) return undefined;
  const def = messageForObject(obj);
  if (!def) return undefined;
  const list = isList(obj) ? listPieces(obj, def, obj.items) : undefined;
  if (list) return list;
  const raw = serializedProtobuf(obj, def.name);
  return [PROTOBUF_MAGIC, unknownPrefix(obj['apiVersion'] as string, obj['kind'] as string, raw.length), raw, UNKNOWN_TRAILER];
}

/**
 * The frame of a watch event in a protobuf watch stream (api/proto watchEventFrame), the object's
 * message bytes shared with the serialize-once cache.
 * @throws Error when the object names no kind with a protobuf message
 */
export function protobufWatchFrame(type: string, object: unknown): Uint8Array[] {
  const obj = asRecord(object) ?? {};
  const def = messageForObject(obj);
  if (!def) throw new Error(`no protobuf message for ${String(obj['apiVersion'])} ${String(obj['kind'])}`);
  return watchEventFrame(type, obj['apiVersion'] as string, obj['kind'] as string, serializedProtobuf(obj, def.name));
}
