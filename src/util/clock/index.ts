/**
 * Time, for everything in kubeplane. Nothing outside this module reads the wall clock or schedules a
 * timer directly (DESIGN.md: "Time comes only from a Clock"); components take a {@link Clock} in their
 * options, tests pass a {@link FakeClock} and step it.
 *
 * Units: every duration and instant here is in **milliseconds** (instants are milliseconds since the
 * Unix epoch, like `Date.now()`).
 *
 * Follows k8s.io/utils/clock (`Clock`, `PassiveClock`) and its testing `FakeClock`, whose `Step(d)`
 * fires every timer whose target time has passed, in target-time order.
 */
import { handleCrash } from '../runtime/index.js';

/** A scheduled callback; {@link Timer.stop} cancels it. */
export interface Timer {
  /** Cancels the timer. Returns true if it had not fired yet. */
  stop(): boolean;
}

/** The source of time for one component. */
export interface Clock {
  /** Current instant in milliseconds since the epoch. */
  now(): number;
  /** Milliseconds elapsed since `t` (an instant from {@link Clock.now}). */
  since(t: number): number;
  /**
   * A reading in milliseconds with sub-millisecond precision, for measuring short durations (metrics):
   * only the difference of two readings means anything. The real clock reads the monotonic
   * `performance.now()`; a {@link FakeClock} returns {@link Clock.now}, so durations measured under
   * test are exact.
   */
  monotonic(): number;
  /** Calls `fn` once, `delayMs` milliseconds from now (0 or negative: on the next turn of the loop). */
  setTimer(delayMs: number, fn: () => void): Timer;
  /** Resolves after `delayMs` milliseconds of this clock's time. */
  sleep(delayMs: number): Promise<void>;
}

/** The longest delay `setTimeout` honours (2^31 − 1 ms); it fires at once for longer ones. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** The real clock, backed by `Date.now()` and `setTimeout`. */
export class RealClock implements Clock {
  now(): number {
    return Date.now();
  }

  since(t: number): number {
    return Date.now() - t;
  }

  monotonic(): number {
    return performance.now();
  }

  setTimer(delayMs: number, fn: () => void): Timer {
    let fired = false;
    let handle: NodeJS.Timeout;
    const due = Date.now() + Math.max(0, delayMs);
    // setTimeout fires at once for delays above 2^31 − 1 ms (24.8 days); longer ones are re-armed.
    const arm = (): void => {
      handle = setTimeout(() => {
        if (Date.now() < due) {
          arm();
          return;
        }
        fired = true;
        // A throwing callback is a bug, but it must not end the process (util/runtime HandleCrash).
        handleCrash(fn, { component: 'timer', msg: 'Timer callback failed' });
      }, Math.min(MAX_TIMEOUT_MS, Math.max(0, due - Date.now())));
      // Timers must never keep the process alive on their own: the servers and signal handlers do that.
      handle.unref();
    };
    arm();
    return {
      stop: () => {
        clearTimeout(handle);
        return !fired;
      },
    };
  }

  sleep(delayMs: number): Promise<void> {
    return new Promise((resolve) => this.setTimer(delayMs, resolve));
  }
}

/** The process-wide real clock. */
export const realClock: Clock = new RealClock();

/**
 * Resolves after `ms` of `clock` time (at once for `ms` ≤ 0), or as soon as `signal` aborts, whichever
 * comes first; the timer is stopped on abort. For loops that wait between attempts and must stop at
 * once (leader election, the volume binder's wait).
 */
