import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  deepCopy,
  deepFreeze,
  getControllerOf,
  isControlledBy,
  metaNamespaceKey,
  newControllerRef,
  semanticDeepEqual,
  splitMetaNamespaceKey,
} from './index.js';

describe('keys', () => {
  test('metaNamespaceKey', () => {
    assert.equal(metaNamespaceKey({ metadata: { namespace: 'default', name: 'web' } }), 'default/web');
    assert.equal(metaNamespaceKey({ metadata: { name: 'node-1' } }), 'node-1');
    assert.equal(metaNamespaceKey({ metadata: { namespace: '', name: 'ns1' } }), 'ns1');
    assert.equal(metaNamespaceKey({}), '');
  });

  test('splitMetaNamespaceKey', () => {
    assert.deepEqual(splitMetaNamespaceKey('default/web'), { namespace: 'default', name: 'web' });
    assert.deepEqual(splitMetaNamespaceKey('node-1'), { namespace: '', name: 'node-1' });
    assert.throws(() => splitMetaNamespaceKey('a/b/c'), { message: 'unexpected key format: "a/b/c"' });
  });
});

describe('controller references', () => {
  const rs = { metadata: { name: 'web-abc', uid: 'u-rs', namespace: 'default' } };

  test('newControllerRef', () => {
    assert.deepEqual(newControllerRef(rs, { apiVersion: 'apps/v1', kind: 'ReplicaSet' }), {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      name: 'web-abc',
      uid: 'u-rs',
      controller: true,
      blockOwnerDeletion: true,
    });
  });

  test('getControllerOf and isControlledBy', () => {
    const pod = {
      metadata: {
        ownerReferences: [
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: 'u-c' },
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-abc', uid: 'u-rs', controller: true },
        ],
      },
    };
    assert.equal(getControllerOf(pod)?.uid, 'u-rs');
    assert.equal(getControllerOf({ metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'x', uid: '1', controller: false }] } }), undefined);
    assert.equal(getControllerOf({}), undefined);
    assert.equal(isControlledBy(pod, rs), true);
    assert.equal(isControlledBy(pod, { metadata: { uid: 'u-c' } }), false);
  });
});

describe('deepCopy and deepFreeze', () => {
  test('deepCopy is deep and unfrozen', () => {
    const o = deepFreeze({ a: { b: [1, { c: 'x' }] }, n: null, s: 's' });
    const c = deepCopy(o);
    assert.deepEqual(c, o);
    assert.notEqual(c.a, o.a);
    assert.notEqual(c.a.b, o.a.b);
    assert.equal(Object.isFrozen(c), false);
    (c.a.b[1] as { c: string }).c = 'y';
    assert.equal((o.a.b[1] as { c: string }).c, 'x');
  });

  test('deepCopy keeps a "__proto__" key as data', () => {
    const o = JSON.parse('{"__proto__": {"x": 1}, "y": 2}') as Record<string, unknown>;
    const c = deepCopy(o);
    assert.equal(Object.getPrototypeOf(c), Object.prototype);
    assert.deepEqual(Object.keys(c), ['__proto__', 'y']);
  });

  test('deepFreeze freezes every level', () => {
    const o = deepFreeze({ a: { b: [{ c: 1 }] } });
    assert.equal(Object.isFrozen(o.a), true);
    assert.equal(Object.isFrozen(o.a.b), true);
    assert.equal(Object.isFrozen(o.a.b[0]), true);
    assert.throws(() => {
      (o.a.b[0] as { c: number }).c = 2;
    }, TypeError);
    assert.equal(deepFreeze(null), null);
  });
});

describe('semanticDeepEqual', () => {
  test('structural equality', () => {
    assert.equal(semanticDeepEqual({ a: [1, { b: 'x' }] }, { a: [1, { b: 'x' }] }), true);
    assert.equal(semanticDeepEqual({ a: [1, 2] }, { a: [2, 1] }), false);
    assert.equal(semanticDeepEqual({ a: 1 }, { a: '1' }), false);
    assert.equal(semanticDeepEqual([1], { 0: 1 }), false);
    assert.equal(semanticDeepEqual(null, {}), true);
    assert.equal(semanticDeepEqual({ labels: {} }, {}), true, 'a nil map equals an empty one (forked reflect.DeepEqual)');
    assert.equal(semanticDeepEqual({ args: [] }, { args: null }), true);
    assert.equal(semanticDeepEqual({ paused: false, replicas: 0, name: '' }, {}), true, 'zero scalars decode like absent fields');
    assert.equal(semanticDeepEqual({ a: { b: [] } }, {}), true);
    assert.equal(semanticDeepEqual({ a: { b: [1] } }, {}), false);
    assert.equal(semanticDeepEqual({ a: 1 }, { a: 1, b: 2 }), false);
    assert.equal(semanticDeepEqual({ a: 1, b: 2 }, { a: 1 }), false);
  });

  test('undefined-valued keys count as absent', () => {
    assert.equal(semanticDeepEqual({ a: 1, b: undefined }, { a: 1 }), true);
    assert.equal(semanticDeepEqual({ a: 1 }, { a: 1, c: undefined }), true);
    assert.equal(semanticDeepEqual({ b: undefined }, { c: undefined }), true);
  });

});
