/**
 * Rolling-update bench: how long a rolling update (maxSurge 25%, maxUnavailable 25%) of an already
 * Ready Deployment takes to complete, in-process on SQLite with the default simulated container start
 * (0.5–1 s). Never run by the tests. Run alone: `node dist/bench/rolling-update.js [replicas] [nodes]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import type { Deployment } from '../src/api/index.js';
import { startCluster } from '../src/cli/cluster.js';
import { realClock } from '../src/util/clock/index.js';
import { benchDeployment } from './workloads.js';

/** Polls every 20 ms until `done(deployment)`. */
async function waitFor(get: () => Promise<Deployment>, done: (d: Deployment) => boolean): Promise<void> {
  while (!done(await get())) await realClock.sleep(20);
}

/** The rollout is complete as `kubectl rollout status` sees it: every replica updated and available, no old ones left. */
function rolledOut(d: Deployment): boolean {
  const s = d.status;
  const replicas = d.spec?.replicas ?? 0;
  return (
    (s?.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0) &&
    s?.updatedReplicas === replicas &&
    s.replicas === replicas &&
    s.availableReplicas === replicas
  );
}

/**
 * Creates a `replicas`-pod Deployment on a fresh cluster with `nodes` simulated nodes, waits until it
 * is fully Ready, then changes its image and measures until the rollout is complete. Resolves with
 * the wall-clock seconds of the initial rollout (create → complete) and of the rolling update, so the
 * two compare within one run (issue 18: the update no slower than the initial rollout).
 */
export async function rollingUpdate(replicas: number, nodes: number): Promise<{ initialSeconds: number; seconds: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kubeplane-bench-rolling-'));
  const cluster = await startCluster({ nodes, port: 0, dataDir, datastore: 'sqlite', logger: pino({ level: 'silent' }) });
  try {
    const deployments = cluster.client.apps.deployments('default');
    const get = (): Promise<Deployment> => deployments.get('bench');
    const created = realClock.now();
    await deployments.create(benchDeployment(replicas, { image: 'nginx:1.26', spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } } } }));
    await waitFor(get, rolledOut);
    const t0 = realClock.now();
    const initialSeconds = (t0 - created) / 1000;
    await deployments.patch('bench', 'application/strategic-merge-patch+json', {
      spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } } },
    });
    await waitFor(get, (d) => (d.metadata?.generation ?? 0) >= 2 && rolledOut(d));
    return { initialSeconds, seconds: (realClock.now() - t0) / 1000 };
  } finally {
    await cluster.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const replicas = Number(process.argv[2] ?? 1000);
  const nodes = Number(process.argv[3] ?? Math.max(1, Math.ceil(replicas / 100)));
  rollingUpdate(replicas, nodes).then(
    (r) => {
      process.stdout.write(`rolling update of ${replicas} replicas on ${nodes} nodes (25%/25%): ${r.seconds.toFixed(2)} s; initial rollout ${r.initialSeconds.toFixed(2)} s (${(r.seconds / r.initialSeconds).toFixed(2)} ×)\n`);
      process.exit(0);
    },
    (err: unknown) => {
      process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
