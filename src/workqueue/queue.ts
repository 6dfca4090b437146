/**
 * The controllers' work queue: client-go util/workqueue's Queue, DelayingQueue and RateLimitingQueue
 * in one class (queue.go, delaying_queue.go, rate_limiting_queue.go).
 *
 * Guarantees (upstream doc.go):
 * - **Fair**: items are handed out in the order they were added.
 * - **Stingy**: an item added several times before it is handed out is handed out once; an item is
 *   never handed to two workers at once — if it is added while a worker processes it, it is queued
 *   again only when that worker calls {@link RateLimitingQueue.done}.
 * - **Multiple producers and consumers**; `get()` waits (a promise) for an item or shutdown.
 * - **Shutdown**: after {@link RateLimitingQueue.shutDown}, adds are ignored, waiting delayed items are
 *   dropped, items already queued are still handed out, and then every `get()` returns `{shutdown: true}`.
 *
 * Delays run on the injected Clock; `addAfter` keeps only the earliest deadline per item.
 *
 * A queue with a name has upstream's `workqueue_*` metrics under that name (metrics.ts), updated where
 * client-go's queue updates them: an add that marks an item dirty counts in `adds_total` and starts its
 * queue time, handing it out observes `queue_duration_seconds` and starts its work time, `done`
 * observes `work_duration_seconds`, and every `addAfter` (so every `addRateLimited`) counts a retry.
 * Durations are read from the queue's Clock ({@link Clock.monotonic}).
 */
import type { Clock, Timer } from '../util/clock/index.js';
import { Fifo } from '../util/fifo/index.js';
import type { CounterChild, HistogramChild } from '../util/metrics/index.js';
import { addsTotal, liveQueues, queueDuration, retriesTotal, workDuration, type QueueGauges } from './metrics.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiters.js';

/** What `get()` resolves to. */
export type GetResult<T> = { item: T; shutdown: false } | { shutdown: true };

/** Options of {@link RateLimitingQueue}. */
export interface RateLimitingQueueOptions<T> {
  clock: Clock;
  /** Default: {@link defaultControllerRateLimiter} on `clock`. */
  rateLimiter?: RateLimiter<T>;
  /** The `name` label of the queue's metrics, e.g. `replicaset` (upstream's queue names); none: no metrics. */
  name?: string;
}

/**
 * client-go's `defaultQueueMetrics`: the metric children of one queue. Its `addTimes` and
 * `processingStartTimes` are the queue's own `dirty` and `processing` maps, whose keys are always the
 * same items (an item's add time is set when it becomes dirty and dropped when it is handed out; its
 * start time is set when it is handed out and dropped at `done`).
 */
class QueueMetrics implements QueueGauges {
  readonly adds: CounterChild;
  readonly retries: CounterChild;
  readonly latency: HistogramChild;
  readonly work: HistogramChild;

  constructor(
    readonly name: string,
    private readonly clock: Clock,
    private readonly dirty: ReadonlyMap<unknown, number>,
    private readonly processing: ReadonlyMap<unknown, number>,
  ) {
    this.adds = addsTotal.with(name);
    this.retries = retriesTotal.with(name);
    this.latency = queueDuration.with(name);
    this.work = workDuration.with(name);
  }

  depth(): number {
    return this.dirty.size;
  }

  *processingAges(): Iterable<number> {
    const now = this.clock.monotonic();
    for (const t of this.processing.values()) yield (now - t) / 1000;
  }
}

/** A rate-limited, delaying, deduplicating FIFO of items (usually `namespace/name` keys). */
export class RateLimitingQueue<T = string> {
  readonly name: string;
  private readonly clock: Clock;
  private readonly rateLimiter: RateLimiter<T>;

  /** Items waiting to be handed out, in order. Every one is in `dirty`, none in `processing`. */
  private readonly queue = new Fifo<T>();
  /**
   * Items that need processing: everything in `queue`, plus processing items added again since handed
   * out; each with when it was added (for the metrics; 0 for a queue without them).
   */
  private readonly dirty = new Map<T, number>();
  /** Items handed out by `get()` and not yet `done()`, with when (as {@link dirty}). Never in `queue`; may be in `dirty`. */
  private readonly processing = new Map<T, number>();
  /** Pending `get()` calls; non-empty only while `queue` is empty. */
  private readonly getters: ((r: GetResult<T>) => void)[] = [];
  private shutting = false;

  /** Items scheduled by `addAfter`, earliest first, and the one clock timer armed for the earliest. */
  private readonly waiting = new WaitingHeap<T>();
  private timer: Timer | undefined;
  private timerAt = 0;
  /** Undefined for a queue without a name, as upstream's `noMetrics`. */
  private readonly metrics: QueueMetrics | undefined;

  constructor(opts: RateLimitingQueueOptions<T>) {
    this.clock = opts.clock;
    this.rateLimiter = opts.rateLimiter ?? defaultControllerRateLimiter<T>(opts.clock);
    this.name = opts.name ?? '';
    if (this.name !== '') {
      this.metrics = new QueueMetrics(this.name, opts.clock, this.dirty, this.processing);
      liveQueues.add(this.metrics);
    }
  }

  /** Marks `item` for processing. No-op if it already waits, or after shutdown. */
  add(item: T): void {
    if (this.shutting || this.dirty.has(item)) return;
    let now = 0;
    if (this.metrics) {
      this.metrics.adds.inc();
      now = this.clock.monotonic();
    }
    this.dirty.set(item, now);
    // Being processed: done() queues it again.
    if (this.processing.has(item)) return;
    this.queue.push(item);
    this.handOut();
  }

