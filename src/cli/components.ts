/**
 * The components `kubeplane up` runs in one process and `kubeplane controller-manager`, `scheduler`
 * and `nodes run` run as processes of their own: each starts on a clientset (the in-process transport
 * or HTTP) and a stop signal, and hands back its informer factories and running loops for the caller
 * to wait on. Which transport, and whether a component waits for a leader lease first, is the caller's
 * choice (./cluster.ts, ./processes.ts).
 */
import type { Logger } from 'pino';
import type { Clientset } from '../client/index.js';
import type { Discovery } from '../client/discovery.js';
import { newSharedInformerFactory, type SharedInformerFactory } from '../informers/index.js';
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
import { CLUSTER_ROLE_AGGREGATION_WORKERS, ClusterRoleAggregationController } from '../controller/clusterroleaggregation/index.js';
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
import type { Clock } from '../util/clock/index.js';
import { defaultFeatureGate } from '../machinery/featuregate/index.js';
import type { Rand } from '../util/random/index.js';

/**
 * Concurrent event writers of the scheduler: one Scheduled event per pod, each about a different pod,
 * so nothing correlates or rate-limits them. One loop writes one event per storage commit, a few
 * hundred a second on a busy server: a 10,000-pod burst filled the 1,000-event queue and dropped
 * events (client-go's broadcaster drops at 1,000 too, but its writer is not tied to a commit per
 * event). With as many loops as the queue holds events, every queued event is written in the next
 * commit (8 and 64 loops still dropped events in bench:scale); one pod's events share a loop, in order.
 */
const SCHEDULER_EVENT_WRITERS = 1_000;

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

/** What every component is started with. */
export interface ComponentContext {
  clock: Clock;
  rand: Rand;
  logger: Logger;
  /** Aborting it stops the component's loops. */
  signal: AbortSignal;
}

/** A started component: its informer factories (started; wait for their sync, shut them down) and its loops. */
export interface RunningComponent {
  factories: SharedInformerFactory[];
  running: Promise<unknown>[];
}

/** Options of {@link startControllerManager}. */
export interface ControllerManagerOptions extends ComponentContext {
  /** A clientset with the given User-Agent (each controller group identifies itself as upstream's do). */
  clientFor: (userAgent: string) => Clientset;
  /** The served resources, for the garbage collector, namespace and quota controllers and the REST mappers. */
  discovery: Discovery;
  /** The cluster CA bundle (PEM) the root-ca-cert-publisher puts in every namespace as `kube-root-ca.crt`. */
  rootCA: string;
  hpa?: HPAOptions;
  nodeLifecycle?: NodeLifecycleOptions;
  /** `--controllers` (default `['*']`): which controllers run, see {@link isControllerEnabled}. */
  controllers?: readonly string[];
  /**
   * `--use-service-account-credentials`: the client a controller (by its `--controllers` name) acts
   * through, as its own service account (./controller-credentials.ts); without it every controller
   * uses the controller manager's client.
   */
  clientForController?: (controller: string) => Clientset;
}

/**
 * kube-controller-manager's controller names (k8s.io/kubernetes cmd/kube-controller-manager/names,
 * v1.33) of the controllers kubeplane runs, every one on by default.
 */
export const KNOWN_CONTROLLERS: readonly string[] = [
  'replicaset-controller',
  'replicationcontroller-controller',
  'deployment-controller',
  'daemonset-controller',
  'statefulset-controller',
  'job-controller',
  'garbage-collector-controller',
  'cronjob-controller',
  'horizontal-pod-autoscaler-controller',
  'ttl-after-finished-controller',
  'node-lifecycle-controller',
  'taint-eviction-controller',
  'pod-garbage-collector-controller',
  'disruption-controller',
  'namespace-controller',
  'endpoints-controller',
  'endpointslice-controller',
  'serviceaccount-controller',
  'root-ca-certificate-publisher-controller',
  'resourcequota-controller',
  'persistentvolume-binder-controller',
  'persistentvolumeclaim-protection-controller',
  'persistentvolume-protection-controller',
  'clusterrole-aggregation-controller',
];

/**
 * Whether `--controllers` enables `name` (upstream `ControllerContext.IsControllerEnabled`): an entry
 * `name` enables it and `-name` disables it, the first match winning; otherwise `*` enables every
 * controller that is on by default (all of kubeplane's are), and without `*` it is off.
 * `['*', '-job-controller']` runs every controller but the Job controller; `['deployment-controller']`
 * runs only that one.
 */
