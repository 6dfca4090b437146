/**
 * metrics.k8s.io/v1beta1 `nodes` (NodeMetrics, cluster-scoped) and `pods` (PodMetrics, namespaced),
 * get and list only: what metrics-server serves, computed on each request from the pods and nodes in
 * the API server's caches and the simulated usage of machinery/usage (whose docstring has the rules).
 * Nothing is stored. Watch and every other verb answer 405, as metrics-server's REST storage
 * implements only Get and List.
 *
 * Followed (metrics-server 0.7): pkg/api/pod.go and node.go (Get: the pod or node itself missing is
 * the core `pods "x" not found`, present without metrics `podmetrics.metrics.k8s.io "<ns>/<name>" not
 * found` / `nodemetrics.metrics.k8s.io "<name>" not found`; List: the label selector, then the field
 * selector over metadata.name and metadata.namespace, pods and nodes without metrics left out; items
 * sorted by namespace and name), pkg/storage/pod.go and node.go (metadata: name, namespace, the pod's
 * or node's labels, creationTimestamp = now; `timestamp` and `window` of the scrape; memory in bytes
 * BinarySI, cpu in nanocores DecimalSI), pkg/api/table.go (the Table: Name, cpu, memory, Window; a
 * pod's row adds up its containers). List items carry no kind or apiVersion, as Go encodes the items of
 * a typed list.
 */
import { NODE_METRICS, NODES, POD_METRICS, PODS, kindFor } from '../../../api/catalogue/index.js';
import { formatDuration } from '../../../api/proto/index.js';
import type { KubeList, KubeObject, MetaObject, Node, NodeMetrics, OwnerReference, Pod, PodMetrics } from '../../../api/index.js';
import { newNotFound } from '../../../machinery/errors/index.js';
import {
  UsageModel,
  cpuQuantity,
  lastScrape,
  memoryQuantity,
  METRIC_RESOLUTION_MS,
  nodeHasMetrics,
  parseUsage,
  podMetricsWindow,
  sumUsage,
  type ResourceUsage,
} from '../../../machinery/usage/index.js';
import { formatTime } from '../../../util/clock/index.js';
import type { Backend } from '../../../storage/interface.js';
import type { StorageContext, StorageExtension } from '../extension.js';
import type { Store } from '../generic/store.js';
import { parseListOptions } from '../generic/options.js';
import { newPredicate } from '../generic/predicate.js';
import { resourceInfo, type ResourceStrategy, type TableColumnDefinition } from '../strategy.js';
import { STORES_NOTHING, type ApiObject } from './helpers.js';
import { column } from './table-helpers.js';

type NodeMetricsObject = ApiObject<NodeMetrics>;
type PodMetricsObject = ApiObject<PodMetrics>;

const API_VERSION = 'metrics.k8s.io/v1beta1';
/** The GroupResources of metrics-server's NotFound errors (pkg/api/install.go). */
const NODE_METRICS_GR = { group: 'metrics.k8s.io', resource: 'nodemetrics' };
const POD_METRICS_GR = { group: 'metrics.k8s.io', resource: 'podmetrics' };

/** `{cpu, memory}` as the quantities metrics-server writes. */
function usageList(u: ResourceUsage): Record<string, string> {
  return { cpu: cpuQuantity(u.cpu), memory: memoryQuantity(u.memory) };
}

/** ObjectMeta of a metrics object: name, namespace, creationTimestamp (now) and the labels, as metrics-server copies them. */
function metricsMeta(obj: MetaObject, now: number): NonNullable<MetaObject['metadata']> {
  const labels = obj.metadata?.labels;
  return {
    name: obj.metadata?.name ?? '',
    ...(obj.metadata?.namespace ? { namespace: obj.metadata.namespace } : {}),
    creationTimestamp: formatTime(now),
    ...(labels && Object.keys(labels).length > 0 ? { labels: { ...labels } } : {}),
  };
}

/** A Go duration string of `ms`: `15s`, `12s`, `12.5s`. */
const windowString = (ms: number): string => formatDuration(ms * 1e6);

/** The usage model over `pods`, resolving owners from the stores' caches. */
function usageModel(storeOf: StorageContext['storeOf'], pods: readonly Pod[]): UsageModel {
  const resolve = (namespace: string, ref: OwnerReference): MetaObject | undefined => {
    const row = kindFor(ref.apiVersion, ref.kind);
    const store = row ? storeOf(row.group, row.resource) : undefined;
    if (!row || !store) return undefined;
    try {
      return store.cached(row.namespaced ? namespace : undefined, ref.name);
    } catch {
      // A name that cannot be a key resolves to nothing.
      return undefined;
    }
  };
  return new UsageModel(pods, resolve);
}

