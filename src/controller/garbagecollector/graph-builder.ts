/**
 * GraphBuilder: keeps the dependency graph in step with informer events on every monitored resource
 * and decides which nodes the collector must look at (the attemptToDelete queue).
 *
 * Follows upstream pkg/controller/garbagecollector/graph_builder.go `processGraphChanges`:
 * - add/update of an object: insert its node, or (if already known) update its owner edges; an owner
 *   uid not in the graph gets a **virtual** node, queued so a worker verifies it with a live GET.
 * - delete of an object: remove its node, remember its uid in the absent-owner cache, and queue every
 *   dependent (it may now have no owner left).
 * - a "virtual delete" (a worker found a virtual owner absent): the same, if the node is still virtual.
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

/** Absent-owner cache key: the owner's uid in the namespace it was looked up in. */
export function absentKey(namespace: string, uid: string): string {
  return `${namespace}/${uid}`;
}

export class GraphBuilder {
  readonly uidToNode = new Map<string, GraphNode>();
  readonly absentOwnerCache = new UIDCache();
  /** `group/Kind` → descriptor, for turning an ownerReference into something we can GET. */
  private readonly byGroupKind = new Map<string, ResourceDescriptor>();

  constructor(
    resources: readonly ResourceDescriptor[],
    /** Called for every node the collector must (re)examine. */
    private readonly attemptToDelete: (n: GraphNode) => void,
  ) {
    for (const r of resources) this.byGroupKind.set(`${r.group}/${r.kind}`, r);
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

  /** An informer add or update. */
  observe(resource: ResourceDescriptor, obj: KubeObject): void {
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
      if (node.virtual) {
        node.virtual = false;
        // Dependents named this owner before it was observed; those whose reference points elsewhere
        // (another namespace or kind) must be re-verified against the real object.
        for (const d of node.dependents) {
          const r = d.owners.find((o) => o.uid === uid);
          if (!r || !sameCoordinates(identity, this.ownerIdentity(r, d.identity.namespace))) this.attemptToDelete(d);
        }
      }
      node.identity = identity;
      const { added, removed } = referencesDiff(node.owners, owners);
      node.owners = owners;
      this.addDependentToOwners(node, added);
      this.removeDependentFromOwners(node, removed);
    }
    if (meta.deletionTimestamp) {
      node.beingDeleted = true;
      if (meta.finalizers?.includes(FINALIZER_DELETE_DEPENDENTS)) node.deletingDependents = true;
    }
  }

  /** An informer delete (the object is gone). */
  observeDelete(obj: KubeObject): void {
    const uid = obj.metadata?.uid ?? '';
    const node = this.uidToNode.get(uid);
    if (node) this.removeAndRequeueDependents(node);
  }

  /** A worker found a virtual node's object absent (404 or another uid under that name). */
  virtualDelete(node: GraphNode): void {
    if (this.uidToNode.get(node.identity.uid) === node && node.virtual) this.removeAndRequeueDependents(node);
  }

  private removeAndRequeueDependents(node: GraphNode): void {
    this.uidToNode.delete(node.identity.uid);
    this.removeDependentFromOwners(node, node.owners);
    this.absentOwnerCache.add(absentKey(node.identity.namespace, node.identity.uid));
    for (const d of node.dependents) this.attemptToDelete(d);
  }

  private addDependentToOwners(node: GraphNode, owners: readonly OwnerReference[]): void {
    for (const ref of owners) {
      let owner = this.uidToNode.get(ref.uid);
      if (!owner) {
        const identity = this.ownerIdentity(ref, node.identity.namespace);
        // An owner of a kind we do not monitor cannot be verified: the dependent is left alone.
        if (!identity) continue;
        owner = new GraphNode(identity, [], true);
        this.uidToNode.set(ref.uid, owner);
        this.attemptToDelete(owner);
      }
      owner.dependents.add(node);
      // The reference names an observed object that is not where this dependent's reference points
      // (e.g. an owner uid from another namespace): have a worker verify it — it will be found absent.
      if (!owner.virtual && !sameCoordinates(owner.identity, this.ownerIdentity(ref, node.identity.namespace))) {
        this.attemptToDelete(node);
      }
    }
  }

  private removeDependentFromOwners(node: GraphNode, owners: readonly OwnerReference[]): void {
    for (const ref of owners) this.uidToNode.get(ref.uid)?.dependents.delete(node);
  }
}

/** Same resource and namespace (uid and name are compared elsewhere). */
export function sameCoordinates(a: ObjectIdentity, b: ObjectIdentity | undefined): boolean {
  return b !== undefined && a.resource === b.resource && a.namespace === b.namespace;
}

/** Owner references added and removed between two versions (by uid). */
function referencesDiff(
  oldRefs: readonly OwnerReference[],
  newRefs: readonly OwnerReference[],
): { added: OwnerReference[]; removed: OwnerReference[] } {
  const oldUIDs = new Set(oldRefs.map((r) => r.uid));
  const newUIDs = new Set(newRefs.map((r) => r.uid));
  return {
    added: newRefs.filter((r) => !oldUIDs.has(r.uid)),
    removed: oldRefs.filter((r) => !newUIDs.has(r.uid)),
  };
}
