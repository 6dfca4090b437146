/**
 * The CronJob controller under the FakeClock, against the real API server behind the fake
 * transport. Jobs never run here: tests mark them finished by hand, as a Job controller would.
 * Cases after upstream cronjob_controllerv2_test.go (TestControllerV2SyncCronJob: concurrency
 * policies, suspend, deadlines, too many missed, time zones) and utils_test.go
 * (TestMostRecentScheduleTime), plus a day across each 2025 daylight-saving change of New York.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CronJob, CronJobSpec, Job, KubeObject } from '../../api/index.js';
import { newClientset } from '../../client/index.js';
import { EventRecorder } from '../../client/record/index.js';
import { newSharedInformerFactory } from '../../informers/index.js';
import { parseStandard } from '../../machinery/cron/index.js';
import { newFakeTransport } from '../../testing/index.js';
import { FakeClock, flushAsync, formatTime } from '../../util/clock/index.js';
import { SeededRand } from '../../util/random/index.js';
import { silentLogger } from '../../util/runtime/index.js';
import { finishedJobStatus } from '../batch-util.js';
import { CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION, CronJobController, mostRecentScheduleTime } from './index.js';

const MIN = 60_000;
const HOUR = 60 * MIN;

function newCronJob(name: string, spec: Partial<CronJobSpec>): CronJob {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name, namespace: 'ns' },
    spec: {
      schedule: '* * * * *',
      jobTemplate: {
        metadata: { labels: { team: 'a' }, annotations: { note: 'x' } },
        spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
      },
      ...spec,
    },
  };
}

/** The API, a controller (started on demand, so time can pass before it runs) and helpers. */
async function setup(start: number, objects: KubeObject[] = []) {
  const clock = new FakeClock(start);
  const transport = await newFakeTransport({ clock, rand: new SeededRand(7), namespaces: ['ns'], objects });
  const client = newClientset(transport);
  const informers = newSharedInformerFactory(client, { clock, rand: new SeededRand(3) });
  const recorder = new EventRecorder(client, { component: 'cronjob-controller', clock, logger: silentLogger });
  const ac = new AbortController();
  let running: Promise<void> | undefined;
  let controller: CronJobController | undefined;
  const startController = async (localTimeZone?: string): Promise<void> => {
    const cjc = (controller = new CronJobController({ client, informers, clock, recorder, logger: silentLogger, ...(localTimeZone ? { localTimeZone } : {}) }));
    informers.start();
    running = cjc.run(2, ac.signal);
    await settle();
  };
  /** Lets the workers finish what is queued. */
  async function settle(): Promise<void> {
    for (let i = 0; i < 5; i++) await clock.stepAsync(0);
    await flushAsync(10);
  }
  /** Steps to `end`, timer by timer, settling after each. */
  async function stepTo(end: number): Promise<void> {
    for (;;) {
      const next = clock.nextTimerAt();
      const to = next === undefined || next > end ? end : next;
      await clock.stepAsync(to - clock.now());
      await settle();
      if (to >= end) return;
    }
  }
  const jobs = async (): Promise<Job[]> => [...(await client.batch.jobs('ns').list()).items].filter((j) => !j.metadata?.deletionTimestamp).sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  const events = async (reason?: string): Promise<string[]> => {
    await recorder.flush();
    return (await client.core.events('ns').list()).items.filter((e) => reason === undefined || e.reason === reason).map((e) => `${e.type ?? ''} ${e.reason ?? ''} ${e.message ?? ''}`);
  };
  const cronJob = (name: string): Promise<CronJob> => client.batch.cronJobs('ns').get(name);
  /** Marks a Job finished now (startTime = its scheduled time). */
  const finish = async (name: string, type: 'Complete' | 'Failed'): Promise<void> => {
    const j = await client.batch.jobs('ns').get(name);
    const now = formatTime(clock.now());
    const startTime = j.metadata?.annotations?.[CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION];
    await client.batch.jobs('ns').updateStatus({ ...j, status: finishedJobStatus(type, now, startTime ? formatTime(Date.parse(startTime)) : now) });
    await settle();
  };
  const stop = async (): Promise<void> => {
    ac.abort();
    informers.shutdown();
    await running;
  };
  /** The running controller; throws before {@link startController}. */
  const theController = (): CronJobController => {
    if (!controller) throw new Error('controller not started');
    return controller;
  };
  return { clock, client, transport, startController, theController, settle, stepTo, jobs, events, cronJob, finish, stop };
}

