import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ConfigMap, Event, KubeObject, Pod, Secret } from '../api/index.js';
import { newClientset } from '../client/index.js';
import { newFakeTransport } from '../testing/index.js';
import { newSharedInformerFactory } from '../informers/index.js';
import { FakeClock, flushAsync } from '../util/clock/index.js';
import { SeededRand } from '../util/random/index.js';
import { goDurationMs, imageEvents, imageSizeBytes, nodeHealthyEvents, nodeStartupEvents, pullPolicyOf } from './kubelet-events.js';
import { containerConfigError, volumeMountErrors, type PodReferenceLookup } from './pod-references.js';
import { mountRetryDelayMs } from './reference-stages.js';
import { NodeSimulator } from './simulator.js';
import { defaultStages } from './stages.js';

const cm = (name: string, data: Record<string, string> = { k: 'v' }): ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data });
const secret = (name: string, data: Record<string, string> = { k: 'dg==' }): Secret => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'default' }, data });

function lookupOf(objs: Array<ConfigMap | Secret>): PodReferenceLookup {
  const find = (kind: string, ns: string, name: string) => objs.find((o) => o.kind === kind && o.metadata?.namespace === ns && o.metadata?.name === name);
  return { configMap: (ns, n) => find('ConfigMap', ns, n) as ConfigMap | undefined, secret: (ns, n) => find('Secret', ns, n) as Secret | undefined };
}

const podWith = (spec: Partial<NonNullable<Pod['spec']>>): Pod => ({
  metadata: { name: 'p', namespace: 'default', uid: 'u1' },
  spec: { containers: [{ name: 'app', image: 'nginx' }], ...spec },
});

describe('kubelet messages', () => {
  test('Go durations truncated to the millisecond', () => {
    const cases: Array<[number, string]> = [[0, '0s'], [812.9, '812ms'], [1000, '1s'], [1200, '1.2s'], [1234, '1.234s'], [62_500, '1m2.5s'], [3_600_000, '1h0m0s']];
    for (const [ms, want] of cases) assert.equal(goDurationMs(ms), want, String(ms));
  });
  test('pull policy defaults as the API server: Always for untagged and :latest, IfNotPresent otherwise', () => {
    assert.equal(pullPolicyOf({ name: 'c', image: 'nginx' }), 'Always');
    assert.equal(pullPolicyOf({ name: 'c', image: 'nginx:latest' }), 'Always');
    assert.equal(pullPolicyOf({ name: 'c', image: 'nginx:1.27' }), 'IfNotPresent');
    assert.equal(pullPolicyOf({ name: 'c', image: 'localhost:5000/app' }), 'Always');
    assert.equal(pullPolicyOf({ name: 'c', image: 'nginx@sha256:abc' }), 'IfNotPresent');
    assert.equal(pullPolicyOf({ name: 'c', image: 'nginx:1.27', imagePullPolicy: 'Always' }), 'Always');
  });
  test('image events: pulled (image_manager.go pullImage) or already present (EnsureImageExists)', () => {
    const pod = podWith({});
    assert.deepEqual(imageEvents(pod, { name: 'app', image: 'nginx' }, true, 1200), [
      { type: 'Normal', reason: 'Pulling', message: 'Pulling image "nginx"', fieldPath: 'spec.containers{app}' },
      {
        type: 'Normal',
        reason: 'Pulled',
        message: `Successfully pulled image "nginx" in 1.2s (1.2s including waiting). Image size: ${imageSizeBytes('nginx')} bytes.`,
        fieldPath: 'spec.containers{app}',
      },
    ]);
    assert.deepEqual(imageEvents(pod, { name: 'app', image: 'nginx:1.27' }, true, 1200), [
      { type: 'Normal', reason: 'Pulled', message: 'Container image "nginx:1.27" already present on machine', fieldPath: 'spec.containers{app}' },
    ]);
    assert.equal(imageEvents(pod, { name: 'app', image: 'nginx:1.27' }, false, 500).map((e) => e.reason).join(), 'Pulling,Pulled');
  });
  test('node start-up events in a real node\'s order', () => {
    assert.deepEqual(
      nodeStartupEvents('n1', { ready: true }).map((e) => [e.reason, e.message]),
      [
        ['Starting', 'Starting kubelet.'],
        ['NodeHasSufficientMemory', 'Node n1 status is now: NodeHasSufficientMemory'],
        ['NodeHasNoDiskPressure', 'Node n1 status is now: NodeHasNoDiskPressure'],
        ['NodeHasSufficientPID', 'Node n1 status is now: NodeHasSufficientPID'],
        ['NodeAllocatableEnforced', 'Updated Node Allocatable limit across pods'],
        ['NodeReady', 'Node n1 status is now: NodeReady'],
      ],
    );
    assert.deepEqual(nodeStartupEvents('n1', { restart: true }).map((e) => e.reason), ['Starting', 'NodeAllocatableEnforced']);
    const previous = [
      { type: 'MemoryPressure', status: 'False' },
      { type: 'DiskPressure', status: 'Unknown' },
      { type: 'PIDPressure', status: 'False' },
      { type: 'Ready', status: 'Unknown' },
    ];
    assert.deepEqual(nodeHealthyEvents('n1', previous).map((e) => e.reason), ['NodeHasNoDiskPressure', 'NodeReady'], 'only conditions that change record events');
  });
});

