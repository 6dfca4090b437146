/**
 * The node lifecycle controller: notices nodes whose kubelet stopped reporting, marks them and their
 * pods, and taints them so the taint eviction controller moves their pods elsewhere.
 *
 * Follows kubernetes/kubernetes v1.33 pkg/controller/nodelifecycle/node_lifecycle_controller.go:
 * - `monitorNodeHealth`, every `--node-monitor-period` (5 s): a node whose Lease `renewTime` and Ready
 *   condition `lastHeartbeatTime` have not moved for `--node-monitor-grace-period` (50 s since v1.32;
 *   `--node-startup-grace-period`, 60 s, for a node that never reported) gets Ready, MemoryPressure,
 *   DiskPressure and PIDPressure set to Unknown (reason `NodeStatusUnknown`, message `Kubelet stopped
 *   posting node status.`; `NodeStatusNeverUpdated` / `Kubelet never posted node status.` for one that
 *   never had it). The probe timestamps are the controller's own clock readings when it saw a
 *   heartbeat change (`tryUpdateNodeHealth`), never the kubelet's clock. On the Ready → not Ready
 *   transition the node gets a `NodeNotReady` event and its pods Ready=False (`MarkPodsNotReady`,
 *   Warning `NodeNotReady` "Node is not ready" on each pod).
 * - `processTaintBaseEviction`: a node whose (previously observed) Ready is Unknown is queued for
 *   the NoExecute taint `node.kubernetes.io/unreachable`, False for `node.kubernetes.io/not-ready`;
 *   a tainted node whose condition changed has the taints swapped; a Ready node has both removed.
 * - The queues are per zone (`topology.kubernetes.io/region` + `zone`), and `doNoExecuteTaintingPass`
 *   (every 100 ms) takes nodes off them at the zone's rate (`handleDisruption`): `--node-eviction-rate`
 *   (0.1/s) normally; when at least `--unhealthy-zone-threshold` (55 %) of a zone's nodes (and more
 *   than 2) are not Ready, `--secondary-node-eviction-rate` (0.01/s) if the cluster has more than
 *   `--large-cluster-size-threshold` (50) nodes, else 0; a zone with no Ready node keeps the normal
 *   rate — unless every zone is fully disrupted, when the taints are removed and tainting stops
 *   (the control plane, not the nodes, is then the likely culprit).
 * - `doNoScheduleTaintingPass` (TaintNodesByCondition), on every node change: the NoSchedule taints
 *   `not-ready`, `unreachable`, `memory-pressure`, `disk-pressure`, `pid-pressure`,
 *   `network-unavailable` and `unschedulable` follow the conditions and `spec.unschedulable`.
 * - Events `RegisteredNode` / `RemovingNode` when it first sees a node / sees it gone.
 * Not simulated: the node label reconciliation (`reconcileNodeLabels`: the simulator sets both label
 * generations), and the metrics.
 */
import type { Lease, Node, NodeCondition, Pod, PodCondition } from '../../api/index.js';
import type { Clientset } from '../../client/index.js';
import { withTypeMeta, type EventRecorder } from '../../client/record/index.js';
import type { SharedInformerFactory } from '../../informers/index.js';
import { isNotFound } from '../../machinery/errors/index.js';
import { deepCopy, semanticDeepEqual } from '../../machinery/meta/index.js';
import { formatTime, parseTime, type Clock, type Timer } from '../../util/clock/index.js';
import { handleError, type Logger } from '../../util/runtime/index.js';
import { RateLimitingQueue, runWorkersWhenSynced } from '../../workqueue/index.js';
import { addPodNodeNameIndexer, podsAssignedToNode } from '../controller-utils.js';
import { RateLimitedTimedQueue } from './rate-limited-queue.js';
import { NOT_READY_TAINT, UNREACHABLE_TAINT, noScheduleTaintDiff, swapNodeControllerTaint, taintExists } from './taints.js';

