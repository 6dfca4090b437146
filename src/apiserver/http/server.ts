/**
 * The HTTP(S) server of the API: authentication, the non-resource endpoints (/version, health,
 * discovery, OpenAPI) and dispatch of resource URLs to the core. No framework: node:http / node:https.
 *
 * When a token is configured, every request is authenticated (../authn/request.ts: a client
 * certificate signed by the cluster CA, that token, a `--token-auth-file` token, or a service-account
 * token the server issued; with none of them `system:anonymous` when anonymous requests are allowed,
 * else 401 `Unauthorized` — kubectl: `error: You must be logged in to the server (Unauthorized)`),
 * may impersonate another user (../authn/impersonation.ts), and is authorized by the core's
 * authorizer (403 Forbidden with upstream's message: ../authz/forbidden.ts). Anonymous requests reach
 * /version, /healthz, /livez, /readyz and discovery because the bootstrap RBAC policy allows them
 * (`system:public-info-viewer`, `system:discovery`), as on any cluster.
 *
 * Requests are counted in `apiserver_request_total` and `apiserver_request_duration_seconds` where
 * upstream counts them (see apiserver/metrics/requests.ts): a resource request once routed, with the
 * labels of upstream's `InstrumentRouteFunc` and the code it was answered with; a request max-in-flight
 * turns away, as `RecordDroppedRequest`; the health roots and aggregated discovery, as their
 * `InstrumentHandlerFunc` wrappers.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import * as apiSchema from '../../api/schema/index.js';
import { newBadRequest, newNotFoundPath, newUnauthorized, StatusError } from '../../machinery/errors/index.js';
import { staticTokenAuthenticator, unionAuthenticator, type TokenAuthenticator, type UserInfo } from '../authn/index.js';
import { impersonate } from '../authn/impersonation.js';
import { authenticateRequest, clientCertificateOf, type RequestAuthenticatorOptions } from '../authn/request.js';
import { forbiddenError } from '../authz/forbidden.js';
import { AUDIT_ID_HEADER, auditIDFromHeaders, auditResponse, authenticationFailedMessage, DECISION_ALLOW, DECISION_FORBID, type AuditContext, type AuditRequest } from '../audit/index.js';
import { requestAttributes } from '../authz/attributes.js';
import type { Attributes } from '../authz/types.js';
import { DEFAULT_MAX_REQUEST_BODY_BYTES } from './body.js';
import {
  aggregatedDiscovery,
  aggregatedDiscoveryContentType,
  apiGroup,
  apiGroupList,
  apiResourceList,
  apiVersions,
} from './discovery.js';
import { newMethodNotAllowed, writeError, writeJson, writeRaw } from './errors.js';
import { aggregatedDiscoveryVersion, parseAccept } from './negotiation.js';
import { serveMetrics } from './metrics.js';
import { APISERVER_COMPONENT, canonicalVerb, cleanDryRun, cleanScope, cleanVerb, inFlightLimits, requestMetrics, type RequestMetrics } from '../metrics/index.js';
import { collectProcessMetrics } from '../../util/metrics/index.js';
import type { Clock } from '../../util/clock/index.js';
import { OpenApiCache, type OpenApiV2Document } from './openapi.js';
import { resourceIndexOf, type ResourceIndex } from './resource-index.js';
import { DEFAULT_MAX_MUTATING_REQUESTS_INFLIGHT, DEFAULT_MAX_REQUESTS_INFLIGHT, MaxInFlightLimit, newTooManyRequestsInFlight } from './maxinflight.js';
import { isLongRunning, isMutating, requestInfoOf, type RequestInfo } from './requestinfo.js';
import { resolveResource, serveResource, type ResourceContext } from './router.js';
import { maxConnectionsOf, nodeServerOptions, type ServingOptions } from './serving.js';
import { rejectUpgrade } from './upgrade.js';
import { armRequestTimeout, DEFAULT_REQUEST_TIMEOUT_MS, requestTimeoutMs } from './timeout.js';
import type { ApiServerCore, HttpHandlerOptions } from './types.js';

/**
 * `GET /version`. The kubectl on these machines is a dispatcher that runs `kubectl.1.<minor>` for the
 * server's minor version, so minor 33 selects kubectl 1.33 (k8s.io/apimachinery/pkg/version.Info).
 */
