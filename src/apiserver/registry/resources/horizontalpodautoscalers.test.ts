/**
 * HorizontalPodAutoscalers: stored once as autoscaling/v2 and served as v2 and v1. Conversion cases
 * follow pkg/apis/autoscaling/v1/conversion_test.go (the CPU percentage becomes the one CPU metric,
 * other metrics, statuses, conditions and behavior survive a v1 round trip in annotations); the
 * defaults, validation messages and TARGETS column follow defaults.go, validation.go and printers.go.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { HorizontalPodAutoscaler } from '../../../api/index.js';
import type { KubeObject } from '../../../api/index.js';
import { newTestServer, rejectsWithStatus, type TestServer } from '../../testing/fixtures.js';
import { BEHAVIOR_ANNOTATION, CONDITIONS_ANNOTATION, METRIC_SPECS_ANNOTATION, METRIC_STATUSES_ANNOTATION, hpaFromV1, hpaToV1 } from './hpa-conversion.js';
import { defaultHorizontalPodAutoscaler, formatHPAMetrics, horizontalPodAutoscalerStrategy } from './horizontalpodautoscalers.js';
import { servedStrategies } from './index.js';

const msgs = (errs: { field: string; detail?: string; type: string }[]): string[] => errs.map((e) => `${e.field}: ${e.type}${e.detail ? `: ${e.detail}` : ''}`);

function v2(spec: Partial<NonNullable<HorizontalPodAutoscaler['spec']>> = {}, extra: Partial<HorizontalPodAutoscaler> = {}): HorizontalPodAutoscaler {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'web', namespace: 'default' },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 5, ...spec },
    ...extra,
  };
}

const podsMetric = { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '10' } } };
const behavior = { scaleDown: { stabilizationWindowSeconds: 60, policies: [{ type: 'Pods', value: 1, periodSeconds: 30 }] } };

describe('HorizontalPodAutoscaler v1 ↔ v2 conversion', () => {
  test('targetCPUUtilizationPercentage is the one CPU utilization metric; no metric at all means CPU 80%', () => {
    const fromV1 = hpaFromV1({ apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 5, targetCPUUtilizationPercentage: 50 } });
    assert.deepEqual((fromV1.spec as { metrics: unknown }).metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }]);
    const none = hpaFromV1({ apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 5 } });
    assert.deepEqual((none.spec as { metrics: unknown }).metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]);
    const back = hpaToV1(fromV1);
    assert.deepEqual(back.spec, { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 5, targetCPUUtilizationPercentage: 50 });
    assert.equal(back.metadata?.annotations, undefined, 'a CPU-only HPA needs no annotation');
  });

  test('what v1 cannot hold travels in annotations and comes back unchanged', () => {
    const stored = v2(
      { minReplicas: 2, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } }, podsMetric], behavior },
      {
        status: {
          currentReplicas: 3,
          desiredReplicas: 3,
          currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 35, averageValue: '120m' } } }],
          conditions: [{ type: 'AbleToScale', status: 'True', reason: 'ReadyForNewScale', lastTransitionTime: '2025-01-01T00:00:00Z' }],
        },
      },
    ) as unknown as KubeObject;
    const v1 = hpaToV1(structuredClone(stored));
    assert.deepEqual(v1.spec, { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 70 });
    assert.deepEqual(v1.status, { currentReplicas: 3, desiredReplicas: 3, currentCPUUtilizationPercentage: 35 });
    const annotations = v1.metadata?.annotations ?? {};
    assert.equal(annotations[METRIC_SPECS_ANNOTATION], '[{"type":"Pods","pods":{"metricName":"qps","targetAverageValue":"10"}}]');
    assert.equal(annotations[METRIC_STATUSES_ANNOTATION], '[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":35,"currentAverageValue":"120m"}}]');
    assert.equal(annotations[CONDITIONS_ANNOTATION], '[{"type":"AbleToScale","status":"True","reason":"ReadyForNewScale","lastTransitionTime":"2025-01-01T00:00:00Z"}]');
    // The internal type's encoding: Go field names, unset pointers as null.
    assert.equal(annotations[BEHAVIOR_ANNOTATION], '{"ScaleUp":null,"ScaleDown":{"StabilizationWindowSeconds":60,"SelectPolicy":null,"Policies":[{"Type":"Pods","Value":1,"PeriodSeconds":30}]}}');

    const again = hpaFromV1(structuredClone(v1));
    assert.equal(again.metadata?.annotations, undefined, 'the round-trip annotations are removed');
    assert.deepEqual((again.spec as HorizontalPodAutoscaler['spec'])?.metrics, [podsMetric, { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } }]);
    assert.deepEqual((again.spec as HorizontalPodAutoscaler['spec'])?.behavior, behavior);
    assert.deepEqual(again.status, stored.status);
  });

  test('a sparse stored object (sources without their required members) converts without throwing', () => {
    const sparse = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'x' }, spec: { metrics: [{ type: 'External', external: {} }, { type: 'Object', object: {} }, { type: 'Pods', pods: {} }] }, status: { currentMetrics: [{ type: 'Object', object: {} }, { type: 'Resource', resource: {} }] } };
    const v1 = hpaToV1(sparse);
    assert.equal(v1.metadata?.annotations?.[METRIC_SPECS_ANNOTATION], '[{"type":"External","external":{}},{"type":"Object","object":{"target":{},"targetValue":"0"}},{"type":"Pods","pods":{"targetAverageValue":"0"}}]');
    assert.doesNotThrow(() => hpaFromV1(v1));
  });

  test('a v1 annotation that is not JSON of the right shape is a 400', () => {
    const bad = (value: string): KubeObject => ({ apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'x', annotations: { [METRIC_SPECS_ANNOTATION]: value } }, spec: { maxReplicas: 1 } });
    assert.throws(() => hpaFromV1(bad('{')), (err: { code?: number }) => err.code === 400);
    assert.throws(() => hpaFromV1(bad('{"type":"Pods"}')), (err: { code?: number; message?: string }) => err.code === 400 && /expected a JSON array/.test(err.message ?? ''));
  });
});

describe('HorizontalPodAutoscaler v2 strategy', () => {
  test('defaults: minReplicas 1, CPU 80%, a given behavior completed with the upstream rules', () => {
    const hpa = v2({ behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } });
    defaultHorizontalPodAutoscaler(hpa);
    assert.equal(hpa.spec?.minReplicas, 1);
    assert.deepEqual(hpa.spec?.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]);
    assert.deepEqual(hpa.spec?.behavior, {
      scaleUp: { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] },
      scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
    });
  });

  test("defaults: scale-down's stabilization window stays unset, so the controller's --horizontal-pod-autoscaler-downscale-stabilization applies", () => {
    const hpa = v2({ behavior: { scaleUp: { stabilizationWindowSeconds: 30 } } });
    defaultHorizontalPodAutoscaler(hpa);
    assert.deepEqual(hpa.spec?.behavior?.scaleDown, { selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] });
    assert.equal(hpa.spec?.behavior?.scaleUp?.stabilizationWindowSeconds, 30);
  });

  test('validation messages (validation_test.go)', () => {
    const v = (hpa: HorizontalPodAutoscaler): string[] => msgs(horizontalPodAutoscalerStrategy.validate(hpa as never));
    assert.deepEqual(v(v2({ minReplicas: 0, maxReplicas: 0, scaleTargetRef: { kind: '', name: 'a/b' } })), [
      'spec.minReplicas: FieldValueInvalid: must be greater than or equal to 1',
      'spec.maxReplicas: FieldValueInvalid: must be greater than 0',
      'spec.scaleTargetRef.kind: FieldValueRequired',
      "spec.scaleTargetRef.name: FieldValueInvalid: may not contain '/'",
    ]);
    assert.deepEqual(v(v2({ minReplicas: 3, maxReplicas: 2 })), ['spec.maxReplicas: FieldValueInvalid: must be greater than or equal to `minReplicas`']);
    assert.deepEqual(v(v2({ metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 0 } } }] })), [
      'spec.metrics[0].resource.target.averageUtilization: FieldValueInvalid: must be greater than 0',
    ]);
    assert.deepEqual(v(v2({ metrics: [{ type: 'Pods', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }] })), [
      'spec.metrics[0].pods: FieldValueRequired: must populate information for the given metric source',
    ]);
    assert.deepEqual(v(v2({ behavior: { scaleUp: { policies: [] } } })), ['spec.behavior.scaleUp.policies: FieldValueRequired: must specify at least one Policy']);
  });

  test('the TARGETS column (formatHPAMetrics)', () => {
    const cpu = { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } };
    assert.equal(formatHPAMetrics([cpu], undefined), 'cpu: <unknown>/80%');
    assert.equal(formatHPAMetrics([cpu], [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 12 } } }]), 'cpu: 12%/80%');
    assert.equal(formatHPAMetrics([cpu, podsMetric, cpu], undefined), 'cpu: <unknown>/80%, <unknown>/10 + 1 more...');
    assert.equal(formatHPAMetrics([], undefined), '<none>');
  });
});

describe('HorizontalPodAutoscalers through the API server', () => {
  const hpas = (t: TestServer, version: string, req: Record<string, unknown>): Promise<KubeObject> =>
    t.server.handle({ group: 'autoscaling', version, resource: 'horizontalpodautoscalers', namespace: 'default', verb: 'get', ...req }).then((r) => r.body as KubeObject);

  test('stored once, read and written in either version; a v1 client keeps what it cannot see', async () => {
    const t = await newTestServer({ strategies: servedStrategies });
    const created = await hpas(t, 'v2', { verb: 'create', body: v2({ metrics: [podsMetric], behavior }) });
    assert.equal(created.apiVersion, 'autoscaling/v2');

    const asV1 = await hpas(t, 'v1', { name: 'web' });
    assert.equal(asV1.apiVersion, 'autoscaling/v1');
    assert.equal((asV1.spec as { targetCPUUtilizationPercentage?: number }).targetCPUUtilizationPercentage, undefined);
    assert.ok(asV1.metadata?.annotations?.[METRIC_SPECS_ANNOTATION]);

    // A v1 client changes maxReplicas and writes back: the Pods metric and the behavior stay.
    (asV1.spec as { maxReplicas: number }).maxReplicas = 7;
    await hpas(t, 'v1', { verb: 'update', name: 'web', body: asV1 });
    const after = (await hpas(t, 'v2', { name: 'web' })) as unknown as HorizontalPodAutoscaler;
    assert.equal(after.spec?.maxReplicas, 7);
    assert.deepEqual(after.spec?.metrics, [podsMetric]);
    assert.deepEqual(after.spec?.behavior?.scaleDown, { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: behavior.scaleDown.policies });
    assert.equal(after.metadata?.annotations, undefined, 'v2 shows no round-trip annotation');
    const stored = JSON.parse((await t.backend.get('/registry/autoscaling/horizontalpodautoscalers/default/web'))?.value ?? '{}') as KubeObject;
    assert.equal(stored.apiVersion, 'autoscaling/v2');

    // Created in v1 with only a CPU target: v2 sees the CPU metric.
    await hpas(t, 'v1', {
      verb: 'create',
      body: { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'api' }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'api' }, maxReplicas: 3, targetCPUUtilizationPercentage: 60 } },
    });
    const apiV2 = (await hpas(t, 'v2', { name: 'api' })) as unknown as HorizontalPodAutoscaler;
    assert.deepEqual(apiV2.spec?.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } } }]);
    assert.equal(apiV2.spec?.minReplicas, 1);

    // An annotation whose JSON has a value of the wrong type never reaches storage.
    await rejectsWithStatus(
      hpas(t, 'v1', {
        verb: 'create',
        body: { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'bad', annotations: { [METRIC_SPECS_ANNOTATION]: '[{"type":"Pods","pods":{"metricName":{"x":1}}}]' } }, spec: { scaleTargetRef: { kind: 'Deployment', name: 'x' }, maxReplicas: 1 } },
      }),
      400,
    );
  });
});
