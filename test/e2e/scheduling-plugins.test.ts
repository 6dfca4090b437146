/**
 * The scheduler's InterPodAffinity and PodTopologySpread plugins with the real kubectl: a Deployment
 * whose pods refuse to share a node leaves the third replica Pending on a 2-node cluster, with
 * upstream's FailedScheduling text in `kubectl describe pod`; a Deployment spread with maxSkew 1 over
 * hostnames lands evenly on 3 nodes.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { deploymentYaml, eventually, removeDataDir, startKubeplane, type Kubeplane } from './harness.js';

interface PodList {
  items: Array<{ metadata: { name: string; deletionTimestamp?: string }; spec: { nodeName?: string }; status?: { phase?: string } }>;
}

/** The harness's Deployment of `replicas` nginx pods labelled `app: <name>`, with `extra` YAML in the pod spec (indented 6). */
function deployment(name: string, replicas: number, extra: string): string {
  const yaml = deploymentYaml(name, replicas);
  const at = yaml.indexOf('      containers:');
  return `${yaml.slice(0, at)}${extra}\n${yaml.slice(at)}`;
}

/** Starts a cluster of `nodes` nodes before the describe's tests and removes it after; returns a getter. */
function useCluster(nodes: number): () => Kubeplane {
  let kp: Kubeplane | undefined;
  before(async () => {
    kp = await startKubeplane({ nodes, args: ['--pod-start-delay', '100'] });
  });
  after(async () => {
    if (!kp) return;
    const dir = kp.dataDir;
    await kp.stop();
    removeDataDir(dir);
  });
  return () => {
    if (!kp) throw new Error('cluster not started');
    return kp;
  };
}

async function pods(kp: Kubeplane, app: string): Promise<PodList['items']> {
  return (await kp.kubectlJson<PodList>(['get', 'pods', '-l', `app=${app}`])).items.filter((p) => !p.metadata.deletionTimestamp);
}

describe('required pod anti-affinity on a 2-node cluster', { timeout: 120_000 }, () => {
  const cluster = useCluster(2);

  test('3 replicas that refuse to share a hostname: 2 Running, 1 Pending with upstream\'s message', async () => {
    const kp = cluster();
    await kp.kubectlOk(
      ['apply', '-f', '-'],
      deployment(
        'solo',
        3,
        `      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector:
              matchLabels:
                app: solo
            topologyKey: kubernetes.io/hostname`,
      ),
    );
    const list = await eventually('2 Running and 1 Pending pod', async () => {
      const l = await pods(kp, 'solo');
      const running = l.filter((p) => p.status?.phase === 'Running');
      const pending = l.filter((p) => p.status?.phase === 'Pending' && !p.spec.nodeName);
      return l.length === 3 && running.length === 2 && pending.length === 1 ? l : undefined;
    });
    const nodes = new Set(list.filter((p) => p.spec.nodeName).map((p) => p.spec.nodeName));
    assert.equal(nodes.size, 2, 'the Running replicas are on different nodes');
    const pending = list.find((p) => !p.spec.nodeName)?.metadata.name ?? '';
    const want =
      '0/2 nodes are available: 2 node(s) didn\'t match pod anti-affinity rules. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.';
    const described = await eventually('the FailedScheduling event in kubectl describe', async () => {
      const out = await kp.kubectlOk(['describe', 'pod', pending]);
      return out.includes(want) ? out : undefined;
    });
    assert.match(described, /Warning\s+FailedScheduling\s+.*default-scheduler\s+0\/2 nodes are available/);
    const events = await kp.kubectlOk(['get', 'events', '--field-selector', `involvedObject.name=${pending},reason=FailedScheduling`, '-o', 'jsonpath={.items[*].message}']);
    assert.ok(events.includes(want), events);
    // The pod's condition carries the same text.
    const cond = await kp.kubectlOk(['get', 'pod', pending, '-o', 'jsonpath={.status.conditions[?(@.type=="PodScheduled")].message}']);
    assert.equal(cond, want);
  });

  test('scaling down to 2 leaves both Running, one per node', async () => {
    const kp = cluster();
    await kp.kubectlOk(['scale', 'deployment/solo', '--replicas=2']);
    await eventually('2 pods on 2 nodes', async () => {
      const l = await pods(kp, 'solo');
      return l.length === 2 && l.every((p) => p.status?.phase === 'Running') && new Set(l.map((p) => p.spec.nodeName)).size === 2 ? l : undefined;
    });
  });
});

describe('a topology spread constraint over hostnames on a 3-node cluster', { timeout: 120_000 }, () => {
  const cluster = useCluster(3);

  test('9 replicas with maxSkew 1 land 3 per node', async () => {
    const kp = cluster();
    await kp.kubectlOk(
      ['apply', '-f', '-'],
      deployment(
        'even',
        9,
        `      topologySpreadConstraints:
      - maxSkew: 1
        topologyKey: kubernetes.io/hostname
        whenUnsatisfiable: DoNotSchedule
        labelSelector:
          matchLabels:
            app: even`,
      ),
    );
    await kp.kubectlOk(['rollout', 'status', 'deployment/even', '--timeout=90s']);
    const l = await pods(kp, 'even');
    const perNode = new Map<string, number>();
    for (const p of l) perNode.set(p.spec.nodeName ?? '', (perNode.get(p.spec.nodeName ?? '') ?? 0) + 1);
    assert.deepEqual([...perNode.values()], [3, 3, 3], JSON.stringify([...perNode]));
  });
});
