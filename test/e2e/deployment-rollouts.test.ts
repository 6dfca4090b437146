/**
 * The seed's rollout story with the real kubectl against the built CLI: create → set image (two
 * ReplicaSets, new 3 / old 0) → rollout undo (the old ReplicaSet comes back as the newest revision)
 * → pause, two edits, resume (one rollout) → rollout history → a bad image that stalls at
 * maxUnavailable and exceeds its progress deadline, undone → rollout restart; plus ReplicaSet scaling
 * and a crash-looping pod. Failures are simulated by the nodes: an image containing `doesnotexist`
 * cannot be pulled; the annotation `kubeplane.io/simulate: CrashLoopBackOff` makes containers exit.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startKubeplane, eventually, removeDataDir, type Kubeplane } from './harness.js';

interface Obj {
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string>; deletionTimestamp?: string };
  spec?: { replicas?: number; template?: { metadata?: { annotations?: Record<string, string> }; spec?: { containers: { image: string; env?: { name: string; value: string }[] }[] } } };
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[]; [k: string]: unknown };
}
interface List {
  items: Obj[];
}

const MANIFEST = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations:
    kubernetes.io/change-cause: create nginx 1.9.1
spec:
  replicas: 3
  progressDeadlineSeconds: 10
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.9.1
`;

const REVISION = 'deployment.kubernetes.io/revision';
const image = (o: Obj): string => o.spec?.template?.spec?.containers[0]?.image ?? '';

describe('Deployment rollouts with real kubectl', () => {
  let kp: Kubeplane;

  before(async () => {
    kp = await startKubeplane({ nodes: 3 });
  });
  after(async () => {
    const dir = kp.dataDir;
    await kp.stop();
    removeDataDir(dir);
  });

  const rss = async (): Promise<Obj[]> => (await kp.kubectlJson<List>(['get', 'rs', '-l', 'app=web'])).items;
  const byRevision = async (): Promise<Map<string, Obj>> => new Map((await rss()).map((r) => [r.metadata.annotations?.[REVISION] ?? '', r]));
  const rolloutStatus = (): Promise<string> => kp.kubectlOk(['rollout', 'status', 'deploy/web', '--timeout=60s']);
  const livePods = async (): Promise<Obj[]> => (await kp.kubectlJson<List>(['get', 'pods', '-l', 'app=web'])).items.filter((p) => !p.metadata.deletionTimestamp);

  test('create, then set image: two ReplicaSets, the new one at 3 and the old one at 0', async () => {
    await kp.kubectlOk(['apply', '-f', '-'], MANIFEST);
    assert.match(await rolloutStatus(), /deployment "web" successfully rolled out/);
    await kp.kubectlOk(['set', 'image', 'deploy/web', 'nginx=nginx:1.27']);
    await kp.kubectlOk(['annotate', 'deploy/web', 'kubernetes.io/change-cause=set image nginx 1.27', '--overwrite']);
    await rolloutStatus();
    const revs = await byRevision();
    assert.deepEqual([...revs.keys()].sort(), ['1', '2']);
    assert.deepEqual([image(revs.get('1')!), revs.get('1')!.spec?.replicas], ['nginx:1.9.1', 0]);
    assert.deepEqual([image(revs.get('2')!), revs.get('2')!.spec?.replicas], ['nginx:1.27', 3]);
    const table = await kp.kubectlOk(['get', 'rs', '-l', 'app=web']);
    assert.match(table, /^NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE$/m);
    assert.match(table, new RegExp(`^${revs.get('2')!.metadata.name}\\s+3\\s+3\\s+3\\s+\\S+$`, 'm'));
    assert.match(table, new RegExp(`^${revs.get('1')!.metadata.name}\\s+0\\s+0\\s+0\\s+\\S+$`, 'm'));
  });

  test('rollout undo: the old ReplicaSet comes back as revision 3 with revision-history 1', async () => {
    const old = (await byRevision()).get('1')!;
    assert.match(await kp.kubectlOk(['rollout', 'undo', 'deploy/web']), /deployment\.apps\/web rolled back/);
    await rolloutStatus();
    const revs = await byRevision();
    assert.deepEqual([...revs.keys()].sort(), ['2', '3'], 'no third ReplicaSet');
    const back = revs.get('3')!;
    assert.equal(back.metadata.name, old.metadata.name);
    assert.equal(back.metadata.annotations?.['deployment.kubernetes.io/revision-history'], '1');
    assert.equal(back.metadata.annotations?.['kubernetes.io/change-cause'], 'create nginx 1.9.1');
    assert.equal(back.spec?.replicas, 3);
    assert.equal(revs.get('2')!.spec?.replicas, 0);
    const d = await kp.kubectlJson<Obj>(['get', 'deploy', 'web']);
    assert.equal(d.metadata.annotations?.[REVISION], '3');
    assert.equal(image(d), 'nginx:1.9.1');
  });

  test('pause, two edits, resume: a single new rollout; undo refused while paused', async () => {
    await kp.kubectlOk(['rollout', 'pause', 'deploy/web']);
    await kp.kubectlOk(['set', 'image', 'deploy/web', 'nginx=nginx:1.28']);
    await kp.kubectlOk(['set', 'env', 'deploy/web', 'TIER=frontend']);
    await kp.kubectlOk(['annotate', 'deploy/web', 'kubernetes.io/change-cause=nginx 1.28 with TIER', '--overwrite']);
    const undo = await kp.kubectl(['rollout', 'undo', 'deploy/web']);
    assert.notEqual(undo.code, 0);
    assert.match(undo.stderr, /you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again/);
    await eventually('the Paused condition', async () => {
      const d = await kp.kubectlJson<Obj>(['get', 'deploy', 'web']);
      const p = d.status?.conditions?.find((c) => c.type === 'Progressing');
      return p?.reason === 'DeploymentPaused' && p.status === 'Unknown' ? true : undefined;
    });
    assert.equal((await rss()).length, 2, 'no ReplicaSet while paused');

    await kp.kubectlOk(['rollout', 'resume', 'deploy/web']);
    await rolloutStatus();
    const revs = await byRevision();
    assert.deepEqual([...revs.keys()].sort(), ['2', '3', '4']);
    const rs4 = revs.get('4')!;
    assert.equal(image(rs4), 'nginx:1.28');
    assert.deepEqual(rs4.spec?.template?.spec?.containers[0]?.env, [{ name: 'TIER', value: 'frontend' }]);
    assert.equal(rs4.spec?.replicas, 3);
  });

  test('rollout history lists revisions with their change-cause; --revision=N shows the template', async () => {
    const history = await kp.kubectlOk(['rollout', 'history', 'deploy/web']);
    assert.match(history, /^deployment\.apps\/web\s*\nREVISION\s+CHANGE-CAUSE\n2\s+set image nginx 1\.27\n3\s+create nginx 1\.9\.1\n4\s+nginx 1\.28 with TIER\n/);
    const rev3 = await kp.kubectlOk(['rollout', 'history', 'deploy/web', '--revision=3']);
    assert.match(rev3, /deployment\.apps\/web with revision #3/);
    assert.match(rev3, /Pod Template:/);
    assert.match(rev3, /Image:\s+nginx:1\.9\.1/);
    const missing = await kp.kubectl(['rollout', 'history', 'deploy/web', '--revision=1']);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /unable to find the specified revision/);
  });

  test('a bad image stalls at maxUnavailable, exceeds the progress deadline, and rollout undo recovers', async () => {
    await kp.kubectlOk(['set', 'image', 'deploy/web', 'nginx=nginx:doesnotexist']);
    const status = await kp.kubectl(['rollout', 'status', 'deploy/web', '--timeout=60s']);
    assert.notEqual(status.code, 0);
    assert.match(status.stderr, /error: deployment "web" exceeded its progress deadline/);

    // 3 replicas, 25%/25%: maxSurge 1, maxUnavailable 0 — one new pod, the three old ones stay.
    const pods = await livePods();
    assert.equal(pods.length, 4);
    const waiting = pods.map((p) => (p.status?.containerStatuses as { state?: { waiting?: { reason?: string } } }[] | undefined)?.[0]?.state?.waiting?.reason).filter(Boolean);
    assert.equal(waiting.length, 1);
    assert.match(waiting[0] ?? '', /^(ErrImagePull|ImagePullBackOff)$/);
    assert.match(await kp.kubectlOk(['get', 'deploy', 'web']), /^web\s+3\/3\s+1\s+3\s+\S+$/m);
    const podTable = await kp.kubectlOk(['get', 'pods', '-l', 'app=web']);
    assert.match(podTable, /\s0\/1\s+(ErrImagePull|ImagePullBackOff)\s+0\s/);

    const d = await kp.kubectlJson<Obj>(['get', 'deploy', 'web']);
    const newRS = (await byRevision()).get('5')!;
    const progressing = d.status?.conditions?.find((c) => c.type === 'Progressing');
    assert.deepEqual(
      [progressing?.status, progressing?.reason, progressing?.message],
      ['False', 'ProgressDeadlineExceeded', `ReplicaSet "${newRS.metadata.name}" has timed out progressing.`],
    );
    const describe = await kp.kubectlOk(['describe', 'deploy', 'web']);
    assert.match(describe, /Replicas:\s+3 desired \| 1 updated \| 4 total \| 3 available \| 1 unavailable/);
    assert.match(describe, /Conditions:\n\s+Type\s+Status\s+Reason\n\s+----\s+------\s+------\n\s+Available\s+True\s+MinimumReplicasAvailable\n\s+Progressing\s+False\s+ProgressDeadlineExceeded\n/);
    assert.match(describe, new RegExp(`NewReplicaSet:\\s+${newRS.metadata.name} \\(1/1 replicas created\\)`));
    // Every old ReplicaSet is listed, the scaled-down ones as (0/0 replicas created).
    assert.match(describe, /OldReplicaSets:\s+(web-[a-z0-9]+ \(0\/0 replicas created\), )+web-[a-z0-9]+ \(3\/3 replicas created\)\n/);

    await kp.kubectlOk(['rollout', 'undo', 'deploy/web']);
    assert.match(await rolloutStatus(), /successfully rolled out/);
    await eventually('the bad pod to go', async () => ((await livePods()).length === 3 ? true : undefined));
    const after = await kp.kubectlJson<Obj>(['get', 'deploy', 'web']);
    assert.equal(image(after), 'nginx:1.28');
    const p2 = after.status?.conditions?.find((c) => c.type === 'Progressing');
    assert.deepEqual([p2?.status, p2?.reason], ['True', 'NewReplicaSetAvailable']);
  });

  test('rollout restart replaces every pod through a new ReplicaSet', async () => {
    const before = new Set((await livePods()).map((p) => p.metadata.name));
    assert.match(await kp.kubectlOk(['rollout', 'restart', 'deploy/web']), /deployment\.apps\/web restarted/);
    await rolloutStatus();
    await eventually('only new pods', async () => {
      const pods = await livePods();
      return pods.length === 3 && pods.every((p) => !before.has(p.metadata.name)) ? pods : undefined;
    });
    const newest = (await rss()).sort((a, b) => Number(b.metadata.annotations?.[REVISION]) - Number(a.metadata.annotations?.[REVISION]))[0]!;
    assert.match(newest.spec?.template?.metadata?.annotations?.['kubectl.kubernetes.io/restartedAt'] ?? '', /^\d{4}-\d\d-\d\dT/);
    const describe = await kp.kubectlOk(['describe', 'rs', newest.metadata.name]);
    assert.match(describe, /Controlled By:\s+Deployment\/web/);
    assert.match(describe, /Replicas:\s+3 current \/ 3 desired/);
    assert.match(describe, /Pods Status:\s+3 Running \/ 0 Waiting \/ 0 Succeeded \/ 0 Failed/);
  });

  test('kubectl scale rs and the scale subresource with status.selector', async () => {
    const rs = `apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: solo}
spec:
  replicas: 1
  selector: {matchLabels: {app: solo}}
  template:
    metadata: {labels: {app: solo}}
    spec: {containers: [{name: c, image: busybox}]}
`;
    await kp.kubectlOk(['apply', '-f', '-'], rs);
    assert.match(await kp.kubectlOk(['scale', 'rs/solo', '--replicas=4']), /replicaset\.apps\/solo scaled/);
    await kp.kubectlOk(['wait', '--for=jsonpath={.status.readyReplicas}=4', 'rs/solo', '--timeout=60s']);
    const scale = JSON.parse(await kp.kubectlOk(['get', '--raw', '/apis/apps/v1/namespaces/default/replicasets/solo/scale'])) as {
      kind: string;
      spec: { replicas: number };
      status: { replicas: number; selector: string };
    };
    assert.deepEqual([scale.kind, scale.spec.replicas, scale.status.replicas, scale.status.selector], ['Scale', 4, 4, 'app=solo']);
    await kp.kubectlOk(['scale', 'rs/solo', '--replicas=1', '--current-replicas=4']);
    await eventually('1 pod left', async () => {
      const pods = (await kp.kubectlJson<List>(['get', 'pods', '-l', 'app=solo'])).items.filter((p) => !p.metadata.deletionTimestamp);
      return pods.length === 1 ? true : undefined;
    });
  });

  test('a pod annotated kubeplane.io/simulate=CrashLoopBackOff crash-loops', async () => {
    await kp.kubectlOk(['run', 'crash', '--image=busybox', '--annotations=kubeplane.io/simulate=CrashLoopBackOff']);
    const line = await eventually('CrashLoopBackOff', async () => {
      const out = await kp.kubectlOk(['get', 'pod', 'crash']);
      return /CrashLoopBackOff/.test(out) ? out : undefined;
    });
    assert.match(line, /^crash\s+0\/1\s+CrashLoopBackOff\s+1 \(\S+ ago\)\s/m);
  });
});
