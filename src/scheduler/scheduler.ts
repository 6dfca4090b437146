/**
 * The scheduler: takes pending pods from the {@link SchedulingQueue}, picks a node with the filter and
 * score plugins against the incremental {@link SchedulerCache}, assumes the pod there and binds it
 * through `POST pods/<name>/binding`, with many binds in flight while the next pods are scheduled.
 *
 * Follows upstream pkg/scheduler: scheduler.go (`Run`), schedule_one.go (`ScheduleOne`: scheduling
 * cycle serial, binding cycle asynchronous; `handleSchedulingFailure`), eventhandlers.go (which pods go
 * to the queue — unassigned, `schedulerName` ours, not being deleted — and which to the cache —
 * assigned, not terminal; which events move parked pods).
 *
 * Events: Normal `Scheduled` "Successfully assigned <ns>/<pod> to <node>", Warning `FailedScheduling`
 * with the FitError text; a failure also sets the pod's condition PodScheduled=False, reason
 * Unschedulable (or SchedulerError), as upstream's `updatePod` does.
 *
 * Metrics (metrics.ts): every attempt counts in `scheduler_schedule_attempts_total` with its result
 * where upstream's `handleSchedulingFailure` and `handleBindingCycle` count it — `unschedulable` when
 * no node fits, `error` when the cycle threw or the binding cycle failed, `scheduled` once bound —
 * timed from the pop; a bound pod also observes its attempts and the time since it entered the queue.
 *
 * Preemption: a pod no node fits goes through the DefaultPreemption PostFilter
 * (preemption/default-preemption.ts); when it evicts victims the pod is nominated to their node
 * (`status.nominatedNodeName`, written with the condition) and parked until the victims' deletion
 * moves it back. Nominated pods count on their node when filtering pods of lower or equal priority
 * (nominator.ts); a pod with a nominated node tries that node first (upstream `evaluateNominatedNode`).
 */
import { setMaxListeners } from 'node:events';
import type { KubeObject, Node, Pod, PodCondition, PodStatus } from '../api/index.js';
import type { Clientset } from '../client/index.js';
import { EventRecorder, withTypeMeta } from '../client/record/index.js';
import { DeletedFinalStateUnknown, type Lister, type SharedInformerFactory } from '../informers/index.js';
import { errorMessage, isConflict, isNotFound } from '../machinery/errors/index.js';
import { formatTime, type Clock } from '../util/clock/index.js';
import { realRand, type Rand } from '../util/random/index.js';
import { handleCrash, handleError } from '../util/runtime/index.js';
import { SchedulerCache } from './cache.js';
import { newPodInfo, type NodeInfo, type PodInfo } from './node-info.js';
import {
  newProfile,
  preBindPreFlight,
  runFilterPluginsWithNominatedPods,
  runPreBindPlugins,
  runPreFilterPlugins,
  runReservePluginsReserve,
  runReservePluginsUnreserve,
  type Profile,
} from './framework.js';
import { CycleState, INTER_POD_AFFINITY, newDefaultPlugins, POD_TOPOLOGY_SPREAD, unresolvable, type FilterStatus, type Plugin, type ScorePlugin } from './plugins/index.js';
import { preFilterNodeNames } from './plugins/node-affinity.js';
import {
  isSchedulableAfterCSINodeChange,
  isSchedulableAfterPersistentVolumeClaimChange,
  isSchedulableAfterStorageClassChange,
  VOLUME_BINDING,
  VolumeBinding,
} from './plugins/volume-binding/index.js';
import { PodNominator, type NominatingInfo } from './nominator.js';
import { DefaultPreemption } from './preemption/default-preemption.js';
import { FitError, findNodesThatFitPod, prioritizeNodes, selectHost, type FilterResult } from './schedule-one.js';
import { SchedulingQueue, type QueuedPodInfo } from './scheduling-queue.js';
import { attemptsLabel, liveSchedulingQueues, podSchedulingAttempts, podSchedulingSLIDuration, ProfileMetrics } from './metrics.js';

