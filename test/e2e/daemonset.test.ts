/**
 * The DaemonSet seeds replayed with the real kubectl against the built CLI: the fluentd DaemonSet on 3
 * workers plus a tainted control-plane node, nodes added at run time (`kubeplane nodes add` and
 * `kubectl create -f node.yaml`), a rolling image update one node at a time, rollout history and
 * undo, a nodeSelector DaemonSet following node labels, orphaning and cascading deletes; and on a
 * cluster of its own, a removed node whose daemon pod the pod garbage collector deletes.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { startKubeplane, eventually, removeDataDir, repoRoot, type Kubeplane } from './harness.js';

interface Obj {
  metadata: { name: string; labels?: Record<string, string>; ownerReferences?: { kind: string; name: string }[]; deletionTimestamp?: string };
  spec?: { nodeName?: string; containers?: { image: string }[] };
  status?: Record<string, unknown> & { conditions?: { type: string; status: string }[] };
}
interface List {
  items: Obj[];
}

const NS = ['-n', 'kube-system'];
const ready = (o: Obj): boolean => (o.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/** Runs `kubeplane <args>` (the built CLI) against the cluster's kubeconfig. */
function kubeplaneCli(kp: Kubeplane, args: string[]): Promise<string> {
  return new Promise((ok, fail) => {
    execFile(process.execPath, [join(repoRoot, 'dist/src/cli/main.js'), ...args, '--kubeconfig', kp.kubeconfig], (err, stdout, stderr) => {
      if (err) fail(new Error(`kubeplane ${args.join(' ')}: ${err.message}\n${stderr}`));
      else ok(stdout);
    });
  });
}

/**
 * The fluentd DaemonSet on a cluster of its own: `kubectl get ds` and the pods of `examples/
 * fluentd-daemonset.yaml` (`kube-system`, label name=fluentd-elasticsearch), and `kubeplane …` on it.
 */
async function fluentdCluster(opts: { nodes: number; args?: string[] }): Promise<{ kp: Kubeplane; fluentdPods: () => Promise<Obj[]>; dsRow: () => Promise<string> }> {
  const kp = await startKubeplane(opts);
  const fluentdPods = async (): Promise<Obj[]> =>
    (await kp.kubectlJson<List>(['get', 'pods', ...NS, '-l', 'name=fluentd-elasticsearch'])).items.filter((p) => !p.metadata.deletionTimestamp);
  const dsRow = async (): Promise<string> => (await kp.kubectlOk(['get', 'ds', ...NS])).split('\n')[1] ?? '';
  return { kp, fluentdPods, dsRow };
}

