/**
 * VolumeAttachment validation and update rules (cases of pkg/apis/storage/validation/validation_test.go
 * TestVolumeAttachmentValidation, TestVolumeAttachmentValidationV1, TestVolumeAttachmentUpdateValidation),
 * the status reset, and the table row.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldErrorString } from '../../../machinery/errors/index.js';
import { volumeAttachmentStrategy } from './volumeattachments.js';

type VA = Parameters<typeof volumeAttachmentStrategy.validate>[0];
type Spec = VA['spec'];

const va = (spec: Partial<Spec> = {}, extra: Partial<VA> = {}): VA => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'VolumeAttachment',
  metadata: { name: 'foo' },
  spec: { attacher: 'myattacher', nodeName: 'mynode', source: { persistentVolumeName: 'pv' }, ...spec },
  ...extra,
});
const errors = (v: VA): string[] => volumeAttachmentStrategy.validate(v).map(fieldErrorString);

test('ValidateVolumeAttachment(V1): attacher, source, node name, status', () => {
  assert.deepEqual(errors(va()), []);
  assert.deepEqual(errors(va({ attacher: '' })), ['spec.attacher: Required value', 'spec.attacher: Required value', expect.subdomain('spec.attacher', '')]);
  assert.deepEqual(errors(va({ source: {} })), ['spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName']);
  assert.deepEqual(errors(va({ source: { persistentVolumeName: '' } })), ['spec.source.persistentVolumeName: Required value: must specify non empty persistentVolumeName', expect.subdomain('spec.source.persistentVolumeName', '')]);
  assert.deepEqual(errors(va({ nodeName: '' })), [expect.subdomain('spec.nodeName', '')]);
  const inline = { capacity: {}, accessModes: ['ReadWriteOnce'], csi: { driver: 'com.test.foo', volumeHandle: 'handle' } };
  assert.deepEqual(errors(va({ source: { persistentVolumeName: 'pv', inlineVolumeSpec: inline } })), ['spec.source: Forbidden: must specify exactly one of inlineVolumeSpec and persistentVolumeName']);
  assert.deepEqual(errors(va({ source: { inlineVolumeSpec: inline } })), []);
  assert.deepEqual(errors(va({ source: { inlineVolumeSpec: { ...inline, persistentVolumeReclaimPolicy: 'Delete', capacity: { storage: '1Gi' } } } })), [
    'spec.source.inlineVolumeSpec.capacity: Forbidden: may not be specified in the context of inline volumes',
    'spec.source.inlineVolumeSpec.persistentVolumeReclaimPolicy: Forbidden: may only be Retain in the context of inline volumes',
  ]);
  const longMessage = va({}, { status: { attached: false, attachError: { message: 'x'.repeat(1025) }, detachError: { errorCode: -1 } as never } });
  assert.deepEqual(errors(longMessage), ['status.attachError.message: Too long: may not be more than 262144 bytes', 'status.detachError.errorCode: Invalid value: -1: must be between 0 and 2147483647, inclusive']);
});

test('the spec is immutable; create resets the status, update keeps it', () => {
  const old = va({}, { status: { attached: true } });
  assert.deepEqual(volumeAttachmentStrategy.validateUpdate(va({}, { status: { attached: false } }), old), []);
  const moved = volumeAttachmentStrategy.validateUpdate(va({ nodeName: 'other' }), old).map(fieldErrorString);
  assert.equal(moved.length, 1);
  assert.match(moved[0] ?? '', /^spec: Invalid value: .*"nodeName":"other".*: field is immutable$/);
  const created = va({}, { status: { attached: true, attachmentMetadata: { a: 'b' } } });
  volumeAttachmentStrategy.prepareForCreate(created, 0);
  assert.deepEqual(created.status, { attached: false });
  const updated = va({}, { status: { attached: false } });
  volumeAttachmentStrategy.prepareForUpdate(updated, old);
  assert.deepEqual(updated.status, { attached: true });
});

test('the table row: NAME ATTACHER PV NODE ATTACHED AGE', () => {
  assert.deepEqual(volumeAttachmentStrategy.table.columns.map((c) => c.name), ['Name', 'Attacher', 'PV', 'Node', 'Attached', 'Age']);
  const v = va({}, { metadata: { name: 'csi-123', creationTimestamp: '2025-01-01T00:00:00Z' }, status: { attached: true } });
  assert.deepEqual(volumeAttachmentStrategy.table.row(v, Date.parse('2025-01-01T00:00:05Z')).cells, ['csi-123', 'myattacher', 'pv', 'mynode', true, '5s']);
  assert.deepEqual(volumeAttachmentStrategy.table.row(va({ source: {} }), 0).cells.slice(2, 5), ['', 'mynode', false]);
});

const expect = {
  subdomain: (path: string, value: string): string =>
    `${path}: Invalid value: "${value}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
};
