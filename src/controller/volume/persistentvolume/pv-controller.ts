/**
 * The PersistentVolume controller ("persistentvolume-binder"): binds claims to volumes, asks
 * provisioners for new volumes, keeps the phases of both, and reclaims volumes whose claim is gone.
 *
 * Followed (v1.33): pkg/controller/volume/persistentvolume/pv_controller.go (syncClaim,
 * syncUnboundClaim, syncBoundClaim, syncVolume, bind, bindVolumeToClaim, bindClaimToVolume,
 * updateClaimStatus(WithEvent), updateVolumePhase(WithEvent), unbindVolume, reclaimVolume,
 * deleteVolumeOperation/doDeleteVolume for external deleters, recycleVolumeOperation without a
 * recycler, provisionClaim/provisionClaimOperationExternal, setClaimProvisioner,
 * emitEventForUnboundDelayBindingClaim, assignDefaultStorageClass, checkVolumeSatisfyClaim) and
 * pv_controller_base.go (informer handlers, own caches updated by own writes, the claim and volume
 * work queues, resync every 15 s — kube-controller-manager's `--pvclaimbinder-sync-period`).
 *
 * Differences, on purpose:
 * - Every provisioner is external (there are no in-tree volume plugins here): a class whose
 *   provisioner is not `kubernetes.io/…` gets the storage-provisioner annotations and the
 *   ExternalProvisioning event; a `kubernetes.io/…` one fails with ProvisioningFailed, as upstream
 *   does when no in-tree plugin of that name exists.
 * - Operations (provisioning hand-off, deletion, recycling) run inline in the sync, not in
 *   goroutines: they are a few API calls each.
 * - Volumes with reclaimPolicy Delete: those carrying `pv.kubernetes.io/provisioned-by` are left to
 *   their (external) provisioner, as upstream; any other one has no deleter plugin and goes Failed
 *   with a VolumeFailedDelete event. Recycle has no recycler plugin: Failed with VolumeFailedRecycle.
 * - No `kubernetes.io/pv-controller` finalizer (HonorPVReclaimPolicy) and no CSI migration.
 * - A failed sync is requeued with rate limiting (upstream waits for the next resync).
 */
