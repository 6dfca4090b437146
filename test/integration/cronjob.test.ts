/**
 * The CronJob and TTL-after-finished controllers in the whole control plane: a CronJob creates its
 * Job at the next minute; once the Job is marked finished (no Job controller runs here), the TTL
 * controller deletes it (Foreground, completed by the garbage collector) after
 * ttlSecondsAfterFinished, and the CronJob notices it completed.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CronJob } from '../../src/api/index.js';
import { finishedJobStatus } from '../../src/controller/batch-util.js';
import { formatTime } from '../../src/util/clock/index.js';
import { exists, newPlane, stepFor, stepUntil } from './cluster-helpers.js';

const cronJob: CronJob = {
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name: 'tick', namespace: 'default' },
  spec: {
    schedule: '* * * * *',
    timeZone: 'Europe/Berlin',
    jobTemplate: { spec: { ttlSecondsAfterFinished: 30, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } },
  },
};

describe('CronJob → Job → TTL cleanup in the control plane', () => {
  test('a Job per minute, deleted 30 s after it finished', async () => {
    const { cp, clock, backend } = await newPlane();
    const jobs = cp.client.batch.jobs('default');
    await cp.client.batch.cronJobs('default').create(cronJob);
    await stepUntil(clock, 'first Job created', async () => (await jobs.list()).items.length === 1);
    const [job] = (await jobs.list()).items;
    const name = job?.metadata?.name ?? '';
    assert.match(name, /^tick-\d+$/);
    assert.match(job?.metadata?.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp'] ?? '', /^2025-01-01T01:01:00\+01:00$/);
    const now = formatTime(clock.now());
    await jobs.updateStatus({ ...(await jobs.get(name)), status: finishedJobStatus('Complete', now) });
    await stepFor(clock, 29_000);
    assert.equal(await exists(() => jobs.get(name)), true, 'kept until the TTL');
    await stepUntil(clock, 'finished Job deleted after its TTL', async () => !(await exists(() => jobs.get(name))), 50);
    const status = (await cp.client.batch.cronJobs('default').get('tick')).status;
    assert.equal(status?.lastScheduleTime !== undefined, true);
    assert.ok(!(status?.active ?? []).some((r) => r.name === name));
    await cp.stop();
    await backend.close();
  });
});
