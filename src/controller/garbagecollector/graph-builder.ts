/**
 * GraphBuilder: keeps the dependency graph in step with informer events on every monitored resource
 * and decides which nodes the collector must look at (the attemptToDelete and attemptToOrphan queues).
 *
 * Follows upstream pkg/controller/garbagecollector/graph_builder.go `processGraphChanges`:
 * - add/update of an object: insert its node, or (if already known) update its owner edges; an owner
 *   uid not in the graph gets a **virtual** node, queued so a worker verifies it with a live GET. A
 *   removed or unblocked `blockOwnerDeletion` reference re-queues the owner
 *   (`addUnblockedOwnersToDeleteQueue`); the transitions into deletion with `orphan` or
 *   `foregroundDeletion` queue the node for orphaning, or it and its dependents for deletion
 *   (`processTransitions`).
 * - a reference to an observed namespaced owner in another namespace (or from a cluster-scoped
 *   dependent) is invalid: a Warning event `OwnerRefInvalidNamespace` is reported on the dependent and
 *   the dependent is queued; the worker finds that owner absent where the reference points
 *   (`addDependentToOwners`, `reportInvalidNamespaceOwnerRef`).
 * - delete of an object: remove its node, remember its uid in the absent-owner cache, queue every
 *   dependent (it may now have no owner left) and every owner waiting for its dependents.
 * - a "virtual delete" (a worker found the object of a node absent): the same.
 * Events are applied synchronously in the informer callbacks, which run in event order — the same
 * serialization upstream gets from its single graphChanges worker.
 */
import type { KubeObject, OwnerReference } from '../../api/index.js';
import { parseGroupVersion, type ResourceDescriptor } from '../../client/index.js';
import { GraphNode, type ObjectIdentity } from './graph.js';

/** Finalizers the API server adds for non-background deletes (upstream metav1.FinalizerOrphanDependents/DeleteDependents). */
export const FINALIZER_ORPHAN = 'orphan';
export const FINALIZER_DELETE_DEPENDENTS = 'foregroundDeletion';

/** A small LRU set of uids known to be absent (upstream `absentOwnerCache`, 500 entries). */
export class UIDCache {
  private readonly items = new Set<string>();
  constructor(private readonly capacity = 500) {}

  has(key: string): boolean {
    if (!this.items.has(key)) return false;
    this.items.delete(key);
    this.items.add(key);
    return true;
  }

  add(key: string): void {
    this.items.delete(key);
    this.items.add(key);
    if (this.items.size > this.capacity) this.items.delete(this.items.values().next().value as string);
  }
}

/** Absent-owner cache key: the owner's uid in the namespace it was looked up in (`''`: cluster scope). */
export function absentKey(namespace: string, uid: string): string {
  return `${namespace}/${uid}`;
}

/** What the graph asks of the collector around it. */
export interface GraphCallbacks {
  /** Queue a node for `attemptToDeleteItem`. */
  attemptToDelete(n: GraphNode): void;
  /** Queue an owner being deleted with the `orphan` finalizer for orphaning its dependents. */
  attemptToOrphan(n: GraphNode): void;
  /** A dependent references an owner observed in another namespace (upstream `reportInvalidNamespaceOwnerRef`). */
  reportInvalidNamespaceOwnerRef(dependent: GraphNode, ref: OwnerReference): void;
}

const hasFinalizer = (obj: KubeObject | undefined, f: string): boolean => obj?.metadata?.finalizers?.includes(f) ?? false;
const beingDeleted = (obj: KubeObject | undefined): boolean => !!obj?.metadata?.deletionTimestamp;

/**
 * upstream `deletionStartsWithFinalizer`: `obj` is being deleted with finalizer `f`, and `old` (the
 * previous version; undefined for adds) was not.
 */
function deletionStartsWithFinalizer(old: KubeObject | undefined, obj: KubeObject, f: string): boolean {
  if (!beingDeleted(obj) || !hasFinalizer(obj, f)) return false;
  return old === undefined || !beingDeleted(old) || !hasFinalizer(old, f);
}

export class GraphBuilder {
  readonly uidToNode = new Map<string, GraphNode>();
  readonly absentOwnerCache = new UIDCache();
  /** `group/Kind` → descriptor, for turning an ownerReference into something we can GET. */
  private readonly byGroupKind = new Map<string, ResourceDescriptor>();

