import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeClock } from '../util/clock/index.js';
import { SchedulingQueue } from './scheduling-queue.js';
import { makePod } from './testing/fixtures.js';

const uidOf = (p: ReturnType<typeof makePod>) => p.metadata?.uid ?? '';

describe('SchedulingQueue', () => {
  test('pops by priority, then age', async () => {
    const clock = new FakeClock();
    const q = new SchedulingQueue({ clock });
    q.add(makePod('old'));
    clock.step(1);
    q.add(makePod('new'));
    q.add(makePod('urgent', { spec: { priority: 100 } }));
    const names = [];
    for (let i = 0; i < 3; i++) names.push((await q.pop())?.podInfo.pod.metadata?.name);
    assert.deepEqual(names, ['urgent', 'old', 'new']);
  });

  test('a pre-checked move (queueing hint) retries only the parked pods it selects', async () => {
    const clock = new FakeClock();
    const q = new SchedulingQueue({ clock });
    q.add(makePod('volume'));
    q.add(makePod('cpu'));
    for (let i = 0; i < 2; i++) {
      const popped = await q.pop();
      assert.ok(popped);
      const plugin = popped.podInfo.pod.metadata?.name === 'volume' ? 'VolumeBinding' : 'NodeResourcesFit';
      q.addUnschedulableIfNotPresent({ ...popped, unschedulablePlugins: new Set([plugin]) }, q.cycle, true);
    }
    clock.step(60_000);
    q.moveAllToActiveOrBackoffQueue((p) => p.unschedulablePlugins?.has('VolumeBinding') === true);
    assert.deepEqual(q.stats(), { active: 1, backoff: 0, unschedulable: 1 });
    assert.equal((await q.pop())?.podInfo.pod.metadata?.name, 'volume');
  });

  test('backoff doubles from 1 s and caps at 10 s', () => {
    const q = new SchedulingQueue({ clock: new FakeClock() });
    assert.deepEqual([1, 2, 3, 4, 5, 6].map((a) => q.backoffDuration(a)), [1000, 2000, 4000, 8000, 10000, 10000]);
  });

  test('an unschedulable pod is parked until a cluster event, then waits out its backoff', async () => {
    const clock = new FakeClock();
    const q = new SchedulingQueue({ clock });
    const pod = makePod('p');
    q.add(pod);
    const first = await q.pop();
    assert.ok(first);
    q.addUnschedulableIfNotPresent(first, q.cycle, true);
    assert.deepEqual(q.stats(), { active: 0, backoff: 0, unschedulable: 1 });
    clock.step(60_000);
    assert.deepEqual(q.stats(), { active: 0, backoff: 0, unschedulable: 1 }, 'no event, no retry');
    q.moveAllToActiveOrBackoffQueue();
    assert.deepEqual(q.stats(), { active: 1, backoff: 0, unschedulable: 0 }, 'backoff long over: straight to activeQ');
  });

  test('a pod moved while backing off goes to backoffQ and to activeQ when the backoff ends', async () => {
    const clock = new FakeClock();
    const q = new SchedulingQueue({ clock });
    q.add(makePod('p'));
    const first = await q.pop();
    q.addUnschedulableIfNotPresent(first!, q.cycle, true);
    q.moveAllToActiveOrBackoffQueue();
    assert.deepEqual(q.stats(), { active: 0, backoff: 1, unschedulable: 0 });
    clock.step(999);
    assert.equal(q.stats().active, 0);
    clock.step(1);
    assert.deepEqual(q.stats(), { active: 1, backoff: 0, unschedulable: 0 });
    const second = await q.pop();
    assert.equal(second?.attempts, 2);
  });

  test('an event during the attempt sends the failed pod to backoffQ instead of parking it', async () => {
    const clock = new FakeClock();
    const q = new SchedulingQueue({ clock });
    q.add(makePod('p'));
    const first = await q.pop();
    const cycle = q.cycle;
    q.moveAllToActiveOrBackoffQueue();
    q.addUnschedulableIfNotPresent(first!, cycle, true);
    assert.deepEqual(q.stats(), { active: 0, backoff: 1, unschedulable: 0 });
  });

  test('parked pods are retried after 5 minutes without any event', async () => {
    const clock = new FakeClock();
    const q = new SchedulingQueue({ clock });
    q.add(makePod('p'));
    q.addUnschedulableIfNotPresent((await q.pop())!, q.cycle, true);
    clock.step(299_999);
    assert.equal(q.stats().unschedulable, 1);
    clock.step(1);
    assert.deepEqual(q.stats(), { active: 1, backoff: 0, unschedulable: 0 });
  });

  test('a pod deleted during its attempt is dropped; one updated is requeued with the new object', async () => {
    const clock = new FakeClock();
    const q = new SchedulingQueue({ clock });
    const a = makePod('a');
    const b = makePod('b');
    q.add(a);
    q.add(b);
    const qa = await q.pop();
    const qb = await q.pop();
    q.delete(uidOf(a));
    const b2 = { ...b, metadata: { ...b.metadata, labels: { x: 'y' } } };
    q.update(b2);
    q.addUnschedulableIfNotPresent(qa!, q.cycle, true);
    q.addUnschedulableIfNotPresent(qb!, q.cycle, true);
    assert.deepEqual(q.stats(), { active: 0, backoff: 1, unschedulable: 0 });
    clock.step(1000);
    assert.equal((await q.pop())?.podInfo.pod, b2);
  });

  test('updating a parked pod retries it', async () => {
    const clock = new FakeClock();
    const q = new SchedulingQueue({ clock });
    const p = makePod('p');
    q.add(p);
    q.addUnschedulableIfNotPresent((await q.pop())!, q.cycle, true);
    clock.step(5000);
    q.update({ ...p, spec: { ...p.spec!, nodeSelector: {} } });
    assert.equal(q.stats().active, 1);
  });

  test('pop waits for a pod and close wakes it with undefined', async () => {
    const clock = new FakeClock();
    const q = new SchedulingQueue({ clock });
    const waiting = q.pop();
    q.add(makePod('p'));
    assert.equal((await waiting)?.podInfo.pod.metadata?.name, 'p');
    const none = q.pop();
    q.close();
    assert.equal(await none, undefined);
  });
});
