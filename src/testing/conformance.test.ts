/**
 * The test fake agrees with the real server. Each scenario runs twice on the same clock and seed:
 * through the fake (`newFakeTransport`: reactors and the action log in front of the server) and
 * through the in-process transport of an API server wired as `kubeplane up` wires it. Both runs must
 * answer the same, and the answer is checked against upstream's. Every behaviour here is one the
 * hand-written imitation the fake replaced got wrong: it neither defaulted nor validated, deleted pods
 * at once, ignored a resourceVersion on create, created into namespaces that did not exist, did not
 * bump a DaemonSet's template generation and bound pods from a Binding of any name.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { DaemonSet, Deployment, Pod } from '../api/index.js';
import { ApiServer, DEFAULT_NAMESPACES } from '../apiserver/index.js';
import { ensureDefaultServiceAccount } from '../apiserver/testing/fixtures.js';
import { servedStrategies } from '../apiserver/registry/resources/index.js';
import { newClientset, type Clientset, type Transport, type WatchEvent } from '../client/index.js';
import { StatusError } from '../machinery/errors/index.js';
import { MemoryBackend } from '../storage/memory/index.js';
import { FakeClock, flushAsync } from '../util/clock/index.js';
import { SeededRand } from '../util/random/index.js';
import { newFakeTransport } from './index.js';

type Scenario = (cs: Clientset, clock: FakeClock) => Promise<unknown>;

const T0 = Date.UTC(2025, 0, 1);

/** What a request came to: its result, or the error's code, reason and message. */
async function outcome(p: Promise<unknown>): Promise<unknown> {
  try {
    return await p;
  } catch (err) {
    if (!(err instanceof StatusError)) throw err;
    return { code: err.code, reason: err.reason, message: err.message };
  }
}

/**
 * Runs `scenario` on a clientset over `transport`, with namespace `ns` and its `default`
 * ServiceAccount (what the serviceaccounts controller would add; pods need it) created first.
 */
async function runOn(newTransport: (clock: FakeClock) => Promise<Transport>, scenario: Scenario): Promise<unknown> {
  const clock = new FakeClock(T0);
  const cs = newClientset(await newTransport(clock));
  await cs.core.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } });
  await cs.core.serviceAccounts('ns').create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
  return scenario(cs, clock);
}

/** The result of `scenario` through the fake, after checking the server answers the same. */
async function agreed(scenario: Scenario): Promise<unknown> {
  const viaFake = await runOn((clock) => newFakeTransport({ clock, rand: new SeededRand(5) }), scenario);
  const viaServer = await runOn(async (clock) => {
    const server = await ApiServer.create({ backend: new MemoryBackend(), strategies: servedStrategies, clock, rand: new SeededRand(5) });
    // What the serviceaccounts controller of `kubeplane up` does first.
    for (const ns of DEFAULT_NAMESPACES) await ensureDefaultServiceAccount(server, ns);
    return server.inProcessTransport();
  }, scenario);
  assert.deepEqual(viaFake, viaServer, 'the fake and the server answer the same');
  return viaFake;
}

const pod = (name: string, spec: Partial<Pod['spec']> = {}): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'ns' },
  spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
});

const deployment = (name: string, labels: Record<string, string>, templateLabels = labels): Deployment => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'ns' },
  spec: { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels: templateLabels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
});

const daemonSet = (image: string): DaemonSet => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name: 'agent', namespace: 'ns' },
  spec: { selector: { matchLabels: { app: 'agent' } }, template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'c', image }] } } },
});

