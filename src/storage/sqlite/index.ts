/**
 * The SQLite {@link Backend} (the default datastore): kine's append-only revision table
 * (see ./schema.ts) through better-sqlite3, in one process that is the database's only writer.
 *
 * **Batching.** better-sqlite3 is synchronous, and a commit is the expensive part of a write, so
 * writes issued in the same tick share one transaction. The first write of a tick runs `BEGIN
 * IMMEDIATE` and schedules the commit with `setImmediate`; each write then checks its precondition
 * and inserts its row at once, inside the open transaction, so it gets its revision immediately and
 * later writes of the batch see it (a create followed by a create of the same key in one tick fails
 * with `KeyExists`). A write that fails its check (KeyExists, Conflict, KeyNotFound) is rejected on
 * the spot and inserts nothing; the others are unaffected. At the commit, `COMMIT` runs, then every
 * write's promise resolves, then the batch's events are published to watchers (in a later microtask,
 * so a writer awaiting its write resumes before any handler sees the event). If the commit fails the
 * transaction is rolled back and every write of the batch is rejected with `Internal`.
 *
 * **Committed view.** Reads never see a batch that is not committed yet: the in-memory index
 * (`heads`: key → {modRevision, createRevision} of each live key, sorted by key, loaded at open) holds
 * committed state only, and a batch keeps its changes in an overlay that CAS checks consult first and
 * the commit merges in. `currentRevision()` is the last committed revision, and every SQL read is
 * bounded by `id <= currentRevision()`. So a list reports a revision that matches its content, and a
 * write is never visible before its promise resolves.
 *
 * **Revisions.** The row id (AUTOINCREMENT) is the revision. With one writer, ids are gap-free: each
 * insert is asserted to get exactly the next one. After a reopen, the revision continues from
 * `sqlite_sequence` (which remembers the last id even if compaction deleted its row), and the
 * compacted revision from `kine_meta`.
 *
 * **Checkpoints.** On a database file, SQLite's automatic WAL checkpoint (which would run inside a
 * COMMIT) is off: a worker thread copies the WAL into the file beside the event loop, and the writer
 * restarts an overgrown WAL between batches (./checkpointer.ts). The timers run on the `clock` option.
 *
 * **Watch hand-over.** `watch()` reads the committed history (`id > fromRevision AND id <=
 * currentRevision()`) and registers the watcher with that upper bound in one synchronous step. No
 * commit can run in between (JavaScript is single-threaded and the read is synchronous), and every
 * later commit publishes only revisions above the bound: no gap, no duplicate (see WatchHub).
 */

import { StorageError } from '../interface.js';
import type { Backend, KeyValue, ListOptions, ListResult, WatchEvent, WatchHandle } from '../interface.js';
import {
  checkWatchStart,
  closedError,
  conflict,
  isPastRevision,
  keyExists,
  keyNotFound,
  needsCompaction,
  settle,
} from '../internal/errors.js';
import { countPrefix, keyAfter, listStart, page, prefixEnd } from '../internal/keys.js';
import { SortedMap } from '../internal/sorted-map.js';
import { WatchHub } from '../internal/watch-hub.js';
import { isFile, MAX_KEY, openDatabase, reclaimSpace, rowToEvent, rowToKeyValue } from './schema.js';
import type { Statements } from './schema.js';
import { Checkpointer } from './checkpointer.js';
import { realClock } from '../../util/clock/index.js';
import type { Clock } from '../../util/clock/index.js';
import type Database from 'better-sqlite3';

/** Options of {@link SqliteBackend}. */
export interface SqliteBackendOptions {
  /** Database file (created if missing), or ':memory:'. */
  path: string;
  /** Schedules the WAL checkpoints of a database file (./checkpointer.ts); default the real clock. */
  clock?: Clock;
}

/** Counters for benchmarks: committed transactions and the writes they carried. */
export interface SqliteStats {
  commits: number;
  writes: number;
}

/** A live key and the revisions of its current version. */
interface Head {
  key: string;
  modRevision: number;
  createRevision: number;
}

/** A write of the open batch, waiting for the commit. */
interface PendingWrite {
  event: WatchEvent;
  resolve: (kv: KeyValue) => void;
  reject: (err: Error) => void;
}

