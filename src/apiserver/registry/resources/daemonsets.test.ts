import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import type { DaemonSet as WireDaemonSet } from '../../../api/index.js';
import { fieldErrorString, type FieldError } from '../../../machinery/errors/index.js';
import { parseTime } from '../../../util/clock/index.js';
import { TEMPLATE_GENERATION_ANNOTATION, daemonSetStrategy } from './daemonsets.js';
import type { ApiObject } from './helpers.js';

type DaemonSet = ApiObject<WireDaemonSet>;

const msgs = (errs: FieldError[]): string[] => errs.map(fieldErrorString);
const clone = <T>(v: T): T => structuredClone(v);
const NOW = parseTime('2025-01-01T00:10:00Z')!;

/** /work/shared/manifests/fluentd-daemonset.yaml (the seeds' DaemonSet). */
const FLUENTD_YAML = `
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: fluentd-elasticsearch
  namespace: kube-system
  labels:
    k8s-app: fluentd-logging
spec:
  selector:
    matchLabels:
      name: fluentd-elasticsearch
  template:
    metadata:
      labels:
        name: fluentd-elasticsearch
    spec:
      tolerations:
      - key: node-role.kubernetes.io/control-plane
        operator: Exists
        effect: NoSchedule
      containers:
      - name: fluentd-elasticsearch
        image: fluent/fluentd:v1.4-1
`;

function created(mutate: (d: DaemonSet) => void = () => {}): DaemonSet {
  const d = parse(FLUENTD_YAML) as DaemonSet;
  mutate(d);
  daemonSetStrategy.defaults(d);
  daemonSetStrategy.prepareForCreate(d, NOW);
  return d;
}

const validate = (mutate: (d: DaemonSet) => void): string[] => msgs(daemonSetStrategy.validate(created(mutate)));

describe('create', () => {
  test('defaults, initial status, generation 1 and template generation "1"', () => {
    const d = created();
    assert.deepEqual(d.spec?.updateStrategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
    assert.equal(d.spec?.revisionHistoryLimit, 10);
    assert.equal(d.spec?.template.spec?.restartPolicy, 'Always');
    assert.equal(d.spec?.template.spec?.containers[0]?.imagePullPolicy, 'IfNotPresent');
    assert.deepEqual(d.status, { currentNumberScheduled: 0, desiredNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0 });
    assert.equal(d.metadata?.generation, 1);
    assert.equal(d.metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION], '1');
  });

  test('a template generation given on create is kept (≥ 1)', () => {
    assert.equal(created((d) => (d.metadata!.annotations = { [TEMPLATE_GENERATION_ANNOTATION]: '5' })).metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION], '5');
    assert.equal(created((d) => (d.metadata!.annotations = { [TEMPLATE_GENERATION_ANNOTATION]: '0' })).metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION], '1');
  });

  test('OnDelete gets no rollingUpdate; partial rollingUpdate is completed', () => {
    assert.deepEqual(created((d) => (d.spec!.updateStrategy = { type: 'OnDelete' })).spec?.updateStrategy, { type: 'OnDelete' });
    assert.deepEqual(created((d) => (d.spec!.updateStrategy = { rollingUpdate: { maxSurge: '10%' } })).spec?.updateStrategy, {
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: '10%', maxUnavailable: 1 },
    });
  });
});

describe('validate', () => {
  test('the seed manifest is valid', () => assert.deepEqual(validate(() => {}), []));

  test('selector and template labels', () => {
    assert.deepEqual(validate((d) => (d.spec!.template.metadata!.labels = { name: 'x' })), [
      'spec.template.metadata.labels: Invalid value: {"name":"x"}: `selector` does not match template `labels`',
    ]);
    assert.deepEqual(validate((d) => (d.spec!.selector = {})), ['spec.selector: Invalid value: {}: empty selector is invalid for daemonset']);
    assert.deepEqual(validate((d) => delete (d.spec as Partial<typeof d.spec>)!.selector), [
      'spec.template.metadata.labels: Invalid value: {"name":"fluentd-elasticsearch"}: `selector` does not match template `labels`',
    ]);
  });

  test('restartPolicy and activeDeadlineSeconds', () => {
    assert.deepEqual(validate((d) => (d.spec!.template.spec!.restartPolicy = 'Never')), [
      'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"',
    ]);
    assert.deepEqual(validate((d) => (d.spec!.template.spec!.activeDeadlineSeconds = 10)), [
      'spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in DaemonSet is not Supported',
    ]);
  });

  test('minReadySeconds and revisionHistoryLimit ≥ 0', () => {
    assert.deepEqual(validate((d) => (d.spec!.minReadySeconds = -1)), ['spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0']);
    assert.deepEqual(validate((d) => (d.spec!.revisionHistoryLimit = -1)), ['spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0']);
  });

  test('update strategy: exactly one of maxSurge and maxUnavailable is non-zero', () => {
    const ru = (maxSurge: number | string, maxUnavailable: number | string): string[] =>
      validate((d) => (d.spec!.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge, maxUnavailable } }));
    assert.deepEqual(ru(0, 1), []);
    assert.deepEqual(ru('10%', 0), []);
    assert.deepEqual(ru(1, 1), ['spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero']);
    assert.deepEqual(ru(0, '0%'), ['spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0']);
    assert.deepEqual(ru('120%', 0), ['spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "120%": must not be greater than 100%']);
    assert.deepEqual(ru(0, -2), ['spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: -2: must be greater than or equal to 0']);
    assert.deepEqual(validate((d) => (d.spec!.updateStrategy = { type: 'Sometimes' })), [
      'spec.updateStrategy: Unsupported value: {"type":"Sometimes"}: supported values: "RollingUpdate", "OnDelete"',
    ]);
  });
});

