/**
 * The root CA certificate publisher: every namespace holds the ConfigMap `kube-root-ca.crt` whose
 * `ca.crt` is the cluster's CA bundle, so pods can verify the API server (the service-account volume
 * projects it). A deleted or changed ConfigMap is put back.
 *
 * Followed (v1.33): pkg/controller/certificates/rootcacertpublisher/publisher.go — namespaceAdded,
 * namespaceUpdated (Active namespaces only), configMapUpdated/configMapDeleted (the one name only),
 * syncNamespace: create when missing (a namespace gone or terminating is not retried), else rewrite
 * the data and the description annotation when they differ; other annotations and labels stay.
 */
import type { ConfigMap, Namespace } from '../../api/index.js';
import type { Clientset } from '../../client/index.js';
import { DeletedFinalStateUnknown, type Lister, type SharedInformerFactory } from '../../informers/index.js';
import { isNotFound } from '../../machinery/errors/index.js';
import type { Clock } from '../../util/clock/index.js';
import { stderrLogger, type Logger } from '../../util/runtime/index.js';
import { RateLimitingQueue, runWorkersWhenSynced } from '../../workqueue/index.js';
import { hasStatusCause, NAMESPACE_TERMINATING_CAUSE } from '../controller-utils.js';

/** `RootCACertConfigMapName`. */
export const ROOT_CA_CONFIG_MAP = 'kube-root-ca.crt';
/** `DescriptionAnnotation`. */
export const DESCRIPTION_ANNOTATION = 'kubernetes.io/description';
/** `Description`: what the ConfigMap is for, as upstream words it. */
export const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. ' +
  'No other usage is guaranteed across distributions of Kubernetes clusters.';

/** Options of {@link RootCACertPublisher}. */
export interface RootCACertPublisherOptions {
  client: Clientset;
  informers: SharedInformerFactory;
  clock: Clock;
  /** The CA bundle to publish, PEM (kube-controller-manager's `--root-ca-file`, or its client's CA). */
  rootCA: string;
  logger?: Logger;
}

/** Publishes the root CA in every namespace. Work items are namespace names. */
export class RootCACertPublisher {
  private readonly queue: RateLimitingQueue;
  private readonly configMaps: Lister<ConfigMap>;
  private readonly logger: Logger;

  constructor(private readonly opts: RootCACertPublisherOptions) {
    this.logger = opts.logger ?? stderrLogger;
    this.queue = new RateLimitingQueue<string>({ clock: opts.clock, name: 'root_ca_cert_publisher' });
    this.configMaps = opts.informers.core.configMaps().lister();
    const onConfigMap = (obj: ConfigMap | DeletedFinalStateUnknown<ConfigMap>): void => {
      const cm = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
      if (cm.metadata?.name === ROOT_CA_CONFIG_MAP && cm.metadata.namespace) this.queue.add(cm.metadata.namespace);
    };
    opts.informers.core.configMaps().addEventHandler({ update: (_old, cm) => onConfigMap(cm), delete: onConfigMap });
    opts.informers.core.namespaces().addEventHandler({
      add: (ns) => this.queue.add(ns.metadata?.name ?? ''),
      update: (_old, ns: Namespace) => {
        if (ns.status?.phase === 'Active') this.queue.add(ns.metadata?.name ?? '');
      },
    });
  }

  /** Waits for the caches, then runs `workers` workers (upstream starts one) until `signal` aborts. */
  async run(workers = 1, signal?: AbortSignal): Promise<void> {
    const inf = this.opts.informers;
    await runWorkersWhenSynced([inf.core.configMaps(), inf.core.namespaces()], this.queue, workers, (ns) => this.syncNamespace(ns), { name: 'root_ca_cert_publisher', logger: this.logger, signal });
  }

  /**
   * `syncNamespace`: creates the ConfigMap in `namespace` when the cache has none, or puts its data and
   * description back when they differ. Throws the API error of a failed write (the key is retried),
   * except a create into a namespace that is gone or terminating.
   */
  async syncNamespace(namespace: string): Promise<void> {
    const client = this.opts.client.core.configMaps(namespace);
    const data = { 'ca.crt': this.opts.rootCA };
    const cm = this.configMaps.namespace(namespace).get(ROOT_CA_CONFIG_MAP);
    if (!cm) {
      try {
        await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ROOT_CA_CONFIG_MAP, annotations: { [DESCRIPTION_ANNOTATION]: DESCRIPTION } }, data });
      } catch (err) {
        if (isNotFound(err) || hasStatusCause(err, NAMESPACE_TERMINATING_CAUSE)) return;
        throw err;
      }
      return;
    }
    // reflect.DeepEqual(cm.Data, data): exactly the one key with the bundle.
    const sameData = Object.keys(cm.data ?? {}).length === 1 && cm.data?.['ca.crt'] === this.opts.rootCA;
    if (sameData && (cm.metadata?.annotations?.[DESCRIPTION_ANNOTATION] ?? '') !== '') return;
    const metadata = { ...cm.metadata, annotations: { ...cm.metadata?.annotations, [DESCRIPTION_ANNOTATION]: DESCRIPTION } };
    await client.update({ ...cm, metadata, data });
  }
}