/** The open transaction: its writes in revision order, and key → new head (null: deleted). */
interface Batch {
  writes: PendingWrite[];
  overlay: Map<string, Head | null>;
}

/**
 * The SQLite backend (see the module comment). `new SqliteBackend({ path })` opens or creates the file
 * and loads the live index; one instance per file, and no other writer.
 */
export class SqliteBackend implements Backend {
  private readonly db: Database.Database;
  private readonly stmts: Statements;
  /** Last committed revision. */
  private revision: number;
  private compacted: number;
  /** Committed live keys and their heads. */
  private readonly heads = new SortedMap<Head>();
  private batch: Batch | undefined;
  private readonly hub = new WatchHub();
  private readonly counters: SqliteStats = { commits: 0, writes: 0 };
  private closed = false;
  /** The shutdown started by the first {@link close}. */
  private closing: Promise<void> | undefined;
  /** WAL checkpoints of a database file (none for ':memory:'). */
  private readonly checkpointer: Checkpointer | undefined;

  /** Opens or creates the database; throws what better-sqlite3 throws if the file cannot be opened. */
  constructor(opts: SqliteBackendOptions) {
    ({ db: this.db, stmts: this.stmts } = openDatabase(opts.path));
    if (isFile(opts.path)) this.checkpointer = new Checkpointer(opts.path, this.db, opts.clock ?? realClock);
    this.revision = this.stmts.lastRevision.get() ?? 0;
    this.compacted = this.stmts.compactedRevision.get() ?? 0;
    for (const row of this.stmts.heads.iterate()) {
      if (row.deleted) continue;
      this.heads.set(row.name, { key: row.name, modRevision: row.id, createRevision: row.create_revision });
    }
  }

  currentRevision(): number {
    return this.revision;
  }

  compactedRevision(): number {
    return this.compacted;
  }

  /** Committed transactions and writes since open (for the bench and the batching test). */
  stats(): SqliteStats {
    return { ...this.counters };
  }

  get(key: string): Promise<KeyValue | undefined> {
    return settle(() => {
      this.assertOpen(key);
      const head = this.heads.get(key);
      return head && this.keyValue(head);
    });
  }

  /**
   * At the current revision: keys from the in-memory sorted index, values by primary key, so a page
   * costs O(limit) point reads. At a past revision: kine's query (per name the newest row <= revision).
   */
  list(prefix: string, opts: ListOptions = {}): Promise<ListResult> {
    return settle(() => {
      this.assertOpen(prefix);
      const limit = opts.limit ?? 0;
      if (isPastRevision(prefix, opts.revision, this.compacted, this.revision)) {
        return this.listAt(prefix, opts.revision as number, opts.startAfter, limit);
      }
      const { values, more, remaining } = page(this.heads, prefix, opts.startAfter, limit);
      return { kvs: values.map((head) => this.keyValue(head)), revision: this.revision, more, remaining };
    });
  }

  count(prefix: string): Promise<number> {
    return settle(() => {
      this.assertOpen(prefix);
      return countPrefix(this.heads, prefix);
    });
  }

  create(key: string, value: string): Promise<KeyValue> {
    return settle(() => {
      const batch = this.openBatch(key);
      if (this.headInBatch(batch, key)) throw keyExists(key);
      // A key created again after a delete links to its tombstone, which may sit in this batch.
      const prevRevision = this.stmts.lastIdOfName.get(key) ?? 0;
      const revision = this.nextRevision(batch);
      return this.append(batch, { type: 'create', kv: { key, value, createRevision: revision, modRevision: revision } }, prevRevision);
    });
  }

  update(key: string, value: string, expectedRevision: number): Promise<KeyValue> {
    return settle(() => {
      const batch = this.openBatch(key);
      const prevKv = this.liveVersion(batch, key, expectedRevision);
      const kv = { key, value, createRevision: prevKv.createRevision, modRevision: this.nextRevision(batch) };
      return this.append(batch, { type: 'update', kv, prevKv }, prevKv.modRevision);
    });
  }

  delete(key: string, expectedRevision: number): Promise<KeyValue> {
    return settle(() => {
      const batch = this.openBatch(key);
      const prevKv = this.liveVersion(batch, key, expectedRevision || undefined);
      const kv = { ...prevKv, modRevision: this.nextRevision(batch) };
      return this.append(batch, { type: 'delete', kv, prevKv }, prevKv.modRevision);
    });
  }

