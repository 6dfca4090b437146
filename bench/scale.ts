/**
 * `npm run bench:scale` (issue 18): the upstream scalability envelope on one machine. `kubeplane up`
 * runs in a child process with 5,000 simulated nodes on SQLite (per-pod kubelet events off); Deployments of 5,000 replicas are
 * added until the cluster holds 25k, 50k, 100k and 150k pods. For each step it prints:
 *
 * - pods/s of the step (from the first create until every pod of the step is Ready), as a ratio to
 *   the raw SQLite insert rate measured in the same run (the design goal is ≥ 0.1, on the way to 0.3);
 * - the server's RSS at the end of the step and its peak so far (VmHWM), and the database size;
 * - p50/p99 latencies of the calls upstream's API call latency SLOs cover, issued over HTTPS while
 *   the step rolls out: GET of one pod, PATCH and create of a ConfigMap (mutating, SLO p99 ≤ 1 s), a
 *   namespace's pod LIST (SLO p99 ≤ 5 s) and, after the step, the cluster-wide pod LIST (SLO p99 ≤ 30
 *   s; the body is read and discarded, never held whole);
 * - the server's own view of those latencies: `apiserver_request_duration_seconds` quantiles read from
 *   `/metrics` when the server exports it.
 *
 * Run: `npm run bench:scale`, or `node dist/bench/scale.js [steps, e.g. 25000,50000] [nodes]`.
 * The default run takes about 15–30 minutes on 2 cores.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { benchDeployment } from './workloads.js';
import { rawSqliteWrites } from './raw-sqlite.js';

const repoRoot = resolve(fileURLToPath(import.meta.url), '../../..');
const line = (s: string): void => void process.stdout.write(s + '\n');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Replicas of each Deployment a step adds. */
const DEPLOYMENT_SIZE = 5_000;
/** Upstream's API call latency SLOs (kubernetes/community sig-scalability/slos/api_call_latency.md), p99 in ms. */
const SLO_MS = { get: 1_000, patch: 1_000, create: 1_000, namespaceList: 5_000, clusterList: 30_000 } as const;

/** A `kubeplane up` child and what it takes to talk to it. */
interface Server {
  child: ChildProcess;
  port: number;
  ca: string;
  token: string;
  dataDir: string;
}

