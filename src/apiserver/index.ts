/**
 * The API server core: every served resource's generic store over one storage Backend and one cache
 * feed, request routing by group/resource/subresource/verb, the NamespaceLifecycle admission, the
 * default namespaces and storage compaction. No HTTP here: `apiserver/http` serves {@link ApiServer}
 * over HTTP, and {@link ApiServer.inProcessTransport} gives in-process clients the very same path.
 *
 * Upstream: k8s.io/apiserver/pkg/endpoints/installer.go (which verbs each resource serves),
 * pkg/controlplane (default namespaces, kube-apiserver's compactor every 5 minutes,
 * apiserver/pkg/storage/etcd3/compact.go).
 */
import type { RequestUser, RestRequest, Transport, WatchEvent, WatchStream } from '../api/request.js';
import {
  newBadRequest,
  newInvalid,
  newMethodNotSupported,
  newNotFoundPath,
  type GroupResource,
} from '../machinery/errors/index.js';
import type { KubeObject } from '../api/index.js';
import { deepFreeze } from '../machinery/meta/index.js';
import { rootTypeName } from '../api/schema/index.js';
import { checkNestingDepth, decodeBody } from './registry/generic/decode.js';
import { parseFieldValidation } from './registry/generic/options.js';
import type { Backend } from '../storage/interface.js';
import { realClock, type Clock, type Timer } from '../util/clock/index.js';
import { realRand, type Rand } from '../util/random/index.js';
import { newInProcessTransport, type InProcessTransportOptions } from './inprocess.js';
import { newServerAuthorizer, rbacGettersOf, type AuthorizationMode } from './authorization.js';
import type { Authorizer, RuleResolver } from './authz/types.js';
import { groupResourceString, instrumentBackend, liveServers, type StorageGauges } from './metrics/index.js';
import { Store, resourcePrefix, type StoreView } from './registry/generic/store.js';
import { apiVersionOf } from './registry/generic/decode.js';
import { getScale, patchScale, updateScale } from './registry/generic/subresources.js';
import type { AdmissionPlugin } from './registry/extension.js';
import { deprecationWarning, type ResourceInfo, type ResourceStrategy, type ReviewContext, type ViewOf } from './registry/strategy.js';
import { unionAuthenticator, type TokenAuthenticator } from './authn/index.js';
import { ServiceAccountTokens, type ReferencedObject, type ServiceAccountTokenGetter } from './authn/serviceaccount.js';
import { CacheFeed } from './watchcache/cache-feed.js';
import type { EventWindowSizing } from './watchcache/event-window.js';
import type { WatchCache } from './watchcache/watch-cache.js';

export { serializedJSON } from './watchcache/serialized.js';

/** Options of {@link ApiServer.create}. */
export interface ApiServerOptions {
  backend: Backend;
  /** The served resources, in discovery order. */
  strategies: ResourceStrategy[];
  clock?: Clock;
  rand?: Rand;
  /**
   * Bounds of each resource's watch-cache event window, the recent changes a watch can resume from
   * (default: upstream's, 100 to 102,400 events sized to keep 75 s of changes; see EventWindow).
   */
  watchCacheSizing?: EventWindowSizing;
  /**
   * Who a bearer token is, for TokenReview (the HTTP server authenticates requests with the same
   * token), besides the service-account tokens the server issues itself.
   */
  authenticator?: TokenAuthenticator;
  /**
   * The service-account signing key (PEM, RSA or EC P-256), kube-apiserver's
   * `--service-account-signing-key-file`; without one a key is made on first use and lost with the
   * server, so its tokens do not survive a restart.
   */
  serviceAccountKey?: string;
  /**
   * Whether writes record `metadata.managedFields` (default true, as kube-apiserver always does);
   * false only for `npm run bench` to measure the cost of tracking.
   */
  trackManagedFields?: boolean;
  /**
   * `--authorization-mode` (default `['RBAC']`): who may do what, for requests that carry a user (HTTP
   * requests, in-process transports acting as a user); see ./authorization.ts.
   */
  authorizationModes?: readonly AuthorizationMode[];
}

