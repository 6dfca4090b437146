/**
 * Jobs in the whole control plane under a FakeClock (scheduler, simulated kubelets running the pods'
 * commands to completion, garbage collector): a Job whose pods sleep 3 s completes, its pods losing
 * the tracking finalizer; a Job whose pods exit 2 is retried after the 10 s back-off and fails with
 * BackoffLimitExceeded; a podFailurePolicy ignores an evicted pod and fails the Job on exit code 42.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Job, Pod } from '../../src/api/index.js';
import { parseTime } from '../../src/util/clock/index.js';
import { newPlane, stepUntil } from './cluster-helpers.js';

function job(name: string, script: string, spec: Omit<NonNullable<Job['spec']>, 'template'> = {}): Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name, namespace: 'default' },
    spec: { ...spec, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox', command: ['sh', '-c', script] }] } } },
  };
}

const condition = (j: Job, type: string) => j.status?.conditions?.find((c) => c.type === type && c.status === 'True');

describe('Job in the control plane', () => {
  test('pods that sleep 3 s: the Job completes, every pod Succeeded and free of the tracking finalizer', async () => {
    const { cp, clock } = await newPlane();
    const jobs = cp.client.batch.jobs('default');
    await jobs.create(job('sleepy', 'sleep 3', { completions: 2, parallelism: 2 }));
    await stepUntil(clock, 'Job complete', async () => condition(await jobs.get('sleepy'), 'Complete') !== undefined);
    const done = await jobs.get('sleepy');
    assert.equal(done.status?.succeeded, 2);
    assert.ok((parseTime(done.status?.completionTime) ?? 0) - (parseTime(done.status?.startTime) ?? 0) >= 3000, 'the pods ran their 3 s');
    const pods: Pod[] = [...(await cp.client.core.pods('default').list({ labelSelector: 'batch.kubernetes.io/job-name=sleepy' })).items];
    assert.deepEqual(pods.map((p) => p.status?.phase), ['Succeeded', 'Succeeded']);
    assert.ok(pods.every((p) => (p.metadata?.finalizers ?? []).length === 0));
    await cp.stop();
  });

  test('pods that exit 2 with backoffLimit 1: a second pod after the back-off, then BackoffLimitExceeded', async () => {
    const { cp, clock } = await newPlane();
    const jobs = cp.client.batch.jobs('default');
    await jobs.create(job('failing', 'exit 2', { backoffLimit: 1 }));
    await stepUntil(clock, 'Job failed', async () => condition(await jobs.get('failing'), 'Failed') !== undefined, 600);
    const failed = await jobs.get('failing');
    assert.equal(condition(failed, 'Failed')?.reason, 'BackoffLimitExceeded');
    assert.equal(condition(failed, 'Failed')?.message, 'Job has reached the specified backoff limit');
    assert.equal(failed.status?.failed, 2);
    const pods: Pod[] = [...(await cp.client.core.pods('default').list({ labelSelector: 'batch.kubernetes.io/job-name=failing' })).items].sort(
      (a, b) => (parseTime(a.metadata?.creationTimestamp) ?? 0) - (parseTime(b.metadata?.creationTimestamp) ?? 0),
    );
    assert.equal(pods.length, 2);
    assert.deepEqual(pods.map((p) => p.status?.containerStatuses?.[0]?.state?.terminated?.exitCode), [2, 2]);
    const firstFinished = parseTime(pods[0]?.status?.containerStatuses?.[0]?.state?.terminated?.finishedAt) ?? 0;
    assert.ok((parseTime(pods[1]?.metadata?.creationTimestamp) ?? 0) - firstFinished >= 9000, 'the retry waits out the 10 s back-off');
    await cp.stop();
  });

  test('podFailurePolicy: an evicted pod (DisruptionTarget) is ignored and replaced; exit code 42 fails the Job at once', async () => {
    const { cp, clock } = await newPlane();
    const jobs = cp.client.batch.jobs('default');
    const pods = cp.client.core.pods('default');
    const podFailurePolicy = {
      rules: [
        { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
        { action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [42] } },
      ],
    };
    await jobs.create(job('policy', 'sleep 5; exit 42', { backoffLimit: 0, podFailurePolicy }));
    const list = async (): Promise<Pod[]> => [...(await pods.list({ labelSelector: 'batch.kubernetes.io/job-name=policy' })).items];
    await stepUntil(clock, 'first pod running', async () => (await list()).some((p) => p.status?.phase === 'Running'));
    const first = (await list())[0] as Pod;
    const name = first.metadata?.name ?? '';
    await pods.createSubresource(name, 'eviction', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'default' } });
    await stepUntil(clock, 'a replacement pod', async () => (await list()).some((p) => p.metadata?.name !== name));
    const ignored = await jobs.get('policy');
    assert.equal(ignored.status?.failed ?? 0, 0, 'the evicted pod does not count against backoffLimit 0');
    assert.equal(condition(ignored, 'Failed'), undefined);

    await stepUntil(clock, 'Job failed', async () => condition(await jobs.get('policy'), 'Failed') !== undefined, 1000);
    const failed = await jobs.get('policy');
    const second = (await list()).find((p) => p.metadata?.name !== name);
    assert.equal(condition(failed, 'Failed')?.reason, 'PodFailurePolicy');
    assert.equal(
      condition(failed, 'Failed')?.message,
      `Container main for pod default/${second?.metadata?.name ?? ''} failed with exit code 42 matching FailJob rule at index 1`,
    );
    assert.equal(failed.status?.failed, 1);
    await cp.stop();
  });
});
