/**
 * PersistentVolume defaulting, validation (cases of pkg/apis/core/validation/validation_test.go
 * TestValidatePersistentVolumes, TestValidatePersistentVolumeSourceUpdate, TestValidatePVVolumeMode),
 * the status strategy's lastPhaseTransitionTime, status reset through the store, and the table row.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PersistentVolume } from '../../../api/index.js';
import { fieldErrorString } from '../../../machinery/errors/index.js';
import { newTestServer, obj } from '../../testing/fixtures.js';
import type { ApiObject } from './helpers.js';
import { servedStrategies } from './index.js';
import { defaultPersistentVolume, validatePersistentVolume, validatePersistentVolumeUpdate } from './persistentvolume-validation.js';
import { persistentVolumeStrategy } from './persistentvolumes.js';

type PV = ApiObject<PersistentVolume>;
type Spec = NonNullable<PersistentVolume['spec']>;

const pv = (spec: Spec, extra: Partial<PV> = {}): PV => ({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv' }, spec, ...extra });
const hostPathSpec = (extra: Partial<Spec> = {}): Spec => ({ capacity: { storage: '10G' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/foo', type: '' }, ...extra });
const errors = (p: PV): string[] => validatePersistentVolume(p).map(fieldErrorString);

test('SetDefaults_PersistentVolume: Retain, Filesystem, Pending; hostPath type ""', () => {
  const p = pv({ capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' } });
  defaultPersistentVolume(p);
  assert.equal(p.spec?.persistentVolumeReclaimPolicy, 'Retain');
  assert.equal(p.spec?.volumeMode, 'Filesystem');
  assert.equal(p.spec?.hostPath?.type, '');
  assert.deepEqual(p.status, { phase: 'Pending' });
  const kept = pv({ ...hostPathSpec(), persistentVolumeReclaimPolicy: 'Delete', volumeMode: 'Block' });
  defaultPersistentVolume(kept);
  assert.equal(kept.spec?.persistentVolumeReclaimPolicy, 'Delete');
  assert.equal(kept.spec?.volumeMode, 'Block');
});

test('ValidatePersistentVolume: upstream cases and messages', () => {
  const cases: [string, PV, string[]][] = [
    ['good-volume', pv(hostPathSpec()), []],
    ['good-volume-with-retain-policy', pv(hostPathSpec({ persistentVolumeReclaimPolicy: 'Retain' })), []],
    ['good-volume-with-storage-class', pv(hostPathSpec({ storageClassName: 'valid' })), []],
    ['invalid-accessmode', pv(hostPathSpec({ accessModes: ['fakemode'] })), ['spec.accessModes: Unsupported value: "fakemode": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"']],
    ['with-read-write-once-pod-and-others', pv(hostPathSpec({ accessModes: ['ReadWriteOncePod', 'ReadWriteMany'] })), ['spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes']],
    ['missing-accessmodes', pv(hostPathSpec({ accessModes: [] })), ['spec.accessModes: Required value']],
    [
      'invalid-reclaimpolicy',
      pv(hostPathSpec({ persistentVolumeReclaimPolicy: 'fakeReclaimPolicy' })),
      ['spec.persistentVolumeReclaimPolicy: Unsupported value: "fakeReclaimPolicy": supported values: "Delete", "Recycle", "Retain"'],
    ],
    ['missing-volume-source', pv({ capacity: { storage: '10G' }, accessModes: ['ReadWriteOnce'] }), ['spec: Required value: must specify a volume type']],
    ['missing-capacity', pv(hostPathSpec({ capacity: {} })), ['spec.capacity: Required value', 'spec.capacity: Unsupported value: {}: supported values: "storage"']],
    ['bad-volume-zero-capacity', pv(hostPathSpec({ capacity: { storage: '0' } })), ['spec.capacity[storage]: Invalid value: "0": must be greater than zero']],
    [
      'negative-capacity',
      pv(hostPathSpec({ capacity: { storage: '-1' } })),
      ['spec.capacity[storage]: Invalid value: -1: must be a valid resource quantity', 'spec.capacity[storage]: Invalid value: "-1": must be greater than zero'],
    ],
    ['too-many-sources', pv(hostPathSpec({ gcePersistentDisk: { pdName: 'foo', fsType: 'ext4' } })), ['spec.gcePersistentDisk: Forbidden: may not specify more than 1 volume type']],
    [
      'host mount of / with recycle reclaim policy',
      pv(hostPathSpec({ hostPath: { path: '/', type: '' }, persistentVolumeReclaimPolicy: 'Recycle' })),
      ["spec.persistentVolumeReclaimPolicy: Forbidden: may not be 'recycle' for a hostPath mount of '/'"],
    ],
    [
      'host mount of / with recycle reclaim policy 2',
      pv(hostPathSpec({ hostPath: { path: '/a/..', type: '' }, persistentVolumeReclaimPolicy: 'Recycle' })),
      ["spec.hostPath.path: Invalid value: \"/a/..\": must not contain '..'", "spec.persistentVolumeReclaimPolicy: Forbidden: may not be 'recycle' for a hostPath mount of '/'"],
    ],
    ['invalid-storage-class-name', pv(hostPathSpec({ storageClassName: '-invalid-' })), [
      "spec.storageClassName: Invalid value: \"-invalid-\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ]],
    ['invalid-volume-mode', pv(hostPathSpec({ volumeMode: 'fakeVolumeMode' })), ['spec.volumeMode: Unsupported value: "fakeVolumeMode": supported values: "Block", "Filesystem"']],
    ['bad-hostpath-type', pv(hostPathSpec({ hostPath: { path: '/foo', type: 'Dir' } })), [
      'spec.hostPath.type: Unsupported value: "Dir": supported values: "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"',
    ]],
    ['local volume without node affinity', pv({ capacity: { storage: '10G' }, accessModes: ['ReadWriteOnce'], local: { path: '/foo' } }), ['spec.nodeAffinity: Required value: Local volume requires node affinity']],
    [
      'volume-empty-node-affinity',
      pv(hostPathSpec({ nodeAffinity: {} })),
      ['spec.nodeAffinity.required: Required value: must specify required node constraints'],
    ],
    [
      'volume-bad-node-affinity',
      pv(hostPathSpec({ nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'test-label-key', operator: 'In' }] }] } } })),
      ["spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"],
    ],
    ['nfs relative path', pv({ capacity: { storage: '1Gi' }, accessModes: ['ReadWriteMany'], nfs: { server: 'nfs.example.com', path: 'exports' } }), ['spec.nfs.path: Invalid value: "exports": must be an absolute path']],
    [
      'csi without driver and handle',
      pv({ capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], csi: { driver: '', volumeHandle: '' } }),
      [
        'spec.csi.driver: Required value',
        "spec.csi.driver: Invalid value: \"\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        'spec.csi.volumeHandle: Required value',
      ],
    ],
    [
      'mount options on a hostPath volume',
      pv(hostPathSpec(), { metadata: { name: 'pv', annotations: { 'volume.beta.kubernetes.io/mount-options': 'ro' } } }),
      ['metadata.annotations.volume.beta.kubernetes.io/mount-options: Forbidden: may not specify mount options for this volume type'],
    ],
  ];
  for (const [name, p, want] of cases) assert.deepEqual(errors(p), want, name);
  const local = pv({
    capacity: { storage: '10G' },
    accessModes: ['ReadWriteOnce'],
    local: { path: '/foo' },
    nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-1'] }] }] } },
  });
  assert.deepEqual(errors(local), [], 'local volume with node affinity');
});

test('ValidatePersistentVolumeUpdate: the source and volumeMode are immutable; a CSI volume may gain controllerExpandSecretRef', () => {
  const old = pv(hostPathSpec({ volumeMode: 'Filesystem' }));
  const moved = pv(hostPathSpec({ hostPath: { path: '/bar', type: '' }, volumeMode: 'Block' }));
  const errs = validatePersistentVolumeUpdate(moved, old).map(fieldErrorString);
  assert.equal(errs.length, 2);
  assert.match(errs[0] ?? '', /^spec\.persistentvolumesource: Forbidden: spec\.persistentvolumesource is immutable after creation\n {2}core\.PersistentVolumeSource\{\n- \thostPath: \{"path":"\/foo","type":""\},\n\+ \thostPath: \{"path":"\/bar","type":""\},\n {2}\}$/);
  assert.equal(errs[1], 'volumeMode: Invalid value: "Block": field is immutable');
  const csi = (ref?: { name: string; namespace: string }): PV =>
    pv({ capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], csi: { driver: 'csi.example.com', volumeHandle: 'h', ...(ref ? { controllerExpandSecretRef: ref } : {}) } });
  assert.deepEqual(validatePersistentVolumeUpdate(csi({ name: 's', namespace: 'ns' }), csi()), []);
  assert.equal(validatePersistentVolumeUpdate(csi({ name: 't', namespace: 'ns' }), csi({ name: 's', namespace: 'ns' })).length, 1);
  // The claim reference and capacity may change (the PV controller binds and resizes).
  assert.deepEqual(validatePersistentVolumeUpdate(pv(hostPathSpec({ capacity: { storage: '20G' }, claimRef: { namespace: 'a', name: 'b' }, volumeMode: 'Filesystem' })), old), []);
});

test('the status strategy keeps the spec and stamps lastPhaseTransitionTime when the phase changes', () => {
  const old = pv(hostPathSpec(), { status: { phase: 'Pending', lastPhaseTransitionTime: '2025-01-01T00:00:00Z' } });
  const released = pv(hostPathSpec({ hostPath: { path: '/other', type: '' } }), { status: { phase: 'Available' } });
  persistentVolumeStrategy.prepareForStatusUpdate?.(released, old, Date.parse('2025-01-01T00:05:00Z'));
  assert.equal(released.spec?.hostPath?.path, '/foo');
  assert.equal(released.status?.lastPhaseTransitionTime, '2025-01-01T00:05:00Z');
  const same = pv(hostPathSpec(), { status: { phase: 'Pending', reason: 'x' } });
  persistentVolumeStrategy.prepareForStatusUpdate?.(same, old, Date.parse('2025-01-01T00:05:00Z'));
  assert.equal(same.status?.lastPhaseTransitionTime, '2025-01-01T00:00:00Z');
  const stamped = pv(hostPathSpec(), { status: { phase: 'Bound', lastPhaseTransitionTime: '2025-01-01T00:01:00Z' } });
  persistentVolumeStrategy.prepareForStatusUpdate?.(stamped, old, Date.parse('2025-01-01T00:05:00Z'));
  assert.equal(stamped.status?.lastPhaseTransitionTime, '2025-01-01T00:01:00Z');
});

test('through the store: the status a client sends on create is reset to Pending; volumeAttributesClassName is dropped', async () => {
  const t = await newTestServer({ strategies: servedStrategies });
  const body = pv({ ...hostPathSpec(), volumeAttributesClassName: 'gold' }, { status: { phase: 'Bound', message: 'mine' } });
  const created = obj(await t.server.handle({ verb: 'create', group: '', version: 'v1', resource: 'persistentvolumes', body })) as PV;
  assert.deepEqual(created.status, { phase: 'Pending', lastPhaseTransitionTime: '2025-01-01T00:00:00Z' });
  assert.equal(created.spec?.volumeAttributesClassName, undefined);
  assert.equal(created.spec?.persistentVolumeReclaimPolicy, 'Retain');
  const listed = await t.server.handle({ verb: 'list', group: '', version: 'v1', resource: 'persistentvolumes', query: { fieldSelector: 'name=pv' } });
  assert.equal((listed.body as { items: unknown[] }).items.length, 1, 'the legacy `name` field selector');
  await t.server.close();
});

test('the table row: NAME CAPACITY ACCESS MODES RECLAIM POLICY STATUS CLAIM STORAGECLASS VOLUMEATTRIBUTESCLASS REASON AGE VOLUMEMODE', () => {
  assert.deepEqual(
    persistentVolumeStrategy.table.columns.map((c) => `${c.name}${c.priority ? '*' : ''}`),
    ['Name', 'Capacity', 'Access Modes', 'Reclaim Policy', 'Status', 'Claim', 'StorageClass', 'VolumeAttributesClass', 'Reason', 'Age', 'VolumeMode*'],
  );
  const p = pv(
    { ...hostPathSpec({ capacity: { storage: '1024Mi' }, accessModes: ['ReadWriteMany', 'ReadWriteOnce', 'ReadOnlyMany'], claimRef: { namespace: 'default', name: 'data' } }), storageClassName: 'manual', persistentVolumeReclaimPolicy: 'Retain' },
    { metadata: { name: 'pv1', creationTimestamp: '2025-01-01T00:00:00Z' }, status: { phase: 'Bound' } },
  );
  assert.deepEqual(persistentVolumeStrategy.table.row(p, Date.parse('2025-01-01T00:00:30Z')).cells, ['pv1', '1Gi', 'RWO,ROX,RWX', 'Retain', 'Bound', 'default/data', 'manual', '<unset>', '', '30s', '<unset>']);
  const deleting = pv(hostPathSpec(), { metadata: { name: 'pv2', deletionTimestamp: '2025-01-01T00:00:00Z', annotations: { 'volume.beta.kubernetes.io/storage-class': 'beta' } }, status: { phase: 'Available' } });
  const cells = persistentVolumeStrategy.table.row(deleting, 0).cells;
  assert.equal(cells[4], 'Terminating');
  assert.equal(cells[6], 'beta');
});
