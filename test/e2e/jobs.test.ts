/**
 * Jobs and CronJobs with the real kubectl against the built CLI: an echo Job completes, `kubectl
 * wait --for=condition=complete` returns and `kubectl logs job/…` prints its output; a 10-completion
 * parallelism-3 Job; an Indexed Job whose pods print their index; a failing Job reaching
 * BackoffLimitExceeded after the back-off; `kubectl create job --from=cronjob/…`.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startKubeplane, removeDataDir, type Kubeplane } from './harness.js';

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
interface Job {
  metadata: { name: string; ownerReferences?: { kind: string; name: string }[]; annotations?: Record<string, string> };
  status: { succeeded?: number; failed?: number; completedIndexes?: string; conditions?: Condition[] };
}
interface Pod {
  metadata: { name: string; annotations?: Record<string, string> };
}

describe('Jobs with real kubectl', { timeout: 240_000 }, () => {
  let kp: Kubeplane;
  before(async () => {
    kp = await startKubeplane({ nodes: 2, args: ['--pod-start-delay', '100'] });
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
  });

  test('kubectl create job … -- sh -c "echo …": Complete, kubectl wait returns, kubectl logs job/… prints it', async () => {
    assert.equal((await kp.kubectlOk(['create', 'job', 'hello', '--image=busybox', '--', 'sh', '-c', 'echo hello from a job'])).trim(), 'job.batch/hello created');
    assert.equal((await kp.kubectlOk(['wait', '--for=condition=complete', 'job/hello', '--timeout=60s'])).trim(), 'job.batch/hello condition met');
    assert.equal(await kp.kubectlOk(['logs', 'job/hello']), 'hello from a job\n');
    assert.match(await kp.kubectlOk(['get', 'job', 'hello']), /^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE\nhello\s+Complete\s+1\/1\s+\d+s\s+\d+s\n$/);
  });

  test('completions 10, parallelism 3: ten pods succeed', async () => {
    const manifest = JSON.stringify({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'ten' },
      spec: { completions: 10, parallelism: 3, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'w', image: 'busybox', command: ['sh', '-c', 'sleep 1'] }] } } },
    });
    await kp.kubectlOk(['apply', '-f', '-'], manifest);
    await kp.kubectlOk(['wait', '--for=condition=complete', 'job/ten', '--timeout=120s']);
    const job = await kp.kubectlJson<Job>(['get', 'job', 'ten']);
    assert.equal(job.status.succeeded, 10);
    assert.equal((await kp.kubectlJson<{ items: Pod[] }>(['get', 'pods', '-l', 'batch.kubernetes.io/job-name=ten'])).items.length, 10);
  });

  test('an Indexed Job: each pod prints its JOB_COMPLETION_INDEX; completedIndexes 0-2', async () => {
    const manifest = JSON.stringify({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'indexed' },
      spec: {
        completions: 3,
        parallelism: 3,
        completionMode: 'Indexed',
        template: { spec: { restartPolicy: 'Never', containers: [{ name: 'w', image: 'busybox', command: ['sh', '-c', 'echo index $JOB_COMPLETION_INDEX'] }] } },
      },
    });
    await kp.kubectlOk(['apply', '-f', '-'], manifest);
    await kp.kubectlOk(['wait', '--for=condition=complete', 'job/indexed', '--timeout=60s']);
    assert.equal((await kp.kubectlJson<Job>(['get', 'job', 'indexed'])).status.completedIndexes, '0-2');
    const pods = (await kp.kubectlJson<{ items: Pod[] }>(['get', 'pods', '-l', 'batch.kubernetes.io/job-name=indexed'])).items;
    const printed = await Promise.all(pods.map(async (p) => `${p.metadata.annotations?.['batch.kubernetes.io/job-completion-index'] ?? ''}: ${(await kp.kubectlOk(['logs', p.metadata.name])).trim()}`));
    assert.deepEqual(printed.sort(), ['0: index 0', '1: index 1', '2: index 2']);
  });

  test('a failing Job with backoffLimit 1: retried once after the back-off, then BackoffLimitExceeded', async () => {
    const manifest = JSON.stringify({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'failing' },
      spec: { backoffLimit: 1, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'w', image: 'busybox', command: ['sh', '-c', 'echo oops; exit 3'] }] } } },
    });
    await kp.kubectlOk(['apply', '-f', '-'], manifest);
    assert.equal((await kp.kubectlOk(['wait', '--for=condition=failed', 'job/failing', '--timeout=90s'])).trim(), 'job.batch/failing condition met');
    const job = await kp.kubectlJson<Job>(['get', 'job', 'failing']);
    const failed = job.status.conditions?.find((c) => c.type === 'Failed');
    assert.deepEqual([failed?.reason, failed?.message, job.status.failed], ['BackoffLimitExceeded', 'Job has reached the specified backoff limit', 2]);
    assert.match(await kp.kubectlOk(['get', 'job', 'failing']), /failing\s+Failed\s+0\/1\s/);
  });

  test('kubectl create job --from=cronjob/…: a Job owned by the CronJob runs its template', async () => {
    await kp.kubectlOk(['create', 'cronjob', 'tick', '--image=busybox', '--schedule=0 0 1 1 *', '--', 'sh', '-c', 'echo tick']);
    assert.equal((await kp.kubectlOk(['create', 'job', 'tick-now', '--from=cronjob/tick'])).trim(), 'job.batch/tick-now created');
    await kp.kubectlOk(['wait', '--for=condition=complete', 'job/tick-now', '--timeout=60s']);
    const job = await kp.kubectlJson<Job>(['get', 'job', 'tick-now']);
    assert.deepEqual(job.metadata.ownerReferences?.map((r) => `${r.kind}/${r.name}`), ['CronJob/tick']);
    assert.equal(await kp.kubectlOk(['logs', 'job/tick-now']), 'tick\n');
    assert.match(await kp.kubectlOk(['get', 'cronjob', 'tick']), /^NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE\ntick\s+0 0 1 1 \*\s+<none>\s+False\s+0\s+<none>\s+\d+s\n$/);
  });
});
