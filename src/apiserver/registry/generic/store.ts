/**
 * The generic store: one per resource, running the same request path for every kind over the storage
 * Backend and the resource's watch cache, and calling the kind's {@link ResourceStrategy} at upstream's
 * fixed points. Follows k8s.io/apiserver/pkg/registry/generic/registry/store.go (`Store.Create`,
 * `Update`, `Delete`, `updateForGracefulDeletionAndFinalizers`), rest/create.go `BeforeCreate`,
 * rest/update.go `BeforeUpdate`, and storage/etcd3/store.go `GuaranteedUpdate`.
 *
 * Reads come from the watch cache: `resourceVersion` unset waits until the cache has seen the
 * backend's current revision (a consistent read, KEP-2340), `"0"` takes the cache as it is, `N` waits
 * for N. Paginated reads at an exact revision and continue tokens go to storage.
 *
 * Writes serialize the object once (JSON without resourceVersion) and return the written object,
 * frozen, with `metadata.resourceVersion` = the new revision; the cache decodes the change once from
 * its storage watch.
 */
import type { Authorizer, RuleResolver } from '../../authz/types.js';
import { ServiceAccountTokens } from '../../authn/serviceaccount.js';
import type { KubeList, KubeObject } from '../../../api/index.js';
import { deepFreeze } from '../../../machinery/meta/index.js';
import { StatusError, newNotFound, statusDetails } from '../../../machinery/errors/index.js';
import type { StorageExtension } from '../extension.js';
import { beforeDelete, gcFinalizers, markAsDeleting } from './deletion.js';
import { clone, metaOf } from './objects.js';
import { parseDeleteOptions, type DeleteOptions } from './options.js';
import { DELETE_COLLECTION_WORKERS, type Query, type DeleteResult, type StoreOptions, type Preconditions } from './store-core.js';
import { WriteStore } from './store-write.js';

export { resourcePrefix, tooLargeResourceVersion, tooOldResourceVersion } from './store-core.js';
export type { DeleteResult, StoreOptions, StoreView, UpdateMode, WriteResult } from './store-core.js';

class DeleteSignal extends Error {
  constructor(readonly kind: 'deleteNow' | 'alreadyDeleting') {
    super(kind);
  }
}

/** The authorizer of a store built without one (tests of a single kind): everything is allowed, as by the loopback caller. */
const allowAll: Authorizer & RuleResolver = {
  authorize: () => ({ decision: 'Allow', reason: '' }),
  rulesFor: () => ({ resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], resourceNames: [] }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }], incomplete: false }),
};

/** The generic store of one resource: {@link WriteStore} plus DELETE (store.go `Delete`, `DeleteCollection`). */
export class Store extends WriteStore {
  readonly extension: StorageExtension;

  constructor(opts: StoreOptions) {
    super(opts);
    const storeOf = opts.storeOf ?? (() => undefined);
    const servedResources = opts.servedResources ?? (() => [opts.strategy.info]);
    const addResource = opts.addResource ?? (() => Promise.reject(new Error('resources cannot be added to this server')));
    const removeResource = opts.removeResource ?? (() => false);
    const serviceAccountTokens = opts.serviceAccountTokens ?? new ServiceAccountTokens({ clock: opts.clock, rand: opts.rand });
    const authorizer = opts.authorizer ?? allowAll;
    const ctx = { store: this, cache: opts.cache, backend: opts.backend, clock: opts.clock, rand: opts.rand, storeOf, servedResources, addResource, removeResource, serviceAccountTokens, authorizer };
    this.extension = opts.strategy.storage?.(ctx) ?? {};
  }

  // ---------------------------------------------------------------------------------------------
  // Delete.

