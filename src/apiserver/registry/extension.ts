/**
 * What a kind's own REST storage adds around the generic store. Upstream builds most kinds from
 * `genericregistry.Store` plus a strategy, and a few wrap it in their own `storage.go`
 * (pkg/registry/core/namespace/storage/storage.go: lifecycle DELETE and `/finalize`;
 * pkg/registry/core/pod/storage/{storage,eviction}.go: `/binding`, `/eviction`;
 * pkg/registry/core/service/storage/storage.go: the IP and port allocators). Here a strategy's
 * `storage(ctx)` returns a {@link StorageExtension}, so the generic store and the server name no
 * resource: they call these hooks where upstream's wrappers sit.
 */
import type { KubeList, KubeObject } from '../../api/index.js';
import type { PatchType, RequestUser } from '../../api/request.js';
import type { FieldError, GroupResource } from '../../machinery/errors/index.js';
import type { Backend } from '../../storage/interface.js';
import type { Clock } from '../../util/clock/index.js';
import type { Rand } from '../../util/random/index.js';
import type { WatchCache } from '../watchcache/watch-cache.js';
import type { ServiceAccountTokens } from '../authn/serviceaccount.js';
import type { Authorizer, RuleResolver } from '../authz/types.js';
import type { DeleteResult, Store } from './generic/store.js';
import type { ResourceInfo, ResourceStrategy } from './strategy.js';
import type { DeleteOptions } from './generic/options.js';

/** What a kind's storage extension is built from: the store serving the kind and the server's parts. */
export interface StorageContext {
  /** The generic store of the kind (its methods may be called once the server runs, not during `storage()`). */
  store: Store;
  /** The kind's watch cache: what storage holds, for allocators that must see every object. */
  cache: WatchCache;
  backend: Backend;
  clock: Clock;
  rand: Rand;
  /**
   * The store of another served kind by group and resource, or undefined when it is not served (the
   * Priority admission of pods reads PriorityClasses). Call it when a request runs, not in `storage()`.
   */
  storeOf: (group: string, resource: string) => Store | undefined;
  /**
   * What the server serves now, every version of every resource (what discovery lists). Call it when
   * a request or hook runs, not in `storage()`.
   */
  servedResources: () => readonly ResourceInfo[];
  /**
   * Serves another resource from now on (ApiServer.addResource): what a kind whose objects declare
   * resources (CustomResourceDefinitions) calls once one is ready. Rejects as addResource does.
   */
  addResource: (strategy: ResourceStrategy) => Promise<void>;
  /** Stops serving a resource (ApiServer.removeResource); false when it was not served. */
  removeResource: (group: string, resource: string) => boolean;
  /** The server's service-account token issuer (the TokenRequest API signs with it). */
  serviceAccountTokens: ServiceAccountTokens;
  /** The server's authorizer and rule resolver (RBAC's escalation checks ask them). */
  authorizer: Authorizer & RuleResolver;
}

/** One subresource request, as the server routed it (name and verb already checked against discovery). */
export interface SubresourceRequest {
  namespace: string | undefined;
  name: string;
  body: unknown;
  patchType?: PatchType | undefined;
  query: Record<string, string>;
  /** Warning texts to add to the response. */
  warnings: string[];
  /** The client's User-Agent, naming the write's field manager when the query has no `fieldManager`. */
  userAgent?: string | undefined;
}

/** The verbs a kind's own subresource may serve (as its discovery entry lists them). */
export type SubresourceVerb = 'get' | 'create' | 'update' | 'patch';

/** The answer of a subresource request: HTTP code (200, 201) and body. @throws StatusError */
export type SubresourceHandler = (req: SubresourceRequest) => Promise<{ code: number; body: unknown }>;

/** A create on the collection, as the server routed it (see {@link StorageExtension.create}). */
export type CreateRequest = Omit<SubresourceRequest, 'name' | 'patchType'>;

/**
 * An update strategy other than the main resource's and `/status`'s, for a subresource that
 * updates the object (the namespace `/finalize`, the CSR `/approval`: RESTUpdateStrategy's
 * PrepareForUpdate and ValidateUpdate). Both get private copies; `old` is the stored object; `now`
 * (ms) is for timestamps the server fills in.
 */
export interface UpdateStrategy {
  /** The subresource's name (`finalize`, `approval`), as managedFields entries record it. */
  subresource: string;
  prepareForUpdate(obj: KubeObject, old: KubeObject, now: number): void;
  validateUpdate(obj: KubeObject, old: KubeObject): FieldError[];
}

/**
 * Admission a kind imposes on every store's requests (the NamespaceLifecycle plugin over namespaces,
 * the ResourceQuota plugin over resourcequotas).
 */
