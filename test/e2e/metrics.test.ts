/**
 * Simulated resource usage with the real kubectl: `kubectl top pods` (`-l`, `--containers`, `-A`,
 * `--sort-by`) and `kubectl top nodes` print the columns and values they print with metrics-server;
 * `kubeplane load deploy/web --cpu 1` spreads 1000m over the Deployment's Ready pods (250m each with
 * 4, 200m with 5) and `--clear` brings the default back; the APIService is Available; the raw API has
 * metrics-server's shapes and 404s. kubectl 1.27 prints the same table.
 *
 * One simulated node, so the node's usage is exactly its overhead plus the pods' usage. New pods have
 * metrics 10–25 s after they start (metrics-server's fresh-container rule and 15 s scrapes), so the
 * first `kubectl top` is polled.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { kubectlTable, eventually, removeDataDir, startKubeplane, type Kubeplane } from './harness.js';

/** The Deployment: 4 replicas each requesting 200m / 100Mi, so the default usage is 20m / 10Mi. */
const DEPLOYMENT = JSON.stringify({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec: {
    replicas: 4,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', resources: { requests: { cpu: '200m', memory: '100Mi' } } }] },
    },
  },
});

/** A pod with its own usage: 750m split 2:1 by the CPU requests, 300Mi evenly (no memory requests). */
const SOLO = JSON.stringify({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'solo', labels: { app: 'solo' }, annotations: { 'kubeplane.io/cpu-usage': '750m', 'kubeplane.io/memory-usage': '300Mi' } },
  spec: {
    containers: [
      { name: 'main', image: 'nginx:1.27', resources: { requests: { cpu: '100m' } } },
      { name: 'sidecar', image: 'busybox:1.36', command: ['sleep', 'infinity'], resources: { requests: { cpu: '50m' } } },
    ],
  },
});

