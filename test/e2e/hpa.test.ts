/**
 * The HorizontalPodAutoscaler scaling a Deployment on simulated load, with the real kubectl:
 * `kubectl autoscale deploy/web --cpu-percent=50 --min=1 --max=10`, then `kubeplane load deploy/web
 * --cpu 400m` puts 400m on the one pod (200 % of its 200m request), so the HPA scales to
 * ceil(1 × 200 / 50) = 4; the load spread over 4 Ready pods is 100m each (50 %), where it stays.
 * `kubeplane load --clear` brings back the default usage (10 % of requests, 20m), so the HPA wants
 * ceil(4 × 10 / 50) = 1 and scales down once the downscale stabilization window has passed.
 *
 * The cluster runs with kube-controller-manager's flags shortened, as documented in the README:
 * `--horizontal-pod-autoscaler-sync-period=5s` (default 15s) and
 * `--horizontal-pod-autoscaler-downscale-stabilization=10s` (default 5m). A new pod has metrics 10–25 s
 * after it starts (metrics-server's fresh-container rule, 15 s scrapes), so each step is polled.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, removeDataDir, startKubeplane, type Kubeplane } from './harness.js';

/** One replica requesting 200m CPU: its default usage is 20m (10 %). */
const DEPLOYMENT = JSON.stringify({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', resources: { requests: { cpu: '200m', memory: '64Mi' } } }] },
    },
  },
});

/** The cells of the `web` row of `kubectl get hpa` (columns are separated by two or more spaces). */
async function hpaRow(kp: Kubeplane): Promise<string[]> {
  const out = await kp.kubectlOk(['get', 'hpa', 'web', '--no-headers']);
  return out.trim().split(/\s{2,}/);
}

/** The messages of the HPA's SuccessfulRescale events, oldest first. */
async function rescales(kp: Kubeplane): Promise<string[]> {
  const events = await kp.kubectlJson<{ items: { message: string; reason: string; involvedObject: { kind: string; name: string } }[] }>([
    'get',
    'events',
    '--field-selector',
    'involvedObject.kind=HorizontalPodAutoscaler,involvedObject.name=web,reason=SuccessfulRescale',
    '--sort-by=.metadata.creationTimestamp',
  ]);
  return events.items.map((e) => e.message);
}

