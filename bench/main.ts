/**
 * `npm run bench`: prints figures for this machine. Never run by the tests.
 *
 * 1. Start-up: time from spawning `kubeplane up` until `kubectl get nodes` shows every node Ready.
 * 2. Raw SQLite write rate: single-key creates through the storage backend, issued concurrently
 *    (batched into shared transactions), in the same run, as the yardstick for (3).
 * 3. Deployment to Ready: pods/s for a 1,000- and a 10,000-replica Deployment to have every pod
 *    Ready, in-process on SQLite, and as a ratio to the raw write rate. Each pod costs several writes
 *    (create, bind, status) plus ReplicaSet/Deployment status updates and events.
 * 4. Rolling update: time for a 25%/25% rolling update of a Ready 1,000- and 10,000-replica Deployment.
 *    Then SQLite against a three-member etcd cluster: the 10,000-replica Deployment on each, and each
 *    store's raw write rate (./etcd.ts; skipped without etcd). Then SQLite's writer thread: five
 *    2,000-replica Deployments rolled out with the writes in a worker thread and on the event loop, as
 *    ratios (./writer-thread.ts).
 * 5. DaemonSet: time to cover 1,000 and 5,000 simulated nodes, and for a rolling update across them
 *    with maxUnavailable 10%.
 * 6. StatefulSet: time for a 1,000-replica Parallel StatefulSet with a claim per pod to be Ready, and
 *    for a 100-replica OrderedReady one (pods one after another).
 * 7. Job: time for a Job of 10,000 completions with parallelism 500 to be Complete, and pods/s.
 * 8. Namespace deletion: time to delete a namespace holding 10,000 pods and their owners.
 * 9. LIST memory: the API server's peak RSS while 200 clients LIST 10,000 pods at once over HTTPS
 *    (plain JSON, then Tables). Run alone: `node dist/bench/list-memory.js [pods] [concurrency]`.
 * 10. API fuzzing: seeded hostile requests (test/fuzz) per second, and how many of them were rejected
 *    with a 4xx Status per second. At length: `npm run fuzz`.
 * 11. HPA: 1,000 HorizontalPodAutoscalers over 1,000 Deployments — how often each is evaluated in a
 *    60 s window (the sync period is 15 s) and the CPU that costs. Run alone: `node dist/bench/hpa.js`.
 * 12. Custom resources: creates/s of 1,000 Prometheus custom resources (the operator's 13,927-line CRD:
 *    pruned, defaulted, validated, CEL rules run) next to 1,000 ConfigMap creates in the same run.
 *    Run alone: `node dist/bench/custom-resources.js [n]`.
 * 13. managedFields: updates/s of 500 Deployments (merge patches, /status) with field ownership tracked
 *    against the same workload untracked in the same run, and server-side applies/s. Run alone:
 *    `node dist/bench/managed-fields.js [n] [updates]`.
 * 14. Node failure: 100 of 1,000 nodes stop at once under a 1,000-replica Deployment — simulated
 *    seconds (FakeClock) until every evicted pod is Running elsewhere, against the lower bound the
 *    node lifecycle controller's per-zone eviction rate implies. Run alone: `node dist/bench/node-failure.js`.
 * 15. Authorization: GETs/s as a token user over HTTPS with RBAC against AlwaysAllow in the same run,
 *    with 1,000 ClusterRoles and 1,000 Roles bound, and the authorizer's decisions/s alone. Run alone:
 *    `node dist/bench/authorization.js [requests]`.
 */
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { rawSqliteWrites } from './raw-sqlite.js';
import { etcdLines } from './etcd.js';
import { deploymentToReady } from './deployment-ready.js';
import { rollingUpdate } from './rolling-update.js';
import { daemonSetCoverage } from './daemonset.js';
import { namespaceDeletion } from './namespace-delete.js';
import { statefulSetToReady } from './statefulset.js';
import { jobToComplete } from './job.js';
import { fuzz } from '../test/fuzz/run.js';
import { listMemory, listMemoryLines } from './list-memory.js';
import { hpaBenchLine, hpaSyncCost } from './hpa.js';
import { customResourceBenchLine, customResourceCreates } from './custom-resources.js';
import { managedFieldsBenchLine, managedFieldsCost } from './managed-fields.js';
import { nodeFailure, nodeFailureBenchLine } from './node-failure.js';
import { authorizationBenchLines, authorizationCost } from './authorization.js';
import { writerRunAlone, writerThreadLines } from './writer-thread.js';

