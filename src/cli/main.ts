#!/usr/bin/env node
/**
 * `kubeplane` command line: `kubeplane up` runs the whole control plane in one process;
 * `kubeplane nodes add|remove|stop|start` adds, removes, stops or restarts simulated nodes of a running cluster;
 * `kubeplane load <kind>/<name> --cpu Q` sets the simulated load of a workload.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { createLogger } from './logger.js';
import { handleError, setFallbackErrorLogger } from '../util/runtime/index.js';
import { startCluster } from './cluster.js';
import { addNode, clientFromKubeconfig, newNodeObject, removeNode, setNodeStopped } from './nodes.js';
import { setLoad } from './load.js';
import { parseDuration } from '../machinery/duration/index.js';
import { KNOWN_FEATURES, defaultFeatureGate } from '../machinery/featuregate/index.js';

function intArg(min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`must be an integer >= ${min}`);
    return n;
  };
}

/** A Go duration (`60s`, `1m30s`) in ms, as upstream's duration flags take; must be positive. */
function durationArg(value: string): number {
  let ms: number;
  try {
    ms = parseDuration(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
  if (ms <= 0) throw new InvalidArgumentError('must be a positive duration, e.g. 60s');
  return ms;
}

/** A Go duration in ms that may be zero (`0s`, `30s`), as the HPA controller's period flags take. */
function nonNegativeDurationArg(value: string): number {
  let ms: number;
  try {
    ms = parseDuration(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
  if (ms < 0) throw new InvalidArgumentError('must not be negative, e.g. 30s');
  return ms;
}

/** A non-negative float (the HPA tolerance). */
function ratioArg(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError('must be a number >= 0, e.g. 0.1');
  return n;
}

/** A boolean flag value as Go's strconv.ParseBool reads it (`true`, `false`, `1`, `0`, `t`, `F`…). */
function boolArg(value: string): boolean {
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(value)) return false;
  throw new InvalidArgumentError('must be true or false');
}

/** `kubeplane up`'s parsed options (commander camel-cases the flags). */
interface UpOptions {
  nodes: number;
  port: number;
  host: string;
  dataDir: string;
  datastore: 'sqlite' | 'memory' | 'etcd';
  etcdServers?: string[];
  etcdPrefix: string;
  etcdCafile?: string;
  etcdCertfile?: string;
  etcdKeyfile?: string;
  podStartDelay?: number;
  kubeletPodEvents: boolean;
  controlPlaneNode?: boolean;
  logLevel: string;
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  /** ms */
  requestTimeout: number;
  encryptionProviderConfig?: string;
  /** ms */
  horizontalPodAutoscalerSyncPeriod: number;
  /** ms */
  horizontalPodAutoscalerDownscaleStabilization: number;
  horizontalPodAutoscalerTolerance: number;
  /** ms */
  horizontalPodAutoscalerCpuInitializationPeriod: number;
  /** ms */
  horizontalPodAutoscalerInitialReadinessDelay: number;
  /** ms */
  nodeMonitorPeriod: number;
  /** ms */
  nodeMonitorGracePeriod: number;
  nodeEvictionRate: number;
  secondaryNodeEvictionRate: number;
}

/** Where `kubeplane up` keeps its state, for the banner. */
function stateLocation(o: UpOptions): string {
  switch (o.datastore) {
    case 'sqlite':
      return o.dataDir;
    case 'memory':
      return 'memory (lost on exit)';
    case 'etcd':
      return `etcd at ${(o.etcdServers ?? []).join(',')} under ${o.etcdPrefix}`;
  }
}

const program = new Command();
program.name('kubeplane').description('A Kubernetes workload control plane with simulated nodes.');

program
  .command('up')
  .description('start the API server, controllers, scheduler and simulated nodes')
  .option('--nodes <n>', 'simulated nodes', intArg(0), 3)
  .option('--port <port>', 'API server port (0 picks a free one)', intArg(0), 6443)
  .option('--host <host>', 'API server address', '127.0.0.1')
  .option('--data-dir <dir>', 'where the database, token and kubeconfig live', '.kubeplane')
  .option('--datastore <kind>', 'sqlite (persistent, in --data-dir), memory, or etcd (--etcd-servers)', (v: string) => {
    if (v !== 'sqlite' && v !== 'memory' && v !== 'etcd') throw new InvalidArgumentError('must be sqlite, memory or etcd');
    return v;
  }, 'sqlite')
  .option('--etcd-servers <urls>', 'list of etcd servers to connect with (scheme://ip:port), comma separated', (v: string) => v.split(',').map((u) => u.trim()).filter((u) => u !== ''))
  .option('--etcd-prefix <prefix>', 'the prefix to prepend to all resource paths in etcd', '/registry')
  .option('--etcd-cafile <file>', 'SSL Certificate Authority file used to secure etcd communication')
  .option('--etcd-certfile <file>', 'SSL certification file used to secure etcd communication')
  .option('--etcd-keyfile <file>', 'SSL key file used to secure etcd communication')
  .option('--pod-start-delay <ms>', 'how long a simulated kubelet takes to start a pod, in ms', intArg(0))
  .option('--kubelet-pod-events <bool>', 'whether simulated kubelets record per-pod events (Pulling, Pulled, Created, Started, Killing, FailedMount…); false saves an Event write each in very large runs', boolArg, true)
  .option('--control-plane-node', 'also run a node "control-plane" labelled node-role.kubernetes.io/control-plane and tainted NoSchedule, as kind/kubeadm clusters have')
  .option('--encryption-provider-config <file>', 'EncryptionConfiguration (apiserver.config.k8s.io/v1, YAML or JSON): store the resources it names encrypted (aesgcm, aescbc, secretbox, identity)')
  .option('--log-level <level>', 'debug, info, warn or error', 'info')
  .option('--feature-gates <gates>', 'alpha/beta features to switch, as kube-apiserver\'s: Name=true|false,... (known: ' + Object.keys(KNOWN_FEATURES).join(', ') + ')', (v: string) => {
    try {
      defaultFeatureGate.set(v);
    } catch (err) {
      throw new InvalidArgumentError((err as Error).message);
    }
    return v;
  })
  .option('--max-requests-inflight <n>', 'read-only requests (get, list) served at once before 429 TooManyRequests; 0 = no limit', intArg(0), 400)
  .option('--max-mutating-requests-inflight <n>', 'mutating requests served at once before 429 TooManyRequests; 0 = no limit', intArg(0), 200)
  .addOption(
    new Option('--request-timeout <duration>', 'time a non-long-running request may take before 504 Timeout, e.g. 60s or 1m30s').argParser(durationArg).default(60_000, '1m0s'),
  )
  // kube-controller-manager's HPA flags, same names and defaults. A short downscale stabilization is
  // how tests see a scale-down without waiting five minutes.
  .addOption(
    new Option('--horizontal-pod-autoscaler-sync-period <duration>', 'the period for syncing the number of pods in horizontal pod autoscaler').argParser(durationArg).default(15_000, '15s'),
  )
  .addOption(
    new Option('--horizontal-pod-autoscaler-downscale-stabilization <duration>', 'the period for which autoscaler will look backwards and not scale down below any recommendation it made during that period')
      .argParser(nonNegativeDurationArg)
      .default(300_000, '5m0s'),
  )
  .addOption(
    new Option('--horizontal-pod-autoscaler-tolerance <ratio>', 'the minimum change (from 1.0) in the desired-to-actual metrics ratio for the horizontal pod autoscaler to consider scaling').argParser(ratioArg).default(0.1, '0.1'),
  )
  .addOption(
    new Option('--horizontal-pod-autoscaler-cpu-initialization-period <duration>', 'the period after pod start when CPU samples might be skipped')
      .argParser(nonNegativeDurationArg)
      .default(300_000, '5m0s'),
  )
  .addOption(
    new Option('--horizontal-pod-autoscaler-initial-readiness-delay <duration>', 'the period after pod start during which readiness changes will be treated as initial readiness')
      .argParser(nonNegativeDurationArg)
      .default(30_000, '30s'),
  )
  // kube-controller-manager's node lifecycle flags, same names and defaults (v1.33). A short grace
  // period lets a demo (or the e2e test) see a stopped node go NotReady in seconds.
  .addOption(new Option('--node-monitor-period <duration>', 'the period for syncing NodeStatus in cloud-node-lifecycle-controller').argParser(durationArg).default(5_000, '5s'))
  .addOption(
    new Option('--node-monitor-grace-period <duration>', 'amount of time which we allow running Node to be unresponsive before marking it unhealthy (keep it above the simulated kubelet\'s 10 s lease renewal)')
      .argParser(durationArg)
      .default(50_000, '50s'),
  )
  .addOption(new Option('--node-eviction-rate <rate>', 'number of nodes per second on which pods are deleted in case of node failure when a zone is healthy').argParser(ratioArg).default(0.1, '0.1'))
  .addOption(
    new Option('--secondary-node-eviction-rate <rate>', 'number of nodes per second on which pods are deleted in case of node failure when a zone is unhealthy')
      .argParser(ratioArg)
      .default(0.01, '0.01'),
  )
  .action(async (o: UpOptions) => {
    const logger = createLogger(o.logLevel);
    const cluster = await startCluster({
      nodes: o.nodes,
      port: o.port,
      host: o.host,
      dataDir: o.dataDir,
      datastore: o.datastore,
      ...(o.datastore === 'etcd'
        ? { etcd: { servers: o.etcdServers ?? [], prefix: o.etcdPrefix, caFile: o.etcdCafile, certFile: o.etcdCertfile, keyFile: o.etcdKeyfile } }
        : {}),
      controlPlaneNode: o.controlPlaneNode === true,
      ...(o.podStartDelay === undefined ? {} : { podStartDelayMs: o.podStartDelay }),
      kubeletPodEvents: o.kubeletPodEvents,
      ...(o.encryptionProviderConfig === undefined ? {} : { encryptionProviderConfig: o.encryptionProviderConfig }),
      maxRequestsInFlight: o.maxRequestsInflight,
      maxMutatingRequestsInFlight: o.maxMutatingRequestsInflight,
      requestTimeoutMs: o.requestTimeout,
      hpa: {
        syncPeriodMs: o.horizontalPodAutoscalerSyncPeriod,
        downscaleStabilizationMs: o.horizontalPodAutoscalerDownscaleStabilization,
        tolerance: o.horizontalPodAutoscalerTolerance,
        cpuInitializationPeriodMs: o.horizontalPodAutoscalerCpuInitializationPeriod,
        initialReadinessDelayMs: o.horizontalPodAutoscalerInitialReadinessDelay,
      },
      nodeLifecycle: {
        nodeMonitorPeriodMs: o.nodeMonitorPeriod,
        nodeMonitorGracePeriodMs: o.nodeMonitorGracePeriod,
        evictionLimiterQPS: o.nodeEvictionRate,
        secondaryEvictionLimiterQPS: o.secondaryNodeEvictionRate,
      },
      logger,
    });
    process.stdout.write(
      [
        `kubeplane is ready: API server at ${cluster.server}, ${o.nodes} simulated nodes.`,
        '',
        'Use it with kubectl:',
        `  export KUBECONFIG=${cluster.kubeconfigPath}`,
        '  kubectl get nodes',
        '',
        'Press Ctrl-C to stop; state is kept in ' + stateLocation(o) + '.',
        '',
      ].join('\n'),
    );
    // The last line of defence: a bug anywhere is logged and counted, never the end of the process.
    setFallbackErrorLogger(logger);
    process.on('uncaughtException', (err) => handleError(err, { component: 'process', logger, msg: 'Uncaught exception; kubeplane keeps running' }));
    process.on('unhandledRejection', (err) => handleError(err, { component: 'process', logger, msg: 'Unhandled promise rejection; kubeplane keeps running' }));
    let stopping = false;
    const stop = (sig: string): void => {
      if (stopping) process.exit(1);
      stopping = true;
      logger.info({ signal: sig }, 'stopping');
      cluster.stop().then(
        () => process.exit(0),
        (err: unknown) => {
          logger.error({ err }, 'error while stopping');
          process.exit(1);
        },
      );
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
  });

const collect = (value: string, previous: string[]): string[] => [...previous, value];
const nodesCommand = program.command('nodes').description('add, remove, stop or start simulated nodes of a running kubeplane cluster');
nodesCommand
  .command('add <name>')
  .description('add a simulated node (it turns Ready within a second)')
  .option('--kubeconfig <path>', 'kubeconfig of the cluster (default: $KUBECONFIG, else .kubeplane/kubeconfig)')
  .option('--label <key=value>', 'node label (repeatable)', collect, [])
  .option('--taint <key[=value]:Effect>', 'node taint (repeatable)', collect, [])
  .action(async (name: string, o: { kubeconfig?: string; label: string[]; taint: string[] }) => {
    const { client, close } = clientFromKubeconfig(kubeconfigPath(o.kubeconfig));
    try {
      await addNode(client, newNodeObject(name, o.label, o.taint));
    } finally {
      close();
    }
    process.stdout.write(`node/${name} created\n`);
  });
nodesCommand
  .command('remove <name>')
  .description('remove a node (as when its machine goes away)')
  .option('--kubeconfig <path>', 'kubeconfig of the cluster (default: $KUBECONFIG, else .kubeplane/kubeconfig)')
  .action(async (name: string, o: { kubeconfig?: string }) => {
    const { client, close } = clientFromKubeconfig(kubeconfigPath(o.kubeconfig));
    try {
      await removeNode(client, name);
    } finally {
      close();
    }
    process.stdout.write(`node/${name} removed\n`);
  });
for (const [verb, stopped, what] of [
  ['stop', true, 'stop a node\'s simulated kubelet (no heartbeats: after --node-monitor-grace-period it turns NotReady and is tainted)'],
  ['start', false, 'start a stopped node\'s simulated kubelet again (Ready; the node lifecycle controller removes the taints)'],
] as const) {
  nodesCommand
    .command(`${verb} <name>`)
    .description(what)
    .option('--kubeconfig <path>', 'kubeconfig of the cluster (default: $KUBECONFIG, else .kubeplane/kubeconfig)')
    .action(async (name: string, o: { kubeconfig?: string }) => {
      const { client, close } = clientFromKubeconfig(kubeconfigPath(o.kubeconfig));
      try {
        await setNodeStopped(client, name, stopped);
      } finally {
        close();
      }
      process.stdout.write(`node/${name} ${stopped ? 'stopped' : 'started'}\n`);
    });
}

program
  .command('load <workload>')
  .description(
    'set the total simulated load of a workload (<kind>/<name>: deploy/web, sts/db, ds/agent, rs/x, rc/x, job/x), spread evenly over its Ready pods; kubectl top and the HPA see it',
  )
  .option('--cpu <quantity>', 'total CPU load, e.g. 1 or 500m (0 removes it)')
  .option('--memory <quantity>', 'total memory load, e.g. 512Mi (0 removes it)')
  .option('--clear', 'remove the CPU and memory load')
  .option('-n, --namespace <ns>', 'namespace of the workload (default: the kubeconfig context\'s, else default)')
  .option('--kubeconfig <path>', 'kubeconfig of the cluster (default: $KUBECONFIG, else .kubeplane/kubeconfig)')
  .action(async (workload: string, o: { cpu?: string; memory?: string; clear?: boolean; namespace?: string; kubeconfig?: string }) => {
    const { client, namespace, close } = clientFromKubeconfig(kubeconfigPath(o.kubeconfig), 'kubeplane-load');
    let line: string;
    try {
      line = await setLoad(client, o.namespace || namespace || 'default', workload, {
        ...(o.cpu === undefined ? {} : { cpu: o.cpu }),
        ...(o.memory === undefined ? {} : { memory: o.memory }),
        clear: o.clear === true,
      });
    } finally {
      close();
    }
    process.stdout.write(`${line}\n`);
  });

/** `--kubeconfig`, else the first path of $KUBECONFIG, else the default data directory's kubeconfig. */
function kubeconfigPath(flag: string | undefined): string {
  return flag || process.env.KUBECONFIG?.split(':')[0] || '.kubeplane/kubeconfig';
}

program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`kubeplane: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