/** Result of a non-watch request. */
export interface HandleResult {
  /** 200, 201 (created), or 202 (a delete with orphanDependents=false that is not finished). */
  code: number;
  body: unknown;
  /** Warning texts (sent as `Warning: 299 - "<text>"` headers). */
  warnings: string[];
}

export { DEFAULT_NAMESPACES } from './registry/resources/namespace-storage.js';

/** kube-apiserver's `--etcd-compaction-interval` default. */
export const COMPACTION_INTERVAL_MS = 5 * 60_000;
/** Revisions compaction always keeps (kine's `compact-min-retain`). */
export const COMPACTION_MIN_RETAIN = 1000;

/** The API server core. */
export class ApiServer implements StorageGauges {
  /** The store of each stored group/resource. */
  private readonly stores = new Map<string, Store>();
  /** The admission plugins the served kinds impose (NamespaceLifecycle), in discovery order. */
  private admissionPlugins: AdmissionPlugin[] = [];
  /** What serves each group/resource/version: a store, and a view when it is not the stored version. */
  private readonly routes = new Map<string, Route>();
  /** The served resources in discovery order; replaced (never mutated) when one is added or removed. */
  private strategies: readonly ResourceStrategy[];
  private readonly feed: CacheFeed;
  private readonly clock: Clock;
  private readonly rand: Rand;
  private compactionTimer: Timer | undefined;
  private closed = false;
  /** Issues the TokenRequest API's tokens (serviceaccounts/token). */
  private readonly serviceAccountTokens: ServiceAccountTokens;
  /** Authenticates the tokens {@link serviceAccountTokens} issues, against the objects they name. */
  readonly serviceAccountAuthenticator: TokenAuthenticator;
  /** What TokenReview asks: the configured authenticator, then service-account tokens. */
  private readonly reviewAuthenticator: TokenAuthenticator;
  /** `--authorization-mode`'s authorizer; also answers SelfSubjectRulesReview. */
  readonly authorizer: Authorizer & RuleResolver;
  /** True under `--authorization-mode=AlwaysAllow` (anonymous requests are then refused). */
  readonly alwaysAllow: boolean;
  /** The `resourcesChanged` hooks of the last add or remove (see {@link resourcesSynced}). */
  private resourcesChanging: Promise<unknown> = Promise.resolve();

  private constructor(private readonly opts: ApiServerOptions) {
    this.clock = opts.clock ?? realClock;
    this.rand = opts.rand ?? realRand;
    this.strategies = [...opts.strategies];
    this.feed = new CacheFeed(opts.backend, this.clock, opts.watchCacheSizing);
    this.serviceAccountTokens = new ServiceAccountTokens({ clock: this.clock, rand: this.rand, ...(opts.serviceAccountKey !== undefined ? { privateKeyPem: opts.serviceAccountKey } : {}) });
    this.serviceAccountAuthenticator = this.serviceAccountTokens.authenticator(this.tokenGetter());
    this.reviewAuthenticator = opts.authenticator ? unionAuthenticator(opts.authenticator, this.serviceAccountAuthenticator) : unionAuthenticator(this.serviceAccountAuthenticator);
    ({ authorizer: this.authorizer, alwaysAllow: this.alwaysAllow } = newServerAuthorizer(
      opts.authorizationModes ?? ['RBAC'],
      rbacGettersOf((group, resource) => this.stores.get(storeKey({ group, resource }))),
    ));
    for (const strategy of this.strategies) {
      if (strategy.view) this.installView(strategy, strategy.view);
      else this.install(strategy, this.feed.addCache(resourcePrefix(strategy.info), rootTypeOf(strategy), onReadOf(strategy)));
    }
    liveServers.add(this);
  }

