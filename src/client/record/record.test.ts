import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newClientset } from '../index.js';
import { newForbidden } from '../../machinery/errors/index.js';
import { FakeClock, flushAsync } from '../../util/clock/index.js';
import { newFakeTransport } from '../../testing/index.js';
import { EventRecorder } from './index.js';
import { silentLogger } from '../../util/runtime/index.js';

const rs = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web', namespace: 'ns', uid: 'u1', resourceVersion: '7' } };

async function setup() {
  const clock = new FakeClock();
  const transport = await newFakeTransport({ clock, namespaces: ['ns'] });
  const client = newClientset(transport);
  const recorder = new EventRecorder(client, { component: 'replicaset-controller', clock, logger: silentLogger });
  const events = async () => (await client.core.events('ns').list()).items;
  return { clock, transport, recorder, events };
}

describe('EventRecorder', () => {
  test('writes a core/v1 Event with the upstream shape', async () => {
    const { recorder, events } = await setup();
    recorder.event(rs, 'Normal', 'SuccessfulCreate', 'Created pod: web-abcde');
    await recorder.flush();
    const [e] = await events();
    assert.ok(e);
    assert.match(e.metadata.name ?? '', /^web\.[0-9a-f]+$/);
    assert.deepEqual(e.involvedObject, { kind: 'ReplicaSet', namespace: 'ns', name: 'web', uid: 'u1', apiVersion: 'apps/v1', resourceVersion: '7' });
    assert.deepEqual([e.type, e.reason, e.message, e.count, e.source?.component, e.reportingComponent], ['Normal', 'SuccessfulCreate', 'Created pod: web-abcde', 1, 'replicaset-controller', 'replicaset-controller']);
    assert.equal(e.firstTimestamp, '2025-01-01T00:00:00Z');
    assert.equal(e.lastTimestamp, e.firstTimestamp);
  });

  test('an identical event patches count and lastTimestamp', async () => {
    const { clock, transport, recorder, events } = await setup();
    recorder.event(rs, 'Warning', 'FailedCreate', 'Error creating: quota');
    clock.step(60_000);
    recorder.event(rs, 'Warning', 'FailedCreate', 'Error creating: quota');
    recorder.event(rs, 'Warning', 'FailedCreate', 'Error creating: quota');
    await recorder.flush();
    const list = await events();
    assert.equal(list.length, 1);
    assert.equal(list[0]?.count, 3);
    assert.equal(list[0]?.firstTimestamp, '2025-01-01T00:00:00Z');
    assert.equal(list[0]?.lastTimestamp, '2025-01-01T00:01:00Z');
    const writes = transport.actions.filter((a) => a.resource === 'events' && a.verb !== 'list').map((a) => a.verb);
    assert.deepEqual(writes, ['create', 'patch', 'patch']);
  });

  test('the 10th distinct message for one reason is combined', async () => {
    const { recorder, events } = await setup();
    for (let i = 0; i < 12; i++) recorder.event(rs, 'Normal', 'SuccessfulCreate', `Created pod: p${i}`);
    await recorder.flush();
    const list = await events();
    const combined = list.filter((e) => e.message?.startsWith('(combined from similar events): '));
    assert.equal(list.length, 10, '9 individual + 1 combined');
    assert.equal(combined.length, 1);
    assert.equal(combined[0]?.count, 3);
    assert.equal(combined[0]?.message, '(combined from similar events): Created pod: p11');
  });

  test('spam filter: 25 events per object, then 1 per 5 minutes', async () => {
    const { clock, recorder, events } = await setup();
    for (let i = 0; i < 30; i++) recorder.event(rs, 'Normal', `Reason${i}`, 'm');
    await recorder.flush();
    assert.equal((await events()).length, 25);
    clock.step(300_000);
    recorder.event(rs, 'Normal', 'Late1', 'm');
    recorder.event(rs, 'Normal', 'Late2', 'm');
    await recorder.flush();
    assert.equal((await events()).length, 26);
  });

  test('transport errors are retried after 10 s; server rejections are dropped', async () => {
    const { clock, transport, recorder, events } = await setup();
    let failures = 1;
    transport.prependReactor('create', 'events', () => (failures-- > 0 ? { handled: true, error: new Error('connection reset') } : { handled: false }));
    recorder.event(rs, 'Normal', 'Retried', 'm');
    await flushAsync();
    assert.equal((await events()).length, 0);
    await clock.stepAsync(10_000);
    await recorder.flush();
    assert.deepEqual((await events()).map((e) => e.reason), ['Retried']);

    transport.prependReactor('create', 'events', () => ({ handled: true, error: newForbidden({ group: '', resource: 'events' }, 'e', 'no') }));
    recorder.event(rs, 'Normal', 'Rejected', 'm');
    await recorder.flush();
    assert.deepEqual((await events()).map((e) => e.reason), ['Retried']);
  });

  test('a full queue drops events and logs once per burst, not once per event', async () => {
    const clock = new FakeClock();
    const transport = await newFakeTransport({ clock, namespaces: ['ns'] });
    const lines: string[] = [];
    const logger = { info: (_o: object, m: string) => lines.push(`info ${m}`), error: (_o: object, m: string) => lines.push(`error ${m}`) };
    const recorder = new EventRecorder(newClientset(transport), { component: 'default-scheduler', clock, logger });
    // One object per event, so neither the correlator nor the spam filter holds any back.
    for (let i = 0; i < 1500; i++) {
      recorder.event({ ...rs, metadata: { ...rs.metadata, name: `p${i}`, uid: `u${i}` } }, 'Normal', 'Scheduled', `assigned p${i}`);
    }
    await recorder.flush();
    const written = (await newClientset(transport).core.events('ns').list()).items.length;
    assert.ok(written >= 1000 && written < 1500, `${written} events written`);
    assert.deepEqual(lines, ['error Event queue full, dropping events', 'info Event queue drained; events were dropped while it was full']);
  });

  test('per-event host and fieldPath (one kubelet recorder for many nodes; container events)', async () => {
    const { recorder, events } = await setup();
    recorder.event(rs, 'Normal', 'Pulling', 'Pulling image "nginx"', { host: 'node-1', fieldPath: 'spec.containers{app}' });
    recorder.event(rs, 'Normal', 'Other', 'm');
    await recorder.flush();
    const [pulling, other] = [...(await events())].sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
    assert.deepEqual([pulling?.source?.host, pulling?.reportingInstance, pulling?.involvedObject.fieldPath], ['node-1', 'node-1', 'spec.containers{app}']);
    assert.deepEqual([other?.source?.host, other?.reportingInstance, other?.involvedObject.fieldPath], [undefined, '', undefined]);
  });

  test('several writers, a larger queue: every event written, names in recording order, one object\'s repeats counted', async () => {
    const clock = new FakeClock();
    const transport = await newFakeTransport({ clock, namespaces: ['ns'] });
    const client = newClientset(transport);
    const recorder = new EventRecorder(client, { component: 'kubelet', clock, logger: silentLogger, writers: 8, maxQueued: 5000 });
    for (let i = 0; i < 1500; i++) recorder.event({ ...rs, metadata: { ...rs.metadata, name: `p${i}`, uid: `u${i}` } }, 'Normal', 'Started', 'Started container app');
    for (let i = 0; i < 3; i++) recorder.event(rs, 'Warning', 'FailedMount', 'MountVolume.SetUp failed');
    await recorder.flush();
    const items = (await client.core.events('ns').list()).items;
    assert.equal(items.length, 1501);
    assert.equal(items.find((e) => e.reason === 'FailedMount')?.count, 3, 'create then two patches, in order on one writer');
    // Names are `<object>.<hex suffix>`; the suffixes grow in recording order (same clock instant).
    const suffix = (obj: string): bigint => BigInt(`0x${items.find((e) => e.involvedObject.name === obj)?.metadata.name?.split('.')[1] ?? '0'}`);
    assert.ok(suffix('p0') < suffix('p1') && suffix('p1') < suffix('p2') && suffix('p2') < suffix('p1499'));
  });
});
