/**
 * The shared storage helpers: upstream's component-helpers/storage/volume/pv_helpers_test.go
 * (TestDelayBindingMode, TestFindMatchVolumeWithNode) plus cases for the smaller helpers.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Node, PersistentVolume, PersistentVolumeClaim, StorageClass } from '../../api/index.js';
import {
  ANN_BOUND_BY_CONTROLLER,
  checkAccessModes,
  checkNodeAffinity,
  checkVolumeModeMismatches,
  findMatchingVolume,
  getBindVolumeToClaim,
  getPersistentVolumeClaimClass,
  getPersistentVolumeClass,
  getVolumeNodeAffinity,
  isDelayBindingMode,
  isDelayBindingProvisioning,
  isVolumeBoundToClaim,
  persistentVolumeClaimHasClass,
} from './index.js';

function makeClaim(name: string, size: string, accessModes: string[], mod?: (c: PersistentVolumeClaim) => void): PersistentVolumeClaim {
  const c: PersistentVolumeClaim = {
    metadata: { name, namespace: 'myns' },
    spec: { accessModes, resources: { requests: { storage: size } }, storageClassName: 'wait', volumeMode: 'Filesystem' },
  };
  mod?.(c);
  return c;
}

function makeVolume(uid: string, name: string, capacity: string, available: boolean, mod?: (pv: PersistentVolume) => void): PersistentVolume {
  const pv: PersistentVolume = {
    metadata: { uid, name },
    spec: { capacity: { storage: capacity }, local: { path: '/x' }, accessModes: ['ReadWriteOnce', 'ReadOnlyMany'], volumeMode: 'Filesystem' },
    status: available ? { phase: 'Available' } : {},
  };
  mod?.(pv);
  return pv;
}

/** A volume of class `wait` whose node affinity requires `key1=<value>`. */
function affinityVolume(uid: string, name: string, capacity: string, available: boolean, value: string, mod?: (pv: PersistentVolume) => void): PersistentVolume {
  return makeVolume(uid, name, capacity, available, (pv) => {
    pv.spec!.storageClassName = 'wait';
    pv.spec!.nodeAffinity = getVolumeNodeAffinity('key1', value);
    mod?.(pv);
  });
}

const node = (value: string): Node => ({ metadata: { labels: { key1: value } } });

describe('isDelayBindingMode (TestDelayBindingMode)', () => {
  const classes = new Map<string, StorageClass>([
    ['no-mode', { metadata: { name: 'no-mode' }, provisioner: 'p' }],
    ['immediate-mode', { metadata: { name: 'immediate-mode' }, provisioner: 'p', volumeBindingMode: 'Immediate' }],
    ['wait-mode', { metadata: { name: 'wait-mode' }, provisioner: 'p', volumeBindingMode: 'WaitForFirstConsumer' }],
  ]);
  const lister = { get: (n: string) => classes.get(n) };
  const claimOf = (sc?: string): PersistentVolumeClaim => ({ metadata: { annotations: {} }, spec: sc === undefined ? {} : { storageClassName: sc } });
  test('nil-class', () => assert.equal(isDelayBindingMode(claimOf(), lister), false));
  test('class-not-found', () => assert.equal(isDelayBindingMode(claimOf('not-here'), lister), false));
  test('no-mode-class fails', () => assert.throws(() => isDelayBindingMode(claimOf('no-mode'), lister), /VolumeBindingMode not set for StorageClass "no-mode"/));
  test('immediate-mode-class', () => assert.equal(isDelayBindingMode(claimOf('immediate-mode'), lister), false));
  test('wait-mode-class', () => assert.equal(isDelayBindingMode(claimOf('wait-mode'), lister), true));
});

