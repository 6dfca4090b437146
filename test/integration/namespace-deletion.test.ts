/**
 * Namespace termination in the whole control plane under a FakeClock: the namespace controller
 * empties the namespace (workloads, bare pods, events, leases), reports its progress as conditions,
 * waits for terminating pods and for objects held by finalizers, then finalizes the namespace.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Namespace } from '../../src/api/index.js';
import { StatusError } from '../../src/machinery/errors/index.js';
import { deployment, exists, newPlane, pod, stepFor, stepUntil } from './cluster-helpers.js';

type Condition = NonNullable<NonNullable<Namespace['status']>['conditions']>[number];
const condition = (ns: Namespace, type: string): Condition | undefined => ns.status?.conditions?.find((c) => c.type === type);

describe('namespace deletion', () => {
  test('deletes every object in the namespace, then the namespace; new content is refused meanwhile', async () => {
    const { cp, clock, backend } = await newPlane();
    const c = cp.client;
    await c.core.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
    await c.apps.deployments('shop').create(deployment('web', 3, 'shop'));
    await c.core.pods('shop').create(pod('bare-1', { namespace: 'shop' }));
    await c.core.pods('shop').create(pod('bare-2', { namespace: 'shop' }));
    await c.coordination.leases('shop').create({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'lock', namespace: 'shop' }, spec: {} });
    await stepUntil(clock, '5 Ready pods', async () => {
      const pods = (await c.core.pods('shop').list()).items;
      return pods.length === 5 && pods.every((p) => p.status?.phase === 'Running');
    });
    assert.ok((await c.core.events('shop').list()).items.length > 0, 'the controllers wrote events in the namespace');
    await c.core.pods('default').create(pod('elsewhere'));

    const deleting = (await c.core.namespaces().delete('shop', { propagationPolicy: 'Background' })) as Namespace;
    assert.equal(deleting.status?.phase, 'Terminating');
    assert.ok(deleting.metadata?.deletionTimestamp);
    await assert.rejects(c.core.pods('shop').create(pod('late', { namespace: 'shop' })), (err: unknown) => {
      assert.ok(err instanceof StatusError);
      assert.equal(err.code, 403);
      assert.equal(err.message, 'pods "late" is forbidden: unable to create new content in namespace shop because it is being terminated');
      return true;
    });

    // The controller waits 5 s (namespaceDeletionGracePeriod), then deletes; pods terminate gracefully.
    await stepFor(clock, 4000);
    assert.equal((await c.core.pods('shop').list()).items.filter((p) => p.metadata?.deletionTimestamp).length, 0, 'nothing deleted before 5 s');
    let sawPodsRemaining = false;
    await stepUntil(clock, 'namespace gone', async () => {
      const ns = await c.core.namespaces().get('shop').catch(() => undefined);
      const remaining = ns && condition(ns, 'NamespaceContentRemaining');
      if (remaining?.status === 'True') {
        assert.equal(remaining.reason, 'SomeResourcesRemain');
        assert.match(remaining.message ?? '', /^Some resources are remaining: pods\. has [1-5] resource instances$/);
        sawPodsRemaining = true;
      }
      return ns === undefined;
    });
    assert.ok(sawPodsRemaining, 'terminating pods were reported as remaining content');
    for (const list of [c.apps.deployments('shop').list(), c.apps.replicaSets('shop').list(), c.core.pods('shop').list(), c.core.events('shop').list(), c.coordination.leases('shop').list()]) {
      assert.equal((await list).items.length, 0);
    }
    assert.equal(await exists(() => c.core.pods('default').get('elsewhere')), true, 'other namespaces are untouched');
    await cp.stop();
    await backend.close();
  });

  test('objects held by finalizers keep the namespace, reported as conditions, until released', async () => {
    const { cp, clock, backend } = await newPlane();
    const c = cp.client;
    await c.core.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'held' } });
    await c.coordination.leases('held').create({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'lock', namespace: 'held', finalizers: ['example.com/hold'] },
      spec: {},
    });
    await c.core.namespaces().delete('held');
    await stepUntil(clock, 'finalizers reported', async () => condition(await c.core.namespaces().get('held'), 'NamespaceFinalizersRemaining')?.status === 'True');
    const ns = await c.core.namespaces().get('held');
    assert.deepEqual(
      (ns.status?.conditions ?? []).map((x) => [x.type, x.status, x.reason, x.message]),
      [
        ['NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered', 'All resources successfully discovered'],
        ['NamespaceDeletionGroupVersionParsingFailure', 'False', 'ParsedGroupVersions', 'All legacy kube types successfully parsed'],
        ['NamespaceDeletionContentFailure', 'False', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization'],
        ['NamespaceContentRemaining', 'True', 'SomeResourcesRemain', 'Some resources are remaining: leases.coordination.k8s.io has 1 resource instances'],
        ['NamespaceFinalizersRemaining', 'True', 'SomeFinalizerRemain', 'Some finalizers are remaining: example.com/hold in 1 resource instances'],
      ],
    );
    assert.deepEqual(ns.spec?.finalizers, ['kubernetes']);
    await stepFor(clock, 60_000);
    assert.equal(await exists(() => c.core.namespaces().get('held')), true, 'still held');

    const lease = await c.coordination.leases('held').get('lock');
    await c.coordination.leases('held').update({ ...lease, metadata: { ...lease.metadata, finalizers: [] } });
    await stepUntil(clock, 'namespace gone', async () => !(await exists(() => c.core.namespaces().get('held'))));
    await cp.stop();
    await backend.close();
  });

  test('the immortal namespaces cannot be deleted', async () => {
    const { cp, backend } = await newPlane();
    for (const name of ['default', 'kube-system', 'kube-public']) {
      await assert.rejects(cp.client.core.namespaces().delete(name), (err: unknown) => err instanceof StatusError && err.code === 403 && err.message === `namespaces "${name}" is forbidden: this namespace may not be deleted`);
    }
    await cp.stop();
    await backend.close();
  });
});
