/**
 * Simulated nodes: kubelets without containers. The simulator registers Nodes (or adopts Nodes made
 * by hand), keeps their Leases and status fresh, and moves the pods bound to them through their
 * lifecycle with stages (stages.ts) — the kwok model (apiserver.md §11.2): everything goes through the
 * API, as a kubelet's writes would.
 *
 * Which nodes are simulated: those this simulator created (annotation `kubeplane.io/simulated: "true"`),
 * and any Node that appears without a Ready condition (created with kubectl: no kubelet reports
 * for it); an adopted node gets the annotation and the kubelet's well-known labels.
 * Pods bound to a node that does not exist, or is not simulated, are left alone (they stay Pending).
 *
 * Stopping a node: the annotation `kubeplane.io/simulate: Stopped` on a simulated Node (what
 * `kubeplane nodes stop` sets) is a kubelet that went away: its Lease is no longer renewed, its
 * status no longer written, and its pods stay exactly as they are (nothing reports for them; a pod
 * deleted meanwhile stays Terminating). The node lifecycle controller then marks it Unknown and taints
 * it. Removing the annotation (`kubeplane nodes start`) resumes the Lease, writes a healthy status
 * (Ready=True) and lets its pods' stages run again.
 *
 * Writes: pod and node status with PUT …/status from the informer's copy, retried on conflict with
 * the latest copy (a fresh GET when the informer has not caught up); pod removal with
 * `DELETE gracePeriodSeconds=0` and a uid precondition, as the kubelet's status manager does.
 */
import type { KubeObject, Node, Pod, Taint } from '../api/index.js';
import type { Clientset } from '../client/index.js';
import { EventRecorder, withTypeMeta } from '../client/record/index.js';
import type { Logger } from '../util/runtime/index.js';
import { DeletedFinalStateUnknown, type SharedInformerFactory } from '../informers/index.js';
import { isConflict, isNotFound } from '../machinery/errors/index.js';
import type { Clock } from '../util/clock/index.js';
import { realRand, type Rand } from '../util/random/index.js';
import { nodeInternalIP, nodePodCIDR, PodIPPool } from './ip-allocator.js';
import { NodeLeaseController, NODE_LEASE_NAMESPACE } from './node-lease.js';
import { nodeStartupEvents, type StageEvent } from './kubelet-events.js';
import type { PodReferenceLookup } from './pod-references.js';
import { StageEngine } from './stage-engine.js';
import {
  defaultStages,
  DEFAULT_NODE_CAPACITY,
  simulatedNodeStatus,
  type AnyStage,
  type NodeStage,
  type PodStage,
  type SimulatedNodeInfo,
  type Stage,
  type StageResult,
} from './stages.js';

/** Marks Nodes run by a kubeplane simulator. */
export const SIMULATED_ANNOTATION = 'kubeplane.io/simulated';

/** Node annotation value of {@link NODE_SIMULATE_ANNOTATION} that stops the node's simulated kubelet. */
export const NODE_STOPPED = 'Stopped';
/** Node annotation controlling the simulated kubelet (`Stopped`: no heartbeats, no status, pods frozen). */
export const NODE_SIMULATE_ANNOTATION = 'kubeplane.io/simulate';

/** Default concurrent stage workers per resource. */
export const DEFAULT_PARALLELISM = 256;
/**
 * Kubelet events queued at most before new ones are dropped: client-go's broadcaster holds 1000 per
 * kubelet; one recorder here stands for every simulated kubelet.
 */
export const DEFAULT_EVENT_QUEUE = 50_000;
/**
 * Concurrent event writers of the simulated kubelets (one involved object's events stay in order).
 * Few on purpose: events are background work, and with 16 a 10,000-pod Deployment took ~3.6x as long
 * to be Ready (195 s against 54 s) because Event creates competed with the pods' status writes; with 2
 * the difference was within this machine's noise (77–87 s against 46–87 s for the same run without
 * kubelet events). The queue absorbs bursts and drains after them.
 */
export const EVENT_WRITERS = 2;

