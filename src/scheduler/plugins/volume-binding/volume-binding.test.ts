/**
 * VolumeBinding's PreFilter, Filter and Reserve on hand-filled informer caches: the cases of upstream
 * pkg/scheduler/framework/plugins/volumebinding/volume_binding_test.go `TestVolumeBinding` that apply
 * (no capacity scoring), and binder_test.go `TestFindPodVolumesWithoutProvisioning` /
 * `TestFindPodVolumesWithProvisioning` / `TestAssumePodVolumes` cases.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CSIDriver, CSIStorageCapacity, KubeObject, Node, PersistentVolume, PersistentVolumeClaim, StorageClass } from '../../../api/index.js';
import { newClientset } from '../../../client/index.js';
import { newSharedInformerFactory, type SharedInformerFactory } from '../../../informers/index.js';
import { newFakeTransport } from '../../../testing/index.js';
import { FakeClock } from '../../../util/clock/index.js';
import { newPodInfo, NodeInfo } from '../../node-info.js';
import { makeNode, makePod, makePodWithClaims, makePV, makePVC, makeStorageClass } from '../../testing/fixtures.js';
import { CycleState, type FilterStatus } from '../types.js';
import { ERR_REASON_BIND_CONFLICT, ERR_REASON_NODE_CONFLICT, ERR_REASON_NOT_ENOUGH_SPACE, ERR_REASON_PV_NOT_EXIST } from './binder.js';
import { VolumeBinding } from './volume-binding.js';

const WAIT = makeStorageClass('wait-sc', 'WaitForFirstConsumer');
const IMMEDIATE = makeStorageClass('immediate-sc', 'Immediate');
const NO_PROVISIONER = makeStorageClass('wait-static', 'WaitForFirstConsumer', { provisioner: 'kubernetes.io/no-provisioner' });
const TOPOLOGY = makeStorageClass('wait-topology', 'WaitForFirstConsumer', {
  allowedTopologies: [{ matchLabelExpressions: [{ key: 'zone', values: ['a'] }] }],
});

interface Fixture {
  plugin: VolumeBinding;
  informers: SharedInformerFactory;
  nodes: NodeInfo[];
}

/** A plugin whose informer caches hold `objects` (never started: the cache is filled by hand). */
async function fixture(objects: Array<PersistentVolume | PersistentVolumeClaim | StorageClass | CSIDriver | CSIStorageCapacity>, nodes: Node[] = [makeNode('node-1', { labels: { zone: 'a' } })]): Promise<Fixture> {
  const clock = new FakeClock();
  const client = newClientset(await newFakeTransport({ clock }));
  const informers = newSharedInformerFactory(client, { clock });
  const nodeInfos = nodes.map((n) => {
    const ni = new NodeInfo(n.metadata?.name ?? '');
    ni.setNode(n);
    return ni;
  });
  const plugin = new VolumeBinding({ client, informers, clock, getNode: (name) => nodes.find((n) => n.metadata?.name === name) });
  for (const o of objects) {
    const withRV = <T extends { metadata?: KubeObject['metadata'] }>(obj: T): T => ({ ...obj, metadata: { resourceVersion: '1', ...obj.metadata } });
    if (o.kind === 'StorageClass') informers.storage.storageClasses().getIndexer().add(withRV(o));
    else if (o.kind === 'PersistentVolume') informers.core.persistentVolumes().getIndexer().add(withRV(o));
    else if (o.kind === 'CSIDriver') informers.storage.csiDrivers().getIndexer().add(withRV(o));
    else if (o.kind === 'CSIStorageCapacity') informers.storage.csiStorageCapacities().getIndexer().add(withRV(o));
    else informers.core.persistentVolumeClaims().getIndexer().add(withRV(o as PersistentVolumeClaim));
  }
  return { plugin, informers, nodes: nodeInfos };
}

/** PreFilter then Filter on every node: the PreFilter result, and the Filter statuses by node. */
function run(f: Fixture, pod = makePodWithClaims('p', 'pvc-a')) {
  const state = new CycleState();
  const podInfo = newPodInfo(pod);
  const pre = f.plugin.preFilter(podInfo, state);
  const filters = new Map<string, FilterStatus | undefined>();
  if (pre === undefined) for (const n of f.nodes) filters.set(n.name, f.plugin.filter(podInfo, n, state));
  return { pre, filters, state, podInfo };
}

