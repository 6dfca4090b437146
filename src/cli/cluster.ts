/**
 * The composition root: wires storage, the API server (HTTP and in-process), the controllers, the
 * scheduler and the simulated nodes into one running control plane. This is the only module that
 * knows concrete implementations (DESIGN.md "cli is the only place that wires concrete parts together");
 * `kubeplane up` and the benchmarks both start clusters through {@link startCluster}.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import { openBackend } from '../storage/index.js';
import type { BackendOptions } from '../storage/index.js';
import type { Backend } from '../storage/interface.js';
import { TransformingBackend } from '../storage/value/index.js';
import { loadEncryptionConfig } from '../apiserver/encryption/index.js';
import { ApiServer, serializedJSON } from '../apiserver/index.js';
import { servedStrategies } from '../apiserver/registry/resources/index.js';
import { startHttpServer } from '../apiserver/http/index.js';
import { staticTokenAuthenticator, type TokenAuthenticator } from '../apiserver/authn/index.js';
import { newClientset, type Clientset } from '../client/index.js';
import { writeKubeconfig } from '../client/kubeconfig.js';
import { newSharedInformerFactory } from '../informers/index.js';
import { EventRecorder } from '../client/record/index.js';
import { REPLICATION_CONTROLLER, ReplicaSetController } from '../controller/replicaset/index.js';
import { DeploymentController } from '../controller/deployment/index.js';
import { DaemonSetsController } from '../controller/daemonset/index.js';
import { StatefulSetController } from '../controller/statefulset/index.js';
import { JobController } from '../controller/job/index.js';
import { GarbageCollector } from '../controller/garbagecollector/index.js';
import { NamespaceController } from '../controller/namespace/index.js';
import { PodGCController } from '../controller/podgc/index.js';
import { DisruptionController } from '../controller/disruption/index.js';
import { TTLAfterFinishedController } from '../controller/ttlafterfinished/index.js';
import { CronJobController } from '../controller/cronjob/index.js';
import { HorizontalController, newRESTMapper, type MetricsClient } from '../controller/podautoscaler/index.js';
import { EndpointsController } from '../controller/endpoint/index.js';
import { EndpointSliceController } from '../controller/endpointslice/index.js';
import { ServiceAccountsController } from '../controller/serviceaccount/index.js';
import { RootCACertPublisher } from '../controller/rootcacertpublisher/index.js';
import { ResourceQuotaController } from '../controller/resourcequota/index.js';
import { PersistentVolumeController } from '../controller/volume/persistentvolume/index.js';
import { SimulatedProvisioner, SIMULATED_PROVISIONER } from '../controller/volume/provisioner/index.js';
import { PVCProtectionController } from '../controller/volume/pvcprotection/index.js';
import { PVProtectionController } from '../controller/volume/pvprotection/index.js';
import { NodeLifecycleController, type NodeLifecycleControllerOptions } from '../controller/nodelifecycle/index.js';
import { TaintEvictionController, TAINT_EVICTION_CONTROLLER } from '../controller/tainteviction/index.js';
import { Scheduler } from '../scheduler/index.js';
import { NodeSimulator, defaultStages } from '../nodes/index.js';
import type { StorageClass } from '../api/index.js';
import { isAlreadyExists } from '../machinery/errors/index.js';
import { realClock, type Clock } from '../util/clock/index.js';
import { defaultFeatureGate } from '../machinery/featuregate/index.js';
import { realRand, type Rand } from '../util/random/index.js';
import { loadOrCreateServiceAccountKey, loadOrCreateServingCerts, newEphemeralCACert } from './certs.js';
import { ensurePrivateDir, makePrivate, writePrivateFile } from './private-files.js';

/**
 * Concurrent event writers of the scheduler: one Scheduled event per pod, each about a different pod,
 * so nothing correlates or rate-limits them. One loop writes one event per storage commit, a few
 * hundred a second on a busy server: a 10,000-pod burst filled the 1,000-event queue and dropped
 * events (client-go's broadcaster drops at 1,000 too, but its writer is not tied to a commit per
 * event). With as many loops as the queue holds events, every queued event is written in the next
 * commit (8 and 64 loops still dropped events in bench:scale); one pod's events share a loop, in order.
 */
const SCHEDULER_EVENT_WRITERS = 1_000;

