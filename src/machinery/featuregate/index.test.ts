import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FeatureGate } from './index.js';

// Cases after k8s.io/component-base/featuregate/feature_gate_test.go TestFeatureGateFlag.
test('defaults are v1.33 defaults; Set parses Name=bool pairs', () => {
  const g = new FeatureGate();
  assert.equal(g.enabled('MaxUnavailableStatefulSet'), false);
  g.set('MaxUnavailableStatefulSet=true');
  assert.equal(g.enabled('MaxUnavailableStatefulSet'), true);
  g.set(' MaxUnavailableStatefulSet = F ,');
  assert.equal(g.enabled('MaxUnavailableStatefulSet'), false);
  assert.equal(g.toString(), 'MaxUnavailableStatefulSet=false');
  g.reset();
  assert.equal(g.toString(), '');
});

test('bad values are rejected with upstream messages and change nothing', () => {
  const g = new FeatureGate();
  assert.throws(() => g.set('MaxUnavailableStatefulSet'), { message: 'missing bool value for MaxUnavailableStatefulSet' });
  assert.throws(() => g.set('MaxUnavailableStatefulSet=yes'), {
    message: 'invalid value of MaxUnavailableStatefulSet=yes, err: strconv.ParseBool: parsing "yes": invalid syntax',
  });
  assert.throws(() => g.set('MaxUnavailableStatefulSet=true,Nope=true'), { message: 'unrecognized feature gate: Nope' });
  assert.equal(g.enabled('MaxUnavailableStatefulSet'), false);
});
