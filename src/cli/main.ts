#!/usr/bin/env node
/**
 * `kubeplane` command line: `kubeplane up` runs the whole control plane in one process;
 * `kubeplane nodes add|remove|stop|start` adds, removes, stops or restarts simulated nodes of a running cluster;
 * `kubeplane load <kind>/<name> --cpu Q` sets the simulated load of a workload.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { createLogger } from './logger.js';
import { handleError, setFallbackErrorLogger } from '../util/runtime/index.js';
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import { startApiServer, startCluster, userKubeconfig, type ApiServerOptions, type HPAOptions, type NodeLifecycleOptions } from './cluster.js';
import { connect, runControllerManager, runNodes, runScheduler, type LeaderElectionFlags } from './processes.js';
import { KNOWN_CONTROLLERS, unknownControllerError } from './components.js';
import { addNode, newNodeObject, removeNode, setNodeStopped } from './nodes.js';
import { setLoad } from './load.js';
import { parseDuration } from '../machinery/duration/index.js';
import { holdProcessOpen } from '../util/clock/index.js';
import { KNOWN_FEATURES, defaultFeatureGate } from '../machinery/featuregate/index.js';
import { AUTHORIZATION_MODES, parseAuthorizationModes, type AuthorizationMode } from '../apiserver/authorization.js';

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

/** Parsed storage flags (commander camel-cases the flags). */
interface StorageFlagValues {
  dataDir: string;
  datastore: 'sqlite' | 'memory' | 'etcd';
  etcdServers?: string[];
  etcdPrefix: string;
  etcdCafile?: string;
  etcdCertfile?: string;
  etcdKeyfile?: string;
  encryptionProviderConfig?: string;
}

/** Parsed kube-apiserver flags. */
interface ApiServerFlagValues {
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  /** ms */
  requestTimeout: number;
  authorizationMode: AuthorizationMode[];
  tokenAuthFile?: string;
  anonymousAuth: boolean;
  auditPolicyFile?: string;
  auditLogPath?: string;
}

/** Parsed kube-controller-manager flags. */
interface ControllerManagerFlagValues {
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
  useServiceAccountCredentials: boolean;
}

/** Parsed `--leader-elect*` flags (durations in ms). */
interface LeaderElectionFlagValues {
  leaderElect: boolean;
  leaderElectLeaseDuration: number;
  leaderElectRenewDeadline: number;
  leaderElectRetryPeriod: number;
}

/** Parsed simulated-kubelet flags. */
interface KubeletFlagValues {
  podStartDelay?: number;
  kubeletPodEvents: boolean;
  controlPlaneNode?: boolean;
}

/** `kubeplane up`'s parsed options. */
interface UpOptions extends StorageFlagValues, ApiServerFlagValues, ControllerManagerFlagValues, KubeletFlagValues {
  nodes: number;
  port: number;
  host: string;
  logLevel: string;
}

/** `kubeplane apiserver`'s parsed options. */
interface ApiServerCommandOptions extends StorageFlagValues, ApiServerFlagValues {
  securePort: number;
  bindAddress: string;
  logLevel: string;
}

/** `kubeplane controller-manager`'s parsed options. */
interface ControllerManagerCommandOptions extends ControllerManagerFlagValues, LeaderElectionFlagValues {
  kubeconfig: string;
  controllers: string[];
  rootCaFile?: string;
  logLevel: string;
}

/** Where `kubeplane up` keeps its state, for the banner. */
function stateLocation(o: StorageFlagValues): string {
  switch (o.datastore) {
    case 'sqlite':
      return o.dataDir;
    case 'memory':
      return 'memory (lost on exit)';
    case 'etcd':
      return `etcd at ${(o.etcdServers ?? []).join(',')} under ${o.etcdPrefix}`;
  }
}


