/**
 * The life of batch objects with the real kubectl against the built CLI, past a Job's completion:
 * - a CronJob's missed run creates `<name>-<unix minutes>` with the scheduled-timestamp
 *   annotation, sets lastScheduleTime / lastSuccessfulTime, and keeps successfulJobsHistoryLimit 1
 *   (two Jobs made at once by `kubectl create job --from=cronjob/…` count in its history: kubectl sets
 *   the CronJob as their controller); a never-firing CronJob keeps failedJobsHistoryLimit 1;
 * - the TTL-after-finished controller deletes a Job with ttlSecondsAfterFinished 0, and its pods, and
 *   a finished Job once a TTL is patched in;
 * - `kubectl logs deploy/x` (kubectl picks one pod and says so on stderr) and `kubectl logs -l … --prefix`.
 *
 * The three parts run concurrently. The CronJob's last run is set two minutes back through its status,
 * so its missed run fires at once rather than at the next minute boundary.
 * Expected texts follow kubernetes/kubernetes pkg/controller/cronjob/cronjob_controllerv2.go (events,
 * history order `byJobStartTime` in utils.go) and kubectl's pkg/polymorphichelpers
 * attachablepodforobject.go ("Found N pods, using pod/…").
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { formatTime, realClock } from '../../src/util/clock/index.js';
import { startKubeplane, removeDataDir, eventually, type Kubeplane } from './harness.js';

interface Condition {
  type: string;
  status: string;
}
interface Job {
  metadata: { name: string; ownerReferences?: { kind: string; name: string; controller?: boolean }[]; annotations?: Record<string, string> };
  status: { succeeded?: number; failed?: number; conditions?: Condition[]; completionTime?: string };
}
interface CronJob {
  status: { active?: { name: string }[]; lastScheduleTime?: string; lastSuccessfulTime?: string };
}
interface Pod {
  metadata: { name: string };
}
interface Event {
  involvedObject: { kind: string; name: string };
  type: string;
  reason: string;
  message: string;
  source?: { component?: string };
}

const SCHEDULED_ANNOTATION = 'batch.kubernetes.io/cronjob-scheduled-timestamp';

/** The true finished condition of a Job (`Complete` / `Failed`), or '' while it runs. */
const finished = (j: Job): string => j.status.conditions?.find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True')?.type ?? '';

/** A Job spec running `script` once in one busybox container `name` (restartPolicy Never), plus `extra` spec fields. */
const jobSpec = (name: string, script: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  ...extra,
  template: { spec: { restartPolicy: 'Never', containers: [{ name, image: 'busybox', command: ['sh', '-c', script] }] } },
});

/** The JSON of a CronJob keeping one successful and one failed Job in its history; `extra`: more spec fields. */
const cronJobManifest = (name: string, schedule: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name },
    spec: { ...extra, schedule, successfulJobsHistoryLimit: 1, failedJobsHistoryLimit: 1, jobTemplate: { spec } },
  });

