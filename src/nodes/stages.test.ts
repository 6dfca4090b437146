import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../api/index.js';
import { nodeInternalIP, nodePodCIDR, PodIPPool } from './ip-allocator.js';
import { backOffMs, goDuration, pullErrorMessage, pullRetryDelayMs } from './failure-stages.js';
import { imageRepository } from './pod-status.js';
import { podCreateStage, podDeleteStage, podReadyStage, type StageContext } from './stages.js';

describe('imageRepository', () => {
  const cases: Array<[string, string]> = [
    ['nginx', 'docker.io/library/nginx'],
    ['nginx:1.27', 'docker.io/library/nginx'],
    ['bitnami/redis:7', 'docker.io/bitnami/redis'],
    ['registry.k8s.io/pause:3.10', 'registry.k8s.io/pause'],
    ['localhost:5000/app:v1', 'localhost:5000/app'],
    ['nginx@sha256:abc', 'docker.io/library/nginx'],
  ];
  for (const [image, want] of cases) test(image, () => assert.equal(imageRepository(image), want));
});

describe('addresses', () => {
  test('node IPs and pod CIDRs', () => {
    assert.equal(nodeInternalIP(0), '10.0.0.2');
    assert.equal(nodeInternalIP(299), '10.0.1.48');
    assert.equal(nodePodCIDR(0), '10.128.0.0/24');
    assert.equal(nodePodCIDR(299), '10.129.43.0/24');
  });
  test('PodIPPool: one IP per uid, reuse after release, exhaustion', () => {
    const pool = new PodIPPool('10.128.0.0/24');
    assert.equal(pool.allocate('a'), '10.128.0.1');
    assert.equal(pool.allocate('a'), '10.128.0.1');
    assert.equal(pool.allocate('b'), '10.128.0.2');
    pool.release('a');
    pool.reserve('c', '10.128.0.3');
    for (let i = 0; i < 251; i++) pool.allocate(`x${i}`);
    assert.equal(pool.allocate('last'), '10.128.0.1');
    assert.throws(() => pool.allocate('one-too-many'), /no free pod IP/);
  });
  test('rejects anything but a /24', () => assert.throws(() => new PodIPPool('10.0.0.0/16')));
});

