import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { FakeClock, flushAsync } from '../../util/clock/index.js';
import { CHECKPOINT_INTERVAL_MS } from './checkpointer.js';
import { WAL_LIMIT_BYTES } from './writer.js';
import type { Checkpointer } from './checkpointer.js';
import { SqliteBackend } from './index.js';
import { JOURNAL_SIZE_LIMIT_BYTES } from './schema.js';

const dir = mkdtempSync(join(tmpdir(), 'kubeplane-checkpointer-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const tempPath = () => join(dir, `state-${++files}.db`);

const MiB = 1024 * 1024;
const walSize = (path: string): number => (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);
const checkpointerOf = (b: SqliteBackend): Checkpointer => b['checkpointer'] as Checkpointer;
/** `PRAGMA wal_autocheckpoint` of the connection that writes (the writer thread's). */
const autocheckpointOf = async (b: SqliteBackend): Promise<unknown> => (await b['writer'].request({ op: 'autocheckpoint' })).autocheckpoint;

/** Creates `commits` batches of 100 keys with 5 KB values (about 0.5 MB of values a commit). */
async function fill(b: SqliteBackend, commits: number, after?: () => void): Promise<void> {
  const value = 'v'.repeat(5000);
  for (let c = 0; c < commits; c++) {
    const start = b.currentRevision();
    await Promise.all(Array.from({ length: 100 }, (_, i) => b.create(`/a/${start + i}`, value)));
    after?.();
  }
}

/** Spins the event loop until `done()` (the worker answers on its own thread). */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 10_000 && !done(); i++) await flushAsync(1);
  assert.ok(done(), what);
}

describe('Checkpointer', () => {
  test('commits do not checkpoint; the worker does, CHECKPOINT_INTERVAL_MS after a commit on the backend clock', async () => {
    const clock = new FakeClock();
    const path = tempPath();
    const b = new SqliteBackend({ path, clock });
    const checkpointer = checkpointerOf(b);
    assert.equal(await autocheckpointOf(b), 0, "SQLite's automatic checkpoint is off");
    await fill(b, 20); // ~10 MB of values: past 1000 pages, short of WAL_LIMIT_BYTES
    const grown = walSize(path);
    assert.ok(grown > JOURNAL_SIZE_LIMIT_BYTES && grown < WAL_LIMIT_BYTES, `the WAL kept every commit: ${grown} bytes`);
    assert.deepEqual(checkpointer.checkpoints(), { worker: 0, writer: 0 });

    clock.step(CHECKPOINT_INTERVAL_MS - 1);
    assert.equal(clock.pendingTimers(), 1, 'not yet');
    clock.step(1);
    await checkpointer.idle();
    assert.deepEqual(checkpointer.checkpoints(), { worker: 1, writer: 0 });
    // Everything was copied, so the next transaction reuses the WAL from its start, and SQLite
    // truncates the file to journal_size_limit.
    await b.create('/b/x', 'v');
    assert.ok(walSize(path) <= JOURNAL_SIZE_LIMIT_BYTES, `the WAL restarted: ${walSize(path)} bytes`);
    assert.equal((await b.get('/a/1'))?.value.length, 5000);
    await b.close();
  });

  test('the WAL stays bounded when the worker never runs: the writer restarts it between batches', async () => {
    const clock = new FakeClock(); // never stepped: the worker is never asked
    const path = tempPath();
    const b = new SqliteBackend({ path, clock });
    let peak = 0;
    await fill(b, 80, () => (peak = Math.max(peak, walSize(path)))); // ~40 MB of values
    assert.ok(peak <= WAL_LIMIT_BYTES + 2 * MiB, `the WAL stayed near ${WAL_LIMIT_BYTES} bytes: peak ${peak}`);
    const counts = checkpointerOf(b).checkpoints();
    assert.equal(counts.worker, 0);
    assert.ok(counts.writer >= 1, `the writer checkpointed ${counts.writer} times`);
    assert.equal(await b.count('/a/'), 8000);
    await b.close();
  });

  test('compaction waits for a checkpoint in flight, so its truncating checkpoint is not refused', async () => {
    const clock = new FakeClock();
    const path = tempPath();
    const b = new SqliteBackend({ path, clock });
    await fill(b, 20);
    clock.step(CHECKPOINT_INTERVAL_MS); // the worker is asked to copy ~10 MB
    let answered = false;
    void checkpointerOf(b).idle().then(() => (answered = true));
    await b.compact(b.currentRevision());
    assert.equal(answered, true, 'the compaction reclaimed space only after the worker answered');
    assert.equal(walSize(path), 0, 'the WAL is checkpointed and truncated');
    await b.close();
  });

  test('no checkpoint starts while compaction reclaims space (withoutCheckpoints), and the next one runs after', async () => {
    const clock = new FakeClock();
    const b = new SqliteBackend({ path: tempPath(), clock });
    const checkpointer = checkpointerOf(b);
    await fill(b, 2);
    let release: () => void = () => undefined;
    const held = checkpointer.withoutCheckpoints(() => new Promise<void>((resolve) => (release = resolve)));
    await flushAsync();
    clock.step(10 * CHECKPOINT_INTERVAL_MS);
    await flushAsync();
    assert.deepEqual(checkpointer.checkpoints(), { worker: 0, writer: 0 }, 'the due checkpoint waited');
    release();
    await held;
    clock.step(CHECKPOINT_INTERVAL_MS);
    await checkpointer.idle();
    assert.deepEqual(checkpointer.checkpoints(), { worker: 1, writer: 0 });
    await b.close();
  });

  test('close ends the worker and its connection: once it resolves, SQLite has checkpointed and removed the WAL', async () => {
    const path = tempPath();
    const b = new SqliteBackend({ path, clock: new FakeClock() });
    await fill(b, 2);
    assert.ok(existsSync(`${path}-wal`));
    await b.close();
    assert.equal(existsSync(`${path}-wal`), false);
    const reopened = new SqliteBackend({ path });
    assert.equal(await reopened.count('/a/'), 200);
    await reopened.close();
  });

  test('a backend left open does not keep the process alive', () => {
    // A FakeClock: no checkpoint is ever asked for, so nothing but the worker's own handles is left.
    const script = `
      const { SqliteBackend } = await import(${JSON.stringify(new URL('./index.js', import.meta.url).href)});
      const { FakeClock } = await import(${JSON.stringify(new URL('../../util/clock/index.js', import.meta.url).href)});
      const b = new SqliteBackend({ path: ${JSON.stringify(tempPath())}, clock: new FakeClock() });
      await b.create('/a/x', 'v');`;
    const file = join(dir, 'left-open.mjs'); // a file: \`node -e\` exits when the script ends
    writeFileSync(file, script);
    // Throws (ETIMEDOUT) if the process is still running after 20 s.
    execFileSync(process.execPath, [file], { timeout: 20_000 });
  });

  test('if the worker ends, SQLite checkpoints inside commits again', async () => {
    const path = tempPath();
    const b = new SqliteBackend({ path, clock: new FakeClock() });
    await checkpointerOf(b)['worker']?.terminate();
    await until(() => !checkpointerOf(b).running(), 'the checkpointer fell back');
    assert.equal(await autocheckpointOf(b), 1000, "the automatic checkpoint is back at SQLite's default");
    await fill(b, 20);
    assert.ok(walSize(path) < JOURNAL_SIZE_LIMIT_BYTES, `SQLite kept the WAL short: ${walSize(path)} bytes`);
    await b.close();
  });
});
