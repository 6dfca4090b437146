/**
 * Job bench: how long a Job of 10,000 completions with parallelism 500 takes to be Complete, with the
 * simulated containers' default run (a container with no command runs a short simulated time and
 * exits 0), in-process on SQLite on 100 nodes. Each completion is a pod created, scheduled, started,
 * finished and counted (tracking finalizer removed), so pods/s is the figure. Never run by the tests.
 * Run alone: `node dist/bench/job.js [completions] [parallelism]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { startCluster } from '../src/cli/cluster.js';
import { realClock } from '../src/util/clock/index.js';

/** Wall-clock seconds from creating the Job until its Complete condition, and completions/s. */
export async function jobToComplete(completions: number, parallelism: number, nodes = 100): Promise<{ seconds: number; podsPerSecond: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kubeplane-bench-job-'));
  const cluster = await startCluster({ nodes, port: 0, dataDir, datastore: 'sqlite', logger: pino({ level: 'silent' }) });
  try {
    const jobs = cluster.client.batch.jobs('default');
    const t0 = realClock.now();
    await jobs.create({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'bench' },
      spec: { completions, parallelism, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'work', image: 'busybox' }] } } },
    });
    for (;;) {
      const job = await jobs.get('bench');
      const conditions = job.status?.conditions ?? [];
      if (conditions.some((c) => c.type === 'Failed' && c.status === 'True')) throw new Error(`the Job failed: ${JSON.stringify(job.status)}`);
      if (conditions.some((c) => c.type === 'Complete' && c.status === 'True')) break;
      await realClock.sleep(50);
    }
    const seconds = (realClock.now() - t0) / 1000;
    return { seconds, podsPerSecond: completions / seconds };
  } finally {
    await cluster.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const completions = Number(process.argv[2] ?? 10_000);
  const parallelism = Number(process.argv[3] ?? 500);
  jobToComplete(completions, parallelism).then(
    (r) => {
      process.stdout.write(`Job of ${completions} completions, parallelism ${parallelism} → Complete: ${r.seconds.toFixed(2)} s, ${r.podsPerSecond.toFixed(0)} pods/s\n`);
      process.exit(0);
    },
    (err: unknown) => {
      process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
