/**
 * The pure parts of deletion: preconditions, graceful deletion and the garbage-collection finalizers.
 * Followed: k8s.io/apiserver/pkg/registry/rest/delete.go `BeforeDelete`, generic/registry/store.go
 * `shouldOrphanDependents`, `shouldDeleteDependents`, `deletionFinalizersForGarbageCollection`,
 * `markAsDeleting`; the grace period itself is the kind's (`ResourceStrategy.checkGracefulDelete`).
 */
import type { KubeObject } from '../../../api/index.js';
import { newConflict } from '../../../machinery/errors/index.js';
import { formatTime, parseTime } from '../../../util/clock/index.js';
import type { ResourceStrategy } from '../strategy.js';
import { metaOf } from './objects.js';
import type { DeleteOptions } from './options.js';

/** `metav1.FinalizerOrphanDependents`. */
export const FINALIZER_ORPHAN = 'orphan';
/** `metav1.FinalizerDeleteDependents`. */
export const FINALIZER_FOREGROUND = 'foregroundDeletion';

/** Outcome of {@link beforeDelete}. */
export interface BeforeDeleteResult {
  /** The object was just marked for graceful deletion (deletionTimestamp in the future or shortened). */
  graceful: boolean;
  /** A graceful deletion is already under way and this request does not shorten it. */
  pendingGraceful: boolean;
}

/**
 * `rest.BeforeDelete`: checks the preconditions (409 Conflict on `Kind`, as upstream builds the
 * GroupResource from the kind), then for pods sets deletionTimestamp = now + grace and
 * deletionGracePeriodSeconds, or shortens a running graceful deletion. `obj` and `opts` are mutated
 * (opts.gracePeriodSeconds ends up as the effective grace period). `now` in ms.
 */
export function beforeDelete(strategy: ResourceStrategy, obj: KubeObject, opts: DeleteOptions, now: number): BeforeDeleteResult {
  const meta = metaOf(obj);
  const gr = { group: strategy.info.group, resource: strategy.info.kind };
  const name = meta.name ?? '';
  const pre = opts.preconditions;
  if (pre.uid !== undefined && pre.uid !== meta.uid) {
    throw newConflict(gr, name, `the UID in the precondition (${pre.uid}) does not match the UID in record (${meta.uid ?? ''}). The object might have been deleted and then recreated`);
  }
  if (pre.resourceVersion !== undefined && pre.resourceVersion !== meta.resourceVersion) {
    throw newConflict(gr, name, `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${meta.resourceVersion ?? ''}). The object might have been modified`);
  }
  // Negative grace periods count as 1 s on the delete path.
  if (opts.gracePeriodSeconds !== undefined && opts.gracePeriodSeconds < 0) opts.gracePeriodSeconds = 1;
  if (meta.deletionGracePeriodSeconds != null && meta.deletionGracePeriodSeconds < 0) meta.deletionGracePeriodSeconds = 1;
  // Kinds without graceful deletion (all but pods: a kubelet must stop the containers first) go at once.
  if (!strategy.checkGracefulDelete) return { graceful: false, pendingGraceful: false };

  if (meta.deletionTimestamp) {
    const current = meta.deletionGracePeriodSeconds;
    if (current == null || current === 0) return { graceful: false, pendingGraceful: false };
    if (opts.gracePeriodSeconds === undefined) {
      opts.gracePeriodSeconds = current;
      return { graceful: false, pendingGraceful: true };
    }
    // Only a shorter grace period may be given: the deadline moves by the difference, e.g. a
    // deletionTimestamp of 12:00:30 with grace 30 and a new grace 0 becomes 12:00:00.
    if (opts.gracePeriodSeconds >= current) return { graceful: false, pendingGraceful: true };
    const deadline = (parseTime(meta.deletionTimestamp) ?? now) - current * 1000 + opts.gracePeriodSeconds * 1000;
    meta.deletionTimestamp = formatTime(deadline);
    meta.deletionGracePeriodSeconds = opts.gracePeriodSeconds;
    return { graceful: true, pendingGraceful: false };
  }

  opts.gracePeriodSeconds = strategy.checkGracefulDelete(obj, opts.gracePeriodSeconds);
  meta.deletionTimestamp = formatTime(now + opts.gracePeriodSeconds * 1000);
  meta.deletionGracePeriodSeconds = opts.gracePeriodSeconds;
  if ((meta.generation ?? 0) > 0) meta.generation = (meta.generation ?? 0) + 1;
  return { graceful: true, pendingGraceful: false };
}

function shouldOrphanDependents(strategy: ResourceStrategy, finalizers: readonly string[], opts: DeleteOptions): boolean {
  if (opts.orphanDependents !== undefined) return opts.orphanDependents;
  if (opts.propagationPolicy !== undefined) return opts.propagationPolicy === 'Orphan';
  for (const f of finalizers) {
    if (f === FINALIZER_ORPHAN) return true;
    if (f === FINALIZER_FOREGROUND) return false;
  }
  return strategy.defaultGarbageCollectionPolicy === 'Orphan';
}

function shouldDeleteDependents(strategy: ResourceStrategy, finalizers: readonly string[], opts: DeleteOptions): boolean {
  if (opts.orphanDependents !== undefined) return false;
  if (opts.propagationPolicy !== undefined) return opts.propagationPolicy === 'Foreground';
  for (const f of finalizers) {
    if (f === FINALIZER_FOREGROUND) return true;
    if (f === FINALIZER_ORPHAN) return false;
  }
  return strategy.defaultGarbageCollectionPolicy === 'Foreground';
}

/**
 * `deletionFinalizersForGarbageCollection`: the object's finalizers with `orphan` /
 * `foregroundDeletion` added or removed as the delete options (then existing finalizers, then the
 * kind's default policy) ask, and whether that changed the set.
 */
export function gcFinalizers(strategy: ResourceStrategy, obj: KubeObject, opts: DeleteOptions): { changed: boolean; finalizers: string[] } {
  const current = obj.metadata?.finalizers ?? [];
  const next = current.filter((f) => f !== FINALIZER_ORPHAN && f !== FINALIZER_FOREGROUND);
  if (shouldOrphanDependents(strategy, current, opts)) next.push(FINALIZER_ORPHAN);
  if (shouldDeleteDependents(strategy, current, opts)) next.push(FINALIZER_FOREGROUND);
  const a = new Set(current);
  const b = new Set(next);
  const changed = a.size !== b.size || [...a].some((f) => !b.has(f));
  return { changed, finalizers: changed ? next : [...current] };
}

/**
 * `markAsDeleting`: deletionTimestamp = now (unless an earlier one is set), deletionGracePeriodSeconds
 * = 0, generation + 1 the first time for kinds that have a generation.
 */
export function markAsDeleting(obj: KubeObject, now: number): void {
  const meta = metaOf(obj);
  if (!meta.deletionTimestamp && (meta.generation ?? 0) > 0) meta.generation = (meta.generation ?? 0) + 1;
  const existing = parseTime(meta.deletionTimestamp);
  if (existing === undefined || existing > now) meta.deletionTimestamp = formatTime(now);
  meta.deletionGracePeriodSeconds = 0;
}
