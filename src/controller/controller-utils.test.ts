import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../api/index.js';
import { formatTime } from '../util/clock/index.js';
import { compareActivePodsWithRanks, enqueueWhenAvailable, filterActivePods, isPodAvailable, ownersOfUpdatedDependent } from './controller-utils.js';

const NOW = Date.UTC(2025, 0, 1, 12);

/** A running, scheduled pod, ready since `readyAgoS` seconds (undefined: not ready), created `createdAgoS` ago. */
function pod(name: string, o: { node?: string; phase?: string; readyAgoS?: number; createdAgoS?: number; cost?: string; restarts?: number; uid?: string } = {}): Pod {
  const p: Pod = {
    metadata: { name, uid: o.uid ?? name, creationTimestamp: formatTime(NOW - (o.createdAgoS ?? 3600) * 1000) },
    spec: { containers: [{ name: 'c' }], nodeName: o.node ?? 'n1' },
    status: {
      phase: o.phase ?? 'Running',
      conditions: [
        o.readyAgoS === undefined
          ? { type: 'Ready', status: 'False' }
          : { type: 'Ready', status: 'True', lastTransitionTime: formatTime(NOW - o.readyAgoS * 1000) },
      ],
      containerStatuses: [{ name: 'c', image: 'i', imageID: '', ready: true, restartCount: o.restarts ?? 0 }],
    },
  };
  if (o.cost !== undefined) p.metadata = { ...p.metadata, annotations: { 'controller.kubernetes.io/pod-deletion-cost': o.cost } };
  return p;
}

describe('compareActivePodsWithRanks (which pod is deleted first)', () => {
  const cases: { name: string; first: Pod; second: Pod; ranks?: [number, number] }[] = [
    { name: '1. unassigned before assigned', first: pod('a', { node: '', readyAgoS: 10 }), second: pod('b', { readyAgoS: 10 }) },
    { name: '2. Pending before Unknown', first: pod('a', { phase: 'Pending' }), second: pod('b', { phase: 'Unknown' }) },
    { name: '2. Unknown before Running', first: pod('a', { phase: 'Unknown' }), second: pod('b', { phase: 'Running' }) },
    { name: '3. not ready before ready', first: pod('a'), second: pod('b', { readyAgoS: 10 }) },
    { name: '4. lower deletion cost first', first: pod('a', { readyAgoS: 10, cost: '-5' }), second: pod('b', { readyAgoS: 10, cost: '3' }) },
    { name: '4. invalid cost counts as 0', first: pod('a', { readyAgoS: 10, cost: 'x' }), second: pod('b', { readyAgoS: 10, cost: '1' }) },
    { name: '5. doubled up (higher rank) first', first: pod('a', { readyAgoS: 10 }), second: pod('b', { readyAgoS: 10 }), ranks: [3, 1] },
    { name: '6. ready more recently first', first: pod('a', { readyAgoS: 10 }), second: pod('b', { readyAgoS: 100 }) },
    { name: '6. same log2 bucket: uid decides', first: pod('b', { readyAgoS: 10, uid: 'a-uid' }), second: pod('a', { readyAgoS: 15, uid: 'b-uid' }) },
    { name: '7. more restarts first', first: pod('a', { readyAgoS: 10, restarts: 5 }), second: pod('b', { readyAgoS: 10, restarts: 1 }) },
    { name: '8. newer first', first: pod('a', { createdAgoS: 60 }), second: pod('b', { createdAgoS: 6000 }) },
    { name: '8. no creationTimestamp first', first: { ...pod('a'), metadata: { name: 'a', uid: 'a' } }, second: pod('b') },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const [ra, rb] = c.ranks ?? [0, 0];
      assert.ok(compareActivePodsWithRanks(c.first, c.second, ra, rb, NOW) < 0);
      assert.ok(compareActivePodsWithRanks(c.second, c.first, rb, ra, NOW) > 0);
    });
  }

  test('earlier rules win over later ones', () => {
    // not ready but expensive and old vs ready, cheap and new: readiness (rule 3) decides
    const a = pod('a', { cost: '100', createdAgoS: 99999 });
    const b = pod('b', { readyAgoS: 1, cost: '-100', createdAgoS: 1 });
    assert.ok(compareActivePodsWithRanks(a, b, 0, 0, NOW) < 0);
  });

  test('identical pods tie', () => {
    assert.equal(compareActivePodsWithRanks(pod('a', { readyAgoS: 5 }), pod('a', { readyAgoS: 5 }), 0, 0, NOW), 0);
  });
});

