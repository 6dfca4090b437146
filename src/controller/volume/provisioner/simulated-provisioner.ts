/**
 * The simulated dynamic provisioner `kubeplane.io/simulated`: what kind runs as rancher's
 * local-path-provisioner on sig-storage-lib-external-provisioner, without disks.
 *
 * Followed: sig-storage-lib-external-provisioner controller/controller.go (v10: shouldProvision —
 * the claim names this provisioner in `volume.kubernetes.io/storage-provisioner` (or the beta
 * annotation), has no volumeName, and, for a WaitForFirstConsumer class, carries
 * `volume.kubernetes.io/selected-node`; provisionClaimOperation — a volume `pvc-<claim uid>` with the
 * claim's request as capacity, its access modes and volumeMode, the class's reclaimPolicy and
 * mountOptions, a claimRef to the claim and `pv.kubernetes.io/provisioned-by`, events Provisioning and
 * ProvisioningSucceeded; shouldDelete/deleteVolumeOperation — Released volumes it provisioned whose
 * reclaimPolicy is Delete are deleted) and rancher/local-path-provisioner provisioner.go (a hostPath
 * `/var/local-path-provisioner/pvc-<uid>_<namespace>_<claim>` of type DirectoryOrCreate with required
 * node affinity `kubernetes.io/hostname In [node]` when a node was selected).
 *
 * Events come from the component `kubeplane.io/simulated` (the library uses its identity,
 * `<provisioner>_<host>_<uuid>`). Claims being deleted are not provisioned.
 */
import type { PersistentVolume, PersistentVolumeClaim, StorageClass } from '../../../api/index.js';
import type { Clientset } from '../../../client/index.js';
import { withTypeMeta, type EventRecorder } from '../../../client/record/index.js';
import { DeletedFinalStateUnknown, type Lister, type SharedInformerFactory } from '../../../informers/index.js';
import { isAlreadyExists, isNotFound } from '../../../machinery/errors/index.js';
import {
  ANN_BETA_STORAGE_PROVISIONER,
  ANN_DYNAMICALLY_PROVISIONED,
  ANN_SELECTED_NODE,
  ANN_STORAGE_PROVISIONER,
  claimToClaimKey,
  getPersistentVolumeClaimClass,
  getVolumeNodeAffinity,
} from '../../../machinery/volume/index.js';
import type { Clock } from '../../../util/clock/index.js';
import { stderrLogger, type Logger } from '../../../util/runtime/index.js';
import { RateLimitingQueue, runWorkersWhenSynced } from '../../../workqueue/index.js';

/** The provisioner name of kubeplane's default StorageClass. */
export const SIMULATED_PROVISIONER = 'kubeplane.io/simulated';
/** local-path-provisioner's default data directory on each node. */
export const LOCAL_PATH_ROOT = '/var/local-path-provisioner';
/** The library's default `threadiness`. */
export const DEFAULT_PROVISIONER_WORKERS = 4;

/** Options of {@link SimulatedProvisioner}. */
export interface SimulatedProvisionerOptions {
  client: Clientset;
  informers: SharedInformerFactory;
  clock: Clock;
  /** Records events as the provisioner ({@link SIMULATED_PROVISIONER}). */
  recorder: EventRecorder;
  logger?: Logger;
  /** The provisioner name it answers to (default {@link SIMULATED_PROVISIONER}). */
  provisionerName?: string;
}

/** The name of the volume provisioned for a claim (`pvc-<uid>`, the library's `getProvisionedVolumeNameForClaim`). */
export function provisionedVolumeName(claim: PersistentVolumeClaim): string {
  return `pvc-${claim.metadata?.uid ?? ''}`;
}

/**
 * The volume the provisioner creates for `claim` of class `cls`, on `node` when one was selected.
 * Pure; exported for tests.
 */
export function newProvisionedVolume(claim: PersistentVolumeClaim, cls: StorageClass, provisioner: string, node: string | undefined): PersistentVolume {
  const name = provisionedVolumeName(claim);
  const ns = claim.metadata?.namespace ?? '';
  const claimName = claim.metadata?.name ?? '';
  const spec: NonNullable<PersistentVolume['spec']> = {
    capacity: { storage: claim.spec?.resources?.requests?.['storage'] ?? '0' },
    accessModes: [...(claim.spec?.accessModes ?? [])],
    persistentVolumeReclaimPolicy: cls.reclaimPolicy ?? 'Delete',
    storageClassName: cls.metadata?.name ?? '',
    volumeMode: claim.spec?.volumeMode ?? 'Filesystem',
    claimRef: { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: ns, name: claimName, uid: claim.metadata?.uid ?? '', resourceVersion: claim.metadata?.resourceVersion ?? '' },
    hostPath: { path: `${LOCAL_PATH_ROOT}/${name}_${ns}_${claimName}`, type: 'DirectoryOrCreate' },
  };
  if (cls.mountOptions?.length) spec.mountOptions = [...cls.mountOptions];
  if (node) spec.nodeAffinity = getVolumeNodeAffinity('kubernetes.io/hostname', node);
  return { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name, annotations: { [ANN_DYNAMICALLY_PROVISIONED]: provisioner } }, spec };
}

