/**
 * A node failure with the real kubectl against the built CLI: `kubeplane nodes stop` → the node turns
 * NotReady (conditions Unknown, `Kubelet stopped posting node status.`) → tainted unreachable
 * NoSchedule and NoExecute → the Deployment's pods on it are evicted after their tolerationSeconds
 * and Running on the other nodes, while the DaemonSet's pod stays → `kubeplane nodes start` clears the
 * taints. Shortened knobs so it takes seconds: `--node-monitor-grace-period=15s` (it must exceed the
 * simulated kubelet's 10 s lease renewal), `--node-monitor-period=1s`, and a 2 s toleration in the
 * Deployment's pod template instead of the default 300 s.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startKubeplane, eventually, removeDataDir, type Kubeplane } from './harness.js';

interface Obj {
  metadata: { name: string; deletionTimestamp?: string };
  spec?: { nodeName?: string; taints?: { key: string; effect: string }[] };
  status?: { phase?: string; conditions?: { type: string; status: string }[] };
}
interface List {
  items: Obj[];
}

const ready = (o: Obj): boolean => (o.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

const MANIFESTS = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels:
      app: agent
  template:
    metadata:
      labels:
        app: agent
    spec:
      containers:
      - name: agent
        image: busybox:1.36
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 4
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      tolerations:
      - key: node.kubernetes.io/unreachable
        operator: Exists
        effect: NoExecute
        tolerationSeconds: 2
      - key: node.kubernetes.io/not-ready
        operator: Exists
        effect: NoExecute
        tolerationSeconds: 2
      containers:
      - name: nginx
        image: nginx:1.27
`;

describe('node lifecycle with real kubectl: a stopped node', { timeout: 180_000 }, () => {
  let kp: Kubeplane;

  before(async () => {
    kp = await startKubeplane({ nodes: 3, args: ['--pod-start-delay', '100', '--node-monitor-grace-period', '15s', '--node-monitor-period', '1s'] });
  });
  after(async () => {
    const dir = kp.dataDir;
    await kp.stop();
    removeDataDir(dir);
  });

  const pods = async (app: string): Promise<Obj[]> => (await kp.kubectlJson<List>(['get', 'pods', '-l', `app=${app}`])).items;

  test('NotReady, tainted, Deployment pods moved after their toleration, DaemonSet pod kept; start clears the taints', async () => {
    await kp.kubectlOk(['apply', '-f', '-'], MANIFESTS);
    await kp.kubectlOk(['rollout', 'status', 'deploy/web', '--timeout=60s']);
    await kp.kubectlOk(['rollout', 'status', 'ds/agent', '--timeout=60s']);
    const victim = (await pods('web'))[0]?.spec?.nodeName ?? '';
    assert.ok(victim);
    const agentOnVictim = (await pods('agent')).find((p) => p.spec?.nodeName === victim)?.metadata.name;
    assert.ok(agentOnVictim);

    const stopped = await kp.kubeplane(['nodes', 'stop', victim]);
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.equal(stopped.stdout, `node/${victim} stopped\n`);

    await eventually('the node NotReady in kubectl get nodes', async () => (new RegExp(`^${victim}\\s+NotReady\\s`, 'm').test(await kp.kubectlOk(['get', 'nodes'])) ? true : undefined), 60_000);
    const described = await eventually('both unreachable taints in kubectl describe node', async () => {
      const out = await kp.kubectlOk(['describe', 'node', victim]);
      return /node\.kubernetes\.io\/unreachable:NoExecute/.test(out) && /node\.kubernetes\.io\/unreachable:NoSchedule/.test(out) ? out : undefined;
    });
    assert.match(described, /^Taints:\s+node\.kubernetes\.io\/unreachable:No(Execute|Schedule)\n\s+node\.kubernetes\.io\/unreachable:No(Execute|Schedule)\n/m);
    for (const type of ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready']) {
      assert.match(described, new RegExp(`^\\s+${type}\\s+Unknown\\s.*NodeStatusUnknown\\s+Kubelet stopped posting node status\\.$`, 'm'), type);
    }

    // The Deployment's pods leave the node after their 2 s toleration; replacements run elsewhere.
    await eventually('4 Ready web pods, none on the stopped node', async () => {
      const live = (await pods('web')).filter((p) => !p.metadata.deletionTimestamp);
      return live.length === 4 && live.every((p) => ready(p) && p.status?.phase === 'Running' && p.spec?.nodeName !== victim) ? true : undefined;
    });
    const evictedEvents = await kp.kubectlOk(['get', 'events', '--field-selector', 'reason=TaintManagerEviction']);
    assert.match(evictedEvents, /Marking for deletion Pod default\/web-/);
    const agent = (await pods('agent')).find((p) => p.metadata.name === agentOnVictim);
    assert.ok(agent && !agent.metadata.deletionTimestamp, 'the DaemonSet pod stays on the stopped node');
    assert.equal(agent.spec?.nodeName, victim);

    const started = await kp.kubeplane(['nodes', 'start', victim]);
    assert.equal(started.code, 0, started.stderr);
    await eventually('Ready and no taints after nodes start', async () => {
      const node = await kp.kubectlJson<Obj>(['get', 'node', victim]);
      return ready(node) && (node.spec?.taints ?? []).length === 0 ? true : undefined;
    });
    assert.match(await kp.kubectlOk(['describe', 'node', victim]), /^Taints:\s+<none>$/m);
  });
});