  /**
   * Adds `item` after `delayMs` of clock time (immediately when `delayMs <= 0`). If it is already
   * scheduled, the earlier of the two deadlines wins.
   */
  addAfter(item: T, delayMs: number): void {
    if (this.shutting) return;
    this.metrics?.retries.inc();
    if (delayMs <= 0) {
      this.add(item);
      return;
    }
    this.waiting.schedule(item, this.clock.now() + delayMs);
    this.armTimer();
  }

  /** Adds `item` after the rate limiter's delay for it (one more failure). */
  addRateLimited(item: T): void {
    this.addAfter(item, this.rateLimiter.when(item));
  }

  /** Resets `item`'s failure count (it succeeded). Does not remove it from the queue. */
  forget(item: T): void {
    this.rateLimiter.forget(item);
  }

  /** Failures of `item` counted by the rate limiter since it was last forgotten. */
  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }

  /**
   * The next item, once one is available; the caller must call {@link done} with it when finished.
   * Resolves `{shutdown: true}` once the queue is shut down and drained.
   */
  get(): Promise<GetResult<T>> {
    if (this.queue.length > 0) return Promise.resolve({ item: this.take(), shutdown: false });
    if (this.shutting) return Promise.resolve({ shutdown: true });
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Ends the processing of `item`; if it was added meanwhile, it is queued again. */
  done(item: T): void {
    const started = this.processing.get(item);
    if (this.metrics && started !== undefined) this.metrics.work.observe((this.clock.monotonic() - started) / 1000);
    this.processing.delete(item);
    if (this.dirty.has(item)) {
      this.queue.push(item);
      this.handOut();
    }
  }

  /** Number of items waiting to be handed out (not counting delayed or processing ones). */
  len(): number {
    return this.queue.length;
  }

  /** Stops accepting items and wakes every waiting `get()` with `{shutdown: true}`. */
  shutDown(): void {
    this.shutting = true;
    if (this.metrics) liveQueues.delete(this.metrics);
    this.timer?.stop();
    this.timer = undefined;
    this.waiting.clear();
    for (const resolve of this.getters.splice(0)) resolve({ shutdown: true });
  }

  shuttingDown(): boolean {
    return this.shutting;
  }

  /** Pops the head of the queue into `processing`. */
  private take(): T {
    const item = this.queue.shift() as T;
    let now = 0;
    if (this.metrics) {
      now = this.clock.monotonic();
      this.metrics.latency.observe((now - (this.dirty.get(item) as number)) / 1000);
    }
    this.processing.set(item, now);
    this.dirty.delete(item);
    return item;
  }

  /** Gives queued items to pending getters, first come first served. */
  private handOut(): void {
    while (this.getters.length > 0 && this.queue.length > 0) {
      const resolve = this.getters.shift() as (r: GetResult<T>) => void;
      resolve({ item: this.take(), shutdown: false });
    }
  }

  /** Keeps one clock timer armed for the earliest scheduled item. */
  private armTimer(): void {
    const next = this.waiting.peekReadyAt();
    if (next === undefined) return;
    if (this.timer && this.timerAt <= next) return;
    this.timer?.stop();
    this.timerAt = next;
    this.timer = this.clock.setTimer(next - this.clock.now(), () => {
      this.timer = undefined;
      const now = this.clock.now();
      for (let e = this.waiting.popReady(now); e !== undefined; e = this.waiting.popReady(now)) this.add(e);
      this.armTimer();
    });
  }
}

interface WaitingEntry<T> {
  item: T;
  readyAt: number;
  /** Insertion order, to break ties between equal deadlines. */
  seq: number;
  index: number;
}

/** A binary min-heap of scheduled items by (readyAt, seq), at most one entry per item. */
class WaitingHeap<T> {
  private heap: WaitingEntry<T>[] = [];
  private readonly byItem = new Map<T, WaitingEntry<T>>();
  private seq = 0;

  /** Schedules `item` at `readyAt`, or moves an existing entry earlier (never later). */
  schedule(item: T, readyAt: number): void {
    const existing = this.byItem.get(item);
    if (existing) {
      if (readyAt < existing.readyAt) {
        existing.readyAt = readyAt;
        this.up(existing.index);
      }
      return;
    }
    const e: WaitingEntry<T> = { item, readyAt, seq: this.seq++, index: this.heap.length };
    this.heap.push(e);
    this.byItem.set(item, e);
    this.up(e.index);
  }

  peekReadyAt(): number | undefined {
    return this.heap[0]?.readyAt;
  }

  /** Removes and returns the earliest item if it is due at `now`. */
  popReady(now: number): T | undefined {
    const top = this.heap[0];
    if (!top || top.readyAt > now) return undefined;
    const last = this.heap.pop() as WaitingEntry<T>;
    if (last !== top) {
      this.heap[0] = last;
      last.index = 0;
      this.down(0);
    }
    this.byItem.delete(top.item);
    return top.item;
  }

  clear(): void {
    this.heap = [];
    this.byItem.clear();
  }

  private less(a: WaitingEntry<T>, b: WaitingEntry<T>): boolean {
    return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
  }

  private swap(i: number, j: number): void {
    const a = this.heap[i] as WaitingEntry<T>;
    const b = this.heap[j] as WaitingEntry<T>;
    this.heap[i] = b;
    this.heap[j] = a;
    a.index = j;
    b.index = i;
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(this.heap[i] as WaitingEntry<T>, this.heap[parent] as WaitingEntry<T>)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let min = i;
      if (l < this.heap.length && this.less(this.heap[l] as WaitingEntry<T>, this.heap[min] as WaitingEntry<T>)) min = l;
      if (r < this.heap.length && this.less(this.heap[r] as WaitingEntry<T>, this.heap[min] as WaitingEntry<T>)) min = r;
      if (min === i) return;
      this.swap(i, min);
      i = min;
    }
  }
}