const names = (js: readonly Job[]): string[] => js.map((j) => j.metadata?.name ?? '');
const minutes = (iso: string): number => Math.floor(Date.parse(iso) / MIN);

describe('CronJob controller', () => {
  test('creates the Job of each activation: name, template labels and annotations, scheduled timestamp, ownerRef, status', async () => {
    const T0 = Date.parse('2025-01-01T00:00:30Z');
    const s = await setup(T0);
    const cj = await s.client.batch.cronJobs('ns').create(newCronJob('every', { schedule: '*/5 * * * *' }));
    await s.startController();
    assert.deepEqual(await s.jobs(), [], 'nothing before the first activation');
    await s.stepTo(T0 + 5 * MIN);
    const [job] = await s.jobs();
    assert.equal(job?.metadata?.name, `every-${minutes('2025-01-01T00:05:00Z')}`);
    assert.equal(job?.metadata?.labels?.team, 'a');
    assert.equal(job?.metadata?.annotations?.note, 'x');
    assert.equal(job?.metadata?.annotations?.[CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION], '2025-01-01T00:05:00Z');
    assert.deepEqual(job?.metadata?.ownerReferences, [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'every', uid: cj.metadata?.uid, controller: true, blockOwnerDeletion: true }]);
    const status = (await s.cronJob('every')).status;
    assert.equal(status?.lastScheduleTime, '2025-01-01T00:05:00Z');
    assert.deepEqual(
      status?.active?.map((r) => [r.kind, r.name, r.uid]),
      [['Job', job?.metadata?.name, job?.metadata?.uid]],
    );
    assert.deepEqual(await s.events('SuccessfulCreate'), [`Normal SuccessfulCreate Created job ${job?.metadata?.name ?? ''}`]);
    // The completed Job leaves the active list, sets lastSuccessfulTime.
    await s.clock.stepAsync(MIN);
    await s.finish(job?.metadata?.name ?? '', 'Complete');
    await s.settle();
    const after = (await s.cronJob('every')).status;
    assert.deepEqual(after?.active ?? [], []);
    assert.equal(after?.lastSuccessfulTime, '2025-01-01T00:06:30Z');
    assert.deepEqual(await s.events('SawCompletedJob'), [`Normal SawCompletedJob Saw completed job: ${job?.metadata?.name ?? ''}, condition: Complete`]);
    await s.stop();
  });

  test('America/New_York through 2025-03-09 (spring forward): hourly runs skip 02:00 — 23 Jobs, names and annotations in the zone', async () => {
    const T0 = Date.parse('2025-03-09T00:00:30-05:00');
    const s = await setup(T0);
    await s.client.batch.cronJobs('ns').create(newCronJob('hourly', { schedule: '@hourly', timeZone: 'America/New_York', successfulJobsHistoryLimit: 100 }));
    await s.startController();
    await s.stepTo(Date.parse('2025-03-10T00:00:30-04:00'));
    const js = await s.jobs();
    const stamps = js.map((j) => j.metadata?.annotations?.[CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION]);
    assert.equal(js.length, 23);
    assert.deepEqual(stamps.slice(0, 3), ['2025-03-09T01:00:00-05:00', '2025-03-09T03:00:00-04:00', '2025-03-09T04:00:00-04:00']);
    assert.equal(stamps.at(-1), '2025-03-10T00:00:00-04:00');
    assert.deepEqual(names(js).slice(0, 2), [`hourly-${minutes('2025-03-09T06:00:00Z')}`, `hourly-${minutes('2025-03-09T07:00:00Z')}`]);
    await s.stop();
  });

  test('America/New_York on 2025-11-02 (fall back): 01:30 happens twice and runs twice; 02:30 on 2025-03-09 not at all', async () => {
    const T0 = Date.parse('2025-11-01T12:00:00-04:00');
    const s = await setup(T0);
    await s.client.batch.cronJobs('ns').create(newCronJob('at0130', { schedule: '30 1 * * *', timeZone: 'America/New_York' }));
    await s.startController();
    await s.stepTo(Date.parse('2025-11-02T12:00:00-05:00'));
    const js = await s.jobs();
    assert.deepEqual(
      js.map((j) => j.metadata?.annotations?.[CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION]),
      ['2025-11-02T01:30:00-04:00', '2025-11-02T01:30:00-05:00'],
    );
    assert.deepEqual(names(js), [`at0130-${minutes('2025-11-02T05:30:00Z')}`, `at0130-${minutes('2025-11-02T06:30:00Z')}`]);
    await s.stop();

    const spring = await setup(Date.parse('2025-03-08T12:00:00-05:00'));
    await spring.client.batch.cronJobs('ns').create(newCronJob('at0230', { schedule: '30 2 * * *', timeZone: 'America/New_York' }));
    await spring.startController();
    await spring.stepTo(Date.parse('2025-03-10T12:00:00-04:00'));
    assert.deepEqual(
      (await spring.jobs()).map((j) => j.metadata?.annotations?.[CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION]),
      ['2025-03-10T02:30:00-04:00'],
    );
    await spring.stop();
  });

  test('Europe/Berlin on 2025-03-30: @daily runs at local midnight on both sides of the change', async () => {
    const s = await setup(Date.parse('2025-03-29T12:00:00+01:00'));
    await s.client.batch.cronJobs('ns').create(newCronJob('daily', { schedule: '@daily', timeZone: 'Europe/Berlin' }));
    await s.startController();
    await s.stepTo(Date.parse('2025-03-31T12:00:00+02:00'));
    assert.deepEqual(
      (await s.jobs()).map((j) => j.metadata?.annotations?.[CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION]),
      ['2025-03-30T00:00:00+01:00', '2025-03-31T00:00:00+02:00'],
    );
    await s.stop();
  });

  test('more than 100 missed start times: TooManyMissedTimes, and the most recent one still runs', async () => {
    const T0 = Date.parse('2025-01-01T00:00:30Z');
    const s = await setup(T0);
    await s.client.batch.cronJobs('ns').create(newCronJob('late', {}));
    await s.clock.stepAsync(3 * HOUR); // the controller is down for 180 activations
    await s.startController();
    assert.deepEqual(names(await s.jobs()), [`late-${minutes('2025-01-01T03:00:00Z')}`]);
    assert.deepEqual(await s.events('TooManyMissedTimes'), ['Warning TooManyMissedTimes too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew']);
    await s.stop();
  });

  test('100 or fewer missed: no warning; startingDeadlineSeconds narrows the window (no warning, nothing too old runs)', async () => {
    const T0 = Date.parse('2025-01-01T00:00:30Z');
    const s = await setup(T0);
    await s.client.batch.cronJobs('ns').create(newCronJob('few', {}));
    await s.client.batch.cronJobs('ns').create(newCronJob('deadline', { startingDeadlineSeconds: 200 }));
    await s.client.batch.cronJobs('ns').create(newCronJob('hourly-deadline', { schedule: '0 * * * *', startingDeadlineSeconds: 60 }));
    await s.clock.stepAsync(99 * MIN);
    await s.startController();
    // hourly-deadline: its 01:00 run is 39 minutes old, beyond its 60 s window, so it has none.
    assert.deepEqual(names(await s.jobs()), [`deadline-${minutes('2025-01-01T01:39:00Z')}`, `few-${minutes('2025-01-01T01:39:00Z')}`]);
    assert.deepEqual(await s.events('TooManyMissedTimes'), []);
    await s.stop();
  });

  test('startingDeadlineSeconds: a run found later than the deadline is skipped; within it, it runs', async () => {
    const T0 = Date.parse('2025-01-01T00:00:30Z');
    const s = await setup(T0);
    await s.client.batch.cronJobs('ns').create(newCronJob('strict', { schedule: '0 * * * *', startingDeadlineSeconds: 60 }));
    await s.client.batch.cronJobs('ns').create(newCronJob('lenient', { schedule: '0 * * * *', startingDeadlineSeconds: 600 }));
    await s.clock.stepAsync(HOUR + 5 * MIN - 30_000); // 01:05:00, five minutes after the activation
    await s.startController();
    assert.deepEqual(names(await s.jobs()), [`lenient-${minutes('2025-01-01T01:00:00Z')}`]);
    await s.stop();
  });

  test('concurrencyPolicy Allow runs alongside, Forbid skips (JobAlreadyActive), Replace deletes the running Job first', async () => {
    const T0 = Date.parse('2025-01-01T00:00:30Z');
    const s = await setup(T0);
    for (const policy of ['Allow', 'Forbid', 'Replace'] as const) await s.client.batch.cronJobs('ns').create(newCronJob(policy.toLowerCase(), { concurrencyPolicy: policy }));
    await s.startController();
    await s.stepTo(T0 + 2 * MIN); // activations at 00:01 and 00:02; no Job ever finishes
    const m1 = minutes('2025-01-01T00:01:00Z');
    const m2 = m1 + 1;
    assert.deepEqual(names(await s.jobs()), [`allow-${m1}`, `allow-${m2}`, `forbid-${m1}`, `replace-${m2}`]);
    assert.deepEqual(await s.events('JobAlreadyActive'), ['Normal JobAlreadyActive Not starting job because prior execution is running and concurrency policy is Forbid']);
    assert.deepEqual(await s.events('SuccessfulDelete'), [`Normal SuccessfulDelete Deleted job replace-${m1}`]);
    const del = s.transport.actions.find((a) => a.verb === 'delete' && a.name === `replace-${m1}`);
    assert.equal((del?.body as { propagationPolicy?: string }).propagationPolicy, 'Background');
    assert.deepEqual(
      (await s.cronJob('replace')).status?.active?.map((r) => r.name),
      [`replace-${m2}`],
    );
    assert.deepEqual(
      (await s.cronJob('allow')).status?.active?.map((r) => r.name),
      [`allow-${m1}`, `allow-${m2}`],
    );
    await s.stop();
  });

  test('history limits: the oldest finished Jobs beyond successfulJobsHistoryLimit / failedJobsHistoryLimit are deleted', async () => {
    const T0 = Date.parse('2025-01-01T00:00:30Z');
    const s = await setup(T0);
    await s.client.batch.cronJobs('ns').create(newCronJob('h', { successfulJobsHistoryLimit: 2, failedJobsHistoryLimit: 1 }));
    await s.startController();
    const m = minutes('2025-01-01T00:01:00Z');
    for (let i = 0; i < 6; i++) {
      await s.stepTo(T0 + (i + 1) * MIN);
      await s.finish(`h-${m + i}`, i % 2 === 0 ? 'Complete' : 'Failed');
    }
    // Complete: m, m+2, m+4 → keep the 2 newest; Failed: m+1, m+3, m+5 → keep 1.
    assert.deepEqual(names(await s.jobs()), [`h-${m + 2}`, `h-${m + 4}`, `h-${m + 5}`]);
    assert.ok((await s.events('SuccessfulDelete')).includes(`Normal SuccessfulDelete Deleted job h-${m}`));
    await s.stop();
  });

  test('the sync that sees an active Job succeed drops it from active and sets lastSuccessfulTime at once', async () => {
    // Upstream #122025 (in v1.33's syncCronJob): done in a later sync, the success was lost whenever
    // the Job was gone by then (a TTL, or a newer Job pushing it out of the history).
    const T0 = Date.parse('2025-01-01T00:00:30Z');
    const s = await setup(T0);
    await s.client.batch.cronJobs('ns').create(newCronJob('zero', {}));
    await s.startController();
    await s.stepTo(T0 + MIN);
    const [job] = await s.jobs();
    const name = job?.metadata?.name ?? '';
    const cjc = s.theController();
    const sync = cjc.syncHandler;
    /** After each sync: `active names | lastSuccessfulTime`. */
    const seen: string[] = [];
    cjc.syncHandler = async (key) => {
      const r = await sync(key);
      const st = (await s.cronJob('zero')).status;
      seen.push(`${(st?.active ?? []).map((a) => a.name).join(',')} | ${st?.lastSuccessfulTime ?? ''}`);
      return r;
    };
    await s.clock.stepAsync(10_000);
    await s.finish(name, 'Complete');
    await s.settle();
    assert.ok(seen.length > 0);
    assert.ok(seen.every((x) => x === ' | 2025-01-01T00:01:40Z'), `states after each sync: ${JSON.stringify(seen)}`);
    assert.deepEqual(await s.events('SawCompletedJob'), [`Normal SawCompletedJob Saw completed job: ${name}, condition: Complete`]);
    await s.stop();
  });

  test('suspend: no Jobs while suspended; resuming runs the most recent missed activation', async () => {
    const T0 = Date.parse('2025-01-01T00:00:30Z');
    const s = await setup(T0);
    await s.client.batch.cronJobs('ns').create(newCronJob('sus', { suspend: true }));
    await s.startController();
    await s.stepTo(T0 + 5 * MIN);
    assert.deepEqual(await s.jobs(), []);
    const cj = await s.cronJob('sus');
    await s.client.batch.cronJobs('ns').update({ ...cj, spec: { ...cj.spec!, suspend: false } });
    await s.settle();
    assert.deepEqual(names(await s.jobs()), [`sus-${minutes('2025-01-01T00:05:00Z')}`]);
    await s.stop();
  });

  test('an unknown timeZone: UnknownTimeZone, no Jobs', async () => {
    const T0 = Date.parse('2025-01-01T00:00:30Z');
    const bad = { ...newCronJob('mars', { timeZone: 'Mars/Base' }), metadata: { name: 'mars', namespace: 'ns', uid: 'u1', creationTimestamp: '2025-01-01T00:00:00Z' } };
    const s = await setup(T0, [bad]);
    await s.startController();
    await s.stepTo(T0 + 2 * MIN);
    assert.deepEqual(await s.jobs(), []);
    const evs = await s.events('UnknownTimeZone');
    assert.ok(evs.length >= 1);
    assert.equal(evs[0], 'Warning UnknownTimeZone invalid timeZone: "Mars/Base": unknown time zone Mars/Base');
    await s.stop();
  });

  test('UnexpectedJob: a running Job the CronJob controls but does not list as active', async () => {
    const T0 = Date.parse('2025-01-01T00:00:30Z');
    const s = await setup(T0);
    const cj = await s.client.batch.cronJobs('ns').create(newCronJob('owner', { schedule: '0 0 1 1 *' }));
    await s.startController();
    await s.client.batch.jobs('ns').create({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'stray', namespace: 'ns', ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'owner', uid: cj.metadata?.uid ?? '', controller: true }] },
      spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
    });
    await s.settle();
    assert.deepEqual(await s.events('UnexpectedJob'), ['Warning UnexpectedJob Saw a job that the controller did not create or forgot: stray']);
    await s.stop();
  });

  test('a new schedule takes effect at its own next activation (updateCronJob requeues sooner)', async () => {
    const T0 = Date.parse('2025-01-01T00:00:30Z');
    const s = await setup(T0);
    await s.client.batch.cronJobs('ns').create(newCronJob('resched', { schedule: '0 * * * *' }));
    await s.startController();
    await s.stepTo(T0 + 10 * MIN);
    const cj = await s.cronJob('resched');
    await s.client.batch.cronJobs('ns').update({ ...cj, spec: { ...cj.spec!, schedule: '*/15 * * * *' } });
    await s.stepTo(Date.parse('2025-01-01T00:15:01Z'));
    assert.deepEqual(names(await s.jobs()), [`resched-${minutes('2025-01-01T00:15:00Z')}`]);
    await s.stop();
  });

  test('without timeZone the schedule is in the controller manager’s zone (UTC by default); the annotation is in UTC', async () => {
    const T0 = Date.parse('2025-01-01T00:00:30Z');
    const s = await setup(T0);
    await s.client.batch.cronJobs('ns').create(newCronJob('local', { schedule: '0 9 * * *' }));
    await s.startController('America/New_York');
    await s.stepTo(Date.parse('2025-01-01T14:00:01Z'));
    const js = await s.jobs();
    assert.deepEqual(
      js.map((j) => [j.metadata?.name, j.metadata?.annotations?.[CRONJOB_SCHEDULED_TIMESTAMP_ANNOTATION]]),
      [[`local-${minutes('2025-01-01T14:00:00Z')}`, '2025-01-01T14:00:00Z']],
    );
    await s.stop();
  });

  test('MissingJob: an active Job deleted behind the controller’s back leaves the active list', async () => {
    const T0 = Date.parse('2025-01-01T00:00:30Z');
    const s = await setup(T0);
    await s.client.batch.cronJobs('ns').create(newCronJob('miss', { schedule: '0 * * * *' }));
    await s.startController();
    await s.stepTo(T0 + HOUR);
    const [job] = await s.jobs();
    await s.client.batch.jobs('ns').delete(job?.metadata?.name ?? '', { propagationPolicy: 'Background' });
    await s.settle();
    assert.deepEqual((await s.cronJob('miss')).status?.active ?? [], []);
    assert.deepEqual(await s.events('MissingJob'), [`Normal MissingJob Active job went missing: ${job?.metadata?.name ?? ''}`]);
    await s.stop();
  });
});

