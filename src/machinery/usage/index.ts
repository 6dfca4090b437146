/**
 * Simulated resource usage: the CPU and memory each container of a simulated pod uses, as a kubelet's
 * summary API would report it to metrics-server, and when metrics-server would have a value for it.
 * Pure and deterministic (no clock, no randomness): the API server computes metrics.k8s.io from it on
 * each request, tests assert exact numbers.
 *
 * **Usage of a Running pod**, for each resource (cpu, memory) on its own:
 * 1. The pod annotation `kubeplane.io/cpu-usage` / `kubeplane.io/memory-usage` (a quantity: `250m`,
 *    `1`, `64Mi`) is the pod's total usage. On a pod template it reaches every pod of the workload.
 * 2. Else a load set on the pod's workload (`kubeplane load`: annotation `kubeplane.io/cpu-load` /
 *    `kubeplane.io/memory-load`). The workload is the top of the pod's controller references, each
 *    checked by UID: the Deployment of a ReplicaSet's pod, else the ReplicaSet, StatefulSet,
 *    DaemonSet, ReplicationController, Job (or its CronJob). Only the top counts: the Deployment
 *    controller copies a Deployment's annotations onto its ReplicaSets, and never removes them, so a
 *    ReplicaSet's copy must not. The total is divided evenly over the workload's *Ready* pods — so
 *    scaling out lowers each pod's usage, as spreading real traffic does; during a rollout the old and
 *    new ReplicaSets' Ready pods share it. The division is exact in nanocores / bytes: the pods sorted
 *    by name, the first `total mod n` of them get one unit more (1000m over 3 pods: 333333334n,
 *    333333333n, 333333333n). A pod that is not Ready gets no traffic and falls to rule 3.
 * 3. Else the default: each container uses 10 % of its request ({@link DEFAULT_REQUEST_PERCENT}),
 *    or, without a request, {@link DEFAULT_CPU_NANOS} (1m) / {@link DEFAULT_MEMORY_BYTES} (4Mi).
 *
 * A pod total (rules 1 and 2) is split over the pod's containers (spec.containers, not init
 * containers) in proportion to their requests when every container has one, else evenly; the
 * remainder units go to the first containers in spec order, so the parts add up to the total exactly
 * and each container shows the same utilization of its request. A malformed or negative annotation
 * is ignored (the next rule applies); a quantity of 0 is a usage of 0.
 *
 * **When metrics exist** (what metrics-server 0.7 reports, pkg/storage/pod.go and node.go): it
 * scrapes every {@link METRIC_RESOLUTION_MS} (15 s); here scrapes happen at the multiples of 15 s of
 * the clock ({@link lastScrape}) and a metric's `timestamp` is the last one. A pod has metrics only
 * when it is Running and every running container started at least {@link FRESH_CONTAINER_MIN_MS}
 * (10 s) before the scrape: metrics-server needs two points of a container, or one taken 10–15 s
 * after the container started (`freshContainerMinMetricsResolution`); the window is then the
 * container's age, else the 15 s between scrapes ({@link podMetricsWindow}). So a new pod shows up
 * 10–25 s after it started, as on a real cluster. Containers not running (waiting to restart) are
 * left out; a pod without a running container has no metrics. A node has metrics while its Ready
 * condition is True (metrics-server cannot scrape a kubelet that is down); its usage is
 * {@link NODE_OVERHEAD} (the kubelet, runtime and system daemons) plus the usage of every Running pod
 * bound to it, young ones included.
 *
 * Usage is computed from the objects as they are when asked, and labelled with the last scrape's time.
 */
import type { Container, MetaObject, Node, OwnerReference, Pod } from '../../api/index.js';
import { getControllerOf } from '../meta/index.js';
import { parseQuantity } from '../quantity/index.js';
import { parseTime } from '../../util/clock/index.js';

/** The resources simulated. */
export type UsageResource = 'cpu' | 'memory';

/** Pod annotation: the pod's total CPU usage, a quantity (`250m`). */
export const CPU_USAGE_ANNOTATION = 'kubeplane.io/cpu-usage';
/** Pod annotation: the pod's total memory usage, a quantity (`64Mi`). */
export const MEMORY_USAGE_ANNOTATION = 'kubeplane.io/memory-usage';
/** Workload annotation (`kubeplane load`): the total CPU load spread over its Ready pods. */
export const CPU_LOAD_ANNOTATION = 'kubeplane.io/cpu-load';
/** Workload annotation (`kubeplane load`): the total memory load spread over its Ready pods. */
export const MEMORY_LOAD_ANNOTATION = 'kubeplane.io/memory-load';