  /** Builds the store of `strategy` over `cache` and registers it with its storage extension's admission. */
  private install(strategy: ResourceStrategy, cache: WatchCache): Store {
    const store = new Store({
      strategy,
      // The store's storage calls are timed and counted under its group-resource (etcd_request_*).
      backend: instrumentBackend(this.opts.backend, groupResourceString(strategy.info), this.clock),
      cache,
      feed: this.feed,
      clock: this.clock,
      rand: this.rand,
      ...(this.opts.trackManagedFields === false ? { trackManagedFields: false } : {}),
      admitCreate: (ns, name, gr) => this.admitCreate(ns, name, gr),
      storeOf: (group, resource) => this.stores.get(storeKey({ group, resource })),
      servedResources: () => this.strategies.map((s) => s.info),
      addResource: (s) => this.addResource(s),
      removeResource: (group, resource) => this.removeResource(group, resource),
      admitDelete: (name, gr) => {
        for (const plugin of this.admissionPlugins) plugin.admitDelete?.(name, gr);
      },
      validateCreate: async (obj, gr, dryRun) => {
        for (const plugin of this.admissionPlugins) await plugin.validateCreate?.(obj, gr, dryRun);
      },
      serviceAccountTokens: this.serviceAccountTokens,
      authorizer: this.authorizer,
    });
    this.stores.set(storeKey(strategy.info), store);
    this.routes.set(routeKey(strategy.info), withWarning({ store, info: strategy.info }, strategy));
    this.refreshAdmission();
    return store;
  }

  /**
   * What the service-account token validator reads (upstream's getter over informers with a live GET
   * on a miss): the watch cache, else storage, so an object just created is found.
   */
  private tokenGetter(): ServiceAccountTokenGetter {
    const lookup = (resource: string) => async (namespace: string, name: string): Promise<ReferencedObject | undefined> => {
      const store = this.stores.get(storeKey({ group: '', resource }));
      if (!store) return undefined;
      return store.cached(namespace, name) ?? (await store.storedObject(namespace, name));
    };
    return { getServiceAccount: lookup('serviceaccounts'), getPod: lookup('pods'), getSecret: lookup('secrets') };
  }

  /** Routes a view's version to the store it views. @throws Error when that store is not served */
  private installView(strategy: ResourceStrategy, view: ViewOf): void {
    const store = this.stores.get(storeKey(view.storage));
    if (!store) throw new Error(`${routeKey(strategy.info)} views ${storeKey(view.storage)}, which is not served`);
    const storeView: StoreView = { info: strategy.info, conversion: view.conversion, ...(strategy.mergeType ? { mergeType: strategy.mergeType } : {}) };
    store.addView(storeView);
    this.routes.set(routeKey(strategy.info), withWarning({ store, info: strategy.info, view: storeView }, strategy));
  }

  /** The admission plugins the served kinds impose, in discovery order. */
  /** Collects the admission plugins of the served stores again (after a store is added or removed). */
  private refreshAdmission(): void {
    this.admissionPlugins = [];
    for (const store of this.stores.values()) if (store.extension.admission) this.admissionPlugins.push(store.extension.admission);
  }

  private async admitCreate(namespace: string, name: string, gr: GroupResource): Promise<void> {
    for (const plugin of this.admissionPlugins) await plugin.admitCreate?.(namespace, name, gr);
  }

  /**
   * Starts a server: primes the watch caches from storage, creates the objects every cluster has
   * (each kind's {@link StorageExtension.bootstrap}: the default namespaces, the `kubernetes` service)
   * and schedules compaction every 5 minutes of clock time.
   */
  static async create(opts: ApiServerOptions): Promise<ApiServer> {
    const server = new ApiServer(opts);
    await server.feed.start();
    for (const store of server.stores.values()) await store.extension.bootstrap?.();
    server.scheduleCompaction();
    return server;
  }

  /**
   * The served resources, in discovery order. The array is replaced when a resource is added or
   * removed, so callers may cache what they derive from it while it is the same array.
   */
  resources(): readonly ResourceStrategy[] {
    return this.strategies;
  }

  /**
   * What discovery's preferred resources list (client-go `ServerPreferredResources`): every served
   * resource once, in the version it is stored in (the other versions of a resource are views).
   */
  preferredResources(): ResourceInfo[] {
    return this.strategies.filter((s) => !s.view || storeKey(s.view.storage) !== storeKey(s.info)).map((s) => s.info);
  }

