/** Ported from k8s.io/apimachinery pkg/util/managedfields/internal/typeconverter_test.go (v0.33.9) TestTypeConverter, plus type resolution. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ValidationErrors } from '../merge/index.js';
import { builtinTypeConverter, deducedTypeConverter, gvkString, parseGroupVersion } from './type-converter.js';
import { obj } from './testing/test-field-manager.js';

const deployment = (apiVersion: string): string => `
apiVersion: ${apiVersion}
kind: Deployment
metadata:
  name: nginx-deployment
  labels:
    app: nginx
spec:
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:1.15.4
`;
const pod = `
apiVersion: v1
kind: Pod
metadata:
  name: nginx-pod
  labels:
    app: nginx
spec:
  containers:
  - name: nginx
    image: nginx:1.15.4
`;

describe('typeconverter_test.go TestTypeConverter', () => {
  for (const [name, yaml] of [
    ['apps/v1.Deployment', deployment('apps/v1')],
    ['extensions/v1beta1.Deployment', deployment('extensions/v1beta1')],
    ['v1.Pod', pod],
  ] as const) {
    for (const [which, tc] of [
      ['TypeConverter', builtinTypeConverter()],
      ['DeducedTypeConverter', deducedTypeConverter()],
    ] as const) {
      it(`${name} ObjectToTyped with ${which}`, () => {
        const o = obj(yaml);
        assert.deepEqual(tc.typedToObject(tc.objectToTyped(o)), o);
      });
    }
  }
});

describe('type converter', () => {
  it('built-in kinds are typed by their schema, unknown kinds deduced', () => {
    const tc = builtinTypeConverter();
    assert.equal(tc.objectToTyped(obj(pod)).typeRef.namedType, 'io.k8s.api.core.v1.Pod');
    assert.equal(tc.objectToTyped({ apiVersion: 'example.com/v1', kind: 'Widget', spec: { x: [1] } }).typeRef.namedType, '__untyped_deduced_');
    assert.throws(() => tc.objectToTyped({ apiVersion: 'v1', kind: 'Pod', spec: { containers: 'no' } }), ValidationErrors);
  });

  it('typedToObject needs a map', () => {
    const tc = deducedTypeConverter();
    assert.throws(() => tc.typedToObject(tc.objectToTyped([] as never)), /failed to convert value to unstructured for type \[\]interface \{\}/);
  });

  it('group versions and kinds print as Go', () => {
    assert.deepEqual(parseGroupVersion('apps/v1'), { group: 'apps', version: 'v1' });
    assert.deepEqual(parseGroupVersion('v1'), { group: '', version: 'v1' });
    assert.equal(gvkString('apps/v1', 'Deployment'), 'apps/v1, Kind=Deployment');
    assert.equal(gvkString('v1', 'Pod'), '/v1, Kind=Pod');
  });
});
