/**
 * A node failure across the whole control plane under a FakeClock (the node-failure story):
 * a simulated node is stopped → its Ready condition turns Unknown after the grace period (50 s) →
 * it is tainted unreachable (NoSchedule and NoExecute) → its Deployment pod is deleted 300 s later
 * (the DefaultTolerationSeconds toleration) and replaced on another node, while its DaemonSet pod
 * (tolerating the taint forever) stays → started again, the node is Ready and untainted.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { DaemonSet, Event, Node, Pod } from '../../src/api/index.js';
import type { ControlPlane } from '../../src/cli/cluster.js';
import type { FakeClock } from '../../src/util/clock/index.js';
import type { MemoryBackend } from '../../src/storage/memory/index.js';
import { deployment, newPlane, stepUntil } from './cluster-helpers.js';
import { isPodReady as ready } from '../../src/controller/controller-utils.js';

const daemonSet: DaemonSet = {
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name: 'agent', namespace: 'default' },
  spec: {
    selector: { matchLabels: { app: 'agent' } },
    template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'agent', image: 'busybox' }] } },
  },
};

describe('node lifecycle: a stopped node is tainted and its pods evicted', { timeout: 600_000 }, () => {
  let cp: ControlPlane;
  let clock: FakeClock;
  let backend: MemoryBackend;

  before(async () => {
    ({ cp, clock, backend } = await newPlane());
  });
  after(async () => {
    await cp.stop();
    await backend.close();
  });

  const pods = async (app: string): Promise<Pod[]> => (await cp.client.core.pods('default').list({ labelSelector: `app=${app}` })).items;
  const node = (name: string): Promise<Node> => cp.client.core.nodes().get(name);
  const readyStatus = async (name: string): Promise<string | undefined> => (await node(name)).status?.conditions?.find((c) => c.type === 'Ready')?.status;
  const taintKeys = async (name: string): Promise<string[]> => ((await node(name)).spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`).sort();

  test('Unknown after the grace period, tainted, Deployment pod replaced after 300 s, DaemonSet pod kept, taints gone on start', async () => {
    await cp.client.apps.daemonSets('default').create(daemonSet);
    await cp.client.apps.deployments('default').create(deployment('web', 6));
    await stepUntil(clock, 'every pod Running and Ready', async () => {
      const all = [...(await pods('web')), ...(await pods('agent'))];
      return all.length === 9 && all.every(ready);
    });
    const web = await pods('web');
    const victim = web[0]?.spec?.nodeName ?? '';
    const onVictim = web.filter((p) => p.spec?.nodeName === victim).map((p) => p.metadata?.uid);
    const agentUID = (await pods('agent')).find((p) => p.spec?.nodeName === victim)?.metadata?.uid;
    assert.ok(onVictim.length > 0 && agentUID);

    await cp.client.core.nodes().patch(victim, 'application/merge-patch+json', { metadata: { annotations: { 'kubeplane.io/simulate': 'Stopped' } } });
    const stoppedAt = clock.now();
    await stepUntil(clock, 'the stopped node is Unknown', async () => (await readyStatus(victim)) === 'Unknown', 700);
    const unknownAfter = clock.now() - stoppedAt;
    // The last lease renewal was up to 10 s before the stop; the controller notes it (its probe
    // timestamp) at its next 5 s monitor pass, and the node is Unknown at the first pass more than
    // 50 s after that: between 40 s and 60 s after the stop.
    assert.ok(unknownAfter >= 40_000 && unknownAfter <= 60_100, `Unknown after ${unknownAfter} ms`);
    const conditions = (await node(victim)).status?.conditions ?? [];
    for (const type of ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure']) {
      const c = conditions.find((x) => x.type === type);
      assert.deepEqual([c?.status, c?.reason, c?.message], ['Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.'], type);
    }
    // MarkPodsNotReady: the node's pods are no longer Ready.
    await stepUntil(clock, 'the pods on the node marked not Ready', async () => (await pods('web')).filter((p) => p.spec?.nodeName === victim).every((p) => !ready(p)));

    await stepUntil(clock, 'the unreachable taints', async () => {
      const keys = await taintKeys(victim);
      return keys.includes('node.kubernetes.io/unreachable:NoExecute') && keys.includes('node.kubernetes.io/unreachable:NoSchedule');
    });
    const taintedAt = clock.now();
    const noExecute = (await node(victim)).spec?.taints?.find((t) => t.effect === 'NoExecute');
    assert.ok(noExecute?.timeAdded, 'the NoExecute taint carries timeAdded');

    // Not before the 300 s toleration…
    await stepUntil(clock, '290 s later', () => Promise.resolve(clock.now() - taintedAt >= 290_000), 3000);
    assert.ok((await pods('web')).filter((p) => onVictim.includes(p.metadata?.uid)).every((p) => !p.metadata?.deletionTimestamp), 'deleted too early');
    // …but right after it.
    await stepUntil(clock, 'the Deployment pods on the node deleted', async () => (await pods('web')).filter((p) => onVictim.includes(p.metadata?.uid)).every((p) => p.metadata?.deletionTimestamp), 200);
    const evicted = (await pods('web')).find((p) => onVictim.includes(p.metadata?.uid));
    const disruption = evicted?.status?.conditions?.find((c) => c.type === 'DisruptionTarget');
    assert.deepEqual([disruption?.status, disruption?.reason], ['True', 'DeletionByTaintManager']);
    const events: readonly Event[] = (await cp.client.core.events('default').list()).items;
    assert.ok(
      events.some((e) => e.reason === 'TaintManagerEviction' && e.message === `Marking for deletion Pod default/${evicted?.metadata?.name ?? ''}` && e.source?.component === 'taint-eviction-controller'),
      'the TaintManagerEviction event',
    );

    // Replacements Running and Ready elsewhere; the DaemonSet pod still there, not deleted.
    await stepUntil(clock, 'six Ready web pods on other nodes', async () => {
      const live = (await pods('web')).filter((p) => !p.metadata?.deletionTimestamp);
      return live.length === 6 && live.every((p) => ready(p) && p.spec?.nodeName !== victim);
    });
    const agent = (await pods('agent')).find((p) => p.metadata?.uid === agentUID);
    assert.ok(agent && !agent.metadata?.deletionTimestamp, 'the DaemonSet pod stays');

    // Start again: Ready, taints removed, the stuck Terminating pods finish.
    await cp.client.core.nodes().patch(victim, 'application/merge-patch+json', { metadata: { annotations: { 'kubeplane.io/simulate': null } } });
    await stepUntil(clock, 'Ready and untainted', async () => (await readyStatus(victim)) === 'True' && (await taintKeys(victim)).length === 0, 200);
    await stepUntil(clock, 'the evicted pods gone', async () => !(await pods('web')).some((p) => onVictim.includes(p.metadata?.uid)), 200);
    // The kubelet back: it reports the DaemonSet pod Ready again (the controller had marked it not Ready).
    await stepUntil(clock, 'the DaemonSet pod Ready again', async () => ready((await pods('agent')).find((p) => p.metadata?.uid === agentUID) ?? {}), 200);
  });
});
