/**
 * The legacy rollback path: a Deployment annotated `deprecated.deployment.rollback.to: "<revision>"`
 * (what extensions/v1beta1's `spec.rollbackTo` round-trips to) gets the pod template of that
 * revision's ReplicaSet and the annotation removed. `kubectl rollout undo` does not use it (it patches
 * the template client-side); the controller then just sees a template change.
 * Follows kubernetes/kubernetes pkg/controller/deployment/rollback.go.
 *
 * Events (reasons from deployment_util.go):
 * | type    | reason                              | message                                                              |
 * |---------|-------------------------------------|----------------------------------------------------------------------|
 * | Normal  | DeploymentRollback                  | `Rolled back deployment "<name>" to revision <n>`                    |
 * | Warning | DeploymentRollbackRevisionNotFound  | `Unable to find last revision.` (revision 0, no history)             |
 * | Warning | DeploymentRollbackRevisionNotFound  | `Unable to find the revision to rollback to.`                        |
 * | Warning | DeploymentRollbackTemplateUnchanged | `The rollback revision contains the same template as current deployment "<name>"` |
 */
import type { Deployment, ReplicaSet } from '../../api/index.js';
import { deepCopy } from '../../machinery/meta/index.js';
import { getAllReplicaSetsAndSyncRevision, recordEvent, type DeploymentSyncContext } from './sync.js';
import * as util from './util/deployment-util.js';

export const ROLLBACK_REVISION_NOT_FOUND = 'DeploymentRollbackRevisionNotFound';
export const ROLLBACK_TEMPLATE_UNCHANGED = 'DeploymentRollbackTemplateUnchanged';
export const ROLLBACK_DONE = 'DeploymentRollback';

/**
 * `getRollbackTo`: the revision the legacy annotation asks for (0 = the previous one), or undefined
 * when it is absent, empty or not an integer (an invalid value is ignored, as upstream).
 */
export function getRollbackTo(d: Deployment): number | undefined {
  const v = d.metadata?.annotations?.[util.DEPRECATED_ROLLBACK_TO_ANNOTATION];
  if (v === undefined || !/^[+-]?\d+$/.test(v)) return undefined;
  return Number(v);
}

/**
 * `rollback`: rolls `d` back to the annotated revision (0: `LastRevision`, the second highest), by
 * copying that ReplicaSet's template (minus pod-template-hash) and annotations onto the Deployment;
 * the next sync then re-uses that ReplicaSet as the new one and gives it revision max + 1. Always
 * removes the annotation with an update of the Deployment; throws that update's error.
 */
export async function rollback(dc: DeploymentSyncContext, d: Deployment, rsList: ReplicaSet[]): Promise<void> {
  const { newRS, oldRSs } = await getAllReplicaSetsAndSyncRevision(dc, d, rsList, true);
  const allRSs = newRS ? [...oldRSs, newRS] : oldRSs;
  let target = getRollbackTo(d) ?? 0;
  if (target === 0) {
    target = util.lastRevision(allRSs);
    if (target === 0) {
      recordEvent(dc, d, 'Warning', ROLLBACK_REVISION_NOT_FOUND, 'Unable to find last revision.');
      await updateDeploymentAndClearRollbackTo(dc, d);
      return;
    }
  }
  const rs = allRSs.find((r) => util.revision(r) === target);
  if (!rs) {
    recordEvent(dc, d, 'Warning', ROLLBACK_REVISION_NOT_FOUND, 'Unable to find the revision to rollback to.');
    await updateDeploymentAndClearRollbackTo(dc, d);
    return;
  }
  if (await rollbackToTemplate(dc, d, rs)) {
    recordEvent(dc, d, 'Normal', ROLLBACK_DONE, `Rolled back deployment ${JSON.stringify(d.metadata?.name ?? '')} to revision ${target}`);
  }
}

/**
 * `rollbackToTemplate`: unless `rs` already has the Deployment's template (then a
 * DeploymentRollbackTemplateUnchanged warning), sets the template from `rs` and the Deployment's
 * annotations to `rs`'s (skip-listed ones kept from the Deployment) — so `kubernetes.io/change-cause`
 * follows the revision rolled back to. Clears the request either way. Returns whether it rolled back.
 */
async function rollbackToTemplate(dc: DeploymentSyncContext, d: Deployment, rs: ReplicaSet): Promise<boolean> {
  let performed = false;
  if (!util.equalIgnoreHash(d.spec?.template, rs.spec?.template)) {
    util.setFromReplicaSetTemplate(d, rs.spec?.template ?? {});
    util.setDeploymentAnnotationsTo(d, rs);
    performed = true;
  } else {
    const msg = `The rollback revision contains the same template as current deployment ${JSON.stringify(d.metadata?.name ?? '')}`;
    recordEvent(dc, d, 'Warning', ROLLBACK_TEMPLATE_UNCHANGED, msg);
  }
  await updateDeploymentAndClearRollbackTo(dc, d);
  return performed;
}

/** `updateDeploymentAndClearRollbackTo`: removes the annotation and PUTs the Deployment (spec and metadata). */
async function updateDeploymentAndClearRollbackTo(dc: DeploymentSyncContext, d: Deployment): Promise<void> {
  const annotations = { ...(d.metadata?.annotations ?? {}) };
  delete annotations[util.DEPRECATED_ROLLBACK_TO_ANNOTATION];
  const updated = deepCopy({ ...d, metadata: { ...d.metadata, annotations } });
  await dc.client.apps.deployments(d.metadata?.namespace).update(updated);
}