describe('the fake agrees with the real server', { timeout: 60_000 }, () => {
  test('a create is defaulted (pod defaults, DefaultTolerationSeconds) and its status reset', async () => {
    const created = (await agreed((cs) => cs.core.pods('ns').create({ ...pod('p'), status: { phase: 'Running', podIP: '10.0.0.1' } }))) as Pod;
    const spec = created.spec;
    assert.deepEqual(
      [spec?.restartPolicy, spec?.dnsPolicy, spec?.terminationGracePeriodSeconds, spec?.schedulerName, spec?.containers[0]?.imagePullPolicy, spec?.containers[0]?.terminationMessagePath],
      ['Always', 'ClusterFirst', 30, 'default-scheduler', 'Always', '/dev/termination-log'],
    );
    assert.deepEqual(
      spec?.tolerations?.map((t) => `${t.key ?? ''}:${t.effect ?? ''}:${t.tolerationSeconds ?? ''}`),
      ['node.kubernetes.io/not-ready:NoExecute:300', 'node.kubernetes.io/unreachable:NoExecute:300'],
    );
    assert.deepEqual(created.status, { phase: 'Pending', qosClass: 'BestEffort' }, 'the status a client sends on create is dropped');
  });

  test('an invalid object is 422 Invalid; a resourceVersion on create is 400; a missing namespace is 404', async () => {
    const answers = await agreed(async (cs) => [
      await outcome(cs.core.pods('ns').create({ ...pod('p'), spec: { containers: [{ name: 'c' }] } })),
      await outcome(cs.apps.deployments('ns').create(deployment('d', { app: 'a' }, { app: 'b' }))),
      await outcome(cs.core.pods('ns').create({ ...pod('q'), metadata: { name: 'q', namespace: 'ns', resourceVersion: '1' } })),
      await outcome(cs.core.pods('nope').create({ ...pod('r'), metadata: { name: 'r', namespace: 'nope' } })),
    ]);
    assert.deepEqual(answers, [
      { code: 422, reason: 'Invalid', message: 'Pod "p" is invalid: spec.containers[0].image: Required value' },
      { code: 422, reason: 'Invalid', message: 'Deployment.apps "d" is invalid: spec.template.metadata.labels: Invalid value: {"app":"b"}: `selector` does not match template `labels`' },
      { code: 400, reason: 'BadRequest', message: 'resourceVersion should not be set on objects to be created' },
      { code: 404, reason: 'NotFound', message: 'namespaces "nope" not found' },
    ]);
  });

  test('generation: spec changes bump it, status and labels do not; a DaemonSet template change bumps the template generation', async () => {
    const generations = await agreed(async (cs) => {
      const d = await cs.apps.deployments('ns').create(deployment('d', { app: 'a' }));
      const withStatus = await cs.apps.deployments('ns').updateStatus({ ...d, status: { replicas: 1 } });
      const labelled = await cs.apps.deployments('ns').update({ ...withStatus, metadata: { ...withStatus.metadata, labels: { x: 'y' } } });
      const scaled = await cs.apps.deployments('ns').update({ ...labelled, spec: { ...labelled.spec!, replicas: 3 } });
      const ds = await cs.apps.daemonSets('ns').create(daemonSet('v1'));
      const ds2 = await cs.apps.daemonSets('ns').update({ ...ds, spec: { ...ds.spec!, template: { ...ds.spec!.template, spec: { containers: [{ name: 'c', image: 'v2' }] } } } });
      const gen = (o: Deployment | DaemonSet): string => `${o.metadata?.generation ?? '-'}/${o.metadata?.annotations?.['deprecated.daemonset.template.generation'] ?? '-'}`;
      return [d, withStatus, labelled, scaled, ds, ds2].map(gen);
    });
    assert.deepEqual(generations, ['1/-', '1/-', '1/-', '2/-', '1/1', '2/2']);
  });

  test('pods are deleted gracefully: a bound pod stays terminating until deleted with grace 0; an unbound one goes at once, seen as MODIFIED then DELETED', async () => {
    const r = (await agreed(async (cs, clock) => {
      const events: string[] = [];
      const list = await cs.core.pods('ns').list();
      const onEvent = (ev: WatchEvent<Pod>): number => events.push(`${ev.type} ${ev.object.metadata?.name ?? ''} ${ev.object.metadata?.deletionTimestamp ?? '-'}`);
      const watch = cs.core.pods('ns').watch({ resourceVersion: list.metadata.resourceVersion }, onEvent, () => undefined);
      await cs.core.pods('ns').create(pod('bound', { nodeName: 'n1' }));
      await cs.core.pods('ns').create(pod('unbound'));
      clock.step(1000);
      const deleting = (await cs.core.pods('ns').delete('bound')) as Pod;
      await cs.core.pods('ns').delete('unbound');
      const unbound = await outcome(cs.core.pods('ns').get('unbound'));
      clock.step(60_000); // past the grace period: the API server does not remove the pod, its kubelet does
      const still = (await cs.core.pods('ns').get('bound')).metadata?.deletionTimestamp;
      await cs.core.pods('ns').delete('bound', { gracePeriodSeconds: 0 });
      const bound = await outcome(cs.core.pods('ns').get('bound'));
      await flushAsync();
      watch.stop();
      const m = deleting.metadata;
      return { deleting: [m?.deletionTimestamp, m?.deletionGracePeriodSeconds], unbound, still, bound, events };
    })) as Record<string, unknown>;
    assert.deepEqual(r, {
      deleting: ['2025-01-01T00:00:31Z', 30],
      unbound: { code: 404, reason: 'NotFound', message: 'pods "unbound" not found' },
      still: '2025-01-01T00:00:31Z',
      bound: { code: 404, reason: 'NotFound', message: 'pods "bound" not found' },
      events: [
        'ADDED bound -',
        'ADDED unbound -',
        'MODIFIED bound 2025-01-01T00:00:31Z',
        'MODIFIED unbound 2025-01-01T00:00:01Z',
        'DELETED unbound 2025-01-01T00:00:01Z',
        'MODIFIED bound 2025-01-01T00:00:01Z', // the deadline moves back by the 30 s given up
        'DELETED bound 2025-01-01T00:00:01Z',
      ],
    });
  });

  test('binding: the Binding names the pod; it sets nodeName and PodScheduled; a bound pod is 409', async () => {
    const r = await agreed(async (cs) => {
      await cs.core.pods('ns').create(pod('p'));
      const target = { kind: 'Node', name: 'n1' };
      const wrongName = await outcome(cs.core.pods('ns').createSubresource('p', 'binding', { metadata: { name: 'q' }, target }));
      await cs.core.pods('ns').createSubresource('p', 'binding', { metadata: { name: 'p' }, target });
      const bound = await cs.core.pods('ns').get('p');
      const again = await outcome(cs.core.pods('ns').createSubresource('p', 'binding', { metadata: { name: 'p' }, target: { kind: 'Node', name: 'n2' } }));
      return { wrongName, nodeName: bound.spec?.nodeName, scheduled: bound.status?.conditions?.map((c) => `${c.type}=${c.status}`), again };
    });
    assert.deepEqual(r, {
      wrongName: { code: 400, reason: 'BadRequest', message: 'name in URL does not match name in Binding object' },
      nodeName: 'n1',
      scheduled: ['PodScheduled=True'],
      again: { code: 409, reason: 'Conflict', message: 'Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "n1"' },
    });
  });
});
