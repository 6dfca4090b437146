/**
 * The Deployment controller's shared sync phases: finding/creating the new ReplicaSet and syncing
 * revisions, scaling (including proportional scaling of a rollout in progress), history cleanup and
 * status. Follows kubernetes/kubernetes pkg/controller/deployment/sync.go.
 *
 * Every function takes the sync context `dc` and a Deployment `d` that is a private, mutable deep copy
 * for the current sync (upstream's `d := deployment.DeepCopy()`); status writes update it in place.
 * ReplicaSets come from the cache (frozen): they are copied before being changed.
 */
import type { Deployment, DeploymentStatus, LabelSelector, ReplicaSet } from '../../api/index.js';
import type { Clientset } from '../../client/index.js';
import type { Lister } from '../../informers/index.js';
import { errorMessage, isAlreadyExists, isNotFound } from '../../machinery/errors/index.js';
import { computeHash } from '../../machinery/hash/index.js';
import { deepCopy, getControllerOf, newControllerRef, semanticDeepEqual } from '../../machinery/meta/index.js';
import type { Clock } from '../../util/clock/index.js';
import { NAMESPACE_TERMINATING_CAUSE, compareBySizeNewer, compareBySizeOlder, filterActiveReplicaSets, hasStatusCause, specReplicas } from '../controller-utils.js';
import { withTypeMeta, type EventRecorder } from '../../client/record/index.js';
import * as util from './util/deployment-util.js';

/** apps/v1 Deployment, for owner references and events. */
export const DEPLOYMENT_KIND = { apiVersion: 'apps/v1', kind: 'Deployment' } as const;

/** What the sync phases need from the controller. */
export interface DeploymentSyncContext {
  client: Clientset;
  recorder: EventRecorder;
  clock: Clock;
  rsLister: Lister<ReplicaSet>;
  /** Sync `d` again after `ms`. */
  enqueueAfter(d: Deployment, ms: number): void;
  /** Sync `d` again after its rate-limited backoff. */
  enqueueRateLimited(d: Deployment): void;
}

/** Records a Normal/Warning event about the Deployment. */
export function recordEvent(dc: DeploymentSyncContext, d: Deployment, type: 'Normal' | 'Warning', reason: string, message: string): void {
  dc.recorder.event(withTypeMeta(d, DEPLOYMENT_KIND.apiVersion, DEPLOYMENT_KIND.kind), type, reason, message);
}

/**
 * PUTs `d` (with its current status and annotations) to `/status` and adopts the returned
 * resourceVersion, so a later status write in the same sync does not conflict with this one
 * (upstream ignores the returned object and lets such writes conflict and requeue).
 */
export async function updateDeploymentStatus(dc: DeploymentSyncContext, d: Deployment): Promise<void> {
  const updated = await dc.client.apps.deployments(d.metadata?.namespace).updateStatus(d);
  const rv = updated.metadata?.resourceVersion;
  if (rv !== undefined) d.metadata = { ...d.metadata, resourceVersion: rv };
}

/** `syncStatusOnly`: only syncs revisions and status (the Deployment is being deleted). */
export async function syncStatusOnly(dc: DeploymentSyncContext, d: Deployment, rsList: ReplicaSet[]): Promise<void> {
  const { newRS, oldRSs } = await getAllReplicaSetsAndSyncRevision(dc, d, rsList, false);
  await syncDeploymentStatus(dc, [...oldRSs, newRS], newRS, d);
}

/**
 * `sync`: for a paused Deployment or a scaling event: scales the ReplicaSets (never creates a new
 * one), cleans up old ones while paused, and syncs status.
 */
export async function sync(dc: DeploymentSyncContext, d: Deployment, rsList: ReplicaSet[]): Promise<void> {
  const { newRS, oldRSs } = await getAllReplicaSetsAndSyncRevision(dc, d, rsList, false);
  await scale(dc, d, newRS, oldRSs);
  if (d.spec?.paused) await cleanupDeployment(dc, oldRSs, d);
  await syncDeploymentStatus(dc, [...oldRSs, newRS], newRS, d);
}

/**
 * `checkPausedConditions`: with a progress deadline, records pausing (Progressing=Unknown
 * DeploymentPaused "Deployment is paused") and resuming (DeploymentResumed "Deployment is resumed"),
 * so the deadline is not counted while paused; never overwrites ProgressDeadlineExceeded.
 */
