/**
 * SQLite against a three-member etcd cluster (bench/main.ts): the 10,000-replica Deployment (instant
 * container start) on each store, side by side in one run, with each store's raw write rate measured
 * the same way (1,000 creates in flight at a time through the backend). The etcd members are real
 * `etcd` processes on loopback (src/storage/etcd/testing/members.ts), so they share the machine's two
 * cores with kubeplane, as a one-machine etcd cluster does. Skipped, with the reason, without etcd.
 * Run alone: `node dist/bench/etcd.js [replicas] [nodes]`.
 */
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import type { Backend } from '../src/storage/index.js';
import { EtcdBackend } from '../src/storage/etcd/index.js';
import { etcdSkipReason, startEtcdCluster } from '../src/storage/etcd/testing/members.js';
import { deploymentToReady } from './deployment-ready.js';
import { rawSqliteWrites, rawWrites } from './raw-sqlite.js';

/** The figures of one comparison. */
export interface EtcdComparison {
  sqlitePodsPerSecond: number;
  etcdPodsPerSecond: number;
  rawSqliteWritesPerSecond: number;
  rawEtcdPutsPerSecond: number;
}

/** Writes/s of `n` creates through `backend`, 1,000 in flight at a time (see ./raw-sqlite.ts). */
async function rawEtcdPuts(servers: string[], n: number): Promise<number> {
  const backend: Backend = await EtcdBackend.open({ servers, prefix: '/bench-raw' });
  try {
    return await rawWrites(backend, n);
  } finally {
    await backend.close();
  }
}

/**
 * Runs the comparison: a fresh three-member etcd cluster for the raw rate and another for the
 * Deployment, so neither measures the other's leftovers.
 * @throws Error when etcd is not installed
 */
export async function compareSqliteEtcd(replicas: number, nodes: number): Promise<EtcdComparison> {
  const rawSqliteWritesPerSecond = await rawSqliteWrites(50_000);
  const sqlite = await deploymentToReady(replicas, nodes, 0);
  let etcd = await startEtcdCluster(3);
  let rawEtcdPutsPerSecond: number;
  try {
    rawEtcdPutsPerSecond = await rawEtcdPuts(etcd.clientUrls, 50_000);
  } finally {
    await etcd.stop();
  }
  etcd = await startEtcdCluster(3);
  try {
    const onEtcd = await deploymentToReady(replicas, nodes, 0, true, etcd.clientUrls);
    return { sqlitePodsPerSecond: sqlite.podsPerSecond, etcdPodsPerSecond: onEtcd.podsPerSecond, rawSqliteWritesPerSecond, rawEtcdPutsPerSecond };
  } finally {
    await etcd.stop();
  }
}

/** The bench's lines for a comparison, or the reason it was skipped. */
export async function etcdLines(replicas: number, nodes: number): Promise<string[]> {
  const skip = etcdSkipReason();
  if (skip !== undefined) return [`SQLite against etcd: skipped, ${skip}`];
  const t0 = performance.now();
  const r = await compareSqliteEtcd(replicas, nodes);
  return [
    `Deployment of ${replicas} replicas on ${nodes} nodes (instant container start), SQLite / 3-member etcd on this machine: ` +
      `${r.sqlitePodsPerSecond.toFixed(0)} / ${r.etcdPodsPerSecond.toFixed(0)} pods/s (etcd ${(r.etcdPodsPerSecond / r.sqlitePodsPerSecond).toFixed(2)} × SQLite)`,
    `  raw writes, 1,000 creates in flight: SQLite ${r.rawSqliteWritesPerSecond.toFixed(0)} /s, etcd ${r.rawEtcdPutsPerSecond.toFixed(0)} puts/s; ` +
      `pods/s over raw: SQLite ${(r.sqlitePodsPerSecond / r.rawSqliteWritesPerSecond).toFixed(4)}, etcd ${(r.etcdPodsPerSecond / r.rawEtcdPutsPerSecond).toFixed(4)} ` +
      `(comparison took ${((performance.now() - t0) / 1000).toFixed(0)} s)`,
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const replicas = Number(process.argv[2] ?? 10_000);
  const nodes = Number(process.argv[3] ?? 100);
  etcdLines(replicas, nodes).then(
    (lines) => {
      process.stdout.write(lines.join('\n') + '\n');
      process.exit(0);
    },
    (err: unknown) => {
      process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
