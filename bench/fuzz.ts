/**
 * `npm run fuzz`: the API fuzzer at length (default 100,000 cases on the API server, then 10,000 on
 * the whole control plane) with its figures. Options: `--cases N`, `--cluster-cases N`, `--seed S`.
 * Exits 1 with fast-check's report (the shrunk failing case) on the first violation.
 */
import { parseArgs } from 'node:util';
import { fuzz } from '../test/fuzz/run.js';

const { values } = parseArgs({
  options: {
    cases: { type: 'string', default: '100000' },
    'cluster-cases': { type: 'string', default: '10000' },
    seed: { type: 'string', default: '1' },
  },
});
const seed = Number(values.seed);
const line = (s: string): void => void process.stdout.write(s + '\n');

for (const [mode, cases] of [['api', Number(values.cases)], ['cluster', Number(values['cluster-cases'])]] as const) {
  if (cases <= 0) continue;
  try {
    const { stats, seconds, server } = await fuzz({ mode, seed, cases });
    await server.stop();
    line(`${mode}: ${stats.cases} cases (${stats.requests} requests) in ${seconds.toFixed(1)} s — ${(stats.cases / seconds).toFixed(0)} cases/s`);
    line(`  fuzzed requests accepted ${stats.accepted}, rejected with a 4xx Status ${stats.rejected} (${(stats.rejected / seconds).toFixed(0)} rejections/s), 5xx 0`);
    line(`  by status: ${Object.entries(stats.byStatus).map(([s, n]) => `${s}×${n}`).join(' ')}`);
  } catch (err) {
    line(`${mode}: FAILED`);
    line(err instanceof Error ? err.message : String(err));
    process.exit(1);
  }
}
