/**
 * ReplicationControllers with the real kubectl, kept by the replication manager (upstream runs them
 * through the ReplicaSet controller, pkg/controller/replication): pods created and owned by the RC
 * (`kind: ReplicationController`), status counts in `kubectl get rc`, `kubectl scale rc` up and down
 * through the scale subresource, a deleted pod replaced, and the pods removed with their RC (garbage
 * collector, background propagation).
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { kubectlTable, eventually, startKubeplane, removeDataDir, type Kubeplane } from './harness.js';

const RC = `
apiVersion: v1
kind: ReplicationController
metadata:
  name: web
spec:
  replicas: 2
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - {name: nginx, image: "nginx:1.27"}
`;

describe('ReplicationControllers kept by the replication manager, with real kubectl', { timeout: 180_000 }, () => {
  let kp: Kubeplane;
  before(async () => {
    kp = await startKubeplane({ nodes: 2 });
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
  });

  /** The RC's `desired current ready` as `kubectl get rc` prints them, once they equal `want`. */
  const counts = (want: string): Promise<string> =>
    eventually(`rc web at ${want}`, async () => {
      const row = kubectlTable(await kp.kubectlOk(['get', 'rc', 'web', '--no-headers']))[0] ?? [];
      const got = row.slice(1, 4).join(' ');
      return got === want ? got : undefined;
    });

  /** Names of the RC's pods that are not terminating. */
  const livePods = async (): Promise<string[]> => {
    const list = await kp.kubectlJson<{ items: { metadata: { name: string; deletionTimestamp?: string } }[] }>(['get', 'pods', '-l', 'app=web']);
    return list.items.filter((p) => !p.metadata.deletionTimestamp).map((p) => p.metadata.name);
  };

  test('the RC creates its pods, owns them, and reports them Ready', async () => {
    assert.equal((await kp.kubectlOk(['apply', '-f', '-'], RC)).trim(), 'replicationcontroller/web created');
    await counts('2 2 2');
    // SetDefaults_ReplicationController: selector and labels from the template's labels.
    assert.equal((await kp.kubectlOk(['get', 'rc', 'web', '-o', 'jsonpath={.spec.selector.app} {.metadata.labels.app}'])).trim(), 'web web');
    assert.deepEqual(kubectlTable(await kp.kubectlOk(['get', 'rc']))[0], ['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE']);
    const owners = await kp.kubectlOk(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={range .items[*]}{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name} {.metadata.generateName}{"\\n"}{end}']);
    assert.deepEqual(owners.trim().split('\n'), ['ReplicationController/web web-', 'ReplicationController/web web-']);
    assert.equal((await kp.kubectlOk(['get', 'rc', 'web', '-o', 'jsonpath={.status.fullyLabeledReplicas} {.status.availableReplicas} {.status.observedGeneration}'])).trim(), '2 2 1');
  });

  test('kubectl scale rc up and down; a deleted pod is replaced', async () => {
    assert.equal((await kp.kubectlOk(['scale', 'rc', 'web', '--replicas=3'])).trim(), 'replicationcontroller/web scaled');
    await counts('3 3 3');
    const wide = kubectlTable(await kp.kubectlOk(['get', 'rc', 'web', '-o', 'wide']));
    assert.deepEqual(wide[0], ['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    assert.deepEqual([...(wide[1]?.slice(0, 4) ?? []), ...(wide[1]?.slice(5) ?? [])], ['web', '3', '3', '3', 'nginx', 'nginx:1.27', 'app=web']);

    const [victim] = await livePods();
    assert.ok(victim);
    await kp.kubectlOk(['delete', 'pod', victim, '--wait=false']);
    const replaced = await eventually('a replacement pod', async () => {
      const names = await livePods();
      return names.length === 3 && !names.includes(victim) ? names : undefined;
    });
    assert.equal(replaced.length, 3);
    await counts('3 3 3');

    await kp.kubectlOk(['scale', 'rc', 'web', '--replicas=1']);
    await eventually('one pod left', async () => ((await livePods()).length === 1 ? true : undefined));
    await counts('1 1 1');
  });

  test('deleting the RC deletes its pods', async () => {
    assert.equal((await kp.kubectlOk(['delete', 'rc', 'web'])).trim(), 'replicationcontroller "web" deleted');
    await eventually('the pods gone', async () => ((await kp.kubectlJson<{ items: unknown[] }>(['get', 'pods', '-l', 'app=web'])).items.length === 0 ? true : undefined));
  });
});