/** Defaults of kube-controller-manager's node lifecycle flags (v1.33), durations in ms. */
export const NODE_LIFECYCLE_DEFAULTS = Object.freeze({
  /** `--node-monitor-period`. */
  nodeMonitorPeriodMs: 5_000,
  /** `--node-monitor-grace-period` (50 s since v1.32, kubernetes/kubernetes#126287). */
  nodeMonitorGracePeriodMs: 50_000,
  /** `--node-startup-grace-period`. */
  nodeStartupGracePeriodMs: 60_000,
  /** `--node-eviction-rate`, nodes a second per zone. */
  evictionLimiterQPS: 0.1,
  /** `--secondary-node-eviction-rate`. */
  secondaryEvictionLimiterQPS: 0.01,
  /** `--large-cluster-size-threshold`. */
  largeClusterThreshold: 50,
  /** `--unhealthy-zone-threshold`. */
  unhealthyZoneThreshold: 0.55,
});

/** How often the tainting queues are worked (upstream `scheduler.NodeEvictionPeriod`), ms. */
export const NODE_EVICTION_PERIOD_MS = 100;
/** Retries of one node's health update (upstream `nodeStatusUpdateRetry`). */
const NODE_STATUS_UPDATE_RETRY = 5;
/** Nodes carrying this label do not count for their zone's state (`LabelNodeExcludeDisruption`). */
export const LABEL_NODE_EXCLUDE_DISRUPTION = 'node.kubernetes.io/exclude-disruption';

/** A zone's state (`ZoneState`). */
export type ZoneState = 'Initial' | 'Normal' | 'FullDisruption' | 'PartialDisruption';

/** Options of {@link NodeLifecycleController}; durations in ms, rates in nodes a second. */
export interface NodeLifecycleControllerOptions {
  client: Clientset;
  informers: SharedInformerFactory;
  clock: Clock;
  /** Source `node-controller`, as upstream's. */
  recorder: EventRecorder;
  logger?: Logger;
  nodeMonitorPeriodMs?: number;
  nodeMonitorGracePeriodMs?: number;
  nodeStartupGracePeriodMs?: number;
  evictionLimiterQPS?: number;
  secondaryEvictionLimiterQPS?: number;
  largeClusterThreshold?: number;
  unhealthyZoneThreshold?: number;
}

/** What the controller remembers of a node between passes (`nodeHealthData`); times in ms. */
interface NodeHealth {
  probeTimestamp: number;
  readyTransitionTimestamp: number;
  readyCondition: NodeCondition | undefined;
  leaseRenewTime: number | undefined;
}

/** `nodetopology.GetZoneKey`: `region:\0:zone` from the topology labels (or their beta names); '' for neither. */
export function getZoneKey(node: Node): string {
  const labels = node.metadata?.labels ?? {};
  const region = labels['topology.kubernetes.io/region'] ?? labels['failure-domain.beta.kubernetes.io/region'] ?? '';
  const zone = labels['topology.kubernetes.io/zone'] ?? labels['failure-domain.beta.kubernetes.io/zone'] ?? '';
  return region === '' && zone === '' ? '' : `${region}:\x00:${zone}`;
}

const readyConditionOf = (node: Node): NodeCondition | undefined => node.status?.conditions?.find((c) => c.type === 'Ready');

/** See the module documentation. */
export class NodeLifecycleController {
  readonly nodeUpdateQueue: RateLimitingQueue;
  readonly podUpdateQueue: RateLimitingQueue;
  private readonly client: Clientset;
  private readonly informers: SharedInformerFactory;
  private readonly clock: Clock;
  private readonly recorder: EventRecorder;
  private readonly logger: Logger | undefined;
  private readonly nodeMonitorPeriodMs: number;
  private readonly nodeMonitorGracePeriodMs: number;
  private readonly nodeStartupGracePeriodMs: number;
  private readonly evictionLimiterQPS: number;
  private readonly secondaryEvictionLimiterQPS: number;
  private readonly largeClusterThreshold: number;
  private readonly unhealthyZoneThreshold: number;

