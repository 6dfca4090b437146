import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import type { Deployment as WireDeployment } from '../../../api/index.js';
import { fieldErrorString, type FieldError } from '../../../machinery/errors/index.js';
import { parseTime } from '../../../util/clock/index.js';
import { deploymentStrategy } from './deployments.js';
import type { ApiObject } from './helpers.js';

type Deployment = ApiObject<WireDeployment>;

const msgs = (errs: FieldError[]): string[] => errs.map(fieldErrorString);
const clone = <T>(v: T): T => structuredClone(v);
const NOW = parseTime('2025-01-01T00:10:00Z')!;

/** /work/shared/manifests/nginx-deployment.yaml (the seed's Deployment), verbatim. */
const NGINX_DEPLOYMENT_YAML = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx
spec:
  replicas: 3
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:1.9.1
`;

function created(mutate: (d: Deployment) => void = () => {}): Deployment {
  const d = parse(NGINX_DEPLOYMENT_YAML) as Deployment;
  mutate(d);
  deploymentStrategy.defaults(d);
  deploymentStrategy.prepareForCreate(d, NOW);
  return d;
}

const validate = (mutate: (d: Deployment) => void): string[] => msgs(deploymentStrategy.validate(created(mutate)));

test('the seed manifest, defaulted and prepared for create', () => {
  assert.deepEqual(created(), {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'nginx', generation: 1 },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'nginx' } },
      template: {
        metadata: { labels: { app: 'nginx' } },
        spec: {
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
        },
      },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    },
    status: {},
  });
});

describe('defaults', () => {
  test('replicas 1 when absent; explicit values kept', () => {
    const d = created((x) => {
      delete x.spec!.replicas;
      x.spec!.revisionHistoryLimit = 0;
      x.spec!.strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0 } };
    });
    assert.equal(d.spec?.replicas, 1);
    assert.equal(d.spec?.revisionHistoryLimit, 0);
    assert.deepEqual(d.spec?.strategy, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: '25%' } });
  });

  test('Recreate gets no rollingUpdate', () => {
    assert.deepEqual(created((x) => (x.spec!.strategy = { type: 'Recreate' })).spec?.strategy, { type: 'Recreate' });
  });
});

describe('validate', () => {
  test('the seed manifest is valid', () => assert.deepEqual(validate(() => {}), []));

  test('replicas ≥ 0', () => {
    assert.deepEqual(validate((d) => (d.spec!.replicas = -1)), ['spec.replicas: Invalid value: -1: must be greater than or equal to 0']);
  });

  test('selector must match template labels', () => {
    assert.deepEqual(validate((d) => (d.spec!.template.metadata!.labels = { app: 'web' })), [
      'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`',
    ]);
  });

  test('empty selector', () => {
    assert.deepEqual(validate((d) => (d.spec!.selector = {})), ['spec.selector: Invalid value: {}: empty selector is invalid for deployment']);
  });

  test('minReadySeconds ≥ 0 and progressDeadlineSeconds > minReadySeconds', () => {
    assert.deepEqual(validate((d) => (d.spec!.minReadySeconds = -5)), ['spec.minReadySeconds: Invalid value: -5: must be greater than or equal to 0']);
    assert.deepEqual(
      validate((d) => {
        d.spec!.minReadySeconds = 600;
      }),
      ['spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds'],
    );
  });

  test('revisionHistoryLimit ≥ 0', () => {
    assert.deepEqual(validate((d) => (d.spec!.revisionHistoryLimit = -1)), [
      'spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0',
    ]);
  });

  test('strategy type', () => {
    assert.deepEqual(validate((d) => (d.spec!.strategy = { type: 'BlueGreen' })), [
      'spec.strategy: Unsupported value: {"type":"BlueGreen"}: supported values: "Recreate", "RollingUpdate"',
    ]);
  });

  test('rollingUpdate is forbidden with Recreate', () => {
    const d = created((x) => (x.spec!.strategy = { type: 'Recreate' }));
    d.spec!.strategy!.rollingUpdate = { maxSurge: 1 };
    assert.deepEqual(msgs(deploymentStrategy.validate(d)), [
      "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'",
    ]);
  });

  test('maxSurge / maxUnavailable', () => {
    const ru = (maxSurge: number | string, maxUnavailable: number | string): string[] =>
      validate((d) => (d.spec!.strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge, maxUnavailable } }));
    assert.deepEqual(ru(1, 0), []);
    assert.deepEqual(ru('0%', 1), []);
    assert.deepEqual(ru(0, 0), ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0']);
    assert.deepEqual(ru('0%', '0%'), ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "0%": may not be 0 when `maxSurge` is 0']);
    assert.deepEqual(ru(-1, 1), ['spec.strategy.rollingUpdate.maxSurge: Invalid value: -1: must be greater than or equal to 0']);
    assert.deepEqual(ru(1, '150%'), ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "150%": must not be greater than 100%']);
    assert.deepEqual(ru('200%', 1), []);
    assert.deepEqual(ru('x%', 1), [
      `spec.strategy.rollingUpdate.maxSurge: Invalid value: "x%": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`,
    ]);
  });
});