export interface NodeSimulatorOptions {
  client: Clientset;
  informers: SharedInformerFactory;
  clock: Clock;
  /** Stage jitter. Default: real randomness. */
  rand?: Rand;
  /** Default: {@link defaultStages}(). */
  stages?: readonly AnyStage[];
  /**
   * Concurrent stage workers per resource (default 256). Each worker waits on one status write, so
   * this bounds the kubelets' write rate: with 32, a 10,000-pod scale-up reached Ready at ~1,000/s
   * while the ReplicaSet controller created pods faster; with 256 readiness keeps up with creation.
   */
  parallelism?: number;
  /**
   * Whether the kubelets record per-pod events (Pulling, Pulled, Created, Started, Killing, FailedMount,
   * Failed, BackOff…). Default true. Each costs an Event write: a 100,000-pod scale-up writes ~400,000
   * of them; turn them off for such runs (`kubeplane up --kubelet-pod-events=false`). Node events
   * (Starting, NodeReady…) are always recorded.
   */
  podEvents?: boolean;
  /** Kubelet events queued at most before new ones are dropped (default {@link DEFAULT_EVENT_QUEUE}). */
  eventQueue?: number;
  logger?: Logger;
}

/** What {@link NodeSimulator.addNode} registers. */
export interface NodeSpecInput {
  name: string;
  labels?: Record<string, string>;
  taints?: Taint[];
  /** Default {@link DEFAULT_NODE_CAPACITY}; allocatable = capacity. */
  capacity?: { cpu: string; memory: string; pods: string };
}

interface SimulatedNode extends SimulatedNodeInfo {
  uid: string;
  pods: PodIPPool;
  /** The kubelet is stopped ({@link NODE_STOPPED}): no lease, no status, no pod stages. */
  stopped: boolean;
  /** Images pulled on this node (the kubelet's image events). */
  images: Set<string>;
}

const isStopped = (node: Node): boolean => node.metadata?.annotations?.[NODE_SIMULATE_ANNOTATION] === NODE_STOPPED;
/** The simulated node, unless its kubelet is stopped. */
const running = (sim: SimulatedNode | undefined): SimulatedNode | undefined => (sim && !sim.stopped ? sim : undefined);

