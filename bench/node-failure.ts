/**
 * Node failure bench: a 1,000-node cluster with a 1,000-replica Deployment spread over it loses 100
 * nodes at once (`kubeplane.io/simulate: Stopped`, as `kubeplane nodes stop` sets). Measured: the
 * time until every Deployment pod on those nodes has been evicted and replaced by a Running, Ready
 * pod on another node — against the lower bound upstream's rate limiting implies.
 *
 * The wait is ~22 minutes of controller time, so the whole control plane runs in-process on the
 * memory backend under a FakeClock stepped 1 s at a time: the times reported are clock (simulated)
 * seconds, and the wall-clock seconds the simulation took are reported beside them.
 *
 * The lower bound (upstream v1.33 defaults): the stopped nodes are 10 % of the zone (under the 55 %
 * `--unhealthy-zone-threshold`), so the zone stays Normal and its tainting queue runs at
 * `--node-eviction-rate` 0.1 node/s with a burst of 1: the first node is tainted as soon as it is
 * seen Unknown, the 100th 99 × 10 s = 990 s later. A node is seen Unknown at the earliest 40 s after
 * the stop (its last lease renewal up to 10 s before the stop + the 50 s `--node-monitor-grace-period`);
 * its pods, tolerating `unreachable` for 300 s (DefaultTolerationSeconds), are deleted 300 s after the
 * taint. So the last eviction is at least 40 + 990 + 300 = 1,330 s after the stop; the replacement's
 * scheduling and start (0.5–1 s) come on top.
 * Run alone: `node dist/bench/node-failure.js [nodes] [stopped] [replicas]`.
 */
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import type { Pod } from '../src/api/index.js';
import { startControlPlane } from '../src/cli/cluster.js';
import { MemoryBackend } from '../src/storage/memory/index.js';
import { FakeClock, realClock } from '../src/util/clock/index.js';
import { SeededRand } from '../src/util/random/index.js';
import { benchDeployment } from './workloads.js';

/** What {@link nodeFailure} measures; clock times in simulated seconds after the stop. */
export interface NodeFailureResult {
  /** Deployment pods that were on the stopped nodes. */
  evictedPods: number;
  /** When the first / last stopped node carried the unreachable NoExecute taint. */
  firstTaintSeconds: number;
  lastTaintSeconds: number;
  /** When every evicted pod was replaced by a Ready pod on another node. */
  allRunningElsewhereSeconds: number;
  /** The rate-limited lower bound of the last eviction (see the module comment). */
  lowerBoundSeconds: number;
  /** Real seconds the simulation took (set-up excluded). */
  wallSeconds: number;
}

const isReady = (p: Pod): boolean => (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** Runs the scenario (see the module comment). */
export async function nodeFailure(nodes = 1_000, stopped = 100, replicas = 1_000): Promise<NodeFailureResult> {
  const clock = new FakeClock();
  const backend = new MemoryBackend();
  const starting = startControlPlane({ backend, nodes, clock, rand: new SeededRand(1), logger: pino({ level: 'silent' }) });
  let started = false;
  void starting.then(() => (started = true));
  while (!started) await clock.stepAsync(10);
  const cp = await starting;
  try {
    const pods = async (): Promise<readonly Pod[]> => (await cp.client.core.pods('default').list({ labelSelector: 'app=bench' })).items;
    await cp.client.apps.deployments('default').create(benchDeployment(replicas));
    for (;;) {
      const all = await pods();
      if (all.length === replicas && all.every(isReady)) break;
      await clock.stepAsync(100);
    }
    const victims = new Set(Array.from({ length: stopped }, (_, i) => `node-${i + 1}`));
    const onVictims = new Set((await pods()).filter((p) => victims.has(p.spec?.nodeName ?? '')).map((p) => p.metadata?.uid ?? ''));
    // A few seconds in, so the stop falls between two lease renewals, as it would.
    await clock.stepAsync(3_000);
    const wall0 = realClock.now();
    await Promise.all(
      [...victims].map((name) => cp.client.core.nodes().patch(name, 'application/merge-patch+json', { metadata: { annotations: { 'kubeplane.io/simulate': 'Stopped' } } })),
    );
    const t0 = clock.now();
    const since = (): number => (clock.now() - t0) / 1000;
    let firstTaint: number | undefined;
    let lastTaint: number | undefined;
    for (;;) {
      await clock.stepAsync(1_000);
      if (lastTaint === undefined) {
        const tainted = (await cp.client.core.nodes().list()).items.filter(
          (n) => victims.has(n.metadata?.name ?? '') && (n.spec?.taints ?? []).some((t) => t.key === 'node.kubernetes.io/unreachable' && t.effect === 'NoExecute'),
        ).length;
        if (tainted > 0) firstTaint ??= since();
        if (tainted === stopped) lastTaint = since();
      }
      const all = await pods();
      const evictedAll = all.filter((p) => onVictims.has(p.metadata?.uid ?? '')).every((p) => p.metadata?.deletionTimestamp);
      const live = all.filter((p) => !p.metadata?.deletionTimestamp);
      if (evictedAll && live.length === replicas && live.every((p) => isReady(p) && !victims.has(p.spec?.nodeName ?? ''))) break;
      if (since() > 4 * 3600) throw new Error('evicted pods not replaced within 4 simulated hours');
    }
    return {
      evictedPods: onVictims.size,
      firstTaintSeconds: firstTaint ?? NaN,
      lastTaintSeconds: lastTaint ?? NaN,
      allRunningElsewhereSeconds: since(),
      lowerBoundSeconds: 40 + (stopped - 1) * 10 + 300,
      wallSeconds: (realClock.now() - wall0) / 1000,
    };
  } finally {
    await cp.stop();
    await backend.close();
  }
}

/** The `npm run bench` line for {@link nodeFailure}. */
export function nodeFailureBenchLine(nodes: number, stopped: number, replicas: number, r: NodeFailureResult): string {
  return (
    `node failure: ${nodes} nodes, ${replicas}-replica Deployment, ${stopped} nodes stopped at once (${r.evictedPods} pods on them) → ` +
    `tainted from ${r.firstTaintSeconds.toFixed(0)} s to ${r.lastTaintSeconds.toFixed(0)} s, every evicted pod Running elsewhere at ${r.allRunningElsewhereSeconds.toFixed(0)} s ` +
    `(rate-limited lower bound ${r.lowerBoundSeconds} s: Unknown 40 s after the stop (50 s grace, the last renewal up to 10 s before) + ${stopped - 1} × 10 s at --node-eviction-rate 0.1 + 300 s toleration); ` +
    `fake clock (simulated seconds), simulated in ${r.wallSeconds.toFixed(0)} s of wall time`
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [nodes, stopped, replicas] = process.argv.slice(2).map(Number);
  const n = nodes || 1_000;
  const s = stopped || 100;
  const r = replicas || 1_000;
  nodeFailure(n, s, r).then(
    (res) => {
      process.stdout.write(nodeFailureBenchLine(n, s, r, res) + '\n');
      process.exit(0);
    },
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}