export const VERSION_INFO = {
  major: '1',
  minor: '33',
  gitVersion: 'v1.33.0',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2025-04-23T00:00:00Z',
  goVersion: 'go1.24.2',
  compiler: 'gc',
  platform: 'linux/amd64',
} as const;

const publicPrefixes = ['/version', '/healthz', '/livez', '/readyz'];

function isPublicPath(path: string): boolean {
  return publicPrefixes.some((p) => path === p || path.startsWith(`${p}/`));
}

/** The authorizer attributes of a request, from its RequestInfo. */
function authorizationAttributes(info: RequestInfo, user: UserInfo, query: Record<string, string>): Attributes {
  const { verb, namespace, apiGroup, apiVersion, resource, subresource, name } = info;
  return requestAttributes(user, { verb, resourceRequest: info.isResourceRequest, path: info.isResourceRequest ? '' : info.path, namespace, apiGroup, apiVersion, resource, subresource, name }, query);
}

/** Splits `/a/b%2Fc/` into URL-decoded segments `['a', 'b/c']` (one trailing slash ignored). 400 on bad escapes. */
function pathSegments(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  try {
    return trimmed.split('/').slice(1).map(decodeURIComponent);
  } catch {
    throw newBadRequest(`invalid URL escape in path ${JSON.stringify(path)}`);
  }
}

/** Query parameters, the first value of each name winning (Go's `url.Values.Get`). */
function queryOf(search: string): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(search)) if (!(k in query)) query[k] = v;
  return query;
}

/** `/healthz`, `/livez`, `/readyz` (and `?verbose`): plain-text `ok`. */
function serveHealth(res: ServerResponse, check: string, query: Record<string, string>): void {
  const verbose = 'verbose' in query;
  writeRaw(res, 200, verbose ? `[+]ping ok\n${check} check passed\n` : 'ok', 'text/plain; charset=utf-8');
}

