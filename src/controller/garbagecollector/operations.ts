/**
 * Every API call the garbage collector makes, in one place (upstream
 * pkg/controller/garbagecollector/operations.go): GET an object by identity, DELETE with a uid
 * precondition and a propagation policy, and rewrite ownerReferences with a JSON merge patch.
 */
import type { DeleteOptions, KubeObject, OwnerReference } from '../../api/index.js';
import type { Clientset } from '../../client/index.js';
import type { ObjectIdentity } from './graph.js';

export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

export class GCOperations {
  constructor(private readonly client: Clientset) {}

  private clientFor(id: ObjectIdentity) {
    return this.client.resource(id.resource, id.namespace || undefined);
  }

  /** Live GET. Throws StatusError (NotFound when absent). */
  getObject(id: ObjectIdentity): Promise<KubeObject> {
    return this.clientFor(id).get(id.name);
  }

  /** DELETE with `preconditions.uid`, so a newer object with the same name is never hit. */
  deleteObject(id: ObjectIdentity, policy: PropagationPolicy): Promise<unknown> {
    const opts: DeleteOptions = { propagationPolicy: policy, preconditions: { uid: id.uid } };
    return this.clientFor(id).delete(id.name, opts);
  }

  /**
   * Replaces the object's ownerReferences. The patch also carries `metadata.uid`, which the server
   * rejects if it differs (uid is immutable): a uid precondition for a patch, as upstream's
   * `deleteOwnerRefJSONMergePatch` does.
   */
  patchOwnerReferences(id: ObjectIdentity, refs: readonly OwnerReference[]): Promise<KubeObject> {
    return this.clientFor(id).patch(id.name, 'application/merge-patch+json', {
      metadata: { ownerReferences: refs, uid: id.uid },
    });
  }
}