/** The usage annotation of each resource. */
export const USAGE_ANNOTATIONS: Readonly<Record<UsageResource, string>> = Object.freeze({ cpu: CPU_USAGE_ANNOTATION, memory: MEMORY_USAGE_ANNOTATION });
/** The load annotation of each resource. */
export const LOAD_ANNOTATIONS: Readonly<Record<UsageResource, string>> = Object.freeze({ cpu: CPU_LOAD_ANNOTATION, memory: MEMORY_LOAD_ANNOTATION });

/** Default usage: this percentage of the container's request. */
export const DEFAULT_REQUEST_PERCENT = 10;
/** Default CPU usage of a container without a CPU request: 1m, in nanocores. */
export const DEFAULT_CPU_NANOS = 1_000_000;
/** Default memory usage of a container without a memory request: 4Mi, in bytes. */
export const DEFAULT_MEMORY_BYTES = 4 * 1024 * 1024;

/** Usage in nanocores (`cpu`) and bytes (`memory`); whole numbers. */
export interface ResourceUsage {
  cpu: number;
  memory: number;
}

/** One container's usage. */
export interface ContainerUsage {
  name: string;
  usage: ResourceUsage;
}

/** What a node uses beyond its pods (kubelet, container runtime, system daemons): 50m CPU, 256Mi memory. */
export const NODE_OVERHEAD: Readonly<ResourceUsage> = Object.freeze({ cpu: 50_000_000, memory: 256 * 1024 * 1024 });

/** metrics-server's default `--metric-resolution`: 15 s between scrapes, in ms. */
export const METRIC_RESOLUTION_MS = 15_000;
/** metrics-server's `freshContainerMinMetricsResolution`: a container younger than 10 s (ms) at a scrape has no usage yet. */
export const FRESH_CONTAINER_MIN_MS = 10_000;

/** Controller references followed from a pod: pod → ReplicaSet → Deployment, with room for one more level. */
const MAX_OWNER_DEPTH = 3;

/**
 * The object a controller reference of an object in `namespace` names (the owner lives in the same
 * namespace), or undefined when there is none. The model checks the UID itself.
 */
export type OwnerResolver = (namespace: string, ref: OwnerReference) => MetaObject | undefined;

/** Parses an annotation value as a non-negative quantity in nanocores (cpu) or bytes (memory); undefined when absent or malformed. */
export function parseUsage(value: string | undefined, resource: UsageResource): number | undefined {
  if (value === undefined) return undefined;
  let nanosOrBytes: number;
  try {
    const q = parseQuantity(value.trim());
    nanosOrBytes = resource === 'cpu' ? q.scaledValue(-9) : q.value();
  } catch {
    return undefined;
  }
  return Number.isSafeInteger(nanosOrBytes) && nanosOrBytes >= 0 ? nanosOrBytes : undefined;
}

/** A container's request of `resource` in nanocores or bytes; 0 when it has none. */
function request(c: Container, resource: UsageResource): number {
  // YAML manifests may carry a bare number (`cpu: 1`).
  const raw = c.resources?.requests?.[resource] as string | number | undefined;
  return raw === undefined ? 0 : (parseUsage(String(raw), resource) ?? 0);
}

