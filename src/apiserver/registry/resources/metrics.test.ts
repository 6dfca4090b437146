/**
 * metrics.k8s.io/v1beta1 through the real API server: PodMetrics and NodeMetrics with metrics-server's
 * shapes (metadata, timestamp of the last 15 s scrape, window, quantities), label and field selectors,
 * its NotFound errors (the pod or node itself, then the metrics), pods too young or not Running left
 * out, a Deployment's load divided over its Ready pods, only get and list served, the Table, and the
 * local APIService `v1beta1.metrics.k8s.io`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { APIService, KubeList, KubeObject, Node, NodeMetrics, Pod, PodMetrics } from '../../../api/index.js';
import type { RestRequest } from '../../../api/request.js';
import { CPU_LOAD_ANNOTATION, CPU_USAGE_ANNOTATION, NODE_OVERHEAD, cpuQuantity, memoryQuantity } from '../../../machinery/usage/index.js';
import { formatTime } from '../../../util/clock/index.js';
import { ensureDefaultServiceAccount, newTestServer, rejectsWithStatus, type TestServer } from '../../testing/fixtures.js';
import { servedStrategies } from './index.js';
import { nodeMetricsStrategy, podMetricsStrategy } from './metrics.js';

const METRICS = { group: 'metrics.k8s.io', version: 'v1beta1' };
const podMetricsReq = (r: Partial<RestRequest> & Pick<RestRequest, 'verb'>): RestRequest => ({ ...METRICS, resource: 'pods', namespace: 'default', ...r });
const nodeMetricsReq = (r: Partial<RestRequest> & Pick<RestRequest, 'verb'>): RestRequest => ({ ...METRICS, resource: 'nodes', ...r });

/** Lists PodMetrics in `namespace` (null: all namespaces). */
async function listPods(t: TestServer, query: Record<string, string> = {}, namespace: string | null = 'default'): Promise<KubeList<PodMetrics>> {
  return (await t.server.handle({ ...podMetricsReq({ verb: 'list', query }), namespace: namespace ?? undefined })).body as KubeList<PodMetrics>;
}

interface PodOpts {
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: NonNullable<Pod['metadata']>['ownerReferences'];
  nodeName?: string;
  /** How long before now its containers started, ms (default 60 s). */
  startedAgoMs?: number;
  ready?: boolean;
  phase?: string;
}

/** Creates a pod (one container `c` requesting 100m / 100Mi) and gives it the status a kubelet would. */
async function runningPod(t: TestServer, name: string, o: PodOpts = {}): Promise<void> {
  const namespace = o.namespace ?? 'default';
  const req = { group: '', version: 'v1', resource: 'pods', namespace };
  const created = await t.server.handle({
    ...req,
    verb: 'create',
    body: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, ...(o.labels ? { labels: o.labels } : {}), ...(o.annotations ? { annotations: o.annotations } : {}), ...(o.ownerReferences ? { ownerReferences: o.ownerReferences } : {}) },
      spec: { nodeName: o.nodeName ?? 'node-1', containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '100m', memory: '100Mi' } } }] },
    },
  });
  const ready = o.ready === false ? 'False' : 'True';
  const status: Pod['status'] = {
    phase: o.phase ?? 'Running',
    conditions: [{ type: 'Ready', status: ready }],
    containerStatuses: [{ name: 'c', image: 'nginx', imageID: '', ready: ready === 'True', restartCount: 0, state: { running: { startedAt: formatTime(t.clock.now() - (o.startedAgoMs ?? 60_000)) } } }],
  };
  await t.server.handle({ ...req, verb: 'update', name, subresource: 'status', body: { ...(created.body as Pod), status } });
}

/** Creates a node and sets its Ready condition. */
async function node(t: TestServer, name: string, ready: 'True' | 'False', labels: Record<string, string> = {}): Promise<void> {
  const req = { group: '', version: 'v1', resource: 'nodes' };
  const created = await t.server.handle({ ...req, verb: 'create', body: { apiVersion: 'v1', kind: 'Node', metadata: { name, labels } } });
  const status: Node['status'] = { conditions: [{ type: 'Ready', status: ready }], allocatable: { cpu: '32', memory: '256Gi' } };
  await t.server.handle({ ...req, verb: 'update', name, subresource: 'status', body: { ...(created.body as Node), status } });
}