/** Options of {@link startControlPlane}. */
export interface ControlPlaneOptions {
  backend: Backend;
  /** Simulated nodes to have (existing simulated nodes count; missing ones `node-1`… are created). */
  nodes: number;
  /** Pod start-up delay of the simulated kubelets, in ms, plus up to as much jitter (default 500). */
  podStartDelayMs?: number;
  /** Whether the simulated kubelets record per-pod events (default true; see NodeSimulatorOptions.podEvents). */
  kubeletPodEvents?: boolean;
  /** Also have a node `control-plane`, labelled and tainted as kubeadm/kind control-plane nodes are. */
  controlPlaneNode?: boolean;
  clock: Clock;
  rand: Rand;
  logger: Logger;
  /** Who the bearer token is, for TokenReview (`kubeplane up` passes its token's). */
  authenticator?: TokenAuthenticator;
  /** The HPA controller's settings (kube-controller-manager's flags); unset ones take upstream's defaults. */
  hpa?: HPAOptions;
  /** The node lifecycle controller's settings (kube-controller-manager's `--node-*` flags); unset ones take upstream's defaults. */
  nodeLifecycle?: NodeLifecycleOptions;
  /**
   * The cluster CA bundle (PEM) the root-ca-cert-publisher puts in every namespace as
   * `kube-root-ca.crt`; without one (an in-process plane serving no HTTPS) it publishes a new CA kept
   * nowhere, so that pods' kube-api-access volumes mount as on any cluster.
   */
  rootCA?: string;
  /**
   * The service-account signing key (PEM) the TokenRequest API signs with (`kubeplane up`: the data
   * directory's `sa.key`); without one the API server makes one that lives as long as it.
   */
  serviceAccountKey?: string;
}

/**
 * kube-controller-manager's `--horizontal-pod-autoscaler-*` flags, durations in ms, plus the metrics
 * source (default: the metrics APIs, read through the API server as from metrics-server; tests
 * inject a fake).
 */
export interface HPAOptions {
  /** `--horizontal-pod-autoscaler-sync-period` (15 s). */
  syncPeriodMs?: number;
  /** `--horizontal-pod-autoscaler-downscale-stabilization` (5 min). */
  downscaleStabilizationMs?: number;
  /** `--horizontal-pod-autoscaler-tolerance` (0.1). */
  tolerance?: number;
  /** `--horizontal-pod-autoscaler-cpu-initialization-period` (5 min). */
  cpuInitializationPeriodMs?: number;
  /** `--horizontal-pod-autoscaler-initial-readiness-delay` (30 s). */
  initialReadinessDelayMs?: number;
  metricsClient?: MetricsClient;
}

/**
 * kube-controller-manager's node lifecycle flags, durations in ms: `--node-monitor-period`,
 * `--node-monitor-grace-period`, `--node-startup-grace-period`, `--node-eviction-rate`,
 * `--secondary-node-eviction-rate`, `--large-cluster-size-threshold`, `--unhealthy-zone-threshold`.
 */
export type NodeLifecycleOptions = Omit<NodeLifecycleControllerOptions, 'client' | 'informers' | 'clock' | 'recorder' | 'logger'>;

/** A running control plane without a network face: API server, controllers, scheduler, nodes. */
export interface ControlPlane {
  /** The in-process API server. */
  api: ApiServer;
  /** A clientset on the in-process transport. */
  client: Clientset;
  /** The node simulator (add/remove nodes at run time). */
  nodes: NodeSimulator;
  /** Stops every component (the backend stays open: its owner closes it). */
  stop(): Promise<void>;
}

/** Concurrent workers per controller, as kube-controller-manager's defaults (controllers.md §1.10). */
const WORKERS = {
  replicaSet: 5,
  replicationController: 5,
  deployment: 5,
  gc: 20,
  namespace: 10,
  daemonSet: 2,
  statefulSet: 5,
  job: 5,
  cronJob: 5,
  ttlAfterFinished: 5,
  horizontalPodAutoscaler: 5,
  endpoint: 5,
  endpointSlice: 5,
  serviceAccount: 1,
  rootCACertPublisher: 1,
  resourceQuota: 5,
  pvcProtection: 1,
  pvProtection: 1,
  provisioner: 4,
};

/**
 * Starts the API server on `backend` and every component on in-process transports. Resolves once the
 * informers have synced and the requested nodes exist (they turn Ready with the simulator's first
 * heartbeat). Used by `kubeplane up` through {@link startCluster} and by the integration tests with a
 * FakeClock and the memory backend.
 */
