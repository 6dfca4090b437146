/**
 * Job controller tests: the fake transport (the real API server) with started informers and a
 * FakeClock; the tests play the kubelet by setting pod phases and container statuses by hand. Cases
 * ported from kubernetes/kubernetes v1.33 pkg/controller/job/job_controller_test.go (TestControllerSyncJob,
 * TestSyncJobWithJobPodFailurePolicy, TestSyncJobWithJobSuccessPolicy, TestSyncJobWithJobBackoffLimitPerIndex,
 * TestJobBackoff) where they fit.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Job, JobSpec, Pod } from '../../api/index.js';
import { newClientset } from '../../client/index.js';
import { newFakeTransport } from '../../testing/index.js';
import { newSharedInformerFactory } from '../../informers/index.js';
import { FakeClock, flushAsync, formatTime } from '../../util/clock/index.js';
import { SeededRand } from '../../util/random/index.js';
import { EventRecorder } from '../../client/record/index.js';
import { silentLogger } from '../../util/runtime/index.js';
import { processNextWorkItem } from '../../workqueue/index.js';
import { JobController } from './job-controller.js';
import { JOB_TRACKING_FINALIZER } from './status.js';
import { JOB_COMPLETION_INDEX_ANNOTATION } from './indexed.js';

const T0 = Date.UTC(2025, 0, 1);

function newJob(spec: Partial<JobSpec> = {}, name = 'pi'): Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: 'ns' },
    spec: {
      template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } },
      ...spec,
    },
  };
}

type PodResult = { phase: 'Succeeded' | 'Failed' | 'Running'; exitCode?: number; conditions?: { type: string; status: string }[]; ready?: boolean };

async function setup(job: Job) {
  const clock = new FakeClock(T0);
  const transport = await newFakeTransport({ clock, namespaces: ['ns'], rand: new SeededRand(7) });
  const client = newClientset(transport);
  const informers = newSharedInformerFactory(client, { clock, rand: new SeededRand(3) });
  const recorder = new EventRecorder(client, { component: 'job-controller', clock, logger: silentLogger });
  const jc = new JobController({ client, informers, clock, recorder, logger: silentLogger });
  informers.start();
  await informers.waitForCacheSync();
  await client.batch.jobs('ns').create(job);
  const name = job.metadata?.name ?? '';
  const pods = async (): Promise<Pod[]> => [...(await client.core.pods('ns').list()).items].sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  const getJob = (): Promise<Job> => client.batch.jobs('ns').get(name);

  /**
   * Runs queued keys (job and orphan-pod queues) until both are idle, stepping the clock by the 1 s
   * batch period when only delayed keys remain (at most `maxSteps` times). The kubelet part: a pod
   * being deleted is stopped (phase Failed) and deleted with grace 0.
   */
  async function settle(maxSteps = 5): Promise<void> {
    let steps = 0;
    for (let i = 0; i < 500; i++) {
      await flushAsync();
      if (jc.queue.len() === 0 && jc.orphanQueue.len() === 0) {
        if (steps++ >= maxSteps) return;
        await clock.stepAsync(1000);
        continue;
      }
      if (jc.queue.len() > 0) await processNextWorkItem(jc.queue, jc.syncHandler, { name: 'test', logger: silentLogger });
      if (jc.orphanQueue.len() > 0) await processNextWorkItem(jc.orphanQueue, (k) => jc.syncOrphanPod(k), { name: 'test-orphan', logger: silentLogger });
      await flushAsync();
      for (const p of await pods()) {
        if (!p.metadata?.deletionTimestamp) continue;
        if (p.status?.phase !== 'Failed' && p.status?.phase !== 'Succeeded') await finish(p, { phase: 'Failed', exitCode: 137 });
        await client.core.pods('ns').delete(p.metadata.name ?? '', { gracePeriodSeconds: 0 }).catch(() => undefined);
      }
      await flushAsync();
    }
    throw new Error('controller did not settle');
  }

  /** The kubelet's status write for `pod`. */
  async function finish(pod: Pod, r: PodResult): Promise<void> {
    const fresh = await client.core.pods('ns').get(pod.metadata?.name ?? '');
    const now = formatTime(clock.now());
    const p: Pod = { ...fresh };
    (p as { status: Pod['status'] }).status = {
      ...fresh.status,
      phase: r.phase,
      conditions: [...(r.conditions ?? []), { type: 'Ready', status: r.ready ? 'True' : 'False' }],
      containerStatuses: [
        {
          name: 'main',
          image: 'busybox',
          imageID: '',
          ready: r.ready ?? false,
          restartCount: 0,
          state: r.phase === 'Running' ? { running: { startedAt: now } } : { terminated: { exitCode: r.exitCode ?? (r.phase === 'Succeeded' ? 0 : 1), finishedAt: now } },
        },
      ],
    };
    await client.core.pods('ns').updateStatus(p);
  }

  /** Finishes the active (non-terminal, not deleting) pods, up to `n`, with `r`. */
  async function finishActive(n: number, r: PodResult): Promise<void> {
    const active = (await pods()).filter((p) => !p.metadata?.deletionTimestamp && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed');
    for (const p of active.slice(0, n)) await finish(p, r);
  }

  async function events(): Promise<string[]> {
    return (await client.core.events('ns').list()).items.map((e) => `${e.type ?? ''} ${e.reason ?? ''} ${e.message ?? ''}`);
  }
  const cond = (j: Job, type: string) => j.status?.conditions?.find((c) => c.type === type);
  return { clock, client, jc, pods, getJob, settle, finish, finishActive, events, cond };
}

