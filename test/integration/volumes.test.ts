/**
 * Volumes across the whole control plane under a FakeClock (issue 12, storage): the default
 * StorageClass, the simulated provisioner and the PersistentVolume controller binding claims, the
 * reclaim policies, and the PVC-protection finalizer holding a claim a pod uses.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from '../../src/api/index.js';
import { isNotFound } from '../../src/machinery/errors/index.js';
import { newPlane, stepFor, stepUntil } from './cluster-helpers.js';

const claim = (name: string, storageClassName: string, size = '1Gi'): PersistentVolumeClaim => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, namespace: 'default' },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } }, storageClassName },
});

const staticVolume = (name: string, size: string, policy: string): PersistentVolume => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name },
  spec: { capacity: { storage: size }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/data/${name}` }, persistentVolumeReclaimPolicy: policy, storageClassName: '' },
});

test('volumes: default class, provisioning and binding, reclaiming, and PVC protection', async () => {
  const { cp, clock } = await newPlane();
  const client = cp.client;
  const pvcs = client.core.persistentVolumeClaims('default');
  const pvs = client.core.persistentVolumes();
  const gone = async (get: () => Promise<unknown>): Promise<boolean> =>
    get().then(
      () => false,
      (err: unknown) => (isNotFound(err) ? true : Promise.reject(err as Error)),
    );
  try {
    // kind's default class exists on a new cluster.
    const standard = await client.storage.storageClasses().get('standard');
    assert.equal(standard.provisioner, 'kubeplane.io/simulated');
    assert.equal(standard.volumeBindingMode, 'WaitForFirstConsumer');
    assert.equal(standard.metadata?.annotations?.['storageclass.kubernetes.io/is-default-class'], 'true');

    // An Immediate class: provisioned at once and Bound.
    const fast: StorageClass = { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fast' }, provisioner: 'kubeplane.io/simulated', reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' };
    await client.storage.storageClasses().create(fast);
    const created = await pvcs.create(claim('data', 'fast', '2Gi'));
    assert.deepEqual(created.metadata?.finalizers, ['kubernetes.io/pvc-protection']);
    const pvName = `pvc-${created.metadata?.uid ?? ''}`;
    await stepUntil(clock, 'the claim to be Bound', async () => (await pvcs.get('data')).status?.phase === 'Bound');
    const bound = await pvcs.get('data');
    assert.equal(bound.spec?.volumeName, pvName);
    assert.deepEqual(bound.status?.capacity, { storage: '2Gi' });
    const provisioned = await pvs.get(pvName);
    assert.equal(provisioned.status?.phase, 'Bound');
    assert.equal(provisioned.metadata?.annotations?.['pv.kubernetes.io/provisioned-by'], 'kubeplane.io/simulated');
    assert.deepEqual(provisioned.metadata?.finalizers, ['kubernetes.io/pv-protection']);
    assert.equal(provisioned.spec?.persistentVolumeReclaimPolicy, 'Delete');

    // A static volume binds to a matching claim of no class; Retain leaves it Released.
    await pvs.create(staticVolume('static', '5Gi', 'Retain'));
    await pvcs.create(claim('static-claim', '', '3Gi'));
    await stepUntil(clock, 'the static claim to be Bound', async () => (await pvcs.get('static-claim')).spec?.volumeName === 'static' && (await pvcs.get('static-claim')).status?.phase === 'Bound');

    // A pod using the provisioned claim keeps it Terminating until the pod is gone.
    const pod: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'user', namespace: 'default' },
      spec: { containers: [{ name: 'c', image: 'nginx' }], volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'data' } }] },
    };
    await client.core.pods('default').create(pod);
    await stepUntil(clock, 'the pod to be scheduled', async () => !!(await client.core.pods('default').get('user')).spec?.nodeName);
    await pvcs.delete('data');
    await stepFor(clock, 5_000);
    const terminating = await pvcs.get('data');
    assert.ok(terminating.metadata?.deletionTimestamp, 'the claim is Terminating');
    assert.deepEqual(terminating.metadata?.finalizers, ['kubernetes.io/pvc-protection']);
    await client.core.pods('default').delete('user');
    await stepUntil(clock, 'the claim to go once the pod is gone', () => gone(() => pvcs.get('data')));
    // Its Delete-policy volume is released and deleted by the provisioner.
    await stepUntil(clock, 'the provisioned volume to be deleted', () => gone(() => pvs.get(pvName)));

    await pvcs.delete('static-claim');
    await stepUntil(clock, 'the static volume to be Released', async () => (await pvs.get('static')).status?.phase === 'Released');

    // A claim of the WaitForFirstConsumer default class waits for a consumer.
    await pvcs.create(claim('later', 'standard'));
    await stepUntil(clock, 'the WaitForFirstConsumer event', async () =>
      (await client.core.events('default').list()).items.some((e) => e.involvedObject.name === 'later' && e.reason === 'WaitForFirstConsumer'),
    );
    assert.equal((await pvcs.get('later')).status?.phase, 'Pending');
  } finally {
    await cp.stop();
  }
});
