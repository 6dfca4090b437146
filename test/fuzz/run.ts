/**
 * The fuzz loop shared by the test (`api-fuzz.test.ts`, a few thousand seeded cases), `npm run fuzz`
 * (100,000 cases) and `npm run bench` (the rate of rejected cases per second).
 */
import fc from 'fast-check';
import { performance } from 'node:perf_hooks';
import { caseArb } from './arbitraries.js';
import { FuzzServer, type FuzzStats } from './harness.js';

/** Options of {@link fuzz}. */
export interface FuzzOptions {
  mode: 'api' | 'cluster';
  /** fast-check seed: the same seed runs the same cases. */
  seed: number;
  cases: number;
  /** `/readyz` is checked every this many cases (default 50). */
  readyEvery?: number;
  /** Cluster mode: the FakeClock moves 500 ms every this many cases (default 20). */
  stepEvery?: number;
}

/** What a run measured. */
export interface FuzzResult {
  stats: FuzzStats;
  /** Wall-clock seconds the cases took (for figures only; nothing asserts on it). */
  seconds: number;
  /** The server after the run (still running; the caller stops it). */
  server: FuzzServer;
}

/**
 * Runs `cases` seeded cases against a fresh server and checks the invariants of harness.ts after
 * every case and `/readyz` now and then. Rejects with the violation and the case that
 * caused it (seed and path reproduce it). The server is returned running so the caller can check more.
 */
export async function fuzz(opts: FuzzOptions): Promise<FuzzResult> {
  const server = await FuzzServer.start(opts.mode, opts.seed);
  const readyEvery = opts.readyEvery ?? 50;
  const stepEvery = opts.stepEvery ?? 20;
  const t0 = performance.now();
  try {
    const details = await fc.check(
      fc.asyncProperty(caseArb, async (c) => {
        await server.run(c);
        const n = server.stats.cases;
        if (n % readyEvery === 0) await server.checkReady();
        if (opts.mode === 'cluster' && n % stepEvery === 0) await server.clock.stepAsync(500);
      }),
      { seed: opts.seed, numRuns: opts.cases, endOnFailure: true },
    );
    if (details.failed) {
      const example = JSON.stringify(details.counterexample)?.slice(0, 2000) ?? '';
      const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
      throw new Error(`fuzz case ${details.numRuns} of seed ${opts.seed} (path ${details.counterexamplePath ?? ''}) failed: ${cause}\ncase: ${example}`);
    }
    await server.checkReady();
  } catch (err) {
    await server.stop();
    throw err;
  }
  return { stats: server.stats, seconds: (performance.now() - t0) / 1000, server };
}