describe('update', () => {
  const update = (mutate: (d: DaemonSet) => void, base = created()): [DaemonSet, string[]] => {
    const d = clone(base);
    mutate(d);
    daemonSetStrategy.prepareForUpdate(d, base);
    return [d, msgs(daemonSetStrategy.validateUpdate(d, base))];
  };

  test('a template change bumps generation and template generation', () => {
    const [d, errs] = update((x) => (x.spec!.template.spec!.containers[0]!.image = 'fluent/fluentd:v1.4'));
    assert.deepEqual(errs, []);
    assert.equal(d.metadata?.generation, 2);
    assert.equal(d.metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION], '2');
  });

  test('another spec change bumps generation only', () => {
    const [d] = update((x) => (x.spec!.minReadySeconds = 5));
    assert.equal(d.metadata?.generation, 2);
    assert.equal(d.metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION], '1');
  });

  test('metadata changes bump nothing; the client cannot set the annotation, generation or status', () => {
    const [d] = update((x) => {
      x.metadata!.labels = { team: 'a' };
      x.metadata!.annotations = { [TEMPLATE_GENERATION_ANNOTATION]: '9', note: 'x' };
      x.metadata!.generation = 4;
      x.status = { currentNumberScheduled: 3, desiredNumberScheduled: 3, numberMisscheduled: 0, numberReady: 3 };
    });
    assert.equal(d.metadata?.generation, 1);
    assert.deepEqual(d.metadata?.annotations, { [TEMPLATE_GENERATION_ANNOTATION]: '1', note: 'x' });
    assert.equal(d.status?.desiredNumberScheduled, 0);
  });

  test('selector is immutable', () => {
    const [, errs] = update((x) => {
      x.spec!.selector = { matchLabels: { name: 'fluentd-elasticsearch', tier: 'x' } };
      x.spec!.template.metadata!.labels = { name: 'fluentd-elasticsearch', tier: 'x' };
    });
    assert.deepEqual(errs, [
      'spec.selector: Invalid value: {"matchLabels":{"name":"fluentd-elasticsearch","tier":"x"}}: field is immutable',
    ]);
  });

  test('status update keeps spec; collisionCount may not go down', () => {
    const base = created();
    base.status = { ...base.status!, collisionCount: 2 };
    const d = clone(base);
    d.spec!.minReadySeconds = 30;
    d.status = { ...d.status!, collisionCount: 1, numberReady: -1 };
    daemonSetStrategy.prepareForStatusUpdate!(d, base, 0);
    assert.equal(d.spec?.minReadySeconds, undefined);
    assert.deepEqual(msgs(daemonSetStrategy.validateStatusUpdate!(d, base)), [
      'status.numberReady: Invalid value: -1: must be greater than or equal to 0',
      'status.collisionCount: Invalid value: 1: cannot be decremented',
    ]);
  });
});

test('table: upstream columns and cells, wide ones at priority 1', () => {
  const t = daemonSetStrategy.table;
  assert.deepEqual(
    t.columns.map((c) => `${c.name}${c.priority ? '*' : ''}`),
    ['Name', 'Desired', 'Current', 'Ready', 'Up-to-date', 'Available', 'Node Selector', 'Age', 'Containers*', 'Images*', 'Selector*'],
  );
  const d = created((x) => {
    x.metadata!.creationTimestamp = '2025-01-01T00:06:02Z';
    x.spec!.template.spec!.nodeSelector = { 'kubernetes.io/os': 'linux', disk: 'ssd' };
  });
  d.status = { desiredNumberScheduled: 4, currentNumberScheduled: 4, numberReady: 3, updatedNumberScheduled: 2, numberAvailable: 3, numberMisscheduled: 0 };
  assert.deepEqual(t.row(d, NOW).cells, [
    'fluentd-elasticsearch',
    4,
    4,
    3,
    2,
    3,
    'disk=ssd,kubernetes.io/os=linux',
    '3m58s',
    'fluentd-elasticsearch',
    'fluent/fluentd:v1.4-1',
    'name=fluentd-elasticsearch',
  ]);
  assert.equal(t.row(created(), NOW).cells[6], '<none>');
});
