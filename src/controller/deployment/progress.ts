/**
 * Rollout progress: the Progressing and ReplicaFailure conditions and the progress-deadline requeue.
 * Follows kubernetes/kubernetes pkg/controller/deployment/progress.go.
 *
 * Progressing condition (reasons and messages as upstream):
 * | status | reason                   | message                                          | when                                   |
 * |--------|--------------------------|--------------------------------------------------|----------------------------------------|
 * | True   | NewReplicaSetAvailable   | `ReplicaSet "<rs>" has successfully progressed.` | rollout complete                       |
 * | True   | ReplicaSetUpdated        | `ReplicaSet "<rs>" is progressing.`              | any progress (lastUpdateTime refreshed) |
 * | False  | ProgressDeadlineExceeded | `ReplicaSet "<rs>" has timed out progressing.`   | no progress for progressDeadlineSeconds |
 * (`Deployment "<name>" …` instead when there is no new RS.)
 */
import type { Deployment, DeploymentCondition, ReplicaSet } from '../../api/index.js';
import { parseTime } from '../../util/clock/index.js';
import { calculateStatus, deploymentStatusEqual, updateDeploymentStatus, type DeploymentSyncContext } from './sync.js';
import * as util from './util/deployment-util.js';

/**
 * `syncRolloutStatus`: computes the status (calculateStatus), updates the Progressing condition
 * while a rollout is in flight and a deadline is set (removes it when none is), copies the
 * ReplicaFailure condition of the RSes, and writes the status when it changed — otherwise it
 * schedules the progress-deadline check (requeueStuckDeployment).
 */
export async function syncRolloutStatus(dc: DeploymentSyncContext, allRSs: (ReplicaSet | undefined)[], newRS: ReplicaSet | undefined, d: Deployment): Promise<void> {
  const now = dc.clock.now();
  const newStatus = calculateStatus(allRSs, newRS, d, now);
  if (!util.hasProgressDeadline(d)) util.removeDeploymentCondition(newStatus, 'Progressing');

  // A completed rollout seen again (a resync, or scaling without a template change) is not a new
  // rollout: nothing to estimate.
  const currentCond = util.getDeploymentCondition(d.status, 'Progressing');
  const isCompleteDeployment = newStatus.replicas === newStatus.updatedReplicas && currentCond?.reason === util.NEW_RS_AVAILABLE_REASON;
  if (util.hasProgressDeadline(d) && !isCompleteDeployment) {
    const subject = newRS ? `ReplicaSet ${JSON.stringify(newRS.metadata?.name ?? '')}` : `Deployment ${JSON.stringify(d.metadata?.name ?? '')}`;
    if (util.deploymentComplete(d, newStatus)) {
      const msg = `${subject} has successfully progressed.`;
      util.setDeploymentCondition(newStatus, util.newDeploymentCondition('Progressing', 'True', util.NEW_RS_AVAILABLE_REASON, msg, now));
    } else if (util.deploymentProgressing(d, newStatus)) {
      // Progress refreshes lastUpdateTime even with an unchanged reason, which setDeploymentCondition
      // would ignore: replace the condition, keeping lastTransitionTime while it stays True.
      const msg = `${subject} is progressing.`;
      let condition: DeploymentCondition = util.newDeploymentCondition('Progressing', 'True', util.REPLICA_SET_UPDATED_REASON, msg, now);
      if (currentCond) {
        if (currentCond.status === 'True' && currentCond.lastTransitionTime !== undefined) {
          condition = { ...condition, lastTransitionTime: currentCond.lastTransitionTime };
        }
        util.removeDeploymentCondition(newStatus, 'Progressing');
      }
      util.setDeploymentCondition(newStatus, condition);
    } else if (util.deploymentTimedOut(d, newStatus, now)) {
      const msg = `${subject} has timed out progressing.`;
      util.setDeploymentCondition(newStatus, util.newDeploymentCondition('Progressing', 'False', util.TIMED_OUT_REASON, msg, now));
    }
  }

  const replicaFailure = getReplicaFailures(allRSs, newRS)[0];
  if (replicaFailure) util.setDeploymentCondition(newStatus, replicaFailure);
  else util.removeDeploymentCondition(newStatus, 'ReplicaFailure');

  if (deploymentStatusEqual(d.status, newStatus)) {
    requeueStuckDeployment(dc, d, newStatus, now);
    return;
  }
  d.status = newStatus;
  await updateDeploymentStatus(dc, d);
}

/** `getReplicaFailures`: ReplicaFailure conditions of the new RS, else of any RS, as Deployment conditions. */
export function getReplicaFailures(allRSs: readonly (ReplicaSet | undefined)[], newRS: ReplicaSet | undefined): DeploymentCondition[] {
  const of = (rs: ReplicaSet | undefined): DeploymentCondition[] =>
    (rs?.status?.conditions ?? []).filter((c) => c.type === 'ReplicaFailure').map(util.replicaSetToDeploymentCondition);
  const fromNew = of(newRS);
  return fromNew.length > 0 ? fromNew : allRSs.flatMap(of);
}

/**
 * `requeueStuckDeployment`: while a rollout with a deadline is neither complete nor timed out, syncs
 * the Deployment again when its deadline passes, since no event will mark that moment: after
 * lastUpdateTime + progressDeadlineSeconds − now, plus 1 s against rounding skew (updated 3 min ago
 * with a 10 min deadline ⇒ in 7 min 1 s), or at once (rate-limited) when less than 1 s remains.
 * Returns the delay in ms, 0 for "now", −1 when no check is needed.
 */
export function requeueStuckDeployment(dc: DeploymentSyncContext, d: Deployment, newStatus: Parameters<typeof util.deploymentComplete>[1], now: number): number {
  const currentCond = util.getDeploymentCondition(d.status, 'Progressing');
  if (!util.hasProgressDeadline(d) || !currentCond) return -1;
  if (util.deploymentComplete(d, newStatus) || currentCond.reason === util.TIMED_OUT_REASON) return -1;
  const lastUpdate = parseTime(currentCond.lastUpdateTime) ?? 0;
  const after = lastUpdate + (d.spec?.progressDeadlineSeconds ?? 0) * 1000 - now;
  if (after < 1000) {
    dc.enqueueRateLimited(d);
    return 0;
  }
  dc.enqueueAfter(d, after + 1000);
  return after;
}
