/**
 * The walk-through, with the real kubectl against the built CLI: nodes Ready, the seed's
 * Deployment applied and rolled out, a rolling update to a second ReplicaSet (availability never below
 * replicas − maxUnavailable), describe events, scaling, a restart that keeps everything, and a
 * cascading delete.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { startKubeplane, eventually, removeDataDir, type Kubeplane } from './harness.js';

interface Obj {
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string>; ownerReferences?: { uid: string; kind: string }[]; uid: string };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}
interface List {
  items: Obj[];
}

const rsImage = (rs: Obj): string =>
  ((rs.spec as { template: { spec: { containers: { image: string }[] } } }).template.spec.containers[0] as { image: string }).image;

describe('kubeplane up: the Deployment walk-through with real kubectl', () => {
  let kp: Kubeplane;
  let dataDir = '';

  before(async () => {
    kp = await startKubeplane({ nodes: 3 });
    dataDir = kp.dataDir;
  });
  after(async () => {
    await kp.stop();
    removeDataDir(dataDir);
  });

  test('kubectl get nodes shows 3 Ready nodes', async () => {
    const nodes = await eventually('3 Ready nodes', async () => {
      const l = await kp.kubectlJson<List>(['get', 'nodes']);
      const ready = l.items.filter((n) =>
        ((n.status?.conditions ?? []) as { type: string; status: string }[]).some((c) => c.type === 'Ready' && c.status === 'True'),
      );
      return ready.length === 3 ? l : undefined;
    });
    assert.deepEqual(nodes.items.map((n) => n.metadata.name).sort(), ['node-1', 'node-2', 'node-3']);
    const table = await kp.kubectlOk(['get', 'nodes']);
    assert.match(table, /^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION/m);
    assert.equal(table.match(/\sReady\s/g)?.length, 3);
  });

  test('kubectl apply creates the seed Deployment and it rolls out to 3/3 spread over nodes', async () => {
    const out = await kp.kubectlOk(['apply', '-f', 'examples/nginx-deployment.yaml']);
    assert.match(out, /deployment\.apps\/nginx created/);
    const status = await kp.kubectlOk(['rollout', 'status', 'deploy/nginx', '--timeout=120s']);
    assert.match(status, /deployment "nginx" successfully rolled out/);

    const wide = await kp.kubectlOk(['get', 'deploy,rs,pods', '-o', 'wide']);
    assert.match(wide, /NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR/);
    assert.match(wide, /deployment\.apps\/nginx\s+3\/3\s+3\s+3\s+/);
    assert.match(wide, /NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR/);
    assert.match(wide, /replicaset\.apps\/nginx-[a-z0-9]+\s+3\s+3\s+3\s+/);
    assert.match(wide, /NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES/);

    const pods = await kp.kubectlJson<List>(['get', 'pods', '-l', 'app=nginx']);
    assert.equal(pods.items.length, 3);
    for (const p of pods.items) assert.equal(p.status?.phase, 'Running');
    const nodes = new Set(pods.items.map((p) => p.spec?.nodeName));
    assert.equal(nodes.size, 3, 'the scheduler spreads 3 replicas over 3 nodes');

    const rs = await kp.kubectlJson<List>(['get', 'rs', '-l', 'app=nginx']);
    assert.equal(rs.items.length, 1);
    const hash = rs.items[0]!.metadata.labels?.['pod-template-hash'];
    assert.ok(hash);
    assert.equal(rs.items[0]!.metadata.name, `nginx-${hash}`);
    assert.equal(rs.items[0]!.metadata.annotations?.['deployment.kubernetes.io/revision'], '1');
    for (const p of pods.items) assert.equal(p.metadata.labels?.['pod-template-hash'], hash);
  });

  test('kubectl set image rolls to a second ReplicaSet without dropping below 3 available', async () => {
    // Watch the Deployment's status through the whole rollout (maxUnavailable = floor(25% of 3) = 0).
    const watcher = spawn('kubectl', ['get', 'deploy', 'nginx', '--watch', '-o', 'jsonpath={.status.availableReplicas}{" "}{.status.replicas}{"\\n"}'], {
      env: { ...process.env, KUBECONFIG: kp.kubeconfig },
    });
    let seen = '';
    watcher.stdout.on('data', (d: Buffer) => (seen += d.toString()));
    await eventually('the status watch to start', () => Promise.resolve(seen.length > 0 ? true : undefined));

    const out = await kp.kubectlOk(['set', 'image', 'deploy/nginx', 'nginx=nginx:1.27']);
    assert.match(out, /deployment\.apps\/nginx image updated/);
    const status = await kp.kubectlOk(['rollout', 'status', 'deploy/nginx', '--timeout=120s']);
    assert.match(status, /successfully rolled out/);
    watcher.kill();

    const samples = seen.trim().split('\n').map((l) => l.trim().split(' ').map(Number));
    assert.ok(samples.length >= 2, `watched the rollout: ${seen}`);
    for (const [available] of samples) assert.ok((available ?? 0) >= 3, `available dropped to ${available} during the rollout: ${seen}`);

    const rs = await kp.kubectlJson<List>(['get', 'rs', '-l', 'app=nginx']);
    assert.equal(rs.items.length, 2);
    const byRevision = new Map(rs.items.map((r) => [r.metadata.annotations?.['deployment.kubernetes.io/revision'], r]));
    const newRs = byRevision.get('2');
    const oldRs = byRevision.get('1');
    assert.ok(newRs && oldRs, 'revisions 1 and 2');
    assert.equal(rsImage(newRs), 'nginx:1.27');
    assert.equal(newRs.spec?.replicas, 3);
    assert.equal(oldRs.spec?.replicas, 0);
    assert.equal(rsImage(oldRs), 'nginx:1.9.1');
    assert.notEqual(newRs.metadata.name, oldRs.metadata.name);

    const deploy = await kp.kubectlJson<Obj>(['get', 'deploy', 'nginx']);
    assert.equal(deploy.metadata.annotations?.['deployment.kubernetes.io/revision'], '2');
    const conditions = deploy.status?.conditions as { type: string; status: string; reason: string }[];
    assert.deepEqual(
      conditions.map((c) => [c.type, c.status, c.reason]).sort(),
      [
        ['Available', 'True', 'MinimumReplicasAvailable'],
        ['Progressing', 'True', 'NewReplicaSetAvailable'],
      ],
    );
    const pods = await kp.kubectlJson<List>(['get', 'pods', '-l', 'app=nginx']);
    const live = pods.items.filter((p) => !(p.metadata as { deletionTimestamp?: string }).deletionTimestamp);
    assert.equal(live.length, 3);
  });

  test('kubectl describe deploy shows the ScalingReplicaSet events', async () => {
    const out = await kp.kubectlOk(['describe', 'deploy', 'nginx']);
    assert.match(out, /Replicas:\s+3 desired \| 3 updated \| 3 total \| 3 available \| 0 unavailable/);
    assert.match(out, /StrategyType:\s+RollingUpdate/);
    assert.match(out, /RollingUpdateStrategy:\s+25% max unavailable, 25% max surge/);
    assert.match(out, /NewReplicaSet:\s+nginx-[a-z0-9]+ \(3\/3 replicas created\)/);
    assert.match(out, /Normal\s+ScalingReplicaSet\s+.*deployment-controller\s+Scaled up replica set nginx-[a-z0-9]+ from 0 to 3/);
    assert.match(out, /Scaled down replica set nginx-[a-z0-9]+ from \d to \d/);
  });

  test('kubectl scale deploy/nginx --replicas=5 brings 5 ready pods', async () => {
    const out = await kp.kubectlOk(['scale', 'deploy/nginx', '--replicas=5']);
    assert.match(out, /deployment\.apps\/nginx scaled/);
    await kp.kubectlOk(['wait', '--for=jsonpath={.status.readyReplicas}=5', 'deploy/nginx', '--timeout=120s']);
    const d = await kp.kubectlJson<Obj>(['get', 'deploy', 'nginx']);
    assert.equal(d.status?.replicas, 5);
    assert.equal(d.status?.availableReplicas, 5);
  });

  test('state survives a restart and the controllers carry on', async () => {
    const before = (await kp.kubectlJson<List>(['get', 'pods', '-l', 'app=nginx'])).items.map((p) => p.metadata.name).sort();
    assert.equal(await kp.stop(), 0, 'Ctrl-C exits cleanly');
    kp = await startKubeplane({ nodes: 3, dataDir });

    const after = (await kp.kubectlJson<List>(['get', 'pods', '-l', 'app=nginx'])).items.map((p) => p.metadata.name).sort();
    assert.deepEqual(after, before, 'the same pods are there after the restart');
    const d = await kp.kubectlJson<Obj>(['get', 'deploy', 'nginx']);
    assert.equal(d.spec?.replicas, 5);
    assert.equal((await kp.kubectlJson<List>(['get', 'nodes'])).items.length, 3, 'no extra nodes after a restart');

    await kp.kubectlOk(['scale', 'deploy/nginx', '--replicas=2']);
    await kp.kubectlOk(['wait', '--for=jsonpath={.status.replicas}=2', 'deploy/nginx', '--timeout=120s']);
    await eventually('2 pods left', async () => {
      const pods = await kp.kubectlJson<List>(['get', 'pods', '-l', 'app=nginx']);
      return pods.items.length === 2 ? true : undefined;
    });
  });

  test('kubectl delete deploy removes its ReplicaSets and pods (background cascading deletion)', async () => {
    const out = await kp.kubectlOk(['delete', 'deploy', 'nginx']);
    assert.match(out, /deployment\.apps "nginx" deleted/);
    await eventually('ReplicaSets and pods to be garbage collected', async () => {
      const left = (await kp.kubectlOk(['get', 'rs,pods', '-l', 'app=nginx', '-o', 'name'])).trim();
      return left === '' ? true : undefined;
    });
  });
});
