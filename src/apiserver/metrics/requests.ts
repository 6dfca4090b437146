/**
 * The API server's request metrics, with upstream's names, labels, help texts and buckets, and its
 * normalisation of the `verb` and `scope` labels (k8s.io/apiserver/pkg/endpoints/metrics/metrics.go,
 * v1.33):
 *
 * - `apiserver_request_total{verb, dry_run, group, version, resource, subresource, scope, component, code}`
 * - `apiserver_request_duration_seconds{verb, dry_run, group, version, resource, subresource, scope, component}`
 * - `apiserver_current_inflight_requests{request_kind}` (`readOnly`, `mutating`)
 *
 * `verb` is the HTTP method as upstream reports it: `GET` for a named object, `LIST` for a collection,
 * `WATCH` for a watch (`?watch=true` or the deprecated `/watch/` path), `POST`, `PUT`, `PATCH`
 * (`APPLY` for a server-side apply patch), `DELETE` (also for a collection: the method, not the
 * deletecollection verb), `CONNECT` for the log, exec, attach, portforward and proxy subresources, and
 * `other` for anything else. `scope` is `resource` for a named object or a create, `namespace` for a
 * namespace's collection, `cluster` for a cluster-wide collection, '' for a non-resource URL.
 *
 * Where requests are counted: routed resource requests (HTTP in http/server.ts, in-process in
 * inprocess.ts, labelled alike; see docs/adr/0014-metrics-count-in-process-requests.md), once
 * each when the response ends, with the response code; requests max-in-flight turns away (429);
 * `/healthz`, `/livez` and `/readyz` (component '', subresource the path, as upstream's healthz
 * handler); aggregated discovery at `/api` and `/apis`. Like upstream, paths that route nowhere (404,
 * 405), unauthenticated requests, `/version`, `/openapi` and `/metrics` are not counted.
 */
import { CounterVec, GaugeVec, HistogramVec, LiveSet, type CounterChild, type HistogramChild } from '../../util/metrics/index.js';

/** `APIServerComponent`. */
export const APISERVER_COMPONENT = 'apiserver';

/** metrics.go `requestCounter`. */
export const requestTotal = new CounterVec({
  name: 'apiserver_request_total',
  help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
  stabilityLevel: 'STABLE',
  labelNames: ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component', 'code'] as const,
});

/** The SLO buckets of `requestLatencies` (also etcd_request_duration_seconds'). */
export const REQUEST_DURATION_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

