/**
 * The server side of the LIST-memory bench (bench/list-memory.ts forks it): a cluster with no nodes
 * on the memory datastore, `pods` pods created through the in-process client, and its own resident
 * set size reported over IPC. The pods carry a scheduling gate, so nothing schedules, starts or
 * updates them while the LISTs run: the only work is the LISTs.
 *
 * Messages: it sends `{type:'ready', port, dataDir, rss}` once the pods exist; it answers
 * `{type:'reset'}` (start a new peak) and `{type:'report'}` with `{type:'report', rss, peak}`, in bytes.
 * The peak is the larger of a 10 ms sampling of `process.memoryUsage.rss()` and the kernel's own high
 * water mark (VmHWM in /proc/self/status, reset through /proc/self/clear_refs), so a peak reached
 * while the event loop is busy is not missed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { Pod } from '../src/api/index.js';
import { startCluster } from '../src/cli/cluster.js';

/** A pod as a workload would have it: labels, a container with ports, resources and env. */
function benchPod(i: number): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `bench-${String(i).padStart(5, '0')}`, labels: { app: 'bench', tier: 'web', shard: String(i % 16) } },
    spec: {
      schedulingGates: [{ name: 'kubeplane.io/bench' }],
      containers: [
        {
          name: 'web',
          image: 'nginx:1.27',
          ports: [{ containerPort: 80, name: 'http' }],
          resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
          env: [
            { name: 'MODE', value: 'production' },
            { name: 'SHARD', value: String(i % 16) },
          ],
        },
      ],
    },
  };
}

/** A Running, Ready status, as the simulated kubelet writes it (about 1 KB of the pod's 2.5 KB). */
function runningStatus(i: number): NonNullable<Pod['status']> {
  const at = '2025-01-01T00:00:00Z';
  const condition = (type: string) => ({ type, status: 'True', lastTransitionTime: at });
  return {
    phase: 'Running',
    conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map(condition),
    hostIP: '10.0.0.2',
    podIP: `10.128.${Math.floor(i / 250)}.${i % 250}`,
    startTime: at,
    containerStatuses: [
      {
        name: 'web',
        image: 'nginx:1.27',
        imageID: 'docker.io/library/nginx@sha256:5be1ecc7935f1dd85635d4feedaf660594030253cc97c9e9ca3819ffeac36b65',
        containerID: `kubeplane://${String(i).padStart(64, '0')}`,
        ready: true,
        started: true,
        restartCount: 0,
        state: { running: { startedAt: at } },
      },
    ],
  };
}

/** The kernel's peak RSS of this process in bytes (VmHWM), or 0 where /proc is not there. */
function kernelPeak(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Resets VmHWM to the current RSS (Linux: `echo 5 > /proc/self/clear_refs`); no-op elsewhere. */
function resetKernelPeak(): void {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // Not Linux: the sampled peak alone is reported.
  }
}

async function main(): Promise<void> {
  const pods = Number(process.argv[2] ?? 10_000);
  const dataDir = mkdtempSync(join(tmpdir(), 'kubeplane-bench-list-'));
  const cluster = await startCluster({ nodes: 0, port: 0, dataDir, datastore: 'memory', logger: pino({ level: 'silent' }) });
  const client = cluster.client.core.pods('default');
  for (let i = 0; i < pods; i += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, pods - i) }, async (_, j) => {
        const created = await client.create(benchPod(i + j));
        await client.updateStatus({ ...created, status: runningStatus(i + j) });
      }),
    );
  }
  let peak = 0;
  const sample = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 10);
  const send = (m: object): void => void process.send?.(m);
  process.on('message', (m: { type: string }) => {
    if (m.type === 'reset') {
      resetKernelPeak();
      peak = process.memoryUsage.rss();
    } else if (m.type === 'report') {
      send({ type: 'report', rss: process.memoryUsage.rss(), peak: Math.max(peak, kernelPeak()) });
    } else if (m.type === 'stop') {
      clearInterval(sample);
      void cluster.stop().finally(() => {
        rmSync(dataDir, { recursive: true, force: true });
        process.exit(0);
      });
    }
  });
  send({ type: 'ready', port: cluster.port, dataDir, rss: process.memoryUsage.rss() });
}

main().catch((err: unknown) => {
  process.stderr.write(`list-memory server failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
