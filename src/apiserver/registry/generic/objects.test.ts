/**
 * The registry's private copies: {@link cloneSharingManagedFields} copies everything but the
 * managedFields list, which stays the original's, in its place.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../../api/index.js';
import { deepFreeze } from '../../../machinery/meta/index.js';
import { cloneSharingManagedFields } from './objects.js';

describe('cloneSharingManagedFields', () => {
  test('shares the frozen managedFields, copies the rest unfrozen, keeps the key order', () => {
    const obj = deepFreeze({
      metadata: { name: 'a', managedFields: [{ manager: 'm', fieldsV1: { 'f:spec': {} } }], labels: { app: 'a' } },
      spec: { replicas: 1 },
    });
    const copy = cloneSharingManagedFields(obj);
    assert.deepEqual(copy, obj);
    assert.equal(copy.metadata?.managedFields, obj.metadata?.managedFields);
    assert.notEqual(copy.metadata, obj.metadata);
    assert.notEqual(copy['spec'], obj['spec']);
    assert.ok(!Object.isFrozen(copy.metadata) && !Object.isFrozen(copy.metadata?.labels) && !Object.isFrozen(copy['spec']));
    assert.deepEqual(Object.keys(copy.metadata ?? {}), ['name', 'managedFields', 'labels']);
  });

  test('an object without managedFields is copied whole, with no managedFields key added', () => {
    const obj = { metadata: { name: 'a' }, spec: {} } as KubeObject;
    const copy = cloneSharingManagedFields(obj);
    assert.deepEqual(Object.keys(copy.metadata ?? {}), ['name']);
    assert.notEqual(copy['spec'], obj['spec']);
  });
});
