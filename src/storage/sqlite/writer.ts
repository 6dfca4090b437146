/**
 * The writer of {@link SqliteBackend}: appends the rows of committed batches, compacts and reclaims
 * space, on a connection of its own — in a worker thread for a database file, or on the backend's own
 * connection for ':memory:' (which no other connection can open) — see
 * docs/adr/0019-sqlite-writes-in-a-worker-thread.md.
 *
 * The backend decides everything a write's outcome depends on (its revision, its precondition, the
 * row's `prev_revision`) on its own thread, from memory, and hands the writer finished rows: the
 * writer only runs `BEGIN IMMEDIATE`, the INSERTs, `COMMIT`. That is where the 10,000-replica
 * Deployment bench spent 19 % of the event loop (better-sqlite3's `exec` 2.96 s, the INSERTs 1.23 s,
 * the WAL restarts 1.19 s of 31 s), and it is all the backend no longer waits for.
 *
 * Requests run in the order given, one at a time. A failed request rolls back whatever it began and
 * answers with the error; later requests still run (a batch that assumed the failed one's revisions
 * fails on its first INSERT, whose row id is not the expected one).
 */

import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { StorageError } from '../interface.js';
import { Fifo } from '../../util/fifo/index.js';
import { JOURNAL_SIZE_LIMIT_BYTES, reclaimSpace, type Statements } from './schema.js';

/**
 * One row to append: kine's columns; `id` is the revision it must get. A tombstone's `value` is null:
 * the writer stores the deleted value, its predecessor row's.
 */
export interface Row {
  id: number;
  name: string;
  created: 0 | 1;
  deleted: 0 | 1;
  createRevision: number;
  prevRevision: number;
  value: string | null;
}

/** What a writer is asked to do. */
export type WriterRequest =
  /** Append `rows` (ids consecutive) in one transaction. */
  | { op: 'commit'; rows: Row[] }
  /** Delete, in one transaction, what a compaction from `from` to `to` removes (schema.ts `deleteSuperseded`, `deleteTombstones`) and record `to`. */
  | { op: 'compact'; from: number; to: number }
  /** Give freed pages back to the file system (schema.ts `reclaimSpace`). */
  | { op: 'reclaim' }
  /** Set `PRAGMA wal_autocheckpoint` of the writer's connection (pages; 0: off), or only read it (no `pages`). */
  | { op: 'autocheckpoint'; pages?: number };

/** A writer's answer: the error message of a failed request, and whether a commit restarted an overgrown WAL. */
export interface WriterReply {
  error?: string;
  /** A commit's rows' previous values (their `prev_revision` row's value), in order; null for a create. */
  prevValues?: (string | null)[];
  /** A commit's writer checkpoint ran to completion (see {@link WAL_LIMIT_BYTES}). */
  walCheckpointed?: boolean;
  /** The connection's `wal_autocheckpoint` after an `autocheckpoint` request. */
  autocheckpoint?: number;
}

/**
 * WAL file size (bytes) above which the writer checkpoints itself after a commit (./checkpointer.ts
 * explains why the checkpoint worker alone cannot bound the WAL under steady load): twice the size
 * the file is truncated back to.
 */
export const WAL_LIMIT_BYTES = 2 * JOURNAL_SIZE_LIMIT_BYTES;

/**
 * Runs writer requests on one connection, synchronously. `walPath` is the database's WAL file, or
 * undefined for ':memory:' (no WAL to bound).
 */
export class WriterCore {
  constructor(
    private readonly db: Database.Database,
    private readonly stmts: Statements,
    private readonly walPath: string | undefined,
  ) {}