describe('CronJob history, TTL cleanup and kubectl logs deploy/… with real kubectl', { timeout: 180_000, concurrency: true }, () => {
  let kp: Kubeplane;
  before(async () => {
    kp = await startKubeplane({ nodes: 2, args: ['--pod-start-delay', '100'] });
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
  });

  /** The Jobs whose controller is the CronJob `cronJob`, by name. */
  const ownedJobs = async (cronJob: string): Promise<Job[]> =>
    (await kp.kubectlJson<{ items: Job[] }>(['get', 'jobs'])).items
      .filter((j) => j.metadata.ownerReferences?.some((r) => r.controller === true && r.kind === 'CronJob' && r.name === cronJob))
      .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  const names = (jobs: Job[]): string[] => jobs.map((j) => j.metadata.name);
  /**
   * Waits (≤ 10 s: the recorder posts events after the change they report) until the events about the
   * CronJob, as `type reason: message`, include all of `expected`; fails naming those missing.
   */
  const expectCronJobEvents = (cronJob: string, expected: string[]): Promise<string[]> =>
    eventually(`events of ${cronJob}`, async () => {
      const events = (await kp.kubectlJson<{ items: Event[] }>(['get', 'events'])).items
        .filter((e) => e.involvedObject.kind === 'CronJob' && e.involvedObject.name === cronJob)
        .map((e) => `${e.type} ${e.reason}: ${e.message}`);
      const missing = expected.filter((e) => !events.includes(e));
      if (missing.length > 0) throw new Error(`missing ${JSON.stringify(missing)} in ${JSON.stringify(events)}`);
      return events;
    }, 10_000);

  test("a CronJob's missed run: Job <name>-<minutes> with the scheduled timestamp, status times, successfulJobsHistoryLimit 1", async () => {
    // Suspended until the Jobs made by hand below have started, so that the scheduled one is the
    // newest when it runs. The sleep keeps it active long enough to read ACTIVE 1.
    // Hourly at the minute before this one, and as if it had last run the minute before that: its
    // schedule then has one missed run, which runs at once when unsuspended (no
    // startingDeadlineSeconds), and the next run is an hour away. The test neither waits for a minute
    // boundary nor sees a second run. The controller reads the last run from status.lastScheduleTime,
    // else creationTimestamp (cronjob_controllerv2.go mostRecentScheduleTime). 12:34:56 → schedule
    // `33 * * * *`, last run 12:32:00, missed run 12:33:00 (a wrap: 12:00:30 → `59 * * * *`, 11:58).
    const thisMinute = Math.floor(realClock.now() / 60_000) * 60_000;
    const schedule = `${Math.floor((thisMinute - 60_000) / 60_000) % 60} * * * *`;
    const manifest = cronJobManifest('hourly', schedule, jobSpec('tick', 'echo tick; sleep 6'), { suspend: true });
    assert.equal((await kp.kubectlOk(['apply', '-f', '-'], manifest)).trim(), 'cronjob.batch/hourly created');

    // Two Jobs made by hand count in the CronJob's history: once both finish, the older is deleted.
    // Start times have whole seconds; a tie goes to the name, so theirs sort before hourly-….
    await kp.kubectlOk(['create', 'job', 'a-by-hand', '--from=cronjob/hourly']);
    await kp.kubectlOk(['create', 'job', 'b-by-hand', '--from=cronjob/hourly']);
    // (a-by-hand finishes with b-by-hand, and may be gone by then: not waited for.)
    await kp.kubectlOk(['wait', '--for=condition=complete', 'job/b-by-hand', '--timeout=30s']);
    await kp.kubectlOk(['wait', '--for=delete', 'job/a-by-hand', '--timeout=30s']);
    const lastRun = formatTime(thisMinute - 120_000);
    await kp.kubectlOk(['patch', 'cronjob', 'hourly', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { lastScheduleTime: lastRun } })]);
    assert.equal(
      (await kp.kubectlOk(['patch', 'cronjob', 'hourly', '--type=merge', '-p', '{"spec":{"suspend":false}}'])).trim(),
      'cronjob.batch/hourly patched',
    );

    // The scheduled Job: the missed run, at once.
    const scheduled = await eventually(
      'the scheduled Job of hourly',
      async () => (await ownedJobs('hourly')).find((j) => j.metadata.annotations?.[SCHEDULED_ANNOTATION] !== undefined),
      10_000,
    );
    const name = scheduled.metadata.name;
    const m = /^hourly-(\d+)$/.exec(name);
    assert.ok(m, `scheduled Job name ${name}`);
    const scheduledTime = formatTime(Number(m[1]) * 60_000);
    assert.equal(scheduled.metadata.annotations?.[SCHEDULED_ANNOTATION], scheduledTime);
    const active = await eventually('hourly active', async () => {
      const cj = await kp.kubectlJson<CronJob>(['get', 'cronjob', 'hourly']);
      return cj.status.active?.length ? cj : undefined;
    }, 10_000);
    assert.deepEqual(active.status.active?.map((r) => r.name), [name]);
    assert.equal(active.status.lastScheduleTime, scheduledTime);
    assert.match(await kp.kubectlOk(['get', 'cj', 'hourly']), /^NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE\nhourly\s+\d+ \* \* \* \*\s+<none>\s+False\s+1\s+(?:\d+s|\d+m(?:\d+s)?)\s+\d+s\n$/);

    assert.equal((await kp.kubectlOk(['wait', '--for=condition=complete', `job/${name}`, '--timeout=30s'])).trim(), `job.batch/${name} condition met`);
    // Now b-by-hand is the older of two successful Jobs.
    await kp.kubectlOk(['wait', '--for=delete', 'job/b-by-hand', '--timeout=30s']);
    const completionTime = (await kp.kubectlOk(['get', 'job', name, '-o', 'jsonpath={.status.completionTime}'])).trim();
    const done = await eventually(`hourly inactive, lastSuccessfulTime ${completionTime}`, async () => {
      const cj = await kp.kubectlJson<CronJob>(['get', 'cronjob', 'hourly']);
      return !cj.status.active?.length && cj.status.lastSuccessfulTime === completionTime ? cj : undefined;
    }, 10_000);
    assert.equal(done.status.lastScheduleTime, scheduledTime);
    const left = await ownedJobs('hourly');
    assert.deepEqual(names(left), [name]);
    assert.equal(finished(left[0]!), 'Complete');
    assert.match(await kp.kubectlOk(['get', 'jobs', name]), new RegExp(`^NAME\\s+STATUS\\s+COMPLETIONS\\s+DURATION\\s+AGE\\n${name}\\s+Complete\\s+1/1\\s+\\d+s\\s+\\d+s\\n$`));
    assert.match(await kp.kubectlOk(['get', 'cj', 'hourly']), /\nhourly\s+\d+ \* \* \* \*\s+<none>\s+False\s+0\s+(?:\d+s|\d+m(?:\d+s)?)\s+\d+s\n$/);
    assert.equal(await kp.kubectlOk(['logs', `job/${name}`]), 'tick\n');

    await expectCronJobEvents('hourly', [
      'Warning UnexpectedJob: Saw a job that the controller did not create or forgot: a-by-hand',
      'Normal SuccessfulDelete: Deleted job a-by-hand',
      `Normal SuccessfulCreate: Created job ${name}`,
      `Normal SawCompletedJob: Saw completed job: ${name}, condition: Complete`,
      'Normal SuccessfulDelete: Deleted job b-by-hand',
    ]);
    const described = await kp.kubectlOk(['describe', 'cronjob', 'hourly']);
    assert.match(described, new RegExp(`Normal\\s+SuccessfulCreate\\s+\\S+\\s+cronjob-controller\\s+Created job ${name}\\n`));
    assert.match(described, /Normal\s+SuccessfulDelete\s+\S+\s+cronjob-controller\s+Deleted job b-by-hand\n/);
    assert.match(described, new RegExp(`Last Schedule Time:\\s+\\w{3}, \\d\\d \\w{3} \\d{4} \\d\\d:${scheduledTime.slice(14, 16)}:00 \\+0000\\n`));
  });

  test('failedJobsHistoryLimit 1: of two failed Jobs of a CronJob, the older is deleted', async () => {
    const manifest = cronJobManifest('yearly-fail', '0 0 1 1 *', jobSpec('w', 'echo no; exit 1', { backoffLimit: 0 }));
    await kp.kubectlOk(['apply', '-f', '-'], manifest);
    await kp.kubectlOk(['create', 'job', 'fail-a', '--from=cronjob/yearly-fail']);
    await kp.kubectlOk(['create', 'job', 'fail-b', '--from=cronjob/yearly-fail']);
    await kp.kubectlOk(['wait', '--for=condition=failed', 'job/fail-b', '--timeout=30s']);
    await kp.kubectlOk(['wait', '--for=delete', 'job/fail-a', '--timeout=30s']);
    const left = await ownedJobs('yearly-fail');
    assert.deepEqual(names(left), ['fail-b']);
    assert.equal(finished(left[0]!), 'Failed');
    await expectCronJobEvents('yearly-fail', ['Normal SuccessfulDelete: Deleted job fail-a']);
    // A failed Job is no success: lastSuccessfulTime stays unset; nothing was scheduled.
    assert.deepEqual((await kp.kubectlJson<CronJob>(['get', 'cronjob', 'yearly-fail'])).status, {});
  });

  test('ttlSecondsAfterFinished 0: the Job and its pods are deleted once it completes', async () => {
    const manifest = JSON.stringify({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'ttl-zero' },
      spec: jobSpec('w', 'echo bye', { ttlSecondsAfterFinished: 0 }),
    });
    assert.equal((await kp.kubectlOk(['apply', '-f', '-'], manifest)).trim(), 'job.batch/ttl-zero created');
    await kp.kubectlOk(['wait', '--for=delete', 'job/ttl-zero', '--timeout=60s']);
    // Deleted in the foreground: the pods went before the Job.
    assert.deepEqual((await kp.kubectlJson<{ items: Pod[] }>(['get', 'pods', '-l', 'batch.kubernetes.io/job-name=ttl-zero'])).items, []);
    const get = await kp.kubectl(['get', 'job', 'ttl-zero']);
    assert.equal(get.stderr.trim(), 'Error from server (NotFound): jobs.batch "ttl-zero" not found');
  });

  test('a TTL patched into a finished Job deletes it', async () => {
    assert.equal((await kp.kubectlOk(['create', 'job', 'keep', '--image=busybox', '--', 'sh', '-c', 'echo kept'])).trim(), 'job.batch/keep created');
    await kp.kubectlOk(['wait', '--for=condition=complete', 'job/keep', '--timeout=60s']);
    // Without a TTL nothing removes it.
    assert.match(await kp.kubectlOk(['get', 'job', 'keep']), /\nkeep\s+Complete\s+1\/1\s/);
    assert.equal(
      (await kp.kubectlOk(['patch', 'job', 'keep', '--type=merge', '-p', '{"spec":{"ttlSecondsAfterFinished":1}}'])).trim(),
      'job.batch/keep patched',
    );
    await kp.kubectlOk(['wait', '--for=delete', 'job/keep', '--timeout=60s']);
    assert.deepEqual((await kp.kubectlJson<{ items: Pod[] }>(['get', 'pods', '-l', 'batch.kubernetes.io/job-name=keep'])).items, []);
  });

  test('kubectl logs deploy/x picks one pod (and says so on stderr); logs -l … --prefix prints every pod', async () => {
    const manifest = JSON.stringify({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'talker', labels: { app: 'talker' } },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'talker' } },
        template: {
          metadata: { labels: { app: 'talker' } },
          spec: { containers: [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'echo started; sleep infinity'] }] },
        },
      },
    });
    await kp.kubectlOk(['apply', '-f', '-'], manifest);
    await kp.kubectlOk(['rollout', 'status', 'deployment/talker', '--timeout=60s']);
    const pods = (await kp.kubectlJson<{ items: Pod[] }>(['get', 'pods', '-l', 'app=talker'])).items.map((p) => p.metadata.name).sort();
    assert.equal(pods.length, 2);

    const one = await kp.kubectl(['logs', 'deploy/talker']);
    assert.equal(one.stdout, 'started\n');
    const picked = /^Found 2 pods, using pod\/(\S+)\n$/.exec(one.stderr);
    assert.ok(picked, `stderr: ${one.stderr}`);
    assert.ok(pods.includes(picked[1]!), `${picked[1]} in ${pods.join(', ')}`);

    const all = await kp.kubectlOk(['logs', '-l', 'app=talker', '--prefix']);
    assert.deepEqual(all.split('\n').filter((l) => l !== '').sort(), pods.map((p) => `[pod/${p}/main] started`));
  });
});
