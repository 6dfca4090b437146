/**
 * What makes one resource different from another, as data and pure functions: identity for discovery,
 * defaulting, validation, create/update preparation, status and scale subresources, field selectors and
 * the Table printer. The generic store (`registry/generic/store.ts`) runs the same request path for
 * every resource and calls into a {@link ResourceStrategy} at fixed points, as upstream's
 * `genericregistry.Store` calls `RESTCreateStrategy` / `RESTUpdateStrategy`
 * (k8s.io/apiserver/pkg/registry/rest/{create,update,delete}.go).
 *
 * All functions receive private, mutable copies (the store copies before calling) and must not do I/O.
 * Time, when needed, comes in as `now` (ms since the epoch).
 */
import type { FieldError } from '../../machinery/errors/index.js';
import type { KubeObject } from '../../api/index.js';
import type { RequestUser } from '../../api/request.js';
import type { Authorizer, RuleResolver } from '../authz/types.js';
import type { TypeRef } from '../../machinery/merge/index.js';
import type { KindDescriptor } from '../../api/catalogue/index.js';
import type { TokenAuthenticator } from '../authn/index.js';
import type { StorageContext, StorageExtension } from './extension.js';

/** How a resource appears in discovery (apidiscovery v2 and legacy APIResourceList). */
export interface ResourceInfo {
  group: string;
  version: string;
  /** Plural, e.g. `deployments`. */
  resource: string;
  /** Singular, e.g. `deployment`. */
  singular: string;
  kind: string;
  /** List kind, e.g. `DeploymentList`. */
  listKind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  /** Verbs on the main resource, e.g. create delete deletecollection get list patch update watch. */
  verbs: string[];
  /** Subresources served (status, scale, binding, finalize …), each with its response kind and verbs. */
  subresources: SubresourceInfo[];
}

/**
 * The ResourceInfo of a catalogue row served in `version` (default: the preferred one): the row's
 * identity, with `self` subresources in that version. The one way strategies get their identity.
 */
export function resourceInfo(row: KindDescriptor, version = row.version): ResourceInfo {
  return {
    group: row.group,
    version,
    resource: row.resource,
    singular: row.singular,
    kind: row.kind,
    listKind: row.listKind,
    namespaced: row.namespaced,
    shortNames: [...row.shortNames],
    categories: [...row.categories],
    verbs: [...row.verbs],
    subresources: row.subresources.map((sub) => ({
      name: sub.name,
      ...(sub.kind === 'self' ? { group: row.group, version, kind: row.kind } : sub.kind),
      verbs: [...sub.verbs],
    })),
  };
}

/** A served subresource. */
export interface SubresourceInfo {
  name: string;
  /** Group/version/kind of the response body (Scale is autoscaling/v1). */
  group: string;
  version: string;
  kind: string;
  verbs: string[];
}

/** `meta.k8s.io/v1 TableColumnDefinition`. */
export interface TableColumnDefinition {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format: string;
  description: string;
  /** 0: always shown; 1: only with `-o wide`. */
  priority: number;
}

/** One Table row's cells and row conditions (pods in Succeeded/Failed carry `Completed`). */
export interface TableRowData {
  cells: unknown[];
  conditions?: { type: string; status: string; reason?: string; message?: string }[];
}

/** The server-side printer of one kind (pkg/printers/internalversion/printers.go). */
export interface TablePrinter<T = KubeObject> {
  columns: TableColumnDefinition[];
  /** Cells in column order; `now` (ms) is used for ages such as `5m`. */
  row(obj: T, now: number): TableRowData;
  /**
   * Present when upstream's list printer orders the rows itself rather than keeping the list's (key)
   * order: printFlowSchemaList sorts by matchingPrecedence, then name. A comparator as for `sort`.
   */
  listOrder?: (a: T, b: T) => number;
}