  /** Runs `req`; never throws (a failure is the reply's `error`, after a rollback). */
  run(req: WriterRequest): WriterReply {
    try {
      switch (req.op) {
        case 'commit': {
          const prevValues = this.commit(req.rows);
          return { prevValues, walCheckpointed: this.restartOvergrownWal() };
        }
        case 'compact':
          this.db
            .transaction(() => {
              this.stmts.deleteSuperseded.run(req.from, req.to);
              this.stmts.deleteTombstones.run(req.from, req.to);
              this.stmts.setCompactedRevision.run(req.to);
            })
            .immediate();
          return {};
        case 'reclaim':
          reclaimSpace(this.db);
          return {};
        case 'autocheckpoint':
          if (req.pages !== undefined) this.db.pragma(`wal_autocheckpoint = ${Math.max(0, Math.floor(req.pages))}`);
          return { autocheckpoint: this.db.pragma('wal_autocheckpoint', { simple: true }) as number };
      }
    } catch (err) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      return { error: err instanceof Error ? err.message : String(err) };
    }
  }

  /**
   * Appends `rows` in one transaction; returns each row's previous value (read before its insert, on
   * this connection's warm cache: for an update or delete the value of its `prev_revision` row, which
   * may be an earlier row of the same transaction), null for a create. Throws on a failed statement,
   * or when a row does not get the id it expects.
   */
  private commit(rows: readonly Row[]): (string | null)[] {
    this.db.exec('BEGIN IMMEDIATE');
    const prevValues: (string | null)[] = [];
    for (const row of rows) {
      const prev = row.created ? null : (this.stmts.valueById.get(row.prevRevision) ?? null);
      if (!row.created && prev === null) throw new Error(`row ${row.id} of ${row.name}: its previous row ${row.prevRevision} is missing`);
      const value = row.deleted ? (prev as string) : (row.value ?? '');
      const result = this.stmts.insert.run(row.name, row.created, row.deleted, row.createRevision, row.prevRevision, value);
      if (Number(result.lastInsertRowid) !== row.id) throw new Error(`revision gap: expected row id ${row.id}, got ${result.lastInsertRowid}`);
      prevValues.push(prev);
    }
    this.db.exec('COMMIT');
    return prevValues;
  }

  /**
   * After a commit, outside any transaction: when the WAL has grown past {@link WAL_LIMIT_BYTES},
   * copies what the checkpoint worker has not (PASSIVE: it returns at once, busy, while that worker is
   * copying; the next commit tries again), so the next transaction restarts the WAL. True when it ran.
   */
  private restartOvergrownWal(): boolean {
    if (this.walPath === undefined) return false;
    try {
      if ((statSync(this.walPath, { throwIfNoEntry: false })?.size ?? 0) <= WAL_LIMIT_BYTES) return false;
      const [row] = this.db.pragma('wal_checkpoint(PASSIVE)') as { busy: number }[];
      return row?.busy === 0;
    } catch {
      // The commit is done; a file that cannot be read or copied fails the next COMMIT, which reports it.
      return false;
    }
  }
}

/** Where the backend's requests go: in order, each answered once. */
export interface Writer {
  /** Runs `req` after every earlier request; resolves with the reply (a failure is its `error`). */
  request(req: WriterRequest): Promise<WriterReply>;
  /** Resolves once every request is answered and the writer's own connection (if any) is closed. */
  close(): Promise<void>;
}

/** A writer on the backend's own connection: each request runs at once, on the caller's thread. */
export class InlineWriter implements Writer {
  constructor(private readonly core: WriterCore) {}

  request(req: WriterRequest): Promise<WriterReply> {
    return Promise.resolve(this.core.run(req));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** What the worker thread (./writer-worker.ts) is started with. */
export interface WriterWorkerData {
  path: string;
}

/** A message to the worker thread: a request, or `'close'`. */
export type WriterMessage = WriterRequest | 'close';

/**
 * A writer in a worker thread with its own connection to the database file (./writer-worker.ts).
 * The worker keeps the process alive only while a request is unanswered. If it fails or exits
 * unasked, every unanswered request is answered with that error and later ones run on `fallback`
 * (the backend's own connection): slower, but the backend keeps working.
 */
export class WorkerWriter implements Writer {
  private worker: Worker | undefined;
  private readonly waiting = new Fifo<(reply: WriterReply) => void>();
  private readonly exited: Promise<void>;
  private fallbackFor: Writer | undefined;

  constructor(
    path: string,
    private readonly fallback: () => Writer,
  ) {
    const worker = new Worker(new URL('./writer-worker.js', import.meta.url), { workerData: { path } satisfies WriterWorkerData });
    worker.on('message', (reply: WriterReply) => {
      this.waiting.shift()?.(reply);
      if (this.waiting.length === 0) worker.unref();
    });
    worker.on('error', (err) => this.fail(`sqlite writer thread failed: ${err.message}`));
    this.exited = new Promise((resolve) =>
      worker.once('exit', () => {
        resolve();
        if (this.worker === worker) this.fail('sqlite writer thread exited');
      }),
    );
    worker.unref(); // after the listeners: adding a 'message' listener refs the worker again
    this.worker = worker;
  }

  /** True while requests go to the worker thread (false after a fallback). */
  threaded(): boolean {
    return this.worker !== undefined;
  }

  request(req: WriterRequest): Promise<WriterReply> {
    const worker = this.worker;
    if (!worker) return this.fallbackWriter().request(req);
    return new Promise((resolve) => {
      if (this.waiting.length === 0) worker.ref();
      this.waiting.push(resolve);
      worker.postMessage(req satisfies WriterMessage);
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined; // its exit is expected now
    worker.ref(); // the caller waits for the exit
    worker.postMessage('close' satisfies WriterMessage);
    await this.exited;
  }

  /** The writer on the backend's connection, made at the first request after a failure. */
  private fallbackWriter(): Writer {
    return (this.fallbackFor ??= this.fallback());
  }

  /** The worker failed: answer what it left unanswered with `message`, and stop using it. */
  private fail(message: string): void {
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    for (let resolve = this.waiting.shift(); resolve; resolve = this.waiting.shift()) resolve({ error: message });
    void worker.terminate();
  }
}

/** The `Internal` error of a failed writer request about `key`. */
export function writerError(key: string, what: string, reply: WriterReply): StorageError | undefined {
  return reply.error === undefined ? undefined : new StorageError('Internal', key, `${what} failed: ${reply.error}`);
}