describe('findMatchingVolume with a node (TestFindMatchVolumeWithNode)', () => {
  const volumes = [
    makeVolume('local-small', 'local001', '5G', true),
    makeVolume('local-pd-very-large', 'local002', '200E', true, (pv) => (pv.spec!.storageClassName = 'large')),
    affinityVolume('affinity-pv', 'affinity001', '100G', true, 'value1'),
    affinityVolume('affinity-pv2', 'affinity002', '150G', true, 'value1'),
    affinityVolume('affinity-prebound', 'affinity003', '100G', true, 'value1', (pv) => (pv.spec!.claimRef = { name: 'claim02', namespace: 'myns' })),
    affinityVolume('affinity-pv3', 'affinity003', '200G', true, 'value3'),
    affinityVolume('affinity-pv4', 'affinity004', '200G', false, 'value4'),
  ];
  const withVAC = (name: string): PersistentVolume[] =>
    volumes.map((v) => {
      const c = structuredClone(v);
      c.spec!.volumeAttributesClassName = name;
      return c;
    });
  const rwo = ['ReadWriteOnce'];
  const cases: Array<{ name: string; match: string; claim: PersistentVolumeClaim; node: Node; volumes?: PersistentVolume[]; excluded?: string[]; vac: boolean[]; err?: boolean }> = [
    { name: 'success-match', match: 'affinity-pv', claim: makeClaim('claim01', '100G', rwo), node: node('value1'), vac: [true, false] },
    { name: 'success-prebound', match: 'affinity-prebound', claim: makeClaim('claim02', '100G', rwo), node: node('value1'), vac: [true, false] },
    { name: 'success-exclusion', match: 'affinity-pv2', claim: makeClaim('claim01', '100G', rwo), node: node('value1'), excluded: ['affinity001'], vac: [true, false] },
    { name: 'fail-exclusion', match: '', claim: makeClaim('claim01', '100G', rwo), node: node('value1'), excluded: ['affinity001', 'affinity002', 'affinity002-vac'], vac: [true, false] },
    { name: 'fail-accessmode', match: '', claim: makeClaim('claim01', '100G', ['ReadWriteMany']), node: node('value1'), vac: [true, false] },
    { name: 'fail-nodeaffinity', match: '', claim: makeClaim('claim01', '100G', rwo), node: node('value2'), vac: [true, false] },
    { name: 'fail-prebound-node-affinity', match: '', claim: makeClaim('claim02', '100G', rwo), node: node('value3'), vac: [true, false] },
    { name: 'fail-nonavaliable', match: '', claim: makeClaim('claim04', '100G', rwo), node: node('value4'), vac: [true, false] },
    { name: 'success-bad-and-good-node-affinity', match: 'affinity-pv3', claim: makeClaim('claim03', '100G', rwo), node: node('value3'), vac: [true, false] },
    {
      name: 'success-match-with-vac',
      match: 'affinity-pv',
      volumes: withVAC('gold'),
      claim: makeClaim('claim01', '100G', rwo, (c) => (c.spec!.volumeAttributesClassName = 'gold')),
      node: node('value1'),
      vac: [true],
    },
    { name: 'fail-vac', match: '', claim: makeClaim('claim01', '100G', rwo, (c) => (c.spec!.volumeAttributesClassName = 'silver')), node: node('value1'), vac: [true] },
    {
      name: 'fail-prebound-vac',
      match: '',
      volumes: withVAC('gold'),
      claim: makeClaim('claim02', '100G', rwo, (c) => (c.spec!.volumeAttributesClassName = 'silver')),
      node: node('value1'),
      vac: [true],
    },
    { name: 'fail-on-error', match: '', err: true, claim: makeClaim('claim01', '100G', rwo, (c) => (c.spec!.volumeAttributesClassName = 'gold')), node: node('value1'), vac: [false] },
    { name: 'fail-volumes-vac', match: '', volumes: withVAC('gold'), claim: makeClaim('claim01', '100G', rwo), node: node('value1'), vac: [false] },
  ];
  for (const c of cases) {
    for (const vac of c.vac) {
      test(`[VolumeAttributesClass: ${vac}] ${c.name}`, () => {
        const run = (): PersistentVolume | undefined => findMatchingVolume(c.claim, c.volumes ?? volumes, c.node, new Set(c.excluded ?? []), true, vac);
        if (c.err) {
          assert.throws(run, /unsupported volumeAttributesClassName/);
          return;
        }
        assert.equal(run()?.metadata?.uid ?? '', c.match);
      });
    }
  }
});