/** A server whose clock stands 7 s past a scrape (so timestamps show the truncation). */
async function server(): Promise<TestServer> {
  const t = await newTestServer({ strategies: servedStrategies });
  t.clock.step(7_000);
  return t;
}

describe('PodMetrics', () => {
  test('a Running pod: metrics-server\'s shape, the default usage, the last scrape and a 15 s window', async () => {
    const t = await server();
    await runningPod(t, 'web', { labels: { app: 'web' } });
    const list = await listPods(t);
    const now = t.clock.now();
    assert.deepEqual(list, {
      kind: 'PodMetricsList',
      apiVersion: 'metrics.k8s.io/v1beta1',
      metadata: {},
      items: [
        {
          metadata: { name: 'web', namespace: 'default', creationTimestamp: formatTime(now), labels: { app: 'web' } },
          timestamp: formatTime(now - 7_000),
          window: '15s',
          containers: [{ name: 'c', usage: { cpu: '10m', memory: '10Mi' } }],
        },
      ],
    });
    const one = (await t.server.handle(podMetricsReq({ verb: 'get', name: 'web' }))).body as PodMetrics;
    assert.equal(one.kind, 'PodMetrics');
    assert.equal(one.apiVersion, 'metrics.k8s.io/v1beta1');
    assert.deepEqual(one.containers, list.items[0]?.containers);
    await t.server.close();
  });

  test('the 404s of metrics-server: the pod itself, then its metrics (namespace/name)', async () => {
    const t = await server();
    await runningPod(t, 'young', { startedAgoMs: 5_000 });
    await runningPod(t, 'pending', { phase: 'Pending' });
    await rejectsWithStatus(t.server.handle(podMetricsReq({ verb: 'get', name: 'nope' })), 404, 'pods "nope" not found');
    await rejectsWithStatus(t.server.handle(podMetricsReq({ verb: 'get', name: 'young' })), 404, 'podmetrics.metrics.k8s.io "default/young" not found');
    await rejectsWithStatus(t.server.handle(podMetricsReq({ verb: 'get', name: 'pending' })), 404, 'podmetrics.metrics.k8s.io "default/pending" not found');
    assert.deepEqual((await listPods(t)).items, []);
    // The next scrape (15 s) comes 13 s after the container started: it has it, with its age as window.
    t.clock.step(8_000);
    const young = (await listPods(t)).items;
    assert.deepEqual(young.map((m) => [m.metadata?.name, m.window]), [['young', '13s']]);
    await t.server.close();
  });

  test('label and field selectors (metadata.name, metadata.namespace); other fields are refused', async () => {
    const t = await server();
    await runningPod(t, 'a', { labels: { app: 'web' } });
    await runningPod(t, 'b', { labels: { app: 'db' } });
    await runningPod(t, 'c', { labels: { app: 'web' } });
    assert.deepEqual((await listPods(t, { labelSelector: 'app=web' })).items.map((m) => m.metadata?.name), ['a', 'c']);
    // resourceVersion 0 reads whatever the caches hold, without sharing the consistent reads' model.
    assert.deepEqual((await listPods(t, { labelSelector: 'app=web', resourceVersion: '0' })).items.map((m) => m.metadata?.name), ['a', 'c']);
    assert.deepEqual((await listPods(t, { fieldSelector: 'metadata.name=b' })).items.map((m) => m.metadata?.name), ['b']);
    assert.deepEqual((await listPods(t, { labelSelector: 'app=web', fieldSelector: 'metadata.name!=a' })).items.map((m) => m.metadata?.name), ['c']);
    await rejectsWithStatus(t.server.handle(podMetricsReq({ verb: 'list', query: { fieldSelector: 'spec.nodeName=node-1' } })), 400, 'field label not supported: spec.nodeName');
    await rejectsWithStatus(t.server.handle(podMetricsReq({ verb: 'list', query: { labelSelector: 'app in (' } })), 400);
    await t.server.close();
  });

  test('all namespaces: sorted by namespace, then name', async () => {
    const t = await server();
    await t.server.handle({ group: '', version: 'v1', resource: 'namespaces', verb: 'create', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'alpha' } } });
    await ensureDefaultServiceAccount(t.server, 'alpha');
    await runningPod(t, 'z', { namespace: 'default' });
    await runningPod(t, 'b', { namespace: 'alpha' });
    await runningPod(t, 'a', { namespace: 'default' });
    const all = await listPods(t, {}, null);
    assert.deepEqual(all.items.map((m) => `${m.metadata?.namespace ?? ''}/${m.metadata?.name ?? ''}`), ['alpha/b', 'default/a', 'default/z']);
    await t.server.close();
  });

  test('a Deployment\'s load is divided over its Ready pods (1 CPU over 4 → 250m); a pod annotation wins', async () => {
    const t = await server();
    const apps = { group: 'apps', version: 'v1', namespace: 'default' };
    const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
    const deploy = (
      await t.server.handle({
        ...apps,
        resource: 'deployments',
        verb: 'create',
        body: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', annotations: { [CPU_LOAD_ANNOTATION]: '1' } }, spec: { selector: { matchLabels: { app: 'web' } }, template } },
      })
    ).body as KubeObject;
    const ref = (kind: string, o: KubeObject) => [{ apiVersion: 'apps/v1', kind, name: o.metadata?.name ?? '', uid: o.metadata?.uid ?? '', controller: true }];
    const rs = (
      await t.server.handle({
        ...apps,
        resource: 'replicasets',
        verb: 'create',
        body: { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web-1', ownerReferences: ref('Deployment', deploy) }, spec: { selector: { matchLabels: { app: 'web' } }, template } },
      })
    ).body as KubeObject;
    for (const name of ['web-1-a', 'web-1-b', 'web-1-c', 'web-1-d']) await runningPod(t, name, { labels: { app: 'web' }, ownerReferences: ref('ReplicaSet', rs) });
    await runningPod(t, 'web-1-e', { labels: { app: 'web' }, ownerReferences: ref('ReplicaSet', rs), ready: false });
    await runningPod(t, 'web-1-f', { labels: { app: 'web' }, ownerReferences: ref('ReplicaSet', rs), startedAgoMs: 2_000 });
    const cpu = async (): Promise<string[]> => (await listPods(t, { labelSelector: 'app=web' })).items.map((m) => `${m.metadata?.name ?? ''}=${m.containers[0]?.usage['cpu'] ?? ''}`);
    // The young pod is Ready, so it takes its share, but has no metrics yet; the unready one gets the default.
    assert.deepEqual(await cpu(), ['web-1-a=200m', 'web-1-b=200m', 'web-1-c=200m', 'web-1-d=200m', 'web-1-e=10m']);
    await t.server.handle({ group: '', version: 'v1', resource: 'pods', namespace: 'default', verb: 'delete', name: 'web-1-f', query: { gracePeriodSeconds: '0' } });
    assert.deepEqual(await cpu(), ['web-1-a=250m', 'web-1-b=250m', 'web-1-c=250m', 'web-1-d=250m', 'web-1-e=10m']);
    await t.server.close();
  });

  test('only get and list: watch, create and delete answer 405', async () => {
    const t = await server();
    assert.throws(
      () => t.server.watch(podMetricsReq({ verb: 'watch' }), () => undefined, () => undefined),
      (err: unknown) => (err as { code?: number }).code === 405,
    );
    await rejectsWithStatus(t.server.handle(podMetricsReq({ verb: 'create', body: {} })), 405);
    await rejectsWithStatus(t.server.handle(podMetricsReq({ verb: 'delete', name: 'x' })), 405);
    await t.server.close();
  });

  test('the Table: Name, cpu, memory (a pod\'s containers added up), Window', () => {
    assert.deepEqual(
      podMetricsStrategy.table.columns.map((c) => [c.name, c.format]),
      [
        ['Name', 'name'],
        ['cpu', 'quantity'],
        ['memory', 'quantity'],
        ['Window', 'duration'],
      ],
    );
    const m: PodMetrics = {
      metadata: { name: 'p' },
      timestamp: '2025-01-01T00:00:00Z',
      window: '15s',
      containers: [
        { name: 'a', usage: { cpu: '250m', memory: '64Mi' } },
        { name: 'b', usage: { cpu: '333333334n', memory: '1Mi' } },
      ],
    };
    assert.deepEqual(podMetricsStrategy.table.row(m as never, 0).cells, ['p', '583333334n', '65Mi', '15s']);
  });
});

