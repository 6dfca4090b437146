/**
 * The PVC-protection controller: removes the `kubernetes.io/pvc-protection` finalizer of a claim
 * being deleted once no pod uses it, so a claim a pod still mounts stays Terminating.
 *
 * Followed (v1.33): pkg/controller/volume/pvcprotection/pvc_protection_controller.go (processPVC:
 * only claims with a deletionTimestamp and the finalizer; isBeingUsed asks the pod informer and,
 * when it finds no user, the API server — the informer may lag a pod just created; podUsesPVC: only
 * scheduled pods count (the kubelet refuses to start a pod on a claim being deleted), and not pods
 * that are shut down — deleted with grace period 0 or force-deleted —, whatever their phase: a
 * Succeeded or Failed pod still counts until it is gone, as upstream; pod events enqueue the claims
 * of the pod's namespace it references).
 */
import type { PersistentVolumeClaim, Pod } from '../../../api/index.js';
import type { Clientset } from '../../../client/index.js';
import { DeletedFinalStateUnknown, type Lister, type SharedInformerFactory } from '../../../informers/index.js';
import { isNotFound } from '../../../machinery/errors/index.js';
import { PVC_PROTECTION_FINALIZER } from '../../../machinery/volume/index.js';
import type { Clock } from '../../../util/clock/index.js';
import { stderrLogger, type Logger } from '../../../util/runtime/index.js';
import { RateLimitingQueue, runWorkersWhenSynced } from '../../../workqueue/index.js';

/** Workers, as kube-controller-manager runs this controller (one). */
export const DEFAULT_PVC_PROTECTION_WORKERS = 1;

/** Options of {@link PVCProtectionController}. */
export interface PVCProtectionControllerOptions {
  client: Clientset;
  informers: SharedInformerFactory;
  clock: Clock;
  logger?: Logger;
}

/** `podIsShutDown`: deleted with grace period 0 (the kubelet is done with it) or force-deleted. */
export function podIsShutDown(pod: Pod): boolean {
  return !!pod.metadata?.deletionTimestamp && pod.metadata.deletionGracePeriodSeconds === 0;
}

/** `podUsesPVC`: a scheduled pod, not shut down, with a volume of the claim (directly or as its ephemeral claim). */
export function podUsesPVC(pod: Pod, claimName: string): boolean {
  if (!pod.spec?.nodeName || podIsShutDown(pod)) return false;
  const podName = pod.metadata?.name ?? '';
  return (pod.spec.volumes ?? []).some((v) => v.persistentVolumeClaim?.claimName === claimName || (v.ephemeral !== undefined && `${podName}-${v.name}` === claimName));
}

/** The claims (by name) a pod references. */
function claimNamesOf(pod: Pod): string[] {
  const podName = pod.metadata?.name ?? '';
  return (pod.spec?.volumes ?? []).flatMap((v) => (v.persistentVolumeClaim ? [v.persistentVolumeClaim.claimName] : v.ephemeral ? [`${podName}-${v.name}`] : []));
}

/** The PVC-protection controller. Work items are claim keys `namespace/name`. */
export class PVCProtectionController {
  private readonly queue: RateLimitingQueue;
  private readonly claims: Lister<PersistentVolumeClaim>;
  private readonly pods: Lister<Pod>;
  private readonly logger: Logger;

  constructor(private readonly opts: PVCProtectionControllerOptions) {
    this.logger = opts.logger ?? stderrLogger;
    this.queue = new RateLimitingQueue<string>({ clock: opts.clock, name: 'pvcprotection' });
    const inf = opts.informers;
    this.claims = inf.core.persistentVolumeClaims().lister();
    this.pods = inf.core.pods().lister();
    const enqueueClaim = (c: PersistentVolumeClaim): void => {
      if (c.metadata?.deletionTimestamp && c.metadata.finalizers?.includes(PVC_PROTECTION_FINALIZER)) this.queue.add(`${c.metadata.namespace ?? ''}/${c.metadata.name ?? ''}`);
    };
    inf.core.persistentVolumeClaims().addEventHandler({ add: enqueueClaim, update: (_o, c) => enqueueClaim(c) });
    const enqueuePodClaims = (obj: Pod | DeletedFinalStateUnknown<Pod>): void => {
      const pod = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
      for (const name of claimNamesOf(pod)) this.queue.add(`${pod.metadata?.namespace ?? ''}/${name}`);
    };
    inf.core.pods().addEventHandler({ add: enqueuePodClaims, update: (_o, p) => enqueuePodClaims(p), delete: enqueuePodClaims });
  }

  /** Waits for the caches, then runs `workers` workers until `signal` aborts. */
  async run(workers = DEFAULT_PVC_PROTECTION_WORKERS, signal?: AbortSignal): Promise<void> {
    const inf = this.opts.informers;
    await runWorkersWhenSynced([inf.core.persistentVolumeClaims(), inf.core.pods()], this.queue, workers, (key) => this.processPVC(key), { name: 'pvcprotection', logger: this.logger, signal });
  }

  /** `processPVC`: drops the finalizer of a deleting claim no pod uses. */
  async processPVC(key: string): Promise<void> {
    const claim = this.claims.get(key);
    if (!claim?.metadata?.deletionTimestamp || !claim.metadata.finalizers?.includes(PVC_PROTECTION_FINALIZER)) return;
    if (await this.isBeingUsed(claim)) return;
    const clone = structuredClone<PersistentVolumeClaim>(claim);
    const meta = (clone.metadata ??= {});
    meta.finalizers = (meta.finalizers ?? []).filter((f) => f !== PVC_PROTECTION_FINALIZER);
    try {
      await this.opts.client.core.persistentVolumeClaims(claim.metadata.namespace).update(clone);
      this.logger.info({ pvc: key }, 'Removed protection finalizer from PVC');
    } catch (err) {
      // Gone already; anything else (a Conflict with a newer copy too) is retried.
      if (!isNotFound(err)) throw err;
    }
  }

  /** `isBeingUsed`: a pod of the informer uses it, or, if none does there, one the API server lists. */
  private async isBeingUsed(claim: PersistentVolumeClaim): Promise<boolean> {
    const namespace = claim.metadata?.namespace ?? '';
    const name = claim.metadata?.name ?? '';
    if (this.pods.namespace(namespace).list().some((p) => podUsesPVC(p, name))) return true;
    const live = await this.opts.client.core.pods(namespace).list();
    return live.items.some((p) => podUsesPVC(p, name));
  }
}
