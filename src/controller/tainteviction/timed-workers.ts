/**
 * Work that runs at a given time, one item per key, cancellable: the taint eviction controller's
 * pending pod deletions.
 *
 * Follows kubernetes/kubernetes pkg/controller/tainteviction/timed_workers.go (`TimedWorker`,
 * `TimedWorkerQueue`: `AddWork`, `CancelWork`, `GetWorkerUnsafe`), on the Clock.
 */
import type { Clock, Timer } from '../../util/clock/index.js';
import { handleError, type Logger } from '../../util/runtime/index.js';

/** A scheduled item: when it was created and when it fires (ms). */
export interface TimedWorker {
  createdAt: number;
  fireAt: number;
  timer: Timer | undefined;
}

/** Runs one item; throws (or rejects) when it failed. `fireAt` is when it was due (ms). */
export type TimedWorkFunc = (key: string, fireAt: number) => Promise<void>;

/**
 * Keys with their timed work. An item that fired stays as a `null` entry — so the same work is not
 * added again — until {@link cancelWork} forgets it (upstream keeps a nil worker); one that failed is
 * forgotten, so it can be added again.
 */
export class TimedWorkerQueue {
  private readonly workers = new Map<string, TimedWorker | null>();

  constructor(
    private readonly clock: Clock,
    private readonly work: TimedWorkFunc,
    private readonly logger?: Logger,
  ) {}

  /** Schedules `key` to run at `fireAt` (at once if due); ignored when the key already has work. */
  addWork(key: string, createdAt: number, fireAt: number): void {
    if (this.workers.has(key)) return;
    const worker: TimedWorker = { createdAt, fireAt, timer: undefined };
    this.workers.set(key, worker);
    const delay = fireAt - this.clock.now();
    if (delay <= 0) void this.fire(key, worker);
    else worker.timer = this.clock.setTimer(delay, () => void this.fire(key, worker));
  }

  /** Cancels `key`'s work and forgets the key; true when work was still pending. */
  cancelWork(key: string): boolean {
    if (!this.workers.has(key)) return false;
    const worker = this.workers.get(key);
    this.workers.delete(key);
    if (!worker) return false;
    worker.timer?.stop();
    return true;
  }

  /** The pending work of `key`; null when it already ran; undefined when there is none. */
  getWorker(key: string): TimedWorker | null | undefined {
    return this.workers.get(key);
  }

  /** Keys with pending work (for tests). */
  pendingKeys(): string[] {
    return [...this.workers].filter(([, w]) => w !== null).map(([k]) => k);
  }

  private async fire(key: string, worker: TimedWorker): Promise<void> {
    if (this.workers.get(key) !== worker) return;
    // Running work can no longer be cancelled: the pod's deletion that follows must not read as a cancel.
    this.workers.set(key, null);
    try {
      await this.work(key, worker.fireAt);
    } catch (err) {
      if (this.workers.get(key) === null) this.workers.delete(key);
      handleError(err, { component: 'taint-eviction-controller', logger: this.logger, msg: 'Timed work failed', key });
    }
  }
}
