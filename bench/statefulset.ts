/**
 * StatefulSet bench: how long a StatefulSet with a volumeClaimTemplate takes until every pod is Ready
 * (each claim provisioned by the simulated provisioner of the default StorageClass `standard` and
 * bound on the pod's node first), in-process on SQLite with the default simulated container start
 * (0.5–1 s): a 1,000-replica `Parallel` set, and a 100-replica `OrderedReady` one, whose pods start one
 * after another (so its time is about 100 × (container start + one sync), by design). Never run by
 * the tests. Run alone: `node dist/bench/statefulset.js [replicas] [Parallel|OrderedReady]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { startCluster } from '../src/cli/cluster.js';
import { realClock } from '../src/util/clock/index.js';

/** `spec.podManagementPolicy`. */
export type PodManagementPolicy = 'Parallel' | 'OrderedReady';

/**
 * Starts a cluster with `nodes` simulated nodes (not timed), creates a StatefulSet of `replicas` with
 * one 1Gi claim per pod, and measures until `status.readyReplicas` reaches `replicas` and every claim
 * is Bound. Wall-clock seconds.
 */
export async function statefulSetToReady(replicas: number, policy: PodManagementPolicy, nodes = 20): Promise<{ seconds: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kubeplane-bench-sts-'));
  const cluster = await startCluster({ nodes, port: 0, dataDir, datastore: 'sqlite', logger: pino({ level: 'silent' }) });
  try {
    const sets = cluster.client.apps.statefulSets('default');
    const t0 = realClock.now();
    await sets.create({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'bench' },
      spec: {
        replicas,
        podManagementPolicy: policy,
        serviceName: 'bench',
        selector: { matchLabels: { app: 'bench' } },
        template: {
          metadata: { labels: { app: 'bench' } },
          spec: { containers: [{ name: 'db', image: 'db:1', volumeMounts: [{ name: 'data', mountPath: '/data' }] }] },
        },
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
      },
    });
    while (((await sets.get('bench')).status?.readyReplicas ?? 0) < replicas) await realClock.sleep(20);
    const claims = (await cluster.client.core.persistentVolumeClaims('default').list()).items;
    const bound = claims.filter((c) => c.status?.phase === 'Bound').length;
    if (bound !== replicas) throw new Error(`${replicas} pods Ready but ${bound} of ${claims.length} claims Bound`);
    return { seconds: (realClock.now() - t0) / 1000 };
  } finally {
    await cluster.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const replicas = Number(process.argv[2] ?? 1000);
  const policy = (process.argv[3] ?? 'Parallel') as PodManagementPolicy;
  statefulSetToReady(replicas, policy).then(
    (r) => {
      process.stdout.write(`StatefulSet (${policy}) of ${replicas} replicas with a claim each → all Ready: ${r.seconds.toFixed(2)} s\n`);
      process.exit(0);
    },
    (err: unknown) => {
      process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
