/**
 * Request bodies: reading with a size limit and decoding by Content-Type, with upstream's error
 * wording (k8s.io/apiserver/pkg/endpoints/handlers/{rest.go limitedReadBody, transformDecodeError,
 * summarizeData; create.go; patch.go; delete.go}).
 */
import type { IncomingMessage } from 'node:http';
import { parse as parseYaml } from 'yaml';
import type { PatchType } from '../../api/request.js';
import {
  errorMessage,
  newBadRequest,
  newRequestEntityTooLarge,
  newUnsupportedMediaType,
  type StatusError,
} from '../../machinery/errors/index.js';
import { ProtobufDecodeError, decodeKubernetesProtobuf } from '../../api/proto/index.js';
import { recordSource } from '../../machinery/serializer/yaml-keys.js';
import { PROTOBUF_MEDIA_TYPE, mediaTypeOf } from './negotiation.js';

/** A client's YAML is the client's business: its warnings (an unknown directive …) are not logged as the server's. */
const YAML_OPTIONS = { logLevel: 'error' } as const;

/** Upstream's default `MaxRequestBodyBytes`: 3 MiB. */
export const DEFAULT_MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/** Kubernetes protobuf (`k8s\0` + runtime.Unknown), which typed client-go clients send since 1.32. */
export { PROTOBUF_MEDIA_TYPE };

/** Media types accepted for object bodies (create, update, subresources, DeleteOptions), in upstream's order. */
export const OBJECT_MEDIA_TYPES = ['application/json', 'application/yaml', PROTOBUF_MEDIA_TYPE] as const;

/** One of {@link OBJECT_MEDIA_TYPES}. */
export type ObjectMediaType = (typeof OBJECT_MEDIA_TYPES)[number];

/** Patch types in upstream's order (the 415 message lists them so). */
export const PATCH_MEDIA_TYPES: readonly PatchType[] = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

/**
 * Reads the whole body. Rejects with 413 `Request entity too large: limit is <limit>` as soon as the
 * declared Content-Length or the bytes received exceed `limit`; the rest of the upload is discarded.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const tooLarge = (): StatusError => newRequestEntityTooLarge(`limit is ${limit}`);
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      req.resume();
      reject(tooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        chunks.length = 0;
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!failed) resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
    });
    req.on('error', (err) => {
      if (!failed) reject(err);
    });
  });
}

/** Upstream's summarizeData: the body itself when it starts with `{`, else hex; 30 bytes at most. */
function summarizeData(data: Buffer, maxLength = 30): string {
  if (data.length === 0) return '<empty>';
  const head = data.subarray(0, maxLength);
  const more = data.length > maxLength ? ' ...' : '';
  return data[0] === 0x7b ? head.toString('utf8') + more : head.toString('hex') + more;
}

/** The JSON parse error text; `unexpected end of JSON input` for an empty body, as Go's encoding/json. */
function jsonErrorText(data: Buffer, err: unknown): string {
  return data.length === 0 ? 'unexpected end of JSON input' : errorMessage(err);
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  return Array.isArray(v) ? 'array' : typeof v;
}

/**
 * The media type of an object body (create, update, DeleteOptions): `application/json` (also when the
 * Content-Type is missing, as upstream) or `application/yaml`; otherwise 415
 * `the body of the request was in an unknown format - accepted media types include: …`.
 */
export function objectMediaTypeOf(contentType: string | undefined): ObjectMediaType {
  const mt = mediaTypeOf(contentType) || 'application/json';
  const found = OBJECT_MEDIA_TYPES.find((t) => t === mt);
  if (!found) throw newUnsupportedMediaType(mt, OBJECT_MEDIA_TYPES);
  return found;
}

/**
 * Decodes an object body of media type `mt` (see {@link objectMediaTypeOf}) for an endpoint serving
 * `kind` of `apiVersion`. Throws 400 `the object provided is unrecognized (must be of type Deployment):
 * couldn't get version/kind; json parse error: … (<summary>)` for a JSON or YAML body that is not one
 * object; protobuf errors as {@link decodeProtobufBody}.
 */
export function decodeObjectBody(data: Buffer, mt: ObjectMediaType, kind: string, apiVersion = ''): Record<string, unknown> {
  if (mt === PROTOBUF_MEDIA_TYPE) return decodeProtobufBody(data, kind, apiVersion);
  let value: unknown;
  let parseError: string | undefined;
  try {
    value = mt === 'application/json' ? JSON.parse(data.toString('utf8')) : parseYaml(data.toString('utf8'), YAML_OPTIONS);
  } catch (err) {
    parseError = mt === 'application/json' ? `json parse error: ${jsonErrorText(data, err)}` : `error converting YAML to JSON: ${errorMessage(err)}`;
  }
  if (parseError === undefined && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    parseError = `json parse error: cannot unmarshal ${typeName(value)} into an object`;
  }
  if (parseError !== undefined) {
    throw newBadRequest(
      `the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; ${parseError} (${summarizeData(data)})`,
    );
  }
  return value as Record<string, unknown>;
}

