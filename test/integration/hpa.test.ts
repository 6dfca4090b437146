/**
 * The HPA controller in the whole control plane: a Deployment's pods are created, scheduled and made
 * Ready by the real controllers, scheduler and simulated kubelets; the HPA reads their cpu from an
 * injected MetricsClient (what `ControlPlaneOptions.hpa.metricsClient` is for) and scales the
 * Deployment through its scale subresource, out under load and back in after the (shortened)
 * downscale stabilization window.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { startControlPlane, type ControlPlane } from '../../src/cli/cluster.js';
import type { MetricsClient, PodMetricsInfo } from '../../src/controller/podautoscaler/index.js';
import { MemoryBackend } from '../../src/storage/memory/index.js';
import { FakeClock } from '../../src/util/clock/index.js';
import { SeededRand } from '../../src/util/random/index.js';
import { stepFor, stepUntil } from './cluster-helpers.js';

describe('HorizontalPodAutoscaler in the control plane', () => {
  test('scales a Deployment out under load and back in after the downscale stabilization', async () => {
    const clock = new FakeClock();
    /** Millicores each pod uses. */
    let perPod = 0;
    /** The plane, once started (the metrics client lists pods through it). */
    const started: { cp?: ControlPlane } = {};
    const metricsClient: MetricsClient = {
      async getResourceMetric(resource, namespace, selector) {
        const cp = started.cp;
        if (!cp) throw new Error('not started');
        const pods = (await cp.client.core.pods(namespace).list({ labelSelector: selector.toString() })).items.filter((p) => p.status?.phase === 'Running');
        if (pods.length === 0) throw new Error('no metrics returned from resource metrics API');
        const metrics: PodMetricsInfo = new Map(pods.map((p) => [p.metadata?.name ?? '', { timestamp: clock.now(), window: 10_000, value: resource === 'cpu' ? perPod : 0 }]));
        return { metrics, timestamp: clock.now() };
      },
      getRawMetric: () => Promise.reject(new Error('custom metrics are not served')),
      getObjectMetric: () => Promise.reject(new Error('custom metrics are not served')),
      getExternalMetric: () => Promise.reject(new Error('external metrics are not served')),
    };
    const starting = startControlPlane({
      backend: new MemoryBackend(),
      nodes: 3,
      clock,
      rand: new SeededRand(42),
      logger: pino({ level: 'silent' }),
      hpa: { metricsClient, downscaleStabilizationMs: 30_000 },
    });
    let done = false;
    void starting.then(() => (done = true));
    for (let i = 0; i < 100 && !done; i++) await clock.stepAsync(10);
    const plane = await starting;
    started.cp = plane;
    try {
      await plane.client.apps.deployments('default').create({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: 'default' },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '100m' } } }] } },
        },
      });
      await plane.client.autoscaling.horizontalPodAutoscalers('default').create({
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        metadata: { name: 'web', namespace: 'default' },
        spec: {
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
          minReplicas: 1,
          maxReplicas: 5,
          metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }],
        },
      });
      const replicas = async (): Promise<number> => (await plane.client.apps.deployments('default').get('web')).spec?.replicas ?? 0;
      const readyPods = async (): Promise<number> => (await plane.client.apps.deployments('default').get('web')).status?.readyReplicas ?? 0;
      // 200 % of the request: out to the maximum, within a few sync periods.
      perPod = 200;
      await stepUntil(clock, 'scaled out to 5', async () => (await replicas()) === 5, 1200);
      await stepUntil(clock, '5 pods ready', async () => (await readyPods()) === 5, 600);
      const hpa = await plane.client.autoscaling.horizontalPodAutoscalers('default').get('web');
      assert.equal(hpa.status?.desiredReplicas, 5);
      const events = (await plane.client.core.events('default').list()).items.filter((e) => e.reason === 'SuccessfulRescale').map((e) => e.message);
      assert.ok(events.includes('New size: 4; reason: cpu resource utilization (percentage of request) above target'), JSON.stringify(events));
      // The load goes: after the 30 s window the Deployment comes back to 1.
      perPod = 5;
      await stepFor(clock, 20_000);
      assert.equal(await replicas(), 5, 'held by the stabilization window');
      await stepUntil(clock, 'scaled in to 1', async () => (await replicas()) === 1, 600);
    } finally {
      await plane.stop();
    }
  });
});