const repoRoot = resolve(fileURLToPath(import.meta.url), '../../..');
const line = (s: string): void => void process.stdout.write(s + '\n');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function startupToNodesReady(nodes: number): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kubeplane-bench-'));
  const t0 = performance.now();
  const child = spawn(process.execPath, [join(repoRoot, 'dist/src/cli/main.js'), 'up', '--port', '0', '--data-dir', dataDir, '--nodes', String(nodes)], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  while (!out.includes('kubeplane is ready')) await sleep(5);
  const kubeconfig = join(dataDir, 'kubeconfig');
  for (;;) {
    const json = execFileSync('kubectl', ['get', 'nodes', '-o', 'json'], { env: { ...process.env, KUBECONFIG: kubeconfig } }).toString();
    const items = (JSON.parse(json) as { items: { status?: { conditions?: { type: string; status: string }[] } }[] }).items;
    const ready = items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length;
    if (ready === nodes) break;
    await sleep(5);
  }
  const ms = performance.now() - t0;
  child.kill('SIGINT');
  await new Promise((r) => child.on('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
  return ms;
}

async function main(): Promise<void> {
  line(`kubeplane bench — node ${process.version}, ${(await import('node:os')).cpus().length} cores`);
  const startup = await startupToNodesReady(3);
  line(`start-up: process spawn → kubectl get nodes shows 3/3 Ready: ${startup.toFixed(0)} ms`);

  const raw = await rawSqliteWrites(50_000);
  line(`raw SQLite writes (batched creates): ${raw.toFixed(0)} writes/s`);

  for (const [replicas, nodes, delay] of [
    [1_000, 20, undefined],
    [1_000, 20, 0],
    [10_000, 100, undefined],
    [10_000, 100, 0],
  ] as const) {
    const r = await deploymentToReady(replicas, nodes, delay);
    const start = delay === undefined ? 'default 0.5–1 s container start' : 'instant container start';
    line(
      `Deployment of ${replicas} replicas on ${nodes} nodes (${start}) → all Ready: ${r.seconds.toFixed(2)} s, ` +
        `${r.podsPerSecond.toFixed(0)} pods/s = ${(r.podsPerSecond / raw).toFixed(4)} × the raw SQLite write rate`,
    );
  }
  for (const [replicas, nodes] of [
    [1_000, 20],
    [10_000, 100],
  ] as const) {
    const r = await rollingUpdate(replicas, nodes);
    line(
      `rolling update (maxSurge 25%, maxUnavailable 25%, default container start) of ${replicas} Ready replicas on ${nodes} nodes: ${r.seconds.toFixed(2)} s, ` +
        `${(r.seconds / r.initialSeconds).toFixed(2)} × the initial rollout of the same Deployment (${r.initialSeconds.toFixed(2)} s)`,
    );
  }
  for (const l of await etcdLines(10_000, 100)) line(l);
  const [thread, loop] = [writerRunAlone(true, 5, 2_000, 100), writerRunAlone(false, 5, 2_000, 100)];
  for (const l of writerThreadLines(5, 2_000, 100, thread, loop)) line(l);
  for (const nodes of [1_000, 5_000]) {
    const r = await daemonSetCoverage(nodes);
    line(`DaemonSet on ${nodes} nodes: covers every node in ${r.coverSeconds.toFixed(2)} s; rolling update (maxUnavailable 10%) in ${r.rollingUpdateSeconds.toFixed(2)} s`);
  }
  for (const [replicas, policy] of [
    [1_000, 'Parallel'],
    [100, 'OrderedReady'],
  ] as const) {
    const r = await statefulSetToReady(replicas, policy);
    line(`StatefulSet (${policy}) of ${replicas} replicas with a provisioned 1Gi claim each, 20 nodes, default container start → all Ready: ${r.seconds.toFixed(2)} s`);
  }
  const job = await jobToComplete(10_000, 500);
  line(`Job of 10,000 completions, parallelism 500, 100 nodes (each pod runs 1 simulated second) → Complete: ${job.seconds.toFixed(2)} s, ${job.podsPerSecond.toFixed(0)} pods/s`);
  const ns = await namespaceDeletion(10_000);
  line(`namespace holding 10,000 pods (a Deployment and its ReplicaSet) → deleted in ${ns.seconds.toFixed(2)} s (includes the namespace controller's 5 s grace)`);
  for (const l of listMemoryLines(10_000, 200, await listMemory(10_000, 200))) line(l);
  const fz = await fuzz({ mode: 'api', seed: 1, cases: 10_000 });
  await fz.server.stop();
  line(
    `API fuzzing (10,000 seeded cases over HTTP): ${(fz.stats.cases / fz.seconds).toFixed(0)} cases/s, ` +
      `${(fz.stats.rejected / fz.seconds).toFixed(0)} rejected requests/s (each a 4xx Status; 0 answered 5xx)`,
  );
  line(hpaBenchLine(1_000, 60, await hpaSyncCost(1_000, 60)));
  line(customResourceBenchLine(1_000, await customResourceCreates(1_000)));
  line(managedFieldsBenchLine(500, 6_000, await managedFieldsCost(500, 6_000)));
  line(nodeFailureBenchLine(1_000, 100, 1_000, await nodeFailure(1_000, 100, 1_000)));
  for (const l of authorizationBenchLines(await authorizationCost(10_000))) line(l);
  line('goals: start-up < 1 s; 10,000 pods Ready < 60 s now, < 10 s (1,000 pods/s) eventually; server RSS < 1 GB during 200 LISTs of 10,000 pods');
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
