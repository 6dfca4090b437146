/**
 * One bad object cannot take the control plane down (issue 9): a controller whose sync throws for one
 * key keeps retrying it with backoff while every other object is reconciled, scheduled and started;
 * a pod whose affinity term was sent as `null` is stored as upstream decodes it and stays Pending
 * with upstream's FailedScheduling message.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../src/api/index.js';
import { DeploymentController } from '../../src/controller/deployment/index.js';
import type { SyncResult } from '../../src/workqueue/index.js';
import type { ControlPlane } from '../../src/cli/cluster.js';
import { MemoryBackend } from '../../src/storage/memory/index.js';
import { FakeClock } from '../../src/util/clock/index.js';
import { handledErrorsTotal } from '../../src/util/runtime/index.js';
import { deployment, startPlane, stepFor, stepUntil } from './cluster-helpers.js';

/** `kubeplane_handled_errors_total{component}` now. */
async function handledErrors(component: string): Promise<number> {
  return (await handledErrorsTotal.get()).values.find((v) => v.labels.component === component)?.value ?? 0;
}

const ready = (p: Pod): boolean => (p.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

describe('a throwing sync or a poison object does not stop the control plane', () => {
  const clock = new FakeClock();
  const backend = new MemoryBackend();
  let cp: ControlPlane;
  const original = Object.getOwnPropertyDescriptor(DeploymentController.prototype, 'syncDeployment');
  const syncedKeys: string[] = [];

  before(async () => {
    // Inject a bug that only one Deployment triggers, as the null affinity term did in the scheduler.
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the controller as `this`
    const sync = DeploymentController.prototype.syncDeployment;
    DeploymentController.prototype.syncDeployment = function (this: DeploymentController, key: string): Promise<SyncResult> {
      syncedKeys.push(key);
      if (key === 'default/poison') throw new TypeError("Cannot read properties of null (reading 'replicas')");
      return sync.call(this, key);
    };
    cp = await startPlane(backend, clock);
  });
  after(async () => {
    if (original) Object.defineProperty(DeploymentController.prototype, 'syncDeployment', original);
    await cp.stop();
    await backend.close();
  });

  test('the poison Deployment is retried with backoff while another rolls out', async () => {
    const before = await handledErrors('deployment');
    await cp.client.apps.deployments('default').create(deployment('poison', 2));
    await cp.client.apps.deployments('default').create(deployment('web', 3));
    await stepUntil(clock, 'web is available', async () => {
      const d = await cp.client.apps.deployments('default').get('web');
      return d.status?.availableReplicas === 3;
    });
    const pods = (await cp.client.core.pods('default').list({ labelSelector: 'app=web' })).items;
    assert.equal(pods.filter(ready).length, 3);
    // Retried again and again (rate-limited: 5 ms, 10 ms, 20 ms … per failure), never dropped.
    const attempts = syncedKeys.filter((k) => k === 'default/poison').length;
    assert.ok(attempts >= 3, `poison synced ${attempts} times`);
    assert.ok((await handledErrors('deployment')) - before >= attempts - 1);
    await stepFor(clock, 5_000);
    assert.ok(syncedKeys.filter((k) => k === 'default/poison').length > attempts, 'still retried later');
    // Nothing was created for it, and the API server still serves.
    assert.equal((await cp.client.apps.replicaSets('default').list({ labelSelector: 'app=poison' })).items.length, 0);
  });

  test('a pod whose affinity term is null is stored as [{}] and reported unschedulable, as upstream', async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'null-term', namespace: 'default' },
      spec: {
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [null] } } },
        containers: [{ name: 'c', image: 'nginx' }],
      },
    };
    await cp.client.core.pods('default').create(pod as unknown as Pod);
    await stepUntil(clock, 'FailedScheduling', async () => {
      const events = (await cp.client.core.events('default').list()).items;
      return events.some((e) => e.involvedObject.name === 'null-term' && e.reason === 'FailedScheduling');
    });
    const ev = (await cp.client.core.events('default').list()).items.find((e) => e.involvedObject.name === 'null-term' && e.reason === 'FailedScheduling');
    assert.equal(
      ev?.message,
      "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
    );
    const stored = await cp.client.core.pods('default').get('null-term');
    assert.deepEqual(stored.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms, [{}]);
    assert.equal(stored.spec?.nodeName, undefined);
  });
});

describe('an object stored by a kubeplane older than its decoder', () => {
  test('a pod with a null affinity term in storage is decoded at start-up, not fed to the scheduler raw', async () => {
    const clock = new FakeClock();
    const backend = new MemoryBackend();
    // What issue 9's reproduction left in state.db: the pod exactly as it was sent.
    const stored = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'old-poison', namespace: 'default', uid: 'u-1', creationTimestamp: '2025-01-01T00:00:00Z' },
      spec: {
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [null] } } },
        containers: [{ name: 'c', image: 'nginx', ports: [null] }],
      },
      status: { phase: 'Pending' },
    };
    await backend.create('/registry/core/pods/default/old-poison', JSON.stringify(stored));
    const schedulerErrors = await handledErrors('scheduler');
    const cp = await startPlane(backend, clock);
    try {
      const pod = await cp.client.core.pods('default').get('old-poison');
      assert.deepEqual(pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms, [{}]);
      assert.deepEqual(pod.spec?.containers[0]?.ports, [{ containerPort: 0 }]);
      await stepUntil(clock, 'FailedScheduling', async () =>
        (await cp.client.core.events('default').list()).items.some((e) => e.involvedObject.name === 'old-poison' && e.reason === 'FailedScheduling'),
      );
      assert.equal(await handledErrors('scheduler'), schedulerErrors, 'no scheduling cycle threw: the scheduler never saw the null');
      await cp.client.apps.deployments('default').create(deployment('after', 2));
      await stepUntil(clock, 'after is available', async () => (await cp.client.apps.deployments('default').get('after')).status?.availableReplicas === 2);
    } finally {
      await cp.stop();
      await backend.close();
    }
  });
});