describe('update', () => {
  const update = (mutate: (d: Deployment) => void): [Deployment, string[]] => {
    const old = created();
    const d = clone(old);
    mutate(d);
    deploymentStrategy.prepareForUpdate(d, old);
    return [d, msgs(deploymentStrategy.validateUpdate(d, old))];
  };

  test('spec change bumps generation', () => {
    const [d, errs] = update((x) => (x.spec!.replicas = 5));
    assert.deepEqual(errs, []);
    assert.equal(d.metadata?.generation, 2);
  });

  test('annotation change bumps generation', () => {
    const [d] = update((x) => (x.metadata!.annotations = { 'kubernetes.io/change-cause': 'x' }));
    assert.equal(d.metadata?.generation, 2);
  });

  test('label change does not', () => {
    const [d] = update((x) => (x.metadata!.labels = { team: 'a' }));
    assert.equal(d.metadata?.generation, 1);
  });

  test('a client cannot move the generation or write status', () => {
    const [d] = update((x) => {
      x.metadata!.generation = 7;
      x.status = { replicas: 9 };
    });
    assert.equal(d.metadata?.generation, 1);
    assert.deepEqual(d.status, {});
  });

  test('selector is immutable', () => {
    const [, errs] = update((x) => {
      x.spec!.selector = { matchLabels: { app: 'nginx', tier: 'web' } };
      x.spec!.template.metadata!.labels = { app: 'nginx', tier: 'web' };
    });
    assert.deepEqual(errs, ['spec.selector: Invalid value: {"matchLabels":{"app":"nginx","tier":"web"}}: field is immutable']);
  });
});

describe('status update', () => {
  test('keeps spec and labels', () => {
    const old = created((x) => (x.metadata!.labels = { a: 'b' }));
    const d = clone(old);
    d.spec!.replicas = 100;
    d.metadata!.labels = {};
    d.status = { replicas: 3, readyReplicas: 2, availableReplicas: 2, updatedReplicas: 3, observedGeneration: 1 };
    deploymentStrategy.prepareForStatusUpdate!(d, old, 0);
    assert.equal(d.spec?.replicas, 3);
    assert.deepEqual(d.metadata?.labels, { a: 'b' });
    assert.deepEqual(deploymentStrategy.validateStatusUpdate!(d, old), []);
  });

  test('status consistency and collisionCount', () => {
    const old = created();
    old.status = { collisionCount: 2 };
    const d = clone(old);
    d.status = { replicas: 1, readyReplicas: 2, availableReplicas: 3, updatedReplicas: -1, collisionCount: 1 };
    assert.deepEqual(msgs(deploymentStrategy.validateStatusUpdate!(d, old)), [
      'status.updatedReplicas: Invalid value: -1: must be greater than or equal to 0',
      'status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas',
      'status.availableReplicas: Invalid value: 3: cannot be greater than status.replicas',
      'status.availableReplicas: Invalid value: 3: cannot be greater than readyReplicas',
      'status.collisionCount: Invalid value: 1: cannot be decremented',
    ]);
  });
});

test('table cells of a defaulted Deployment', () => {
  const d = created((x) => (x.metadata!.creationTimestamp = '2025-01-01T00:00:00Z'));
  d.status = { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 };
  assert.deepEqual(deploymentStrategy.table.row(d, NOW).cells, ['nginx', '2/3', 3, 2, '10m', 'nginx', 'nginx:1.9.1', 'app=nginx']);
  assert.deepEqual(
    deploymentStrategy.table.columns.map((c) => `${c.name}:${c.type}:${c.priority}`),
    ['Name:string:0', 'Ready:string:0', 'Up-to-date:string:0', 'Available:string:0', 'Age:string:0', 'Containers:string:1', 'Images:string:1', 'Selector:string:1'],
  );
});

test('scale', () => {
  const d = created();
  d.status = { replicas: 2 };
  const scale = deploymentStrategy.scale!;
  assert.equal(scale.specReplicas(d), 3);
  assert.equal(scale.statusReplicas(d), 2);
  assert.equal(scale.selector(d), 'app=nginx');
  scale.setSpecReplicas(d, 7);
  assert.equal(d.spec?.replicas, 7);
});

test('discovery info', () => {
  const info = deploymentStrategy.info;
  assert.deepEqual([info.group, info.version, info.resource, info.kind, info.shortNames, info.categories], ['apps', 'v1', 'deployments', 'Deployment', ['deploy'], ['all']]);
  assert.deepEqual(
    info.subresources.map((s) => `${s.name}:${s.group}/${s.version}/${s.kind}:${s.verbs.join(',')}`),
    ['scale:autoscaling/v1/Scale:get,patch,update', 'status:apps/v1/Deployment:get,patch,update'],
  );
});
