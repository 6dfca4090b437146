/**
 * The TTL-after-finished controller under the FakeClock, against the real API server behind the
 * fake transport. Cases after upstream ttlafterfinished_controller_test.go (TestTimeLeft: finish
 * time from the Complete/Failed condition, expiry at finish + TTL) and the behaviour of processJob
 * (requeue on the clock, fresh re-check, Foreground delete with a UID precondition).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Job } from '../../api/index.js';
import { newClientset } from '../../client/index.js';
import { newSharedInformerFactory } from '../../informers/index.js';
import { newFakeTransport } from '../../testing/index.js';
import { FakeClock, formatTime } from '../../util/clock/index.js';
import { SeededRand } from '../../util/random/index.js';
import { silentLogger } from '../../util/runtime/index.js';
import { finishedJobStatus } from '../batch-util.js';
import { TTLAfterFinishedController, getFinishAndExpireTime } from './index.js';

const T0 = Date.UTC(2025, 0, 1);

function newJob(name: string, ttl?: number): Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: 'ns' },
    spec: {
      ...(ttl === undefined ? {} : { ttlSecondsAfterFinished: ttl }),
      template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } },
    },
  };
}

async function setup() {
  const clock = new FakeClock(T0);
  const transport = await newFakeTransport({ clock, rand: new SeededRand(7), namespaces: ['ns'] });
  const client = newClientset(transport);
  const informers = newSharedInformerFactory(client, { clock, rand: new SeededRand(3) });
  const ttl = new TTLAfterFinishedController({ client, informers, clock, logger: silentLogger });
  informers.start();
  const ac = new AbortController();
  const running = ttl.run(2, ac.signal);
  await clock.stepAsync(0);
  const jobs = client.batch.jobs('ns');
  /** Marks the Job finished now (as a Job controller would: startTime, completionTime, the condition). */
  const finish = async (name: string, type: 'Complete' | 'Failed'): Promise<void> => {
    const j = await jobs.get(name);
    const now = formatTime(clock.now());
    await jobs.updateStatus({ ...j, status: finishedJobStatus(type, now) });
    await clock.stepAsync(0);
  };
  /** Whether the Job still exists and is not being deleted. */
  const alive = async (name: string): Promise<boolean> =>
    jobs.get(name).then(
      (j) => !j.metadata?.deletionTimestamp,
      () => false,
    );
  const stop = async (): Promise<void> => {
    ac.abort();
    await running;
  };
  return { clock, transport, client, jobs, finish, alive, stop };
}

describe('TTL-after-finished', () => {
  test('a Complete Job is deleted ttlSecondsAfterFinished after it finished, not before, Foreground with its UID', async () => {
    const s = await setup();
    const created = await s.jobs.create(newJob('done', 100));
    await s.clock.stepAsync(5_000);
    await s.finish('done', 'Complete');
    await s.clock.stepAsync(99_999);
    assert.equal(await s.alive('done'), true, 'one ms before the TTL');
    await s.clock.stepAsync(1);
    assert.equal(await s.alive('done'), false);
    const del = s.transport.actions.find((a) => a.verb === 'delete' && a.resource === 'jobs');
    assert.deepEqual(del?.body, { propagationPolicy: 'Foreground', preconditions: { uid: created.metadata?.uid } });
    await s.stop();
  });

  test('a Failed Job is deleted too; a TTL of 0 deletes at once', async () => {
    const s = await setup();
    await s.jobs.create(newJob('failed', 0));
    await s.finish('failed', 'Failed');
    assert.equal(await s.alive('failed'), false);
    await s.stop();
  });

  test('Jobs without a TTL, and Jobs still running, are kept', async () => {
    const s = await setup();
    await s.jobs.create(newJob('no-ttl'));
    await s.jobs.create(newJob('running', 1));
    await s.finish('no-ttl', 'Complete');
    await s.clock.stepAsync(3_600_000);
    assert.equal(await s.alive('no-ttl'), true);
    assert.equal(await s.alive('running'), true);
    assert.equal(s.transport.actions.filter((a) => a.verb === 'delete').length, 0);
    await s.stop();
  });

  test('a TTL raised before it expires defers the deletion to the new expiry', async () => {
    const s = await setup();
    await s.jobs.create(newJob('longer', 10));
    await s.finish('longer', 'Complete');
    await s.clock.stepAsync(5_000);
    const j = await s.jobs.get('longer');
    await s.jobs.update({ ...j, spec: { ...j.spec!, ttlSecondsAfterFinished: 60 } });
    await s.clock.stepAsync(10_000);
    assert.equal(await s.alive('longer'), true, 'the old expiry passed');
    await s.clock.stepAsync(45_000);
    assert.equal(await s.alive('longer'), false);
    await s.stop();
  });

  test('the fresh Job is checked before deleting: a TTL raised in the API but not yet in the cache defers the deletion', async () => {
    const s = await setup();
    await s.jobs.create(newJob('stale', 10));
    await s.finish('stale', 'Complete');
    // The GET the controller makes before deleting sees a longer TTL than its cache.
    const real = await s.jobs.get('stale');
    s.transport.prependReactor('get', 'jobs', () => ({ handled: true, result: { ...real, spec: { ...real.spec, ttlSecondsAfterFinished: 1000 } } }));
    await s.clock.stepAsync(10_000);
    assert.equal(s.transport.actions.filter((a) => a.verb === 'delete').length, 0);
    assert.equal(await s.alive('stale'), true);
    await s.stop();
  });

  test('getFinishAndExpireTime (TestTimeLeft): finish = the condition lastTransitionTime, expire = finish + TTL; no time is an error', () => {
    const job = (ttl: number | undefined, condition?: { type: string; lastTransitionTime?: string }): Job =>
      ({ ...newJob('j', ttl), status: condition ? { conditions: [{ status: 'True', ...condition }] } : {} });
    assert.deepEqual(getFinishAndExpireTime(job(10, { type: 'Complete', lastTransitionTime: '2025-01-01T00:00:00Z' })), { finishAt: T0, expireAt: T0 + 10_000 });
    assert.deepEqual(getFinishAndExpireTime(job(0, { type: 'Failed', lastTransitionTime: '2025-01-01T00:00:05Z' })), { finishAt: T0 + 5000, expireAt: T0 + 5000 });
    assert.throws(() => getFinishAndExpireTime(job(10)), /job ns\/j should not be cleaned up/);
    assert.throws(() => getFinishAndExpireTime(job(undefined, { type: 'Complete', lastTransitionTime: '2025-01-01T00:00:00Z' })), /should not be cleaned up/);
    assert.throws(() => getFinishAndExpireTime(job(10, { type: 'Complete' })), /unable to find the time when the Job ns\/j finished/);
  });
});

