/**
 * PersistentVolumeClaim defaulting, validation and update rules (cases of
 * pkg/apis/core/validation/validation_test.go TestValidatePersistentVolumeClaim,
 * TestValidatePersistentVolumeClaimUpdate, TestValidatePVCVolumeMode), the strategy's status reset and
 * data sources, and the table row.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PersistentVolumeClaim } from '../../../api/index.js';
import { fieldErrorString } from '../../../machinery/errors/index.js';
import { newTestServer, obj, rejectsWithStatus } from '../../testing/fixtures.js';
import type { ApiObject } from './helpers.js';
import { servedStrategies } from './index.js';
import { defaultPersistentVolumeClaim, validatePersistentVolumeClaim, validatePersistentVolumeClaimStatusUpdate, validatePersistentVolumeClaimUpdate } from './persistentvolume-validation.js';
import { persistentVolumeClaimStrategy } from './persistentvolumeclaims.js';

type PVC = ApiObject<PersistentVolumeClaim>;
type Spec = NonNullable<PersistentVolumeClaim['spec']>;

const claimSpec = (extra: Partial<Spec> = {}): Spec => ({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10G' } }, volumeMode: 'Filesystem', ...extra });
const pvc = (spec: Spec, extra: Partial<PVC> = {}): PVC => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data', namespace: 'default' }, spec, ...extra });
const errors = (c: PVC): string[] => validatePersistentVolumeClaim(c).map(fieldErrorString);
const updateErrors = (c: PVC, old: PVC): string[] => validatePersistentVolumeClaimUpdate(c, old).map(fieldErrorString);

test('SetDefaults_PersistentVolumeClaim: volumeMode Filesystem, phase Pending', () => {
  const c = pvc({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } });
  defaultPersistentVolumeClaim(c);
  assert.equal(c.spec?.volumeMode, 'Filesystem');
  assert.deepEqual(c.status, { phase: 'Pending' });
});

test('ValidatePersistentVolumeClaim: upstream cases and messages', () => {
  const cases: [string, PVC, string[]][] = [
    ['good-claim', pvc(claimSpec({ storageClassName: 'slow', selector: { matchLabels: { tier: 'db' } } })), []],
    ['missing-access-modes', pvc(claimSpec({ accessModes: [] })), ['spec.accessModes: Required value: at least 1 access mode is required']],
    ['invalid-access-modes', pvc(claimSpec({ accessModes: ['fakemode'] })), ['spec.accessModes: Unsupported value: "fakemode": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"']],
    ['read-write-once-pod-and-others', pvc(claimSpec({ accessModes: ['ReadWriteOncePod', 'ReadOnlyMany'] })), ['spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes']],
    ['no-resource-requests', pvc(claimSpec({ resources: {} })), ['spec.resources[storage]: Required value']],
    ['negative-storage-request', pvc(claimSpec({ resources: { requests: { storage: '-10G' } } })), ['spec.resources[storage]: Invalid value: "-10G": must be greater than zero']],
    ['zero-storage-request', pvc(claimSpec({ resources: { requests: { storage: '0G' } } })), ['spec.resources[storage]: Invalid value: "0": must be greater than zero']],
    ['invalid-volume-mode', pvc(claimSpec({ volumeMode: 'fakeVolumeMode' })), ['spec.volumeMode: Unsupported value: "fakeVolumeMode": supported values: "Block", "Filesystem"']],
    [
      'invalid-selector',
      pvc(claimSpec({ selector: { matchExpressions: [{ key: 'key2', operator: 'InvalidOp', values: ['value1'] }] } })),
      ['spec.selector.matchExpressions[0].operator: Invalid value: "InvalidOp": not a valid selector operator'],
    ],
    ['data-source-of-core-kind-other-than-pvc', pvc(claimSpec({ dataSource: { kind: 'Pod', name: 'p' } })), ["spec.dataSource: Invalid value: \"Pod\": must be 'PersistentVolumeClaim' when referencing the default apiGroup"]],
    [
      'data-source-mismatch',
      pvc(claimSpec({ dataSource: { kind: 'PersistentVolumeClaim', name: 'a' }, dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'b' } })),
      ['spec: Invalid value: "spec.dataSource": must match dataSourceRef'],
    ],
  ];
  for (const [name, c, want] of cases) assert.deepEqual(errors(c), want, name);
});

test('ValidatePersistentVolumeClaimUpdate: the spec is immutable but for a bound claim growing, volumeName once, the class leaving the beta annotation', () => {
  const old = pvc(claimSpec());
  assert.deepEqual(updateErrors(pvc(claimSpec()), old), []);
  const modes = updateErrors(pvc(claimSpec({ accessModes: ['ReadOnlyMany'] })), old);
  assert.equal(modes.length, 1);
  assert.match(
    modes[0] ?? '',
    /^spec: Forbidden: spec is immutable after creation except resources\.requests and volumeAttributesClassName for bound claims\n {2}core\.PersistentVolumeClaimSpec\{\n- \taccessModes: \["ReadWriteOnce"\],\n\+ \taccessModes: \["ReadOnlyMany"\],\n {2}\}$/,
  );
  // An unbound claim may not be resized; a bound one may grow, and shrink only above status.capacity.
  const bigger = claimSpec({ resources: { requests: { storage: '20G' } } });
  assert.equal(updateErrors(pvc(bigger), old).length, 1);
  const bound = (spec: Spec, capacity = '10G'): PVC => pvc({ ...spec, volumeName: 'pv1' }, { status: { phase: 'Bound', capacity: { storage: capacity } } });
  assert.deepEqual(updateErrors(bound(bigger), bound(claimSpec())), []);
  assert.deepEqual(updateErrors(bound(claimSpec({ resources: { requests: { storage: '5G' } } })), bound(claimSpec())), ['spec.resources.requests.storage: Forbidden: field can not be less than status.capacity']);
  assert.deepEqual(updateErrors(bound(claimSpec({ resources: { requests: { storage: '15G' } } })), bound(bigger, '10G')), [], 'recovering from a failed expansion');
  // volumeName may be set once.
  assert.deepEqual(updateErrors(pvc(claimSpec({ volumeName: 'pv1' })), old), []);
  assert.equal(updateErrors(pvc(claimSpec({ volumeName: 'pv2' })), pvc(claimSpec({ volumeName: 'pv1' }))).length, 1);
  // The class moves from the beta annotation to the field; otherwise the annotation is immutable.
  const annotated = (cls: string): PVC => pvc(claimSpec(), { metadata: { name: 'data', annotations: { 'volume.beta.kubernetes.io/storage-class': cls } } });
  assert.deepEqual(updateErrors({ ...annotated('gold'), spec: claimSpec({ storageClassName: 'gold' }) }, annotated('gold')), []);
  assert.deepEqual(updateErrors(annotated('silver'), annotated('gold')), ['metadata.annotations.volume.beta.kubernetes.io/storage-class: Invalid value: "silver": field is immutable']);
  // A class may be set on a claim that had none; not changed once set.
  assert.deepEqual(updateErrors(pvc(claimSpec({ storageClassName: 'gold' })), old), []);
  assert.equal(updateErrors(pvc(claimSpec({ storageClassName: 'silver' })), pvc(claimSpec({ storageClassName: 'gold' }))).length, 1);
  // volumeMode is reported at `volumeMode` as well as in the spec diff.
  assert.deepEqual(updateErrors(pvc(claimSpec({ volumeMode: 'Block' })), old).slice(1), ['volumeMode: Invalid value: "Block": field is immutable']);
});

test('ValidatePersistentVolumeClaimStatusUpdate: upstream paths', () => {
  assert.deepEqual(validatePersistentVolumeClaimStatusUpdate(pvc({ resources: { requests: { storage: '1Gi' } } })).map(fieldErrorString), ['Spec.accessModes: Required value']);
  const status = pvc(claimSpec(), { status: { phase: 'Bound', capacity: { storage: '-1' }, allocatedResources: { cpu: '1' } } });
  assert.deepEqual(validatePersistentVolumeClaimStatusUpdate(status).map(fieldErrorString), [
    'status.capacity[storage]: Invalid value: -1: must be a valid resource quantity',
    'status.allocatedResources: Unsupported value: "cpu": supported values: "storage"',
  ]);
});

test('through the store: status reset to Pending, dataSource mirrored to dataSourceRef, foreign dataSource dropped, missing request refused, the default class', async () => {
  const t = await newTestServer({ strategies: servedStrategies });
  const create = (body: PVC) => t.server.handle({ verb: 'create', group: '', version: 'v1', resource: 'persistentvolumeclaims', namespace: 'default', body });
  const created = obj(await create(pvc(claimSpec({ dataSource: { kind: 'PersistentVolumeClaim', name: 'src' } }), { status: { phase: 'Bound' } }))) as PVC;
  assert.deepEqual(created.status, { phase: 'Pending' });
  assert.deepEqual(created.spec?.dataSourceRef, { kind: 'PersistentVolumeClaim', name: 'src' });
  const foreign = obj(await create(pvc(claimSpec({ dataSource: { apiGroup: 'example.com', kind: 'Backup', name: 'b' } }), { metadata: { name: 'other' } }))) as PVC;
  assert.equal(foreign.spec?.dataSource, undefined);
  await rejectsWithStatus(create(pvc({ accessModes: ['ReadWriteOnce'] }, { metadata: { name: 'nostorage' } })), 422, 'PersistentVolumeClaim "nostorage" is invalid: spec.resources[storage]: Required value');
  // DefaultStorageClass admission: a claim naming no class gets the default one.
  await t.server.handle({
    verb: 'create',
    group: 'storage.k8s.io',
    version: 'v1',
    resource: 'storageclasses',
    body: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'standard', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } }, provisioner: 'example.com/p' },
  });
  // The plugin reads the classes as its informer would: from the cache, once it has seen them.
  await t.server.waitUntilFresh();
  const classless = obj(await create(pvc({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } }, { metadata: { name: 'classless' } }))) as PVC;
  assert.equal(classless.spec?.storageClassName, 'standard');
  await t.server.close();
});

test('the table row: NAME STATUS VOLUME CAPACITY ACCESS MODES STORAGECLASS VOLUMEATTRIBUTESCLASS AGE VOLUMEMODE', () => {
  assert.deepEqual(
    persistentVolumeClaimStrategy.table.columns.map((c) => `${c.name}${c.priority ? '*' : ''}`),
    ['Name', 'Status', 'Volume', 'Capacity', 'Access Modes', 'StorageClass', 'VolumeAttributesClass', 'Age', 'VolumeMode*'],
  );
  const meta = { name: 'data', creationTimestamp: '2025-01-01T00:00:00Z' };
  const pending = pvc(claimSpec({ storageClassName: 'manual' }), { metadata: meta, status: { phase: 'Pending' } });
  assert.deepEqual(persistentVolumeClaimStrategy.table.row(pending, Date.parse('2025-01-01T00:01:00Z')).cells, ['data', 'Pending', '', '', '', 'manual', '<unset>', '60s', 'Filesystem']);
  const bound = pvc(claimSpec({ volumeName: 'pv1' }), { metadata: meta, status: { phase: 'Bound', capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce'] } });
  assert.deepEqual(persistentVolumeClaimStrategy.table.row(bound, Date.parse('2025-01-01T00:01:00Z')).cells, ['data', 'Bound', 'pv1', '10Gi', 'RWO', '', '<unset>', '60s', 'Filesystem']);
});
