/** The volume the simulated provisioner creates (local-path-provisioner's shape). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolumeClaim, StorageClass } from '../../../api/index.js';
import { newProvisionedVolume } from './index.js';

test('newProvisionedVolume: pvc-<uid>, request as capacity, class policy and mount options, hostPath and node affinity', () => {
  const claim: PersistentVolumeClaim = {
    metadata: { name: 'data', namespace: 'ns', uid: 'u1', resourceVersion: '5' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } }, storageClassName: 'standard', volumeMode: 'Filesystem' },
  };
  const cls: StorageClass = { metadata: { name: 'standard' }, provisioner: 'kubeplane.io/simulated', reclaimPolicy: 'Retain', mountOptions: ['ro'] };
  const pv = newProvisionedVolume(claim, cls, 'kubeplane.io/simulated', 'node-1');
  assert.equal(pv.metadata?.name, 'pvc-u1');
  assert.equal(pv.metadata?.annotations?.['pv.kubernetes.io/provisioned-by'], 'kubeplane.io/simulated');
  assert.deepEqual(pv.spec?.capacity, { storage: '2Gi' });
  assert.equal(pv.spec?.persistentVolumeReclaimPolicy, 'Retain');
  assert.deepEqual(pv.spec?.mountOptions, ['ro']);
  assert.deepEqual(pv.spec?.hostPath, { path: '/var/local-path-provisioner/pvc-u1_ns_data', type: 'DirectoryOrCreate' });
  assert.deepEqual(pv.spec?.nodeAffinity?.required?.nodeSelectorTerms, [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-1'] }] }]);
  assert.equal(pv.spec?.claimRef?.uid, 'u1');
  assert.equal(newProvisionedVolume(claim, cls, 'kubeplane.io/simulated', undefined).spec?.nodeAffinity, undefined);
});
