/**
 * A Scheduler running against the real API server behind the fake transport, on a FakeClock: what the
 * scheduler's tests drive.
 */
import assert from 'node:assert/strict';
import { newClientset } from '../../client/index.js';
import type { SeedObject } from '../../client/fake/index.js';
import { newSharedInformerFactory } from '../../informers/index.js';
import { newFakeTransport } from '../../testing/index.js';
import { FakeClock, flushAsync } from '../../util/clock/index.js';
import { SeededRand } from '../../util/random/index.js';
import { Scheduler, type SchedulerOptions } from '../scheduler.js';

/**
 * Seeds `objects`, starts a Scheduler (with `opts` on top of the defaults) and returns handles:
 * `settle(pred, stepMs)` steps the clock by `stepMs` until `pred` holds (fails after 200 steps);
 * `stop()` stops the scheduler and the informers.
 */
export async function startScheduler(objects: readonly SeedObject[], opts: Partial<Omit<SchedulerOptions, 'client' | 'informers' | 'clock'>> = {}) {
  const clock = new FakeClock();
  const transport = await newFakeTransport({ clock, objects });
  const client = newClientset(transport);
  const informers = newSharedInformerFactory(client, { clock, rand: new SeededRand(3) });
  const scheduler = new Scheduler({ client, informers, clock, rand: new SeededRand(5), ...opts });
  const ac = new AbortController();
  const done = scheduler.run(ac.signal);
  const pods = async () => (await client.core.pods().list()).items;
  const events = async () => (await client.core.events().list()).items;
  const settle = async (pred: () => Promise<boolean>, stepMs = 0) => {
    for (let i = 0; i < 200; i++) {
      if (await pred()) return;
      await clock.stepAsync(stepMs);
      await flushAsync();
    }
    assert.fail('condition not reached');
  };
  const stop = async () => {
    ac.abort();
    await done;
    informers.shutdown();
  };
  return { clock, client, informers, scheduler, pods, events, settle, stop };
}