describe('the HPA scales a Deployment on simulated load', { timeout: 300_000 }, () => {
  let kp: Kubeplane;
  before(async () => {
    kp = await startKubeplane({
      nodes: 2,
      args: ['--horizontal-pod-autoscaler-sync-period=5s', '--horizontal-pod-autoscaler-downscale-stabilization=10s'],
    });
    await kp.kubectlOk(['apply', '-f', '-'], DEPLOYMENT);
    await kp.kubectlOk(['rollout', 'status', 'deploy/web', '--timeout=60s']);
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
  });

  test('kubectl autoscale; at the default usage the HPA reports 10 % and keeps 1 replica', async () => {
    // 20m of 200m is 10 %: ceil(1 × 10 / 50) = 1, which is not below --min=1, so ScalingLimited is False.
    assert.equal(
      (await kp.kubectlOk(['autoscale', 'deployment', 'web', '--cpu-percent=50', '--min=1', '--max=10'])).trim(),
      'horizontalpodautoscaler.autoscaling/web autoscaled',
    );
    const row = await eventually('a first utilization', async () => {
      const cells = await hpaRow(kp);
      return cells[2] === 'cpu: 10%/50%' ? cells : undefined;
    }, 90_000);
    assert.deepEqual(row.slice(0, 6), ['web', 'Deployment/web', 'cpu: 10%/50%', '1', '10', '1']);
    const conditions = await kp.kubectlJson<{ status: { conditions: { type: string; status: string; reason: string }[] } }>(['get', 'hpa', 'web']);
    assert.deepEqual(
      conditions.status.conditions.map((c) => `${c.type}=${c.status}/${c.reason}`),
      ['AbleToScale=True/ReadyForNewScale', 'ScalingActive=True/ValidMetricFound', 'ScalingLimited=False/DesiredWithinRange'],
    );
    assert.deepEqual(await rescales(kp), []);
  });

  test('kubeplane load --cpu 400m: 200 % of the request, so the HPA scales to 4 and settles at 50 %', async () => {
    const set = await kp.kubeplane(['load', 'deploy/web', '--cpu', '400m']);
    assert.equal(set.code, 0, set.stderr);
    assert.equal(set.stdout, 'deployment.apps/web load set: cpu=400m\n');

    await eventually('the rescale to 4', async () => ((await rescales(kp)).length > 0 ? true : undefined), 90_000);
    assert.deepEqual(await rescales(kp), ['New size: 4; reason: cpu resource utilization (percentage of request) above target']);
    await kp.kubectlOk(['rollout', 'status', 'deploy/web', '--timeout=60s']);
    assert.equal((await kp.kubectlOk(['get', 'deploy/web', '-o', 'jsonpath={.spec.replicas}'])), '4');

    // Spread over 4 Ready pods the load is 100m each: exactly the target, so nothing more changes.
    const settled = await eventually('50 % over 4 pods', async () => {
      const cells = await hpaRow(kp);
      return cells[2] === 'cpu: 50%/50%' ? cells : undefined;
    }, 90_000);
    assert.deepEqual(settled.slice(0, 6), ['web', 'Deployment/web', 'cpu: 50%/50%', '1', '10', '4']);
    // The new pods' metrics come with the next scrapes; until then TARGETS is the old pod's alone.
    await eventually('100m on each pod in kubectl top', async () => {
      const top = await kp.kubectlOk(['top', 'pods', '-l', 'app=web', '--no-headers']);
      return top.trim().split('\n').map((l) => l.trim().split(/\s+/)[1]).join() === '100m,100m,100m,100m' ? true : undefined;
    }, 60_000);
    assert.deepEqual(await rescales(kp), ['New size: 4; reason: cpu resource utilization (percentage of request) above target']);

    const describe = await kp.kubectlOk(['describe', 'hpa', 'web']);
    assert.match(describe, /^Reference:\s+Deployment\/web$/m);
    assert.match(describe, /^\s+resource cpu on pods {2}\(as a percentage of request\): {2}50% \(100m\) \/ 50%$/m);
    assert.match(describe, /^Min replicas:\s+1$/m);
    assert.match(describe, /^Max replicas:\s+10$/m);
    assert.match(describe, /^Deployment pods:\s+4 current \/ 4 desired$/m);
    assert.match(describe, /^\s+ScalingActive\s+True\s+ValidMetricFound\s+the HPA was able to successfully calculate a replica count from cpu resource utilization \(percentage of request\)$/m);
    assert.match(describe, /Normal\s+SuccessfulRescale\s+\S+\s+horizontal-pod-autoscaler\s+New size: 4; reason: cpu resource utilization \(percentage of request\) above target/);
  });

  test('kubeplane load --clear: back to 10 %, so after the stabilization window the HPA scales to 1', async () => {
    const cleared = await kp.kubeplane(['load', 'deploy/web', '--clear']);
    assert.equal(cleared.stdout, 'deployment.apps/web load cleared\n');

    await eventually('the rescale to 1', async () => ((await rescales(kp)).length > 1 ? true : undefined), 120_000);
    assert.deepEqual(await rescales(kp), [
      'New size: 4; reason: cpu resource utilization (percentage of request) above target',
      'New size: 1; reason: All metrics below target',
    ]);
    await kp.kubectlOk(['rollout', 'status', 'deploy/web', '--timeout=60s']);
    const row = await eventually('one replica at 10 %', async () => {
      const cells = await hpaRow(kp);
      return cells[2] === 'cpu: 10%/50%' && cells[5] === '1' ? cells : undefined;
    }, 90_000);
    assert.deepEqual(row.slice(0, 6), ['web', 'Deployment/web', 'cpu: 10%/50%', '1', '10', '1']);
  });
});
