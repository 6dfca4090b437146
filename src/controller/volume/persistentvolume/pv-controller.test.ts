/**
 * The PersistentVolume controller against the real API server (fake transport) under a FakeClock.
 * Cases follow upstream's pv_controller_test.go / binder_test.go sets: 1 (unbound claims), 2
 * (pre-bound claims), 3 (bound claims), 4 (volumes), plus the provisioning hand-off and reclaiming
 * (recycle_test.go / delete_test.go: "no deleter", external deleter).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Event, KubeObject, PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from '../../../api/index.js';
import { newClientset, type Clientset } from '../../../client/index.js';
import { EventRecorder } from '../../../client/record/index.js';
import { newSharedInformerFactory } from '../../../informers/index.js';
import { newFakeTransport } from '../../../testing/index.js';
import { FakeClock } from '../../../util/clock/index.js';
import { SeededRand } from '../../../util/random/index.js';
import { silentLogger } from '../../../util/runtime/index.js';
import { DEFAULT_RESYNC_PERIOD_MS, PersistentVolumeController } from './index.js';

const NS = 'default';

export function pv(name: string, size: string, o: { cls?: string; modes?: string[]; policy?: string; claimRef?: NonNullable<PersistentVolume['spec']>['claimRef']; annotations?: Record<string, string>; mode?: string } = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, ...(o.annotations ? { annotations: o.annotations } : {}) },
    spec: {
      capacity: { storage: size },
      accessModes: o.modes ?? ['ReadWriteOnce'],
      hostPath: { path: `/tmp/${name}` },
      persistentVolumeReclaimPolicy: o.policy ?? 'Retain',
      ...(o.cls ? { storageClassName: o.cls } : {}),
      ...(o.claimRef ? { claimRef: o.claimRef } : {}),
      ...(o.mode ? { volumeMode: o.mode } : {}),
    },
  };
}

export function pvc(name: string, size: string, o: { cls?: string; modes?: string[]; volumeName?: string; annotations?: Record<string, string> } = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: NS, ...(o.annotations ? { annotations: o.annotations } : {}) },
    spec: {
      accessModes: o.modes ?? ['ReadWriteOnce'],
      resources: { requests: { storage: size } },
      storageClassName: o.cls ?? '',
      ...(o.volumeName ? { volumeName: o.volumeName } : {}),
    },
  };
}

export function storageClass(name: string, provisioner: string, mode: 'Immediate' | 'WaitForFirstConsumer', reclaimPolicy = 'Delete'): KubeObject {
  return { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner, volumeBindingMode: mode, reclaimPolicy };
}

async function setup(objects: KubeObject[]) {
  const clock = new FakeClock(Date.UTC(2025, 0, 1));
  const transport = await newFakeTransport({ clock, objects, namespaces: [NS] });
  const client: Clientset = newClientset(transport);
  const informers = newSharedInformerFactory(client, { clock, rand: new SeededRand(1) });
  const recorder = new EventRecorder(client, { component: 'persistentvolume-controller', clock, logger: silentLogger });
  const ctrl = new PersistentVolumeController({ client, informers, clock, recorder, logger: silentLogger });
  const ac = new AbortController();
  informers.start();
  const running = ctrl.run(ac.signal);
  const settle = async (ms = 0): Promise<void> => {
    for (let i = 0; i < 5; i++) await clock.stepAsync(i === 0 ? ms : 0);
    await recorder.flush();
  };
  await settle();
  const getPV = (n: string): Promise<PersistentVolume> => client.core.persistentVolumes().get(n);
  const getPVC = (n: string): Promise<PersistentVolumeClaim> => client.core.persistentVolumeClaims(NS).get(n);
  const events = async (): Promise<string[]> =>
    (await client.core.events(NS).list()).items.concat((await client.core.events('').list()).items).map((e: Event) => `${e.involvedObject.name ?? ''} ${e.type ?? ''} ${e.reason ?? ''} ${e.message ?? ''}`);
  /** Deletes a claim for good (finalizers removed, as the protection controller would). */
  const deleteClaim = async (n: string): Promise<void> => {
    await client.core.persistentVolumeClaims(NS).delete(n);
    try {
      const c = await getPVC(n);
      await client.core.persistentVolumeClaims(NS).update({ ...c, metadata: { ...c.metadata, finalizers: [] } });
    } catch {
      // already gone
    }
  };
  const stop = async (): Promise<void> => {
    ac.abort();
    informers.shutdown();
    await running;
  };
  return { clock, client, transport, settle, getPV, getPVC, events, deleteClaim, stop };
}

