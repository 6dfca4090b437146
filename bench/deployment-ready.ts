/**
 * Deployment to Ready (bench/main.ts section 3): time for every pod of a Deployment to be Ready on a
 * fresh in-process cluster (SQLite). Run alone: `node dist/bench/deployment-ready.js [replicas] [nodes]
 * [podStartDelayMs|default] [kubelet pod events: true|false]` (no delay argument: the default 0.5–1 s
 * container start).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { startCluster } from '../src/cli/cluster.js';
import { benchDeployment } from './workloads.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Creates a Deployment of `replicas` on a fresh in-process cluster (SQLite, or etcd at `etcdServers`)
 * and waits until every pod is Ready. `podStartDelayMs` is the simulated kubelets' container start time
 * (undefined: the default 500 ms + up to 500 ms jitter, as a user sees it; 0: the control plane's own
 * throughput).
 */
export async function deploymentToReady(
  replicas: number,
  nodes: number,
  podStartDelayMs?: number,
  kubeletPodEvents = true,
  etcdServers?: string[],
): Promise<{ seconds: number; podsPerSecond: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kubeplane-bench-deploy-'));
  const cluster = await startCluster({
    nodes,
    port: 0,
    dataDir,
    ...(etcdServers ? { datastore: 'etcd', etcd: { servers: etcdServers } } : { datastore: 'sqlite' }),
    logger: pino({ level: 'silent' }),
    ...(podStartDelayMs === undefined ? {} : { podStartDelayMs }),
    kubeletPodEvents,
  });
  const deployments = cluster.client.apps.deployments('default');
  const t0 = performance.now();
  await deployments.create(benchDeployment(replicas));
  for (;;) {
    const d = await deployments.get('bench');
    if ((d.status?.readyReplicas ?? 0) >= replicas) break;
    await sleep(20);
  }
  const seconds = (performance.now() - t0) / 1000;
  await cluster.stop();
  rmSync(dataDir, { recursive: true, force: true });
  return { seconds, podsPerSecond: replicas / seconds };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const replicas = Number(process.argv[2] ?? 10_000);
  const nodes = Number(process.argv[3] ?? 100);
  const delay = process.argv[4] === undefined || process.argv[4] === 'default' ? undefined : Number(process.argv[4]);
  const events = process.argv[5] !== 'false';
  deploymentToReady(replicas, nodes, delay, events).then(
    (r) => {
      process.stdout.write(
        `Deployment of ${replicas} replicas on ${nodes} nodes (delay ${delay ?? 'default'}, kubelet pod events ${events ? 'on' : 'off'}) → all Ready: ` +
          `${r.seconds.toFixed(2)} s, ${r.podsPerSecond.toFixed(0)} pods/s\n`,
      );
      process.exit(0);
    },
    (err: unknown) => {
      process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