describe('what a pod refers to (pkg/volume/configmap, secret, projected; kubelet_pods.go makeEnvironmentVariables)', () => {
  const volumeCases: Array<[string, Partial<NonNullable<Pod['spec']>>, Array<ConfigMap | Secret>, string[]]> = [
    ['configMap missing', { volumes: [{ name: 'cfg', configMap: { name: 'x' } }] }, [], ['cfg: configmap "x" not found']],
    ['configMap optional', { volumes: [{ name: 'cfg', configMap: { name: 'x', optional: true } }] }, [], []],
    ['configMap present', { volumes: [{ name: 'cfg', configMap: { name: 'x' } }] }, [cm('x')], []],
    ['configMap items key missing', { volumes: [{ name: 'cfg', configMap: { name: 'x', items: [{ key: 'k', path: 'a' }, { key: 'nope', path: 'b' }] } }] }, [cm('x')], ['cfg: configmap references non-existent config key: nope']],
    ['configMap items key missing, optional', { volumes: [{ name: 'cfg', configMap: { name: 'x', optional: true, items: [{ key: 'nope', path: 'b' }] } }] }, [cm('x')], []],
    ['secret missing', { volumes: [{ name: 's', secret: { secretName: 'y' } }] }, [], ['s: secret "y" not found']],
    ['secret items key missing', { volumes: [{ name: 's', secret: { secretName: 'y', items: [{ key: 'nope', path: 'b' }] } }] }, [secret('y')], ['s: references non-existent secret key: nope']],
    [
      'kube-api-access projected volume, root CA published',
      {
        volumes: [
          {
            name: 'kube-api-access-abcde',
            projected: {
              sources: [
                { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
                { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
                { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
              ],
            },
          },
        ],
      },
      [cm('kube-root-ca.crt', { 'ca.crt': 'PEM' })],
      [],
    ],
    [
      'projected, two sources missing: an aggregate',
      { volumes: [{ name: 'all', projected: { sources: [{ configMap: { name: 'kube-root-ca.crt' } }, { secret: { name: 'y' } }, { secret: { name: 'z', optional: true } }] } }] },
      [],
      ['all: [configmap "kube-root-ca.crt" not found, secret "y" not found]'],
    ],
    ['several volumes, in spec order', { volumes: [{ name: 'b', secret: { secretName: 'y' } }, { name: 'a', configMap: { name: 'x' } }, { name: 'e', emptyDir: {} }] }, [], ['b: secret "y" not found', 'a: configmap "x" not found']],
  ];
  for (const [name, spec, objs, want] of volumeCases) {
    test(`volumes: ${name}`, () => {
      assert.deepEqual(volumeMountErrors(podWith(spec), lookupOf(objs)).map((e) => `${e.volume}: ${e.message}`), want);
    });
  }

  const envCases: Array<[string, NonNullable<Pod['spec']>['containers'][number], Array<ConfigMap | Secret>, string | undefined]> = [
    ['envFrom configMap missing', { name: 'c', envFrom: [{ configMapRef: { name: 'x' } }] }, [], 'configmap "x" not found'],
    ['envFrom secret missing', { name: 'c', envFrom: [{ secretRef: { name: 'y' } }] }, [], 'secret "y" not found'],
    ['envFrom optional', { name: 'c', envFrom: [{ secretRef: { name: 'y', optional: true } }] }, [], undefined],
    ['configMapKeyRef object missing', { name: 'c', env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'x', key: 'k' } } }] }, [], 'configmap "x" not found'],
    ['configMapKeyRef key missing', { name: 'c', env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'x', key: 'nope' } } }] }, [cm('x')], "couldn't find key nope in ConfigMap default/x"],
    ['secretKeyRef key missing', { name: 'c', env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 'y', key: 'nope' } } }] }, [secret('y')], "couldn't find key nope in Secret default/y"],
    ['secretKeyRef optional key', { name: 'c', env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 'y', key: 'nope', optional: true } } }] }, [secret('y')], undefined],
    ['present', { name: 'c', env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 'y', key: 'k' } } }, { name: 'B', value: 'b' }] }, [secret('y')], undefined],
    [
      'envFrom is resolved before env',
      { name: 'c', env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 'y', key: 'k' } } }], envFrom: [{ configMapRef: { name: 'x' } }] },
      [],
      'configmap "x" not found',
    ],
  ];
  for (const [name, c, objs, want] of envCases) {
    test(`env: ${name}`, () => assert.equal(containerConfigError(podWith({ containers: [c] }), c, lookupOf(objs)), want));
  }

  test('mount retries 0.5 s, 1 s, 2 s … at most 2m2s apart (exponentialbackoff)', () => {
    const start = Date.UTC(2025, 0, 1);
    const pod: Pod = { status: { startTime: '2025-01-01T00:00:00Z' } };
    assert.equal(mountRetryDelayMs(pod, start), 500);
    assert.equal(mountRetryDelayMs(pod, start + 500), 1000);
    assert.equal(mountRetryDelayMs(pod, start + 1_600), 1_900, 'next attempt at 3.5 s');
    // 0.5+1+2+…+64 = 127.5 s, then 122 s gaps.
    assert.equal(mountRetryDelayMs(pod, start + 127_500), 122_000);
  });
});