/** `podutil.IsPodReady`: the Ready condition is True. */
function isPodReady(pod: Pod): boolean {
  return (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

const isRunning = (pod: Pod): boolean => pod.status?.phase === 'Running';
const podKey = (pod: MetaObject): string => `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;

/**
 * Splits `total` in proportion to `weights` (evenly when a weight is not positive), exactly: each
 * part is rounded down and the remainder units go to the first parts.
 */
export function splitExactly(total: number, weights: readonly number[]): number[] {
  if (weights.length === 0) return [];
  const w = weights.every((x) => x > 0) ? weights : weights.map(() => 1);
  const sum = w.reduce((a, b) => a + BigInt(b), 0n);
  // BigInt: total × weight may pass 2^53 (1000 cores in nanocores × a 1-core request in nanocores).
  const parts = w.map((x) => Number((BigInt(total) * BigInt(x)) / sum));
  // Fewer units are left over than there are parts.
  const rest = total - parts.reduce((a, b) => a + b, 0);
  for (let i = 0; i < rest; i++) parts[i] = (parts[i] ?? 0) + 1;
  return parts;
}

/** A container's default usage of `resource` (rule 3). */
function defaultUsage(c: Container, resource: UsageResource): number {
  const req = request(c, resource);
  if (req > 0) return Math.floor((req * DEFAULT_REQUEST_PERCENT) / 100);
  return resource === 'cpu' ? DEFAULT_CPU_NANOS : DEFAULT_MEMORY_BYTES;
}

/**
 * The usage model over one set of pods (every pod of the namespaces asked about: a workload's load is
 * divided over its Ready pods among them) and a way to resolve owners. Build one per request; it
 * memoizes owners and load shares.
 */
export class UsageModel {
  private readonly owners = new Map<string, MetaObject | undefined>();
  private readonly workloads = new Map<Pod, MetaObject | undefined>();
  /** The pods bound to each node (built on first need). */
  private podsByNode: Map<string, Pod[]> | undefined;
  /** Per workload UID: its Ready pods' keys, sorted, to their index (built on first need). */
  private readyPodsByOwner: Map<string, Map<string, number>> | undefined;

  constructor(
    private readonly pods: readonly Pod[],
    private readonly resolveOwner: OwnerResolver,
  ) {}

  /**
   * The usage of each container of `pod` (spec.containers order), or undefined when the pod is not
   * Running. Whether metrics-server would report it yet is {@link podMetricsWindow}'s question.
   */
  containerUsage(pod: Pod): ContainerUsage[] | undefined {
    if (!isRunning(pod)) return undefined;
    const containers = pod.spec?.containers ?? [];
    const perResource = (resource: UsageResource): number[] => {
      const total = this.podTotal(pod, resource);
      if (total === undefined) return containers.map((c) => defaultUsage(c, resource));
      return splitExactly(
        total,
        containers.map((c) => request(c, resource)),
      );
    };
    const cpu = perResource('cpu');
    const memory = perResource('memory');
    return containers.map((c, i) => ({ name: c.name, usage: { cpu: cpu[i] ?? 0, memory: memory[i] ?? 0 } }));
  }

  /** The sum over the pod's containers, or undefined when it is not Running. */
  podUsage(pod: Pod): ResourceUsage | undefined {
    const containers = this.containerUsage(pod);
    return containers && sumUsage(containers.map((c) => c.usage));
  }

  /**
   * A node's usage: {@link NODE_OVERHEAD} plus every Running pod of the model bound to it (the model
   * must hold every pod of the cluster for this to be the whole node).
   */
  nodeUsage(nodeName: string): ResourceUsage {
    if (!this.podsByNode) {
      this.podsByNode = new Map();
      for (const pod of this.pods) {
        const node = pod.spec?.nodeName;
        if (!node) continue;
        const list = this.podsByNode.get(node) ?? [];
        list.push(pod);
        this.podsByNode.set(node, list);
      }
    }
    const usages = [{ ...NODE_OVERHEAD }];
    for (const pod of this.podsByNode.get(nodeName) ?? []) {
      const u = this.podUsage(pod);
      if (u) usages.push(u);
    }
    return sumUsage(usages);
  }

  /** The pod's total of `resource` from rule 1 or 2; undefined when the default applies. */
  private podTotal(pod: Pod, resource: UsageResource): number | undefined {
    const own = parseUsage(pod.metadata?.annotations?.[USAGE_ANNOTATIONS[resource]], resource);
    if (own !== undefined) return own;
    const workload = this.workloadOf(pod);
    const load = parseUsage(workload?.metadata?.annotations?.[LOAD_ANNOTATIONS[resource]], resource);
    if (!workload || load === undefined) return undefined;
    const ready = this.readyPodsOf(workload.metadata?.uid ?? '');
    const index = ready.get(podKey(pod));
    if (index === undefined) return undefined;
    return Math.floor(load / ready.size) + (index < load % ready.size ? 1 : 0);
  }

  /** The top of the pod's controller references (see the module comment), or undefined without a controller. */
  workloadOf(pod: Pod): MetaObject | undefined {
    if (!this.workloads.has(pod)) this.workloads.set(pod, this.chain(pod).at(-1));
    return this.workloads.get(pod);
  }

  /** The pod's controllers, nearest first, each the owner its reference names (by UID). */
  private chain(obj: MetaObject): MetaObject[] {
    const out: MetaObject[] = [];
    const namespace = obj.metadata?.namespace ?? '';
    let cur = obj;
    for (let depth = 0; depth < MAX_OWNER_DEPTH; depth++) {
      const ref = getControllerOf(cur);
      if (!ref) break;
      const owner = this.owner(namespace, ref);
      if (!owner || owner.metadata?.uid !== ref.uid) break;
      out.push(owner);
      cur = owner;
    }
    return out;
  }

  private owner(namespace: string, ref: OwnerReference): MetaObject | undefined {
    const key = `${namespace}/${ref.apiVersion}/${ref.kind}/${ref.name}`;
    if (!this.owners.has(key)) this.owners.set(key, this.resolveOwner(namespace, ref));
    return this.owners.get(key);
  }

  /** The Ready, Running pods of the workload with `uid`, by key to their index in name order. */
  private readyPodsOf(uid: string): Map<string, number> {
    if (!this.readyPodsByOwner) {
      const keysByOwner = new Map<string, string[]>();
      for (const pod of this.pods) {
        if (!isRunning(pod) || !isPodReady(pod)) continue;
        const workload = this.workloadOf(pod);
        if (!workload) continue;
        const ownerUid = workload.metadata?.uid ?? '';
        const keys = keysByOwner.get(ownerUid) ?? [];
        keys.push(podKey(pod));
        keysByOwner.set(ownerUid, keys);
      }
      this.readyPodsByOwner = new Map([...keysByOwner].map(([u, keys]) => [u, new Map(keys.sort().map((k, i) => [k, i]))]));
    }
    return this.readyPodsByOwner.get(uid) ?? new Map<string, number>();
  }
}

/** Adds usages. */
export function sumUsage(usages: readonly ResourceUsage[]): ResourceUsage {
  return usages.reduce((a, u) => ({ cpu: a.cpu + u.cpu, memory: a.memory + u.memory }), { cpu: 0, memory: 0 });
}

/** The last scrape at or before `now` (ms): `now` truncated to {@link METRIC_RESOLUTION_MS}. */
export function lastScrape(now: number): number {
  return Math.floor(now / METRIC_RESOLUTION_MS) * METRIC_RESOLUTION_MS;
}

/**
 * The window (ms) of the pod's metrics at the scrape at `scrapeMs`, and the containers they cover
 * (running ones, spec order); undefined when metrics-server would have none: the pod is not Running,
 * no container runs, or a running container started less than {@link FRESH_CONTAINER_MIN_MS} before
 * the scrape (or has no start time). The window is the youngest container's age when under
 * {@link METRIC_RESOLUTION_MS}, else the resolution.
 */
export function podMetricsWindow(pod: Pod, scrapeMs: number): { windowMs: number; containers: string[] } | undefined {
  if (!isRunning(pod)) return undefined;
  const statuses = new Map((pod.status?.containerStatuses ?? []).map((s) => [s.name, s]));
  const containers: string[] = [];
  let windowMs = METRIC_RESOLUTION_MS;
  for (const c of pod.spec?.containers ?? []) {
    const running = statuses.get(c.name)?.state?.running;
    if (!running) continue;
    const started = parseTime(running.startedAt);
    if (started === undefined) return undefined;
    const age = scrapeMs - started;
    if (age < FRESH_CONTAINER_MIN_MS) return undefined;
    windowMs = Math.min(windowMs, age);
    containers.push(c.name);
  }
  return containers.length === 0 ? undefined : { windowMs, containers };
}

/** Whether metrics-server has metrics of the node: its Ready condition is True. */
export function nodeHasMetrics(node: Node): boolean {
  return (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/** A CPU usage in nanocores as metrics-server writes it (`resource.NewScaledQuantity(n, Nano)`, DecimalSI): `250m`, `1`, `333333334n`. */
export function cpuQuantity(nanos: number): string {
  return parseQuantity(`${nanos}n`).toString();
}

/** A memory usage in bytes as metrics-server writes it (BinarySI): `64Mi`, `13432Ki`, `1000`. */
export function memoryQuantity(bytes: number): string {
  return bytes >= 1024 && bytes % 1024 === 0 ? parseQuantity(`${bytes / 1024}Ki`).toString() : String(bytes);
}
