/**
 * DaemonSet history (ControllerRevisions) and the RollingUpdate strategy.
 *
 * Follows kubernetes/kubernetes pkg/controller/daemon/update.go: `constructHistory`, `snapshot` (with
 * hash-collision handling through `status.collisionCount`), `dedupCurHistories`, `controlledHistories`,
 * `Match`/`getPatch`, `cleanupHistory`, `rollingUpdate` (both the maxSurge = 0 and the surge path),
 * `findUpdatedPodsOnNode`, `updatedDesiredNodeCounts`.
 *
 * A revision's `data` is the strategic merge patch that restores the template,
 * `{"spec":{"template":{…,"$patch":"replace"}}}`, with keys sorted and the template's
 * `metadata.creationTimestamp: null` as Go writes it — what `kubectl rollout undo` sends back and
 * compares byte for byte to decide "skipped rollback (current template already matches revision N)".
 *
 * Difference: when duplicate current revisions are deduplicated, only pods labelled with a dropped
 * duplicate's hash are relabelled (upstream relabels every pod whose hash differs, old ones included).
 */
import type { ControllerRevision, DaemonSet, Node, Pod } from '../../api/index.js';
import type { Clientset } from '../../client/index.js';
import type { Lister } from '../../informers/index.js';
import { isAlreadyExists, isNotFound } from '../../machinery/errors/index.js';
import { canonicalJSON, computeHash } from '../../machinery/hash/index.js';
import { selectorFromLabelSelector } from '../../machinery/labels/index.js';
import { newControllerRef } from '../../machinery/meta/index.js';
import type { Clock } from '../../util/clock/index.js';
import { canAdoptByUncachedGet } from '../controller-ref-manager.js';
import { isPodAvailable } from '../controller-utils.js';
import { claimControllerRevisions, compareControllerRevisions, maxRevision, templateRevisionPatch } from '../history/index.js';
import { CONTROLLER_REVISION_HASH_LABEL, getTemplateGeneration, isPodUpdated, nodeShouldRunDaemonPod, surgeCount, unavailableCount } from './util.js';

/** What the history and update phases need from the controller. */
export interface DaemonSetSyncContext {
  client: Clientset;
  clock: Clock;
  historyLister: Lister<ControllerRevision>;
  nodeLister: Lister<Node>;
  /** Daemon pods by target node (see DaemonSetsController.getNodesToDaemonPods). */
  getNodesToDaemonPods(ds: DaemonSet, includeDeletedTerminal: boolean): Promise<Map<string, Pod[]>>;
  /** Deletes the named pods and creates pods on the named nodes (see DaemonSetsController.syncNodes). */
  syncNodes(ds: DaemonSet, podsToDelete: readonly string[], nodesNeedingDaemonPods: readonly string[], hash: string): Promise<void>;
}

const DAEMON_SET_KIND = { apiVersion: 'apps/v1', kind: 'DaemonSet' };

/**
 * `getPatch`: the revision data for the DaemonSet's current template, as a plain object with sorted
 * keys: `{spec: {template: {$patch: 'replace', metadata: {creationTimestamp: null, …}, spec: {…}}}}`.
 */
export function getPatch(ds: DaemonSet): Record<string, unknown> {
  return templateRevisionPatch(ds.spec?.template);
}

/** `Match`: the revision holds exactly the DaemonSet's current template. */
export function matchRevision(ds: DaemonSet, history: ControllerRevision): boolean {
  return canonicalJSON(getPatch(ds)) === canonicalJSON(history.data);
}

/**
 * `controlledHistories`: the namespace's ControllerRevisions `ds` owns, adopting matching orphans and
 * releasing owned ones its selector no longer matches.
 */
async function controlledHistories(ctx: DaemonSetSyncContext, ds: DaemonSet): Promise<ControllerRevision[]> {
  const ns = ds.metadata?.namespace ?? '';
  const selector = selectorFromLabelSelector(ds.spec?.selector);
  return claimControllerRevisions(
    {
      client: ctx.client,
      controller: ds,
      controllerKind: DAEMON_SET_KIND,
      selector,
      canAdopt: canAdoptByUncachedGet(ds, DAEMON_SET_KIND.kind, (n) => ctx.client.apps.daemonSets(ns).get(n)),
    },
    ctx.historyLister.namespace(ns).list(),
  );
}

