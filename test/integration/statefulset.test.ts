/**
 * StatefulSets in the whole control plane under a FakeClock (scheduler, simulated kubelets, garbage
 * collector): ordered start-up with claims, ordered scale down keeping the claims, a rolling update
 * in reverse ordinal order, and whenDeleted=Delete claims collected with the set.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod, StatefulSet } from '../../src/api/index.js';
import type { ControlPlane } from '../../src/cli/cluster.js';
import { parseTime } from '../../src/util/clock/index.js';
import { newPlane, stepUntil } from './cluster-helpers.js';

function statefulSet(replicas: number, retention?: { whenDeleted: string; whenScaled: string }): StatefulSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      replicas,
      serviceName: 'nginx',
      selector: { matchLabels: { app: 'nginx' } },
      template: { metadata: { labels: { app: 'nginx' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] } },
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
      ...(retention ? { persistentVolumeClaimRetentionPolicy: retention } : {}),
    },
  };
}

const readyAt = (p: Pod): number | undefined => {
  const c = (p.status?.conditions ?? []).find((x) => x.type === 'Ready' && x.status === 'True');
  return c ? parseTime(c.lastTransitionTime) : undefined;
};

async function pods(cp: ControlPlane): Promise<Pod[]> {
  return [...(await cp.client.core.pods('default').list({ labelSelector: 'app=nginx' })).items].sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
}

async function claimNames(cp: ControlPlane): Promise<string[]> {
  return (await cp.client.core.persistentVolumeClaims('default').list()).items.map((c) => c.metadata?.name ?? '').sort();
}

describe('StatefulSet in the control plane', () => {
  test('ordered start-up, ordered scale down keeping claims, reverse-order rolling update', async () => {
    const { cp, clock, backend } = await newPlane();
    const sets = cp.client.apps.statefulSets('default');
    await sets.create(statefulSet(3));
    await stepUntil(clock, '3 ready replicas', async () => (await sets.get('web')).status?.readyReplicas === 3);
    const started = await pods(cp);
    assert.deepEqual(started.map((p) => p.metadata?.name), ['web-0', 'web-1', 'web-2']);
    // Each pod was created only after its predecessor was Ready.
    for (let i = 1; i < started.length; i++) {
      const created = parseTime(started[i]?.metadata?.creationTimestamp) ?? 0;
      const prevReady = readyAt(started[i - 1] as Pod) ?? Infinity;
      assert.ok(created >= prevReady, `web-${i} created at ${created}, web-${i - 1} ready at ${prevReady}`);
    }
    assert.deepEqual(await claimNames(cp), ['data-web-0', 'data-web-1', 'data-web-2']);
    assert.equal(started[0]?.spec?.hostname, 'web-0');
    assert.equal(started[0]?.spec?.subdomain, 'nginx');

    // Rolling update: web-2, then web-1, then web-0.
    const cur = await sets.get('web');
    const updated = await sets.update({ ...cur, spec: { ...cur.spec!, template: { ...cur.spec!.template, spec: { containers: [{ name: 'nginx', image: 'nginx:1.28' }] } } } });
    const order: string[] = [];
    await stepUntil(clock, 'rolled out', async () => {
      for (const p of await pods(cp)) {
        const name = p.metadata?.name ?? '';
        if (p.spec?.containers[0]?.image === 'nginx:1.28' && !order.includes(name)) order.push(name);
      }
      // As `kubectl rollout status`: the status must be of the new generation, else the old one's
      // "3 updated, current = update revision" passes before the controller has seen the change.
      const s = (await sets.get('web')).status;
      return (s?.observedGeneration ?? 0) >= (updated.metadata?.generation ?? 0) && s?.updatedReplicas === 3 && s.readyReplicas === 3 && s.currentRevision === s.updateRevision;
    });
    assert.deepEqual(order, ['web-2', 'web-1', 'web-0']);

    // Scale down to 1: web-2 goes before web-1; the claims stay.
    const scaled = await sets.get('web');
    await sets.update({ ...scaled, spec: { ...scaled.spec!, replicas: 1 } });
    let sawOnlyWeb2Gone = false;
    await stepUntil(clock, 'scaled to 1', async () => {
      const names = (await pods(cp)).map((p) => p.metadata?.name);
      if (names.includes('web-1') && !names.includes('web-2')) sawOnlyWeb2Gone = true;
      return names.length === 1;
    });
    assert.ok(sawOnlyWeb2Gone, 'web-2 went first');
    assert.deepEqual(await claimNames(cp), ['data-web-0', 'data-web-1', 'data-web-2']);
    const events = (await cp.client.core.events('default').list()).items.filter((e) => e.source?.component === 'statefulset-controller').map((e) => e.message);
    assert.ok(events.includes('create Pod web-0 in StatefulSet web successful'));
    assert.ok(events.includes('delete Pod web-2 in StatefulSet web successful'));
    await cp.stop();
    await backend.close();
  });

  test('whenDeleted=Delete: the garbage collector removes the claims with the set', async () => {
    const { cp, clock, backend } = await newPlane();
    const sets = cp.client.apps.statefulSets('default');
    await sets.create(statefulSet(2, { whenDeleted: 'Delete', whenScaled: 'Retain' }));
    await stepUntil(clock, '2 ready replicas', async () => (await sets.get('web')).status?.readyReplicas === 2);
    assert.deepEqual(await claimNames(cp), ['data-web-0', 'data-web-1']);
    await sets.delete('web');
    await stepUntil(clock, 'claims and pods collected', async () => (await claimNames(cp)).length === 0 && (await pods(cp)).length === 0);
    await cp.stop();
    await backend.close();
  });
});