export interface SchedulerOptions {
  client: Clientset;
  informers: SharedInformerFactory;
  clock: Clock;
  /** Breaks ties between equally scored nodes. Default: real randomness. */
  rand?: Rand;
  /** Pods whose `spec.schedulerName` is this (or empty) are ours. */
  schedulerName?: 'default-scheduler';
  /** Default: an EventRecorder for component `default-scheduler`. */
  recorder?: EventRecorder;
  /** Binds in flight at once (default 64). */
  bindParallelism?: number;
  /**
   * The filter plugins (default: {@link newDefaultPlugins}'s, reading this scheduler's informers); the
   * VolumeBinding plugin is added unless `volumeBinding` is false — before PodTopologySpread when
   * present (upstream's order), else last. Plugins may also implement PreFilter, Reserve, PreBind.
   */
  filterPlugins?: readonly Plugin[];
  /** Default: {@link newDefaultPlugins}'s. */
  scorePlugins?: readonly ScorePlugin[];
  /** Run the VolumeBinding plugin (default true). */
  volumeBinding?: boolean;
  /** How long PreBind waits for the PV controller to bind a pod's claims, ms (default 600000, upstream bindTimeoutSeconds). */
  bindTimeoutMs?: number;
  /** Run the DefaultPreemption PostFilter (default true). */
  preemption?: boolean;
  /** Backoff tuning, ms (defaults 1000 and 10000, upstream's). */
  podInitialBackoffMs?: number;
  podMaxBackoffMs?: number;
}

/** A pod the scheduler owns while pending: no node, our scheduler, not being deleted. */
function isPendingFor(pod: Pod, schedulerName: string): boolean {
  return (
    !pod.spec?.nodeName &&
    (pod.spec?.schedulerName ?? schedulerName) === schedulerName &&
    !pod.metadata?.deletionTimestamp &&
    (pod.spec?.schedulingGates?.length ?? 0) === 0
  );
}

const isTerminal = (pod: Pod): boolean => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

/** A bound pod that still holds resources on its node. */
const isAssignedActive = (pod: Pod): boolean => !!pod.spec?.nodeName && !isTerminal(pod);

/** Node changes that can make a parked pod fit (upstream `nodeSchedulingPropertiesChange`). */
function nodeSchedulingPropertiesChanged(oldNode: Node, newNode: Node): boolean {
  const same = (a: unknown, b: unknown): boolean => a === b || JSON.stringify(a) === JSON.stringify(b);
  return (
    oldNode.spec?.unschedulable !== newNode.spec?.unschedulable ||
    !same(oldNode.status?.allocatable, newNode.status?.allocatable) ||
    !same(oldNode.metadata?.labels, newNode.metadata?.labels) ||
    !same(oldNode.spec?.taints, newNode.spec?.taints)
  );
}

