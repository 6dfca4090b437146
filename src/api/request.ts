/**
 * The request contract between clients and an API server, without a wire format. A {@link RestRequest}
 * names exactly what an HTTP request to `/api/v1/...` or `/apis/<group>/<version>/...` names; a
 * {@link Transport} executes it and returns objects.
 *
 * Two transports implement it:
 * - `client/http`: serializes to HTTP/JSON, for any Kubernetes API server (kubeconfig);
 * - the API server's in-process transport (`apiserver/inprocess`), wired by `cli`: it runs the very same
 *   handler path as HTTP (defaulting, validation, admission, storage) with no serialization. Objects it
 *   returns are shared with the server's watch cache and are frozen: callers copy before changing them
 *   (upstream's DeepCopy rule).
 *
 * Errors are thrown as `StatusError` (machinery/errors) on both transports.
 */

/** REST verbs, as in upstream RBAC/audit vocabulary. */
export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** Patch content types (the HTTP Content-Type of a PATCH). */
export type PatchType =
  | 'application/json-patch+json'
  | 'application/merge-patch+json'
  | 'application/strategic-merge-patch+json'
  | 'application/apply-patch+yaml';

/** One API request. */
export interface RestRequest {
  verb: Verb;
  /** API group, `''` for core. */
  group: string;
  /** API version, e.g. `v1`. */
  version: string;
  /** Resource plural, e.g. `deployments`. */
  resource: string;
  /** Namespace for namespaced resources; undefined for cluster-scoped ones and all-namespace lists. */
  namespace?: string;
  /** Object name (get, update, patch, delete, and subresources). */
  name?: string;
  /** Subresource, e.g. `status`, `scale`, `binding`, `finalize`. */
  subresource?: string;
  /**
   * Query parameters with upstream's names and string values: labelSelector, fieldSelector, limit,
   * continue, resourceVersion, resourceVersionMatch, timeoutSeconds, allowWatchBookmarks,
   * sendInitialEvents, fieldManager, fieldValidation, dryRun, force, propagationPolicy, gracePeriodSeconds.
   */
  query?: Record<string, string>;
  /**
   * Body: the object for create/update, the patch (object or JSON-patch array) for patch, DeleteOptions
   * for delete. The in-process transport never mutates it.
   */
  body?: unknown;
  /** Patch type; required when verb is `patch`. */
  patchType?: PatchType;
  /** Identity of the caller, for managedFields defaults and audit, e.g. `kube-controller-manager`. */
  userAgent?: string;
  /**
   * Who sent the request, as the HTTP server authenticated it (after impersonation), or the user an
   * in-process transport acts as; the self reviews answer for them and RBAC's escalation checks judge
   * them. Undefined in process otherwise: the server's loopback admin.
   */
  user?: RequestUser;
}

/** An authenticated user (k8s.io/apiserver `user.Info`). */
export interface RequestUser {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** A watch event as on the wire: `{"type":"ADDED","object":{…}}`. */
export interface WatchEvent<T = unknown> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  /** The object; for ERROR a `metav1.Status`; for BOOKMARK an object with only kind/apiVersion/metadata.resourceVersion. */
  object: T;
}

/** A running watch. */
export interface WatchStream {
  /** Ends the watch; `onClose` is then called once with no error. */
  stop(): void;
}

/** Executes requests against one API server. */
export interface Transport {
  /**
   * Runs a non-watch request and returns the decoded response body: the object, the list
   * (`{kind, apiVersion, metadata: {resourceVersion, continue?, remainingItemCount?}, items}`), or a
   * `metav1.Status` for deletes that completed immediately. Throws StatusError.
   */
  request(req: RestRequest): Promise<unknown>;
  /**
   * Starts a watch (`req.verb` must be `watch`). `onEvent` gets events in order; `onClose` is called
   * exactly once when the stream ends: with no argument on a normal end (stop, timeoutSeconds, server
   * closing), or with the error that ended it (e.g. a StatusError 410 Expired before any event).
   * An ERROR event in the stream is delivered to `onEvent` first.
   */
  watch(req: RestRequest, onEvent: (ev: WatchEvent) => void, onClose: (err?: unknown) => void): WatchStream;
}
