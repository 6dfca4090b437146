/**
 * PodDisruptionBudgets with the real kubectl against the built CLI: the disruption controller's status
 * (`kubectl get pdb`, `kubectl describe pdb`) and `kubectl drain` blocked by a budget — the eviction
 * answers 429 "Cannot evict pod as it would violate the pod's disruption budget." and kubectl retries
 * every 5 s until its --timeout, as on a real cluster — until the replacement pod is Ready.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { deploymentYaml, startKubeplane, eventually, httpRequest, removeDataDir, type Kubeplane } from './harness.js';

interface Pod {
  metadata: { name: string; deletionTimestamp?: string };
  spec?: { nodeName?: string };
  status?: { phase?: string; conditions?: { type: string; status: string }[] };
}
interface List {
  items: Pod[];
}

function pdbYaml(name: string, minAvailable: number): string {
  return `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: ${name}
spec:
  minAvailable: ${minAvailable}
  selector:
    matchLabels:
      app: ${name}
`;
}

const REFUSED = "Cannot evict pod as it would violate the pod's disruption budget.";

describe('PodDisruptionBudgets and kubectl drain with real kubectl', { timeout: 300_000 }, () => {
  let kp: Kubeplane;
  let dataDir = '';

  before(async () => {
    kp = await startKubeplane({ nodes: 2 });
    dataDir = kp.dataDir;
  });
  after(async () => {
    await kp.stop();
    removeDataDir(dataDir);
  });

  /** The `kubectl get pdb <name>` row once its ALLOWED DISRUPTIONS reads `allowed`. */
  const pdbRowWith = (name: string, allowed: number): Promise<string> =>
    eventually(`pdb ${name} allowing ${allowed}`, async () => {
      const out = await kp.kubectlOk(['get', 'pdb', name]);
      const row = out.split('\n')[1] ?? '';
      return row.split(/\s+/)[3] === String(allowed) ? out : undefined;
    });

  const livePods = async (app: string): Promise<Pod[]> =>
    (await kp.kubectlJson<List>(['get', 'pods', '-l', `app=${app}`])).items.filter((p) => !p.metadata.deletionTimestamp);

  test('a Deployment of 2 with minAvailable 2: ALLOWED DISRUPTIONS 0, and an eviction is refused with 429', async () => {
    await kp.kubectlOk(['apply', '-f', '-'], deploymentYaml('tight', 2));
    await kp.kubectlOk(['apply', '-f', '-'], pdbYaml('tight', 2));
    await kp.kubectlOk(['rollout', 'status', 'deploy/tight', '--timeout=120s']);
    const out = await pdbRowWith('tight', 0);
    assert.match(out, /^NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE\n/);
    assert.match(out, /\ntight\s+2\s+N\/A\s+0\s+\S+/);
    const status = await eventually('the status of 2 healthy pods', async () => {
      const pdb = await kp.kubectlJson<{ status: { currentHealthy: number; desiredHealthy: number; expectedPods: number; observedGeneration: number; conditions: { type: string; status: string; reason: string }[] } }>(['get', 'pdb', 'tight']);
      return pdb.status.currentHealthy === 2 ? pdb.status : undefined;
    });
    assert.deepEqual([status.desiredHealthy, status.expectedPods, status.observedGeneration], [2, 2, 1]);
    assert.deepEqual(status.conditions.map((c) => [c.type, c.status, c.reason]), [['DisruptionAllowed', 'False', 'InsufficientPods']]);

    // What kubectl drain sends (POST pods/<name>/eviction) is refused as upstream refuses it.
    const victim = (await livePods('tight'))[0]?.metadata.name ?? '';
    const res = await httpRequest(kp, {
      method: 'POST',
      path: `/api/v1/namespaces/default/pods/${victim}/eviction`,
      contentType: 'application/json',
      body: JSON.stringify({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: victim, namespace: 'default' } }),
    });
    assert.equal(res.status, 429);
    assert.equal(res.headers['retry-after'], undefined, 'no Retry-After: clients do not retry by themselves');
    assert.deepEqual(JSON.parse(res.body), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: REFUSED,
      reason: 'TooManyRequests',
      details: { causes: [{ reason: 'DisruptionBudget', message: 'The disruption budget tight needs 2 healthy pods and has 2 currently' }] },
      code: 429,
    });
    assert.equal((await livePods('tight')).length, 2);
    await kp.kubectlOk(['delete', 'pdb', 'tight']);
    await kp.kubectlOk(['delete', 'deploy', 'tight']);
  });

  test('kubectl drain evicts within the budget, then keeps retrying an eviction that would violate it until --timeout', async () => {
    await kp.kubectlOk(['apply', '-f', '-'], deploymentYaml('web', 2));
    await kp.kubectlOk(['apply', '-f', '-'], pdbYaml('web', 1));
    await kp.kubectlOk(['rollout', 'status', 'deploy/web', '--timeout=120s']);
    const nodes = (await livePods('web')).map((p) => p.spec?.nodeName).sort();
    assert.deepEqual(nodes, ['node-1', 'node-2'], 'the scheduler spread the two replicas');
    await pdbRowWith('web', 1);

    // One disruption is allowed: node-1's pod is evicted and replaced on node-2.
    const first = await kp.kubectl(['drain', 'node-1', '--ignore-daemonsets', '--timeout=90s']);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /node\/node-1 cordoned/);
    assert.match(first.stdout, /pod\/web-\S+ evicted/);
    assert.match(first.stdout, /node\/node-1 drained/);
    await kp.kubectlOk(['rollout', 'status', 'deploy/web', '--timeout=120s']);
    assert.deepEqual((await livePods('web')).map((p) => p.spec?.nodeName), ['node-2', 'node-2'], 'the replacement is Ready on the other node');
    await pdbRowWith('web', 1);

    // node-2 holds both pods and nothing can take a replacement: one eviction is allowed, the other
    // is refused until kubectl gives up.
    const second = await kp.kubectl(['drain', 'node-2', '--ignore-daemonsets', '--timeout=20s']);
    assert.notEqual(second.code, 0);
    assert.ok(second.stderr.includes(`(will retry after 5s): ${REFUSED}`), second.stderr);
    assert.match(second.stderr, /error when evicting pods\/"web-\S+" -n "default" \(will retry after 5s\)/);
    assert.equal((await livePods('web')).filter((p) => p.spec?.nodeName === 'node-2').length >= 1, true, 'the budget kept a pod running');

    const describe = await eventually('describe pdb web with 1 healthy pod', async () => {
      const out = await kp.kubectlOk(['describe', 'pdb', 'web']);
      return /Current:\s+1\n/.test(out) ? out : undefined;
    });
    assert.match(describe, /^Name:\s+web\n/m);
    assert.match(describe, /^Namespace:\s+default\n/m);
    assert.match(describe, /^Min available:\s+1\n/m);
    assert.match(describe, /^Selector:\s+app=web\n/m);
    assert.match(describe, /^Status:\n\s+Allowed disruptions:\s+0\n\s+Current:\s+1\n\s+Desired:\s+1\n\s+Total:\s+\d+\n/m);

    // Uncordoned, the pending replacement runs and the budget allows a disruption again.
    await kp.kubectlOk(['uncordon', 'node-1']);
    await kp.kubectlOk(['uncordon', 'node-2']);
    await kp.kubectlOk(['rollout', 'status', 'deploy/web', '--timeout=120s']);
    await pdbRowWith('web', 1);
    await kp.kubectlOk(['delete', 'pdb', 'web']);
    await kp.kubectlOk(['delete', 'deploy', 'web']);
  });
});
