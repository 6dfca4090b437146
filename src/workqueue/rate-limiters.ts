/**
 * Rate limiters: how long an item waits before it is retried (client-go
 * util/workqueue/default_rate_limiters.go). All durations are in **milliseconds**.
 */
import type { Clock } from '../util/clock/index.js';

/** Decides the delay of each retry of an item. */
export interface RateLimiter<T> {
  /** The delay (ms) before `item` may be processed again; counts as one more failure of it. */
  when(item: T): number;
  /** Stops tracking `item` (it succeeded): its next failure starts from the base delay again. */
  forget(item: T): void;
  /** How many times `item` has been requeued through {@link RateLimiter.when} since it was last forgotten. */
  numRequeues(item: T): number;
}

/**
 * Per-item exponential backoff: the n-th failure (counting from 0) of an item waits `baseMs * 2^n`,
 * capped at `maxMs` (ItemExponentialFailureRateLimiter). With base 5 ms and max 1000 s:
 * 5, 10, 20, 40, … ms; the 19th failure in a row is the first capped (5 ms · 2^18 ≈ 1311 s > 1000 s).
 */
export function itemExponentialFailureRateLimiter<T>(baseMs: number, maxMs: number): RateLimiter<T> {
  const failures = new Map<T, number>();
  return {
    when(item) {
      const exp = failures.get(item) ?? 0;
      failures.set(item, exp + 1);
      const backoff = baseMs * 2 ** exp;
      // 2^exp overflows to Infinity after ~1024 failures; the cap covers that too.
      return backoff > maxMs ? maxMs : backoff;
    },
    forget(item) {
      failures.delete(item);
    },
    numRequeues(item) {
      return failures.get(item) ?? 0;
    },
  };
}

/**
 * An overall token bucket shared by all items (BucketRateLimiter over golang.org/x/time/rate): the
 * bucket holds up to `burst` tokens, refills at `qps` tokens per second of `clock` time, and every
 * call takes one token, going negative (a reservation) when empty. The delay is the time until the
 * taken token exists. With qps 10 and burst 100, at one instant: calls 1–100 wait 0 ms, call 101
 * waits 100 ms, call 102 waits 200 ms. It tracks no items: forget is a no-op and numRequeues is 0.
 */
export function bucketRateLimiter<T>(qps: number, burst: number, clock: Clock): RateLimiter<T> {
  let tokens = burst;
  let last = clock.now();
  return {
    when() {
      const now = clock.now();
      // Refill for the time elapsed since the last reservation, up to the bucket size.
      if (now > last) tokens = Math.min(burst, tokens + ((now - last) * qps) / 1000);
      last = Math.max(last, now);
      tokens -= 1;
      return tokens < 0 ? (-tokens * 1000) / qps : 0;
    },
    forget() {},
    numRequeues() {
      return 0;
    },
  };
}

/** The longest delay of several limiters; every limiter sees every call (MaxOfRateLimiter). */
export function maxOfRateLimiter<T>(...limiters: RateLimiter<T>[]): RateLimiter<T> {
  return {
    when(item) {
      let max = 0;
      for (const l of limiters) max = Math.max(max, l.when(item));
      return max;
    },
    forget(item) {
      for (const l of limiters) l.forget(item);
    },
    numRequeues(item) {
      let max = 0;
      for (const l of limiters) max = Math.max(max, l.numRequeues(item));
      return max;
    },
  };
}

/**
 * Upstream's default for controllers (DefaultControllerRateLimiter): the larger of per-item
 * exponential backoff 5 ms → 1000 s and an overall bucket of 10 qps with burst 100.
 */
export function defaultControllerRateLimiter<T>(clock: Clock): RateLimiter<T> {
  return maxOfRateLimiter<T>(itemExponentialFailureRateLimiter<T>(5, 1000 * 1000), bucketRateLimiter<T>(10, 100, clock));
}
