import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { allTypeNames, lookupType, pruneUnknownFields, rootTypeName, rootTypes } from './index.js';

describe('lookupType', () => {
  test('decodes field types, lists, maps and scalars', () => {
    const spec = lookupType('V1PodSpec');
    assert.ok(spec);
    assert.deepEqual(spec.fields['containers'], { type: 'V1Container', list: true, patchStrategy: 'merge', patchMergeKey: 'name', required: true });
    assert.deepEqual(spec.fields['nodeSelector'], { type: 'string', map: true });
    assert.deepEqual(spec.fields['tolerations'], { type: 'V1Toleration', list: true });
    assert.deepEqual(spec.fields['terminationGracePeriodSeconds'], { type: 'int64' });
    assert.deepEqual(spec.fields['hostNetwork'], { type: 'boolean' });
    assert.deepEqual(spec.fields['volumes'], { type: 'V1Volume', list: true, patchStrategy: 'merge,retainKeys', patchMergeKey: 'name' });
    assert.deepEqual(lookupType('V1ResourceRequirements')?.fields['limits'], { type: 'Quantity', map: true });
    assert.deepEqual(lookupType('V1ObjectMeta')?.fields['creationTimestamp'], { type: 'Time' });
    assert.deepEqual(lookupType('V1LeaseSpec')?.fields['renewTime'], { type: 'MicroTime' });
    assert.deepEqual(lookupType('V1RollingUpdateDeployment')?.fields['maxSurge'], { type: 'IntOrString' });
    assert.deepEqual(lookupType('V1ManagedFieldsEntry')?.fields['fieldsV1'], { type: 'any' });
    assert.equal(lookupType('V1EmptyDirVolumeSource')?.fields['sizeLimit']?.type, 'Quantity');
    assert.deepEqual(lookupType('V1Taint')?.fields['key'], { type: 'string', required: true });
    assert.deepEqual(lookupType('V1Taint')?.fields['value'], { type: 'string' });
    assert.equal(lookupType('Nope'), undefined);
    assert.equal(lookupType('constructor'), undefined);
    assert.equal(lookupType('V1PodSpec'), spec, 'cached');
  });

  test('patch metadata overlay from k8s.io/api struct tags', () => {
    const pm = (t: string, f: string): [string | undefined, string | undefined] => {
      const s = lookupType(t)?.fields[f];
      return [s?.patchStrategy, s?.patchMergeKey];
    };
    assert.deepEqual(pm('V1Container', 'env'), ['merge', 'name']);
    assert.deepEqual(pm('V1Container', 'ports'), ['merge', 'containerPort']);
    assert.deepEqual(pm('V1Container', 'volumeMounts'), ['merge', 'mountPath']);
    assert.deepEqual(pm('V1Container', 'args'), [undefined, undefined]);
    assert.deepEqual(pm('V1ObjectMeta', 'finalizers'), ['merge', undefined]);
    assert.deepEqual(pm('V1ObjectMeta', 'ownerReferences'), ['merge', 'uid']);
    assert.deepEqual(pm('V1NodeSpec', 'podCIDRs'), ['merge', undefined]);
    assert.deepEqual(pm('V1NodeSpec', 'taints'), [undefined, undefined]);
    assert.deepEqual(pm('V1NodeStatus', 'addresses'), ['merge', 'type']);
    assert.deepEqual(pm('V1ServiceSpec', 'ports'), ['merge', 'port']);
    assert.deepEqual(pm('V1DeploymentSpec', 'strategy'), ['retainKeys', undefined]);
    assert.deepEqual(pm('V1DaemonSetSpec', 'updateStrategy'), ['retainKeys', undefined]);
    for (const t of ['V1PodStatus', 'V1NodeStatus', 'V1DeploymentStatus', 'V1ReplicaSetStatus', 'V1StatefulSetStatus', 'V1DaemonSetStatus', 'V1JobStatus', 'V2HorizontalPodAutoscalerStatus', 'V1NamespaceStatus', 'V1PersistentVolumeClaimStatus', 'V1ReplicationControllerStatus']) {
      assert.deepEqual(pm(t, 'conditions'), ['merge', 'type'], t);
    }
  });
});

