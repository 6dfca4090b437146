/**
 * The shape of a catalogue row: everything about a kind that is identity rather than behaviour — its
 * group, served versions and storage version, names (plural, singular, kind, list kind, short names,
 * categories), scope, verbs and subresources — as upstream declares it for each resource
 * (pkg/registry/<group>/<resource>/storage and the discovery documents `kubectl api-resources` shows).
 *
 * Everything else derives from a row: the client's requests and typed accessors, the informer
 * accessors, discovery, OpenAPI, the schema root (`api/schema` rootTypeName of group/version/kind) and
 * the protobuf message (`api/proto` messageForKind). Behaviour (defaults, validation, printer,
 * subresource handlers) is the kind's strategy in apiserver/registry/resources.
 */

/** A subresource: its name, the kind of its body (`self`: the resource's own kind and version) and verbs. */
export interface SubresourceDescriptor {
  readonly name: string;
  /** The body's kind: `self`, or a fixed group/version/kind such as autoscaling/v1 Scale. */
  readonly kind: 'self' | { readonly group: string; readonly version: string; readonly kind: string };
  readonly verbs: readonly string[];
}

/** A group, version and resource plural, e.g. `{group: 'apps', version: 'v1', resource: 'deployments'}` (schema.GroupVersionResource). */
export interface GroupVersionResource {
  /** API group, `''` for core. */
  readonly group: string;
  readonly version: string;
  /** Plural, lower case. */
  readonly resource: string;
}

/** A {@link GroupVersionResource} with its kind and scope: everything a client needs to build requests. */
export interface ResourceDescriptor extends GroupVersionResource {
  readonly kind: string;
  readonly namespaced: boolean;
}

/**
 * One kind, served in one or more versions. `T` is the object type of the preferred version (a phantom:
 * it types the clients and informers derived from the row). `G`/`M` are the typed clientset's group
 * accessor and method (`client.apps.replicaSets()`), spelled out in the row so that TypeScript can derive
 * the clientset's type from the catalogue.
 */
export interface KindDescriptor<T = unknown, G extends string = string, M extends string = string> extends ResourceDescriptor {
  readonly singular: string;
  readonly listKind: string;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  /** Verbs on the resource itself. */
  readonly verbs: readonly string[];
  /** Served versions, preferred first (discovery lists them in this order). */
  readonly versions: readonly string[];
  /** The preferred version, `versions[0]`: the one clients address. */
  readonly version: string;
  /** The version objects are stored in; every other served version is converted to and from it. */
  readonly storageVersion: string;
  readonly subresources: readonly SubresourceDescriptor[];
  /**
   * The resource whose key space and storage version this one shares, when it is a view of another
   * (upstream stores events.k8s.io Events as core Events, in `/registry/events`).
   */
  readonly storedAs?: { readonly group: string; readonly resource: string };
  /** The typed clientset and informer accessor: `[group accessor, method]`, e.g. `['apps', 'replicaSets']`. */
  readonly client: readonly [G, M];
  /** Phantom field carrying the object type; never set. */
  readonly __object?: T;
}

/** The object type of a descriptor. */
export type ObjectOf<D> = D extends KindDescriptor<infer T> ? T : never;

/** The verbs of a resource served with every generic verb (pods, deployments, events …). */
export const STANDARD_VERBS: readonly string[] = Object.freeze(['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch']);

/** What a row spells out; the rest has upstream's defaults (see {@link kind}). */
export interface KindRow<G extends string, M extends string> {
  group: string;
  kind: string;
  resource: string;
  namespaced: boolean;
  versions: readonly string[];
  /** Default: the preferred (first) version. */
  storageVersion?: string;
  /** Default: the lower-cased kind. */
  singular?: string;
  /** Default: `<Kind>List`. */
  listKind?: string;
  shortNames?: readonly string[];
  categories?: readonly string[];
  /** Default: {@link STANDARD_VERBS}. */
  verbs?: readonly string[];
  subresources?: readonly SubresourceDescriptor[];
  storedAs?: { group: string; resource: string };
  client: readonly [G, M];
}

/**
 * Defines a row: `kind<Deployment>()({group: 'apps', kind: 'Deployment', …, client: ['apps', 'deployments']})`.
 * Curried so that the object type is given while the accessor names are inferred as literals. The row
 * is frozen.
 * @throws Error when the storage version is not served
 */
export function kind<T>() {
  return <const G extends string, const M extends string>(row: KindRow<G, M>): KindDescriptor<T, G, M> => {
    const version = row.versions[0];
    if (version === undefined) throw new Error(`${row.kind}: no served version`);
    const storageVersion = row.storageVersion ?? version;
    if (!row.versions.includes(storageVersion)) throw new Error(`${row.kind}: storage version ${storageVersion} is not served`);
    return Object.freeze({
      group: row.group,
      kind: row.kind,
      resource: row.resource,
      namespaced: row.namespaced,
      singular: row.singular ?? row.kind.toLowerCase(),
      listKind: row.listKind ?? `${row.kind}List`,
      shortNames: Object.freeze([...(row.shortNames ?? [])]),
      categories: Object.freeze([...(row.categories ?? [])]),
      verbs: row.verbs ?? STANDARD_VERBS,
      versions: Object.freeze([...row.versions]),
      version,
      storageVersion,
      subresources: Object.freeze([...(row.subresources ?? [])]),
      ...(row.storedAs ? { storedAs: Object.freeze({ ...row.storedAs }) } : {}),
      client: row.client,
    });
  };
}

/** The `status` subresource (get, patch, update), in the resource's own kind. */
export const STATUS: SubresourceDescriptor = Object.freeze({ name: 'status', kind: 'self', verbs: Object.freeze(['get', 'patch', 'update']) });

/** The `approval` subresource of CertificateSigningRequests (get, patch, update), in the resource's own kind. */
export const APPROVAL: SubresourceDescriptor = Object.freeze({ name: 'approval', kind: 'self', verbs: Object.freeze(['get', 'patch', 'update']) });

/** The `scale` subresource: an autoscaling/v1 Scale (get, patch, update). */
export const SCALE: SubresourceDescriptor = Object.freeze({
  name: 'scale',
  kind: Object.freeze({ group: 'autoscaling', version: 'v1', kind: 'Scale' }),
  verbs: Object.freeze(['get', 'patch', 'update']),
});

/** `apps/v1` for apps, `v1` for core (schema.GroupVersion.String). */
export function groupVersionString(gv: { group: string; version: string }): string {
  return gv.group ? `${gv.group}/${gv.version}` : gv.version;
}

/** Splits an apiVersion: `apps/v1` → `{group: 'apps', version: 'v1'}`, `v1` → `{group: '', version: 'v1'}`. */
export function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}