/** The storage flags of `up` and `apiserver`: the data directory, the datastore and etcd, encryption at rest. */
function withStorageFlags(cmd: Command): Command {
  return cmd
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
    .option('--encryption-provider-config <file>', 'EncryptionConfiguration (apiserver.config.k8s.io/v1, YAML or JSON): store the resources it names encrypted (aesgcm, aescbc, secretbox, identity)');
}

/** kube-apiserver's flags that `up` and `apiserver` share. */
function withApiServerFlags(cmd: Command): Command {
  return cmd
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
    .addOption(
      new Option('--authorization-mode <modes>', `ordered list of plug-ins to do authorization on secure port, comma separated (${AUTHORIZATION_MODES.join(', ')})`)
        .argParser((v: string) => {
          try {
            return parseAuthorizationModes(v);
          } catch (err) {
            throw new InvalidArgumentError((err as Error).message);
          }
        })
        .default(['RBAC'], 'RBAC'),
    )
    .option('--token-auth-file <file>', 'if set, the file that will be used to secure the secure port of the API server via token authentication (CSV: token,user,uid,"group1,group2")')
    .addOption(new Option('--anonymous-auth <bool>', 'enables anonymous requests to the secure port of the API server; they get the username system:anonymous and the group system:unauthenticated').argParser(boolArg).default(true, 'true'))
    .option('--audit-policy-file <file>', 'path to the file that defines the audit policy configuration (audit.k8s.io/v1 Policy)')
    .option('--audit-log-path <path>', 'if set, all requests coming to the apiserver will be logged to this file (JSON lines); \'-\' means standard out');
}

/** kube-controller-manager's flags that `up` and `controller-manager` share. */
function withControllerManagerFlags(cmd: Command): Command {
  return cmd
    .option('--use-service-account-credentials [bool]', 'if true, use individual service account credentials for each controller', boolArg, false)
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
    );
}

/** The `--leader-elect*` flags of kube-controller-manager and kube-scheduler, with upstream's defaults. */
function withLeaderElectionFlags(cmd: Command): Command {
  return cmd
    .option('--leader-elect <bool>', 'start a leader election client and gain leadership before executing the main loop', boolArg, true)
    .addOption(new Option('--leader-elect-lease-duration <duration>', 'the duration that non-leader candidates will wait after observing a leadership renewal until attempting to acquire leadership').argParser(durationArg).default(15_000, '15s'))
    .addOption(new Option('--leader-elect-renew-deadline <duration>', 'the interval between attempts by the acting master to renew a leadership slot before it stops leading').argParser(durationArg).default(10_000, '10s'))
    .addOption(new Option('--leader-elect-retry-period <duration>', 'the duration the clients should wait between attempting acquisition and renewal of a leadership').argParser(durationArg).default(2_000, '2s'));
}

/** `--log-level`, on every long-running command. */
function withLogLevel(cmd: Command): Command {
  return cmd.option('--log-level <level>', 'debug, info, warn or error', 'info');
}

/** The storage part of {@link ClusterOptions} from the parsed storage flags. */
function storageOptions(o: StorageFlagValues): Partial<Pick<ApiServerOptions, 'dataDir' | 'datastore' | 'etcd' | 'encryptionProviderConfig'>> {
  return {
    dataDir: o.dataDir,
    datastore: o.datastore,
    ...(o.datastore === 'etcd' ? { etcd: { servers: o.etcdServers ?? [], prefix: o.etcdPrefix, caFile: o.etcdCafile, certFile: o.etcdCertfile, keyFile: o.etcdKeyfile } } : {}),
    ...(o.encryptionProviderConfig === undefined ? {} : { encryptionProviderConfig: o.encryptionProviderConfig }),
  };
}