describe('pod stages', () => {
  const ctx: StageContext = { now: Date.UTC(2025, 0, 1), node: { name: 'n1', internalIP: '10.0.0.2' }, allocatePodIP: () => '10.128.0.7' };
  const pod: Pod = {
    metadata: { name: 'p', namespace: 'default', uid: 'u1' },
    spec: {
      nodeName: 'n1',
      containers: [{ name: 'app', image: 'nginx:1.27' }],
      initContainers: [
        { name: 'init', image: 'busybox' },
        { name: 'sidecar', image: 'envoy', restartPolicy: 'Always' },
      ],
    },
    status: { phase: 'Pending', qosClass: 'BestEffort', conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: '2024-12-31T00:00:00Z' }] },
  };
  test('pod-create takes a just-bound pod to ContainerCreating; pod-ready takes over once it has started', () => {
    const create = podCreateStage();
    const ready = podReadyStage();
    assert.equal(create.selector(pod), true);
    assert.equal(ready.selector(pod), false, 'not before the kubelet reported the pod as starting');
    const status = create.next(pod, ctx).status as { phase: string; startTime: string; hostIP: string; conditions: { type: string; status: string; reason?: string; message?: string }[]; containerStatuses: { name: string; ready: boolean; state: { waiting?: { reason: string } } }[] };
    assert.equal(status.phase, 'Pending');
    assert.equal(status.startTime, '2025-01-01T00:00:00Z');
    assert.equal(status.hostIP, '10.0.0.2');
    assert.deepEqual(status.containerStatuses.map((c) => [c.name, c.ready, c.state.waiting?.reason]), [['app', false, 'ContainerCreating']]);
    assert.deepEqual(
      status.conditions.map((c) => [c.type, c.status, c.reason ?? '']),
      [['PodReadyToStartContainers', 'False', ''], ['Initialized', 'True', ''], ['Ready', 'False', 'ContainersNotReady'], ['ContainersReady', 'False', 'ContainersNotReady'], ['PodScheduled', 'True', '']],
    );
    assert.equal(status.conditions.find((c) => c.type === 'Ready')?.message, 'containers with unready status: [app]');
    const started = { ...pod, status: { ...pod.status, ...status } } as Pod;
    assert.equal(create.selector(started), false);
    assert.equal(ready.selector(started), true);
  });

  test('pod-ready selects started Pending pods only, not terminating ones', () => {
    const s = podReadyStage();
    assert.equal(s.selector({ ...pod, status: { ...pod.status, startTime: '2025-01-01T00:00:00Z' } }), true);
    assert.equal(s.selector({ ...pod, status: { phase: 'Running' } }), false);
    assert.equal(s.selector({ ...pod, metadata: { ...pod.metadata, deletionTimestamp: '2025-01-01T00:00:00Z' } }), false);
  });
  test('pod-ready status', () => {
    const status = podReadyStage().next(pod, ctx).status as Record<string, unknown> & { conditions: Array<{ type: string; status: string; lastTransitionTime: string }>; containerStatuses: Array<Record<string, unknown>>; initContainerStatuses: Array<Record<string, unknown>> };
    assert.equal(status.phase, 'Running');
    assert.equal(status.podIP, '10.128.0.7');
    assert.deepEqual(status.podIPs, [{ ip: '10.128.0.7' }]);
    assert.equal(status.hostIP, '10.0.0.2');
    assert.equal(status.startTime, '2025-01-01T00:00:00Z');
    assert.deepEqual(
      status.conditions.map((c) => [c.type, c.status]),
      [['PodReadyToStartContainers', 'True'], ['Initialized', 'True'], ['Ready', 'True'], ['ContainersReady', 'True'], ['PodScheduled', 'True']],
    );
    assert.equal(status.conditions.find((c) => c.type === 'PodScheduled')?.lastTransitionTime, '2024-12-31T00:00:00Z', 'unchanged condition keeps its time');
    const app = status.containerStatuses[0]!;
    assert.equal(app.ready, true);
    assert.equal(app.started, true);
    assert.equal(app.restartCount, 0);
    assert.deepEqual(app.state, { running: { startedAt: '2025-01-01T00:00:00Z' } });
    assert.match(String(app.imageID), /^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
    assert.match(String(app.containerID), /^kubeplane:\/\/[0-9a-f]{64}$/);
    assert.equal((status.initContainerStatuses[0]!.state as { terminated: { exitCode: number } }).terminated.exitCode, 0);
    assert.ok((status.initContainerStatuses[1]!.state as { running?: unknown }).running, 'sidecars keep running');
  });
  test('pod-delete delay is capped by the grace period', () => {
    const s = podDeleteStage(5000);
    assert.equal(s.delayLimitMs?.({ ...pod, metadata: { ...pod.metadata, deletionGracePeriodSeconds: 2 } }, ctx.now), 2000);
    assert.equal(s.delayLimitMs?.(pod, ctx.now), undefined);
    assert.deepEqual(s.next(pod, ctx), { delete: true, events: [] }, 'no container ran: nothing to stop');
    const runningPod: Pod = { ...pod, status: { ...pod.status, containerStatuses: [{ name: 'app', image: 'nginx:1.27', imageID: '', ready: true, restartCount: 0, state: { running: {} } }] } };
    assert.deepEqual(s.next(runningPod, ctx), {
      delete: true,
      events: [{ type: 'Normal', reason: 'Killing', message: 'Stopping container app', fieldPath: 'spec.containers{app}' }],
    });
  });
});

describe('failure-stage arithmetic', () => {
  test('back-off: 10 s doubling to 5 min, printed as Go durations', () => {
    assert.deepEqual([1, 2, 3, 4, 5, 6, 7].map(backOffMs), [10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
    assert.deepEqual([10_000, 80_000, 160_000, 300_000].map(goDuration), ['10s', '1m20s', '2m40s', '5m0s']);
  });
  test('pull retries at 10, 30, 70, 150, 310 s after the start', () => {
    const start = Date.UTC(2025, 0, 1);
    const pod: Pod = { status: { startTime: '2025-01-01T00:00:00Z' } };
    assert.equal(pullRetryDelayMs(pod, start + 1_500), 8_500);
    assert.equal(pullRetryDelayMs(pod, start + 12_000), 18_000);
    assert.equal(pullRetryDelayMs(pod, start + 151_000), 159_000);
    assert.equal(pullRetryDelayMs(pod, start + 29_500), 1_000, 'at least the 1 s resync');
  });
  test('pull error names the fully qualified reference', () => {
    assert.match(pullErrorMessage('doesnotexist'), /"docker\.io\/library\/doesnotexist:latest"/);
    assert.match(pullErrorMessage('registry.example.com/team/app:doesnotexist'), /registry\.example\.com\/team\/app:doesnotexist: not found$/);
  });
});
