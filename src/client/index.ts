/**
 * The typed clientset: one {@link ResourceClient} per resource, over any {@link Transport} (HTTP, the
 * API server's in-process transport, or the fake). It only turns method calls into {@link RestRequest}s
 * with upstream's query-parameter names, as client-go's generated typed clients
 * (k8s.io/client-go/kubernetes/typed/...) and `rest.Request` do; it holds no state.
 *
 * Errors are the transport's: StatusError (machinery/errors) for API failures.
 */
import type { DeleteOptions, KubeList, KubeObject, Scale } from '../api/index.js';
import type { PatchType, RestRequest, Transport, Verb, WatchEvent, WatchStream } from '../api/request.js';
import { CATALOGUE, type CatalogueRow, type KindDescriptor, type ObjectOf, type ResourceDescriptor } from '../api/catalogue/index.js';

export type { PatchType, RestRequest, Transport, Verb, WatchEvent, WatchStream } from '../api/request.js';
export type { DeleteOptions } from '../api/index.js';
export * from '../api/catalogue/index.js';

/** List parameters (metav1.ListOptions), sent as query parameters of the same names. */
export interface ListOptions {
  /** e.g. `app=web,tier notin (cache)`. */
  labelSelector?: string;
  /** e.g. `spec.nodeName=node-1`. */
  fieldSelector?: string;
  /** Page size; the response's `metadata.continue` fetches the next page. */
  limit?: number;
  continue?: string;
  /** `''` (consistent read), `'0'` (any cached state) or a resourceVersion. */
  resourceVersion?: string;
  /** `NotOlderThan` or `Exact`. */
  resourceVersionMatch?: string;
}

/** Watch parameters: {@link ListOptions} plus the watch-only ones. */
export interface WatchOptions extends ListOptions {
  allowWatchBookmarks?: boolean;
  /** Server-side duration of the watch, in **seconds**; the stream then ends normally. */
  timeoutSeconds?: number;
  sendInitialEvents?: boolean;
}

/** Parameters of create, update and patch (metav1.CreateOptions/UpdateOptions/PatchOptions). */
export interface WriteOptions {
  /** Sent as `dryRun=All`. */
  dryRun?: boolean;
  fieldManager?: string;
  fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
}

/** Requests for one resource, in one namespace (or all namespaces / cluster scope when none). */
export interface ResourceClient<T> {
  /** GET one object. Throws StatusError NotFound. */
  get(name: string): Promise<T>;
  /** GET the collection. */
  list(opts?: ListOptions): Promise<KubeList<T>>;
  /** Watches the collection; see Transport.watch for the event and close contract. */
  watch(opts: WatchOptions, onEvent: (ev: WatchEvent<T>) => void, onClose: (err?: unknown) => void): WatchStream;
  /** POST; the namespace is the client's, else `obj.metadata.namespace`. Throws AlreadyExists, Invalid. */
  create(obj: T, opts?: WriteOptions): Promise<T>;
  /** PUT the object (name and namespace from its metadata). Throws Conflict on a stale resourceVersion. */
  update(obj: T, opts?: WriteOptions): Promise<T>;
  /** PUT the `status` subresource: only `.status` changes. */
  updateStatus(obj: T, opts?: WriteOptions): Promise<T>;
  /** PATCH with the given content type; `opts.subresource` targets e.g. `status` or `scale`. */
  patch(name: string, patchType: PatchType, body: unknown, opts?: WriteOptions & { subresource?: string }): Promise<T>;
  /** DELETE; `opts` is sent as the DeleteOptions body. Returns the object (pods, finalizers) or a Status. */
  delete(name: string, opts?: DeleteOptions): Promise<unknown>;
  /** POST to a subresource, e.g. `pods/<name>/binding` with a Binding, or `eviction`. */
  createSubresource(name: string, subresource: string, body: unknown, opts?: WriteOptions): Promise<unknown>;
  /** GET the `scale` subresource (autoscaling/v1 Scale). */
  getScale(name: string): Promise<Scale>;
  /** PUT the `scale` subresource; a set `scale.metadata.resourceVersion` is a precondition. */
  updateScale(name: string, scale: Scale): Promise<Scale>;
}

/**
 * The typed accessors, derived from the catalogue: for every row with `client: [group, method]`,
 * `clientset[group][method](ns?)` is a {@link ResourceClient} of the row's object type in its preferred
 * version, e.g. `client.apps.replicaSets('default')` or `client.core.nodes()` (the namespace is ignored
 * for cluster-scoped kinds).
 */
export type TypedAccessors = {
  [G in CatalogueRow['client'][0]]: {
    [R in CatalogueRow as R['client'][0] extends G ? R['client'][1] : never]: (ns?: string) => ResourceClient<ObjectOf<R>>;
  };
};

/** Clients for every catalogued resource, plus a generic one. */
export type Clientset = TypedAccessors & {
  transport: Transport;
  /** A client for any resource; `ns` is ignored for cluster-scoped ones. */
  resource<T = KubeObject>(desc: ResourceDescriptor, ns?: string): ResourceClient<T>;
};

/**
 * Builds a clientset. `opts.userAgent` is stamped on every request (e.g. `kube-controller-manager`);
 * the in-process transport uses it as the default field manager, as upstream does with the user agent.
 */
export function newClientset(transport: Transport, opts: { userAgent?: string } = {}): Clientset {
  const make = <T>(desc: ResourceDescriptor, ns?: string): ResourceClient<T> =>
    new RestResourceClient<T>(transport, desc, desc.namespaced ? ns : undefined, opts.userAgent);
  return { transport, resource: make, ...accessorsOf((desc, ns) => make(desc, ns)) } as Clientset;
}