  /**
   * DELETE (store.go `Delete`): preconditions; pods are deleted gracefully; objects with finalizers,
   * or whose propagation policy adds `orphan`/`foregroundDeletion`, only get a deletionTimestamp and
   * are returned (200); otherwise the object is removed and the answer is a Success Status (pods and
   * kinds with `returnDeletedObject`: the object). A kind's {@link StorageExtension.delete} runs first.
   */
  async delete(namespace: string | undefined, name: string, body: unknown, query: Query): Promise<DeleteResult> {
    const opts = parseDeleteOptions(body, query);
    const key = this.keyFor(namespace, name);
    this.opts.admitDelete?.(name, this.gr);
    const own = await this.extension.delete?.(namespace, name, opts);
    if (own) return own;
    const current = await this.loadState(key, true);
    if (!current.obj) throw newNotFound(this.gr, name);
    const now = this.opts.clock.now();
    const first = beforeDelete(this.strategy, clone(current.obj), { ...opts }, now);
    if (first.pendingGraceful) return this.finalizeDelete(current.obj, opts, false);
    const pendingFinalizers = (current.obj.metadata?.finalizers ?? []).length > 0;
    const preconditions: Preconditions = { ...opts.preconditions };
    let ignoreNotFound = false;
    let lastExisting: KubeObject | undefined;
    if (first.graceful || pendingFinalizers || gcFinalizers(this.strategy, current.obj, opts).changed) {
      let lastGraceful = 0;
      let pending = false;
      let out: KubeObject;
      try {
        out = await this.guaranteedUpdate(key, name, { dryRun: opts.dryRun, ignoreNotFound: false, preconditions }, (existing) => {
          const obj = clone(existing as KubeObject);
          const attempt = { ...opts };
          const r = beforeDelete(this.strategy, obj, attempt, now);
          if (r.pendingGraceful) throw new DeleteSignal('alreadyDeleting');
          const gc = gcFinalizers(this.strategy, obj, attempt);
          if (gc.changed) metaOf(obj).finalizers = gc.finalizers;
          pending = (obj.metadata?.finalizers ?? []).length > 0;
          if (!r.graceful) {
            if (!pending) throw new DeleteSignal('deleteNow');
            markAsDeleting(obj, now);
            return { action: 'write', obj };
          }
          lastGraceful = attempt.gracePeriodSeconds ?? 0;
          lastExisting = obj;
          return { action: 'write', obj };
        });
      } catch (err) {
        if (!(err instanceof DeleteSignal)) throw err;
        if (err.kind === 'alreadyDeleting') return this.finalizeDelete(current.obj, opts, false);
        out = current.obj;
        pending = false;
        lastGraceful = 0;
      }
      if (pending || lastGraceful > 0) return { code: opts.orphanDependents === false ? 202 : 200, body: out };
      if (opts.dryRun) return this.finalizeDelete(out, opts, true);
      if (lastExisting) {
        ignoreNotFound = true;
        if (preconditions.resourceVersion !== undefined) preconditions.resourceVersion = out.metadata?.resourceVersion ?? '';
      }
    }
    try {
      const deleted = await this.guaranteedUpdate(key, name, { dryRun: opts.dryRun, ignoreNotFound: false, preconditions }, () => ({ action: 'delete' }));
      return this.finalizeDelete(deleted, opts, true);
    } catch (err) {
      // A graceless pod delete races the kubelet's own delete; the loser still reports success.
      if (ignoreNotFound && lastExisting && err instanceof StatusError && err.code === 404) return this.finalizeDelete(lastExisting, opts, true);
      throw err;
    }
  }

  /**
   * DELETE on a collection (store.go `DeleteCollection`): lists what the selectors select, deletes
   * each item as {@link delete} would (an item already gone is skipped) and answers the list that was
   * selected. Up to {@link DELETE_COLLECTION_WORKERS} deletes run at once, as upstream's
   * `DeleteCollectionWorkers`, so the storage commits them in shared batches: a namespace of 10,000
   * pods is not emptied one commit at a time.
   */
  async deleteCollection(namespace: string | undefined, body: unknown, query: Query): Promise<KubeList> {
    const listQuery: Query = {};
    for (const k of ['labelSelector', 'fieldSelector', 'resourceVersion', 'resourceVersionMatch']) {
      const v = query[k];
      if (v !== undefined) listQuery[k] = v;
    }
    const list = await this.list(namespace, listQuery);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < list.items.length) {
        const item = list.items[next++] as KubeObject;
        try {
          await this.delete(item.metadata?.namespace, item.metadata?.name ?? '', body, query);
        } catch (err) {
          if (!(err instanceof StatusError && err.code === 404)) throw err;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(DELETE_COLLECTION_WORKERS, list.items.length) }, worker));
    return list;
  }

  /** `finalizeDelete`: the object for kinds that return it, else a Success Status naming it. */
  protected finalizeDelete(obj: KubeObject, opts: DeleteOptions, deleted: boolean): DeleteResult {
    const code = !deleted && opts.orphanDependents === false ? 202 : 200;
    if (this.strategy.returnDeletedObject === true) return { code, body: obj };
    const meta = obj.metadata ?? {};
    const status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: statusDetails({ name: meta.name ?? '', group: this.gr.group, kind: this.gr.resource, uid: meta.uid ?? '' }),
    };
    return { code, body: deepFreeze(status) };
  }
}
