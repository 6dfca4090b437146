import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { flushAsync } from '../../util/clock/index.js';
import { isStorageError, type WatchEvent } from '../interface.js';
import { SqliteBackend } from './index.js';
import type { WorkerWriter, Writer, WriterReply, WriterRequest } from './writer.js';

const dir = mkdtempSync(join(tmpdir(), 'kubeplane-sqlite-writer-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const tempPath = () => join(dir, `state-${++files}.db`);

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const writerOf = (b: SqliteBackend): Writer => b['writer'];
const inFlightOf = (b: SqliteBackend): number => b['inFlight'].length;
/** Replaces the backend's writer (tests only: the field is readonly to the backend's own code). */
const setWriter = (b: SqliteBackend, w: Writer): void => void Object.defineProperty(b, 'writer', { value: w });

/** Spins the event loop until `done()` (the writer thread answers on its own thread). */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 10_000 && !done(); i++) await flushAsync(1);
  assert.ok(done(), what);
}

describe('SqliteBackend writer thread', () => {
  test('the next batch is built while the last one commits on the writer thread, and checked against it', async () => {
    const b = new SqliteBackend({ path: tempPath() });
    const events: WatchEvent[] = [];
    b.watch('/a/', 0, (batch) => events.push(...batch));
    const first = b.create('/a/x', 'v1');
    await tick(); // the batch went to the writer thread, which has not answered yet
    assert.deepEqual([b.currentRevision(), inFlightOf(b)], [0, 1], 'batch 1 is in flight, not committed');
    await assert.rejects(b.create('/a/x', 'again'), (err: unknown) => isStorageError(err, 'KeyExists'));
    await assert.rejects(b.update('/a/x', 'v2', 7), (err: unknown) => isStorageError(err, 'Conflict'));
    const second = b.update('/a/x', 'v2', 1);
    const third = b.delete('/a/x', 0);
    const fourth = b.create('/a/x', 'v3');
    assert.equal(await b.get('/a/x'), undefined, 'nothing is visible before its commit');
    assert.deepEqual(
      (await Promise.all([first, second, third, fourth])).map((kv) => [kv.modRevision, kv.createRevision, kv.value]),
      [
        [1, 1, 'v1'],
        [2, 1, 'v2'],
        [3, 1, 'v2'],
        [4, 4, 'v3'],
      ],
    );
    assert.deepEqual(b.stats(), { commits: 2, writes: 4 });
    await flushAsync();
    assert.deepEqual(
      events.map((e) => [e.type, e.kv.modRevision, e.prevKv?.value]),
      [
        ['create', 1, undefined],
        ['update', 2, 'v1'],
        ['delete', 3, 'v2'],
        ['create', 4, undefined],
      ],
    );
    await b.close();
    // The rows are on disk as the thread wrote them: a replay from 0 gives the same events.
    const reopened = new SqliteBackend({ path: b['db'].name });
    const replayed: WatchEvent[] = [];
    const handle = reopened.watch('/a/', 0, (batch) => replayed.push(...batch));
    await flushAsync();
    handle.stop();
    assert.deepEqual(
      replayed.map((e) => [e.type, e.kv.modRevision, e.prevKv?.value]),
      events.map((e) => [e.type, e.kv.modRevision, e.prevKv?.value]),
    );
    await reopened.close();
  });

  test('a failed commit rejects the batches handed over after it, and writing resumes at the last committed revision', async () => {
    const b = new SqliteBackend({ path: tempPath() });
    await b.create('/a/kept', 'v'); // 1
    const real = writerOf(b);
    // Fails the next commit (as a full disk would), answering only once the batch after it was handed over.
    let failing: ((reply: WriterReply) => void) | undefined;
    let armed = true;
    setWriter(b, {
      request(req: WriterRequest) {
        if (req.op === 'commit' && armed) {
          armed = false;
          return new Promise<WriterReply>((resolve) => (failing = resolve));
        }
        const answer = real.request(req);
        failing?.({ error: 'disk I/O error' });
        failing = undefined;
        return answer;
      },
      close: () => real.close(),
    });
    const doomed = assert.rejects(b.create('/a/y', 'v'), (err: unknown) => isStorageError(err, 'Internal')); // 2, fails
    await tick();
    // 3: assumes revision 2; handed over after it
    const dependent = assert.rejects(b.update('/a/y', 'v2', 2), (err: unknown) => isStorageError(err, 'Internal'));
    await Promise.all([doomed, dependent]);
    assert.equal(b.currentRevision(), 1);
    assert.equal(await b.get('/a/y'), undefined);
    // The real writer refused the dependent batch too (its first row would not have got id 3): it is
    // not on disk, and the next write takes revision 2.
    assert.equal((await b.create('/a/y', 'fresh')).modRevision, 2);
    assert.equal((await b.get('/a/y'))?.value, 'fresh');
    await b.close();
  });

  test('a batch the writer thread committed but did not answer for is kept, not rejected', async () => {
    const b = new SqliteBackend({ path: tempPath() });
    const real = writerOf(b);
    setWriter(b, {
      // Committed, then the thread "died" before its answer reached us.
      request: async (req: WriterRequest) => ({ ...(await real.request(req)), ...(req.op === 'commit' ? { error: 'sqlite writer thread exited' } : {}) }),
      close: () => real.close(),
    });
    assert.equal((await b.create('/a/x', 'v')).modRevision, 1);
    assert.equal((await b.get('/a/x'))?.value, 'v');
    await b.close();
  });

  test('if the writer thread ends, writes go on on the event loop', async () => {
    const path = tempPath();
    const b = new SqliteBackend({ path });
    await b.create('/a/1', 'v');
    const writer = writerOf(b) as WorkerWriter;
    assert.equal(writer.threaded(), true);
    await writer['worker']?.terminate();
    await until(() => !writer.threaded(), 'the writer fell back to the event loop');
    assert.equal((await b.create('/a/2', 'v')).modRevision, 2);
    assert.equal((await b.update('/a/1', 'v2', 1)).modRevision, 3);
    await b.close();
    const reopened = new SqliteBackend({ path });
    assert.deepEqual((await reopened.list('/a/')).kvs.map((kv) => [kv.key, kv.value]), [
      ['/a/1', 'v2'],
      ['/a/2', 'v'],
    ]);
    await reopened.close();
  });
});
