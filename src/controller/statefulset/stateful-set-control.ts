/**
 * One sync of one StatefulSet: revisions, then pods (create in order, replace failed and finished
 * pods, fix identity and storage, scale down from the highest ordinal, roll updates in reverse
 * ordinal order down to the partition), then status and history truncation.
 *
 * Follows kubernetes/kubernetes v1.33 pkg/controller/statefulset/stateful_set_control.go:
 * `UpdateStatefulSet`, `performUpdate`, `ListRevisions`, `AdoptOrphanRevisions`, `truncateHistory`,
 * `getStatefulSetRevisions`, `slowStartBatch` (MaxBatchSize 500), `computeReplicaStatus`/`updateStatus`,
 * `processReplica`, `processCondemned`, `runForAll`, `updateStatefulSet`,
 * `updateStatefulSetAfterInvariantEstablished` (MaxUnavailableStatefulSet), `updateStatefulSetStatus`;
 * and stateful_set_status_updater.go `UpdateStatefulSetStatus` (retry on conflict).
 *
 * Differences: failed/succeeded pods are deleted without the RecreatingFailedPod/RecreatingTerminatedPod
 * events (removed upstream in 1.31, kubernetes#123809: the SuccessfulDelete event remains); the status
 * retry re-reads the set from the API rather than the lister.
 */
import type { ControllerRevision, Pod, StatefulSet, StatefulSetStatus } from '../../api/index.js';
import type { Clientset } from '../../client/index.js';
import type { Lister } from '../../informers/index.js';
import { isConflict, isNotFound } from '../../machinery/errors/index.js';
import { selectorFromLabelSelector } from '../../machinery/labels/index.js';
import { parseTime, type Clock } from '../../util/clock/index.js';
import { aggregateErrors, getPodReadyCondition, toError } from '../controller-utils.js';
import {
  compareControllerRevisions,
  createControllerRevision,
  equalRevision,
  findEqualRevisions,
  listControllerRevisions,
  nextRevision,
  updateControllerRevision,
} from '../history/index.js';
import { SLOW_START_INITIAL_BATCH_SIZE, slowStartBatch } from '../pod-control.js';
import type { StatefulPodControl } from './stateful-pod-control.js';
import {
  allowsBurst,
  applyRevision,
  completeRollingUpdate,
  getEndOrdinal,
  getOrdinal,
  getPodRevision,
  getStartOrdinal,
  getStatefulSetMaxUnavailable,
  identityMatches,
  inconsistentStatus,
  isCreated,
  isFailed,
  isPending,
  isRunningAndAvailable,
  isRunningAndReady,
  isSucceeded,
  isTerminating,
  isUnavailable,
  newRevision,
  newVersionedStatefulSetPod,
  podInOrdinalRange,
  storageMatches,
} from './stateful-set-utils.js';

/** `MaxBatchSize`: most concurrent requests of one Parallel batch. */
export const MAX_BATCH_SIZE = 500;
/** Status update attempts on conflict (retry.DefaultRetry's steps). */
const STATUS_UPDATE_ATTEMPTS = 5;

/** What the control needs from its controller. */
export interface StatefulSetControlDeps {
  client: Clientset;
  clock: Clock;
  historyLister: Lister<ControllerRevision>;
  podControl: StatefulPodControl;
  /** The MaxUnavailableStatefulSet feature gate (alpha, off by default in 1.33). */
  maxUnavailableStatefulSet: boolean;
}

/** The outcome of {@link StatefulSetControl.updateStatefulSet}. */
export interface StatefulSetSyncOutcome {
  status: StatefulSetStatus | undefined;
  /** When some ready pod becomes available (minReadySeconds), in ms from now. */
  requeueAfterMs: number | undefined;
}

type Step = (i: number) => Promise<boolean>;

/** `defaultStatefulSetControl`. */
export class StatefulSetControl {
  constructor(private readonly deps: StatefulSetControlDeps) {}

  /**
   * `UpdateStatefulSet`: performs the update (revisions, pods, status) with the revisions `set`
   * controls, then truncates history. Throws the errors of both, together.
   */
  async updateStatefulSet(set: StatefulSet, pods: readonly Pod[]): Promise<StatefulSetSyncOutcome> {
    set = structuredClone(set);
    const revisions = this.listRevisions(set);
    const errs: unknown[] = [];
    let current: ControllerRevision | undefined;
    let update: ControllerRevision | undefined;
    let status: StatefulSetStatus | undefined;
    try {
      const r = await this.getStatefulSetRevisions(set, revisions);
      current = r.current;
      update = r.update;
      status = await this.performUpdate(set, pods, r.current, r.update, r.collisionCount);
    } catch (err) {
      errs.push(err);
    }
    try {
      await this.truncateHistory(set, pods, revisions, current, update);
    } catch (err) {
      errs.push(err);
    }
    const err = aggregateErrors(errs);
    if (err) throw err;
    return { status, requeueAfterMs: this.nextAvailableInMs(set, pods) };
  }