export function isControllerEnabled(name: string, controllers: readonly string[]): boolean {
  let star = false;
  for (const entry of controllers) {
    if (entry === name) return true;
    if (entry === `-${name}`) return false;
    if (entry === '*') star = true;
  }
  return star;
}

/**
 * The error upstream gives for a `--controllers` entry naming no controller, or undefined when all
 * are known.
 */
export function unknownControllerError(controllers: readonly string[]): string | undefined {
  const unknown = controllers.find((c) => c !== '*' && !KNOWN_CONTROLLERS.includes(c.replace(/^-/, '')));
  return unknown === undefined ? undefined : `"${unknown.replace(/^-/, '')}" is not in the list of known controllers`;
}

/**
 * Starts kube-controller-manager's controllers on one shared informer factory, as upstream, and the
 * simulated volume provisioner beside them (with its own client and informers, as kind's
 * local-path-provisioner runs outside the controller manager).
 */
export function startControllerManager(opts: ControllerManagerOptions): RunningComponent {
  const { clock, rand, signal } = opts;
  // kube-controller-manager: one informer factory shared by its controllers, as upstream.
  const kcmClient = opts.clientFor('kube-controller-manager');
  const kcmInformers = newSharedInformerFactory(kcmClient, { clock, rand });
  const logFor = (component: string): Logger => opts.logger.child({ component });
  const recorder = (client: Clientset, component: string): EventRecorder => new EventRecorder(client, { component, clock, logger: logFor(component) });
  const discoverResources = () => opts.discovery.preferredResources();
  const controllers: [name: string, make: (client: Clientset) => () => Promise<unknown>][] = [
    [
      'replicaset-controller',
      (client) => {
        const c = new ReplicaSetController({
          client,
          informers: kcmInformers,
          clock,
          recorder: recorder(client, 'replicaset-controller'),
          logger: logFor('replicaset-controller'),
        });
        return () => c.run(WORKERS.replicaSet, signal);
      },
    ],
    [
      'replicationcontroller-controller',
      (client) => {
        const c = new ReplicaSetController({
          client,
          informers: kcmInformers,
          clock,
          kind: REPLICATION_CONTROLLER,
          recorder: recorder(client, REPLICATION_CONTROLLER.component),
          logger: logFor(REPLICATION_CONTROLLER.component),
        });
        return () => c.run(WORKERS.replicationController, signal);
      },
    ],
    [
      'deployment-controller',
      (client) => {
        const c = new DeploymentController({
          client,
          informers: kcmInformers,
          clock,
          recorder: recorder(client, 'deployment-controller'),
          logger: logFor('deployment-controller'),
        });
        return () => c.run(WORKERS.deployment, signal);
      },
    ],
    [
      'daemonset-controller',
      (client) => {
        const c = new DaemonSetsController({
          client,
          informers: kcmInformers,
          clock,
          recorder: recorder(client, 'daemonset-controller'),
          logger: logFor('daemonset-controller'),
        });
        return () => c.run(WORKERS.daemonSet, signal);
      },
    ],
    // `--concurrent-job-syncs` = WORKERS.job.
    [
      'statefulset-controller',
      (client) => {
        const c = new StatefulSetController({
          client,
          informers: kcmInformers,
          clock,
          recorder: recorder(client, 'statefulset-controller'),
          logger: logFor('statefulset-controller'),
          maxUnavailableStatefulSet: defaultFeatureGate.enabled('MaxUnavailableStatefulSet'),
        });
        return () => c.run(WORKERS.statefulSet, signal);
      },
    ],
    // What discovery lists now; the garbage collector and the namespace controller ask again later, so
    // resources registered at run time are collected and emptied too.
    [
      'job-controller',
      (client) => {
        const c = new JobController({
          client,
          informers: kcmInformers,
          clock,
          recorder: recorder(client, 'job-controller'),
          logger: logFor('job-controller'),
        });
        return () => c.run(WORKERS.job, signal);
      },
    ],
    [
      'garbage-collector-controller',
      (client) => {
        const c = new GarbageCollector({
          client,
          informers: kcmInformers,
          clock,
          resources: opts.discovery.cached(),
          discoverResources,
          recorder: recorder(client, 'garbage-collector-controller'),
          logger: logFor('garbage-collector'),
        });
        return () => c.run(WORKERS.gc, signal);
      },
    ],
    // Targets are resolved through discovery, so custom resources with a scale subresource can be autoscaled.
    [
      'cronjob-controller',
      (client) => {
        const c = new CronJobController({
          client,
          informers: kcmInformers,
          clock,
          recorder: recorder(client, 'cronjob-controller'),
          logger: logFor('cronjob-controller'),
        });
        return () => c.run(WORKERS.cronJob, signal);
      },
    ],
    [
      'horizontal-pod-autoscaler-controller',
      (client) => {
        const c = new HorizontalController({
          client,
          informers: kcmInformers,
          clock,
          restMapper: newRESTMapper(() => opts.discovery.cached()),
          recorder: recorder(client, 'horizontal-pod-autoscaler'),
          logger: logFor('horizontal-pod-autoscaler'),
          ...opts.hpa,
        });
        return () => c.run(WORKERS.horizontalPodAutoscaler, signal);
      },
    ],
    [
      'ttl-after-finished-controller',
      (client) => {
        const c = new TTLAfterFinishedController({ client, informers: kcmInformers, clock, logger: logFor('ttl-after-finished-controller') });
        return () => c.run(WORKERS.ttlAfterFinished, signal);
      },
    ],
    [
      'node-lifecycle-controller',
      (client) => {
        const c = new NodeLifecycleController({
          client,
          informers: kcmInformers,
          clock,
          recorder: recorder(client, 'node-controller'),
          logger: logFor('node-lifecycle-controller'),
          ...opts.nodeLifecycle,
        });
        return () => c.run(signal);
      },
    ],
    [
      'taint-eviction-controller',
      (client) => {
        const c = new TaintEvictionController({ client, informers: kcmInformers, clock, recorder: recorder(client, TAINT_EVICTION_CONTROLLER), logger: logFor(TAINT_EVICTION_CONTROLLER) });
        return () => c.run(signal);
      },
    ],
    // Budgets over custom resources with a scale subresource: their controllers are found through discovery.
    [
      'pod-garbage-collector-controller',
      (client) => {
        const c = new PodGCController({ client, informers: kcmInformers, clock, logger: logFor('pod-garbage-collector') });
        return () => c.run(signal);
      },
    ],
    [
      'disruption-controller',
      (client) => {
        const c = new DisruptionController({
          client,
          informers: kcmInformers,
          clock,
          restMapper: newRESTMapper(() => opts.discovery.cached()),
          recorder: recorder(client, 'controllermanager'),
          logger: logFor('disruption-controller'),
        });
        return () => c.run(signal);
      },
    ],
    [
      'namespace-controller',
      (client) => {
        const c = new NamespaceController({
          client,
          informers: kcmInformers,
          clock,
          discoverResources,
          logger: logFor('namespace-controller'),
        });
        return () => c.run(WORKERS.namespace, signal);
      },
    ],
    [
      'endpoints-controller',
      (client) => {
        const c = new EndpointsController({ client, informers: kcmInformers, clock, logger: logFor('endpoints-controller') });
        return () => c.run(WORKERS.endpoint, signal);
      },
    ],
    [
      'endpointslice-controller',
      (client) => {
        const c = new EndpointSliceController({ client, informers: kcmInformers, clock, logger: logFor('endpointslice-controller') });
        return () => c.run(WORKERS.endpointSlice, signal);
      },
    ],
    [
      'serviceaccount-controller',
      (client) => {
        const c = new ServiceAccountsController({ client, informers: kcmInformers, clock, logger: logFor('serviceaccount-controller') });
        return () => c.run(WORKERS.serviceAccount, signal);
      },
    ],
    [
      'root-ca-certificate-publisher-controller',
      (client) => {
        const c = new RootCACertPublisher({ client, informers: kcmInformers, clock, rootCA: opts.rootCA, logger: logFor('root-ca-cert-publisher') });
        return () => c.run(WORKERS.rootCACertPublisher, signal);
      },
    ],
    [
      'resourcequota-controller',
      (client) => {
        const c = new ResourceQuotaController({ client, informers: kcmInformers, clock, discoverResources, logger: logFor('resourcequota-controller') });
        return () => c.run(WORKERS.resourceQuota, signal);
      },
    ],
    [
      'persistentvolume-binder-controller',
      (client) => {
        const c = new PersistentVolumeController({
          client,
          informers: kcmInformers,
          clock,
          recorder: recorder(client, 'persistentvolume-controller'),
          logger: logFor('persistentvolume-binder-controller'),
        });
        return () => c.run(signal);
      },
    ],
    [
      'persistentvolumeclaim-protection-controller',
      (client) => {
        const c = new PVCProtectionController({ client, informers: kcmInformers, clock, logger: logFor('persistentvolumeclaim-protection-controller') });
        return () => c.run(WORKERS.pvcProtection, signal);
      },
    ],
    [
      'persistentvolume-protection-controller',
      (client) => {
        const c = new PVProtectionController({ client, informers: kcmInformers, clock, logger: logFor('persistentvolume-protection-controller') });
        return () => c.run(WORKERS.pvProtection, signal);
      },
    ],
    [
      'clusterrole-aggregation-controller',
      (client) => {
        const c = new ClusterRoleAggregationController({ client, informers: kcmInformers, clock, logger: logFor('clusterrole-aggregation-controller') });
        return () => c.run(CLUSTER_ROLE_AGGREGATION_WORKERS, signal);
      },
    ],
  ];


  // The simulated provisioner runs outside kube-controller-manager, as kind's local-path-provisioner
  // does: its own client, informers and event source.
  const provisionerClient = opts.clientFor('local-path-provisioner');
  const provisionerInformers = newSharedInformerFactory(provisionerClient, { clock, rand });
  const provisioner = new SimulatedProvisioner({
    client: provisionerClient,
    informers: provisionerInformers,
    clock,
    recorder: new EventRecorder(provisionerClient, { component: SIMULATED_PROVISIONER, clock, logger: logFor('local-path-provisioner') }),
    logger: logFor('local-path-provisioner'),
  });

  // The table and the names `--controllers` accepts are one list.
  if (controllers.map(([name]) => name).join() !== KNOWN_CONTROLLERS.join()) throw new Error('the controller table and KNOWN_CONTROLLERS disagree');
  const enabled = controllers.filter(([name]) => isControllerEnabled(name, opts.controllers ?? ['*']));
  // With --use-service-account-credentials each controller writes as its own service account; the
  // shared informers keep the controller manager's credentials, as upstream's do.
  const runners = enabled.map(([name, make]) => make(opts.clientForController?.(name) ?? kcmClient));
  const factories = [kcmInformers, provisionerInformers];
  for (const f of factories) f.start();
  return {
    factories,
    running: [
      ...runners.map((run) => run()),
      provisioner.run(WORKERS.provisioner, signal),
    ],
  };
}

