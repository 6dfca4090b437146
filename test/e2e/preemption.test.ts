/**
 * Scheduler preemption with the real kubectl against the built CLI: on a cluster full of low-priority
 * Deployment pods, a high-priority pod evicts one (graceful deletion, `Preempted` event with
 * upstream's message), is nominated to that node and runs there; the Deployment's replacement stays
 * Pending with FailedScheduling; a `preemptionPolicy: Never` pod waits without evicting anything.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startKubeplane, eventually, removeDataDir, type Kubeplane } from './harness.js';

interface Pod {
  metadata: { name: string; uid: string; deletionTimestamp?: string };
  spec?: { nodeName?: string; priority?: number };
  status?: { phase?: string; nominatedNodeName?: string };
}
interface Event {
  reason: string;
  message: string;
  type: string;
  involvedObject: { name: string };
}
interface List<T> {
  items: T[];
}

/** Simulated nodes have 32 cpu: two 20-cpu pods never share one. */
function fillerYaml(replicas: number): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: filler
spec:
  replicas: ${replicas}
  selector:
    matchLabels:
      app: filler
  template:
    metadata:
      labels:
        app: filler
    spec:
      priorityClassName: low
      terminationGracePeriodSeconds: 2
      containers:
      - name: nginx
        image: nginx:1.27
        resources:
          requests:
            cpu: "20"
`;
}

function podYaml(name: string, priorityClassName: string): string {
  return `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  priorityClassName: ${priorityClassName}
  containers:
  - name: nginx
    image: nginx:1.27
    resources:
      requests:
        cpu: "20"
`;
}

describe('Scheduler preemption with real kubectl', { timeout: 300_000 }, () => {
  let kp: Kubeplane;
  before(async () => {
    kp = await startKubeplane({ nodes: 2 });
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
  });

  const fillerPods = async (): Promise<Pod[]> => (await kp.kubectlJson<List<Pod>>(['get', 'pods', '-l', 'app=filler'])).items;
  const events = async (): Promise<Event[]> => (await kp.kubectlJson<List<Event>>(['get', 'events'])).items;

  test('a high-priority pod preempts a low-priority one on a full cluster', async () => {
    await kp.kubectlOk(['create', 'priorityclass', 'low', '--value=100']);
    await kp.kubectlOk(['create', 'priorityclass', 'high', '--value=1000']);
    await kp.kubectlOk(['apply', '-f', '-'], fillerYaml(2));
    await kp.kubectlOk(['rollout', 'status', 'deploy/filler', '--timeout=120s']);
    const before = await fillerPods();
    assert.deepEqual(before.map((p) => p.spec?.nodeName).sort(), ['node-1', 'node-2'], 'one filler per node: the cluster is full');

    await kp.kubectlOk(['apply', '-f', '-'], podYaml('vip', 'high'));
    const vip = await eventually('vip Running', async () => {
      const p = await kp.kubectlJson<Pod>(['get', 'pod', 'vip']);
      return p.status?.phase === 'Running' ? p : undefined;
    }, 120_000);
    assert.equal(vip.spec?.priority, 1000);
    assert.equal(vip.status?.nominatedNodeName, vip.spec?.nodeName, 'the preemptor ran on the node it was nominated to');
    const node = vip.spec?.nodeName ?? '';

    // Exactly one filler was preempted: the one that ran on vip's node.
    const victim = before.find((p) => p.spec?.nodeName === node);
    assert.ok(victim);
    const evs = await eventually('the Preempted event', async () => {
      const all = await events();
      return all.some((e) => e.reason === 'Preempted') ? all : undefined;
    });
    const preempted = evs.filter((e) => e.reason === 'Preempted');
    assert.deepEqual(
      preempted.map((e) => [e.type, e.involvedObject.name, e.message]),
      [['Normal', victim.metadata.name, `Preempted by pod ${vip.metadata.uid} on node ${node}`]],
    );
    const table = await kp.kubectlOk(['get', 'events', '--field-selector', 'reason=Preempted']);
    assert.match(table, new RegExp(`Normal\\s+Preempted\\s+pod/${victim.metadata.name}\\s+Preempted by pod ${vip.metadata.uid} on node ${node}`));

    // The Deployment replaced its pod; the replacement finds no room and no one of lower priority to evict.
    const replacement = await eventually('a Pending replacement filler', async () => {
      const pods = (await fillerPods()).filter((p) => !p.metadata.deletionTimestamp && !before.some((b) => b.metadata.uid === p.metadata.uid));
      return pods.length === 1 && pods[0]?.status?.phase === 'Pending' ? pods[0] : undefined;
    });
    const failed = await eventually('FailedScheduling for the replacement', async () =>
      (await events()).find((e) => e.reason === 'FailedScheduling' && e.involvedObject.name === replacement.metadata.name),
    );
    assert.equal(failed.type, 'Warning');
    assert.equal(
      failed.message,
      '0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.',
    );
    assert.equal((await kp.kubectlJson<Pod>(['get', 'pod', replacement.metadata.name])).spec?.nodeName, undefined);
    // The other filler still runs.
    assert.equal((await fillerPods()).filter((p) => p.status?.phase === 'Running').length, 1);
  });

  test('a preemptionPolicy: Never pod stays Pending and evicts nothing', async () => {
    await kp.kubectlOk(['create', 'priorityclass', 'polite', '--value=5000', '--preemption-policy=Never']);
    await kp.kubectlOk(['apply', '-f', '-'], podYaml('waiter', 'polite'));
    const failed = await eventually('FailedScheduling for waiter', async () =>
      (await events()).find((e) => e.reason === 'FailedScheduling' && e.involvedObject.name === 'waiter'),
    );
    assert.equal(failed.message, '0/2 nodes are available: 2 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.');
    const waiter = await kp.kubectlJson<Pod>(['get', 'pod', 'waiter']);
    assert.equal(waiter.status?.phase, 'Pending');
    assert.equal(waiter.spec?.nodeName, undefined);
    assert.equal((await events()).filter((e) => e.reason === 'Preempted').length, 1, 'no further eviction');
    assert.equal((await kp.kubectlJson<Pod>(['get', 'pod', 'vip'])).status?.phase, 'Running');
  });
});