async function startServer(nodes: number): Promise<Server> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kubeplane-bench-scale-'));
  // Per-pod kubelet events off, as the README advises for very large runs: 150,000 pods would queue
  // ~600,000 Pulling/Pulled/Created/Started events behind the pods' own writes.
  const args = ['up', '--port', '0', '--data-dir', dataDir, '--nodes', String(nodes), '--log-level', 'error', '--kubelet-pod-events=false'];
  const child = spawn(process.execPath, [join(repoRoot, 'dist/src/cli/main.js'), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  for (;;) {
    const m = /API server at https:\/\/[^:]+:(\d+)/.exec(out);
    if (m) return { child, port: Number(m[1]), dataDir, ca: readFileSync(join(dataDir, 'ca.crt'), 'utf8'), token: readFileSync(join(dataDir, 'token'), 'utf8').trim() };
    if (child.exitCode !== null) throw new Error(`kubeplane up exited with ${child.exitCode}`);
    await sleep(20);
  }
}

/** One HTTPS call; resolves with the status and, unless `discard`, the body text. Bodies read as they come. */
function call(s: Server, method: string, path: string, body?: unknown, opts: { discard?: boolean; contentType?: string } = {}): Promise<{ code: number; text: string; bytes: number }> {
  return new Promise((resolvePromise, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = https.request(
      {
        host: '127.0.0.1',
        port: s.port,
        method,
        path,
        ca: s.ca,
        headers: {
          authorization: `Bearer ${s.token}`,
          accept: 'application/json',
          ...(data === undefined ? {} : { 'content-type': opts.contentType ?? 'application/json', 'content-length': Buffer.byteLength(data) }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        res.on('data', (c: Buffer) => {
          bytes += c.length;
          if (!opts.discard) chunks.push(c);
        });
        res.on('end', () => resolvePromise({ code: res.statusCode ?? 0, text: Buffer.concat(chunks).toString(), bytes }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (data !== undefined) req.write(data);
    req.end();
  });
}

async function callOK(s: Server, method: string, path: string, body?: unknown, contentType?: string): Promise<string> {
  const r = await call(s, method, path, body, contentType === undefined ? {} : { contentType });
  if (r.code >= 300) throw new Error(`${method} ${path}: ${r.code} ${r.text.slice(0, 300)}`);
  return r.text;
}

/** Latency samples in ms by call kind. */
type Samples = Record<keyof typeof SLO_MS, number[]>;

function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
}

async function timed(samples: number[], f: () => Promise<unknown>): Promise<void> {
  const t0 = performance.now();
  await f();
  samples.push(performance.now() - t0);
}

/**
 * Issues the SLO calls one after another until `stop()`: GET of a pod, PATCH and create of a
 * ConfigMap in namespace `probe`, LIST of the `probe` namespace's 100 pods.
 */
/** ConfigMaps the probes created so far (names c-<n>, unique across steps). */
let probeCount = 0;

function probe(s: Server, samples: Samples, podPath: string): { stop: () => Promise<void> } {
  let running = true;
  const loop = (async () => {
    while (running) {
      const n = probeCount++;
      await timed(samples.get, () => callOK(s, 'GET', podPath));
      await timed(samples.patch, () => callOK(s, 'PATCH', '/api/v1/namespaces/probe/configmaps/probe', { data: { n: String(n) } }, 'application/merge-patch+json'));
      await timed(samples.create, () => callOK(s, 'POST', '/api/v1/namespaces/probe/configmaps', { metadata: { name: `c-${n}` }, data: { n: String(n) } }));
      await timed(samples.namespaceList, () => callOK(s, 'GET', '/api/v1/namespaces/probe/pods'));
      await sleep(200);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

/** VmRSS and VmHWM (peak) of `pid`, in bytes. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

function dbBytes(dataDir: string): number {
  let total = 0;
  for (const f of ['state.db', 'state.db-wal']) {
    try {
      total += statSync(join(dataDir, f)).size;
    } catch {
      // not there (no WAL yet)
    }
  }
  return total;
}

const GiB = 1024 ** 3;
const fmtMs = (ms: number): string => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
const fmtQ = (xs: readonly number[], slo: number): string => `p50 ${fmtMs(quantile(xs, 0.5))}, p99 ${fmtMs(quantile(xs, 0.99))} (SLO p99 ≤ ${fmtMs(slo)}, n=${xs.length})`;

/** Sum of `readyReplicas` over the Deployments of `namespace`. */
async function readyIn(s: Server, namespace: string): Promise<number> {
  const list = JSON.parse(await callOK(s, 'GET', `/apis/apps/v1/namespaces/${namespace}/deployments`)) as { items: { status?: { readyReplicas?: number } }[] };
  return list.items.reduce((n, d) => n + (d.status?.readyReplicas ?? 0), 0);
}

/** The p50/p99 of `apiserver_request_duration_seconds` per verb, from the histogram's buckets (undefined when not exported). */
async function serverLatencies(s: Server): Promise<string | undefined> {
  const text = (await call(s, 'GET', '/metrics')).text;
  const buckets = new Map<string, Map<number, number>>();
  for (const m of text.matchAll(/^apiserver_request_duration_seconds_bucket\{([^}]*)\} (\d+(?:\.\d+)?(?:e[+-]?\d+)?)$/gm)) {
    const labels: Record<string, string | undefined> = Object.fromEntries([...(m[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1] ?? '', l[2] ?? '']));
    if (labels.resource !== 'pods' && labels.resource !== 'configmaps') continue;
    const key = `${labels.verb} ${labels.resource}${labels.scope === 'cluster' ? ' (cluster)' : ''}`;
    const le = labels.le === '+Inf' ? Infinity : Number(labels.le);
    const byLe = buckets.get(key) ?? new Map<number, number>();
    byLe.set(le, (byLe.get(le) ?? 0) + Number(m[2]));
    buckets.set(key, byLe);
  }
  if (buckets.size === 0) return undefined;
  const q = (byLe: Map<number, number>, p: number): string => {
    const les = [...byLe.keys()].sort((a, b) => a - b);
    const total = byLe.get(Infinity) ?? 0;
    const le = les.find((l) => (byLe.get(l) ?? 0) >= p * total);
    return le === undefined || le === Infinity ? '>max' : `≤${le}s`;
  };
  return [...buckets].map(([k, byLe]) => `${k}: p50 ${q(byLe, 0.5)} p99 ${q(byLe, 0.99)}`).join('; ');
}

async function main(): Promise<void> {
  const steps = (process.argv[2] ?? '25000,50000,100000,150000').split(',').map(Number);
  const nodes = Number(process.argv[3] ?? 5_000);
  line(`kubeplane bench:scale — node ${process.version}, ${(await import('node:os')).cpus().length} cores, ${nodes} nodes, steps ${steps.join(' → ')} pods`);
  const raw = await rawSqliteWrites(50_000);
  line(`raw SQLite writes (batched creates, same machine, same run): ${raw.toFixed(0)} writes/s`);

  const t0 = performance.now();
  const s = await startServer(nodes);
  try {
    for (;;) {
      const list = JSON.parse(await callOK(s, 'GET', '/api/v1/nodes')) as { items: { status?: { conditions?: { type: string; status: string }[] } }[] };
      if (list.items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length >= nodes) break;
      await sleep(200);
    }
    line(`${nodes} nodes Ready ${((performance.now() - t0) / 1000).toFixed(1)} s after spawning kubeplane up; server RSS ${(memoryOf(s.child.pid ?? 0).rss / GiB).toFixed(2)} GiB`);

    // The probes' own objects: namespace probe with a 100-pod Deployment and a ConfigMap to patch.
    await callOK(s, 'POST', '/api/v1/namespaces', { metadata: { name: 'probe' } });
    await callOK(s, 'POST', '/apis/apps/v1/namespaces/probe/deployments', benchDeployment(100, { namespace: 'probe' }));
    await callOK(s, 'POST', '/api/v1/namespaces/probe/configmaps', { metadata: { name: 'probe' }, data: { n: '0' } });
    while ((await readyIn(s, 'probe')) < 100) await sleep(200);
    const podName = (JSON.parse(await callOK(s, 'GET', '/api/v1/namespaces/probe/pods?limit=1')) as { items: { metadata: { name: string } }[] }).items[0]?.metadata.name ?? '';

    let pods = 100;
    for (const [i, target] of steps.entries()) {
      const ns = `step-${i + 1}`;
      await callOK(s, 'POST', '/api/v1/namespaces', { metadata: { name: ns } });
      const samples: Samples = { get: [], patch: [], create: [], namespaceList: [], clusterList: [] };
      const probing = probe(s, samples, `/api/v1/namespaces/probe/pods/${podName}`);
      const started = performance.now();
      const want = Math.max(0, target - pods);
      const deployments = Math.ceil(want / DEPLOYMENT_SIZE);
      for (let d = 0; d < deployments; d++) {
        const dep = benchDeployment(Math.min(DEPLOYMENT_SIZE, want - d * DEPLOYMENT_SIZE), { namespace: ns });
        dep.metadata = { ...dep.metadata, name: `bench-${d}` };
        await callOK(s, 'POST', `/apis/apps/v1/namespaces/${ns}/deployments`, dep);
      }
      while ((await readyIn(s, ns)) < want) await sleep(500);
      const seconds = (performance.now() - started) / 1000;
      await probing.stop();
      pods += want;
      for (let l = 0; l < 3; l++) await timed(samples.clusterList, () => call(s, 'GET', '/api/v1/pods', undefined, { discard: true }));
      const mem = memoryOf(s.child.pid ?? 0);
      const rate = want / seconds;
      line(`step ${i + 1}: ${pods} pods (+${want} in ${deployments} Deployments) Ready in ${seconds.toFixed(1)} s: ${rate.toFixed(0)} pods/s = ${(rate / raw).toFixed(3)} × the raw insert rate; server RSS ${(mem.rss / GiB).toFixed(2)} GiB, peak ${(mem.peak / GiB).toFixed(2)} GiB; database ${(dbBytes(s.dataDir) / GiB).toFixed(2)} GiB`);
      line(`  GET pod ${fmtQ(samples.get, SLO_MS.get)}`);
      line(`  PATCH configmap ${fmtQ(samples.patch, SLO_MS.patch)}`);
      line(`  create configmap ${fmtQ(samples.create, SLO_MS.create)}`);
      line(`  LIST pods of a namespace (100) ${fmtQ(samples.namespaceList, SLO_MS.namespaceList)}`);
      line(`  LIST all ${pods} pods, after the step ${fmtQ(samples.clusterList, SLO_MS.clusterList)}`);
      const server = await serverLatencies(s);
      if (server !== undefined) line(`  server side (apiserver_request_duration_seconds, cumulative): ${server}`);
    }
    line('goals: ≥ 1,000 pods/s at every step; cluster-wide LIST of 150k pods p99 < 30 s, peak RSS < 4 GiB; steady RSS < 8 GiB; pods/s ≥ 0.1 × the raw insert rate (design goal 0.3)');
  } finally {
    s.child.kill('SIGINT');
    await new Promise((r) => s.child.once('exit', r));
    rmSync(s.dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench:scale failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
