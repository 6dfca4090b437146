import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { flushAsync } from '../../util/clock/index.js';
import { isStorageError } from '../interface.js';
import type { WatchEvent } from '../interface.js';
import { runBackendConformance } from '../testing/conformance.js';
import { SqliteBackend } from './index.js';

const dir = mkdtempSync(join(tmpdir(), 'kubeplane-sqlite-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const tempPath = () => join(dir, `state-${++files}.db`);

runBackendConformance('SqliteBackend', () => new SqliteBackend({ path: ':memory:' }));
runBackendConformance('SqliteBackend (file, writer thread)', () => new SqliteBackend({ path: tempPath() }));
runBackendConformance('SqliteBackend (file, writes on the event loop)', () => new SqliteBackend({ path: tempPath(), writerThread: false }));

/** Bytes of the database file plus its WAL. */
const fileSize = (path: string): number => [path, `${path}-wal`].reduce((n, p) => n + (existsSync(p) ? statSync(p).size : 0), 0);

/** `PRAGMA auto_vacuum` of the file at `path` (0 NONE, 1 FULL, 2 INCREMENTAL). */
function autoVacuumOf(path: string): unknown {
  const db = new Database(path, { readonly: true });
  try {
    return db.pragma('auto_vacuum', { simple: true });
  } finally {
    db.close();
  }
}

/** The events a watch of `prefix` from `from` replays (history only: it stops before any write). */
async function replay(backend: SqliteBackend, prefix: string, from: number): Promise<WatchEvent[]> {
  const events: WatchEvent[] = [];
  const handle = backend.watch(prefix, from, (batch) => events.push(...batch));
  await flushAsync();
  handle.stop();
  return events;
}

describe('SqliteBackend', () => {
  test('state, revision and compacted revision survive close and reopen', async () => {
    const path = tempPath();
    const b1 = new SqliteBackend({ path });
    const x = await b1.create('/a/x', 'x1'); // 1
    await b1.create('/a/y', 'y1'); // 2
    await b1.update('/a/x', 'x2', x.modRevision); // 3
    await b1.delete('/a/y', 0); // 4
    await b1.create('/a/z', 'z1'); // 5
    await b1.compact(3);
    const before = await b1.list('/a/');
    await b1.close();

    const b2 = new SqliteBackend({ path });
    assert.equal(b2.currentRevision(), 5);
    assert.equal(b2.compactedRevision(), 3);
    assert.deepEqual(await b2.list('/a/'), before);
    assert.deepEqual(await b2.get('/a/x'), { key: '/a/x', value: 'x2', createRevision: 1, modRevision: 3 });
    assert.deepEqual((await b2.list('/a/', { revision: 4 })).kvs.map((kv) => kv.value), ['x2']);
    const events: WatchEvent[] = [];
    b2.watch('/a/', 3, (batch) => events.push(...batch));
    await flushAsync();
    assert.deepEqual(events.map((e) => [e.type, e.kv.modRevision]), [['delete', 4], ['create', 5]]);
    assert.equal(events[0]?.prevKv?.value, 'y1', 'prevKv of the delete replayed after the reopen');
    // The revision continues, and a key deleted before the restart can be created again.
    assert.equal((await b2.create('/a/y', 'y2')).modRevision, 6);
    await b2.close();
  });

  test('the revision continues after a reopen even when compaction removed the newest row', async () => {
    const path = tempPath();
    const b1 = new SqliteBackend({ path });
    await b1.create('/a/x', '1'); // 1
    await b1.delete('/a/x', 0); // 2: a tombstone, which compact(2) deletes
    await b1.compact(2);
    await b1.close();
    const b2 = new SqliteBackend({ path });
    assert.equal(b2.currentRevision(), 2);
    assert.equal(await b2.count('/a/'), 0);
    assert.equal((await b2.create('/a/x', '2')).modRevision, 3);
    await b2.close();
  });

  test('the file holds kine rows; compaction deletes superseded rows and tombstones', async () => {
    const path = tempPath();
    const b = new SqliteBackend({ path });
    const x = await b.create('/a/x', 'x1'); // 1
    await b.update('/a/x', 'x2', x.modRevision); // 2
    await b.create('/a/y', 'y1'); // 3
    await b.delete('/a/y', 0); // 4
    await b.create('/a/y', 'y2'); // 5
    await b.close();
    const rows = () => {
      const db = new Database(path, { readonly: true });
      try {
        return db.prepare('SELECT id, name, created, deleted, create_revision, prev_revision, value, old_value FROM kine ORDER BY id').raw().all();
      } finally {
        db.close();
      }
    };
    assert.deepEqual(rows(), [
      [1, '/a/x', 1, 0, 1, 0, 'x1', null],
      [2, '/a/x', 0, 0, 1, 1, 'x2', null], // the previous value is row 1's, not copied
      [3, '/a/y', 1, 0, 3, 0, 'y1', null],
      [4, '/a/y', 0, 1, 3, 3, 'y1', null], // a tombstone's value is the deleted value
      [5, '/a/y', 1, 0, 5, 4, 'y2', null],
    ]);
    const b2 = new SqliteBackend({ path });
    await b2.compact(4);
    await b2.close();
    assert.deepEqual(rows().map((r) => (r as unknown[])[0]), [2, 5]);
  });

  test('after every compaction, a replay from the compacted revision equals the live events, prevKv included', async () => {
    // Seeded writes over a few keys: creates, updates, deletes and creates after deletes, some in one
    // batch. Each replayed update's prevKv comes from its predecessor row, which compaction must keep.
    const path = tempPath();
    const b = new SqliteBackend({ path });
    const live: WatchEvent[] = [];
    b.watch('/k/', 0, (batch) => live.push(...batch));
    let seed = 7;
    const next = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    for (let round = 0; round < 120; round++) {
      const writes: Promise<unknown>[] = [];
      const batch = 1 + next(3);
      const touched = new Set<string>();
      for (let i = 0; i < batch; i++) {
        const key = `/k/${next(5)}`;
        if (touched.has(key)) continue; // one write per key per batch keeps the expectations simple
        touched.add(key);
        const head = await b.get(key);
        if (!head) writes.push(b.create(key, `${key}@${round}`));
        else if (next(4) === 0) writes.push(b.delete(key, head.modRevision));
        else writes.push(b.update(key, `${key}@${round}`, head.modRevision));
      }
      await Promise.all(writes);
    }
    await flushAsync();
    assert.equal(live.length, b.currentRevision());
    for (let revision = 0; revision <= b.currentRevision(); revision += 1 + next(9)) {
      await b.compact(revision);
      assert.deepEqual(await replay(b, '/k/', revision), live.filter((e) => e.kv.modRevision > revision), `replay from ${revision}`);
    }
    const compacted = b.compactedRevision();
    await b.close();
    const reopened = new SqliteBackend({ path });
    assert.deepEqual(await replay(reopened, '/k/', compacted), live.filter((e) => e.kv.modRevision > compacted), 'replay after a reopen');
    await reopened.close();
  });

  test('a database an older kubeplane wrote (old_value copied into every row) replays, compacts and takes new writes', async () => {
    const path = tempPath();
    const raw = new Database(path);
    // The format before docs/adr/0014: the same table, with the previous value copied into old_value
    // (for a tombstone, the deleted value). Compacted at 3, which deleted row 1 (x1, superseded by 3).
    raw.exec(`
      CREATE TABLE kine (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, created INTEGER NOT NULL,
        deleted INTEGER NOT NULL, create_revision INTEGER NOT NULL, prev_revision INTEGER NOT NULL,
        value TEXT NOT NULL, old_value TEXT);
      CREATE UNIQUE INDEX kine_name_prev_revision_uindex ON kine (name, prev_revision);
      CREATE INDEX kine_name_id_index ON kine (name, id);
      CREATE TABLE kine_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
      INSERT INTO kine VALUES
        (2, '/a/y', 1, 0, 2, 0, 'y1', NULL),
        (3, '/a/x', 0, 0, 1, 1, 'x2', 'x1'),
        (4, '/a/y', 0, 1, 2, 2, 'y1', 'y1'),
        (5, '/a/x', 0, 0, 1, 3, 'x3', 'x2'),
        (6, '/a/y', 1, 0, 6, 4, 'y2', NULL);
      INSERT INTO kine_meta VALUES ('compact_rev', 3);
    `);
    raw.close();
    const kv = (key: string, value: string, createRevision: number, modRevision: number) => ({ key, value, createRevision, modRevision });
    const history = [
      { type: 'delete', kv: kv('/a/y', 'y1', 2, 4), prevKv: kv('/a/y', 'y1', 2, 2) },
      { type: 'update', kv: kv('/a/x', 'x3', 1, 5), prevKv: kv('/a/x', 'x2', 1, 3) },
      { type: 'create', kv: kv('/a/y', 'y2', 6, 6) },
      { type: 'update', kv: kv('/a/x', 'x4', 1, 7), prevKv: kv('/a/x', 'x3', 1, 5) },
      { type: 'delete', kv: kv('/a/x', 'x4', 1, 8), prevKv: kv('/a/x', 'x4', 1, 7) },
    ];

    const b = new SqliteBackend({ path });
    assert.deepEqual([b.currentRevision(), b.compactedRevision()], [6, 3]);
    assert.deepEqual(await replay(b, '/a/', 3), history.slice(0, 3), 'the old rows replay as they did');
    await b.update('/a/x', 'x4', 5); // 7: a new row, after an old one
    await b.delete('/a/x', 7); // 8
    assert.deepEqual(await replay(b, '/a/', 3), history, 'old and new rows replay alike');
    await b.compact(5);
    assert.deepEqual(await replay(b, '/a/', 5), history.slice(2), 'row 5 (old format) is kept for the prevKv of row 7');
    await b.close();

    const reopened = new SqliteBackend({ path });
    assert.deepEqual(await replay(reopened, '/a/', 5), history.slice(2));
    assert.deepEqual(await reopened.list('/a/'), { kvs: [kv('/a/y', 'y2', 6, 6)], revision: 8, more: false, remaining: 0 });
    await reopened.close();
    const check = new Database(path, { readonly: true });
    assert.deepEqual(check.prepare('SELECT id, old_value FROM kine ORDER BY id').raw().all(), [
      [5, 'x2'],
      [6, null],
      [7, null],
      [8, null],
    ]);
    check.close();
  });

  test('writes issued in one tick share one transaction', async () => {
    const b = new SqliteBackend({ path: ':memory:' });
    const writes = Array.from({ length: 100 }, (_, i) => b.create(`/a/${i}`, 'v'));
    const stats = b.stats();
    assert.deepEqual(stats, { commits: 0, writes: 0 }, 'nothing commits before the tick ends');
    const kvs = await Promise.all(writes);
    assert.deepEqual(kvs.map((kv) => kv.modRevision), Array.from({ length: 100 }, (_, i) => i + 1));
    assert.deepEqual(b.stats(), { commits: 1, writes: 100 });
    await b.create('/b/1', 'v');
    assert.deepEqual(b.stats(), { commits: 2, writes: 101 });
    await b.close();
  });

  test('a batch is invisible to reads until it commits', async () => {
    const b = new SqliteBackend({ path: ':memory:' });
    await b.create('/a/old', 'v'); // 1
    const pending = b.create('/a/new', 'v'); // 2, not committed yet
    assert.equal(await b.get('/a/new'), undefined);
    const list = await b.list('/a/');
    assert.deepEqual([list.revision, list.kvs.length], [1, 1]);
    assert.equal(b.currentRevision(), 1);
    assert.equal(await b.count('/a/'), 1);
    await pending;
    assert.equal(b.currentRevision(), 2);
    assert.equal((await b.get('/a/new'))?.modRevision, 2);
    await b.close();
  });

  test('flush commits the open batch at once', async () => {
    const b = new SqliteBackend({ path: ':memory:' });
    let resolved = false;
    const pending = b.create('/a/x', 'v').then(() => (resolved = true));
    await b.flush();
    assert.equal(b.currentRevision(), 1);
    assert.deepEqual(b.stats(), { commits: 1, writes: 1 });
    await pending;
    assert.equal(resolved, true);
    await b.close();
  });

  test('a failed commit rejects the batch and leaves the committed state untouched', async () => {
    const b = new SqliteBackend({ path: ':memory:' });
    await b.create('/a/x', 'v1'); // 1
    // Make the next COMMIT fail, as a full disk would.
    const db = b['db'];
    const exec = db.exec.bind(db);
    let failNext = true;
    db.exec = (sql: string) => {
      if (sql === 'COMMIT' && failNext) {
        failNext = false;
        throw new Error('disk I/O error');
      }
      return exec(sql);
    };
    const events: WatchEvent[] = [];
    b.watch('/a/', 0, (batch) => events.push(...batch));
    const doomed = [b.create('/a/y', 'v'), b.update('/a/x', 'v2', 1)];
    for (const p of doomed) await assert.rejects(p, (err: unknown) => isStorageError(err, 'Internal'));
    assert.equal(b.currentRevision(), 1);
    assert.equal(await b.get('/a/y'), undefined);
    assert.equal((await b.get('/a/x'))?.value, 'v1');
    // The next batch takes the revisions the failed one did not keep.
    assert.equal((await b.create('/a/y', 'v')).modRevision, 2);
    await flushAsync();
    assert.deepEqual(events.map((e) => e.kv.modRevision), [1, 2], 'watchers never saw the rolled-back writes');
    await b.close();
  });

  test('compaction gives the space back: 20,000 updates of one key, compact, and the file (db + WAL) is back near its start size', async () => {
    const path = tempPath();
    const b = new SqliteBackend({ path });
    const value = (i: number): string =>
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big', namespace: 'default', annotations: { n: String(i) } }, data: { payload: 'x'.repeat(900) } });
    const key = '/registry/core/configmaps/default/big';
    let rev = (await b.create(key, value(0))).modRevision;
    const start = fileSize(path);
    // 200 commits of 100 updates each (one tick's writes share a transaction and see each other).
    for (let i = 1; i <= 20_000; i += 100) {
      const writes: Promise<unknown>[] = [];
      for (let j = 0; j < 100; j++) writes.push(b.update(key, value(i + j), rev++));
      await Promise.all(writes);
    }
    const peak = fileSize(path);
    assert.ok(peak > 20 * 1024 * 1024, `20,000 versions of ~1 KB take room: ${peak} bytes`);
    await b.compact(b.currentRevision());
    const after = fileSize(path);
    assert.ok(after < 4 * start, `back near the start size: ${after} bytes after, ${start} at the start, ${peak} at the peak`);
    assert.equal(existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0, 0, 'the WAL is checkpointed and truncated');
    assert.equal((await b.get(key))?.value, value(20_000));
    await b.close();
  });

  test('a new database uses incremental auto-vacuum; one made without it is switched (VACUUM) at open, data intact', async () => {
    const fresh = tempPath();
    await new SqliteBackend({ path: fresh }).close();
    assert.equal(autoVacuumOf(fresh), 2);

    const old = tempPath();
    const b1 = new SqliteBackend({ path: old });
    await b1.create('/a/x', 'x1');
    await b1.close();
    const raw = new Database(old);
    raw.pragma('auto_vacuum = NONE');
    raw.exec('VACUUM');
    raw.close();
    assert.equal(autoVacuumOf(old), 0, 'as an older kubeplane left it');
    const b2 = new SqliteBackend({ path: old });
    assert.equal(autoVacuumOf(old), 2);
    assert.deepEqual(await b2.get('/a/x'), { key: '/a/x', value: 'x1', createRevision: 1, modRevision: 1 });
    await b2.close();
  });

  test('the database, its WAL and shared-memory files are private (0600), including ones an older run left 0644', async () => {
    const mode = (p: string): number => statSync(p).mode & 0o777;
    const path = tempPath();
    const b = new SqliteBackend({ path });
    await b.create('/a/x', 'secret');
    for (const file of [path, `${path}-wal`, `${path}-shm`]) assert.equal(mode(file), 0o600, file);
    await b.close();

    const old = tempPath();
    await new SqliteBackend({ path: old }).close();
    chmodSync(old, 0o644);
    writeFileSync(`${old}-wal`, '', { mode: 0o644 }); // as a crash leaves it
    chmodSync(`${old}-wal`, 0o644);
    const b2 = new SqliteBackend({ path: old });
    for (const file of [old, `${old}-wal`]) assert.equal(mode(file), 0o600, file);
    await b2.close();
  });
});
