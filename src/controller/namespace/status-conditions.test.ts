import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Namespace } from '../../api/index.js';
import { NamespaceConditionUpdater } from './status-conditions.js';

type Status = NonNullable<Namespace['status']>;
const summary = (s: Status): string[][] => (s.conditions ?? []).map((c) => [c.type, c.status, c.reason ?? '', c.message ?? '', c.lastTransitionTime ?? '']);

describe('NamespaceConditionUpdater', () => {
  test('a clean pass sets all five conditions False with the ok reasons', () => {
    const status: Status = { phase: 'Terminating' };
    assert.equal(new NamespaceConditionUpdater('T1').update(status), true);
    assert.deepEqual(summary(status).map((c) => c.slice(0, 3)), [
      ['NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered'],
      ['NamespaceDeletionGroupVersionParsingFailure', 'False', 'ParsedGroupVersions'],
      ['NamespaceDeletionContentFailure', 'False', 'ContentDeleted'],
      ['NamespaceContentRemaining', 'False', 'ContentRemoved'],
      ['NamespaceFinalizersRemaining', 'False', 'ContentRemoved'],
    ]);
    assert.equal(new NamespaceConditionUpdater('T2').update(status), false, 'the same outcome changes nothing');
  });

  test('failures and remaining content become True conditions, sorted; lastTransitionTime moves only on a status flip', () => {
    const status: Status = {};
    new NamespaceConditionUpdater('T1').update(status);
    const u = new NamespaceConditionUpdater('T2');
    u.processDiscoverResourcesErr('discovery down');
    u.processDeleteContentErr('b failed');
    u.processDeleteContentErr('a failed');
    u.processContentTotals({
      resourceToNumRemaining: new Map([['pods.', 2], ['leases.coordination.k8s.io', 1]]),
      finalizersToNumRemaining: new Map([['z/hold', 1], ['a/hold', 2]]),
    });
    assert.equal(u.update(status), true);
    assert.deepEqual(summary(status), [
      ['NamespaceDeletionDiscoveryFailure', 'True', 'DiscoveryFailed', 'discovery down', 'T2'],
      ['NamespaceDeletionGroupVersionParsingFailure', 'False', 'ParsedGroupVersions', 'All legacy kube types successfully parsed', 'T1'],
      ['NamespaceDeletionContentFailure', 'True', 'ContentDeletionFailed', 'Failed to delete all resource types, 2 remaining: a failed, b failed', 'T2'],
      ['NamespaceContentRemaining', 'True', 'SomeResourcesRemain', 'Some resources are remaining: leases.coordination.k8s.io has 1 resource instances, pods. has 2 resource instances', 'T2'],
      ['NamespaceFinalizersRemaining', 'True', 'SomeFinalizerRemain', 'Some finalizers are remaining: a/hold in 2 resource instances, z/hold in 1 resource instances', 'T2'],
    ]);
  });
});
