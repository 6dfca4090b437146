/**
 * The Job's failure and success policies with the real kubectl against the built CLI: a
 * podFailurePolicy FailJob rule on exit code 42; an Ignore rule on DisruptionTarget, the pod evicted
 * by `kubectl drain` (the simulated kubelet kills it and reports it Failed, keeping the eviction's
 * condition) and replaced without counting against backoffLimit 0; backoffLimitPerIndex failing
 * indexes 1 and 2 of an Indexed Job whose pods `exit $JOB_COMPLETION_INDEX`; a successPolicy met by
 * index 1 alone (`[ "$JOB_COMPLETION_INDEX" = 1 ] && exit 0; sleep 600`); an OnFailure Job whose
 * init container crash-loops until its restarts reach backoffLimit.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startKubeplane, removeDataDir, type Kubeplane } from './harness.js';

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
interface Job {
  status: { active?: number; succeeded?: number; failed?: number; completedIndexes?: string; failedIndexes?: string; conditions?: Condition[] };
}
interface Pod {
  metadata: { name: string };
  spec: { nodeName?: string };
  status: { phase?: string; conditions?: Condition[] };
}

const job = (name: string, script: string, spec: Record<string, unknown>): string =>
  JSON.stringify({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name },
    spec: { ...spec, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox', command: ['sh', '-c', script] }] } } },
  });

const trueCondition = (j: Job, type: string): Condition | undefined => j.status.conditions?.find((c) => c.type === type && c.status === 'True');

describe('Job failure and success policies with real kubectl', { timeout: 240_000 }, () => {
  let kp: Kubeplane;
  before(async () => {
    kp = await startKubeplane({ nodes: 2, args: ['--pod-start-delay', '100'] });
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
  });

  const podsOf = async (name: string): Promise<Pod[]> =>
    (await kp.kubectlJson<{ items: Pod[] }>(['get', 'pods', '-l', `batch.kubernetes.io/job-name=${name}`])).items;

  test('podFailurePolicy FailJob on exit code 42: Failed at the first such exit, reason PodFailurePolicy', async () => {
    const podFailurePolicy = { rules: [{ action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [42] } }] };
    await kp.kubectlOk(['apply', '-f', '-'], job('answer', 'echo giving up; exit 42', { backoffLimit: 6, podFailurePolicy }));
    assert.equal((await kp.kubectlOk(['wait', '--for=condition=failed', 'job/answer', '--timeout=60s'])).trim(), 'job.batch/answer condition met');
    const j = await kp.kubectlJson<Job>(['get', 'job', 'answer']);
    const [pod] = await podsOf('answer');
    assert.deepEqual([trueCondition(j, 'FailureTarget')?.reason, trueCondition(j, 'Failed')?.reason], ['PodFailurePolicy', 'PodFailurePolicy']);
    assert.equal(trueCondition(j, 'Failed')?.message, `Container main for pod default/${pod?.metadata.name ?? ''} failed with exit code 42 matching FailJob rule at index 0`);
    assert.equal(j.status.failed, 1, 'one pod, no retries despite backoffLimit 6');
    assert.equal(await kp.kubectlOk(['logs', 'job/answer']), 'giving up\n');
  });

  test('podFailurePolicy Ignore on DisruptionTarget: the pod kubectl drain evicts is replaced and not counted', async () => {
    const podFailurePolicy = { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] };
    await kp.kubectlOk(['apply', '-f', '-'], job('drained', 'sleep 8', { backoffLimit: 0, podFailurePolicy }));
    await kp.kubectlOk(['wait', '--for=condition=ready', 'pod', '-l', 'batch.kubernetes.io/job-name=drained', '--timeout=60s']);
    const [first] = await podsOf('drained');
    const node = first?.spec.nodeName ?? '';
    const drain = await kp.kubectl(['drain', node, '--pod-selector=batch.kubernetes.io/job-name=drained', '--ignore-daemonsets', '--timeout=60s']);
    assert.equal(drain.code, 0, drain.stderr);
    assert.match(drain.stdout, new RegExp(`^node/${node} cordoned$`, 'm'));
    assert.match(drain.stdout, new RegExp(`^pod/${first?.metadata.name ?? ''} evicted$`, 'm'));
    assert.match(drain.stdout, new RegExp(`^node/${node} drained$`, 'm'));

    assert.equal((await kp.kubectlOk(['wait', '--for=condition=complete', 'job/drained', '--timeout=90s'])).trim(), 'job.batch/drained condition met');
    const j = await kp.kubectlJson<Job>(['get', 'job', 'drained']);
    assert.deepEqual([j.status.succeeded, j.status.failed ?? 0], [1, 0], 'the evicted pod is ignored by backoffLimit 0');
    const pods = await podsOf('drained');
    const replacement = pods.find((p) => p.metadata.name !== first?.metadata.name);
    assert.notEqual(replacement?.spec.nodeName, node, 'the replacement avoids the cordoned node');
    const evicted = pods.find((p) => p.metadata.name === first?.metadata.name);
    if (evicted) {
      // Still listed only until the controller drops its tracking finalizer; if so, it is Failed with the eviction's condition.
      assert.equal(evicted.status.phase, 'Failed');
      assert.equal(evicted.status.conditions?.find((c) => c.type === 'DisruptionTarget')?.reason, 'EvictionByEvictionAPI');
    }
    assert.equal((await kp.kubectlOk(['uncordon', node])).trim(), `node/${node} uncordoned`);
  });

  test('backoffLimitPerIndex 0: indexes 1 and 2 fail (exit $JOB_COMPLETION_INDEX), index 0 completes; Failed FailedIndexes', async () => {
    await kp.kubectlOk(
      ['apply', '-f', '-'],
      job('perindex', 'exit $JOB_COMPLETION_INDEX', { completionMode: 'Indexed', completions: 3, parallelism: 3, backoffLimitPerIndex: 0 }),
    );
    assert.equal((await kp.kubectlOk(['wait', '--for=condition=failed', 'job/perindex', '--timeout=60s'])).trim(), 'job.batch/perindex condition met');
    const j = await kp.kubectlJson<Job>(['get', 'job', 'perindex']);
    assert.deepEqual([j.status.completedIndexes, j.status.failedIndexes, j.status.succeeded, j.status.failed], ['0', '1,2', 1, 2]);
    assert.deepEqual([trueCondition(j, 'Failed')?.reason, trueCondition(j, 'Failed')?.message], ['FailedIndexes', 'Job has failed indexes']);
    assert.match(await kp.kubectlOk(['describe', 'job', 'perindex']), /^Completed Indexes:\s+0$/m);
  });

  test('successPolicy: index 1 succeeding is enough ([ "$JOB_COMPLETION_INDEX" = 1 ]); the rest are stopped; SuccessCriteriaMet, then Complete', async () => {
    await kp.kubectlOk(
      ['apply', '-f', '-'],
      job('leader', '[ "$JOB_COMPLETION_INDEX" = 1 ] && exit 0; sleep 600', {
        completionMode: 'Indexed',
        completions: 3,
        parallelism: 3,
        successPolicy: { rules: [{ succeededIndexes: '1' }] },
      }),
    );
    assert.equal((await kp.kubectlOk(['wait', '--for=condition=complete', 'job/leader', '--timeout=60s'])).trim(), 'job.batch/leader condition met');
    const j = await kp.kubectlJson<Job>(['get', 'job', 'leader']);
    for (const type of ['SuccessCriteriaMet', 'Complete']) {
      assert.deepEqual([trueCondition(j, type)?.reason, trueCondition(j, type)?.message], ['SuccessPolicy', 'Matched rules at index 0'], type);
    }
    assert.deepEqual([j.status.completedIndexes, j.status.succeeded, j.status.active ?? 0], ['1', 1, 0]);
    await eventually('the other indexes stopped', async () => ((await podsOf('leader')).every((p) => p.status.phase !== 'Running') ? true : undefined), 30_000);
  });

  test('restartPolicy OnFailure, an init container that fails: Init:CrashLoopBackOff, and its restarts reach backoffLimit 2', async () => {
    const manifest = JSON.stringify({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'badinit' },
      spec: {
        backoffLimit: 2,
        template: {
          spec: {
            restartPolicy: 'OnFailure',
            initContainers: [{ name: 'migrate', image: 'busybox', command: ['sh', '-c', 'echo no database; exit 1'] }],
            containers: [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'echo never'] }],
          },
        },
      },
    });
    await kp.kubectlOk(['apply', '-f', '-'], manifest);
    const row = await eventually('Init:CrashLoopBackOff', async () => {
      const out = (await kp.kubectlOk(['get', 'pods', '-l', 'batch.kubernetes.io/job-name=badinit', '--no-headers'])).trim();
      return /\bInit:CrashLoopBackOff\b/.test(out) ? out : undefined;
    }, 30_000);
    assert.match(row, /^badinit-\w{5}\s+0\/1\s+Init:CrashLoopBackOff\s+1 \(\d+s ago\)\s+\d+s$/);
    assert.equal(await kp.kubectlOk(['logs', 'job/badinit', '-c', 'migrate']), 'no database\n');
    assert.equal((await kp.kubectlOk(['wait', '--for=condition=failed', 'job/badinit', '--timeout=60s'])).trim(), 'job.batch/badinit condition met');
    const failed = trueCondition(await kp.kubectlJson<Job>(['get', 'job', 'badinit']), 'Failed');
    assert.deepEqual([failed?.reason, failed?.message], ['BackoffLimitExceeded', 'Job has reached the specified backoff limit']);
  });
});
