/**
 * The REST metrics client against the fake transport: PodMetrics read from metrics.k8s.io (after
 * upstream metrics/client_test.go: per-pod sums, a container's own value, pods lacking the resource
 * left out, the first item's timestamp), its errors, and the requests it makes of the custom and
 * external metrics APIs.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newClientset, type RestRequest } from '../../client/index.js';
import { everything, parseSelector } from '../../machinery/labels/index.js';
import { newFakeTransport } from '../../testing/index.js';
import { FakeClock } from '../../util/clock/index.js';
import { GO_ZERO_TIME, RestMetricsClient, containerMetricsFromList, podMetricsFromList, type PodMetricsWire } from './metrics-client.js';
import { catalogueRESTMapper } from '../rest-mapper.js';

const TS = '2025-01-01T00:00:45Z';
const items: PodMetricsWire[] = [
  { metadata: { name: 'a' }, timestamp: TS, window: '15s', containers: [{ name: 'c1', usage: { cpu: '100m', memory: '64Mi' } }, { name: 'c2', usage: { cpu: '333333334n' } }] },
  { metadata: { name: 'b' }, timestamp: TS, window: '1m0s', containers: [{ name: 'c1', usage: { memory: '1Mi' } }] },
  { metadata: { name: 'c' }, timestamp: TS, window: '10s', containers: [] },
];

describe('PodMetrics to samples', () => {
  test('pods sum their containers; a pod lacking the resource in a container, or without containers, is left out', () => {
    const m = podMetricsFromList(items, 'cpu');
    assert.deepEqual([...m.keys()], ['a']);
    // Nanocores round up to whole millicores, as Quantity.MilliValue does.
    assert.deepEqual(m.get('a'), { timestamp: Date.parse(TS), window: 15_000, value: 434 });
    assert.deepEqual([...podMetricsFromList(items, 'memory').keys()], ['b']);
  });

  test("a container's own value; pods without that container or resource are left out", () => {
    assert.deepEqual([...containerMetricsFromList(items, 'cpu', 'c2')], [['a', { timestamp: Date.parse(TS), window: 15_000, value: 334 }]]);
    assert.deepEqual([...containerMetricsFromList(items, 'memory', 'c1').keys()], ['a', 'b']);
    assert.deepEqual([...containerMetricsFromList(items, 'cpu', 'nope').keys()], []);
  });

  test('a sample without a timestamp has the zero time', () => {
    assert.equal(podMetricsFromList([{ metadata: { name: 'x' }, containers: [{ name: 'c', usage: { cpu: '1' } }] }], 'cpu').get('x')?.timestamp, GO_ZERO_TIME);
  });
});

describe('RestMetricsClient', () => {
  async function setup() {
    const transport = await newFakeTransport({ clock: new FakeClock() });
    const requests: RestRequest[] = [];
    let reply: { items?: unknown[] } | Error = { items };
    transport.prependReactor('*', '*', (req) => {
      if (!req.group.includes('metrics.k8s.io')) return { handled: false };
      requests.push(req);
      return reply instanceof Error ? { handled: true, error: reply } : { handled: true, result: reply };
    });
    const client = new RestMetricsClient(newClientset(transport), catalogueRESTMapper);
    return { client, requests, setReply: (r: { items?: unknown[] } | Error) => (reply = r) };
  }

  test('resource metrics: a list of metrics.k8s.io/v1beta1 pods with the label selector; the first timestamp', async () => {
    const s = await setup();
    const r = await s.client.getResourceMetric('cpu', 'ns', parseSelector('app=web'), '');
    assert.equal(r.timestamp, Date.parse(TS));
    assert.deepEqual([...r.metrics.keys()], ['a']);
    assert.deepEqual(
      s.requests.map((q) => [q.verb, q.group, q.version, q.resource, q.namespace, q.query?.labelSelector]),
      [['list', 'metrics.k8s.io', 'v1beta1', 'pods', 'ns', 'app=web']],
    );
    s.setReply({ items: [] });
    await assert.rejects(s.client.getResourceMetric('cpu', 'ns', everything, ''), { message: 'no metrics returned from resource metrics API' });
    s.setReply(new Error('boom'));
    await assert.rejects(s.client.getResourceMetric('cpu', 'ns', everything, ''), { message: 'unable to fetch metrics from resource metrics API: boom' });
  });

  test('custom, object and external metrics: the requests upstream clients make, and their errors', async () => {
    const s = await setup();
    s.setReply({ items: [{ describedObject: { name: 'a' }, timestamp: TS, value: '20' }, { describedObject: { name: 'b' }, timestamp: TS, windowSeconds: 30, value: '500m' }] });
    const raw = await s.client.getRawMetric('qps', 'ns', parseSelector('app=web'), everything);
    assert.deepEqual([...raw.metrics], [
      ['a', { timestamp: Date.parse(TS), window: 60_000, value: 20_000 }],
      ['b', { timestamp: Date.parse(TS), window: 30_000, value: 500 }],
    ]);
    s.setReply({ items: [{ value: '2' }, { value: '3' }] });
    assert.deepEqual((await s.client.getExternalMetric('queue', 'ns', parseSelector('q=jobs'))).values, [2000, 3000]);
    s.setReply(new Error('the server could not find the requested resource'));
    await assert.rejects(s.client.getObjectMetric('hits', 'ns', { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, everything), {
      message: 'unable to fetch metrics from custom metrics API: the server could not find the requested resource',
    });
    await assert.rejects(s.client.getObjectMetric('hits', 'ns', { apiVersion: 'v1', kind: 'Namespace', name: 'other' }, everything));
    await assert.rejects(s.client.getExternalMetric('queue', 'ns', everything), { message: 'unable to fetch metrics from external metrics API: the server could not find the requested resource' });
    assert.deepEqual(
      s.requests.map((q) => `${q.verb} ${q.group}/${q.version} ${q.namespace ?? ''} ${q.resource}/${q.name ?? ''}/${q.subresource ?? ''} ${JSON.stringify(q.query ?? {})}`),
      [
        'get custom.metrics.k8s.io/v1beta2 ns pods/*/qps {"labelSelector":"app=web"}',
        'list external.metrics.k8s.io/v1beta1 ns queue// {"labelSelector":"q=jobs"}',
        'get custom.metrics.k8s.io/v1beta2 ns deployments/web/hits {}',
        'get custom.metrics.k8s.io/v1beta2  namespaces/ns/metrics/hits {}',
        'list external.metrics.k8s.io/v1beta1 ns queue// {}',
      ],
    );
  });
});