/**
 * `constructHistory`: splits the DaemonSet's revisions into the current one (matching its template)
 * and the old ones. A missing current revision is created with revision max(old) + 1; an existing
 * one (e.g. after `rollout undo` to an earlier template) is re-used and renumbered to max(old) + 1;
 * duplicates are deduplicated. Revisions without the hash label get it (their name). Throws API errors.
 */
export async function constructHistory(ctx: DaemonSetSyncContext, ds: DaemonSet): Promise<{ cur: ControllerRevision; old: ControllerRevision[] }> {
  const revisions = ctx.client.apps.controllerRevisions(ds.metadata?.namespace);
  const current: ControllerRevision[] = [];
  const old: ControllerRevision[] = [];
  for (let history of await controlledHistories(ctx, ds)) {
    if (history.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] === undefined) {
      const meta = history.metadata ?? {};
      history = await revisions.update({ ...history, metadata: { ...meta, labels: { ...meta.labels, [CONTROLLER_REVISION_HASH_LABEL]: meta.name ?? '' } } });
    }
    (matchRevision(ds, history) ? current : old).push(history);
  }
  const currRevision = maxRevision(old) + 1;
  let cur: ControllerRevision;
  if (current.length === 0) {
    cur = await snapshot(ctx, ds, currRevision);
  } else {
    cur = await dedupCurHistories(ctx, ds, current);
    if (cur.revision < currRevision) cur = await revisions.update({ ...cur, revision: currRevision });
  }
  return { cur, old };
}

/**
 * `snapshot`: creates the revision `<ds>-<hash>` (labels: the template's plus controller-revision-hash;
 * annotations: the DaemonSet's, so change-cause shows in `rollout history`). When the name exists with
 * other data, it is a hash collision: `status.collisionCount` is bumped (unless the cached count was
 * stale) and the AlreadyExists error thrown so the sync retries with a new hash.
 */
async function snapshot(ctx: DaemonSetSyncContext, ds: DaemonSet, revision: number): Promise<ControllerRevision> {
  const ns = ds.metadata?.namespace ?? '';
  const hash = computeHash(ds.spec?.template, ds.status?.collisionCount);
  const name = `${ds.metadata?.name ?? ''}-${hash}`;
  const history: ControllerRevision = {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name,
      namespace: ns,
      labels: { ...ds.spec?.template?.metadata?.labels, [CONTROLLER_REVISION_HASH_LABEL]: hash },
      ...(ds.metadata?.annotations ? { annotations: { ...ds.metadata.annotations } } : {}),
      ownerReferences: [newControllerRef({ metadata: ds.metadata }, DAEMON_SET_KIND)],
    },
    data: getPatch(ds),
    revision,
  };
  const revisions = ctx.client.apps.controllerRevisions(ns);
  try {
    return await revisions.create(history);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    const existing = await revisions.get(name);
    if (matchRevision(ds, existing)) return existing;
    const dsClient = ctx.client.apps.daemonSets(ns);
    const fresh = await dsClient.get(ds.metadata?.name ?? '');
    if (fresh.status?.collisionCount !== ds.status?.collisionCount) {
      throw new Error(
        `found a stale collision count (${ds.status?.collisionCount ?? 0}, expected ${fresh.status?.collisionCount ?? 0}) of DaemonSet ${JSON.stringify(ds.metadata?.name ?? '')} while processing; will retry until it is updated`,
      );
    }
    const status = fresh.status ?? { currentNumberScheduled: 0, desiredNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0 };
    await dsClient.updateStatus({ ...fresh, status: { ...status, collisionCount: (status.collisionCount ?? 0) + 1 } });
    throw err;
  }
}

/**
 * `dedupCurHistories`: keeps the current revision with the highest number, relabels the pods of the
 * others with its hash, and deletes them.
 */