/** `namespace/name` of a pod, for log lines. */
const podKey = (pod: Pod): string => `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;

/** The pod as an event's involved object (informer objects may lack kind). */
const podRef = (pod: Pod): KubeObject => withTypeMeta(pod as KubeObject, 'v1', 'Pod');

const unwrap = <T>(obj: T | DeletedFinalStateUnknown<T>): T => (obj instanceof DeletedFinalStateUnknown ? obj.obj : obj);

/** How many scheduling cycles run before yielding to the event loop, so informer events keep flowing. */
const CYCLES_PER_YIELD = 64;

export class Scheduler {
  readonly cache = new SchedulerCache();
  readonly queue: SchedulingQueue;
  /** Pods nominated to nodes by preemption (upstream keeps it in the scheduling queue). */
  readonly nominator = new PodNominator();
  private readonly preemption: DefaultPreemption | undefined;
  private readonly client: Clientset;
  private readonly informers: SharedInformerFactory;
  private readonly clock: Clock;
  private readonly rand: Rand;
  private readonly schedulerName: string;
  private readonly recorder: EventRecorder;
  private readonly bindParallelism: number;
  private readonly profile: Profile;
  private readonly volumeBindingEnabled: boolean;
  private readonly scorers: readonly ScorePlugin[];
  private readonly podLister: Lister<Pod>;
  /** Binding cycles waiting in PreBind (not holding a bind slot). */
  private readonly preBinds = new Set<Promise<void>>();
  /**
   * Aborts when {@link run}'s signal does: PreBind waits stop. Every pod waiting in PreBind listens
   * to it (1,000 at once for a Parallel StatefulSet with claims), which is not a leak.
   */
  private readonly stop = (() => {
    const c = new AbortController();
    setMaxListeners(0, c.signal);
    return c;
  })();
  private get stopSignal(): AbortSignal {
    return this.stop.signal;
  }
  /** Where the next cycle starts filtering (upstream `nextStartNodeIndex`). */
  private nextStartNodeIndex = 0;
  private readonly binds = new Set<Promise<void>>();
  /** The attempt metrics of the profile (its name is the scheduler's). */
  private readonly metrics: ProfileMetrics;

  constructor(opts: SchedulerOptions) {
    this.client = opts.client;
    this.informers = opts.informers;
    this.clock = opts.clock;
    this.rand = opts.rand ?? realRand;
    this.schedulerName = opts.schedulerName ?? 'default-scheduler';
    this.metrics = new ProfileMetrics(this.schedulerName);
    this.recorder = opts.recorder ?? new EventRecorder(opts.client, { component: this.schedulerName, clock: opts.clock });
    this.bindParallelism = Math.max(1, opts.bindParallelism ?? 64);
    const defaults = opts.filterPlugins && opts.scorePlugins ? undefined : newDefaultPlugins(opts.informers);
    const plugins: Plugin[] = [...(opts.filterPlugins ?? defaults?.filter ?? [])];
    this.volumeBindingEnabled = opts.volumeBinding !== false;
    if (this.volumeBindingEnabled) {
      const at = plugins.findIndex((p) => p.name === POD_TOPOLOGY_SPREAD);
      plugins.splice(
        at === -1 ? plugins.length : at,
        0,
        new VolumeBinding({
          client: opts.client,
          informers: opts.informers,
          clock: opts.clock,
          bindTimeoutMs: opts.bindTimeoutMs,
          getNode: (name) => this.cache.getNodeInfo(name)?.node,
        }),
      );
    }
    this.profile = newProfile(plugins);
    this.scorers = opts.scorePlugins ?? defaults?.score ?? [];
    this.podLister = opts.informers.core.pods().lister();
    this.preemption =
      opts.preemption === false
        ? undefined
        : new DefaultPreemption({
            client: opts.client,
            recorder: this.recorder,
            clock: opts.clock,
            rand: this.rand,
            pdbLister: opts.informers.policy.podDisruptionBudgets().lister(),
            nominated: this.nominator.nominatedPodsForNode,
            getNodeInfo: (name) => this.cache.getNodeInfo(name),
            schedulerName: this.schedulerName,
          });
    this.queue = new SchedulingQueue({
      clock: opts.clock,
      podInitialBackoffMs: opts.podInitialBackoffMs,
      podMaxBackoffMs: opts.podMaxBackoffMs,
    });
    liveSchedulingQueues.add(this.queue);
    this.addAllEventHandlers();
  }

  /** Seconds since `start` (a {@link Clock.monotonic} reading). */
  private since(start: number): number {
    return (this.clock.monotonic() - start) / 1000;
  }

  /**
   * Starts the informers, waits for their caches, then schedules until `signal` aborts. Resolves after
   * the binds in flight have finished and their events are written.
   */
  async run(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return;
    signal?.addEventListener(
      'abort',
      () => {
        this.queue.close();
        liveSchedulingQueues.delete(this.queue);
        this.stop.abort();
      },
      { once: true },
    );
    this.informers.start();
    await this.informers.waitForCacheSync(signal);
    let cycles = 0;
    for (;;) {
      const q = await this.queue.pop();
      if (!q) break;
      const cycle = this.queue.cycle;
      const start = this.clock.monotonic();
      try {
        await this.scheduleOne(q, start);
      } catch (err) {
        this.schedulingCycleFailed(q, cycle, err, start);
      }
      if (++cycles % CYCLES_PER_YIELD === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await Promise.all(this.preBinds);
    await Promise.all(this.binds);
    await this.preemption?.flush();
    await this.recorder.flush();
  }

  private addAllEventHandlers(): void {
    this.informers.core.pods().addEventHandler({
      add: (pod) => this.onPodAdd(pod),
      update: (oldPod, newPod) => this.onPodUpdate(oldPod, newPod),
      delete: (obj) => this.onPodDelete(unwrap(obj)),
    });
    this.informers.core.nodes().addEventHandler({
      add: (node) => {
        this.cache.addOrUpdateNode(node);
        this.queue.moveAllToActiveOrBackoffQueue();
      },
      update: (oldNode, newNode) => {
        this.cache.addOrUpdateNode(newNode);
        if (nodeSchedulingPropertiesChanged(oldNode, newNode)) this.queue.moveAllToActiveOrBackoffQueue();
      },
      delete: (obj) => this.cache.removeNode(unwrap(obj).metadata?.name ?? ''),
    });
    if (this.volumeBindingEnabled) this.addVolumeEventHandlers();
  }

  /**
   * Storage events that may make pods rejected by VolumeBinding schedulable (its upstream
   * `EventsToRegister` with queueing hints): a PVC the pod uses added or updated (bound by the PV
   * controller, say); any PV added or updated; a StorageClass added, or its allowedTopologies changed;
   * a CSINode added or its migrated-plugins annotation changed. Pods rejected by other plugins only
   * stay parked.
   */
  private addVolumeEventHandlers(): void {
    const move = (hint: (pod: Pod) => boolean): void =>
      this.queue.moveAllToActiveOrBackoffQueue((q) => q.unschedulablePlugins?.has(VOLUME_BINDING) === true && hint(q.podInfo.pod));
    this.informers.core.persistentVolumeClaims().addEventHandler({
      add: (pvc) => move((pod) => isSchedulableAfterPersistentVolumeClaimChange(pod, pvc)),
      update: (_old, pvc) => move((pod) => isSchedulableAfterPersistentVolumeClaimChange(pod, pvc)),
    });
    this.informers.core.persistentVolumes().addEventHandler({
      add: () => move(() => true),
      update: () => move(() => true),
    });
    this.informers.storage.storageClasses().addEventHandler({
      add: () => move(() => true),
      update: (oldClass, newClass) => {
        if (isSchedulableAfterStorageClassChange(oldClass, newClass)) move(() => true);
      },
    });
    this.informers.storage.csiNodes().addEventHandler({
      add: () => move(() => true),
      update: (oldNode, newNode) => {
        if (isSchedulableAfterCSINodeChange(oldNode, newNode)) move(() => true);
      },
    });
  }

  private onPodAdd(pod: Pod): void {
    if (isAssignedActive(pod)) {
      this.cache.addOrUpdatePod(pod);
      this.onAssignedPodAdded(pod);
    } else if (isPendingFor(pod, this.schedulerName)) {
      this.queue.add(pod);
      if (pod.status?.nominatedNodeName) this.nominate(pod, undefined);
    }
  }

  /** Records a pod's nomination (a malformed pod is logged and not nominated). */
  private nominate(pod: Pod, info: NominatingInfo, oldPod?: Pod): void {
    handleCrash(
      () => {
        if (oldPod) this.nominator.updateNominatedPod(oldPod, pod);
        else this.nominator.addNominatedPod(newPodInfo(pod), info);
      },
      { component: 'scheduler', msg: 'Could not record a nominated pod', pod: podKey(pod) },
    );
  }

  private onPodUpdate(oldPod: Pod, newPod: Pod): void {
    const uid = newPod.metadata?.uid ?? '';
    if (isAssignedActive(newPod)) {
      // Bound (by us or anyone): it leaves the queue and counts on its node.
      this.queue.delete(uid);
      this.nominator.delete(uid);
      this.cache.addOrUpdatePod(newPod);
      if (!isAssignedActive(oldPod)) this.onAssignedPodAdded(newPod);
      return;
    }
    if (isAssignedActive(oldPod)) {
      // Became terminal: its resources are free again.
      this.onAssignedPodGone(uid);
      return;
    }
    if (isPendingFor(newPod, this.schedulerName)) {
      // Our own status write on a pod we already assumed must not re-queue it.
      if (!this.cache.isAssumed(uid)) {
        this.queue.update(newPod);
        this.nominate(newPod, undefined, oldPod);
      }
    } else {
      this.queue.delete(uid);
      this.nominator.delete(uid);
    }
  }

  /**
   * A pod now runs on a node: pods parked by InterPodAffinity (waiting for a pod their affinity selects)
   * or PodTopologySpread (domain counts changed) in its namespace may fit now (upstream's
   * `AssignedPodAdd` event for those plugins, narrowed by namespace as their queueing hints do).
   */
  private onAssignedPodAdded(pod: Pod): void {
    const ns = pod.metadata?.namespace;
    this.queue.moveAllToActiveOrBackoffQueue((q) => {
      const plugins = q.unschedulablePlugins;
      if (!plugins) return false;
      if (plugins.has(POD_TOPOLOGY_SPREAD)) return q.podInfo.pod.metadata?.namespace === ns;
      // Only an affinity term can be satisfied by an added pod (namespaces are not checked: a spurious retry is harmless).
      return plugins.has(INTER_POD_AFFINITY) && q.podInfo.requiredAffinityTerms.some((t) => t.selector.matches(pod.metadata?.labels));
    });
  }

  private onPodDelete(pod: Pod): void {
    const uid = pod.metadata?.uid ?? '';
    this.queue.delete(uid);
    this.nominator.delete(uid);
    this.onAssignedPodGone(uid);
  }

  private onAssignedPodGone(uid: string): void {
    if (this.cache.removePod(uid)) this.queue.moveAllToActiveOrBackoffQueue();
  }

  /**
   * The scheduling cycle for one pod: PreFilter, Filter, Score, then assume and Reserve on the chosen
   * node; the binding cycle (PreBind, Binding POST) continues asynchronously.
   */
  private async scheduleOne(q: QueuedPodInfo, start: number): Promise<void> {
    const podInfo = q.podInfo;
    const cycle = this.queue.cycle;
    if (podInfo.pod.metadata?.deletionTimestamp || this.cache.isAssumed(podInfo.uid)) {
      this.queue.done(podInfo.uid);
      return;
    }
    const allNodes = this.cache.nodes();
    const state = new CycleState();
    // No nodes: nothing to pre-filter (upstream returns ErrNoNodesAvailable before PreFilter).
    const rejected = allNodes.length === 0 ? undefined : runPreFilterPlugins(this.profile.preFilter, podInfo, state, this.cache);
    if (rejected) {
      // Every node carries the PreFilter status, for the preemption summary (upstream SetAbsentNodesStatus).
      const statuses = new Map(allNodes.map((n) => [n.name, rejected] as const));
      const preFilterMsg = rejected.reasons.join(', ');
      this.handleUnschedulable(q, cycle, state, statuses, new Set([rejected.plugin]), start, preFilterMsg);
      return;
    }
    const { feasible, statuses } = this.findFeasibleNodes(podInfo, allNodes, state);
    if (feasible.length === 0) {
      const plugins = new Set<string>();
      for (const st of statuses.values()) plugins.add(st.plugin);
      this.handleUnschedulable(q, cycle, state, statuses, plugins, start);
      return;
    }
    // One feasible node: nothing to compare (upstream skips scoring too).
    const scores = feasible.length === 1 ? [0] : prioritizeNodes(podInfo, feasible, this.scorers, state, this.cache);
    const host = selectHost(feasible, scores, this.rand);
    this.cache.assumePod(podInfo, host.name);
    this.nominator.delete(podInfo.uid);
    try {
      runReservePluginsReserve(this.profile.reserve, podInfo, state, host.name);
    } catch (err) {
      // Reserve plugins have undone their own work; the caller forgets the assumption and backs off.
      this.cache.forgetPod(podInfo.uid);
      throw err;
    }
    this.queue.done(podInfo.uid);
    if (this.profile.preBind.length > 0 && preBindPreFlight(this.profile.preBind, podInfo, state, host.name)) {
      // PreBind may wait long (volume binding: until the PV controller has bound the claims); it must
      // not hold one of the bind slots meanwhile.
      const p = this.bindingCycle(q, cycle, host.name, state, start)
        .catch((err: unknown) => handleError(err, { component: 'scheduler', msg: 'Binding cycle failed', pod: podKey(podInfo.pod) }))
        .finally(() => this.preBinds.delete(p));
      this.preBinds.add(p);
      return;
    }
    await this.startBind(q, cycle, host.name, state, start);
  }

  /**
   * Filter: a pod with a nominated node tries that node alone first (upstream `evaluateNominatedNode`);
   * else every node from the round-robin start — or, for a pod pinned to named nodes (DaemonSet pods,
   * NodeAffinity PreFilter), those only; nodes outside the pin are UnschedulableAndUnresolvable.
   * Nominated pods count on their nodes while any exist.
   */
  private findFeasibleNodes(podInfo: PodInfo, allNodes: readonly NodeInfo[], state: CycleState): FilterResult {
    const nominated = this.nominator.size > 0 ? { pods: this.nominator.nominatedPodsForNode, preFilterExtensions: this.profile.preFilterExtensions } : undefined;
    const nominatedNode = podInfo.pod.status?.nominatedNodeName ? this.cache.getNodeInfo(podInfo.pod.status.nominatedNodeName) : undefined;
    if (nominatedNode?.node && !runFilterPluginsWithNominatedPods(this.profile, podInfo, nominatedNode, state, nominated?.pods)) {
      return { feasible: [nominatedNode], statuses: new Map(), processed: 0 };
    }
    const pinned = preFilterNodeNames(podInfo);
    const nodes = pinned ? [...pinned].map((n) => this.cache.getNodeInfo(n)).filter((ni): ni is NonNullable<typeof ni> => ni?.node !== undefined) : allNodes;
    const result = findNodesThatFitPod(podInfo, nodes, pinned ? 0 : this.nextStartNodeIndex, this.profile.filter, state, nominated);
    if (!pinned) this.nextStartNodeIndex = nodes.length === 0 ? 0 : (this.nextStartNodeIndex + result.processed) % nodes.length;
    if (pinned && result.feasible.length === 0) {
      for (const n of allNodes) if (!result.statuses.has(n.name)) result.statuses.set(n.name, unresolvable('NodeAffinity', "node(s) didn't satisfy plugin(s) [NodeAffinity]"));
    }
    return result;
  }

  /**
   * No node fits: PostFilter (preemption) may evict victims and nominate the pod to their node; the
   * pod is parked (retried when the victims are gone) and FailedScheduling reports the filters' reasons
   * plus what preemption said (upstream `schedulingCycle` → `RunPostFilterPlugins`,
   * `handleSchedulingFailure`).
   */
  private handleUnschedulable(
    q: QueuedPodInfo,
    cycle: number,
    state: CycleState,
    statuses: Map<string, FilterStatus>,
    plugins: ReadonlySet<string>,
    start: number,
    preFilterMsg?: string,
  ): void {
    this.metrics.attempt('unschedulable', this.since(start));
    const podInfo = q.podInfo;
    const allNodes = this.cache.nodes();
    // Preemption reads the pod as the informer has it now (its nomination may have changed meanwhile).
    const latest = this.podLister.namespace(podInfo.pod.metadata?.namespace ?? '').get(podInfo.pod.metadata?.name ?? '');
    const current = latest && latest.metadata?.uid === podInfo.uid ? { ...podInfo, pod: latest } : podInfo;
    let postFilterMsg: string | undefined;
    let nominating: NominatingInfo;
    if (this.preemption && allNodes.length > 0) {
      const result = this.preemption.postFilter(this.profile, state, current, statuses, allNodes);
      postFilterMsg = result.message;
      nominating = result.nominatingInfo;
    }
    const err = new FitError(podInfo, allNodes.length, statuses, preFilterMsg, postFilterMsg);
    // A pod deleted or bound meanwhile is not nominated (its delete or bind event has passed already).
    if (nominating && latest?.metadata?.uid === podInfo.uid && !latest.spec?.nodeName) this.nominator.addNominatedPod(current, nominating);
    this.queue.addUnschedulableIfNotPresent({ ...q, unschedulablePlugins: plugins }, cycle, true);
    this.reportFailure(current, 'Unschedulable', err.message, nominating);
  }

  /** Waits for a bind slot, then binds in the background. */
  private async startBind(q: QueuedPodInfo, cycle: number, nodeName: string, state: CycleState, start: number): Promise<void> {
    while (this.binds.size >= this.bindParallelism) await Promise.race(this.binds);
    const p = this.bind(q, cycle, nodeName, state, start)
      .catch((err: unknown) => handleError(err, { component: 'scheduler', msg: 'Binding cycle failed', pod: podKey(q.podInfo.pod) }))
      .finally(() => this.binds.delete(p));
    this.binds.add(p);
  }

  /**
   * The binding cycle of a pod whose PreBind plugins have work: PreBind, then the Binding POST. A
   * PreBind failure unreserves, forgets the assumption and retries the pod with backoff, with a
   * FailedScheduling event carrying the error (upstream `bindingCycle`, `handleBindingCycleError`).
   */
  private async bindingCycle(q: QueuedPodInfo, cycle: number, nodeName: string, state: CycleState, start: number): Promise<void> {
    try {
      await runPreBindPlugins(this.profile.preBind, q.podInfo, state, nodeName, this.stopSignal);
    } catch (err) {
      this.bindingCycleFailed(q, cycle, nodeName, state, errorMessage(err), start);
      return;
    }
    await this.startBind(q, cycle, nodeName, state, start);
  }

  /**
   * Undoes a failed binding cycle: Unreserve, forget the assumed pod (its resources are free again, so
   * parked pods are retried, as upstream), and — unless the pod is gone or the scheduler is stopping —
   * back off and report `message`.
   */
  private bindingCycleFailed(q: QueuedPodInfo, cycle: number, nodeName: string, state: CycleState, message: string, start: number): void {
    this.metrics.attempt('error', this.since(start));
    const { pod, uid } = q.podInfo;
    runReservePluginsUnreserve(this.profile.reserve, q.podInfo, state, nodeName);
    this.cache.forgetPod(uid);
    this.queue.moveAllToActiveOrBackoffQueue();
    if (this.stopSignal.aborted) return;
    // A pod deleted meanwhile is not retried (upstream handleSchedulingFailure checks the informer).
    if (!this.podLister.namespace(pod.metadata?.namespace ?? '').get(pod.metadata?.name ?? '')) return;
    this.queue.addUnschedulableIfNotPresent(q, cycle, false);
    this.reportFailure(q.podInfo, 'SchedulerError', message);
  }

  /**
   * A scheduling cycle that threw — a bug, or a pod the plugins cannot handle — must not stop the
   * scheduler: the error is logged and counted, and the pod backs off and is retried with a
   * FailedScheduling event and PodScheduled=False/SchedulerError, as upstream's
   * `handleSchedulingFailure` treats a framework error (schedule_one.go).
   */
  private schedulingCycleFailed(q: QueuedPodInfo, cycle: number, err: unknown, start: number): void {
    this.metrics.attempt('error', this.since(start));
    const pod = q.podInfo.pod;
    handleError(err, { component: 'scheduler', msg: 'Error scheduling pod; retrying', pod: podKey(pod) });
    handleCrash(
      () => {
        this.cache.forgetPod(q.podInfo.uid);
        this.queue.addUnschedulableIfNotPresent(q, cycle, false);
        this.reportFailure(q.podInfo, 'SchedulerError', errorMessage(err));
      },
      { component: 'scheduler', msg: 'Could not requeue a pod after a failed scheduling cycle', pod: podKey(pod) },
    );
  }

  /** The Binding POST; on failure unreserve, forget the assumption and back off. */
  private async bind(q: QueuedPodInfo, cycle: number, nodeName: string, state: CycleState, start: number): Promise<void> {
    const { pod, uid } = q.podInfo;
    const ns = pod.metadata?.namespace ?? '';
    const name = pod.metadata?.name ?? '';
    try {
      await this.client.core.pods(ns).createSubresource(name, 'binding', {
        apiVersion: 'v1',
        kind: 'Binding',
        metadata: { name, namespace: ns, uid },
        target: { apiVersion: 'v1', kind: 'Node', name: nodeName },
      });
    } catch (err) {
      this.metrics.attempt('error', this.since(start));
      runReservePluginsUnreserve(this.profile.reserve, q.podInfo, state, nodeName);
      this.cache.forgetPod(uid);
      // Gone, or already bound by someone else: the informer will tell; nothing to retry.
      if (isNotFound(err) || isConflict(err)) return;
      this.queue.addUnschedulableIfNotPresent(q, cycle, false);
      this.reportFailure(q.podInfo, 'SchedulerError', `Binding rejected: ${errorMessage(err)}`);
      return;
    }
    this.metrics.attempt('scheduled', this.since(start));
    podSchedulingAttempts.with().observe(q.attempts);
    podSchedulingSLIDuration.with(attemptsLabel(q.attempts)).observe((this.clock.now() - q.initialAttemptTimestamp) / 1000);
    this.recorder.event(podRef(pod), 'Normal', 'Scheduled', `Successfully assigned ${ns}/${name} to ${nodeName}`);
  }

  /**
   * FailedScheduling event plus the PodScheduled=False condition and, when `nominating` changes it,
   * `status.nominatedNodeName` (null clears it) — one status patch, written only when something
   * changes (upstream `updatePod`).
   */
  private reportFailure(podInfo: PodInfo, reason: 'Unschedulable' | 'SchedulerError', message: string, nominating?: NominatingInfo): void {
    const pod = podInfo.pod;
    this.recorder.event(podRef(pod), 'Warning', 'FailedScheduling', message);
    const current = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
    const nominationChanged = nominating !== undefined && (pod.status?.nominatedNodeName ?? '') !== nominating.nodeName;
    if (current?.status === 'False' && current.reason === reason && current.message === message && !nominationChanged) return;
    const condition: PodCondition = {
      type: 'PodScheduled',
      status: 'False',
      reason,
      message,
      lastTransitionTime: current?.status === 'False' && current.lastTransitionTime ? current.lastTransitionTime : formatTime(this.clock.now()),
    };
    const ns = pod.metadata?.namespace ?? '';
    const status: Omit<PodStatus, 'nominatedNodeName'> & { nominatedNodeName?: string | null } = { conditions: [condition] };
    if (nominationChanged) status.nominatedNodeName = nominating.nodeName || null;
    this.client.core
      .pods(ns)
      .patch(pod.metadata?.name ?? '', 'application/strategic-merge-patch+json', { status }, { subresource: 'status' })
      .catch(() => {
        // Best effort, as upstream: the next attempt writes it again.
      });
  }
}