export async function startControlPlane(opts: ControlPlaneOptions): Promise<ControlPlane> {
  const { clock, rand, backend } = opts;
  const api = await ApiServer.create({
    backend,
    strategies: servedStrategies,
    clock,
    rand,
    ...(opts.authenticator ? { authenticator: opts.authenticator } : {}),
    ...(opts.serviceAccountKey !== undefined ? { serviceAccountKey: opts.serviceAccountKey } : {}),
  });
  const controller = new AbortController();
  const signal = controller.signal;
  // Every component and informer listens for the one stop signal; that is not a leak.
  setMaxListeners(0, signal);
  const clientFor = (userAgent: string): Clientset => newClientset(api.inProcessTransport({ userAgent }), { userAgent });

  // kube-controller-manager: one informer factory shared by its controllers, as upstream.
  const kcmClient = clientFor('kube-controller-manager');
  const kcmInformers = newSharedInformerFactory(kcmClient, { clock, rand });
  const logFor = (component: string): Logger => opts.logger.child({ component });
  const recorder = (component: string): EventRecorder => new EventRecorder(kcmClient, { component, clock, logger: logFor(component) });
  const replicaSets = new ReplicaSetController({
    client: kcmClient,
    informers: kcmInformers,
    clock,
    recorder: recorder('replicaset-controller'),
    logger: logFor('replicaset-controller'),
  });
  const replicationControllers = new ReplicaSetController({
    client: kcmClient,
    informers: kcmInformers,
    clock,
    kind: REPLICATION_CONTROLLER,
    recorder: recorder(REPLICATION_CONTROLLER.component),
    logger: logFor(REPLICATION_CONTROLLER.component),
  });
  const deployments = new DeploymentController({
    client: kcmClient,
    informers: kcmInformers,
    clock,
    recorder: recorder('deployment-controller'),
    logger: logFor('deployment-controller'),
  });
  const daemonSets = new DaemonSetsController({
    client: kcmClient,
    informers: kcmInformers,
    clock,
    recorder: recorder('daemonset-controller'),
    logger: logFor('daemonset-controller'),
  });
  const statefulSets = new StatefulSetController({
    client: kcmClient,
    informers: kcmInformers,
    clock,
    recorder: recorder('statefulset-controller'),
    logger: logFor('statefulset-controller'),
    maxUnavailableStatefulSet: defaultFeatureGate.enabled('MaxUnavailableStatefulSet'),
  });
  // `--concurrent-job-syncs` = WORKERS.job.
  const jobs = new JobController({
    client: kcmClient,
    informers: kcmInformers,
    clock,
    recorder: recorder('job-controller'),
    logger: logFor('job-controller'),
  });
  // What discovery lists now; the garbage collector and the namespace controller ask again later, so
  // resources registered at run time are collected and emptied too.
  const discoverResources = () => Promise.resolve(api.preferredResources());
  const gc = new GarbageCollector({
    client: kcmClient,
    informers: kcmInformers,
    clock,
    resources: api.preferredResources(),
    discoverResources,
    recorder: recorder('garbage-collector-controller'),
    logger: logFor('garbage-collector'),
  });
  const cronJobs = new CronJobController({
    client: kcmClient,
    informers: kcmInformers,
    clock,
    recorder: recorder('cronjob-controller'),
    logger: logFor('cronjob-controller'),
  });
  // Targets are resolved through discovery, so custom resources with a scale subresource can be autoscaled.
  const horizontalPodAutoscalers = new HorizontalController({
    client: kcmClient,
    informers: kcmInformers,
    clock,
    restMapper: newRESTMapper(() => api.preferredResources()),
    recorder: recorder('horizontal-pod-autoscaler'),
    logger: logFor('horizontal-pod-autoscaler'),
    ...opts.hpa,
  });
  const ttlAfterFinished = new TTLAfterFinishedController({ client: kcmClient, informers: kcmInformers, clock, logger: logFor('ttl-after-finished-controller') });
  const nodeLifecycle = new NodeLifecycleController({
    client: kcmClient,
    informers: kcmInformers,
    clock,
    recorder: recorder('node-controller'),
    logger: logFor('node-lifecycle-controller'),
    ...opts.nodeLifecycle,
  });
  const taintEviction = new TaintEvictionController({ client: kcmClient, informers: kcmInformers, clock, recorder: recorder(TAINT_EVICTION_CONTROLLER), logger: logFor(TAINT_EVICTION_CONTROLLER) });
  const podGC = new PodGCController({ client: kcmClient, informers: kcmInformers, clock, logger: logFor('pod-garbage-collector') });
  // Budgets over custom resources with a scale subresource: their controllers are found through discovery.
  const disruption = new DisruptionController({
    client: kcmClient,
    informers: kcmInformers,
    clock,
    restMapper: newRESTMapper(() => api.preferredResources()),
    recorder: recorder('controllermanager'),
    logger: logFor('disruption-controller'),
  });
  const namespaces = new NamespaceController({
    client: kcmClient,
    informers: kcmInformers,
    clock,
    discoverResources,
    logger: logFor('namespace-controller'),
  });
  const endpoints = new EndpointsController({ client: kcmClient, informers: kcmInformers, clock, logger: logFor('endpoints-controller') });
  const endpointSlices = new EndpointSliceController({ client: kcmClient, informers: kcmInformers, clock, logger: logFor('endpointslice-controller') });
  const serviceAccounts = new ServiceAccountsController({ client: kcmClient, informers: kcmInformers, clock, logger: logFor('serviceaccount-controller') });
  const rootCA = opts.rootCA ?? (await newEphemeralCACert(clock));
  const rootCACertPublisher = new RootCACertPublisher({ client: kcmClient, informers: kcmInformers, clock, rootCA, logger: logFor('root-ca-cert-publisher') });
  const resourceQuotas = new ResourceQuotaController({ client: kcmClient, informers: kcmInformers, clock, discoverResources, logger: logFor('resourcequota-controller') });
  const persistentVolumes = new PersistentVolumeController({
    client: kcmClient,
    informers: kcmInformers,
    clock,
    recorder: recorder('persistentvolume-controller'),
    logger: logFor('persistentvolume-binder-controller'),
  });
  const pvcProtection = new PVCProtectionController({ client: kcmClient, informers: kcmInformers, clock, logger: logFor('persistentvolumeclaim-protection-controller') });
  const pvProtection = new PVProtectionController({ client: kcmClient, informers: kcmInformers, clock, logger: logFor('persistentvolume-protection-controller') });

  // The simulated provisioner runs outside kube-controller-manager, as kind's local-path-provisioner
  // does: its own client, informers and event source.
  const provisionerClient = clientFor('local-path-provisioner');
  const provisionerInformers = newSharedInformerFactory(provisionerClient, { clock, rand });
  const provisioner = new SimulatedProvisioner({
    client: provisionerClient,
    informers: provisionerInformers,
    clock,
    recorder: new EventRecorder(provisionerClient, { component: SIMULATED_PROVISIONER, clock, logger: logFor('local-path-provisioner') }),
    logger: logFor('local-path-provisioner'),
  });

  const schedClient = clientFor('kube-scheduler');
  const schedInformers = newSharedInformerFactory(schedClient, { clock, rand });
  const scheduler = new Scheduler({
    client: schedClient,
    informers: schedInformers,
    clock,
    rand,
    recorder: new EventRecorder(schedClient, { component: 'default-scheduler', clock, logger: logFor('default-scheduler'), writers: SCHEDULER_EVENT_WRITERS }),
  });

  const kubeletClient = clientFor('kubelet');
  const kubeletInformers = newSharedInformerFactory(kubeletClient, { clock, rand });
  const nodes = new NodeSimulator({
    client: kubeletClient,
    informers: kubeletInformers,
    clock,
    rand,
    logger: logFor('kubelet'),
    ...(opts.kubeletPodEvents === undefined ? {} : { podEvents: opts.kubeletPodEvents }),
    // Bound pods become Ready after the delay plus up to as much jitter (kwok's pod-ready stage).
    ...(opts.podStartDelayMs === undefined ? {} : { stages: defaultStages({ podReadyDelayMs: opts.podStartDelayMs, podReadyJitterMs: opts.podStartDelayMs }) }),
  });

  const factories = [kcmInformers, schedInformers, kubeletInformers, provisionerInformers];
  for (const f of factories) f.start();
  const running = [
    replicaSets.run(WORKERS.replicaSet, signal),
    replicationControllers.run(WORKERS.replicationController, signal),
    deployments.run(WORKERS.deployment, signal),
    daemonSets.run(WORKERS.daemonSet, signal),
    statefulSets.run(WORKERS.statefulSet, signal),
    jobs.run(WORKERS.job, signal),
    gc.run(WORKERS.gc, signal),
    namespaces.run(WORKERS.namespace, signal),
    podGC.run(signal),
    nodeLifecycle.run(signal),
    taintEviction.run(signal),
    disruption.run(signal),
    ttlAfterFinished.run(WORKERS.ttlAfterFinished, signal),
    cronJobs.run(WORKERS.cronJob, signal),
    horizontalPodAutoscalers.run(WORKERS.horizontalPodAutoscaler, signal),
    endpoints.run(WORKERS.endpoint, signal),
    endpointSlices.run(WORKERS.endpointSlice, signal),
    serviceAccounts.run(WORKERS.serviceAccount, signal),
    rootCACertPublisher.run(WORKERS.rootCACertPublisher, signal),
    resourceQuotas.run(WORKERS.resourceQuota, signal),
    persistentVolumes.run(signal),
    pvcProtection.run(WORKERS.pvcProtection, signal),
    pvProtection.run(WORKERS.pvProtection, signal),
    provisioner.run(WORKERS.provisioner, signal),
    scheduler.run(signal),
    nodes.run(signal),
  ];
  await Promise.all(factories.map((f) => f.waitForCacheSync(signal)));
  await ensureNodes(api, nodes, opts.nodes, opts.controlPlaneNode ?? false);
  await ensureDefaultStorageClass(api);

  let stopped = false;
  return {
    api,
    client: clientFor('kubeplane'),
    nodes,
    async stop(): Promise<void> {
      if (stopped) return;
      stopped = true;
      controller.abort();
      for (const f of factories) f.shutdown();
      await Promise.allSettled(running);
      await api.close();
    },
  };
}