  /**
   * Serves a resource from now on (what a CustomResourceDefinition or an aggregated API does):
   * its watch cache is primed from what storage already holds under its prefix, discovery and
   * OpenAPI list it from the next request, and its bootstrap runs.
   * @throws Error when the group/resource/version is already served, or a view's stored resource is not
   */
  async addResource(strategy: ResourceStrategy): Promise<void> {
    const key = routeKey(strategy.info);
    if (this.routes.has(key)) throw new Error(`${key} is already served`);
    if (strategy.view) {
      this.installView(strategy, strategy.view);
      this.strategies = [...this.strategies, strategy];
    } else {
      const cache = await this.feed.addLiveCache(resourcePrefix(strategy.info), rootTypeOf(strategy), onReadOf(strategy));
      if (this.routes.has(key)) throw new Error(`${key} is already served`);
      const store = this.install(strategy, cache);
      this.strategies = [...this.strategies, strategy];
      await store.extension.bootstrap?.();
    }
    await this.resourcesChanged();
  }

  /**
   * Stops serving a resource: requests get 404 and it leaves discovery and OpenAPI; its watches end
   * (as upstream's do when a CRD is deleted). What storage holds under its prefix stays. Returns
   * false when it was not served.
   */
  removeResource(group: string, resource: string): boolean {
    const store = this.stores.get(storeKey({ group, resource }));
    const gone = new Set<ResourceInfo>();
    for (const [key, route] of this.routes) {
      // Every version of the resource, and the views of its store.
      if ((route.info.group === group && route.info.resource === resource) || route.store === store) {
        this.routes.delete(key);
        gone.add(route.info);
      }
    }
    if (gone.size === 0) return false;
    this.strategies = this.strategies.filter((s) => !gone.has(s.info));
    if (store) {
      this.stores.delete(storeKey({ group, resource }));
      this.refreshAdmission();
      if (![...this.stores.values()].some((s) => s.prefix === store.prefix)) this.feed.removeCache(store.prefix);
    }
    void this.resourcesChanged();
    return true;
  }

  /** Runs every store's {@link StorageExtension.resourcesChanged} hook (after the previous run's). */
  private resourcesChanged(): Promise<unknown> {
    const stores = [...this.stores.values()];
    this.resourcesChanging = this.resourcesChanging.then(() => Promise.allSettled(stores.map((s) => s.extension.resourcesChanged?.() ?? Promise.resolve())));
    return this.resourcesChanging;
  }

  /**
   * Resolves once what follows the served resources has caught up with the last
   * {@link addResource} or {@link removeResource} (the APIServices of the served group/versions).
   */
  async resourcesSynced(): Promise<void> {
    await this.resourcesChanging;
  }

  /**
   * Resolves once the server has stopped writing on its own: every watch cache holds every change and
   * every store's {@link StorageExtension.settled} work is done, with no write in between (a CRD
   * create is followed by its NamesAccepted/Established status write). For tests that check what a
   * request alone wrote.
   */
  async settled(): Promise<void> {
    for (;;) {
      const revision = this.currentRevision();
      // Watch caches deliver to their watchers as they apply a change, so the extensions have seen it.
      await this.waitUntilFresh(revision);
      await Promise.all([...this.stores.values()].map((s) => s.extension.settled?.() ?? Promise.resolve()));
      if (this.currentRevision() === revision) return;
    }
  }

  /** The backend revision (the newest resourceVersion). */
  currentRevision(): number {
    return this.opts.backend.currentRevision();
  }

  /**
   * Resolves once every watch cache holds every change up to `revision` (default: the backend's
   * current one). Reads wait for this themselves; it is for code that writes to the backend directly
   * (a restore, test seeding) and must not answer before the caches saw it.
   */
  waitUntilFresh(revision = this.currentRevision()): Promise<void> {
    return this.feed.waitUntilFresh(revision);
  }

  /**
   * Compacts storage up to `revision` and drops the same history from the watch caches, at once, as
   * the compactor does every {@link COMPACTION_INTERVAL_MS}: a watch from a compacted revision gets
   * 410 Expired whether storage or the cache would have served it (etcd3/compact.go). A revision at
   * or below the compacted one does nothing. For tests that expire history without stepping the clock.
   */
  async compact(revision: number): Promise<void> {
    const backend = this.opts.backend;
    if (revision <= backend.compactedRevision()) return;
    await backend.compact(revision);
    this.feed.compacted(revision);
  }

