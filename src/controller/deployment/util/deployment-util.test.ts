import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Deployment, ReplicaSet } from '../../../api/index.js';
import {
  equalIgnoreHash,
  findNewReplicaSet,
  getReplicaSetProportion,
  maxSurge,
  maxUnavailable,
  newRSNewReplicas,
  resolveFenceposts,
  setDeploymentCondition,
  setNewReplicaSetAnnotations,
  newDeploymentCondition,
} from './deployment-util.js';

function deployment(replicas: number, surge: number | string, unavailable: number | string, type = 'RollingUpdate'): Deployment {
  return {
    metadata: { name: 'd', namespace: 'ns', annotations: { keep: 'me', 'kubectl.kubernetes.io/last-applied-configuration': '{}' } },
    spec: { replicas, selector: { matchLabels: { app: 'a' } }, template: { metadata: { labels: { app: 'a' } } }, strategy: { type, rollingUpdate: { maxSurge: surge, maxUnavailable: unavailable } } },
  };
}

function rs(name: string, replicas: number, available = replicas, created = '2025-01-01T00:00:00Z'): ReplicaSet {
  return { metadata: { name, uid: name, creationTimestamp: created }, spec: { replicas, selector: {} }, status: { replicas, availableReplicas: available } };
}

describe('resolveFenceposts', () => {
  const cases: [surge: number | string, unavailable: number | string, desired: number, expected: [number, number]][] = [
    ['25%', '25%', 3, [1, 0]], // surge rounds up, unavailable down
    ['25%', '25%', 10, [3, 2]],
    ['25%', '25%', 4, [1, 1]],
    [0, '10%', 5, [0, 1]], // both resolve to 0 ⇒ unavailable 1
    [0, 0, 10, [0, 1]],
    [3, 2, 10, [3, 2]],
    ['50%', 0, 0, [0, 1]],
    ['100%', '100%', 7, [7, 7]],
  ];
  for (const [s, u, desired, expected] of cases) {
    test(`${s}/${u} of ${desired} → surge ${expected[0]}, unavailable ${expected[1]}`, () => {
      assert.deepEqual(resolveFenceposts(s, u, desired), expected);
    });
  }

  test('maxUnavailable/maxSurge: capped at replicas, zero for Recreate or no replicas', () => {
    assert.equal(maxUnavailable(deployment(3, 0, 5)), 3);
    assert.equal(maxUnavailable(deployment(0, 1, 1)), 0);
    assert.equal(maxUnavailable(deployment(10, 1, 1, 'Recreate')), 0);
    assert.equal(maxSurge(deployment(10, 1, 1, 'Recreate')), 0);
    assert.equal(maxSurge(deployment(10, '25%', 0)), 3);
  });
});

describe('newRSNewReplicas', () => {
  test('grows within replicas + maxSurge and never beyond replicas', () => {
    const d = deployment(10, 3, 2);
    const newRS = rs('new', 0);
    assert.equal(newRSNewReplicas(d, [rs('old', 10), newRS], newRS), 3);
    assert.equal(newRSNewReplicas(d, [rs('old', 8), rs('new', 3)], rs('new', 3)), 5);
    assert.equal(newRSNewReplicas(d, [rs('old', 10), rs('new', 3)], rs('new', 3)), 3, 'at 13 = 10 + 3: no growth');
    assert.equal(newRSNewReplicas(d, [rs('old', 0), rs('new', 9)], rs('new', 9)), 10, 'capped at replicas');
    assert.equal(newRSNewReplicas(deployment(4, 1, 1, 'Recreate'), [], rs('new', 0)), 4);
  });
});