/** Options of {@link startCluster}. */
export interface ClusterOptions {
  /** Simulated nodes to have. */
  nodes: number;
  /** Listen address (default 127.0.0.1). */
  host?: string;
  /** Listen port (default 6443; 0 picks a free port). */
  port?: number;
  /** Directory for the database, the token and the kubeconfig (default ./.kubeplane). */
  dataDir?: string;
  /** `sqlite` (default; persistent, in the data directory), `memory`, or `etcd` (see {@link etcd}). */
  datastore?: 'sqlite' | 'memory' | 'etcd';
  /** Where etcd is, for `datastore: 'etcd'` (kube-apiserver's `--etcd-*` flags). */
  etcd?: EtcdFlags;
  /**
   * Whether SQLite's writes run in a worker thread (default true; false runs them on the event loop,
   * for the bench to compare; see src/storage/sqlite/writer.ts).
   */
  sqliteWriterThread?: boolean;
  /** Pod start-up delay of the simulated kubelets, in ms. */
  podStartDelayMs?: number;
  /** Whether the simulated kubelets record per-pod events (default true). */
  kubeletPodEvents?: boolean;
  /** Also have the tainted `control-plane` node (see {@link ControlPlaneOptions.controlPlaneNode}). */
  controlPlaneNode?: boolean;
  /**
   * Path of an `EncryptionConfiguration` file (kube-apiserver's `--encryption-provider-config`): the
   * resources it names are stored encrypted. An invalid file fails the start with upstream's message.
   */
  encryptionProviderConfig?: string;
  /** `--max-requests-inflight` (default 400; 0 = no limit). */
  maxRequestsInFlight?: number;
  /** `--max-mutating-requests-inflight` (default 200; 0 = no limit). */
  maxMutatingRequestsInFlight?: number;
  /** `--request-timeout` in ms (default 60 000). */
  requestTimeoutMs?: number;
  /** The HPA controller's flags. */
  hpa?: HPAOptions;
  /** The node lifecycle controller's flags. */
  nodeLifecycle?: NodeLifecycleOptions;
  clock?: Clock;
  rand?: Rand;
  logger: Logger;
}