/** The API server part of {@link ClusterOptions} from the parsed kube-apiserver flags. */
function apiServerOptions(
  o: ApiServerFlagValues,
): Partial<Pick<ApiServerOptions, 'maxRequestsInFlight' | 'maxMutatingRequestsInFlight' | 'requestTimeoutMs' | 'authorizationModes' | 'tokenAuthFile' | 'anonymousAuth' | 'audit'>> {
  return {
    maxRequestsInFlight: o.maxRequestsInflight,
    maxMutatingRequestsInFlight: o.maxMutatingRequestsInflight,
    requestTimeoutMs: o.requestTimeout,
    authorizationModes: o.authorizationMode,
    anonymousAuth: o.anonymousAuth,
    ...(o.tokenAuthFile === undefined ? {} : { tokenAuthFile: o.tokenAuthFile }),
    // Upstream audits only with both: a policy and a backend (--audit-log-path).
    ...(o.auditPolicyFile !== undefined && o.auditLogPath !== undefined ? { audit: { policyFile: o.auditPolicyFile, logPath: o.auditLogPath } } : {}),
  };
}

/** The controller manager's settings from the parsed kube-controller-manager flags. */
function controllerManagerOptions(o: ControllerManagerFlagValues): { hpa: HPAOptions; nodeLifecycle: NodeLifecycleOptions; useServiceAccountCredentials: boolean } {
  return {
    useServiceAccountCredentials: o.useServiceAccountCredentials,
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
  };
}

/** The leader election settings from the parsed `--leader-elect*` flags. */
function leaderElectionOptions(o: LeaderElectionFlagValues): LeaderElectionFlags {
  return { leaderElect: o.leaderElect, leaseDurationMs: o.leaderElectLeaseDuration, renewDeadlineMs: o.leaderElectRenewDeadline, retryPeriodMs: o.leaderElectRetryPeriod };
}

/**
 * Runs a long-running command: failures anywhere are logged, never the end of the process; SIGINT
 * and SIGTERM stop it (a second signal exits at once). `run` gets the stop signal and resolves when it
 * has stopped: true exits 0, false exits 1 (a leader that lost its lease, as upstream's
 * components exit on "leaderelection lost").
 */