  /** Starts a watch; see "Watch hand-over" in the module comment. */
  watch(prefix: string, fromRevision: number, handler: (events: WatchEvent[]) => void): WatchHandle {
    this.assertOpen(prefix);
    checkWatchStart(prefix, fromRevision, this.compacted, this.revision);
    const rows = fromRevision < this.revision ? this.stmts.history.all(fromRevision, this.revision, prefix, prefixEnd(prefix) ?? MAX_KEY) : [];
    return this.hub.add(prefix, rows.map(rowToEvent), this.revision, handler);
  }

  /**
   * Deletes, in its own transaction, the rows superseded by a row <= `revision` and the tombstones
   * <= `revision` (kine's compaction); live rows stay. Commits an open batch first (whose writes are
   * above `revision`, so a failure there is theirs to report, not the compaction's). Then gives the
   * freed space back to the file system (incremental vacuum and a truncating WAL checkpoint, see
   * `reclaimSpace` in ./schema.ts): the file shrinks as history is compacted. A `revision` at or
   * below the compacted one is a no-op; above the current one throws `FutureRevision`.
   */
  compact(revision: number): Promise<void> {
    return settle(async () => {
      this.assertOpen('');
      if (!needsCompaction(revision, this.compacted, this.revision)) return;
      this.commitBatch();
      // Rows below the previous compacted revision were already handled by earlier compactions.
      const from = this.compacted;
      this.db
        .transaction(() => {
          this.stmts.deleteSuperseded.run(from, revision);
          this.stmts.deleteTombstones.run(from, revision);
          this.stmts.setCompactedRevision.run(revision);
        })
        .immediate();
      this.compacted = revision;
      // The truncating checkpoint is refused while the worker checkpoints; writes may open a batch
      // meanwhile, which must commit first (the reclaim runs outside any transaction).
      await this.checkpointer?.idle();
      if (this.closed) return;
      this.commitBatch();
      reclaimSpace(this.db);
    });
  }

  /** Commits the open batch now; rejects with `Internal` if that commit fails. */
  flush(): Promise<void> {
    return settle(() => {
      const err = this.closed ? undefined : this.commitBatch();
      if (err) throw err;
    });
  }

  /**
   * The pages the database file holds (`page_count × page_size`: what the file takes, free pages
   * included, as etcd's db size counts them); undefined once closed.
   */
  sizeBytes(): number | undefined {
    if (this.closed) return undefined;
    return (this.db.pragma('page_count', { simple: true }) as number) * (this.db.pragma('page_size', { simple: true }) as number);
  }

  /**
   * Commits the open batch, stops every watch and the checkpoint worker, and closes the database (even
   * if that commit failed; then rejects with its error). Calls after the first resolve when it is done.
   */
  close(): Promise<void> {
    if (this.closing) return this.closing.catch(() => undefined);
    this.closing = settle(async () => {
      const err = this.commitBatch();
      this.closed = true;
      this.hub.stopAll();
      await this.checkpointer?.close();
      this.db.close();
      if (err) throw err;
    });
    return this.closing;
  }

  /** The open batch, starting one (BEGIN IMMEDIATE + scheduled commit) on the first write of a tick. */
  private openBatch(key: string): Batch {
    this.assertOpen(key);
    if (this.batch) return this.batch;
    this.db.exec('BEGIN IMMEDIATE');
    const batch: Batch = { writes: [], overlay: new Map() };
    this.batch = batch;
    setImmediate(() => {
      if (this.batch === batch) this.commitBatch();
    });
    return batch;
  }

  /** The revision the next write of `batch` takes. */
  private nextRevision(batch: Batch): number {
    return this.revision + batch.writes.length + 1;
  }

  /** The head of `key` as `batch` sees it: its own change if it made one, else the committed one. */
  private headInBatch(batch: Batch, key: string): Head | undefined {
    const changed = batch.overlay.get(key);
    return changed === undefined ? this.heads.get(key) : (changed ?? undefined);
  }

