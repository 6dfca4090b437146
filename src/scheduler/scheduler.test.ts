import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Node, Pod } from '../api/index.js';
import { flushAsync } from '../util/clock/index.js';
import { startScheduler } from './testing/harness.js';
import { makeNode, makePod } from './testing/fixtures.js';
import { defaultFilterPlugins, type FilterPlugin } from './plugins/index.js';
import { handledErrorsTotal } from '../util/runtime/index.js';
import { scrape, valueOf } from '../util/metrics/testing/index.js';

/** `kubeplane_handled_errors_total{component}` now. */
async function handledErrors(component: string): Promise<number> {
  return (await handledErrorsTotal.get()).values.find((v) => v.labels.component === component)?.value ?? 0;
}

const setup = (objects: Array<Pod | Node>, filterPlugins?: readonly FilterPlugin[]) => startScheduler(objects, filterPlugins ? { filterPlugins } : {});

describe('Scheduler against the real API server', () => {
  test('binds every pending pod, spreads them and records Scheduled events', async () => {
    const nodes = ['n1', 'n2', 'n3'].map((n) => makeNode(n));
    const pending = Array.from({ length: 60 }, (_, i) => makePod(`p${i}`, { requests: { cpu: '100m' } }));
    const s = await setup([...nodes, ...pending]);
    await s.settle(async () => (await s.pods()).every((p) => p.spec?.nodeName));
    const perNode = new Map<string, number>();
    for (const p of await s.pods()) perNode.set(p.spec!.nodeName!, (perNode.get(p.spec!.nodeName!) ?? 0) + 1);
    assert.deepEqual([...perNode.values()], [20, 20, 20]);
    await s.settle(async () => (await s.events()).filter((e) => e.reason === 'Scheduled').length === 60);
    const ev = (await s.events()).find((e) => e.involvedObject.name === 'p7');
    assert.equal(ev?.type, 'Normal');
    assert.match(ev?.message ?? '', /^Successfully assigned default\/p7 to n[123]$/);
    assert.equal(ev?.source?.component, 'default-scheduler');
    await s.stop();
  });

  test('6 replicas of one ReplicaSet land 2/2/2 across 3 nodes', async () => {
    const nodes = ['n1', 'n2', 'n3'].map((n) => makeNode(n));
    const replicas = Array.from({ length: 6 }, (_, i) => makePod(`web-${i}`, { ownerUID: 'rs-uid' }));
    const s = await setup([...nodes, ...replicas]);
    await s.settle(async () => (await s.pods()).every((p) => p.spec?.nodeName));
    const counts = new Map<string, number>();
    for (const p of await s.pods()) counts.set(p.spec!.nodeName!, (counts.get(p.spec!.nodeName!) ?? 0) + 1);
    assert.deepEqual([...counts.values()].sort(), [2, 2, 2]);
    await s.stop();
  });

  test('an unschedulable pod reports FailedScheduling and is retried when a node appears', async () => {
    const s = await setup([makeNode('small', { cpu: '1' }), makePod('big', { requests: { cpu: '2' } })]);
    await s.settle(async () => (await s.events()).some((e) => e.reason === 'FailedScheduling'));
    const ev = (await s.events()).find((e) => e.reason === 'FailedScheduling');
    assert.equal(ev?.type, 'Warning');
    assert.equal(
      ev?.message,
      '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.',
    );
    await s.settle(async () => {
      const cond = (await s.client.core.pods('default').get('big')).status?.conditions?.find((c) => c.type === 'PodScheduled');
      return cond?.status === 'False' && cond.reason === 'Unschedulable';
    });
    // Parked: time alone (well under 5 minutes) does not retry it.
    await s.clock.stepAsync(30_000);
    assert.equal(s.scheduler.queue.stats().unschedulable, 1);
    await s.client.core.nodes().create(makeNode('large', { cpu: '4' }));
    await s.settle(async () => (await s.client.core.pods('default').get('big')).spec?.nodeName === 'large', 500);
    await s.stop();
  });

  test('pods of another scheduler, already bound, or being deleted are left alone', async () => {
    const other = makePod('other', { spec: { schedulerName: 'my-scheduler' } });
    const s = await setup([makeNode('n1'), other, makePod('mine')]);
    await s.settle(async () => !!(await s.client.core.pods('default').get('mine')).spec?.nodeName);
    await s.clock.stepAsync(5000);
    assert.equal((await s.client.core.pods('default').get('other')).spec?.nodeName, undefined);
    await s.stop();
  });

  test('bound pods count against node resources', async () => {
    const bound = makePod('bound', { requests: { cpu: '900m' }, spec: { nodeName: 'n1' } });
    const s = await setup([makeNode('n1', { cpu: '1' }), makeNode('n2', { cpu: '1' }), bound, makePod('p', { requests: { cpu: '500m' } })]);
    await s.settle(async () => !!(await s.client.core.pods('default').get('p')).spec?.nodeName);
    assert.equal((await s.client.core.pods('default').get('p')).spec?.nodeName, 'n2');
    await s.stop();
  });

  test('a scheduling cycle that throws is logged, counted and retried with backoff; other pods are scheduled', async () => {
    // A plugin bug that only one pod triggers, like the null affinity term that used to crash the process.
    const throwing: FilterPlugin = {
      name: 'Buggy',
      filter(pod) {
        if (pod.pod.metadata?.name === 'poison') throw new TypeError("Cannot read properties of null (reading 'matchFields')");
        return undefined;
      },
    };
    const before = await handledErrors('scheduler');
    const s = await setup([makeNode('n1'), makePod('poison'), makePod('good')], [throwing, ...defaultFilterPlugins]);
    await s.settle(async () => !!(await s.client.core.pods('default').get('good')).spec?.nodeName);
    await s.settle(async () => {
      const cond = (await s.client.core.pods('default').get('poison')).status?.conditions?.find((c) => c.type === 'PodScheduled');
      return cond?.status === 'False' && cond.reason === 'SchedulerError';
    });
    const ev = (await s.events()).find((e) => e.reason === 'FailedScheduling' && e.involvedObject.name === 'poison');
    // Wrapped as upstream's RunFilterPlugins wraps a filter's error.
    assert.equal(ev?.message, `running "Buggy" filter plugin: Cannot read properties of null (reading 'matchFields')`);
    const first = await handledErrors('scheduler');
    assert.ok(first > before);
    // Backoff (1 s, then 2 s …): the pod is tried again, and still fails, without stopping the scheduler.
    await s.clock.stepAsync(1_000);
    await flushAsync();
    await s.clock.stepAsync(2_000);
    await flushAsync();
    assert.ok((await handledErrors('scheduler')) > first, 'retried after the backoff');
    await s.client.core.pods('default').create(makePod('later'));
    await s.settle(async () => !!(await s.client.core.pods('default').get('later')).spec?.nodeName);
    await s.stop();
  });

  test('metrics: an attempt per pod and result, the SLI duration by attempts, and the pending pods', async () => {
    const attempts = async (result: string): Promise<number> => valueOf(await scrape(), 'scheduler_schedule_attempts_total', { result, profile: 'default-scheduler' }) ?? 0;
    const sliCount = async (): Promise<number> => valueOf(await scrape(), 'scheduler_pod_scheduling_sli_duration_seconds_count', { attempts: '1' }) ?? 0;
    const before = { scheduled: await attempts('scheduled'), unschedulable: await attempts('unschedulable'), sli: await sliCount() };
    const s = await setup([makeNode('n1', { cpu: '1' }), ...['a', 'b', 'c'].map((n) => makePod(n, { requests: { cpu: '100m' } })), makePod('huge', { requests: { cpu: '8' } })]);
    const stats = (): { active: number; backoff: number; unschedulable: number } => s.scheduler.queue.stats();
    // huge is parked, or backing off when a bind happened during its attempt.
    await s.settle(async () => (await s.pods()).filter((p) => p.spec?.nodeName).length === 3 && stats().unschedulable + stats().backoff === 1);
    assert.equal(await attempts('scheduled'), before.scheduled + 3);
    assert.equal(await attempts('unschedulable'), before.unschedulable + 1);
    assert.equal(await sliCount(), before.sli + 3, 'each bound at its first attempt');
    const exp = await scrape();
    assert.equal(valueOf(exp, 'scheduler_pending_pods', { queue: 'unschedulable' }), stats().unschedulable);
    assert.equal(valueOf(exp, 'scheduler_pending_pods', { queue: 'backoff' }), stats().backoff);
    assert.equal(valueOf(exp, 'scheduler_pending_pods', { queue: 'active' }), 0);
    assert.equal(exp.help.get('scheduler_pod_scheduling_sli_duration_seconds'), '[BETA] E2e latency for a pod being scheduled, from the time the pod enters the scheduling queue and might involve multiple scheduling attempts.');
    assert.equal(exp.type.get('scheduler_scheduling_attempt_duration_seconds'), 'histogram');
    await s.stop();
    assert.equal(valueOf(await scrape(), 'scheduler_pending_pods', { queue: 'unschedulable' }), undefined, 'a stopped scheduler is not reported');
  });
});
