/**
 * DaemonSet bench: how long a DaemonSet takes to have an available pod on each of N simulated nodes,
 * and how long a rolling update (maxUnavailable 10%) across them takes, in-process on SQLite with the
 * default simulated container start (0.5–1 s). Never run by the tests.
 * Run alone: `node dist/bench/daemonset.js [nodes]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import type { DaemonSet } from '../src/api/index.js';
import { startCluster } from '../src/cli/cluster.js';
import { realClock } from '../src/util/clock/index.js';

/** Polls every 20 ms until `done(daemonSet)`. */
async function waitFor(get: () => Promise<DaemonSet>, done: (ds: DaemonSet) => boolean): Promise<void> {
  while (!done(await get())) await realClock.sleep(20);
}

/** As `kubectl rollout status ds/x` sees it: status current, every desired node updated and available. */
function rolledOut(ds: DaemonSet, nodes: number): boolean {
  const s = ds.status;
  return (
    (s?.observedGeneration ?? 0) >= (ds.metadata?.generation ?? 0) &&
    s?.desiredNumberScheduled === nodes &&
    s.updatedNumberScheduled === nodes &&
    s.numberAvailable === nodes
  );
}

/**
 * Starts a cluster with `nodes` simulated nodes (not timed), creates a DaemonSet and measures until
 * every node has an available daemon pod (`coverSeconds`), then changes its image and measures until
 * the rolling update (maxUnavailable 10%) is complete (`rollingUpdateSeconds`). Wall-clock seconds.
 */
export async function daemonSetCoverage(nodes: number): Promise<{ coverSeconds: number; rollingUpdateSeconds: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kubeplane-bench-ds-'));
  const cluster = await startCluster({ nodes, port: 0, dataDir, datastore: 'sqlite', logger: pino({ level: 'silent' }) });
  try {
    const daemonSets = cluster.client.apps.daemonSets('default');
    const get = (): Promise<DaemonSet> => daemonSets.get('bench');
    const t0 = realClock.now();
    await daemonSets.create({
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'bench' },
      spec: {
        selector: { matchLabels: { app: 'bench' } },
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '10%' } },
        template: { metadata: { labels: { app: 'bench' } }, spec: { containers: [{ name: 'agent', image: 'agent:1' }] } },
      },
    });
    await waitFor(get, (ds) => rolledOut(ds, nodes));
    const coverSeconds = (realClock.now() - t0) / 1000;
    const t1 = realClock.now();
    await daemonSets.patch('bench', 'application/strategic-merge-patch+json', { spec: { template: { spec: { containers: [{ name: 'agent', image: 'agent:2' }] } } } });
    await waitFor(get, (ds) => (ds.metadata?.generation ?? 0) >= 2 && rolledOut(ds, nodes));
    return { coverSeconds, rollingUpdateSeconds: (realClock.now() - t1) / 1000 };
  } finally {
    await cluster.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const nodes = Number(process.argv[2] ?? 1000);
  daemonSetCoverage(nodes).then(
    (r) => {
      process.stdout.write(
        `DaemonSet on ${nodes} nodes: covered in ${r.coverSeconds.toFixed(2)} s; rolling update (maxUnavailable 10%) in ${r.rollingUpdateSeconds.toFixed(2)} s\n`,
      );
      process.exit(0);
    },
    (err: unknown) => {
      process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
