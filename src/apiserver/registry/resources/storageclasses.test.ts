/**
 * StorageClass defaulting, validation and update rules (cases of
 * pkg/apis/storage/validation/validation_test.go TestValidateStorageClass, TestValidateStorageClassUpdate,
 * TestValidateVolumeBindingModeForStorageClass, TestValidateAllowedTopologies), and the table row with
 * the `(default)` suffix.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StorageClass } from '../../../api/index.js';
import { fieldErrorString } from '../../../machinery/errors/index.js';
import type { ApiObject } from './helpers.js';
import { storageClassStrategy, validateStorageClass } from './storageclasses.js';

type SC = ApiObject<StorageClass>;

const sc = (extra: Partial<SC> = {}): SC => ({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'foo' }, provisioner: 'kubernetes.io/foo-provisioner', reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate', ...extra });
const errors = (s: SC): string[] => validateStorageClass(s).map(fieldErrorString);

test('SetDefaults_StorageClass: reclaimPolicy Delete, volumeBindingMode Immediate', () => {
  const s: SC = { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'x' }, provisioner: 'p' };
  storageClassStrategy.defaults(s);
  assert.equal(s.reclaimPolicy, 'Delete');
  assert.equal(s.volumeBindingMode, 'Immediate');
});

test('ValidateStorageClass: upstream cases and messages', () => {
  const cases: [string, SC, string[]][] = [
    ['valid', sc({ parameters: { kubernetes: '12345', foo: 'bar' } }), []],
    ['retain', sc({ reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer' }), []],
    ['missing provisioner', sc({ provisioner: '' }), ['provisioner: Required value']],
    [
      'invalid provisioner',
      sc({ provisioner: 'kubernetes.io/invalid/provisioner' }),
      ["provisioner: Invalid value: \"kubernetes.io/invalid/provisioner\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"],
    ],
    ['empty parameter name', sc({ parameters: { '': 'value' } }), ['parameters: Invalid value: "": field can not be empty.']],
    ['too many parameters', sc({ parameters: Object.fromEntries(Array.from({ length: 513 }, (_, i) => [`k${i}`, 'v'])) }), ['parameters: Too long: may not be more than 512 bytes']],
    ['parameters too large', sc({ parameters: { big: 'x'.repeat(256 * 1024) } }), ['parameters: Too long: may not be more than 262144 bytes']],
    ['invalid reclaimpolicy', sc({ reclaimPolicy: 'bogus' }), ['reclaimPolicy: Unsupported value: "bogus": supported values: "Delete", "Retain"']],
    ['Recycle is not for classes', sc({ reclaimPolicy: 'Recycle' }), ['reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"']],
    ['invalid binding mode', sc({ volumeBindingMode: 'foo' }), ['volumeBindingMode: Unsupported value: "foo": supported values: "Immediate", "WaitForFirstConsumer"']],
    [
      'topology: values required, keys distinct',
      sc({ allowedTopologies: [{ matchLabelExpressions: [{ key: 'zone', values: [] }, { key: 'zone', values: ['a', 'a'] }] }] }),
      ['allowedTopologies[0].matchLabelExpressions[0].values: Required value', 'allowedTopologies[0].matchLabelExpressions[1].values[1]: Duplicate value: "a"', 'allowedTopologies[0].matchLabelExpressions[1].key: Duplicate value: "zone"'],
    ],
    [
      'topology: a term repeated',
      sc({ allowedTopologies: [{ matchLabelExpressions: [{ key: 'zone', values: ['a', 'b'] }] }, { matchLabelExpressions: [{ key: 'zone', values: ['b', 'a'] }] }] }),
      ['allowedTopologies[1].matchLabelExpressions: Duplicate value: ""'],
    ],
    [
      'topology: an expression with neither key nor values (what a client may send)',
      sc({ allowedTopologies: [{ matchLabelExpressions: [{} as never] }] }),
      [
        'allowedTopologies[0].matchLabelExpressions[0].values: Required value',
        "allowedTopologies[0].matchLabelExpressions[0].key: Invalid value: \"\": name part must be non-empty",
        "allowedTopologies[0].matchLabelExpressions[0].key: Invalid value: \"\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ],
    ],
    ['no provisioner at all', { ...sc(), provisioner: undefined as never }, ['provisioner: Required value']],
  ];
  for (const [name, s, want] of cases) assert.deepEqual(errors(s), want, name);
});

test('ValidateStorageClassUpdate: parameters, provisioner, reclaimPolicy and volumeBindingMode are immutable', () => {
  const old = sc({ parameters: { a: '1' } });
  assert.deepEqual(storageClassStrategy.validateUpdate(sc({ parameters: { a: '1' }, allowVolumeExpansion: true, mountOptions: ['ro'] }), old), []);
  assert.deepEqual(
    storageClassStrategy.validateUpdate(sc({ parameters: { a: '2' }, provisioner: 'other', reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer' }), old).map(fieldErrorString),
    [
      'parameters: Forbidden: updates to parameters are forbidden.',
      'provisioner: Forbidden: updates to provisioner are forbidden.',
      'reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.',
      'volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable',
    ],
  );
  // reflect.DeepEqual: an absent map is not an empty one.
  assert.deepEqual(storageClassStrategy.validateUpdate(sc({ parameters: {} }), sc()).map(fieldErrorString), ['parameters: Forbidden: updates to parameters are forbidden.']);
});

test('the table row: NAME PROVISIONER RECLAIMPOLICY VOLUMEBINDINGMODE ALLOWVOLUMEEXPANSION AGE, `(default)` for the default class', () => {
  assert.deepEqual(storageClassStrategy.table.columns.map((c) => c.name), ['Name', 'Provisioner', 'ReclaimPolicy', 'VolumeBindingMode', 'AllowVolumeExpansion', 'Age']);
  const meta = (annotations?: Record<string, string>) => ({ name: 'standard', creationTimestamp: '2025-01-01T00:00:00Z', ...(annotations ? { annotations } : {}) });
  const now = Date.parse('2025-01-01T00:00:10Z');
  assert.deepEqual(storageClassStrategy.table.row(sc({ metadata: meta({ 'storageclass.kubernetes.io/is-default-class': 'true' }) }), now).cells, ['standard (default)', 'kubernetes.io/foo-provisioner', 'Delete', 'Immediate', false, '10s']);
  assert.equal(storageClassStrategy.table.row(sc({ metadata: meta({ 'storageclass.beta.kubernetes.io/is-default-class': 'true' }) }), now).cells[0], 'standard (default)');
  assert.equal(storageClassStrategy.table.row(sc({ metadata: meta({ 'storageclass.kubernetes.io/is-default-class': 'false' }) }), now).cells[0], 'standard');
  assert.deepEqual(storageClassStrategy.table.row(sc({ metadata: meta(), allowVolumeExpansion: true, volumeBindingMode: 'WaitForFirstConsumer' }), now).cells.slice(3, 5), ['WaitForFirstConsumer', true]);
});