export function sleepUnlessAborted(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const onAbort = (): void => {
      timer.stop();
      resolve();
    };
    const timer = clock.setTimer(ms, () => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Keeps the process running until the returned function is called. The Clock's timers never keep a
 * process alive (see {@link RealClock.setTimer}); a process whose only work is waiting on them — a
 * controller manager waiting for its leader Lease, with no server and no open watch — would exit
 * while it waits. Holds one idle, referenced interval.
 */
export function holdProcessOpen(): () => void {
  const handle = setInterval(() => undefined, MAX_TIMEOUT_MS);
  return () => clearInterval(handle);
}

interface FakeTimer {
  at: number;
  seq: number;
  fn: () => void;
  active: boolean;
}

/**
 * A clock that only moves when told to. `step(ms)` advances time and fires every due timer in order
 * of target time (ties in creation order); a timer set by a firing callback for a time that is still
 * within the step fires in the same step. Callbacks run synchronously; use {@link FakeClock.stepAsync}
 * to let promise continuations run between timers.
 */
export class FakeClock implements Clock {
  private current: number;
  private seq = 0;
  private timers: FakeTimer[] = [];

  /** @param start initial instant in ms since the epoch (default 2025-01-01T00:00:00Z). */
  constructor(start = Date.UTC(2025, 0, 1)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  since(t: number): number {
    return this.current - t;
  }

  monotonic(): number {
    return this.current;
  }

  setTimer(delayMs: number, fn: () => void): Timer {
    const timer: FakeTimer = { at: this.current + Math.max(0, delayMs), seq: this.seq++, fn, active: true };
    this.timers.push(timer);
    return {
      stop: () => {
        const wasActive = timer.active;
        timer.active = false;
        this.timers = this.timers.filter((t) => t !== timer);
        return wasActive;
      },
    };
  }

  sleep(delayMs: number): Promise<void> {
    return new Promise((resolve) => this.setTimer(delayMs, resolve));
  }

  /** Number of timers waiting to fire. */
  pendingTimers(): number {
    return this.timers.length;
  }

  /** Target instant of the earliest waiting timer, or undefined when none waits. */
  nextTimerAt(): number | undefined {
    let min: number | undefined;
    for (const t of this.timers) if (min === undefined || t.at < min) min = t.at;
    return min;
  }

  /** Sets the time (must not go backwards) and fires the due timers. */
  setTime(t: number): void {
    if (t < this.current) throw new Error(`FakeClock cannot go backwards: ${t} < ${this.current}`);
    this.step(t - this.current);
  }

  /** Advances time by `ms` and fires every timer due by then, synchronously, in order. */
  step(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      const next = this.popDue(target);
      if (!next) break;
      this.current = next.at;
      next.fn();
    }
    this.current = target;
  }

  /**
   * Like {@link FakeClock.step}, but lets pending promise continuations and I/O callbacks run after
   * each fired timer (and once before starting), so async code that awaits `sleep` makes progress.
   */
  async stepAsync(ms: number): Promise<void> {
    const target = this.current + ms;
    await flushAsync();
    for (;;) {
      const next = this.popDue(target);
      if (!next) break;
      this.current = next.at;
      next.fn();
      await flushAsync();
    }
    this.current = target;
    await flushAsync();
  }

  private popDue(target: number): FakeTimer | undefined {
    let best: FakeTimer | undefined;
    for (const t of this.timers) {
      if (t.at > target) continue;
      if (!best || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
    }
    if (best) {
      best.active = false;
      this.timers = this.timers.filter((t) => t !== best);
    }
    return best;
  }
}

/** Lets every queued microtask and immediate run (used by tests and {@link FakeClock.stepAsync}). */
export async function flushAsync(rounds = 3): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/**
 * RFC 3339 has four-digit years: instants are clamped to 0000-01-01T00:00:00Z … 9999-12-31T23:59:59Z
 * (Go's Time.MarshalJSON fails outside them), so that e.g. a deletion deadline `now + a grace period
 * of 2^62 s` still formats instead of throwing.
 */
/** 0000-01-01T00:00:00Z (Date.UTC maps years 0–99 to 1900–1999). */
const MIN_TIME_MS = -62_167_219_200_000;
const MAX_TIME_MS = Date.UTC(9999, 11, 31, 23, 59, 59);

function clampInstant(ms: number): number {
  if (Number.isNaN(ms)) return 0;
  return Math.min(MAX_TIME_MS, Math.max(MIN_TIME_MS, ms));
}

/** Formats an instant (ms) as upstream's metav1.Time: RFC 3339 with second precision, `2025-01-01T00:00:00Z`. */
export function formatTime(ms: number): string {
  return new Date(Math.floor(clampInstant(ms) / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Formats an instant (ms) as metav1.MicroTime: RFC 3339 with microseconds, `2025-01-01T00:00:00.000000Z`. */
export function formatMicroTime(ms: number): string {
  return new Date(clampInstant(ms)).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** Parses an RFC 3339 timestamp to ms since the epoch; undefined for a missing or malformed value. */
export function parseTime(s: string | null | undefined): number | undefined {
  if (!s) return undefined;
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : t;
}
