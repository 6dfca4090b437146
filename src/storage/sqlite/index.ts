/**
 * The SQLite {@link Backend} (the default datastore): kine's append-only revision table
 * (see ./schema.ts) through better-sqlite3, in one process that is the database's only writer.
 *
 * **Batching.** A commit is the expensive part of a write, so writes issued in the same tick share
 * one transaction. Each write checks its precondition against memory at once and takes its revision
 * (so later writes of the batch see it: a create followed by a create of the same key in one tick
 * fails with `KeyExists`); a write that fails its check (KeyExists, Conflict, KeyNotFound) is
 * rejected on the spot and the others are unaffected. The first write of a tick schedules the batch's
 * commit with `setImmediate`. Then the batch's rows go to the writer, and once it has committed them,
 * every write's promise resolves and the batch's events are published to watchers (in a later
 * microtask, so a writer awaiting its write resumes before any handler sees the event). If the commit
 * fails, every write of the batch — and of the batches handed to the writer after it, which assumed
 * its revisions — is rejected with `Internal`.
 *
 * **The writer** (./writer.ts, docs/adr/0019-sqlite-writes-in-a-worker-thread.md) runs `BEGIN`, the
 * INSERTs and `COMMIT`. For a database file it is a worker thread with its own connection, so the
 * event loop builds the next batch while the last one commits, on the other core; batches are handed
 * over in order, and more than one may be in flight. For ':memory:' (or `writerThread: false`) it runs
 * on this thread's connection, at the commit.
 *
 * **Committed view.** Reads never see a batch that is not committed yet: the in-memory index
 * (`heads`: key → {modRevision, createRevision} of each live key, sorted by key, loaded at open) holds
 * committed state only; the versions written by uncommitted batches (values included) are kept in
 * `pending`, which the precondition checks consult first, until their commit merges them in.
 * `currentRevision()` is the last committed revision, and every SQL read is bounded by
 * `id <= currentRevision()`. So a list reports a revision that matches its content, and a write is
 * never visible before its promise resolves.
 *
 * **Revisions.** The row id (AUTOINCREMENT) is the revision. With one writer, ids are gap-free: each
 * insert is asserted to get exactly the id this thread gave it. After a reopen, the revision
 * continues from `sqlite_sequence` (which remembers the last id even if compaction deleted its row),
 * and the compacted revision from `kine_meta`.
 *
 * **Checkpoints.** On a database file, SQLite's automatic WAL checkpoint (which would run inside a
 * COMMIT) is off: a worker thread copies the WAL into the file beside the writer, and the writer
 * restarts an overgrown WAL between batches (./checkpointer.ts). The timers run on the `clock` option.
 *
 * **Watch hand-over.** `watch()` reads the committed history (`id > fromRevision AND id <=
 * currentRevision()`) and registers the watcher with that upper bound in one synchronous step. No
 * commit can be merged in between (JavaScript is single-threaded and the read is synchronous; rows
 * the writer has committed beyond it are excluded by the bound), and every later commit publishes only
 * revisions above the bound: no gap, no duplicate (see WatchHub).
 */

import type { StorageError } from '../interface.js';
import type { Backend, KeyValue, ListOptions, ListResult, WatchEvent, WatchHandle, WatchOptions } from '../interface.js';
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
import { isFile, MAX_KEY, openDatabase, rowToEvent, rowToKeyValue } from './schema.js';
import type { Statements } from './schema.js';
import { Checkpointer, DEFAULT_AUTOCHECKPOINT_PAGES } from './checkpointer.js';
import { InlineWriter, WorkerWriter, WriterCore, writerError, type Row, type Writer, type WriterReply } from './writer.js';
import { realClock } from '../../util/clock/index.js';
import type { Clock } from '../../util/clock/index.js';
import type Database from 'better-sqlite3';

