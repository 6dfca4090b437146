import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ControllerRevision as WireControllerRevision } from '../../../api/index.js';
import { fieldErrorString } from '../../../machinery/errors/index.js';
import { parseTime } from '../../../util/clock/index.js';
import { controllerRevisionStrategy } from './controllerrevisions.js';
import type { ApiObject } from './helpers.js';

type ControllerRevision = ApiObject<WireControllerRevision>;

const NOW = parseTime('2025-01-01T00:10:00Z')!;

function revision(): ControllerRevision {
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: 'fluentd-elasticsearch-5fd669cccc',
      namespace: 'kube-system',
      creationTimestamp: '2025-01-01T00:00:00Z',
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'fluentd-elasticsearch', uid: 'u1', controller: true }],
    },
    data: { spec: { template: { $patch: 'replace' } } },
    revision: 2,
  };
}

test('validation: data is mandatory, revision ≥ 0, data immutable', () => {
  const s = controllerRevisionStrategy;
  assert.deepEqual(s.validate(revision()), []);
  const bad = { ...revision(), data: undefined, revision: -1 };
  assert.deepEqual(s.validate(bad).map(fieldErrorString), [
    'data: Required value: data is mandatory',
    'revision: Invalid value: -1: must be greater than or equal to 0',
  ]);
  assert.deepEqual(s.validateUpdate({ ...revision(), revision: 3 }, revision()), []);
  assert.deepEqual(s.validateUpdate({ ...revision(), data: { spec: {} } }, revision()).map(fieldErrorString), [
    'data: Invalid value: {"spec":{}}: field is immutable',
  ]);
});

test('table: CONTROLLER is kind.group/name, REVISION the number', () => {
  const t = controllerRevisionStrategy.table;
  assert.deepEqual(t.columns.map((c) => c.name), ['Name', 'Controller', 'Revision', 'Age']);
  assert.deepEqual(t.row(revision(), NOW).cells, ['fluentd-elasticsearch-5fd669cccc', 'daemonset.apps/fluentd-elasticsearch', 2, '10m']);
  const orphan = revision();
  delete orphan.metadata!.ownerReferences;
  assert.equal(t.row(orphan, NOW).cells[1], '<none>');
});