/** The address clients reach this server at, for APIVersions.serverAddressByClientCIDRs. */
function serverAddress(req: IncomingMessage): string {
  if (req.headers.host) return req.headers.host;
  const local = (req.socket.localAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  return `${local}:${req.socket.localPort ?? 0}`;
}

/** The health roots upstream's healthz handlers count requests at (`InstallPathHandler` wraps `path` only). */
const healthRoots = new Set(['/healthz', '/livez', '/readyz']);

/** What the request metrics need of one request besides its RequestInfo. */
interface MeteredRequest {
  method: string;
  query: Record<string, string>;
  rawQuery: string;
  contentType: string | undefined;
  /** When the request arrived ({@link Clock.monotonic}). */
  start: number;
}

/**
 * The metrics of a request, labelled as upstream's `MonitorRequest` labels it: `verb` from the method
 * (`cleanVerb(CanonicalVerb(method, scope), suggestedVerb, …)`), `dry_run` from the query. A resource
 * request takes its group, version, resource, subresource and scope from its RequestInfo (for every
 * route served, `CleanScope` of it is the scope upstream's installer gives the route); a non-resource
 * one takes `subresource` and `component` from its handler.
 */
function metricsOf(info: RequestInfo, r: MeteredRequest, nonResource?: { subresource: string; component: string }): RequestMetrics {
  const method = r.method.toUpperCase();
  const verbRequest = { method, watch: r.query['watch'], contentType: r.contentType };
  if (nonResource) {
    return requestMetrics(cleanVerb(canonicalVerb(method, ''), 'GET', verbRequest, info), cleanDryRun(r.rawQuery), '', '', '', nonResource.subresource, '', nonResource.component);
  }
  const scope = cleanScope(info);
  // The deprecated `/watch/` paths are routes of their own (WATCH, WATCHLIST), which name the verb.
  const suggested = info.verb === 'watch' && method === 'GET' ? 'WATCH' : '';
  const verb = cleanVerb(canonicalVerb(method, scope), suggested, verbRequest, info);
  return requestMetrics(verb, cleanDryRun(r.rawQuery), info.apiGroup, info.apiVersion, info.resource, info.subresource, scope, APISERVER_COMPONENT);
}

/** Counts `metrics` once, when the response ends, with its status code and the time since the request arrived. */
function observeWhenDone(res: ServerResponse, metrics: RequestMetrics, start: number, clock: Clock): void {
  res.once('close', () => metrics.observe(res.statusCode, (clock.monotonic() - start) / 1000));
}

/** The request handler, with the in-flight budgets it enforces. */
export interface HttpHandler {
  (req: IncomingMessage, res: ServerResponse): void;
  /** Requests holding a max-in-flight slot (long-running ones are not counted). */
  readonly inFlight: MaxInFlightLimit;
}

/**
 * Creates the request handler.
 *
 * Routes: `/version`, `/healthz|/livez|/readyz[/…]`, `/metrics`, `/api`, `/apis`, `/apis/<g>`, `/api/v1`,
 * `/apis/<g>/<v>` (discovery, aggregated when the Accept asks for apidiscovery.k8s.io v2/v2beta1),
 * `/openapi/v3[/…]`, and resource URLs under `/api/v1/` and `/apis/<g>/<v>/`. Unknown paths → 404,
 * unsupported methods → 405. Every path is wrapped: a StatusError is written with its code, anything
 * else becomes 500 InternalError and a log line.
 *
 * Before routing, in upstream's filter order (k8s.io/apiserver/pkg/server/config.go
 * DefaultBuildHandlerChain): the request timeout of non-long-running requests (timeout.ts; 400 for a
 * bad `?timeout=`), authentication (401), then max-in-flight (maxinflight.ts; 429).
 */
export function createHttpHandler(core: ApiServerCore, opts: HttpHandlerOptions): HttpHandler {
  const tokens: TokenAuthenticator[] = [];
  if (opts.token !== undefined) tokens.push(staticTokenAuthenticator(opts.token));
  if (opts.tokenAuthenticator) tokens.push(opts.tokenAuthenticator);
  if (core.serviceAccountAuthenticator) tokens.push(core.serviceAccountAuthenticator);
  const authorizer = core.authorizer;
  // Without a token nothing is authenticated (tests of the HTTP layer alone): requests run as the
  // in-process caller does. Anonymous requests are refused under AlwaysAllow, as kube-apiserver
  // resets --anonymous-auth to false with that authorizer (options/authentication.go).
  const authentication: RequestAuthenticatorOptions | undefined =
    opts.token === undefined
      ? undefined
      : { tokens: unionAuthenticator(...tokens), clientCertificates: opts.clientCertificates ?? false, anonymous: (opts.anonymousAuth ?? true) && authorizer !== undefined && !core.alwaysAllow };
  const openapi = new OpenApiCache(opts.schema ?? apiSchema);
  const ctx: ResourceContext = {
    core,
    opts,
    maxRequestBodyBytes: opts.maxRequestBodyBytes ?? DEFAULT_MAX_REQUEST_BODY_BYTES,
    maxWatchBacklogBytes: opts.maxWatchBacklogBytes ?? 64 * 1024 * 1024,
    serialize: opts.serializeObject ?? JSON.stringify,
  };
  const inFlight = new MaxInFlightLimit(
    {
      readOnly: opts.maxRequestsInFlight ?? DEFAULT_MAX_REQUESTS_INFLIGHT,
      mutating: opts.maxMutatingRequestsInFlight ?? DEFAULT_MAX_MUTATING_REQUESTS_INFLIGHT,
    },
    opts.clock,
  );
  inFlightLimits.add(inFlight);
  collectProcessMetrics();
  const maxTimeoutMs = opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const clock = opts.clock;
  const auditor = opts.auditor;

  const route = async (
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    user: UserInfo | undefined,
    info: RequestInfo,
    metered: MeteredRequest,
    audit: AuditContext | undefined,
  ): Promise<void> => {
    const { method, query } = metered;
    if (isPublicPath(path)) {
      if (method !== 'GET' && method !== 'HEAD') throw newMethodNotAllowed();
      if (healthRoots.has(path)) observeWhenDone(res, metricsOf(info, metered, { subresource: path, component: '' }), metered.start, clock);
      if (path === '/version' || path === '/version/') writeJson(res, 200, VERSION_INFO);
      else serveHealth(res, path.split('/')[1] as string, query);
      return;
    }
    if (path === '/metrics') {
      if (method !== 'GET') throw newMethodNotAllowed();
      await serveMetrics(res);
      return;
    }
    const segments = pathSegments(path);
    const index = resourceIndexOf(core);
    const [root, group, version] = segments;
    if ((root === 'api' && segments.length > 2) || (root === 'apis' && segments.length > 3)) {
      const target = root === 'api' ? resolveResource(index, method, '', group as string, segments.slice(2), query) : resolveResource(index, method, group as string, version as string, segments.slice(3), query);
      // Routed: counted from here on, whatever the answer (a path that routes nowhere is not).
      observeWhenDone(res, metricsOf(info, metered), metered.start, clock);
      await serveResource(ctx, req, res, target, query, user, audit);
      return;
    }
    if (method !== 'GET') {
      if (isKnownNonResourcePath(index, segments)) throw newMethodNotAllowed();
      throw newNotFoundPath();
    }
    if ((root === 'api' || root === 'apis') && segments.length === 1 && aggregatedDiscoveryVersion(req.headers.accept)) {
      observeWhenDone(res, metricsOf(info, metered, { subresource: `/${root}`, component: APISERVER_COMPONENT }), metered.start, clock);
    }
    if (root === 'api' || root === 'apis') serveDiscovery(req, res, index, segments);
    else if (root === 'openapi') await serveOpenApi(req, res, openapi, index, segments, query);
    else throw newNotFoundPath();
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const start = clock.monotonic();
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const rawQuery = q < 0 ? '' : url.slice(q + 1);
    const query = queryOf(rawQuery);
    const method = req.method ?? 'GET';
    const info = requestInfoOf(method, path, query);
    const metered: MeteredRequest = { method, query, rawQuery, contentType: req.headers['content-type'], start };
    const longRunning = isLongRunning(info);
    if (!longRunning) armRequestTimeout(req, res, opts.clock, requestTimeoutMs(query, maxTimeoutMs), opts.logger);
    // The audit ID (kept from an `Audit-Id` header) is sent back, as upstream's WithAuditInit does.
    const auditID = auditor ? (auditIDFromHeaders(req.headers) ?? auditor.makeID()) : undefined;
    if (auditID !== undefined) res.setHeader(AUDIT_ID_HEADER, auditID);
    const auditRequest: AuditRequest | undefined = auditor && { auditID, requestURI: url, headers: req.headers, remoteAddress: req.socket.remoteAddress, info, receivedAt: auditor.now(), longRunning };
    let user: UserInfo | undefined;
    let audit: AuditContext | undefined;
    if (authentication) {
      const cert = clientCertificateOf(req.socket);
      const authn = await authenticateRequest(authentication, { authorization: req.headers.authorization, clientCertificate: cert });
      if ('error' in authn) {
        const err = newUnauthorized();
        const refused = auditRequest && auditor?.beginRefused(auditRequest, authenticationFailedMessage({ headers: req.headers, clientCertificate: cert !== undefined }));
        if (refused) {
          auditResponse(refused, res);
          refused.setResponseObject(err.status);
        }
        throw err;
      }
      audit = auditRequest && auditor?.begin({ ...auditRequest, user: authn.user });
      if (audit) auditResponse(audit, res);
      user = authorizer ? await impersonate(authn.user, req.headersDistinct, authorizer) : authn.user;
      if (user !== authn.user) audit?.setImpersonatedUser(user);
    }
    if (!longRunning) {
      const release = inFlight.tryAcquire(isMutating(info));
      if (!release) {
        // RecordDroppedRequest: counted, with no duration; a non-resource URL has no group or resource.
        metricsOf(info, metered, info.isResourceRequest ? undefined : { subresource: info.subresource, component: APISERVER_COMPONENT }).count(429);
        throw newTooManyRequestsInFlight();
      }
      res.once('close', release);
    }
    if (user && authorizer) {
      const attrs = authorizationAttributes(info, user, query);
      const decision = await authorizer.authorize(attrs);
      audit?.setAuthorizationDecision(decision.decision === 'Allow' ? DECISION_ALLOW : DECISION_FORBID, decision.reason);
      if (decision.decision !== 'Allow') throw forbiddenError(attrs, decision.reason);
    }
    try {
      await route(req, res, path, user, info, metered, audit);
    } catch (err) {
      // What upstream's panic recovery would turn into a 500; a StatusError is an answer.
      if (!(err instanceof StatusError)) audit?.panic(err);
      else audit?.setResponseObject(err.status);
      throw err;
    }
  };

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const context = { method: req.method, url: req.url };
    try {
      handle(req, res).catch((err: unknown) => writeError(res, err, opts.logger, context));
    } catch (err) {
      writeError(res, err, opts.logger, context);
    }
  };
  return Object.assign(handler, { inFlight });
}

