/**
 * The HPA controller's view of the metrics APIs: upstream's `MetricsClient` interface
 * (kubernetes/kubernetes pkg/controller/podautoscaler/metrics/interfaces.go) and its REST
 * implementation (metrics/client.go `restMetricsClient`), which reads
 * - `metrics.k8s.io/v1beta1` PodMetrics (metrics-server, or kubeplane's built-in metrics API) for
 *   Resource and ContainerResource metrics,
 * - `custom.metrics.k8s.io/v1beta2` for Pods and Object metrics,
 * - `external.metrics.k8s.io/v1beta1` for External metrics,
 * through the ordinary client transport, exactly as a controller manager reads them from an
 * aggregated API server. An API that is not served answers NotFound, and the caller turns that into
 * upstream's `FailedGet…Metric` conditions and events.
 *
 * Units: timestamps and windows in **ms**; values in **milli-units** (millicores for cpu, milli-bytes
 * for memory), as upstream's `Quantity.MilliValue()`.
 */
import type { CrossVersionObjectReference } from 'kubernetes-types/autoscaling/v2.js';
import { POD_METRICS, parseGroupVersion, type Clientset } from '../../client/index.js';
import { parseDuration } from '../../machinery/duration/index.js';
import type { Selector } from '../../machinery/labels/index.js';
import { parseQuantity } from '../../machinery/quantity/index.js';
import { parseTime } from '../../util/clock/index.js';
import type { RESTMapper } from '../rest-mapper.js';

/** One pod's sample (upstream `PodMetric`). */
export interface PodMetric {
  /** When the sample was taken, ms since the epoch. */
  timestamp: number;
  /** The window the sample covers, ms. */
  window: number;
  /** Milli-units (millicores for cpu). */
  value: number;
}

/** Samples by pod name (upstream `PodMetricsInfo`). */
export type PodMetricsInfo = Map<string, PodMetric>;

/** What {@link MetricsClient.getResourceMetric} and {@link MetricsClient.getRawMetric} return. */
export interface PodMetricsResult {
  metrics: PodMetricsInfo;
  /** The first item's timestamp (upstream: `metrics.Items[0].Timestamp`), ms. */
  timestamp: number;
}

/**
 * Where the HPA controller gets metrics (upstream `MetricsClient`). Every method rejects with an
 * Error whose message is upstream's (e.g. `no metrics returned from resource metrics API`).
 */
export interface MetricsClient {
  /**
   * The resource usage of each pod matching `selector` in `namespace`: the sum over its containers,
   * or only `container`'s when set. Pods lacking the resource in any container are left out.
   */
  getResourceMetric(resource: string, namespace: string, selector: Selector, container: string): Promise<PodMetricsResult>;
  /** A custom per-pod metric (`Pods` metric source) of the pods matching `selector`. */
  getRawMetric(metricName: string, namespace: string, selector: Selector, metricSelector: Selector): Promise<PodMetricsResult>;
  /** A custom metric describing one object (`Object` metric source): its value (milli-units) and timestamp (ms). */
  getObjectMetric(metricName: string, namespace: string, objectRef: CrossVersionObjectReference, metricSelector: Selector): Promise<{ value: number; timestamp: number }>;
  /** The values (milli-units) of an external metric matching `selector`, and the first one's timestamp (ms). */
  getExternalMetric(metricName: string, namespace: string, selector: Selector): Promise<{ values: number[]; timestamp: number }>;
}

/**
 * Go's zero `time.Time` (0001-01-01T00:00:00Z) in ms: the timestamp of a sample that has none, and
 * what upstream's calculator returns where it passes no timestamp on.
 */
export const GO_ZERO_TIME = -62_135_596_800_000;

/** The wire shape of a PodMetrics (k8s.io/metrics pkg/apis/metrics/v1beta1). */
export interface PodMetricsWire {
  metadata?: { name?: string; namespace?: string };
  timestamp?: string;
  window?: string;
  containers?: { name?: string; usage?: Record<string, string | number> }[];
}