/**
 * Decodes a Kubernetes protobuf body into the JSON object the same request would carry as JSON (see
 * src/api/proto). A missing kind or version in the envelope defaults to the endpoint's. Errors are
 * 400s worded as upstream's `transformDecodeError`: `ConfigMap in version "v1" cannot be handled as a
 * ConfigMap: unexpected EOF` once the envelope named a kind (also for a kind with no schema: `no kind
 * "Foo" is registered for version "v1" …`), else `the object provided is unrecognized (must be of type
 * ConfigMap): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] (<hex>)`.
 */
export function decodeProtobufBody(data: Buffer, kind: string, apiVersion: string): Record<string, unknown> {
  try {
    return decodeKubernetesProtobuf(data, { apiVersion, kind });
  } catch (err) {
    if (!(err instanceof ProtobufDecodeError)) throw err;
    const tm = err.typeMeta;
    if (tm) {
      const version = tm.apiVersion.slice(tm.apiVersion.indexOf('/') + 1);
      throw newBadRequest(`${tm.kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: ${err.message}`);
    }
    throw newBadRequest(`the object provided is unrecognized (must be of type ${kind}): ${err.message} (${summarizeData(data)})`);
  }
}

/**
 * The patch type named by a PATCH's Content-Type (parameters such as charset ignored), or 415
 * `the body of the request was in an unknown format - accepted media types include: …`.
 */
export function patchTypeOf(contentType: string | undefined): PatchType {
  const mt = mediaTypeOf(contentType);
  const found = PATCH_MEDIA_TYPES.find((t) => t === mt);
  if (!found) throw newUnsupportedMediaType(mt, PATCH_MEDIA_TYPES);
  return found;
}

/**
 * Decodes a patch body: a JSON array for json-patch, a JSON object for merge and strategic merge
 * patches, a YAML or JSON object for apply. Throws 400 with the messages of upstream's patchers:
 * json-patch `json: cannot unmarshal …` or the parse error, merge `Invalid JSON Patch`, strategic
 * `invalid JSON document`, apply `error decoding YAML: …`. An apply configuration keeps the last
 * value of a repeated key and remembers its text for the strict check of duplicate keys
 * (machinery/serializer/yaml-keys).
 */
export function decodePatchBody(data: Buffer, patchType: PatchType): unknown {
  const text = data.toString('utf8');
  if (patchType === 'application/apply-patch+yaml') {
    let value: unknown;
    let json = true;
    try {
      // kubectl sends JSON; JSON.parse is much faster than the YAML parser for it.
      value = JSON.parse(text);
    } catch {
      json = false;
      try {
        // goyaml.v2's lenient decoding: a repeated key keeps its last value (Strict reports it later).
        value = parseYaml(text, { ...YAML_OPTIONS, uniqueKeys: false });
      } catch (err) {
        throw newBadRequest(`error decoding YAML: ${errorMessage(err)}`);
      }
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw newBadRequest(`error decoding YAML: cannot unmarshal ${typeName(value)} into an object`);
    }
    recordSource(value, text, json);
    return value;
  }
  let value: unknown;
  let parsed = true;
  try {
    value = JSON.parse(text);
  } catch (err) {
    parsed = false;
    if (patchType === 'application/json-patch+json') throw newBadRequest(jsonErrorText(data, err));
  }
  if (patchType === 'application/json-patch+json') {
    if (!Array.isArray(value)) throw newBadRequest(`json: cannot unmarshal ${typeName(value)} into Go value of type jsonpatch.Patch`);
    return value;
  }
  if (!parsed || typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw newBadRequest(patchType === 'application/merge-patch+json' ? 'Invalid JSON Patch' : 'invalid JSON document');
  }
  return value;
}

/**
 * The DeleteOptions of a DELETE: the decoded body when there is one (kubectl always sends one),
 * else built from the query parameters gracePeriodSeconds, propagationPolicy, orphanDependents and
 * dryRun, as upstream's delete handler does.
 */
export function decodeDeleteOptions(data: Buffer, mt: ObjectMediaType, query: Record<string, string>, apiVersion = 'v1'): Record<string, unknown> {
  if (data.length > 0) return decodeObjectBody(data, mt, 'DeleteOptions', apiVersion);
  const opts: Record<string, unknown> = {};
  const grace = query['gracePeriodSeconds'];
  if (grace !== undefined && grace !== '') {
    const n = Number(grace);
    if (!Number.isInteger(n)) throw newBadRequest(`gracePeriodSeconds: invalid value ${JSON.stringify(grace)}`);
    opts['gracePeriodSeconds'] = n;
  }
  if (query['propagationPolicy']) opts['propagationPolicy'] = query['propagationPolicy'];
  if (query['orphanDependents'] !== undefined) opts['orphanDependents'] = parseBool(query['orphanDependents']);
  if (query['dryRun']) opts['dryRun'] = [query['dryRun']];
  return opts;
}

/** Go's strconv.ParseBool truth values (`1`, `t`, `T`, `TRUE`, `true`, `True`); anything else is false. */
export function parseBool(v: string | undefined): boolean {
  return v === '1' || v === 't' || v === 'T' || v === 'TRUE' || v === 'true' || v === 'True';
}
