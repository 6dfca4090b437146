/**
 * StatefulSet defaulting (pkg/apis/apps/v1/defaults_test.go TestSetDefaultStatefulSetSpec…),
 * validation (pkg/apis/apps/validation/validation_test.go TestValidateStatefulSet and
 * TestValidateStatefulSetUpdate cases, with upstream's paths and messages), the update and status
 * rules of pkg/registry/apps/statefulset/strategy.go, the table row and the scale subresource.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { StatefulSet as WireStatefulSet, StatefulSetSpec } from '../../../api/index.js';
import { fieldErrorString, type FieldError } from '../../../machinery/errors/index.js';
import { defaultFeatureGate } from '../../../machinery/featuregate/index.js';
import { parseTime } from '../../../util/clock/index.js';
import type { ApiObject } from './helpers.js';
import { statefulSetStrategy } from './statefulsets.js';

type StatefulSet = ApiObject<WireStatefulSet>;

const msgs = (errs: FieldError[]): string[] => errs.map(fieldErrorString);
const clone = <T>(v: T): T => structuredClone(v);
const NOW = parseTime('2025-01-01T00:10:00Z')!;

/** The StatefulSet of the Kubernetes tutorial (web, headless service nginx, a claim template). */
function raw(): StatefulSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      serviceName: 'nginx',
      replicas: 2,
      selector: { matchLabels: { app: 'nginx' } },
      template: {
        metadata: { labels: { app: 'nginx' } },
        spec: { containers: [{ name: 'nginx', image: 'registry.k8s.io/nginx-slim:0.24', volumeMounts: [{ name: 'www', mountPath: '/usr/share/nginx/html' }] }] },
      },
      volumeClaimTemplates: [{ metadata: { name: 'www' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
    },
  };
}

function created(mutate: (s: StatefulSet) => void = () => {}): StatefulSet {
  const s = raw();
  mutate(s);
  statefulSetStrategy.defaults(s);
  statefulSetStrategy.prepareForCreate(s, NOW);
  return s;
}

const validate = (mutate: (s: StatefulSet) => void): string[] => msgs(statefulSetStrategy.validate(created(mutate)));

describe('defaults', () => {
  test('SetDefaults_StatefulSet, the pod template and the claim templates', () => {
    const s = created();
    const spec = s.spec!;
    assert.equal(spec.podManagementPolicy, 'OrderedReady');
    assert.deepEqual(spec.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
    assert.deepEqual(spec.persistentVolumeClaimRetentionPolicy, { whenDeleted: 'Retain', whenScaled: 'Retain' });
    assert.equal(spec.revisionHistoryLimit, 10);
    assert.equal(spec.template.spec?.restartPolicy, 'Always');
    assert.equal(spec.template.spec?.containers[0]?.imagePullPolicy, 'IfNotPresent');
    assert.deepEqual(spec.volumeClaimTemplates, [
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'www' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeMode: 'Filesystem' },
        status: { phase: 'Pending' },
      },
    ]);
    assert.deepEqual(s.status, { replicas: 0, availableReplicas: 0 });
    assert.equal(s.metadata?.generation, 1);
  });

  test('replicas 1 and serviceName "" when absent; a given strategy is kept as given', () => {
    const s = created((x) => {
      delete x.spec!.replicas;
      delete (x.spec as Partial<StatefulSetSpec>).serviceName;
      x.spec!.updateStrategy = { type: 'RollingUpdate' };
    });
    assert.equal(s.spec?.replicas, 1);
    assert.equal(s.spec?.serviceName, '');
    assert.deepEqual(s.spec?.updateStrategy, { type: 'RollingUpdate' }, 'rollingUpdate is added only with the type');
    assert.deepEqual(created((x) => (x.spec!.updateStrategy = { type: 'OnDelete' })).spec?.updateStrategy, { type: 'OnDelete' });
  });

  test('maxUnavailable is dropped: MaxUnavailableStatefulSet is alpha and off in 1.33', () => {
    const s = created((x) => (x.spec!.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { partition: 1, maxUnavailable: 2 } }));
    assert.deepEqual(s.spec?.updateStrategy?.rollingUpdate, { partition: 1 });
  });

  test('with --feature-gates=MaxUnavailableStatefulSet=true maxUnavailable is kept and defaults to 1', () => {
    defaultFeatureGate.set('MaxUnavailableStatefulSet=true');
    try {
      const s = created((x) => (x.spec!.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { partition: 1, maxUnavailable: 2 } }));
      assert.deepEqual(s.spec?.updateStrategy?.rollingUpdate, { partition: 1, maxUnavailable: 2 });
      assert.deepEqual(created(() => {}).spec?.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { partition: 0, maxUnavailable: 1 } });
    } finally {
      defaultFeatureGate.reset();
    }
  });
});

