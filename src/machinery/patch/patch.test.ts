import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { deepFreeze } from '../meta/index.js';
import { applyJsonPatch, applyMergePatch, applyStrategicMergePatch, PatchError } from './index.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function patchError(fn: () => unknown): PatchError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof PatchError, `expected PatchError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected a PatchError');
}

const smp = (doc: unknown, patch: unknown, type = 'io.k8s.api.apps.v1.Deployment'): Obj => applyStrategicMergePatch(doc, patch, type) as Obj;

/** A live Deployment after a first `kubectl apply`, frozen like a cache object. */
function liveDeployment(): Obj {
  return deepFreeze({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      namespace: 'default',
      labels: { app: 'web' },
      annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{old}', 'deployment.kubernetes.io/revision': '1' },
      finalizers: ['a', 'b'],
    },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            {
              name: 'app',
              image: 'nginx:1.25',
              env: [
                { name: 'A', value: '1' },
                { name: 'B', value: '2' },
              ],
              ports: [{ containerPort: 80, protocol: 'TCP' }],
              terminationMessagePath: '/dev/termination-log',
            },
          ],
          tolerations: [{ key: 'old', operator: 'Equal', value: 'x' }],
          restartPolicy: 'Always',
        },
      },
    },
    status: {
      conditions: [
        { type: 'Available', status: 'True' },
        { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' },
      ],
    },
  });
}

describe('strategic merge patch: kubectl bodies', () => {
  test('apply, second run', () => {
    const patch = {
      metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{new}' }, labels: { tier: 'backend' } },
      spec: {
        replicas: 3,
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'app' }, { name: 'sidecar' }],
            containers: [
              {
                '$setElementOrder/env': [{ name: 'A' }],
                args: ['--x'],
                env: [{ $patch: 'delete', name: 'B' }],
                image: 'nginx:1.26',
                name: 'app',
                ports: null,
              },
              { image: 'busybox', name: 'sidecar' },
            ],
            tolerations: [{ key: 'k', operator: 'Exists' }],
          },
        },
      },
    };
    const live = liveDeployment();
    const out = smp(live, patch);
    assert.deepEqual(out.metadata.annotations, { 'kubectl.kubernetes.io/last-applied-configuration': '{new}', 'deployment.kubernetes.io/revision': '1' });
    assert.deepEqual(out.metadata.labels, { app: 'web', tier: 'backend' });
    assert.equal(out.spec.replicas, 3);
    assert.deepEqual(out.spec.template.spec.containers, [
      { name: 'app', image: 'nginx:1.26', env: [{ name: 'A', value: '1' }], terminationMessagePath: '/dev/termination-log', args: ['--x'] },
      { image: 'busybox', name: 'sidecar' },
    ]);
    assert.deepEqual(out.spec.template.spec.tolerations, [{ key: 'k', operator: 'Exists' }], 'tolerations are replaced wholesale');
    assert.equal(out.spec.template.spec.restartPolicy, 'Always');
    assert.deepEqual(out.status, live.status);
    // Inputs untouched.
    assert.equal(live.spec.replicas, 2);
    assert.equal(live.spec.template.spec.containers.length, 1);
    assert.equal('$setElementOrder/containers' in patch.spec.template.spec, true);
  });

  test('set image', () => {
    const live = deepFreeze({ spec: { template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] } } } });
    const out = smp(live, { spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'nginx' }], containers: [{ image: 'nginx:1.28', name: 'nginx' }] } } } });
    assert.deepEqual(out, { spec: { template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.28', ports: [{ containerPort: 80 }] }] } } } });
  });

  test('set env B=2 adds and orders by $setElementOrder', () => {
    const patch = {
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'nginx' }],
            containers: [{ '$setElementOrder/env': [{ name: 'A' }, { name: 'B' }], env: [{ name: 'B', value: '2' }], name: 'nginx' }],
          },
        },
      },
    };
    const live = { spec: { template: { spec: { containers: [{ name: 'nginx', image: 'x', env: [{ name: 'A', value: '1' }] }] } } } };
    assert.deepEqual(smp(live, patch).spec.template.spec.containers[0].env, [
      { name: 'A', value: '1' },
      { name: 'B', value: '2' },
    ]);
    const liveReordered = { spec: { template: { spec: { containers: [{ name: 'nginx', env: [{ name: 'B', value: '1' }, { name: 'A', value: '1' }] }] } } } };
    assert.deepEqual(smp(liveReordered, patch).spec.template.spec.containers[0].env, [
      { name: 'A', value: '1' },
      { name: 'B', value: '2' },
    ]);
  });

  test('rollout pause, resume, restart; edit; cordon', () => {
    const live = liveDeployment();
    const paused = smp(live, { spec: { paused: true } });
    assert.equal(paused.spec.paused, true);
    const resumed = smp(paused, { spec: { paused: null } });
    assert.equal('paused' in resumed.spec, false);
    const restarted = smp(live, { spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-11-21T05:21:49Z' } } } } });
    assert.deepEqual(restarted.spec.template.metadata, { labels: { app: 'web' }, annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-11-21T05:21:49Z' } });
    assert.equal(smp(live, { spec: { replicas: 4 } }).spec.replicas, 4);
    const node = deepFreeze({ metadata: { name: 'n1' }, spec: { podCIDR: '10.0.0.0/24' } });
    assert.deepEqual(smp(node, { spec: { unschedulable: true } }, 'io.k8s.api.core.v1.Node').spec, { podCIDR: '10.0.0.0/24', unschedulable: true });
  });

  test('adopt and release ownerReferences by uid', () => {
    const pod = deepFreeze({ metadata: { name: 'p', uid: 'pod-uid', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: 'u0' }] } });
    const ref = { apiVersion: 'apps/v1', blockOwnerDeletion: true, controller: true, kind: 'ReplicaSet', name: 'rs', uid: 'u1' };
    const adopted = smp(pod, { metadata: { ownerReferences: [ref], uid: 'pod-uid' } }, 'io.k8s.api.core.v1.Pod');
    assert.deepEqual(adopted.metadata.ownerReferences.map((r: Obj) => r.uid as string).sort(), ['u0', 'u1']);
    const released = smp(adopted, { metadata: { ownerReferences: [{ $patch: 'delete', uid: 'u1' }], uid: 'pod-uid' } }, 'io.k8s.api.core.v1.Pod');
    assert.deepEqual(released.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: 'u0' }]);
    // Releasing twice (the element is already gone) is fine.
    assert.deepEqual(smp(released, { metadata: { ownerReferences: [{ $patch: 'delete', uid: 'u1' }] } }, 'io.k8s.api.core.v1.Pod').metadata.ownerReferences, released.metadata.ownerReferences);
  });
});