// The two clusters run at once (the node removal mostly waits out the pod GC's quarantine); the
// tests of each run one after the other (subtests would inherit the concurrency).
describe('DaemonSets with real kubectl', { concurrency: true }, () => {
  describe('the fluentd seed', { concurrency: 1 }, () => {
    let kp: Kubeplane;
    let fluentdPods: () => Promise<Obj[]>;
    let dsRow: () => Promise<string>;

    before(async () => {
      ({ kp, fluentdPods, dsRow } = await fluentdCluster({ nodes: 3, args: ['--control-plane-node', '--pod-start-delay', '100'] }));
    });
    after(async () => {
      const dir = kp.dataDir;
      await kp.stop();
      removeDataDir(dir);
    });

    test('the control-plane node is tainted and labelled as kind/kubeadm ones are', async () => {
      const nodes = await eventually('4 Ready nodes', async () => {
        const l = await kp.kubectlJson<List>(['get', 'nodes']);
        return l.items.filter(ready).length === 4 ? l : undefined;
      });
      const cp = nodes.items.find((n) => n.metadata.name === 'control-plane');
      assert.equal(cp?.metadata.labels?.['node-role.kubernetes.io/control-plane'], '');
      assert.deepEqual((cp?.spec as { taints?: unknown[] } | undefined)?.taints, [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }]);
      assert.match(await kp.kubectlOk(['get', 'nodes']), /control-plane\s+Ready\s+control-plane/);
    });

    test('kubectl apply: one pod per node, the control-plane node included; 4 4 4 4 4', async () => {
      assert.match(await kp.kubectlOk(['apply', '-f', 'examples/fluentd-daemonset.yaml']), /daemonset\.apps\/fluentd-elasticsearch created/);
      assert.match(await kp.kubectlOk(['rollout', 'status', 'ds/fluentd-elasticsearch', ...NS, '--timeout=60s']), /daemon set "fluentd-elasticsearch" successfully rolled out/);
      const pods = await fluentdPods();
      assert.deepEqual(pods.map((p) => p.spec?.nodeName).sort(), ['control-plane', 'node-1', 'node-2', 'node-3']);
      for (const p of pods) {
        assert.equal(p.metadata.labels?.['pod-template-generation'], '1');
        assert.ok(p.metadata.labels?.['controller-revision-hash']);
        assert.deepEqual(p.metadata.ownerReferences?.map((r) => `${r.kind}/${r.name}`), ['DaemonSet/fluentd-elasticsearch']);
      }
      const table = await kp.kubectlOk(['get', 'ds', ...NS]);
      assert.match(table, /^NAME\s+DESIRED\s+CURRENT\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+NODE SELECTOR\s+AGE\n/);
      assert.match(table, /fluentd-elasticsearch\s+4\s+4\s+4\s+4\s+4\s+<none>\s+\d+s/);
      assert.match(await kp.kubectlOk(['get', 'ds', ...NS, '-o', 'wide']), /CONTAINERS\s+IMAGES\s+SELECTOR\n.*fluentd-elasticsearch\s+fluent\/fluentd:v1\.4-1\s+name=fluentd-elasticsearch/);
      const revs = await kp.kubectlOk(['get', 'controllerrevisions', ...NS]);
      assert.match(revs, /NAME\s+CONTROLLER\s+REVISION\s+AGE\n/);
      const hash = pods[0]?.metadata.labels?.['controller-revision-hash'] ?? '';
      assert.match(revs, new RegExp(`fluentd-elasticsearch-${hash}\\s+daemonset\\.apps/fluentd-elasticsearch\\s+1\\s`));
    });

    test('nodes added at run time get a pod: kubeplane nodes add, and kubectl create -f node.yaml', async () => {
      assert.match(await kubeplaneCli(kp, ['nodes', 'add', 'node-4', '--label', 'disk=ssd']), /node\/node-4 created/);
      await eventually('a 5th pod', async () => ((await dsRow()).match(/\s5\s+5\s+5\s+5\s+5\s/) ? true : undefined));
      await kp.kubectlOk(['create', '-f', '-'], 'apiVersion: v1\nkind: Node\nmetadata:\n  name: node-5\n');
      await eventually('node-5 Ready and covered', async () => ((await dsRow()).match(/\s6\s+6\s+6\s+6\s+6\s/) ? true : undefined));
      const node5 = await kp.kubectlJson<Obj>(['get', 'node', 'node-5']);
      assert.ok(ready(node5), 'a Node made with kubectl is simulated and Ready');
      assert.deepEqual((await fluentdPods()).map((p) => p.spec?.nodeName).sort(), ['control-plane', 'node-1', 'node-2', 'node-3', 'node-4', 'node-5']);
    });

    test('kubectl set image replaces the pods one node at a time: new hash, pod-template-generation "2"', async () => {
      const oldHash = (await fluentdPods())[0]?.metadata.labels?.['controller-revision-hash'];
      await kp.kubectlOk(['set', 'image', 'ds/fluentd-elasticsearch', 'fluentd-elasticsearch=fluent/fluentd:v1.4', ...NS]);
      let worst = 0;
      let done = false;
      const watching = (async () => {
        while (!done) {
          const ds = await kp.kubectlJson<Obj>(['get', 'ds', 'fluentd-elasticsearch', ...NS]);
          worst = Math.max(worst, Number(ds.status?.desiredNumberScheduled ?? 0) - Number(ds.status?.numberAvailable ?? 0));
        }
      })();
      const out = await kp.kubectlOk(['rollout', 'status', 'ds/fluentd-elasticsearch', ...NS, '--timeout=90s']);
      done = true;
      await watching;
      assert.match(out, /Waiting for daemon set "fluentd-elasticsearch" rollout to finish: \d out of 6 new pods have been updated/);
      assert.match(out, /successfully rolled out/);
      assert.ok(worst <= 1, `at most one node without an available pod (maxUnavailable 1), saw ${worst}`);
      const pods = await fluentdPods();
      assert.equal(pods.length, 6);
      for (const p of pods) {
        assert.equal(p.spec?.containers?.[0]?.image, 'fluent/fluentd:v1.4');
        assert.equal(p.metadata.labels?.['pod-template-generation'], '2');
        assert.notEqual(p.metadata.labels?.['controller-revision-hash'], oldHash);
      }
      const ds = await kp.kubectlJson<{ metadata: { annotations: Record<string, string>; generation: number }; status: { observedGeneration: number } }>(['get', 'ds', 'fluentd-elasticsearch', ...NS]);
      assert.equal(ds.metadata.annotations['deprecated.daemonset.template.generation'], '2');
      assert.equal(ds.status.observedGeneration, ds.metadata.generation);
      const events = await kp.kubectlOk(['get', 'events', ...NS, '--field-selector', 'involvedObject.kind=DaemonSet']);
      assert.match(events, /SuccessfulDelete\s+daemonset\/fluentd-elasticsearch\s+Deleted pod: fluentd-elasticsearch-/);
    });

    test('rollout history and undo go through the ControllerRevisions', async () => {
      assert.match(await kp.kubectlOk(['rollout', 'history', 'ds/fluentd-elasticsearch', ...NS]), /REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/);
      assert.match(await kp.kubectlOk(['rollout', 'history', 'ds/fluentd-elasticsearch', ...NS, '--revision=1']), /Image:\s+fluent\/fluentd:v1\.4-1/);
      assert.match(await kp.kubectlOk(['rollout', 'undo', 'ds/fluentd-elasticsearch', ...NS]), /daemonset\.apps\/fluentd-elasticsearch rolled back/);
      await kp.kubectlOk(['rollout', 'status', 'ds/fluentd-elasticsearch', ...NS, '--timeout=90s']);
      const pods = await fluentdPods();
      assert.ok(pods.every((p) => p.spec?.containers?.[0]?.image === 'fluent/fluentd:v1.4-1' && p.metadata.labels?.['pod-template-generation'] === '3'));
      assert.match(await kp.kubectlOk(['rollout', 'history', 'ds/fluentd-elasticsearch', ...NS]), /REVISION\s+CHANGE-CAUSE\n2\s+<none>\n3\s+<none>/);
      assert.match(
        await kp.kubectlOk(['rollout', 'undo', 'ds/fluentd-elasticsearch', ...NS, '--to-revision=3']),
        /skipped rollback \(current template already matches revision 3\)/,
      );
    });

    test('a nodeSelector DaemonSet covers matching nodes only, following relabelling', async () => {
      const manifest = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ssd-agent, namespace: default}
spec:
  selector: {matchLabels: {app: ssd-agent}}
  template:
    metadata: {labels: {app: ssd-agent}}
    spec:
      nodeSelector: {disk: ssd}
      containers: [{name: agent, image: busybox:1.36}]
`;
      await kp.kubectlOk(['apply', '-f', '-'], manifest);
      const podNodes = async (): Promise<string> =>
        (await kp.kubectlJson<List>(['get', 'pods', '-l', 'app=ssd-agent'])).items
          .filter((p) => !p.metadata.deletionTimestamp)
          .map((p) => p.spec?.nodeName ?? '')
          .sort()
          .join(',');
      await eventually('ssd-agent on node-4', async () => ((await podNodes()) === 'node-4' ? true : undefined));
      assert.match(await kp.kubectlOk(['get', 'ds', 'ssd-agent']), /ssd-agent\s+1\s+1\s+\d\s+1\s+\d\s+disk=ssd\s/);
      await kp.kubectlOk(['label', 'node', 'node-1', 'disk=ssd']);
      await eventually('ssd-agent moves in on node-1', async () => ((await podNodes()) === 'node-1,node-4' ? true : undefined));
      await kp.kubectlOk(['label', 'node', 'node-4', 'disk-']);
      await eventually('ssd-agent leaves node-4', async () => ((await podNodes()) === 'node-1' ? true : undefined));
    });

    test('delete --cascade=orphan leaves the pods running and ownerless', async () => {
      assert.match(await kp.kubectlOk(['delete', 'ds', 'ssd-agent', '--cascade=orphan']), /daemonset\.apps "ssd-agent" deleted/);
      await eventually('the DaemonSet gone', async () => ((await kp.kubectl(['get', 'ds', 'ssd-agent'])).code !== 0 ? true : undefined));
      // The pod that left node-4 may still be terminating gracefully: wait for it to be gone.
      const pods = await eventually('one ssd-agent pod left', async () => {
        const items = (await kp.kubectlJson<List>(['get', 'pods', '-l', 'app=ssd-agent'])).items;
        return items.length === 1 ? items : undefined;
      });
      assert.equal(pods[0]?.metadata.ownerReferences?.length ?? 0, 0);
      assert.ok(ready(pods[0]!));
    });

    test('kubectl delete ds removes its pods', async () => {
      await kp.kubectlOk(['delete', 'ds', 'fluentd-elasticsearch', ...NS]);
      await eventually('fluentd pods gone', async () => ((await fluentdPods()).length === 0 ? true : undefined));
    });
  });

  describe('a removed node', { concurrency: 1 }, () => {
    let kp: Kubeplane;
    let fluentdPods: () => Promise<Obj[]>;
    let dsRow: () => Promise<string>;

    before(async () => {
      ({ kp, fluentdPods, dsRow } = await fluentdCluster({ nodes: 2 }));
    });
    after(async () => {
      const dir = kp.dataDir;
      await kp.stop();
      removeDataDir(dir);
    });

    test('takes its daemon pod with it (the pod garbage collector, after its 40 s quarantine)', async () => {
      await kp.kubectlOk(['apply', '-f', 'examples/fluentd-daemonset.yaml']);
      await kp.kubectlOk(['rollout', 'status', 'ds/fluentd-elasticsearch', ...NS, '--timeout=60s']);
      const onNode2 = async (): Promise<Obj[]> => (await fluentdPods()).filter((p) => p.spec?.nodeName === 'node-2');
      assert.equal((await onNode2()).length, 1);
      assert.match(await kubeplaneCli(kp, ['nodes', 'remove', 'node-2']), /node-2/);
      await eventually('1 desired', async () => ((await dsRow()).match(/\s1\s+1\s+1\s+1\s+1\s/) ? true : undefined));
      await eventually('the pod on node-2 collected', async () => ((await onNode2()).length === 0 ? true : undefined), 120_000);
    });
  });
});
