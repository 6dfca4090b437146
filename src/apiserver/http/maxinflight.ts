/**
 * Bounding the work in flight, as upstream's `WithMaxInFlightLimit`
 * (k8s.io/apiserver/pkg/server/filters/maxinflight.go) with `--max-requests-inflight` and
 * `--max-mutating-requests-inflight`: two separate budgets, read-only (get, list, watch) and mutating
 * (every other verb). A request that finds its budget spent is answered at once with 429
 * TooManyRequests and `Retry-After: 1` instead of queueing, so a flood cannot pile up work and
 * memory. Long-running requests (watches, logs, exec… see requestinfo.ts) are not counted.
 *
 * Unlike upstream, members of `system:masters` are not exempt: kubeplane's only identity is in that
 * group, so the exemption would switch the limit off (docs/adr/0007-max-inflight-no-masters-exemption.md).
 *
 * The filter also keeps upstream's watermark for `apiserver_current_inflight_requests`: the most
 * requests each budget held during the last whole second of its clock (maxinflight.go
 * `requestWatermark`, whose maintenance loop publishes and resets it every second).
 */
import { newTooManyRequests, type StatusError } from '../../machinery/errors/index.js';
import type { Clock } from '../../util/clock/index.js';
import type { InFlightWatermarks } from '../metrics/index.js';

/** `--max-requests-inflight` default (k8s.io/apiserver/pkg/server/config.go). */
export const DEFAULT_MAX_REQUESTS_INFLIGHT = 400;
/** `--max-mutating-requests-inflight` default (same place). */
export const DEFAULT_MAX_MUTATING_REQUESTS_INFLIGHT = 200;
/** maxinflight.go `retryAfter`, in seconds. */
export const MAX_INFLIGHT_RETRY_AFTER_SECONDS = 1;

/**
 * The rejection: 429 `Too many requests, please try again later.` (the text upstream's `tooManyRequests`
 * writes) with `details.retryAfterSeconds: 1`, from which the response gets `Retry-After: 1`.
 */
export function newTooManyRequestsInFlight(): StatusError {
  return newTooManyRequests('Too many requests, please try again later.', MAX_INFLIGHT_RETRY_AFTER_SECONDS);
}

/** Requests being served, per budget. */
export interface InFlightCounts {
  readOnly: number;
  mutating: number;
}

/** The two budgets. A limit of 0 means unlimited (the requests are still counted). */
export class MaxInFlightLimit implements InFlightWatermarks {
  private readonly counts: InFlightCounts = { readOnly: 0, mutating: 0 };
  private idleWaiters: (() => void)[] = [];
  /** The second (of the clock) the watermark is being kept for, the most held in it so far, and in the second before. */
  private second = -Infinity;
  private secondMax: InFlightCounts = { readOnly: 0, mutating: 0 };
  private lastSecondMax: InFlightCounts = { readOnly: 0, mutating: 0 };

  /**
   * @param limits the read-only and mutating limits; 0 disables one.
   * @param clock whose seconds the watermark is kept for; none: no watermark.
   */
  constructor(
    private readonly limits: InFlightCounts,
    private readonly clock?: Clock,
  ) {
    if (limits.readOnly < 0 || limits.mutating < 0) throw new RangeError('max in-flight limits can not be negative');
  }

  /**
   * Takes a slot of the mutating or read-only budget. Returns the function that gives it back (calling
   * it more than once is harmless), or undefined when the budget is spent.
   */
  tryAcquire(mutating: boolean): (() => void) | undefined {
    const budget: keyof InFlightCounts = mutating ? 'mutating' : 'readOnly';
    const limit = this.limits[budget];
    if (limit > 0 && this.counts[budget] >= limit) return undefined;
    this.advanceSecond();
    this.counts[budget]++;
    this.recordWatermark(budget);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.advanceSecond();
      this.counts[budget]--;
      // Upstream notes the level after a release too: both states contribute to the sampled stats.
      this.recordWatermark(budget);
      if (this.counts.readOnly === 0 && this.counts.mutating === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    };
  }

  /** Moves the watermark to the current second of the clock, when it has moved on. */
  private advanceSecond(): void {
    if (!this.clock) return;
    const second = Math.floor(this.clock.now() / 1000);
    if (second === this.second) return;
    // The second that just ended was seen whole only if it is the one before; after idle seconds the
    // last whole second held what is held now.
    this.lastSecondMax = second === this.second + 1 ? this.secondMax : { ...this.counts };
    this.secondMax = { ...this.counts };
    this.second = second;
  }

  /** Notes the level of `budget` in the current second (after {@link advanceSecond}). */
  private recordWatermark(budget: keyof InFlightCounts): void {
    if (this.counts[budget] > this.secondMax[budget]) this.secondMax[budget] = this.counts[budget];
  }

  /**
   * The most requests each budget held during the last whole second (upstream's published watermark;
   * zeros without a clock).
   */
  watermarks(): InFlightCounts {
    this.advanceSecond();
    return { ...this.lastSecondMax };
  }

  /** The requests holding a slot now. */
  inFlight(): InFlightCounts {
    return { ...this.counts };
  }

  /** Resolves once no request holds a slot (at once when none does): for tests and graceful stops. */
  whenIdle(): Promise<void> {
    if (this.counts.readOnly === 0 && this.counts.mutating === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }
}
