/**
 * The endpointslice controller: keeps `discovery.k8s.io/v1` EndpointSlices of every service with a
 * selector equal to the service's pods — one endpoint per pod with ready/serving/terminating
 * conditions, grouped into slices by the ports the pod resolves, at most 100 endpoints per slice, and
 * a placeholder slice without endpoints when there are none. Slices are owned by the service (the
 * garbage collector removes them with it).
 *
 * Followed (v1.33): pkg/controller/endpointslice/endpointslice_controller.go (syncService, the slice
 * handlers), staging/src/k8s.io/endpointslice/{reconciler.go,utils.go} (podToEndpoint, getEndpointPorts,
 * newEndpointSlice, setEndpointSliceLabels, the placeholder). Simplified: slices of a port set are
 * refilled in address order rather than with upstream's churn-minimising packing; IPv4 only.
 */
import type { DiscoveryEndpoint, DiscoveryEndpointPort, EndpointSlice, Node, Pod, Service } from '../../api/index.js';
import type { Clientset } from '../../client/index.js';
import { DeletedFinalStateUnknown, type Lister, type SharedInformerFactory } from '../../informers/index.js';
import { isNotFound } from '../../machinery/errors/index.js';
import { selectorFromSet } from '../../machinery/labels/index.js';
import { semanticDeepEqual, splitMetaNamespaceKey } from '../../machinery/meta/index.js';
import type { Clock } from '../../util/clock/index.js';
import { RateLimitingQueue } from '../../workqueue/index.js';
import { isPodReady } from '../controller-utils.js';
import { LABEL_HEADLESS, findPort, handleServicesAndPods, hasSelector, shouldPodBeInEndpoints, shouldSetHostname } from '../endpoint-util.js';
import { stderrLogger, type Logger } from '../../util/runtime/index.js';
import { runWorkersWhenSynced } from '../../workqueue/index.js';

/** `discovery.LabelServiceName`. */
export const LABEL_SERVICE_NAME = 'kubernetes.io/service-name';
/** `discovery.LabelManagedBy`. */
export const LABEL_MANAGED_BY = 'endpointslice.kubernetes.io/managed-by';
/** This controller's value of {@link LABEL_MANAGED_BY}. */
export const CONTROLLER_NAME = 'endpointslice-controller.k8s.io';
/** `--max-endpoints-per-slice` default. */
export const MAX_ENDPOINTS_PER_SLICE = 100;
/** kube-controller-manager's `--concurrent-service-endpoint-syncs` default. */
export const DEFAULT_ENDPOINTSLICE_WORKERS = 5;
const LABEL_ZONE = 'topology.kubernetes.io/zone';

/** Options of {@link EndpointSliceController}. */
export interface EndpointSliceControllerOptions {
  client: Clientset;
  informers: SharedInformerFactory;
  clock: Clock;
  logger?: Logger;
}

/** `getEndpointPorts`: the service ports the pod resolves, with name "" when unnamed. */
export function endpointPorts(svc: Service, pod: Pod): DiscoveryEndpointPort[] {
  const out: DiscoveryEndpointPort[] = [];
  for (const sp of svc.spec?.ports ?? []) {
    const port = findPort(pod, sp);
    if (port === undefined) continue;
    const ep: DiscoveryEndpointPort = { name: sp.name ?? '', port, protocol: sp.protocol ?? 'TCP' };
    if (sp.appProtocol) ep.appProtocol = sp.appProtocol;
    out.push(ep);
  }
  return out;
}

/** `podToEndpoint`: ready = publishNotReadyAddresses or (serving and not terminating). */
export function podToEndpoint(pod: Pod, svc: Service, node: Node | undefined): DiscoveryEndpoint {
  const serving = isPodReady(pod);
  const terminating = !!pod.metadata?.deletionTimestamp;
  const ready = svc.spec?.publishNotReadyAddresses === true || (serving && !terminating);
  const meta = pod.metadata ?? {};
  const ep: DiscoveryEndpoint = {
    addresses: [pod.status?.podIP ?? ''],
    conditions: { ready, serving, terminating },
    targetRef: { kind: 'Pod', namespace: meta.namespace ?? '', name: meta.name ?? '', uid: meta.uid ?? '' },
  };
  if (pod.spec?.nodeName) ep.nodeName = pod.spec.nodeName;
  const zone = node?.metadata?.labels?.[LABEL_ZONE];
  if (zone) ep.zone = zone;
  if (shouldSetHostname(pod, svc)) ep.hostname = pod.spec?.hostname ?? '';
  return ep;
}

/** `setEndpointSliceLabels`: the service's labels (minus reserved ones), service name, managed-by, headless. */
export function sliceLabels(svc: Service): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(svc.metadata?.labels ?? {})) {
    if (k !== LABEL_SERVICE_NAME && k !== LABEL_MANAGED_BY && k !== LABEL_HEADLESS) labels[k] = v;
  }
  if (svc.spec?.clusterIP === 'None') labels[LABEL_HEADLESS] = '';
  labels[LABEL_SERVICE_NAME] = svc.metadata?.name ?? '';
  labels[LABEL_MANAGED_BY] = CONTROLLER_NAME;
  return labels;
}

/** One slice's desired content: `ports` undefined for the placeholder. */
interface DesiredSlice {
  ports?: DiscoveryEndpointPort[];
  endpoints: DiscoveryEndpoint[];
}

/**
 * The slices a service's pods call for: endpoints grouped by resolved port set (sorted by address),
 * chunks of {@link MAX_ENDPOINTS_PER_SLICE}; one placeholder (no ports, no endpoints) when empty.
 */
