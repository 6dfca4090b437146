/**
 * Jobs in the whole control plane under a FakeClock (scheduler, simulated kubelets, garbage
 * collector): the Job controller's pods run; the test plays the containers' exit (the simulated
 * kubelet keeps pods running) and the Job completes, its pods losing the tracking finalizer.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Job, Pod } from '../../src/api/index.js';
import { formatTime } from '../../src/util/clock/index.js';
import { newPlane, stepUntil } from './cluster-helpers.js';

describe('Job in the control plane', () => {
  test('a Job with completions 2 runs its pods and completes once they succeed', async () => {
    const { cp, clock } = await newPlane();
    const jobs = cp.client.batch.jobs('default');
    const job: Job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'pi', namespace: 'default' },
      spec: { completions: 2, parallelism: 2, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl' }] } } },
    };
    await jobs.create(job);
    const pods = async (): Promise<Pod[]> => [...(await cp.client.core.pods('default').list({ labelSelector: 'batch.kubernetes.io/job-name=pi' })).items];
    await stepUntil(clock, '2 running pods', async () => (await pods()).filter((p) => p.status?.phase === 'Running').length === 2);
    assert.equal((await jobs.get('pi')).status?.active, 2);
    for (const p of await pods()) {
      const fresh = await cp.client.core.pods('default').get(p.metadata?.name ?? '');
      const done: Pod = {
        ...fresh,
        status: {
          ...fresh.status,
          phase: 'Succeeded',
          containerStatuses: [{ name: 'pi', image: 'perl', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, finishedAt: formatTime(clock.now()) } } }],
        },
      };
      await cp.client.core.pods('default').updateStatus(done);
    }
    await stepUntil(clock, 'Job complete', async () => (await jobs.get('pi')).status?.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') ?? false);
    const finished = await jobs.get('pi');
    assert.equal(finished.status?.succeeded, 2);
    assert.ok(finished.status?.completionTime);
    assert.ok((await pods()).every((p) => (p.metadata?.finalizers ?? []).length === 0));
    await cp.stop();
  });
});
