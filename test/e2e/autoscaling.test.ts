/**
 * HorizontalPodAutoscalers with the real kubectl: `kubectl autoscale` creates an autoscaling/v2 HPA,
 * `kubectl get hpa` prints upstream's columns, and the same object is read as autoscaling/v1 (one
 * storage version, two served versions). The HPA controller first evaluates an HPA one sync period
 * (15 s) after it is created, so REPLICAS is still 0 when this reads it; hpa.test.ts covers scaling.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startKubeplane, removeDataDir, type Kubeplane } from './harness.js';

describe('HorizontalPodAutoscalers with real kubectl', { timeout: 120_000 }, () => {
  let kp: Kubeplane;
  before(async () => {
    kp = await startKubeplane({ nodes: 1 });
    await kp.kubectlOk(['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=2']);
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
  });

  test('kubectl autoscale, get hpa, and the v1 view of the same object', async () => {
    assert.equal((await kp.kubectlOk(['autoscale', 'deployment', 'web', '--min=2', '--max=5', '--cpu-percent=60'])).trim(), 'horizontalpodautoscaler.autoscaling/web autoscaled');
    const table = (await kp.kubectlOk(['get', 'hpa'])).trim().split('\n');
    assert.match(table[0] ?? '', /^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE$/);
    assert.match(table[1] ?? '', /^web\s+Deployment\/web\s+cpu: <unknown>\/60%\s+2\s+5\s+0\s+\d+s$/);

    // kubectl expands the short name `hpa` to its preferred version, so the full name selects a version.
    const v2 = await kp.kubectlJson<{ apiVersion: string; spec: { metrics: unknown[] } }>(['get', 'horizontalpodautoscalers.v2.autoscaling', 'web']);
    assert.equal(v2.apiVersion, 'autoscaling/v2');
    assert.deepEqual(v2.spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }]);
    const v1 = await kp.kubectlJson<{ apiVersion: string; spec: { targetCPUUtilizationPercentage: number; minReplicas: number } }>(['get', 'horizontalpodautoscalers.v1.autoscaling', 'web']);
    assert.equal(v1.apiVersion, 'autoscaling/v1');
    assert.equal(v1.spec.targetCPUUtilizationPercentage, 60);
    assert.equal(v1.spec.minReplicas, 2);

    // A change through v1 shows in v2.
    await kp.kubectlOk(['patch', 'horizontalpodautoscalers.v1.autoscaling', 'web', '--type=merge', '-p', '{"spec":{"targetCPUUtilizationPercentage":75}}']);
    assert.equal((await kp.kubectlOk(['get', 'hpa', 'web', '-o', 'jsonpath={.spec.metrics[0].resource.target.averageUtilization}'])).trim(), '75');
  });

  test('kubectl 1.27 autoscale creates the HPA through autoscaling/v1; it reads back as v2', async () => {
    // kubectl before 1.33 posts autoscaling/v1 (-v=6 logs the request line); 1.33 posts v2 (kubectl pkg/cmd/autoscale/autoscale.go).
    const old = await kp.kubectlAt(27, ['autoscale', 'deployment', 'web', '--name=old', '--min=1', '--max=3', '--cpu-percent=40', '-v=6']);
    assert.equal(old.code, 0, old.stderr);
    assert.equal(old.stdout.trim(), 'horizontalpodautoscaler.autoscaling/old autoscaled');
    assert.match(old.stderr, /POST https:\/\/[^ ]+\/apis\/autoscaling\/v1\/namespaces\/default\/horizontalpodautoscalers\?fieldManager=kubectl-autoscale 201 Created/);
    const v2 = await kp.kubectlJson<{ spec: { minReplicas: number; maxReplicas: number; metrics: unknown[] } }>(['get', 'horizontalpodautoscalers.v2.autoscaling', 'old']);
    assert.deepEqual(v2.spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 40 } } }]);
    assert.deepEqual([v2.spec.minReplicas, v2.spec.maxReplicas], [1, 3]);
  });
});
