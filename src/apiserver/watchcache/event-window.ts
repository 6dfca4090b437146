/**
 * The history of one watch cache: the most recent changes of a resource, from which a watch resumes at
 * a resourceVersion. A ring buffer sized as upstream's `watchCache` sizes its event buffer
 * (k8s.io/apiserver/pkg/storage/cacher/watch_cache.go v0.33: `updateCache`, `resizeCacheLocked`,
 * `capacityUpperBound`, `getAllEventsSinceLocked`):
 *
 * - The capacity starts at {@link DEFAULT_LOWER_BOUND_CAPACITY} (100) events.
 * - When the ring is full and its oldest event is younger than the fresh duration
 *   ({@link DEFAULT_EVENT_FRESH_MS}, 75 s: upstream's `DefaultEventFreshDuration`, one bookmark period
 *   plus 15 s), the capacity doubles, up to {@link DEFAULT_UPPER_BOUND_CAPACITY} (102,400 events,
 *   upstream's `defaultUpperBoundCapacity`). So a watcher that fell behind by up to 75 s of changes can
 *   resume, however busy the resource, within that bound.
 * - When the ring is full and even its newest quarter is older than the fresh duration, the capacity
 *   halves, down to the lower bound: a quiet resource does not keep a large buffer of old objects.
 * - A full ring drops its oldest event on every push.
 *
 * Times are the injected Clock's (ms). Beyond upstream, {@link EventWindow.compact} drops the events at
 * or below a storage compaction, so a watch never resumes from history that storage no longer has
 * (DESIGN.md: "a watch from a compacted revision gets 410 Expired").
 */
import type { Clock } from '../../util/clock/index.js';
import type { CacheEvent } from './cache-watcher.js';

/** upstream `defaultLowerBoundCapacity`: the smallest (and initial) capacity, in events. */
export const DEFAULT_LOWER_BOUND_CAPACITY = 100;
/** upstream `defaultUpperBoundCapacity` (100 × 1024): the largest capacity, in events. */
export const DEFAULT_UPPER_BOUND_CAPACITY = 100 * 1024;
/** upstream `DefaultEventFreshDuration` (cacher.go: bookmark frequency 60 s + 15 s), in ms. */
export const DEFAULT_EVENT_FRESH_MS = 75_000;

/** How an {@link EventWindow} sizes itself; every field defaults to upstream's value. */
export interface EventWindowSizing {
  /** Smallest and initial capacity, in events (default 100). */
  lowerBound?: number;
  /** Largest capacity, in events (default 102,400). */
  upperBound?: number;
  /** History every busy resource should keep, in ms of clock time (default 75 s). */
  eventFreshMs?: number;
}

/** The recent changes of one resource (see the module comment). */
export class EventWindow {
  private readonly lowerBound: number;
  private readonly upperBound: number;
  private readonly freshMs: number;
  private events: (CacheEvent | undefined)[];
  /** When each event was recorded (clock ms), parallel to `events`. */
  private times: number[];
  /** Logical positions: the events are at [start, end), each at `position % capacity`. */
  private start = 0;
  private end = 0;
  /** Every change with revision above this one is in the window. */
  private oldest = 0;

  constructor(
    private readonly clock: Clock,
    sizing: EventWindowSizing = {},
  ) {
    this.upperBound = Math.max(1, sizing.upperBound ?? DEFAULT_UPPER_BOUND_CAPACITY);
    this.lowerBound = Math.min(this.upperBound, Math.max(1, sizing.lowerBound ?? DEFAULT_LOWER_BOUND_CAPACITY));
    this.freshMs = sizing.eventFreshMs ?? DEFAULT_EVENT_FRESH_MS;
    this.events = new Array<CacheEvent | undefined>(this.lowerBound);
    this.times = new Array<number>(this.lowerBound).fill(0);
  }

  /** The current capacity, in events. */
  get capacity(): number {
    return this.events.length;
  }

  /** How many events the window holds. */
  get size(): number {
    return this.end - this.start;
  }

