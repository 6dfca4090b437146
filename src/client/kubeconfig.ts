/**
 * Kubeconfig files (client-go tools/clientcmd, `clientcmdapi.Config` v1): writing the one-cluster file
 * `kubeplane up` hands to kubectl, and reading the parts kubeplane's HTTP transport uses.
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
import { dirname, isAbsolute, resolve } from 'node:path';
import YAML from 'yaml';

/** What {@link loadKubeconfig} returns: the settings of `HttpTransport`'s constructor plus the namespace. */
export interface KubeconfigConnection {
  server: string;
  token?: string;
  /** PEM of the cluster's CA. */
  caData?: string;
  insecureSkipTLSVerify?: boolean;
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
  opts: { server: string; token: string; caData?: string; clusterName?: string; namespace?: string },
): void {
  const name = opts.clusterName ?? 'kubeplane';
  const cluster: Record<string, unknown> = { server: opts.server };
  if (opts.caData) cluster['certificate-authority-data'] = Buffer.from(opts.caData).toString('base64');
  if (opts.server.startsWith('http://')) cluster['insecure-skip-tls-verify'] = true;
  const context: Record<string, unknown> = { cluster: name, user: name };
  if (opts.namespace) context.namespace = opts.namespace;
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster }],
    users: [{ name, user: { token: opts.token } }],
    contexts: [{ name, context }],
    'current-context': name,
    preferences: {},
  };
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, YAML.stringify(config), { mode: 0o600 });
  chmodSync(path, 0o600);
}

/** The `field` of the entry named `name` in a kubeconfig list (`{name, cluster: {...}}`); undefined when absent. */
function findNamed(list: unknown, name: string, field: string): Record<string, unknown> | undefined {
  if (!Array.isArray(list)) return undefined;
  const entry = (list as Record<string, unknown>[]).find((e) => e.name === name);
  if (!entry) return undefined;
  const value = entry[field];
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * Reads a kubeconfig and resolves `context` (default: `current-context`) to its cluster and user.
 * File references (`certificate-authority`, `tokenFile`) are read relative to the kubeconfig's
 * directory, as clientcmd does. Throws Error when the context, its cluster or the server is missing.
 * Client certificates are not read (kubeplane authenticates with bearer tokens).
 */
export function loadKubeconfig(path: string, context?: string): KubeconfigConnection {
  const doc = (YAML.parse(readFileSync(path, 'utf8')) ?? {}) as Record<string, unknown>;
  const contextName = context ?? str(doc['current-context']);
  if (!contextName) throw new Error(`${path}: no context given and no current-context`);
  const ctx = findNamed(doc.contexts, contextName, 'context');
  if (!ctx) throw new Error(`${path}: context ${JSON.stringify(contextName)} not found`);
  const clusterName = str(ctx.cluster) ?? '';
  const cluster = findNamed(doc.clusters, clusterName, 'cluster');
  if (!cluster) throw new Error(`${path}: cluster ${JSON.stringify(clusterName)} of context ${JSON.stringify(contextName)} not found`);
  const server = str(cluster.server);
  if (!server) throw new Error(`${path}: cluster ${JSON.stringify(clusterName)} has no server`);
  const user = findNamed(doc.users, str(ctx.user) ?? '', 'user') ?? {};

  const relative = (file: string): string => (isAbsolute(file) ? file : resolve(dirname(path), file));
  const out: KubeconfigConnection = { server };
  const caB64 = str(cluster['certificate-authority-data']);
  const caFile = str(cluster['certificate-authority']);
  if (caB64) out.caData = Buffer.from(caB64, 'base64').toString('utf8');
  else if (caFile) out.caData = readFileSync(relative(caFile), 'utf8');
  if (cluster['insecure-skip-tls-verify'] === true) out.insecureSkipTLSVerify = true;
  const token = str(user.token);
  const tokenFile = str(user.tokenFile);
  if (token) out.token = token;
  else if (tokenFile) out.token = readFileSync(relative(tokenFile), 'utf8').trim();
  const namespace = str(ctx.namespace);
  if (namespace) out.namespace = namespace;
  return out;
}
