/**
 * The StatefulSet controller's writes to pods and PVCs, each recorded as an event on the set with
 * upstream's reasons and messages ("create Pod web-0 in StatefulSet web successful", "create Claim
 * data-web-0 Pod web-0 in StatefulSet web success", …).
 *
 * Follows kubernetes/kubernetes v1.33 pkg/controller/statefulset/stateful_pod_control.go:
 * `CreateStatefulPod`, `UpdateStatefulPod`, `DeleteStatefulPod`, `ClaimsMatchRetentionPolicy`,
 * `UpdatePodClaimForRetentionPolicy`, `PodClaimIsStale`, `recordPodEvent`, `recordClaimEvent`,
 * `createMissingPersistentVolumeClaims`, `createPersistentVolumeClaims`. Claims are read from the
 * PVC informer's cache, as upstream's objectMgr does.
 *
 * Difference: on an update conflict the pod is re-read from the API (upstream re-reads its lister).
 */
import type { PersistentVolumeClaim, Pod, StatefulSet } from '../../api/index.js';
import type { Clientset } from '../../client/index.js';
import type { EventRecorder } from '../../client/record/index.js';
import type { Lister } from '../../informers/index.js';
import { errorMessage, isAlreadyExists, isConflict } from '../../machinery/errors/index.js';
import { aggregateErrors, toError } from '../controller-utils.js';
import {
  getOrdinal,
  getPersistentVolumeClaimName,
  getPersistentVolumeClaimRetentionPolicy,
  getPersistentVolumeClaims,
  hasStaleOwnerRef,
  hasUnexpectedController,
  identityMatches,
  isClaimOwnerUpToDate,
  POD_KIND,
  storageMatches,
  updateClaimOwnerRefForSetAndPod,
  updateIdentity,
  updateStorage,
} from './stateful-set-utils.js';

/** Attempts of an update that conflicts (retry.DefaultBackoff's steps). */
const UPDATE_RETRIES = 4;

/** `strings.Title` of one lower-case verb. */
function title(verb: string): string {
  return verb.charAt(0).toUpperCase() + verb.slice(1);
}

/** Pod and claim writes on behalf of StatefulSets (`StatefulPodControl`). */
export class StatefulPodControl {
  constructor(
    private readonly client: Clientset,
    private readonly claimLister: Lister<PersistentVolumeClaim>,
    private readonly recorder: EventRecorder,
    /** The set as an event's involved object (with apiVersion/kind). */
    private readonly owner: (set: StatefulSet) => StatefulSet,
  ) {}

  /**
   * `CreateStatefulPod`: creates the pod's PVCs, then the pod, then sets the claims' retention
   * ownerReferences. Records SuccessfulCreate/FailedCreate; throws the error (AlreadyExists without an event).
   */
  async createStatefulPod(set: StatefulSet, pod: Pod): Promise<void> {
    try {
      await this.createPersistentVolumeClaims(set, pod);
    } catch (err) {
      this.recordPodEvent('create', set, pod, err);
      throw err;
    }
    try {
      await this.client.core.pods(set.metadata?.namespace).create(pod);
    } catch (err) {
      if (isAlreadyExists(err)) throw err;
      this.recordPodEvent('create', set, pod, err);
      throw err;
    }
    try {
      await this.updatePodClaimForRetentionPolicy(set, pod);
    } catch (err) {
      this.recordPodEvent('update', set, pod, err);
      throw err;
    }
    this.recordPodEvent('create', set, pod, undefined);
  }

