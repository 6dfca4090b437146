import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ReplicaSet } from '../api/index.js';
import { newClientset } from '../client/index.js';
import { newFakeTransport } from '../testing/index.js';
import { FakeClock } from '../util/clock/index.js';
import { EventRecorder } from '../client/record/index.js';
import { silentLogger } from '../util/runtime/index.js';
import { FakePodControl, RealPodControl, getPodFromTemplate, slowStartBatch } from './pod-control.js';

describe('slowStartBatch', () => {
  test('batches grow 1, 2, 4, … capped at what remains', async () => {
    // Calls of one batch all start before any finishes; a call with none pending opens a batch.
    const batches: number[] = [];
    let pending = 0;
    const { successes, error } = await slowStartBatch(10, 1, async () => {
      if (pending === 0) batches.push(0);
      batches[batches.length - 1]!++;
      pending++;
      await Promise.resolve();
      pending--;
    });
    assert.equal(successes, 10);
    assert.equal(error, undefined);
    assert.deepEqual(batches, [1, 2, 4, 3]);
  });

  test('stops after the first batch with an error and counts successes', async () => {
    let calls = 0;
    const { successes, error } = await slowStartBatch(10, 1, () => {
      calls++;
      // calls 1 (batch 1), 2–3 (batch 2), 4–7 (batch 3): fail the 5th
      return calls === 5 ? Promise.reject(new Error('quota')) : Promise.resolve();
    });
    assert.equal(calls, 7);
    assert.equal(successes, 6);
    assert.equal((error as Error).message, 'quota');
  });

  test('zero count makes no calls', async () => {
    let calls = 0;
    const r = await slowStartBatch(0, 1, () => {
      calls++;
      return Promise.resolve();
    });
    assert.deepEqual([calls, r.successes], [0, 0]);
  });
});

const rs: ReplicaSet = {
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name: 'web', namespace: 'ns', uid: 'rs-uid' },
  spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' }, annotations: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
};
const ref = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'rs-uid', controller: true, blockOwnerDeletion: true };

describe('RealPodControl', () => {
  test('getPodFromTemplate copies labels, annotations, finalizers, spec and sets generateName and owner', () => {
    const template = { ...rs.spec?.template, metadata: { ...rs.spec?.template?.metadata, finalizers: ['f'] } };
    const pod = getPodFromTemplate(template, rs, ref);
    assert.equal(pod.metadata?.generateName, 'web-');
    assert.deepEqual(pod.metadata?.labels, { app: 'web' });
    assert.deepEqual(pod.metadata?.annotations, { a: 'b' });
    assert.deepEqual(pod.metadata?.finalizers, ['f']);
    assert.deepEqual(pod.metadata?.ownerReferences, [ref]);
    assert.deepEqual(pod.spec, template.spec);
    assert.notEqual(pod.spec, template.spec);
  });

  test('creates and deletes pods and records events', async () => {
    const clock = new FakeClock();
    const transport = await newFakeTransport({ clock, namespaces: ['ns'] });
    const client = newClientset(transport);
    const recorder = new EventRecorder(client, { component: 'replicaset-controller', clock, logger: silentLogger });
    const pc = new RealPodControl(client, recorder);
    await pc.createPods('ns', rs.spec?.template ?? {}, rs, ref);
    const pods = (await client.core.pods('ns').list()).items;
    assert.equal(pods.length, 1);
    const name = pods[0]?.metadata?.name ?? '';
    assert.match(name, /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    await pc.deletePod('ns', name, rs);
    await assert.rejects(pc.deletePod('ns', name, rs), (err: Error) => err.name === 'StatusError');
    transport.prependReactor('create', 'pods', () => ({ handled: true, error: new Error('boom') }));
    await assert.rejects(pc.createPods('ns', rs.spec?.template ?? {}, rs, ref), /boom/);
    await recorder.flush();
    const events = (await client.core.events('ns').list()).items;
    assert.deepEqual(
      events.map((e) => [e.type, e.reason, e.message]),
      [
        ['Normal', 'SuccessfulCreate', `Created pod: ${name}`],
        ['Normal', 'SuccessfulDelete', `Deleted pod: ${name}`],
        ['Warning', 'FailedCreate', 'Error creating: boom'],
      ],
    );
  });

  test('refuses templates without labels', async () => {
    const client = newClientset(await newFakeTransport());
    const pc = new RealPodControl(client, new EventRecorder(client, { component: 'x', clock: new FakeClock(), logger: silentLogger }));
    await assert.rejects(pc.createPods('ns', { spec: { containers: [] } }, rs, ref), /no labels/);
  });
});

describe('FakePodControl', () => {
  test('records calls, honours createLimit and err', async () => {
    const fake = new FakePodControl();
    fake.createLimit = 2;
    const template = rs.spec?.template ?? {};
    await fake.createPods('ns', template, rs, ref);
    await fake.createPods('ns', template, rs, ref);
    await assert.rejects(fake.createPods('ns', template, rs, ref), /limit 2 already reached/);
    assert.equal(fake.templates.length, 2);
    assert.equal(fake.createCallCount, 3);
    fake.err = new Error('nope');
    await assert.rejects(fake.deletePod('ns', 'p'), /nope/);
    assert.deepEqual(fake.deletePodNames, ['p']);
  });
});
