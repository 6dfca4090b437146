/**
 * LIST-memory bench: the API server's peak resident set size while `concurrency` clients LIST
 * `pods` pods at once over HTTPS, as informers (plain JSON) and `kubectl get pods` (a Table) do.
 * The server runs in a child process (bench/list-memory-server.ts) so that the clients' own memory
 * is not counted; the clients read and discard the bodies. Goal: under 1 GB for 200 LISTs of 10,000
 * pods, i.e. memory proportional to the page being written, not to the result times the callers.
 *
 * Run alone: `node dist/bench/list-memory.js [pods] [concurrency]`.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

/** Figures of one run, sizes in bytes. */
export interface ListMemoryResult {
  baselineRss: number;
  peakRss: number;
  seconds: number;
  /** Size of one response body. */
  bytesPerList: number;
}

const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

interface Server {
  child: ChildProcess;
  port: number;
  ca: string;
  token: string;
  rss: number;
}

function nextMessage<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: { type: string }): void => {
      if (m.type !== type) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(m as T);
    };
    const onExit = (code: number | null): void => reject(new Error(`list-memory server exited with ${code}`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

async function startServer(pods: number): Promise<Server> {
  const child = fork(join(dirname(fileURLToPath(import.meta.url)), 'list-memory-server.js'), [String(pods)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = await nextMessage<{ port: number; dataDir: string; rss: number }>(child, 'ready');
  return {
    child,
    port: ready.port,
    rss: ready.rss,
    ca: readFileSync(join(ready.dataDir, 'ca.crt'), 'utf8'),
    token: readFileSync(join(ready.dataDir, 'token'), 'utf8').trim(),
  };
}

/** One LIST: resolves with the body's size; checks the status and, when `check`, the item count. */
function list(server: Server, agent: https.Agent, accept: string, check?: (body: string) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port: server.port, path: '/api/v1/namespaces/default/pods', ca: server.ca, agent, headers: { authorization: `Bearer ${server.token}`, accept } },
      (res) => {
        let size = 0;
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => {
          size += d.length;
          if (check) chunks.push(d);
        });
        res.on('end', () => {
          if (res.statusCode !== 200) {
            reject(new Error(`LIST answered ${res.statusCode}`));
            return;
          }
          try {
            check?.(Buffer.concat(chunks).toString());
            resolve(size);
          } catch (err) {
            reject(err instanceof Error ? err : new Error(String(err)));
          }
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** `concurrency` LISTs at once against a running server; the peak is the server's own. */
async function measure(server: Server, pods: number, concurrency: number, accept: string): Promise<ListMemoryResult> {
  const agent = new https.Agent({ keepAlive: false, maxSockets: Infinity });
  const countOf = (body: string): number => {
    const parsed = JSON.parse(body) as { items?: unknown[]; rows?: unknown[] };
    return (parsed.items ?? parsed.rows ?? []).length;
  };
  const check = (body: string): void => {
    if (countOf(body) !== pods) throw new Error(`expected ${pods} items, got ${countOf(body)}`);
  };
  await list(server, agent, accept, check); // warm-up: every pod's JSON is serialized (and cached) once
  server.child.send({ type: 'reset' });
  server.child.send({ type: 'report' });
  const baseline = await nextMessage<{ rss: number }>(server.child, 'report');
  const t0 = performance.now();
  const sizes = await Promise.all(Array.from({ length: concurrency }, (_, i) => list(server, agent, accept, i === 0 ? check : undefined)));
  const seconds = (performance.now() - t0) / 1000;
  server.child.send({ type: 'report' });
  const after = await nextMessage<{ peak: number }>(server.child, 'report');
  agent.destroy();
  return { baselineRss: baseline.rss, peakRss: after.peak, seconds, bytesPerList: sizes[0] ?? 0 };
}

/**
 * Starts the server with `pods` pods, then measures `concurrency` concurrent plain-JSON LISTs and
 * `concurrency` concurrent Table LISTs (one after the other, the peak reset in between).
 */
export async function listMemory(pods = 10_000, concurrency = 200): Promise<{ json: ListMemoryResult; table: ListMemoryResult }> {
  const server = await startServer(pods);
  try {
    const json = await measure(server, pods, concurrency, 'application/json');
    const table = await measure(server, pods, concurrency, TABLE_ACCEPT);
    return { json, table };
  } finally {
    server.child.send({ type: 'stop' });
    await new Promise((r) => server.child.once('exit', r));
  }
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

/** The bench's report lines for one run. */
export function listMemoryLines(pods: number, concurrency: number, r: { json: ListMemoryResult; table: ListMemoryResult }): string[] {
  return (
    [
      ['JSON', r.json],
      ['Table', r.table],
    ] as const
  ).map(
    ([what, m]) =>
      `server RSS during ${concurrency} concurrent ${what} LISTs of ${pods} pods (${mb(m.bytesPerList)} each): ` +
      `baseline ${mb(m.baselineRss)}, peak ${mb(m.peakRss)}, all done in ${m.seconds.toFixed(1)} s`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const pods = Number(process.argv[2] ?? 10_000);
  const concurrency = Number(process.argv[3] ?? 200);
  listMemory(pods, concurrency).then(
    (r) => {
      for (const l of listMemoryLines(pods, concurrency, r)) process.stdout.write(l + '\n');
      process.exit(0);
    },
    (err: unknown) => {
      process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