describe('pod activity and availability', () => {
  test('filterActivePods drops terminal and terminating pods', () => {
    const terminating = { ...pod('c'), metadata: { name: 'c', deletionTimestamp: formatTime(NOW) } };
    const pods = [pod('a'), pod('b', { phase: 'Succeeded' }), terminating, pod('d', { phase: 'Failed' })];
    assert.deepEqual(filterActivePods(pods).map((p) => p.metadata?.name), ['a']);
  });

  test('isPodAvailable: ready strictly longer than minReadySeconds', () => {
    const p = pod('a', { readyAgoS: 10 });
    assert.equal(isPodAvailable(p, 0, NOW), true);
    assert.equal(isPodAvailable(p, 9, NOW), true);
    assert.equal(isPodAvailable(p, 10, NOW), false);
    assert.equal(isPodAvailable(pod('b'), 0, NOW), false);
  });
});

describe('ownersOfUpdatedDependent / enqueueWhenAvailable', () => {
  const ref = (name: string) => ({ apiVersion: 'apps/v1', kind: 'StatefulSet', name, uid: `${name}-uid`, controller: true });
  const dep = (labels: Record<string, string>, owner?: string): Pod => ({
    metadata: { name: 'p', namespace: 'ns', labels, ...(owner ? { ownerReferences: [ref(owner)] } : {}) },
  });
  const resolve = (_ns: string, r: { name: string }): string | undefined => (r.name === 'gone' ? undefined : r.name);
  const selecting = (): string[] => ['matching'];

  test('controller changed: the previous and the current; orphaned with new labels: the selecting owners', () => {
    assert.deepEqual(ownersOfUpdatedDependent(dep({ a: '1' }, 'a'), dep({ a: '1' }, 'b'), resolve, selecting), { previous: 'a', current: 'b', selecting: [] });
    assert.deepEqual(ownersOfUpdatedDependent(dep({ a: '1' }, 'a'), dep({ a: '2' }, 'a'), resolve, selecting), { previous: undefined, current: 'a', selecting: [] });
    assert.deepEqual(ownersOfUpdatedDependent(dep({ a: '1' }, 'a'), dep({ a: '1' }), resolve, selecting), { previous: 'a', current: undefined, selecting: ['matching'] });
    assert.deepEqual(ownersOfUpdatedDependent(dep({ a: '1' }), dep({ a: '1' }), resolve, selecting), { previous: undefined, current: undefined, selecting: [] });
    assert.deepEqual(ownersOfUpdatedDependent(dep({ a: '1' }), dep({ a: '2' }), resolve, selecting), { previous: undefined, current: undefined, selecting: ['matching'] });
    assert.deepEqual(ownersOfUpdatedDependent(dep({ a: '1' }, 'gone'), dep({ a: '1' }, 'gone'), resolve, selecting), { previous: undefined, current: undefined, selecting: [] });
  });

  test('a pod turning ready schedules its owner after minReadySeconds + 1 s', () => {
    const calls: [string, number][] = [];
    const queue = { addAfter: (k: string, ms: number) => calls.push([k, ms]) };
    const notReady: Pod = { status: { conditions: [{ type: 'Ready', status: 'False' }] } };
    const ready: Pod = { status: { conditions: [{ type: 'Ready', status: 'True' }] } };
    enqueueWhenAvailable(queue, 'ns/web', notReady, ready, 10);
    enqueueWhenAvailable(queue, 'ns/web', ready, ready, 10);
    enqueueWhenAvailable(queue, 'ns/web', notReady, ready, 0);
    assert.deepEqual(calls, [['ns/web', 11_000]]);
  });
});
