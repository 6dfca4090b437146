/**
 * The stabilization and policy arithmetic of behavior.ts, case by case, with the rules of upstream
 * horizontal.go (v1.33): strict "newer than the cutoff" windows, Percent rounding up on scale-up and
 * down on scale-down, Max/Min/Disabled selection, slots of old samples reused.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { HPAScalingRules } from 'kubernetes-types/autoscaling/v2.js';
import {
  calculateScaleDownLimitWithBehaviors,
  calculateScaleUpLimit,
  calculateScaleUpLimitWithScalingRules,
  convertDesiredReplicasWithBehaviorRate,
  convertDesiredReplicasWithRules,
  getLongestPolicyPeriod,
  stabilizeRecommendation,
  stabilizeRecommendationWithBehaviors,
  storeScaleEvent,
  type NormalizationArg,
  type TimestampedRecommendation,
  type TimestampedScaleEvent,
} from './behavior.js';

const NOW = Date.UTC(2025, 0, 1, 1, 0, 0);
const S = 1000;
const ev = (replicaChange: number, agoS: number): TimestampedScaleEvent => ({ replicaChange, timestamp: NOW - agoS * S, outdated: false });
const rec = (recommendation: number, agoS: number): TimestampedRecommendation => ({ recommendation, timestamp: NOW - agoS * S });
const pods = (value: number, periodSeconds = 60) => ({ type: 'Pods', value, periodSeconds });
const percent = (value: number, periodSeconds = 60) => ({ type: 'Percent', value, periodSeconds });
const UP_DEFAULT: HPAScalingRules = { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [pods(4, 15), percent(100, 15)] };
const DOWN_DEFAULT: HPAScalingRules = { stabilizationWindowSeconds: 300, selectPolicy: 'Max', policies: [percent(100, 15)] };

describe('without behavior', () => {
  test('the scale-up limit is max(2 × current, 4)', () => {
    assert.equal(calculateScaleUpLimit(1), 4);
    assert.equal(calculateScaleUpLimit(3), 6);
    assert.equal(calculateScaleUpLimit(0), 4);
  });

  test('convertDesiredReplicasWithRules: min, max and the scale-up limit with their reasons', () => {
    assert.deepEqual(convertDesiredReplicasWithRules(3, 5, 1, 10), { replicas: 5, reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' });
    assert.deepEqual(convertDesiredReplicasWithRules(3, 9, 1, 10), { replicas: 6, reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' });
    assert.deepEqual(convertDesiredReplicasWithRules(3, 9, 1, 5), { replicas: 5, reason: 'TooManyReplicas', message: 'the desired replica count is more than the maximum replica count' });
    assert.deepEqual(convertDesiredReplicasWithRules(3, 1, 2, 5), { replicas: 2, reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' });
  });

  test('stabilizeRecommendation: the highest recommendation of the window, old slots reused', () => {
    const recs = [rec(7, 400), rec(5, 200), rec(3, 100)];
    assert.equal(stabilizeRecommendation(recs, 2, 300 * S, NOW), 5, '7 is older than the window');
    assert.deepEqual(recs, [rec(2, 0), rec(5, 200), rec(3, 100)]);
    // A sample exactly at the cutoff still counts (upstream: only Before(cutoff) is old).
    assert.equal(stabilizeRecommendation([rec(9, 300)], 1, 300 * S, NOW), 9);
    assert.equal(stabilizeRecommendation([rec(9, 301)], 1, 300 * S, NOW), 1);
  });
});

describe('behavior', () => {
  const args = (over: Partial<NormalizationArg>): NormalizationArg => ({
    scaleUpBehavior: UP_DEFAULT,
    scaleDownBehavior: DOWN_DEFAULT,
    minReplicas: 1,
    maxReplicas: 100,
    currentReplicas: 5,
    desiredReplicas: 5,
    ...over,
  });

  test('stabilization: a scale-down is held by the highest recommendation of the scale-down window', () => {
    const recs = [rec(8, 200), rec(6, 100)];
    const r = stabilizeRecommendationWithBehaviors(args({ currentReplicas: 8, desiredReplicas: 2 }), recs, NOW);
    assert.deepEqual(r, { replicas: 8, reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' });
    assert.equal(recs.length, 3);
  });

  test('stabilization: a scale-up window takes the lowest recommendation of the window', () => {
    const up = { ...UP_DEFAULT, stabilizationWindowSeconds: 60 };
    const recs = [rec(4, 30), rec(9, 10)];
    const r = stabilizeRecommendationWithBehaviors(args({ scaleUpBehavior: up, currentReplicas: 3, desiredReplicas: 10 }), recs, NOW);
    assert.deepEqual(r, { replicas: 4, reason: 'ScaleUpStabilized', message: 'recent recommendations were lower than current one, applying the lowest recent recommendation' });
  });

  test('stabilization: a sample older than both windows has its slot reused', () => {
    const recs = [rec(50, 400), rec(6, 100)];
    const r = stabilizeRecommendationWithBehaviors(args({ currentReplicas: 6, desiredReplicas: 3 }), recs, NOW);
    assert.equal(r.replicas, 6);
    assert.deepEqual(recs, [rec(3, 0), rec(6, 100)]);
  });

  test('scale-up limit: Pods and Percent policies from the count at the start of each period', () => {
    const rules: HPAScalingRules = { selectPolicy: 'Max', policies: [pods(4), percent(100)] };
    assert.equal(calculateScaleUpLimitWithScalingRules(5, [], [], rules, NOW), 10);
    // 2 added 30 s ago: the period started at 3 → max(3 + 4, 6).
    assert.equal(calculateScaleUpLimitWithScalingRules(5, [ev(2, 30)], [], rules, NOW), 7);
    // A removal inside the period counts back up.
    assert.equal(calculateScaleUpLimitWithScalingRules(5, [], [ev(1, 30)], rules, NOW), 12);
    // Events older than the period are forgotten; one exactly a period old too (strictly newer counts).
    assert.equal(calculateScaleUpLimitWithScalingRules(5, [ev(2, 60), ev(2, 90)], [], rules, NOW), 10);
    assert.equal(calculateScaleUpLimitWithScalingRules(5, [], [], { ...rules, selectPolicy: 'Min' }, NOW), 9);
    assert.equal(calculateScaleUpLimitWithScalingRules(5, [], [], { ...rules, selectPolicy: 'Disabled' }, NOW), 5);
    // Percent rounds up: 10 % of 3 still adds one.
    assert.equal(calculateScaleUpLimitWithScalingRules(3, [], [], { policies: [percent(10)] }, NOW), 4);
  });

  test('scale-down limit: Max allows the biggest drop, Min the smallest, Percent rounds down', () => {
    const rules: HPAScalingRules = { selectPolicy: 'Max', policies: [percent(10), pods(5)] };
    assert.equal(calculateScaleDownLimitWithBehaviors(100, [], [], rules, NOW), 90);
    assert.equal(calculateScaleDownLimitWithBehaviors(100, [], [], { ...rules, selectPolicy: 'Min' }, NOW), 95);
    assert.equal(calculateScaleDownLimitWithBehaviors(100, [], [], { ...rules, selectPolicy: 'Disabled' }, NOW), 100);
    assert.equal(calculateScaleDownLimitWithBehaviors(10, [], [], { policies: [percent(15)] }, NOW), 8);
    // 1 removed 30 s ago: the period started at 11, 20 % of it may go: 11 × 0.8 = 8.8 → 8.
    assert.equal(calculateScaleDownLimitWithBehaviors(10, [], [ev(1, 30)], { policies: [percent(20)] }, NOW), 8);
  });

  test('convertDesiredReplicasWithBehaviorRate: reasons, and no scale below the current count after a burst', () => {
    assert.deepEqual(convertDesiredReplicasWithBehaviorRate(args({ currentReplicas: 5, desiredReplicas: 50 }), [], [], NOW), {
      replicas: 10,
      reason: 'ScaleUpLimit',
      message: 'the desired replica count is increasing faster than the maximum scale rate',
    });
    assert.deepEqual(convertDesiredReplicasWithBehaviorRate(args({ currentReplicas: 5, desiredReplicas: 50, maxReplicas: 8 }), [], [], NOW), {
      replicas: 8,
      reason: 'TooManyReplicas',
      message: 'the desired replica count is more than the maximum replica count',
    });
    // 20 added within the last 15 s: the policy limit (0 + 4, 0 × 2) is below the current count.
    const burst = [ev(20, 5)];
    assert.equal(convertDesiredReplicasWithBehaviorRate(args({ currentReplicas: 20, desiredReplicas: 40 }), burst, [], NOW).replicas, 20);
    assert.deepEqual(convertDesiredReplicasWithBehaviorRate(args({ currentReplicas: 10, desiredReplicas: 1, scaleDownBehavior: { policies: [pods(2)] } }), [], [], NOW), {
      replicas: 8,
      reason: 'ScaleDownLimit',
      message: 'the desired replica count is decreasing faster than the maximum scale rate',
    });
    assert.deepEqual(convertDesiredReplicasWithBehaviorRate(args({ currentReplicas: 10, desiredReplicas: 1, minReplicas: 3 }), [], [], NOW), {
      replicas: 3,
      reason: 'TooFewReplicas',
      message: 'the desired replica count is less than the minimum replica count',
    });
    assert.equal(convertDesiredReplicasWithBehaviorRate(args({ currentReplicas: 10, desiredReplicas: 12 }), [], [], NOW).reason, 'DesiredWithinRange');
  });

  test('storeScaleEvent: absolute changes; events older than the longest period are reused', () => {
    assert.equal(getLongestPolicyPeriod({ policies: [pods(1, 60), percent(1, 120), pods(1, 30)] }), 120);
    assert.equal(getLongestPolicyPeriod({ policies: [] }), 0);
    const events: TimestampedScaleEvent[] = [ev(3, 200), ev(2, 10)];
    storeScaleEvent(events, { policies: [pods(4, 60)] }, 10, 6, NOW);
    assert.deepEqual(events, [
      { replicaChange: 4, timestamp: NOW, outdated: false },
      { replicaChange: 2, timestamp: NOW - 10 * S, outdated: false },
    ]);
    storeScaleEvent(events, { policies: [pods(4, 60)] }, 6, 7, NOW);
    assert.equal(events.length, 3);
  });
});
