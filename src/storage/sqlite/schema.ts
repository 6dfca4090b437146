/**
 * The SQLite schema and statements of {@link SqliteBackend}: k3s-io/kine's single append-only table
 * (`pkg/drivers/sqlite/sqlite.go` schema, `pkg/drivers/generic/generic.go` queries), one row per
 * revision, plus a one-row-per-setting `kine_meta` table for the compacted revision.
 *
 * A row is one write: `id` is its revision; `created`/`deleted` flag a create or a tombstone;
 * `prev_revision` is the id of the key's previous row (0 for a key's first row, or when that row was
 * compacted away), so the unique (name, prev_revision) index rejects two successors of one version;
 * `value` is the new value (for a tombstone: the deleted value). kine's `old_value` (the previous
 * value) is written NULL (docs/adr/0017-rows-do-not-copy-the-previous-value.md): an update's previous
 * value is its predecessor row's `value`, which compaction keeps as long as the update's own row is
 * above the compacted revision, i.e. as long as a watch can replay it (see {@link HISTORY}); a
 * tombstone's is its own `value`. Rows an older kubeplane wrote still carry `old_value`, and replay
 * prefers it.
 *
 * Of kine's secondary indexes only (name, id) is kept: current and past reads are per-name `MAX(id)`
 * lookups on it; history and compaction scan rowid ranges, which need no index.
 */

import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { KeyValue, WatchEvent } from '../interface.js';

/** Upper bound for "every key" in SQL ranges: above the UTF-8 encoding of any key we store. */
export const MAX_KEY = '\u{10FFFF}';

const DDL = `
CREATE TABLE IF NOT EXISTS kine (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  created INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  value TEXT NOT NULL,
  old_value TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS kine_name_prev_revision_uindex ON kine (name, prev_revision);
CREATE INDEX IF NOT EXISTS kine_name_id_index ON kine (name, id);
CREATE TABLE IF NOT EXISTS kine_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
`;

/** The columns of {@link KineRow}, for SELECTs (never `*`, which would read an old row's `old_value`). */
const COLUMNS = 'id, name, created, deleted, create_revision, prev_revision, value';

/** Parameters of the live-at-revision queries: start <= name < end, as of `revision`. */
export interface RangeAt {
  start: string;
  end: string;
  revision: number;
}

/**
 * `what` of, per name in [start, end), the row that is its newest with id <= revision, unless a tombstone. Walks
 * the (name, id) index in name order, so a LIMIT stops early; the correlated MAX is one index probe.
 */
const liveAt = (what: string): string => `SELECT ${what} FROM kine AS k WHERE k.name >= @start AND k.name < @end AND k.deleted = 0
  AND k.id = (SELECT MAX(m.id) FROM kine AS m WHERE m.name = k.name AND m.id <= @revision)`;

/** The columns of a `kine` row that reads use (`old_value` is left out: see the module comment). */
export interface KineRow {
  id: number;
  name: string;
  created: number;
  deleted: number;
  create_revision: number;
  prev_revision: number;
  value: string;
}

/** A row of watch history: a `kine` row and the value it replaced (null for a create). */
export interface HistoryRow extends KineRow {
  prev_value: string | null;
}

/**
 * Rows with from < id <= to and start <= name < end, by id, each with the value it replaced: none for
 * a create; for a tombstone its own `value` (the deleted value); for an update the `old_value` an older
 * kubeplane stored, else the `value` of its predecessor row (by primary key). That row is still there:
 * compaction at R deletes a row only when its successor has id <= R (deleteSuperseded; the unique
 * (name, prev_revision) index makes that successor the only one), or when it is a tombstone
 * (deleteTombstones), whose successor is a create; and history is read only above the compacted
 * revision. NOT INDEXED keeps the planner on the rowid range (a watch usually starts from a recent
 * revision) rather than the name index; the predecessor lookup is by rowid, which NOT INDEXED allows.
 */
