/**
 * ControllerRevision helpers shared by the controllers that keep history (DaemonSet now, StatefulSet
 * later): ordering, the next revision number, and claiming revisions through their ControllerRef.
 *
 * Follows kubernetes/kubernetes pkg/controller/history/controller_history.go (`Less`/`SortControllerRevisions`,
 * `ControllerRevisionName`) and pkg/controller/controller_ref_manager.go
 * (`ControllerRevisionControllerRefManager.ClaimControllerRevisions`).
 */
import type { ControllerRevision } from '../../api/index.js';
import type { Clientset } from '../../client/index.js';
import { parseTime } from '../../util/clock/index.js';
import { ControllerRefManager, type ControllerRefManagerOptions } from '../controller-ref-manager.js';

/** Older first: by `revision`, then creationTimestamp, then name (`history.Less`). */
export function compareControllerRevisions(a: ControllerRevision, b: ControllerRevision): number {
  if (a.revision !== b.revision) return a.revision - b.revision;
  const ta = parseTime(a.metadata?.creationTimestamp) ?? 0;
  const tb = parseTime(b.metadata?.creationTimestamp) ?? 0;
  if (ta !== tb) return ta - tb;
  const na = a.metadata?.name ?? '';
  const nb = b.metadata?.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/** The highest `revision` of `revisions`, 0 when there are none (`maxRevision`). */
export function maxRevision(revisions: readonly ControllerRevision[]): number {
  let max = 0;
  for (const r of revisions) if (r.revision > max) max = r.revision;
  return max;
}

/**
 * `ControllerRevisionName`: `<prefix>-<hash>`, the prefix cut to 223 characters so the name stays a
 * valid DNS subdomain.
 */
export function controllerRevisionName(prefix: string, hash: string): string {
  return `${prefix.length > 223 ? prefix.slice(0, 223) : prefix}-${hash}`;
}

/**
 * `ClaimControllerRevisions`: adopts matching orphan revisions and releases owned ones that no longer
 * match, patching through `client`; returns the revisions that are now owned. Throws after trying all
 * when any adopt/release failed.
 */
export function claimControllerRevisions(
  opts: Omit<ControllerRefManagerOptions<ControllerRevision>, 'patch' | 'dependentKind'> & { client: Clientset },
  revisions: readonly ControllerRevision[],
): Promise<ControllerRevision[]> {
  const { client, ...rest } = opts;
  const manager = new ControllerRefManager<ControllerRevision>({
    ...rest,
    dependentKind: 'ControllerRevision',
    patch: async (cr, patch) => {
      await client.apps.controllerRevisions(cr.metadata?.namespace).patch(cr.metadata?.name ?? '', 'application/strategic-merge-patch+json', patch);
    },
  });
  return manager.claimObjects(revisions);
}
