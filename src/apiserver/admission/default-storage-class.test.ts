/**
 * The DefaultStorageClass admission plugin (cases of plugin/pkg/admission/storage/storageclass/
 * setdefault/admission_test.go TestClaimDefaulter and pkg/volume/util GetDefaultClass): the default
 * class (either annotation), the newest of several, then by name; claims naming a class — even `""`,
 * or through the beta annotation — are left alone.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KubeObject, StorageClass } from '../../api/index.js';
import { admitDefaultStorageClass, defaultStorageClass } from './default-storage-class.js';

const sc = (name: string, annotation: string | undefined, created = '2025-01-01T00:00:00Z'): StorageClass => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name, creationTimestamp: created, ...(annotation ? { annotations: { [annotation]: 'true' } } : {}) },
  provisioner: 'p',
});
const GA = 'storageclass.kubernetes.io/is-default-class';
const BETA = 'storageclass.beta.kubernetes.io/is-default-class';
const claim = (spec: Record<string, unknown> = {}, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'c', ...(annotations ? { annotations } : {}) },
  spec: { accessModes: ['ReadWriteOnce'], ...spec },
});
const admitted = (c: KubeObject, classes: StorageClass[]): unknown => {
  admitDefaultStorageClass(c, classes);
  return (c.spec as { storageClassName?: string }).storageClassName;
};

test('the default class: either annotation; the newest of several, then by name', () => {
  assert.equal(defaultStorageClass([sc('a', undefined), sc('b', 'other-annotation')]), undefined);
  assert.equal(defaultStorageClass([sc('a', undefined), sc('beta', BETA)])?.metadata?.name, 'beta');
  assert.equal(defaultStorageClass([sc('old', GA, '2025-01-01T00:00:00Z'), sc('new', GA, '2025-01-02T00:00:00Z')])?.metadata?.name, 'new');
  assert.equal(defaultStorageClass([sc('z', GA), sc('y', GA)])?.metadata?.name, 'y');
});

test('a claim naming no class gets the default; one naming a class, even "", keeps it', () => {
  const classes = [sc('standard', GA), sc('fast', undefined)];
  assert.equal(admitted(claim(), classes), 'standard');
  assert.equal(admitted(claim({ storageClassName: 'fast' }), classes), 'fast');
  assert.equal(admitted(claim({ storageClassName: '' }), classes), '');
  assert.equal(admitted(claim({}, { 'volume.beta.kubernetes.io/storage-class': 'fast' }), classes), undefined);
  assert.equal(admitted(claim(), [sc('fast', undefined)]), undefined);
});