  constructor(private readonly cb: GraphCallbacks) {}

  /** Maps ownerReferences of `resource`'s group and kind to it from now on (a monitor was added). */
  addResource(resource: ResourceDescriptor): void {
    this.byGroupKind.set(`${resource.group}/${resource.kind}`, resource);
  }

  /** The configured resource for an ownerReference's apiVersion and kind (any version of the group). */
  resourceFor(ref: { apiVersion: string; kind: string }): ResourceDescriptor | undefined {
    return this.byGroupKind.get(`${parseGroupVersion(ref.apiVersion).group}/${ref.kind}`);
  }

  /**
   * The identity an owner reference names, seen from a dependent in `dependentNamespace`: namespaced
   * owners live in the dependent's namespace, cluster-scoped ones in none. Undefined for kinds the GC
   * does not monitor.
   */
  ownerIdentity(ref: OwnerReference, dependentNamespace: string): ObjectIdentity | undefined {
    const resource = this.resourceFor(ref);
    if (!resource) return undefined;
    return { resource, namespace: resource.namespaced ? dependentNamespace : '', name: ref.name, uid: ref.uid };
  }

  /** An informer add (`old` undefined) or update. */
  observe(resource: ResourceDescriptor, obj: KubeObject, old?: KubeObject): void {
    const meta = obj.metadata ?? {};
    const uid = meta.uid ?? '';
    const identity: ObjectIdentity = { resource, namespace: meta.namespace ?? '', name: meta.name ?? '', uid };
    const owners = meta.ownerReferences ?? [];
    let node = this.uidToNode.get(uid);
    if (!node) {
      node = new GraphNode(identity, owners, false);
      this.uidToNode.set(uid, node);
      this.addDependentToOwners(node, owners);
    } else {
      if (node.virtual) this.markObserved(node, identity);
      node.identity = identity;
      const { added, removed, changed } = referencesDiff(node.owners, owners);
      if (added.length + removed.length + changed.length > 0) {
        this.addUnblockedOwnersToDeleteQueue(removed, changed);
        node.owners = owners;
        this.addDependentToOwners(node, added);
        this.removeDependentFromOwners(node, removed);
      }
    }
    if (meta.deletionTimestamp) {
      node.beingDeleted = true;
      if (meta.finalizers?.includes(FINALIZER_DELETE_DEPENDENTS)) node.deletingDependents = true;
    }
    this.processTransitions(old, obj, node);
  }

  /** An informer delete (the object is gone). */
  observeDelete(obj: KubeObject): void {
    const uid = obj.metadata?.uid ?? '';
    const node = this.uidToNode.get(uid);
    if (node) this.removeAndRequeue(node);
  }

  /**
   * A worker found a node's object absent (404 or another uid under that name): handled as its delete
   * event (upstream's virtual delete event; the informer's own delete event then finds nothing).
   */
  virtualDelete(node: GraphNode): void {
    if (this.uidToNode.get(node.identity.uid) === node) this.removeAndRequeue(node);
  }

  /**
   * A virtual node is observed for real. Dependents that named it with other coordinates (another
   * namespace or kind) must be re-verified against the real object; a namespaced owner named from
   * another namespace is reported.
   */
  private markObserved(node: GraphNode, observed: ObjectIdentity): void {
    node.virtual = false;
    for (const d of node.dependents) {
      const ref = d.owners.find((o) => o.uid === observed.uid);
      if (ref && sameCoordinates(observed, this.ownerIdentity(ref, d.identity.namespace))) continue;
      if (ref && observed.namespace !== '' && d.identity.namespace !== observed.namespace) this.cb.reportInvalidNamespaceOwnerRef(d, ref);
      this.cb.attemptToDelete(d);
    }
  }

  private processTransitions(old: KubeObject | undefined, obj: KubeObject, node: GraphNode): void {
    if (deletionStartsWithFinalizer(old, obj, FINALIZER_ORPHAN)) {
      this.cb.attemptToOrphan(node);
      return;
    }
    if (deletionStartsWithFinalizer(old, obj, FINALIZER_DELETE_DEPENDENTS)) {
      node.deletingDependents = true;
      for (const d of node.dependents) this.cb.attemptToDelete(d);
      this.cb.attemptToDelete(node);
    }
  }

