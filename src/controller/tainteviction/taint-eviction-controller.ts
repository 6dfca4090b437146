/**
 * The taint eviction controller (formerly the "taint manager"): deletes pods from nodes with
 * NoExecute taints they do not tolerate.
 *
 * Follows kubernetes/kubernetes v1.33 pkg/controller/tainteviction/taint_eviction.go:
 * - it keeps each node's NoExecute taints (`taintedNodes`), updated on node changes;
 * - for every pod on such a node (`processPodOnNode`): a taint the pod does not tolerate ⇒ deleted
 *   at once; all tolerated, the smallest `tolerationSeconds` of the tolerations used ⇒ deleted that
 *   long after the controller saw the taint (upstream counts from then, not from the taint's
 *   `timeAdded`); tolerated without `tolerationSeconds` ⇒ kept (and any pending deletion cancelled);
 *   a deletion already pending from an earlier sighting is kept as it is (upstream compares its
 *   createdAt + the new minimum with now + the new minimum);
 * - taints gone, pod gone, or pod moved ⇒ pending deletions cancelled (event `TaintManagerEviction`
 *   "Cancelling deletion of Pod <ns>/<name>");
 * - a deletion records `TaintManagerEviction` "Marking for deletion Pod <ns>/<name>", sets the pod
 *   condition DisruptionTarget=True (reason `DeletionByTaintManager`, message `Taint manager:
 *   deleting due to NoExecute taint`), then deletes it with its default grace period; retried 5 times.
 * So DaemonSet pods (tolerating not-ready/unreachable forever) stay, and ordinary pods (300 s from
 * DefaultTolerationSeconds admission) go after five minutes.
 */
import type { Node, Pod, Taint, Toleration } from '../../api/index.js';
import type { Clientset } from '../../client/index.js';
import type { EventRecorder } from '../../client/record/index.js';
import type { SharedInformerFactory } from '../../informers/index.js';
import { DeletedFinalStateUnknown } from '../../informers/index.js';
import { isNotFound } from '../../machinery/errors/index.js';
import { semanticDeepEqual, splitMetaNamespaceKey } from '../../machinery/meta/index.js';
import { toleratesTaint } from '../../machinery/scheduling/index.js';
import { formatTime, type Clock } from '../../util/clock/index.js';
import type { Logger } from '../../util/runtime/index.js';
import { RateLimitingQueue, runWorkersWhenSynced } from '../../workqueue/index.js';
import { addPodNodeNameIndexer, podsAssignedToNode } from '../controller-utils.js';
import { TimedWorkerQueue } from './timed-workers.js';

/** The controller's name, its event source (`taint-eviction-controller`). */
export const TAINT_EVICTION_CONTROLLER = 'taint-eviction-controller';
/** Attempts of one deletion (upstream `retries`). */
const DELETE_RETRIES = 5;

/** Options of {@link TaintEvictionController}. */
export interface TaintEvictionControllerOptions {
  client: Clientset;
  informers: SharedInformerFactory;
  clock: Clock;
  recorder: EventRecorder;
  logger?: Logger;
}

/** `getNoExecuteTaints`. */
export function getNoExecuteTaints(taints: readonly Taint[] | undefined): Taint[] {
  return (taints ?? []).filter((t) => t.effect === 'NoExecute');
}

/**
 * `v1helper.GetMatchingTolerations`: whether every taint is tolerated, and the first toleration
 * used for each.
 */
export function getMatchingTolerations(taints: readonly Taint[], tolerations: readonly Toleration[]): [boolean, Toleration[]] {
  const used: Toleration[] = [];
  for (const taint of taints) {
    const t = tolerations.find((tol) => toleratesTaint(tol, taint));
    if (!t) return [false, []];
    used.push(t);
  }
  return [true, used];
}

/**
 * `getMinTolerationTime`, in ms: 0 with no tolerations or one of ≤ 0 s, the smallest
 * `tolerationSeconds` otherwise, and -1 (forever) when none sets it.
 */
export function getMinTolerationTime(tolerations: readonly Toleration[]): number {
  if (tolerations.length === 0) return 0;
  let min = Infinity;
  for (const t of tolerations) {
    if (t.tolerationSeconds === undefined || t.tolerationSeconds === null) continue;
    if (t.tolerationSeconds <= 0) return 0;
    min = Math.min(min, t.tolerationSeconds);
  }
  return min === Infinity ? -1 : min * 1000;
}

