import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ReplicaSet as WireReplicaSet } from '../../../api/index.js';
import { fieldErrorString, type FieldError } from '../../../machinery/errors/index.js';
import { parseTime } from '../../../util/clock/index.js';
import type { ApiObject } from './helpers.js';
import { replicaSetStrategy } from './replicasets.js';

type ReplicaSet = ApiObject<WireReplicaSet>;

const msgs = (errs: FieldError[]): string[] => errs.map(fieldErrorString);
const clone = <T>(v: T): T => structuredClone(v);
const NOW = parseTime('2025-01-01T02:00:00Z')!;

/** The ReplicaSet the Deployment controller creates for the seed nginx Deployment, before defaults. */
function created(mutate: (rs: ReplicaSet) => void = () => {}): ReplicaSet {
  const rs: ReplicaSet = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: 'nginx-5d8c', namespace: 'default', labels: { app: 'nginx', 'pod-template-hash': '5d8c' } },
    spec: {
      selector: { matchLabels: { app: 'nginx', 'pod-template-hash': '5d8c' } },
      template: {
        metadata: { labels: { app: 'nginx', 'pod-template-hash': '5d8c' } },
        spec: { containers: [{ name: 'nginx', image: 'nginx:1.9.1' }] },
      },
    },
  };
  mutate(rs);
  replicaSetStrategy.defaults(rs);
  replicaSetStrategy.prepareForCreate(rs, NOW);
  return rs;
}

test('defaults and prepareForCreate', () => {
  const rs = created();
  assert.equal(rs.spec?.replicas, 1);
  assert.equal(rs.metadata?.generation, 1);
  assert.deepEqual(rs.status, { replicas: 0 });
  assert.deepEqual(rs.spec?.template?.spec, {
    containers: [
      {
        name: 'nginx',
        image: 'nginx:1.9.1',
        imagePullPolicy: 'IfNotPresent',
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
        resources: {},
      },
    ],
    dnsPolicy: 'ClusterFirst',
    restartPolicy: 'Always',
    securityContext: {},
    terminationGracePeriodSeconds: 30,
    schedulerName: 'default-scheduler',
  });
  assert.equal(created((x) => (x.spec!.replicas = 0)).spec?.replicas, 0);
});

test('validate', () => {
  assert.deepEqual(replicaSetStrategy.validate(created()), []);
  const bad = created((x) => {
    x.spec!.replicas = -1;
    x.spec!.minReadySeconds = -1;
    x.spec!.template!.metadata!.labels = { app: 'nginx' };
  });
  assert.deepEqual(msgs(replicaSetStrategy.validate(bad)), [
    'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    'spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0',
    'spec.template.metadata.labels: Invalid value: {"app":"nginx"}: `selector` does not match template `labels`',
  ]);
});

test('update: generation bumps on spec change only; selector immutable', () => {
  const old = created();
  const scaled = clone(old);
  scaled.spec!.replicas = 3;
  replicaSetStrategy.prepareForUpdate(scaled, old);
  assert.equal(scaled.metadata?.generation, 2);

  const annotated = clone(old);
  annotated.metadata!.annotations = { 'deployment.kubernetes.io/revision': '2' };
  replicaSetStrategy.prepareForUpdate(annotated, old);
  assert.equal(annotated.metadata?.generation, 1);

  const reselected = clone(old);
  reselected.spec!.selector = { matchLabels: { app: 'nginx' } };
  assert.deepEqual(msgs(replicaSetStrategy.validateUpdate(reselected, old)), [
    'spec.selector: Invalid value: {"matchLabels":{"app":"nginx"}}: field is immutable',
  ]);
});

test('status update keeps spec and checks counts', () => {
  const old = created();
  const rs = clone(old);
  rs.spec!.replicas = 9;
  rs.status = { replicas: 1, fullyLabeledReplicas: 2, readyReplicas: 1, availableReplicas: 1, observedGeneration: 1 };
  replicaSetStrategy.prepareForStatusUpdate!(rs, old, 0);
  assert.equal(rs.spec?.replicas, 1);
  assert.deepEqual(msgs(replicaSetStrategy.validateStatusUpdate!(rs, old)), [
    'status.fullyLabeledReplicas: Invalid value: 2: cannot be greater than status.replicas',
  ]);
});

test('table cells, field selector and scale', () => {
  const rs = created((x) => (x.metadata!.creationTimestamp = '2025-01-01T00:00:00Z'));
  rs.status = { replicas: 1, readyReplicas: 1 };
  assert.deepEqual(replicaSetStrategy.table.row(rs, NOW).cells, [
    'nginx-5d8c',
    1,
    1,
    1,
    '120m',
    'nginx',
    'nginx:1.9.1',
    'app=nginx,pod-template-hash=5d8c',
  ]);
  assert.deepEqual(
    replicaSetStrategy.table.columns.map((c) => `${c.name}:${c.type}:${c.priority}`),
    ['Name:string:0', 'Desired:integer:0', 'Current:integer:0', 'Ready:integer:0', 'Age:string:0', 'Containers:string:1', 'Images:string:1', 'Selector:string:1'],
  );
  assert.equal(replicaSetStrategy.fieldSelectors['status.replicas']!(rs), '1');
  assert.equal(replicaSetStrategy.scale!.selector(rs), 'app=nginx,pod-template-hash=5d8c');
  assert.equal(replicaSetStrategy.scale!.statusReplicas(rs), 1);
  (rs.spec as { selector?: unknown }).selector = undefined;
  assert.equal(replicaSetStrategy.table.row(rs, NOW).cells[7], '<none>');
});
