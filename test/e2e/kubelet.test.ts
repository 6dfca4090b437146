/**
 * The simulated kubelet as `kubectl` sees it: a pod mounting a missing ConfigMap stays
 * ContainerCreating with FailedMount events until the ConfigMap exists; env from a missing Secret key
 * shows CreateContainerConfigError; `kubectl describe pod` lists Scheduled, Pulling, Pulled, Created,
 * Started with upstream v1.33's messages; a deleted pod's containers are stopped (Killing); `kubectl
 * describe node` lists the kubelet's node events.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, kubectlTable, removeDataDir, startKubeplane, type Kubeplane } from './harness.js';

const podYaml = (name: string, spec: string): string => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
${spec}`;

/** The rows of the Events table of a `kubectl describe` output: [type, reason, age, from, message]. */
function eventRows(described: string): string[][] {
  const at = described.indexOf('\nEvents:');
  if (at < 0) return [];
  return described
    .slice(at)
    .split('\n')
    .slice(4)
    .filter((l) => /^\s+(Normal|Warning)\s/.test(l))
    .map((l) => {
      const m = /^\s+(\S+)\s+(\S+)\s+(.+?)\s{2,}(\S+)\s{2,}(.*)$/.exec(l);
      return m ? [m[1] ?? '', m[2] ?? '', m[3] ?? '', m[4] ?? '', m[5] ?? ''] : [l];
    });
}

describe('the simulated kubelet with real kubectl', { timeout: 240_000 }, () => {
  let kp: Kubeplane;
  before(async () => {
    kp = await startKubeplane({ nodes: 1 });
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
  });

  const statusOf = async (pod: string): Promise<string | undefined> => {
    const rows = kubectlTable(await kp.kubectlOk(['get', 'pod', pod]));
    return rows[1]?.[2];
  };

  test('a missing ConfigMap volume: ContainerCreating with FailedMount until `kubectl create configmap`, then Running', async () => {
    await kp.kubectlOk(
      ['apply', '-f', '-'],
      podYaml(
        'web',
        `  containers:
  - name: web
    image: nginx:1.27
    volumeMounts:
    - name: config
      mountPath: /etc/app
  volumes:
  - name: config
    configMap:
      name: app-config
`,
      ),
    );
    const failedMount = await eventually('a FailedMount event', async () => {
      const rows = eventRows(await kp.kubectlOk(['describe', 'pod', 'web']));
      return rows.find((r) => r[1] === 'FailedMount');
    });
    assert.deepEqual(
      [failedMount[0], failedMount[3], failedMount[4]],
      ['Warning', 'kubelet', 'MountVolume.SetUp failed for volume "config" : configmap "app-config" not found'],
    );
    assert.equal(await statusOf('web'), 'ContainerCreating');
    // Retried with back-off: the one Event counts the attempts (`(x3 over 3s)`).
    await eventually('repeated FailedMount', async () => {
      const row = eventRows(await kp.kubectlOk(['describe', 'pod', 'web'])).find((r) => r[1] === 'FailedMount');
      return row && /\(x\d+ over /.test(row[2] ?? '') ? row : undefined;
    });
    assert.equal(await statusOf('web'), 'ContainerCreating');
    await kp.kubectlOk(['create', 'configmap', 'app-config', '--from-literal=mode=prod']);
    await kp.kubectlOk(['wait', '--for=condition=Ready', 'pod/web', '--timeout=120s']);
    assert.equal(await statusOf('web'), 'Running');
  });

  test('env from a missing Secret key: CreateContainerConfigError in `kubectl get pod`, Failed `Error: …` in describe', async () => {
    await kp.kubectlOk(['create', 'secret', 'generic', 'db', '--from-literal=user=app']);
    await kp.kubectlOk(
      ['apply', '-f', '-'],
      podYaml(
        'api',
        `  containers:
  - name: api
    image: nginx:1.27
    env:
    - name: PASSWORD
      valueFrom:
        secretKeyRef:
          name: db
          key: password
`,
      ),
    );
    assert.equal(await eventually('CreateContainerConfigError', async () => ((await statusOf('api')) === 'CreateContainerConfigError' ? 'yes' : undefined)), 'yes');
    const rows = eventRows(await kp.kubectlOk(['describe', 'pod', 'api']));
    const failed = rows.find((r) => r[1] === 'Failed');
    assert.deepEqual([failed?.[0], failed?.[3], failed?.[4]], ['Warning', 'kubelet', "Error: couldn't find key password in Secret default/db"]);
    const waiting = await kp.kubectlOk(['get', 'pod', 'api', '-o', 'jsonpath={.status.containerStatuses[0].state.waiting.message}']);
    assert.equal(waiting, "couldn't find key password in Secret default/db");
  });

  test('`kubectl describe pod` of a running nginx pod lists Scheduled, Pulling, Pulled, Created, Started; `kubectl delete pod` gives Killing', async () => {
    await kp.kubectlOk(['run', 'nginx', '--image=nginx']);
    await kp.kubectlOk(['wait', '--for=condition=Ready', 'pod/nginx', '--timeout=60s']);
    const rows = await eventually('the kubelet events', async () => {
      const r = eventRows(await kp.kubectlOk(['describe', 'pod', 'nginx']));
      return r.some((x) => x[1] === 'Started') ? r : undefined;
    });
    assert.deepEqual(
      rows.map((r) => r[1]),
      ['Scheduled', 'Pulling', 'Pulled', 'Created', 'Started'],
    );
    assert.deepEqual(
      rows.map((r) => r[3]),
      ['default-scheduler', 'kubelet', 'kubelet', 'kubelet', 'kubelet'],
    );
    assert.equal(rows[0]?.[4], 'Successfully assigned default/nginx to node-1');
    assert.equal(rows[1]?.[4], 'Pulling image "nginx"');
    assert.match(rows[2]?.[4] ?? '', /^Successfully pulled image "nginx" in [\d.]+m?s \([\d.]+m?s including waiting\)\. Image size: \d+ bytes\.$/);
    assert.equal(rows[3]?.[4], 'Created container: nginx');
    assert.equal(rows[4]?.[4], 'Started container nginx');

    await kp.kubectlOk(['delete', 'pod', 'nginx']);
    const killing = await eventually('a Killing event', async () => {
      const out = await kp.kubectlOk(['get', 'events', '--field-selector', 'involvedObject.name=nginx', '-o', 'jsonpath={range .items[?(@.reason=="Killing")]}{.message}{"\\n"}{end}']);
      return out.trim() || undefined;
    });
    assert.equal(killing, 'Stopping container nginx');
  });

  test('`kubectl describe node` lists the kubelet\'s node events', async () => {
    const rows = await eventually('node events', async () => {
      const r = eventRows(await kp.kubectlOk(['describe', 'node', 'node-1']));
      return r.some((x) => x[1] === 'NodeReady') ? r : undefined;
    });
    assert.deepEqual(
      rows.filter((r) => r[3] === 'kubelet').map((r) => [r[1], r[4]]),
      [
        ['Starting', 'Starting kubelet.'],
        ['NodeHasSufficientMemory', 'Node node-1 status is now: NodeHasSufficientMemory'],
        ['NodeHasNoDiskPressure', 'Node node-1 status is now: NodeHasNoDiskPressure'],
        ['NodeHasSufficientPID', 'Node node-1 status is now: NodeHasSufficientPID'],
        ['NodeAllocatableEnforced', 'Updated Node Allocatable limit across pods'],
        ['NodeReady', 'Node node-1 status is now: NodeReady'],
      ],
    );
  });
});