/** kube-apiserver's etcd flags. */
export interface EtcdFlags {
  /** `--etcd-servers`: client URLs of the members. */
  servers: string[];
  /** `--etcd-prefix` (default `/registry`). */
  prefix?: string;
  /** `--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile`: paths of PEM files, for TLS to etcd. */
  caFile?: string;
  certFile?: string;
  keyFile?: string;
}

/** The prefix the API server's own keys start with (upstream's default `--etcd-prefix`). */
const REGISTRY = '/registry';

/**
 * The backend options `--datastore` and the etcd flags select. In etcd, keys are the API server's own,
 * `/registry/<group>/<resource>/<namespace>/<name>` (`core` for the core group), under
 * `--etcd-prefix` in place of `/registry`: `/registry/apps/deployments/default/web` by default,
 * `/team-a/apps/deployments/default/web` for `--etcd-prefix /team-a/registry`; a prefix that does not
 * end in `/registry` is put before the whole key (`/team-a/registry/apps/…` for `--etcd-prefix /team-a`).
 * @throws Error when an etcd TLS file cannot be read, or etcd is chosen without `--etcd-servers`
 */
export function backendOptions(datastore: 'sqlite' | 'memory' | 'etcd', dataDir: string, clock: Clock, writerThread: boolean | undefined, etcd: EtcdFlags | undefined): BackendOptions {
  switch (datastore) {
    case 'memory':
      return { type: 'memory' };
    case 'sqlite':
      return { type: 'sqlite', path: join(dataDir, 'state.db'), clock, writerThread };
    case 'etcd': {
      if (!etcd || etcd.servers.length === 0) throw new Error('--datastore etcd needs --etcd-servers');
      const prefix = (etcd.prefix ?? REGISTRY).replace(/\/+$/, '');
      const read = (path: string | undefined) => (path === undefined ? undefined : readFileSync(path));
      const tls = etcd.caFile ?? etcd.certFile ?? etcd.keyFile;
      return {
        type: 'etcd',
        servers: etcd.servers,
        prefix: prefix.endsWith(REGISTRY) ? prefix.slice(0, -REGISTRY.length) : prefix,
        clock,
        ...(tls === undefined ? {} : { tls: { ca: read(etcd.caFile), cert: read(etcd.certFile), key: read(etcd.keyFile) } }),
      };
    }
  }
}