/** True for discovery and OpenAPI paths that exist (for 405 rather than 404 on other methods). */
function isKnownNonResourcePath(index: ResourceIndex, segments: string[]): boolean {
  const [root, group, version] = segments;
  if (root === 'openapi') return true;
  if (root === 'api') return segments.length === 1 || !!index.groupVersion('', group as string);
  if (root === 'apis') {
    if (segments.length === 1) return true;
    return segments.length === 2 ? !!index.group(group as string) : !!index.groupVersion(group as string, version as string);
  }
  return false;
}

/** `/api`, `/apis`, `/apis/<g>`, `/api/<v>`, `/apis/<g>/<v>`. */
function serveDiscovery(req: IncomingMessage, res: ServerResponse, index: ResourceIndex, segments: string[]): void {
  const [root, a, b] = segments;
  if (segments.length === 1) {
    const aggregated = aggregatedDiscoveryVersion(req.headers.accept);
    if (aggregated) {
      const body = aggregatedDiscovery(index, root as 'api' | 'apis', aggregated);
      writeJson(res, 200, body, aggregatedDiscoveryContentType(aggregated));
    } else {
      writeJson(res, 200, root === 'api' ? apiVersions(index, serverAddress(req)) : apiGroupList(index));
    }
    return;
  }
  if (root === 'api' && segments.length === 2) {
    const gv = index.groupVersion('', a as string);
    if (!gv) throw newNotFoundPath();
    writeJson(res, 200, apiResourceList('', gv));
    return;
  }
  // root === 'apis' here; `/apis/<g>` or `/apis/<g>/<v>` (longer paths are resources).
  const group = index.group(a as string);
  if (!group || a === '') throw newNotFoundPath();
  if (segments.length === 2) {
    writeJson(res, 200, apiGroup(group));
    return;
  }
  const gv = index.groupVersion(a as string, b as string);
  if (!gv) throw newNotFoundPath();
  writeJson(res, 200, apiResourceList(a as string, gv));
}

