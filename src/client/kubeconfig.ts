/**
 * Kubeconfig files (client-go tools/clientcmd, `clientcmdapi.Config` v1): writing the one-cluster file
 * `kubeplane up` hands to kubectl, and reading any kubeconfig into what kubeplane's HTTP transport
 * uses, through @kubernetes/client-node's loader.
 *
 * Shape written (see /work/shared/reference/apiserver.md §1.1, tested with kubectl and
 * @kubernetes/client-node):
 * ```yaml
 * apiVersion: v1
 * kind: Config
 * clusters: [{name: kubeplane, cluster: {server: http://127.0.0.1:6443, insecure-skip-tls-verify: true}}]
 * users: [{name: kubeplane, user: {token: secret}}]
 * contexts: [{name: kubeplane, context: {cluster: kubeplane, user: kubeplane, namespace: default}}]
 * current-context: kubeplane
 * ```
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type https from 'node:https';
import { dirname, isAbsolute, resolve } from 'node:path';
import YAML from 'yaml';
import { realClock } from '../util/clock/index.js';
import type { Clock } from '../util/clock/index.js';
import type { HttpTransportOptions } from './http/index.js';

/**
 * What {@link loadKubeconfig} returns: the settings of `HttpTransport`'s constructor plus the context's
 * namespace.
 */
export interface KubeconfigConnection extends HttpTransportOptions {
  /** The context's default namespace. */
  namespace?: string;
}

/**
 * Writes a kubeconfig with one cluster, user and context, all named `opts.clusterName` (default
 * `kubeplane`), and makes it current. `caData` is PEM (stored base64-encoded as
 * `certificate-authority-data`). An `http://` server gets `insecure-skip-tls-verify: true`, without
 * which @kubernetes/client-node refuses plain HTTP. Creates the parent directory; the file is mode 0600
 * (it holds a credential), also when it existed with another mode (`writeFileSync`'s mode only applies
 * to a file it creates).
 */
export function writeKubeconfig(
  path: string,
  opts: { server: string; caData?: string; clusterName?: string; namespace?: string; userName?: string } & KubeconfigCredentials,
): void {
  writeFileSync(mkParent(path), kubeconfigText(opts), { mode: 0o600 });
  chmodSync(path, 0o600);
}

/** A kubeconfig user's credentials: a bearer token, or a client certificate and key (PEM). */
export type KubeconfigCredentials = { token: string } | { clientCertificate: string; clientKey: string };

function mkParent(path: string): string {
  mkdirSync(dirname(path), { recursive: true });
  return path;
}

/**
 * The YAML of the kubeconfig {@link writeKubeconfig} writes: one cluster, one user (named `userName`,
 * default the cluster's name) and one context, current.
 */
export function kubeconfigText(
  opts: { server: string; caData?: string; clusterName?: string; namespace?: string; userName?: string } & KubeconfigCredentials,
): string {
  const name = opts.clusterName ?? 'kubeplane';
  const cluster: Record<string, unknown> = { server: opts.server };
  if (opts.caData) cluster['certificate-authority-data'] = Buffer.from(opts.caData).toString('base64');
  if (opts.server.startsWith('http://')) cluster['insecure-skip-tls-verify'] = true;
  const userName = opts.userName ?? name;
  const contextName = opts.userName === undefined ? name : `${userName}@${name}`;
  const context: Record<string, unknown> = { cluster: name, user: userName };
  if (opts.namespace) context.namespace = opts.namespace;
  const user =
    'token' in opts
      ? { token: opts.token }
      : { 'client-certificate-data': Buffer.from(opts.clientCertificate).toString('base64'), 'client-key-data': Buffer.from(opts.clientKey).toString('base64') };
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster }],
    users: [{ name: userName, user }],
    contexts: [{ name: contextName, context }],
    'current-context': contextName,
    preferences: {},
  };
  return YAML.stringify(config);
}