export function desiredSlices(svc: Service, pods: readonly Pod[], nodeOf: (name: string) => Node | undefined): DesiredSlice[] {
  const groups = new Map<string, DesiredSlice>();
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, true)) continue;
    const ports = endpointPorts(svc, pod);
    const key = JSON.stringify(ports);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { ports, endpoints: [] }));
    g.endpoints.push(podToEndpoint(pod, svc, pod.spec?.nodeName ? nodeOf(pod.spec.nodeName) : undefined));
  }
  const out: DesiredSlice[] = [];
  for (const [, g] of [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const sorted = g.endpoints.sort((a, b) => ((a.addresses[0] ?? '') < (b.addresses[0] ?? '') ? -1 : 1));
    for (let i = 0; i < sorted.length; i += MAX_ENDPOINTS_PER_SLICE) {
      out.push({ ports: g.ports, endpoints: sorted.slice(i, i + MAX_ENDPOINTS_PER_SLICE) });
    }
  }
  return out.length > 0 ? out : [{ endpoints: [] }];
}

/** Keeps EndpointSlices in sync with services and pods. */
export class EndpointSliceController {
  private readonly queue: RateLimitingQueue;
  private readonly services: Lister<Service>;
  private readonly pods: Lister<Pod>;
  private readonly nodes: Lister<Node>;
  private readonly slices: Lister<EndpointSlice>;
  private readonly logger: Logger;

  constructor(private readonly opts: EndpointSliceControllerOptions) {
    this.logger = opts.logger ?? stderrLogger;
    this.queue = new RateLimitingQueue<string>({ clock: opts.clock, name: 'endpoint_slice' });
    const informers = opts.informers;
    this.services = informers.core.services().lister();
    this.pods = informers.core.pods().lister();
    this.nodes = informers.core.nodes().lister();
    this.slices = informers.discovery.endpointSlices().lister();
    handleServicesAndPods(informers, (key) => this.queue.add(key));
    // Changes to our slices by anyone resync their service (onEndpointSliceAdd/Update/Delete).
    const enqueueOwner = (obj: EndpointSlice | DeletedFinalStateUnknown<EndpointSlice>): void => {
      const slice = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
      const labels = slice.metadata?.labels ?? {};
      const svc = labels[LABEL_SERVICE_NAME];
      if (svc && labels[LABEL_MANAGED_BY] === CONTROLLER_NAME) this.queue.add(`${slice.metadata?.namespace ?? ''}/${svc}`);
    };
    informers.discovery.endpointSlices().addEventHandler({ add: enqueueOwner, update: (_o, s) => enqueueOwner(s), delete: enqueueOwner });
  }

  /** Waits for the caches, then runs `workers` workers until `signal` aborts. */
  async run(workers = DEFAULT_ENDPOINTSLICE_WORKERS, signal?: AbortSignal): Promise<void> {
    const inf = this.opts.informers;
    await runWorkersWhenSynced([inf.core.services(), inf.core.pods(), inf.core.nodes(), inf.discovery.endpointSlices()], this.queue, workers, (key) => this.syncService(key), { name: 'endpointslice', logger: this.logger, signal });
  }

  /**
   * `syncService`: reconciles the service's slices with {@link desiredSlices}: existing slices are
   * reused in order (updated when they differ), missing ones created with generateName `<service>-`,
   * the rest deleted. A deleted service's slices are left to the garbage collector.
   */
  async syncService(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const svc = this.services.get(key);
    if (!svc || !hasSelector(svc)) return;
    const pods = this.pods.namespace(namespace).list(selectorFromSet(svc.spec?.selector));
    const desired = desiredSlices(svc, pods, (n) => this.nodes.get(n));
    const labels = sliceLabels(svc);
    const existing = this.slices
      .namespace(namespace)
      .list(selectorFromSet({ [LABEL_SERVICE_NAME]: name, [LABEL_MANAGED_BY]: CONTROLLER_NAME }))
      .filter((s) => (s.metadata?.ownerReferences ?? []).some((r) => r.uid === svc.metadata?.uid))
      .sort((a, b) => ((a.metadata?.name ?? '') < (b.metadata?.name ?? '') ? -1 : 1));
    const client = this.opts.client.discovery.endpointSlices(namespace);
    // Reuse slices whose port set matches first, so a pod change rewrites as few slices as possible.
    const free = [...existing];
    const take = (d: DesiredSlice): EndpointSlice | undefined => {
      const i = free.findIndex((s) => semanticDeepEqual(s.ports ?? null, d.ports ?? null));
      return i >= 0 ? free.splice(i, 1)[0] : undefined;
    };
    const assigned = desired.map((d) => [d, take(d)] as const);
    for (const [d, current] of assigned) {
      const slice: EndpointSlice = current
        ? { ...current, metadata: { ...current.metadata, labels }, endpoints: d.endpoints }
        : {
            apiVersion: 'discovery.k8s.io/v1',
            kind: 'EndpointSlice',
            metadata: {
              generateName: `${name}-`,
              namespace,
              labels,
              ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name, uid: svc.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true }],
            },
            addressType: 'IPv4',
            endpoints: d.endpoints,
          };
      if (d.ports) slice.ports = d.ports;
      else delete slice.ports;
      if (!current) await client.create(slice);
      else if (!semanticDeepEqual(current, slice)) await client.update(slice);
    }
    for (const s of free) {
      try {
        await client.delete(s.metadata?.name ?? '');
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
  }
}
