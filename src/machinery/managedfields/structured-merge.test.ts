/**
 * The structured merge step's checks and errors (k8s.io/apimachinery
 * pkg/util/managedfields/internal/structuredmerge.go, v0.33.9) and the default FieldManager over
 * the built-in schema: reset fields, subresources, and the FieldsV1 upstream records.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../api/index.js';
import { FakeClock } from '../../util/clock/index.js';
import { isBadRequest, StatusError } from '../errors/index.js';
import { FieldSet, makePath } from '../fieldpath/index.js';
import { zeroObject } from '../merge/index.js';
import { FieldManager } from './field-manager.js';
import { newEmptyManaged } from './managed.js';
import { StructuredMergeManager } from './structured-merge.js';
import { builtinTypeConverter } from './type-converter.js';
import { sameVersionObjectConverter } from './version-converter.js';
import { obj } from './testing/test-field-manager.js';

function merger(groupVersion: string): StructuredMergeManager {
  return new StructuredMergeManager({ typeConverter: builtinTypeConverter(), objectConverter: sameVersionObjectConverter, defaulter: () => undefined, groupVersion, hubVersion: groupVersion });
}

function badRequest(message: string | RegExp): (e: unknown) => boolean {
  return (e: unknown) => {
    assert.ok(isBadRequest(e), String(e));
    const m = (e as StatusError).message;
    if (typeof message === 'string') assert.equal(m, message);
    else assert.match(m, message);
    return true;
  };
}

describe('structuredmerge.go', () => {
  it('an apply in another version is a 400', () => {
    assert.throws(
      () => merger('apps/v1').apply({ apiVersion: 'apps/v1', kind: 'Deployment' }, { apiVersion: 'apps/v1beta2', kind: 'Deployment' }, newEmptyManaged(), 'm', false),
      badRequest('Incorrect version specified in apply patch. Specified patch version: apps/v1beta2, expected: apps/v1'),
    );
  });

  it('an apply with managedFields is a 400, even an empty list', () => {
    for (const managedFields of [[], [{ manager: 'x' }]]) {
      assert.throws(() => merger('v1').apply({ apiVersion: 'v1', kind: 'Pod' }, { apiVersion: 'v1', kind: 'Pod', metadata: { managedFields: managedFields } }, newEmptyManaged(), 'm', false), badRequest('metadata.managedFields must be nil'));
    }
  });

  it('a configuration that does not fit the schema is a 400 with upstream text', () => {
    const pod = obj('{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ns"}, "spec": {"containers": [{"name": "a", "image": "x"}, {"name": "a", "image": "y"}]}}');
    assert.throws(() => merger('v1').apply({ apiVersion: 'v1', kind: 'Pod' }, pod, newEmptyManaged(), 'm', false), badRequest('failed to create typed patch object (ns/p; /v1, Kind=Pod): .spec.containers: duplicate entries for key [name="a"]'));
    const wrongType = obj('{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"nodeName": 3}}');
    assert.throws(() => merger('v1').apply({ apiVersion: 'v1', kind: 'Pod' }, wrongType, newEmptyManaged(), 'm', false), badRequest(/^failed to create typed patch object \(\/p; \/v1, Kind=Pod\): \.spec\.nodeName: expected string, got 3$/));
  });

  it('updates accept duplicate list items in live and new objects', () => {
    const dup = obj('{"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [{"name": "a"}, {"name": "a"}]}}');
    const r = merger('v1').update({ apiVersion: 'v1', kind: 'Pod' }, dup, newEmptyManaged(), 'm');
    // The duplicated item is owned whole, none of its fields.
    assert.equal(r.managed.fields.get('m')?.set.toString(), '.spec\n.spec.containers\n.spec.containers[name="a"]');
  });
});

/** The default chain for a built-in kind, as the API server wires it. */
function builtinFieldManager(apiVersion: string, kind: string, typeName: string, subresource = '', resetFields = new Map<string, FieldSet>()): { fm: FieldManager; clock: FakeClock; creater: () => KubeObject } {
  const clock = new FakeClock();
  const creater = (): KubeObject => ({ ...zeroObject(typeName), apiVersion, kind });
  const fm = new FieldManager({
    typeConverter: builtinTypeConverter(),
    objectConverter: sameVersionObjectConverter,
    defaulter: () => undefined,
    creater,
    groupVersion: apiVersion,
    kind,
    hubVersion: apiVersion,
    subresource,
    resetFields,
    clock,
  });
  return { fm, clock, creater };
}

