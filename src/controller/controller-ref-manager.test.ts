import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, Pod, ReplicaSet } from '../api/index.js';
import { newClientset } from '../client/index.js';
import { newFakeTransport } from '../testing/index.js';
import { newNotFound } from '../machinery/errors/index.js';
import { selectorFromLabelSelector } from '../machinery/labels/index.js';
import { FakeClock } from '../util/clock/index.js';
import { canAdoptByUncachedGet, claimPods, claimReplicaSets, deleteOwnerRefPatch, ownerRefControllerPatch } from './controller-ref-manager.js';
import { FakePodControl } from './pod-control.js';

const owner: ReplicaSet = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs', namespace: 'ns', uid: 'rs-uid' }, spec: { selector: { matchLabels: { app: 'a' } } } };
const kind = { apiVersion: 'apps/v1', kind: 'ReplicaSet' };
const selector = selectorFromLabelSelector(owner.spec?.selector);
const ownedBy = (uid: string) => [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'x', uid, controller: true }];

function pod(name: string, labels: Record<string, string>, extra: Partial<NonNullable<Pod['metadata']>> = {}): Pod {
  return { metadata: { name, namespace: 'ns', uid: `${name}-uid`, labels, ...extra } };
}

describe('patches', () => {
  test('adopt and release bodies', () => {
    assert.deepEqual(ownerRefControllerPatch(owner, kind, 'pod-uid'), {
      metadata: { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'rs-uid', controller: true, blockOwnerDeletion: true }], uid: 'pod-uid' },
    });
    assert.deepEqual(deleteOwnerRefPatch('pod-uid', ['rs-uid']), { metadata: { ownerReferences: [{ $patch: 'delete', uid: 'rs-uid' }], uid: 'pod-uid' } });
  });
});

describe('claimPods', () => {
  const pods = [
    pod('mine-match', { app: 'a' }, { ownerReferences: ownedBy('rs-uid') }),
    pod('mine-nomatch', { app: 'b' }, { ownerReferences: ownedBy('rs-uid') }),
    pod('other', { app: 'a' }, { ownerReferences: ownedBy('other-uid') }),
    pod('orphan-match', { app: 'a' }),
    pod('orphan-nomatch', { app: 'b' }),
    pod('orphan-deleting', { app: 'a' }, { deletionTimestamp: '2025-01-01T00:00:00Z' }),
    { metadata: { name: 'orphan-other-ns', namespace: 'other', uid: 'o', labels: { app: 'a' } } },
  ];

  test('keeps, releases, ignores and adopts per the table', async () => {
    const pc = new FakePodControl();
    let checks = 0;
    const claimed = await claimPods({ controller: owner, controllerKind: kind, selector, podControl: pc, canAdopt: () => { checks++; return Promise.resolve(); } }, pods);
    assert.deepEqual(claimed.map((p) => p.metadata?.name), ['mine-match', 'orphan-match']);
    assert.deepEqual(pc.patches, [deleteOwnerRefPatch('mine-nomatch-uid', ['rs-uid']), ownerRefControllerPatch(owner, kind, 'orphan-match-uid')]);
    assert.equal(checks, 1);
  });

  test('an owner being deleted keeps its pods but neither adopts nor releases', async () => {
    const pc = new FakePodControl();
    const dying = { ...owner, metadata: { ...owner.metadata, deletionTimestamp: '2025-01-01T00:00:00Z' } };
    const claimed = await claimPods({ controller: dying, controllerKind: kind, selector, podControl: pc, canAdopt: () => Promise.resolve() }, pods);
    assert.deepEqual(claimed.map((p) => p.metadata?.name), ['mine-match']);
    assert.deepEqual(pc.patches, []);
  });

  test('a failed canAdopt fails adoption; NotFound on patch is ignored', async () => {
    const pc = new FakePodControl();
    await assert.rejects(
      claimPods({ controller: owner, controllerKind: kind, selector, podControl: pc, canAdopt: () => Promise.reject(new Error('gone')) }, [pod('o', { app: 'a' })]),
      /can't adopt Pod ns\/o \(o-uid\): gone/,
    );
    pc.err = newNotFound({ group: '', resource: 'pods' }, 'o');
    const claimed = await claimPods({ controller: owner, controllerKind: kind, selector, podControl: pc, canAdopt: () => Promise.resolve() }, [pod('o', { app: 'a' })]);
    assert.deepEqual(claimed, []);
  });
});

describe('canAdoptByUncachedGet and claimReplicaSets through the API', () => {
  test('re-checks the owner with a GET, adopts with a strategic merge patch', async () => {
    const clock = new FakeClock();
    // Valid objects: the server validates the adoption patch's result.
    const spec = { selector: { matchLabels: { app: 'a' } }, template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } };
    const d = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'ns', uid: 'd-uid' }, spec };
    const rs = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs', namespace: 'ns', labels: { app: 'a' } }, spec };
    const transport = await newFakeTransport({ clock, objects: [d, rs] as KubeObject[] });
    const client = newClientset(transport);
    const cached = await client.apps.replicaSets('ns').get('rs');
    const canAdopt = canAdoptByUncachedGet(d, 'Deployment', (n) => client.apps.deployments('ns').get(n));
    const claimed = await claimReplicaSets({ client, controller: d, controllerKind: { apiVersion: 'apps/v1', kind: 'Deployment' }, selector, canAdopt }, [cached]);
    assert.equal(claimed.length, 1);
    const fresh = await client.apps.replicaSets('ns').get('rs');
    assert.deepEqual(fresh.metadata?.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: 'd-uid', controller: true, blockOwnerDeletion: true }]);
    const verbs = transport.actions.map((a) => `${a.verb} ${a.resource}${a.patchType ? ' ' + a.patchType : ''}`);
    assert.deepEqual(verbs.slice(1, 3), ['get deployments', 'patch replicasets application/strategic-merge-patch+json']);

    // A recreated owner (new uid) may not adopt.
    const stale = { ...d, metadata: { ...d.metadata, uid: 'old-uid' } };
    await assert.rejects(canAdoptByUncachedGet(stale, 'Deployment', (n) => client.apps.deployments('ns').get(n))(), /original Deployment ns\/d is gone: got uid d-uid, wanted old-uid/);
  });
});