/**
 * `/openapi/v2`, `/openapi/v3` and `/openapi/v3/<api/v1|apis/g/v>[?hash=H]`. A matching hash makes the
 * response cacheable for a year (the URL changes with the document); a stale hash redirects (301) to
 * the current URL, as kube-openapi's handler3 does; `If-None-Match` with the current ETag gets 304.
 */
async function serveOpenApi(
  req: IncomingMessage,
  res: ServerResponse,
  cache: OpenApiCache,
  index: ResourceIndex,
  segments: string[],
  query: Record<string, string>,
): Promise<void> {
  if (segments[1] === 'v2' && segments.length === 2) {
    serveOpenApiV2(req, res, (await cache.get(index)).v2());
    return;
  }
  if (segments[1] !== 'v3') throw newNotFoundPath();
  const docs = await cache.get(index);
  if (segments.length === 2) {
    writeRaw(res, 200, docs.rootText, 'application/json');
    return;
  }
  const docPath = segments.slice(2).join('/');
  const doc = docs.documents.get(docPath);
  if (!doc) throw newNotFoundPath();
  const etag = `"${doc.hash}"`;
  if (query['hash'] !== undefined && query['hash'] !== doc.hash) {
    res.writeHead(301, { Location: `/openapi/v3/${docPath}?hash=${doc.hash}` });
    res.end();
    return;
  }
  res.setHeader('ETag', etag);
  res.setHeader('Cache-Control', query['hash'] !== undefined ? 'public, immutable, max-age=31536000' : 'no-cache, private');
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304);
    res.end();
    return;
  }
  writeRaw(res, 200, doc.text, 'application/json');
}

