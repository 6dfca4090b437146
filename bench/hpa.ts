/**
 * HPA bench: N HorizontalPodAutoscalers over N one-replica Deployments, in-process on SQLite. Measures
 * whether the sync period holds (how many times each HPA was evaluated in a window, against
 * window / 15 s) and the CPU the evaluations cost: the process's CPU time over the window with the
 * HPAs, minus the same window before they existed, as a share of one core. Evaluations are counted
 * at the metrics client, which each evaluation of a Resource metric calls once; it reads
 * metrics.k8s.io through the API, as the controller does by default. Never run by the tests.
 * Run alone: `node dist/bench/hpa.js [hpas] [windowSeconds]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { startCluster } from '../src/cli/cluster.js';
import { RestMetricsClient, catalogueRESTMapper, type MetricsClient } from '../src/controller/podautoscaler/index.js';
import { realClock } from '../src/util/clock/index.js';

/** What {@link hpaSyncCost} measured. */
export interface HPABenchResult {
  /** Evaluations per HPA within the window: the fewest, and the mean. */
  minEvaluations: number;
  meanEvaluations: number;
  /** window / sync period: what every HPA should get. */
  expectedEvaluations: number;
  /** CPU seconds per wall second (1 = one core) with the HPAs, and without them. */
  cpuShare: number;
  baselineCpuShare: number;
}

const SYNC_PERIOD_S = 15;

/** CPU seconds per wall second of this process over `seconds`. */
async function cpuShareOver(seconds: number): Promise<number> {
  const c0 = process.cpuUsage();
  const t0 = realClock.now();
  await realClock.sleep(seconds * 1000);
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000 / (realClock.now() - t0);
}

/**
 * Starts a cluster, creates `n` Deployments of one pod (100m cpu requested) and waits for their pods to
 * be Ready, measures a `windowSeconds` baseline, creates an HPA per Deployment (cpu 50 %, 1–5
 * replicas), lets one sync period pass, then measures the window again counting evaluations.
 */
export async function hpaSyncCost(n: number, windowSeconds: number): Promise<HPABenchResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kubeplane-bench-hpa-'));
  const evaluations = new Map<string, number>();
  let counting = false;
  /** The REST client, once the cluster exists. */
  const holder: { inner?: MetricsClient } = {};
  const metrics = (): MetricsClient => {
    if (!holder.inner) throw new Error('cluster not started');
    return holder.inner;
  };
  // Counts each evaluation (by its selector, one per HPA) and reads through the API server.
  const metricsClient: MetricsClient = {
    getResourceMetric(resource, namespace, selector, container) {
      if (counting) evaluations.set(selector.toString(), (evaluations.get(selector.toString()) ?? 0) + 1);
      return metrics().getResourceMetric(resource, namespace, selector, container);
    },
    getRawMetric: (...a) => metrics().getRawMetric(...a),
    getObjectMetric: (...a) => metrics().getObjectMetric(...a),
    getExternalMetric: (...a) => metrics().getExternalMetric(...a),
  };
  const cluster = await startCluster({ nodes: 20, port: 0, dataDir, datastore: 'sqlite', logger: pino({ level: 'silent' }), hpa: { metricsClient } });
  holder.inner = new RestMetricsClient(cluster.client, catalogueRESTMapper);
  try {
    const deployments = cluster.client.apps.deployments('default');
    for (let i = 0; i < n; i += 100) {
      await Promise.all(
        Array.from({ length: Math.min(100, n - i) }, (_, j) =>
          deployments.create({
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            metadata: { name: `bench-${i + j}` },
            spec: {
              replicas: 1,
              selector: { matchLabels: { app: `bench-${i + j}` } },
              template: { metadata: { labels: { app: `bench-${i + j}` } }, spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '100m' } } }] } },
            },
          }),
        ),
      );
    }
    for (;;) {
      const ready = (await deployments.list()).items.filter((d) => (d.status?.readyReplicas ?? 0) >= 1).length;
      if (ready >= n) break;
      await realClock.sleep(200);
    }
    const baselineCpuShare = await cpuShareOver(windowSeconds);
    const hpas = cluster.client.autoscaling.horizontalPodAutoscalers('default');
    for (let i = 0; i < n; i += 100) {
      await Promise.all(
        Array.from({ length: Math.min(100, n - i) }, (_, j) =>
          hpas.create({
            apiVersion: 'autoscaling/v2',
            kind: 'HorizontalPodAutoscaler',
            metadata: { name: `bench-${i + j}` },
            spec: {
              scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: `bench-${i + j}` },
              minReplicas: 1,
              maxReplicas: 5,
              metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }],
            },
          }),
        ),
      );
    }
    // Every HPA has had its first evaluation (one period after creation) before the window opens.
    await realClock.sleep((SYNC_PERIOD_S + 2) * 1000);
    counting = true;
    const cpuShare = await cpuShareOver(windowSeconds);
    counting = false;
    const counts = Array.from({ length: n }, (_, i) => evaluations.get(`app=bench-${i}`) ?? 0);
    return {
      minEvaluations: Math.min(...counts),
      meanEvaluations: counts.reduce((a, b) => a + b, 0) / n,
      expectedEvaluations: windowSeconds / SYNC_PERIOD_S,
      cpuShare,
      baselineCpuShare,
    };
  } finally {
    await cluster.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The bench's report line. */
export function hpaBenchLine(n: number, windowSeconds: number, r: HPABenchResult): string {
  return (
    `${n} HPAs over ${n} Deployments, ${windowSeconds} s window: each evaluated ${r.minEvaluations}–${r.meanEvaluations.toFixed(2)} (min–mean) times ` +
    `for ${r.expectedEvaluations.toFixed(1)} sync periods of ${SYNC_PERIOD_S} s; process CPU ${(100 * r.cpuShare).toFixed(1)} % of a core ` +
    `(${(100 * r.baselineCpuShare).toFixed(1)} % without the HPAs, so the HPAs cost ${(100 * (r.cpuShare - r.baselineCpuShare)).toFixed(1)} %)`
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const n = Number(process.argv[2] ?? 1000);
  const windowSeconds = Number(process.argv[3] ?? 60);
  hpaSyncCost(n, windowSeconds).then(
    (r) => {
      process.stdout.write(hpaBenchLine(n, windowSeconds, r) + '\n');
      process.exit(0);
    },
    (err: unknown) => {
      process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
