/**
 * From a metric's proposal to the replica count the HPA sets: stabilization windows, scaling
 * policies and min/max limits (kubernetes/kubernetes pkg/controller/podautoscaler/horizontal.go,
 * v1.33: `stabilizeRecommendation`, `convertDesiredReplicasWithRules`,
 * `stabilizeRecommendationWithBehaviors`, `convertDesiredReplicasWithBehaviorRate`,
 * `calculateScaleUpLimitWithScalingRules`, `calculateScaleDownLimitWithBehaviors`, `storeScaleEvent`).
 *
 * The history these need — recent recommendations and recent scale events — lives in the
 * controller's memory, as upstream's does (lost on restart). Every function here takes the history
 * arrays and the current time (ms) explicitly, so it can be tested without a controller.
 */
import type { HPAScalingRules } from 'kubernetes-types/autoscaling/v2.js';

/** upstream `scaleUpLimitFactor` / `scaleUpLimitMinimum`: without `behavior`, at most max(2 × current, 4). */
const SCALE_UP_LIMIT_FACTOR = 2;
const SCALE_UP_LIMIT_MINIMUM = 4;

/** A recommendation (unstabilized desired replicas) and when it was made (ms). */
export interface TimestampedRecommendation {
  recommendation: number;
  timestamp: number;
}

/** A rescale: how many replicas it added (up events) or removed (down events), when (ms), and whether its slot may be reused. */
export interface TimestampedScaleEvent {
  replicaChange: number;
  timestamp: number;
  outdated: boolean;
}

/** A limit decision: the replicas and the ScalingLimited reason and message. */
export interface LimitedReplicas {
  replicas: number;
  reason: string;
  message: string;
}

