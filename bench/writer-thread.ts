/**
 * SQLite's writer thread against writes on the event loop (bench/main.ts section 4): the same
 * workload — `deployments` Deployments of `replicas` each, rolled out at once on a fresh in-process
 * cluster (SQLite, instant container start) — run once with the backend's writes in a worker thread
 * (the default, src/storage/sqlite/writer.ts) and once on the event loop. For each: pods/s until
 * every pod is Ready, the event loop's utilization and its delay (p50/p99: how long a timer or an
 * incoming request waited for the loop) during the rollout, and the event loop's busy seconds until
 * the cluster had also written every queued event and stopped (the same work either way). Each run
 * is a process of its own: a second cluster in the same process ran up to a third slower (a larger
 * heap, the first one's leftovers), which would decide the comparison.
 * Run alone: `node dist/bench/writer-thread.js [deployments] [replicas] [nodes]`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { startCluster } from '../src/cli/cluster.js';
import { benchDeployment } from './workloads.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The figures of one run. */
export interface WriterRun {
  podsPerSecond: number;
  /** Event loop utilization during the rollout (0–1). */
  utilization: number;
  /** Event loop delay during the rollout (ms). */
  delayP50Ms: number;
  delayP99Ms: number;
  /** Event loop busy time from the first create until the cluster stopped (s). */
  busySeconds: number;
}

/**
 * {@link writerRun} in a fresh process (this file run as `… run thread|loop deployments replicas
 * nodes`); throws if that process fails.
 */
export function writerRunAlone(writerThread: boolean, deployments: number, replicas: number, nodes: number): WriterRun {
  const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), 'run', writerThread ? 'thread' : 'loop', String(deployments), String(replicas), String(nodes)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out.toString()) as WriterRun;
}

/** Rolls out `deployments` × `replicas` pods on `nodes` nodes with the writes in a thread or not, in this process. */
export async function writerRun(writerThread: boolean, deployments: number, replicas: number, nodes: number): Promise<WriterRun> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kubeplane-bench-writer-'));
  const cluster = await startCluster({ nodes, port: 0, dataDir, datastore: 'sqlite', logger: pino({ level: 'silent' }), podStartDelayMs: 0, sqliteWriterThread: writerThread });
  const api = cluster.client.apps.deployments('default');
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const elu0 = performance.eventLoopUtilization();
  const t0 = performance.now();
  for (let i = 0; i < deployments; i++) {
    const labels = { app: `bench-${i}` };
    const d = benchDeployment(replicas, { spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } } });
    await api.create({ ...d, metadata: { name: `bench-${i}` } });
  }
  for (;;) {
    const ready = (await api.list()).items.reduce((n, d) => n + (d.status?.readyReplicas ?? 0), 0);
    if (ready >= deployments * replicas) break;
    await sleep(50);
  }
  const seconds = (performance.now() - t0) / 1000;
  const rollout = performance.eventLoopUtilization(elu0);
  delay.disable();
  await cluster.stop();
  const busy = performance.eventLoopUtilization(elu0);
  rmSync(dataDir, { recursive: true, force: true });
  return {
    podsPerSecond: (deployments * replicas) / seconds,
    utilization: rollout.utilization,
    delayP50Ms: delay.percentile(50) / 1e6,
    delayP99Ms: delay.percentile(99) / 1e6,
    busySeconds: busy.active / 1000,
  };
}

/** The bench lines of a thread run and an event-loop run of the same workload. */
export function writerThreadLines(deployments: number, replicas: number, nodes: number, thread: WriterRun, loop: WriterRun): string[] {
  const fmt = (r: WriterRun): string =>
    `${r.podsPerSecond.toFixed(0)} pods/s, event loop ${(r.utilization * 100).toFixed(0)} % busy, delay p50 ${r.delayP50Ms.toFixed(0)} ms / p99 ${r.delayP99Ms.toFixed(0)} ms, ${r.busySeconds.toFixed(1)} s busy until stopped`;
  return [
    `${deployments} Deployments × ${replicas.toLocaleString('en-US')} on ${nodes} nodes (instant container start), SQLite writes in a worker thread: ${fmt(thread)}`,
    `  the same with the writes on the event loop: ${fmt(loop)}`,
    `  ratios thread / event loop: pods/s ${(thread.podsPerSecond / loop.podsPerSecond).toFixed(2)}, event loop busy ${(thread.busySeconds / loop.busySeconds).toFixed(2)}, delay p50 ${(thread.delayP50Ms / loop.delayP50Ms).toFixed(2)}, p99 ${(thread.delayP99Ms / loop.delayP99Ms).toFixed(2)}`,
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // `run thread|loop …`: one run, printed as JSON for writerRunAlone.
  const one = process.argv[2] === 'run' ? process.argv[3] : undefined;
  const [deployments = 5, replicas = 2_000, nodes = 100] = process.argv.slice(one === undefined ? 2 : 4).map(Number);
  (async () => {
    if (one !== undefined) {
      process.stdout.write(JSON.stringify(await writerRun(one === 'thread', deployments, replicas, nodes)));
      return;
    }
    const thread = writerRunAlone(true, deployments, replicas, nodes);
    const loop = writerRunAlone(false, deployments, replicas, nodes);
    for (const l of writerThreadLines(deployments, replicas, nodes, thread, loop)) process.stdout.write(l + '\n');
  })().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
