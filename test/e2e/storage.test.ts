/**
 * Storage kinds with the real kubectl: a StorageClass, a PersistentVolume and a claim applied from
 * YAML print upstream's columns (the PV controller makes the volume Available; the claim, of a
 * WaitForFirstConsumer class, stays Pending with upstream's event until a pod uses it), `kubectl
 * describe` works on them, the default class `standard` is there from the start, a claim without a storage request is refused with upstream's message,
 * `kubectl get cs` answers with its deprecation Warning, a Binding created with kubectl binds a pod no
 * scheduler picks, and a CSIDriver gets upstream's defaults.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, startKubeplane, removeDataDir, type Kubeplane } from './harness.js';

const STORAGE_YAML = `
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: manual
  annotations:
    storageclass.kubernetes.io/is-default-class: "true"
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: pv-data
spec:
  storageClassName: manual
  capacity:
    storage: 1Gi
  accessModes: [ReadWriteOnce, ReadOnlyMany]
  hostPath:
    path: /mnt/data
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 500Mi
`;

/**
 * A `kubectl get` table as header and rows of cells, cut at the header's column starts (kubectl's
 * tabwriter aligns every cell there), so that empty cells stay in place.
 */
function table(out: string): { header: string[]; rows: string[][] } {
  const [head = '', ...lines] = out.trimEnd().split('\n');
  const starts = [...head.matchAll(/\S+(?: \S+)*/g)].map((m) => m.index);
  const cut = (line: string): string[] => starts.map((s, i) => line.slice(s, starts[i + 1]).trim());
  return { header: cut(head), rows: lines.map(cut) };
}

