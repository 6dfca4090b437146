/**
 * Resource URLs (`/api/v1/...`, `/apis/<group>/<version>/...`) → {@link RestRequest}, and serving them
 * through the core. URL forms follow k8s.io/apiserver/pkg/endpoints/request/requestinfo.go:
 * `[watch/][namespaces/<ns>/]<resource>[/<name>[/<subresource>]]`, with `namespaces/<name>/status`
 * and `namespaces/<name>/finalize` naming the Namespace's own subresources. HTTP method → verb:
 * GET get|list|watch, POST create, PUT update, PATCH patch, DELETE delete|deletecollection.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestUser, RestRequest, Verb } from '../../api/request.js';
import type { AuditContext } from '../audit/index.js';
import { newNotAcceptable, newNotFoundPath } from '../../machinery/errors/index.js';
import type { ResourceStrategy, SubresourceInfo } from '../registry/strategy.js';
import { decodeDeleteOptions, decodeObjectBody, decodePatchBody, objectMediaTypeOf, parseBool, patchTypeOf, readBody } from './body.js';
import { JSON_CONTENT_TYPE, PROTOBUF_CONTENT_TYPE, newMethodNotAllowed, setWarnings, writeError, writeJson, writeRaw } from './errors.js';
import { convertTarget, convertedContentType, outputFormat } from './negotiation.js';
import { protobufBodyPieces, servesProtobuf } from './protobuf.js';
import type { ResourceIndex } from './resource-index.js';
import { listJSONPieces, StreamedList, streamedListOf, writeBinaryPieces, writeJSONPieces, type ObjectSerializer } from './streaming.js';
import { convertBody, isList, printerFor, tableOptionsFor } from './table.js';
import type { ApiServerCore, HandleResult, HttpHandlerOptions } from './types.js';
import { serveWatch, type WatchContext } from './watch.js';

/** What a resource URL and method resolve to. */
export interface ResourceTarget {
  strategy: ResourceStrategy;
  verb: Verb;
  namespace?: string;
  name?: string;
  subresource?: SubresourceInfo;
}

const namespaceSubresources = new Set(['status', 'finalize']);

/**
 * Resolves the path segments after `/api/<v>` or `/apis/<g>/<v>` (already URL-decoded) and the
 * method. A named watch (`…/pods/web?watch=true`, or the deprecated `/watch/` prefix) becomes a
 * collection watch with `fieldSelector=metadata.name=web`, as upstream does; `query` is updated so.
 * Throws 404 `the server could not find the requested resource` for unknown resources, names on a
 * namespaced resource without a namespace, or namespaces on a cluster-scoped one; 405 for a method or
 * verb the resource does not serve.
 */
