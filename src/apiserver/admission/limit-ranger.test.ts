/**
 * LimitRanger: defaults and the min/max/ratio checks, cases ported from upstream's
 * plugin/pkg/admission/limitranger/admission_test.go (TestMergeContainerResources,
 * TestPodLimitFunc, TestPersistentVolumeClaimLimitFunc) with upstream's messages, and the plugin
 * through the API server.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LimitRange, PersistentVolumeClaim, Pod } from '../../api/index.js';
import { newClientset } from '../../client/index.js';
import { isForbidden, type StatusError } from '../../machinery/errors/index.js';
import { servedStrategies } from '../registry/resources/index.js';
import { newTestServer } from '../testing/fixtures.js';
import { admitLimitRangerClaim, admitLimitRangerPod, LIMIT_RANGER_ANNOTATION } from './limit-ranger.js';

type Item = NonNullable<LimitRange['spec']>['limits'][number];
type Res = { requests?: Record<string, string>; limits?: Record<string, string> };

const limitRange = (...limits: Item[]): LimitRange => ({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'lr', namespace: 'default' }, spec: { limits } });

const pod = (...containers: Res[]): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default' },
  spec: { containers: containers.map((resources, i) => ({ name: `c${i}`, image: 'nginx', resources })) },
});

/** The 403 message `admitLimitRangerPod` throws for `p` with `ranges`, or undefined when admitted. */
function podError(p: Pod, ...ranges: LimitRange[]): string | undefined {
  try {
    admitLimitRangerPod(p, ranges);
    return undefined;
  } catch (err) {
    assert.ok(isForbidden(err));
    return (err as StatusError).message;
  }
}

describe('LimitRanger defaults', () => {
  test('missing requests and limits are set from defaultRequest and default, and recorded in the annotation', () => {
    const p = pod({}, { requests: { cpu: '50m' } });
    admitLimitRangerPod(p, [limitRange({ type: 'Container', default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '100m', memory: '128Mi' } })]);
    assert.deepEqual(p.spec?.containers[0]?.resources, { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } });
    // What the container states is kept (TestMergeContainerResources "do not override").
    assert.deepEqual(p.spec?.containers[1]?.resources, { requests: { cpu: '50m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } });
    assert.equal(
      p.metadata?.annotations?.[LIMIT_RANGER_ANNOTATION],
      'LimitRanger plugin set: cpu, memory request for container c0; cpu, memory limit for container c0; memory request for container c1; cpu, memory limit for container c1',
    );
  });

  test('Pod items default nothing (so a Pod max without limits refuses the pod)', () => {
    const p = pod({});
    assert.equal(podError(p, limitRange({ type: 'Pod', max: { cpu: '1' } })), 'pods "p" is forbidden: maximum cpu usage per Pod is 1.  No limit is specified');
    assert.deepEqual(p.spec?.containers[0]?.resources, {});
    assert.equal(p.metadata?.annotations, undefined);
  });
});

describe('LimitRanger checks (TestPodLimitFunc)', () => {
  const container = limitRange({ type: 'Container', min: { cpu: '100m' }, max: { cpu: '1', memory: '1Gi' }, maxLimitRequestRatio: { cpu: '2' } });

  test('within min, max and ratio is admitted', () => {
    assert.equal(podError(pod({ requests: { cpu: '500m', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } }), container), undefined);
  });

  test('a limit over max', () => {
    assert.equal(podError(pod({ requests: { cpu: '1' }, limits: { cpu: '2', memory: '1Gi' } }), limitRange({ type: 'Container', max: { cpu: '1' } })), 'pods "p" is forbidden: maximum cpu usage per Container is 1, but limit is 2');
  });

  test('no limit under a max', () => {
    assert.equal(podError(pod({ requests: { cpu: '1' } }), limitRange({ type: 'Container', max: { cpu: '1' } })), 'pods "p" is forbidden: maximum cpu usage per Container is 1.  No limit is specified');
  });

  test('a request under min, and no request under a min', () => {
    const min = limitRange({ type: 'Container', min: { memory: '64Mi' } });
    assert.equal(podError(pod({ requests: { memory: '32Mi' } }), min), 'pods "p" is forbidden: minimum memory usage per Container is 64Mi, but request is 32Mi');
    assert.equal(podError(pod({}), min), 'pods "p" is forbidden: minimum memory usage per Container is 64Mi.  No request is specified');
  });

  test('limit to request ratio', () => {
    const ratio = limitRange({ type: 'Container', maxLimitRequestRatio: { cpu: '2' } });
    assert.equal(podError(pod({ requests: { cpu: '100m' }, limits: { cpu: '300m' } }), ratio), 'pods "p" is forbidden: cpu max limit to request ratio per Container is 2, but provided ratio is 3.000000');
    assert.equal(podError(pod({ limits: { cpu: '300m' } }), ratio), 'pods "p" is forbidden: cpu max limit to request ratio per Container is 2, but no request is specified or request is 0');
  });

  test('Pod items bound the summed containers; several errors aggregate as [a, b]', () => {
    const podMax = limitRange({ type: 'Pod', max: { cpu: '1' } });
    const two = pod({ requests: { cpu: '600m' }, limits: { cpu: '600m' } }, { requests: { cpu: '600m' }, limits: { cpu: '600m' } });
    assert.equal(podError(two, podMax), 'pods "p" is forbidden: maximum cpu usage per Pod is 1, but limit is 1200m');
    const both = limitRange({ type: 'Container', max: { cpu: '500m' } });
    assert.equal(
      podError(two, both),
      'pods "p" is forbidden: [maximum cpu usage per Container is 500m, but limit is 600m, maximum cpu usage per Container is 500m, but limit is 600m]',
    );
  });

  test('claims: min and max on the storage request (TestPersistentVolumeClaimLimitFunc)', () => {
    const claim = (storage?: string): PersistentVolumeClaim => ({ metadata: { name: 'c', namespace: 'default' }, spec: { resources: storage ? { requests: { storage } } : {} } });
    const lr = limitRange({ type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '10Gi' } });
    assert.doesNotThrow(() => admitLimitRangerClaim(claim('5Gi'), [lr]));
    assert.throws(() => admitLimitRangerClaim(claim('20Gi'), [lr]), { message: 'persistentvolumeclaims "c" is forbidden: maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi' });
    assert.throws(() => admitLimitRangerClaim(claim('500Mi'), [lr]), { message: 'persistentvolumeclaims "c" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi' });
  });
});