describe('kubectl top and kubeplane load', { timeout: 240_000 }, () => {
  let kp: Kubeplane;
  before(async () => {
    kp = await startKubeplane({ nodes: 1 });
    await kp.kubectlOk(['apply', '-f', '-'], DEPLOYMENT);
    await kp.kubectlOk(['apply', '-f', '-'], SOLO);
    await kp.kubectlOk(['create', 'namespace', 'other']);
    await kp.kubectlOk(['run', 'lone', '-n', 'other', '--image=nginx:1.27']);
    await kp.kubectlOk(['rollout', 'status', 'deploy/web', '--timeout=60s']);
    await kp.kubectlOk(['wait', '--for=condition=Ready', 'pod/solo', '--timeout=60s']);
    await kp.kubectlOk(['wait', '--for=condition=Ready', 'pod/lone', '-n', 'other', '--timeout=60s']);
    // Every pod has metrics once `kubectl top pods -A` lists all six.
    await eventually(
      'metrics of every pod',
      async () => {
        const r = await kp.kubectl(['top', 'pods', '-A', '--no-headers']);
        return r.code === 0 && r.stdout.trim().split('\n').length === 6 ? true : undefined;
      },
      60_000,
    );
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
  });

  test('kubectl top pods: NAME CPU(cores) MEMORY(bytes), -l, --containers, -A, --sort-by', async () => {
    const web = kubectlTable(await kp.kubectlOk(['top', 'pods', '-l', 'app=web']));
    assert.deepEqual(web[0], ['NAME', 'CPU(cores)', 'MEMORY(bytes)']);
    assert.equal(web.length, 5);
    for (const row of web.slice(1)) assert.match(row.join(' '), /^web-[a-z0-9]+-[a-z0-9]+ 20m 10Mi$/);

    assert.deepEqual(kubectlTable(await kp.kubectlOk(['top', 'pod', 'solo', '--containers'])), [
      ['POD', 'NAME', 'CPU(cores)', 'MEMORY(bytes)'],
      ['solo', 'main', '500m', '150Mi'],
      ['solo', 'sidecar', '250m', '150Mi'],
    ]);

    const all = kubectlTable(await kp.kubectlOk(['top', 'pods', '-A']));
    assert.deepEqual(all[0], ['NAMESPACE', 'NAME', 'CPU(cores)', 'MEMORY(bytes)']);
    // By namespace, then name; `lone` has no requests: 1m and 4Mi.
    assert.deepEqual(all.slice(1).map((r) => r[0]), ['default', 'default', 'default', 'default', 'default', 'other']);
    assert.deepEqual(all[1], ['default', 'solo', '750m', '300Mi']);
    assert.deepEqual(all[6], ['other', 'lone', '1m', '4Mi']);

    const byCpu = kubectlTable(await kp.kubectlOk(['top', 'pods', '--sort-by=cpu', '--no-headers']));
    assert.deepEqual(byCpu[0], ['solo', '750m', '300Mi']);
    const byMemory = kubectlTable(await kp.kubectlOk(['top', 'pods', '-A', '--sort-by=memory', '--no-headers']));
    assert.deepEqual(byMemory.at(-1), ['other', 'lone', '1m', '4Mi']);

    // kubectl 1.27 prints the same columns.
    const old = await kp.kubectlAt(27, ['top', 'pod', 'solo']);
    assert.equal(old.code, 0, old.stderr);
    assert.deepEqual(kubectlTable(old.stdout), [
      ['NAME', 'CPU(cores)', 'MEMORY(bytes)'],
      ['solo', '750m', '300Mi'],
    ]);
  });

  test('kubectl top nodes: NAME CPU(cores) CPU(%) MEMORY(bytes) MEMORY(%), the overhead plus the pods', async () => {
    // 50m + 4 × 20m + 750m + 1m = 881m of 32 cores (2 %); 256Mi + 4 × 10Mi + 300Mi + 4Mi = 600Mi of 256Gi (0 %).
    assert.deepEqual(kubectlTable(await kp.kubectlOk(['top', 'nodes'])), [
      ['NAME', 'CPU(cores)', 'CPU(%)', 'MEMORY(bytes)', 'MEMORY(%)'],
      ['node-1', '881m', '2%', '600Mi', '0%'],
    ]);
    // One node by name (GET); kubectl 1.27 (to 1.31) names the percentages CPU% and MEMORY%, 1.32 renamed them.
    assert.deepEqual(kubectlTable(await kp.kubectlOk(['top', 'node', 'node-1', '--no-headers'])), [['node-1', '881m', '2%', '600Mi', '0%']]);
    const old = await kp.kubectlAt(27, ['top', 'nodes']);
    assert.equal(old.code, 0, old.stderr);
    assert.deepEqual(kubectlTable(old.stdout)[0], ['NAME', 'CPU(cores)', 'CPU%', 'MEMORY(bytes)', 'MEMORY%']);
  });

  test('kubeplane load spreads a total over the Ready pods: 1000m over 4 is 250m, over 5 is 200m', async () => {
    const set = await kp.kubeplane(['load', 'deploy/web', '--cpu', '1']);
    assert.equal(set.code, 0, set.stderr);
    assert.equal(set.stdout, 'deployment.apps/web load set: cpu=1\n');
    const cpuOfWeb = async (): Promise<string[]> => kubectlTable(await kp.kubectlOk(['top', 'pods', '-l', 'app=web', '--no-headers'])).map((r) => r[1] ?? '');
    await eventually('250m per pod', async () => ((await cpuOfWeb()).join() === '250m,250m,250m,250m' ? true : undefined));

    await kp.kubectlOk(['scale', 'deploy/web', '--replicas=5']);
    await kp.kubectlOk(['rollout', 'status', 'deploy/web', '--timeout=60s']);
    await eventually('200m per pod', async () => ((await cpuOfWeb()).join() === '200m,200m,200m,200m,200m' ? true : undefined), 60_000);

    const cleared = await kp.kubeplane(['load', 'deploy/web', '--clear']);
    assert.equal(cleared.stdout, 'deployment.apps/web load cleared\n');
    await eventually('the default again', async () => ((await cpuOfWeb()).every((c) => c === '20m') ? true : undefined));

    const missing = await kp.kubeplane(['load', 'deploy/nope', '--cpu', '1']);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, 'kubeplane: deployments.apps "nope" not found\n');
    const bad = await kp.kubeplane(['load', 'deploy/web', '--cpu', 'lots']);
    assert.match(bad.stderr, /invalid --cpu "lots"/);
  });

  test('the APIService is Available; the raw API has metrics-server\'s shapes and errors', async () => {
    assert.deepEqual(kubectlTable(await kp.kubectlOk(['get', 'apiservice', 'v1beta1.metrics.k8s.io'])).map((r) => r.slice(0, 3)), [
      ['NAME', 'SERVICE', 'AVAILABLE'],
      ['v1beta1.metrics.k8s.io', 'Local', 'True'],
    ]);
    const solo = JSON.parse(await kp.kubectlOk(['get', '--raw', '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/solo'])) as Record<string, unknown>;
    assert.deepEqual(Object.keys(solo), ['kind', 'apiVersion', 'metadata', 'timestamp', 'window', 'containers']);
    assert.deepEqual(solo['containers'], [
      { name: 'main', usage: { cpu: '500m', memory: '150Mi' } },
      { name: 'sidecar', usage: { cpu: '250m', memory: '150Mi' } },
    ]);
    assert.equal(solo['window'], '15s');
    assert.match(String(solo['timestamp']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:(00|15|30|45)Z$/);

    const nope = await kp.kubectl(['top', 'pod', 'nope']);
    assert.equal(nope.code, 1);
    assert.equal(nope.stderr.trim(), 'Error from server (NotFound): pods "nope" not found');
    const watch = await kp.kubectl(['get', '--raw', '/apis/metrics.k8s.io/v1beta1/pods?watch=true']);
    assert.match(watch.stderr, /MethodNotAllowed|the server does not allow this method/);
    assert.match(await kp.kubectlOk(['get', 'podmetrics', 'solo']), /^NAME\s+CPU\s+MEMORY\s+WINDOW\nsolo\s+750m\s+300Mi\s+15s\n$/);
  });
});
