/**
 * The namespace's own REST storage around the generic store (pkg/registry/core/namespace/storage/
 * storage.go): DELETE first only marks the namespace Terminating, `/finalize` updates spec.finalizers,
 * an update removes a deleted namespace only once spec.finalizers is empty too
 * (`ShouldDeleteNamespaceDuringUpdate`), the NamespaceLifecycle admission guards every other store,
 * and the default namespaces exist from start-up (pkg/controlplane's system namespaces).
 */
import type { KubeObject } from '../../../api/index.js';
import { isAlreadyExists, newConflict, newNotFound } from '../../../machinery/errors/index.js';
import { formatTime } from '../../../util/clock/index.js';
import { NamespaceLifecycle } from '../../admission/namespace-lifecycle.js';
import type { StorageContext, StorageExtension, UpdateStrategy } from '../extension.js';
import { FINALIZER_FOREGROUND, FINALIZER_ORPHAN } from '../generic/deletion.js';
import { clone, metaOf } from '../generic/objects.js';
import type { DeleteOptions } from '../generic/options.js';
import type { DeleteResult, Store } from '../generic/store.js';

/** The namespaces every cluster has. */
export const DEFAULT_NAMESPACES: readonly string[] = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

function specFinalizers(obj: KubeObject): readonly string[] {
  return (obj.spec as { finalizers?: string[] } | undefined)?.finalizers ?? [];
}

/** The storage extension of namespaces; `/finalize` runs `finalizeStrategy` (namespaceFinalizeStrategy). */
export function namespaceStorage({ store, clock }: StorageContext, finalizeStrategy: UpdateStrategy): StorageExtension {
  return {
    admission: new NamespaceLifecycle(store, clock),
    delete: (_namespace, name, opts) => deleteNamespace(store, clock.now(), name, opts),
    shouldDeleteDuringUpdate: (obj) => specFinalizers(obj).length === 0,
    subresources: {
      finalize: {
        update: async (req) => ({ code: 200, body: (await store.update(undefined, req.name, req.body, req.query, req.warnings, finalizeStrategy, undefined, req.userAgent)).obj }),
      },
    },
    bootstrap: () => ensureDefaultNamespaces(store),
  };
}

/**
 * Namespace DELETE (storage.go `Delete`): preconditions as upstream words them; the first request
 * sets deletionTimestamp and status.phase Terminating (and orphan/foregroundDeletion as the policy
 * asks) and returns the namespace; while spec.finalizers is not empty later requests return it
 * unchanged; then (undefined) the generic delete runs. `now` in ms.
 */
async function deleteNamespace(store: Store, now: number, name: string, opts: DeleteOptions): Promise<DeleteResult | undefined> {
  const current = await store.storedObject(undefined, name);
  if (!current) throw newNotFound(store.gr, name);
  const meta = current.metadata ?? {};
  const uid = opts.preconditions.uid ?? meta.uid ?? '';
  if (uid !== meta.uid) {
    throw newConflict(store.gr, name, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${meta.uid ?? ''}`);
  }
  const rv = opts.preconditions.resourceVersion;
  if (rv !== undefined && rv !== meta.resourceVersion) {
    throw newConflict(store.gr, name, `Precondition failed: ResourceVersion in precondition: ${rv}, ResourceVersion in object meta: ${meta.resourceVersion ?? ''}`);
  }
  if (meta.deletionTimestamp) return specFinalizers(current).length > 0 ? { code: 200, body: current } : undefined;
  const preconditions = { uid, ...(rv === undefined ? {} : { resourceVersion: rv }) };
  const out = await store.guaranteedUpdate(store.keyFor(undefined, name), name, { dryRun: opts.dryRun, ignoreNotFound: false, preconditions }, (existing) => {
    const ns = clone(existing as KubeObject);
    const m = metaOf(ns);
    if (!m.deletionTimestamp) m.deletionTimestamp = formatTime(now);
    const status = (ns.status ??= {}) as { phase?: string };
    status.phase = 'Terminating';
    const has = new Set(m.finalizers ?? []);
    const orphan = opts.orphanDependents ?? (opts.propagationPolicy !== undefined ? opts.propagationPolicy === 'Orphan' : has.has(FINALIZER_ORPHAN));
    const foreground =
      opts.orphanDependents !== undefined ? !opts.orphanDependents : opts.propagationPolicy !== undefined ? opts.propagationPolicy === 'Foreground' : has.has(FINALIZER_FOREGROUND);
    const next = (m.finalizers ?? []).filter((f) => f !== FINALIZER_ORPHAN && f !== FINALIZER_FOREGROUND);
    if (orphan) next.push(FINALIZER_ORPHAN);
    if (foreground) next.push(FINALIZER_FOREGROUND);
    if (next.length > 0 || m.finalizers) m.finalizers = next;
    return { action: 'write', obj: ns };
  });
  return { code: 200, body: out };
}

/** Creates the {@link DEFAULT_NAMESPACES} that are missing. */
async function ensureDefaultNamespaces(store: Store): Promise<void> {
  for (const name of DEFAULT_NAMESPACES) {
    if (store.cached(undefined, name)) continue;
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } };
    try {
      await store.create(undefined, ns, {}, []);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }
}
