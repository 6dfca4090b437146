/**
 * Every API call the garbage collector makes, in one place (upstream
 * pkg/controller/garbagecollector/operations.go and patch.go): GET an object by identity; DELETE with
 * uid and resourceVersion preconditions and a propagation policy; remove or unblock owner references
 * with a strategic merge patch (JSON merge patch with a resourceVersion for kinds without one); remove
 * a finalizer with a JSON merge patch carrying the resourceVersion it was computed from.
 */
import type { DeleteOptions, KubeObject, OwnerReference } from '../../api/index.js';
import type { Clientset } from '../../client/index.js';
import { StatusError, isConflict, isNotFound } from '../../machinery/errors/index.js';
import type { ObjectIdentity } from './graph.js';

export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

/** client-go `retry.DefaultBackoff.Steps`: attempts of a conflicting finalizer removal. */
const FINALIZER_UPDATE_ATTEMPTS = 4;

const isUnsupportedMediaType = (err: unknown): boolean => err instanceof StatusError && err.code === 415;

/** A patch that keeps all but `ownerUIDs` (uid in the body: a uid precondition, as upstream's). */
function deleteOwnerRefStrategicMergePatch(dependentUID: string, ownerUIDs: readonly string[]): unknown {
  return { metadata: { ownerReferences: ownerUIDs.map((uid) => ({ $patch: 'delete', uid })), uid: dependentUID } };
}

export class GCOperations {
  constructor(private readonly client: Clientset) {}

  private clientFor(id: ObjectIdentity) {
    return this.client.resource(id.resource, id.namespace || undefined);
  }

  /** Live GET. Throws StatusError (NotFound when absent). */
  getObject(id: ObjectIdentity): Promise<KubeObject> {
    return this.clientFor(id).get(id.name);
  }

  /**
   * upstream `deleteObject`: DELETE with a uid precondition, plus `resourceVersion` so an object whose
   * owners changed since it was judged (e.g. adopted) is left alone. On Conflict the object is read
   * again: gone is success; same uid with the same ownerReferences at a newer resourceVersion is
   * deleted without the resourceVersion precondition (unrelated updates must not starve the GC).
   * Throws StatusError (NotFound, Conflict, …).
   */
  async deleteObject(id: ObjectIdentity, policy: PropagationPolicy, resourceVersion?: string, ownersAtResourceVersion?: readonly OwnerReference[]): Promise<void> {
    const opts: DeleteOptions = { propagationPolicy: policy, preconditions: { uid: id.uid, ...(resourceVersion ? { resourceVersion } : {}) } };
    try {
      await this.clientFor(id).delete(id.name, opts);
    } catch (err) {
      if (!isConflict(err) || !resourceVersion) throw err;
      let live: KubeObject;
      try {
        live = await this.getObject(id);
      } catch (getErr) {
        if (isNotFound(getErr)) return;
        throw err;
      }
      const meta = live.metadata ?? {};
      if (meta.uid !== id.uid || meta.resourceVersion === resourceVersion || !sameOwners(meta.ownerReferences ?? [], ownersAtResourceVersion ?? [])) throw err;
      await this.clientFor(id).delete(id.name, { propagationPolicy: policy, preconditions: { uid: id.uid } });
    }
  }

  /**
   * Removes the references to `ownerUIDs` from the object (upstream `GenerateDeleteOwnerRefStrategicMergeBytes`,
   * falling back to `deleteOwnerRefJSONMergePatch`). A missing reference is not an error.
   */
  async deleteOwnerReferences(id: ObjectIdentity, ownerUIDs: readonly string[]): Promise<void> {
    const drop = new Set(ownerUIDs);
    await this.patch(id, deleteOwnerRefStrategicMergePatch(id.uid, ownerUIDs), (refs) => refs.filter((r) => !drop.has(r.uid)));
  }

  /**
   * Sets `blockOwnerDeletion: false` on every blocking reference of the object (upstream
   * `unblockOwnerReferencesStrategicMergePatch`), so an owner and its dependent deleting each other in
   * the foreground cannot wait on each other forever.
   */
  async unblockOwnerReferences(id: ObjectIdentity, owners: readonly OwnerReference[]): Promise<void> {
    const unblocked = owners.filter((r) => r.blockOwnerDeletion === true).map((r) => ({ ...r, blockOwnerDeletion: false }));
    await this.patch(id, { metadata: { ownerReferences: unblocked, uid: id.uid } }, (refs) =>
      refs.map((r) => (r.blockOwnerDeletion === true ? { ...r, blockOwnerDeletion: false } : r)),
    );
  }

  /**
   * upstream `removeFinalizer`: reads the object, and unless the finalizer is already gone, writes the
   * list without it with the resourceVersion it read; retried on Conflict. NotFound is success.
   */
  async removeFinalizer(id: ObjectIdentity, finalizer: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        const obj = await this.getObject(id);
        const finalizers = obj.metadata?.finalizers ?? [];
        if (obj.metadata?.uid !== id.uid || !finalizers.includes(finalizer)) return;
        await this.clientFor(id).patch(id.name, 'application/merge-patch+json', {
          metadata: { resourceVersion: obj.metadata.resourceVersion, finalizers: finalizers.filter((f) => f !== finalizer) },
        });
        return;
      } catch (err) {
        if (isNotFound(err)) return;
        if (!isConflict(err) || attempt >= FINALIZER_UPDATE_ATTEMPTS) throw err;
      }
    }
  }

  /**
   * upstream `gc.patch`: the strategic merge patch, or for kinds that do not support one (415), a JSON
   * merge patch of the ownerReferences `rewrite` makes from a fresh read, with its resourceVersion.
   */
  private async patch(id: ObjectIdentity, smp: unknown, rewrite: (refs: readonly OwnerReference[]) => OwnerReference[]): Promise<void> {
    try {
      await this.clientFor(id).patch(id.name, 'application/strategic-merge-patch+json', smp);
      return;
    } catch (err) {
      if (!isUnsupportedMediaType(err)) throw err;
    }
    const obj = await this.getObject(id);
    await this.clientFor(id).patch(id.name, 'application/merge-patch+json', {
      metadata: { resourceVersion: obj.metadata?.resourceVersion, uid: id.uid, ownerReferences: rewrite(obj.metadata?.ownerReferences ?? []) },
    });
  }
}

function sameOwners(a: readonly OwnerReference[], b: readonly OwnerReference[]): boolean {
  return a.length === b.length && a.every((r, i) => JSON.stringify(r) === JSON.stringify(b[i]));
}