  /**
   * Runs a non-watch request. Throws StatusError: 404 for an unknown group/version/resource or
   * subresource, 405 for a verb the resource does not serve, and whatever the store decides.
   */
  async handle(req: RestRequest): Promise<HandleResult> {
    if (req.verb === 'watch') throw newBadRequest('watch requests are served by watch()');
    const { store, info, view, warning } = this.route(req);
    if (req.body !== undefined) checkNestingDepth(req.body, req.verb, subresourceKind(info, req.subresource));
    const query = req.query ?? {};
    const ns = req.namespace;
    // A deprecated version warns first, as upstream's installer wraps every route of it.
    const warnings: string[] = warning === undefined ? [] : [warning];
    const ok = (body: unknown, code = 200): HandleResult => ({ code, body: view ? inVersion(store, view, body) : body, warnings: [...new Set(warnings)] });
    const name = req.name;
    const sub = req.subresource;
    // A request without a User-Agent has no default manager (upstream's prefix of '' is '').
    const ua = req.userAgent ?? '';
    if (store.strategy.review) {
      if (name === undefined && sub === undefined && req.verb === 'create') return ok(await this.review(store.strategy, req.body, ns, query, warnings, req.user), 201);
      throw newMethodNotSupported(store.gr, req.verb);
    }
    const own = store.extension;
    if (name === undefined) {
      if (req.verb === 'list') return ok(await (own.list ? own.list(ns, query) : store.list(ns, query)));
      if (req.verb === 'create') {
        if (!own.create) return ok(await store.create(ns, req.body, query, warnings, view, ua, req.user), 201);
        const res = await own.create({ namespace: ns, body: req.body, query, warnings });
        return ok(res.body, res.code);
      }
      if (req.verb === 'deletecollection') return ok(await store.deleteCollection(ns, req.body, query));
      throw newMethodNotSupported(store.gr, req.verb);
    }
    if (sub === undefined) {
      if (req.verb === 'get') return ok(await (own.get ? own.get(ns, name, query) : store.get(ns, name, query)));
      if (req.verb === 'update' || req.verb === 'patch') {
        const res =
          req.verb === 'update'
            ? await store.update(ns, name, req.body, query, warnings, 'main', view, ua, req.user)
            : await store.patch(ns, name, req.patchType, req.body, query, warnings, 'main', view, ua, req.user);
        return ok(res.obj, res.created ? 201 : 200);
      }
      if (req.verb === 'delete') {
        const res = await store.delete(ns, name, req.body, query);
        return ok(res.body, res.code);
      }
    } else if (sub === 'status') {
      if (req.verb === 'get') return ok(await store.get(ns, name, query));
      if (req.verb === 'update') return ok((await store.update(ns, name, req.body, query, warnings, 'status', view, ua)).obj);
      if (req.verb === 'patch') return ok((await store.patch(ns, name, req.patchType, req.body, query, warnings, 'status', view, ua)).obj);
    } else if (sub === 'scale') {
      if (req.verb === 'get') return ok(await getScale(store, ns, name, query));
      if (req.verb === 'update') return ok(await updateScale(store, ns, name, req.body, query, warnings, view, ua));
      if (req.verb === 'patch') return ok(await patchScale(store, ns, name, req.patchType, req.body, query, warnings, view, ua));
    } else if (req.verb === 'get' || req.verb === 'create' || req.verb === 'update' || req.verb === 'patch') {
      const handler = store.extension.subresources?.[sub]?.[req.verb];
      if (handler) {
        const res = await handler({ namespace: ns, name, body: req.body, patchType: req.patchType, query, warnings, userAgent: ua });
        return ok(res.body, res.code);
      }
    }
    throw newMethodNotSupported(store.gr, req.verb);
  }

