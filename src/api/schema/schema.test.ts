import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CATALOGUE } from '../catalogue/index.js';
import { allTypeNames, loadDocs, lookupType, pruneUnknownFields, rootTypeName, rootTypes, scalarDefinitionName } from './index.js';

const core = (t: string): string => `io.k8s.api.core.v1.${t}`;
const apps = (t: string): string => `io.k8s.api.apps.v1.${t}`;
const meta = (t: string): string => `io.k8s.apimachinery.pkg.apis.meta.v1.${t}`;

describe('lookupType', () => {
  test('decodes field types, lists, maps and scalars', () => {
    const spec = lookupType(core('PodSpec'));
    assert.ok(spec);
    assert.deepEqual(spec.fields['containers'], {
      type: core('Container'),
      list: true,
      required: true,
      patchStrategy: 'merge',
      patchMergeKey: 'name',
      listType: 'map',
      listMapKeys: ['name'],
    });
    assert.deepEqual(spec.fields['nodeSelector'], { type: 'string', map: true, omitempty: true, mapType: 'atomic' });
    assert.deepEqual(spec.fields['tolerations'], { type: core('Toleration'), list: true, omitempty: true, listType: 'atomic' });
    assert.deepEqual(spec.fields['terminationGracePeriodSeconds'], { type: 'int64', pointer: true, omitempty: true });
    assert.deepEqual(spec.fields['hostNetwork'], { type: 'boolean', omitempty: true });
    assert.deepEqual(spec.fields['volumes'], {
      type: core('Volume'),
      list: true,
      omitempty: true,
      patchStrategy: 'merge,retainKeys',
      patchMergeKey: 'name',
      listType: 'map',
      listMapKeys: ['name'],
    });
    assert.deepEqual(lookupType(core('ResourceRequirements'))?.fields['limits'], { type: 'Quantity', map: true, omitempty: true });
    assert.deepEqual(lookupType(meta('ObjectMeta'))?.fields['creationTimestamp'], { type: 'Time', omitempty: true });
    assert.deepEqual(lookupType('io.k8s.api.coordination.v1.LeaseSpec')?.fields['renewTime'], { type: 'MicroTime', pointer: true, omitempty: true });
    assert.deepEqual(lookupType(apps('RollingUpdateDeployment'))?.fields['maxSurge'], { type: 'IntOrString', pointer: true, omitempty: true });
    assert.deepEqual(lookupType(meta('ManagedFieldsEntry'))?.fields['fieldsV1'], { type: 'any', pointer: true, omitempty: true });
    assert.equal(lookupType(core('EmptyDirVolumeSource'))?.fields['sizeLimit']?.type, 'Quantity');
    assert.deepEqual(lookupType(core('Secret'))?.fields['data'], { type: 'bytes', map: true, omitempty: true });
    assert.deepEqual(lookupType(core('Taint'))?.fields['key'], { type: 'string', required: true });
    assert.deepEqual(lookupType(core('Taint'))?.fields['value'], { type: 'string', omitempty: true });
    assert.equal(lookupType('Nope'), undefined);
    assert.equal(lookupType('constructor'), undefined);
    assert.equal(lookupType(core('PodSpec')), spec, 'cached');
  });

  test('pointer and omitempty facts of the Go fields', () => {
    const field = (t: string, f: string): unknown => lookupType(t)?.fields[f];
    assert.deepEqual(field(apps('DeploymentSpec'), 'replicas'), { type: 'int32', pointer: true, omitempty: true });
    assert.deepEqual(field(apps('DeploymentStatus'), 'unavailableReplicas'), { type: 'int32', omitempty: true });
    assert.deepEqual(field(core('ServiceStatus'), 'loadBalancer'), { type: core('LoadBalancerStatus'), omitempty: true });
    assert.deepEqual(field(core('ContainerStatus'), 'restartCount'), { type: 'int32', required: true });
    // +optional without omitempty: not required, yet Go always encodes it.
    assert.deepEqual(field(core('Event'), 'reportingComponent'), { type: 'string' });
    // +required with omitempty.
    assert.deepEqual(field('io.k8s.api.networking.v1.ParentReference', 'name'), { type: 'string', required: true, omitempty: true });
    assert.deepEqual(field(core('ObjectReference'), 'uid'), { type: 'string', omitempty: true });
    assert.deepEqual(field('io.k8s.api.authentication.v1.UserInfo', 'extra'), { type: 'any', map: true, omitempty: true });
  });

  test('enums, defaults, list and map types, struct types', () => {
    const field = (t: string, f: string) => lookupType(t)?.fields[f];
    assert.deepEqual(field(core('PodSpec'), 'restartPolicy'), { type: 'string', omitempty: true, enum: ['Always', 'Never', 'OnFailure'] });
    assert.deepEqual(field(core('Container'), 'imagePullPolicy')?.enum, ['Always', 'IfNotPresent', 'Never']);
    assert.deepEqual(field(core('ServicePort'), 'protocol'), { type: 'string', omitempty: true, enum: ['SCTP', 'TCP', 'UDP'], default: 'TCP' });
    assert.deepEqual(field(core('PersistentVolumeSpec'), 'accessModes')?.enum, ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod']);
    assert.equal(field(core('AzureDiskVolumeSource'), 'cachingMode')?.default, 'ReadWrite', '+default=ref(AzureDataDiskCachingReadWrite)');
    assert.deepEqual(field(core('Container'), 'ports'), {
      type: core('ContainerPort'),
      list: true,
      omitempty: true,
      patchStrategy: 'merge',
      patchMergeKey: 'containerPort',
      listType: 'map',
      listMapKeys: ['containerPort', 'protocol'],
    });
    assert.equal(field(meta('ObjectMeta'), 'finalizers')?.listType, 'set');
    assert.equal(field(core('PersistentVolumeSpec'), 'claimRef')?.structType, 'granular');
    assert.equal(lookupType(meta('LabelSelector'))?.structType, 'atomic');
    assert.equal(lookupType(meta('OwnerReference'))?.structType, 'atomic');
    assert.equal(lookupType(core('PodSpec'))?.structType, undefined);
  });

  test('patch metadata from the k8s.io/api struct tags', () => {
    const pm = (t: string, f: string): [string | undefined, string | undefined] => {
      const s = lookupType(t)?.fields[f];
      return [s?.patchStrategy, s?.patchMergeKey];
    };
    assert.deepEqual(pm(core('Container'), 'env'), ['merge', 'name']);
    assert.deepEqual(pm(core('Container'), 'ports'), ['merge', 'containerPort']);
    assert.deepEqual(pm(core('Container'), 'volumeMounts'), ['merge', 'mountPath']);
    assert.deepEqual(pm(core('Container'), 'args'), [undefined, undefined]);
    assert.deepEqual(pm(meta('ObjectMeta'), 'finalizers'), ['merge', undefined]);
    assert.deepEqual(pm(meta('ObjectMeta'), 'ownerReferences'), ['merge', 'uid']);
    assert.deepEqual(pm(core('NodeSpec'), 'podCIDRs'), ['merge', undefined]);
    assert.deepEqual(pm(core('NodeSpec'), 'taints'), [undefined, undefined]);
    assert.deepEqual(pm(core('NodeStatus'), 'addresses'), ['merge', 'type']);
    assert.deepEqual(pm(core('ServiceSpec'), 'ports'), ['merge', 'port']);
    assert.deepEqual(pm(apps('DeploymentSpec'), 'strategy'), ['retainKeys', undefined]);
    // The overlay ADR 4 wrote by hand had retainKeys here too; k8s.io/api has no such tag on DaemonSetSpec.
    assert.deepEqual(pm(apps('DaemonSetSpec'), 'updateStrategy'), [undefined, undefined]);
    for (const t of [core('PodStatus'), core('NodeStatus'), apps('DeploymentStatus'), apps('ReplicaSetStatus'), apps('StatefulSetStatus'), apps('DaemonSetStatus'), 'io.k8s.api.batch.v1.JobStatus', 'io.k8s.api.autoscaling.v2.HorizontalPodAutoscalerStatus', core('NamespaceStatus'), core('PersistentVolumeClaimStatus'), core('ReplicationControllerStatus')]) {
      assert.deepEqual(pm(t, 'conditions'), ['merge', 'type'], t);
    }
  });

  test('every patch strategy of the hand-written overlay that preceded the Go source (ADR 4) is reproduced', () => {
    const overlay: [string, string, string, string?][] = [
      [core('PodSpec'), 'containers', 'merge', 'name'],
      [core('PodSpec'), 'initContainers', 'merge', 'name'],
      [core('PodSpec'), 'ephemeralContainers', 'merge', 'name'],
      [core('PodSpec'), 'volumes', 'merge,retainKeys', 'name'],
      [core('PodSpec'), 'imagePullSecrets', 'merge', 'name'],
      [core('PodSpec'), 'hostAliases', 'merge', 'ip'],
      [core('PodSpec'), 'topologySpreadConstraints', 'merge', 'topologyKey'],
      [core('PodSpec'), 'schedulingGates', 'merge', 'name'],
      [core('PodSpec'), 'resourceClaims', 'merge,retainKeys', 'name'],
      [core('Container'), 'env', 'merge', 'name'],
      [core('Container'), 'ports', 'merge', 'containerPort'],
      [core('Container'), 'volumeMounts', 'merge', 'mountPath'],
      [core('Container'), 'volumeDevices', 'merge', 'devicePath'],
      [core('EphemeralContainer'), 'env', 'merge', 'name'],
      [core('EphemeralContainer'), 'ports', 'merge', 'containerPort'],
      [core('EphemeralContainer'), 'volumeMounts', 'merge', 'mountPath'],
      [core('EphemeralContainer'), 'volumeDevices', 'merge', 'devicePath'],
      [core('PodStatus'), 'podIPs', 'merge', 'ip'],
      [core('PodStatus'), 'hostIPs', 'merge', 'ip'],
      [core('PodStatus'), 'resourceClaimStatuses', 'merge,retainKeys', 'name'],
      [core('NodeStatus'), 'addresses', 'merge', 'type'],
      [core('NodeSpec'), 'podCIDRs', 'merge'],
      [core('ServiceSpec'), 'ports', 'merge', 'port'],
      [core('ServiceAccount'), 'secrets', 'merge', 'name'],
      [meta('ObjectMeta'), 'finalizers', 'merge'],
      [meta('ObjectMeta'), 'ownerReferences', 'merge', 'uid'],
      [apps('DeploymentSpec'), 'strategy', 'retainKeys'],
    ];
    // The overlay also gave DaemonSetSpec.updateStrategy `retainKeys`, which k8s.io/api v0.33.9 does not
    // (apps/v1 types.go tags only DeploymentSpec.strategy so): see the test above.
    for (const [t, f, strategy, key] of overlay) {
      const s = lookupType(t)?.fields[f];
      assert.deepEqual([s?.patchStrategy, s?.patchMergeKey], [strategy, key], `${t}.${f}`);
    }
  });
});

describe('roots', () => {
  test('rootTypeName', () => {
    const cases: [group: string, version: string, kind: string, type: string | undefined][] = [
      ['', 'v1', 'Pod', core('Pod')],
      ['core', 'v1', 'Pod', core('Pod')],
      ['', 'v1', 'PodList', core('PodList')],
      ['', 'v1', 'Binding', core('Binding')],
      ['events.k8s.io', 'v1', 'Event', 'io.k8s.api.events.v1.Event'],
      ['apps', 'v1', 'Deployment', apps('Deployment')],
      ['autoscaling', 'v1', 'HorizontalPodAutoscaler', 'io.k8s.api.autoscaling.v1.HorizontalPodAutoscaler'],
      ['autoscaling', 'v2', 'HorizontalPodAutoscaler', 'io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler'],
      ['autoscaling', 'v1', 'Scale', 'io.k8s.api.autoscaling.v1.Scale'],
      ['authentication.k8s.io', 'v1', 'TokenRequest', 'io.k8s.api.authentication.v1.TokenRequest'],
      ['apiregistration.k8s.io', 'v1', 'APIService', 'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService'],
      ['apiextensions.k8s.io', 'v1', 'CustomResourceDefinition', 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition'],
      ['metrics.k8s.io', 'v1beta1', 'PodMetrics', 'io.k8s.metrics.pkg.apis.metrics.v1beta1.PodMetrics'],
      // meta/v1 kinds resolve in any group at v1: clients send DeleteOptions with their resource's apiVersion.
      ['meta.k8s.io', 'v1', 'Status', meta('Status')],
      ['apps', 'v1', 'DeleteOptions', meta('DeleteOptions')],
      ['', 'v1', 'Status', meta('Status')],
      ['', 'v1', 'WatchEvent', meta('WatchEvent')],
      ['', 'v1', 'APIResourceList', meta('APIResourceList')],
      ['apps', 'v1', 'Pod', undefined],
      ['apps', 'v1beta1', 'Deployment', undefined],
      ['', 'v1', 'toString', undefined],
    ];
    for (const [group, version, kind, type] of cases) assert.equal(rootTypeName(group, version, kind), type, `${group}/${version} ${kind}`);
  });

  test('every kind of the catalogue has its schema root in every served version, as do its list kind (when listed) and subresource bodies', () => {
    const missing: string[] = [];
    const need = (group: string, version: string, kind: string): void => {
      if (rootTypeName(group, version, kind) === undefined) missing.push(`${group || 'core'}/${version} ${kind}`);
    };
    for (const row of CATALOGUE) {
      for (const version of row.versions) {
        need(row.group, version, row.kind);
        if (row.verbs.includes('list')) need(row.group, version, row.listKind);
        for (const sub of row.subresources) {
          if (sub.kind === 'self') continue;
          need(sub.kind.group, sub.kind.version, sub.kind.kind);
        }
      }
    }
    assert.deepEqual(missing, []);
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
        if (f.type.startsWith('io.k8s.')) assert.ok(names.has(f.type), `${n} → ${f.type}`);
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
    const removed = pruneUnknownFields(obj, apps('Deployment'));
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
    assert.deepEqual(pruneUnknownFields(obj, core('ConfigMap')), []);
    assert.deepEqual(pruneUnknownFields({ spec: 'not-an-object', metadata: null }, core('Pod')), []);
    const rq = { spec: { hard: { cpu: '1', 'requests.memory': '1Gi' } } };
    assert.deepEqual(pruneUnknownFields(rq, core('ResourceQuota')), []);
  });

  test('unknown root types prune nothing', () => {
    const o = { a: 1 };
    assert.deepEqual(pruneUnknownFields(o, 'NoSuchType'), []);
    assert.deepEqual(o, { a: 1 });
  });
});

describe('docs', () => {
  test('type and field descriptions as upstream serves them', async () => {
    const docs = await loadDocs();
    assert.equal(await loadDocs(), docs, 'loaded once');
    assert.equal(docs.describeType(apps('Deployment')), 'Deployment enables declarative updates for Pods and ReplicaSets.');
    assert.equal(docs.describeField(core('Taint'), 'key'), 'Required. The taint key to be applied to a node.');
    assert.equal(
      docs.describeField(core('PodSpec'), 'restartPolicy'),
      'Restart policy for all containers within the pod. One of Always, OnFailure, Never. In some contexts, only a subset of those values may be permitted. Default to Always. More info: https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#restart-policy\n\n' +
        'Possible enum values:\n - `"Always"`\n - `"Never"`\n - `"OnFailure"`',
    );
    assert.equal(docs.describeField(core('PodSpec'), 'nope'), undefined);
    assert.equal(docs.describeField(core('PodSpec'), ''), undefined);
    assert.equal(docs.describeType('toString'), undefined);
  });

  test('the self-encoding scalars upstream defines by name, with their descriptions', async () => {
    const docs = await loadDocs();
    assert.equal(scalarDefinitionName('IntOrString'), 'io.k8s.apimachinery.pkg.util.intstr.IntOrString');
    assert.equal(scalarDefinitionName('Time'), meta('Time'));
    assert.equal(scalarDefinitionName('string'), undefined);
    assert.equal(scalarDefinitionName('toString'), undefined);
    assert.equal(docs.describeType(meta('MicroTime')), 'MicroTime is version of Time with microsecond level precision.');
    assert.match(docs.describeType('io.k8s.apimachinery.pkg.api.resource.Quantity') ?? '', /^Quantity is a fixed-point representation of a number\. /);
  });
});