/** Scale subresource mapping (autoscaling/v1 Scale ↔ the object). */
export interface ScaleStrategy<T = KubeObject> {
  /** The field `specReplicas` reads, as keys (`['spec', 'replicas']` when absent), for managedFields of `…/scale` writes. */
  specReplicasPath?: readonly string[];
  /** `spec.replicas` (defaulted). */
  specReplicas(obj: T): number;
  /** Sets `spec.replicas`. */
  setSpecReplicas(obj: T, replicas: number): void;
  /** `status.replicas`. */
  statusReplicas(obj: T): number;
  /** `status.selector` of the Scale: the object's label selector as a string, e.g. `app=web`. */
  selector(obj: T): string;
}

/**
 * Conversion between a served version and the stored one (upstream converts through the internal
 * version; here the stored version is the hub). Both functions get a private copy they may change
 * and return, must accept any object the other version's schema decodes (fields may be missing), and
 * need not set apiVersion and kind: the store sets them. Fields a version does not have are kept in
 * annotations where upstream keeps them there (autoscaling/v1 HPA), or dropped where upstream drops them.
 */
export interface VersionConversion {
  toStorage(obj: KubeObject): KubeObject;
  fromStorage(obj: KubeObject): KubeObject;
}

/**
 * Present on a strategy that is a view: another served version of a stored resource (`storage`),
 * or another resource stored as it (events.k8s.io/v1 Events in core Events). See {@link versionView}.
 */
export interface ViewOf {
  /** The group/resource whose store holds the objects; it must be served before the view. */
  storage: { group: string; resource: string };
  conversion: VersionConversion;
}

