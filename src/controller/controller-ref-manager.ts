/**
 * Adoption and release of dependents through their ControllerRef: a controller claims the objects its
 * selector matches, adopting orphans and releasing objects it owns that no longer match.
 *
 * Follows kubernetes/kubernetes pkg/controller/controller_ref_manager.go (`BaseControllerRefManager.
 * ClaimObject`, `PodControllerRefManager.ClaimPods/AdoptPod/ReleasePod`,
 * `ReplicaSetControllerRefManager.ClaimReplicaSets`, `RecheckDeletionTimestamp`, `ownerRefControllerPatch`,
 * `GenerateDeleteOwnerRefStrategicMergeBytes`). `claimObject` decides, per object:
 *
 * | object's controllerRef | selector matches | action                                                     |
 * |------------------------|------------------|------------------------------------------------------------|
 * | us                     | yes              | claimed (even while we are being deleted)                  |
 * | us                     | no               | release, unless we are being deleted                       |
 * | someone else           | —                | ignored                                                    |
 * | none (orphan)          | yes              | adopt, unless we or it are being deleted or namespaces differ |
 * | none                   | no               | ignored                                                    |
 *
 * Adoption first runs `canAdopt` once per manager: an uncached GET of the owner that fails when the
 * owner was deleted or recreated (new UID), so a stale cache never makes a dying owner adopt.
 */
import type { Pod, ReplicaSet } from '../api/index.js';
import type { MetaObject } from '../informers/index.js';
import type { Clientset } from '../client/index.js';
import { errorMessage, isInvalid, isNotFound } from '../machinery/errors/index.js';
import type { Selector } from '../machinery/labels/index.js';
import { getControllerOf, newControllerRef } from '../machinery/meta/index.js';
import { aggregateErrors } from './controller-utils.js';
import type { PodControl } from './pod-control.js';

/** The owner's API version and kind, e.g. `{apiVersion: 'apps/v1', kind: 'ReplicaSet'}`. */
export interface ControllerKind {
  apiVersion: string;
  kind: string;
}

/**
 * `RecheckDeletionTimestamp`: a canAdopt function that fetches the owner with `getObject` (an
 * uncached GET that also checks the UID) and fails if it is being deleted.
 */
export function recheckDeletionTimestamp(getObject: () => Promise<MetaObject>): () => Promise<void> {
  return async () => {
    let obj: MetaObject;
    try {
      obj = await getObject();
    } catch (err) {
      throw new Error(`can't recheck DeletionTimestamp: ${errorMessage(err)}`, { cause: err });
    }
    const m = obj.metadata ?? {};
    if (m.deletionTimestamp) throw new Error(`${m.namespace ?? ''}/${m.name ?? ''} has just been deleted at ${m.deletionTimestamp}`);
  };
}

/**
 * A canAdopt function for `owner` of `kind`: GETs it through `get` (uncached) and fails when its UID
 * changed ("original ReplicaSet ns/name is gone: got uid X, wanted Y") or it is being deleted.
 */
export function canAdoptByUncachedGet(owner: MetaObject, kind: string, get: (name: string) => Promise<MetaObject>): () => Promise<void> {
  const m = owner.metadata ?? {};
  return recheckDeletionTimestamp(async () => {
    const fresh = await get(m.name ?? '');
    if (fresh.metadata?.uid !== m.uid) {
      throw new Error(`original ${kind} ${m.namespace ?? ''}/${m.name ?? ''} is gone: got uid ${fresh.metadata?.uid ?? ''}, wanted ${m.uid ?? ''}`);
    }
    return fresh;
  });
}

/**
 * The adopt patch (`ownerRefControllerPatch`):
 * `{"metadata":{"ownerReferences":[<controllerRef>],"uid":"<object uid>"}}`. The object's uid acts as a
 * precondition: a recreated object with the same name is not adopted by mistake. `finalizers` (Job's
 * tracking finalizer) are added too when given.
 */
export function ownerRefControllerPatch(owner: MetaObject, controllerKind: ControllerKind, uid: string, finalizers: readonly string[] = []): Record<string, unknown> {
  const metadata: Record<string, unknown> = { ownerReferences: [newControllerRef({ metadata: owner.metadata }, controllerKind)], uid };
  if (finalizers.length > 0) metadata.finalizers = [...finalizers];
  return { metadata };
}

/**
 * The release patch (`GenerateDeleteOwnerRefStrategicMergeBytes`):
 * `{"metadata":{"ownerReferences":[{"$patch":"delete","uid":"<owner uid>"}],"uid":"<object uid>"}}`,
 * removing `finalizers` too when given.
 */
export function deleteOwnerRefPatch(dependentUid: string, ownerUids: readonly string[], finalizers: readonly string[] = []): Record<string, unknown> {
  const metadata: Record<string, unknown> = {
    ownerReferences: ownerUids.map((uid) => ({ $patch: 'delete', uid })),
    uid: dependentUid,
  };
  if (finalizers.length > 0) metadata['$deleteFromPrimitiveList/finalizers'] = [...finalizers];
  return { metadata };
}

/** What a {@link ControllerRefManager} needs to know about the owner and how to write dependents. */
export interface ControllerRefManagerOptions<T extends MetaObject> {
  /** The owner (controller) object. */
  controller: MetaObject;
  controllerKind: ControllerKind;
  /** The owner's selector, compiled. */
  selector: Selector;
  /** Throws when the owner may not adopt (see {@link canAdoptByUncachedGet}); run at most once. */
  canAdopt: () => Promise<void>;
  /** Strategic-merge-patches the dependent. */
  patch: (obj: T, patch: Record<string, unknown>) => Promise<void>;
  /** The dependent's kind for error messages, e.g. `Pod`. */
  dependentKind: string;
  /** Finalizers added on adoption and removed on release (Job). */
  finalizers?: readonly string[];
}

