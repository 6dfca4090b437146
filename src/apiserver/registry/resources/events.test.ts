import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Event as WireEvent } from '../../../api/index.js';
import { fieldErrorString, type FieldError } from '../../../machinery/errors/index.js';
import { parseTime } from '../../../util/clock/index.js';
import { eventStrategy, printEvent } from './events.js';
import type { ApiObject } from './helpers.js';

type Event = ApiObject<WireEvent>;

const msgs = (errs: FieldError[]): string[] => errs.map(fieldErrorString);
const NOW = parseTime('2025-01-01T00:10:00Z')!;

function event(mutate: (e: Event) => void = () => {}): Event {
  const e: Event = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'nginx.17a', namespace: 'default' },
    involvedObject: { kind: 'Deployment', namespace: 'default', name: 'nginx', apiVersion: 'apps/v1', uid: 'u1' },
    reason: 'ScalingReplicaSet',
    message: 'Scaled up replica set nginx-5d8c from 0 to 3 ',
    type: 'Normal',
    source: { component: 'deployment-controller' },
    firstTimestamp: '2025-01-01T00:00:00Z',
    lastTimestamp: '2025-01-01T00:05:00Z',
    count: 2,
  };
  mutate(e);
  return e;
}

test('legacy validation: involvedObject namespace must match', () => {
  assert.deepEqual(eventStrategy.validate(event()), []);
  assert.deepEqual(msgs(eventStrategy.validate(event((e) => (e.involvedObject.namespace = 'other')))), [
    'involvedObject.namespace: Invalid value: "other": does not match event.namespace',
  ]);
  // Cluster-scoped objects' events live in default.
  assert.deepEqual(eventStrategy.validate(event((e) => (e.involvedObject = { kind: 'Node', name: 'node-1' }))), []);
  assert.deepEqual(msgs(eventStrategy.validate(event((e) => {
    e.metadata.namespace = 'team-a';
    e.involvedObject = { kind: 'Node', name: 'node-1' };
  }))), ['involvedObject.namespace: Invalid value: "": does not match event.namespace']);
});

test('events with eventTime need reporting fields', () => {
  const e = event((x) => {
    x.eventTime = '2025-01-01T00:00:00.000000Z';
    x.reason = '';
  });
  const errs = msgs(eventStrategy.validate(e));
  // As upstream, an empty reportingController is both Required and not a qualified name.
  assert.deepEqual(errs.slice(0, 2), ['reportingController: Required value', 'reportingController: Invalid value: "": name part must be non-empty']);
  assert.match(errs[2]!, /^reportingController: Invalid value: "": name part must consist of alphanumeric characters/);
  assert.deepEqual(errs.slice(3), ['reportingInstance: Required value', 'action: Required value', 'reason: Required value']);
});

test('printEvent cells', () => {
  assert.deepEqual(printEvent(event(), NOW).cells, [
    '5m',
    'Normal',
    'ScalingReplicaSet',
    'deployment/nginx',
    '',
    'deployment-controller',
    'Scaled up replica set nginx-5d8c from 0 to 3',
    '10m',
    2,
    'nginx.17a',
  ]);
  const modern = event((e) => {
    delete e.firstTimestamp;
    delete e.lastTimestamp;
    delete e.count;
    delete e.source;
    e.eventTime = '2025-01-01T00:09:00.000000Z';
    e.reportingComponent = 'kubelet';
    e.reportingInstance = 'node-1';
    e.involvedObject = { kind: 'Pod', namespace: 'default', name: 'p', fieldPath: 'spec.containers{nginx}' };
  });
  const cells = printEvent(modern, NOW).cells;
  assert.deepEqual([cells[0], cells[3], cells[4], cells[5], cells[7], cells[8]], ['60s', 'pod/p', 'spec.containers{nginx}', 'kubelet, node-1', '60s', 1]);
  const series = event((e) => (e.series = { count: 5, lastObservedTime: '2025-01-01T00:08:00.000000Z' }));
  assert.deepEqual([printEvent(series, NOW).cells[0], printEvent(series, NOW).cells[8]], ['2m', 5]);
});

test('strategy flags, field selectors and columns', () => {
  assert.equal(eventStrategy.allowCreateOnUpdate, true);
  assert.equal(eventStrategy.hasStatus, false);
  const e = event((x) => (x.reportingComponent = 'deployment-controller'));
  const fs = eventStrategy.fieldSelectors;
  assert.equal(fs['involvedObject.kind']!(e), 'Deployment');
  assert.equal(fs['involvedObject.name']!(e), 'nginx');
  assert.equal(fs['source']!(e), 'deployment-controller');
  assert.equal(fs['reportingComponent']!(e), 'deployment-controller');
  assert.equal(fs['type']!(e), 'Normal');
  assert.deepEqual(
    eventStrategy.table.columns.map((c) => `${c.name}:${c.priority}`),
    ['Last Seen:0', 'Type:0', 'Reason:0', 'Object:0', 'Subobject:1', 'Source:1', 'Message:0', 'First Seen:1', 'Count:1', 'Name:1'],
  );
});