/**
 * `{group: {method: (ns?) => make(row, ns)}}` for every catalogue row: the shape of {@link TypedAccessors},
 * shared by the clientset and the informer factory.
 */
export function accessorsOf<R>(make: (desc: KindDescriptor, ns?: string) => R): Record<string, Record<string, (ns?: string) => R>> {
  const out: Record<string, Record<string, (ns?: string) => R>> = {};
  for (const row of CATALOGUE as readonly KindDescriptor[]) {
    const [group, method] = row.client;
    (out[group] ??= {})[method] = (ns?: string) => make(row, ns);
  }
  return out;
}

/** Query parameters of a list or watch, with upstream names; unset options are left out. */
export function listQuery(opts: WatchOptions = {}): Record<string, string> {
  const q: Record<string, string> = {};
  if (opts.labelSelector) q.labelSelector = opts.labelSelector;
  if (opts.fieldSelector) q.fieldSelector = opts.fieldSelector;
  if (opts.limit !== undefined && opts.limit > 0) q.limit = String(opts.limit);
  if (opts.continue) q.continue = opts.continue;
  if (opts.resourceVersion !== undefined && opts.resourceVersion !== '') q.resourceVersion = opts.resourceVersion;
  if (opts.resourceVersionMatch) q.resourceVersionMatch = opts.resourceVersionMatch;
  if (opts.allowWatchBookmarks) q.allowWatchBookmarks = 'true';
  if (opts.timeoutSeconds !== undefined) q.timeoutSeconds = String(opts.timeoutSeconds);
  if (opts.sendInitialEvents !== undefined) q.sendInitialEvents = String(opts.sendInitialEvents);
  return q;
}

/** Query parameters of a write. */
export function writeQuery(opts: WriteOptions = {}): Record<string, string> {
  const q: Record<string, string> = {};
  if (opts.dryRun) q.dryRun = 'All';
  if (opts.fieldManager) q.fieldManager = opts.fieldManager;
  if (opts.fieldValidation) q.fieldValidation = opts.fieldValidation;
  return q;
}

function objectMeta(obj: unknown): { name?: string; namespace?: string } {
  const meta = (obj as KubeObject | undefined)?.metadata;
  return { name: meta?.name, namespace: meta?.namespace };
}

class RestResourceClient<T> implements ResourceClient<T> {
  constructor(
    private readonly transport: Transport,
    private readonly desc: ResourceDescriptor,
    private readonly ns: string | undefined,
    private readonly userAgent: string | undefined,
  ) {}

  /** A request for this resource; `namespace` falls back to the client's. */
  private req(verb: Verb, fields: Partial<RestRequest>): RestRequest {
    const r: RestRequest = { verb, group: this.desc.group, version: this.desc.version, resource: this.desc.resource };
    // `''` means all namespaces, like undefined.
    const namespace = this.desc.namespaced ? this.ns || fields.namespace : undefined;
    if (namespace) r.namespace = namespace;
    if (fields.name !== undefined) r.name = fields.name;
    if (fields.subresource) r.subresource = fields.subresource;
    if (fields.query && Object.keys(fields.query).length > 0) r.query = fields.query;
    if (fields.body !== undefined) r.body = fields.body;
    if (fields.patchType) r.patchType = fields.patchType;
    if (this.userAgent) r.userAgent = this.userAgent;
    return r;
  }

  private async run<R>(r: RestRequest): Promise<R> {
    return (await this.transport.request(r)) as R;
  }

  get(name: string): Promise<T> {
    return this.run(this.req('get', { name }));
  }

  list(opts?: ListOptions): Promise<KubeList<T>> {
    return this.run(this.req('list', { query: listQuery(opts) }));
  }

  watch(opts: WatchOptions, onEvent: (ev: WatchEvent<T>) => void, onClose: (err?: unknown) => void): WatchStream {
    return this.transport.watch(this.req('watch', { query: listQuery(opts) }), onEvent as (ev: WatchEvent) => void, onClose);
  }

  create(obj: T, opts?: WriteOptions): Promise<T> {
    return this.run(this.req('create', { namespace: objectMeta(obj).namespace, body: obj, query: writeQuery(opts) }));
  }

  update(obj: T, opts?: WriteOptions): Promise<T> {
    return this.run(this.req('update', { ...objectMeta(obj), body: obj, query: writeQuery(opts) }));
  }

  updateStatus(obj: T, opts?: WriteOptions): Promise<T> {
    return this.run(this.req('update', { ...objectMeta(obj), subresource: 'status', body: obj, query: writeQuery(opts) }));
  }

  patch(name: string, patchType: PatchType, body: unknown, opts: WriteOptions & { subresource?: string } = {}): Promise<T> {
    return this.run(this.req('patch', { name, subresource: opts.subresource, patchType, body, query: writeQuery(opts) }));
  }

  delete(name: string, opts?: DeleteOptions): Promise<unknown> {
    return this.run(this.req('delete', { name, body: opts }));
  }

  createSubresource(name: string, subresource: string, body: unknown, opts?: WriteOptions): Promise<unknown> {
    return this.run(this.req('create', { name, subresource, body, query: writeQuery(opts) }));
  }

  getScale(name: string): Promise<Scale> {
    return this.run(this.req('get', { name, subresource: 'scale' }));
  }

  updateScale(name: string, scale: Scale): Promise<Scale> {
    return this.run(this.req('update', { name, subresource: 'scale', body: scale }));
  }
}