import type { PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from '../../../api/index.js';
import type { Clientset } from '../../../client/index.js';
import { withTypeMeta, type EventRecorder, type EventType } from '../../../client/record/index.js';
import { DeletedFinalStateUnknown, type Lister, type SharedInformerFactory } from '../../../informers/index.js';
import { isNotFound } from '../../../machinery/errors/index.js';
import { parseQuantity } from '../../../machinery/quantity/index.js';
import {
  ANN_BETA_STORAGE_PROVISIONER,
  ANN_BIND_COMPLETED,
  ANN_BOUND_BY_CONTROLLER,
  ANN_DYNAMICALLY_PROVISIONED,
  ANN_MIGRATED_TO,
  ANN_STORAGE_PROVISIONER,
  checkAccessModes,
  checkVolumeModeMismatches,
  claimRequest,
  claimToClaimKey,
  defaultStorageClass,
  getBindVolumeToClaim,
  getPersistentVolumeClaimClass,
  getPersistentVolumeClass,
  isDelayBindingMode,
  isDelayBindingProvisioning,
  isVolumeBoundToClaim,
  persistentVolumeClaimHasClass,
  volumeCapacity,
} from '../../../machinery/volume/index.js';
import type { Clock, Timer } from '../../../util/clock/index.js';
import { stderrLogger, type Logger } from '../../../util/runtime/index.js';
import { RateLimitingQueue, runWorkersWhenSynced } from '../../../workqueue/index.js';
import { findBestMatchForClaim, VersionedStore } from './index-volumes.js';

/** `--pvclaimbinder-sync-period` default: every claim and volume is synced again this often (ms). */
export const DEFAULT_RESYNC_PERIOD_MS = 15_000;
/** The event source component of this controller. */
export const PERSISTENT_VOLUME_CONTROLLER_COMPONENT = 'persistentvolume-controller';

/** Options of {@link PersistentVolumeController}. */
export interface PersistentVolumeControllerOptions {
  client: Clientset;
  informers: SharedInformerFactory;
  clock: Clock;
  /** Records events as `persistentvolume-controller`. */
  recorder: EventRecorder;
  logger?: Logger;
  /** Resync period in ms (default {@link DEFAULT_RESYNC_PERIOD_MS}). */
  resyncPeriodMs?: number;
}

type Claim = PersistentVolumeClaim;
type Volume = PersistentVolume;

const claimKeyOf = (c: Claim): string => claimToClaimKey(c);
const volumeKeyOf = (v: Volume): string => v.metadata?.name ?? '';
const hasAnnotation = (o: { metadata?: { annotations?: Record<string, string> } }, key: string): boolean =>
  Object.prototype.hasOwnProperty.call(o.metadata?.annotations ?? {}, key);

/** `checkVolumeSatisfyClaim`: why a pre-bound volume cannot serve a claim, or undefined. */
export function checkVolumeSatisfyClaim(volume: Volume, claim: Claim): string | undefined {
  if (volume.metadata?.deletionTimestamp) return `the volume is marked for deletion ${JSON.stringify(volume.metadata.name ?? '')}`;
  if (volumeCapacity(volume).cmp(claimRequest(claim)) < 0) return 'requested PV is too small';
  if (getPersistentVolumeClass(volume) !== getPersistentVolumeClaimClass(claim)) return 'storageClassName does not match';
  if (checkVolumeModeMismatches(claim.spec, volume.spec)) return 'incompatible volumeMode';
  if (!checkAccessModes(claim, volume)) return 'incompatible accessMode';
  return undefined;
}

/** Whether the pod's volumes use the claim (directly, or as the claim of a generic ephemeral volume). */
export function podUsesClaim(pod: Pod, claimName: string): boolean {
  const podName = pod.metadata?.name ?? '';
  return (pod.spec?.volumes ?? []).some(
    (v) => v.persistentVolumeClaim?.claimName === claimName || (v.ephemeral !== undefined && `${podName}-${v.name}` === claimName),
  );
}

/** The PersistentVolume controller. Claim work items are `namespace/name`, volume ones the volume name. */
export class PersistentVolumeController {
  private readonly claimQueue: RateLimitingQueue;
  private readonly volumeQueue: RateLimitingQueue;
  /** `ctrl.volumes.store` / `ctrl.claims`: informer objects and own writes, newest wins. */
  readonly volumes = new VersionedStore<Volume>(volumeKeyOf);
  readonly claims = new VersionedStore<Claim>(claimKeyOf);
  private readonly volumeLister: Lister<Volume>;
  private readonly claimLister: Lister<Claim>;
  private readonly classLister: Lister<StorageClass>;
  private readonly podLister: Lister<Pod>;
  private readonly logger: Logger;
  private resyncTimer: Timer | undefined;

  constructor(private readonly opts: PersistentVolumeControllerOptions) {
    this.logger = opts.logger ?? stderrLogger;
    this.claimQueue = new RateLimitingQueue<string>({ clock: opts.clock, name: 'claims' });
    this.volumeQueue = new RateLimitingQueue<string>({ clock: opts.clock, name: 'volumes' });
    const inf = opts.informers;
    this.volumeLister = inf.core.persistentVolumes().lister();
    this.claimLister = inf.core.persistentVolumeClaims().lister();
    this.classLister = inf.storage.storageClasses().lister();
    this.podLister = inf.core.pods().lister();
    inf.core.persistentVolumes().addEventHandler({
      add: (v) => this.volumeQueue.add(volumeKeyOf(v)),
      update: (_o, v) => this.volumeQueue.add(volumeKeyOf(v)),
      delete: (obj) => this.volumeQueue.add(volumeKeyOf(obj instanceof DeletedFinalStateUnknown ? obj.obj : obj)),
    });
    inf.core.persistentVolumeClaims().addEventHandler({
      add: (c) => this.claimQueue.add(claimKeyOf(c)),
      update: (_o, c) => this.claimQueue.add(claimKeyOf(c)),
      delete: (obj) => this.claimQueue.add(claimKeyOf(obj instanceof DeletedFinalStateUnknown ? obj.obj : obj)),
    });
    // The class lister and the pods are read during syncs only.
    inf.storage.storageClasses();
  }

  /** Waits for the caches, then runs one worker per queue and the periodic resync until `signal` aborts. */
  async run(signal?: AbortSignal): Promise<void> {
    const inf = this.opts.informers;
    const caches = [inf.core.persistentVolumes(), inf.core.persistentVolumeClaims(), inf.storage.storageClasses(), inf.core.pods()];
    signal?.addEventListener('abort', () => this.resyncTimer?.stop(), { once: true });
    const period = this.opts.resyncPeriodMs ?? DEFAULT_RESYNC_PERIOD_MS;
    const tick = (): void => {
      if (signal?.aborted) return;
      this.resync();
      this.resyncTimer = this.opts.clock.setTimer(period, tick);
    };
    const opts = { name: 'persistentvolume-binder', logger: this.logger, signal };
    await Promise.all([
      runWorkersWhenSynced(caches, this.volumeQueue, 1, (key) => this.volumeWorker(key), opts),
      runWorkersWhenSynced(caches, this.claimQueue, 1, (key) => this.claimWorker(key), opts),
      (async () => {
        const synced = await Promise.all(caches.map((c) => c.waitForSync(signal)));
        if (synced.every(Boolean) && !signal?.aborted) this.resyncTimer = this.opts.clock.setTimer(period, tick);
      })(),
    ]);
  }

  /** `resync`: every claim and volume of the informers is queued again. */
  resync(): void {
    for (const c of this.claimLister.list()) this.claimQueue.add(claimKeyOf(c));
    for (const v of this.volumeLister.list()) this.volumeQueue.add(volumeKeyOf(v));
  }

  /** `volumeWorker`'s work function: sync the volume if the informer has it, else forget it. */
  async volumeWorker(name: string): Promise<void> {
    const volume = this.volumeLister.get(name);
    if (volume) {
      // updateVolume: an informer copy older than our own write is not synced.
      if (!this.volumes.update(volume)) return;
      await this.syncVolume(volume);
      return;
    }
    const cached = this.volumes.get(name);
    if (!cached) return;
    // deleteVolume: sync the claim at once so it turns Lost without waiting for a resync.
    this.volumes.delete(name);
    const ref = cached.spec?.claimRef;
    if (ref) this.claimQueue.add(`${ref.namespace ?? ''}/${ref.name ?? ''}`);
  }

  /** `claimWorker`'s work function: sync the claim if the informer has it, else forget it. */
  async claimWorker(key: string): Promise<void> {
    const claim = this.claimLister.get(key);
    if (claim) {
      if (!this.claims.update(claim)) return;
      await this.syncClaim(claim);
      return;
    }
    const cached = this.claims.get(key);
    if (!cached) return;
    // deleteClaim: the volume is released (or deleted) by its own sync.
    this.claims.delete(key);
    const volumeName = cached.spec?.volumeName;
    if (volumeName) this.volumeQueue.add(volumeName);
  }

  private event(obj: Claim | Volume, type: EventType, reason: string, message: string, kind: 'PersistentVolumeClaim' | 'PersistentVolume'): void {
    this.opts.recorder.event(withTypeMeta(obj, 'v1', kind), type, reason, message);
  }

  private claimEvent(claim: Claim, type: EventType, reason: string, message: string): void {
    this.event(claim, type, reason, message, 'PersistentVolumeClaim');
  }

  private volumeEvent(volume: Volume, type: EventType, reason: string, message: string): void {
    this.event(volume, type, reason, message, 'PersistentVolume');
  }

  /** `syncClaim`: claims not yet through binding go to syncUnboundClaim, the others to syncBoundClaim. */
  async syncClaim(claim: Claim): Promise<void> {
    if (!hasAnnotation(claim, ANN_BIND_COMPLETED)) await this.syncUnboundClaim(claim);
    else await this.syncBoundClaim(claim);
  }

  /** `syncUnboundClaim`. */
  private async syncUnboundClaim(claim: Claim): Promise<void> {
    const volumeName = claim.spec?.volumeName ?? '';
    if (volumeName === '') {
      // The user did not ask for a particular volume.
      const delayBinding = isDelayBindingMode(claim, this.classLister);
      let volume: Volume | undefined;
      try {
        volume = findBestMatchForClaim(this.volumes.list(), claim, delayBinding);
      } catch (err) {
        throw new Error(`error finding PV for claim ${JSON.stringify(claimToClaimKey(claim))}: ${(err as Error).message}`);
      }
      if (volume) {
        await this.bind(volume, claim);
        return;
      }
      if (await this.assignDefaultStorageClass(claim)) return;
      if (delayBinding && !isDelayBindingProvisioning(claim)) {
        this.emitEventForUnboundDelayBindingClaim(claim);
      } else if (getPersistentVolumeClaimClass(claim) !== '') {
        // The claim is updated by the provisioner; the binding continues in a later sync.
        await this.provisionClaim(claim);
        return;
      } else {
        this.claimEvent(claim, 'Normal', 'FailedBinding', 'no persistent volumes available for this claim and no storage class is set');
      }
      await this.updateClaimStatus(claim, 'Pending', undefined);
      return;
    }
    // The user asked for a particular volume.
    const volume = this.volumes.get(volumeName);
    if (!volume) {
      await this.updateClaimStatus(claim, 'Pending', undefined);
      return;
    }
    if (!volume.spec?.claimRef) {
      const mismatch = checkVolumeSatisfyClaim(volume, claim);
      if (mismatch) {
        this.claimEvent(claim, 'Warning', 'VolumeMismatch', `Cannot bind to requested volume ${JSON.stringify(volume.metadata?.name ?? '')}: ${mismatch}`);
        await this.updateClaimStatus(claim, 'Pending', undefined);
        return;
      }
      await this.bind(volume, claim);
      return;
    }
    if (isVolumeBoundToClaim(volume, claim)) {
      // Finish the binding (the claim UID goes into the claimRef).
      await this.bind(volume, claim);
      return;
    }
    this.claimEvent(claim, 'Warning', 'FailedBinding', `volume ${JSON.stringify(volumeName)} already bound to a different claim.`);
    if (!hasAnnotation(claim, ANN_BOUND_BY_CONTROLLER)) {
      await this.updateClaimStatus(claim, 'Pending', undefined);
      return;
    }
    const ref = volume.spec.claimRef;
    throw new Error(
      `invalid binding of claim ${JSON.stringify(claimToClaimKey(claim))} to volume ${JSON.stringify(volumeName)}: volume already claimed by ${JSON.stringify(`${ref.namespace ?? ''}/${ref.name ?? ''}`)}`,
    );
  }

  /** `syncBoundClaim`: the claim was bound before; keep it so, or mark it Lost. */
  private async syncBoundClaim(claim: Claim): Promise<void> {
    const volumeName = claim.spec?.volumeName ?? '';
    if (volumeName === '') {
      await this.updateClaimStatusWithEvent(claim, 'Lost', undefined, 'Warning', 'ClaimLost', 'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!');
      return;
    }
    const volume = this.volumes.get(volumeName);
    if (!volume) {
      await this.updateClaimStatusWithEvent(claim, 'Lost', undefined, 'Warning', 'ClaimLost', 'Bound claim has lost its PersistentVolume. Data on the volume is lost!');
      return;
    }
    const ref = volume.spec?.claimRef;
    if (!ref || ref.uid === claim.metadata?.uid) {
      // Unbound volume (or our own write not seen yet), or all is well: bind() fixes or does nothing.
      await this.bind(volume, claim);
      return;
    }
    await this.updateClaimStatusWithEvent(claim, 'Lost', undefined, 'Warning', 'ClaimMisbound', 'Two claims are bound to the same volume, this one is bound incorrectly');
  }

  /** `syncVolume`. */
  async syncVolume(volume: Volume): Promise<void> {
    const ref = volume.spec?.claimRef;
    if (!ref || (ref.uid ?? '') === '') {
      // Unused, or reserved for a claim whose sync will bind it.
      await this.updateVolumePhase(volume, 'Available', '');
      return;
    }
    const claimKey = `${ref.namespace ?? ''}/${ref.name ?? ''}`;
    let claim = this.claims.get(claimKey);
    if (!claim && volume.status?.phase !== 'Released' && volume.status?.phase !== 'Failed') {
      // A claim made by a provisioner or bound by the scheduler may not be in our cache yet: ask
      // the informer, then the API server, before releasing the volume.
      claim = this.claimLister.get(claimKey) ?? (await this.getClaimFromServer(ref.namespace ?? '', ref.name ?? ''));
    }
    if (claim && claim.metadata?.uid !== ref.uid) {
      // Maybe our copy is old: the API server decides whether the claim was deleted and recreated.
      claim = await this.getClaimFromServer(ref.namespace ?? '', ref.name ?? '');
      if (claim && claim.metadata?.uid !== ref.uid) claim = undefined;
    }
    if (!claim) {
      // The claim is gone. A Failed volume stays Failed (the user should see it) while reclaiming is retried.
      let v = volume;
      if (v.status?.phase !== 'Released' && v.status?.phase !== 'Failed') {
        this.logger.info({ volume: volumeKeyOf(v), reclaimPolicy: v.spec?.persistentVolumeReclaimPolicy }, 'Volume is released and reclaim policy will be executed');
        v = await this.updateVolumePhase(v, 'Released', '');
      }
      await this.reclaimVolume(v);
      return;
    }
    if ((claim.spec?.volumeName ?? '') === '') {
      if (checkVolumeModeMismatches(claim.spec, volume.spec)) {
        this.volumeEvent(volume, 'Warning', 'VolumeMismatch', `Cannot bind PersistentVolume to requested PersistentVolumeClaim ${JSON.stringify(claim.metadata?.name ?? '')} due to incompatible volumeMode.`);
        this.claimEvent(claim, 'Warning', 'VolumeMismatch', `Cannot bind PersistentVolume ${JSON.stringify(volume.metadata?.name ?? '')} to requested PersistentVolumeClaim due to incompatible volumeMode.`);
        return;
      }
      // The volume is bound, the claim not yet: its sync finishes the binding (a provisioned volume
      // only names its claim and expects exactly this).
      this.claimQueue.add(claimKey);
      return;
    }
    if (claim.spec?.volumeName === volume.metadata?.name) {
      await this.updateVolumePhase(volume, 'Bound', '');
      return;
    }
    // The claim is bound to another volume.
    if (hasAnnotation(volume, ANN_DYNAMICALLY_PROVISIONED) && volume.spec?.persistentVolumeReclaimPolicy === 'Delete') {
      // Provisioned for this claim, which got another volume: not needed any more.
      let v = volume;
      if (v.status?.phase !== 'Released' && v.status?.phase !== 'Failed') v = await this.updateVolumePhase(v, 'Released', '');
      await this.reclaimVolume(v);
      return;
    }
    // Bound by us to a claim that found another volume: undo; pre-bound by the user: keep the
    // name, drop the UID.
    await this.unbindVolume(volume);
  }

  private async getClaimFromServer(namespace: string, name: string): Promise<Claim | undefined> {
    try {
      return await this.opts.client.core.persistentVolumeClaims(namespace).get(name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** `updateClaimStatus`: phase, and the volume's access modes and (when becoming Bound) capacity. */
  private async updateClaimStatus(claim: Claim, phase: string, volume: Volume | undefined): Promise<Claim> {
    const clone = structuredClone(claim) as Claim & { status: NonNullable<Claim['status']> };
    const status = (clone.status ??= {});
    let dirty = false;
    if (claim.status?.phase !== phase) {
      status.phase = phase;
      dirty = true;
    }
    if (!volume) {
      if (status.accessModes !== undefined) {
        delete status.accessModes;
        dirty = true;
      }
      if (status.capacity !== undefined) {
        delete status.capacity;
        dirty = true;
      }
    } else {
      const modes = volume.spec?.accessModes;
      if (JSON.stringify(claim.status?.accessModes) !== JSON.stringify(modes)) {
        if (modes) status.accessModes = [...modes];
        else delete status.accessModes;
        dirty = true;
      }
      // Capacity only when becoming Bound: a later difference may be an intended resize.
      if (claim.status?.phase !== phase) {
        const cap = volume.spec?.capacity?.['storage'];
        if (cap === undefined) throw new Error(`PersistentVolume ${JSON.stringify(volume.metadata?.name ?? '')} is without a storage capacity`);
        const claimCap = claim.status?.capacity?.['storage'];
        if (claimCap === undefined || parseQuantity(cap).cmp(parseQuantity(claimCap)) !== 0) {
          status.capacity = { ...volume.spec?.capacity };
          dirty = true;
        }
      }
    }
    if (!dirty) return claim;
    const updated = await this.opts.client.core.persistentVolumeClaims(claim.metadata?.namespace).updateStatus(clone);
    this.claims.update(updated);
    this.logger.info({ pvc: claimToClaimKey(claim), phase }, 'Claim entered phase');
    return updated;
  }

  /** `updateClaimStatusWithEvent`: the status and the event only when the phase changes. */
  private async updateClaimStatusWithEvent(claim: Claim, phase: string, volume: Volume | undefined, type: EventType, reason: string, message: string): Promise<void> {
    if (claim.status?.phase === phase) return;
    const updated = await this.updateClaimStatus(claim, phase, volume);
    this.claimEvent(updated, type, reason, message);
  }

  /** `updateVolumePhase`: phase and message (the API server stamps lastPhaseTransitionTime). */
  private async updateVolumePhase(volume: Volume, phase: string, message: string): Promise<Volume> {
    if (volume.status?.phase === phase) return volume;
    const clone = structuredClone(volume) as Volume & { status: NonNullable<Volume['status']> };
    const status = (clone.status ??= {});
    status.phase = phase;
    if (message) status.message = message;
    else delete status.message;
    const updated = await this.opts.client.core.persistentVolumes().updateStatus(clone);
    this.volumes.update(updated);
    this.logger.info({ volume: volumeKeyOf(volume), phase }, 'Volume entered phase');
    return updated;
  }

  /** `updateVolumePhaseWithEvent`: the phase and the event only when the phase changes. */
  private async updateVolumePhaseWithEvent(volume: Volume, phase: string, type: EventType, reason: string, message: string): Promise<void> {
    if (volume.status?.phase === phase) return;
    const updated = await this.updateVolumePhase(volume, phase, message);
    this.volumeEvent(updated, type, reason, message);
  }

  /**
   * `assignDefaultStorageClass`: a claim that names no class (created before any default class
   * existed) gets the default one; true when the claim was updated (its next sync continues).
   */
  private async assignDefaultStorageClass(claim: Claim): Promise<boolean> {
    if (persistentVolumeClaimHasClass(claim)) return false;
    const cls = defaultStorageClass(this.classLister.list());
    const name = cls?.metadata?.name;
    if (!name) return false;
    const clone = structuredClone<Claim>(claim);
    (clone.spec ??= {}).storageClassName = name;
    const updated = await this.opts.client.core.persistentVolumeClaims(claim.metadata?.namespace).update(clone);
    this.claims.update(updated);
    return true;
  }

  /** `bind`: the volume first (claimRef, then phase Bound), then the claim (volumeName, then status). */
  private async bind(volume: Volume, claim: Claim): Promise<void> {
    let v = await this.bindVolumeToClaim(volume, claim);
    v = await this.updateVolumePhase(v, 'Bound', '');
    const c = await this.bindClaimToVolume(claim, v);
    await this.updateClaimStatus(c, 'Bound', v);
  }

  /** `bindVolumeToClaim`: saves the volume with its claimRef (and bound-by-controller) when that changes it. */
  private async bindVolumeToClaim(volume: Volume, claim: Claim): Promise<Volume> {
    const { volume: clone, dirty } = getBindVolumeToClaim(volume, claim);
    if (!dirty) return volume;
    const updated = await this.opts.client.core.persistentVolumes().update(clone);
    this.volumes.update(updated);
    this.logger.info({ pvc: claimToClaimKey(claim), volume: volumeKeyOf(volume) }, 'Claim bound to volume');
    return updated;
  }

  /** `bindClaimToVolume`: volumeName (with bound-by-controller when we set it) and bind-completed. */
  private async bindClaimToVolume(claim: Claim, volume: Volume): Promise<Claim> {
    const clone = structuredClone<Claim>(claim);
    const meta = (clone.metadata ??= {});
    const annotations = { ...meta.annotations };
    let dirty = false;
    if (claim.spec?.volumeName !== volume.metadata?.name) {
      (clone.spec ??= {}).volumeName = volume.metadata?.name ?? '';
      if (!(ANN_BOUND_BY_CONTROLLER in annotations)) annotations[ANN_BOUND_BY_CONTROLLER] = 'yes';
      dirty = true;
    }
    if (!(ANN_BIND_COMPLETED in annotations)) {
      annotations[ANN_BIND_COMPLETED] = 'yes';
      dirty = true;
    }
    if (!dirty) return claim;
    meta.annotations = annotations;
    const updated = await this.opts.client.core.persistentVolumeClaims(claim.metadata?.namespace).update(clone);
    this.claims.update(updated);
    return updated;
  }

  /** `unbindVolume`: undo a binding: our own one entirely, a user's pre-binding down to its name. Then Available. */
  private async unbindVolume(volume: Volume): Promise<void> {
    const clone = structuredClone<Volume>(volume);
    const spec = (clone.spec ??= {});
    if (hasAnnotation(volume, ANN_BOUND_BY_CONTROLLER)) {
      delete spec.claimRef;
      const annotations = { ...clone.metadata?.annotations };
      delete annotations[ANN_BOUND_BY_CONTROLLER];
      const meta = (clone.metadata ??= {});
      if (Object.keys(annotations).length === 0) delete meta.annotations;
      else meta.annotations = annotations;
    } else if (spec.claimRef) {
      delete spec.claimRef.uid;
    }
    const updated = await this.opts.client.core.persistentVolumes().update(clone);
    this.volumes.update(updated);
    await this.updateVolumePhase(updated, 'Available', '');
  }

  /** `reclaimVolume`: what the reclaim policy says once the claim is gone. */
  private async reclaimVolume(volume: Volume): Promise<void> {
    // A migrated volume belongs to its CSI driver.
    if (volume.metadata?.annotations?.[ANN_MIGRATED_TO]) return;
    switch (volume.spec?.persistentVolumeReclaimPolicy ?? '') {
      case 'Retain':
        return;
      case 'Recycle':
        // recycleVolumeOperation: no volume plugin here can recycle.
        await this.updateVolumePhaseWithEvent(volume, 'Failed', 'Warning', 'VolumeFailedRecycle', 'No recycler plugin found for the volume!');
        return;
      case 'Delete':
        await this.deleteVolumeOperation(volume);
        return;
      default:
        await this.updateVolumePhaseWithEvent(volume, 'Failed', 'Warning', 'VolumeUnknownReclaimPolicy', 'Volume has unrecognized PersistentVolumeReclaimPolicy');
    }
  }

  /**
   * `deleteVolumeOperation` / `doDeleteVolume`: a volume of an external provisioner is left to it
   * (it deletes Released volumes it provisioned); any other one has no deleter and goes Failed.
   */
  private async deleteVolumeOperation(volume: Volume): Promise<void> {
    const provisioner = volume.metadata?.annotations?.[ANN_DYNAMICALLY_PROVISIONED];
    if (provisioner !== undefined && !provisioner.startsWith('kubernetes.io/')) return;
    const message = `error getting deleter volume plugin for volume ${JSON.stringify(volume.metadata?.name ?? '')}: no deletable volume plugin matched`;
    await this.updateVolumePhaseWithEvent(volume, 'Failed', 'Warning', 'VolumeFailedDelete', message);
  }

  /**
   * `provisionClaim` → `provisionClaimOperationExternal`: the claim is annotated with its class's
   * provisioner, which provisions it, and the ExternalProvisioning event says so (again at every
   * sync until a volume exists, as upstream).
   */
  private async provisionClaim(claim: Claim): Promise<void> {
    const className = getPersistentVolumeClaimClass(claim);
    const cls = this.classLister.get(className);
    if (!cls) {
      this.claimEvent(claim, 'Warning', 'ProvisioningFailed', `storageclass.storage.k8s.io ${JSON.stringify(className)} not found`);
      throw new Error(`storageclass.storage.k8s.io ${JSON.stringify(className)} not found`);
    }
    const provisioner = cls.provisioner;
    if (provisioner.startsWith('kubernetes.io/')) {
      // An in-tree provisioner name: upstream finds no plugin for it here either.
      this.claimEvent(claim, 'Warning', 'ProvisioningFailed', `no volume plugin matched name: ${provisioner}`);
      return;
    }
    const updated = await this.setClaimProvisioner(claim, provisioner);
    this.claimEvent(
      updated,
      'Normal',
      'ExternalProvisioning',
      `Waiting for a volume to be created either by the external provisioner '${provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`,
    );
  }

  /** `setClaimProvisioner`: both storage-provisioner annotations name the provisioner. */
  private async setClaimProvisioner(claim: Claim, provisioner: string): Promise<Claim> {
    const ann = claim.metadata?.annotations ?? {};
    if (ann[ANN_STORAGE_PROVISIONER] === provisioner && ann[ANN_BETA_STORAGE_PROVISIONER] === provisioner) return claim;
    const clone = structuredClone<Claim>(claim);
    const meta = (clone.metadata ??= {});
    meta.annotations = { ...meta.annotations, [ANN_STORAGE_PROVISIONER]: provisioner, [ANN_BETA_STORAGE_PROVISIONER]: provisioner };
    const updated = await this.opts.client.core.persistentVolumeClaims(claim.metadata?.namespace).update(clone);
    this.claims.update(updated);
    return updated;
  }

  /**
   * `emitEventForUnboundDelayBindingClaim`: WaitForFirstConsumer until a pod uses the claim, then
   * WaitForPodScheduled naming the unscheduled pods that use it.
   */
  private emitEventForUnboundDelayBindingClaim(claim: Claim): void {
    const name = claim.metadata?.name ?? '';
    const pods = this.podLister
      .namespace(claim.metadata?.namespace ?? '')
      .list()
      .filter((p) => !p.spec?.nodeName && podUsesClaim(p, name))
      .map((p) => p.metadata?.name ?? '');
    if (pods.length === 0) {
      this.claimEvent(claim, 'Normal', 'WaitForFirstConsumer', 'waiting for first consumer to be created before binding');
    } else {
      const message = pods.length > 1 ? `waiting for pods ${pods.join(',')} to be scheduled` : `waiting for pod ${pods[0] ?? ''} to be scheduled`;
      this.claimEvent(claim, 'Normal', 'WaitForPodScheduled', message);
    }
  }
}
