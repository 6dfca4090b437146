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
import { staticDiscovery } from '../client/discovery.js';
import {
  ensureDefaultStorageClass,
  ensureNodes,
  startControllerManager,
  startNodeSimulator,
  startScheduler,
  type HPAOptions,
  type NodeLifecycleOptions,
} from './components.js';
import type { NodeSimulator } from '../nodes/index.js';

export type { HPAOptions, NodeLifecycleOptions } from './components.js';
import type { BackendOptions } from '../storage/index.js';
import type { Backend } from '../storage/interface.js';
import { TransformingBackend } from '../storage/value/index.js';
import { loadEncryptionConfig } from '../apiserver/encryption/index.js';
import { ApiServer, serializedJSON } from '../apiserver/index.js';
import { LeaseEndpointReconciler } from '../apiserver/endpoint-reconciler.js';
import { servedStrategies } from '../apiserver/registry/resources/index.js';
import { startHttpServer } from '../apiserver/http/index.js';
import { staticTokenAuthenticator, unionAuthenticator, type TokenAuthenticator } from '../apiserver/authn/index.js';
import { tokenFileAuthenticator } from '../apiserver/authn/tokenfile.js';
import type { AuthorizationMode } from '../apiserver/authorization.js';
import { newAuditorFromOptions } from '../apiserver/audit/index.js';
import { newClientset, type Clientset } from '../client/index.js';
import { kubeconfigText, loadKubeconfig, writeKubeconfig } from '../client/kubeconfig.js';
import { realClock, type Clock } from '../util/clock/index.js';
import { realRand, type Rand } from '../util/random/index.js';
import { CONTROLLER_SERVICE_ACCOUNTS, controllerUser, ensureControllerServiceAccount, serviceAccountOf } from './controller-credentials.js';
import { issueClientCertificate, loadOrCreateServiceAccountKey, loadOrCreateServingCerts, newEphemeralCACert } from './certs.js';
import { ensurePrivateDir, makePrivate, writePrivateFile } from './private-files.js';

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
  /** `--authorization-mode` (default `['RBAC']`). */
  authorizationModes?: readonly AuthorizationMode[];
  /**
   * kube-controller-manager's `--use-service-account-credentials`: each controller acts as its own
   * service account in kube-system (`system:serviceaccount:kube-system:deployment-controller`…),
   * authorized by upstream's bootstrap `system:controller:*` role, instead of as the loopback admin.
   */
  useServiceAccountCredentials?: boolean;
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

/** An API server with every served resource on `backend`. */
function newApiServer(opts: Pick<ControlPlaneOptions, 'backend' | 'clock' | 'rand' | 'authenticator' | 'serviceAccountKey' | 'authorizationModes'>): Promise<ApiServer> {
  return ApiServer.create({
    backend: opts.backend,
    strategies: servedStrategies,
    clock: opts.clock,
    rand: opts.rand,
    ...(opts.authenticator ? { authenticator: opts.authenticator } : {}),
    ...(opts.authorizationModes ? { authorizationModes: opts.authorizationModes } : {}),
    ...(opts.serviceAccountKey !== undefined ? { serviceAccountKey: opts.serviceAccountKey } : {}),
  });
}

/**
 * Starts the API server on `backend` and every component on in-process transports. Resolves once the
 * informers have synced and the requested nodes exist (they turn Ready with the simulator's first
 * heartbeat). Used by `kubeplane up` through {@link startCluster} and by the integration tests with a
 * FakeClock and the memory backend.
 */