const HISTORY = `SELECT k.id, k.name, k.created, k.deleted, k.create_revision, k.prev_revision, k.value,
  CASE WHEN k.created THEN NULL WHEN k.deleted THEN k.value
    ELSE COALESCE(k.old_value, (SELECT p.value FROM kine AS p WHERE p.id = k.prev_revision), '') END AS prev_value
  FROM kine AS k NOT INDEXED WHERE k.id > ? AND k.id <= ? AND k.name >= ? AND k.name < ? ORDER BY k.id`;

/** The prepared statements the backend runs. */
export interface Statements {
  /** Appends a row: name, created, deleted, create_revision, prev_revision, value (old_value NULL). */
  insert: Database.Statement<[string, number, number, number, number, string]>;
  /** The value of the row with this id (a key's current version, by its modRevision). */
  valueById: Database.Statement<[number], string>;
  /** Rows with from < id <= to and start <= name < end, by id: watch history ({@link HISTORY}). */
  history: Database.Statement<[number, number, string, string], HistoryRow>;
  /** Live versions at a revision ({@link liveAt}), by name, at most `limit` (-1: all). */
  listAt: Database.Statement<[RangeAt & { limit: number }], KineRow>;
  /** COUNT of what `listAt` returns without a limit. */
  countAt: Database.Statement<[RangeAt], number>;
  /** Per name its newest row (SQLite takes bare columns from the MAX(id) row): the live index at open. */
  heads: Database.Statement<[], { name: string; id: number; create_revision: number; deleted: number }>;
  /** The AUTOINCREMENT high-water mark: the current revision, even when its row was compacted away. */
  lastRevision: Database.Statement<[], number>;
  compactedRevision: Database.Statement<[], number>;
  setCompactedRevision: Database.Statement<[number]>;
  /** Deletes rows superseded by a row with from < id <= to. */
  deleteSuperseded: Database.Statement<[number, number]>;
  /** Deletes tombstones with from < id <= to. */
  deleteTombstones: Database.Statement<[number, number]>;
}

/**
 * The WAL file is truncated back to this size (bytes) whenever it is reused from its start (SQLite's
 * `journal_size_limit`): twice what SQLite's default auto-checkpoint (1000 pages of 4 KiB) let it
 * reach, so the steady-state WAL is reused in place, while the one a large batch or a compaction blew
 * up does not keep its size on disk. ./checkpointer.ts restarts a WAL that grows past twice this.
 */
export const JOURNAL_SIZE_LIMIT_BYTES = 8 * 1024 * 1024;

/** Owner read/write only: the database holds every object, Secrets included. */
const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates the database file with mode 0600 if it is missing, and sets 0600 on one that exists (an
 * older kubeplane left it 0644). SQLite creates the `-wal` and `-shm` files with the database file's
 * permissions (os_unix.c `findCreateFileMode`), so they are private too; ones left by an older run are
 * chmodded after the open.
 */
function makePrivate(path: string): void {
  closeSync(openSync(path, 'a', PRIVATE_FILE_MODE));
  chmodSync(path, PRIVATE_FILE_MODE);
}

/** `PRAGMA auto_vacuum` value of INCREMENTAL (0 is NONE, 1 FULL). */
const AUTO_VACUUM_INCREMENTAL = 2;

/**
 * Opens (creating if needed) the database at `path` (':memory:' allowed) with kine's SQLite settings:
 * WAL journal, synchronous=NORMAL (a commit is durable against a process crash, and against power
 * loss once the WAL is checkpointed), and a busy timeout; plus incremental auto-vacuum (see
 * {@link ensureIncrementalAutoVacuum}) and {@link JOURNAL_SIZE_LIMIT_BYTES}, so compaction can give
 * space back to the file system ({@link reclaimSpace}). The files are private to the owner (see
 * {@link makePrivate}).
 */