describe('findMatchingVolume on the controller path (node undefined)', () => {
  const base = (uid: string, cap: string, mod?: (pv: PersistentVolume) => void): PersistentVolume =>
    makeVolume(uid, uid, cap, true, (pv) => {
      pv.spec!.storageClassName = 'wait';
      mod?.(pv);
    });
  const vols = [
    base('pv-10', '10G'),
    base('pv-5', '5G'),
    base('pv-1-bound', '1G', (pv) => (pv.spec!.claimRef = { uid: 'abc123' })),
    base('pv-20-labelled', '20G', (pv) => (pv.metadata!.labels = { 'should-exist': 'true' })),
    base('pv-3-block', '3G', (pv) => (pv.spec!.volumeMode = 'Block')),
    base('pv-2-deleting', '2G', (pv) => Object.assign(pv.metadata!, { deletionTimestamp: '2024-01-01T00:00:00Z' })),
    base('pv-4-other-class', '4G', (pv) => (pv.spec!.storageClassName = 'other')),
  ];
  test('the smallest volume that fits wins (successful-match-gce-10 style)', () => {
    assert.equal(findMatchingVolume(makeClaim('c', '8G', ['ReadWriteOnce']), vols, undefined, undefined, false)?.metadata?.uid, 'pv-10');
  });
  test('bound, deleting, other-mode and other-class volumes are skipped', () => {
    assert.equal(findMatchingVolume(makeClaim('c', '1G', ['ReadWriteOnce']), vols, undefined, undefined, false)?.metadata?.uid, 'pv-5');
  });
  test('no volume is big enough', () => {
    assert.equal(findMatchingVolume(makeClaim('c', '999G', ['ReadWriteOnce']), vols, undefined, undefined, false), undefined);
  });
  test('a label selector restricts the volumes', () => {
    const c = makeClaim('c', '1G', ['ReadWriteOnce'], (x) => (x.spec!.selector = { matchLabels: { 'should-exist': 'true' } }));
    assert.equal(findMatchingVolume(c, vols, undefined, undefined, false)?.metadata?.uid, 'pv-20-labelled');
    c.spec!.selector = { matchLabels: { 'should-not-exist': 'true' } };
    assert.equal(findMatchingVolume(c, vols, undefined, undefined, false), undefined);
  });
  test('a Block claim matches only Block volumes', () => {
    const c = makeClaim('c', '1G', ['ReadWriteOnce'], (x) => (x.spec!.volumeMode = 'Block'));
    assert.equal(findMatchingVolume(c, vols, undefined, undefined, false)?.metadata?.uid, 'pv-3-block');
  });
  test('delayBinding: unbound volumes are left to the scheduler, pre-bound ones still match', () => {
    const c = makeClaim('claim01', '1G', ['ReadWriteOnce']);
    assert.equal(findMatchingVolume(c, vols, undefined, undefined, true), undefined);
    const prebound = base('pv-50-prebound', '50G', (pv) => {
      pv.spec!.claimRef = { name: 'claim01', namespace: 'myns' };
      Object.assign(pv, { status: { phase: 'Pending' } });
    });
    assert.equal(findMatchingVolume(c, [...vols, prebound], undefined, undefined, true)?.metadata?.uid, 'pv-50-prebound');
  });
  test('the controller path does not check access modes (they are grouped by the caller)', () => {
    assert.equal(findMatchingVolume(makeClaim('c', '8G', ['ReadWriteMany']), vols, undefined, undefined, false)?.metadata?.uid, 'pv-10');
  });
  test('a malformed selector is an error', () => {
    const c = makeClaim('c', '1G', ['ReadWriteOnce'], (x) => (x.spec!.selector = { matchExpressions: [{ key: 'a', operator: 'Bogus' }] }));
    assert.throws(() => findMatchingVolume(c, vols, undefined, undefined, false), /error creating internal label selector for claim: myns\/c/);
  });
});