describe('PersistentVolumeController', () => {
  test('4-1: an unbound volume becomes Available; 1-2: a claim binds to the smallest volume that fits', async () => {
    const c = await setup([pv('small', '1Gi'), pv('medium', '5Gi'), pv('large', '10Gi'), pv('other-class', '5Gi', { cls: 'gold' }), pvc('claim', '2Gi')]);
    // The claim was synced while the volumes were still Pending; the resync binds it (upstream's
    // latency for static volumes too).
    await c.settle(DEFAULT_RESYNC_PERIOD_MS);
    const claim = await c.getPVC('claim');
    assert.equal(claim.spec?.volumeName, 'medium');
    assert.equal(claim.status?.phase, 'Bound');
    assert.deepEqual(claim.status?.capacity, { storage: '5Gi' });
    assert.deepEqual(claim.status?.accessModes, ['ReadWriteOnce']);
    assert.equal(claim.metadata?.annotations?.['pv.kubernetes.io/bind-completed'], 'yes');
    assert.equal(claim.metadata?.annotations?.['pv.kubernetes.io/bound-by-controller'], 'yes');
    const medium = await c.getPV('medium');
    assert.equal(medium.status?.phase, 'Bound');
    assert.equal(medium.spec?.claimRef?.name, 'claim');
    assert.equal(medium.spec?.claimRef?.uid, claim.metadata?.uid);
    assert.equal(medium.metadata?.annotations?.['pv.kubernetes.io/bound-by-controller'], 'yes');
    for (const n of ['small', 'large', 'other-class']) assert.equal((await c.getPV(n)).status?.phase, 'Available', n);
    await c.stop();
  });

  test('access-mode groups: a RWO claim takes a RWO volume before a bigger-mode one of smaller size', async () => {
    const c = await setup([pv('rwx', '1Gi', { modes: ['ReadWriteOnce', 'ReadWriteMany'] }), pv('rwo', '5Gi'), pvc('claim', '1Gi')]);
    await c.settle(DEFAULT_RESYNC_PERIOD_MS);
    assert.equal((await c.getPVC('claim')).spec?.volumeName, 'rwo');
    await c.stop();
  });

  test('1-1: no volume and no class: Pending with FailedBinding', async () => {
    const c = await setup([pvc('claim', '1Gi')]);
    await c.settle();
    assert.equal((await c.getPVC('claim')).status?.phase, 'Pending');
    assert.ok((await c.events()).includes('claim Normal FailedBinding no persistent volumes available for this claim and no storage class is set'));
    await c.stop();
  });

  test('WaitForFirstConsumer: no binding before the scheduler selects a node; the event names unscheduled pods', async () => {
    const c = await setup([storageClass('wait', 'kubeplane.io/simulated', 'WaitForFirstConsumer'), pv('vol', '5Gi', { cls: 'wait' }), pvc('claim', '1Gi', { cls: 'wait' })]);
    await c.settle();
    assert.equal((await c.getPVC('claim')).spec?.volumeName, undefined);
    assert.ok((await c.events()).includes('claim Normal WaitForFirstConsumer waiting for first consumer to be created before binding'));
    const pod: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'user', namespace: NS }, spec: { containers: [{ name: 'c', image: 'i' }], volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'claim' } }] } };
    await c.client.core.pods(NS).create(pod);
    await c.settle(DEFAULT_RESYNC_PERIOD_MS);
    assert.ok((await c.events()).includes('claim Normal WaitForPodScheduled waiting for pod user to be scheduled'));
    await c.stop();
  });

  test('an Immediate class of an external provisioner: the claim is annotated for it, with ExternalProvisioning', async () => {
    const c = await setup([storageClass('fast', 'kubeplane.io/simulated', 'Immediate'), pvc('claim', '1Gi', { cls: 'fast' })]);
    await c.settle();
    const claim = await c.getPVC('claim');
    assert.equal(claim.metadata?.annotations?.['volume.kubernetes.io/storage-provisioner'], 'kubeplane.io/simulated');
    assert.equal(claim.metadata?.annotations?.['volume.beta.kubernetes.io/storage-provisioner'], 'kubeplane.io/simulated');
    assert.ok(
      (await c.events()).includes(
        "claim Normal ExternalProvisioning Waiting for a volume to be created either by the external provisioner 'kubeplane.io/simulated' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.",
      ),
    );
    // A volume provisioned for it (named in its claimRef) is then bound to it.
    await c.client.core.persistentVolumes().create(pv('pvc-x', '1Gi', { cls: 'fast', policy: 'Delete', claimRef: { namespace: NS, name: 'claim', uid: claim.metadata?.uid ?? '' }, annotations: { 'pv.kubernetes.io/provisioned-by': 'kubeplane.io/simulated' } }) as PersistentVolume);
    await c.settle();
    const bound = await c.getPVC('claim');
    assert.equal(bound.spec?.volumeName, 'pvc-x');
    assert.equal(bound.status?.phase, 'Bound');
    // The claim's volumeName was written by the controller (the volume's claimRef by the provisioner).
    assert.equal(bound.metadata?.annotations?.['pv.kubernetes.io/bound-by-controller'], 'yes');
    assert.equal((await c.getPV('pvc-x')).metadata?.annotations?.['pv.kubernetes.io/bound-by-controller'], undefined);
    assert.equal((await c.getPV('pvc-x')).status?.phase, 'Bound');
    await c.stop();
  });

  test('a claim whose class does not exist: ProvisioningFailed', async () => {
    const c = await setup([pvc('claim', '1Gi', { cls: 'missing' })]);
    await c.settle();
    assert.ok((await c.events()).includes('claim Warning ProvisioningFailed storageclass.storage.k8s.io "missing" not found'));
    await c.stop();
  });

  test('2-x: a pre-bound claim binds to its volume, or reports a mismatch', async () => {
    const c = await setup([pv('big', '5Gi'), pv('tiny', '1Mi'), pvc('wants-big', '1Gi', { volumeName: 'big' }), pvc('wants-tiny', '1Gi', { volumeName: 'tiny' }), pvc('wants-none', '1Gi', { volumeName: 'nope' })]);
    await c.settle(DEFAULT_RESYNC_PERIOD_MS);
    assert.equal((await c.getPVC('wants-big')).status?.phase, 'Bound');
    assert.equal((await c.getPV('big')).spec?.claimRef?.name, 'wants-big');
    assert.equal((await c.getPVC('wants-tiny')).status?.phase, 'Pending');
    assert.ok((await c.events()).includes('wants-tiny Warning VolumeMismatch Cannot bind to requested volume "tiny": requested PV is too small'));
    assert.equal((await c.getPVC('wants-none')).status?.phase, 'Pending');
    await c.stop();
  });

  test('reclaiming: Retain → Released; Delete without a deleter → Failed; provisioned Delete → Released, left to its provisioner; Recycle → Failed', async () => {
    const c = await setup([
      pv('keep', '1Gi', { cls: 'a' }),
      pv('drop', '1Gi', { cls: 'b', policy: 'Delete' }),
      pv('prov', '1Gi', { cls: 'c', policy: 'Delete', annotations: { 'pv.kubernetes.io/provisioned-by': 'kubeplane.io/simulated' } }),
      pv('recycle', '1Gi', { cls: 'd', policy: 'Recycle' }),
      pvc('ca', '1Gi', { cls: 'a' }),
      pvc('cb', '1Gi', { cls: 'b' }),
      pvc('cc', '1Gi', { cls: 'c' }),
      pvc('cd', '1Gi', { cls: 'd' }),
    ]);
    await c.settle(DEFAULT_RESYNC_PERIOD_MS);
    for (const n of ['ca', 'cb', 'cc', 'cd']) assert.equal((await c.getPVC(n)).status?.phase, 'Bound', n);
    for (const n of ['ca', 'cb', 'cc', 'cd']) await c.deleteClaim(n);
    await c.settle();
    assert.equal((await c.getPV('keep')).status?.phase, 'Released');
    const drop = await c.getPV('drop');
    assert.equal(drop.status?.phase, 'Failed');
    assert.equal(drop.status?.message, 'error getting deleter volume plugin for volume "drop": no deletable volume plugin matched');
    assert.equal((await c.getPV('prov')).status?.phase, 'Released');
    assert.equal((await c.getPV('recycle')).status?.phase, 'Failed');
    const ev = await c.events();
    assert.ok(ev.includes('recycle Warning VolumeFailedRecycle No recycler plugin found for the volume!'), ev.join('\n'));
    assert.ok(ev.some((e) => e.startsWith('drop Warning VolumeFailedDelete ')));
    await c.stop();
  });

  test('3-x: a bound claim whose volume is deleted is Lost', async () => {
    const c = await setup([pv('vol', '1Gi'), pvc('claim', '1Gi')]);
    await c.settle(DEFAULT_RESYNC_PERIOD_MS);
    assert.equal((await c.getPVC('claim')).status?.phase, 'Bound');
    const v = await c.getPV('vol');
    await c.client.core.persistentVolumes().update({ ...v, metadata: { ...v.metadata, finalizers: [] } });
    await c.client.core.persistentVolumes().delete('vol');
    await c.settle();
    assert.equal((await c.getPVC('claim')).status?.phase, 'Lost');
    assert.ok((await c.events()).includes('claim Warning ClaimLost Bound claim has lost its PersistentVolume. Data on the volume is lost!'));
    await c.stop();
  });

  test('a claim that names no class gets the default class retroactively', async () => {
    const claim = pvc('claim', '1Gi') as PersistentVolumeClaim;
    delete (claim.spec as { storageClassName?: string }).storageClassName;
    const c = await setup([claim as KubeObject]);
    await c.settle();
    assert.equal((await c.getPVC('claim')).spec?.storageClassName, undefined);
    const sc = storageClass('std', 'kubeplane.io/simulated', 'WaitForFirstConsumer') as unknown as StorageClass;
    sc.metadata = { ...sc.metadata, annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } };
    await c.client.storage.storageClasses().create(sc);
    await c.settle(DEFAULT_RESYNC_PERIOD_MS);
    assert.equal((await c.getPVC('claim')).spec?.storageClassName, 'std');
    await c.stop();
  });
});
