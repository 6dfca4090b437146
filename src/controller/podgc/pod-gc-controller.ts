/**
 * The pod garbage collector: pods left behind by nodes that no longer exist, and unscheduled pods
 * stuck terminating.
 *
 * Follows upstream pkg/controller/podgc/gc_controller.go. Every 20 s (`gcCheckPeriod`):
 * - gcOrphaned: a pod bound to a node the informer does not know puts that node in quarantine; once
 *   it has been missing for 40 s (`quarantineTime`) and a live GET confirms it is gone, each of its
 *   pods is marked Failed with the condition DisruptionTarget (reason `DeletionByPodGC`, message
 *   `PodGC: node no longer exists`) and force-deleted (grace period 0). A node that comes back during
 *   quarantine saves its pods. (This is what makes a DaemonSet's pod disappear with its node.)
 * - gcUnscheduledTerminating: a pod being deleted that was never scheduled is force-deleted, since no
 *   kubelet will ever finish its graceful deletion.
 * The terminated-pod threshold (12,500 by default) and the out-of-service taint path are not
 * simulated: nothing here produces that many finished pods or that taint.
 */
import type { Node, Pod, PodCondition } from '../../api/index.js';
import type { Clientset } from '../../client/index.js';
import type { SharedInformerFactory } from '../../informers/index.js';
import { isNotFound } from '../../machinery/errors/index.js';
import { deepCopy } from '../../machinery/meta/index.js';
import { formatTime, type Clock, type Timer } from '../../util/clock/index.js';
import { handleError } from '../../util/runtime/index.js';
import type { Logger } from '../../util/runtime/index.js';

/** upstream `gcCheckPeriod`, ms. */
export const GC_CHECK_PERIOD_MS = 20_000;
/** upstream `quarantineTime`: how long a node must be missing before its pods go, ms. */
export const QUARANTINE_TIME_MS = 40_000;

/** Options of {@link PodGCController}. */
export interface PodGCControllerOptions {
  client: Clientset;
  informers: SharedInformerFactory;
  clock: Clock;
  logger?: Logger;
}

/** See the module documentation. */
export class PodGCController {
  /** Node name → when (ms) a pod was first seen bound to it while the node was missing. */
  private readonly missingSince = new Map<string, number>();
  private timer: Timer | undefined;

  constructor(private readonly opts: PodGCControllerOptions) {}

  /** Runs until `signal` aborts: a pass every 20 s of clock time. */
  async run(signal?: AbortSignal): Promise<void> {
    const { informers } = this.opts;
    const pods = informers.core.pods();
    const nodes = informers.core.nodes();
    informers.start();
    await Promise.all([pods.waitForSync(signal), nodes.waitForSync(signal)]);
    if (signal?.aborted) return;
    await new Promise<void>((resolve) => {
      const tick = (): void => {
        void this.gc()
          .catch((err: unknown) => handleError(err, { component: 'pod-garbage-collector', logger: this.opts.logger, msg: 'Pod GC pass failed' }))
          .finally(() => {
            if (signal?.aborted) resolve();
            else this.timer = this.opts.clock.setTimer(GC_CHECK_PERIOD_MS, tick);
          });
      };
      signal?.addEventListener(
        'abort',
        () => {
          this.timer?.stop();
          resolve();
        },
        { once: true },
      );
      this.timer = this.opts.clock.setTimer(GC_CHECK_PERIOD_MS, tick);
    });
  }

  /** One pass (upstream `gc`): orphaned pods, then unscheduled terminating pods. */
  async gc(): Promise<void> {
    const pods = this.opts.informers.core.pods().lister().list();
    const nodes = new Set(this.opts.informers.core.nodes().lister().list().map((n: Node) => n.metadata?.name));
    await this.gcOrphaned(pods, nodes);
    await Promise.all(
      pods.filter((p) => p.metadata?.deletionTimestamp && !p.spec?.nodeName).map((p) => this.forceDelete(p, false)),
    );
  }

  private async gcOrphaned(pods: readonly Pod[], nodes: ReadonlySet<string | undefined>): Promise<void> {
    const now = this.opts.clock.now();
    const byMissingNode = new Map<string, Pod[]>();
    for (const pod of pods) {
      const node = pod.spec?.nodeName;
      if (!node || nodes.has(node)) continue;
      const list = byMissingNode.get(node) ?? [];
      list.push(pod);
      byMissingNode.set(node, list);
    }
    // Forget nodes that came back or no longer have pods.
    for (const node of [...this.missingSince.keys()]) if (!byMissingNode.has(node)) this.missingSince.delete(node);
    for (const [node, orphans] of byMissingNode) {
      const since = this.missingSince.get(node);
      if (since === undefined) {
        this.missingSince.set(node, now);
        continue;
      }
      if (now - since < QUARANTINE_TIME_MS) continue;
      if (await this.nodeExists(node)) {
        this.missingSince.delete(node);
        continue;
      }
      await Promise.all(orphans.map((p) => this.forceDelete(p, true)));
    }
  }

  /** A live GET: the informer may lag a node that was just created. */
  private async nodeExists(name: string): Promise<boolean> {
    try {
      await this.opts.client.core.nodes().get(name);
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  /**
   * `markFailedAndDeletePod`: (for orphans) phase Failed with the DisruptionTarget condition, then a
   * delete with grace period 0. NotFound at either step means someone else finished the job.
   */
  private async forceDelete(pod: Pod, markFailed: boolean): Promise<void> {
    const name = pod.metadata?.name ?? '';
    const pods = this.opts.client.core.pods(pod.metadata?.namespace);
    try {
      if (markFailed && pod.status?.phase !== 'Failed' && pod.status?.phase !== 'Succeeded') {
        const updated = deepCopy(pod) as Pod & { status: NonNullable<Pod['status']> };
        updated.status ??= {};
        const condition: PodCondition = {
          type: 'DisruptionTarget',
          status: 'True',
          reason: 'DeletionByPodGC',
          message: 'PodGC: node no longer exists',
          lastTransitionTime: formatTime(this.opts.clock.now()),
        };
        updated.status.phase = 'Failed';
        updated.status.conditions = [...(updated.status.conditions ?? []).filter((c) => c.type !== 'DisruptionTarget'), condition];
        await pods.updateStatus(updated);
      }
      await pods.delete(name, { gracePeriodSeconds: 0, preconditions: pod.metadata?.uid ? { uid: pod.metadata.uid } : undefined });
      this.opts.logger?.info({ pod: `${pod.metadata?.namespace ?? ''}/${name}`, node: pod.spec?.nodeName }, 'PodGC: forcefully deleted pod');
    } catch (err) {
      if (!isNotFound(err)) this.opts.logger?.error({ err, pod: name }, 'PodGC: failed to delete pod');
    }
  }
}