/** metrics.go `requestLatencies`. */
export const requestDuration = new HistogramVec({
  name: 'apiserver_request_duration_seconds',
  help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
  stabilityLevel: 'STABLE',
  labelNames: ['verb', 'dry_run', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const,
  buckets: REQUEST_DURATION_BUCKETS,
});

/** What the in-flight gauge reads from each max-in-flight filter. */
export interface InFlightWatermarks {
  /** The most requests in flight, per budget, during the last whole second. */
  watermarks(): { readOnly: number; mutating: number };
}

/** The max-in-flight filters of the running HTTP servers. */
export const inFlightLimits = new LiveSet<InFlightWatermarks>();

/**
 * metrics.go `currentInflightRequests` (request_kind `readOnly` / `mutating`, `ReadOnlyKind` and
 * `MutatingKind`): upstream's filter sets it every second to the most requests it held during that
 * second; here it is read at scrape time from the same watermark (maxinflight.ts). Several servers
 * in one process add up.
 */
export const currentInflightRequests = new GaugeVec({
  name: 'apiserver_current_inflight_requests',
  help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
  stabilityLevel: 'STABLE',
  labelNames: ['request_kind'] as const,
  collect: (g) => {
    let readOnly = 0;
    let mutating = 0;
    let any = false;
    for (const limit of inFlightLimits) {
      const w = limit.watermarks();
      readOnly += w.readOnly;
      mutating += w.mutating;
      any = true;
    }
    if (!any) return;
    g.with('readOnly').set(readOnly);
    g.with('mutating').set(mutating);
  },
});

/** What {@link cleanScope} reads (upstream's RequestInfo fields). */
export interface ScopeInfo {
  isResourceRequest: boolean;
  /** The request verb in RequestInfo's vocabulary (`create`, `list`, …). */
  verb: string;
  namespace: string;
  name: string;
}

/**
 * `CleanScope`: `resource` for a named object or a create, `namespace` for a request in a namespace,
 * `cluster` for another resource request, '' otherwise. For every route served this is also the
 * scope upstream's installer gives the route (`requestScope` in installer.go).
 */
export function cleanScope(info: ScopeInfo): string {
  if (info.name !== '' || info.verb === 'create') return 'resource';
  if (info.namespace !== '') return 'namespace';
  if (info.isResourceRequest) return 'cluster';
  return '';
}

/** `CanonicalVerb`: GET and HEAD of anything but one object (or a non-resource URL) are LISTs. `verb` is upper case. */
export function canonicalVerb(verb: string, scope: string): string {
  if (verb === 'GET' || verb === 'HEAD') return scope !== 'resource' && scope !== '' ? 'LIST' : 'GET';
  return verb;
}

/** The request facts {@link cleanVerb} reads besides the verb. */
export interface VerbRequest {
  /** The HTTP method (for in-process requests, the method the verb travels as over HTTP). */
  method: string;
  /** The first `watch` query value, if any. */
  watch?: string | undefined;
  /** The Content-Type of the request. */
  contentType?: string | undefined;
}

/** `types.ApplyPatchType`. */
const APPLY_PATCH_TYPE = 'application/apply-patch+yaml';
/** `validConnectRequests`. */
const connectSubresources = new Set(['log', 'exec', 'portforward', 'attach', 'proxy']);
/** `validRequestMethods`: any other verb is reported as `other`. */
const validRequestMethods = new Set(['APPLY', 'CONNECT', 'CREATE', 'DELETE', 'DELETECOLLECTION', 'GET', 'LIST', 'PATCH', 'POST', 'PROXY', 'PUT', 'UPDATE', 'WATCH', 'WATCHLIST']);

/** `getVerbIfWatch`: a GET (or LIST) whose first `watch` value is neither `0` nor `false` (any case) is a WATCH. */
function isWatch(req: VerbRequest): boolean {
  const method = req.method.toUpperCase();
  if (method !== 'GET' && method !== 'LIST') return false;
  if (req.watch === undefined) return false;
  const v = req.watch.toLowerCase();
  return v !== '0' && v !== 'false';
}

/** `CleanVerb`: tells WATCH from LIST, APPLY from PATCH and CONNECT from the rest. */
export function cleanVerbOf(verb: string, req: VerbRequest, info?: { isResourceRequest: boolean; subresource: string }): string {
  let reported = verb;
  if (isWatch(req)) reported = 'WATCH';
  // The legacy WATCHLIST is normalised to WATCH.
  if (verb === 'WATCHLIST') reported = 'WATCH';
  if (verb === 'PATCH' && req.contentType === APPLY_PATCH_TYPE) reported = 'APPLY';
  if (info?.isResourceRequest && info.subresource !== '' && connectSubresources.has(info.subresource)) reported = 'CONNECT';
  return reported;
}

/**
 * The unexported `cleanVerb`: a `suggestedVerb` of WATCH or WATCHLIST (the route of the deprecated
 * `/watch/` paths) wins; otherwise {@link cleanVerbOf}, and a verb outside `validRequestMethods` is
 * `other`.
 */
export function cleanVerb(verb: string, suggestedVerb: string, req: VerbRequest, info?: { isResourceRequest: boolean; subresource: string }): string {
  if (suggestedVerb === 'WATCH' || suggestedVerb === 'WATCHLIST') return 'WATCH';
  const reported = cleanVerbOf(verb, req, info);
  return validRequestMethods.has(reported) ? reported : 'other';
}

/**
 * `cleanDryRun` over the raw query string: '' without `dryRun`, `invalid` when a value is not `All`
 * (metav1 `ValidateDryRun`), else the distinct values sorted and joined with commas.
 */
export function cleanDryRun(rawQuery: string): string {
  if (!rawQuery.includes('dryRun')) return '';
  const values = new URLSearchParams(rawQuery).getAll('dryRun');
  if (values.some((v) => v !== 'All')) return 'invalid';
  return [...new Set(values)].sort().join(',');
}

/** The counter and histogram children of one label set but the code, with the counters by code. */
export class RequestMetrics {
  private readonly byCode = new Map<number, CounterChild>();
  readonly duration: HistogramChild;

  constructor(private readonly labels: readonly [verb: string, dryRun: string, group: string, version: string, resource: string, subresource: string, scope: string, component: string]) {
    this.duration = requestDuration.with(...labels);
  }

  /** Counts one request that ended with `code` after `seconds`. */
  observe(code: number, seconds: number): void {
    this.count(code);
    this.duration.observe(seconds);
  }

  /** Counts one request with `code` and no duration (upstream's `RecordDroppedRequest`). */
  count(code: number): void {
    let counter = this.byCode.get(code);
    if (!counter) {
      counter = requestTotal.with(...this.labels, String(code));
      this.byCode.set(code, counter);
    }
    counter.inc();
  }
}

/** Cached {@link RequestMetrics} by their eight labels (a nested lookup, no key strings built). */
const cache = new Map<string, unknown>();

/** The {@link RequestMetrics} of these labels (verb, dry_run, group, version, resource, subresource, scope, component). */
export function requestMetrics(verb: string, dryRun: string, group: string, version: string, resource: string, subresource: string, scope: string, component: string): RequestMetrics {
  const labels = [verb, dryRun, group, version, resource, subresource, scope, component] as const;
  let m = cache;
  for (let i = 0; i < labels.length - 1; i++) {
    const v = labels[i] as string;
    let next = m.get(v) as Map<string, unknown> | undefined;
    if (!next) {
      next = new Map();
      m.set(v, next);
    }
    m = next;
  }
  let rm = m.get(component) as RequestMetrics | undefined;
  if (!rm) {
    rm = new RequestMetrics(labels);
    m.set(component, rm);
  }
  return rm;
}