/** Provisions and deletes volumes for claims of classes whose provisioner is {@link SIMULATED_PROVISIONER}. */
export class SimulatedProvisioner {
  private readonly claimQueue: RateLimitingQueue;
  private readonly volumeQueue: RateLimitingQueue;
  private readonly claims: Lister<PersistentVolumeClaim>;
  private readonly volumes: Lister<PersistentVolume>;
  private readonly classes: Lister<StorageClass>;
  private readonly logger: Logger;
  private readonly name: string;

  constructor(private readonly opts: SimulatedProvisionerOptions) {
    this.logger = opts.logger ?? stderrLogger;
    this.name = opts.provisionerName ?? SIMULATED_PROVISIONER;
    this.claimQueue = new RateLimitingQueue<string>({ clock: opts.clock, name: 'claims' });
    this.volumeQueue = new RateLimitingQueue<string>({ clock: opts.clock, name: 'volumes' });
    const inf = opts.informers;
    this.claims = inf.core.persistentVolumeClaims().lister();
    this.volumes = inf.core.persistentVolumes().lister();
    this.classes = inf.storage.storageClasses().lister();
    inf.core.persistentVolumeClaims().addEventHandler({
      add: (c) => this.claimQueue.add(claimToClaimKey(c)),
      update: (_o, c) => this.claimQueue.add(claimToClaimKey(c)),
    });
    inf.core.persistentVolumes().addEventHandler({
      add: (v) => this.volumeQueue.add(v.metadata?.name ?? ''),
      update: (_o, v) => this.volumeQueue.add(v.metadata?.name ?? ''),
      delete: (obj) => {
        // A claim whose volume went away before binding is looked at again.
        const v = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
        const ref = v.spec?.claimRef;
        if (ref) this.claimQueue.add(`${ref.namespace ?? ''}/${ref.name ?? ''}`);
      },
    });
  }

  /** Waits for the caches, then runs `workers` workers per queue until `signal` aborts. */
  async run(workers = DEFAULT_PROVISIONER_WORKERS, signal?: AbortSignal): Promise<void> {
    const inf = this.opts.informers;
    const caches = [inf.core.persistentVolumeClaims(), inf.core.persistentVolumes(), inf.storage.storageClasses()];
    const opts = { name: 'simulated-provisioner', logger: this.logger, signal };
    await Promise.all([
      runWorkersWhenSynced(caches, this.claimQueue, workers, (key) => this.syncClaim(key), opts),
      runWorkersWhenSynced(caches, this.volumeQueue, workers, (key) => this.syncVolume(key), opts),
    ]);
  }

  /** `shouldProvision`: the claim is for us, unbound, not being deleted, and (WaitForFirstConsumer) has a node. */
  shouldProvision(claim: PersistentVolumeClaim, cls: StorageClass | undefined): boolean {
    if (claim.spec?.volumeName || claim.metadata?.deletionTimestamp) return false;
    const ann = claim.metadata?.annotations ?? {};
    const asked = ann[ANN_STORAGE_PROVISIONER] ?? ann[ANN_BETA_STORAGE_PROVISIONER];
    if (asked !== this.name || !cls || cls.provisioner !== this.name) return false;
    if (cls.volumeBindingMode === 'WaitForFirstConsumer' && !ann[ANN_SELECTED_NODE]) return false;
    return true;
  }

  /** Provisions the claim `namespace/name` when it should be and its volume does not exist yet. */
  async syncClaim(key: string): Promise<void> {
    const claim = this.claims.get(key);
    if (!claim) return;
    const cls = this.classes.get(getPersistentVolumeClaimClass(claim));
    if (!this.shouldProvision(claim, cls) || !cls) return;
    const name = provisionedVolumeName(claim);
    if (this.volumes.get(name)) return;
    const ref = withTypeMeta(claim, 'v1', 'PersistentVolumeClaim');
    this.opts.recorder.event(ref, 'Normal', 'Provisioning', `External provisioner is provisioning volume for claim ${JSON.stringify(claimToClaimKey(claim))}`);
    const node = claim.metadata?.annotations?.[ANN_SELECTED_NODE];
    try {
      await this.opts.client.core.persistentVolumes().create(newProvisionedVolume(claim, cls, this.name, node));
    } catch (err) {
      // Created by an earlier attempt whose answer we missed: done.
      if (!isAlreadyExists(err)) {
        this.opts.recorder.event(ref, 'Warning', 'ProvisioningFailed', `failed to provision volume with StorageClass ${JSON.stringify(cls.metadata?.name ?? '')}: ${(err as Error).message}`);
        throw err;
      }
      return;
    }
    this.logger.info({ pvc: key, volume: name }, 'volume provisioned');
    this.opts.recorder.event(ref, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${name}`);
  }

  /** `shouldDelete` + `deleteVolumeOperation`: a Released volume we provisioned, with reclaimPolicy Delete, is deleted. */
  async syncVolume(name: string): Promise<void> {
    const v = this.volumes.get(name);
    if (!v || v.metadata?.deletionTimestamp) return;
    if (v.metadata?.annotations?.[ANN_DYNAMICALLY_PROVISIONED] !== this.name) return;
    if (v.status?.phase !== 'Released' || v.spec?.persistentVolumeReclaimPolicy !== 'Delete') return;
    try {
      await this.opts.client.core.persistentVolumes().delete(name, { preconditions: v.metadata?.uid ? { uid: v.metadata.uid } : undefined });
      this.logger.info({ volume: name }, 'volume deleted');
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}