/** The protobuf media types kube-openapi's v2 handler serves: kubectl's (deprecated spelling) and the current one. */
const OPENAPI_V2_PROTOBUF = ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf'];

/**
 * `/openapi/v2` as k8s.io/kube-openapi/pkg/handler/handler.go serves it: the first media range of
 * `Accept` (none: any) that is JSON or one of {@link OPENAPI_V2_PROTOBUF} picks the encoding; the
 * protobuf answer is labelled `application/com.github.proto-openapi.spec.v2.v1.0+protobuf`; nothing
 * acceptable is 406. Both encodings share the ETag of the JSON (`Vary: Accept`); `If-None-Match` with
 * it gets 304.
 */
function serveOpenApiV2(req: IncomingMessage, res: ServerResponse, doc: OpenApiV2Document): void {
  res.setHeader('Vary', 'Accept');
  const ranges = parseAccept(req.headers.accept ?? '*/*');
  // A wildcard matches JSON, the first of the handler's types.
  const first = ranges.find((r) => ['application/json', 'application/*', '*/*', ...OPENAPI_V2_PROTOBUF].includes(r.mediaType));
  if (!first) {
    res.writeHead(406);
    res.end();
    return;
  }
  const etag = `"${doc.etag}"`;
  res.setHeader('ETag', etag);
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304);
    res.end();
    return;
  }
  if (OPENAPI_V2_PROTOBUF.includes(first.mediaType)) {
    res.writeHead(200, { 'Content-Type': OPENAPI_V2_PROTOBUF[1] as string, 'Content-Length': doc.proto.length });
    res.end(doc.proto);
    return;
  }
  writeRaw(res, 200, doc.json, 'application/json');
}

/** Options of {@link startHttpServer}. */
export interface HttpServerOptions extends HttpHandlerOptions, ServingOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /**
   * PEM certificate and key; when set the server speaks HTTPS. With `clientCA` (`--client-ca-file`)
   * it asks clients for a certificate and verifies it against that CA; a client without one still
   * connects (the request authenticator decides), as Go's `VerifyClientCertIfGiven`.
   */
  tls?: { cert: string; key: string; clientCA?: string };
}

/** A running server. */
export interface RunningHttpServer {
  server: http.Server;
  /** The port actually bound. */
  port: number;
  /** Requests holding a max-in-flight slot; `whenIdle()` resolves when none does. */
  inFlight: MaxInFlightLimit;
  /** Stops accepting connections, ends open ones (watches included) and resolves when closed. */
  close(): Promise<void>;
}

/**
 * Starts the API's HTTP(S) server on host:port, with kube-apiserver's connection limits
 * (k8s.io/apiserver/pkg/server/secure_serving.go): headers within 32 s, idle keep-alive connections
 * closed after 90 s, the TLS handshake within 32 s, a whole request within the request timeout, and at
 * most 4096 connections (serving.ts). Rejects when the port cannot be bound.
 */
export function startHttpServer(core: ApiServerCore, opts: HttpServerOptions): Promise<RunningHttpServer> {
  const clientCA = opts.tls?.clientCA;
  const handler = createHttpHandler(core, clientCA === undefined ? opts : { ...opts, clientCertificates: true });
  const serverOptions = nodeServerOptions(opts);
  const tls = opts.tls && { cert: opts.tls.cert, key: opts.tls.key, ...(clientCA === undefined ? {} : { ca: clientCA, requestCert: true, rejectUnauthorized: false }) };
  const server: http.Server = tls ? https.createServer({ ...serverOptions, ...tls }, handler) : http.createServer(serverOptions, handler);
  server.on('upgrade', rejectUpgrade);
  const maxConnections = maxConnectionsOf(opts);
  if (maxConnections > 0) server.maxConnections = maxConnections;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      const port = (server.address() as AddressInfo).port;
      resolve({
        server,
        port,
        inFlight: handler.inFlight,
        close: () =>
          new Promise<void>((done, fail) => {
            inFlightLimits.delete(handler.inFlight);
            server.close((err) => (err ? fail(err) : done()));
            server.closeAllConnections();
          }),
      });
    });
  });
}