// ---- the simulator under a fake clock ------------------------------------------------------------

function pod(name: string, spec: Partial<NonNullable<Pod['spec']>> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { nodeName: 'n1', containers: [{ name: 'app', image: 'nginx' }], ...spec },
    status: { phase: 'Pending' },
  };
}

async function setup(objects: KubeObject[] = [], opts: { podEvents?: boolean } = {}) {
  const clock = new FakeClock();
  // What the root-ca-cert-publisher keeps in every namespace: pods' kube-api-access volumes mount it.
  const rootCA = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kube-root-ca.crt', namespace: 'default' }, data: { 'ca.crt': 'PEM' } };
  const transport = await newFakeTransport({ clock, objects: [rootCA, ...objects] });
  const client = newClientset(transport);
  const informers = newSharedInformerFactory(client, { clock, rand: new SeededRand(3) });
  const sim = new NodeSimulator({ client, informers, clock, rand: new SeededRand(9), stages: defaultStages({ podReadyJitterMs: 0 }), ...opts });
  const ac = new AbortController();
  const done = sim.run(ac.signal);
  const settle = async (pred: () => Promise<boolean>, stepMs = 0): Promise<void> => {
    for (let i = 0; i < 200; i++) {
      if (await pred()) return;
      await clock.stepAsync(stepMs);
      await flushAsync();
    }
    assert.fail('condition not reached');
  };
  const get = (name: string) => client.core.pods('default').get(name);
  const events = async (name: string): Promise<Event[]> =>
    (await client.core.events('default').list()).items.filter((e) => e.involvedObject.name === name).sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  const reasons = async (name: string): Promise<string[]> => (await events(name)).map((e) => e.reason ?? '');
  const stop = async () => {
    ac.abort();
    await done;
    informers.shutdown();
  };
  await sim.addNode({ name: 'n1' });
  await settle(() => Promise.resolve(sim.nodeNames().includes('n1')));
  return { clock, client, sim, settle, get, events, reasons, stop };
}

const waitingReason = (p: Pod): string | undefined => p.status?.containerStatuses?.[0]?.state?.waiting?.reason;