  private removeAndRequeue(node: GraphNode): void {
    this.uidToNode.delete(node.identity.uid);
    this.removeDependentFromOwners(node, node.owners);
    this.absentOwnerCache.add(absentKey(node.identity.namespace, node.identity.uid));
    for (const d of node.dependents) this.cb.attemptToDelete(d);
    // An owner deleting its dependents may have been waiting for this one.
    for (const ref of node.owners) {
      const owner = this.uidToNode.get(ref.uid);
      if (owner?.deletingDependents) this.cb.attemptToDelete(owner);
    }
  }

  /** A blocking reference removed, or changed to non-blocking, may release an owner waiting in the foreground. */
  private addUnblockedOwnersToDeleteQueue(removed: readonly OwnerReference[], changed: readonly { old: OwnerReference; cur: OwnerReference }[]): void {
    for (const ref of removed) {
      const owner = ref.blockOwnerDeletion === true ? this.uidToNode.get(ref.uid) : undefined;
      if (owner) this.cb.attemptToDelete(owner);
    }
    for (const { old, cur } of changed) {
      const owner = old.blockOwnerDeletion === true && cur.blockOwnerDeletion !== true ? this.uidToNode.get(cur.uid) : undefined;
      if (owner) this.cb.attemptToDelete(owner);
    }
  }

  private addDependentToOwners(node: GraphNode, owners: readonly OwnerReference[]): void {
    let potentiallyInvalid = false;
    for (const ref of owners) {
      let owner = this.uidToNode.get(ref.uid);
      if (!owner) {
        const identity = this.ownerIdentity(ref, node.identity.namespace);
        // An owner of a kind we do not monitor cannot be verified: the dependent is left alone.
        if (!identity) continue;
        owner = new GraphNode(identity, [], true);
        this.uidToNode.set(ref.uid, owner);
        owner.dependents.add(node);
        this.cb.attemptToDelete(owner);
        continue;
      }
      owner.dependents.add(node);
      if (potentiallyInvalid) continue;
      // An observed namespaced owner in another namespace is definitely wrong (a cluster-scoped owner
      // may be named from anywhere); other coordinate mismatches are verified by a worker.
      const ownerNamespaced = owner.identity.namespace !== '';
      if (ownerNamespaced && owner.identity.namespace !== node.identity.namespace) {
        if (!owner.virtual) this.cb.reportInvalidNamespaceOwnerRef(node, ref);
        potentiallyInvalid = true;
      } else if (!owner.virtual && !sameCoordinates(owner.identity, this.ownerIdentity(ref, node.identity.namespace))) {
        potentiallyInvalid = true;
      }
    }
    if (potentiallyInvalid) this.cb.attemptToDelete(node);
  }

  private removeDependentFromOwners(node: GraphNode, owners: readonly OwnerReference[]): void {
    for (const ref of owners) this.uidToNode.get(ref.uid)?.dependents.delete(node);
  }
}

/** Same resource and namespace (uid and name are compared elsewhere). */
export function sameCoordinates(a: ObjectIdentity, b: ObjectIdentity | undefined): boolean {
  return b !== undefined && a.resource === b.resource && a.namespace === b.namespace;
}

/** Owner references added, removed and changed between two versions (matched by uid). */
function referencesDiff(
  oldRefs: readonly OwnerReference[],
  newRefs: readonly OwnerReference[],
): { added: OwnerReference[]; removed: OwnerReference[]; changed: { old: OwnerReference; cur: OwnerReference }[] } {
  const oldByUID = new Map(oldRefs.map((r) => [r.uid, r]));
  const added: OwnerReference[] = [];
  const changed: { old: OwnerReference; cur: OwnerReference }[] = [];
  for (const cur of newRefs) {
    const old = oldByUID.get(cur.uid);
    if (!old) added.push(cur);
    else {
      oldByUID.delete(cur.uid);
      if (!sameReference(old, cur)) changed.push({ old, cur });
    }
  }
  return { added, removed: [...oldByUID.values()], changed };
}

function sameReference(a: OwnerReference, b: OwnerReference): boolean {
  return (
    a.apiVersion === b.apiVersion &&
    a.kind === b.kind &&
    a.name === b.name &&
    a.controller === b.controller &&
    a.blockOwnerDeletion === b.blockOwnerDeletion
  );
}
