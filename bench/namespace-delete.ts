/**
 * Namespace deletion: how long `DELETE namespaces/bench` takes, until the namespace is gone, when it
 * holds one Deployment of `pods` Ready replicas (its ReplicaSet, the pods, their events). Runs on a
 * fresh in-process cluster on SQLite with instant container start (as bench/main.ts starts them), one
 * node per 100 pods. The figure includes upstream's pacing: the namespace controller waits 5 s before
 * its first pass and looks again while pods terminate (their 30 s grace period ⇒ passes 16 s apart,
 * or 5 s after its own status update).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { startCluster } from '../src/cli/cluster.js';
import { isNotFound } from '../src/machinery/errors/index.js';
import { realClock } from '../src/util/clock/index.js';
import { benchDeployment } from './workloads.js';

const NAMESPACE = 'bench';

/** Seconds from the namespace DELETE until a GET answers 404, for `pods` pods plus their owners. */
export async function namespaceDeletion(pods: number): Promise<{ seconds: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kubeplane-bench-nsdelete-'));
  const cluster = await startCluster({
    nodes: Math.max(1, Math.ceil(pods / 100)),
    port: 0,
    dataDir,
    datastore: 'sqlite',
    podStartDelayMs: 0,
    logger: pino({ level: 'silent' }),
  });
  try {
    const c = cluster.client;
    await c.core.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
    await c.apps.deployments(NAMESPACE).create(benchDeployment(pods, { namespace: NAMESPACE }));
    while (((await c.apps.deployments(NAMESPACE).get('bench')).status?.readyReplicas ?? 0) < pods) await realClock.sleep(50);

    const t0 = performance.now();
    await c.core.namespaces().delete(NAMESPACE, { propagationPolicy: 'Background' });
    for (;;) {
      try {
        await c.core.namespaces().get(NAMESPACE);
      } catch (err) {
        if (isNotFound(err)) break;
        throw err;
      }
      await realClock.sleep(50);
    }
    return { seconds: (performance.now() - t0) / 1000 };
  } finally {
    await cluster.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
