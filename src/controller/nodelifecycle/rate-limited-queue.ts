/**
 * The per-zone queue the node lifecycle controller taints nodes from, rate limited so a zone losing
 * many nodes at once is tainted (and so evicted) a node at a time.
 *
 * Follows kubernetes/kubernetes pkg/controller/nodelifecycle/scheduler/rate_limited_queue.go
 * (`UniqueQueue`, `RateLimitedTimedQueue`, `EvictionRateLimiterBurst = 1`) and the token bucket of
 * client-go util/flowcontrol (`NewTokenBucketRateLimiter`, `NewFakeNeverRateLimiter`), on the Clock.
 */
import type { Clock } from '../../util/clock/index.js';

/** Tokens a zone's bucket holds at most (upstream `EvictionRateLimiterBurst`). */
export const EVICTION_RATE_LIMITER_BURST = 1;

/**
 * A token bucket: `qps` tokens a second up to `burst`, starting full (golang.org/x/time/rate, which
 * flowcontrol's token bucket wraps). `qps <= 0` never accepts (`NewFakeNeverRateLimiter`).
 */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    readonly qps: number,
    private readonly burst: number,
    private readonly clock: Clock,
  ) {
    this.tokens = burst;
    this.last = clock.now();
  }

  /** Takes a token if one is available now (`TryAccept`). */
  tryAccept(): boolean {
    if (this.qps <= 0) return false;
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/** One queued node: its name and uid, when it was added and when it may be processed (ms). */
export interface TimedValue {
  value: string;
  uid: string;
  addedAt: number;
  processAt: number;
}

/**
 * What {@link RateLimitedTimedQueue.try} calls for the head: `[true]` removes it from the queue (it
 * stays in the set, so adding it again is refused until {@link RateLimitedTimedQueue.remove}),
 * `[false, waitMs]` retries it after `waitMs`.
 */
export type ActionFunc = (value: TimedValue) => [done: boolean, waitMs: number];

/**
 * A queue of unique node names ordered by `processAt`, worked through by {@link try} at most as fast
 * as its token bucket allows. A name stays "known" after it was processed (`RemoveFromQueue` keeps
 * the set): that is what stops a tainted node from being queued again on every monitor pass.
 */
export class RateLimitedTimedQueue {
  private readonly queued: TimedValue[] = [];
  private readonly known = new Set<string>();
  private limiter: TokenBucket;

  constructor(
    qps: number,
    private readonly clock: Clock,
  ) {
    this.limiter = new TokenBucket(qps, EVICTION_RATE_LIMITER_BURST, clock);
  }

  /** The current rate, tokens a second (0: processing stopped). */
  qps(): number {
    return this.limiter.qps;
  }

  /** Queues `value` to be processed now; false when it is already known. */
  add(value: string, uid: string): boolean {
    if (this.known.has(value)) return false;
    const now = this.clock.now();
    this.known.add(value);
    this.push({ value, uid, addedAt: now, processAt: now });
    return true;
  }

  /** Forgets `value` (queue and set); true if it was known. */
  remove(value: string): boolean {
    const i = this.queued.findIndex((v) => v.value === value);
    if (i >= 0) this.queued.splice(i, 1);
    return this.known.delete(value);
  }

  /** Names waiting to be processed, head first (for tests and status). */
  pending(): string[] {
    return this.queued.map((v) => v.value);
  }

  /** Forgets everything (`Clear`). */
  clear(): void {
    this.queued.length = 0;
    this.known.clear();
  }

  /**
   * Processes due heads while the bucket has tokens (`Try`): a token is spent per head looked at,
   * even one not yet due, as upstream does.
   */
  try(fn: ActionFunc): void {
    let head = this.queued[0];
    while (head) {
      if (!this.limiter.tryAccept()) break;
      const now = this.clock.now();
      if (now < head.processAt) break;
      this.queued.shift();
      const [done, waitMs] = fn(head);
      if (!done) this.push({ ...head, processAt: now + waitMs + 1 });
      head = this.queued[0];
    }
  }

  /**
   * Replaces the rate (`SwapLimiter`). A bucket that is empty now hands its debt on to the new one,
   * so swapping does not grant a free token (upstream drains the new limiter when the old one would
   * refuse).
   */
  swapLimiter(qps: number): void {
    if (this.limiter.qps === qps) return;
    const next = new TokenBucket(qps, EVICTION_RATE_LIMITER_BURST, this.clock);
    if (qps > 0 && !this.limiter.tryAccept()) next.tryAccept();
    this.limiter = next;
  }

  private push(v: TimedValue): void {
    let i = this.queued.length;
    while (i > 0 && (this.queued[i - 1] as TimedValue).processAt > v.processAt) i--;
    this.queued.splice(i, 0, v);
  }
}
