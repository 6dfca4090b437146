/** Throughput of a batch of asynchronous operations, for the bench sections. */
import { performance } from 'node:perf_hooks';

/**
 * Runs `work(i)` for i in [0, n), `concurrency` at once (as a controller's workers or an installer's
 * client keep requests in flight); returns operations per second of wall-clock time.
 */
export async function opsPerSecond(n: number, concurrency: number, work: (i: number) => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i += concurrency) await Promise.all(Array.from({ length: Math.min(concurrency, n - i) }, (_, j) => work(i + j)));
  return n / ((performance.now() - t0) / 1000);
}
