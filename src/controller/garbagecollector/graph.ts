/**
 * The dependency graph of the garbage collector: one node per object uid (observed through an
 * informer, or "virtual" — only known because some object names it as an owner), with edges from
 * owners to dependents.
 *
 * Follows upstream pkg/controller/garbagecollector/graph.go (`node`, `objectReference`,
 * `beingDeleted`, `deletingDependents`, `virtual`, `blockingDependents`).
 */
import type { OwnerReference } from '../../api/index.js';
import type { ResourceDescriptor } from '../../client/index.js';

/** Where an object lives and who it is. */
export interface ObjectIdentity {
  /** The resource (from the GC's configured list) the object belongs to. */
  resource: ResourceDescriptor;
  /** `''` for cluster-scoped objects. */
  namespace: string;
  name: string;
  uid: string;
}

/** `apps/ReplicaSet ns/name (uid)`, for logs and errors. */
export function identityString(id: ObjectIdentity): string {
  const gk = id.resource.group ? `${id.resource.group}/${id.resource.kind}` : id.resource.kind;
  return `${gk} ${id.namespace ? `${id.namespace}/` : ''}${id.name} (${id.uid})`;
}

/**
 * upstream `objectReference.String()`: `[apps/v1/ReplicaSet, namespace: default, name: web, uid: 1234]`,
 * as it appears in the `OwnerRefInvalidNamespace` event message.
 */
export function objectReferenceString(ref: { apiVersion: string; kind: string; name: string; uid: string }, namespace: string): string {
  return `[${ref.apiVersion}/${ref.kind}, namespace: ${namespace}, name: ${ref.name}, uid: ${ref.uid}]`;
}

export class GraphNode {
  /** Objects whose ownerReferences name this node's uid. */
  readonly dependents = new Set<GraphNode>();
  /** Being deleted (deletionTimestamp set). Set once, never cleared: deletion is a one-way trip. */
  beingDeleted = false;
  /** Being deleted with the `foregroundDeletion` finalizer: dependents go first. */
  deletingDependents = false;

  constructor(
    public identity: ObjectIdentity,
    /** The object's ownerReferences as last observed (empty for virtual nodes). */
    public owners: readonly OwnerReference[],
    /** True while only known from someone's ownerReference, not (yet) from an informer. */
    public virtual: boolean,
  ) {}

  /**
   * Dependents whose reference to this node has `blockOwnerDeletion: true`: the ones a foreground
   * deletion of this node waits for (upstream `blockingDependents`).
   */
  blockingDependents(): GraphNode[] {
    const uid = this.identity.uid;
    return [...this.dependents].filter((d) => d.owners.some((o) => o.uid === uid && o.blockOwnerDeletion === true));
  }
}