const podKey = (pod: Pod): string => `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
const unwrap = <T>(obj: T | DeletedFinalStateUnknown<T>): T => (obj instanceof DeletedFinalStateUnknown ? obj.obj : obj);
const hasReadyCondition = (node: Node): boolean => (node.status?.conditions ?? []).some((c) => c.type === 'Ready');
const isTerminal = (pod: Pod): boolean => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
/** Conflict retries for one status write. */
const MAX_WRITE_ATTEMPTS = 5;

/** The labels a kubelet puts on its Node (pkg/kubelet/kubelet_node_status.go `initialNode`). */
function kubeletLabels(name: string): Record<string, string> {
  return {
    'beta.kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'kubernetes.io/hostname': name,
    'kubernetes.io/os': 'linux',
  };
}

export class NodeSimulator {
  private readonly client: Clientset;
  private readonly informers: SharedInformerFactory;
  private readonly clock: Clock;
  private readonly parallelism: number;
  private readonly podEvents: boolean;
  private readonly recorder: EventRecorder;
  private readonly lookup: PodReferenceLookup;
  /** Nodes registered by {@link addNode} in this process: their start-up events are recorded there. */
  private readonly registered = new Set<string>();
  private readonly leases: NodeLeaseController;
  private readonly podEngine: StageEngine<Pod>;
  private readonly nodeEngine: StageEngine<Node>;
  /** Simulated nodes by name. */
  private readonly nodes = new Map<string, SimulatedNode>();
  /** Pod keys by node name, for every bound pod (so a node adopted later picks its pods up). */
  private readonly podsByNode = new Map<string, Set<string>>();
  /** Nodes numbered in order of first sight, for addresses. */
  private nodeSeq = 0;

  constructor(opts: NodeSimulatorOptions) {
    this.client = opts.client;
    this.informers = opts.informers;
    this.clock = opts.clock;
    this.parallelism = Math.max(1, opts.parallelism ?? DEFAULT_PARALLELISM);
    this.podEvents = opts.podEvents ?? true;
    this.recorder = new EventRecorder(opts.client, {
      component: 'kubelet',
      clock: opts.clock,
      logger: opts.logger,
      maxQueued: opts.eventQueue ?? DEFAULT_EVENT_QUEUE,
      writers: EVENT_WRITERS,
    });
    this.leases = new NodeLeaseController({ client: opts.client, clock: opts.clock, logger: opts.logger });
    const stages = opts.stages ?? defaultStages();
    const rand = opts.rand ?? realRand;
    const pods = opts.informers.core.pods();
    const nodes = opts.informers.core.nodes();
    // The kubelet's ConfigMap and Secret managers: what pods mount and take env from.
    const configMaps = opts.informers.core.configMaps().lister();
    const secrets = opts.informers.core.secrets().lister();
    this.lookup = {
      configMap: (ns, name) => configMaps.get(`${ns}/${name}`),
      secret: (ns, name) => secrets.get(`${ns}/${name}`),
    };
    this.podEngine = new StageEngine<Pod>({
      name: 'pod',
      stages: stages.filter((s): s is PodStage => s.resource === 'Pod'),
      clock: opts.clock,
      rand,
      get: (key) => pods.lister().get(key),
      nodeOf: (pod) => (pod.spec?.nodeName ? running(this.nodes.get(pod.spec.nodeName)) : undefined),
      fire: (pod, stage, node) => this.firePodStage(pod, stage, node as SimulatedNode),
      lookup: this.lookup,
      logger: opts.logger,
    });
    this.nodeEngine = new StageEngine<Node>({
      name: 'node',
      stages: stages.filter((s): s is NodeStage => s.resource === 'Node'),
      clock: opts.clock,
      rand,
      get: (key) => nodes.lister().get(key),
      nodeOf: (node) => running(this.nodes.get(node.metadata?.name ?? '')),
      fire: (node, stage, sim) => this.fireNodeStage(node, stage, sim as SimulatedNode),
      logger: opts.logger,
    });
    pods.addEventHandler({
      add: (pod) => this.onPod(pod),
      update: (_old, pod) => this.onPod(pod),
      delete: (obj) => this.onPodDelete(unwrap(obj)),
    });
    nodes.addEventHandler({
      add: (node) => this.onNode(node),
      update: (_old, node) => this.onNode(node),
      delete: (obj) => this.onNodeDelete(unwrap(obj)),
    });
  }

  /** Names of the nodes this simulator runs. */
  nodeNames(): string[] {
    return [...this.nodes.keys()];
  }

  /**
   * Registers a Node the way a kubelet does: labels (hostname, os, arch + `spec.labels`), taints,
   * pod CIDR, and a full healthy status. Throws StatusError (AlreadyExists…).
   */
  async addNode(spec: NodeSpecInput): Promise<void> {
    const n = this.nodeSeq++;
    const info: SimulatedNodeInfo = { name: spec.name, internalIP: nodeInternalIP(n) };
    const capacity = { ...DEFAULT_NODE_CAPACITY, ...spec.capacity };
    const base: Node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: spec.name,
        labels: { ...kubeletLabels(spec.name), ...spec.labels },
        annotations: { [SIMULATED_ANNOTATION]: 'true', 'node.alpha.kubernetes.io/ttl': '0' },
      },
      spec: {
        podCIDR: nodePodCIDR(n),
        podCIDRs: [nodePodCIDR(n)],
        providerID: `kubeplane://${spec.name}`,
        ...(spec.taints?.length ? { taints: spec.taints } : {}),
      },
    };
    const status = simulatedNodeStatus({ ...base, status: { capacity, allocatable: { ...capacity } } }, info, this.clock.now());
    this.registered.add(spec.name);
    let node: Node;
    try {
      node = await this.client.core.nodes().create({ ...base, status });
    } catch (err) {
      this.registered.delete(spec.name);
      throw err;
    }
    // The kubelet's start-up, registration and first status update, all at once here.
    this.recordNodeEvents(node, nodeStartupEvents(spec.name, { ready: true }));
  }

  /** Creates `count` nodes named `<prefix>-<i>` (i from 0), `parallelism` at a time. */
  async createNodes(count: number, prefix = 'node', spec: Omit<NodeSpecInput, 'name'> = {}): Promise<string[]> {
    const names = Array.from({ length: count }, (_, i) => `${prefix}-${i}`);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < names.length) await this.addNode({ ...spec, name: names[next++] as string });
    };
    await Promise.all(Array.from({ length: Math.min(this.parallelism, count) }, worker));
    return names;
  }

  /** Deletes the Node and its Lease (NotFound is fine). Its pods stay, as when a machine goes away. */
  async removeNode(name: string): Promise<void> {
    this.forgetNode(name);
    for (const del of [
      () => this.client.core.nodes().delete(name),
      () => this.client.coordination.leases(NODE_LEASE_NAMESPACE).delete(name),
    ]) {
      try {
        await del();
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
  }

  /** Starts the informers, waits for them, then runs leases and stages until `signal` aborts. */
  async run(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return;
    this.informers.start();
    await this.informers.waitForCacheSync(signal);
    this.leases.start();
    signal?.addEventListener('abort', () => this.leases.stop(), { once: true });
    await Promise.all([this.podEngine.run(this.parallelism, signal), this.nodeEngine.run(this.parallelism, signal)]);
    this.leases.stop();
    await this.recorder.flush();
  }

  // ---- informer events ------------------------------------------------------------------------

  private onNode(node: Node): void {
    const name = node.metadata?.name ?? '';
    let sim = this.nodes.get(name);
    if (!sim) {
      const ours = node.metadata?.annotations?.[SIMULATED_ANNOTATION] === 'true';
      if (!ours && hasReadyCondition(node)) return;
      sim = this.manage(node);
      if (!ours) void this.markAdopted(node);
      // A node seen again after a restart of the simulator: its kubelet starts again. (Registered or
      // adopted nodes get their start-up events with their first status.)
      else if (!this.registered.has(name)) this.recordNodeEvents(node, nodeStartupEvents(name, { restart: true }));
      for (const key of this.podsByNode.get(name) ?? []) this.podEngine.enqueue(key);
    }
    const uid = node.metadata?.uid ?? '';
    const stopped = isStopped(node);
    if (stopped && (!sim.stopped || sim.uid !== uid)) {
      sim.stopped = true;
      sim.uid = uid;
      this.leases.remove(name);
    } else if (!stopped && (sim.stopped || sim.uid !== uid)) {
      const wasStopped = sim.stopped;
      sim.stopped = false;
      sim.uid = uid;
      this.leases.add(name, uid);
      // Back from a stop: its pods' stages run again.
      if (wasStopped) for (const key of this.podsByNode.get(name) ?? []) this.podEngine.enqueue(key);
    }
    this.nodeEngine.enqueue(name);
  }

  private onNodeDelete(node: Node): void {
    this.forgetNode(node.metadata?.name ?? '');
  }

  private onPod(pod: Pod): void {
    const nodeName = pod.spec?.nodeName;
    if (!nodeName) return;
    const key = podKey(pod);
    let keys = this.podsByNode.get(nodeName);
    if (!keys) this.podsByNode.set(nodeName, (keys = new Set()));
    keys.add(key);
    const sim = this.nodes.get(nodeName);
    if (!sim) return;
    const uid = pod.metadata?.uid ?? '';
    if (isTerminal(pod)) sim.pods.release(uid);
    else if (pod.status?.podIP) sim.pods.reserve(uid, pod.status.podIP);
    this.podEngine.enqueue(key);
  }

  private onPodDelete(pod: Pod): void {
    const nodeName = pod.spec?.nodeName;
    if (!nodeName) return;
    this.podsByNode.get(nodeName)?.delete(podKey(pod));
    this.nodes.get(nodeName)?.pods.release(pod.metadata?.uid ?? '');
    this.podEngine.enqueue(podKey(pod));
  }

  /** Starts simulating a node: its addresses and pod CIDR (its own if it has them), its lease. */
  private manage(node: Node): SimulatedNode {
    const name = node.metadata?.name ?? '';
    const ownIP = node.status?.addresses?.find((a) => a.type === 'InternalIP')?.address;
    const ownCIDR = node.spec?.podCIDR && /\.0\/24$/.test(node.spec.podCIDR) ? node.spec.podCIDR : undefined;
    const n = ownIP && ownCIDR ? -1 : this.nodeSeq++;
    const internalIP = ownIP ?? nodeInternalIP(n);
    const cidr = ownCIDR ?? nodePodCIDR(n);
    const sim: SimulatedNode = { name, internalIP, uid: '', pods: new PodIPPool(cidr), stopped: false, images: new Set() };
    this.nodes.set(name, sim);
    return sim;
  }

  private forgetNode(name: string): void {
    this.nodes.delete(name);
    this.registered.delete(name);
    this.leases.remove(name);
  }

  /** An adopted node gets the simulated annotation and the kubelet's labels (merge patch, best effort). */
  private async markAdopted(node: Node): Promise<void> {
    const name = node.metadata?.name ?? '';
    const labels = Object.fromEntries(Object.entries(kubeletLabels(name)).filter(([k]) => node.metadata?.labels?.[k] === undefined));
    try {
      await this.client.core
        .nodes()
        .patch(name, 'application/merge-patch+json', { metadata: { labels, annotations: { [SIMULATED_ANNOTATION]: 'true' } } });
    } catch {
      // The node may be gone already; the status stages do not depend on the annotation.
    }
  }

  // ---- stage effects --------------------------------------------------------------------------

  private async firePodStage(pod: Pod, stage: Stage<Pod>, node: SimulatedNode): Promise<boolean> {
    const ctx = { now: this.clock.now(), node, allocatePodIP: (p: Pod) => node.pods.allocate(p.metadata?.uid ?? ''), lookup: this.lookup };
    const result = stage.next(pod, ctx);
    if (this.podEvents) this.record(withTypeMeta(pod as KubeObject, 'v1', 'Pod'), node.name, result.events);
    if (result.delete) {
      const name = pod.metadata?.name ?? '';
      try {
        await this.client.core.pods(pod.metadata?.namespace).delete(name, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata?.uid } });
      } catch (err) {
        if (!isNotFound(err) && !isConflict(err)) throw err;
      }
      return true;
    }
    if (result.status) {
      await this.writeStatus(pod, result.status, stage, ctx, (p) => this.client.core.pods(p.metadata?.namespace).updateStatus(p), () =>
        this.client.core.pods(pod.metadata?.namespace).get(pod.metadata?.name ?? ''),
      );
      return true;
    }
    return false;
  }

  private async fireNodeStage(node: Node, stage: Stage<Node>, sim: SimulatedNode): Promise<boolean> {
    const ctx = { now: this.clock.now(), node: sim, allocatePodIP: () => { throw new Error('node stages have no pods'); } };
    const result = stage.next(node, ctx);
    this.recordNodeEvents(node, result.events);
    if (result.delete) {
      await this.removeNode(node.metadata?.name ?? '');
      return true;
    }
    if (result.status) {
      await this.writeStatus(node, result.status, stage, ctx, (n) => this.client.core.nodes().updateStatus(n), () =>
        this.client.core.nodes().get(node.metadata?.name ?? ''),
      );
      return true;
    }
    return false;
  }

  /**
   * PUT …/status with `status` merged over the object's status. On Conflict: re-read (fresh GET),
   * and if the stage still applies, recompute and retry — up to {@link MAX_WRITE_ATTEMPTS} times.
   * NotFound ends quietly (the object is gone).
   */
  private async writeStatus<T extends Pod | Node>(
    obj: T,
    status: object,
    stage: Stage<T>,
    ctx: Parameters<Stage<T>['next']>[1],
    put: (obj: T) => Promise<T>,
    get: () => Promise<T>,
  ): Promise<void> {
    let current = obj;
    let patch: StageResult['status'] = status;
    for (let attempt = 1; ; attempt++) {
      try {
        await put({ ...current, status: { ...current.status, ...patch } });
        return;
      } catch (err) {
        if (isNotFound(err)) return;
        if (!isConflict(err) || attempt >= MAX_WRITE_ATTEMPTS) throw err;
      }
      try {
        current = await get();
      } catch (err) {
        if (isNotFound(err)) return;
        throw err;
      }
      if (current.metadata?.uid !== obj.metadata?.uid || !stage.selector(current, this.lookup)) return;
      patch = stage.next(current, { ...ctx, now: this.clock.now() }).status;
      if (!patch) return;
    }
  }

  /** Records `events` about `obj` as the kubelet of `host` (source.host, reportingInstance). */
  private record(obj: KubeObject, host: string, events: readonly StageEvent[] | undefined): void {
    for (const e of events ?? []) this.recorder.event(obj, e.type, e.reason, e.message, { host, ...(e.fieldPath ? { fieldPath: e.fieldPath } : {}) });
  }

  /**
   * Node events: the kubelet refers to its node by name, with the name as uid
   * (pkg/kubelet/kubelet.go `nodeRef`), and `kubectl describe node` looks events up by that uid too.
   */
  private recordNodeEvents(node: Node, events: readonly StageEvent[] | undefined): void {
    const name = node.metadata?.name ?? '';
    this.record({ apiVersion: 'v1', kind: 'Node', metadata: { name, uid: name } }, name, events);
  }
}