export function openDatabase(path: string): { db: Database.Database; stmts: Statements } {
  const onDisk = isFile(path);
  if (onDisk) makePrivate(path);
  const db = new Database(path);
  ensureIncrementalAutoVacuum(db);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 30000');
  db.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT_BYTES}`);
  db.exec(DDL);
  if (onDisk) for (const file of [`${path}-wal`, `${path}-shm`]) if (existsSync(file)) chmodSync(file, PRIVATE_FILE_MODE);
  const stmts: Statements = {
    insert: db.prepare(
      'INSERT INTO kine (name, created, deleted, create_revision, prev_revision, value) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    valueById: db.prepare<[number], string>('SELECT value FROM kine WHERE id = ?').pluck(),
    history: db.prepare<[number, number, string, string], HistoryRow>(HISTORY),
    listAt: db.prepare<[RangeAt & { limit: number }], KineRow>(`${liveAt(COLUMNS)} ORDER BY k.name LIMIT @limit`),
    countAt: db.prepare<[RangeAt], number>(liveAt('COUNT(*)')).pluck(),
    heads: db.prepare('SELECT name, MAX(id) AS id, create_revision, deleted FROM kine GROUP BY name ORDER BY name'),
    lastRevision: db.prepare<[], number>("SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'kine'), 0)").pluck(),
    compactedRevision: db
      .prepare<[], number>("SELECT COALESCE((SELECT value FROM kine_meta WHERE key = 'compact_rev'), 0)")
      .pluck(),
    setCompactedRevision: db.prepare(
      "INSERT INTO kine_meta (key, value) VALUES ('compact_rev', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    ),
    deleteSuperseded: db.prepare(
      'DELETE FROM kine WHERE id IN (SELECT prev_revision FROM kine WHERE id > ? AND id <= ? AND prev_revision > 0)',
    ),
    deleteTombstones: db.prepare('DELETE FROM kine WHERE id > ? AND id <= ? AND deleted = 1'),
  };
  return { db, stmts };
}

/** Whether `path` names a database file (not ':memory:' or a temporary database): one with a WAL. */
export function isFile(path: string): boolean {
  return path !== '' && !path.startsWith(':');
}

/**
 * Switches the database to `auto_vacuum = INCREMENTAL`, under which freed pages stay on a free list
 * that `PRAGMA incremental_vacuum` returns to the file system (without it SQLite reuses free pages but
 * never shrinks the file). The mode must be chosen before the first table is created; a database made
 * by an older kubeplane (mode NONE) is rebuilt once with `VACUUM` to switch (a full copy, done at open).
 */
function ensureIncrementalAutoVacuum(db: Database.Database): void {
  if (db.pragma('auto_vacuum', { simple: true }) === AUTO_VACUUM_INCREMENTAL) return;
  db.pragma('auto_vacuum = INCREMENTAL');
  const tables = db.prepare<[], number>("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'").pluck().get() ?? 0;
  if (tables > 0) db.exec('VACUUM');
}

/**
 * Gives the pages a compaction freed back to the file system: `PRAGMA incremental_vacuum` moves them
 * off the end of the database file, and `PRAGMA wal_checkpoint(TRUNCATE)` copies the WAL into the
 * database and truncates the WAL to zero bytes. Runs outside any transaction (the backend calls it
 * right after the compaction commits, when no batch is open).
 */
export function reclaimSpace(db: Database.Database): void {
  db.exec('PRAGMA incremental_vacuum');
  db.pragma('wal_checkpoint(TRUNCATE)');
}

/** The watch event a history row records (see the module comment for the columns). */
export function rowToEvent(row: HistoryRow): WatchEvent {
  const kv: KeyValue = Object.freeze({
    key: row.name,
    value: row.value,
    createRevision: row.create_revision,
    modRevision: row.id,
  });
  if (row.created) return Object.freeze({ type: 'create', kv });
  const prevKv: KeyValue = Object.freeze({
    key: row.name,
    value: row.prev_value ?? '',
    createRevision: row.create_revision,
    modRevision: row.prev_revision,
  });
  return Object.freeze({ type: row.deleted ? 'delete' : 'update', kv, prevKv });
}

/** The version a (live) row stores. */
export function rowToKeyValue(row: KineRow): KeyValue {
  return Object.freeze({ key: row.name, value: row.value, createRevision: row.create_revision, modRevision: row.id });
}