describe('proportional scaling', () => {
  test('getReplicaSetProportion splits by the max-replicas annotation', () => {
    const d = deployment(20, 5, 0);
    const withMax = (r: ReplicaSet): ReplicaSet => ({ ...r, metadata: { ...r.metadata, annotations: { 'deployment.kubernetes.io/max-replicas': '13' } } });
    const a = withMax(rs('a', 8));
    const b = withMax(rs('b', 5));
    // 25 allowed − 13 = 12 to add: 8·25/13 = 15.4 → +7; 5·25/13 = 9.6 → +5
    const pa = getReplicaSetProportion(a, d, 12, 0);
    const pb = getReplicaSetProportion(b, d, 12, pa);
    assert.deepEqual([pa, pb], [7, 5]);
    assert.equal(getReplicaSetProportion(b, d, 12, 10), 2, 'never more than the remainder');
    assert.equal(getReplicaSetProportion(a, deployment(0, 5, 0), -13, 0), -8, 'scaling to 0 removes all');
  });
});

describe('new ReplicaSet identity and annotations', () => {
  test('equalIgnoreHash and findNewReplicaSet pick the oldest equal template', () => {
    const d = deployment(1, 1, 0);
    const t = (hash: string, image: string) => ({ metadata: { labels: { app: 'a', 'pod-template-hash': hash } }, spec: { containers: [{ name: 'c', image }] } });
    d.spec = { ...d.spec!, template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'v2' }] } } };
    assert.equal(equalIgnoreHash(t('x', 'v2'), d.spec.template), true);
    assert.equal(equalIgnoreHash(t('x', 'v1'), d.spec.template), false);
    const older = { ...rs('older', 1, 1, '2025-01-01T00:00:00Z'), spec: { replicas: 1, selector: {}, template: t('h1', 'v2') } };
    const newer = { ...rs('newer', 1, 1, '2025-01-02T00:00:00Z'), spec: { replicas: 1, selector: {}, template: t('h2', 'v2') } };
    const other = { ...rs('other', 1), spec: { replicas: 1, selector: {}, template: t('h3', 'v1') } };
    assert.equal(findNewReplicaSet(d, [newer, other, older])?.metadata?.name, 'older');
  });

  test('setNewReplicaSetAnnotations copies annotations (minus skipped), bumps revision, keeps history', () => {
    const d = deployment(4, 1, 0);
    const fresh: ReplicaSet = { metadata: {}, spec: { selector: {} } };
    assert.equal(setNewReplicaSetAnnotations(d, fresh, 3, false), true);
    assert.deepEqual(fresh.metadata?.annotations, {
      keep: 'me',
      'deployment.kubernetes.io/revision': '3',
      'deployment.kubernetes.io/desired-replicas': '4',
      'deployment.kubernetes.io/max-replicas': '5',
    });
    const reused: ReplicaSet = { metadata: { annotations: { keep: 'me', 'deployment.kubernetes.io/revision': '1', 'deployment.kubernetes.io/revision-history': '0' } }, spec: { selector: {} } };
    assert.equal(setNewReplicaSetAnnotations(d, reused, 5, true), true);
    assert.equal(reused.metadata?.annotations?.['deployment.kubernetes.io/revision'], '5');
    assert.equal(reused.metadata?.annotations?.['deployment.kubernetes.io/revision-history'], '0,1');
    assert.equal(setNewReplicaSetAnnotations(d, reused, 5, true), false, 'nothing to change');
  });

  test('setDeploymentCondition keeps lastTransitionTime when the status is unchanged', () => {
    const status = {};
    setDeploymentCondition(status, newDeploymentCondition('Progressing', 'True', 'NewReplicaSetCreated', 'm', Date.UTC(2025, 0, 1)));
    setDeploymentCondition(status, newDeploymentCondition('Progressing', 'True', 'ReplicaSetUpdated', 'm2', Date.UTC(2025, 0, 2)));
    assert.deepEqual(status, {
      conditions: [{ type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', message: 'm2', lastUpdateTime: '2025-01-02T00:00:00Z', lastTransitionTime: '2025-01-01T00:00:00Z' }],
    });
  });
});
