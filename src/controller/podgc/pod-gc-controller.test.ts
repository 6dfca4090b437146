import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../../util/clock/index.js';
import { SeededRand } from '../../util/random/index.js';
import { newFakeTransport } from '../../testing/index.js';
import { newClientset } from '../../client/index.js';
import { newSharedInformerFactory } from '../../informers/index.js';
import { isNotFound } from '../../machinery/errors/index.js';
import type { KubeObject, Pod } from '../../api/index.js';
import { silentLogger } from '../../util/runtime/index.js';
import { GC_CHECK_PERIOD_MS, PodGCController, QUARANTINE_TIME_MS } from './index.js';

const node = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name } });
const pod = (name: string, nodeName?: string, extra: Partial<NonNullable<Pod['metadata']>> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', uid: `uid-${name}`, ...extra },
  spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', image: 'nginx' }] },
  status: { phase: 'Running' },
});

async function setup(objects: KubeObject[]) {
  const clock = new FakeClock();
  const transport = await newFakeTransport({ clock, objects });
  const client = newClientset(transport);
  const informers = newSharedInformerFactory(client, { clock, rand: new SeededRand(3) });
  const gc = new PodGCController({ client, informers, clock, logger: silentLogger });
  const ac = new AbortController();
  const running = gc.run(ac.signal);
  await clock.stepAsync(0);
  const exists = async (name: string): Promise<boolean> =>
    client.core.pods('default').get(name).then(
      () => true,
      (err: unknown) => (isNotFound(err) ? false : Promise.reject(err as Error)),
    );
  const stop = async (): Promise<void> => {
    ac.abort();
    await running;
  };
  return { clock, client, transport, exists, stop };
}

describe('PodGC', () => {
  test('pods of a node that is gone are marked Failed (DisruptionTarget) and force-deleted after the quarantine', async () => {
    const { clock, transport, exists, stop } = await setup([node('live'), pod('on-live', 'live'), pod('orphan', 'gone')]);
    // The pass at 20 s notices the missing node; the pass at 40 s is within the quarantine; the pass
    // at 60 s, 40 s after the node was first missed, deletes.
    await clock.stepAsync(GC_CHECK_PERIOD_MS);
    await clock.stepAsync(QUARANTINE_TIME_MS - 1);
    assert.equal(await exists('orphan'), true, 'still in quarantine');
    await clock.stepAsync(1);
    assert.equal(await exists('orphan'), false);
    assert.equal(await exists('on-live'), true);
    const status = transport.actions.find((a) => a.verb === 'update' && a.subresource === 'status' && a.name === 'orphan');
    const conditions = (status?.body as Pod).status?.conditions ?? [];
    assert.equal((status?.body as Pod).status?.phase, 'Failed');
    assert.deepEqual(
      conditions.map((c) => [c.type, c.status, c.reason, c.message]),
      [['DisruptionTarget', 'True', 'DeletionByPodGC', 'PodGC: node no longer exists']],
    );
    const del = transport.actions.find((a) => a.verb === 'delete' && a.name === 'orphan');
    assert.equal((del?.body as { gracePeriodSeconds?: number }).gracePeriodSeconds, 0);
    await stop();
  });

  test('a node that comes back during the quarantine keeps its pods', async () => {
    const { clock, client, exists, stop } = await setup([pod('p', 'flaky')]);
    await clock.stepAsync(GC_CHECK_PERIOD_MS);
    await client.core.nodes().create(node('flaky') as never);
    await clock.stepAsync(3 * GC_CHECK_PERIOD_MS);
    assert.equal(await exists('p'), true);
    await stop();
  });

  test('an unscheduled pod stuck terminating is force-deleted', async () => {
    const { clock, exists, stop } = await setup([pod('stuck', undefined, { deletionTimestamp: '2025-01-01T00:00:00Z', finalizers: [] })]);
    await clock.stepAsync(GC_CHECK_PERIOD_MS);
    assert.equal(await exists('stuck'), false);
    await stop();
  });
});
