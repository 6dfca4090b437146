/**
 * `kubectl get --raw /metrics`: the Prometheus text exposition with upstream's metric names, label
 * sets and help texts — the API server's requests (by kubectl over HTTP and by the controllers in
 * process, labelled alike), storage, the controllers' work queues, the scheduler, and the process.
 *
 * One Deployment of 3 replicas on 2 nodes; the exact values asserted are those a fresh cluster reaches
 * once the rollout is done (3 pods scheduled, one Deployment stored).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { parseExposition, seriesOf, valueOf, type Exposition } from '../../src/util/metrics/testing/index.js';
import { deploymentYaml, removeDataDir, startKubeplane, type Kubeplane } from './harness.js';

/** An apiserver_request_total series: every label, with upstream's values. */
function request(labels: { verb: string; group?: string; resource: string; subresource?: string; scope: string; code: string; dry_run?: string }): Record<string, string> {
  return { component: 'apiserver', dry_run: '', group: '', version: 'v1', subresource: '', ...labels };
}

describe('/metrics in the Prometheus format with upstream names and labels, with real kubectl', { timeout: 120_000 }, () => {
  let kp: Kubeplane;
  let m: Exposition;
  before(async () => {
    kp = await startKubeplane({ nodes: 2 });
    await kp.kubectlOk(['apply', '-f', '-'], deploymentYaml('web', 3));
    await kp.kubectlOk(['rollout', 'status', 'deploy/web', '--timeout=60s']);
    await kp.kubectlOk(['apply', '--server-side', '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  a: "1"\n');
    await kp.kubectlOk(['apply', '--dry-run=server', '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dry\n');
    await kp.kubectlOk(['get', 'pods']);
    await kp.kubectlOk(['get', 'pods', '-A']);
    m = parseExposition(await kp.kubectlOk(['get', '--raw', '/metrics']));
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
  });

  test('apiserver_request_total: kubectl\'s requests with upstream\'s verbs (POST, not CREATE) and scopes', () => {
    assert.equal(m.type.get('apiserver_request_total'), 'counter');
    assert.equal(m.help.get('apiserver_request_total'), '[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.');
    // kubectl apply of a new Deployment: a GET that finds nothing, then the create.
    assert.equal(valueOf(m, 'apiserver_request_total', request({ verb: 'GET', group: 'apps', resource: 'deployments', scope: 'resource', code: '404' })), 1);
    assert.equal(valueOf(m, 'apiserver_request_total', request({ verb: 'POST', group: 'apps', resource: 'deployments', scope: 'resource', code: '201' })), 1);
    // Server-side apply is APPLY; a server dry run is labelled dry_run="All".
    assert.equal(valueOf(m, 'apiserver_request_total', request({ verb: 'APPLY', resource: 'configmaps', scope: 'resource', code: '201' })), 1);
    assert.ok((valueOf(m, 'apiserver_request_total', request({ verb: 'POST', resource: 'configmaps', scope: 'resource', code: '201', dry_run: 'All' })) ?? 0) >= 1);
    // kubectl get pods (namespace) and -A (cluster) are LISTs; rollout status watches the Deployment.
    assert.ok((valueOf(m, 'apiserver_request_total', request({ verb: 'LIST', resource: 'pods', scope: 'namespace', code: '200' })) ?? 0) >= 1);
    assert.ok((valueOf(m, 'apiserver_request_total', request({ verb: 'LIST', resource: 'pods', scope: 'cluster', code: '200' })) ?? 0) >= 1);
    assert.ok(seriesOf(m, 'apiserver_request_total', { verb: 'WATCH', group: 'apps', resource: 'deployments' }).length >= 1);
    // Aggregated discovery, as upstream's discovery handler counts it.
    assert.ok((valueOf(m, 'apiserver_request_total', { verb: 'GET', dry_run: '', group: '', version: '', resource: '', subresource: '/apis', scope: '', component: 'apiserver', code: '200' }) ?? 0) >= 1);
  });

  test('in-process requests count too: the ReplicaSet controller\'s pod creates and the scheduler\'s bindings', () => {
    assert.equal(valueOf(m, 'apiserver_request_total', request({ verb: 'POST', resource: 'pods', scope: 'resource', code: '201' })), 3);
    assert.equal(valueOf(m, 'apiserver_request_total', request({ verb: 'POST', resource: 'pods', subresource: 'binding', scope: 'resource', code: '201' })), 3);
    assert.equal(valueOf(m, 'apiserver_request_total', request({ verb: 'POST', group: 'apps', resource: 'replicasets', scope: 'resource', code: '201' })), 1);
  });

  test('apiserver_request_duration_seconds: upstream\'s SLO buckets, one observation per request', () => {
    const labels = { verb: 'POST', dry_run: '', group: 'apps', version: 'v1', resource: 'deployments', subresource: '', scope: 'resource', component: 'apiserver' };
    assert.equal(m.type.get('apiserver_request_duration_seconds'), 'histogram');
    assert.deepEqual(
      seriesOf(m, 'apiserver_request_duration_seconds_bucket', labels).map((s) => s.labels['le']),
      ['0.005', '0.025', '0.05', '0.1', '0.2', '0.4', '0.6', '0.8', '1', '1.25', '1.5', '2', '3', '4', '5', '6', '8', '10', '15', '20', '30', '45', '60', '+Inf'],
    );
    assert.equal(valueOf(m, 'apiserver_request_duration_seconds_count', labels), 1);
    assert.equal(valueOf(m, 'apiserver_request_duration_seconds_bucket', { ...labels, le: '+Inf' }), 1);
    assert.ok(['readOnly', 'mutating'].every((kind) => valueOf(m, 'apiserver_current_inflight_requests', { request_kind: kind }) !== undefined));
  });

  test('storage: objects per resource (upstream\'s <resource>.<group>), etcd request durations, the database size', () => {
    assert.equal(m.help.get('apiserver_storage_objects'), '[STABLE] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.');
    assert.equal(valueOf(m, 'apiserver_storage_objects', { resource: 'deployments.apps' }), 1);
    assert.equal(valueOf(m, 'apiserver_storage_objects', { resource: 'replicasets.apps' }), 1);
    assert.equal(valueOf(m, 'apiserver_storage_objects', { resource: 'pods' }), 3);
    assert.equal(valueOf(m, 'apiserver_storage_objects', { resource: 'nodes' }), 2);
    assert.equal(valueOf(m, 'etcd_request_duration_seconds_count', { operation: 'create', type: 'deployments.apps' }), 1);
    assert.equal(valueOf(m, 'etcd_requests_total', { operation: 'create', type: 'pods' }), 3);
    assert.ok((valueOf(m, 'apiserver_storage_size_bytes', { storage_cluster_id: 'etcd-0' }) ?? 0) > 0);
  });

  test('workqueue_* under the controllers\' upstream queue names', () => {
    assert.ok((valueOf(m, 'workqueue_adds_total', { name: 'deployment' }) ?? 0) > 0);
    assert.ok((valueOf(m, 'workqueue_adds_total', { name: 'replicaset' }) ?? 0) > 0);
    assert.ok((valueOf(m, 'workqueue_queue_duration_seconds_count', { name: 'deployment' }) ?? 0) > 0);
    assert.ok((valueOf(m, 'workqueue_work_duration_seconds_count', { name: 'replicaset' }) ?? 0) > 0);
    assert.equal(valueOf(m, 'workqueue_queue_duration_seconds_bucket', { name: 'deployment', le: '9.999999999999999e-06' }) !== undefined, true);
    for (const name of ['workqueue_depth', 'workqueue_retries_total', 'workqueue_unfinished_work_seconds', 'workqueue_longest_running_processor_seconds']) {
      assert.notEqual(valueOf(m, name, { name: 'deployment' }), undefined, name);
    }
    assert.equal(m.help.get('workqueue_adds_total'), '[ALPHA] Total number of adds handled by workqueue');
  });

  test('scheduler_*: one scheduled attempt per pod, nothing pending', () => {
    assert.equal(valueOf(m, 'scheduler_schedule_attempts_total', { profile: 'default-scheduler', result: 'scheduled' }), 3);
    assert.equal(valueOf(m, 'scheduler_pod_scheduling_sli_duration_seconds_count', { attempts: '1' }), 3);
    assert.equal(valueOf(m, 'scheduler_pod_scheduling_attempts_count'), 3);
    assert.equal(valueOf(m, 'scheduler_pending_pods', { queue: 'active' }), 0);
    assert.equal(valueOf(m, 'scheduler_pending_pods', { queue: 'unschedulable' }), 0);
  });

  test('process_* and nodejs_*', () => {
    assert.ok((valueOf(m, 'process_resident_memory_bytes') ?? 0) > 0);
    assert.ok((valueOf(m, 'nodejs_heap_size_used_bytes') ?? 0) > 0);
    assert.ok((valueOf(m, 'process_start_time_seconds') ?? 0) > 0);
  });
});