/** The PodMetrics of `pod` at `now` (ms), or undefined when it has none yet. */
function podMetrics(model: UsageModel, pod: Pod, now: number, withType: boolean): PodMetricsObject | undefined {
  const scrape = lastScrape(now);
  const reported = podMetricsWindow(pod, scrape);
  const usage = model.containerUsage(pod);
  if (!reported || !usage) return undefined;
  return {
    ...(withType ? { kind: POD_METRICS.kind, apiVersion: API_VERSION } : {}),
    metadata: metricsMeta(pod, now),
    timestamp: formatTime(scrape),
    window: windowString(reported.windowMs),
    containers: usage.filter((c) => reported.containers.includes(c.name)).map((c) => ({ name: c.name, usage: usageList(c.usage) })),
  };
}

/** The NodeMetrics of `node` at `now` (ms), or undefined when it has none. */
function nodeMetrics(model: UsageModel, node: Node, now: number, withType: boolean): NodeMetricsObject | undefined {
  if (!nodeHasMetrics(node)) return undefined;
  return {
    ...(withType ? { kind: NODE_METRICS.kind, apiVersion: API_VERSION } : {}),
    metadata: metricsMeta(node, now),
    timestamp: formatTime(lastScrape(now)),
    // Nodes run all along: two scrapes apart.
    window: windowString(METRIC_RESOLUTION_MS),
    usage: usageList(model.nodeUsage(node.metadata?.name ?? '')),
  };
}

const byNamespaceAndName = (a: KubeObject, b: KubeObject): number =>
  (a.metadata?.namespace ?? '').localeCompare(b.metadata?.namespace ?? '') || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');

/** The store of a core kind the metrics are computed from. @throws Error when it is not served (never, in a kubeplane server) */
function coreStore(storeOf: StorageContext['storeOf'], resource: string): Store {
  const store = storeOf('', resource);
  if (!store) throw new Error(`metrics.k8s.io needs core ${resource}, which is not served`);
  return store;
}

/** The pods of a namespace (all: undefined) and the usage model over them. */
interface PodsAndModel {
  pods: Pod[];
  model: UsageModel;
}

/**
 * The pods and usage models of one storage revision, by namespace: requests between two writes (an
 * HPA per workload, each asking every 15 s) share one model instead of each walking every pod's
 * owners again. A model depends only on the objects, so one built at revision R serves every request
 * that must see R; a newer revision drops them all.
 */
class ModelCache {
  private revision = -1;
  private readonly byNamespace = new Map<string, PodsAndModel>();

  constructor(private readonly storeOf: StorageContext['storeOf']) {}

  /**
   * The pods and model of `namespace` (undefined: all) once the caches hold what `query.resourceVersion`
   * asks for (unset: every write so far, as a consistent list; `0`: whatever they hold; N: at least N).
   * metrics-server reads informer caches; here a client that just wrote sees its writes.
   */
  async get(backend: Backend, namespace: string | undefined, query: Record<string, string>): Promise<PodsAndModel> {
    const pods = coreStore(this.storeOf, PODS.resource);
    const rv = query['resourceVersion'] ?? '';
    const target = backend.currentRevision();
    await pods.waitForResourceVersion(rv);
    const build = (): PodsAndModel => {
      const all = pods.cachedObjects(namespace) as Pod[];
      return { pods: all, model: usageModel(this.storeOf, all) };
    };
    // Only consistent reads are shared: the caches then hold at least `target`.
    if (rv !== '') return build();
    if (target !== this.revision) {
      this.revision = target;
      this.byNamespace.clear();
    }
    const key = namespace ?? '';
    let entry = this.byNamespace.get(key);
    if (!entry) {
      entry = build();
      this.byNamespace.set(key, entry);
    }
    return entry;
  }
}

