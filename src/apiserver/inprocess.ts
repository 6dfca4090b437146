/**
 * The in-process transport (DESIGN.md "One process by default"): requests run through the API
 * server's own `handle`/`watch` — the same defaulting, validation, admission and storage path as HTTP —
 * with no serialization. Objects returned are the server's frozen, shared objects; callers copy before
 * changing them.
 *
 * Every request is counted in `apiserver_request_total` and `apiserver_request_duration_seconds` with
 * the labels the same request over HTTP gets (the verb it would travel as, `POST` for a create,
 * `LIST`/`WATCH`, `APPLY`…), so the metrics count what controllers, the scheduler and the simulated
 * kubelets ask, as kube-apiserver's count their HTTP requests
 * (docs/adr/0014-metrics-count-in-process-requests.md). A watch is counted when it ends.
 */
import type { RestRequest, Transport, WatchEvent, WatchStream } from '../api/request.js';
import { StatusError } from '../machinery/errors/index.js';
import { realClock, type Clock } from '../util/clock/index.js';
import { APISERVER_COMPONENT, canonicalVerb, cleanScope, cleanVerb, requestMetrics, type RequestMetrics } from './metrics/index.js';

/** What the transport needs of the server. */
export interface InProcessServer {
  handle(req: RestRequest): Promise<{ body: unknown; code: number }>;
  watch(req: RestRequest, onEvent: (ev: WatchEvent) => void, onClose: (err?: unknown) => void): WatchStream;
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

/**
 * A Transport over `server`. `userAgent` fills `RestRequest.userAgent` when a request has none. A
 * watch that the server rejects synchronously reports the error through `onClose` (on a microtask),
 * as the Transport contract asks. Request durations are read from `clock`.
 */
export function newInProcessTransport(server: InProcessServer, userAgent?: string, clock: Clock = realClock): Transport {
  const withAgent = (req: RestRequest): RestRequest => (userAgent === undefined || req.userAgent !== undefined ? req : { ...req, userAgent });
  return {
    async request(req) {
      const metrics = inProcessRequestMetrics(req);
      const start = clock.monotonic();
      try {
        const res = await server.handle(withAgent(req));
        metrics.observe(res.code, (clock.monotonic() - start) / 1000);
        return res.body;
      } catch (err) {
        metrics.observe(codeOf(err), (clock.monotonic() - start) / 1000);
        throw err;
      }
    },
    watch(req, onEvent, onClose) {
      const metrics = inProcessRequestMetrics(req);
      const start = clock.monotonic();
      try {
        return server.watch(withAgent(req), onEvent, (err) => {
          metrics.observe(err === undefined ? 200 : codeOf(err), (clock.monotonic() - start) / 1000);
          onClose(err);
        });
      } catch (err) {
        metrics.observe(codeOf(err), (clock.monotonic() - start) / 1000);
        queueMicrotask(() => onClose(err));
        return { stop: () => undefined };
      }
    },
  };
}
