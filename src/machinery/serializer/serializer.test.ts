/**
 * Go's typed decoding: null semantics, integer widths, times and the nesting limit.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeTypedObject, maxDepthError, MAX_NESTING_DEPTH } from './index.js';

/** Nested arrays `[[…]]` `depth` levels deep. */
function nested(depth: number, array = true): unknown {
  let v: unknown = array ? [] : {};
  for (let i = 1; i < depth; i++) v = array ? [v] : { a: v };
  return v;
}

describe('decodeTypedObject: null', () => {
  test('a null list element is the element type’s zero value; a null field is dropped', () => {
    const pod = {
      metadata: { name: 'p', labels: { a: null, b: 'x' }, finalizers: [null, 'f'], ownerReferences: null },
      spec: {
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [null] } } },
        containers: [{ name: 'c', image: 'nginx', ports: [null, { containerPort: 80 }], env: [{ name: 'E', value: null }] }],
        nodeSelector: null,
        tolerations: [null],
      },
      status: null,
    };
    assert.equal(decodeTypedObject(pod, 'io.k8s.api.core.v1.Pod'), undefined);
    assert.deepEqual(pod, {
      metadata: { name: 'p', labels: { a: '', b: 'x' }, finalizers: ['', 'f'] },
      spec: {
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{}] } } },
        containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 0 }, { containerPort: 80 }], env: [{ name: 'E' }] }],
        tolerations: [{}],
      },
    });
  });

  test('free-form values keep their nulls; unknown fields are not touched', () => {
    const cr = { metadata: { name: 'r' }, revision: 1, data: { a: null, b: [null] }, extra: null };
    assert.equal(decodeTypedObject(cr, 'io.k8s.api.apps.v1.ControllerRevision'), undefined);
    assert.deepEqual(cr, { metadata: { name: 'r' }, revision: 1, data: { a: null, b: [null] }, extra: null });
  });
});

describe('decodeTypedObject: required scalars', () => {
  test('a required string, number or bool that is missing or null gets its zero value, as Go encodes it', () => {
    const node = { spec: { taints: [{ effect: 'NoSchedule' }, { key: null, effect: 'NoSchedule', value: null }, null] } };
    assert.equal(decodeTypedObject(node, 'io.k8s.api.core.v1.Node'), undefined);
    assert.deepEqual(node.spec.taints, [
      { effect: 'NoSchedule', key: '' },
      { key: '', effect: 'NoSchedule' },
      { effect: '', key: '' },
    ]);
    const status = { status: { containerStatuses: [{ name: 'c' }] } };
    assert.equal(decodeTypedObject(status, 'io.k8s.api.core.v1.Pod'), undefined);
    assert.deepEqual(status.status.containerStatuses[0], { name: 'c', image: '', imageID: '', ready: false, restartCount: 0 });
  });
});

describe('decodeTypedObject: omitempty', () => {
  test("an omitempty field holding an empty value is left out, as Go's encoder leaves it out", () => {
    const rs = {
      metadata: { name: 'web', ownerReferences: [], finalizers: [], labels: {}, generation: 0, namespace: '' },
      spec: { replicas: 0, minReadySeconds: 0, selector: { matchLabels: {} }, template: { spec: { containers: [], hostNetwork: false } } },
      status: { replicas: 0, availableReplicas: 0, conditions: [] },
    };
    assert.equal(decodeTypedObject(rs, 'io.k8s.api.apps.v1.ReplicaSet'), undefined);
    assert.deepEqual(rs, {
      metadata: { name: 'web' },
      // replicas is a pointer (*int32): 0 is a value. PodSpec.containers has no omitempty: [] is encoded.
      // A struct is never empty to encoding/json: the selector stays, without its empty map.
      spec: { replicas: 0, selector: {}, template: { spec: { containers: [] } } },
      // ReplicaSetStatus.replicas has no omitempty: 0 is encoded.
      status: { replicas: 0 },
    });
    const status = { status: { observedGeneration: 3, replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2, unavailableReplicas: 0, collisionCount: 0 } };
    assert.equal(decodeTypedObject(status, 'io.k8s.api.apps.v1.Deployment'), undefined);
    assert.deepEqual(status.status, { observedGeneration: 3, replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2, collisionCount: 0 });
  });

  test('members of lists and maps are never left out; free-form values are untouched', () => {
    const cm = { metadata: { name: 'c', finalizers: [''] }, data: { a: '' }, binaryData: {} };
    assert.equal(decodeTypedObject(cm, 'io.k8s.api.core.v1.ConfigMap'), undefined);
    assert.deepEqual(cm, { metadata: { name: 'c', finalizers: [''] }, data: { a: '' } });
    const cr = { metadata: { name: 'r' }, revision: 0, data: { x: 0, y: [] } };
    assert.equal(decodeTypedObject(cr, 'io.k8s.api.apps.v1.ControllerRevision'), undefined);
    assert.deepEqual(cr, { metadata: { name: 'r' }, revision: 0, data: { x: 0, y: [] } });
  });
});

