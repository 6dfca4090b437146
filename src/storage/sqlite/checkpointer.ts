/**
 * WAL checkpoints off the event loop, for {@link SqliteBackend} on a file.
 *
 * A commit appends the changed pages to the WAL; a checkpoint copies them into the database file
 * (syncing the WAL before and the file after), after which the WAL can be reused from its start.
 * SQLite's automatic checkpoint (`wal_autocheckpoint`, 1000 pages) runs inside the COMMIT that
 * crosses the threshold, on the one thread every request waits for: in the 10,000-replica Deployment
 * bench it was two thirds of the time spent committing. So this turns it off for the writer's
 * connection and checkpoints instead:
 *
 * - **In a worker thread.** A worker with its own connection runs `PRAGMA wal_checkpoint(PASSIVE)`,
 *   which copies every committed frame that no reader still needs without blocking the writer, so
 *   the copying and the syncs run beside the event loop. It runs {@link CHECKPOINT_INTERVAL_MS}
 *   (on the backend's Clock) after a commit, one at a time, again after the next commit.
 * - **Bounded WAL.** SQLite reuses the WAL from its start only when a write transaction begins with
 *   every frame copied. Under steady load the writer commits while the worker copies, so that moment
 *   may not come; when the WAL file has grown past `WAL_LIMIT_BYTES`, the writer checkpoints itself
 *   right after a commit, between batches (./writer.ts). The worker has copied nearly everything by
 *   then, so the writer copies only the rest, and its next transaction restarts the WAL, which SQLite
 *   then truncates to `journal_size_limit` (JOURNAL_SIZE_LIMIT_BYTES in ./schema.ts). The bound holds
 *   whether or not the worker keeps up, or runs at all (a FakeClock that is never stepped).
 * - **Fallback.** If the worker fails (it cannot open the file, a checkpoint throws), it is stopped
 *   and `onFallback` is called, for the backend to turn SQLite's automatic checkpoint back on on its
 *   writer's connection: the old behaviour, slower but complete.
 */

import { Worker } from 'node:worker_threads';
import type { Clock, Timer } from '../../util/clock/index.js';

/** Delay from a commit to the worker's next checkpoint (ms). */
export const CHECKPOINT_INTERVAL_MS = 100;

/** SQLite's default `wal_autocheckpoint` (pages), for the backend to restore if the worker fails. */
export const DEFAULT_AUTOCHECKPOINT_PAGES = 1000;

/** A message to the worker (./checkpoint-worker.ts). */
export type CheckpointRequest = 'checkpoint' | 'close';

/** The worker's answer to `'checkpoint'`: `PRAGMA wal_checkpoint`'s row, or what it threw. */
export type CheckpointReply = { busy: number; log: number; checkpointed: number } | { error: string };

/** Checkpoints done, for tests. */
export interface CheckpointCounts {
  /** By the worker. */
  worker: number;
  /** By the writer, to restart an overgrown WAL. */
  writer: number;
}

/** The checkpoints of one database file (see the module comment). */
export class Checkpointer {
  private worker: Worker | undefined;
  private timer: Timer | undefined;
  private inFlight = false;
  /** Callers of {@link withoutCheckpoints} not done yet. */
  private held = 0;
  /** A commit happened since the worker's last checkpoint was requested. */
  private dirty = false;
  private idleWaiters: (() => void)[] = [];
  private readonly exited: Promise<void>;
  private readonly counts: CheckpointCounts = { worker: 0, writer: 0 };

  /**
   * Starts the worker for the database at `path`. The writer's connection must have SQLite's
   * automatic checkpoint off (`wal_autocheckpoint = 0`); `onFallback` is called once if the worker fails.
   */
  constructor(
    path: string,
    private readonly clock: Clock,
    private readonly onFallback: () => void,
  ) {
    const worker = new Worker(new URL('./checkpoint-worker.js', import.meta.url), { workerData: { path } });
    worker.on('message', (reply: CheckpointReply) => this.onReply(reply));
    worker.on('error', () => this.fallBack());
    this.exited = new Promise((resolve) =>
      worker.once('exit', () => {
        resolve();
        if (this.worker === worker) this.fallBack(); // it ended without being told to
      }),
    );
    // Like the Clock's timers, the worker never keeps the process alive on its own. After the
    // listeners: adding a 'message' listener refs the worker's port again.
    worker.unref();
    this.worker = worker;
  }

  /** Checkpoints done so far. */
  checkpoints(): CheckpointCounts {
    return { ...this.counts };
  }

  /**
   * Called after each commit: counts the writer's own checkpoint if it ran one (see the module
   * comment) and schedules the worker's next checkpoint.
   */
  committed(writerCheckpointed: boolean): void {
    if (writerCheckpointed) this.counts.writer++;
    this.dirty = true;
    this.schedule();
  }

  /** True until the worker fails (then SQLite checkpoints inside commits again). */
  running(): boolean {
    return this.worker !== undefined;
  }

  /** Resolves when the worker is not checkpointing (for a checkpoint of the writer's that must not be refused). */
  idle(): Promise<void> {
    if (!this.inFlight) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops the timer and the worker, after its checkpoint in flight; the writer's connection stays open. */
  async close(): Promise<void> {
    this.timer?.stop();
    this.timer = undefined;
    const worker = this.worker;
    this.worker = undefined;
    if (worker) {
      worker.ref(); // the caller waits for the exit
      worker.postMessage('close' satisfies CheckpointRequest);
    }
    await this.exited;
    this.wakeIdle();
  }

  /**
   * Runs `fn` with no checkpoint of the worker's in flight, none starting until it settles: a
   * truncating checkpoint of the writer's (compaction's reclaim) is refused, not waited for, while
   * another connection checkpoints. Resolves or rejects as `fn` does.
   */
  async withoutCheckpoints<T>(fn: () => Promise<T>): Promise<T> {
    this.held++;
    try {
      await this.idle();
      return await fn();
    } finally {
      this.held--;
      this.schedule();
    }
  }

  private schedule(): void {
    if (!this.worker || this.timer || this.inFlight || !this.dirty || this.held > 0) return;
    this.timer = this.clock.setTimer(CHECKPOINT_INTERVAL_MS, () => {
      this.timer = undefined;
      if (!this.worker || this.inFlight || this.held > 0) return;
      this.inFlight = true;
      this.dirty = false;
      // Someone may wait for the answer (idle()): until it comes, the worker keeps the process alive.
      this.worker.ref();
      this.worker.postMessage('checkpoint' satisfies CheckpointRequest);
    });
  }

  private onReply(reply: CheckpointReply): void {
    this.inFlight = false;
    this.worker?.unref();
    if ('error' in reply) {
      this.fallBack();
      return;
    }
    this.counts.worker++;
    this.wakeIdle();
    this.schedule();
  }

  /** The worker failed: stop it and let SQLite checkpoint inside commits again. */
  private fallBack(): void {
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    this.inFlight = false;
    this.timer?.stop();
    this.timer = undefined;
    void worker.terminate();
    this.onFallback();
    this.wakeIdle();
  }

  private wakeIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