  /**
   * Create on a review kind (see {@link ResourceStrategy.review}): decoded like any create (field
   * validation, type checks), given the request's namespace (EnsureObjectNamespaceMatchesRequestNamespace:
   * 400 when the body names another), defaulted and validated (422), answered, never stored. The 422
   * names no kind: upstream's review REST reports `<internal object>.Kind`, which decoding leaves
   * empty (`.authorization.k8s.io "" is invalid: …`).
   */
  private async review(
    strategy: ResourceStrategy,
    body: unknown,
    namespace: string | undefined,
    query: Record<string, string>,
    warnings: string[],
    user: RequestUser | undefined,
  ): Promise<unknown> {
    const obj = decodeBody(strategy, body, parseFieldValidation(query, 'CreateOptions'), warnings);
    ensureReviewNamespace(obj, strategy.info.namespaced ? (namespace ?? '') : '');
    strategy.defaults(obj);
    const errs = strategy.validate(obj);
    if (errs.length > 0) throw newInvalid({ group: strategy.info.group, kind: '' }, '', errs);
    const ctx: ReviewContext = { authenticator: this.reviewAuthenticator, authorizer: this.authorizer, ...(user ? { user } : {}) };
    return deepFreeze(await (strategy.review as (o: KubeObject, c: ReviewContext) => KubeObject | Promise<KubeObject>)(obj, ctx));
  }

  /**
   * Starts a watch. Request errors (unknown resource, bad selectors or options) throw synchronously;
   * errors found while starting (410 Expired, 504 too large resourceVersion) and clean ends (stop,
   * timeoutSeconds, close) arrive through `onClose`, exactly once.
   */
  watch(req: RestRequest, onEvent: (ev: WatchEvent) => void, onClose: (err?: unknown) => void): WatchStream {
    if (req.verb !== 'watch') throw newBadRequest(`watch() needs verb watch, got ${req.verb}`);
    const { store, view } = this.route(req);
    if (req.name !== undefined || req.subresource !== undefined) throw newMethodNotSupported(store.gr, 'watch');
    const deliver = view ? (ev: WatchEvent) => onEvent(eventInVersion(store, view, ev)) : onEvent;
    return store.watch(req.namespace, req.query ?? {}, deliver, onClose);
  }

  /**
   * A Transport running requests through {@link handle} and {@link watch} without serialization;
   * returned objects are the shared frozen ones.
   */
  inProcessTransport(opts: Omit<InProcessTransportOptions, 'clock'> = {}): Transport {
    return newInProcessTransport(this, { ...opts, clock: this.clock });
  }

  /**
   * `apiserver_storage_objects`: the objects of each stored resource, from its watch cache. Kinds that
   * are not stored (reviews, bindings, component statuses, metrics) are left out: they serve no list
   * or no create.
   */
  *storageObjectCounts(): Iterable<readonly [string, number]> {
    for (const store of this.stores.values()) {
      const { info } = store.strategy;
      if (store.strategy.review || !info.verbs.includes('list') || !info.verbs.includes('create')) continue;
      yield [groupResourceString(info), store.objectCount()];
    }
  }

  /** `apiserver_storage_size_bytes`: the backend's database file, if it has one. */
  storageSizeBytes(): number | undefined {
    return this.closed ? undefined : this.opts.backend.sizeBytes?.();
  }

  /** Stops compaction and every watch. The backend stays open (its owner closes it). */
  close(): Promise<void> {
    liveServers.delete(this);
    this.closed = true;
    this.compactionTimer?.stop();
    this.feed.stop();
    return Promise.resolve();
  }

  /** Finds the store of a request and checks its shape against the resource's scope and verbs. */
  private route(req: RestRequest): Route {
    const route = this.routes.get(routeKey(req));
    if (!route) throw newNotFoundPath();
    const { store, info } = route;
    if (!info.namespaced && req.namespace !== undefined) throw newNotFoundPath();
    if (info.namespaced && req.name !== undefined && !req.namespace) throw newNotFoundPath();
    if (req.subresource !== undefined) {
      if (req.name === undefined) throw newNotFoundPath();
      const sub = info.subresources.find((s) => s.name === req.subresource);
      if (!sub) throw newNotFoundPath();
      if (!sub.verbs.includes(req.verb)) throw newMethodNotSupported(store.gr, req.verb);
      return route;
    }
    if (!info.verbs.includes(req.verb)) throw newMethodNotSupported(store.gr, req.verb);
    if (info.namespaced && !req.namespace && (req.verb === 'create' || req.verb === 'deletecollection')) {
      throw newMethodNotSupported(store.gr, req.verb);
    }
    return route;
  }