export interface AdmissionPlugin {
  /** Before a create of a namespaced object: throws when `namespace` may not get new objects. */
  admitCreate?(namespace: string, name: string, gr: GroupResource): Promise<void>;
  /** Before a delete of any object: throws to refuse it. */
  admitDelete?(name: string, gr: GroupResource): void;
  /**
   * Validating admission of a POST create of any kind, after the kind's validation and its own
   * `validateAdmission`, just before the write (dry runs included, `dryRun` set): throws a
   * StatusError to refuse it. The object is final (name, namespace, defaults) and must not be changed.
   */
  validateCreate?(obj: KubeObject, gr: GroupResource, dryRun: boolean): Promise<void>;
}

/** A kind's additions to the generic store; every member is optional. */
export interface StorageExtension {
  /**
   * Mutating admission of a new object of this kind, after defaulting and before validation (the
   * Priority and DefaultTolerationSeconds plugins for pods); `namespace` is the request's (the
   * object's own may not be set yet); `user` who asked (undefined for the server's loopback calls:
   * the CSR strategy records the requester). May throw a StatusError.
   */
  mutateCreate?: (obj: KubeObject, namespace: string, user: RequestUser | undefined) => void | Promise<void>;
  /**
   * Validating admission of this kind's objects, run after the strategy's validation passed and before
   * the write, on creates (`old` undefined) and updates of the main resource, dry runs included (where
   * upstream's generic store calls the `createValidation` / `updateValidation` of the validating
   * admission plugins: the Priority plugin over PriorityClasses). `old` is the stored object, frozen.
   * The kind's cache holds every write committed before the request. `user` is who asked (undefined
   * for the server's own loopback calls), for checks that depend on the requester (RBAC's escalation
   * prevention). Throws a StatusError to refuse, or returns a promise that rejects with one (only a
   * check that must wait should: it makes the update attempt asynchronous).
   */
  validateAdmission?: (obj: KubeObject, old: KubeObject | undefined, user: RequestUser | undefined) => void | Promise<void>;
  /**
   * Runs before a create's PrepareForCreate and validation (upstream's `Store.BeginCreate`): may change
   * the object (services get cluster IPs and node ports) or throw; returns a function told whether the
   * write succeeded, so that what it reserved is released on failure.
   */
  beginCreate?: (obj: KubeObject, dryRun: boolean) => (success: boolean) => void;
  /** The same before an update's PrepareForUpdate (`Store.BeginUpdate`); `old` is the stored object. */
  beginUpdate?: (obj: KubeObject, old: KubeObject, dryRun: boolean) => (success: boolean) => void;
  /** Admission this kind imposes on the requests of every store. */
  admission?: AdmissionPlugin;
  /**
   * Runs in front of the generic DELETE (after admission): the answer, or undefined to go on with
   * the generic delete (a namespace is first only marked Terminating).
   */
  delete?(namespace: string | undefined, name: string, opts: DeleteOptions): Promise<DeleteResult | undefined>;
  /**
   * A further condition of `ShouldDeleteDuringUpdate` (an update that empties the finalizers of an
   * object being deleted removes it): a namespace also needs an empty spec.finalizers.
   */
  shouldDeleteDuringUpdate?(obj: KubeObject): boolean;
  /**
   * Serves a create in place of the generic store, for a kind whose create acts on another kind's
   * objects and stores nothing of its own (a Binding sets a pod's node: upstream's
   * `LegacyBindingREST`); answers the HTTP code and body.
   */
  create?(req: CreateRequest): Promise<{ code: number; body: unknown }>;
  /**
   * Serve GET and LIST in place of the generic store, for a kind whose objects are computed on each
   * request and never stored (ComponentStatus: pkg/registry/core/componentstatus/rest.go implements
   * only Get and List). @throws StatusError (404 for an unknown name, 400 for a bad selector)
   */
  get?(namespace: string | undefined, name: string, query: Record<string, string>): Promise<KubeObject>;
  list?(namespace: string | undefined, query: Record<string, string>): Promise<KubeList>;
  /** Handlers of the kind's subresources beyond `status` and `scale`, by subresource and verb. */
  subresources?: Record<string, Partial<Record<SubresourceVerb, SubresourceHandler>>>;
  /** Creates, when missing, the objects of this kind every cluster has; runs once at start-up, in discovery order. */
  bootstrap?(): Promise<void>;
  /**
   * Runs after a resource was added or removed at run time (ApiServer.addResource/removeResource):
   * objects that follow what is served (the APIService of each group/version) are brought in line.
   * Must not reject (failures are the hook's to retry).
   */
  resourcesChanged?(): Promise<void>;
  /**
   * Resolves once the work this extension does on its own in reaction to changes it has seen is done
   * (the CRD lifecycle's syncs: conditions, serving, cleanup); retries it scheduled for later do not
   * count. For {@link ApiServer.settled}. Must not reject.
   */
  settled?(): Promise<void>;
}
