/**
 * The Recreate strategy: scale every old ReplicaSet to 0, wait until no old pod runs, then create and
 * scale up the new ReplicaSet — old and new pods never overlap.
 * Follows kubernetes/kubernetes pkg/controller/deployment/recreate.go.
 */
import type { Deployment, Pod, ReplicaSet } from '../../api/index.js';
import { filterActiveReplicaSets, specReplicas } from '../controller-utils.js';
import { syncRolloutStatus } from './progress.js';
import { cleanupDeployment, getAllReplicaSetsAndSyncRevision, scaleReplicaSetAndRecordEvent, type DeploymentSyncContext } from './sync.js';
import * as util from './util/deployment-util.js';

/**
 * `rolloutRecreate`: one step of a Recreate rollout. `podMap` maps each owned RS's UID to its pods
 * (see DeploymentController.getPodMapForDeployment).
 */
export async function rolloutRecreate(dc: DeploymentSyncContext, d: Deployment, rsList: ReplicaSet[], podMap: ReadonlyMap<string, Pod[]>): Promise<void> {
  // Do not create the new RS yet: it must not scale up before the old ones are down.
  let { newRS, oldRSs } = await getAllReplicaSetsAndSyncRevision(dc, d, rsList, false);
  let allRSs = [...oldRSs, newRS];
  if (await scaleDownOldReplicaSetsForRecreate(dc, filterActiveReplicaSets(oldRSs), d)) {
    await syncRolloutStatus(dc, allRSs, newRS, d);
    return;
  }
  if (oldPodsRunning(newRS, oldRSs, podMap)) {
    await syncRolloutStatus(dc, allRSs, newRS, d);
    return;
  }
  if (!newRS) {
    ({ newRS, oldRSs } = await getAllReplicaSetsAndSyncRevision(dc, d, rsList, true));
    allRSs = [...oldRSs, newRS];
  }
  if (newRS) await scaleReplicaSetAndRecordEvent(dc, newRS, specReplicas(d), d);
  if (util.deploymentComplete(d, d.status ?? {})) await cleanupDeployment(dc, oldRSs, d);
  await syncRolloutStatus(dc, allRSs, newRS, d);
}

/** `scaleDownOldReplicaSetsForRecreate`: every old RS to 0. Returns whether any was scaled. */
export async function scaleDownOldReplicaSetsForRecreate(dc: DeploymentSyncContext, oldRSs: ReplicaSet[], d: Deployment): Promise<boolean> {
  let scaled = false;
  for (const rs of oldRSs) {
    if (specReplicas(rs) === 0) continue;
    if ((await scaleReplicaSetAndRecordEvent(dc, rs, 0, d)).scaled) scaled = true;
  }
  return scaled;
}

/**
 * `oldPodsRunning`: an old RS still reports replicas, or a pod of an old RS is in a non-terminal
 * phase (Unknown counts as running: the node may just be unreachable).
 */
export function oldPodsRunning(newRS: ReplicaSet | undefined, oldRSs: readonly ReplicaSet[], podMap: ReadonlyMap<string, Pod[]>): boolean {
  if (util.getActualReplicaCountForReplicaSets(oldRSs) > 0) return true;
  for (const [rsUid, pods] of podMap) {
    if (newRS && newRS.metadata?.uid === rsUid) continue;
    for (const pod of pods) {
      const phase = pod.status?.phase;
      if (phase !== 'Failed' && phase !== 'Succeeded') return true;
    }
  }
  return false;
}