export async function startControlPlane(opts: ControlPlaneOptions): Promise<ControlPlane> {
  const { clock, rand } = opts;
  const api = await newApiServer(opts);
  const controller = new AbortController();
  const signal = controller.signal;
  // Every component and informer listens for the one stop signal; that is not a leak.
  setMaxListeners(0, signal);
  const clientFor = (userAgent: string): Clientset => newClientset(api.inProcessTransport({ userAgent }), { userAgent });

  const context = { clock, rand, logger: opts.logger, signal };
  let clientForController: ((controller: string) => Clientset) | undefined;
  if (opts.useServiceAccountCredentials) {
    const root = clientFor('kube-controller-manager');
    for (const sa of new Set(Object.values(CONTROLLER_SERVICE_ACCOUNTS))) await ensureControllerServiceAccount(root, sa);
    clientForController = (controller) => {
      const userAgent = 'kube-controller-manager';
      return newClientset(api.inProcessTransport({ userAgent, user: controllerUser(serviceAccountOf(controller)) }), { userAgent });
    };
  }
  const kcm = startControllerManager({
    ...context,
    clientFor,
    ...(clientForController ? { clientForController } : {}),
    discovery: staticDiscovery(() => api.preferredResources()),
    rootCA: opts.rootCA ?? (await newEphemeralCACert(clock)),
    ...(opts.hpa ? { hpa: opts.hpa } : {}),
    ...(opts.nodeLifecycle ? { nodeLifecycle: opts.nodeLifecycle } : {}),
  });
  const scheduler = startScheduler({ ...context, client: clientFor('kube-scheduler') });
  const kubelets = startNodeSimulator({
    ...context,
    client: clientFor('kubelet'),
    ...(opts.podStartDelayMs === undefined ? {} : { podStartDelayMs: opts.podStartDelayMs }),
    ...(opts.kubeletPodEvents === undefined ? {} : { kubeletPodEvents: opts.kubeletPodEvents }),
  });
  const components = [kcm, scheduler, kubelets];
  const factories = components.flatMap((c) => c.factories);
  const running = components.flatMap((c) => c.running);
  await Promise.all(factories.map((f) => f.waitForCacheSync(signal)));
  const admin = clientFor('kubeplane');
  await ensureNodes(admin, kubelets.nodes, opts.nodes, opts.controlPlaneNode ?? false);
  await ensureDefaultStorageClass(admin);

  let stopped = false;
  return {
    api,
    client: admin,
    nodes: kubelets.nodes,
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
  /** `--authorization-mode` (default `['RBAC']`; see apiserver/authorization.ts). */
  authorizationModes?: AuthorizationMode[];
  /** `--token-auth-file`: further static bearer tokens, upstream's CSV (apiserver/authn/tokenfile.ts). */
  tokenAuthFile?: string;
  /** `--anonymous-auth` (default true; ignored with AlwaysAllow, as upstream resets it). */
  anonymousAuth?: boolean;
  /** `--audit-policy-file` and `--audit-log-path` (`-` = standard output): the audit log (apiserver/audit). */
  audit?: { policyFile: string; logPath: string };
  /** The HPA controller's flags. */
  hpa?: HPAOptions;
  /** The node lifecycle controller's flags. */
  nodeLifecycle?: NodeLifecycleOptions;
  /** kube-controller-manager's `--use-service-account-credentials` (see {@link ControlPlaneOptions.useServiceAccountCredentials}). */
  useServiceAccountCredentials?: boolean;
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
  let plane: ControlPlane | undefined;
  const serving = await startServing(opts, async (ctx) => {
    plane = await startControlPlane({
      backend: ctx.backend,
      nodes: opts.nodes,
      clock: ctx.clock,
      rand: ctx.rand,
      logger: opts.logger,
      controlPlaneNode: opts.controlPlaneNode ?? false,
      authenticator: ctx.authenticator,
      authorizationModes: ctx.authorizationModes,
      ...(opts.useServiceAccountCredentials ? { useServiceAccountCredentials: true } : {}),
      rootCA: ctx.caCert,
      serviceAccountKey: ctx.serviceAccountKey,
      ...(opts.podStartDelayMs === undefined ? {} : { podStartDelayMs: opts.podStartDelayMs }),
      ...(opts.kubeletPodEvents === undefined ? {} : { kubeletPodEvents: opts.kubeletPodEvents }),
      ...(opts.hpa ? { hpa: opts.hpa } : {}),
      ...(opts.nodeLifecycle ? { nodeLifecycle: opts.nodeLifecycle } : {}),
    });
    return plane;
  });
  opts.logger.info({ server: serving.server, nodes: opts.nodes, dataDir: serving.dataDir, datastore: serving.datastore }, 'control plane started');
  const started = plane as ControlPlane;
  return { ...started, port: serving.port, server: serving.server, kubeconfigPath: serving.kubeconfigPath, token: serving.token, stop: () => serving.stop() };
}

/** Options of {@link startApiServer}: {@link ClusterOptions} less what the other components take. */
export type ApiServerOptions = Omit<ClusterOptions, 'nodes' | 'podStartDelayMs' | 'kubeletPodEvents' | 'controlPlaneNode' | 'hpa' | 'nodeLifecycle' | 'useServiceAccountCredentials'>;

/** A running `kubeplane apiserver`. */
export interface ServingApiServer {
  api: ApiServer;
  port: number;
  /** `https://<host>:<port>`. */
  server: string;
  /** The kubeconfig written for this API server (`<data-dir>/kubeconfig`). */
  kubeconfigPath: string;
  token: string;
  stop(): Promise<void>;
}

/**
 * Starts `kubeplane apiserver`: storage, the API server and its HTTPS endpoint, and no controller,
 * scheduler or node (those connect with a kubeconfig: `kubeplane controller-manager`, `scheduler`,
 * `nodes run`). API servers given the same data directory share its CA, serving certificate, token
 * and service-account key, so one kubeconfig works against each of them; with etcd they share the
 * state too. Each writes `<data-dir>/kubeconfig` pointing at itself (the last one started wins;
 * `kubectl --server` reaches another).
 */
export async function startApiServer(opts: ApiServerOptions): Promise<ServingApiServer> {
  let api: ApiServer | undefined;
  const serving = await startServing(opts, async (ctx) => {
    api = await newApiServer({ backend: ctx.backend, clock: ctx.clock, rand: ctx.rand, authenticator: ctx.authenticator, authorizationModes: ctx.authorizationModes, serviceAccountKey: ctx.serviceAccountKey });
    const served = api;
    return { api: served, stop: () => served.close() };
  });
  opts.logger.info({ server: serving.server, dataDir: serving.dataDir, datastore: serving.datastore }, 'API server started');
  return { api: api as ApiServer, port: serving.port, server: serving.server, kubeconfigPath: serving.kubeconfigPath, token: serving.token, stop: () => serving.stop() };
}

/** What {@link startServing} hands to the function that makes the API server. */
interface ServingContext {
  backend: Backend;
  token: string;
  /** The static tokens: the cluster's one bearer token and the `--token-auth-file`'s. */
  authenticator: TokenAuthenticator;
  authorizationModes: readonly AuthorizationMode[];
  caCert: string;
  serviceAccountKey: string;
  clock: Clock;
  rand: Rand;
}

/**
 * The part `kubeplane up` and `kubeplane apiserver` share: the data directory (made 0700, every file
 * 0600: ./private-files.ts) with its token, serving certificates and service-account key; storage
 * (wrapped to encrypt the resources an `encryptionProviderConfig` names; the file is loaded before
 * anything else starts, so a bad one fails with nothing touched); the API server `makeApi` builds on
 * them; its HTTPS endpoint; its entry in the `kubernetes` Service's Endpoints (./../apiserver/
 * endpoint-reconciler.ts); and the kubeconfig. Stopping removes the entry, closes the endpoint, then
 * stops what `makeApi` started, then storage.
 */
async function startServing(
  opts: ApiServerOptions,
  makeApi: (ctx: ServingContext) => Promise<{ api: ApiServer; stop(): Promise<void> }>,
): Promise<{ port: number; server: string; kubeconfigPath: string; token: string; dataDir: string; datastore: string; stop(): Promise<void> }> {
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
  const tokenFile = opts.tokenAuthFile === undefined ? undefined : tokenFileAuthenticator(opts.tokenAuthFile);
  const authenticator = tokenFile ? unionAuthenticator(staticTokenAuthenticator(token), tokenFile) : staticTokenAuthenticator(token);
  const authorizationModes = opts.authorizationModes ?? ['RBAC'];
  const auditor = opts.audit ? newAuditorFromOptions({ policyFile: opts.audit.policyFile, logPath: opts.audit.logPath }, { clock, onWarning: (w) => log.warn(w) }) : undefined;
  const host = opts.host ?? '127.0.0.1';
  const certs = await loadOrCreateServingCerts(dataDir, [host], clock);
  const made = await makeApi({ backend, token, authenticator, authorizationModes, caCert: certs.caCert, serviceAccountKey: loadOrCreateServiceAccountKey(dataDir), clock, rand });
  const http = await startHttpServer(made.api, {
    host,
    port: opts.port ?? 6443,
    token,
    ...(tokenFile ? { tokenAuthenticator: tokenFile } : {}),
    ...(opts.anonymousAuth === undefined ? {} : { anonymousAuth: opts.anonymousAuth }),
    ...(auditor ? { auditor } : {}),
    clock,
    // Client certificates are verified against the cluster CA, which signs the serving certificate
    // too (kubeadm's one CA for both).
    tls: { cert: certs.cert, key: certs.key, clientCA: certs.caCert },
    serializeObject: serializedJSON,
    logger: log.child({ component: 'apiserver' }),
    ...(opts.maxRequestsInFlight === undefined ? {} : { maxRequestsInFlight: opts.maxRequestsInFlight }),
    ...(opts.maxMutatingRequestsInFlight === undefined ? {} : { maxMutatingRequestsInFlight: opts.maxMutatingRequestsInFlight }),
    ...(opts.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: opts.requestTimeoutMs }),
  });
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${http.port}`;
  const endpoints = new LeaseEndpointReconciler({
    backend,
    transport: made.api.inProcessTransport({ userAgent: 'kube-apiserver' }),
    clock,
    ip: host,
    port: http.port,
    logger: log.child({ component: 'endpoint-reconciler' }),
  });
  endpoints.start();
  const kubeconfigPath = join(dataDir, 'kubeconfig');
  // The admin's kubeconfig authenticates with a client certificate in `kubeadm:cluster-admins`, bound to
  // cluster-admin, as kubeadm's admin.conf does.
  const admin = await issueClientCertificate(dataDir, ADMIN_CLIENT, clock);
  writeKubeconfig(kubeconfigPath, { server, clientCertificate: admin.cert, clientKey: admin.key, caData: certs.caCert, clusterName: 'kubeplane', namespace: 'default' });
  return {
    port: http.port,
    server,
    kubeconfigPath,
    token,
    dataDir,
    datastore,
    async stop(): Promise<void> {
      await endpoints.stop();
      await http.close();
      await auditor?.close();
      await made.stop();
      await backend.close();
    },
  };
}

/**
 * `kubeplane kubeconfig --user NAME --group G…`: the YAML of a kubeconfig for that user, with a new
 * client certificate signed by `dataDir`'s cluster CA, for the server and CA of `dataDir`'s kubeconfig.
 * Cluster `kubeplane`, user NAME, context `NAME@kubeplane`, namespace `default`.
 * @throws Error when `dataDir` holds no cluster (no CA or kubeconfig yet).
 */
export async function userKubeconfig(dataDir: string, user: string, groups: readonly string[], clock: Clock = realClock): Promise<string> {
  const path = join(resolve(dataDir), 'kubeconfig');
  if (!existsSync(path)) throw new Error(`no kubeconfig in ${resolve(dataDir)}: start the cluster (kubeplane up) first`);
  const { server, caData } = await loadKubeconfig(path);
  const cert = await issueClientCertificate(resolve(dataDir), { commonName: user, organizations: [...groups] }, clock);
  return kubeconfigText({ server, clientCertificate: cert.cert, clientKey: cert.key, ...(caData ? { caData } : {}), clusterName: 'kubeplane', userName: user, namespace: 'default' });
}

/** kubeadm's admin identity: `kubernetes-admin` in `kubeadm:cluster-admins` (kubeadm's ClusterAdminsGroupAndClusterRoleBinding). */
export const ADMIN_CLIENT = { commonName: 'kubernetes-admin', organizations: ['kubeadm:cluster-admins'] };

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
