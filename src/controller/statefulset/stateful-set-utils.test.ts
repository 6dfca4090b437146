/**
 * Cases ported from kubernetes/kubernetes pkg/controller/statefulset/stateful_set_utils_test.go
 * (TestGetParentNameAndOrdinal, TestIsMemberOf, TestIdentityMatches, TestStorageMatches,
 * TestUpdateIdentity, TestUpdateStorage, TestIsRunningAndReady, TestNewPodControllerRef,
 * TestCreateApplyRevision, TestClaimOwnerUpToDate / TestUpdateClaimOwnerRefForSetAndPod,
 * TestGetStatefulSetMaxUnavailable, completeRollingUpdate) and
 * pkg/controller/history/controller_history_test.go (TestFindEqualRevisions, hashing).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolumeClaim, Pod, StatefulSet, StatefulSetStatus } from '../../api/index.js';
import { equalRevision, findEqualRevisions, hashControllerRevision } from '../history/index.js';
import {
  applyRevision,
  completeRollingUpdate,
  getParentNameAndOrdinal,
  getStatefulSetMaxUnavailable,
  identityMatches,
  isClaimOwnerUpToDate,
  isMemberOf,
  isRunningAndReady,
  newRevision,
  newStatefulSetPod,
  newVersionedStatefulSetPod,
  storageMatches,
  updateClaimOwnerRefForSetAndPod,
  updateIdentity,
  updateStorage,
} from './stateful-set-utils.js';

function newSet(replicas = 3, name = 'foo'): StatefulSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name, namespace: 'default', uid: 'set-uid' },
    spec: {
      replicas,
      serviceName: 'governingsvc',
      selector: { matchLabels: { foo: 'bar' } },
      template: { metadata: { labels: { foo: 'bar' } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }], volumes: [{ name: 'home', hostPath: { path: '/tmp/home' } }] } },
      volumeClaimTemplates: [{ metadata: { name: 'datadir' } }],
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
    },
  };
}

describe('identity', () => {
  test('getParentNameAndOrdinal / isMemberOf', () => {
    const set = newSet();
    const pod = newStatefulSetPod(set, 1);
    assert.deepEqual(getParentNameAndOrdinal(pod), { parent: 'foo', ordinal: 1 });
    pod.metadata!.name = 'foo-bar';
    assert.deepEqual(getParentNameAndOrdinal(pod), { parent: '', ordinal: -1 });
    pod.metadata!.name = 'foo-99999999999';
    assert.equal(getParentNameAndOrdinal(pod).ordinal, -1, 'beyond int32');
    const other = newStatefulSetPod(newSet(3, 'foo2'), 1);
    assert.equal(isMemberOf(set, newStatefulSetPod(set, 1)), true);
    assert.equal(isMemberOf(set, other), false, 'foo2-1 is not a member of foo');
  });

  test('identityMatches and updateIdentity', () => {
    const set = newSet();
    const pod = newStatefulSetPod(set, 1);
    assert.ok(identityMatches(set, pod));
    const cases: ((p: Pod) => void)[] = [
      (p) => (p.metadata!.name = 'foo-2-x'),
      (p) => (p.metadata!.namespace = 'other'),
      (p) => delete p.metadata!.labels!['statefulset.kubernetes.io/pod-name'],
      (p) => (p.metadata!.labels!['apps.kubernetes.io/pod-index'] = '7'),
    ];
    for (const mutate of cases) {
      const p = structuredClone(pod);
      mutate(p);
      assert.equal(identityMatches(set, p), false);
      if (p.metadata!.name === 'foo-1') {
        updateIdentity(set, p);
        assert.ok(identityMatches(set, p));
      }
    }
    assert.equal(pod.spec?.hostname, 'foo-1');
    assert.equal(pod.spec?.subdomain, 'governingsvc');
  });

  test('storageMatches and updateStorage keep other volumes', () => {
    const set = newSet();
    const pod = newStatefulSetPod(set, 1);
    assert.ok(storageMatches(set, pod));
    assert.deepEqual(pod.spec?.volumes, [
      { name: 'datadir', persistentVolumeClaim: { claimName: 'datadir-foo-1' } },
      { name: 'home', hostPath: { path: '/tmp/home' } },
    ]);
    const p = structuredClone(pod);
    p.spec!.volumes = [{ name: 'datadir', hostPath: { path: '/tmp' } }];
    assert.equal(storageMatches(set, p), false);
    updateStorage(set, p);
    assert.ok(storageMatches(set, p));
    p.spec!.volumes = [{ name: 'datadir', persistentVolumeClaim: { claimName: 'datadir-foo-2' } }];
    assert.equal(storageMatches(set, p), false);
  });

  test('isRunningAndReady', () => {
    const pod = newStatefulSetPod(newSet(), 1);
    const withStatus = (status: Pod['status']): Pod => ({ ...pod, status });
    assert.equal(isRunningAndReady(pod), false);
    assert.equal(isRunningAndReady(withStatus({ phase: 'Running' })), false);
    assert.equal(isRunningAndReady(withStatus({ phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] })), true);
    assert.equal(isRunningAndReady(withStatus({ phase: 'Pending', conditions: [{ type: 'Ready', status: 'True' }] })), false);
  });

  test('new pods carry a controller ref to the set', () => {
    const pod = newStatefulSetPod(newSet(), 1);
    assert.deepEqual(pod.metadata?.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'foo', uid: 'set-uid', controller: true, blockOwnerDeletion: true }]);
  });
});

describe('revisions', () => {
  test('applyRevision restores the template; equal templates give equal revisions', () => {
    const set = newSet();
    const r1 = newRevision(set, 1, 0);
    const changed = structuredClone(set);
    changed.spec!.template.spec!.containers[0]!.image = 'foo';
    const r2 = newRevision(changed, 2, 0);
    assert.notEqual(r1.metadata?.name, r2.metadata?.name);
    const restored = applyRevision(changed, r1);
    assert.deepEqual(restored.spec?.template, set.spec?.template);
    assert.deepEqual(newRevision(restored, 3, 0).data, r1.data);
    assert.ok(equalRevision(r1, newRevision(restored, 3, 0)));
    assert.deepEqual(findEqualRevisions([r1, r2], newRevision(set, 9, 0)), [r1]);
  });

  test('the hash depends on the data and the collision count', () => {
    const r = newRevision(newSet(), 1, 0);
    assert.match(hashControllerRevision(r), /^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
    assert.notEqual(hashControllerRevision(r, 0), hashControllerRevision(r, 1));
    assert.equal(hashControllerRevision(r, 1), hashControllerRevision(structuredClone(r), 1));
  });

  test('newVersionedStatefulSetPod: below the partition at the current revision', () => {
    const set = newSet(5);
    set.spec!.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { partition: 3 } };
    const updateSet = structuredClone(set);
    updateSet.spec!.template.spec!.containers[0]!.image = 'v2';
    const label = (o: number): string | undefined => newVersionedStatefulSetPod(set, updateSet, 'cur', 'upd', o).metadata?.labels?.['controller-revision-hash'];
    assert.deepEqual([0, 1, 2, 3, 4].map(label), ['cur', 'cur', 'cur', 'upd', 'upd']);
    set.spec!.ordinals = { start: 10 };
    assert.deepEqual([10, 12, 13].map(label), ['cur', 'cur', 'upd']);
  });

  test('completeRollingUpdate only when every replica is updated and ready', () => {
    const set = newSet();
    const status: StatefulSetStatus = { replicas: 3, readyReplicas: 3, updatedReplicas: 3, currentReplicas: 1, currentRevision: 'a', updateRevision: 'b' };
    completeRollingUpdate(set, status);
    assert.deepEqual([status.currentRevision, status.currentReplicas], ['b', 3]);
    const partial: StatefulSetStatus = { replicas: 3, readyReplicas: 2, updatedReplicas: 3, currentReplicas: 1, currentRevision: 'a', updateRevision: 'b' };
    completeRollingUpdate(set, partial);
    assert.equal(partial.currentRevision, 'a');
    set.spec!.updateStrategy = { type: 'OnDelete' };
    completeRollingUpdate(set, status);
  });

  test('getStatefulSetMaxUnavailable: ints, percentages rounded up, at least 1', () => {
    const set = newSet(10);
    const cases: [number | string | undefined, number, number][] = [
      [undefined, 10, 1],
      [3, 10, 3],
      ['10%', 10, 1],
      ['25%', 10, 3],
      ['0%', 10, 1],
      ['100%', 10, 10],
    ];
    for (const [v, replicas, want] of cases) {
      set.spec!.updateStrategy = { type: 'RollingUpdate', rollingUpdate: v === undefined ? {} : { maxUnavailable: v } };
      assert.equal(getStatefulSetMaxUnavailable(set, replicas), want, String(v));
    }
  });
});

describe('PVC retention ownerRefs', () => {
  const claim = (refs: NonNullable<PersistentVolumeClaim['metadata']>['ownerReferences'] = []): PersistentVolumeClaim => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'datadir-foo-1', namespace: 'default', ...(refs.length ? { ownerReferences: refs } : {}) },
  });
  const setRef = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'foo', uid: 'set-uid', controller: true, blockOwnerDeletion: true };
  const podRef = { apiVersion: 'v1', kind: 'Pod', name: 'foo-1', uid: 'pod-uid', controller: true, blockOwnerDeletion: true };

  function fixture(whenDeleted: string, whenScaled: string, scaledDown: boolean): { set: StatefulSet; pod: Pod } {
    const set = newSet(scaledDown ? 1 : 3);
    set.spec!.persistentVolumeClaimRetentionPolicy = { whenDeleted, whenScaled };
    const created = newStatefulSetPod(newSet(3), 1);
    const pod: Pod = { ...created, metadata: { ...created.metadata, uid: 'pod-uid' } };
    return { set, pod };
  }

  // [whenDeleted, whenScaled, scaledDown, the refs wanted]
  const table: [string, string, boolean, string[]][] = [
    ['Retain', 'Retain', false, []],
    ['Retain', 'Retain', true, []],
    ['Delete', 'Retain', false, ['set']],
    ['Delete', 'Retain', true, ['set']],
    ['Retain', 'Delete', false, []],
    ['Retain', 'Delete', true, ['pod']],
    ['Delete', 'Delete', false, ['set']],
    ['Delete', 'Delete', true, ['pod']],
  ];
  for (const [whenDeleted, whenScaled, scaledDown, want] of table) {
    test(`whenDeleted=${whenDeleted} whenScaled=${whenScaled} scaledDown=${scaledDown} → ${want.join('+') || 'none'}`, () => {
      const { set, pod } = fixture(whenDeleted, whenScaled, scaledDown);
      const refsFor = (names: string[]) => names.map((n) => (n === 'set' ? setRef : podRef));
      const combos = [[], ['set'], ['pod']];
      for (const have of combos) {
        const c = claim(refsFor(have));
        const upToDate = JSON.stringify(have) === JSON.stringify(want);
        assert.equal(isClaimOwnerUpToDate(c, set, pod), upToDate, `with ${have.join('+') || 'none'}`);
        updateClaimOwnerRefForSetAndPod(c, set, pod);
        assert.deepEqual((c.metadata?.ownerReferences ?? []).map((r) => r.kind), refsFor(want).map((r) => r.kind));
        assert.ok(isClaimOwnerUpToDate(c, set, pod));
      }
    });
  }

  test('other owners are kept; a stale ref (earlier pod of that name) leaves the claim alone; another controller wins', () => {
    const { set, pod } = fixture('Delete', 'Delete', true);
    const other = { apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: 'x-uid' };
    const c = claim([other]);
    updateClaimOwnerRefForSetAndPod(c, set, pod);
    assert.deepEqual(c.metadata?.ownerReferences?.map((r) => r.uid), ['x-uid', 'pod-uid']);
    assert.ok(isClaimOwnerUpToDate(claim([{ ...podRef, uid: 'old-pod' }]), set, pod), 'stale');
    const foreign = claim([{ apiVersion: 'v1', kind: 'Other', name: 'o', uid: 'o-uid', controller: true }]);
    assert.ok(isClaimOwnerUpToDate(foreign, set, pod));
    updateClaimOwnerRefForSetAndPod(foreign, set, pod);
    assert.deepEqual(foreign.metadata?.ownerReferences?.map((r) => r.uid), ['o-uid']);
  });
});