  /**
   * Every 5 minutes: compact storage up to currentRevision − 1000, then drop the same history from the
   * watch caches, so a watch from a compacted revision gets 410 Expired whether storage or the cache
   * would have served it.
   */
  private scheduleCompaction(): void {
    if (this.closed) return;
    this.compactionTimer = this.clock.setTimer(COMPACTION_INTERVAL_MS, () => {
      // A failed compaction is retried at the next interval, as upstream's compactor does.
      this.compact(this.currentRevision() - COMPACTION_MIN_RETAIN)
        .catch(() => undefined)
        .finally(() => this.scheduleCompaction());
    });
  }
}

/**
 * rest.EnsureObjectNamespaceMatchesRequestNamespace for a review: an unset namespace becomes the
 * request's, a cluster-scoped kind's is cleared, another one is 400.
 */
function ensureReviewNamespace(obj: KubeObject, requested: string): void {
  const meta = obj.metadata ?? {};
  const own = meta.namespace ?? '';
  if (own === requested) return;
  if (own === '') (obj.metadata = meta).namespace = requested;
  else if (requested === '') delete meta.namespace;
  else throw newBadRequest('the namespace of the provided object does not match the namespace sent on the request');
}

/** The kind a request's body is decoded as: the subresource's (Scale, Binding, Eviction) or the resource's. */
function subresourceKind(info: ResourceInfo, subresource: string | undefined): string {
  return info.subresources.find((s) => s.name === subresource)?.kind ?? info.kind;
}

/** A watch event in a view's version; a bookmark carries only a resourceVersion and is relabelled, not converted. */
function eventInVersion(store: Store, view: StoreView, ev: WatchEvent): WatchEvent {
  if (ev.type !== 'BOOKMARK') return { ...ev, object: inVersion(store, view, ev.object) };
  return { ...ev, object: { ...(ev.object as object), apiVersion: apiVersionOf(view.info), kind: view.info.kind } };
}

/** What serves one group/resource/version. */
interface Route {
  store: Store;
  /** The served identity (the view's, for a view). */
  info: ResourceInfo;
  /** Present when the version is not the stored one. */
  view?: StoreView;
  /** The deprecation Warning of every request to this version (see {@link deprecationWarning}). */
  warning?: string;
}

/** `route` with the deprecation Warning of the strategy serving it, if any. */
function withWarning(route: Route, strategy: ResourceStrategy): Route {
  const warning = deprecationWarning(strategy);
  return warning === undefined ? route : { ...route, warning };
}

/** The key of a route: `group/resource/version`. */
function routeKey(r: { group: string; resource: string; version: string }): string {
  return `${r.group}/${r.resource}/${r.version}`;
}

/**
 * A response body in a view's version: an object of the stored kind is converted, a list of them has
 * its items converted; anything else (Status, Scale) is as it was.
 */
function inVersion(store: Store, view: StoreView, body: unknown): unknown {
  if (body === null || typeof body !== 'object') return body;
  const obj = body as KubeObject & { items?: KubeObject[] };
  const stored = store.strategy.info;
  if (obj.kind === stored.kind) return store.fromStorage(obj, view);
  if (obj.kind === stored.listKind && Array.isArray(obj.items)) {
    return { ...obj, apiVersion: apiVersionOf(view.info), kind: view.info.listKind, items: obj.items.map((item) => store.fromStorage(item, view)) };
  }
  return body;
}

/** The key of a resource's store: `group/resource` (any version). */
function storeKey(r: { group: string; resource: string }): string {
  return `${r.group}/${r.resource}`;
}

/** The strategy's {@link ResourceStrategy.defaultOnRead}, bound, for the watch cache. */
function onReadOf(strategy: ResourceStrategy): ((obj: KubeObject) => void) | undefined {
  return strategy.defaultOnRead ? (obj) => strategy.defaultOnRead?.(obj) : undefined;
}

/** The schema root of a kind's objects as stored (its served version's type). */
function rootTypeOf(strategy: ResourceStrategy): string | undefined {
  const { group, version, kind } = strategy.info;
  return rootTypeName(group, version, kind);
}