describe('mostRecentScheduleTime (utils_test.go TestMostRecentScheduleTime)', () => {
  const cj = (creation: string, last?: string, deadline?: number): CronJob => ({
    metadata: { creationTimestamp: creation },
    spec: { schedule: '', jobTemplate: {}, ...(deadline === undefined ? {} : { startingDeadlineSeconds: deadline }) },
    status: last ? { lastScheduleTime: last } : {},
  });
  const run = (schedule: string, c: CronJob, now: string, withDeadline = false) => mostRecentScheduleTime(c, Date.parse(now), parseStandard(schedule), withDeadline);
  const iso = (t: number | undefined): string | undefined => (t === undefined ? undefined : new Date(t).toISOString().replace('.000', ''));

  test('the cases of the upstream table', () => {
    // No schedule yet: now before the first activation.
    let r = run('0 * * * *', cj('2025-01-01T00:30:00Z'), '2025-01-01T00:59:00Z');
    assert.deepEqual([iso(r.mostRecentTime), r.missedSchedules], [undefined, 'none']);
    // One missed.
    r = run('0 * * * *', cj('2025-01-01T00:30:00Z'), '2025-01-01T01:30:00Z');
    assert.deepEqual([iso(r.mostRecentTime), r.missedSchedules], ['2025-01-01T01:00:00Z', 'none']);
    // Several: the most recent, "few".
    r = run('0 * * * *', cj('2025-01-01T00:30:00Z', '2025-01-01T01:00:00Z'), '2025-01-01T05:10:00Z');
    assert.deepEqual([iso(r.mostRecentTime), r.missedSchedules], ['2025-01-01T05:00:00Z', 'few']);
    // Irregular schedule (30 6-16/4 * * 1-5) over a weekend.
    r = run('30 6-16/4 * * 1-5', cj('2025-01-03T10:30:00Z', '2025-01-03T14:30:00Z'), '2025-01-06T12:00:00Z');
    assert.deepEqual([iso(r.mostRecentTime), r.missedSchedules], ['2025-01-06T10:30:00Z', 'few']);
    // Many: > 100.
    r = run('* * * * *', cj('2025-01-01T00:00:00Z'), '2025-01-01T02:00:00Z');
    assert.deepEqual([iso(r.mostRecentTime), r.missedSchedules], ['2025-01-01T02:00:00Z', 'many']);
    // The deadline raises the earliest time.
    r = run('* * * * *', cj('2025-01-01T00:00:00Z', undefined, 300), '2025-01-01T02:00:00Z', true);
    assert.deepEqual([iso(r.mostRecentTime), r.missedSchedules], ['2025-01-01T02:00:00Z', 'few']);
    // @every 1h from the creation time.
    r = run('@every 1h', cj('2025-01-01T00:10:00Z'), '2025-01-01T03:20:00Z');
    assert.deepEqual([iso(r.mostRecentTime), r.missedSchedules], ['2025-01-01T03:10:00Z', 'few']);
    // A schedule with no real activation (31 February).
    assert.throws(() => run('59 23 31 2 *', cj('2025-01-01T00:00:00Z'), '2025-06-01T00:00:00Z'), /time difference between two schedules is less than 1 second/);
  });
});