  private readonly knownNodes = new Map<string, Node>();
  private readonly nodeHealth = new Map<string, NodeHealth>();
  private readonly zoneStates = new Map<string, ZoneState>();
  /** Per zone, the nodes waiting to be tainted NoExecute (`zoneNoExecuteTainter`). */
  readonly zoneNoExecuteTainter = new Map<string, RateLimitedTimedQueue>();
  private readonly nodesToRetry = new Set<string>();

  constructor(opts: NodeLifecycleControllerOptions) {
    const d = NODE_LIFECYCLE_DEFAULTS;
    this.client = opts.client;
    this.informers = opts.informers;
    this.clock = opts.clock;
    this.recorder = opts.recorder;
    this.logger = opts.logger;
    this.nodeMonitorPeriodMs = opts.nodeMonitorPeriodMs ?? d.nodeMonitorPeriodMs;
    this.nodeMonitorGracePeriodMs = opts.nodeMonitorGracePeriodMs ?? d.nodeMonitorGracePeriodMs;
    this.nodeStartupGracePeriodMs = opts.nodeStartupGracePeriodMs ?? d.nodeStartupGracePeriodMs;
    this.evictionLimiterQPS = opts.evictionLimiterQPS ?? d.evictionLimiterQPS;
    this.secondaryEvictionLimiterQPS = opts.secondaryEvictionLimiterQPS ?? d.secondaryEvictionLimiterQPS;
    this.largeClusterThreshold = opts.largeClusterThreshold ?? d.largeClusterThreshold;
    this.unhealthyZoneThreshold = opts.unhealthyZoneThreshold ?? d.unhealthyZoneThreshold;
    this.nodeUpdateQueue = new RateLimitingQueue<string>({ clock: opts.clock, name: 'node_lifecycle_controller' });
    this.podUpdateQueue = new RateLimitingQueue<string>({ clock: opts.clock, name: 'node_lifecycle_controller_pods' });

    const pods = opts.informers.core.pods();
    addPodNodeNameIndexer(pods);
    pods.addEventHandler({
      add: (pod) => this.enqueuePod(pod),
      update: (_old, pod) => this.enqueuePod(pod),
    });
    const nodes = opts.informers.core.nodes();
    nodes.addEventHandler({
      add: (node) => this.nodeUpdateQueue.add(node.metadata?.name ?? ''),
      update: (_old, node) => this.nodeUpdateQueue.add(node.metadata?.name ?? ''),
    });
    opts.informers.coordination.leases();
  }

  /** Runs the workers and the periodic passes until `signal` aborts. */
  async run(signal?: AbortSignal): Promise<void> {
    const { informers } = this;
    const caches = [informers.core.pods(), informers.core.nodes(), informers.coordination.leases()];
    const timers: Timer[] = [];
    const every = (periodMs: number, name: string, fn: () => Promise<void> | void): void => {
      const tick = (): void => {
        void Promise.resolve()
          .then(fn)
          .catch((err: unknown) => handleError(err, { component: 'node-lifecycle-controller', logger: this.logger, msg: `${name} failed` }))
          .finally(() => {
            if (!signal?.aborted) timers.push(this.clock.setTimer(periodMs, tick));
          });
      };
      tick();
    };
    signal?.addEventListener('abort', () => timers.forEach((t) => t.stop()), { once: true });
    const whenSynced = Promise.all(caches.map((c) => c.waitForSync(signal))).then((synced) => {
      if (!synced.every(Boolean) || signal?.aborted) return;
      // Evictions only once the first health pass has run: until then nothing is queued anyway.
      every(NODE_EVICTION_PERIOD_MS, 'doNoExecuteTaintingPass', () => this.doNoExecuteTaintingPass());
      every(this.nodeMonitorPeriodMs, 'monitorNodeHealth', () => this.monitorNodeHealth());
    });
    const opts = { name: 'node-lifecycle-controller', signal, ...(this.logger ? { logger: this.logger } : {}) };
    await Promise.all([
      whenSynced,
      runWorkersWhenSynced(caches, this.nodeUpdateQueue, 8, (name) => this.doNoScheduleTaintingPass(name), opts),
      runWorkersWhenSynced(caches, this.podUpdateQueue, 4, (key) => this.processPod(key), opts),
    ]);
    timers.forEach((t) => t.stop());
  }