export async function checkPausedConditions(dc: DeploymentSyncContext, d: Deployment): Promise<void> {
  if (!util.hasProgressDeadline(d)) return;
  const cond = util.getDeploymentCondition(d.status, 'Progressing');
  if (cond?.reason === util.TIMED_OUT_REASON) return;
  const pausedCondExists = cond?.reason === util.PAUSED_DEPLOY_REASON;
  const now = dc.clock.now();
  let condition;
  if (d.spec?.paused && !pausedCondExists) {
    condition = util.newDeploymentCondition('Progressing', 'Unknown', util.PAUSED_DEPLOY_REASON, 'Deployment is paused', now);
  } else if (!d.spec?.paused && pausedCondExists) {
    condition = util.newDeploymentCondition('Progressing', 'Unknown', util.RESUMED_DEPLOY_REASON, 'Deployment is resumed', now);
  } else {
    return;
  }
  util.setDeploymentCondition((d.status ??= {}), condition);
  await updateDeploymentStatus(dc, d);
}

/**
 * `getAllReplicaSetsAndSyncRevision`: splits `rsList` into the new ReplicaSet (created when
 * `createIfNotExisted` and missing) and all old ones, syncing the revision annotations of the new RS
 * and the Deployment.
 */
export async function getAllReplicaSetsAndSyncRevision(
  dc: DeploymentSyncContext,
  d: Deployment,
  rsList: ReplicaSet[],
  createIfNotExisted: boolean,
): Promise<{ newRS: ReplicaSet | undefined; oldRSs: ReplicaSet[] }> {
  const { allOldRSs } = util.findOldReplicaSets(d, rsList);
  const newRS = await getNewReplicaSet(dc, d, rsList, allOldRSs, createIfNotExisted);
  return { newRS, oldRSs: allOldRSs };
}

/** `CloneSelectorAndAddLabel`: `selector` with matchLabels[key] = value added. */
function cloneSelectorAndAddLabel(selector: LabelSelector | undefined, key: string, value: string): LabelSelector {
  const out: LabelSelector = { matchLabels: { ...(selector?.matchLabels ?? {}), [key]: value } };
  if (selector?.matchExpressions) out.matchExpressions = deepCopy(selector.matchExpressions);
  return out;
}

/**
 * `getNewReplicaSet`: the ReplicaSet running the Deployment's current template.
 * - Existing: its annotations (copied Deployment annotations, revision = max(old) + 1 when higher) and
 *   minReadySeconds are updated when stale; otherwise the Deployment takes its revision, and a
 *   Progressing=True FoundNewReplicaSet condition when it has none.
 * - Missing and `createIfNotExisted`: creates `<name>-<hash>` with the pod-template-hash label in its
 *   labels, selector and template, sized by newRSNewReplicas, then sets the Deployment's revision and
 *   Progressing=True NewReplicaSetCreated. On AlreadyExists, an equal RS we own is used; otherwise it
 *   is a hash collision: status.collisionCount + 1 is written and the AlreadyExists error thrown (the
 *   retry computes another hash). Other create errors set Progressing=False ReplicaSetCreateError.
 */
