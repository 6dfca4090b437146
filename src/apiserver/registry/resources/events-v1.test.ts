/**
 * events.k8s.io/v1 Events are core/v1 Events seen through pkg/apis/events/v1/conversion.go's field
 * mapping: one stored object, read and written in either group.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeList, KubeObject } from '../../../api/index.js';
import { newTestServer, type TestServer } from '../../testing/fixtures.js';
import { servedStrategies } from './index.js';

const coreEvents = (t: TestServer, req: Record<string, unknown>) =>
  t.server.handle({ group: '', version: 'v1', resource: 'events', namespace: 'default', verb: 'get', ...req }).then((r) => r.body as KubeObject);
const v1Events = (t: TestServer, req: Record<string, unknown>) =>
  t.server.handle({ group: 'events.k8s.io', version: 'v1', resource: 'events', namespace: 'default', verb: 'get', ...req }).then((r) => r.body as KubeObject);

test('a core Event is an events.k8s.io/v1 Event with the renamed fields, and back', async () => {
  const t = await newTestServer({ strategies: servedStrategies });
  await coreEvents(t, {
    verb: 'create',
    body: {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e1' },
      involvedObject: { kind: 'Pod', name: 'web', namespace: 'default' },
      reason: 'Scheduled',
      message: 'assigned to node-1',
      source: { component: 'default-scheduler' },
      firstTimestamp: '2025-01-01T00:00:00Z',
      lastTimestamp: '2025-01-01T00:00:00Z',
      count: 1,
      type: 'Normal',
      reportingComponent: 'default-scheduler',
    },
  });
  const asV1 = await v1Events(t, { name: 'e1' });
  assert.equal(asV1.apiVersion, 'events.k8s.io/v1');
  const fields = asV1 as Record<string, unknown>;
  assert.deepEqual(fields.regarding, { kind: 'Pod', name: 'web', namespace: 'default' });
  assert.equal(fields.note, 'assigned to node-1');
  assert.deepEqual(fields.deprecatedSource, { component: 'default-scheduler' });
  assert.equal(fields.deprecatedCount, 1);
  assert.equal(fields.reportingController, 'default-scheduler');
  assert.equal(fields.message, undefined);

  await v1Events(t, {
    verb: 'create',
    body: { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e2' }, regarding: { kind: 'Node', name: 'node-1' }, reason: 'Rebooted', note: 'node rebooted', type: 'Warning', action: 'Reboot', reportingController: 'kubelet', reportingInstance: 'node-1', eventTime: '2025-01-01T00:00:00.000000Z' },
  });
  const asCore = (await coreEvents(t, { name: 'e2' })) as Record<string, unknown>;
  assert.equal(asCore.message, 'node rebooted');
  assert.deepEqual(asCore.involvedObject, { kind: 'Node', name: 'node-1' });
  assert.equal(asCore.reportingComponent, 'kubelet');
  const list = (await t.server.handle({ group: 'events.k8s.io', version: 'v1', resource: 'events', namespace: 'default', verb: 'list' })).body as KubeList;
  assert.equal(list.kind, 'EventList');
  assert.deepEqual(list.items.map((e) => [e.apiVersion, e.metadata?.name]), [['events.k8s.io/v1', 'e1'], ['events.k8s.io/v1', 'e2']]);
});