async function dedupCurHistories(ctx: DaemonSetSyncContext, ds: DaemonSet, current: ControllerRevision[]): Promise<ControllerRevision> {
  let keep = current[0] as ControllerRevision;
  for (const c of current) if (c.revision >= keep.revision) keep = c;
  if (current.length === 1) return keep;
  const keepHash = keep.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? '';
  const ns = ds.metadata?.namespace ?? '';
  const byNode = await ctx.getNodesToDaemonPods(ds, true);
  for (const dup of current) {
    if (dup === keep) continue;
    const dupHash = dup.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL];
    for (const pods of byNode.values()) {
      for (const pod of pods) {
        if (pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] !== dupHash) continue;
        await ctx.client.core.pods(ns).patch(pod.metadata?.name ?? '', 'application/strategic-merge-patch+json', {
          metadata: { labels: { [CONTROLLER_REVISION_HASH_LABEL]: keepHash } },
        });
      }
    }
    try {
      await ctx.client.apps.controllerRevisions(ns).delete(dup.metadata?.name ?? '');
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  return keep;
}

/**
 * `cleanupHistory`: deletes the oldest old revisions beyond `revisionHistoryLimit`, never one whose
 * hash a live pod still carries (deleted terminal pods count as live here).
 */
export async function cleanupHistory(ctx: DaemonSetSyncContext, ds: DaemonSet, old: readonly ControllerRevision[]): Promise<void> {
  let toKill = old.length - (ds.spec?.revisionHistoryLimit ?? 10);
  if (toKill <= 0) return;
  const liveHashes = new Set<string>();
  for (const pods of (await ctx.getNodesToDaemonPods(ds, true)).values()) {
    for (const pod of pods) {
      const hash = pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL];
      if (hash) liveHashes.add(hash);
    }
  }
  const revisions = ctx.client.apps.controllerRevisions(ds.metadata?.namespace);
  for (const history of [...old].sort(compareControllerRevisions)) {
    if (toKill <= 0) break;
    if (liveHashes.has(history.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? '')) continue;
    try {
      await revisions.delete(history.metadata?.name ?? '');
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    toKill--;
  }
}

/**
 * `findUpdatedPodsOnNode`: the node's one new and one old non-deleted pod; `ok` false when there are
 * several of either (the manage loop prunes them first).
 */
function findUpdatedPodsOnNode(pods: readonly Pod[], hash: string, generation: number | undefined): { newPod?: Pod; oldPod?: Pod; ok: boolean } {
  let newPod: Pod | undefined;
  let oldPod: Pod | undefined;
  for (const pod of pods) {
    if (pod.metadata?.deletionTimestamp) continue;
    if (isPodUpdated(pod, hash, generation)) {
      if (newPod) return { ok: false };
      newPod = pod;
    } else {
      if (oldPod) return { ok: false };
      oldPod = pod;
    }
  }
  return { newPod, oldPod, ok: true };
}

/**
 * `updatedDesiredNodeCounts`: maxSurge and maxUnavailable scaled to the number of nodes that should
 * run the pod (both rounded up; if both come out 0 on a non-empty set, maxUnavailable is 1), and an
 * empty entry in `nodeToDaemonPods` for each such node without pods (so it counts as unavailable).
 */
export function updatedDesiredNodeCounts(
  ds: DaemonSet,
  nodes: readonly Node[],
  nodeToDaemonPods: Map<string, Pod[]>,
): { maxSurge: number; maxUnavailable: number; desiredNumberScheduled: number } {
  let desired = 0;
  for (const node of nodes) {
    if (!nodeShouldRunDaemonPod(node, ds).shouldRun) continue;
    desired++;
    const name = node.metadata?.name ?? '';
    if (!nodeToDaemonPods.has(name)) nodeToDaemonPods.set(name, []);
  }
  let maxUnavailable = unavailableCount(ds, desired);
  const maxSurge = surgeCount(ds, desired);
  if (desired > 0 && maxUnavailable === 0 && maxSurge === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable, desiredNumberScheduled: desired };
}

/**
 * `rollingUpdate`: replaces old daemon pods within the budget.
 *
 * maxSurge = 0: a node counts as unavailable when it has no pod, both an old and a new one, too many
 * pods, or an unavailable new pod. Old pods that are not available are deleted at once (they cost no
 * availability); available old pods are deleted only while fewer than maxUnavailable nodes are
 * unavailable. E.g. 10 nodes, maxUnavailable 2, one new pod still starting: 1 unavailable, so one
 * more old pod is deleted this round. The manage loop then creates the replacements.
 *
 * maxSurge > 0: a new pod is created next to an old one right away when the old one is unavailable,
 * and next to available old ones up to maxSurge nodes at a time; an old pod is deleted once the new
 * pod beside it is available. Old pods on nodes that should no longer run the daemon are deleted only
 * while more pods are available than nodes want them.
 */
