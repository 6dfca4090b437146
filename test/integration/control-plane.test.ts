/**
 * The whole control plane in one process on the memory backend, driven by a FakeClock: the real API
 * server, informers, ReplicaSet and Deployment controllers, garbage collector, scheduler and simulated
 * nodes. Time moves only when the test steps it, so every run takes the same path.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { FakeClock } from '../../src/util/clock/index.js';
import { SeededRand } from '../../src/util/random/index.js';
import { MemoryBackend } from '../../src/storage/memory/index.js';
import { startControlPlane, type ControlPlane } from '../../src/cli/cluster.js';
import type { Deployment, Pod } from '../../src/api/index.js';

const silent = pino({ level: 'silent' });

/** Steps the clock 100 ms at a time until `probe` holds (at most `maxSteps` steps). */
async function stepUntil(clock: FakeClock, what: string, probe: () => Promise<boolean>, maxSteps = 600): Promise<void> {
  for (let i = 0; i < maxSteps; i++) {
    if (await probe()) return;
    await clock.stepAsync(100);
  }
  assert.fail(`${what} did not happen within ${maxSteps * 100} ms of clock time`);
}

function nginx(replicas: number, image = 'nginx:1.9.1'): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'nginx', namespace: 'default' },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'nginx' } },
      template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image }] } },
    },
  };
}

describe('control plane under a fake clock', () => {
  const clock = new FakeClock();
  let cp: ControlPlane;
  let backend: MemoryBackend;

  before(async () => {
    backend = new MemoryBackend();
    const starting = startControlPlane({ backend, nodes: 3, clock, rand: new SeededRand(42), logger: silent });
    // Start-up waits on informer syncs, which may need the clock to move.
    let done = false;
    void starting.then(() => (done = true));
    for (let i = 0; i < 100 && !done; i++) await clock.stepAsync(10);
    cp = await starting;
  });
  after(async () => {
    await cp.stop();
    await backend.close();
  });

  const ready = (p: Pod): boolean => (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
  const livePods = async (): Promise<Pod[]> =>
    (await cp.client.core.pods('default').list({ labelSelector: 'app=nginx' })).items.filter((p) => !p.metadata?.deletionTimestamp);

  test('three nodes become Ready', async () => {
    await stepUntil(clock, '3 Ready nodes', async () => {
      const nodes = (await cp.client.core.nodes().list()).items;
      return nodes.length === 3 && nodes.every((n) => (n.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True'));
    });
  });

  test('a Deployment rolls out: 3 pods Running and Ready on 3 different nodes', async () => {
    await cp.client.apps.deployments('default').create(nginx(3));
    await stepUntil(clock, 'deployment available', async () => {
      const d = await cp.client.apps.deployments('default').get('nginx');
      return d.status?.availableReplicas === 3 && d.status.updatedReplicas === 3;
    });
    const pods = await livePods();
    assert.equal(pods.length, 3);
    assert.ok(pods.every(ready));
    assert.equal(new Set(pods.map((p) => p.spec?.nodeName)).size, 3);
  });

  test('a rolling update never drops below replicas − maxUnavailable nor exceeds replicas + maxSurge', async () => {
    // 4 replicas, 25%/25%: maxSurge = ceil(1) = 1, maxUnavailable = floor(1) = 1.
    await cp.client.apps.deployments('default').patch('nginx', 'application/merge-patch+json', { spec: { replicas: 4 } });
    await stepUntil(clock, '4 available', async () => (await cp.client.apps.deployments('default').get('nginx')).status?.availableReplicas === 4);

    await cp.client.apps.deployments('default').patch('nginx', 'application/strategic-merge-patch+json', {
      spec: { template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } } },
    });
    let steps = 0;
    for (;;) {
      const pods = await livePods();
      const readyCount = pods.filter(ready).length;
      assert.ok(readyCount >= 3, `ready pods dropped to ${readyCount} at step ${steps}`);
      assert.ok(pods.length <= 5, `${pods.length} live pods at step ${steps} (max 4 + 1 surge)`);
      const d = await cp.client.apps.deployments('default').get('nginx');
      if (d.status?.updatedReplicas === 4 && d.status.availableReplicas === 4 && d.status.replicas === 4 && (d.status.observedGeneration ?? 0) >= (d.metadata?.generation ?? 0)) break;
      assert.ok(++steps < 600, 'rollout finished');
      await clock.stepAsync(100);
    }
    const rss = (await cp.client.apps.replicaSets('default').list({ labelSelector: 'app=nginx' })).items;
    const byRev = new Map(rss.map((r) => [r.metadata?.annotations?.['deployment.kubernetes.io/revision'], r]));
    assert.equal(byRev.get('2')?.spec?.replicas, 4);
    assert.equal(byRev.get('1')?.spec?.replicas, 0);
  });

  test('deleting the Deployment removes its ReplicaSets and pods', async () => {
    await cp.client.apps.deployments('default').delete('nginx', { propagationPolicy: 'Background' });
    await stepUntil(clock, 'everything collected', async () => {
      const rs = (await cp.client.apps.replicaSets('default').list({ labelSelector: 'app=nginx' })).items;
      const pods = (await cp.client.core.pods('default').list({ labelSelector: 'app=nginx' })).items;
      return rs.length === 0 && pods.length === 0;
    });
  });
});