describe('roots', () => {
  test('rootTypeName', () => {
    assert.equal(rootTypeName('', 'v1', 'Pod'), 'V1Pod');
    assert.equal(rootTypeName('core', 'v1', 'Pod'), 'V1Pod');
    assert.equal(rootTypeName('', 'v1', 'PodList'), 'V1PodList');
    assert.equal(rootTypeName('', 'v1', 'Event'), 'CoreV1Event');
    assert.equal(rootTypeName('events.k8s.io', 'v1', 'Event'), 'EventsV1Event');
    assert.equal(rootTypeName('apps', 'v1', 'Deployment'), 'V1Deployment');
    assert.equal(rootTypeName('batch', 'v1', 'CronJob'), 'V1CronJob');
    assert.equal(rootTypeName('autoscaling', 'v1', 'HorizontalPodAutoscaler'), 'V1HorizontalPodAutoscaler');
    assert.equal(rootTypeName('autoscaling', 'v2', 'HorizontalPodAutoscaler'), 'V2HorizontalPodAutoscaler');
    assert.equal(rootTypeName('autoscaling', 'v1', 'Scale'), 'V1Scale');
    assert.equal(rootTypeName('coordination.k8s.io', 'v1', 'Lease'), 'V1Lease');
    assert.equal(rootTypeName('policy', 'v1', 'PodDisruptionBudget'), 'V1PodDisruptionBudget');
    assert.equal(rootTypeName('policy', 'v1', 'Eviction'), 'V1Eviction');
    assert.equal(rootTypeName('authorization.k8s.io', 'v1', 'SelfSubjectAccessReview'), 'V1SelfSubjectAccessReview');
    assert.equal(rootTypeName('meta.k8s.io', 'v1', 'Status'), 'V1Status');
    assert.equal(rootTypeName('apps', 'v1', 'DeleteOptions'), 'V1DeleteOptions');
    assert.equal(rootTypeName('', 'v1', 'Status'), 'V1Status');
    assert.equal(rootTypeName('apps', 'v1', 'Pod'), undefined);
    assert.equal(rootTypeName('apps', 'v1beta1', 'Deployment'), undefined);
    assert.equal(rootTypeName('', 'v1', 'toString'), undefined);
  });

  test('every root and every referenced type resolves', () => {
    const names = new Set(allTypeNames());
    assert.ok(names.size > 500);
    for (const r of rootTypes()) {
      const t = lookupType(r.type);
      assert.ok(t, r.type);
      if (!r.kind.endsWith('List') && r.apiVersion !== 'meta.k8s.io/v1') assert.ok(t.fields['metadata'] || r.kind === 'TokenRequest', r.kind);
    }
    for (const n of names) {
      for (const f of Object.values(lookupType(n)?.fields ?? {})) {
        if (/^[A-Z]/.test(f.type) && !['IntOrString', 'Quantity', 'Time', 'MicroTime'].includes(f.type)) assert.ok(names.has(f.type), `${n} → ${f.type}`);
      }
    }
  });
});

describe('pruneUnknownFields', () => {
  test('removes unknown fields at every depth and reports upstream paths', () => {
    const obj = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', labels: { 'any-key': 'v' }, bogus: 1 },
      spec: {
        foo: 'x',
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [
              { name: 'a', image: 'x', resources: { limits: { cpu: '1' } } },
              { name: 'b', image: 'y', bar: true, env: [{ name: 'E', value: '1', extra: 2 }] },
            ],
            nodeSelector: { 'kubernetes.io/os': 'linux' },
          },
        },
      },
      status: { replicas: 1, nope: null },
    };
    const removed = pruneUnknownFields(obj, 'V1Deployment');
    assert.deepEqual(removed, [
      'metadata.bogus',
      'spec.foo',
      'spec.template.spec.containers[1].bar',
      'spec.template.spec.containers[1].env[0].extra',
      'status.nope',
    ]);
    assert.deepEqual(obj.spec.template.spec.containers[1], { name: 'b', image: 'y', env: [{ name: 'E', value: '1' }] });
    assert.equal('foo' in obj.spec, false);
    assert.deepEqual(obj.metadata, { name: 'web', labels: { 'any-key': 'v' } });
  });

  test('free-form subtrees, maps of structs and wrong JSON kinds are left alone', () => {
    const obj = {
      metadata: { name: 'x', managedFields: [{ manager: 'm', fieldsV1: { 'f:spec': { 'f:anything': {} } } }] },
      data: { k: 'v' },
    };
    assert.deepEqual(pruneUnknownFields(obj, 'V1ConfigMap'), []);
    assert.deepEqual(pruneUnknownFields({ spec: 'not-an-object', metadata: null }, 'V1Pod'), []);
    const rq = { spec: { hard: { cpu: '1', 'requests.memory': '1Gi' } } };
    assert.deepEqual(pruneUnknownFields(rq, 'V1ResourceQuota'), []);
  });

  test('unknown root types prune nothing', () => {
    const o = { a: 1 };
    assert.deepEqual(pruneUnknownFields(o, 'NoSuchType'), []);
    assert.deepEqual(o, { a: 1 });
  });
});