/** `BaseControllerRefManager` plus the adopt/release writes, generic over the dependent type. */
export class ControllerRefManager<T extends MetaObject> {
  private canAdoptResult: Promise<void> | undefined;

  constructor(private readonly opts: ControllerRefManagerOptions<T>) {}

  /** `CanAdopt`: runs the check once and remembers its outcome. */
  canAdopt(): Promise<void> {
    this.canAdoptResult ??= this.opts.canAdopt();
    return this.canAdoptResult;
  }

  /**
   * `ClaimObject`: true when `obj` is (now) ours. Throws the adopt/release error (NotFound is
   * ignored: the object is gone).
   */
  async claimObject(obj: T, match: (obj: T) => boolean): Promise<boolean> {
    const owner = this.opts.controller.metadata ?? {};
    const ref = getControllerOf(obj);
    if (ref) {
      if (ref.uid !== owner.uid) return false;
      if (match(obj)) return true;
      if (owner.deletionTimestamp) return false;
      try {
        await this.release(obj);
      } catch (err) {
        if (isNotFound(err)) return false;
        throw err;
      }
      return false;
    }
    if (owner.deletionTimestamp || !match(obj)) return false;
    if (obj.metadata?.deletionTimestamp) return false;
    if (owner.namespace && owner.namespace !== obj.metadata?.namespace) return false;
    try {
      await this.adopt(obj);
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
    return true;
  }

  /**
   * Claims every object of `objs` (in order) matching the selector and `filters`; returns the
   * claimed ones. Objects whose claim failed are left out and, after all were tried, the errors are
   * thrown together (utilerrors.NewAggregate).
   */
  async claimObjects(objs: readonly T[], filters: readonly ((obj: T) => boolean)[] = []): Promise<T[]> {
    const match = (obj: T): boolean => this.opts.selector.matches(obj.metadata?.labels) && filters.every((f) => f(obj));
    const claimed: T[] = [];
    const errs: unknown[] = [];
    const ownerUID = this.opts.controller.metadata?.uid;
    for (const obj of objs) {
      // Fast path, no await: most objects are already ours and still match, or are someone else's.
      // (A sync of a 10,000-pod ReplicaSet otherwise spends most of its time in 10,000 await hops.)
      const ref = getControllerOf(obj);
      if (ref && ref.uid !== ownerUID) continue;
      if (ref && match(obj)) {
        claimed.push(obj);
        continue;
      }
      try {
        if (await this.claimObject(obj, match)) claimed.push(obj);
      } catch (err) {
        errs.push(err);
      }
    }
    const err = aggregateErrors(errs);
    if (err) throw err;
    return claimed;
  }

  private async adopt(obj: T): Promise<void> {
    const m = obj.metadata ?? {};
    try {
      await this.canAdopt();
    } catch (err) {
      throw new Error(`can't adopt ${this.opts.dependentKind} ${m.namespace ?? ''}/${m.name ?? ''} (${m.uid ?? ''}): ${errorMessage(err)}`, { cause: err });
    }
    await this.opts.patch(obj, ownerRefControllerPatch(this.opts.controller, this.opts.controllerKind, m.uid ?? '', this.opts.finalizers));
  }

  private async release(obj: T): Promise<void> {
    const patch = deleteOwnerRefPatch(obj.metadata?.uid ?? '', [this.opts.controller.metadata?.uid ?? ''], this.opts.finalizers);
    try {
      await this.opts.patch(obj, patch);
    } catch (err) {
      // Invalid: the object has no owner references any more, or was recreated (uid precondition).
      if (isNotFound(err) || isInvalid(err)) return;
      throw err;
    }
  }
}

/**
 * `PodControllerRefManager.ClaimPods`: claims `pods` for `controller` (a ReplicaSet, Job, …) through
 * `podControl.patchPod`. Returns the pods that are now owned; throws after trying all if any failed.
 */
export function claimPods(
  opts: Omit<ControllerRefManagerOptions<Pod>, 'patch' | 'dependentKind'> & { podControl: PodControl },
  pods: readonly Pod[],
  filters: readonly ((pod: Pod) => boolean)[] = [],
): Promise<Pod[]> {
  const { podControl, ...rest } = opts;
  const manager = new ControllerRefManager<Pod>({
    ...rest,
    dependentKind: 'Pod',
    patch: (pod, patch) => podControl.patchPod(pod.metadata?.namespace ?? '', pod.metadata?.name ?? '', patch),
  });
  return manager.claimObjects(pods, filters);
}

/**
 * `ReplicaSetControllerRefManager.ClaimReplicaSets`: claims `replicaSets` for a Deployment, patching
 * through `client`. Returns the ReplicaSets that are now owned; throws after trying all if any failed.
 */
export function claimReplicaSets(
  opts: Omit<ControllerRefManagerOptions<ReplicaSet>, 'patch' | 'dependentKind'> & { client: Clientset },
  replicaSets: readonly ReplicaSet[],
): Promise<ReplicaSet[]> {
  const { client, ...rest } = opts;
  const manager = new ControllerRefManager<ReplicaSet>({
    ...rest,
    dependentKind: 'ReplicaSet',
    patch: async (rs, patch) => {
      await client.apps.replicaSets(rs.metadata?.namespace).patch(rs.metadata?.name ?? '', 'application/strategic-merge-patch+json', patch);
    },
  });
  return manager.claimObjects(replicaSets);
}