/** Per-resource behaviour. `T` is the object type. */
export interface ResourceStrategy<T extends KubeObject = KubeObject> {
  info: ResourceInfo;
  /** True for kinds with a status subresource (status is reset on create and kept on update of the main resource). */
  hasStatus: boolean;
  /**
   * Applies upstream's defaults (pkg/apis/<group>/<version>/defaults.go and zz_generated defaults) in
   * place, e.g. Deployment replicas 1, strategy RollingUpdate 25%/25%, revisionHistoryLimit 10,
   * progressDeadlineSeconds 600; container terminationMessagePath, imagePullPolicy …
   */
  defaults(obj: T): void;
  /**
   * Before create: clear or set what the client may not set (status to its initial value,
   * generation = 1 for kinds with spec/status) (RESTCreateStrategy.PrepareForCreate).
   */
  prepareForCreate(obj: T, now: number): void;
  /**
   * Before an update of the main resource: copy status from `old`, bump `metadata.generation` when
   * spec changed (Deployment: spec or annotations) (RESTUpdateStrategy.PrepareForUpdate). `now` (ms;
   * the store always passes it) is for the few kinds whose update sets a condition's transition time.
   */
  prepareForUpdate(obj: T, old: T, now?: number): void;
  /**
   * Before an update of the status subresource: keep everything but status from `old` (the default
   * when absent). `now` (ms, always given by the store) is for timestamps the server fills in
   * (CSR condition times, a PersistentVolume's phase transition time).
   */
  prepareForStatusUpdate?(obj: T, old: T, now?: number): void;
  /** Validation of a new object (pkg/apis/<group>/validation); metadata is validated by the store. */
  validate(obj: T): FieldError[];
  /**
   * The kind's `ValidateNameFunc` for `metadata.name` and `generateName` (upstream passes one to
   * ValidateObjectMeta per kind), given the object being validated: absent means
   * `NameIsDNSSubdomain`; RBAC kinds use `path.IsValidPathSegmentName`, so `system:aggregate-to-edit`
   * is a valid ClusterRole name; an APIService's name must be `<spec.version>.<spec.group>`. A
   * generateName is passed with its trailing dash masked.
   */
  nameValidator?(name: string, obj: T): string[];
  /**
   * Warnings for a valid new object, sent as `Warning` headers (kubectl prints `Warning: …`):
   * upstream's `WarningsOnCreate` (k8s.io/apiserver pkg/registry/rest/create.go), e.g. an Ingress
   * still using the `kubernetes.io/ingress.class` annotation.
   */
  warningsOnCreate?(obj: T): string[];
  /** Warnings for a valid update of the main resource: upstream's `WarningsOnUpdate` (rest/update.go). */
  warningsOnUpdate?(obj: T, old: T): string[];
  /** Validation of an update (immutable fields such as a Deployment's selector). */
  validateUpdate(obj: T, old: T): FieldError[];
  /** Validation of a status update. */
  validateStatusUpdate?(obj: T, old: T): FieldError[];
  /** Whether PUT may create a missing object (true for none of the kinds served so far but leases, nodes, events). */
  allowCreateOnUpdate: boolean;
  /** Whether an update without `metadata.resourceVersion` is accepted (unconditional update). */
  allowUnconditionalUpdate: boolean;
  /** Default DeleteOptions.propagationPolicy (DefaultGarbageCollectionPolicy): `Background` for most kinds. */
  defaultGarbageCollectionPolicy: 'Background' | 'Orphan' | 'Foreground';
  /**
   * Field selectors this kind supports beyond metadata.name/metadata.namespace (which every kind
   * supports): field path → value as a string (e.g. pods: spec.nodeName, status.phase).
   */
  fieldSelectors: Record<string, (obj: T) => string>;
  /** The Table printer. */
  table: TablePrinter<T>;
  /** Present when the kind has a scale subresource. */
  scale?: ScaleStrategy<T>;
  /**
   * Present for kinds deleted gracefully (upstream `RESTGracefulDeleteStrategy.CheckGracefulDelete`):
   * the grace period in seconds a first DELETE gives `obj`, from the requested one (`requested`,
   * already clamped to ≥ 1 when negative, undefined when the request gave none); 0 deletes at once.
   * Pods: the request's, else spec.terminationGracePeriodSeconds; 0 when unbound or finished.
   */
  checkGracefulDelete?(obj: T, requested: number | undefined): number;
  /** DELETE answers with the object rather than a Success Status (upstream `ReturnDeletedObject`: pods, namespaces). */
  returnDeletedObject?: boolean;
  /**
   * The kind's own REST storage around the generic store (upstream's per-kind `storage.go`: a
   * namespace's lifecycle, a pod's binding and eviction, a service's IP allocator), built once per
   * server for the store that serves the kind. See {@link StorageExtension}.
   */
  storage?(ctx: StorageContext): StorageExtension;
  /** Present when this strategy serves another version of a stored resource (see {@link ViewOf}). */
  view?: ViewOf;
  /**
   * Present on a deprecated kind version (upstream's `+k8s:prerelease-lifecycle-gen:deprecated` tags):
   * every request to it answers with the Warning {@link deprecationWarning} words.
   */
  deprecated?: ApiLifecycle;
  /**
   * Present for create-only review kinds (TokenReview, SubjectAccessReview, SelfSubjectRulesReview …):
   * the response to a create, computed from the decoded, defaulted and validated request; it may
   * throw a StatusError as upstream's REST Create does (400 for a TokenReview without a token).
   * Nothing is stored, and every other verb answers 405 (upstream's review REST storage implements
   * only Create).
   */
  review?(obj: T, ctx: ReviewContext): T | Promise<T>;
  /**
   * Present for kinds without a Go type, whose schema is data (custom resources): drops from `obj` (a
   * decoded body or patch result in `version`, one of the resource's served versions) the fields that
   * version's schema does not know, in place, and returns their paths (`spec.foo`), sorted, for
   * `fieldValidation` Warn/Strict. Without it the kind's generated schema decides.
   */
  pruneUnknownFields?(obj: KubeObject, version: string): string[];
  /**
   * The patch media types the kind accepts, in the order the 415 lists them, when not every supported
   * one: custom resources refuse strategic merge patches (upstream's CRD handler offers JSON, merge and
   * apply patches).
   */
  patchTypes?: readonly string[];
  /**
   * Present for kinds without a generated type (custom resources): the structured-merge type of this
   * version's objects, for managedFields and server-side apply, resolving named types in the built-in
   * schema. Without it the kind's generated type (`rootTypeName`) is used.
   */
  mergeType?: TypeRef;
  /**
   * Present for kinds without a generated type (custom resources): the object's OpenAPI v3 schema (a
   * CRD version's openAPIV3Schema), which /openapi/v3 and /openapi/v2 publish under the kind's
   * REST-friendly name with apiVersion, kind and metadata added. Not changed once the strategy is built.
   */
  openApiSchema?: Readonly<Record<string, unknown>>;
  /**
   * Present for kinds whose objects get defaults when read from storage, not only when written (custom
   * resources: a default added to the CRD schema shows on objects stored before, as upstream's
   * storage decoder applies `structuraldefaulting.Default`): completes, in place, each object the watch
   * cache decodes. Reads that bypass the cache (paginated lists at an exact revision) are as stored.
   */
  defaultOnRead?(obj: KubeObject): void;
}

