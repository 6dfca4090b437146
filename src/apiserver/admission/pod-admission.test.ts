import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { newTestServer } from '../testing/fixtures.js';
import { servedStrategies } from '../registry/resources/index.js';
import { newClientset } from '../../client/index.js';
import { isForbidden, type StatusError } from '../../machinery/errors/index.js';
import type { Pod } from '../../api/index.js';
import { admitPodCreate, type PriorityClassLookup } from './pod-admission.js';
import { SYSTEM_PRIORITY_CLASSES } from '../registry/resources/priorityclasses.js';

/** The classes every cluster has. */
const system: PriorityClassLookup = { get: (name) => SYSTEM_PRIORITY_CLASSES.find((pc) => pc.metadata?.name === name), list: () => SYSTEM_PRIORITY_CLASSES };

const pod = (spec: Partial<NonNullable<Pod['spec']>> = {}): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default' },
  spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
});

describe('pod admission (Priority, DefaultTolerationSeconds)', () => {
  test('a new pod gets priority 0, PreemptLowerPriority and the two 300 s NoExecute tolerations', async () => {
    const { server } = await newTestServer({ strategies: servedStrategies });
    const created = await newClientset(server.inProcessTransport()).core.pods('default').create(pod());
    assert.equal(created.spec?.priority, 0);
    assert.equal(created.spec?.preemptionPolicy, 'PreemptLowerPriority');
    assert.deepEqual(created.spec?.tolerations, [
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ]);
    await server.close();
  });

  test('existing tolerations of those taints (or of everything) are left as they are', () => {
    const own = { key: 'node.kubernetes.io/unreachable', operator: 'Exists' as const, effect: 'NoExecute' as const, tolerationSeconds: 5 };
    const p = pod({ tolerations: [own] });
    admitPodCreate(p, system);
    assert.deepEqual(p.spec?.tolerations, [own, { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }]);

    const all = pod({ tolerations: [{ operator: 'Exists' }] });
    admitPodCreate(all, system);
    assert.deepEqual(all.spec?.tolerations, [{ operator: 'Exists' }], 'an empty key and effect tolerates every taint');

    const noSchedule = pod({ tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoSchedule' }] });
    admitPodCreate(noSchedule, system);
    assert.equal(noSchedule.spec?.tolerations?.length, 3, 'a NoSchedule toleration does not cover NoExecute');
  });

  test('priority classes: system classes resolve, unknown ones and mismatched priorities are refused', () => {
    const critical = pod({ priorityClassName: 'system-node-critical' });
    admitPodCreate(critical, system);
    assert.equal(critical.spec?.priority, 2000001000);

    assert.throws(
      () => admitPodCreate(pod({ priorityClassName: 'gold' }), system),
      (err: StatusError) => isForbidden(err) && err.message === 'pods "p" is forbidden: no PriorityClass with name gold was found',
    );
    assert.throws(
      () => admitPodCreate(pod({ priority: 7 }), system),
      (err: StatusError) =>
        err.message ===
        'pods "p" is forbidden: the integer value of priority (7) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name',
    );
  });

  test('served PriorityClasses: a user class gives its value and policy, a global default applies to pods without a class', async () => {
    const { server } = await newTestServer({ strategies: servedStrategies });
    const client = newClientset(server.inProcessTransport());
    const pcs = await client.scheduling.priorityClasses().list();
    assert.deepEqual(pcs.items.map((pc) => [pc.metadata?.name, pc.value, pc.preemptionPolicy]), [
      ['system-cluster-critical', 2000000000, 'PreemptLowerPriority'],
      ['system-node-critical', 2000001000, 'PreemptLowerPriority'],
    ]);
    await client.scheduling.priorityClasses().create({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'gold' }, value: 1000, preemptionPolicy: 'Never' });
    // The plugin reads the watch cache, as upstream's reads its informer; a consistent list waits for it.
    await client.scheduling.priorityClasses().list();
    const gold = await client.core.pods('default').create(pod({ priorityClassName: 'gold' }));
    assert.deepEqual([gold.spec?.priority, gold.spec?.preemptionPolicy], [1000, 'Never']);

    await client.scheduling.priorityClasses().create({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'base' }, value: 10, globalDefault: true });
    await client.scheduling.priorityClasses().list();
    const plain = await client.core.pods('default').create({ ...pod(), metadata: { name: 'plain', namespace: 'default' } });
    assert.deepEqual([plain.spec?.priorityClassName, plain.spec?.priority], ['base', 10]);
    await server.close();
  });
});
