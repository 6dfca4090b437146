/**
 * The cost of managedFields tracking: in-process API servers on SQLite (no controllers), one with
 * tracking on (as always in kubeplane) and one with it off, each given the same workload in the same
 * run — `n` Deployments created, then `updates` writes split between merge patches of `spec.replicas`
 * and a label (manager `kubectl`, as `kubectl scale`/`label` send) and `/status` updates by
 * `kube-controller-manager` — reporting updates/s of each and their ratio (the goal is a cost under
 * 20 %). Then server-side applies/s of the same Deployments by one manager. Never run by the tests.
 * Run alone: `node dist/bench/managed-fields.js [n] [updates]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { opsPerSecond } from './ops-per-second.js';
import { ApiServer } from '../src/apiserver/index.js';
import { servedStrategies } from '../src/apiserver/registry/resources/index.js';
import { SqliteBackend } from '../src/storage/sqlite/index.js';
import { newClientset } from '../src/client/index.js';
import type { Deployment } from '../src/api/index.js';

/** Writes in flight at once, as a controller's workers or an installer's client would have. */
const CONCURRENCY = 25;

/** What {@link managedFieldsCost} measured. */
export interface ManagedFieldsBenchResult {
  /** Updates per second with tracking on. */
  trackedUpdatesPerSecond: number;
  /** Updates per second with tracking off, same workload. */
  untrackedUpdatesPerSecond: number;
  /** Server-side applies per second (tracking on; apply needs it). */
  appliesPerSecond: number;
}


function deployment(i: number): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: `web-${i}`, labels: { app: `web-${i}` } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: `web-${i}` } },
      template: {
        metadata: { labels: { app: `web-${i}` } },
        spec: { containers: [{ name: 'nginx', image: 'nginx:1.25', ports: [{ containerPort: 80 }], env: [{ name: 'MODE', value: 'prod' }] }] },
      },
    },
  };
}

/** One server's run: creates, then the update workload; applies too when `apply`. */
async function run(n: number, updates: number, trackManagedFields: boolean, apply: boolean): Promise<{ updatesPerSecond: number; appliesPerSecond: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'kubeplane-bench-mf-'));
  const backend = new SqliteBackend({ path: join(dir, 'state.db') });
  const api = await ApiServer.create({ backend, strategies: servedStrategies, trackManagedFields });
  try {
    const kubectl = newClientset(api.inProcessTransport({ userAgent: 'kubectl/v1.33.0 (linux/amd64) kubernetes/bench' })).apps.deployments('default');
    const kcm = newClientset(api.inProcessTransport({ userAgent: 'kube-controller-manager/v1.33.0' })).apps.deployments('default');
    await opsPerSecond(n, CONCURRENCY, (i) => kubectl.create(deployment(i), { fieldManager: 'kubectl-create' }));
    const updatesPerSecond = await opsPerSecond(updates, CONCURRENCY, async (i) => {
      const name = `web-${i % n}`;
      switch (i % 3) {
        case 0:
          return kubectl.patch(name, 'application/merge-patch+json', { spec: { replicas: 2 + (i % 5) } });
        case 1:
          return kubectl.patch(name, 'application/merge-patch+json', { metadata: { labels: { round: String(i) } } });
        default: {
          const d = await kcm.get(name);
          return kcm.updateStatus({ ...d, status: { observedGeneration: d.metadata?.generation ?? 0, replicas: 2, updatedReplicas: 2, readyReplicas: i % 3, availableReplicas: i % 3 } });
        }
      }
    });
    const appliesPerSecond = apply
      ? await opsPerSecond(n, CONCURRENCY, (i) => {
          // The creator's values (shared ownership, no conflict) without replicas, plus a label of its own.
          const spec = { ...deployment(i).spec };
          delete spec.replicas;
          return kubectl.patch(`web-${i}`, 'application/apply-patch+yaml', { ...deployment(i), metadata: { name: `web-${i}`, labels: { pipeline: 'ci' } }, spec }, { fieldManager: 'ci-pipeline' });
        })
      : 0;
    return { updatesPerSecond, appliesPerSecond };
  } finally {
    await api.close();
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Measures the same workload with managedFields tracking off, then on (alternating order would not
 * change the picture: each run has its own fresh database).
 */
export async function managedFieldsCost(n: number, updates: number): Promise<ManagedFieldsBenchResult> {
  const off = await run(n, updates, false, false);
  const on = await run(n, updates, true, true);
  return { trackedUpdatesPerSecond: on.updatesPerSecond, untrackedUpdatesPerSecond: off.updatesPerSecond, appliesPerSecond: on.appliesPerSecond };
}

/** The bench's report line. */
export function managedFieldsBenchLine(n: number, updates: number, r: ManagedFieldsBenchResult): string {
  const cost = 1 - r.trackedUpdatesPerSecond / r.untrackedUpdatesPerSecond;
  return (
    `managedFields: ${updates} updates of ${n} Deployments (merge patches, /status) at ${r.trackedUpdatesPerSecond.toFixed(0)}/s tracked ` +
    `against ${r.untrackedUpdatesPerSecond.toFixed(0)}/s untracked (${(r.trackedUpdatesPerSecond / r.untrackedUpdatesPerSecond).toFixed(2)} ×, ` +
    `${(cost * 100).toFixed(0)} % cost), ${CONCURRENCY} in flight; server-side apply ${r.appliesPerSecond.toFixed(0)}/s`
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const n = Number(process.argv[2] ?? 500);
  const updates = Number(process.argv[3] ?? 6000);
  managedFieldsCost(n, updates).then(
    (r) => {
      process.stdout.write(managedFieldsBenchLine(n, updates, r) + '\n');
      process.exit(0);
    },
    (err: unknown) => {
      process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
      process.exit(1);
    },
  );
}
