/** The node lifecycle controller: node health, Unknown conditions, not-ready/unreachable taints, zone-rate-limited tainting. */
export {
  NodeLifecycleController,
  NODE_LIFECYCLE_DEFAULTS,
  NODE_EVICTION_PERIOD_MS,
  LABEL_NODE_EXCLUDE_DISRUPTION,
  getZoneKey,
  type NodeLifecycleControllerOptions,
  type ZoneState,
} from './node-lifecycle-controller.js';
export { RateLimitedTimedQueue, TokenBucket, EVICTION_RATE_LIMITER_BURST, type ActionFunc, type TimedValue } from './rate-limited-queue.js';
export {
  NOT_READY_TAINT,
  UNREACHABLE_TAINT,
  TAINT_NODE_NOT_READY,
  TAINT_NODE_UNREACHABLE,
  noScheduleTaintDiff,
  swapNodeControllerTaint,
  taintExists,
} from './taints.js';