describe('validate', () => {
  test('the tutorial StatefulSet is valid', () => assert.deepEqual(validate(() => {}), []));

  test('the name must be a DNS label', () => {
    assert.deepEqual(validate((s) => (s.metadata!.name = 'web.v1')), ['metadata.name: Invalid value: "web.v1": must not contain dots']);
  });

  test('podManagementPolicy and updateStrategy', () => {
    assert.deepEqual(validate((s) => (s.spec!.podManagementPolicy = 'Sometimes')), ["spec.podManagementPolicy: Invalid value: \"Sometimes\": must be 'OrderedReady' or 'Parallel'"]);
    assert.deepEqual(validate((s) => (s.spec!.updateStrategy = { type: 'Blue' })), [
      'spec.updateStrategy: Invalid value: {"type":"Blue"}: must be \'RollingUpdate\' or \'OnDelete\'',
    ]);
    const onDelete = created((s) => (s.spec!.updateStrategy = { type: 'OnDelete' }));
    onDelete.spec!.updateStrategy!.rollingUpdate = { partition: 0 };
    assert.deepEqual(msgs(statefulSetStrategy.validate(onDelete)), [
      "spec.updateStrategy.rollingUpdate: Invalid value: {\"partition\":0}: only allowed for updateStrategy 'RollingUpdate'",
    ]);
    assert.deepEqual(validate((s) => (s.spec!.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { partition: -1 } })), [
      'spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than or equal to 0',
    ]);
  });

  test('PVC retention policy', () => {
    assert.deepEqual(validate((s) => (s.spec!.persistentVolumeClaimRetentionPolicy = { whenDeleted: 'Keep', whenScaled: 'Delete' })), [
      'spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: "Keep": supported values: "Retain", "Delete"',
    ]);
  });

  test('replicas, minReadySeconds and ordinals.start ≥ 0', () => {
    assert.deepEqual(
      validate((s) => {
        s.spec!.replicas = -1;
        s.spec!.minReadySeconds = -1;
        s.spec!.ordinals = { start: -2 };
      }),
      [
        'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
        'spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0',
        'spec.ordinals.start: Invalid value: -2: must be greater than or equal to 0',
      ],
    );
  });

  test('serviceName, when set, must be a DNS label (1.33)', () => {
    assert.deepEqual(validate((s) => (s.spec!.serviceName = 'Nginx_svc')), [
      `spec.serviceName: Invalid value: "Nginx_svc": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    ]);
    assert.deepEqual(validate((s) => (s.spec!.serviceName = '')), []);
  });

  test('selector required, not empty, matching the template', () => {
    assert.deepEqual(
      validate((s) => delete (s.spec as Partial<StatefulSetSpec>).selector),
      ['spec.selector: Required value', 'spec.template.metadata.labels: Invalid value: {"app":"nginx"}: `selector` does not match template `labels`'],
    );
    assert.deepEqual(validate((s) => (s.spec!.selector = {})), ['spec.selector: Invalid value: {}: empty selector is invalid for statefulset']);
    assert.deepEqual(validate((s) => (s.spec!.template.metadata!.labels = { app: 'web' })), [
      'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`',
    ]);
  });

  test('template: restartPolicy Always, no activeDeadlineSeconds', () => {
    assert.deepEqual(validate((s) => (s.spec!.template.spec!.restartPolicy = 'Never')), [
      'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
    ]);
    assert.deepEqual(validate((s) => (s.spec!.template.spec!.activeDeadlineSeconds = 5)), [
      'spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in StatefulSet is not Supported',
    ]);
  });

  test('the PodSpec itself is not validated, as upstream (kubernetes issue #81147)', () => {
    assert.deepEqual(validate((s) => (s.spec!.template.spec!.containers = [])), []);
  });
});

