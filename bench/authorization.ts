/**
 * Authorization bench: what RBAC costs per request. Two clusters in this process (memory datastore,
 * no nodes), one with `--authorization-mode=RBAC` and one with `AlwaysAllow`, each holding 1,000
 * ClusterRoles with a ClusterRoleBinding each and 1,000 Roles with a RoleBinding each (for other
 * users), plus a Role that lets `jane` (a `--token-auth-file` user) get pods in `bench`. The same
 * `GET /api/v1/namespaces/bench/pods/p` as jane over HTTPS (keep-alive, 50 in flight) is timed on
 * each, in the same run; the ratio is the figure. Also: authorizer decisions/s alone, for jane (the
 * allowing binding is the last one listed) and for a user no binding names.
 * Never run by the tests. Run alone: `node dist/bench/authorization.js [requests]`.
 */
import https from 'node:https';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { startCluster, type Cluster } from '../src/cli/cluster.js';
import type { AuthorizationMode } from '../src/apiserver/authorization.js';
import type { Attributes } from '../src/apiserver/authz/types.js';
import { opsPerSecond } from './ops-per-second.js';

/** Roles and bindings of each kind present. */
const OBJECTS = 1_000;
const CONCURRENCY = 50;
const JANE_TOKEN = 'jane-bench-token';

/** What {@link authorizationCost} measured. */
export interface AuthorizationBenchResult {
  rbacRequestsPerSecond: number;
  alwaysAllowRequestsPerSecond: number;
  /** `authorize()` calls/s of the RBAC cluster's authorizer: jane allowed, and a user no binding names denied. */
  allowedDecisionsPerSecond: number;
  deniedDecisionsPerSecond: number;
}

async function withCluster<T>(mode: AuthorizationMode, run: (cluster: Cluster) => Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kubeplane-bench-authz-'));
  const tokenFile = join(dataDir, 'tokens.csv');
  writeFileSync(tokenFile, `${JANE_TOKEN},jane,1001,"dev"\n`);
  const cluster = await startCluster({ nodes: 0, port: 0, dataDir, datastore: 'memory', authorizationModes: [mode], tokenAuthFile: tokenFile, logger: pino({ level: 'silent' }) });
  try {
    return await run(cluster);
  } finally {
    await cluster.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The 1,000 + 1,000 roles and bindings, jane's Role and binding, and the pod jane reads. */
async function seed(cluster: Cluster): Promise<void> {
  const c = cluster.client;
  await c.core.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
  const rule = (i: number) => [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'], resourceNames: [`cm-${i}`] }];
  await opsPerSecond(OBJECTS, 25, (i) => c.rbac.clusterRoles().create({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: `bench-${i}` }, rules: rule(i) }));
  await opsPerSecond(OBJECTS, 25, (i) =>
    c.rbac.clusterRoleBindings().create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `bench-${i}` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `bench-${i}` },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: `user-${i}` }],
    }),
  );
  await opsPerSecond(OBJECTS, 25, (i) => c.rbac.roles('bench').create({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: `bench-${i}` }, rules: rule(i) }));
  await opsPerSecond(OBJECTS, 25, (i) =>
    c.rbac.roleBindings('bench').create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: `bench-${i}` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `bench-${i}` },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: `user-${i}` }],
    }),
  );
  await c.rbac.roles('bench').create({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'zz-jane' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] });
  await c.rbac.roleBindings('bench').create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'zz-jane' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'zz-jane' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'jane' }],
  });
  await c.core.pods('bench').create({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
  await cluster.api.waitUntilFresh();
}

/** GETs of the pod as jane per second, `CONCURRENCY` in flight over keep-alive HTTPS. */
async function getsPerSecond(cluster: Cluster, n: number): Promise<number> {
  const agent = new https.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const url = new URL(cluster.server);
  const ca = (await import('node:fs')).readFileSync(join(cluster.kubeconfigPath, '..', 'ca.crt'), 'utf8');
  const get = (): Promise<void> =>
    new Promise((ok, fail) => {
      const req = https.request({ host: url.hostname, port: url.port, path: '/api/v1/namespaces/bench/pods/p', ca, agent, headers: { authorization: `Bearer ${JANE_TOKEN}` } }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? ok() : fail(new Error(`GET answered ${res.statusCode}`))));
      });
      req.on('error', fail);
      req.end();
    });
  await opsPerSecond(500, CONCURRENCY, get); // warm-up: connections, caches
  const rate = await opsPerSecond(n, CONCURRENCY, get);
  agent.destroy();
  return rate;
}

/** `authorize()` calls per second for `attrs` over `ms` milliseconds. */
function decisionsPerSecond(authorize: (a: Attributes) => unknown, attrs: Attributes, ms: number): number {
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    for (let i = 0; i < 100; i++) authorize(attrs);
    n += 100;
  }
  return n / ((performance.now() - t0) / 1000);
}

/** Runs the bench: `n` timed GETs on each cluster. */
export async function authorizationCost(n: number): Promise<AuthorizationBenchResult> {
  const pod = (username: string): Attributes => ({
    user: { username, groups: ['system:authenticated'] },
    verb: 'get',
    resourceRequest: true,
    path: '',
    namespace: 'bench',
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'pods',
    subresource: '',
    name: 'p',
  });
  const rbac = await withCluster('RBAC', async (cluster) => {
    await seed(cluster);
    const authorize = (a: Attributes): unknown => cluster.api.authorizer.authorize(a);
    return {
      rps: await getsPerSecond(cluster, n),
      allowed: decisionsPerSecond(authorize, pod('jane'), 2_000),
      denied: decisionsPerSecond(authorize, pod('mallory'), 2_000),
    };
  });
  const alwaysAllowRequestsPerSecond = await withCluster('AlwaysAllow', async (cluster) => {
    await seed(cluster);
    return getsPerSecond(cluster, n);
  });
  return { rbacRequestsPerSecond: rbac.rps, alwaysAllowRequestsPerSecond, allowedDecisionsPerSecond: rbac.allowed, deniedDecisionsPerSecond: rbac.denied };
}

/** The bench's lines. */
export function authorizationBenchLines(r: AuthorizationBenchResult): string[] {
  return [
    `authorization with ${OBJECTS} ClusterRoles + bindings and ${OBJECTS} Roles + bindings: GET pod as a token user over HTTPS, ${CONCURRENCY} in flight: ` +
      `RBAC ${r.rbacRequestsPerSecond.toFixed(0)} requests/s, AlwaysAllow ${r.alwaysAllowRequestsPerSecond.toFixed(0)} requests/s = ${(r.rbacRequestsPerSecond / r.alwaysAllowRequestsPerSecond).toFixed(2)} ×`,
    `  the authorizer alone: ${r.allowedDecisionsPerSecond.toFixed(0)} allowed decisions/s (jane, bound by the last RoleBinding), ${r.deniedDecisionsPerSecond.toFixed(0)} denied decisions/s (a user no binding names)`,
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const n = Number(process.argv[2] ?? 10_000);
  for (const l of authorizationBenchLines(await authorizationCost(n))) process.stdout.write(l + '\n');
}
