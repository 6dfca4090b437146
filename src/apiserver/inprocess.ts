/**
 * The in-process transport (DESIGN.md "One process by default"): requests run through the API
 * server's own `handle`/`watch` — the same defaulting, validation, admission and storage path as HTTP —
 * with no serialization. Objects returned are the server's frozen, shared objects; callers copy before
 * changing them. A transport given a user is authorized as an HTTP request from that user would be
 * (docs/adr/0021-who-asks-travels-with-the-request.md); one without is the server's loopback admin.
 *
 * Every request is counted in `apiserver_request_total` and `apiserver_request_duration_seconds` with
 * the labels the same request over HTTP gets (the verb it would travel as, `POST` for a create,
 * `LIST`/`WATCH`, `APPLY`…), so the metrics count what controllers, the scheduler and the simulated
 * kubelets ask, as kube-apiserver's count their HTTP requests
 * (docs/adr/0014-metrics-count-in-process-requests.md). A watch is counted when it ends.
 */
import type { RequestUser, RestRequest, Transport, WatchEvent, WatchStream } from '../api/request.js';
import { requestAttributes } from './authz/attributes.js';
import { authorizeOrForbid } from './authz/forbidden.js';
import type { Attributes, Authorizer } from './authz/types.js';
import { StatusError } from '../machinery/errors/index.js';
import { realClock, type Clock } from '../util/clock/index.js';
import { APISERVER_COMPONENT, canonicalVerb, cleanScope, cleanVerb, requestMetrics, type RequestMetrics } from './metrics/index.js';

/** What the transport needs of the server. */
export interface InProcessServer {
  handle(req: RestRequest): Promise<{ body: unknown; code: number }>;
  watch(req: RestRequest, onEvent: (ev: WatchEvent) => void, onClose: (err?: unknown) => void): WatchStream;
  /** The server's authorizer, for a transport that acts as a user; without one such requests are not checked. */
  readonly authorizer?: Authorizer | undefined;
}

/** The authorizer attributes of an in-process request. */
function attributesOf(req: RestRequest, user: RequestUser): Attributes {
  return requestAttributes(
    user,
    { verb: req.verb, resourceRequest: true, path: '', namespace: req.namespace ?? '', apiGroup: req.group, apiVersion: req.version, resource: req.resource, subresource: req.subresource ?? '', name: req.name ?? '' },
    req.query,
  );
}

/** The HTTP method each verb travels as. */
const methodOf = { get: 'GET', list: 'GET', watch: 'GET', create: 'POST', update: 'PUT', patch: 'PATCH', delete: 'DELETE', deletecollection: 'DELETE' } as const;

/**
 * The metrics of `req`, labelled as the HTTP request it stands for (http/server.ts labels those): the
 * scope and verb by upstream's `CleanScope`, `CanonicalVerb` and `cleanVerb`, `dry_run` by
 * `cleanDryRun` of its one `dryRun` value.
 */
export function inProcessRequestMetrics(req: RestRequest): RequestMetrics {
  const subresource = req.subresource ?? '';
  const scope = cleanScope({ isResourceRequest: true, verb: req.verb, namespace: req.namespace ?? '', name: req.name ?? '' });
  const method = methodOf[req.verb];
  const verb = cleanVerb(canonicalVerb(method, scope), req.verb === 'watch' ? 'WATCH' : '', { method, contentType: req.patchType }, { isResourceRequest: true, subresource });
  const dryRun = req.query?.['dryRun'];
  return requestMetrics(verb, dryRun === undefined ? '' : dryRun === 'All' ? 'All' : 'invalid', req.group, req.version, req.resource, subresource, scope, APISERVER_COMPONENT);
}

/** The HTTP code a request failing with `err` is answered with (a StatusError's own, else 500). */
function codeOf(err: unknown): number {
  return err instanceof StatusError ? err.code : 500;
}

/** Options of {@link newInProcessTransport}. */
export interface InProcessTransportOptions {
  /** Fills `RestRequest.userAgent` when a request has none. */
  userAgent?: string | undefined;
  /**
   * The user every request acts as (`--use-service-account-credentials`: a controller's service
   * account), authorized by the server's authorizer as an HTTP request would be; without one requests
   * are the server's own loopback calls, which may do everything (upstream's loopback client is in
   * `system:masters`).
   */
  user?: RequestUser | undefined;
  /** Request durations are read from it. */
  clock?: Clock;
}

/**
 * A Transport over `server`. A watch that the server rejects synchronously (or the authorizer
 * refuses) reports the error through `onClose` (on a microtask), as the Transport contract asks.
 */
export function newInProcessTransport(server: InProcessServer, opts: InProcessTransportOptions = {}): Transport {
  const { userAgent, user } = opts;
  const clock = opts.clock ?? realClock;
  const authorizer = user ? server.authorizer : undefined;
  const prepared = (req: RestRequest): RestRequest => {
    const withAgent = userAgent === undefined || req.userAgent !== undefined ? req : { ...req, userAgent };
    return user ? { ...withAgent, user } : withAgent;
  };
  const startWatch = (req: RestRequest, onEvent: (ev: WatchEvent) => void, onClose: (err?: unknown) => void): WatchStream => {
    const metrics = inProcessRequestMetrics(req);
    const start = clock.monotonic();
    try {
      return server.watch(prepared(req), onEvent, (err) => {
        metrics.observe(err === undefined ? 200 : codeOf(err), (clock.monotonic() - start) / 1000);
        onClose(err);
      });
    } catch (err) {
      metrics.observe(codeOf(err), (clock.monotonic() - start) / 1000);
      queueMicrotask(() => onClose(err));
      return { stop: () => undefined };
    }
  };
  return {
    async request(req) {
      const metrics = inProcessRequestMetrics(req);
      const start = clock.monotonic();
      try {
        if (authorizer && user) await authorizeOrForbid(authorizer, attributesOf(req, user));
        const res = await server.handle(prepared(req));
        metrics.observe(res.code, (clock.monotonic() - start) / 1000);
        return res.body;
      } catch (err) {
        metrics.observe(codeOf(err), (clock.monotonic() - start) / 1000);
        throw err;
      }
    },
    watch(req, onEvent, onClose) {
      if (!authorizer || !user) return startWatch(req, onEvent, onClose);
      // Authorized first; a stop before the answer ends the watch at once.
      let inner: WatchStream | undefined;
      let stopped = false;
      authorizeOrForbid(authorizer, attributesOf(req, user)).then(
        () => {
          if (!stopped) inner = startWatch(req, onEvent, onClose);
        },
        (err: unknown) => {
          if (stopped) return;
          stopped = true;
          inProcessRequestMetrics(req).count(codeOf(err));
          onClose(err);
        },
      );
      return {
        stop() {
          if (inner) {
            inner.stop();
            return;
          }
          if (stopped) return;
          stopped = true;
          onClose();
        },
      };
    },
  };
}