describe('NodeSimulator: a kubelet that checks what pods refer to', () => {
  test('a missing ConfigMap volume keeps the pod ContainerCreating with FailedMount, retried with back-off; it starts once the ConfigMap exists', async () => {
    const s = await setup([pod('web', { volumes: [{ name: 'config', configMap: { name: 'app-config' } }] })] as KubeObject[]);
    const t0 = s.clock.now();
    await s.settle(async () => (await s.reasons('web')).includes('FailedMount'), 100);
    const [failed] = (await s.events('web')).filter((e) => e.reason === 'FailedMount');
    assert.equal(failed?.type, 'Warning');
    assert.equal(failed?.message, 'MountVolume.SetUp failed for volume "config" : configmap "app-config" not found');
    assert.deepEqual([failed?.source?.component, failed?.source?.host, failed?.reportingComponent, failed?.reportingInstance], ['kubelet', 'n1', 'kubelet', 'n1']);
    // Attempts 0.5, 1.5, 3.5, 7.5 s after the start: one Event, its count 4 by 7.5 s.
    await s.settle(async () => (await s.events('web')).find((e) => e.reason === 'FailedMount')?.count === 4, 100);
    assert.ok(s.clock.now() - t0 >= 7_500 && s.clock.now() - t0 < 8_000, `fourth attempt at ${s.clock.now() - t0} ms`);
    await s.clock.stepAsync(30_000);
    let p = await s.get('web');
    assert.equal(p.status?.phase, 'Pending');
    assert.equal(waitingReason(p), 'ContainerCreating');
    assert.equal(p.status?.podIP, undefined);
    await s.client.core.configMaps('default').create(cm('app-config'));
    // The next attempt (63.5 s after the start) mounts it; the pod then starts after the start delay.
    await s.settle(async () => (await s.get('web')).status?.phase === 'Running', 1_000);
    p = await s.get('web');
    assert.equal(p.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
    await s.stop();
  });

  test('an optional missing ConfigMap volume does not stop the pod', async () => {
    const s = await setup([pod('web', { volumes: [{ name: 'config', configMap: { name: 'app-config', optional: true } }] })] as KubeObject[]);
    await s.settle(async () => (await s.get('web')).status?.phase === 'Running', 100);
    assert.ok(!(await s.reasons('web')).includes('FailedMount'));
    await s.stop();
  });

  test('env from a missing Secret key: CreateContainerConfigError with upstream\'s message, Warning Failed, retried; starts once the key exists', async () => {
    const s = await setup([
      secret('db', { other: 'eA==' }),
      pod('api', { containers: [{ name: 'api', image: 'nginx:1.27', env: [{ name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } }] }] }),
    ] as KubeObject[]);
    await s.settle(async () => waitingReason(await s.get('api')) === 'CreateContainerConfigError', 100);
    let p = await s.get('api');
    assert.equal(p.status?.phase, 'Pending');
    assert.equal(p.status?.containerStatuses?.[0]?.state?.waiting?.message, "couldn't find key password in Secret default/db");
    assert.equal(p.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'False');
    await s.settle(async () => (await s.reasons('api')).includes('Failed'));
    const failed = (await s.events('api')).find((e) => e.reason === 'Failed');
    assert.deepEqual([failed?.type, failed?.message, failed?.involvedObject.fieldPath], ['Warning', "Error: couldn't find key password in Secret default/db", 'spec.containers{api}']);
    // The pod worker retries after 10–15 s: the Failed event counts up.
    await s.clock.stepAsync(15_000);
    await s.settle(async () => ((await s.events('api')).find((e) => e.reason === 'Failed')?.count ?? 0) >= 2, 1_000);
    await s.client.core.secrets('default').update(secret('db', { other: 'eA==', password: 'cA==' }));
    await s.settle(async () => (await s.get('api')).status?.phase === 'Running', 1_000);
    p = await s.get('api');
    assert.equal(p.status?.containerStatuses?.[0]?.ready, true);
    await s.stop();
  });

  test('envFrom a missing ConfigMap: CreateContainerConfigError `configmap "x" not found`', async () => {
    const s = await setup([pod('api', { containers: [{ name: 'api', image: 'nginx', envFrom: [{ configMapRef: { name: 'x' } }] }] })] as KubeObject[]);
    await s.settle(async () => waitingReason(await s.get('api')) === 'CreateContainerConfigError', 100);
    assert.equal((await s.get('api')).status?.containerStatuses?.[0]?.state?.waiting?.message, 'configmap "x" not found');
    await s.stop();
  });
});