  /** The zone's current state (for tests and status). */
  zoneState(zone: string): ZoneState | undefined {
    return this.zoneStates.get(zone);
  }

  private enqueuePod(pod: Pod): void {
    if (!pod.spec?.nodeName) return;
    this.podUpdateQueue.add(`${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`);
  }

  // ---- pods -----------------------------------------------------------------------------------

  /** `processPod`: a pod (re)appearing on a node the controller considers not Ready is marked not Ready. */
  async processPod(key: string): Promise<void> {
    const pod = this.informers.core.pods().lister().get(key);
    const nodeName = pod?.spec?.nodeName;
    if (!pod || !nodeName) return;
    const health = this.nodeHealth.get(nodeName);
    // The node's health is not known yet: the next monitor pass handles its pods.
    if (!health?.readyCondition) return;
    if (health.readyCondition.status !== 'True') await this.markPodsNotReady([pod], nodeName);
  }

  /**
   * `MarkPodsNotReady`: sets Ready=False on each pod of `nodeName` that has a Ready condition not
   * already False, with the Warning event `NodeNotReady` "Node is not ready". Throws an aggregate of
   * the update errors (NotFound is fine: the pod is gone).
   */
  async markPodsNotReady(pods: readonly Pod[], nodeName: string): Promise<void> {
    const errs: unknown[] = [];
    const now = formatTime(this.clock.now());
    for (const pod of pods) {
      if (pod.spec?.nodeName !== nodeName) continue;
      const conditions = pod.status?.conditions ?? [];
      const i = conditions.findIndex((c) => c.type === 'Ready');
      const ready = conditions[i];
      if (!ready || ready.status === 'False') continue;
      const next: PodCondition = { ...ready, status: 'False', lastTransitionTime: now };
      const updated: Pod = { ...deepCopy(pod), status: { ...deepCopy(pod.status), conditions: conditions.map((c, j) => (j === i ? next : { ...c })) } };
      try {
        await this.client.core.pods(pod.metadata?.namespace).updateStatus(updated);
      } catch (err) {
        if (isNotFound(err)) continue;
        errs.push(err);
        continue;
      }
      this.recorder.event(withTypeMeta(pod, 'v1', 'Pod'), 'Warning', 'NodeNotReady', 'Node is not ready');
    }
    if (errs.length > 0) throw new AggregateError(errs, `unable to mark ${errs.length} pod(s) NotReady on node ${nodeName}`);
  }

  // ---- NoSchedule taints ----------------------------------------------------------------------

  /** `doNoScheduleTaintingPass`: the node's condition and unschedulable NoSchedule taints follow its status. */
  async doNoScheduleTaintingPass(nodeName: string): Promise<void> {
    const node = this.informers.core.nodes().lister().get(nodeName);
    if (!node) return;
    const [toAdd, toRemove] = noScheduleTaintDiff(node);
    if (toAdd.length === 0 && toRemove.length === 0) return;
    await swapNodeControllerTaint(this.client, nodeName, toAdd, toRemove, this.clock.now());
  }

  // ---- health ---------------------------------------------------------------------------------

