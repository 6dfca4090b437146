/**
 * ReplicationControllers: SetDefaults_ReplicationController, ValidateReplicationController (cases
 * after TestValidateReplicationController's errorCases in pkg/apis/core/validation/validation_test.go:
 * empty selector, selector not matching, no template, negative replicas, restart policies,
 * activeDeadlineSeconds), the status and spec rules of the strategy, the scale subresource and
 * printReplicationController.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ReplicationController as WireRC } from '../../../api/index.js';
import { fieldErrorString, type FieldError } from '../../../machinery/errors/index.js';
import type { ApiObject } from './helpers.js';
import { replicationControllerStrategy as strategy } from './replicationcontrollers.js';

type RC = ApiObject<WireRC>;

const msgs = (errs: FieldError[]): string[] => errs.map(fieldErrorString);
const NOW = Date.parse('2025-01-01T00:10:00Z');

function raw(mutate: (rc: RC) => void = () => {}): RC {
  const rc: RC = {
    apiVersion: 'v1',
    kind: 'ReplicationController',
    metadata: { name: 'web', namespace: 'default', creationTimestamp: '2025-01-01T00:00:00Z' },
    spec: { template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } } },
  };
  mutate(rc);
  return rc;
}

function created(mutate: (rc: RC) => void = () => {}): RC {
  const rc = raw(mutate);
  strategy.defaults(rc);
  strategy.prepareForCreate(rc, NOW);
  return rc;
}

test('defaults: selector and labels from the template labels, replicas 1, the template PodSpec', () => {
  const rc = created();
  // Copies, not the template's own map.
  assert.notStrictEqual(rc.spec?.selector, rc.spec?.template?.metadata?.labels);
  assert.notStrictEqual(rc.metadata?.labels, rc.spec?.template?.metadata?.labels);
  assert.deepEqual(rc.spec?.selector, { app: 'web' });
  assert.deepEqual(rc.metadata?.labels, { app: 'web' });
  assert.equal(rc.spec?.replicas, 1);
  assert.equal(rc.spec?.template?.spec?.restartPolicy, 'Always');
  assert.equal(rc.spec?.template?.spec?.containers[0]?.terminationMessagePolicy, 'File');
  // Set values are kept; replicas 0 stays 0.
  const own = created((x) => {
    x.metadata!.labels = { team: 'a' };
    x.spec!.selector = { app: 'web' };
    x.spec!.replicas = 0;
  });
  assert.deepEqual(own.metadata?.labels, { team: 'a' });
  assert.equal(own.spec?.replicas, 0);
  // Without template labels nothing is copied (and validation then wants a selector).
  const bare = created((x) => delete x.spec!.template!.metadata);
  assert.equal(bare.spec?.selector, undefined);
  assert.equal(bare.metadata?.labels, undefined);
  assert.deepEqual(msgs(strategy.validate(bare)), ['spec.selector: Required value']);
});

test('prepareForCreate: status reset, generation 1', () => {
  const rc = created((x) => (x.status = { replicas: 5, readyReplicas: 5 }));
  assert.deepEqual(rc.status, { replicas: 0 });
  assert.equal(rc.metadata?.generation, 1);
});

test('ValidateReplicationControllerSpec', () => {
  assert.deepEqual(strategy.validate(created()), []);
  assert.deepEqual(
    msgs(
      strategy.validate(
        created((x) => {
          x.spec!.selector = { app: 'db' };
          x.spec!.replicas = -1;
          x.spec!.minReadySeconds = -2;
        }),
      ),
    ),
    [
      'spec.minReadySeconds: Invalid value: -2: must be greater than or equal to 0',
      'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
      'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`',
    ],
  );
  assert.deepEqual(
    msgs(
      strategy.validate(
        created((x) => {
          x.spec!.selector = { app: 'web' };
          delete x.spec!.template;
        }),
      ),
    ),
    ['spec.template: Required value'],
  );
  for (const policy of ['OnFailure', 'Never']) {
    assert.deepEqual(msgs(strategy.validate(created((x) => (x.spec!.template!.spec!.restartPolicy = policy)))), [
      `spec.template.spec.restartPolicy: Unsupported value: "${policy}": supported values: "Always"`,
    ]);
  }
  assert.deepEqual(msgs(strategy.validate(created((x) => (x.spec!.template!.spec!.activeDeadlineSeconds = 10)))), [
    'spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicationController is not Supported',
  ]);
  assert.deepEqual(msgs(strategy.validate(created((x) => (x.spec!.template!.spec!.containers = [])))), ['spec.template.spec.containers: Required value']);
});

test('update: status kept, generation bumped on spec change only; the selector may change', () => {
  const old = created();
  old.status = { replicas: 3, readyReplicas: 2 };
  const next = created((x) => {
    x.spec!.replicas = 4;
    x.spec!.selector = { app: 'web' };
  });
  next.status = { replicas: 9 };
  next.metadata!.generation = 1;
  strategy.prepareForUpdate(next, old);
  assert.deepEqual(next.status, { replicas: 3, readyReplicas: 2 });
  assert.equal(next.metadata?.generation, 2);
  assert.deepEqual(strategy.validateUpdate(next, old), []);
  const labelsOnly = created((x) => (x.metadata!.labels = { app: 'web', extra: '1' }));
  labelsOnly.metadata!.generation = 1;
  strategy.prepareForUpdate(labelsOnly, created());
  assert.equal(labelsOnly.metadata?.generation, 1);
});

test('status update: spec kept, ValidateReplicationControllerStatus', () => {
  const old = created();
  const next = created((x) => (x.spec!.replicas = 7));
  next.status = { replicas: 2, readyReplicas: 3, availableReplicas: -1 };
  strategy.prepareForStatusUpdate!(next, old);
  assert.equal(next.spec?.replicas, 1);
  assert.deepEqual(msgs(strategy.validateStatusUpdate!(next, old)), [
    'status.availableReplicas: Invalid value: -1: must be greater than or equal to 0',
    'status.readyReplicas: Invalid value: 3: cannot be greater than status.replicas',
  ]);
});

test('scale: spec.replicas, status.replicas and the selector map as a selector string', () => {
  const rc = created((x) => (x.spec!.selector = { tier: 'fe', app: 'web' }));
  rc.spec!.template!.metadata!.labels = { app: 'web', tier: 'fe' };
  rc.status = { replicas: 2 };
  const scale = strategy.scale!;
  assert.equal(scale.specReplicas(rc), 1);
  assert.equal(scale.statusReplicas(rc), 2);
  assert.equal(scale.selector(rc), 'app=web,tier=fe');
  scale.setSpecReplicas(rc, 3);
  assert.equal(rc.spec?.replicas, 3);
});

test('printReplicationController: NAME DESIRED CURRENT READY AGE, wide CONTAINERS IMAGES SELECTOR', () => {
  assert.deepEqual(
    strategy.table.columns.map((c) => [c.name, c.type, c.priority]),
    [
      ['Name', 'string', 0],
      ['Desired', 'integer', 0],
      ['Current', 'integer', 0],
      ['Ready', 'integer', 0],
      ['Age', 'string', 0],
      ['Containers', 'string', 1],
      ['Images', 'string', 1],
      ['Selector', 'string', 1],
    ],
  );
  const rc = created((x) => (x.spec!.replicas = 3));
  rc.status = { replicas: 2, readyReplicas: 1 };
  assert.deepEqual(strategy.table.row(rc, NOW).cells, ['web', 3, 2, 1, '10m', 'nginx', 'nginx:1.27', 'app=web']);
  assert.equal(strategy.table.row(raw((x) => delete x.spec), NOW).cells[7], '<none>');
  assert.equal(strategy.fieldSelectors['status.replicas']?.(rc), '2');
});