  /**
   * The live version of `key` (as `batch` sees it) for an update or delete expecting
   * `expectedRevision` (undefined: any). Throws `KeyNotFound` or `Conflict`.
   */
  private liveVersion(batch: Batch, key: string, expectedRevision: number | undefined): KeyValue {
    const head = this.headInBatch(batch, key);
    if (!head) throw keyNotFound(key);
    const current = this.keyValue(head);
    if (expectedRevision !== undefined && head.modRevision !== expectedRevision) throw conflict(key, expectedRevision, current);
    return current;
  }

  /**
   * Inserts the row of `event` into the open transaction and returns the write's promise, settled at
   * the commit. Throws `Internal` (after rolling the batch back) if the row did not get the expected
   * revision, i.e. someone else wrote to the database.
   */
  private append(batch: Batch, event: WatchEvent, prevRevision: number): Promise<KeyValue> {
    const { kv, type } = event;
    // The previous value is not stored (see ./schema.ts): the event published at the commit carries
    // `prevKv` from memory, and a replay reads it from the predecessor row.
    const result = this.stmts.insert.run(kv.key, type === 'create' ? 1 : 0, type === 'delete' ? 1 : 0, kv.createRevision, prevRevision, kv.value);
    if (Number(result.lastInsertRowid) !== kv.modRevision) {
      const err = new StorageError('Internal', kv.key, `revision gap: expected row id ${kv.modRevision}, got ${result.lastInsertRowid}`);
      this.abortBatch(batch, err);
      throw err;
    }
    batch.overlay.set(kv.key, type === 'delete' ? null : { key: kv.key, modRevision: kv.modRevision, createRevision: kv.createRevision });
    const frozen = Object.freeze({ ...event, kv: Object.freeze(kv) });
    return new Promise((resolve, reject) => batch.writes.push({ event: frozen, resolve, reject }));
  }

  /**
   * Commits the open batch (no-op without one): COMMIT, merge the overlay into the committed index,
   * resolve the writes, publish their events. If COMMIT fails, rolls back, rejects the writes and
   * returns the `Internal` error (for {@link flush}; the scheduled commit has nobody else to tell).
   */
  private commitBatch(): StorageError | undefined {
    const batch = this.batch;
    if (!batch) return undefined;
    try {
      this.db.exec('COMMIT');
    } catch (cause) {
      const err = new StorageError('Internal', '', `commit failed: ${cause instanceof Error ? cause.message : String(cause)}`);
      this.abortBatch(batch, err);
      return err;
    }
    this.batch = undefined;
    for (const [key, head] of batch.overlay) {
      if (head) this.heads.set(key, head);
      else this.heads.delete(key);
    }
    this.revision += batch.writes.length;
    this.counters.commits++;
    this.counters.writes += batch.writes.length;
    for (const write of batch.writes) write.resolve(write.event.kv);
    this.hub.publish(batch.writes.map((w) => w.event));
    this.checkpointer?.committed();
    return undefined;
  }

  /** Rolls the batch back and rejects its writes; the committed index never saw them. */
  private abortBatch(batch: Batch, err: StorageError): void {
    this.batch = undefined;
    if (this.db.inTransaction) this.db.exec('ROLLBACK');
    for (const write of batch.writes) write.reject(err);
  }

  /** The version `head` points at, its value read by primary key. */
  private keyValue(head: Head): KeyValue {
    const value = this.stmts.valueById.get(head.modRevision) as string;
    return Object.freeze({ key: head.key, value, createRevision: head.createRevision, modRevision: head.modRevision });
  }

  /** List at a past `revision` (already validated). */
  private listAt(prefix: string, revision: number, startAfter: string | undefined, limit: number): ListResult {
    const end = prefixEnd(prefix) ?? MAX_KEY;
    // One row more than asked tells whether there are more.
    const rows = this.stmts.listAt.all({ start: listStart(prefix, startAfter), end, revision, limit: limit > 0 ? limit + 1 : -1 });
    const more = limit > 0 && rows.length > limit;
    if (more) rows.length = limit;
    const kvs = rows.map(rowToKeyValue);
    const last = kvs[kvs.length - 1];
    const remaining = more && last ? (this.stmts.countAt.get({ start: keyAfter(last.key), end, revision }) ?? 0) : 0;
    return { kvs, revision, more, remaining };
  }

  private assertOpen(key: string): void {
    if (this.closed) throw closedError(key);
  }
}