const activePods = (ps: Pod[]) => ps.filter((p) => !p.metadata?.deletionTimestamp && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed');

describe('Job controller: NonIndexed', () => {
  test('completions 3, parallelism 2: creates pods with the tracking finalizer, counts successes, completes', async () => {
    const t = await setup(newJob({ completions: 3, parallelism: 2 }));
    await t.settle();
    let ps = await t.pods();
    assert.equal(ps.length, 2);
    for (const p of ps) {
      assert.deepEqual(p.metadata?.finalizers, [JOB_TRACKING_FINALIZER]);
      assert.match(p.metadata?.name ?? '', /^pi-[a-z0-9]{5}$/);
      assert.equal(p.metadata?.ownerReferences?.[0]?.kind, 'Job');
    }
    let job = await t.getJob();
    assert.equal(job.status?.active ?? 0, 2);
    assert.equal(job.status?.startTime, formatTime(T0));
    assert.deepEqual(job.status?.uncountedTerminatedPods, {});

    await t.finishActive(2, { phase: 'Succeeded' });
    await t.settle();
    job = await t.getJob();
    assert.equal(job.status?.succeeded, 2);
    assert.equal(job.status?.active, 1, 'only one more completion is wanted');
    ps = await t.pods();
    assert.equal(ps.filter((p) => p.status?.phase === 'Succeeded' && (p.metadata?.finalizers ?? []).length === 0).length, 2, 'counted pods lose the finalizer');
    assert.equal(t.cond(job, 'Complete'), undefined);

    await t.finishActive(1, { phase: 'Succeeded' });
    await t.settle();
    job = await t.getJob();
    assert.equal(job.status?.succeeded, 3);
    assert.equal(job.status?.active ?? 0, 0);
    assert.deepEqual([t.cond(job, 'SuccessCriteriaMet')?.reason, t.cond(job, 'Complete')?.reason, t.cond(job, 'Complete')?.message], ['CompletionsReached', 'CompletionsReached', 'Reached expected number of succeeded pods']);
    assert.ok(job.status?.completionTime);
    const ev = await t.events();
    assert.equal(ev.filter((e) => e.startsWith('Normal SuccessfulCreate Created pod: pi-')).length, 3);
    assert.ok(ev.includes('Normal Completed Job completed'));
  });

  test('work queue (completions unset): complete once one pod succeeded and none is active', async () => {
    const t = await setup(newJob({ parallelism: 2 }));
    await t.settle();
    await t.finishActive(1, { phase: 'Succeeded' });
    await t.settle();
    let job = await t.getJob();
    assert.equal(t.cond(job, 'Complete'), undefined, 'one pod still runs');
    assert.equal((await t.pods()).length, 2, 'no new pod after a success');
    await t.finishActive(1, { phase: 'Succeeded' });
    await t.settle();
    job = await t.getJob();
    assert.equal(t.cond(job, 'Complete')?.status, 'True');
    assert.equal(job.status?.succeeded, 2);
  });

  test('backoffLimit: a failure is replaced after the 10 s back-off; backoffLimit+1 failures fail the Job', async () => {
    const t = await setup(newJob({ completions: 1, backoffLimit: 1 }));
    await t.settle();
    await t.finishActive(1, { phase: 'Failed', exitCode: 1 });
    await t.settle(2);
    let job = await t.getJob();
    assert.equal(job.status?.failed, 1);
    assert.equal(activePods(await t.pods()).length, 0, 'waiting for the back-off');
    await t.clock.stepAsync(10_000);
    await t.settle();
    assert.equal(activePods(await t.pods()).length, 1, 'replaced after 10 s');
    await t.finishActive(1, { phase: 'Failed', exitCode: 1 });
    await t.settle();
    job = await t.getJob();
    assert.equal(job.status?.failed, 2);
    assert.deepEqual([t.cond(job, 'FailureTarget')?.reason, t.cond(job, 'Failed')?.reason, t.cond(job, 'Failed')?.message], ['BackoffLimitExceeded', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit']);
    assert.equal(job.status?.completionTime, undefined);
    assert.ok((await t.events()).includes('Warning BackoffLimitExceeded Job has reached the specified backoff limit'));
    assert.ok((await t.pods()).every((p) => (p.metadata?.finalizers ?? []).length === 0));
  });

  test('activeDeadlineSeconds: running pods are deleted and the Job fails with DeadlineExceeded', async () => {
    const t = await setup(newJob({ completions: 2, parallelism: 2, activeDeadlineSeconds: 30 }));
    await t.settle();
    assert.equal(activePods(await t.pods()).length, 2);
    await t.clock.stepAsync(30_000);
    await t.settle();
    const job = await t.getJob();
    assert.deepEqual([t.cond(job, 'Failed')?.reason, t.cond(job, 'Failed')?.message], ['DeadlineExceeded', 'Job was active longer than specified deadline']);
    assert.equal(job.status?.active ?? 0, 0);
    assert.equal((await t.pods()).length, 0, 'pods deleted (finalizers removed)');
    assert.ok((await t.events()).includes('Warning DeadlineExceeded Job was active longer than specified deadline'));
  });

  test('suspend deletes the pods and sets Suspended; resume recreates them and resets startTime', async () => {
    const t = await setup(newJob({ completions: 2, parallelism: 2 }));
    await t.settle();
    let job = await t.getJob();
    await t.client.batch.jobs('ns').update({ ...job, spec: { ...job.spec!, suspend: true } });
    await t.settle();
    job = await t.getJob();
    assert.equal(activePods(await t.pods()).length, 0);
    assert.deepEqual([t.cond(job, 'Suspended')?.status, t.cond(job, 'Suspended')?.reason], ['True', 'JobSuspended']);
    assert.equal(job.status?.startTime, undefined, 'cleared while suspended with no pods');
    await t.clock.stepAsync(60_000);
    await t.client.batch.jobs('ns').update({ ...job, spec: { ...job.spec!, suspend: false } });
    await t.settle();
    job = await t.getJob();
    assert.deepEqual([t.cond(job, 'Suspended')?.status, t.cond(job, 'Suspended')?.reason], ['False', 'JobResumed']);
    assert.equal(activePods(await t.pods()).length, 2);
    assert.ok(Date.parse(job.status?.startTime ?? '') >= T0 + 60_000, 'startTime reset on resume');
    const ev = await t.events();
    assert.ok(ev.includes('Normal Suspended Job suspended'));
    assert.ok(ev.includes('Normal Resumed Job resumed'));
  });
});

describe('Job controller: Indexed', () => {
  test('pods carry index annotation, label, hostname and env; completedIndexes as intervals', async () => {
    const t = await setup(newJob({ completions: 4, parallelism: 4, completionMode: 'Indexed' }));
    await t.settle();
    const ps = await t.pods();
    assert.deepEqual(ps.map((p) => p.metadata?.annotations?.[JOB_COMPLETION_INDEX_ANNOTATION]).sort(), ['0', '1', '2', '3']);
    for (const p of ps) {
      const ix = p.metadata?.annotations?.[JOB_COMPLETION_INDEX_ANNOTATION] ?? '';
      assert.equal(p.metadata?.labels?.[JOB_COMPLETION_INDEX_ANNOTATION], ix);
      assert.equal(p.spec?.hostname, `pi-${ix}`);
      assert.match(p.metadata?.name ?? '', new RegExp(`^pi-${ix}-[a-z0-9]{5}$`));
      assert.deepEqual(p.spec?.containers[0]?.env, [{ name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: `metadata.annotations['${JOB_COMPLETION_INDEX_ANNOTATION}']` } } }]);
    }
    const byIx = (ix: string) => ps.find((p) => p.metadata?.annotations?.[JOB_COMPLETION_INDEX_ANNOTATION] === ix) as Pod;
    await t.finish(byIx('0'), { phase: 'Succeeded' });
    await t.finish(byIx('2'), { phase: 'Succeeded' });
    await t.finish(byIx('3'), { phase: 'Succeeded' });
    await t.settle();
    let job = await t.getJob();
    assert.equal(job.status?.completedIndexes, '0,2,3');
    assert.equal(job.status?.succeeded, 3);
    await t.finish(byIx('1'), { phase: 'Succeeded' });
    await t.settle();
    job = await t.getJob();
    assert.equal(job.status?.completedIndexes, '0-3');
    assert.equal(t.cond(job, 'Complete')?.status, 'True');
  });

  test('a failed index gets a new pod with the same index after the back-off', async () => {
    const t = await setup(newJob({ completions: 2, parallelism: 2, completionMode: 'Indexed' }));
    await t.settle();
    const p1 = (await t.pods()).find((p) => p.metadata?.annotations?.[JOB_COMPLETION_INDEX_ANNOTATION] === '1') as Pod;
    await t.finish(p1, { phase: 'Failed', exitCode: 2 });
    await t.settle(2);
    await t.clock.stepAsync(10_000);
    await t.settle();
    const active = activePods(await t.pods());
    assert.deepEqual(active.map((p) => p.metadata?.annotations?.[JOB_COMPLETION_INDEX_ANNOTATION]).sort(), ['0', '1']);
    assert.equal((await t.getJob()).status?.failed, 1);
  });

  test('successPolicy: SuccessCriteriaMet (SuccessPolicy) deletes the rest, then Complete', async () => {
    // TestSyncJobWithJobSuccessPolicy "job with successPolicy; jobPodReplacementPolicy feature enabled".
    const t = await setup(newJob({ completions: 3, parallelism: 3, completionMode: 'Indexed', successPolicy: { rules: [{ succeededIndexes: '0', succeededCount: 1 }] } }));
    await t.settle();
    const p0 = (await t.pods()).find((p) => p.metadata?.annotations?.[JOB_COMPLETION_INDEX_ANNOTATION] === '0') as Pod;
    await t.finish(p0, { phase: 'Succeeded' });
    await t.settle();
    const job = await t.getJob();
    assert.deepEqual([t.cond(job, 'SuccessCriteriaMet')?.reason, t.cond(job, 'SuccessCriteriaMet')?.message], ['SuccessPolicy', 'Matched rules at index 0']);
    assert.deepEqual([t.cond(job, 'Complete')?.reason, t.cond(job, 'Complete')?.message], ['SuccessPolicy', 'Matched rules at index 0']);
    assert.equal(job.status?.completedIndexes, '0');
    assert.equal(activePods(await t.pods()).length, 0);
  });

  test('backoffLimitPerIndex: an index over its limit is failed; the others finish; Failed FailedIndexes', async () => {
    // TestSyncJobWithJobBackoffLimitPerIndex "job failed index is counted and backoffLimitPerIndex=0".
    const t = await setup(newJob({ completions: 2, parallelism: 2, completionMode: 'Indexed', backoffLimitPerIndex: 0 }));
    await t.settle();
    const ps = await t.pods();
    const byIx = (ix: string) => ps.find((p) => p.metadata?.annotations?.[JOB_COMPLETION_INDEX_ANNOTATION] === ix) as Pod;
    assert.equal(byIx('0').metadata?.annotations?.['batch.kubernetes.io/job-index-failure-count'], '0');
    await t.finish(byIx('0'), { phase: 'Failed', exitCode: 3 });
    await t.settle();
    let job = await t.getJob();
    assert.equal(job.status?.failedIndexes, '0');
    assert.equal(activePods(await t.pods()).length, 1, 'no retry of index 0');
    assert.equal(t.cond(job, 'Failed'), undefined, 'index 1 still runs');
    await t.finish(byIx('1'), { phase: 'Succeeded' });
    await t.settle();
    job = await t.getJob();
    assert.deepEqual([t.cond(job, 'Failed')?.reason, t.cond(job, 'Failed')?.message], ['FailedIndexes', 'Job has failed indexes']);
    assert.equal(job.status?.completedIndexes, '1');
  });

  test('maxFailedIndexes exceeded fails the Job at once', async () => {
    const t = await setup(newJob({ completions: 3, parallelism: 3, completionMode: 'Indexed', backoffLimitPerIndex: 0, maxFailedIndexes: 0 }));
    await t.settle();
    await t.finishActive(1, { phase: 'Failed', exitCode: 3 });
    await t.settle();
    const job = await t.getJob();
    assert.deepEqual([t.cond(job, 'Failed')?.reason, t.cond(job, 'Failed')?.message], ['MaxFailedIndexesExceeded', 'Job has exceeded the specified maximal number of failed indexes']);
    assert.equal(activePods(await t.pods()).length, 0);
  });

  test('backoffLimitPerIndex 1: the retry carries job-index-failure-count 1', async () => {
    const t = await setup(newJob({ completions: 1, parallelism: 1, completionMode: 'Indexed', backoffLimitPerIndex: 1 }));
    await t.settle();
    await t.finishActive(1, { phase: 'Failed', exitCode: 3 });
    await t.settle(2);
    assert.equal(activePods(await t.pods()).length, 0, 'per-index back-off');
    await t.clock.stepAsync(10_000);
    await t.settle();
    const retry = activePods(await t.pods());
    assert.equal(retry.length, 1);
    assert.equal(retry[0]?.metadata?.annotations?.['batch.kubernetes.io/job-index-failure-count'], '1');
  });
});

describe('Job controller: podFailurePolicy', () => {
  // TestSyncJobWithJobPodFailurePolicy: one case per action.
  const policy = (action: string, extra: object = {}): Partial<JobSpec> => ({
    completions: 1,
    backoffLimit: 6,
    podFailurePolicy: { rules: [{ action, onExitCodes: { operator: 'In', values: [5] } }, { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }] },
    ...extra,
  });

  test('FailJob: the matching exit code fails the Job with reason PodFailurePolicy', async () => {
    const t = await setup(newJob(policy('FailJob', { parallelism: 2, completions: 2 })));
    await t.settle();
    const [p] = await t.pods();
    await t.finish(p as Pod, { phase: 'Failed', exitCode: 5 });
    await t.settle();
    const job = await t.getJob();
    const msg = `Container main for pod ns/${p?.metadata?.name ?? ''} failed with exit code 5 matching FailJob rule at index 0`;
    assert.deepEqual([t.cond(job, 'FailureTarget')?.reason, t.cond(job, 'Failed')?.reason, t.cond(job, 'Failed')?.message], ['PodFailurePolicy', 'PodFailurePolicy', msg]);
    assert.equal(activePods(await t.pods()).length, 0, 'the other pod is deleted');
    assert.ok((await t.events()).includes(`Warning PodFailurePolicy ${msg}`));
  });

  test('Ignore (DisruptionTarget): not counted, replaced without back-off', async () => {
    const t = await setup(newJob(policy('FailJob')));
    await t.settle();
    await t.finishActive(1, { phase: 'Failed', exitCode: 137, conditions: [{ type: 'DisruptionTarget', status: 'True' }] });
    await t.settle();
    const job = await t.getJob();
    assert.equal(job.status?.failed ?? 0, 0);
    assert.equal(activePods(await t.pods()).length, 1, 'replaced at once');
    assert.equal(t.cond(job, 'Failed'), undefined);
  });

  test('Count: counted towards backoffLimit; no match: counted too', async () => {
    const t = await setup(newJob(policy('Count', { backoffLimit: 1 })));
    await t.settle();
    await t.finishActive(1, { phase: 'Failed', exitCode: 5 });
    await t.settle(2);
    assert.equal((await t.getJob()).status?.failed, 1);
    await t.clock.stepAsync(10_000);
    await t.settle();
    await t.finishActive(1, { phase: 'Failed', exitCode: 7 });
    await t.settle();
    const job = await t.getJob();
    assert.equal(job.status?.failed, 2);
    assert.equal(t.cond(job, 'Failed')?.reason, 'BackoffLimitExceeded');
  });

  test('FailIndex: the index fails at once (backoffLimitPerIndex not reached)', async () => {
    const t = await setup(newJob(policy('FailIndex', { completionMode: 'Indexed', completions: 2, parallelism: 2, backoffLimitPerIndex: 3 })));
    await t.settle();
    const p0 = (await t.pods()).find((p) => p.metadata?.annotations?.[JOB_COMPLETION_INDEX_ANNOTATION] === '0') as Pod;
    await t.finish(p0, { phase: 'Failed', exitCode: 5 });
    await t.settle();
    const job = await t.getJob();
    assert.equal(job.status?.failedIndexes, '0');
    assert.equal(activePods(await t.pods()).length, 1);
  });

  test('podReplacementPolicy Failed (implied): a terminating pod is replaced only once Failed', async () => {
    const t = await setup(newJob(policy('FailJob')));
    await t.settle();
    const [p] = await t.pods();
    await t.client.core.pods('ns').delete(p?.metadata?.name ?? '');
    await flushAsync();
    await t.jc.syncJob('ns/pi');
    const job = await t.getJob();
    assert.equal(job.status?.terminating, 1);
    assert.equal(activePods(await t.pods()).length, 0, 'not replaced while terminating');
  });
});

describe('Job controller: status details', () => {
  test('ready counts the Ready active pods', async () => {
    const t = await setup(newJob({ completions: 3, parallelism: 3 }));
    await t.settle();
    await t.finishActive(2, { phase: 'Running', ready: true });
    await t.settle();
    const job = await t.getJob();
    assert.deepEqual([job.status?.active, job.status?.ready], [3, 2]);
  });

  test('a matching orphan is adopted with the finalizer and its success counted', async () => {
    const t = await setup(newJob({ completions: 2, parallelism: 2 }));
    await t.settle();
    const job = await t.getJob();
    const orphan = await t.client.core.pods('ns').create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'stray', namespace: 'ns', labels: { ...job.spec?.template.metadata?.labels } },
      spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] },
    });
    await t.finish(orphan, { phase: 'Succeeded' });
    await t.settle();
    const stray = await t.client.core.pods('ns').get('stray');
    assert.equal(stray.metadata?.ownerReferences?.[0]?.uid, job.metadata?.uid);
    let cur = await t.getJob();
    assert.equal(cur.status?.succeeded, 1);
    assert.equal(cur.status?.active, 1, 'one completion left: the surplus pod is deleted');
    await t.finishActive(1, { phase: 'Succeeded' });
    await t.settle();
    cur = await t.getJob();
    assert.equal(cur.status?.succeeded, 2);
    assert.equal(t.cond(cur, 'Complete')?.status, 'True');
  });

  test('restartPolicy OnFailure: container restarts reaching backoffLimit fail the Job', async () => {
    // TestControllerSyncJob "too many job failures with podRunning - multiple pods" (restart counts).
    const spec = newJob({ completions: 1, backoffLimit: 2 }).spec!;
    const t = await setup(newJob({ ...spec, template: { spec: { ...spec.template.spec!, restartPolicy: 'OnFailure' } } }));
    await t.settle();
    const [p] = await t.pods();
    const fresh = await t.client.core.pods('ns').get(p?.metadata?.name ?? '');
    await t.client.core.pods('ns').updateStatus({
      ...fresh,
      status: { phase: 'Running', containerStatuses: [{ name: 'main', image: 'busybox', imageID: '', ready: false, restartCount: 2, state: { running: {} } }] },
    });
    await t.settle();
    const job = await t.getJob();
    assert.equal(t.cond(job, 'Failed')?.reason, 'BackoffLimitExceeded');
  });
});

describe('Job controller: orphaned pods', () => {
  test('a deleted Job leaves its pods without the tracking finalizer (no garbage collector here)', async () => {
    const t = await setup(newJob({ completions: 2, parallelism: 2 }));
    await t.settle();
    assert.ok((await t.pods()).every((p) => p.metadata?.finalizers?.includes(JOB_TRACKING_FINALIZER)));
    await t.client.batch.jobs('ns').delete('pi', { propagationPolicy: 'Background' });
    await t.settle();
    const ps = await t.pods();
    assert.equal(ps.length, 2);
    assert.ok(ps.every((p) => (p.metadata?.finalizers ?? []).length === 0));
  });

  test('managedBy another controller: the Job is left alone', async () => {
    const t = await setup(newJob({ completions: 1, managedBy: 'example.com/other' }));
    await t.settle();
    assert.equal((await t.pods()).length, 0);
  });
});