/** Starts kube-scheduler on `client`. */
export function startScheduler(opts: ComponentContext & { client: Clientset }): RunningComponent {
  const { clock, rand, signal } = opts;
  const logFor = (component: string): Logger => opts.logger.child({ component });
  const schedClient = opts.client;
  const schedInformers = newSharedInformerFactory(schedClient, { clock, rand });
  const scheduler = new Scheduler({
    client: schedClient,
    informers: schedInformers,
    clock,
    rand,
    recorder: new EventRecorder(schedClient, { component: 'default-scheduler', clock, logger: logFor('default-scheduler'), writers: SCHEDULER_EVENT_WRITERS }),
  });

  schedInformers.start();
  return { factories: [schedInformers], running: [scheduler.run(signal)] };
}

/** Options of {@link startNodeSimulator}. */
export interface NodeSimulatorComponentOptions extends ComponentContext {
  client: Clientset;
  /** Pod start-up delay of the simulated kubelets, in ms, plus up to as much jitter (default 500). */
  podStartDelayMs?: number;
  /** Whether the simulated kubelets record per-pod events (default true). */
  kubeletPodEvents?: boolean;
}

/** Starts the simulated kubelets on `client`; nodes are added with {@link ensureNodes}. */
export function startNodeSimulator(opts: NodeSimulatorComponentOptions): RunningComponent & { nodes: NodeSimulator } {
  const { clock, rand, signal } = opts;
  const logFor = (component: string): Logger => opts.logger.child({ component });
  const kubeletClient = opts.client;
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

  kubeletInformers.start();
  return { factories: [kubeletInformers], running: [nodes.run(signal)], nodes };
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
export async function ensureNodes(client: Clientset, nodes: NodeSimulator, count: number, controlPlaneNode: boolean): Promise<void> {
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
export async function ensureDefaultStorageClass(client: Clientset): Promise<void> {
  const existing = await client.storage.storageClasses().list({ limit: 1 });
  if (existing.items.length > 0) return;
  try {
    await client.storage.storageClasses().create(structuredClone(DEFAULT_STORAGE_CLASS));
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
}