const reasons = (s: FilterStatus | 'Skip' | undefined) => (s === undefined || s === 'Skip' ? s : [s.code, ...s.reasons]);

describe('VolumeBinding PreFilter/Filter (volume_binding_test.go TestVolumeBinding)', () => {
  test('pod has no PVCs: Skip', async () => {
    const f = await fixture([]);
    assert.equal(run(f, makePod('p')).pre, 'Skip');
  });

  test('all bound: fits', async () => {
    const pvc = makePVC('pvc-a', { cls: 'wait-sc', boundTo: 'pv-a' });
    const f = await fixture([WAIT, pvc, makePV('pv-a', { cls: 'wait-sc', claim: pvc })]);
    const r = run(f);
    assert.equal(r.pre, undefined);
    assert.equal(r.filters.get('node-1'), undefined);
  });

  test('PVC does not exist', async () => {
    const f = await fixture([]);
    assert.deepEqual(reasons(run(f).pre), ['UnschedulableAndUnresolvable', 'persistentvolumeclaim "pvc-a" not found']);
  });

  test('part of the PVCs do not exist', async () => {
    const pvc = makePVC('pvc-a', { cls: 'wait-sc', boundTo: 'pv-a' });
    const f = await fixture([WAIT, pvc, makePV('pv-a', { cls: 'wait-sc', claim: pvc })]);
    assert.deepEqual(reasons(run(f, makePodWithClaims('p', 'pvc-a', 'pvc-b')).pre), ['UnschedulableAndUnresolvable', 'persistentvolumeclaim "pvc-b" not found']);
  });

  test('immediate claims not bound', async () => {
    const f = await fixture([IMMEDIATE, makePVC('pvc-a', { cls: 'immediate-sc' })]);
    assert.deepEqual(reasons(run(f).pre), ['UnschedulableAndUnresolvable', 'pod has unbound immediate PersistentVolumeClaims']);
  });

  test('a claim pre-bound by volumeName but not bound yet counts as immediate', async () => {
    const pvc = makePVC('pvc-a', { cls: 'wait-sc' });
    pvc.spec = { ...pvc.spec, volumeName: 'pv-a' };
    const f = await fixture([WAIT, pvc]);
    assert.deepEqual(reasons(run(f).pre), ['UnschedulableAndUnresolvable', 'pod has unbound immediate PersistentVolumeClaims']);
  });

  test('unbound claims, no matching PV and no provisioning: bind conflict', async () => {
    const f = await fixture([NO_PROVISIONER, makePVC('pvc-a', { cls: 'wait-static' })]);
    assert.deepEqual(reasons(run(f).filters.get('node-1')), ['UnschedulableAndUnresolvable', ERR_REASON_BIND_CONFLICT]);
  });

  test('bound and unbound unsatisfied: both reasons, in upstream order', async () => {
    const bound = makePVC('pvc-b', { cls: 'wait-static', boundTo: 'pv-b' });
    const f = await fixture([NO_PROVISIONER, bound, makePV('pv-b', { cls: 'wait-static', node: 'node-2', claim: bound }), makePVC('pvc-a', { cls: 'wait-static' })]);
    assert.deepEqual(reasons(run(f, makePodWithClaims('p', 'pvc-a', 'pvc-b')).filters.get('node-1')), [
      'UnschedulableAndUnresolvable',
      ERR_REASON_NODE_CONFLICT,
      ERR_REASON_BIND_CONFLICT,
    ]);
  });

  test('PV of a bound claim not found', async () => {
    const f = await fixture([WAIT, makePVC('pvc-a', { cls: 'wait-sc', boundTo: 'pv-a' })]);
    assert.deepEqual(reasons(run(f).filters.get('node-1')), ['UnschedulableAndUnresolvable', ERR_REASON_PV_NOT_EXIST]);
  });

  test('a claim being deleted', async () => {
    const pvc = makePVC('pvc-a', { cls: 'wait-sc' });
    pvc.metadata = { ...pvc.metadata, deletionTimestamp: '2024-01-01T00:00:00Z' };
    const f = await fixture([WAIT, pvc]);
    assert.deepEqual(reasons(run(f).pre), ['UnschedulableAndUnresolvable', 'persistentvolumeclaim "pvc-a" is being deleted']);
  });

  test('a claim bound to a lost PV', async () => {
    const pvc = { ...makePVC('pvc-a', { cls: 'wait-sc', boundTo: 'pv-a' }), status: { phase: 'Lost' } };
    const f = await fixture([WAIT, pvc]);
    assert.deepEqual(reasons(run(f).pre), ['UnschedulableAndUnresolvable', 'persistentvolumeclaim "pvc-a" bound to non-existent persistentvolume "pv-a"']);
  });
});