describe('strategic merge patch: merge lists and order', () => {
  const pod = (containers: Obj[]): Obj => ({ spec: { containers } });
  const names = (o: Obj): string[] => (o.spec.containers as Obj[]).map((c) => c.name as string);

  test('without $setElementOrder, new elements come first and live-only ones keep their relative order', () => {
    assert.deepEqual(names(smp(pod([{ name: 'a' }, { name: 'b' }]), pod([{ name: 'c' }]), 'io.k8s.api.core.v1.Pod')), ['c', 'a', 'b']);
    // live [a, b, c], patch [d, b]: d is new, a precedes b in the live list, c follows it.
    assert.deepEqual(names(smp(pod([{ name: 'a' }, { name: 'b' }, { name: 'c' }]), pod([{ name: 'd' }, { name: 'b', image: 'x' }]), 'io.k8s.api.core.v1.Pod')), ['d', 'a', 'b', 'c']);
  });

  test('$setElementOrder orders the result and never adds elements', () => {
    const live = pod([{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
    const out = smp(live, { spec: { '$setElementOrder/containers': [{ name: 'c' }, { name: 'ghost' }, { name: 'a' }] } }, 'io.k8s.api.core.v1.Pod');
    // Listed elements follow the directive (c before a); b, not listed, keeps its live place before c.
    assert.deepEqual(names(out), ['b', 'c', 'a']);
    assert.deepEqual(
      names(smp(live, { spec: { '$setElementOrder/containers': [{ name: 'c' }, { name: 'b' }, { name: 'a' }], containers: [{ name: 'b', image: 'x' }] } }, 'io.k8s.api.core.v1.Pod')),
      ['c', 'b', 'a'],
    );
  });

  test('$setElementOrder that contradicts the patch list is rejected', () => {
    const e = patchError(() =>
      smp(pod([{ name: 'a' }]), { spec: { '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }], containers: [{ name: 'a' }, { name: 'b' }] } }, 'io.k8s.api.core.v1.Pod'),
    );
    assert.match(e.message, /doesn't match \$setElementOrder list/);
  });

  test('nested merge lists (env inside containers) without directives', () => {
    const live = pod([{ name: 'app', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }] }]);
    const out = smp(live, pod([{ name: 'app', env: [{ name: 'B', value: '3' }, { name: 'C', value: '4' }] }]), 'io.k8s.api.core.v1.Pod');
    assert.deepEqual(out.spec.containers[0].env, [
      { name: 'A', value: '1' },
      { name: 'B', value: '3' },
      { name: 'C', value: '4' },
    ]);
  });

  test('ports merge by numeric containerPort; volumeMounts by mountPath', () => {
    const live = pod([{ name: 'a', ports: [{ containerPort: 80, protocol: 'TCP' }], volumeMounts: [{ mountPath: '/x', name: 'v1' }] }]);
    const out = smp(live, pod([{ name: 'a', ports: [{ containerPort: 80, name: 'http' }, { containerPort: 443 }], volumeMounts: [{ mountPath: '/x', readOnly: true }] }]), 'io.k8s.api.core.v1.Pod');
    assert.deepEqual(out.spec.containers[0].ports, [{ containerPort: 80, protocol: 'TCP', name: 'http' }, { containerPort: 443 }]);
    assert.deepEqual(out.spec.containers[0].volumeMounts, [{ mountPath: '/x', name: 'v1', readOnly: true }]);
  });

  test('$patch: delete of a missing element is a no-op; delete needs the merge key', () => {
    const live = pod([{ name: 'a' }]);
    assert.deepEqual(smp(live, pod([{ $patch: 'delete', name: 'zzz' }]), 'io.k8s.api.core.v1.Pod'), live);
    const e = patchError(() => smp(live, pod([{ $patch: 'delete', image: 'x' }]), 'io.k8s.api.core.v1.Pod'));
    assert.equal(e.message, 'map: {"$patch":"delete","image":"x"} does not contain declared merge key: name');
    assert.equal(e.code, 500);
  });

  test('merge-list elements without their merge key are rejected', () => {
    assert.match(patchError(() => smp(pod([{ name: 'a' }]), pod([{ image: 'x' }]), 'io.k8s.api.core.v1.Pod')).message, /does not contain declared merge key: name/);
  });

  test('$patch: replace in a list replaces it with the other elements', () => {
    const out = smp(pod([{ name: 'a' }, { name: 'b' }]), pod([{ $patch: 'replace' }, { name: 'c', image: null }]), 'io.k8s.api.core.v1.Pod');
    assert.deepEqual(out.spec.containers, [{ name: 'c' }]);
  });

  test('$patch: merge is not supported, as upstream', () => {
    assert.equal(patchError(() => smp(pod([{ name: 'a' }]), pod([{ $patch: 'merge' }]), 'io.k8s.api.core.v1.Pod')).message, 'merging lists cannot yet be specified in the patch');
    assert.match(patchError(() => smp({ spec: {} }, { spec: { $patch: 'merge' } })).message, /^unknown patch type: merge in map/);
    assert.match(patchError(() => smp({ spec: {} }, { spec: { $patch: 'bogus' } })).message, /^unknown patch type: bogus/);
  });

  test('status.conditions merge by type', () => {
    const out = smp(liveDeployment(), { status: { conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }] } });
    assert.deepEqual(out.status.conditions, [
      { type: 'Available', status: 'True' },
      { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' },
    ]);
  });

  test('primitive merge lists are unioned; $deleteFromPrimitiveList removes', () => {
    const live = liveDeployment();
    assert.deepEqual(smp(live, { metadata: { finalizers: ['c', 'a'] } }).metadata.finalizers.sort(), ['a', 'b', 'c']);
    assert.deepEqual(smp(live, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a', 'zz'] } }).metadata.finalizers, ['b']);
    // kubectl sends both when removing one finalizer of several.
    assert.deepEqual(smp(live, { metadata: { '$setElementOrder/finalizers': ['b'], '$deleteFromPrimitiveList/finalizers': ['a'] } }).metadata.finalizers, ['b']);
    // A deletion list for an absent field adds nothing.
    assert.equal('podCIDRs' in smp({ spec: {} }, { spec: { '$deleteFromPrimitiveList/podCIDRs': ['x'] } }, 'io.k8s.api.core.v1.Node').spec, false);
    assert.deepEqual(smp({ spec: { podCIDRs: ['a'] } }, { spec: { podCIDRs: ['b', 'a'] } }, 'io.k8s.api.core.v1.Node').spec.podCIDRs.sort(), ['a', 'b']);
    assert.equal(patchError(() => smp(live, { metadata: { '$deleteFromPrimitiveList/finalizers': [{ a: 1 }] } })).code, 400);
  });

  test('lists of lists are rejected', () => {
    assert.equal(patchError(() => smp({ spec: { podCIDRs: [] } }, { spec: { podCIDRs: [['x']] } }, 'io.k8s.api.core.v1.Node')).message, 'lists of lists are not supported');
    assert.match(patchError(() => smp({ spec: { podCIDRs: ['a'] } }, { spec: { podCIDRs: [['x']] } }, 'io.k8s.api.core.v1.Node')).message, /^list element types are not identical/);
  });
});

describe('strategic merge patch: maps, nulls and retainKeys', () => {
  test('null deletes; nulls for absent keys and inside new values are dropped', () => {
    const out = smp({ spec: { replicas: 1, minReadySeconds: 5 } }, { spec: { minReadySeconds: null, paused: null, strategy: { type: 'Recreate', rollingUpdate: null } } });
    assert.deepEqual(out, { spec: { replicas: 1, strategy: { type: 'Recreate' } } });
  });

  test('$patch: replace and delete in maps', () => {
    const live = liveDeployment();
    assert.deepEqual(smp(live, { spec: { template: { metadata: { labels: { $patch: 'replace', x: 'y' } } } } }).spec.template.metadata.labels, { x: 'y' });
    assert.deepEqual(smp(live, { spec: { selector: { $patch: 'delete' } } }).spec.selector, {});
  });

  test('$retainKeys: deployment strategy switch to Recreate', () => {
    const live = liveDeployment();
    assert.deepEqual(smp(live, { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: null, type: 'Recreate' } } }).spec.strategy, { type: 'Recreate' });
    assert.deepEqual(smp(live, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } }).spec.strategy, { type: 'Recreate' });
    const e = patchError(() => smp(live, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate', rollingUpdate: {} } } }));
    assert.equal(e.message, 'invalid patch format of retainKeys');
    assert.equal(e.code, 400);
  });

  test('$retainKeys on volumes (merge,retainKeys by name)', () => {
    const live = { spec: { volumes: [{ name: 'v', emptyDir: {} }, { name: 'w', secret: { secretName: 's' } }] } };
    const out = smp(live, { spec: { volumes: [{ $retainKeys: ['configMap', 'name'], configMap: { name: 'c' }, name: 'v' }] } }, 'io.k8s.api.core.v1.Pod');
    assert.deepEqual(out.spec.volumes, [
      { name: 'v', configMap: { name: 'c' } },
      { name: 'w', secret: { secretName: 's' } },
    ]);
  });

  test('values of another JSON kind are replaced; IntOrString switches', () => {
    const live = liveDeployment();
    const out = smp(live, { spec: { strategy: { rollingUpdate: { maxSurge: 1 } } } });
    assert.deepEqual(out.spec.strategy.rollingUpdate, { maxSurge: 1, maxUnavailable: '25%' });
    assert.deepEqual(smp({ a: [1] }, { a: { b: 1, c: null } }, 'Nope'), { a: { b: 1 } });
  });

  test('unknown types fall back to merge-patch semantics', () => {
    const out = smp({ a: { b: [1, 2], c: 1 }, l: [{ name: 'x', v: 1 }] }, { a: { b: [3], d: 2 }, l: [{ name: 'y' }] }, 'NoSuchType');
    assert.deepEqual(out, { a: { b: [3], c: 1, d: 2 }, l: [{ name: 'y' }] });
    // Unknown fields of a known type too.
    assert.deepEqual(smp({ spec: { custom: [{ name: 'a' }] } }, { spec: { custom: [{ name: 'b' }] } }).spec.custom, [{ name: 'b' }]);
  });

  test('directives never leak into a value the live object lacked', () => {
    const out = smp(
      { spec: { template: { spec: {} } } },
      { spec: { template: { spec: { containers: [{ name: 'a', env: [{ $patch: 'delete', name: 'X' }, { name: 'Y', value: null }] }, { $patch: 'delete', name: 'gone' }] } } } },
    );
    assert.deepEqual(out.spec.template.spec.containers, [{ name: 'a', env: [{ name: 'Y' }] }]);
  });

  test('the patch must be an object', () => {
    assert.equal(patchError(() => smp({}, [])).code, 400);
    assert.equal(patchError(() => smp({}, null)).code, 400);
  });
});

describe('applyMergePatch (RFC 7386)', () => {
  test('RFC 7386 appendix examples', () => {
    const cases: [unknown, unknown, unknown][] = [
      [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
      [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
      [{ a: 'b' }, { a: null }, {}],
      [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
      [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
      [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
      [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
      [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
      [['a', 'b'], ['c', 'd'], ['c', 'd']],
      [{ a: 'b' }, ['c'], ['c']],
      [{ a: 'foo' }, null, null],
      [{ a: 'foo' }, 'bar', 'bar'],
      [{ e: null }, { a: 1 }, { e: null, a: 1 }],
      [[1, 2], { a: 'b', c: null }, { a: 'b' }],
      [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
    ];
    for (const [doc, patch, want] of cases) assert.deepEqual(applyMergePatch(doc, patch), want, JSON.stringify([doc, patch]));
  });

  test('kubectl label/annotate/scale bodies; inputs are not modified', () => {
    const live = liveDeployment();
    const out = applyMergePatch(live, { metadata: { labels: { tier: 'db', app: null } }, spec: { replicas: 5 } }) as Obj;
    assert.deepEqual(out.metadata.labels, { tier: 'db' });
    assert.equal(out.spec.replicas, 5);
    assert.deepEqual(out.spec.template, live.spec.template);
    assert.notEqual(out.spec.template, live.spec.template);
    const patch = { a: { b: 1 } };
    const r = applyMergePatch({}, patch) as Obj;
    r.a.b = 2;
    assert.equal(patch.a.b, 1);
  });
});

describe('applyJsonPatch (RFC 6902)', () => {
  test('all operations; kubectl rollout undo body', () => {
    const live = liveDeployment();
    const out = applyJsonPatch(live, [
      { op: 'replace', path: '/spec/template', value: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx:1.24' }] } } },
      { op: 'replace', path: '/metadata/annotations', value: { 'deployment.kubernetes.io/revision': '2' } },
      { op: 'add', path: '/metadata/labels/a~1b', value: 'x' },
      { op: 'remove', path: '/metadata/finalizers/0' },
      { op: 'copy', from: '/spec/replicas', path: '/spec/minReadySeconds' },
      { op: 'move', from: '/spec/minReadySeconds', path: '/spec/revisionHistoryLimit' },
      { op: 'test', path: '/spec/replicas', value: 2 },
      { op: 'add', path: '/spec/template/spec/containers/-', value: { name: 'b', image: 'busybox' } },
    ]) as Obj;
    assert.equal(out.spec.template.spec.containers[0].image, 'nginx:1.24');
    assert.equal(out.spec.template.spec.containers[1].name, 'b');
    assert.deepEqual(out.metadata.annotations, { 'deployment.kubernetes.io/revision': '2' });
    assert.equal(out.metadata.labels['a/b'], 'x');
    assert.deepEqual(out.metadata.finalizers, ['b']);
    assert.equal(out.spec.revisionHistoryLimit, 2);
    assert.equal('minReadySeconds' in out.spec, false);
    assert.equal(live.metadata.finalizers.length, 2, 'input untouched');
  });

  test('the result does not alias the operations', () => {
    const value = { x: 1 };
    const out = applyJsonPatch({}, [{ op: 'add', path: '/v', value }]) as Obj;
    out.v.x = 2;
    assert.equal(value.x, 1);
  });

  test('failures: 422 when an operation does not apply', () => {
    const doc = { a: { b: 1 }, l: [1] };
    const cases: [unknown, string][] = [
      [[{ op: 'test', path: '/a/b', value: 2 }], 'testing value /a/b failed: test failed'],
      [[{ op: 'replace', path: '/a/c', value: 1 }], 'doc is missing path: "/a/c"'],
      [[{ op: 'remove', path: '/x' }], 'doc is missing path: "/x"'],
      [[{ op: 'move', from: '/zz', path: '/a/d' }], 'doc is missing from path: "/zz"'],
      [[{ op: 'add', path: '/q/r', value: 1 }], 'cannot add at path "/q/r": its parent does not exist'],
      [[{ op: 'add', path: '/l/5', value: 1 }], 'The specified index MUST NOT be greater than the number of elements in the array'],
    ];
    for (const [ops, msg] of cases) {
      const e = patchError(() => applyJsonPatch(doc, ops));
      assert.ok(e.message.startsWith(msg), `${e.message} should start with ${msg}`);
      assert.equal(e.code, 422);
    }
    assert.match(patchError(() => applyJsonPatch(doc, [{ op: 'test', path: '/a/b', value: 2 }])).message, /\(operation 0: /);
  });

  test('failures: 400 for malformed patches', () => {
    for (const ops of [{}, [{ op: 'bogus', path: '/a' }], [{ op: 'add', path: 'a', value: 1 }], [{ op: 'add', path: '/a' }], [{ op: 'add', path: '/__proto__/x', value: 1 }]]) {
      assert.equal(patchError(() => applyJsonPatch({ a: 1 }, ops)).code, 400, JSON.stringify(ops));
    }
    assert.equal(patchError(() => applyJsonPatch({}, {})).message, 'Patch sequence must be an array');
  });
});
