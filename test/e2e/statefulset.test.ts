/**
 * The StatefulSet seed replayed with the real kubectl against the built CLI: a headless Service and a
 * 3-replica StatefulSet with a volumeClaimTemplate (examples/web-statefulset.yaml); pods come up in
 * order with stable names, hostnames and claims bound to provisioned volumes; orphaning and
 * re-adoption; scaling up and down in order; rolling image updates in reverse ordinal order, with a
 * partition, and rollback; exposing one pod with `kubectl expose` as the seed's zookeeper example does;
 * claims outliving the set and volumes reclaimed with them.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startKubeplane, eventually, removeDataDir, type Kubeplane } from './harness.js';

interface Meta {
  name: string;
  uid: string;
  resourceVersion: string;
  creationTimestamp: string;
  labels?: Record<string, string>;
  ownerReferences?: { kind: string; name: string; uid: string }[];
  deletionTimestamp?: string;
}
interface Pod {
  metadata: Meta;
  spec: { hostname?: string; subdomain?: string; containers: { image: string }[]; volumes?: { name: string; persistentVolumeClaim?: { claimName: string } }[] };
  status: { podIP?: string; conditions?: { type: string; status: string; lastTransitionTime: string }[] };
}
interface Claim {
  metadata: Meta;
  spec: { volumeName?: string; storageClassName?: string };
  status: { phase?: string };
}
interface Volume {
  metadata: Meta;
  spec: { claimRef?: { name: string; namespace: string }; persistentVolumeReclaimPolicy?: string; capacity?: { storage: string } };
  status: { phase?: string };
}
interface Event {
  metadata: Meta;
  reason: string;
  message: string;
  involvedObject: { kind: string; name: string };
  source?: { component?: string };
}
interface List<T> {
  items: T[];
}

const SET = ['-l', 'app=nginx'];
const byName = <T extends { metadata: Meta }>(a: T, b: T): number => (a.metadata.name < b.metadata.name ? -1 : 1);

describe('StatefulSets with real kubectl: the web seed', () => {
  let kp: Kubeplane;

  before(async () => {
    kp = await startKubeplane({ nodes: 3, args: ['--pod-start-delay', '100'] });
  });
  after(async () => {
    const dir = kp.dataDir;
    await kp.stop();
    removeDataDir(dir);
  });

  const pods = async (): Promise<Pod[]> => (await kp.kubectlJson<List<Pod>>(['get', 'pods', ...SET])).items.filter((p) => !p.metadata.deletionTimestamp).sort(byName);
  const claims = async (): Promise<Claim[]> => (await kp.kubectlJson<List<Claim>>(['get', 'pvc', ...SET])).items.sort(byName);
  const images = async (): Promise<string[]> => (await pods()).map((p) => `${p.metadata.name}=${p.spec.containers[0]?.image ?? ''}`);
  /** The messages of the set's events with `reason`, oldest (last written) first: each phase reads them right after it ran. */
  const setEvents = async (reason: string): Promise<string[]> =>
    (await kp.kubectlJson<List<Event>>(['get', 'events', '--field-selector', `reason=${reason},involvedObject.kind=StatefulSet,involvedObject.name=web`])).items
      .sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion))
      .map((e) => e.message);
  const rolledOut = (): Promise<string> => kp.kubectlOk(['rollout', 'status', 'sts/web', '--timeout=60s']);

  test('kubectl apply: web-0, web-1, web-2 in order, each with its claim data-web-N bound to a provisioned volume', async () => {
    assert.match(await kp.kubectlOk(['apply', '-f', 'examples/web-statefulset.yaml']), /service\/nginx created\nstatefulset\.apps\/web created/);
    assert.match(await rolledOut(), /partitioned roll out complete: 3 new pods have been updated\.\.\./);
    const ps = await pods();
    assert.deepEqual(ps.map((p) => p.metadata.name), ['web-0', 'web-1', 'web-2']);
    for (const [i, p] of ps.entries()) {
      assert.equal(p.spec.hostname, `web-${i}`);
      assert.equal(p.spec.subdomain, 'nginx');
      assert.equal(p.metadata.labels?.['statefulset.kubernetes.io/pod-name'], `web-${i}`);
      assert.equal(p.metadata.labels?.['apps.kubernetes.io/pod-index'], String(i));
      assert.match(p.metadata.labels?.['controller-revision-hash'] ?? '', /^web-[a-z0-9]+$/);
      assert.deepEqual(p.spec.volumes?.find((v) => v.name === 'data')?.persistentVolumeClaim, { claimName: `data-web-${i}` });
      if (i > 0) {
        // OrderedReady: web-N is created only once web-(N-1) is Ready (timestamps have one-second resolution).
        const readySince = ps[i - 1]?.status.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime ?? '';
        assert.ok(p.metadata.creationTimestamp >= readySince, `web-${i} created ${p.metadata.creationTimestamp} before web-${i - 1} was Ready (${readySince})`);
      }
    }
    assert.deepEqual(await setEvents('SuccessfulCreate'), [
      'create Claim data-web-0 Pod web-0 in StatefulSet web success',
      'create Pod web-0 in StatefulSet web successful',
      'create Claim data-web-1 Pod web-1 in StatefulSet web success',
      'create Pod web-1 in StatefulSet web successful',
      'create Claim data-web-2 Pod web-2 in StatefulSet web success',
      'create Pod web-2 in StatefulSet web successful',
    ]);
    assert.match(await kp.kubectlOk(['get', 'sts']), /^NAME\s+READY\s+AGE\nweb\s+3\/3\s+\d+s\n$/);
    assert.match(await kp.kubectlOk(['get', 'sts', '-o', 'wide']), /^NAME\s+READY\s+AGE\s+CONTAINERS\s+IMAGES\nweb\s+3\/3\s+\d+s\s+nginx\s+registry\.k8s\.io\/nginx-slim:0\.24\n$/);

    const cs = await eventually('3 Bound claims', async () => {
      const l = await claims();
      return l.length === 3 && l.every((c) => c.status.phase === 'Bound') ? l : undefined;
    });
    const pvs = (await kp.kubectlJson<List<Volume>>(['get', 'pv'])).items;
    for (const [i, c] of cs.entries()) {
      assert.equal(c.metadata.name, `data-web-${i}`);
      assert.equal(c.spec.storageClassName, 'standard');
      assert.equal(c.spec.volumeName, `pvc-${c.metadata.uid}`);
      const pv = pvs.find((v) => v.metadata.name === c.spec.volumeName);
      assert.equal(pv?.status.phase, 'Bound');
      assert.deepEqual(pv?.spec.claimRef && { name: pv.spec.claimRef.name, namespace: pv.spec.claimRef.namespace }, { name: `data-web-${i}`, namespace: 'default' });
      assert.equal(pv?.spec.persistentVolumeReclaimPolicy, 'Delete');
    }
    assert.match(await kp.kubectlOk(['get', 'pvc', 'data-web-0']), /^NAME\s+STATUS\s+VOLUME\s+CAPACITY\s+ACCESS MODES\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+AGE\ndata-web-0\s+Bound\s+pvc-[0-9a-f-]+\s+1Gi\s+RWO\s+standard\s+<unset>\s+\d+s\n$/);
    assert.match(await kp.kubectlOk(['get', 'pv', cs[0]?.spec.volumeName ?? '']), /\s+1Gi\s+RWO\s+Delete\s+Bound\s+default\/data-web-0\s+standard\s+<unset>\s+\d+s\n$/);
    assert.match(await kp.kubectlOk(['get', 'storageclass']), /^NAME\s+PROVISIONER\s+RECLAIMPOLICY\s+VOLUMEBINDINGMODE\s+ALLOWVOLUMEEXPANSION\s+AGE\nstandard \(default\)\s+kubeplane\.io\/simulated\s+Delete\s+WaitForFirstConsumer\s+false\s+\d+s\n$/);
  });

  test('the headless Service names each pod: Endpoints and EndpointSlices carry the hostnames', async () => {
    const ps = await pods();
    const ep = await eventually('3 addresses', async () => {
      const e = await kp.kubectlJson<{ subsets?: { addresses?: { hostname?: string; ip: string; targetRef?: { name: string } }[] }[] }>(['get', 'endpoints', 'nginx']);
      const a = e.subsets?.[0]?.addresses ?? [];
      return a.length === 3 ? a : undefined;
    });
    assert.deepEqual(
      ep.map((a) => `${a.hostname ?? ''} ${a.ip} ${a.targetRef?.name ?? ''}`).sort(),
      ps.map((p) => `${p.metadata.name} ${p.status.podIP ?? ''} ${p.metadata.name}`),
    );
    const slices = await kp.kubectlJson<List<{ endpoints: { hostname?: string }[] }>>(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=nginx']);
    assert.deepEqual(slices.items.flatMap((s) => s.endpoints.map((e) => e.hostname)).sort(), ['web-0', 'web-1', 'web-2']);
  });

  test('kubectl delete --cascade=orphan keeps the pods; applying the set again adopts the same pods', async () => {
    const before = await pods();
    assert.match(await kp.kubectlOk(['delete', 'sts', 'web', '--cascade=orphan']), /statefulset\.apps "web" deleted/);
    const orphans = await eventually('orphaned pods', async () => {
      const l = await pods();
      return l.every((p) => !p.metadata.ownerReferences?.length) ? l : undefined;
    });
    assert.deepEqual(orphans.map((p) => p.metadata.uid), before.map((p) => p.metadata.uid));
    await kp.kubectlOk(['apply', '-f', 'examples/web-statefulset.yaml']);
    const sts = await kp.kubectlJson<{ metadata: Meta }>(['get', 'sts', 'web']);
    const adopted = await eventually('adopted pods', async () => {
      const l = await pods();
      return l.every((p) => p.metadata.ownerReferences?.[0]?.uid === sts.metadata.uid) ? l : undefined;
    });
    assert.deepEqual(adopted.map((p) => p.metadata.uid), before.map((p) => p.metadata.uid), 'the same pods, not new ones');
    assert.match(await rolledOut(), /partitioned roll out complete: 3 new pods have been updated/);
  });

  test('kubectl scale --replicas=5: web-3 then web-4, each with its claim', async () => {
    await kp.kubectlOk(['scale', 'sts', 'web', '--replicas=5']);
    assert.match(await rolledOut(), /partitioned roll out complete: 5 new pods have been updated/);
    assert.deepEqual((await pods()).map((p) => p.metadata.name), ['web-0', 'web-1', 'web-2', 'web-3', 'web-4']);
    await eventually('5 Bound claims', async () => ((await claims()).filter((c) => c.status.phase === 'Bound').length === 5 ? true : undefined));
    assert.deepEqual((await setEvents('SuccessfulCreate')).filter((m) => /web-[34] /.test(m)), [
      'create Claim data-web-3 Pod web-3 in StatefulSet web success',
      'create Pod web-3 in StatefulSet web successful',
      'create Claim data-web-4 Pod web-4 in StatefulSet web success',
      'create Pod web-4 in StatefulSet web successful',
    ]);
  });

  test('kubectl set image rolls the pods in reverse ordinal order, web-4 first', async () => {
    await kp.kubectlOk(['set', 'image', 'sts/web', 'nginx=registry.k8s.io/nginx-slim:0.25']);
    assert.match(await rolledOut(), /partitioned roll out complete: 5 new pods have been updated/);
    assert.deepEqual(await images(), [0, 1, 2, 3, 4].map((i) => `web-${i}=registry.k8s.io/nginx-slim:0.25`));
    assert.deepEqual(await setEvents('SuccessfulDelete'), [4, 3, 2, 1, 0].map((i) => `delete Pod web-${i} in StatefulSet web successful`));
    const status = (await kp.kubectlJson<{ status: { currentRevision: string; updateRevision: string; updatedReplicas: number } }>(['get', 'sts', 'web'])).status;
    assert.equal(status.currentRevision, status.updateRevision);
    assert.equal(status.updatedReplicas, 5);
    assert.match(await kp.kubectlOk(['rollout', 'history', 'sts/web']), /^statefulset\.apps\/web \nREVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>\n\n$/);
  });

  test('partition 2: only web-2, web-3 and web-4 take a new image; rollout undo goes back', async () => {
    await kp.kubectlOk(['patch', 'sts', 'web', '-p', '{"spec":{"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":2}}}}']);
    await kp.kubectlOk(['set', 'image', 'sts/web', 'nginx=registry.k8s.io/nginx-slim:0.26']);
    assert.match(await rolledOut(), /partitioned roll out complete: 3 new pods have been updated/);
    assert.deepEqual(await images(), [
      'web-0=registry.k8s.io/nginx-slim:0.25',
      'web-1=registry.k8s.io/nginx-slim:0.25',
      'web-2=registry.k8s.io/nginx-slim:0.26',
      'web-3=registry.k8s.io/nginx-slim:0.26',
      'web-4=registry.k8s.io/nginx-slim:0.26',
    ]);
    const status = (await kp.kubectlJson<{ status: { currentRevision: string; updateRevision: string; currentReplicas: number; updatedReplicas: number } }>(['get', 'sts', 'web'])).status;
    assert.notEqual(status.currentRevision, status.updateRevision);
    assert.deepEqual([status.currentReplicas, status.updatedReplicas], [2, 3]);

    assert.match(await kp.kubectlOk(['rollout', 'undo', 'sts/web']), /statefulset\.apps\/web rolled back/);
    await kp.kubectlOk(['patch', 'sts', 'web', '-p', '{"spec":{"updateStrategy":{"rollingUpdate":{"partition":0}}}}']);
    assert.match(await rolledOut(), /partitioned roll out complete: 5 new pods have been updated/);
    assert.deepEqual(await images(), [0, 1, 2, 3, 4].map((i) => `web-${i}=registry.k8s.io/nginx-slim:0.25`));
    // The undone revision 2 is reused under the next number: 1, 3, 4.
    assert.match(await kp.kubectlOk(['rollout', 'history', 'sts/web']), /^statefulset\.apps\/web \nREVISION\s+CHANGE-CAUSE\n1\s+<none>\n3\s+<none>\n4\s+<none>\n\n$/);
  });

  test('kubectl scale --replicas=2: web-4, web-3, web-2 go in that order; their claims stay', async () => {
    const uids = (await claims()).map((c) => c.metadata.uid);
    await kp.kubectlOk(['scale', 'sts', 'web', '--replicas=2']);
    // Not `rollout status`: it reports done as soon as readyReplicas ≥ replicas, which 5 ready pods are.
    await eventually('status.replicas 2', async () => ((await kp.kubectlJson<{ status: { replicas: number } }>(['get', 'sts', 'web'])).status.replicas === 2 ? true : undefined));
    assert.match(await kp.kubectlOk(['get', 'sts', 'web']), /web\s+2\/2\s/);
    assert.deepEqual((await pods()).map((p) => p.metadata.name), ['web-0', 'web-1']);
    assert.deepEqual((await setEvents('SuccessfulDelete')).slice(-3), [4, 3, 2].map((i) => `delete Pod web-${i} in StatefulSet web successful`));
    const cs = await claims();
    assert.deepEqual(cs.map((c) => c.metadata.uid), uids, 'scale-down keeps every claim (whenScaled: Retain)');
    assert.ok(cs.every((c) => c.status.phase === 'Bound'));
  });

  test('kubectl expose pod web-0 --type=NodePort (the seed\'s zookeeper example)', async () => {
    await kp.kubectlOk(['label', 'pod', 'web-0', 'inst=0']);
    assert.match(await kp.kubectlOk(['expose', 'pod', 'web-0', '--port=80', '--target-port=80', '--name=web-0', '--selector=inst=0', '--type=NodePort']), /service\/web-0 exposed/);
    const svc = await kp.kubectlJson<{ spec: { type: string; ports: { nodePort?: number }[] } }>(['get', 'svc', 'web-0']);
    assert.equal(svc.spec.type, 'NodePort');
    const nodePort = svc.spec.ports[0]?.nodePort ?? 0;
    assert.ok(nodePort >= 30000 && nodePort <= 32767, `nodePort ${nodePort}`);
    assert.match(await kp.kubectlOk(['get', 'svc', 'web-0']), new RegExp(`web-0\\s+NodePort\\s+[0-9.]+\\s+<none>\\s+80:${nodePort}/TCP\\s+`));
    const ip = (await pods())[0]?.status.podIP ?? '';
    await eventually('web-0 behind the service', async () => ((await kp.kubectlOk(['get', 'endpoints', 'web-0'])).includes(`${ip}:80`) ? true : undefined));
  });

  test('deleting the set deletes its pods, not its claims; deleting the claims reclaims their volumes', async () => {
    await kp.kubectlOk(['delete', 'sts', 'web']);
    await eventually('no pods', async () => ((await kp.kubectlJson<List<Pod>>(['get', 'pods', ...SET])).items.length === 0 ? true : undefined));
    assert.equal((await claims()).length, 5);
    await kp.kubectlOk(['delete', 'pvc', ...SET]);
    await eventually('no volumes', async () => ((await kp.kubectlJson<List<Volume>>(['get', 'pv'])).items.length === 0 ? true : undefined));
    assert.equal((await claims()).length, 0);
  });
});