  /**
   * `UpdateStatefulPod`: restores the pod's identity labels and storage volumes (creating missing
   * claims) and the claims' retention ownerReferences, then updates the pod if anything changed,
   * retrying on conflicts with a fresh copy. `pod` must be a private copy. Records
   * SuccessfulUpdate/FailedUpdate when an update was attempted; throws the last error.
   */
  async updateStatefulPod(set: StatefulSet, pod: Pod): Promise<void> {
    let attempted = false;
    let lastErr: unknown;
    for (let attempt = 0; attempt <= UPDATE_RETRIES; attempt++) {
      let consistent = true;
      if (!identityMatches(set, pod)) {
        updateIdentity(set, pod);
        consistent = false;
      }
      if (!storageMatches(set, pod)) {
        updateStorage(set, pod);
        consistent = false;
        try {
          await this.createPersistentVolumeClaims(set, pod);
        } catch (err) {
          this.recordPodEvent('update', set, pod, err);
          throw err;
        }
      }
      try {
        if (!(await this.claimsMatchRetentionPolicy(set, pod))) {
          await this.updatePodClaimForRetentionPolicy(set, pod);
          consistent = false;
        }
      } catch (err) {
        this.recordPodEvent('update', set, pod, err);
        throw err;
      }
      if (consistent) {
        lastErr = undefined;
        break;
      }
      attempted = true;
      try {
        await this.client.core.pods(set.metadata?.namespace).update(pod);
        lastErr = undefined;
        break;
      } catch (err) {
        lastErr = err;
        if (!isConflict(err)) break;
      }
      try {
        pod = structuredClone(await this.client.core.pods(set.metadata?.namespace).get(pod.metadata?.name ?? ''));
      } catch {
        // Keep the old copy; the next attempt conflicts again and the sync retries later.
      }
    }
    if (attempted) this.recordPodEvent('update', set, pod, lastErr);
    if (lastErr !== undefined) throw toError(lastErr);
  }

  /** `DeleteStatefulPod`: deletes the pod; records SuccessfulDelete/FailedDelete; throws the error. */
  async deleteStatefulPod(set: StatefulSet, pod: Pod): Promise<void> {
    try {
      await this.client.core.pods(set.metadata?.namespace).delete(pod.metadata?.name ?? '');
    } catch (err) {
      this.recordPodEvent('delete', set, pod, err);
      throw err;
    }
    this.recordPodEvent('delete', set, pod, undefined);
  }

  /**
   * `ClaimsMatchRetentionPolicy`: every existing claim of the pod has the ownerReferences the policy
   * wants (missing claims are picked up later).
   */
  claimsMatchRetentionPolicy(set: StatefulSet, pod: Pod): Promise<boolean> {
    const ordinal = getOrdinal(pod);
    for (const t of set.spec?.volumeClaimTemplates ?? []) {
      const claim = this.getClaim(set, getPersistentVolumeClaimName(set, t.metadata?.name ?? '', ordinal));
      if (claim && !isClaimOwnerUpToDate(claim, set, pod)) return Promise.resolve(false);
    }
    return Promise.resolve(true);
  }

  /**
   * `UpdatePodClaimForRetentionPolicy`: updates the pod's claims whose ownerReferences disagree with
   * the policy; a claim controlled by something else gets a Warning ConflictingController event.
   * Throws "could not update claim …" errors.
   */
  async updatePodClaimForRetentionPolicy(set: StatefulSet, pod: Pod): Promise<void> {
    const ordinal = getOrdinal(pod);
    for (const t of set.spec?.volumeClaimTemplates ?? []) {
      const claimName = getPersistentVolumeClaimName(set, t.metadata?.name ?? '', ordinal);
      const cached = this.getClaim(set, claimName);
      if (!cached) continue;
      if (hasUnexpectedController(cached, set, pod)) {
        const msg = `PersistentVolumeClaim ${claimName} has a conflicting OwnerReference that acts as a manging controller, the retention policy is ignored for this claim`;
        this.recorder.event(this.owner(set), 'Warning', 'ConflictingController', msg);
      }
      if (isClaimOwnerUpToDate(cached, set, pod)) continue;
      const claim = structuredClone(cached);
      updateClaimOwnerRefForSetAndPod(claim, set, pod);
      try {
        await this.client.core.persistentVolumeClaims(set.metadata?.namespace).update(claim);
      } catch (err) {
        throw new Error(`could not update claim ${claimName} for delete policy ownerRefs: ${errorMessage(err)}`, { cause: err });
      }
    }
  }