/**
 * The `tokenFile` of user `name` (client-go's field; client-node reads only `token-file` and drops
 * `tokenFile`), resolved against the kubeconfig's directory as clientcmd resolves it.
 */
function tokenFileOf(path: string, name: string): string | undefined {
  const doc = YAML.parse(readFileSync(path, 'utf8')) as { users?: { name?: string; user?: { tokenFile?: unknown } }[] } | null;
  const file = doc?.users?.find((u) => u.name === name)?.user?.tokenFile;
  if (typeof file !== 'string' || file === '') return undefined;
  return isAbsolute(file) ? file : resolve(dirname(path), file);
}

/** PEM text of what client-node read (a Buffer of the file or the decoded `-data`). */
function pem(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  return Buffer.isBuffer(v) ? v.toString('utf8') : undefined;
}

/** How long headers from {@link KubeconfigConnection.headers} are reused before they are asked for again, in ms. */
export const AUTH_HEADERS_TTL_MS = 10_000;

/**
 * Reads a kubeconfig with @kubernetes/client-node's `KubeConfig` (client-go's clientcmd rules: file
 * references relative to the kubeconfig, `certificate-authority(-data)`, `client-certificate(-data)`
 * and `client-key(-data)`, `token` and `tokenFile`, exec credential plugins, auth providers,
 * `insecure-skip-tls-verify`) and resolves `context` (default: `current-context`) to what
 * `HttpTransport` needs. The TLS material is read once; the Authorization header is computed by
 * client-node per request but reused for {@link AUTH_HEADERS_TTL_MS} (an exec plugin's credential is
 * cached by client-node until it expires; a token file is read again after that, as client-go re-reads
 * it). `clock` times that reuse (default the real clock).
 * @throws Error when the file cannot be read or parsed, or the context, its cluster or its server is missing
 */
export async function loadKubeconfig(path: string, context?: string, clock: Clock = realClock): Promise<KubeconfigConnection> {
  // Loaded only here: client-node takes over half a second to import, which `kubeplane up` (which
  // reads no kubeconfig) would otherwise pay at start-up.
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  const contextName = context ?? kc.getCurrentContext();
  if (!contextName) throw new Error(`${path}: no context given and no current-context`);
  const ctx = kc.getContextObject(contextName);
  if (!ctx) throw new Error(`${path}: context ${JSON.stringify(contextName)} not found`);
  kc.setCurrentContext(contextName);
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error(`${path}: cluster ${JSON.stringify(ctx.cluster)} of context ${JSON.stringify(contextName)} not found`);
  if (!cluster.server) throw new Error(`${path}: cluster ${JSON.stringify(cluster.name)} has no server`);
  const tls: https.RequestOptions = {};
  await kc.applyToHTTPSOptions(tls);
  const out: KubeconfigConnection = { server: cluster.server };
  const ca = pem(tls.ca);
  const cert = pem(tls.cert);
  const key = pem(tls.key);
  if (ca) out.caData = ca;
  if (cert) out.cert = cert;
  if (key) out.key = key;
  if (cluster.skipTLSVerify) out.insecureSkipTLSVerify = true;
  if (ctx.namespace) out.namespace = ctx.namespace;
  const tokenFile = tokenFileOf(path, ctx.user);
  let cached: { at: number; headers: Record<string, string> } | undefined;
  out.headers = async () => {
    if (cached && clock.since(cached.at) < AUTH_HEADERS_TTL_MS) return cached.headers;
    const opts: https.RequestOptions = {};
    await kc.applyToHTTPSOptions(opts);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.headers ?? {})) if (typeof v === 'string') headers[k] = v;
    if (opts.auth) headers['Authorization'] = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
    if (tokenFile !== undefined && headers['Authorization'] === undefined) headers['Authorization'] = `Bearer ${readFileSync(tokenFile, 'utf8').trim()}`;
    cached = { at: clock.now(), headers };
    return headers;
  };
  return out;
}