/** What a review is answered with besides the request. */
export interface ReviewContext {
  /** The server's token authenticator (TokenReview). */
  authenticator: TokenAuthenticator;
  /** The server's authorizer (the access reviews) and rule resolver (SelfSubjectRulesReview). */
  authorizer: Authorizer & RuleResolver;
  /** Who sent the review (self reviews); undefined in process, where the caller is the cluster admin. */
  user?: RequestUser;
}

/** When a kind version was deprecated, and when it goes away and for what (k8s.io/api's generated lifecycle.go). */
export interface ApiLifecycle {
  /** `APILifecycleDeprecated`, e.g. `1.19`. */
  deprecatedIn: string;
  /** `APILifecycleRemoved`, e.g. `1.25`. */
  removedIn?: string;
  /** `APILifecycleReplacement`: the group/version and kind to use instead. */
  replacement?: { apiVersion: string; kind: string };
  /** The whole warning text, when the kind words its own (a CRD version's `deprecationWarning`). */
  warning?: string;
}

/**
 * The Warning every request to a deprecated kind version answers with, as upstream's installer adds
 * it to each route of the kind (apiserver/pkg/endpoints/deprecation `WarningMessage`):
 * `v1 ComponentStatus is deprecated in v1.19+`, then `, unavailable in v1.25+` and
 * `; use policy/v1 PodDisruptionBudget` when known. Undefined when the version is not deprecated.
 */
export function deprecationWarning(strategy: ResourceStrategy): string | undefined {
  const lifecycle = strategy.deprecated;
  if (!lifecycle) return undefined;
  if (lifecycle.warning !== undefined) return lifecycle.warning;
  const { group, version, kind } = strategy.info;
  let text = `${group ? `${group}/${version}` : version} ${kind} is deprecated in v${lifecycle.deprecatedIn}+`;
  if (lifecycle.removedIn) text += `, unavailable in v${lifecycle.removedIn}+`;
  if (lifecycle.replacement) text += `; use ${lifecycle.replacement.apiVersion} ${lifecycle.replacement.kind}`;
  return text;
}

/**
 * A strategy serving `info` (another version of `base`'s resource, or a resource stored as it) as a
 * view of `base`'s objects: the store of `base` does all the work in the stored version; requests in
 * `info`'s version are converted with `conversion`. The table printer is `base`'s, run on the object
 * converted to the stored version; field selectors and scale are `base`'s too, evaluated by the store
 * on stored objects (so a view selects by the stored version's field paths).
 */
export function versionView(base: ResourceStrategy, info: ResourceInfo, conversion: VersionConversion): ResourceStrategy {
  const stored = (obj: KubeObject): KubeObject => conversion.toStorage(structuredClone(obj));
  const order = base.table.listOrder;
  const strategy: ResourceStrategy = {
    ...base,
    info,
    view: { storage: { group: base.info.group, resource: base.info.resource }, conversion },
    table: {
      columns: base.table.columns,
      row: (obj, now) => base.table.row(stored(obj), now),
      ...(order ? { listOrder: (a: KubeObject, b: KubeObject) => order(stored(a), stored(b)) } : {}),
    },
  };
  // A version has its own lifecycle: the stored version's deprecation is not the view's.
  delete strategy.deprecated;
  return strategy;
}