/** Options of {@link SqliteBackend}. */
export interface SqliteBackendOptions {
  /** Database file (created if missing), or ':memory:'. */
  path: string;
  /** Schedules the WAL checkpoints of a database file (./checkpointer.ts); default the real clock. */
  clock?: Clock;
  /**
   * Whether a database file is written from a worker thread (./writer.ts); default true. False runs
   * the writes on the event loop, as ':memory:' always does (the bench compares the two).
   */
  writerThread?: boolean;
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

/**
 * A write of a batch, waiting for the commit. `kv` is the new version (for a delete, its `value` is
 * only known once the writer has read it: the deleted value); `prev` the revisions of the version it
 * replaces (an update or delete), whose value the writer reads too.
 */
interface PendingWrite {
  type: WatchEvent['type'];
  kv: KeyValue;
  prev: Head | undefined;
  resolve: (kv: KeyValue) => void;
  reject: (err: Error) => void;
}

/** A batch: its writes and their rows, in revision order. */
interface Batch {
  writes: PendingWrite[];
  rows: Row[];
  /** The batches handed to the writer before a failure belong to an older generation (see {@link SqliteBackend.failed}). */
  generation: number;
}

/** The newest version of a key written by a batch not committed yet, for later writes' checks. */
interface PendingVersion {
  /** Undefined when that write deleted the key. */
  head: Head | undefined;
  /** The write's revision (of the tombstone, for a delete). */
  modRevision: number;
  /** The value written (undefined for a delete), for a Conflict's `current`. */
  value: string | undefined;
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
  /** The revision the next write takes: above every batch handed to the writer or open. */
  private nextRevision: number;
  private compacted: number;
  /** Committed live keys and their heads. */
  private readonly heads = new SortedMap<Head>();
  /**
   * Committed deleted keys → the revision of their tombstone, while it is stored (compaction removes
   * it): a create of the key links its row to it (`prev_revision`).
   */
  private readonly tombstones = new Map<string, number>();
  /** Keys written by batches not committed yet: their newest version. */
  private readonly pending = new Map<string, PendingVersion>();
  /** The batch collecting this tick's writes. */
  private batch: Batch | undefined;
  /** Batches handed to the writer, oldest first, each with the promise of its commit. */
  private readonly inFlight: { batch: Batch; done: Promise<void> }[] = [];
  private generation = 0;
  private readonly writer: Writer;
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
    const file = isFile(opts.path);
    const walPath = file ? `${opts.path}-wal` : undefined;
    // Writes on this thread's connection: for ':memory:', without a writer thread, or when it failed.
    const inline = (): Writer => {
      if (file) this.db.pragma(`wal_autocheckpoint = ${this.checkpointer?.running() === false ? DEFAULT_AUTOCHECKPOINT_PAGES : 0}`);
      return new InlineWriter(new WriterCore(this.db, this.stmts, walPath));
    };
    this.writer = file && opts.writerThread !== false ? new WorkerWriter(opts.path, inline) : inline();
    if (file) {
      this.checkpointer = new Checkpointer(opts.path, opts.clock ?? realClock, () => {
        // SQLite checkpoints inside commits again, on the writer's connection.
        void this.writer.request({ op: 'autocheckpoint', pages: DEFAULT_AUTOCHECKPOINT_PAGES });
      });
    }
    this.revision = this.stmts.lastRevision.get() ?? 0;
    this.nextRevision = this.revision + 1;
    this.compacted = this.stmts.compactedRevision.get() ?? 0;
    for (const row of this.stmts.heads.iterate()) {
      if (row.deleted) this.tombstones.set(row.name, row.id);
      else this.heads.set(row.name, { key: row.name, modRevision: row.id, createRevision: row.create_revision });
    }
  }

  currentRevision(): number {
    return this.revision;
  }

