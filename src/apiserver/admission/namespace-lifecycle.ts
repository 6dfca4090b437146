/**
 * The NamespaceLifecycle admission plugin (k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle/
 * admission.go): no new objects in a namespace that does not exist (404 `namespaces "x" not found`) or
 * is terminating (403 `unable to create new content in namespace x because it is being terminated`,
 * cause `NamespaceTerminating`), and the immortal namespaces cannot be deleted (403 `this namespace may
 * not be deleted`).
 */
import { isNotFound, newForbidden, newNotFound, type GroupResource } from '../../machinery/errors/index.js';
import type { Store } from '../registry/generic/store.js';
import type { Clock } from '../../util/clock/index.js';

/**
 * Upstream's immortal namespaces (kube-apiserver registers the plugin with default, kube-system and
 * kube-public; kube-node-lease may be deleted and is recreated by the system namespaces controller).
 */
export const IMMORTAL_NAMESPACES: readonly string[] = ['default', 'kube-system', 'kube-public'];

/** `v1.NamespaceTerminatingCause`. */
export const NAMESPACE_TERMINATING_CAUSE = 'NamespaceTerminating';

/** The plugin's create and delete checks over the namespaces store. */
/** How long after a namespace delete its creates are checked against storage (upstream's forceLiveLookupTTL). */
export const FORCE_LIVE_LOOKUP_TTL_MS = 30_000;

export class NamespaceLifecycle {
  /** Namespace → until when (ms) its state must be read live: it was just deleted and the cache may lag. */
  private readonly forceLiveLookup = new Map<string, number>();

  constructor(
    private readonly namespaces: Store,
    private readonly clock: Clock,
  ) {}

  /**
   * Checks a create in `namespace`. The cache answers, except that a miss, or a namespace deleted
   * in the last 30 s, is read consistently (upstream's live lookup), so a namespace created or
   * deleted a moment ago is seen as it is.
   */
  async admitCreate(namespace: string, name: string, gr: GroupResource): Promise<void> {
    const until = this.forceLiveLookup.get(namespace);
    const live = until !== undefined && until > this.clock.now();
    if (until !== undefined && !live) this.forceLiveLookup.delete(namespace);
    let ns = live ? undefined : this.namespaces.cached(undefined, namespace);
    if (!ns) {
      try {
        ns = await this.namespaces.get(undefined, namespace, {});
      } catch (err) {
        if (isNotFound(err)) throw newNotFound({ group: '', resource: 'namespaces' }, namespace);
        throw err;
      }
    }
    if ((ns.status as { phase?: string } | undefined)?.phase !== 'Terminating') return;
    throw newForbidden(gr, name, `unable to create new content in namespace ${namespace} because it is being terminated`, [
      { reason: NAMESPACE_TERMINATING_CAUSE, message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' },
    ]);
  }

  /** Checks a delete: immortal namespaces → 403; others are read live for a while after. */
  admitDelete(name: string, gr: GroupResource): void {
    if (gr.group !== '' || gr.resource !== 'namespaces') return;
    if (IMMORTAL_NAMESPACES.includes(name)) throw newForbidden(gr, name, 'this namespace may not be deleted');
    this.forceLiveLookup.set(name, this.clock.now() + FORCE_LIVE_LOOKUP_TTL_MS);
  }
}
