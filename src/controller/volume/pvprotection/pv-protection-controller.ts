/**
 * The PV-protection controller: removes the `kubernetes.io/pv-protection` finalizer of a volume being
 * deleted once it is not in use, i.e. not Bound to a claim.
 *
 * Followed (v1.33): pkg/controller/volume/pvprotection/pv_protection_controller.go (processPV: only
 * volumes with a deletionTimestamp and the finalizer; isBeingUsed: `status.phase == Bound`).
 */
import type { PersistentVolume } from '../../../api/index.js';
import type { Clientset } from '../../../client/index.js';
import type { Lister, SharedInformerFactory } from '../../../informers/index.js';
import { isNotFound } from '../../../machinery/errors/index.js';
import { PV_PROTECTION_FINALIZER } from '../../../machinery/volume/index.js';
import type { Clock } from '../../../util/clock/index.js';
import { stderrLogger, type Logger } from '../../../util/runtime/index.js';
import { RateLimitingQueue, runWorkersWhenSynced } from '../../../workqueue/index.js';

/** Workers, as kube-controller-manager runs this controller (one). */
export const DEFAULT_PV_PROTECTION_WORKERS = 1;

/** Options of {@link PVProtectionController}. */
export interface PVProtectionControllerOptions {
  client: Clientset;
  informers: SharedInformerFactory;
  clock: Clock;
  logger?: Logger;
}

/** `isBeingUsed`: the PV controller has it Bound to a claim. */
export function isPersistentVolumeBeingUsed(pv: PersistentVolume): boolean {
  return pv.status?.phase === 'Bound';
}

/** The PV-protection controller. Work items are volume names. */
export class PVProtectionController {
  private readonly queue: RateLimitingQueue;
  private readonly volumes: Lister<PersistentVolume>;
  private readonly logger: Logger;

  constructor(private readonly opts: PVProtectionControllerOptions) {
    this.logger = opts.logger ?? stderrLogger;
    this.queue = new RateLimitingQueue<string>({ clock: opts.clock, name: 'pvprotection' });
    this.volumes = opts.informers.core.persistentVolumes().lister();
    const enqueue = (pv: PersistentVolume): void => {
      if (pv.metadata?.deletionTimestamp && pv.metadata.finalizers?.includes(PV_PROTECTION_FINALIZER)) this.queue.add(pv.metadata.name ?? '');
    };
    opts.informers.core.persistentVolumes().addEventHandler({ add: enqueue, update: (_o, pv) => enqueue(pv) });
  }

  /** Waits for the cache, then runs `workers` workers until `signal` aborts. */
  async run(workers = DEFAULT_PV_PROTECTION_WORKERS, signal?: AbortSignal): Promise<void> {
    await runWorkersWhenSynced([this.opts.informers.core.persistentVolumes()], this.queue, workers, (name) => this.processPV(name), { name: 'pvprotection', logger: this.logger, signal });
  }

  /** `processPV`: drops the finalizer of a deleting volume that is not Bound. */
  async processPV(name: string): Promise<void> {
    const pv = this.volumes.get(name);
    if (!pv?.metadata?.deletionTimestamp || !pv.metadata.finalizers?.includes(PV_PROTECTION_FINALIZER)) return;
    if (isPersistentVolumeBeingUsed(pv)) return;
    const clone = structuredClone<PersistentVolume>(pv);
    const meta = (clone.metadata ??= {});
    meta.finalizers = (meta.finalizers ?? []).filter((f) => f !== PV_PROTECTION_FINALIZER);
    try {
      await this.opts.client.core.persistentVolumes().update(clone);
      this.logger.info({ volume: name }, 'Removed protection finalizer from PV');
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}