  /**
   * `PodClaimIsStale`: with whenScaled=Delete, a claim of the pod still owned by an earlier pod of the
   * same name (waiting for the garbage collector) blocks creating the pod.
   */
  podClaimIsStale(set: StatefulSet, pod: Pod): boolean {
    if (getPersistentVolumeClaimRetentionPolicy(set).whenScaled === 'Retain') return false;
    for (const claim of getPersistentVolumeClaims(set, pod).values()) {
      const pvc = this.getClaim(set, claim.metadata?.name ?? '');
      if (pvc && hasStaleOwnerRef(pvc, pod, POD_KIND)) return true;
    }
    return false;
  }

  /** `createMissingPersistentVolumeClaims`: creates the claims a (pending) pod lacks and fixes their ownerReferences. */
  async createMissingPersistentVolumeClaims(set: StatefulSet, pod: Pod): Promise<void> {
    await this.createPersistentVolumeClaims(set, pod);
    try {
      await this.updatePodClaimForRetentionPolicy(set, pod);
    } catch (err) {
      this.recordPodEvent('update', set, pod, err);
      throw err;
    }
  }

  /**
   * `createPersistentVolumeClaims`: creates each claim of the pod missing from the cache, recording
   * SuccessfulCreate/FailedCreate per claim (none for AlreadyExists). A claim being deleted is an
   * error: the pod must not start on storage that is going away. Throws the errors together.
   */
  async createPersistentVolumeClaims(set: StatefulSet, pod: Pod): Promise<void> {
    const errs: unknown[] = [];
    for (const claim of getPersistentVolumeClaims(set, pod).values()) {
      const name = claim.metadata?.name ?? '';
      const pvc = this.getClaim(set, name);
      if (pvc) {
        if (pvc.metadata?.deletionTimestamp) errs.push(new Error(`pvc ${name} is being deleted`));
        continue;
      }
      try {
        await this.client.core.persistentVolumeClaims(set.metadata?.namespace).create(claim);
        this.recordClaimEvent('create', set, pod, claim, undefined);
      } catch (err) {
        errs.push(new Error(`failed to create PVC ${name}: ${errorMessage(err)}`, { cause: err }));
        if (!isAlreadyExists(err)) this.recordClaimEvent('create', set, pod, claim, err);
      }
    }
    const err = aggregateErrors(errs);
    if (err) throw err;
  }

  private getClaim(set: StatefulSet, name: string): PersistentVolumeClaim | undefined {
    return this.claimLister.namespace(set.metadata?.namespace ?? '').get(name);
  }

  /** `recordPodEvent`: Normal Successful<Verb> "<verb> Pod <pod> in StatefulSet <set> successful", or Warning Failed<Verb>. */
  private recordPodEvent(verb: string, set: StatefulSet, pod: Pod, err: unknown): void {
    const podName = pod.metadata?.name ?? '';
    const setName = set.metadata?.name ?? '';
    if (err === undefined) {
      this.recorder.event(this.owner(set), 'Normal', `Successful${title(verb)}`, `${verb} Pod ${podName} in StatefulSet ${setName} successful`);
    } else {
      this.recorder.event(this.owner(set), 'Warning', `Failed${title(verb)}`, `${verb} Pod ${podName} in StatefulSet ${setName} failed error: ${errorMessage(err)}`);
    }
  }

  /** `recordClaimEvent`: "<verb> Claim <claim> Pod <pod> in StatefulSet <set> success", or the failure. */
  private recordClaimEvent(verb: string, set: StatefulSet, pod: Pod, claim: PersistentVolumeClaim, err: unknown): void {
    const podName = pod.metadata?.name ?? '';
    const setName = set.metadata?.name ?? '';
    const claimName = claim.metadata?.name ?? '';
    if (err === undefined) {
      this.recorder.event(this.owner(set), 'Normal', `Successful${title(verb)}`, `${verb} Claim ${claimName} Pod ${podName} in StatefulSet ${setName} success`);
    } else {
      this.recorder.event(
        this.owner(set),
        'Warning',
        `Failed${title(verb)}`,
        `${verb} Claim ${claimName} for Pod ${podName} in StatefulSet ${setName} failed error: ${errorMessage(err)}`,
      );
    }
  }
}