  /**
   * One `monitorNodeHealth` pass: registers new nodes and zones, updates each node's health (Unknown
   * conditions after the grace period), queues taints, marks pods, then recomputes zone states.
   */
  async monitorNodeHealth(): Promise<void> {
    const nodes = this.informers.core.nodes().lister().list();
    const seen = new Set<string>();
    for (const node of nodes) {
      const name = node.metadata?.name ?? '';
      seen.add(name);
      if (this.knownNodes.has(name)) continue;
      this.recordNodeEvent(node, 'Normal', 'RegisteredNode', `Registered Node ${name} in Controller`);
      this.knownNodes.set(name, node);
      this.addPodEvictorForNewZone(node);
      this.markNodeAsReachable(node);
    }
    for (const [name, node] of [...this.knownNodes]) {
      if (seen.has(name)) continue;
      this.recordNodeEvent(node, 'Normal', 'RemovingNode', `Removing Node ${name} from Controller`);
      this.knownNodes.delete(name);
      this.nodeHealth.delete(name);
      this.nodesToRetry.delete(name);
      for (const q of this.zoneNoExecuteTainter.values()) q.remove(name);
    }
    // A node's zone may have changed (labels): its zone needs a tainter too.
    for (const node of nodes) this.addPodEvictorForNewZone(node);

    const zoneToNodeConditions = new Map<string, (NodeCondition | undefined)[]>();
    const checkOne = async (cached: Node): Promise<void> => {
      let node: Node = cached;
      let result: { observed: NodeCondition; current: NodeCondition | undefined } | undefined;
      for (let i = 0; i < NODE_STATUS_UPDATE_RETRY && !result; i++) {
        try {
          result = await this.tryUpdateNodeHealth(node);
        } catch (err) {
          handleError(err, { component: 'node-lifecycle-controller', logger: this.logger, msg: 'Failed while updating node health, retrying', node: node.metadata?.name });
          try {
            node = await this.client.core.nodes().get(node.metadata?.name ?? '');
          } catch {
            return; // Probably deleted: skipped, no pods are marked.
          }
        }
      }
      if (!result) return;
      const name = node.metadata?.name ?? '';
      if (node.metadata?.labels?.[LABEL_NODE_EXCLUDE_DISRUPTION] === undefined) {
        const zone = getZoneKey(node);
        const list = zoneToNodeConditions.get(zone) ?? [];
        list.push(result.current);
        zoneToNodeConditions.set(zone, list);
      }
      const { observed, current } = result;
      if (current) {
        const pods = podsAssignedToNode(this.informers.core.pods(), name);
        this.processTaintBaseEviction(node, observed);
        const needsRetry = this.nodesToRetry.has(name);
        const becameNotReady = current.status !== 'True' && observed.status === 'True';
        if (becameNotReady) this.recordNodeEvent(node, 'Normal', 'NodeNotReady', `Node ${name} status is now: NodeNotReady`);
        if (becameNotReady || (needsRetry && observed.status !== 'True')) {
          try {
            await this.markPodsNotReady(pods, name);
          } catch (err) {
            handleError(err, { component: 'node-lifecycle-controller', logger: this.logger, msg: 'Unable to mark all pods NotReady; queuing for retry', node: name });
            this.nodesToRetry.add(name);
            return;
          }
        }
      }
      this.nodesToRetry.delete(name);
    };
    // Bounded concurrency, as upstream's workqueue.ParallelizeUntil over the nodes.
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < nodes.length) await checkOne(nodes[next++] as Node);
    };
    await Promise.all(Array.from({ length: Math.min(16, nodes.length) }, worker));
    this.handleDisruption(zoneToNodeConditions, nodes);
  }

  /**
   * `tryUpdateNodeHealth`: updates the remembered probe timestamps from the node's Ready heartbeat
   * and its Lease, and when neither moved for the grace period writes the Unknown conditions.
   * Returns the Ready condition as observed (before) and as it is now (after any write). Throws the
   * status update's error.
   */
  async tryUpdateNodeHealth(node: Node): Promise<{ observed: NodeCondition; current: NodeCondition | undefined }> {
    const name = node.metadata?.name ?? '';
    const now = this.clock.now();
    let health = this.nodeHealth.get(name);
    const saved = health?.readyCondition;
    const creation = node.metadata?.creationTimestamp ?? formatTime(now);
    let current = readyConditionOf(node);
    let observed: NodeCondition;
    let gracePeriod: number;
    if (!current) {
      // Never reported: a fake Unknown condition dated at creation, and the startup grace period.
      observed = { type: 'Ready', status: 'Unknown', lastHeartbeatTime: creation, lastTransitionTime: creation };
      gracePeriod = this.nodeStartupGracePeriodMs;
      const created = parseTime(creation) ?? now;
      health = health ? { ...health, readyCondition: undefined } : { probeTimestamp: created, readyTransitionTimestamp: created, readyCondition: undefined, leaseRenewTime: undefined };
    } else {
      observed = { ...current };
      gracePeriod = this.nodeMonitorGracePeriodMs;
    }
    if (!health) {
      health = { probeTimestamp: now, readyTransitionTimestamp: now, readyCondition: current, leaseRenewTime: undefined };
    } else if (!saved && current) {
      health = { probeTimestamp: now, readyTransitionTimestamp: now, readyCondition: current, leaseRenewTime: health.leaseRenewTime };
    } else if (saved && current && saved.lastHeartbeatTime !== current.lastHeartbeatTime) {
      const transition = saved.lastTransitionTime !== current.lastTransitionTime ? now : health.readyTransitionTimestamp;
      health = { probeTimestamp: now, readyTransitionTimestamp: transition, readyCondition: current, leaseRenewTime: health.leaseRenewTime };
    }
    // A renewed Lease is a heartbeat too (the kubelet reports status only every 5 minutes).
    const lease: Lease | undefined = this.informers.coordination.leases().lister().get(`kube-node-lease/${name}`);
    const renewTime = parseTime(lease?.spec?.renewTime);
    if (renewTime !== undefined && (health.leaseRenewTime === undefined || health.leaseRenewTime < renewTime)) {
      health = { ...health, leaseRenewTime: renewTime, probeTimestamp: now };
    }
    this.nodeHealth.set(name, health);

    if (now > health.probeTimestamp + gracePeriod) {
      const conditions = [...(node.status?.conditions ?? [])];
      const stamp = formatTime(now);
      for (const type of ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure']) {
        // NetworkUnavailable is left alone: the network plugin, not the kubelet, reports it.
        const i = conditions.findIndex((c) => c.type === type);
        const c = conditions[i];
        if (!c) {
          conditions.push({ type, status: 'Unknown', reason: 'NodeStatusNeverUpdated', message: 'Kubelet never posted node status.', lastHeartbeatTime: creation, lastTransitionTime: stamp });
        } else if (c.status !== 'Unknown') {
          conditions[i] = { ...c, status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastTransitionTime: stamp };
        }
      }
      const updated: Node = { ...node, status: { ...node.status, conditions } };
      current = readyConditionOf(updated);
      if (!semanticDeepEqual(current, observed)) {
        await this.client.core.nodes().updateStatus(updated);
        this.nodeHealth.set(name, { ...health, readyCondition: current, readyTransitionTimestamp: now });
      }
    }
    return { observed, current };
  }

  // ---- NoExecute taints -----------------------------------------------------------------------

  /** `processTaintBaseEviction`: queue, swap or remove the NoExecute taints after the observed Ready. */
  private processTaintBaseEviction(node: Node, observed: NodeCondition): void {
    const taints = node.spec?.taints;
    const name = node.metadata?.name ?? '';
    switch (observed.status) {
      case 'False':
        if (taintExists(taints, UNREACHABLE_TAINT)) this.swapInBackground(name, NOT_READY_TAINT, UNREACHABLE_TAINT);
        else this.markNodeForTainting(node, 'False');
        break;
      case 'Unknown':
        if (taintExists(taints, NOT_READY_TAINT)) this.swapInBackground(name, UNREACHABLE_TAINT, NOT_READY_TAINT);
        else this.markNodeForTainting(node, 'Unknown');
        break;
      case 'True':
        this.markNodeAsReachable(node);
        break;
    }
  }

  private swapInBackground(name: string, add: typeof NOT_READY_TAINT, remove: typeof NOT_READY_TAINT): void {
    void swapNodeControllerTaint(this.client, name, [add], [remove], this.clock.now()).catch((err: unknown) =>
      handleError(err, { component: 'node-lifecycle-controller', logger: this.logger, msg: 'Failed to swap taints of node', node: name }),
    );
  }

  /** `markNodeForTainting`: queues the node in its zone (re-queues it if the taint it needs is missing). */
  private markNodeForTainting(node: Node, status: 'False' | 'Unknown'): boolean {
    const queue = this.tainterFor(node);
    const needed = status === 'False' ? NOT_READY_TAINT : UNREACHABLE_TAINT;
    const name = node.metadata?.name ?? '';
    if (!taintExists(node.spec?.taints, needed)) queue.remove(name);
    return queue.add(name, node.metadata?.uid ?? '');
  }

  /**
   * `markNodeAsReachable`: removes both NoExecute taints (when present) and forgets the node in its
   * zone's queue. The write runs in the background; its failure is logged and retried next pass.
   */
  private markNodeAsReachable(node: Node): void {
    const name = node.metadata?.name ?? '';
    this.tainterFor(node).remove(name);
    const taints = node.spec?.taints;
    if (!taintExists(taints, UNREACHABLE_TAINT) && !taintExists(taints, NOT_READY_TAINT)) return;
    void swapNodeControllerTaint(this.client, name, [], [UNREACHABLE_TAINT, NOT_READY_TAINT], this.clock.now()).catch((err: unknown) =>
      handleError(err, { component: 'node-lifecycle-controller', logger: this.logger, msg: 'Failed to remove taints from node', node: name }),
    );
  }

  /**
   * `doNoExecuteTaintingPass`: per zone, as the rate allows, taints the queued nodes after their
   * current Ready condition (a node Ready again leaves the queue untouched).
   */
  async doNoExecuteTaintingPass(): Promise<void> {
    const writes: Promise<void>[] = [];
    for (const queue of this.zoneNoExecuteTainter.values()) {
      queue.try((value) => {
        const node = this.informers.core.nodes().lister().get(value.value);
        if (!node) return [true, 0];
        const ready = readyConditionOf(node);
        let add: typeof NOT_READY_TAINT;
        let remove: typeof NOT_READY_TAINT;
        if (ready?.status === 'False') [add, remove] = [NOT_READY_TAINT, UNREACHABLE_TAINT];
        else if (ready?.status === 'Unknown') [add, remove] = [UNREACHABLE_TAINT, NOT_READY_TAINT];
        else return [true, 0];
        writes.push(
          swapNodeControllerTaint(this.client, value.value, [add], [remove], this.clock.now()).then(
            () => undefined,
            (err: unknown) => {
              handleError(err, { component: 'node-lifecycle-controller', logger: this.logger, msg: 'Failed to taint node', node: value.value });
              // Let a later monitor pass queue it again.
              queue.remove(value.value);
            },
          ),
        );
        return [true, 0];
      });
    }
    await Promise.all(writes);
  }

  // ---- zones ----------------------------------------------------------------------------------

  private tainterFor(node: Node): RateLimitedTimedQueue {
    this.addPodEvictorForNewZone(node);
    return this.zoneNoExecuteTainter.get(getZoneKey(node)) as RateLimitedTimedQueue;
  }

  /** `addPodEvictorForNewZone`: a zone first seen starts Initial with a queue at the normal rate. */
  private addPodEvictorForNewZone(node: Node): void {
    const zone = getZoneKey(node);
    if (this.zoneStates.has(zone) && this.zoneNoExecuteTainter.has(zone)) return;
    if (!this.zoneStates.has(zone)) this.zoneStates.set(zone, 'Initial');
    if (!this.zoneNoExecuteTainter.has(zone)) this.zoneNoExecuteTainter.set(zone, new RateLimitedTimedQueue(this.evictionLimiterQPS, this.clock));
  }

  /**
   * `ComputeZoneState`: FullDisruption when no node is Ready, PartialDisruption when more than 2 and
   * at least the threshold are not, else Normal. Returns the not-Ready count too.
   */
  computeZoneState(conditions: readonly (NodeCondition | undefined)[]): [number, ZoneState] {
    const ready = conditions.filter((c) => c?.status === 'True').length;
    const notReady = conditions.length - ready;
    if (ready === 0 && notReady > 0) return [notReady, 'FullDisruption'];
    if (notReady > 2 && notReady / (notReady + ready) >= this.unhealthyZoneThreshold) return [notReady, 'PartialDisruption'];
    return [notReady, 'Normal'];
  }

  /** `ReducedQPSFunc`: large clusters slow down, small ones stop. */
  private reducedQPS(zoneSize: number): number {
    return zoneSize > this.largeClusterThreshold ? this.secondaryEvictionLimiterQPS : 0;
  }

  private setLimiterInZone(zone: string, zoneSize: number, state: ZoneState): void {
    const queue = this.zoneNoExecuteTainter.get(zone);
    if (!queue) return;
    if (state === 'Normal' || state === 'FullDisruption') queue.swapLimiter(this.evictionLimiterQPS);
    else if (state === 'PartialDisruption') queue.swapLimiter(this.reducedQPS(zoneSize));
  }

  /**
   * `handleDisruption`: new zone states and their rates. Entering "every zone fully disrupted"
   * removes the taints of every node and stops tainting; leaving it resets every node's probe
   * timestamps (so none is judged on the outage) and restores the rates.
   */
  private handleDisruption(zoneToNodeConditions: ReadonlyMap<string, readonly (NodeCondition | undefined)[]>, nodes: readonly Node[]): void {
    const newStates = new Map<string, ZoneState>();
    let allAreFullyDisrupted = true;
    for (const [zone, conditions] of zoneToNodeConditions) {
      const [, state] = this.computeZoneState(conditions);
      if (state !== 'FullDisruption') allAreFullyDisrupted = false;
      newStates.set(zone, state);
      if (!this.zoneStates.has(zone)) this.zoneStates.set(zone, 'Initial');
    }
    let allWasFullyDisrupted = true;
    for (const [zone, state] of [...this.zoneStates]) {
      if (!zoneToNodeConditions.has(zone)) {
        this.zoneStates.delete(zone);
        continue;
      }
      if (state !== 'FullDisruption') {
        allWasFullyDisrupted = false;
        break;
      }
    }
    if (allAreFullyDisrupted && allWasFullyDisrupted) return;
    if (allAreFullyDisrupted) {
      this.logger?.info({}, 'Controller detected that all Nodes are not-Ready. Entering master disruption mode');
      for (const node of nodes) this.markNodeAsReachable(node);
      for (const zone of this.zoneStates.keys()) {
        this.zoneNoExecuteTainter.get(zone)?.swapLimiter(0);
        this.zoneStates.set(zone, 'FullDisruption');
      }
      return;
    }
    if (allWasFullyDisrupted) {
      this.logger?.info({}, 'Controller detected that some Nodes are Ready. Exiting master disruption mode');
      const now = this.clock.now();
      for (const node of nodes) {
        const h = this.nodeHealth.get(node.metadata?.name ?? '');
        if (h) this.nodeHealth.set(node.metadata?.name ?? '', { ...h, probeTimestamp: now, readyTransitionTimestamp: now });
      }
      for (const zone of this.zoneStates.keys()) {
        const state = newStates.get(zone) ?? 'Normal';
        this.setLimiterInZone(zone, zoneToNodeConditions.get(zone)?.length ?? 0, state);
        this.zoneStates.set(zone, state);
      }
      return;
    }
    for (const [zone, state] of this.zoneStates) {
      const next = newStates.get(zone);
      if (next === undefined || next === state) continue;
      this.logger?.info({ zone, newState: next }, 'Controller detected that zone is now in new state');
      this.setLimiterInZone(zone, zoneToNodeConditions.get(zone)?.length ?? 0, next);
      this.zoneStates.set(zone, next);
    }
  }

  /** `RecordNodeEvent` / `RecordNodeStatusChange`: an event about the node. */
  private recordNodeEvent(node: Node, type: 'Normal' | 'Warning', reason: string, message: string): void {
    const name = node.metadata?.name ?? '';
    this.recorder.event({ apiVersion: 'v1', kind: 'Node', metadata: { name, uid: node.metadata?.uid ?? '' } }, type, reason, message);
  }
}
