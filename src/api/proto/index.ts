/**
 * Kubernetes protobuf: the wire format, the message schemas of the API (one generated table) and the
 * decoder of `application/vnd.kubernetes.protobuf` request bodies into JSON objects.
 */
export { PROTOBUF_MAGIC, ProtoError, ProtobufDecodeError, decodeKubernetesProtobuf, decodeMessage, formatDuration, type TypeMeta } from './decode.js';
export { META_V1_PACKAGE, isScalarType, messageDef, messageForKind, messageNames, packageOf, type FieldDef, type MessageDef, type ScalarType } from './schema.js';
export { WireReader, WireWriter, WIRE_BYTES, WIRE_FIXED32, WIRE_FIXED64, WIRE_VARINT } from './wire.js';