describe('FindPodVolumes (binder_test.go)', () => {
  const nodes = [makeNode('node-1', { labels: { zone: 'a' } }), makeNode('node-2', { labels: { zone: 'b' } })];

  test('static binding: the smallest Available PV of the class that fits, reachable from the node', async () => {
    const f = await fixture(
      [
        NO_PROVISIONER,
        makePVC('pvc-a', { cls: 'wait-static', size: '5Gi' }),
        makePV('pv-1g-n1', { cls: 'wait-static', size: '1Gi', node: 'node-1' }),
        makePV('pv-8g-n1', { cls: 'wait-static', size: '8Gi', node: 'node-1' }),
        makePV('pv-6g-n1', { cls: 'wait-static', size: '6Gi', node: 'node-1' }),
        makePV('pv-10g-n2', { cls: 'wait-static', size: '10Gi', node: 'node-2' }),
      ],
      nodes,
    );
    const r = run(f);
    assert.equal(r.filters.get('node-1'), undefined);
    assert.equal(r.filters.get('node-2'), undefined);
    f.plugin.reserve(r.podInfo, r.state, 'node-1');
    // Reserve assumed the PV pre-bound to the claim: a second pod cannot take it.
    assert.equal(f.plugin.binder.pvCache.get('pv-6g-n1')?.spec?.claimRef?.name, 'pvc-a');
    assert.equal(f.plugin.preBindPreFlight(r.podInfo, r.state), true);
    f.plugin.unreserve(r.podInfo, r.state, 'node-1');
    assert.equal(f.plugin.binder.pvCache.get('pv-6g-n1')?.spec?.claimRef, undefined);
  });

  test('two claims of one pod never get the same PV', async () => {
    const f = await fixture(
      [NO_PROVISIONER, makePVC('pvc-a', { cls: 'wait-static' }), makePVC('pvc-b', { cls: 'wait-static' }), makePV('pv-1', { cls: 'wait-static', node: 'node-1' })],
      nodes,
    );
    assert.deepEqual(reasons(run(f, makePodWithClaims('p', 'pvc-a', 'pvc-b')).filters.get('node-1')), ['UnschedulableAndUnresolvable', ERR_REASON_BIND_CONFLICT]);
  });

  test('provisioning: allowed topologies restrict the nodes; Reserve annotates selected-node', async () => {
    const f = await fixture([TOPOLOGY, makePVC('pvc-a', { cls: 'wait-topology' })], nodes);
    const r = run(f);
    assert.equal(r.filters.get('node-1'), undefined);
    assert.deepEqual(reasons(r.filters.get('node-2')), ['UnschedulableAndUnresolvable', ERR_REASON_BIND_CONFLICT]);
    f.plugin.reserve(r.podInfo, r.state, 'node-1');
    assert.equal(f.plugin.binder.pvcCache.get('default/pvc-a')?.metadata?.annotations?.['volume.kubernetes.io/selected-node'], 'node-1');
    // The informer's object is untouched until PreBind writes it.
    assert.equal(f.plugin.binder.pvcCache.getAPIObj('default/pvc-a')?.metadata?.annotations?.['volume.kubernetes.io/selected-node'], undefined);
  });

  test('a claim already selected for another node rejects this one', async () => {
    const f = await fixture([WAIT, makePVC('pvc-a', { cls: 'wait-sc', annotations: { 'volume.kubernetes.io/selected-node': 'node-2' } })], nodes);
    const r = run(f);
    assert.deepEqual(reasons(r.filters.get('node-1')), ['UnschedulableAndUnresolvable', ERR_REASON_BIND_CONFLICT]);
    assert.equal(r.filters.get('node-2'), undefined);
  });

  test('a class that cannot be found is an error', async () => {
    const pvc = makePVC('pvc-a', { cls: 'wait-sc' });
    const f = await fixture([WAIT, pvc], nodes);
    const state = new CycleState();
    const podInfo = newPodInfo(makePodWithClaims('p', 'pvc-a'));
    assert.equal(f.plugin.preFilter(podInfo, state), undefined);
    f.informers.storage.storageClasses().getIndexer().delete(WAIT);
    assert.throws(() => f.plugin.filter(podInfo, f.nodes[0] as NodeInfo, state), /failed to find storage class "wait-sc"/);
  });

  test('all claims bound: Reserve reports all bound, PreBind has nothing to do', async () => {
    const pvc = makePVC('pvc-a', { cls: 'wait-sc', boundTo: 'pv-a' });
    const f = await fixture([WAIT, pvc, makePV('pv-a', { cls: 'wait-sc', claim: pvc })], nodes);
    const r = run(f);
    f.plugin.reserve(r.podInfo, r.state, 'node-1');
    assert.equal(f.plugin.preBindPreFlight(r.podInfo, r.state), false);
  });
});