describe('LimitRanger in the API server', () => {
  test('a new pod gets the namespace default requests; a pod over max is refused with 403', async () => {
    const { server } = await newTestServer({ strategies: servedStrategies });
    const client = newClientset(server.inProcessTransport());
    await client.core.limitRanges('default').create(limitRange({ type: 'Container', max: { cpu: '1' }, default: { cpu: '500m' }, defaultRequest: { cpu: '250m' } }));
    const created = await client.core.pods('default').create(pod({}));
    assert.deepEqual(created.spec?.containers[0]?.resources, { limits: { cpu: '500m' }, requests: { cpu: '250m' } });
    await assert.rejects(client.core.pods('default').create({ ...pod({ limits: { cpu: '2' } }), metadata: { name: 'big' } }), {
      message: 'pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2',
    });
    // Other namespaces are not limited.
    await client.core.namespaces().create({ metadata: { name: 'free' } });
    await client.core.serviceAccounts('free').create({ metadata: { name: 'default' } });
    await client.core.pods('free').create({ ...pod({ limits: { cpu: '2' } }), metadata: { name: 'big' } });
    await server.close();
  });

  test('claims: a create or a resize past the PersistentVolumeClaim max is refused', async () => {
    const { server } = await newTestServer({ strategies: servedStrategies });
    const client = newClientset(server.inProcessTransport());
    await client.core.limitRanges('default').create(limitRange({ type: 'PersistentVolumeClaim', max: { storage: '10Gi' } }));
    const claim = (storage: string): PersistentVolumeClaim => ({ metadata: { name: 'data', namespace: 'default' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } } });
    await assert.rejects(client.core.persistentVolumeClaims('default').create(claim('20Gi')), {
      message: 'persistentvolumeclaims "data" is forbidden: maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi',
    });
    const created = await client.core.persistentVolumeClaims('default').create(claim('5Gi'));
    // Only a bound claim may be resized.
    const bound = await client.core.persistentVolumeClaims('default').updateStatus({ ...created, status: { phase: 'Bound', capacity: { storage: '5Gi' } } });
    await assert.rejects(client.core.persistentVolumeClaims('default').update({ ...bound, spec: { ...bound.spec, resources: { requests: { storage: '20Gi' } } } }), {
      message: /maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi/,
    });
    await server.close();
  });
});