describe('NodeSimulator: kubelet and node events', () => {
  test('a started pod records Pulling, Pulled, Created, Started as the kubelet of its node; deleting it records Killing', async () => {
    const s = await setup([pod('web')] as KubeObject[]);
    await s.settle(async () => (await s.reasons('web')).length >= 4, 100);
    const events = await s.events('web');
    assert.deepEqual(
      events.map((e) => [e.reason, e.message]),
      [
        ['Pulling', 'Pulling image "nginx"'],
        ['Pulled', `Successfully pulled image "nginx" in 500ms (500ms including waiting). Image size: ${imageSizeBytes('nginx')} bytes.`],
        ['Created', 'Created container: app'],
        ['Started', 'Started container app'],
      ],
    );
    for (const e of events) {
      assert.deepEqual([e.type, e.source?.component, e.source?.host, e.involvedObject.kind, e.involvedObject.fieldPath], ['Normal', 'kubelet', 'n1', 'Pod', 'spec.containers{app}']);
    }
    await s.client.core.pods('default').delete('web', { gracePeriodSeconds: 30 });
    await s.settle(async () => (await s.reasons('web')).includes('Killing'), 100);
    const killing = (await s.events('web')).find((e) => e.reason === 'Killing');
    assert.equal(killing?.message, 'Stopping container app');
    await s.stop();
  });

  test('a second pod with pull policy IfNotPresent finds the image already present on the node', async () => {
    const s = await setup([pod('a', { containers: [{ name: 'app', image: 'nginx:1.27' }] })] as KubeObject[]);
    await s.settle(async () => (await s.reasons('a')).includes('Started'), 100);
    assert.deepEqual(await s.reasons('a'), ['Pulling', 'Pulled', 'Created', 'Started']);
    await s.client.core.pods('default').create(pod('b', { containers: [{ name: 'app', image: 'nginx:1.27' }] }));
    await s.settle(async () => (await s.reasons('b')).includes('Started'), 100);
    const pulled = (await s.events('b')).find((e) => e.reason === 'Pulled');
    assert.equal(pulled?.message, 'Container image "nginx:1.27" already present on machine');
    assert.deepEqual(await s.reasons('b'), ['Pulled', 'Created', 'Started']);
    await s.stop();
  });

  test('a crash-looping container records Created/Started at each restart and BackOff while it waits', async () => {
    const s = await setup([{ ...pod('crash', { containers: [{ name: 'app', image: 'nginx:1.27' }] }), metadata: { name: 'crash', namespace: 'default', annotations: { 'kubeplane.io/simulate': 'CrashLoopBackOff' } } }] as KubeObject[]);
    await s.settle(async () => {
      const events = await s.events('crash');
      return (events.find((e) => e.reason === 'Started')?.count ?? 0) >= 3 && events.some((e) => e.reason === 'BackOff');
    }, 1_000);
    const events = await s.events('crash');
    assert.equal(events.find((e) => e.reason === 'Created')?.message, 'Created container: app');
    assert.equal(events.find((e) => e.reason === 'BackOff')?.message, `Back-off restarting failed container app in pod crash_default(${(await s.get('crash')).metadata?.uid ?? ''})`);
    assert.equal(events.find((e) => e.reason === 'Pulled' && e.message?.includes('already present'))?.message, 'Container image "nginx:1.27" already present on machine');
    await s.stop();
  });

  test('a registered node records the kubelet start-up events, referring to the node by name', async () => {
    const s = await setup();
    await s.settle(async () => (await s.events('n1')).length >= 6);
    const events = await s.events('n1');
    assert.deepEqual(
      events.map((e) => e.reason),
      ['Starting', 'NodeHasSufficientMemory', 'NodeHasNoDiskPressure', 'NodeHasSufficientPID', 'NodeAllocatableEnforced', 'NodeReady'],
    );
    assert.deepEqual(
      [events[0]?.involvedObject.kind, events[0]?.involvedObject.name, events[0]?.involvedObject.uid, events[0]?.source?.host],
      ['Node', 'n1', 'n1', 'n1'],
    );
    assert.equal(events[5]?.message, 'Node n1 status is now: NodeReady');
    await s.stop();
  });

  test('podEvents: false records no pod events (node events still)', async () => {
    const s = await setup([pod('web')] as KubeObject[], { podEvents: false });
    await s.settle(async () => (await s.get('web')).status?.phase === 'Running', 100);
    await s.settle(async () => (await s.events('n1')).length >= 6);
    assert.deepEqual(await s.reasons('web'), []);
    await s.stop();
  });
});