/** A CSIDriver named as the classes' provisioner; `storageCapacity` opts it into capacity tracking. */
const driver = (storageCapacity: boolean): CSIDriver => ({ apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: 'kubeplane.io/simulated' }, spec: { storageCapacity } });

/** A CSIStorageCapacity of class `wait-sc` for the nodes of `zone`. */
function capacity(name: string, zone: string, amounts: { capacity?: string; maximumVolumeSize?: string }): CSIStorageCapacity {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSIStorageCapacity',
    metadata: { name, namespace: 'kube-system' },
    storageClassName: 'wait-sc',
    nodeTopology: { matchLabels: { zone } },
    ...amounts,
  };
}

// binder_test.go TestCapacity: only drivers that opt in are checked; a capacity object of the class,
// reachable from the node, must hold the request (maximumVolumeSize, when set, is the limit).
describe('VolumeBinding storage capacity (binder_test.go TestCapacity)', () => {
  const nodes = [makeNode('node-1', { labels: { zone: 'a' } }), makeNode('node-2', { labels: { zone: 'b' } })];
  const claim = makePVC('pvc-a', { cls: 'wait-sc', size: '2Gi' });

  test('a driver without storageCapacity is not checked', async () => {
    const r = run(await fixture([WAIT, claim, driver(false)], nodes));
    assert.deepEqual([r.filters.get('node-1'), r.filters.get('node-2')], [undefined, undefined]);
  });

  test('no capacity object: not enough free storage anywhere', async () => {
    const r = run(await fixture([WAIT, claim, driver(true)], nodes));
    assert.deepEqual(reasons(r.filters.get('node-1')), ['UnschedulableAndUnresolvable', ERR_REASON_NOT_ENOUGH_SPACE]);
  });

  test('enough capacity in zone a only: node-1 fits, node-2 does not', async () => {
    const r = run(await fixture([WAIT, claim, driver(true), capacity('cap-a', 'a', { capacity: '10Gi' }), capacity('cap-b', 'b', { capacity: '1Gi' })], nodes));
    assert.equal(r.filters.get('node-1'), undefined);
    assert.deepEqual(reasons(r.filters.get('node-2')), ['UnschedulableAndUnresolvable', ERR_REASON_NOT_ENOUGH_SPACE]);
  });

  test('maximumVolumeSize is the limit when set, and a malformed amount counts as none', async () => {
    const small = run(await fixture([WAIT, claim, driver(true), capacity('cap-a', 'a', { capacity: '10Gi', maximumVolumeSize: '1Gi' })], nodes));
    assert.deepEqual(reasons(small.filters.get('node-1')), ['UnschedulableAndUnresolvable', ERR_REASON_NOT_ENOUGH_SPACE]);
    const large = run(await fixture([WAIT, claim, driver(true), capacity('cap-a', 'a', { capacity: '1Gi', maximumVolumeSize: '2Gi' })], nodes));
    assert.equal(large.filters.get('node-1'), undefined);
    const bad = run(await fixture([WAIT, claim, driver(true), capacity('cap-a', 'a', { capacity: 'lots' })], nodes));
    assert.deepEqual(reasons(bad.filters.get('node-1')), ['UnschedulableAndUnresolvable', ERR_REASON_NOT_ENOUGH_SPACE]);
  });
});