describe('NodeMetrics', () => {
  test('Ready nodes: the overhead plus their pods; NotReady nodes have none; 404s', async () => {
    const t = await server();
    await node(t, 'node-1', 'True', { zone: 'a' });
    await node(t, 'node-2', 'True', { zone: 'b' });
    await node(t, 'node-3', 'False');
    await runningPod(t, 'busy', { nodeName: 'node-1', annotations: { [CPU_USAGE_ANNOTATION]: '1500m' } });
    await runningPod(t, 'idle', { nodeName: 'node-1', startedAgoMs: 1_000 });
    const now = t.clock.now();
    const list = (await t.server.handle(nodeMetricsReq({ verb: 'list' }))).body as KubeList<NodeMetrics>;
    assert.equal(list.kind, 'NodeMetricsList');
    assert.deepEqual(list.items, [
      {
        metadata: { name: 'node-1', creationTimestamp: formatTime(now), labels: { zone: 'a' } },
        timestamp: formatTime(now - 7_000),
        window: '15s',
        // A pod too young for its own metrics still uses its node.
        usage: { cpu: cpuQuantity(NODE_OVERHEAD.cpu + 1_510_000_000), memory: memoryQuantity(NODE_OVERHEAD.memory + 20 * 1024 * 1024) },
      },
      {
        metadata: { name: 'node-2', creationTimestamp: formatTime(now), labels: { zone: 'b' } },
        timestamp: formatTime(now - 7_000),
        window: '15s',
        usage: { cpu: '50m', memory: '256Mi' },
      },
    ]);
    assert.deepEqual(list.items[0]?.usage, { cpu: '1560m', memory: '276Mi' });
    const selected = (await t.server.handle(nodeMetricsReq({ verb: 'list', query: { labelSelector: 'zone=b' } }))).body as KubeList<NodeMetrics>;
    assert.deepEqual(selected.items.map((n) => n.metadata?.name), ['node-2']);
    const one = (await t.server.handle(nodeMetricsReq({ verb: 'get', name: 'node-2' }))).body as NodeMetrics;
    assert.deepEqual([one.kind, one.apiVersion, one.usage], ['NodeMetrics', 'metrics.k8s.io/v1beta1', { cpu: '50m', memory: '256Mi' }]);
    await rejectsWithStatus(t.server.handle(nodeMetricsReq({ verb: 'get', name: 'node-3' })), 404, 'nodemetrics.metrics.k8s.io "node-3" not found');
    await rejectsWithStatus(t.server.handle(nodeMetricsReq({ verb: 'get', name: 'node-9' })), 404, 'nodes "node-9" not found');
    assert.deepEqual(nodeMetricsStrategy.table.row(one as never, 0).cells, ['node-2', '50m', '256Mi', '15s']);
    await t.server.close();
  });
});

test('the APIService v1beta1.metrics.k8s.io: local, Available, metrics-server\'s priority 100/100', async () => {
  const t = await server();
  const svc = (await t.server.handle({ group: 'apiregistration.k8s.io', version: 'v1', resource: 'apiservices', verb: 'get', name: 'v1beta1.metrics.k8s.io' })).body as APIService;
  assert.deepEqual(svc.spec, { group: 'metrics.k8s.io', version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 100 });
  assert.deepEqual(svc.status?.conditions?.map((c) => [c.type, c.status, c.reason]), [['Available', 'True', 'Local']]);
  await t.server.close();
});