const WITHIN_RANGE = { reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' } as const;
const SCALE_UP_LIMIT = { reason: 'ScaleUpLimit', message: 'the desired replica count is increasing faster than the maximum scale rate' } as const;
const SCALE_DOWN_LIMIT = { reason: 'ScaleDownLimit', message: 'the desired replica count is decreasing faster than the maximum scale rate' } as const;
const TOO_MANY = { reason: 'TooManyReplicas', message: 'the desired replica count is more than the maximum replica count' } as const;
const TOO_FEW = { reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' } as const;

/**
 * upstream `stabilizeRecommendation` (no `behavior`): the highest recommendation of the last
 * `windowMs` (the downscale stabilization) including `desired`; records `desired`, reusing the slot
 * of a sample older than the window. Mutates `recs`.
 */
export function stabilizeRecommendation(recs: TimestampedRecommendation[], desired: number, windowMs: number, now: number): number {
  let max = desired;
  let oldIndex = -1;
  const cutoff = now - windowMs;
  recs.forEach((rec, i) => {
    if (rec.timestamp < cutoff) oldIndex = i;
    else if (rec.recommendation > max) max = rec.recommendation;
  });
  const entry = { recommendation: desired, timestamp: now };
  if (oldIndex >= 0) recs[oldIndex] = entry;
  else recs.push(entry);
  return max;
}

/**
 * upstream `calculateScaleUpLimit`: without `behavior`, a scale-up goes at most to
 * max(2 × current, 4) at once (a guard against bogus usage reports, upstream issue #32304).
 */
export function calculateScaleUpLimit(currentReplicas: number): number {
  return Math.trunc(Math.max(SCALE_UP_LIMIT_FACTOR * currentReplicas, SCALE_UP_LIMIT_MINIMUM));
}

/** upstream `convertDesiredReplicasWithRules`: clamps to [min, min(max, scale-up limit)] with the ScalingLimited reason. */
export function convertDesiredReplicasWithRules(currentReplicas: number, desiredReplicas: number, hpaMinReplicas: number, hpaMaxReplicas: number): LimitedReplicas {
  const scaleUpLimit = calculateScaleUpLimit(currentReplicas);
  const [maximumAllowedReplicas, limit] = hpaMaxReplicas > scaleUpLimit ? [scaleUpLimit, SCALE_UP_LIMIT] : [hpaMaxReplicas, TOO_MANY];
  if (desiredReplicas < hpaMinReplicas) return { replicas: hpaMinReplicas, ...TOO_FEW };
  if (desiredReplicas > maximumAllowedReplicas) return { replicas: maximumAllowedReplicas, ...limit };
  return { replicas: desiredReplicas, ...WITHIN_RANGE };
}

/** What the behavior functions need of one HPA (upstream `NormalizationArg`). */
export interface NormalizationArg {
  /** Fully defaulted rules (the API server defaults them; the controller fills a missing scale-down window). */
  scaleUpBehavior: HPAScalingRules;
  scaleDownBehavior: HPAScalingRules;
  minReplicas: number;
  maxReplicas: number;
  currentReplicas: number;
  desiredReplicas: number;
}

/**
 * upstream `stabilizeRecommendationWithBehaviors`: the lowest recommendation within the scale-up
 * window and the highest within the scale-down window bound the current count; records `desired`,
 * reusing the slot of a sample older than both windows. Mutates `recs`. Returns the stabilized count
 * and the AbleToScale reason/message to use when it differs from `desired`.
 */
export function stabilizeRecommendationWithBehaviors(args: NormalizationArg, recs: TimestampedRecommendation[], now: number): LimitedReplicas {
  let upRecommendation = args.desiredReplicas;
  const upCutoff = now - (args.scaleUpBehavior.stabilizationWindowSeconds ?? 0) * 1000;
  let downRecommendation = args.desiredReplicas;
  const downCutoff = now - (args.scaleDownBehavior.stabilizationWindowSeconds ?? 0) * 1000;
  let oldIndex = -1;
  recs.forEach((rec, i) => {
    if (rec.timestamp > upCutoff) upRecommendation = Math.min(rec.recommendation, upRecommendation);
    if (rec.timestamp > downCutoff) downRecommendation = Math.max(rec.recommendation, downRecommendation);
    if (rec.timestamp < upCutoff && rec.timestamp < downCutoff) oldIndex = i;
  });
  let recommendation = args.currentReplicas;
  if (recommendation < upRecommendation) recommendation = upRecommendation;
  if (recommendation > downRecommendation) recommendation = downRecommendation;
  const entry = { recommendation: args.desiredReplicas, timestamp: now };
  if (oldIndex >= 0) recs[oldIndex] = entry;
  else recs.push(entry);
  if (args.desiredReplicas >= args.currentReplicas) {
    return { replicas: recommendation, reason: 'ScaleUpStabilized', message: 'recent recommendations were lower than current one, applying the lowest recent recommendation' };
  }
  return { replicas: recommendation, reason: 'ScaleDownStabilized', message: 'recent recommendations were higher than current one, applying the highest recent recommendation' };
}

/** upstream `getReplicasChangePerPeriod`: the replicas changed by events newer than `periodSeconds` ago. */
export function getReplicasChangePerPeriod(periodSeconds: number, events: readonly TimestampedScaleEvent[], now: number): number {
  const cutoff = now - periodSeconds * 1000;
  let replicas = 0;
  for (const e of events) if (e.timestamp > cutoff) replicas += e.replicaChange;
  return replicas;
}

/**
 * upstream `calculateScaleUpLimitWithScalingRules`: the most replicas the policies allow now. Each
 * policy starts from the count at the beginning of its period (current − added + removed); Pods adds
 * its value, Percent multiplies by 1 + value/100 rounded up; `Max` takes the largest, `Min` the
 * smallest; `Disabled` allows no scale-up.
 */
export function calculateScaleUpLimitWithScalingRules(currentReplicas: number, upEvents: readonly TimestampedScaleEvent[], downEvents: readonly TimestampedScaleEvent[], rules: HPAScalingRules, now: number): number {
  if (rules.selectPolicy === 'Disabled') return currentReplicas;
  const pickMin = rules.selectPolicy === 'Min';
  let result = pickMin ? Infinity : -Infinity;
  for (const policy of rules.policies ?? []) {
    const periodStartReplicas = currentReplicas - getReplicasChangePerPeriod(policy.periodSeconds, upEvents, now) + getReplicasChangePerPeriod(policy.periodSeconds, downEvents, now);
    let proposed = 0;
    // Rounded up: a small percentage of a small count must still be able to add a pod.
    if (policy.type === 'Pods') proposed = periodStartReplicas + policy.value;
    else if (policy.type === 'Percent') proposed = Math.ceil(periodStartReplicas * (1 + policy.value / 100));
    result = pickMin ? Math.min(result, proposed) : Math.max(result, proposed);
  }
  return result;
}

/**
 * upstream `calculateScaleDownLimitWithBehaviors`: the fewest replicas the policies allow now (Pods
 * subtracts, Percent multiplies by 1 − value/100 truncated); `Max` allows the biggest change (the
 * smallest count), `Min` the smallest; `Disabled` allows no scale-down.
 */
export function calculateScaleDownLimitWithBehaviors(currentReplicas: number, upEvents: readonly TimestampedScaleEvent[], downEvents: readonly TimestampedScaleEvent[], rules: HPAScalingRules, now: number): number {
  if (rules.selectPolicy === 'Disabled') return currentReplicas;
  const pickMin = rules.selectPolicy !== 'Min';
  let result = pickMin ? Infinity : -Infinity;
  for (const policy of rules.policies ?? []) {
    const periodStartReplicas = currentReplicas - getReplicasChangePerPeriod(policy.periodSeconds, upEvents, now) + getReplicasChangePerPeriod(policy.periodSeconds, downEvents, now);
    let proposed = 0;
    if (policy.type === 'Pods') proposed = periodStartReplicas - policy.value;
    else if (policy.type === 'Percent') proposed = Math.trunc(periodStartReplicas * (1 - policy.value / 100));
    result = pickMin ? Math.min(result, proposed) : Math.max(result, proposed);
  }
  return result;
}

/**
 * upstream `convertDesiredReplicasWithBehaviorRate`: limits a stabilized recommendation by the
 * scaling policies (given the recent scale events) and by min/max, with the ScalingLimited reason.
 */
export function convertDesiredReplicasWithBehaviorRate(args: NormalizationArg, upEvents: readonly TimestampedScaleEvent[], downEvents: readonly TimestampedScaleEvent[], now: number): LimitedReplicas {
  if (args.desiredReplicas > args.currentReplicas) {
    // Never below the current count: past events only stop further scale-ups until they age out.
    const scaleUpLimit = Math.max(args.currentReplicas, calculateScaleUpLimitWithScalingRules(args.currentReplicas, upEvents, downEvents, args.scaleUpBehavior, now));
    const [maximumAllowedReplicas, limit] = args.maxReplicas > scaleUpLimit ? [scaleUpLimit, SCALE_UP_LIMIT] : [args.maxReplicas, TOO_MANY];
    if (args.desiredReplicas > maximumAllowedReplicas) return { replicas: maximumAllowedReplicas, ...limit };
  } else if (args.desiredReplicas < args.currentReplicas) {
    const scaleDownLimit = Math.min(args.currentReplicas, calculateScaleDownLimitWithBehaviors(args.currentReplicas, upEvents, downEvents, args.scaleDownBehavior, now));
    const [minimumAllowedReplicas, limit] = args.minReplicas < scaleDownLimit ? [scaleDownLimit, SCALE_DOWN_LIMIT] : [args.minReplicas, TOO_FEW];
    if (args.desiredReplicas < minimumAllowedReplicas) return { replicas: minimumAllowedReplicas, ...limit };
  }
  return { replicas: args.desiredReplicas, ...WITHIN_RANGE };
}

/** upstream `getLongestPolicyPeriod`, seconds. */
export function getLongestPolicyPeriod(rules: HPAScalingRules | undefined): number {
  let longest = 0;
  for (const p of rules?.policies ?? []) if (p.periodSeconds > longest) longest = p.periodSeconds;
  return longest;
}

/** upstream `markScaleEventsOutdated`: events older than the longest policy period may have their slot reused. */
export function markScaleEventsOutdated(events: TimestampedScaleEvent[], longestPolicyPeriodSeconds: number, now: number): void {
  const cutoff = now - longestPolicyPeriodSeconds * 1000;
  for (const e of events) if (e.timestamp < cutoff) e.outdated = true;
}

/**
 * upstream `storeScaleEvent`: records a rescale from `prevReplicas` to `newReplicas` in `events` (the
 * up events for a scale-up, the down events otherwise), reusing the slot of the last outdated event.
 * Mutates `events`.
 */
export function storeScaleEvent(events: TimestampedScaleEvent[], rules: HPAScalingRules | undefined, prevReplicas: number, newReplicas: number, now: number): void {
  markScaleEventsOutdated(events, getLongestPolicyPeriod(rules), now);
  let oldIndex = -1;
  events.forEach((e, i) => {
    if (e.outdated) oldIndex = i;
  });
  const entry = { replicaChange: Math.abs(newReplicas - prevReplicas), timestamp: now, outdated: false };
  if (oldIndex >= 0) events[oldIndex] = entry;
  else events.push(entry);
}
