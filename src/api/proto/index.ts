/**
 * Kubernetes protobuf: the wire format, the message schemas of the API (one generated table), the
 * decoder of `application/vnd.kubernetes.protobuf` request bodies into JSON objects, the encoder of
 * objects into such bodies, and the framing of protobuf watch streams.
 */
export { PROTOBUF_MAGIC, ProtoError, ProtobufDecodeError, decodeKubernetesProtobuf, decodeMessage, formatDuration, type TypeMeta } from './decode.js';
export { UNKNOWN_TRAILER, encodeKubernetesProtobuf, encodeMessage, messageForObject, unknownPrefix, varintSize, wrapKubernetesProtobuf } from './encode.js';
export { META_V1_PACKAGE, isScalarType, messageDef, messageForKind, messageNames, packageOf, type FieldDef, type MessageDef, type ScalarType } from './schema.js';
export { decodeWatchFrames, watchEventFrame, type DecodedWatchEvent } from './watch.js';
export { WireReader, WireWriter, WIRE_BYTES, WIRE_FIXED32, WIRE_FIXED64, WIRE_VARINT } from './wire.js';