describe('small helpers', () => {
  test('getPersistentVolumeClaimClass / getPersistentVolumeClass: the beta annotation wins', () => {
    assert.equal(getPersistentVolumeClaimClass({ spec: {} }), '');
    assert.equal(getPersistentVolumeClaimClass({ spec: { storageClassName: 'a' } }), 'a');
    assert.equal(getPersistentVolumeClaimClass({ metadata: { annotations: { 'volume.beta.kubernetes.io/storage-class': 'b' } }, spec: { storageClassName: 'a' } }), 'b');
    assert.equal(getPersistentVolumeClass({ spec: { storageClassName: 'a' } }), 'a');
    assert.equal(getPersistentVolumeClass({ metadata: { annotations: { 'volume.beta.kubernetes.io/storage-class': '' } }, spec: { storageClassName: 'a' } }), '');
  });
  test('isVolumeBoundToClaim: name and namespace, and the UID when the claimRef has one', () => {
    const claim: PersistentVolumeClaim = { metadata: { name: 'c', namespace: 'ns', uid: 'u1' } };
    assert.equal(isVolumeBoundToClaim({ spec: {} }, claim), false);
    assert.equal(isVolumeBoundToClaim({ spec: { claimRef: { name: 'c', namespace: 'ns' } } }, claim), true);
    assert.equal(isVolumeBoundToClaim({ spec: { claimRef: { name: 'c', namespace: 'ns', uid: 'u1' } } }, claim), true);
    assert.equal(isVolumeBoundToClaim({ spec: { claimRef: { name: 'c', namespace: 'ns', uid: 'u2' } } }, claim), false);
    assert.equal(isVolumeBoundToClaim({ spec: { claimRef: { name: 'c', namespace: 'other' } } }, claim), false);
  });
  test('getBindVolumeToClaim: sets the claimRef and bound-by-controller; a pre-bound volume keeps no annotation', () => {
    const claim: PersistentVolumeClaim = { metadata: { name: 'c', namespace: 'ns', uid: 'u1', resourceVersion: '7' } };
    const pv: PersistentVolume = Object.freeze({ metadata: { name: 'v' }, spec: {} });
    const r = getBindVolumeToClaim(pv, claim);
    assert.equal(r.dirty, true);
    assert.deepEqual(r.volume.spec?.claimRef, { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: 'ns', name: 'c', uid: 'u1', resourceVersion: '7' });
    assert.equal(r.volume.metadata?.annotations?.[ANN_BOUND_BY_CONTROLLER], 'yes');
    assert.equal(pv.spec?.claimRef, undefined);
    const prebound: PersistentVolume = { metadata: { name: 'v' }, spec: { claimRef: { name: 'c', namespace: 'ns' } } };
    const r2 = getBindVolumeToClaim(prebound, claim);
    assert.equal(r2.dirty, true, 'the UID is filled in');
    assert.equal(r2.volume.metadata?.annotations?.[ANN_BOUND_BY_CONTROLLER], undefined);
    const r3 = getBindVolumeToClaim(r.volume, claim);
    assert.equal(r3.dirty, false);
  });
  test('checkVolumeModeMismatches: unset counts as Filesystem', () => {
    assert.equal(checkVolumeModeMismatches({}, {}), false);
    assert.equal(checkVolumeModeMismatches({ volumeMode: 'Filesystem' }, {}), false);
    assert.equal(checkVolumeModeMismatches({ volumeMode: 'Block' }, {}), true);
    assert.equal(checkVolumeModeMismatches({}, { volumeMode: 'Block' }), true);
  });
  test('checkAccessModes: the volume must offer every requested mode', () => {
    const pv: PersistentVolume = { spec: { accessModes: ['ReadWriteOnce', 'ReadOnlyMany'] } };
    assert.equal(checkAccessModes({ spec: { accessModes: ['ReadOnlyMany', 'ReadWriteOnce'] } }, pv), true);
    assert.equal(checkAccessModes({ spec: { accessModes: ['ReadWriteMany'] } }, pv), false);
    assert.equal(checkAccessModes({ spec: {} }, pv), true);
  });
  test('checkNodeAffinity: no affinity fits every node; labels only', () => {
    assert.equal(checkNodeAffinity({ spec: {} }, {}), undefined);
    const pv: PersistentVolume = { spec: { nodeAffinity: getVolumeNodeAffinity('kubernetes.io/hostname', 'n1') } };
    assert.equal(checkNodeAffinity(pv, { 'kubernetes.io/hostname': 'n1' }), undefined);
    assert.equal(checkNodeAffinity(pv, { 'kubernetes.io/hostname': 'n2' }), 'no matching NodeSelectorTerms');
  });
  test('isDelayBindingProvisioning: the selected-node annotation is present', () => {
    assert.equal(isDelayBindingProvisioning({ metadata: { annotations: { 'volume.kubernetes.io/selected-node': 'n1' } } }), true);
    assert.equal(isDelayBindingProvisioning({ metadata: {} }), false);
  });
  test('persistentVolumeClaimHasClass: an empty storageClassName or the beta annotation counts', () => {
    assert.equal(persistentVolumeClaimHasClass({ spec: {} }), false);
    assert.equal(persistentVolumeClaimHasClass({ spec: { storageClassName: '' } }), true);
    assert.equal(persistentVolumeClaimHasClass({ metadata: { annotations: { 'volume.beta.kubernetes.io/storage-class': 'x' } }, spec: {} }), true);
  });
});