describe('storage kinds with real kubectl', { timeout: 120_000 }, () => {
  let kp: Kubeplane;
  before(async () => {
    kp = await startKubeplane({ nodes: 1 });
  });
  after(async () => {
    await kp.stop();
    removeDataDir(kp.dataDir);
  });

  test('apply a StorageClass, a PV and a claim; get and describe print upstream columns; the volume turns Available, the WaitForFirstConsumer claim stays Pending', async () => {
    assert.deepEqual((await kp.kubectlOk(['apply', '-f', '-'], STORAGE_YAML)).trim().split('\n'), [
      'storageclass.storage.k8s.io/manual created',
      'persistentvolume/pv-data created',
      'persistentvolumeclaim/data created',
    ]);
    const sc = table(await kp.kubectlOk(['get', 'sc']));
    assert.deepEqual(sc.header, ['NAME', 'PROVISIONER', 'RECLAIMPOLICY', 'VOLUMEBINDINGMODE', 'ALLOWVOLUMEEXPANSION', 'AGE']);
    // kind's default class `standard` comes with the cluster.
    assert.deepEqual(sc.rows.map((r) => r.slice(0, 5)), [
      ['manual (default)', 'kubernetes.io/no-provisioner', 'Delete', 'WaitForFirstConsumer', 'false'],
      ['standard (default)', 'kubeplane.io/simulated', 'Delete', 'WaitForFirstConsumer', 'false'],
    ]);

    const pv = await eventually('the volume to be Available', async () => {
      const t = table(await kp.kubectlOk(['get', 'pv', '-o', 'wide']));
      return t.rows[0]?.[4] === 'Available' ? t : undefined;
    });
    assert.deepEqual(pv.header, ['NAME', 'CAPACITY', 'ACCESS MODES', 'RECLAIM POLICY', 'STATUS', 'CLAIM', 'STORAGECLASS', 'VOLUMEATTRIBUTESCLASS', 'REASON', 'AGE', 'VOLUMEMODE']);
    assert.deepEqual(pv.rows.map((r) => r.filter((_, i) => i !== 9)), [['pv-data', '1Gi', 'RWO,ROX', 'Retain', 'Available', '', 'manual', '<unset>', '', 'Filesystem']]);

    // The claim names no class: the DefaultStorageClass admission gives it the newest default, `manual`.
    const pvc = table(await kp.kubectlOk(['get', 'pvc']));
    assert.deepEqual(pvc.header, ['NAME', 'STATUS', 'VOLUME', 'CAPACITY', 'ACCESS MODES', 'STORAGECLASS', 'VOLUMEATTRIBUTESCLASS', 'AGE']);
    assert.deepEqual(pvc.rows.map((r) => r.slice(0, 7)), [['data', 'Pending', '', '', '', 'manual', '<unset>']]);
    assert.match(table(await kp.kubectlOk(['get', 'pvc', '-o', 'wide'])).header.join(' '), / AGE VOLUMEMODE$/);

    const describePv = await kp.kubectlOk(['describe', 'pv', 'pv-data']);
    for (const line of [/^Status:\s+Available$/m, /^Reclaim Policy:\s+Retain$/m, /^Access Modes:\s+RWO,ROX$/m, /^\s+Type:\s+HostPath \(bare host directory volume\)$/m, /^\s+Path:\s+\/mnt\/data$/m]) {
      assert.match(describePv, line);
    }
    const describePvc = await eventually('the WaitForFirstConsumer event', async () => {
      const out = await kp.kubectlOk(['describe', 'pvc', 'data']);
      return /Normal\s+WaitForFirstConsumer\s+.*persistentvolume-controller\s+waiting for first consumer to be created before binding/.test(out) ? out : undefined;
    });
    for (const line of [/^StorageClass:\s+manual$/m, /^Status:\s+Pending$/m, /^VolumeMode:\s+Filesystem$/m, /^Finalizers:\s+\[kubernetes\.io\/pvc-protection\]$/m]) assert.match(describePvc, line);
    assert.match(await kp.kubectlOk(['describe', 'sc', 'manual']), /^IsDefaultClass:\s+Yes$/m);

    assert.equal((await kp.kubectlOk(['delete', 'pvc', 'data'])).trim(), 'persistentvolumeclaim "data" deleted');
  });

  test('a claim without a storage request is refused with upstream message', async () => {
    const bad = 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: bad\nspec:\n  accessModes: [ReadWriteOnce]\n';
    const refused = await kp.kubectl(['apply', '-f', '-'], bad);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /The PersistentVolumeClaim "bad" is invalid: spec\.resources\[storage\]: Required value/);
  });

  test('kubectl get cs: three healthy components and the deprecation Warning on stderr', async () => {
    const res = await kp.kubectl(['get', 'cs']);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stderr, /^Warning: v1 ComponentStatus is deprecated in v1\.19\+$/m);
    const cs = table(res.stdout);
    assert.deepEqual(cs.header, ['NAME', 'STATUS', 'MESSAGE', 'ERROR']);
    assert.deepEqual(cs.rows, [
      ['scheduler', 'Healthy', 'ok', ''],
      ['controller-manager', 'Healthy', 'ok', ''],
      ['etcd-0', 'Healthy', 'ok', ''],
    ]);
  });

  test('kubectl create of a Binding binds a pod that no scheduler picks', async () => {
    await kp.kubectlOk(['run', 'held', '--image=nginx:1.27', '--overrides={"spec":{"schedulerName":"manual-scheduler"}}']);
    assert.equal((await kp.kubectlOk(['get', 'pod', 'held', '-o', 'jsonpath={.spec.nodeName}'])).trim(), '');
    const node = (await kp.kubectlOk(['get', 'nodes', '-o', 'jsonpath={.items[0].metadata.name}'])).trim();
    const binding = `apiVersion: v1\nkind: Binding\nmetadata:\n  name: held\ntarget:\n  apiVersion: v1\n  kind: Node\n  name: ${node}\n`;
    // kubectl's field-validation probe looks Binding (which has no PATCH) up among the CRDs, and
    // apiextensions.k8s.io is not served yet: --validate=false skips that probe, not the request.
    await kp.kubectlOk(['create', '--validate=false', '-f', '-'], binding);
    assert.equal((await kp.kubectlOk(['get', 'pod', 'held', '-o', 'jsonpath={.spec.nodeName} {.status.conditions[?(@.type=="PodScheduled")].status}'])).trim(), `${node} True`);
    const again = await kp.kubectl(['create', '--validate=false', '-f', '-'], binding);
    assert.notEqual(again.code, 0);
    assert.match(again.stderr, /Operation cannot be fulfilled on pods\/binding "held": pod held is already assigned to node "/);
  });

  test('a CSIDriver gets upstream defaults', async () => {
    await kp.kubectlOk(['create', '-f', '-'], 'apiVersion: storage.k8s.io/v1\nkind: CSIDriver\nmetadata:\n  name: hostpath.csi.k8s.io\nspec: {}\n');
    const yaml = await kp.kubectlOk(['get', 'csidriver', 'hostpath.csi.k8s.io', '-o', 'yaml']);
    const spec = yaml.slice(yaml.indexOf('\nspec:\n'));
    assert.equal(
      spec.trimEnd(),
      [
        '',
        'spec:',
        '  attachRequired: true',
        '  fsGroupPolicy: ReadWriteOnceWithFSType',
        '  podInfoOnMount: false',
        '  requiresRepublish: false',
        '  seLinuxMount: false',
        '  storageCapacity: false',
        '  volumeLifecycleModes:',
        '  - Persistent',
      ].join('\n'),
    );
    const drivers = table(await kp.kubectlOk(['get', 'csidrivers']));
    assert.deepEqual(drivers.header, ['NAME', 'ATTACHREQUIRED', 'PODINFOONMOUNT', 'STORAGECAPACITY', 'TOKENREQUESTS', 'REQUIRESREPUBLISH', 'MODES', 'AGE']);
    assert.deepEqual(drivers.rows.map((r) => r.slice(0, 7)), [['hostpath.csi.k8s.io', 'true', 'false', 'false', '<unset>', 'false', 'Persistent']]);
  });
});