  /** `ListRevisions`: the revisions the set controls or could adopt, sorted older first. */
  listRevisions(set: StatefulSet): ControllerRevision[] {
    return listControllerRevisions(this.deps.historyLister, set, selectorFromLabelSelector(set.spec?.selector));
  }

  /** `performUpdate`: the pod work, then the status (written even when the pod work failed). */
  private async performUpdate(set: StatefulSet, pods: readonly Pod[], current: ControllerRevision, update: ControllerRevision, collisionCount: number): Promise<StatefulSetStatus> {
    const status: StatefulSetStatus = {
      replicas: 0,
      observedGeneration: set.metadata?.generation ?? 0,
      currentRevision: current.metadata?.name ?? '',
      updateRevision: update.metadata?.name ?? '',
      collisionCount,
    };
    let podErr: unknown;
    try {
      await this.updatePods(set, current, update, pods, status);
    } catch (err) {
      podErr = err;
    }
    try {
      await this.updateStatefulSetStatus(set, status);
    } catch (err) {
      podErr ??= err;
    }
    if (podErr !== undefined) throw toError(podErr);
    return status;
  }

  /**
   * `truncateHistory`: deletes the oldest revisions not live (current, update, or some pod's
   * revision) beyond revisionHistoryLimit. `revisions` sorted older first.
   */
  private async truncateHistory(set: StatefulSet, pods: readonly Pod[], revisions: readonly ControllerRevision[], current: ControllerRevision | undefined, update: ControllerRevision | undefined): Promise<void> {
    const live = new Set<string>();
    if (current) live.add(current.metadata?.name ?? '');
    if (update) live.add(update.metadata?.name ?? '');
    for (const p of pods) live.add(getPodRevision(p));
    const history = revisions.filter((r) => !live.has(r.metadata?.name ?? ''));
    const limit = set.spec?.revisionHistoryLimit ?? 10;
    if (limit < 0 || history.length <= limit) return;
    const client = this.deps.client.apps.controllerRevisions(set.metadata?.namespace);
    for (const r of history.slice(0, history.length - limit)) {
      try {
        await client.delete(r.metadata?.name ?? '');
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
  }

  /**
   * `getStatefulSetRevisions`: the update revision is the latest revision when it equals the set's
   * template; an equal older one is renumbered to the next revision (a rollback); otherwise a new one
   * is created (bumping the collision count on name collisions). The current revision is the one
   * status.currentRevision names, else the update revision.
   */
  private async getStatefulSetRevisions(set: StatefulSet, revisions: ControllerRevision[]): Promise<{ current: ControllerRevision; update: ControllerRevision; collisionCount: number }> {
    revisions.sort(compareControllerRevisions);
    const collision = { count: set.status?.collisionCount ?? 0 };
    let update = newRevision(set, nextRevision(revisions), collision.count);
    const equal = findEqualRevisions(revisions, update);
    const last = revisions[revisions.length - 1];
    const lastEqual = equal[equal.length - 1];
    if (lastEqual && equalRevision(last, lastEqual)) {
      update = last as ControllerRevision;
    } else if (lastEqual) {
      update = await updateControllerRevision(this.deps.client, lastEqual, update.revision);
    } else {
      update = await createControllerRevision(this.deps.client, set, update, collision);
    }
    const current = revisions.find((r) => r.metadata?.name === set.status?.currentRevision) ?? update;
    return { current, update, collisionCount: collision.count };
  }

  /**
   * `updateStatefulSet` (the pod part): fills `status` and creates/updates/deletes pods so the set
   * converges: processReplica for every ordinal in range (in order and one step per sync unless
   * Parallel), the retention policy for condemned pods, processCondemned from the highest ordinal,
   * then the rolling update (unless OnDelete). Throws the first API error.
   */
  private async updatePods(set: StatefulSet, current: ControllerRevision, update: ControllerRevision, pods: readonly Pod[], status: StatefulSetStatus): Promise<void> {
    const now = this.deps.clock.now();
    const minReadySeconds = set.spec?.minReadySeconds ?? 0;
    const currentSet = applyRevision(set, current);
    const updateSet = applyRevision(set, update);
    const currentName = current.metadata?.name ?? '';
    const updateName = update.metadata?.name ?? '';
    this.updateStatus(status, minReadySeconds, currentName, updateName, [pods]);

    const start = getStartOrdinal(set);
    const end = getEndOrdinal(set);
    const slots: (Pod | undefined)[] = new Array<Pod | undefined>(Math.max(0, end - start + 1)).fill(undefined);
    const condemned: Pod[] = [];
    for (const pod of pods) {
      if (podInOrdinalRange(pod, set)) slots[getOrdinal(pod) - start] = pod;
      else if (getOrdinal(pod) >= 0) condemned.push(pod);
    }
    const replicas: Pod[] = slots.map((p, i) => p ?? newVersionedStatefulSetPod(currentSet, updateSet, currentName, updateName, start + i));
    condemned.sort((a, b) => getOrdinal(b) - getOrdinal(a));

    let firstUnhealthyPod: Pod | undefined;
    for (const p of replicas) if (!firstUnhealthyPod && isUnavailable(p, minReadySeconds, now)) firstUnhealthyPod = p;
    for (let i = condemned.length - 1; i >= 0; i--) {
      const p = condemned[i] as Pod;
      if (!firstUnhealthyPod && isUnavailable(p, minReadySeconds, now)) firstUnhealthyPod = p;
    }

    if (set.metadata?.deletionTimestamp) return;
    const monotonic = !allowsBurst(set);
    const finish = (): void => this.updateStatus(status, minReadySeconds, currentName, updateName, [replicas, condemned]);

    const ctl = this.deps.podControl;
    const processReplica: Step = async (i) => {
      let pod = replicas[i] as Pod;
      // Failed and Succeeded pods alike are replaced: an evicted or node-rebooted pod's final phase
      // comes from its exit code, not from why it stopped. The new pod is created once the old is gone.
      if (isFailed(pod) || isSucceeded(pod)) {
        if (!isTerminating(pod)) await ctl.deleteStatefulPod(set, pod);
        return true;
      }
      if (!isCreated(pod)) {
        if (ctl.podClaimIsStale(set, pod)) return true;
        await ctl.createStatefulPod(set, pod);
        if (monotonic) return true;
      }
      if (isPending(pod)) await ctl.createMissingPersistentVolumeClaims(set, pod);
      if (monotonic && (isTerminating(pod) || !isRunningAndReady(pod) || !isRunningAndAvailable(pod, minReadySeconds, now))) return true;
      let retentionMatch: boolean;
      try {
        retentionMatch = await ctl.claimsMatchRetentionPolicy(updateSet, pod);
      } catch {
        retentionMatch = true;
      }
      if (identityMatches(set, pod) && storageMatches(set, pod) && retentionMatch) return false;
      pod = structuredClone(pod);
      await ctl.updateStatefulPod(updateSet, pod);
      return false;
    };
    if (await this.runForAll(replicas.length, processReplica, monotonic)) return finish();

    const fixPodClaim: Step = async (i) => {
      const pod = condemned[i] as Pod;
      if (!(await ctl.claimsMatchRetentionPolicy(updateSet, pod))) await ctl.updatePodClaimForRetentionPolicy(updateSet, pod);
      return false;
    };
    if (await this.runForAll(condemned.length, fixPodClaim, monotonic)) return finish();

    // Every replica is now Running, Ready and Available (monotonic): scale down, highest ordinal
    // first, one pod at a time, waiting for unhealthy predecessors. Scaling precedes updates.
    const processCondemned: Step = async (i) => {
      const pod = condemned[i] as Pod;
      if (isTerminating(pod)) return monotonic;
      if (monotonic && pod !== firstUnhealthyPod && (!isRunningAndReady(pod) || !isRunningAndAvailable(pod, minReadySeconds, now))) return true;
      await ctl.deleteStatefulPod(set, pod);
      return true;
    };
    if (await this.runForAll(condemned.length, processCondemned, monotonic)) return finish();
    finish();

    // OnDelete: pods get the update revision only when someone deletes them.
    if (set.spec?.updateStrategy?.type === 'OnDelete') return;
    const updateMin = set.spec?.updateStrategy?.rollingUpdate?.partition ?? 0;
    if (this.deps.maxUnavailableStatefulSet) {
      await this.updateWithMaxUnavailable(set, replicas, updateName, updateMin, status, now);
      return;
    }
    for (let target = replicas.length - 1; target >= updateMin; target--) {
      const pod = replicas[target] as Pod;
      if (getPodRevision(pod) !== updateName && !isTerminating(pod)) {
        await this.deleteIgnoringNotFound(set, pod);
        status.currentReplicas = (status.currentReplicas ?? 0) - 1;
        return;
      }
      if (isUnavailable(pod, minReadySeconds, now)) return;
    }
  }

  /**
   * `updateStatefulSetAfterInvariantEstablished`: with the gate on, deletes up to
   * maxUnavailable − (unavailable pods in range) outdated pods, highest ordinal first, not below the
   * partition; nothing while more than maxUnavailable pods are unavailable.
   */
  private async updateWithMaxUnavailable(set: StatefulSet, replicas: readonly Pod[], updateName: string, updateMin: number, status: StatefulSetStatus, now: number): Promise<void> {
    const minReadySeconds = set.spec?.minReadySeconds ?? 0;
    const maxUnavailable = set.spec?.updateStrategy?.rollingUpdate ? getStatefulSetMaxUnavailable(set, set.spec.replicas ?? 1) : 1;
    const unavailable = replicas.filter((p) => isUnavailable(p, minReadySeconds, now)).length;
    if (unavailable > maxUnavailable) return;
    const toDelete = maxUnavailable - unavailable;
    let deleted = 0;
    for (let target = replicas.length - 1; target >= updateMin && deleted < toDelete; target--) {
      const pod = replicas[target] as Pod;
      if (getPodRevision(pod) !== updateName && !isTerminating(pod)) {
        await this.deleteIgnoringNotFound(set, pod);
        deleted++;
        status.currentReplicas = (status.currentReplicas ?? 0) - 1;
      }
    }
  }

  private async deleteIgnoringNotFound(set: StatefulSet, pod: Pod): Promise<void> {
    try {
      await this.deps.podControl.deleteStatefulPod(set, pod);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  /**
   * `runForAll`: monotonic — steps in order, stopping at the first that asks to (true); otherwise
   * slow-start batches of at most {@link MAX_BATCH_SIZE}, stopping after a failing batch. Resolves
   * true when the caller should stop; throws the step's error.
   */
  private async runForAll(count: number, fn: Step, monotonic: boolean): Promise<boolean> {
    if (monotonic) {
      for (let i = 0; i < count; i++) if (await fn(i)) return true;
      return false;
    }
    let next = 0;
    const { error } = await slowStartBatch(
      count,
      SLOW_START_INITIAL_BATCH_SIZE,
      async () => {
        await fn(next++);
      },
      MAX_BATCH_SIZE,
    );
    if (error !== undefined) throw toError(error);
    return false;
  }

  /**
   * `updateStatus`/`computeReplicaStatus`: counts created pods (replicas), Running-and-Ready ones,
   * those available after minReadySeconds, and non-terminating ones at the current / update revision.
   */
  private updateStatus(status: StatefulSetStatus, minReadySeconds: number, currentName: string, updateName: string, lists: readonly (readonly Pod[])[]): void {
    const now = this.deps.clock.now();
    let replicas = 0;
    let ready = 0;
    let available = 0;
    let current = 0;
    let updated = 0;
    for (const list of lists) {
      for (const pod of list) {
        if (isCreated(pod)) replicas++;
        if (isRunningAndReady(pod)) {
          ready++;
          if (isRunningAndAvailable(pod, minReadySeconds, now)) available++;
        }
        if (isCreated(pod) && !isTerminating(pod)) {
          const rev = getPodRevision(pod);
          if (rev === currentName) current++;
          if (rev === updateName) updated++;
        }
      }
    }
    status.replicas = replicas;
    status.readyReplicas = ready;
    status.availableReplicas = available;
    status.currentReplicas = current;
    status.updatedReplicas = updated;
  }

  /**
   * `updateStatefulSetStatus`: completes a finished rolling update, then writes the status through the
   * status subresource when it differs from the set's, retrying conflicts with a fresh copy.
   */
  private async updateStatefulSetStatus(set: StatefulSet, status: StatefulSetStatus): Promise<void> {
    completeRollingUpdate(set, status);
    if (!inconsistentStatus(set, status)) return;
    const client = this.deps.client.apps.statefulSets(set.metadata?.namespace);
    let toUpdate = set;
    for (let attempt = 1; ; attempt++) {
      try {
        await client.updateStatus({ ...toUpdate, status: { ...status } });
        return;
      } catch (err) {
        if (!isConflict(err) || attempt >= STATUS_UPDATE_ATTEMPTS) throw err;
      }
      toUpdate = await client.get(set.metadata?.name ?? '');
    }
  }

  /**
   * Milliseconds until the next Ready pod of the set becomes available (minReadySeconds after its
   * Ready transition), so the sync runs again then; undefined when none is waiting.
   */
  private nextAvailableInMs(set: StatefulSet, pods: readonly Pod[]): number | undefined {
    const minReadySeconds = set.spec?.minReadySeconds ?? 0;
    if (minReadySeconds <= 0) return undefined;
    const now = this.deps.clock.now();
    let soonest: number | undefined;
    for (const pod of pods) {
      if (!isRunningAndReady(pod) || isRunningAndAvailable(pod, minReadySeconds, now)) continue;
      const since = parseTime(getPodReadyCondition(pod)?.lastTransitionTime) ?? now;
      // Available strictly after since + minReadySeconds (isPodAvailable): one more millisecond.
      const wait = Math.max(1, since + minReadySeconds * 1000 + 1 - now);
      soonest = soonest === undefined ? wait : Math.min(soonest, wait);
    }
    return soonest;
  }
}