export async function getNewReplicaSet(
  dc: DeploymentSyncContext,
  d: Deployment,
  rsList: ReplicaSet[],
  oldRSs: ReplicaSet[],
  createIfNotExisted: boolean,
): Promise<ReplicaSet | undefined> {
  const namespace = d.metadata?.namespace ?? '';
  const rsClient = dc.client.apps.replicaSets(namespace);
  const existingNewRS = util.findNewReplicaSet(d, rsList);
  const newRevision = util.maxRevision(oldRSs) + 1;
  const now = dc.clock.now();

  if (existingNewRS) {
    const rsCopy = deepCopy(existingNewRS);
    const annotationsUpdated = util.setNewReplicaSetAnnotations(d, rsCopy, newRevision, true);
    const minReadySeconds = d.spec?.minReadySeconds ?? 0;
    if (annotationsUpdated || (rsCopy.spec?.minReadySeconds ?? 0) !== minReadySeconds) {
      (rsCopy.spec ??= { selector: {} }).minReadySeconds = minReadySeconds;
      return rsClient.update(rsCopy);
    }
    let needsUpdate = util.setDeploymentRevision(d, rsCopy.metadata?.annotations?.[util.REVISION_ANNOTATION] ?? '');
    // Progress was not tracked before (e.g. the deadline was just set): start from this RS.
    if (util.hasProgressDeadline(d) && !util.getDeploymentCondition(d.status, 'Progressing')) {
      const msg = `Found new replica set ${JSON.stringify(rsCopy.metadata?.name ?? '')}`;
      util.setDeploymentCondition((d.status ??= {}), util.newDeploymentCondition('Progressing', 'True', util.FOUND_NEW_RS_REASON, msg, now));
      needsUpdate = true;
    }
    if (needsUpdate) await updateDeploymentStatus(dc, d);
    return rsCopy;
  }
  if (!createIfNotExisted) return undefined;

  const template = deepCopy(d.spec?.template ?? {});
  const hash = computeHash(template, d.status?.collisionCount);
  (template.metadata ??= {}).labels = { ...(template.metadata.labels ?? {}), [util.DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY]: hash };
  const name = `${d.metadata?.name ?? ''}-${hash}`;
  const newRS: ReplicaSet = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      // Deterministic, so a retried create after a lost response finds its own RS.
      name,
      namespace,
      ownerReferences: [newControllerRef({ metadata: d.metadata }, DEPLOYMENT_KIND)],
      labels: { ...template.metadata.labels },
    },
    spec: {
      replicas: 0,
      minReadySeconds: d.spec?.minReadySeconds ?? 0,
      selector: cloneSelectorAndAddLabel(d.spec?.selector, util.DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY, hash),
      template,
    },
  };
  const newReplicasCount = util.newRSNewReplicas(d, [...oldRSs, newRS], newRS);
  (newRS.spec ??= { selector: {} }).replicas = newReplicasCount;
  util.setNewReplicaSetAnnotations(d, newRS, newRevision, false);

  let createdRS: ReplicaSet;
  let alreadyExists = false;
  try {
    createdRS = await rsClient.create(newRS);
  } catch (err) {
    if (isAlreadyExists(err)) {
      alreadyExists = true;
      const rs = dc.rsLister.namespace(namespace).get(name);
      if (!rs) throw err;
      const ref = getControllerOf(rs);
      if (!(ref && ref.uid === d.metadata?.uid && util.equalIgnoreHash(d.spec?.template, rs.spec?.template))) {
        // A different template hashed to the same name: perturb the hash on the next attempt.
        const status = (d.status ??= {});
        status.collisionCount = (status.collisionCount ?? 0) + 1;
        await updateDeploymentStatus(dc, d);
        throw err;
      }
      createdRS = rs;
    } else if (hasStatusCause(err, NAMESPACE_TERMINATING_CAUSE)) {
      throw err;
    } else {
      const msg = `Failed to create new replica set ${JSON.stringify(name)}: ${errorMessage(err)}`;
      if (util.hasProgressDeadline(d)) {
        util.setDeploymentCondition((d.status ??= {}), util.newDeploymentCondition('Progressing', 'False', util.FAILED_RS_CREATE_REASON, msg, now));
        // The create error is the one to report; a failing status write adds nothing.
        await updateDeploymentStatus(dc, d).catch(() => undefined);
      }
      recordEvent(dc, d, 'Warning', util.FAILED_RS_CREATE_REASON, msg);
      throw err;
    }
  }
  if (!alreadyExists && newReplicasCount > 0) {
    recordEvent(dc, d, 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${name} from 0 to ${newReplicasCount}`);
  }
  let needsUpdate = util.setDeploymentRevision(d, String(newRevision));
  if (!alreadyExists && util.hasProgressDeadline(d)) {
    const msg = `Created new replica set ${JSON.stringify(name)}`;
    util.setDeploymentCondition((d.status ??= {}), util.newDeploymentCondition('Progressing', 'True', util.NEW_REPLICA_SET_REASON, msg, now));
    needsUpdate = true;
  }
  if (needsUpdate) await updateDeploymentStatus(dc, d);
  return createdRS;
}

/**
 * `scale`: brings the ReplicaSets' total to the Deployment's size outside of a rollout step.
 * - One active RS (or none: the new or newest one): it gets `replicas`.
 * - New RS saturated: every old active RS goes to 0.
 * - RollingUpdate with several active RSes (scaled mid-rollout): the difference between
 *   `replicas + maxSurge` (0 when replicas is 0) and the current total is spread over the active RSes in
 *   proportion to their size (see util.getReplicaSetFraction); largest first — newer first when
 *   growing, older first when shrinking — and the rounding leftover goes to the largest. E.g. 10
 *   replicas, maxSurge 3, RSes at 8 (old) and 5 (new), scaled to 20 (maxSurge 5): 12 to add;
 *   8 → 8 + 7 = 15, 5 → 5 + 5 = 10, total 25 = 20 + 5.
 */
export async function scale(dc: DeploymentSyncContext, d: Deployment, newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[]): Promise<void> {
  const replicas = specReplicas(d);
  const activeOrLatest = util.findActiveOrLatest(newRS, oldRSs);
  if (activeOrLatest) {
    if (specReplicas(activeOrLatest) === replicas) return;
    await scaleReplicaSetAndRecordEvent(dc, activeOrLatest, replicas, d);
    return;
  }
  if (util.isSaturated(d, newRS)) {
    for (const old of filterActiveReplicaSets(oldRSs)) await scaleReplicaSetAndRecordEvent(dc, old, 0, d);
    return;
  }
  if (!util.isRollingUpdate(d)) return;
  const allRSs = filterActiveReplicaSets([...oldRSs, newRS]);
  const allowedSize = replicas > 0 ? replicas + util.maxSurge(d) : 0;
  const toAdd = allowedSize - util.getReplicaCountForReplicaSets(allRSs);
  let scalingOperation = '';
  if (toAdd > 0) {
    allRSs.sort(compareBySizeNewer);
    scalingOperation = 'up';
  } else if (toAdd < 0) {
    allRSs.sort(compareBySizeOlder);
    scalingOperation = 'down';
  }
  const sizes = allRSs.map((rs) => specReplicas(rs));
  let added = 0;
  if (toAdd !== 0) {
    allRSs.forEach((rs, i) => {
      const proportion = util.getReplicaSetProportion(rs, d, toAdd, added);
      sizes[i] = specReplicas(rs) + proportion;
      added += proportion;
    });
    sizes[0] = Math.max(0, (sizes[0] ?? 0) + toAdd - added);
  }
  for (const [i, rs] of allRSs.entries()) {
    await scaleReplicaSet(dc, rs, sizes[i] ?? 0, d, scalingOperation);
  }
}

/**
 * `scaleReplicaSetAndRecordEvent`: scales `rs` to `newScale` unless it is there already. Returns
 * whether it scaled and the resulting RS.
 */
export async function scaleReplicaSetAndRecordEvent(
  dc: DeploymentSyncContext,
  rs: ReplicaSet,
  newScale: number,
  d: Deployment,
): Promise<{ scaled: boolean; rs: ReplicaSet }> {
  if (specReplicas(rs) === newScale) return { scaled: false, rs };
  return scaleReplicaSet(dc, rs, newScale, d, specReplicas(rs) < newScale ? 'up' : 'down');
}

/**
 * `scaleReplicaSet`: PUTs `rs` with spec.replicas = `newScale` and the Deployment's desired/max
 * replicas annotations, when either differs; records ScalingReplicaSet "Scaled <op> replica set <rs>
 * from <old> to <new>" when the size changed. Throws the update error.
 */
export async function scaleReplicaSet(
  dc: DeploymentSyncContext,
  rs: ReplicaSet,
  newScale: number,
  d: Deployment,
  scalingOperation: string,
): Promise<{ scaled: boolean; rs: ReplicaSet }> {
  const oldScale = specReplicas(rs);
  const sizeNeedsUpdate = oldScale !== newScale;
  const desired = specReplicas(d);
  const max = desired + util.maxSurge(d);
  if (!sizeNeedsUpdate && !util.replicasAnnotationsNeedUpdate(rs, desired, max)) return { scaled: false, rs };
  const rsCopy = deepCopy(rs);
  (rsCopy.spec ??= { selector: {} }).replicas = newScale;
  util.setReplicasAnnotations(rsCopy, desired, max);
  const updated = await dc.client.apps.replicaSets(rsCopy.metadata?.namespace).update(rsCopy);
  if (sizeNeedsUpdate) {
    recordEvent(dc, d, 'Normal', 'ScalingReplicaSet', `Scaled ${scalingOperation} replica set ${updated.metadata?.name ?? ''} from ${oldScale} to ${newScale}`);
  }
  return { scaled: sizeNeedsUpdate, rs: updated };
}

/**
 * `cleanupDeployment`: with a revisionHistoryLimit, deletes the oldest (by revision) old ReplicaSets
 * beyond the limit that are fully scaled down (spec and status replicas 0, status observed the
 * current generation) and not already being deleted. NotFound is ignored.
 */
export async function cleanupDeployment(dc: DeploymentSyncContext, oldRSs: ReplicaSet[], d: Deployment): Promise<void> {
  if (!util.hasRevisionHistoryLimit(d)) return;
  const cleanable = oldRSs.filter((rs) => !rs.metadata?.deletionTimestamp);
  const diff = cleanable.length - (d.spec?.revisionHistoryLimit ?? 0);
  if (diff <= 0) return;
  cleanable.sort(util.compareReplicaSetsByRevision);
  for (const rs of cleanable.slice(0, diff)) {
    if ((rs.status?.replicas ?? 0) !== 0 || specReplicas(rs) !== 0) continue;
    if ((rs.metadata?.generation ?? 0) > (rs.status?.observedGeneration ?? 0)) continue;
    try {
      await dc.client.apps.replicaSets(rs.metadata?.namespace).delete(rs.metadata?.name ?? '');
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}

/**
 * `calculateStatus`: the Deployment status from its ReplicaSets — replicas/ready/available summed over
 * RS statuses, updatedReplicas from the new RS, unavailableReplicas = max(0, Σ spec.replicas −
 * available) — plus the Available condition (True MinimumReplicasAvailable when available ≥
 * replicas − maxUnavailable). Other conditions are carried over. `now` in ms.
 */
export function calculateStatus(allRSs: readonly (ReplicaSet | undefined)[], newRS: ReplicaSet | undefined, d: Deployment, now: number): DeploymentStatus {
  const available = util.getAvailableReplicaCountForReplicaSets(allRSs);
  const total = util.getReplicaCountForReplicaSets(allRSs);
  const status: DeploymentStatus = {
    observedGeneration: d.metadata?.generation ?? 0,
    replicas: util.getActualReplicaCountForReplicaSets(allRSs),
    updatedReplicas: util.getActualReplicaCountForReplicaSets([newRS]),
    readyReplicas: util.getReadyReplicaCountForReplicaSets(allRSs),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, total - available),
  };
  if (d.status?.collisionCount !== undefined) status.collisionCount = d.status.collisionCount;
  if (d.status?.conditions) status.conditions = [...d.status.conditions];
  if (available >= specReplicas(d) - util.maxUnavailable(d)) {
    util.setDeploymentCondition(status, util.newDeploymentCondition('Available', 'True', util.MINIMUM_REPLICAS_AVAILABLE, 'Deployment has minimum availability.', now));
  } else {
    util.setDeploymentCondition(status, util.newDeploymentCondition('Available', 'False', util.MINIMUM_REPLICAS_UNAVAILABLE, 'Deployment does not have minimum availability.', now));
  }
  return status;
}

/** The counters of a status with unset meaning 0, as Go's zero values (omitempty on the wire). */
const STATUS_COUNTERS = ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas'] as const;

/** Status equality where an absent counter equals 0 and absent conditions equal none. */
export function deploymentStatusEqual(a: DeploymentStatus | undefined, b: DeploymentStatus | undefined): boolean {
  for (const k of STATUS_COUNTERS) if ((a?.[k] ?? 0) !== (b?.[k] ?? 0)) return false;
  return a?.collisionCount === b?.collisionCount && semanticDeepEqual(a?.conditions ?? [], b?.conditions ?? []);
}

/** `syncDeploymentStatus`: writes {@link calculateStatus} when it differs from the current status. */
export async function syncDeploymentStatus(dc: DeploymentSyncContext, allRSs: (ReplicaSet | undefined)[], newRS: ReplicaSet | undefined, d: Deployment): Promise<void> {
  const newStatus = calculateStatus(allRSs, newRS, d, dc.clock.now());
  if (deploymentStatusEqual(d.status, newStatus)) return;
  d.status = newStatus;
  await updateDeploymentStatus(dc, d);
}

/**
 * `isScalingEvent`: some active ReplicaSet's desired-replicas annotation differs from
 * spec.replicas, i.e. the Deployment was resized since the RSes were last scaled.
 */
export async function isScalingEvent(dc: DeploymentSyncContext, d: Deployment, rsList: ReplicaSet[]): Promise<boolean> {
  const { newRS, oldRSs } = await getAllReplicaSetsAndSyncRevision(dc, d, rsList, false);
  for (const rs of filterActiveReplicaSets([...oldRSs, newRS])) {
    const desired = util.getDesiredReplicasAnnotation(rs);
    if (desired !== undefined && desired !== specReplicas(d)) return true;
  }
  return false;
}
