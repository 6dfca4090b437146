/**
 * The RollingUpdate strategy: grow the new ReplicaSet within `replicas + maxSurge` pods in total,
 * shrink old ones while at least `replicas − maxUnavailable` pods stay available.
 * Follows kubernetes/kubernetes pkg/controller/deployment/rolling.go.
 */
import type { Deployment, ReplicaSet } from '../../api/index.js';
import { compareByCreationTimestamp, filterActiveReplicaSets, specReplicas } from '../controller-utils.js';
import { syncRolloutStatus } from './progress.js';
import { cleanupDeployment, getAllReplicaSetsAndSyncRevision, scaleReplicaSetAndRecordEvent, type DeploymentSyncContext } from './sync.js';
import * as util from './util/deployment-util.js';

/**
 * `rolloutRolling`: one step of a rolling update — get or create the new RS, scale it up if allowed
 * (and stop there), else scale old RSes down if allowed (and stop there), else clean up history once
 * the rollout is complete; always sync the rollout status.
 */
export async function rolloutRolling(dc: DeploymentSyncContext, d: Deployment, rsList: ReplicaSet[]): Promise<void> {
  const { newRS, oldRSs } = await getAllReplicaSetsAndSyncRevision(dc, d, rsList, true);
  // created when missing, so defined from here on
  if (!newRS) return;
  const allRSs = [...oldRSs, newRS];
  if (await reconcileNewReplicaSet(dc, allRSs, newRS, d)) {
    await syncRolloutStatus(dc, allRSs, newRS, d);
    return;
  }
  if (await reconcileOldReplicaSets(dc, allRSs, filterActiveReplicaSets(oldRSs), newRS, d)) {
    await syncRolloutStatus(dc, allRSs, newRS, d);
    return;
  }
  if (util.deploymentComplete(d, d.status ?? {})) await cleanupDeployment(dc, oldRSs, d);
  await syncRolloutStatus(dc, allRSs, newRS, d);
}

/**
 * `reconcileNewReplicaSet`: scales the new RS down to `replicas` if above it, else up to
 * util.newRSNewReplicas (bounded by replicas + maxSurge in total). Returns whether it scaled.
 */
export async function reconcileNewReplicaSet(dc: DeploymentSyncContext, allRSs: ReplicaSet[], newRS: ReplicaSet, d: Deployment): Promise<boolean> {
  const replicas = specReplicas(d);
  if (specReplicas(newRS) === replicas) return false;
  if (specReplicas(newRS) > replicas) return (await scaleReplicaSetAndRecordEvent(dc, newRS, replicas, d)).scaled;
  const newReplicasCount = util.newRSNewReplicas(d, allRSs, newRS);
  return (await scaleReplicaSetAndRecordEvent(dc, newRS, newReplicasCount, d)).scaled;
}

/**
 * `reconcileOldReplicaSets`: scales old RSes down as far as availability allows. Returns whether
 * anything was scaled.
 *
 * maxScaledDown = allPodsCount − minAvailable − newRSUnavailablePodCount, where allPodsCount is the
 * sum of all RS specs, minAvailable = replicas − maxUnavailable, and newRSUnavailablePodCount =
 * newRS.spec − newRS.available: unavailable new pods must not let us remove available old ones.
 *
 * Worked example (upstream's): 10 replicas, maxUnavailable 2, maxSurge 3.
 * - Case 1: the Deployment is updated; the new RS is created with 3 replicas, the old RS is scaled
 *   down to 8 and the new RS up to 5. The new pods crash-loop and never become available.
 *   allPodsCount 13, minAvailable 8, newRSUnavailable 5 ⇒ maxScaledDown = 13 − 8 − 5 = 0. A node
 *   failure makes one old pod unavailable — still 0, the old RS is not scaled down. The user rolls
 *   back to the good template: the old RS becomes the new one with 8 − 1 = 7 available of 8, so
 *   newRSUnavailable = 1 and maxScaledDown = 13 − 8 − 1 = 4: four crash-looping pods are removed
 *   (cleanupUnhealthyReplicas), leaving 9, and the RS can grow back to 10.
 * - Case 2: same, but a third template is pushed instead ("roll over"). The newest RS starts at 0
 *   replicas (13 pods already), so newRSUnavailable = 0 and the two old RSes may shed
 *   13 − 8 − 0 = 5 (the 5 crash-looping pods first), letting the newest RS grow by 5.
 */