/** The wire shape of a custom.metrics.k8s.io MetricValue. */
interface MetricValueWire {
  describedObject?: { name?: string };
  timestamp?: string;
  windowSeconds?: number;
  value?: string | number;
}

/** The wire shape of an external.metrics.k8s.io ExternalMetricValue. */
interface ExternalMetricValueWire {
  timestamp?: string;
  value?: string | number;
}

const CUSTOM_METRICS_GROUP = 'custom.metrics.k8s.io';
const CUSTOM_METRICS_VERSION = 'v1beta2';
const EXTERNAL_METRICS_GROUP = 'external.metrics.k8s.io';
const EXTERNAL_METRICS_VERSION = 'v1beta1';
/** upstream `metricServerDefaultMetricWindow`: custom metrics without `windowSeconds`. */
const DEFAULT_METRIC_WINDOW_MS = 60_000;

const errText = (err: unknown): string => (err instanceof Error ? err.message : String(err));
const milli = (q: string | number | undefined): number => (q === undefined ? 0 : parseQuantity(q).milliValue());
const time = (s: string | undefined): number => parseTime(s) ?? GO_ZERO_TIME;

/** A duration string (`10s`, `1m0s`) in ms; 0 when absent or malformed. */
function windowMs(s: string | undefined): number {
  if (!s) return 0;
  try {
    return parseDuration(s);
  } catch {
    return 0;
  }
}

/**
 * upstream `getPodMetrics`: per pod, the sum of `resource` over its containers; a pod with no
 * container, or a container without the resource, is left out (its metric is "missing").
 */
export function podMetricsFromList(items: readonly PodMetricsWire[], resource: string): PodMetricsInfo {
  const res: PodMetricsInfo = new Map();
  for (const m of items) {
    const containers = m.containers ?? [];
    let sum = 0;
    let missing = containers.length === 0;
    for (const c of containers) {
      const v = c.usage?.[resource];
      if (v === undefined) {
        missing = true;
        break;
      }
      sum += milli(v);
    }
    if (!missing) res.set(m.metadata?.name ?? '', { timestamp: time(m.timestamp), window: windowMs(m.window), value: sum });
  }
  return res;
}

/** upstream `getContainerMetrics`: per pod, `container`'s usage of `resource`, if it reports it. */
export function containerMetricsFromList(items: readonly PodMetricsWire[], resource: string, container: string): PodMetricsInfo {
  const res: PodMetricsInfo = new Map();
  for (const m of items) {
    const c = (m.containers ?? []).find((x) => x.name === container);
    const v = c?.usage?.[resource];
    if (v !== undefined) res.set(m.metadata?.name ?? '', { timestamp: time(m.timestamp), window: windowMs(m.window), value: milli(v) });
  }
  return res;
}

/**
 * upstream `restMetricsClient`: every metric read through `client`'s transport (see the module
 * documentation). `mapper` names the resource of an Object metric's described object.
 */
export class RestMetricsClient implements MetricsClient {
  constructor(
    private readonly client: Clientset,
    private readonly mapper: RESTMapper,
  ) {}

  async getResourceMetric(resource: string, namespace: string, selector: Selector, container: string): Promise<PodMetricsResult> {
    let items: PodMetricsWire[];
    try {
      const list = await this.client.resource<PodMetricsWire>(POD_METRICS, namespace).list({ labelSelector: selector.toString() });
      items = [...list.items];
    } catch (err) {
      throw new Error(`unable to fetch metrics from resource metrics API: ${errText(err)}`);
    }
    if (items.length === 0) throw new Error('no metrics returned from resource metrics API');
    const metrics = container ? containerMetricsFromList(items, resource, container) : podMetricsFromList(items, resource);
    return { metrics, timestamp: time(items[0]?.timestamp) };
  }