export function resolveResource(
  index: ResourceIndex,
  method: string,
  group: string,
  version: string,
  segments: string[],
  query: Record<string, string>,
): ResourceTarget {
  let parts = segments;
  let watch = false;
  if (parts[0] === 'watch') {
    watch = true;
    parts = parts.slice(1);
  }
  let namespace: string | undefined;
  if (parts[0] === 'namespaces' && parts.length > 2 && !namespaceSubresources.has(parts[2] as string)) {
    namespace = parts[1];
    parts = parts.slice(2);
  }
  if (parts.length === 0 || parts.length > 3 || parts.some((p) => p === '') || namespace === '') throw newNotFoundPath();
  const [resource, name, subName] = parts as [string, string | undefined, string | undefined];
  const strategy = index.get(group, version, resource);
  if (!strategy) throw newNotFoundPath();
  const info = strategy.info;
  if (namespace !== undefined && !info.namespaced) throw newNotFoundPath();
  if (info.namespaced && namespace === undefined && name !== undefined) throw newNotFoundPath();

  if (subName !== undefined) {
    const sub = info.subresources.find((s) => s.name === subName);
    if (!sub || watch) throw newNotFoundPath();
    const verb = ({ GET: 'get', PUT: 'update', PATCH: 'patch', POST: 'create', DELETE: 'delete' } as const)[method as 'GET'];
    if (!verb || !sub.verbs.includes(verb)) throw newMethodNotAllowed();
    return { strategy, verb, namespace, name, subresource: sub };
  }

  watch ||= method === 'GET' && parseBool(query['watch']);
  let verb: Verb | undefined;
  if (name === undefined) {
    // Writes to a namespaced collection need the namespace: `POST /api/v1/pods` is not served.
    const writable = !info.namespaced || namespace !== undefined;
    verb = method === 'GET' ? (watch ? 'watch' : 'list') : method === 'POST' && writable ? 'create' : method === 'DELETE' && writable ? 'deletecollection' : undefined;
  } else {
    verb = ({ GET: watch ? 'watch' : 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' } as const)[method as 'GET'];
  }
  if (!verb || !info.verbs.includes(verb)) throw newMethodNotAllowed();
  if (verb === 'watch' && name !== undefined) {
    const byName = `metadata.name=${name}`;
    query['fieldSelector'] = query['fieldSelector'] ? `${query['fieldSelector']},${byName}` : byName;
    return { strategy, verb, namespace };
  }
  return { strategy, verb, namespace, name };
}

/** What {@link serveResource} needs from the handler. */
export interface ResourceContext {
  core: ApiServerCore;
  opts: HttpHandlerOptions;
  maxRequestBodyBytes: number;
  maxWatchBacklogBytes: number;
  /** Encodes one object out of the cache (list items, watch events): `opts.serializeObject` or JSON.stringify. */
  serialize: ObjectSerializer;
}

/**
 * Runs one resolved resource request: decodes the body by Content-Type (415 and 413 before the body is
 * used), calls the core, and writes the result with its Warning headers: as JSON — converted to a
 * Table (or PartialObjectMetadata) for get/list when the Accept asks for it — or as Kubernetes
 * protobuf when the Accept prefers it and the kind has a message (negotiation.ts `outputFormat`;
 * errors are then protobuf Status too). Lists and Tables are written piece by piece (streaming.ts,
 * protobuf.ts), other bodies at once. Watches are streamed.
 * Throws StatusError for the caller to write (JSON requests, and 406 before anything runs).
 */
export async function serveResource(
  ctx: ResourceContext,
  req: IncomingMessage,
  res: ServerResponse,
  target: ResourceTarget,
  query: Record<string, string>,
  user?: RequestUser,
  audit?: AuditContext,
): Promise<void> {
  const { info } = target.strategy;
  // A client that accepts nothing this endpoint produces is told so before anything runs.
  const format = outputFormat(req.headers.accept, servesProtobuf(target.strategy, target.subresource));
  if (!format) throw newNotAcceptable(['application/json']);
  const rr: RestRequest = { verb: target.verb, group: info.group, version: info.version, resource: info.resource, query };
  if (target.namespace !== undefined) rr.namespace = target.namespace;
  if (target.name !== undefined) rr.name = target.name;
  if (target.subresource) rr.subresource = target.subresource.name;
  const userAgent = req.headers['user-agent'];
  if (userAgent) rr.userAgent = userAgent;
  if (user) rr.user = user;

  const reads = target.verb === 'get' || target.verb === 'list' || target.verb === 'watch';
  const convert = format === 'json' && reads ? convertTarget(req.headers.accept) : undefined;
  const printer = printerFor(target.strategy.table, target.subresource?.name);

  if (target.verb === 'watch') {
    const table = convert?.kind === 'Table' ? { printer, options: tableOptionsFor(convert, info, query) } : undefined;
    const watchCtx: WatchContext = { core: ctx.core, clock: ctx.opts.clock, logger: ctx.opts.logger, maxBacklogBytes: ctx.maxWatchBacklogBytes };
    if (table) watchCtx.table = table;
    watchCtx.serialize = ctx.serialize;
    if (format === 'protobuf') watchCtx.protobuf = true;
    serveWatch(watchCtx, rr, res);
    return;
  }

  let result: HandleResult;
  try {
    await decodeRequestBody(ctx, req, target, rr);
    if (audit && rr.body !== undefined) {
      if (rr.verb === 'patch') audit.setRequestPatch(rr.body);
      else audit.setRequestObject(rr.body);
    }
    result = await ctx.core.handle(rr);
    if (audit && typeof result.body !== 'string') audit.setResponseObject(result.body);
  } catch (err) {
    if (format !== 'protobuf') throw err;
    writeError(res, err, ctx.opts.logger, { method: req.method, url: req.url }, 'protobuf');
    return;
  }
  setWarnings(res, result.warnings);
  if (typeof result.body === 'string') {
    writeRaw(res, result.code, result.body, 'text/plain');
    return;
  }
  if (isAsyncIterable(result.body)) {
    await writeStream(res, result.code, result.body);
    return;
  }
  const pieces = format === 'protobuf' ? protobufBodyPieces(result.body) : undefined;
  if (pieces) {
    await writeBinaryPieces(res, result.code, PROTOBUF_CONTENT_TYPE, pieces);
    return;
  }
  const body = convert ? convertBody(result.body, convert, printer, info, query, ctx.opts.clock.now()) : result.body;
  const contentType = convert ? convertedContentType(convert) : JSON_CONTENT_TYPE;
  const list = body instanceof StreamedList ? body : isList(body) ? streamedListOf(body) : undefined;
  if (list) await writeJSONPieces(res, result.code, contentType, listJSONPieces(list, ctx.serialize));
  else writeJson(res, result.code, body, contentType);
}

const isAsyncIterable = (v: unknown): v is AsyncIterable<string> =>
  typeof v === 'object' && v !== null && typeof (v as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';

/**
 * Writes a streamed text body (a followed pod log) chunk by chunk, flushed as each comes; stops
 * reading it when the client goes away.
 */
async function writeStream(res: ServerResponse, code: number, body: AsyncIterable<string>): Promise<void> {
  res.statusCode = code;
  res.setHeader('Content-Type', 'text/plain');
  res.flushHeaders();
  const it = body[Symbol.asyncIterator]();
  const closed = new Promise<undefined>((resolve) => res.once('close', () => resolve(undefined)));
  for (;;) {
    const next = await Promise.race([it.next(), closed]);
    if (next === undefined || next.done || res.destroyed) break;
    res.write(next.value);
  }
  if (!res.writableEnded && !res.destroyed) res.end();
}

/** Sets `rr.body` (and `rr.patchType`) from the request body for the verbs that carry one. */
async function decodeRequestBody(ctx: ResourceContext, req: IncomingMessage, target: ResourceTarget, rr: RestRequest): Promise<void> {
  const contentType = req.headers['content-type'];
  const body = target.subresource ?? target.strategy.info;
  const apiVersion = body.group ? `${body.group}/${body.version}` : body.version;
  switch (target.verb) {
    case 'create':
    case 'update': {
      const mt = objectMediaTypeOf(contentType);
      rr.body = decodeObjectBody(await readBody(req, ctx.maxRequestBodyBytes), mt, body.kind, apiVersion);
      return;
    }
    case 'patch': {
      const patchType = patchTypeOf(contentType);
      rr.patchType = patchType;
      rr.body = decodePatchBody(await readBody(req, ctx.maxRequestBodyBytes), patchType);
      return;
    }
    case 'delete':
    case 'deletecollection': {
      const data = await readBody(req, ctx.maxRequestBodyBytes);
      rr.body = decodeDeleteOptions(data, data.length ? objectMediaTypeOf(contentType) : 'application/json', rr.query ?? {}, apiVersion);
      return;
    }
    case 'get':
    case 'list':
    case 'watch':
      return;
  }
}