/** GET and LIST of PodMetrics. */
function podMetricsStorage({ store, storeOf, clock, backend }: StorageContext): StorageExtension {
  const models = new ModelCache(storeOf);
  return {
    get: async (namespace, name, query) => {
      const { model } = await models.get(backend, namespace, query);
      const pods = coreStore(storeOf, PODS.resource);
      const pod = pods.cached(namespace, name) as Pod | undefined;
      if (!pod) throw newNotFound(pods.gr, name);
      const metrics = podMetrics(model, pod, clock.now(), true);
      if (!metrics) throw newNotFound(POD_METRICS_GR, `${namespace ?? ''}/${name}`);
      return metrics;
    },
    list: async (namespace, query) => {
      const opts = parseListOptions(query, false);
      const pred = newPredicate(store.strategy, opts.labelSelector, opts.fieldSelector);
      const { pods, model } = await models.get(backend, namespace, query);
      const now = clock.now();
      // Selected on the pods' own labels and names, which the metrics copy.
      const items = pods
        .filter((pod) => pred.matches(pod as KubeObject))
        .map((pod) => podMetrics(model, pod, now, false))
        .filter((m): m is PodMetricsObject => m !== undefined)
        .sort(byNamespaceAndName);
      const list: KubeList = { kind: POD_METRICS.listKind, apiVersion: API_VERSION, metadata: {}, items };
      return list;
    },
  };
}

/** GET and LIST of NodeMetrics. */
function nodeMetricsStorage({ store, storeOf, clock, backend }: StorageContext): StorageExtension {
  const models = new ModelCache(storeOf);
  return {
    get: async (_namespace, name, query) => {
      const { model } = await models.get(backend, undefined, query);
      const nodes = coreStore(storeOf, NODES.resource);
      const node = nodes.cached(undefined, name) as Node | undefined;
      if (!node) throw newNotFound(nodes.gr, name);
      const metrics = nodeMetrics(model, node, clock.now(), true);
      if (!metrics) throw newNotFound(NODE_METRICS_GR, name);
      return metrics;
    },
    list: async (_namespace, query) => {
      const opts = parseListOptions(query, false);
      const pred = newPredicate(store.strategy, opts.labelSelector, opts.fieldSelector);
      const { model } = await models.get(backend, undefined, query);
      const nodes = (coreStore(storeOf, NODES.resource).cachedObjects() as Node[]).filter((n) => pred.matches(n as KubeObject));
      const now = clock.now();
      const items = nodes
        .map((n) => nodeMetrics(model, n, now, false))
        .filter((m): m is NodeMetricsObject => m !== undefined)
        .sort(byNamespaceAndName);
      const list: KubeList = { kind: NODE_METRICS.listKind, apiVersion: API_VERSION, metadata: {}, items };
      return list;
    },
  };
}

/** metrics-server's columns (pkg/api/table.go): Name, then the usage resources by name, then Window. */
const METRICS_COLUMNS: TableColumnDefinition[] = [
  column('Name', 'string', 'Name of the resource', 0, 'name'),
  column('cpu', 'string', '', 0, 'quantity'),
  column('memory', 'string', '', 0, 'quantity'),
  column('Window', 'string', '', 0, 'duration'),
];

const usageCells = (u: ResourceUsage): [cpu: string, memory: string] => [cpuQuantity(u.cpu), memoryQuantity(u.memory)];

/** A usage map back in numbers (a pod's row adds its containers up); a malformed quantity counts 0. */
function usageOf(list: Record<string, string> | undefined): ResourceUsage {
  return { cpu: parseUsage(list?.['cpu'], 'cpu') ?? 0, memory: parseUsage(list?.['memory'], 'memory') ?? 0 };
}

/** The nodes strategy of metrics.k8s.io: reads only. */
export const nodeMetricsStrategy: ResourceStrategy<NodeMetricsObject> = {
  ...STORES_NOTHING,
  info: resourceInfo(NODE_METRICS),
  storage: nodeMetricsStorage,
  table: {
    columns: METRICS_COLUMNS,
    row: (m) => ({ cells: [m.metadata?.name ?? '', ...usageCells(usageOf(m.usage)), m.window] }),
  },
};

/** The pods strategy of metrics.k8s.io: reads only. */
export const podMetricsStrategy: ResourceStrategy<PodMetricsObject> = {
  ...STORES_NOTHING,
  info: resourceInfo(POD_METRICS),
  storage: podMetricsStorage,
  table: {
    columns: METRICS_COLUMNS,
    row: (m) => ({ cells: [m.metadata?.name ?? '', ...usageCells(sumUsage((m.containers ?? []).map((c) => usageOf(c.usage)))), m.window] }),
  },
};
