/**
 * Cascading deletion and namespace termination with the real kubectl against the built CLI:
 * `kubectl delete` with --cascade=background|foreground|orphan on a Deployment (what remains after
 * kubectl returns, and the adopt/release story of orphans), pods with --wait, and
 * `kubectl delete namespace` watched until the namespace is gone.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { deploymentYaml, startKubeplane, eventually, removeDataDir, type Kubeplane } from './harness.js';

interface Obj {
  metadata: { name: string; uid: string; ownerReferences?: { uid: string; kind: string; name: string }[]; deletionTimestamp?: string; finalizers?: string[] };
  spec?: { nodeName?: string };
  status?: { phase?: string };
}
interface List {
  items: Obj[];
}

const names = (l: List): string[] => l.items.map((o) => o.metadata.name).sort();
const uidsOf = (l: List): string[] => l.items.map((o) => o.metadata.uid).sort();

describe('kubectl delete: cascading deletion and namespaces', () => {
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

  const deploy = async (name: string, replicas: number, namespace = 'default'): Promise<void> => {
    await kp.kubectlOk(['apply', '-f', '-'], deploymentYaml(name, replicas, namespace));
    await kp.kubectlOk(['rollout', 'status', `deploy/${name}`, '-n', namespace, '--timeout=120s']);
  };

  test('--cascade=background (the default): the Deployment goes, then its ReplicaSet and pods', async () => {
    await deploy('bg', 2);
    const out = await kp.kubectlOk(['delete', 'deploy', 'bg']);
    assert.match(out, /deployment\.apps "bg" deleted/);
    await eventually('ReplicaSet and pods collected', async () => ((await kp.kubectlOk(['get', 'rs,pods', '-l', 'app=bg', '-o', 'name'])).trim() === '' ? true : undefined));
  });

  test('--cascade=foreground: when kubectl returns, the pods and the ReplicaSet are already gone', async () => {
    await deploy('fg', 3);
    const out = await kp.kubectlOk(['delete', 'deploy', 'fg', '--cascade=foreground', '--timeout=120s']);
    assert.match(out, /deployment\.apps "fg" deleted/);
    const left = await kp.kubectl(['get', 'deploy,rs,pods', '-l', 'app=fg', '-o', 'name']);
    assert.equal(left.stdout.trim(), '', 'nothing of fg remains');
    const d = await kp.kubectl(['get', 'deploy', 'fg']);
    assert.match(d.stderr, /deployments\.apps "fg" not found/);
  });

  test('--cascade=orphan: the ReplicaSet and then the pods keep running without owners, and are adopted again', async () => {
    await deploy('or', 3);
    const rs = await kp.kubectlJson<List>(['get', 'rs', '-l', 'app=or']);
    const rsName = rs.items[0]?.metadata.name ?? '';
    const pods = await kp.kubectlJson<List>(['get', 'pods', '-l', 'app=or']);
    assert.equal(pods.items.length, 3);

    assert.match(await kp.kubectlOk(['delete', 'deploy', 'or', '--cascade=orphan']), /deployment\.apps "or" deleted/);
    const orphanRs = await kp.kubectlJson<Obj>(['get', 'rs', rsName]);
    assert.equal((orphanRs.metadata.ownerReferences ?? []).length, 0, 'the ReplicaSet has no owner');
    assert.equal(orphanRs.metadata.uid, rs.items[0]?.metadata.uid);

    assert.match(await kp.kubectlOk(['delete', 'rs', rsName, '--cascade=orphan']), new RegExp(`replicaset\\.apps "${rsName}" deleted`));
    const orphanPods = await kp.kubectlJson<List>(['get', 'pods', '-l', 'app=or']);
    assert.deepEqual(uidsOf(orphanPods), uidsOf(pods), 'the same pods still run');
    for (const p of orphanPods.items) {
      assert.equal((p.metadata.ownerReferences ?? []).length, 0, `${p.metadata.name} has no owner`);
      assert.equal(p.status?.phase, 'Running');
      assert.equal(p.metadata.deletionTimestamp, undefined);
    }

    // A new Deployment with the same selector and template: its ReplicaSet (same name, same hash)
    // adopts the running pods instead of creating new ones.
    await deploy('or', 3);
    const adoptedRs = await kp.kubectlJson<Obj>(['get', 'rs', rsName]);
    const newDeploy = await kp.kubectlJson<Obj>(['get', 'deploy', 'or']);
    assert.equal(adoptedRs.metadata.ownerReferences?.[0]?.uid, newDeploy.metadata.uid);
    const adopted = await eventually('pods adopted by the new ReplicaSet', async () => {
      const l = await kp.kubectlJson<List>(['get', 'pods', '-l', 'app=or']);
      return l.items.every((p) => p.metadata.ownerReferences?.[0]?.uid === adoptedRs.metadata.uid) ? l : undefined;
    });
    assert.deepEqual(uidsOf(adopted), uidsOf(pods), 'no pod was replaced');
    await kp.kubectlOk(['delete', 'deploy', 'or']);
  });

  test('kubectl delete pod waits until the pod is gone', async () => {
    await kp.kubectlOk(['run', 'solo', '--image=nginx:1.27']);
    await kp.kubectlOk(['wait', '--for=condition=Ready', 'pod/solo', '--timeout=120s']);
    assert.match(await kp.kubectlOk(['delete', 'pod', 'solo']), /pod "solo" deleted/);
    const r = await kp.kubectl(['get', 'pod', 'solo']);
    assert.match(r.stderr, /pods "solo" not found/);
  });

  test('kubectl drain evicts a node\'s pods (pods/eviction) and the Deployment replaces them elsewhere', async () => {
    await deploy('drained', 3);
    const onNode = async (node: string): Promise<string[]> =>
      names({ items: (await kp.kubectlJson<List>(['get', 'pods', '-l', 'app=drained'])).items.filter((p) => p.spec?.nodeName === node && !p.metadata.deletionTimestamp) });
    const victims = await onNode('node-1');
    assert.equal(victims.length, 1, 'the scheduler spread one replica on node-1');
    const out = await kp.kubectlOk(['drain', 'node-1', '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=60s']);
    assert.match(out, /node\/node-1 cordoned/);
    assert.match(out, new RegExp(`pod/${victims[0] ?? ''} evicted`));
    assert.match(out, /node\/node-1 drained/);
    await kp.kubectlOk(['rollout', 'status', 'deploy/drained', '--timeout=120s']);
    assert.deepEqual(await onNode('node-1'), [], 'nothing runs on the cordoned node');
    assert.match(await kp.kubectlOk(['get', 'node', 'node-1']), /Ready,SchedulingDisabled/);
    await kp.kubectlOk(['uncordon', 'node-1']);
    await kp.kubectlOk(['delete', 'deploy', 'drained']);
  });

  test('kubectl delete namespace: Terminating, no new content, then everything and the namespace are gone', async () => {
    await kp.kubectlOk(['create', 'namespace', 'shop']);
    await deploy('web', 3, 'shop');
    await kp.kubectlOk(['run', 'bare-1', '--image=nginx:1.27', '-n', 'shop']);
    await kp.kubectlOk(['run', 'bare-2', '--image=nginx:1.27', '-n', 'shop']);
    await kp.kubectlOk(['wait', '--for=condition=Ready', 'pod/bare-1', 'pod/bare-2', '-n', 'shop', '--timeout=120s']);
    await kp.kubectlOk(
      ['apply', '-f', '-'],
      'apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent, namespace: shop}\nspec:\n  selector: {matchLabels: {app: agent}}\n  template:\n    metadata: {labels: {app: agent}}\n    spec: {containers: [{name: a, image: busybox:1.36}]}\n',
    );
    await kp.kubectlOk(['rollout', 'status', 'ds/agent', '-n', 'shop', '--timeout=120s']);
    assert.equal((await kp.kubectlJson<List>(['get', 'pods', '-n', 'shop', '-l', 'app=agent'])).items.length, 3, 'one daemon pod per node');
    const events = await kp.kubectlJson<List>(['get', 'events', '-n', 'shop']);
    assert.ok(events.items.length > 0, 'the namespace holds events');

    assert.match(await kp.kubectlOk(['delete', 'namespace', 'shop', '--wait=false']), /namespace "shop" deleted/);
    const table = await kp.kubectlOk(['get', 'namespace', 'shop']);
    assert.match(table, /^NAME\s+STATUS\s+AGE\nshop\s+Terminating\s+/);
    const late = await kp.kubectl(['run', 'late', '--image=nginx:1.27', '-n', 'shop']);
    assert.notEqual(late.code, 0);
    assert.match(late.stderr, /pods "late" is forbidden: unable to create new content in namespace shop because it is being terminated/);

    await kp.kubectlOk(['wait', '--for=delete', 'namespace/shop', '--timeout=120s']);
    const gone = await kp.kubectl(['get', 'namespace', 'shop']);
    assert.match(gone.stderr, /namespaces "shop" not found/);
    const contents = await kp.kubectl(['get', 'deploy,rs,ds,controllerrevisions,pods,events,leases', '-n', 'shop', '-o', 'name']);
    assert.equal(contents.stdout.trim(), '');
    assert.deepEqual(names(await kp.kubectlJson<List>(['get', 'namespaces'])), ['default', 'kube-node-lease', 'kube-public', 'kube-system']);
  });

  test('the immortal namespaces cannot be deleted', async () => {
    const r = await kp.kubectl(['delete', 'namespace', 'kube-system']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /namespaces "kube-system" is forbidden: this namespace may not be deleted/);
  });
});