export async function reconcileOldReplicaSets(
  dc: DeploymentSyncContext,
  allRSs: ReplicaSet[],
  oldRSs: ReplicaSet[],
  newRS: ReplicaSet,
  d: Deployment,
): Promise<boolean> {
  if (util.getReplicaCountForReplicaSets(oldRSs) === 0) return false;
  const allPodsCount = util.getReplicaCountForReplicaSets(allRSs);
  const minAvailable = specReplicas(d) - util.maxUnavailable(d);
  const newRSUnavailablePodCount = specReplicas(newRS) - (newRS.status?.availableReplicas ?? 0);
  const maxScaledDown = allPodsCount - minAvailable - newRSUnavailablePodCount;
  if (maxScaledDown <= 0) return false;
  // Unhealthy replicas first: removing them costs no availability, and they would otherwise block
  // the rollout until it times out (kubernetes#16737).
  const { oldRSs: cleaned, cleanupCount } = await cleanupUnhealthyReplicas(dc, oldRSs, d, maxScaledDown);
  const scaledDownCount = await scaleDownOldReplicaSetsForRollingUpdate(dc, [...cleaned, newRS], cleaned, d);
  return cleanupCount + scaledDownCount > 0;
}

/**
 * `cleanupUnhealthyReplicas`: oldest first, scales each old RS down by its unavailable replicas
 * (spec − available), at most `maxCleanupCount` in total. The RS controller deletes not-ready,
 * unscheduled and pending pods first, so this removes exactly the unhealthy ones. Returns the old
 * RSes (scaled ones replaced by the server's copy) and the number of replicas removed.
 */
export async function cleanupUnhealthyReplicas(
  dc: DeploymentSyncContext,
  oldRSs: ReplicaSet[],
  d: Deployment,
  maxCleanupCount: number,
): Promise<{ oldRSs: ReplicaSet[]; cleanupCount: number }> {
  const sorted = [...oldRSs].sort(compareByCreationTimestamp);
  let total = 0;
  for (const [i, rs] of sorted.entries()) {
    if (total >= maxCleanupCount) break;
    const replicas = specReplicas(rs);
    const available = rs.status?.availableReplicas ?? 0;
    if (replicas === 0 || replicas === available) continue;
    const scaledDownCount = Math.min(maxCleanupCount - total, replicas - available);
    const newReplicasCount = replicas - scaledDownCount;
    if (newReplicasCount > replicas) {
      throw new Error(`when cleaning up unhealthy replicas, got invalid request to scale down ${rs.metadata?.namespace ?? ''}/${rs.metadata?.name ?? ''} ${replicas} -> ${newReplicasCount}`);
    }
    const { rs: updated } = await scaleReplicaSetAndRecordEvent(dc, rs, newReplicasCount, d);
    total += scaledDownCount;
    sorted[i] = updated;
  }
  return { oldRSs: sorted, cleanupCount: total };
}

/**
 * `scaleDownOldReplicaSetsForRollingUpdate`: while more than minAvailable pods are available across
 * `allRSs`, scales old RSes down (oldest first) by up to `available − minAvailable` in total.
 * Returns the number of replicas removed.
 */
export async function scaleDownOldReplicaSetsForRollingUpdate(
  dc: DeploymentSyncContext,
  allRSs: ReplicaSet[],
  oldRSs: ReplicaSet[],
  d: Deployment,
): Promise<number> {
  const minAvailable = specReplicas(d) - util.maxUnavailable(d);
  const availablePodCount = util.getAvailableReplicaCountForReplicaSets(allRSs);
  if (availablePodCount <= minAvailable) return 0;
  const totalScaleDownCount = availablePodCount - minAvailable;
  let total = 0;
  for (const rs of [...oldRSs].sort(compareByCreationTimestamp)) {
    if (total >= totalScaleDownCount) break;
    const replicas = specReplicas(rs);
    if (replicas === 0) continue;
    const scaleDownCount = Math.min(replicas, totalScaleDownCount - total);
    await scaleReplicaSetAndRecordEvent(dc, rs, replicas - scaleDownCount, d);
    total += scaleDownCount;
  }
  return total;
}
