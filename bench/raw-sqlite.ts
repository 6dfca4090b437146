/**
 * The yardstick of the pods/s figures: the raw SQLite write rate of this machine, measured in the same
 * run as what it is compared with.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Backend } from '../src/storage/interface.js';
import { SqliteBackend } from '../src/storage/sqlite/index.js';

/**
 * Creates `n` small single-key objects through `backend`, 1,000 issued concurrently at a time (so a
 * backend that batches puts them into shared transactions); returns writes/s.
 */
export async function rawWrites(backend: Backend, n: number): Promise<number> {
  const value = JSON.stringify({ kind: 'Pod', metadata: { name: 'x'.repeat(20) }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
  const t0 = performance.now();
  const batch = 1000;
  for (let i = 0; i < n; i += batch) {
    const writes: Promise<unknown>[] = [];
    for (let j = i; j < Math.min(n, i + batch); j++) writes.push(backend.create(`/registry/pods/default/p-${j}`, value));
    await Promise.all(writes);
  }
  return n / ((performance.now() - t0) / 1000);
}

/** {@link rawWrites} on a fresh SQLite database file. */
export async function rawSqliteWrites(n: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'kubeplane-bench-sqlite-'));
  const backend = new SqliteBackend({ path: join(dir, 'raw.db') });
  try {
    return await rawWrites(backend, n);
  } finally {
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
