/**
 * The quota evaluators and arithmetic, cases after upstream's pkg/quota/v1/evaluator/core/pods_test.go
 * (TestPodEvaluatorUsage, TestPodEvaluatorMatchingScopes, TestPodConstraintsFunc),
 * services_test.go (TestServiceEvaluatorUsage), persistent_volume_claims_test.go
 * (TestPersistentVolumeClaimEvaluatorUsage) and staging/.../quota/v1/resources_test.go.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolumeClaim, Pod, ResourceQuota, Service } from '../../api/index.js';
import {
  addResources,
  groupResourceOfQuotaName,
  lessThanOrEqual,
  objectUsage,
  persistentVolumeClaimUsage,
  podConstraints,
  podMatchesScope,
  podUsage,
  prettyPrint,
  quotaMatches,
  serviceUsage,
  subtractResources,
} from './index.js';

type Res = { requests?: Record<string, string>; limits?: Record<string, string> };
const c = (name: string, resources: Res, restartPolicy?: string): NonNullable<Pod['spec']>['containers'][number] => ({ name, image: 'i', resources, ...(restartPolicy ? { restartPolicy } : {}) });
const pod = (spec: Partial<NonNullable<Pod['spec']>>, extra: Partial<Pod> = {}): Pod => ({ metadata: { name: 'p', namespace: 'ns' }, spec: { containers: [], ...spec }, ...extra });
const NOW = Date.UTC(2025, 0, 1);

describe('pod usage (TestPodEvaluatorUsage)', () => {
  test('container requests and limits', () => {
    assert.deepEqual(podUsage(pod({ containers: [c('a', { requests: { cpu: '1m', memory: '1Mi' }, limits: { cpu: '2m', memory: '2Mi' } })] }), NOW), {
      'count/pods': '1',
      pods: '1',
      cpu: '1m',
      'requests.cpu': '1m',
      'limits.cpu': '2m',
      memory: '1Mi',
      'requests.memory': '1Mi',
      'limits.memory': '2Mi',
    });
  });

  test('init container maximums override the sum of containers', () => {
    const p = pod({
      initContainers: [c('i1', { requests: { cpu: '4' }, limits: { cpu: '8' } }), c('i2', { requests: { cpu: '2' }, limits: { cpu: '4' } })],
      containers: [c('a', { requests: { cpu: '1' }, limits: { cpu: '2' } }), c('b', { requests: { cpu: '1' }, limits: { cpu: '2' } })],
    });
    const u = podUsage(p, NOW);
    assert.equal(u['requests.cpu'], '4');
    assert.equal(u['limits.cpu'], '8');
  });

  test('restartable init containers (sidecars) add to the containers', () => {
    const p = pod({ initContainers: [c('side', { requests: { cpu: '1' } }, 'Always'), c('init', { requests: { cpu: '2' } })], containers: [c('a', { requests: { cpu: '1' } })] });
    // max(containers 1 + sidecar 1, init 2 + sidecar 1) = 3
    assert.equal(podUsage(p, NOW)['requests.cpu'], '3');
  });

  test('pod overhead is added; extended resources and hugepages are requests.<name>', () => {
    const p = pod({ overhead: { cpu: '250m' }, containers: [c('a', { requests: { cpu: '1', 'example.com/dongle': '3', 'hugepages-2Mi': '4Mi' }, limits: { 'example.com/dongle': '3' } })] });
    const u = podUsage(p, NOW);
    assert.equal(u['requests.cpu'], '1250m');
    assert.equal(u['requests.example.com/dongle'], '3');
    assert.equal(u['requests.hugepages-2Mi'], '4Mi');
  });

  test('terminal pods and pods past their deletion grace period count only as count/pods', () => {
    const p = pod({ containers: [c('a', { requests: { cpu: '1' } })] });
    assert.deepEqual(podUsage({ ...p, status: { phase: 'Succeeded' } }, NOW), { 'count/pods': '1' });
    const deleting = { ...p, metadata: { ...p.metadata, deletionTimestamp: '2025-01-01T00:00:00Z', deletionGracePeriodSeconds: 30 } };
    assert.equal(podUsage(deleting, NOW + 10_000).pods, '1');
    assert.deepEqual(podUsage(deleting, NOW + 31_000), { 'count/pods': '1' });
  });
});

describe('pod constraints and scopes', () => {
  test('every container must state the constrained compute resources (TestPodConstraintsFunc)', () => {
    const p = pod({ containers: [c('a', { requests: { cpu: '1' } }), c('b', { limits: { memory: '1Gi' } })] });
    assert.equal(podConstraints(['requests.cpu', 'limits.memory', 'pods'], p), 'must specify limits.memory,requests.cpu');
    assert.equal(podConstraints(['pods', 'count/pods'], p), undefined);
  });

  test('Terminating, NotTerminating, BestEffort, NotBestEffort, PriorityClass (TestPodEvaluatorMatchingScopes)', () => {
    const be = pod({ containers: [c('a', {})] });
    const burstable = pod({ containers: [c('a', { requests: { cpu: '1' } })], activeDeadlineSeconds: 60, priorityClassName: 'high' });
    const exists = (scopeName: string): { scopeName: string; operator: string } => ({ scopeName, operator: 'Exists' });
    assert.deepEqual(
      ['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort'].map((s) => [podMatchesScope(exists(s), be), podMatchesScope(exists(s), burstable)]),
      [
        [false, true],
        [true, false],
        [true, false],
        [false, true],
      ],
    );
    assert.equal(podMatchesScope({ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }, burstable), true);
    assert.equal(podMatchesScope({ scopeName: 'PriorityClass', operator: 'NotIn', values: ['high'] }, burstable), false);
    assert.equal(podMatchesScope({ scopeName: 'PriorityClass', operator: 'NotIn', values: ['high'] }, be), true);
    assert.equal(podMatchesScope(exists('PriorityClass'), be), false);
    assert.equal(podMatchesScope({ scopeName: 'PriorityClass', operator: 'DoesNotExist' }, be), false);
  });

  test('a scoped quota matches no object but pods', () => {
    const rq: ResourceQuota = { spec: { hard: { pods: '1', 'count/configmaps': '1' }, scopes: ['BestEffort'] } };
    assert.equal(quotaMatches(rq, rq.spec?.hard ?? {}, { group: '', resource: 'configmaps' }, {}), false);
    assert.equal(quotaMatches(rq, rq.spec?.hard ?? {}, { group: '', resource: 'pods' }, pod({ containers: [c('a', {})] })), true);
  });
});

describe('services, claims and object counts', () => {
  test('services (TestServiceEvaluatorUsage)', () => {
    const svc = (spec: Service['spec']): Service => ({ metadata: { name: 's' }, spec });
    assert.deepEqual(serviceUsage(svc({ type: 'ClusterIP', ports: [{ port: 80 }] })), { services: '1', 'count/services': '1' });
    assert.deepEqual(serviceUsage(svc({ type: 'NodePort', ports: [{ port: 80 }, { port: 81 }] })), { services: '1', 'count/services': '1', 'services.nodeports': '2' });
    assert.deepEqual(serviceUsage(svc({ type: 'LoadBalancer', ports: [{ port: 80 }] })), { services: '1', 'count/services': '1', 'services.loadbalancers': '1', 'services.nodeports': '1' });
  });

  test('claims (TestPersistentVolumeClaimEvaluatorUsage)', () => {
    const pvc: PersistentVolumeClaim = { metadata: { name: 'c' }, spec: { storageClassName: 'gold', resources: { requests: { storage: '10Gi' } } } };
    assert.deepEqual(persistentVolumeClaimUsage(pvc), {
      persistentvolumeclaims: '1',
      'count/persistentvolumeclaims': '1',
      'requests.storage': '10Gi',
      'gold.storageclass.storage.k8s.io/persistentvolumeclaims': '1',
      'gold.storageclass.storage.k8s.io/requests.storage': '10Gi',
    });
  });

  test('generic object counts and the names they come from', () => {
    assert.deepEqual(objectUsage({ group: 'apps', resource: 'deployments' }, {}, NOW), { 'count/deployments.apps': '1' });
    assert.deepEqual(objectUsage({ group: '', resource: 'secrets' }, {}, NOW), { 'count/secrets': '1', secrets: '1' });
    assert.deepEqual(groupResourceOfQuotaName('count/jobs.batch'), { group: 'batch', resource: 'jobs' });
    assert.deepEqual(groupResourceOfQuotaName('limits.memory'), { group: '', resource: 'pods' });
    assert.deepEqual(groupResourceOfQuotaName('gold.storageclass.storage.k8s.io/requests.storage'), { group: '', resource: 'persistentvolumeclaims' });
    assert.equal(groupResourceOfQuotaName('no-such-thing'), undefined);
  });
});

describe('resource lists (resources_test.go)', () => {
  test('Add, Subtract, LessThanOrEqual and prettyPrint', () => {
    assert.deepEqual(addResources({ cpu: '100m', pods: '1' }, { cpu: '200m', memory: '1Gi' }), { cpu: '300m', pods: '1', memory: '1Gi' });
    assert.deepEqual(subtractResources({ cpu: '1', pods: '2' }, { cpu: '250m' }), { cpu: '750m', pods: '2' });
    assert.deepEqual(lessThanOrEqual({ cpu: '2', pods: '1' }, { cpu: '1', pods: '1', memory: '1Gi' }), { allowed: false, exceeded: ['cpu'] });
    assert.equal(prettyPrint({ pods: '1', 'requests.cpu': '1000m' }), 'pods=1,requests.cpu=1');
  });
});
