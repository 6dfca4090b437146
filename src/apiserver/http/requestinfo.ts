/**
 * What a request is, from its method and URL alone — before routing, authentication or the resource
 * index — for the filters that wrap every request (max-in-flight, the request timeout) and for the
 * request metrics (apiserver/metrics). Follows upstream's RequestInfoFactory
 * (k8s.io/apiserver/pkg/endpoints/request/requestinfo.go) with API prefixes `api` (groupless) and
 * `apis`, special path verbs `proxy` and `watch`, and the namespace subresources `status` and
 * `finalize`; only the fields those read are kept.
 *
 * Two deliberate differences: a named GET with `?watch=true` (`…/pods/web?watch=true`) is a `watch`
 * here, because router.ts serves it as one (upstream's RequestInfo calls it a `get`); and a list or
 * watch with `fieldSelector=metadata.name=x` does not get `name: x` (upstream's does, which only makes
 * the `scope` label of such a request rejected with 429 `resource` instead of the collection's scope).
 */
import { parseBool } from './body.js';

/** The classification of one request. */
export interface RequestInfo {
  /** True for `/api/<v>/…` and `/apis/<g>/<v>/…` URLs naming a resource. */
  isResourceRequest: boolean;
  /**
   * For resource requests: get, list, watch, create, update, patch, delete, deletecollection, proxy, or
   * '' for another method. For other requests: the lower-case HTTP method (`get`, `post`, `head`…).
   */
  verb: string;
  /** The subresource (`status`, `log`, `exec`…), or ''. */
  subresource: string;
  /** The URL path. */
  path: string;
  /** For resource requests: the API group (`''` for core), the version, and the resource plural (`''` when the URL has none). */
  apiGroup: string;
  apiVersion: string;
  resource: string;
  /** The namespace of `namespaces/<ns>/…` URLs (also of `namespaces/<ns>` itself, whose name it is), or ''. */
  namespace: string;
  /** The object's name from the URL, or ''. */
  name: string;
}

const specialVerbs = new Set(['proxy', 'watch']);
const namespaceSubresources = new Set(['status', 'finalize']);
const methodVerbs: Record<string, string> = { POST: 'create', GET: 'get', HEAD: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/** `path` without leading and trailing slashes, split on `/` (upstream's splitPath). */
function splitPath(path: string): string[] {
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? [] : trimmed.split('/');
}

/**
 * Classifies a request (upstream's `NewRequestInfo`). `query` is the parsed query string (only
 * `watch` is read). Never throws: a URL upstream rejects as malformed (`/api/v1/watch`) keeps what is
 * known so far, and the router answers it.
 */
export function requestInfoOf(method: string, path: string, query: Record<string, string>): RequestInfo {
  const info: RequestInfo = { isResourceRequest: false, verb: method.toLowerCase(), subresource: '', path, apiGroup: '', apiVersion: '', resource: '', namespace: '', name: '' };
  let parts = splitPath(path);
  if (parts.length < 3 || (parts[0] !== 'api' && parts[0] !== 'apis')) return info;
  // After the prefix: `<group>/<version>/…` needs three more parts, `<version>/…` (groupless) two.
  const grouped = parts[0] === 'apis';
  if (grouped && parts.length < 4) return info;
  info.apiGroup = grouped ? (parts[1] as string) : '';
  info.apiVersion = parts[grouped ? 2 : 1] as string;
  parts = parts.slice(grouped ? 3 : 2);
  info.isResourceRequest = true;
  info.verb = methodVerbs[method] ?? '';
  if (parts.length === 0) return info;

  if (specialVerbs.has(parts[0] as string)) {
    if (parts.length < 2) return info;
    info.verb = parts[0] as string;
    parts = parts.slice(1);
  }
  if (parts[0] === 'namespaces' && parts.length > 1) {
    info.namespace = parts[1] as string;
    if (parts.length > 2 && !namespaceSubresources.has(parts[2] as string)) parts = parts.slice(2);
  }

  const named = parts.length >= 2;
  if (parts.length >= 3 && info.verb !== 'proxy') info.subresource = parts[2] as string;
  if (named) info.name = parts[1] as string;
  info.resource = parts[0] as string;
  if (info.verb === 'get' && info.subresource === '' && parseBool(query['watch'])) info.verb = 'watch';
  else if (info.verb === 'get' && !named) info.verb = 'list';
  if (info.verb === 'delete' && !named) info.verb = 'deletecollection';
  return info;
}

/** kube-apiserver's long-running verbs (pkg/controlplane/apiserver/config.go `LongRunningFunc`). */
const longRunningVerbs = new Set(['watch', 'proxy']);
/** kube-apiserver's long-running subresources (same place). */
const longRunningSubresources = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

/**
 * True for requests that may legitimately run for as long as the client wants: watches, proxies,
 * and the attach, exec, proxy, log and portforward subresources (plus `/debug/pprof/`), as
 * kube-apiserver's `BasicLongRunningRequestCheck` (k8s.io/apiserver/pkg/server/filters/longrunning.go)
 * configures them. They are exempt from max-in-flight and from the request timeout.
 */
export function isLongRunning(info: RequestInfo): boolean {
  if (longRunningVerbs.has(info.verb)) return true;
  if (info.isResourceRequest) return longRunningSubresources.has(info.subresource);
  return info.path.startsWith('/debug/pprof/');
}

/** Verbs that do not change anything (maxinflight.go `nonMutatingRequestVerbs`); every other verb is mutating. */
const readOnlyVerbs = new Set(['get', 'list', 'watch']);

/** True when the request counts against `--max-mutating-requests-inflight` rather than `--max-requests-inflight`. */
export function isMutating(info: RequestInfo): boolean {
  return !readOnlyVerbs.has(info.verb);
}
