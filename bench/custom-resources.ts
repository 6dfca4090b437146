/**
 * Custom-resource bench: in-process on SQLite, creates `n` ConfigMaps, then the Prometheus Operator's
 * 13,927-line Prometheus CRD (test/fixtures/crds), waits for it to be Established, and creates `n`
 * Prometheus custom resources — each one decoded, pruned, defaulted and validated against that schema,
 * CEL rules included — with the same client and concurrency. Reports creates/s of each and their ratio.
 * Never run by the tests. Run alone: `node dist/bench/custom-resources.js [n]`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { opsPerSecond } from './ops-per-second.js';
import { pino } from 'pino';
import { parse } from 'yaml';
import { startCluster } from '../src/cli/cluster.js';
import type { CustomResourceDefinition } from '../src/api/index.js';
import type { ResourceDescriptor } from '../src/client/index.js';
import { realClock } from '../src/util/clock/index.js';

const repoRoot = resolve(fileURLToPath(import.meta.url), '../../..');
/** Creates in flight at once, as a controller's or an installer's client would have. */
const CONCURRENCY = 25;

/** What {@link customResourceCreates} measured. */
export interface CustomResourceBenchResult {
  configMapsPerSecond: number;
  customResourcesPerSecond: number;
  /** From the CRD's create to its Established condition, ms. */
  establishMs: number;
}


/** Measures `n` ConfigMap creates, then `n` Prometheus custom-resource creates, on one fresh cluster. */
export async function customResourceCreates(n: number): Promise<CustomResourceBenchResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kubeplane-bench-cr-'));
  const cluster = await startCluster({ nodes: 1, port: 0, dataDir, datastore: 'sqlite', logger: pino({ level: 'silent' }) });
  try {
    const configMaps = cluster.client.core.configMaps('default');
    const configMapsPerSecond = await opsPerSecond(n, CONCURRENCY, (i) =>
      configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, labels: { shard: String(i % 4) } }, data: { 'prometheus.yaml': 'scrape_interval: 30s\n' } }),
    );

    const crd = parse(readFileSync(join(repoRoot, 'test/fixtures/crds/monitoring.coreos.com_prometheuses.yaml'), 'utf8')) as CustomResourceDefinition;
    const crds = cluster.client.apiextensions.customResourceDefinitions();
    const t0 = performance.now();
    await crds.create(crd);
    for (;;) {
      const got = await crds.get(crd.metadata?.name ?? '');
      if (got.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) break;
      await realClock.sleep(5);
    }
    const establishMs = performance.now() - t0;

    const prometheuses: ResourceDescriptor = { group: 'monitoring.coreos.com', version: 'v1', resource: 'prometheuses', kind: 'Prometheus', namespaced: true };
    const client = cluster.client.resource(prometheuses, 'default');
    const customResourcesPerSecond = await opsPerSecond(n, CONCURRENCY, (i) =>
      client.create({
        apiVersion: 'monitoring.coreos.com/v1',
        kind: 'Prometheus',
        metadata: { name: `prom-${i}`, labels: { shard: String(i % 4) } },
        spec: { replicas: 2, serviceAccountName: 'prometheus', serviceMonitorSelector: {}, retention: '15d' },
      }),
    );
    return { configMapsPerSecond, customResourcesPerSecond, establishMs };
  } finally {
    await cluster.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The bench's report line. */
export function customResourceBenchLine(n: number, r: CustomResourceBenchResult): string {
  return (
    `${n} custom resources of the 13,927-line Prometheus CRD: ${r.customResourcesPerSecond.toFixed(0)} creates/s against ` +
    `${r.configMapsPerSecond.toFixed(0)} ConfigMap creates/s (${(r.customResourcesPerSecond / r.configMapsPerSecond).toFixed(2)} ×), ` +
    `${CONCURRENCY} in flight; the CRD Established ${r.establishMs.toFixed(0)} ms after its create`
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const n = Number(process.argv[2] ?? 1000);
  customResourceCreates(n).then(
    (r) => {
      process.stdout.write(customResourceBenchLine(n, r) + '\n');
      process.exit(0);
    },
    (err: unknown) => {
      process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
