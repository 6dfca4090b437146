/**
 * The components as processes of their own, as upstream splits them: `kubeplane controller-manager`,
 * `kubeplane scheduler` and `kubeplane nodes run` connect to any Kubernetes API server through a
 * kubeconfig (client-node's loader: certificates, tokens, exec plugins, contexts) over HTTPS. The
 * controller manager and the scheduler run only while they hold their leader Lease in `kube-system`
 * (`--leader-elect`, on by default as upstream's): losing it aborts every loop at once and ends the
 * run, and the process exits, as kube-controller-manager exits on "leaderelection lost"
 * (k8s.io/kubernetes cmd/kube-controller-manager/app/controllermanager.go, cmd/kube-scheduler/app/server.go).
 */
import { setMaxListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { newClientset, type Clientset } from '../client/index.js';
import { httpDiscovery } from '../client/discovery.js';
import { HttpTransport, type HttpTransportOptions } from '../client/http/index.js';
import { loadKubeconfig } from '../client/kubeconfig.js';
import { EventRecorder } from '../client/record/index.js';
import { DEFAULT_LEASE_NAMESPACE, LeaderElector, newIdentity } from '../controller/leaderelection/index.js';
import { realClock, type Clock } from '../util/clock/index.js';
import { realRand, type Rand } from '../util/random/index.js';
import { newEphemeralCACert } from './certs.js';
import { controllerTokenSource, serviceAccountOf } from './controller-credentials.js';
import {
  ensureNodes,
  startControllerManager,
  startNodeSimulator,
  startScheduler,
  type HPAOptions,
  type NodeLifecycleOptions,
  type RunningComponent,
} from './components.js';

/** kube-controller-manager's and kube-scheduler's `--leader-elect*` flags, durations in ms. */
export interface LeaderElectionFlags {
  /** `--leader-elect` (default true). */
  leaderElect?: boolean;
  /** `--leader-elect-lease-duration` (15 s). */
  leaseDurationMs?: number;
  /** `--leader-elect-renew-deadline` (10 s). */
  renewDeadlineMs?: number;
  /** `--leader-elect-retry-period` (2 s). */
  retryPeriodMs?: number;
}

/** What every component process takes. */
export interface ProcessOptions {
  /** `--kubeconfig`: the API server to talk to, and as whom. */
  kubeconfig: string;
  clock?: Clock;
  rand?: Rand;
  logger: Logger;
}

/** A connection to the API server of a kubeconfig: clientsets by User-Agent over one connection pool. */
export interface Connection {
  clientFor(userAgent: string): Clientset;
  transport: HttpTransport;
  /** The kubeconfig's connection settings. */
  settings: HttpTransportOptions;
  /** PEM of the cluster CA the kubeconfig trusts, if it names one. */
  caData?: string;
  /** The current context's namespace, when it names one. */
  namespace?: string;
}

/**
 * Connects to the cluster of `kubeconfig` (its current context): every component process and the
 * `nodes add|remove|stop|start` and `load` commands. Close `transport` when done.
 * @throws Error when the kubeconfig cannot be loaded (see `loadKubeconfig`)
 */
export async function connect(kubeconfig: string, clock: Clock = realClock): Promise<Connection> {
  const conn = await loadKubeconfig(kubeconfig, undefined, clock);
  const transport = new HttpTransport(conn);
  return {
    clientFor: (userAgent) => newClientset(transport, { userAgent }),
    transport,
    settings: conn,
    ...(conn.caData ? { caData: conn.caData } : {}),
    ...(conn.namespace ? { namespace: conn.namespace } : {}),
  };
}

/**
 * Runs `start` while this process leads `name` (or at once with `leaderElect: false`) until `signal`
 * aborts; resolves true when it stopped on `signal`, false when leadership was lost. The component's
 * factories are shut down when its signal aborts.
 */
async function runLeading(
  name: string,
  conn: Connection,
  flags: LeaderElectionFlags,
  ctx: { clock: Clock; rand: Rand; logger: Logger },
  signal: AbortSignal,
  start: (signal: AbortSignal) => RunningComponent,
): Promise<boolean> {
  const runUntil = async (lead: AbortSignal): Promise<void> => {
    // Every informer and loop of the component listens for it.
    setMaxListeners(0, lead);
    const component = start(lead);
    lead.addEventListener('abort', () => component.factories.forEach((f) => f.shutdown()), { once: true });
    await Promise.all(component.factories.map((f) => f.waitForCacheSync(lead)));
    ctx.logger.info({ component: name }, 'caches synced; running');
    await Promise.allSettled(component.running);
  };
  if (flags.leaderElect === false) {
    await runUntil(signal);
    return true;
  }
  const client = conn.clientFor(`${name}/leader-election`);
  const identity = newIdentity(hostname(), ctx.rand);
  const elector = new LeaderElector({
    client,
    namespace: DEFAULT_LEASE_NAMESPACE,
    name,
    identity,
    clock: ctx.clock,
    rand: ctx.rand,
    ...(flags.leaseDurationMs === undefined ? {} : { leaseDurationMs: flags.leaseDurationMs }),
    ...(flags.renewDeadlineMs === undefined ? {} : { renewDeadlineMs: flags.renewDeadlineMs }),
    ...(flags.retryPeriodMs === undefined ? {} : { retryPeriodMs: flags.retryPeriodMs }),
    onStartedLeading: (lead) => {
      ctx.logger.info({ component: name, identity }, 'became leader');
      return runUntil(lead);
    },
    onStoppedLeading: () => ctx.logger.info({ component: name, identity }, 'stopped leading'),
    onNewLeader: (leader) => ctx.logger.info({ component: name, leader }, 'new leader'),
    eventRecorder: new EventRecorder(client, { component: name, clock: ctx.clock, logger: ctx.logger }),
    logger: ctx.logger.child({ component: `${name}/leader-election` }),
  });
  await elector.run(signal);
  return signal.aborted;
}

/** Options of {@link runControllerManager}. */
export interface ControllerManagerProcessOptions extends ProcessOptions, LeaderElectionFlags {
  /** `--root-ca-file`: the CA bundle published as `kube-root-ca.crt` (default: the kubeconfig's CA). */
  rootCAFile?: string;
  /** `--controllers` (default `['*']`), see `isControllerEnabled`. */
  controllers?: readonly string[];
  hpa?: HPAOptions;
  nodeLifecycle?: NodeLifecycleOptions;
  /**
   * `--use-service-account-credentials`: each controller authenticates with a token of its own service
   * account in kube-system (./controller-credentials.ts), not with the kubeconfig's credentials.
   */
  useServiceAccountCredentials?: boolean;
}

/**
 * The clients of `--use-service-account-credentials` over HTTP: per controller, a transport to the
 * same server and CA that sends its service account's token (renewed before it expires) and no
 * client certificate, which would authenticate first.
 */
function serviceAccountClients(conn: Connection, clock: Clock): (controller: string) => Clientset {
  const server = conn.settings;
  const tokens = controllerTokenSource(conn.clientFor('kube-controller-manager'), clock);
  const transports = new Map<string, HttpTransport>();
  return (controller) => {
    const sa = serviceAccountOf(controller);
    let transport = transports.get(sa);
    if (!transport) {
      transport = new HttpTransport({
        server: server.server,
        ...(server.caData ? { caData: server.caData } : {}),
        ...(server.insecureSkipTLSVerify ? { insecureSkipTLSVerify: true } : {}),
        headers: async () => ({ authorization: `Bearer ${await tokens(sa)}` }),
      });
      transports.set(sa, transport);
    }
    return newClientset(transport, { userAgent: 'kube-controller-manager' });
  };
}

/**
 * `kubeplane controller-manager`: kube-controller-manager's controllers (and the simulated volume
 * provisioner) against the API server of the kubeconfig. Resolves true when stopped by `signal`,
 * false when its leader Lease was lost (the caller exits non-zero).
 * @throws Error when the kubeconfig cannot be loaded or discovery fails at start
 */
export async function runControllerManager(opts: ControllerManagerProcessOptions, signal: AbortSignal): Promise<boolean> {
  const clock = opts.clock ?? realClock;
  const rand = opts.rand ?? realRand;
  const conn = await connect(opts.kubeconfig, clock);
  try {
    const discovery = httpDiscovery(conn.transport);
    await discovery.preferredResources();
    const rootCA = opts.rootCAFile !== undefined ? readFileSync(opts.rootCAFile, 'utf8') : (conn.caData ?? (await newEphemeralCACert(clock)));
    return await runLeading('kube-controller-manager', conn, opts, { clock, rand, logger: opts.logger }, signal, (lead) =>
      startControllerManager({
        clock,
        rand,
        logger: opts.logger,
        signal: lead,
        clientFor: (userAgent) => conn.clientFor(userAgent),
        ...(opts.useServiceAccountCredentials ? { clientForController: serviceAccountClients(conn, clock) } : {}),
        discovery,
        rootCA,
        ...(opts.controllers ? { controllers: opts.controllers } : {}),
        ...(opts.hpa ? { hpa: opts.hpa } : {}),
        ...(opts.nodeLifecycle ? { nodeLifecycle: opts.nodeLifecycle } : {}),
      }),
    );
  } finally {
    conn.transport.close();
  }
}

/**
 * `kubeplane scheduler`: kube-scheduler against the API server of the kubeconfig. Resolves as
 * {@link runControllerManager}.
 * @throws Error when the kubeconfig cannot be loaded
 */
export async function runScheduler(opts: ProcessOptions & LeaderElectionFlags, signal: AbortSignal): Promise<boolean> {
  const clock = opts.clock ?? realClock;
  const rand = opts.rand ?? realRand;
  const conn = await connect(opts.kubeconfig, clock);
  try {
    return await runLeading('kube-scheduler', conn, opts, { clock, rand, logger: opts.logger }, signal, (lead) =>
      startScheduler({ clock, rand, logger: opts.logger, signal: lead, client: conn.clientFor('kube-scheduler') }),
    );
  } finally {
    conn.transport.close();
  }
}

/** Options of {@link runNodes}. */
export interface NodesProcessOptions extends ProcessOptions {
  /** Simulated nodes to have: `node-1` … `node-<count>` (existing ones count). */
  count: number;
  podStartDelayMs?: number;
  kubeletPodEvents?: boolean;
  controlPlaneNode?: boolean;
}

/**
 * `kubeplane nodes run`: the simulated kubelets of `count` nodes against the API server of the
 * kubeconfig, until `signal` aborts. `onReady` is called once the nodes exist.
 * @throws Error when the kubeconfig cannot be loaded or the nodes cannot be created
 */
export async function runNodes(opts: NodesProcessOptions, signal: AbortSignal, onReady?: () => void): Promise<void> {
  const clock = opts.clock ?? realClock;
  const rand = opts.rand ?? realRand;
  const conn = await connect(opts.kubeconfig, clock);
  try {
    const kubelets = startNodeSimulator({
      clock,
      rand,
      logger: opts.logger,
      signal,
      client: conn.clientFor('kubelet'),
      ...(opts.podStartDelayMs === undefined ? {} : { podStartDelayMs: opts.podStartDelayMs }),
      ...(opts.kubeletPodEvents === undefined ? {} : { kubeletPodEvents: opts.kubeletPodEvents }),
    });
    signal.addEventListener('abort', () => kubelets.factories.forEach((f) => f.shutdown()), { once: true });
    await Promise.all(kubelets.factories.map((f) => f.waitForCacheSync(signal)));
    await ensureNodes(conn.clientFor('kubeplane'), kubelets.nodes, opts.count, opts.controlPlaneNode ?? false);
    onReady?.();
    await Promise.allSettled(kubelets.running);
  } finally {
    conn.transport.close();
  }
}