function runUntilStopped(logger: Logger, run: (signal: AbortSignal) => Promise<boolean | undefined>): void {
  setFallbackErrorLogger(logger);
  process.on('uncaughtException', (err) => handleError(err, { component: 'process', logger, msg: 'Uncaught exception; kubeplane keeps running' }));
  process.on('unhandledRejection', (err) => handleError(err, { component: 'process', logger, msg: 'Unhandled promise rejection; kubeplane keeps running' }));
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  const stop = (sig: string): void => {
    if (controller.signal.aborted) process.exit(1);
    logger.info({ signal: sig }, 'stopping');
    controller.abort();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  // Whoever read our output is gone (a closed pipe): stop, as a Go component dies of SIGPIPE, rather
  // than report the failed write, whose report fails too, and spin on it.
  const outputGone = (err: NodeJS.ErrnoException): void => {
    if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED') return;
    if (!controller.signal.aborted) controller.abort();
  };
  process.stdout.on('error', outputGone);
  process.stderr.on('error', outputGone);
  const release = holdProcessOpen();
  run(controller.signal).then(
    (ok) => {
      release();
      if (ok === false) logger.error('leaderelection lost');
      process.exit(ok === false ? 1 : 0);
    },
    (err: unknown) => {
      release();
      // The message, as upstream's commands print theirs; a stack is for bugs, not for a missing file.
      process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}

const program = new Command();
program.name('kubeplane').description('A Kubernetes workload control plane with simulated nodes.');

/** The options of the simulated kubelets, shared by `up` and `nodes run`. */
function withKubeletFlags(cmd: Command): Command {
  return cmd
    .option('--pod-start-delay <ms>', 'how long a simulated kubelet takes to start a pod, in ms', intArg(0))
    .option('--kubelet-pod-events <bool>', 'whether simulated kubelets record per-pod events (Pulling, Pulled, Created, Started, Killing, FailedMount…); false saves an Event write each in very large runs', boolArg, true)
    .option('--control-plane-node', 'also run a node "control-plane" labelled node-role.kubernetes.io/control-plane and tainted NoSchedule, as kind/kubeadm clusters have');
}

/** The simulated kubelets' options from the parsed kubelet flags. */
function kubeletOptions(o: KubeletFlagValues): { podStartDelayMs?: number; kubeletPodEvents: boolean; controlPlaneNode: boolean } {
  return { ...(o.podStartDelay === undefined ? {} : { podStartDelayMs: o.podStartDelay }), kubeletPodEvents: o.kubeletPodEvents, controlPlaneNode: o.controlPlaneNode === true };
}

const up = program
  .command('up')
  .description('start the API server, controllers, scheduler and simulated nodes')
  .option('--nodes <n>', 'simulated nodes', intArg(0), 3)
  .option('--port <port>', 'API server port (0 picks a free one)', intArg(0), 6443)
  .option('--host <host>', 'API server address', '127.0.0.1');
withLogLevel(withControllerManagerFlags(withApiServerFlags(withKubeletFlags(withStorageFlags(up))))).action(async (o: UpOptions) => {
  const logger = createLogger(o.logLevel);
  const cluster = await startCluster({
    nodes: o.nodes,
    port: o.port,
    host: o.host,
    ...storageOptions(o),
    ...kubeletOptions(o),
    ...apiServerOptions(o),
    ...controllerManagerOptions(o),
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
  runUntilStopped(logger, async (signal) => {
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    await cluster.stop();
    return true;
  });
});

const apiserver = program
  .command('apiserver')
  .description('run only the API server (kube-apiserver): controllers, scheduler and nodes connect with a kubeconfig; API servers given one etcd and one --data-dir serve one cluster')
  .option('--secure-port <port>', 'the port on which to serve HTTPS (0 picks a free one)', intArg(0), 6443)
  .option('--bind-address <address>', 'the IP address on which to listen for the --secure-port port', '127.0.0.1');
withLogLevel(withApiServerFlags(withStorageFlags(apiserver))).action(async (o: ApiServerCommandOptions) => {
  const logger = createLogger(o.logLevel);
  const served = await startApiServer({ port: o.securePort, host: o.bindAddress, ...storageOptions(o), ...apiServerOptions(o), logger });
  process.stdout.write(`kubeplane apiserver is ready: ${served.server}; kubeconfig ${served.kubeconfigPath}\n`);
  runUntilStopped(logger, async (signal) => {
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    await served.stop();
    return true;
  });
});

const controllerManager = program
  .command('controller-manager')
  .description('run kube-controller-manager\'s controllers against the API server of a kubeconfig, leader-elected through the kube-system/kube-controller-manager Lease')
  .requiredOption('--kubeconfig <path>', 'kubeconfig of the API server to talk to')
  .option('--root-ca-file <file>', 'root certificate authority published as kube-root-ca.crt in every namespace (default: the kubeconfig\'s CA)')
  .option(
    '--controllers <names>',
    'a list of controllers to enable: \'*\' enables all on-by-default controllers, \'foo\' enables the controller named foo, \'-foo\' disables it (known: ' + KNOWN_CONTROLLERS.join(', ') + ')',
    (v: string) => {
      const list = v.split(',').map((c) => c.trim()).filter((c) => c !== '');
      const err = unknownControllerError(list);
      if (err !== undefined) throw new InvalidArgumentError(err);
      return list;
    },
    ['*'],
  );
withLogLevel(withLeaderElectionFlags(withControllerManagerFlags(controllerManager))).action((o: ControllerManagerCommandOptions) => {
  const logger = createLogger(o.logLevel);
  runUntilStopped(logger, (signal) =>
    runControllerManager(
      { kubeconfig: o.kubeconfig, logger, controllers: o.controllers, ...(o.rootCaFile === undefined ? {} : { rootCAFile: o.rootCaFile }), ...controllerManagerOptions(o), ...leaderElectionOptions(o) },
      signal,
    ),
  );
});

const scheduler = program
  .command('scheduler')
  .description('run kube-scheduler against the API server of a kubeconfig, leader-elected through the kube-system/kube-scheduler Lease')
  .requiredOption('--kubeconfig <path>', 'kubeconfig of the API server to talk to');
withLogLevel(withLeaderElectionFlags(scheduler)).action((o: { kubeconfig: string; logLevel: string } & LeaderElectionFlagValues) => {
  const logger = createLogger(o.logLevel);
  runUntilStopped(logger, (signal) => runScheduler({ kubeconfig: o.kubeconfig, logger, ...leaderElectionOptions(o) }, signal));
});

const collect = (value: string, previous: string[]): string[] => [...previous, value];
program
  .command('kubeconfig')
  .description('print a kubeconfig for another user of a kubeplane cluster: a client certificate signed by the cluster CA, with the user as CN and each group as O (what kubeadm kubeconfig user does)')
  .requiredOption('--user <name>', 'the user name (the certificate\'s CN)')
  .option('--group <group>', 'a group of the user (the certificate\'s O; repeatable)', collect, [])
  .option('--data-dir <dir>', 'the cluster\'s data directory, with its CA and kubeconfig', '.kubeplane')
  .action(async (o: { user: string; group: string[]; dataDir: string }) => {
    process.stdout.write(await userKubeconfig(o.dataDir, o.user, o.group));
  });

const nodesCommand = program.command('nodes').description('run simulated nodes against any cluster, or add, remove, stop or start those of a running kubeplane cluster');
const nodesRun = nodesCommand
  .command('run')
  .description('run the simulated kubelets of --count nodes (node-1 … node-N) against the API server of a kubeconfig')
  .requiredOption('--kubeconfig <path>', 'kubeconfig of the API server to talk to')
  .option('--count <n>', 'simulated nodes', intArg(0), 3);
withLogLevel(withKubeletFlags(nodesRun)).action((o: { kubeconfig: string; count: number; logLevel: string } & KubeletFlagValues) => {
  const logger = createLogger(o.logLevel);
  runUntilStopped(logger, async (signal) => {
    await runNodes({ kubeconfig: o.kubeconfig, count: o.count, logger, ...kubeletOptions(o) }, signal, () => process.stdout.write(`kubeplane nodes are ready: ${o.count} simulated nodes\n`));
    return true;
  });
});
nodesCommand
  .command('add <name>')
  .description('add a simulated node (it turns Ready within a second)')
  .option('--kubeconfig <path>', 'kubeconfig of the cluster (default: $KUBECONFIG, else .kubeplane/kubeconfig)')
  .option('--label <key=value>', 'node label (repeatable)', collect, [])
  .option('--taint <key[=value]:Effect>', 'node taint (repeatable)', collect, [])
  .action(async (name: string, o: { kubeconfig?: string; label: string[]; taint: string[] }) => {
    const conn = await connect(kubeconfigPath(o.kubeconfig));
    try {
      await addNode(conn.clientFor('kubeplane-nodes'), newNodeObject(name, o.label, o.taint));
    } finally {
      conn.transport.close();
    }
    process.stdout.write(`node/${name} created\n`);
  });
nodesCommand
  .command('remove <name>')
  .description('remove a node (as when its machine goes away)')
  .option('--kubeconfig <path>', 'kubeconfig of the cluster (default: $KUBECONFIG, else .kubeplane/kubeconfig)')
  .action(async (name: string, o: { kubeconfig?: string }) => {
    const conn = await connect(kubeconfigPath(o.kubeconfig));
    try {
      await removeNode(conn.clientFor('kubeplane-nodes'), name);
    } finally {
      conn.transport.close();
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
      const conn = await connect(kubeconfigPath(o.kubeconfig));
      try {
        await setNodeStopped(conn.clientFor('kubeplane-nodes'), name, stopped);
      } finally {
        conn.transport.close();
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
    const conn = await connect(kubeconfigPath(o.kubeconfig));
    const client = conn.clientFor('kubeplane-load');
    const namespace = conn.namespace;
    const close = (): void => conn.transport.close();
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