const unwrap = <T>(obj: T | DeletedFinalStateUnknown<T>): T => (obj instanceof DeletedFinalStateUnknown ? obj.obj : obj);
const podKeyOf = (pod: Pod): string => `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;

/** See the module documentation. */
export class TaintEvictionController {
  readonly nodeUpdateQueue: RateLimitingQueue;
  readonly podUpdateQueue: RateLimitingQueue;
  /** Pending deletions by pod key `ns/name`. */
  readonly taintEvictionQueue: TimedWorkerQueue;
  private readonly taintedNodes = new Map<string, Taint[]>();

  constructor(private readonly opts: TaintEvictionControllerOptions) {
    this.nodeUpdateQueue = new RateLimitingQueue<string>({ clock: opts.clock, name: 'noexec_taint_node' });
    this.podUpdateQueue = new RateLimitingQueue<string>({ clock: opts.clock, name: 'noexec_taint_pod' });
    this.taintEvictionQueue = new TimedWorkerQueue(opts.clock, (key) => this.deletePod(key), opts.logger);
    const pods = opts.informers.core.pods();
    addPodNodeNameIndexer(pods);
    pods.addEventHandler({
      add: (pod) => this.podUpdated(undefined, pod),
      update: (old, pod) => this.podUpdated(old, pod),
      delete: (obj) => this.podUpdated(unwrap(obj), undefined),
    });
    opts.informers.core.nodes().addEventHandler({
      add: (node) => this.nodeUpdated(undefined, node),
      update: (old, node) => this.nodeUpdated(old, node),
      delete: (obj) => this.nodeUpdated(unwrap(obj), undefined),
    });
  }

  /** Runs the node and pod workers until `signal` aborts; pending deletions are then cancelled. */
  async run(signal?: AbortSignal): Promise<void> {
    const caches = [this.opts.informers.core.pods(), this.opts.informers.core.nodes()];
    const opts = { name: TAINT_EVICTION_CONTROLLER, signal, ...(this.opts.logger ? { logger: this.opts.logger } : {}) };
    await Promise.all([
      runWorkersWhenSynced(caches, this.nodeUpdateQueue, 8, (name) => Promise.resolve(this.handleNodeUpdate(name)), opts),
      runWorkersWhenSynced(caches, this.podUpdateQueue, 8, (key) => Promise.resolve(this.handlePodUpdate(key)), opts),
    ]);
    for (const key of this.taintEvictionQueue.pendingKeys()) this.taintEvictionQueue.cancelWork(key);
  }

  /** `PodUpdated`: queues the pod unless neither its node nor its tolerations changed. */
  private podUpdated(old: Pod | undefined, cur: Pod | undefined): void {
    if (old && cur && old.spec?.nodeName === cur.spec?.nodeName && semanticDeepEqual(old.spec?.tolerations ?? [], cur.spec?.tolerations ?? [])) return;
    const pod = cur ?? old;
    if (pod) this.podUpdateQueue.add(podKeyOf(pod));
  }

  /** `NodeUpdated`: queues the node unless its NoExecute taints are the same. */
  private nodeUpdated(old: Node | undefined, cur: Node | undefined): void {
    if (old && cur && semanticDeepEqual(getNoExecuteTaints(old.spec?.taints), getNoExecuteTaints(cur.spec?.taints))) return;
    const node = cur ?? old;
    if (node) this.nodeUpdateQueue.add(node.metadata?.name ?? '');
  }

  /** `handleNodeUpdate`: records the node's NoExecute taints and (re)considers every pod on it. */
  handleNodeUpdate(nodeName: string): void {
    const node = this.opts.informers.core.nodes().lister().get(nodeName);
    if (!node) {
      this.taintedNodes.delete(nodeName);
      return;
    }
    const taints = getNoExecuteTaints(node.spec?.taints);
    if (taints.length === 0) this.taintedNodes.delete(nodeName);
    else this.taintedNodes.set(nodeName, taints);
    // taintedNodes is updated first, so a pod added after this read is handled by its own update.
    const pods = podsAssignedToNode(this.opts.informers.core.pods(), nodeName);
    if (taints.length === 0) {
      for (const pod of pods) this.cancelWorkWithEvent(podKeyOf(pod));
      return;
    }
    const now = this.opts.clock.now();
    for (const pod of pods) this.processPodOnNode(podKeyOf(pod), pod.spec?.tolerations ?? [], taints, now);
  }

  /** `handlePodUpdate`: a pod appeared, changed or went; (re)considers it against its node's taints. */
  handlePodUpdate(key: string): void {
    const pod = this.opts.informers.core.pods().lister().get(key);
    if (!pod) {
      this.cancelWorkWithEvent(key);
      return;
    }
    const nodeName = pod.spec?.nodeName;
    if (!nodeName) return;
    const taints = this.taintedNodes.get(nodeName);
    // Not tainted (or gone): cancelling, if needed, happened when the taints went.
    if (!taints) return;
    this.processPodOnNode(key, pod.spec?.tolerations ?? [], taints, this.opts.clock.now());
  }

  /** `processPodOnNode`: schedules, moves or cancels the pod's deletion (`now` in ms). */
  private processPodOnNode(key: string, tolerations: readonly Toleration[], taints: readonly Taint[], now: number): void {
    if (taints.length === 0) this.cancelWorkWithEvent(key);
    const [allTolerated, used] = getMatchingTolerations(taints, tolerations);
    if (!allTolerated) {
      this.opts.logger?.info({ pod: key }, 'Not all taints are tolerated after update for pod on node');
      this.cancelWorkWithEvent(key);
      this.taintEvictionQueue.addWork(key, now, now);
      return;
    }
    const minTolerationMs = getMinTolerationTime(used);
    if (minTolerationMs < 0) {
      this.cancelWorkWithEvent(key);
      return;
    }
    let startTime = now;
    const triggerTime = now + minTolerationMs;
    const scheduled = this.taintEvictionQueue.getWorker(key);
    if (scheduled) {
      startTime = scheduled.createdAt;
      if (startTime + minTolerationMs < triggerTime) return;
      this.cancelWorkWithEvent(key);
    }
    this.taintEvictionQueue.addWork(key, startTime, triggerTime);
  }

  private cancelWorkWithEvent(key: string): void {
    if (this.taintEvictionQueue.cancelWork(key)) this.emitEvent(key, `Cancelling deletion of Pod ${key}`);
  }

  private emitEvent(key: string, message: string): void {
    const { namespace, name } = splitMetaNamespaceKey(key);
    this.opts.recorder.event({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace } }, 'Normal', 'TaintManagerEviction', message);
  }

  /** `deletePodHandler`: the event, then {@link addConditionAndDeletePod}, up to 5 attempts. Throws the last error. */
  private async deletePod(key: string): Promise<void> {
    this.opts.logger?.info({ pod: key, controller: TAINT_EVICTION_CONTROLLER }, 'Deleting pod');
    this.emitEvent(key, `Marking for deletion Pod ${key}`);
    let last: unknown;
    for (let i = 0; i < DELETE_RETRIES; i++) {
      try {
        await this.addConditionAndDeletePod(key);
        return;
      } catch (err) {
        last = err;
      }
    }
    throw last;
  }

  /** `addConditionAndDeletePod`: DisruptionTarget=True (`DeletionByTaintManager`), then DELETE. NotFound ends quietly. */
  private async addConditionAndDeletePod(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const pods = this.opts.client.core.pods(namespace);
    try {
      const pod = await pods.get(name);
      const conditions = pod.status?.conditions ?? [];
      const old = conditions.find((c) => c.type === 'DisruptionTarget');
      const reason = 'DeletionByTaintManager';
      const message = 'Taint manager: deleting due to NoExecute taint';
      if (!old || old.status !== 'True' || old.reason !== reason || old.message !== message) {
        const condition = { type: 'DisruptionTarget', status: 'True', reason, message, lastTransitionTime: formatTime(this.opts.clock.now()) };
        const updated: Pod = { ...pod, status: { ...pod.status, conditions: [...conditions.filter((c) => c.type !== 'DisruptionTarget'), condition] } };
        await pods.updateStatus(updated);
      }
      await pods.delete(name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}
