/** Ported from k8s.io/apimachinery pkg/util/managedfields/internal/lastappliedupdater_test.go (v0.33.9). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../api/index.js';
import { LAST_APPLIED_CONFIG_ANNOTATION, LastAppliedUpdater } from './last-applied.js';
import { obj, TestFieldManager } from './testing/test-field-manager.js';

function lastApplied(o: KubeObject): string | undefined {
  return o.metadata?.annotations?.[LAST_APPLIED_CONFIG_ANNOTATION];
}

const key = (i: number): string => `this-key-is-very-long-so-as-to-create-a-very-large-serialized-fieldset-${i}`;

function configMap(dataKeys: number, annotationKeys: number): KubeObject {
  const o = obj('{"metadata": {"name": "large-update-test-cm", "namespace": "default", "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "nonempty"}}, "apiVersion": "v1", "kind": "ConfigMap", "data": {"k": "v"}}');
  const data = o.data as Record<string, string>;
  const annotations = o.metadata?.annotations as Record<string, string>;
  for (let i = 0; i < dataKeys; i++) data[key(i)] = 'A';
  for (let i = 0; i < annotationKeys; i++) annotations[key(i)] = 'A';
  return o;
}

describe('lastappliedupdater_test.go', () => {
  it('TestLastAppliedUpdater', () => {
    const f = new TestFieldManager('apps/v1', 'Deployment', { chain: (m) => new LastAppliedUpdater(m) });
    const applied = obj(`
apiVersion: apps/v1
kind: Deployment
metadata:
  name: my-deployment
  annotations:
    "kubectl.kubernetes.io/last-applied-configuration": "nonempty"
  labels:
    app: my-app
spec:
  replicas: 20
  selector:
    matchLabels:
      app: my-app
  template:
    metadata:
      labels:
        app: my-app
    spec:
      containers:
      - name: my-c
        image: my-image
`);
    f.apply(applied, 'NOT-KUBECTL', false);
    assert.equal(lastApplied(f.live()), 'nonempty');
    f.apply(applied, 'kubectl', false);
    const value = lastApplied(f.live()) ?? '';
    assert.notEqual(value, 'nonempty');
    assert.match(value, /my-app/);
    assert.match(value, /my-image/);
    assert.ok(!value.includes('nonempty'), 'the annotation is not in its own value');
  });

  for (const [name, oldObject, newObject] of [
    ['old object + new object last-applied annotation is too big', configMap(0, 0), configMap(9999, 0)],
    ['old object + new object annotations + new object last-applied annotation is too big', configMap(2000, 0), configMap(2000, 2000)],
  ] as const) {
    it(`TestLargeLastApplied ${name}`, () => {
      const f = new TestFieldManager('v1', 'ConfigMap', { chain: (m) => new LastAppliedUpdater(m) });
      f.apply(oldObject, 'kubectl', false);
      const value = lastApplied(f.live());
      assert.ok(value !== undefined && value !== '' && value !== 'nonempty');
      f.apply(newObject, 'kubectl', false);
      assert.ok(f.live().metadata?.annotations !== undefined);
      assert.equal(lastApplied(f.live()), undefined);
    });
  }
});
