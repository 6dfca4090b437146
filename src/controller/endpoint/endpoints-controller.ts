/**
 * The endpoints controller: keeps the `Endpoints` object of every service with a selector equal to the
 * service's pods — ready ones in `addresses`, others in `notReadyAddresses` — with the service ports
 * resolved on each pod (named target ports per pod), and deletes it with the service.
 *
 * Followed (v1.33): pkg/controller/endpoint/endpoints_controller.go (syncService, addPod/updatePod/
 * deletePod via the shared handlers, onEndpointsDelete, the headless label, skipping unchanged
 * endpoints), pkg/api/v1/endpoints/util.go (RepackSubsets: subsets grouped by port set, addresses
 * sorted). Not done: the 1000-address truncation annotation and last-change-trigger-time.
 */
import type { EndpointAddress, EndpointPort, EndpointSubset, Endpoints, Pod, Service } from '../../api/index.js';
import type { Clientset } from '../../client/index.js';
import { DeletedFinalStateUnknown, type Lister, type SharedInformerFactory } from '../../informers/index.js';
import { isNotFound } from '../../machinery/errors/index.js';
import { selectorFromSet } from '../../machinery/labels/index.js';
import { metaNamespaceKey, semanticDeepEqual, splitMetaNamespaceKey } from '../../machinery/meta/index.js';
import type { Clock } from '../../util/clock/index.js';
import { RateLimitingQueue } from '../../workqueue/index.js';
import { stderrLogger, type Logger } from '../../util/runtime/index.js';
import { runWorkersWhenSynced } from '../../workqueue/index.js';
import { LABEL_HEADLESS, findPort, handleServicesAndPods, hasSelector, isReadyForService, shouldPodBeInEndpoints, shouldSetHostname } from '../endpoint-util.js';

/** Options of {@link EndpointsController}. */
export interface EndpointsControllerOptions {
  client: Clientset;
  informers: SharedInformerFactory;
  clock: Clock;
  logger?: Logger;
}

/** kube-controller-manager's `--concurrent-endpoint-syncs` default. */
export const DEFAULT_ENDPOINT_WORKERS = 5;

/**
 * The subsets for `pods` of `svc` (RepackSubsets): one subset per distinct port list, each with its
 * ready and not-ready addresses sorted by IP; a headless service without ports gets port-less subsets.
 */
export function endpointSubsets(svc: Service, pods: readonly Pod[]): EndpointSubset[] {
  const groups = new Map<string, { ports: EndpointPort[]; ready: EndpointAddress[]; notReady: EndpointAddress[] }>();
  const svcPorts = svc.spec?.ports ?? [];
  const headlessNoPorts = svcPorts.length === 0 && svc.spec?.clusterIP === 'None';
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, svc.spec?.publishNotReadyAddresses === true)) continue;
    const meta = pod.metadata ?? {};
    const address: EndpointAddress = {
      ip: pod.status?.podIP ?? '',
      targetRef: { kind: 'Pod', namespace: meta.namespace ?? '', name: meta.name ?? '', uid: meta.uid ?? '' },
    };
    if (pod.spec?.nodeName) address.nodeName = pod.spec.nodeName;
    if (shouldSetHostname(pod, svc)) address.hostname = pod.spec?.hostname ?? '';
    const ready = isReadyForService(pod, svc);
    const ports: EndpointPort[] = [];
    for (const sp of svcPorts) {
      const port = findPort(pod, sp);
      // A named port the pod does not have: the pod serves the service without that port.
      if (port === undefined) continue;
      const ep: EndpointPort = { port, protocol: sp.protocol ?? 'TCP' };
      if (sp.name) ep.name = sp.name;
      if (sp.appProtocol) ep.appProtocol = sp.appProtocol;
      ports.push(ep);
    }
    if (ports.length === 0 && !headlessNoPorts) continue;
    ports.sort((a, b) => ((a.name ?? '') < (b.name ?? '') ? -1 : (a.name ?? '') > (b.name ?? '') ? 1 : a.port - b.port));
    const key = JSON.stringify(ports);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { ports, ready: [], notReady: [] }));
    (ready ? g.ready : g.notReady).push(address);
  }
  const byIP = (a: EndpointAddress, b: EndpointAddress): number => (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : 0);
  return [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, g]) => {
      const ss: EndpointSubset = {};
      if (g.ready.length) ss.addresses = g.ready.sort(byIP);
      if (g.notReady.length) ss.notReadyAddresses = g.notReady.sort(byIP);
      if (g.ports.length) ss.ports = g.ports;
      return ss;
    });
}

/** The Endpoints labels: the service's, plus `service.kubernetes.io/headless` for headless services. */
export function endpointsLabels(svc: Service): Record<string, string> {
  const labels = { ...svc.metadata?.labels };
  if (svc.spec?.clusterIP === 'None') labels[LABEL_HEADLESS] = '';
  else delete labels[LABEL_HEADLESS];
  return labels;
}

/** Keeps Endpoints in sync with services and pods. */
export class EndpointsController {
  private readonly queue: RateLimitingQueue;
  private readonly services: Lister<Service>;
  private readonly pods: Lister<Pod>;
  private readonly endpoints: Lister<Endpoints>;
  private readonly logger: Logger;

  constructor(private readonly opts: EndpointsControllerOptions) {
    this.logger = opts.logger ?? stderrLogger;
    this.queue = new RateLimitingQueue<string>({ clock: opts.clock, name: 'endpoint' });
    const informers = opts.informers;
    this.services = informers.core.services().lister();
    this.pods = informers.core.pods().lister();
    this.endpoints = informers.core.endpoints().lister();
    handleServicesAndPods(informers, (key) => this.queue.add(key));
    // An Endpoints deleted by someone else is recreated if its service still wants it.
    informers.core.endpoints().addEventHandler({
      delete: (obj) => {
        const ep = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
        if (this.services.get(metaNamespaceKey(ep))) this.queue.add(metaNamespaceKey(ep));
      },
    });
  }

  /** Waits for the caches, then runs `workers` workers until `signal` aborts. */
  async run(workers = DEFAULT_ENDPOINT_WORKERS, signal?: AbortSignal): Promise<void> {
    const inf = this.opts.informers;
    await runWorkersWhenSynced([inf.core.services(), inf.core.pods(), inf.core.endpoints()], this.queue, workers, (key) => this.syncService(key), { name: 'endpoint', logger: this.logger, signal });
  }

  /**
   * `syncService`: a deleted service's Endpoints are deleted; a service with a selector (not
   * ExternalName) gets Endpoints listing its pods, created or updated only when they differ.
   */
  async syncService(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const client = this.opts.client.core.endpoints(namespace);
    const svc = this.services.get(key);
    if (!svc) {
      try {
        await client.delete(name);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      return;
    }
    if (!hasSelector(svc)) return;
    const pods = this.pods.namespace(namespace).list(selectorFromSet(svc.spec?.selector));
    const subsets = endpointSubsets(svc, pods);
    const labels = endpointsLabels(svc);
    const current = this.endpoints.get(key);
    if (current && semanticDeepEqual(current.subsets ?? [], subsets) && semanticDeepEqual(current.metadata?.labels ?? {}, labels)) return;
    if (!current) {
      await client.create({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name, namespace, labels }, subsets });
      return;
    }
    await client.update({ ...current, metadata: { ...current.metadata, labels }, subsets });
  }
}