  /**
   * The oldest revision a watch can resume from: every change above it is here. Upstream reports the
   * same bound as `oldest-1` in `too old resource version: <rv> (<oldest-1>)`.
   */
  get oldestResumableRevision(): number {
    return this.oldest;
  }

  /** Empties the window after a listing at `revision` (upstream's `Replace`): history starts there. */
  reset(revision: number): void {
    this.events.fill(undefined);
    this.start = this.end = 0;
    this.oldest = revision;
  }

  /** Appends a change (revisions increase), resizing first and dropping the oldest change when full. */
  push(ev: CacheEvent): void {
    const now = this.clock.now();
    this.resize(now);
    if (this.isFull()) this.dropOldest();
    const i = this.end % this.capacity;
    this.events[i] = ev;
    this.times[i] = now;
    this.end++;
  }

  /** Drops the changes at or below `revision` (storage compacted them): watches from before it get 410. */
  compact(revision: number): void {
    while (this.start < this.end && this.at(this.start).rv <= revision) this.dropOldest();
    this.oldest = Math.max(this.oldest, revision);
  }

  /**
   * The changes with revision > `rv`, in order; undefined when some of them have left the window
   * (`rv` < {@link oldestResumableRevision}), which the caller answers with 410 Expired.
   */
  eventsAfter(rv: number): CacheEvent[] | undefined {
    if (rv < this.oldest) return undefined;
    const out: CacheEvent[] = [];
    const lo = this.firstAfter(rv);
    for (let p = lo; p < this.end; p++) out.push(this.at(p));
    return out;
  }

  /**
   * The revision of the last change at or below `rv`, or {@link oldestResumableRevision} when the
   * window holds none: the resource is the same at `rv` as at that revision. Meaningful for `rv` >=
   * {@link oldestResumableRevision} only.
   */
  lastChangeAtOrBefore(rv: number): number {
    const lo = this.firstAfter(rv);
    return lo === this.start ? this.oldest : this.at(lo - 1).rv;
  }

  /** The position of the first change with revision > `rv` (binary search; `end` if none). */
  private firstAfter(rv: number): number {
    let lo = this.start;
    let hi = this.end;
    while (lo < hi) {
      const mid = lo + ((hi - lo) >>> 1);
      if (this.at(mid).rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private at(position: number): CacheEvent {
    return this.events[position % this.capacity] as CacheEvent;
  }

  private isFull(): boolean {
    return this.end - this.start === this.capacity;
  }

  private dropOldest(): void {
    const i = this.start % this.capacity;
    this.oldest = Math.max(this.oldest, (this.events[i] as CacheEvent).rv);
    this.events[i] = undefined;
    this.start++;
  }

  /**
   * upstream `resizeCacheLocked`: doubles a full window whose oldest change is fresher than the fresh
   * duration; halves a full window whose newest quarter is older than it (no flapping: the quarter
   * must be stale, not just the oldest change).
   */
  private resize(now: number): void {
    if (!this.isFull()) return;
    const cap = this.capacity;
    if (now - (this.times[this.start % cap] as number) < this.freshMs) {
      const grown = Math.min(cap * 2, this.upperBound);
      if (grown > cap) this.resizeTo(grown);
      return;
    }
    if (now - (this.times[(this.end - Math.floor(cap / 4)) % cap] as number) > this.freshMs) {
      const shrunk = Math.max(Math.floor(cap / 2), this.lowerBound);
      if (shrunk < cap) this.resizeTo(shrunk);
    }
  }

  /** upstream `doCacheResizeLocked`: copies into a ring of `capacity`, keeping the newest changes. */
  private resizeTo(capacity: number): void {
    while (this.end - this.start > capacity) this.dropOldest();
    const events = new Array<CacheEvent | undefined>(capacity);
    const times = new Array<number>(capacity).fill(0);
    for (let p = this.start; p < this.end; p++) {
      events[p % capacity] = this.events[p % this.capacity];
      times[p % capacity] = this.times[p % this.capacity] as number;
    }
    this.events = events;
    this.times = times;
  }
}