describe('decodeTypedObject: integer widths', () => {
  const replicas = (v: unknown): string | undefined => decodeTypedObject({ spec: { replicas: v } }, 'io.k8s.api.apps.v1.Deployment');
  test('int32 fields take −2^31 … 2^31−1, as strconv.ParseInt(s, 10, 32)', () => {
    assert.equal(replicas(2147483647), undefined);
    assert.equal(replicas(-2147483648), undefined);
    assert.equal(replicas(2147483648), 'json: cannot unmarshal number 2147483648 into Go struct field DeploymentSpec.spec.replicas of type int32');
    assert.equal(replicas(1e20), 'json: cannot unmarshal number 100000000000000000000 into Go struct field DeploymentSpec.spec.replicas of type int32');
    assert.equal(replicas(-2147483649), 'json: cannot unmarshal number -2147483649 into Go struct field DeploymentSpec.spec.replicas of type int32');
  });

  test('int64 fields take what fits 64 bits; IntOrString numbers are int32', () => {
    const grace = (v: unknown): string | undefined => decodeTypedObject({ spec: { terminationGracePeriodSeconds: v } }, 'io.k8s.api.core.v1.Pod');
    assert.equal(grace(2 ** 40), undefined);
    assert.equal(grace(1e20), 'json: cannot unmarshal number 100000000000000000000 into Go struct field PodSpec.spec.terminationGracePeriodSeconds of type int64');
    const surge = (v: unknown): string | undefined => decodeTypedObject({ spec: { strategy: { rollingUpdate: { maxSurge: v } } } }, 'io.k8s.api.apps.v1.Deployment');
    assert.equal(surge('25%'), undefined);
    assert.equal(surge(3), undefined);
    assert.equal(
      surge(2 ** 31),
      'json: cannot unmarshal number 2147483648 into Go struct field RollingUpdateDeployment.spec.strategy.rollingUpdate.maxSurge of type intstr.IntOrString',
    );
  });
});

describe('decodeTypedObject: times', () => {
  test('metav1.Time must be RFC 3339; MicroTime RFC 3339 with microseconds', () => {
    assert.equal(decodeTypedObject({ metadata: { creationTimestamp: '2025-01-01T00:00:00Z' } }, 'io.k8s.api.core.v1.Pod'), undefined);
    assert.equal(
      decodeTypedObject({ metadata: { creationTimestamp: 'yesterday' } }, 'io.k8s.api.core.v1.Pod'),
      'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
    );
    assert.equal(
      decodeTypedObject({ status: { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2025-02-30T00:00:00Z' }] } }, 'io.k8s.api.core.v1.Pod'),
      'parsing time "2025-02-30T00:00:00Z": day out of range',
    );
    assert.equal(decodeTypedObject({ spec: { renewTime: '2025-01-01T00:00:00.000000Z' } }, 'io.k8s.api.coordination.v1.Lease'), undefined);
    assert.equal(
      decodeTypedObject({ spec: { renewTime: '2025-01-01T00:00:00Z' } }, 'io.k8s.api.coordination.v1.Lease'),
      'parsing time "2025-01-01T00:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"',
    );
  });
});

describe('maxDepthError', () => {
  test('objects and arrays count one level each, at any depth, without recursion', () => {
    assert.equal(maxDepthError(nested(MAX_NESTING_DEPTH)), undefined);
    assert.equal(maxDepthError(nested(MAX_NESTING_DEPTH, false)), undefined);
    assert.equal(maxDepthError(nested(MAX_NESTING_DEPTH + 1)), "invalid character '[' exceeded max depth");
    assert.equal(maxDepthError(nested(MAX_NESTING_DEPTH + 1, false)), "invalid character '{' exceeded max depth");
    assert.equal(maxDepthError(nested(200_000)), "invalid character '[' exceeded max depth");
    assert.equal(maxDepthError('x'), undefined);
    assert.equal(maxDepthError(null), undefined);
  });
});
