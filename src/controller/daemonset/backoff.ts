/**
 * Per-key exponential backoff on a Clock, after client-go util/flowcontrol/backoff.go (`Backoff`
 * without jitter: `Next`, `Get`, `IsInBackOffSinceUpdate`, `GC`). The DaemonSet controller keys it by
 * `<ds uid>/<node>` to pace the replacement of failed daemon pods: 1 s, 2 s, 4 s … capped at 15 min.
 */
import type { Clock } from '../../util/clock/index.js';

interface Entry {
  /** Current backoff, ms. */
  backoff: number;
  /** When `next` was last called, ms since the epoch. */
  lastUpdate: number;
}

export class Backoff {
  private readonly entries = new Map<string, Entry>();

  /**
   * @param clock time source
   * @param initialMs first backoff (ms)
   * @param maxMs cap (ms); an entry untouched for 2 × max starts over at `initialMs`
   */
  constructor(
    readonly clock: Clock,
    private readonly initialMs: number,
    private readonly maxMs: number,
  ) {}

  /** The current backoff of `id` in ms (0 when none). */
  get(id: string): number {
    return this.entries.get(id)?.backoff ?? 0;
  }

  /**
   * Records an event at `now` (ms): a new or expired entry starts at the initial backoff, otherwise it
   * doubles up to the cap. E.g. 1 s → 2 s → 4 s … → 15 min.
   */
  next(id: string, now: number): void {
    const e = this.entries.get(id);
    if (!e || this.hasExpired(e, now)) {
      this.entries.set(id, { backoff: this.initialMs, lastUpdate: now });
      return;
    }
    e.backoff = Math.min(e.backoff * 2, this.maxMs);
    e.lastUpdate = now;
  }

  /** True while less than the current backoff has passed since the last `next` (`IsInBackOffSinceUpdate`). */
  isInBackOffSinceUpdate(id: string, now: number): boolean {
    const e = this.entries.get(id);
    if (!e || this.hasExpired(e, now)) return false;
    return now - e.lastUpdate < e.backoff;
  }

  /** Drops entries untouched for 2 × max (upstream runs this every minute). */
  gc(): void {
    const now = this.clock.now();
    for (const [id, e] of this.entries) if (this.hasExpired(e, now)) this.entries.delete(id);
  }

  private hasExpired(e: Entry, now: number): boolean {
    return now - e.lastUpdate > 2 * this.maxMs;
  }
}