  /** The current revision: this process is the store's only writer. */
  fetchCurrentRevision(): Promise<number> {
    return settle(() => {
      this.assertOpen('');
      return this.revision;
    });
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

  /**
   * Checks and writes read nothing from the database: the database connection of this thread sees
   * every commit of the writer thread's, which empties its page cache, so each read would go to the
   * file (in the 10,000-replica Deployment bench, reading a create's tombstone and an update's
   * previous value took 1.5 s of the event loop). The writer reads the values it needs instead.
   */
  create(key: string, value: string): Promise<KeyValue> {
    return settle(() => {
      const batch = this.openBatch(key);
      const version = this.pending.get(key);
      if (version ? version.head : this.heads.get(key)) throw keyExists(key);
      // A key created again after a delete links to its tombstone, which may not be committed yet.
      const prevRevision = version?.modRevision ?? this.tombstones.get(key) ?? 0;
      const revision = this.nextRevision;
      return this.append(batch, 'create', { key, value, createRevision: revision, modRevision: revision }, undefined, prevRevision);
    });
  }

  update(key: string, value: string, expectedRevision: number): Promise<KeyValue> {
    return settle(() => {
      const batch = this.openBatch(key);
      const prev = this.liveHead(key, expectedRevision);
      const kv = { key, value, createRevision: prev.createRevision, modRevision: this.nextRevision };
      return this.append(batch, 'update', kv, prev, prev.modRevision);
    });
  }

  delete(key: string, expectedRevision: number): Promise<KeyValue> {
    return settle(() => {
      const batch = this.openBatch(key);
      const prev = this.liveHead(key, expectedRevision || undefined);
      // The value is the deleted one, which the writer copies from the previous row.
      const kv = { key, value: '', createRevision: prev.createRevision, modRevision: this.nextRevision };
      return this.append(batch, 'delete', kv, prev, prev.modRevision);
    });
  }

  /** Starts a watch; see "Watch hand-over" in the module comment. */
  watch(prefix: string, fromRevision: number, handler: (events: WatchEvent[]) => void, opts?: WatchOptions): WatchHandle {
    this.assertOpen(prefix);
    checkWatchStart(prefix, fromRevision, this.compacted, this.revision);
    const rows = fromRevision < this.revision ? this.stmts.history.all(fromRevision, this.revision, prefix, prefixEnd(prefix) ?? MAX_KEY) : [];
    return this.hub.add(prefix, rows.map(rowToEvent), this.revision, handler, opts);
  }

  /**
   * Deletes, in its own transaction, the rows superseded by a row <= `revision` and the tombstones
   * <= `revision` (kine's compaction); live rows stay. Hands the open batch to the writer first (whose
   * writes are above `revision`, so a failure there is theirs to report, not the compaction's). Then
   * gives the freed space back to the file system (incremental vacuum and a truncating WAL checkpoint,
   * see `reclaimSpace` in ./schema.ts): the file shrinks as history is compacted. A `revision` at or
   * below the compacted one is a no-op; above the current one throws `FutureRevision`; a failure of the
   * writer rejects with `Internal`.
   */
  compact(revision: number): Promise<void> {
    return settle(async () => {
      this.assertOpen('');
      if (!needsCompaction(revision, this.compacted, this.revision)) return;
      this.submitBatch();
      // Rows below the previous compacted revision were already handled by earlier compactions.
      const from = this.compacted;
      // Raised before the writer deletes anything, so no watch or past list starts in the range
      // meanwhile and reads rows that are going away.
      this.compacted = revision;
      const err = writerError('', 'compaction', await this.writer.request({ op: 'compact', from, to: revision }));
      if (err) {
        this.compacted = from;
        throw err;
      }
      // The compaction removed these tombstones, and the rows before them.
      for (const [key, id] of this.tombstones) if (id <= revision) this.tombstones.delete(key);
      if (this.closed) return;
      this.submitBatch();
      const reclaim = (): Promise<unknown> => this.writer.request({ op: 'reclaim' });
      // Its truncating checkpoint is refused while the worker checkpoints.
      await (this.checkpointer ? this.checkpointer.withoutCheckpoints(reclaim) : reclaim());
    });
  }

  /** Commits the open batch now; rejects with `Internal` if that commit (or an earlier one in flight) fails. */
  flush(): Promise<void> {
    return settle(async () => {
      if (this.closed) return;
      this.submitBatch();
      const err = await this.committedAll();
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
   * Commits the open batch, stops every watch, the writer and the checkpoint worker, and closes the
   * database (even if a commit failed; then rejects with its error). Calls after the first resolve
   * when it is done.
   */
  close(): Promise<void> {
    if (this.closing) return this.closing.catch(() => undefined);
    this.closing = settle(async () => {
      this.submitBatch();
      this.closed = true;
      const err = await this.committedAll();
      this.hub.stopAll();
      await this.writer.close();
      await this.checkpointer?.close();
      this.db.close();
      if (err) throw err;
    });
    return this.closing;
  }

  /**
   * Waits for the batches handed to the writer so far (not for later ones, which a steady stream of
   * writes would keep adding); the error of the first that failed, if any.
   */
  private async committedAll(): Promise<StorageError | undefined> {
    const results = await Promise.allSettled(this.inFlight.map((f) => f.done));
    for (const r of results) if (r.status === 'rejected') return r.reason as StorageError;
    return undefined;
  }

  /** The open batch, starting one (and scheduling its commit) on the first write of a tick. */
  private openBatch(key: string): Batch {
    this.assertOpen(key);
    if (this.batch) return this.batch;
    const batch: Batch = { writes: [], rows: [], generation: this.generation };
    this.batch = batch;
    setImmediate(() => {
      if (this.batch === batch) this.submitBatch();
    });
    return batch;
  }

  /**
   * The live head of `key` for an update or delete expecting `expectedRevision` (undefined: any), as
   * the writes so far see it (pending ones included). Throws `KeyNotFound`, or `Conflict` carrying the
   * current version.
   */
  private liveHead(key: string, expectedRevision: number | undefined): Head {
    const version = this.pending.get(key);
    const head = version ? version.head : this.heads.get(key);
    if (!head) throw keyNotFound(key);
    if (expectedRevision !== undefined && head.modRevision !== expectedRevision) {
      const value = version?.value ?? this.stmts.valueById.get(head.modRevision) ?? '';
      throw conflict(key, expectedRevision, Object.freeze({ key, value, createRevision: head.createRevision, modRevision: head.modRevision }));
    }
    return head;
  }

  /**
   * Adds a write (taking the next revision) to `batch`: `kv` the new version, `prev` the head it
   * replaces, `prevRevision` the id of the key's previous row. Its promise settles at the commit.
   */
  private append(batch: Batch, type: WatchEvent['type'], kv: KeyValue, prev: Head | undefined, prevRevision: number): Promise<KeyValue> {
    this.nextRevision++;
    // The previous value is not stored (see ./schema.ts): the event published at the commit carries
    // `prevKv` as the writer read it, and a replay reads it from the predecessor row.
    batch.rows.push({
      id: kv.modRevision,
      name: kv.key,
      created: type === 'create' ? 1 : 0,
      deleted: type === 'delete' ? 1 : 0,
      createRevision: kv.createRevision,
      prevRevision,
      value: type === 'delete' ? null : kv.value,
    });
    const head = type === 'delete' ? undefined : { key: kv.key, modRevision: kv.modRevision, createRevision: kv.createRevision };
    this.pending.set(kv.key, { head, modRevision: kv.modRevision, value: type === 'delete' ? undefined : kv.value });
    return new Promise((resolve, reject) => batch.writes.push({ type, kv, prev, resolve, reject }));
  }

  /** Hands the open batch (if any) to the writer; its commit is merged in when the writer answers. */
  private submitBatch(): void {
    const batch = this.batch;
    if (!batch) return;
    this.batch = undefined;
    const done = this.writer.request({ op: 'commit', rows: batch.rows }).then((reply) => {
      this.inFlight.shift();
      const err = writerError('', 'commit', reply);
      // A writer thread that died after its COMMIT answers with an error too: the rows tell.
      if (err && !this.stored(batch)) {
        this.failed(batch, err);
        throw err;
      }
      this.committed(batch, reply);
    });
    // committedAll() reports the failure; nothing else awaits it.
    done.catch(() => undefined);
    this.inFlight.push({ batch, done });
  }

  /** Whether the database holds `batch`'s last row (a commit stores all of a batch's rows or none). */
  private stored(batch: Batch): boolean {
    const last = batch.rows[batch.rows.length - 1];
    return last !== undefined && (this.stmts.lastRevision.get() ?? 0) >= last.id;
  }

  /**
   * The writer committed `batch`: merge it into the committed index, resolve its writes, publish its
   * events (each update's and delete's previous value as the writer read it). A batch of an older
   * generation (handed over before a failure) was already rejected.
   */
  private committed(batch: Batch, reply: WriterReply): void {
    if (batch.generation !== this.generation) return;
    for (const row of batch.rows) {
      if (row.deleted) {
        this.heads.delete(row.name);
        this.tombstones.set(row.name, row.id);
      } else {
        this.heads.set(row.name, { key: row.name, modRevision: row.id, createRevision: row.createRevision });
        if (row.created) this.tombstones.delete(row.name);
      }
      // A later batch may have written the key again: its version stays pending.
      if (this.pending.get(row.name)?.modRevision === row.id) this.pending.delete(row.name);
    }
    this.revision += batch.writes.length;
    this.counters.commits++;
    this.counters.writes += batch.writes.length;
    const events = batch.writes.map((write, i) => eventOf(write, reply.prevValues?.[i] ?? ''));
    for (let i = 0; i < events.length; i++) batch.writes[i]?.resolve((events[i] as WatchEvent).kv);
    this.hub.publish(events);
    this.checkpointer?.committed(reply.walCheckpointed === true);
  }

  /**
   * The writer failed to commit `batch` (rolled back: none of its rows is stored). Every batch handed
   * over after it assumed its revisions, and so does the open one: all their writes are rejected with
   * `err`, and the next write starts again from the last committed revision. Batches already handed
   * over belong to the old generation; their answers are ignored (the writer fails them too: their
   * first row does not get the id it expects).
   */
  private failed(batch: Batch, err: StorageError): void {
    if (batch.generation !== this.generation) return;
    this.generation++;
    for (const write of batch.writes) write.reject(err);
    const later = [...this.inFlight.map((f) => f.batch), ...(this.batch ? [this.batch] : [])];
    this.batch = undefined;
    for (const b of later) for (const write of b.writes) write.reject(err);
    this.pending.clear();
    this.nextRevision = this.revision + 1;
  }

  /** The version `head` points at, its value read by primary key (a read of the file: see {@link create}). */
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

/**
 * The frozen watch event of a committed write; `prevValue` is the value the writer read for its
 * previous version (for a delete, also the value of the delete itself).
 */
function eventOf(write: PendingWrite, prevValue: string): WatchEvent {
  const { type, prev } = write;
  if (!prev) return Object.freeze({ type, kv: Object.freeze(write.kv) });
  const kv = Object.freeze(type === 'delete' ? { ...write.kv, value: prevValue } : write.kv);
  return Object.freeze({ type, kv, prevKv: Object.freeze({ key: prev.key, value: prevValue, createRevision: prev.createRevision, modRevision: prev.modRevision }) });
}