describe('update', () => {
  const FORBIDDEN =
    "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";
  const update = (mutate: (s: StatefulSet) => void): [StatefulSet, string[]] => {
    const old = created();
    const s = clone(old);
    mutate(s);
    statefulSetStrategy.defaults(s);
    statefulSetStrategy.prepareForUpdate(s, old);
    return [s, msgs(statefulSetStrategy.validateUpdate(s, old))];
  };

  test('replicas, template, updateStrategy, ordinals, retention policy and minReadySeconds may change; generation bumps', () => {
    const [s, errs] = update((x) => {
      x.spec!.replicas = 5;
      x.spec!.template.spec!.containers[0]!.image = 'nginx:1.27';
      x.spec!.updateStrategy = { type: 'OnDelete' };
      x.spec!.ordinals = { start: 3 };
      x.spec!.persistentVolumeClaimRetentionPolicy = { whenDeleted: 'Delete', whenScaled: 'Delete' };
      x.spec!.minReadySeconds = 10;
    });
    assert.deepEqual(errs, []);
    assert.equal(s.metadata?.generation, 2);
  });

  test('claim templates, serviceName, podManagementPolicy, selector and revisionHistoryLimit may not', () => {
    for (const mutate of [
      (x: StatefulSet) => (x.spec!.volumeClaimTemplates![0]!.spec!.resources!.requests!['storage'] = '2Gi'),
      (x: StatefulSet) => (x.spec!.serviceName = 'other'),
      (x: StatefulSet) => (x.spec!.podManagementPolicy = 'Parallel'),
      (x: StatefulSet) => (x.spec!.revisionHistoryLimit = 3),
    ]) {
      assert.deepEqual(update(mutate)[1], [FORBIDDEN]);
    }
  });

  test('a client cannot write status; labels alone do not bump the generation', () => {
    const [s] = update((x) => {
      x.status = { replicas: 9 };
      x.metadata!.labels = { a: 'b' };
    });
    assert.deepEqual(s.status, { replicas: 0, availableReplicas: 0 });
    assert.equal(s.metadata?.generation, 1);
  });
});

describe('status update', () => {
  test('keeps spec; counts are consistent; collisionCount not decremented', () => {
    const old = created();
    old.status = { replicas: 0, collisionCount: 2 };
    const s = clone(old);
    s.spec!.replicas = 100;
    s.status = { replicas: 1, readyReplicas: 2, availableReplicas: 3, currentReplicas: -1, collisionCount: 1 };
    statefulSetStrategy.prepareForStatusUpdate!(s, old);
    assert.equal(s.spec?.replicas, 2);
    assert.deepEqual(msgs(statefulSetStrategy.validateStatusUpdate!(s, old)), [
      'status.currentReplicas: Invalid value: -1: must be greater than or equal to 0',
      'status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas',
      'status.availableReplicas: Invalid value: 3: cannot be greater than status.replicas',
      'status.availableReplicas: Invalid value: 3: cannot be greater than status.readyReplicas',
      'status.collisionCount: Invalid value: 1: cannot be decremented',
    ]);
  });
});

test('table: NAME READY AGE, wide CONTAINERS IMAGES', () => {
  const s = created((x) => (x.metadata!.creationTimestamp = '2025-01-01T00:00:00Z'));
  s.status = { replicas: 2, readyReplicas: 1 };
  assert.deepEqual(statefulSetStrategy.table.row(s, NOW).cells, ['web', '1/2', '10m', 'nginx', 'registry.k8s.io/nginx-slim:0.24']);
  assert.deepEqual(
    statefulSetStrategy.table.columns.map((c) => `${c.name}:${c.type}:${c.priority}`),
    ['Name:string:0', 'Ready:string:0', 'Age:string:0', 'Containers:string:1', 'Images:string:1'],
  );
});

test('scale and discovery', () => {
  const s = created();
  s.status = { replicas: 1 };
  const scale = statefulSetStrategy.scale!;
  assert.deepEqual([scale.specReplicas(s), scale.statusReplicas(s), scale.selector(s)], [2, 1, 'app=nginx']);
  const info = statefulSetStrategy.info;
  assert.deepEqual([info.group, info.version, info.resource, info.kind, info.shortNames, info.categories], ['apps', 'v1', 'statefulsets', 'StatefulSet', ['sts'], ['all']]);
  assert.deepEqual(info.subresources.map((r) => `${r.name}:${r.group}/${r.version}/${r.kind}`), ['scale:autoscaling/v1/Scale', 'status:apps/v1/StatefulSet']);
});
