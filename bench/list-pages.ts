/**
 * LIST-pages bench: a cluster on SQLite holding `pods` pods (written straight into its state.db
 * before it starts, 2.5 KB each as a running workload's), then
 * 1. paging through all pods with limit=500 (as `kubectl get pods -A` and client-go's pager do) on
 *    the in-process transport, with the ListFromCacheSnapshot gate off (continue pages read from
 *    SQLite and decoded) and on (from the watch cache's snapshot), alternately, best of `rounds`;
 * 2. one cluster-wide unpaged LIST as JSON over HTTPS: time to the last byte and the process's peak
 *    RSS (VmHWM, reset first) over the baseline.
 * Figures are for one run on a shared machine: compare the ratios, not the absolute times.
 *
 * Run: `node dist/bench/list-pages.js [pods] [rounds]`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import type { KubeList } from '../src/api/index.js';
import { startCluster, type Cluster } from '../src/cli/cluster.js';
import { defaultFeatureGate } from '../src/machinery/featuregate/index.js';
import { openBackend } from '../src/storage/index.js';

/** A scheduled, running pod as the registry stores it (gated, so nothing acts on it). */
function storedPod(i: number): { key: string; value: string } {
  const name = `bench-${String(i).padStart(6, '0')}`;
  const at = '2025-01-01T00:00:00Z';
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', uid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, creationTimestamp: at, labels: { app: 'bench', shard: String(i % 16) } },
    spec: {
      schedulingGates: [{ name: 'kubeplane.io/bench' }],
      containers: [
        {
          name: 'web',
          image: 'nginx:1.27',
          ports: [{ containerPort: 80, name: 'http', protocol: 'TCP' }],
          resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
          env: [{ name: 'SHARD', value: String(i % 16) }],
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          imagePullPolicy: 'IfNotPresent',
        },
      ],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      schedulerName: 'default-scheduler',
      enableServiceLinks: true,
      preemptionPolicy: 'PreemptLowerPriority',
      priority: 0,
    },
    status: {
      phase: 'Running',
      conditions: ['Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({ type, status: 'True', lastTransitionTime: at })),
      podIPs: [{ ip: `10.128.${Math.floor(i / 250) % 256}.${i % 250}` }],
      containerStatuses: [
        {
          containerID: `kubeplane://${String(i).padStart(64, '0')}`,
          image: 'nginx:1.27',
          imageID: 'docker.io/library/nginx@sha256:5be1ecc7935f1dd85635d4feedaf660594030253cc97c9e9ca3819ffeac36b65',
          lastState: {},
          name: 'web',
          ready: true,
          restartCount: 0,
          started: true,
          state: { running: { startedAt: at } },
        },
      ],
      qosClass: 'Burstable',
      startTime: at,
    },
  };
  return { key: `/registry/core/pods/default/${name}`, value: JSON.stringify(pod) };
}

async function fill(dataDir: string, pods: number): Promise<void> {
  const backend = await openBackend({ type: 'sqlite', path: join(dataDir, 'state.db') });
  for (let i = 0; i < pods; i += 1000) {
    await Promise.all(Array.from({ length: Math.min(1000, pods - i) }, (_, j) => {
      const { key, value } = storedPod(i + j);
      return backend.create(key, value);
    }));
  }
  await backend.close();
}

/** Pages through every pod with `limit`; returns seconds and the pod count. */
async function pageAll(cluster: Cluster, limit: number): Promise<{ seconds: number; items: number; pages: number }> {
  const t0 = performance.now();
  let items = 0;
  let pages = 0;
  let token: string | undefined;
  do {
    const res = await cluster.api.handle({ verb: 'list', group: '', version: 'v1', resource: 'pods', query: { limit: String(limit), ...(token ? { continue: token } : {}) } });
    const list = res.body as KubeList;
    items += list.items.length;
    pages++;
    token = list.metadata.continue;
  } while (token);
  return { seconds: (performance.now() - t0) / 1000, items, pages };
}

function kernelPeak(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

/** One unpaged cluster-wide LIST over HTTPS: seconds to the last byte, bytes, peak RSS over the baseline. */
function httpList(cluster: Cluster): Promise<{ seconds: number; bytes: number; baseline: number; peak: number }> {
  writeFileSync('/proc/self/clear_refs', '5');
  const baseline = process.memoryUsage.rss();
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = https.request(
      { host: '127.0.0.1', port: cluster.port, path: '/api/v1/pods', rejectUnauthorized: false, headers: { authorization: `Bearer ${cluster.token}`, accept: 'application/json' } },
      (res) => {
        let bytes = 0;
        res.on('data', (d: Buffer) => (bytes += d.length));
        res.on('end', () => resolve({ seconds: (performance.now() - t0) / 1000, bytes, baseline, peak: kernelPeak() }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function main(): Promise<void> {
  const pods = Number(process.argv[2] ?? 100_000);
  const rounds = Number(process.argv[3] ?? 3);
  const dataDir = mkdtempSync(join(tmpdir(), 'kubeplane-bench-pages-'));
  const mb = (b: number): string => `${(b / 1024 / 1024).toFixed(0)} MB`;
  try {
    let t0 = performance.now();
    await fill(dataDir, pods);
    process.stdout.write(`wrote ${pods} pods into SQLite in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    t0 = performance.now();
    const cluster = await startCluster({ nodes: 0, port: 0, dataDir, datastore: 'sqlite', logger: pino({ level: 'silent' }) });
    process.stdout.write(`cluster up (watch cache primed) in ${((performance.now() - t0) / 1000).toFixed(1)} s, RSS ${mb(process.memoryUsage.rss())}\n`);
    try {
      const best = { off: Infinity, on: Infinity };
      for (let r = 0; r < rounds; r++) {
        for (const on of [false, true]) {
          defaultFeatureGate.set(`ListFromCacheSnapshot=${on}`);
          const res = await pageAll(cluster, 500);
          if (res.items !== pods) throw new Error(`paged ${res.items} pods, expected ${pods}`);
          const which = on ? 'on' : 'off';
          best[which] = Math.min(best[which], res.seconds);
          process.stdout.write(`  round ${r + 1}, ListFromCacheSnapshot=${on}: ${res.pages} pages in ${res.seconds.toFixed(2)} s\n`);
        }
      }
      defaultFeatureGate.reset();
      process.stdout.write(
        `paging ${pods} pods by 500: from storage ${best.off.toFixed(2)} s, from cache snapshots ${best.on.toFixed(2)} s (best of ${rounds}; ${(best.off / best.on).toFixed(1)}x)\n`,
      );
      await httpList(cluster); // warm-up: every pod's JSON is serialized (and cached) once
      const list = await httpList(cluster);
      process.stdout.write(
        `unpaged cluster-wide LIST over HTTPS, JSON: ${mb(list.bytes)} in ${list.seconds.toFixed(2)} s; RSS baseline ${mb(list.baseline)}, peak ${mb(list.peak)} (+${mb(list.peak - list.baseline)})\n`,
      );
    } finally {
      await cluster.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`list-pages bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