  async getRawMetric(metricName: string, namespace: string, selector: Selector, metricSelector: Selector): Promise<PodMetricsResult> {
    let items: MetricValueWire[];
    try {
      const list = (await this.client.transport.request({
        verb: 'get',
        group: CUSTOM_METRICS_GROUP,
        version: CUSTOM_METRICS_VERSION,
        resource: 'pods',
        namespace,
        name: '*',
        subresource: metricName,
        query: metricQuery(selector, metricSelector),
      })) as { items?: MetricValueWire[] };
      items = list.items ?? [];
    } catch (err) {
      throw new Error(`unable to fetch metrics from custom metrics API: ${errText(err)}`);
    }
    if (items.length === 0) throw new Error('no metrics returned from custom metrics API');
    const metrics: PodMetricsInfo = new Map();
    for (const m of items) {
      const window = m.windowSeconds !== undefined ? m.windowSeconds * 1000 : DEFAULT_METRIC_WINDOW_MS;
      metrics.set(m.describedObject?.name ?? '', { timestamp: time(m.timestamp), window, value: milli(m.value) });
    }
    return { metrics, timestamp: time(items[0]?.timestamp) };
  }

  async getObjectMetric(metricName: string, namespace: string, objectRef: CrossVersionObjectReference, metricSelector: Selector): Promise<{ value: number; timestamp: number }> {
    const { group } = parseGroupVersion(objectRef.apiVersion ?? '');
    let value: MetricValueWire;
    try {
      const base = { verb: 'get' as const, group: CUSTOM_METRICS_GROUP, version: CUSTOM_METRICS_VERSION, query: metricQuery(undefined, metricSelector) };
      if (objectRef.kind === 'Namespace' && group === '') {
        // Namespaces are root-scoped: /namespaces/<ns>/metrics/<metric> (the ref's own name is ignored,
        // as upstream does, so that a ref cannot escape the HPA's namespace).
        value = (await this.client.transport.request({ ...base, resource: 'namespaces', name: namespace, subresource: `metrics/${metricName}` })) as MetricValueWire;
      } else {
        const mapping = this.mapper.mappings(group, objectRef.kind)[0];
        if (!mapping) throw new Error(`no matches for kind "${objectRef.kind}" in group "${group}"`);
        value = (await this.client.transport.request({ ...base, resource: mapping.resource, namespace, name: objectRef.name, subresource: metricName })) as MetricValueWire;
      }
    } catch (err) {
      throw new Error(`unable to fetch metrics from custom metrics API: ${errText(err)}`);
    }
    return { value: milli(value.value), timestamp: time(value.timestamp) };
  }

  async getExternalMetric(metricName: string, namespace: string, selector: Selector): Promise<{ values: number[]; timestamp: number }> {
    let items: ExternalMetricValueWire[];
    try {
      const list = (await this.client.transport.request({
        verb: 'list',
        group: EXTERNAL_METRICS_GROUP,
        version: EXTERNAL_METRICS_VERSION,
        resource: metricName,
        namespace,
        query: selector.empty() ? {} : { labelSelector: selector.toString() },
      })) as { items?: ExternalMetricValueWire[] };
      items = list.items ?? [];
    } catch (err) {
      throw new Error(`unable to fetch metrics from external metrics API: ${errText(err)}`);
    }
    if (items.length === 0) throw new Error('no metrics returned from external metrics API');
    return { values: items.map((m) => milli(m.value)), timestamp: time(items[0]?.timestamp) };
  }
}

/** `labelSelector` / `metricLabelSelector` query parameters, as the custom metrics client sends them. */
function metricQuery(selector: Selector | undefined, metricSelector: Selector): Record<string, string> {
  const q: Record<string, string> = {};
  if (selector && !selector.empty()) q.labelSelector = selector.toString();
  if (!metricSelector.empty()) q.metricLabelSelector = metricSelector.toString();
  return q;
}