describe('FieldManager over the built-in schema', () => {
  it('a created Deployment records what upstream records (kubectl create deployment)', () => {
    const { fm, creater } = builtinFieldManager('apps/v1', 'Deployment', 'io.k8s.api.apps.v1.Deployment');
    // The object as the registry stores it after defaulting, encoded as Go encodes it.
    const created = obj(`{
      "apiVersion": "apps/v1", "kind": "Deployment",
      "metadata": {"name": "nginx", "namespace": "default", "uid": "u", "resourceVersion": "1", "generation": 1, "creationTimestamp": "2025-01-01T00:00:00Z", "labels": {"app": "nginx"}},
      "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "nginx"}},
        "template": {"metadata": {"creationTimestamp": null, "labels": {"app": "nginx"}},
          "spec": {"containers": [{"name": "nginx", "image": "nginx", "resources": {}, "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File", "imagePullPolicy": "Always"}],
            "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst", "securityContext": {}, "schedulerName": "default-scheduler"}},
        "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}},
        "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600},
      "status": {}}`);
    const out = fm.update(creater(), created, 'kubectl-create');
    assert.deepEqual(out.metadata?.managedFields, [
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'apps/v1',
        time: '2025-01-01T00:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
          'f:spec': {
            'f:progressDeadlineSeconds': {},
            'f:replicas': {},
            'f:revisionHistoryLimit': {},
            'f:selector': {},
            'f:strategy': { 'f:rollingUpdate': { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} }, 'f:type': {} },
            'f:template': {
              'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
              'f:spec': {
                'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:imagePullPolicy': {}, 'f:name': {}, 'f:resources': {}, 'f:terminationMessagePath': {}, 'f:terminationMessagePolicy': {} } },
                'f:dnsPolicy': {},
                'f:restartPolicy': {},
                'f:schedulerName': {},
                'f:securityContext': {},
                'f:terminationGracePeriodSeconds': {},
              },
            },
          },
        },
      },
    ]);
    // The caller's object is not changed.
    assert.equal(created.metadata?.managedFields, undefined);
  });

  it('kubectl scale then apply of replicas by another manager: 409 with upstream message; force moves ownership', () => {
    const { fm, clock, creater } = builtinFieldManager('apps/v1', 'Deployment', 'io.k8s.api.apps.v1.Deployment');
    const config = obj('{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {"replicas": 2, "selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}}');
    let live = fm.apply(creater(), config, 'kubectl', false);
    clock.step(5000);
    const scaled = structuredClone(live);
    (scaled.spec as { replicas: number }).replicas = 5;
    live = fm.update(live, scaled, 'kubectl');
    const conflict = (e: unknown): boolean => {
      assert.ok(e instanceof StatusError && e.code === 409);
      assert.equal(e.message, 'Apply failed with 1 conflict: conflict with "kubectl" using apps/v1: .spec.replicas');
      return true;
    };
    const other = structuredClone(config);
    (other.spec as { replicas: number }).replicas = 3;
    assert.throws(() => fm.apply(live, other, 'other', false), conflict);
    live = fm.apply(live, other, 'other', true);
    assert.equal((live.spec as { replicas: number }).replicas, 3);
    const managers = live.metadata?.managedFields?.map((e) => [e.manager, e.operation]);
    assert.deepEqual(managers, [
      ['kubectl', 'Apply'],
      ['other', 'Apply'],
    ], 'the Update entry lost its only field');
  });

  it('two managers applying the same value share it; removing it from one config keeps it', () => {
    const { fm, creater } = builtinFieldManager('v1', 'ConfigMap', 'io.k8s.api.core.v1.ConfigMap');
    const cm = (data: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data });
    let live = fm.apply(creater(), cm({ a: '1', b: '2' }), 'one', false);
    live = fm.apply(live, cm({ a: '1' }), 'two', false);
    live = fm.apply(live, cm({ b: '2' }), 'one', false);
    assert.deepEqual(live.data, { a: '1', b: '2' }, 'a is still owned by two');
    live = fm.apply(live, cm({ b: '2' }), 'two', false);
    assert.deepEqual(live.data, { b: '2' }, 'a is removed once nobody applies it');
  });

  it('reset fields are not owned: status on the main resource', () => {
    const reset = new Map([['v1', FieldSet.of(makePath('status'))]]);
    const { fm, creater } = builtinFieldManager('v1', 'Pod', 'io.k8s.api.core.v1.Pod', '', reset);
    const out = fm.update(creater(), obj('{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"a": "b"}}, "status": {"phase": "Pending"}}'), 'm');
    assert.deepEqual(out.metadata?.managedFields?.[0]?.fieldsV1, { 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } });
  });

  it('an object created without managed fields gets before-first-apply on its first apply', () => {
    const { fm } = builtinFieldManager('v1', 'ConfigMap', 'io.k8s.api.core.v1.ConfigMap');
    const live: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', uid: 'u' }, data: { a: '1' } };
    assert.equal(fm.update(live, { ...live, data: { a: '2' } }, 'm').metadata?.managedFields, undefined, 'updates of an untracked object stay untracked');
    const out = fm.apply(live, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { b: '1' } }, 'm', false);
    assert.deepEqual(
      out.metadata?.managedFields?.map((e) => e.manager),
      ['m', 'before-first-apply'],
    );
  });

  it('updateNoErrors drops managedFields when the update fails', () => {
    const { fm, creater } = builtinFieldManager('v1', 'Pod', 'io.k8s.api.core.v1.Pod');
    const bad = obj('{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "managedFields": [{"manager": "x", "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:a": {}}}]}, "spec": {"nodeName": 3}}');
    assert.throws(() => fm.update(creater(), bad, 'm'), /^Error: failed to convert new object \(\/p; \/v1, Kind=Pod\) to smd typed: \.spec\.nodeName: expected string, got 3$/);
    const out = fm.updateNoErrors(creater(), bad, 'm');
    assert.equal(out.metadata?.managedFields, undefined);
    assert.ok(bad.metadata?.managedFields !== undefined, "the caller's object keeps its list");
  });
});