export async function rollingUpdate(ctx: DaemonSetSyncContext, ds: DaemonSet, nodes: readonly Node[], hash: string): Promise<void> {
  const nodeToDaemonPods = await ctx.getNodesToDaemonPods(ds, false);
  const { maxSurge, maxUnavailable, desiredNumberScheduled } = updatedDesiredNodeCounts(ds, nodes, nodeToDaemonPods);
  const now = ctx.clock.now();
  const minReadySeconds = ds.spec?.minReadySeconds ?? 0;
  const available = (pod: Pod): boolean => isPodAvailable(pod, minReadySeconds, now);
  const generation = getTemplateGeneration(ds);

  if (maxSurge === 0) {
    let numUnavailable = 0;
    const allowedReplacementPods: string[] = [];
    const candidatePodsToDelete: string[] = [];
    for (const pods of nodeToDaemonPods.values()) {
      const { newPod, oldPod, ok } = findUpdatedPodsOnNode(pods, hash, generation);
      if (!ok || (!oldPod && !newPod) || (oldPod && newPod)) {
        numUnavailable++;
      } else if (newPod) {
        if (!available(newPod)) numUnavailable++;
      } else if (oldPod) {
        if (!available(oldPod)) {
          allowedReplacementPods.push(oldPod.metadata?.name ?? '');
          numUnavailable++;
        } else if (numUnavailable < maxUnavailable) {
          candidatePodsToDelete.push(oldPod.metadata?.name ?? '');
        }
      }
    }
    const remaining = Math.min(Math.max(0, maxUnavailable - numUnavailable), candidatePodsToDelete.length);
    await ctx.syncNodes(ds, [...allowedReplacementPods, ...candidatePodsToDelete.slice(0, remaining)], [], hash);
    return;
  }

  const oldPodsToDelete: string[] = [];
  const shouldNotRunPodsToDelete: string[] = [];
  const candidateNewNodes: string[] = [];
  const allowedNewNodes: string[] = [];
  let numSurge = 0;
  let numAvailable = 0;
  for (const [nodeName, pods] of nodeToDaemonPods) {
    const { newPod, oldPod, ok } = findUpdatedPodsOnNode(pods, hash, generation);
    if (!ok) {
      numSurge++;
      continue;
    }
    if (oldPod ? available(oldPod) : newPod && available(newPod)) numAvailable++;
    if (!oldPod) continue;
    if (!newPod) {
      const node = ctx.nodeLister.get(nodeName);
      if (!node) throw new Error(`couldn't get node for nodeName ${JSON.stringify(nodeName)}: node ${JSON.stringify(nodeName)} not found`);
      const { shouldRun } = nodeShouldRunDaemonPod(node, ds);
      if (!available(oldPod)) {
        if (!shouldRun) oldPodsToDelete.push(oldPod.metadata?.name ?? '');
        else allowedNewNodes.push(nodeName);
      } else if (!shouldRun) {
        shouldNotRunPodsToDelete.push(oldPod.metadata?.name ?? '');
      } else if (numSurge < maxSurge) {
        candidateNewNodes.push(nodeName);
      }
      continue;
    }
    // Already surged here: wait for the new pod, then retire the old one.
    if (!available(newPod)) numSurge++;
    else oldPodsToDelete.push(oldPod.metadata?.name ?? '');
  }
  // With surge the owner expects full availability: pods on nodes that no longer qualify go only
  // while others make up for them.
  const deletable = Math.min(numAvailable - desiredNumberScheduled, shouldNotRunPodsToDelete.length);
  if (deletable > 0) oldPodsToDelete.push(...shouldNotRunPodsToDelete.slice(0, deletable));
  const remainingSurge = Math.min(Math.max(0, maxSurge - numSurge), candidateNewNodes.length);
  await ctx.syncNodes(ds, oldPodsToDelete, [...allowedNewNodes, ...candidateNewNodes.slice(0, remainingSurge)], hash);
}

