/**
 * CSIDriver defaulting (SetDefaults_CSIDriver), validation and update rules (cases of
 * pkg/apis/storage/validation/validation_test.go TestCSIDriverValidation, TestCSIDriverValidationUpdate),
 * the generation bump and the table row.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldErrorString } from '../../../machinery/errors/index.js';
import { csiDriverStrategy } from './csidrivers.js';

type Driver = Parameters<typeof csiDriverStrategy.validate>[0];
type Spec = Driver['spec'];

const driver = (spec: Spec, name = 'csi.example.com'): Driver => ({ apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name }, spec });
const defaulted = (spec: Spec = {}): Driver => {
  const d = driver(spec);
  csiDriverStrategy.defaults(d);
  return d;
};
const errors = (d: Driver): string[] => csiDriverStrategy.validate(d).map(fieldErrorString);

test('SetDefaults_CSIDriver', () => {
  assert.deepEqual(defaulted().spec, {
    attachRequired: true,
    podInfoOnMount: false,
    storageCapacity: false,
    fsGroupPolicy: 'ReadWriteOnceWithFSType',
    volumeLifecycleModes: ['Persistent'],
    requiresRepublish: false,
    seLinuxMount: false,
  });
  assert.deepEqual(defaulted({ attachRequired: false, volumeLifecycleModes: ['Ephemeral'] }).spec.volumeLifecycleModes, ['Ephemeral']);
  assert.equal(defaulted({ attachRequired: false }).spec.attachRequired, false);
});

test('validateCSIDriverSpec: upstream cases and paths', () => {
  assert.deepEqual(errors(defaulted({ tokenRequests: [{ audience: 'a', expirationSeconds: 3600 }, { audience: '' }] })), []);
  assert.deepEqual(errors(driver({})), ['spec.attachedRequired: Required value', 'spec.podInfoOnMount: Required value', 'spec.storageCapacity: Required value', 'spec.seLinuxMount: Required value']);
  assert.deepEqual(errors(defaulted({ fsGroupPolicy: 'invalid-mode' })), ['spec.fsGroupPolicy: Unsupported value: "invalid-mode": supported values: "File", "None", "ReadWriteOnceWithFSType"']);
  assert.deepEqual(errors(defaulted({ volumeLifecycleModes: ['no-such-mode'] })), ['spec.volumeLifecycleModes: Unsupported value: "no-such-mode": supported values: "Persistent", "Ephemeral"']);
  assert.deepEqual(
    errors(defaulted({ tokenRequests: [{ audience: 'a', expirationSeconds: 10 }, { audience: 'a' }, { audience: 'b', expirationSeconds: 2 ** 32 + 1 }] })),
    [
      'spec.tokenRequests[0].expirationSeconds: Invalid value: 10: may not specify a duration less than 10 minutes',
      'spec.tokenRequests[1].audience: Duplicate value: "a"',
      'spec.tokenRequests[2].expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds',
    ],
  );
});

test('ValidateCSIDriverUpdate: attachRequired and volumeLifecycleModes are immutable; tokenRequests changes bump the generation', () => {
  const old = defaulted();
  assert.deepEqual(csiDriverStrategy.validateUpdate(defaulted({ podInfoOnMount: true, storageCapacity: true }), old), []);
  assert.deepEqual(csiDriverStrategy.validateUpdate(defaulted({ attachRequired: false, volumeLifecycleModes: ['Ephemeral'] }), old).map(fieldErrorString), [
    'spec.attachedRequired: Invalid value: false: field is immutable',
    'spec.volumeLifecycleModes: Invalid value: ["Ephemeral"]: field is immutable',
  ]);
  const same = defaulted({ podInfoOnMount: true });
  csiDriverStrategy.prepareForUpdate(same, old);
  assert.equal(same.metadata?.generation, undefined);
  const republish = defaulted({ requiresRepublish: true, tokenRequests: [{ audience: 'x' }] });
  csiDriverStrategy.prepareForUpdate(republish, { ...old, metadata: { name: 'csi.example.com', generation: 1 } });
  assert.equal(republish.metadata?.generation, 2);
});

test('nodeAllocatableUpdatePeriodSeconds is dropped while its gate is off', () => {
  const d = defaulted({ nodeAllocatableUpdatePeriodSeconds: 5 });
  csiDriverStrategy.prepareForCreate(d, 0);
  assert.equal(d.spec.nodeAllocatableUpdatePeriodSeconds, undefined);
});

test('the table row: NAME ATTACHREQUIRED PODINFOONMOUNT STORAGECAPACITY TOKENREQUESTS REQUIRESREPUBLISH MODES AGE', () => {
  assert.deepEqual(csiDriverStrategy.table.columns.map((c) => c.name), ['Name', 'AttachRequired', 'PodInfoOnMount', 'StorageCapacity', 'TokenRequests', 'RequiresRepublish', 'Modes', 'Age']);
  const d: Driver = { ...defaulted({ tokenRequests: [{ audience: 'a' }, { audience: 'b' }], volumeLifecycleModes: ['Persistent', 'Ephemeral'] }), metadata: { name: 'csi.example.com', creationTimestamp: '2025-01-01T00:00:00Z' } };
  assert.deepEqual(csiDriverStrategy.table.row(d, Date.parse('2025-01-01T01:00:00Z')).cells, ['csi.example.com', true, false, false, 'a,b', false, 'Persistent,Ephemeral', '60m']);
  assert.deepEqual(csiDriverStrategy.table.row(driver({}), 0).cells.slice(1, 7), [true, false, false, '<unset>', false, '<none>']);
});