/** A running `kubeplane up`: the control plane plus its HTTP server and kubeconfig. */
export interface Cluster extends ControlPlane {
  /** The port the API server listens on. */
  port: number;
  /** `https://<host>:<port>`. */
  server: string;
  /** Path of the kubeconfig written for this cluster. */
  kubeconfigPath: string;
  /** Bearer token accepted by the API server. */
  token: string;
}

/**
 * Starts `kubeplane up`: storage under `dataDir`, the control plane, and the HTTP API server with a
 * bearer token and a kubeconfig that kubectl and @kubernetes/client-node accept; service-account
 * tokens are signed with the data directory's `sa.key`. The data directory is
 * made 0700 and every file in it 0600 (./private-files.ts). With `encryptionProviderConfig`, storage is
 * wrapped in a TransformingBackend that encrypts the configured resources; the file is loaded before
 * anything else starts, so a bad one fails with nothing touched.
 */
export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  const clock = opts.clock ?? realClock;
  const rand = opts.rand ?? realRand;
  const log = opts.logger;
  const encryption = opts.encryptionProviderConfig === undefined ? undefined : loadEncryptionConfig(opts.encryptionProviderConfig);
  const dataDir = resolve(opts.dataDir ?? '.kubeplane');
  ensurePrivateDir(dataDir);
  const datastore = opts.datastore ?? 'sqlite';
  const stored: Backend = await openBackend(backendOptions(datastore, dataDir, clock, opts.sqliteWriterThread, opts.etcd));
  const backend = encryption ? new TransformingBackend(stored, encryption.transformerForKey) : stored;
  if (encryption) log.info({ resources: encryption.resources }, 'encryption at rest enabled');

  const token = loadOrCreateToken(dataDir, rand);
  const host = opts.host ?? '127.0.0.1';
  const certs = await loadOrCreateServingCerts(dataDir, [host], clock);
  const plane = await startControlPlane({
    backend,
    nodes: opts.nodes,
    clock,
    rand,
    logger: log,
    controlPlaneNode: opts.controlPlaneNode ?? false,
    authenticator: staticTokenAuthenticator(token),
    rootCA: certs.caCert,
    serviceAccountKey: loadOrCreateServiceAccountKey(dataDir),
    ...(opts.podStartDelayMs === undefined ? {} : { podStartDelayMs: opts.podStartDelayMs }),
    ...(opts.kubeletPodEvents === undefined ? {} : { kubeletPodEvents: opts.kubeletPodEvents }),
    ...(opts.hpa ? { hpa: opts.hpa } : {}),
    ...(opts.nodeLifecycle ? { nodeLifecycle: opts.nodeLifecycle } : {}),
  });
  const http = await startHttpServer(plane.api, {
    host,
    port: opts.port ?? 6443,
    token,
    clock,
    tls: { cert: certs.cert, key: certs.key },
    serializeObject: serializedJSON,
    logger: log.child({ component: 'apiserver' }),
    ...(opts.maxRequestsInFlight === undefined ? {} : { maxRequestsInFlight: opts.maxRequestsInFlight }),
    ...(opts.maxMutatingRequestsInFlight === undefined ? {} : { maxMutatingRequestsInFlight: opts.maxMutatingRequestsInFlight }),
    ...(opts.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: opts.requestTimeoutMs }),
  });
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${http.port}`;
  const kubeconfigPath = join(dataDir, 'kubeconfig');
  writeKubeconfig(kubeconfigPath, { server, token, caData: certs.caCert, clusterName: 'kubeplane', namespace: 'default' });
  log.info({ server, nodes: opts.nodes, dataDir, datastore }, 'control plane started');

  return {
    ...plane,
    port: http.port,
    server,
    kubeconfigPath,
    token,
    async stop(): Promise<void> {
      await http.close();
      await plane.stop();
      await backend.close();
    },
  };
}

/** The node `--control-plane-node` adds: kubeadm's role label and NoSchedule taint, as on kind clusters. */
export const CONTROL_PLANE_NODE = {
  name: 'control-plane',
  labels: { 'node-role.kubernetes.io/control-plane': '' },
  taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }],
};

/**
 * Makes sure nodes `node-1` … `node-<count>` (and `control-plane` when asked) exist, creating the
 * missing ones (a restart finds them in storage and creates nothing), 50 at a time.
 */
async function ensureNodes(api: ApiServer, nodes: NodeSimulator, count: number, controlPlaneNode: boolean): Promise<void> {
  const client = newClientset(api.inProcessTransport({ userAgent: 'kubeplane' }));
  const existing = new Set((await client.core.nodes().list()).items.map((n) => n.metadata?.name));
  if (controlPlaneNode && !existing.has(CONTROL_PLANE_NODE.name)) await nodes.addNode(CONTROL_PLANE_NODE);
  const missing = Array.from({ length: count }, (_, i) => `node-${i + 1}`).filter((n) => !existing.has(n));
  for (let i = 0; i < missing.length; i += 50) {
    await Promise.all(missing.slice(i, i + 50).map((name) => nodes.addNode({ name })));
  }
}

/**
 * kind's default StorageClass, on kubeplane's simulated provisioner: `standard`, annotated default,
 * reclaimPolicy Delete, volumeBindingMode WaitForFirstConsumer.
 */
export const DEFAULT_STORAGE_CLASS: StorageClass = {
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name: 'standard', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
  provisioner: SIMULATED_PROVISIONER,
  reclaimPolicy: 'Delete',
  volumeBindingMode: 'WaitForFirstConsumer',
};

/**
 * Creates {@link DEFAULT_STORAGE_CLASS} when the store holds no StorageClass at all: on a new
 * cluster. A cluster that already has classes (its own, or `standard` from an earlier start) is left
 * alone, so a user who deletes `standard` but keeps another class does not get it back on restart.
 * (One who deletes every class does, at the next start: an empty store cannot tell.)
 */
async function ensureDefaultStorageClass(api: ApiServer): Promise<void> {
  const client = newClientset(api.inProcessTransport({ userAgent: 'kubeplane' }));
  const existing = await client.storage.storageClasses().list({ limit: 1 });
  if (existing.items.length > 0) return;
  try {
    await client.storage.storageClasses().create(structuredClone(DEFAULT_STORAGE_CLASS));
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
}

/** The bearer token lives beside the database so a restart keeps existing kubeconfigs working; mode 0600. */
function loadOrCreateToken(dataDir: string, rand: Rand): string {
  const path = join(dataDir, 'token');
  if (existsSync(path)) {
    makePrivate(path);
    return readFileSync(path, 'utf8').trim();
  }
  const token = rand.uuid().replaceAll('-', '');
  writePrivateFile(path, `${token}\n`);
  return token;
}
