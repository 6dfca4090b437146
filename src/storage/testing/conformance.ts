/**
 * The behaviour every {@link Backend} must have, as node:test tests: each backend's test file calls
 * {@link runBackendConformance} with a factory. Each test gets a fresh backend and closes it.
 *
 * Watch tests wait for deliveries with `flushUntil` (`setImmediate` rounds until a condition holds:
 * the batch commit and the handler microtasks in process, the answer from a remote store), never with
 * timers. That something did NOT arrive is shown by a progress notification (or a witness watch) that
 * did: the watch has delivered everything up to its revision.
 */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { flushAsync } from '../../util/clock/index.js';
import { isStorageError } from '../interface.js';
import type { Backend, KeyValue, StorageError, StorageErrorCode, WatchEvent, WatchHandle } from '../interface.js';

/**
 * Registers the conformance tests under `describe(name)`. `makeBackend` must return a new, empty
 * backend on every call. Revisions are asserted relative to the backend's initial revision `r0` (0
 * for memory and SQLite, 1 for a new etcd cluster): the first write takes r0 + 1.
 */
export function runBackendConformance(name: string, makeBackend: () => Promise<Backend> | Backend): void {
  /** Runs `fn` on a fresh backend and closes it afterwards. */
  const withBackend = (fn: (b: Backend, r: (n: number) => number) => Promise<void>) => async () => {
    const b = await makeBackend();
    const r0 = b.currentRevision();
    try {
      await fn(b, (n) => r0 + n);
    } finally {
      await b.close();
    }
  };

  void describe(`${name} conformance`, () => {
    void test('starts empty at its initial revision, which the store confirms', withBackend(async (b, r) => {
      assert.ok(r(0) === 0 || r(0) === 1, `initial revision ${r(0)}`);
      assert.equal(await b.fetchCurrentRevision(), r(0));
      assert.equal(b.compactedRevision(), 0);
      assert.equal(await b.get('/a/x'), undefined);
      assert.deepEqual(await b.list('/'), { kvs: [], revision: r(0), more: false, remaining: 0 });
    }));

    void test('create stores a version; a second create of a live key fails with KeyExists', withBackend(async (b, r) => {
      const kv = await b.create('/a/x', 'v1');
      assert.deepEqual(kv, { key: '/a/x', value: 'v1', createRevision: r(1), modRevision: r(1) });
      assert.ok(Object.isFrozen(kv));
      await rejectsWith(b.create('/a/x', 'v2'), 'KeyExists');
      assert.equal(b.currentRevision(), r(1), 'a failed write takes no revision');
      assert.equal(await b.fetchCurrentRevision(), r(1));
      assert.deepEqual(await b.get('/a/x'), kv);
    }));

    void test('every write takes the next revision, strictly +1', withBackend(async (b, r) => {
      const revisions: number[] = [];
      const a = await b.create('/a/x', '1');
      revisions.push(a.modRevision);
      revisions.push((await b.create('/a/y', '1')).modRevision);
      revisions.push((await b.update('/a/x', '2', a.modRevision)).modRevision);
      revisions.push((await b.delete('/a/y', 0)).modRevision);
      revisions.push((await b.create('/a/y', '2')).modRevision);
      assert.deepEqual(revisions, [1, 2, 3, 4, 5].map(r));
      assert.equal(b.currentRevision(), r(5));
    }));

    void test('update is a compare-and-swap on modRevision and keeps createRevision', withBackend(async (b, r) => {
      const v1 = await b.create('/a/x', 'v1');
      await b.create('/a/other', 'o');
      const v2 = await b.update('/a/x', 'v2', v1.modRevision);
      assert.deepEqual(v2, { key: '/a/x', value: 'v2', createRevision: r(1), modRevision: r(3) });
      const err = await rejectsWith(b.update('/a/x', 'v3', v1.modRevision), 'Conflict');
      assert.deepEqual(err.current, v2, 'Conflict carries the current version');
      assert.deepEqual(await b.get('/a/x'), v2);
    }));

    void test('update and delete of a missing key fail with KeyNotFound', withBackend(async (b) => {
      await rejectsWith(b.update('/a/x', 'v', 1), 'KeyNotFound');
      await rejectsWith(b.delete('/a/x', 0), 'KeyNotFound');
      const kv = await b.create('/a/x', 'v');
      await b.delete('/a/x', kv.modRevision);
      await rejectsWith(b.update('/a/x', 'v', kv.modRevision), 'KeyNotFound');
      await rejectsWith(b.delete('/a/x', 0), 'KeyNotFound');
    }));

    void test('delete checks the revision (0: unconditional) and returns the last value at its own revision', withBackend(async (b, r) => {
      const v1 = await b.create('/a/x', 'v1');
      const v2 = await b.update('/a/x', 'v2', v1.modRevision);
      const err = await rejectsWith(b.delete('/a/x', v1.modRevision), 'Conflict');
      assert.deepEqual(err.current, v2);
      const deleted = await b.delete('/a/x', v2.modRevision);
      assert.deepEqual(deleted, { key: '/a/x', value: 'v2', createRevision: r(1), modRevision: r(3) });
      assert.equal(await b.get('/a/x'), undefined);
      await b.create('/a/y', 'y');
      assert.equal((await b.delete('/a/y', 0)).modRevision, r(5));
      const again = await b.create('/a/x', 'v3');
      assert.deepEqual(again, { key: '/a/x', value: 'v3', createRevision: r(6), modRevision: r(6) }, 'a re-created key starts a new life');
    }));

    void test('writes issued together see each other: of two creates of a key one fails', withBackend(async (b, r) => {
      // Issued without waiting: memory and SQLite apply them in call order, etcd as they reach its
      // leader, so which create of /a/x wins is not fixed, only that exactly one does.
      const [first, second, other] = await Promise.allSettled([b.create('/a/x', '1'), b.create('/a/x', '2'), b.create('/a/y', '1')]);
      const xs = [first, second].filter((res) => res.status === 'fulfilled');
      const failed = [first, second].filter((res) => res.status === 'rejected');
      assert.equal(xs.length, 1);
      assert.ok(isStorageError(failed[0]?.reason, 'KeyExists'));
      assert.equal(other.status, 'fulfilled');
      const winner = (xs[0] as PromiseFulfilledResult<KeyValue>).value;
      const y = other.value;
      assert.deepEqual([winner.modRevision, y.modRevision].sort((p, q) => p - q), [r(1), r(2)]);
      assert.equal(b.currentRevision(), r(2));
      assert.equal((await b.get('/a/x'))?.value, winner.value);
    }));

    void test('list returns live keys sorted, and a prefix does not match a longer segment', withBackend(async (b, r) => {
      for (const key of ['/a/c', '/ab/x', '/a/a', '/b/1', '/a/b', '/a']) await b.create(key, key);
      await b.delete('/a/b', 0);
      const list = await b.list('/a/');
      assert.deepEqual(keysOf(list.kvs), ['/a/a', '/a/c']);
      assert.equal(list.revision, r(7));
      assert.equal(list.more, false);
      assert.deepEqual(keysOf((await b.list('/ab/')).kvs), ['/ab/x']);
      assert.deepEqual(keysOf((await b.list('')).kvs), ['/a', '/a/a', '/a/c', '/ab/x', '/b/1']);
      assert.deepEqual((await b.list('/a/', { revision: r(7) })).kvs, list.kvs, 'revision = current is the current state');
    }));

    void test('count counts live keys under a prefix', withBackend(async (b) => {
      for (const key of ['/a/1', '/a/2', '/a/3', '/ab/1', '/b/1']) await b.create(key, 'v');
      await b.delete('/a/2', 0);
      assert.equal(await b.count('/a/'), 2);
      assert.equal(await b.count('/ab/'), 1);
      assert.equal(await b.count('/c/'), 0);
      assert.equal(await b.count(''), 4);
    }));

    void test('list at an older revision shows the state at that revision', withBackend(async (b, r) => {
      const x1 = await b.create('/a/x', 'x1'); // 1
      const y1 = await b.create('/a/y', 'y1'); // 2
      await b.update('/a/x', 'x2', x1.modRevision); // 3
      await b.delete('/a/y', 0); // 4
      await b.create('/a/z', 'z1'); // 5
      await b.create('/a/y', 'y2'); // 6
      const at2 = await b.list('/a/', { revision: r(2) });
      assert.deepEqual(at2, { kvs: [x1, y1], revision: r(2), more: false, remaining: 0 });
      assert.deepEqual(valuesOf((await b.list('/a/', { revision: r(3) })).kvs), ['x2', 'y1']);
      assert.deepEqual(valuesOf((await b.list('/a/', { revision: r(4) })).kvs), ['x2']);
      assert.deepEqual(valuesOf((await b.list('/a/', { revision: r(5) })).kvs), ['x2', 'z1']);
      assert.deepEqual(valuesOf((await b.list('/a/', { revision: r(6) })).kvs), ['x2', 'y2', 'z1']);
      assert.deepEqual((await b.list('/a/', { revision: r(1) })).kvs, [x1]);
    }));

    void test('pagination at a fixed revision ignores writes between pages', withBackend(async (b) => {
      for (const k of ['a', 'b', 'c', 'd', 'e']) await b.create(`/p/${k}`, `${k}1`);
      await b.create('/q/a', 'other prefix');
      const first = await b.list('/p/', { limit: 2 });
      assert.deepEqual(valuesOf(first.kvs), ['a1', 'b1']);
      assert.equal(first.more, true);
      assert.equal(first.remaining, 3);
      const rev = first.revision;
      // Changes after the first page: none of them may show up in later pages.
      await b.create('/p/bb', 'new');
      await b.delete('/p/c', 0);
      const d = (await b.get('/p/d')) as KeyValue;
      await b.update('/p/d', 'd2', d.modRevision);
      await b.create('/p/f', 'new');
      const second = await b.list('/p/', { limit: 2, revision: rev, startAfter: '/p/b' });
      assert.deepEqual(valuesOf(second.kvs), ['c1', 'd1']);
      assert.equal(second.revision, rev);
      assert.deepEqual([second.more, second.remaining], [true, 1]);
      const third = await b.list('/p/', { limit: 2, revision: rev, startAfter: '/p/d' });
      assert.deepEqual(valuesOf(third.kvs), ['e1']);
      assert.deepEqual([third.more, third.remaining], [false, 0]);
      // A startAfter below the prefix does not narrow it.
      assert.equal((await b.list('/p/', { revision: rev, startAfter: '/a' })).kvs.length, 5);
    }));

    void test('pagination at the current revision reports more and remaining', withBackend(async (b) => {
      for (const k of ['a', 'b', 'c', 'd', 'e']) await b.create(`/p/${k}`, k);
      await b.create('/pq/a', 'other prefix');
      const page1 = await b.list('/p/', { limit: 2 });
      const page2 = await b.list('/p/', { limit: 2, startAfter: '/p/b' });
      const page3 = await b.list('/p/', { limit: 2, startAfter: '/p/d' });
      assert.deepEqual([keysOf(page1.kvs), page1.more, page1.remaining], [['/p/a', '/p/b'], true, 3]);
      assert.deepEqual([keysOf(page2.kvs), page2.more, page2.remaining], [['/p/c', '/p/d'], true, 1]);
      assert.deepEqual([keysOf(page3.kvs), page3.more, page3.remaining], [['/p/e'], false, 0]);
      const exact = await b.list('/p/', { limit: 5 });
      assert.deepEqual([exact.kvs.length, exact.more, exact.remaining], [5, false, 0], 'a limit that fits exactly has no more');
    }));

    void test('list and watch beyond the current revision fail with FutureRevision', withBackend(async (b, r) => {
      await b.create('/a/x', 'v');
      const err = await rejectsWith(b.list('/a/', { revision: r(2) }), 'FutureRevision');
      assert.equal(err.revision, r(1));
      assert.throws(() => b.watch('/a/', r(2), () => undefined), (e: unknown) => isStorageError(e, 'FutureRevision'));
    }));

    void test('watch replays the changes after a revision, then continues live', withBackend(async (b, r) => {
      const x = await b.create('/a/x', '1'); // 1
      await b.create('/a/y', '1'); // 2
      await b.update('/a/x', '2', x.modRevision); // 3
      await b.delete('/a/y', 0); // 4
      const w = collect(b, '/a/', r(2));
      await flushUntil(() => w.events.length >= 2);
      assert.deepEqual(revisionsOf(w.events), [3, 4].map(r));
      await b.create('/a/z', '1'); // 5
      await b.create('/a/w', '1'); // 6
      await flushUntil(() => w.events.length >= 4);
      assert.deepEqual(revisionsOf(w.events), [3, 4, 5, 6].map(r));
      assert.deepEqual(w.events.map((e) => e.type), ['update', 'delete', 'create', 'create']);
      const fromNow = collect(b, '/a/', b.currentRevision());
      await flushProgress(fromNow.handle, fromNow.progress, r(6));
      assert.deepEqual(fromNow.events, [], 'a watch from the current revision replays nothing');
      w.handle.stop();
      fromNow.handle.stop();
    }));

    void test('watch events carry prevKv for updates and deletes', withBackend(async (b, r) => {
      const w = collect(b, '/a/', r(0));
      const v1 = await b.create('/a/x', 'v1');
      const v2 = await b.update('/a/x', 'v2', v1.modRevision);
      const del = await b.delete('/a/x', 0);
      await flushUntil(() => w.events.length >= 3);
      assert.deepEqual(w.events, [
        { type: 'create', kv: v1 },
        { type: 'update', kv: v2, prevKv: v1 },
        { type: 'delete', kv: del, prevKv: v2 },
      ]);
      assert.ok(w.events.every((e) => Object.isFrozen(e) && Object.isFrozen(e.kv)));
      // The same events replayed from history.
      const replay = collect(b, '/a/', r(0));
      await flushUntil(() => replay.events.length >= 3);
      assert.deepEqual(replay.events, w.events);
      w.handle.stop();
      replay.handle.stop();
    }));

    void test('watch filters by prefix', withBackend(async (b, r) => {
      const w = collect(b, '/a/', r(0));
      await b.create('/ab/x', '1');
      await b.create('/a/x', '1');
      await b.create('/b/x', '1');
      await b.create('/a', '1');
      await flushProgress(w.handle, w.progress, r(4));
      assert.deepEqual(w.events.map((e) => e.kv.key), ['/a/x']);
      const replay = collect(b, '/ab/', r(0));
      await flushProgress(replay.handle, replay.progress, r(4));
      assert.deepEqual(replay.events.map((e) => e.kv.key), ['/ab/x']);
      w.handle.stop();
      replay.handle.stop();
    }));

    void test('watch handlers run after the write has resolved', withBackend(async (b, r) => {
      let resolved = false;
      let resolvedWhenCalled: boolean | undefined;
      b.watch('/a/', r(0), () => {
        resolvedWhenCalled ??= resolved;
      });
      await b.create('/a/x', '1');
      resolved = true;
      await flushUntil(() => resolvedWhenCalled !== undefined);
      assert.equal(resolvedWhenCalled, true);
    }));

    void test('watches started while writes are in flight get every event exactly once', withBackend(async (b, r) => {
      // Writes are issued without waiting, so watches start while some writes are applied but not yet
      // committed or published; others start inside handlers and right after a write resolves.
      const watchers: { from: number; events: WatchEvent[] }[] = [];
      const start = (from: number) => {
        const w = collect(b, '/r/', from);
        watchers.push({ from, events: w.events });
      };
      const writes: Promise<KeyValue>[] = [];
      let nestedStarted = false;
      b.watch('/r/', r(0), () => {
        if (nestedStarted) return;
        nestedStarted = true;
        start(b.currentRevision());
      });
      for (let i = 0; i < 40; i++) {
        writes.push(b.create(`/r/${String(i).padStart(2, '0')}`, 'v'));
        if (i % 4 === 0) start(b.currentRevision());
        if (i % 7 === 0) start(Math.max(r(0), b.currentRevision() - 2));
        if (i % 10 === 9) {
          await writes[writes.length - 1];
          start(b.currentRevision());
        }
      }
      await Promise.all(writes);
      const last = b.currentRevision();
      assert.equal(last, r(40));
      await flushUntil(() => watchers.every((w) => w.events.length >= last - w.from));
      assert.ok(nestedStarted);
      for (const w of watchers) {
        const expected: number[] = Array.from({ length: last - w.from }, (_, i) => w.from + 1 + i);
        assert.deepEqual(revisionsOf(w.events), expected, `watch from ${w.from}`);
      }
    }));

    void test('stop ends delivery, including events already queued', withBackend(async (b, r) => {
      const w = collect(b, '/a/', r(0));
      // Sees every event; once it has, the stopped watches would have had theirs.
      const witness = collect(b, '/a/', r(0));
      await b.create('/a/x', '1');
      await flushUntil(() => w.events.length >= 1);
      assert.equal(w.events.length, 1);
      const calls = w.calls();
      await b.create('/a/y', '1');
      w.handle.stop();
      await b.create('/a/z', '1');
      await flushUntil(() => witness.events.length >= 3);
      assert.equal(w.calls(), calls);
      assert.equal(w.events.length, 1);
      const replayStopped = collect(b, '/a/', r(0));
      replayStopped.handle.stop();
      const replayWitness = collect(b, '/a/', r(0));
      await flushUntil(() => replayWitness.events.length >= 3);
      assert.equal(replayStopped.calls(), 0, 'history queued at start is dropped too');
      witness.handle.stop();
      replayWitness.handle.stop();
    }));

    void test('compact drops history at or below the revision and keeps current data', withBackend(async (b, r) => {
      const x1 = await b.create('/a/x', 'x1'); // 1
      await b.create('/a/y', 'y1'); // 2
      const x2 = await b.update('/a/x', 'x2', x1.modRevision); // 3
      await b.delete('/a/y', 0); // 4
      await b.create('/a/z', 'z1'); // 5
      await b.update('/a/x', 'x3', x2.modRevision); // 6
      await b.create('/a/y', 'y2'); // 7
      const before = await b.list('/a/');
      await b.compact(r(5));
      assert.equal(b.compactedRevision(), r(5));
      assert.deepEqual(await b.list('/a/'), before, 'current data intact');
      assert.equal((await b.get('/a/z'))?.value, 'z1');
      for (const revision of [1, 4, 5].map(r)) {
        const err = await rejectsWith(b.list('/a/', { revision }), 'Compacted');
        assert.equal(err.revision, r(5));
      }
      assert.deepEqual(valuesOf((await b.list('/a/', { revision: r(6) })).kvs), ['x3', 'z1'], 'state after the compacted revision intact');
      assert.throws(() => b.watch('/a/', r(4), () => undefined), (e: unknown) => isStorageError(e, 'Compacted'));
      const w = collect(b, '/a/', r(5));
      await flushUntil(() => w.events.length >= 2);
      assert.deepEqual(revisionsOf(w.events), [6, 7].map(r), 'a watch from the compacted revision still has all it needs');
      w.handle.stop();
      // Compacting again at or below is a no-op; beyond the current revision is an error.
      await b.compact(r(3));
      assert.equal(b.compactedRevision(), r(5));
      await rejectsWith(b.compact(r(8)), 'FutureRevision');
      // Writes after compaction, including to keys whose tombstone was compacted.
      await b.delete('/a/z', 0); // 8
      await b.compact(r(8));
      const y = await b.create('/a/z', 'z2'); // 9
      assert.equal(y.modRevision, r(9));
      assert.deepEqual(valuesOf((await b.list('/a/')).kvs), ['x3', 'y2', 'z2']);
    }));

    void test('a closed backend rejects calls', withBackend(async (b, r) => {
      await b.create('/a/x', '1');
      await b.close();
      await rejectsWith(b.get('/a/x'), 'Internal');
      await rejectsWith(b.create('/a/y', '1'), 'Internal');
      await rejectsWith(b.fetchCurrentRevision(), 'Internal');
      assert.throws(() => b.watch('/a/', r(0), () => undefined), (e: unknown) => isStorageError(e, 'Internal'));
    }));
  });
}

/** Asserts that `p` rejects with a StorageError of `code` and returns it. */
async function rejectsWith(p: Promise<unknown>, code: StorageErrorCode): Promise<StorageError> {
  try {
    await p;
  } catch (err) {
    assert.ok(isStorageError(err, code), `expected ${code}, got ${String(err)}`);
    return err;
  }
  assert.fail(`expected ${code}, but the call succeeded`);
}

/** A watch started by {@link collect}. */
interface Collected {
  events: WatchEvent[];
  /** Revisions of the progress notifications received, in order. */
  progress: number[];
  calls: () => number;
  handle: WatchHandle;
}

/** Watches `prefix` from `from`, collecting events and progress and counting handler calls. */
function collect(b: Backend, prefix: string, from: number): Collected {
  const events: WatchEvent[] = [];
  const progress: number[] = [];
  let calls = 0;
  const handle = b.watch(
    prefix,
    from,
    (batch) => {
      calls++;
      events.push(...batch);
    },
    { onProgress: (revision) => progress.push(revision) },
  );
  return { events, progress, calls: () => calls, handle };
}

/**
 * `setImmediate` rounds until `done()` holds: in-process deliveries need a few, a remote store's need
 * as many as its answers take. Fails after {@link MAX_FLUSH_ROUNDS}, so a missing delivery fails the
 * test rather than hanging it.
 */
async function flushUntil(done: () => boolean): Promise<void> {
  for (let i = 0; i < MAX_FLUSH_ROUNDS; i++) {
    if (done()) return flushAsync();
    await flushAsync(1);
  }
  assert.fail('the expected deliveries did not arrive');
}

/** Rounds a wait may take: about ten seconds of a remote store's answers, far beyond any in-process one. */
const MAX_FLUSH_ROUNDS = 1_000_000;

/**
 * Asks `handle` for progress until a notification at or above `revision` arrives: from then on the
 * watch has delivered everything up to `revision`, so what has not arrived will not.
 */
async function flushProgress(handle: WatchHandle, progress: number[], revision: number): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const seen = progress.length;
    handle.requestProgress();
    await flushUntil(() => progress.length > seen);
    if ((progress[progress.length - 1] as number) >= revision) return;
  }
  assert.fail(`no progress notification reached revision ${revision}`);
}

function keysOf(kvs: readonly KeyValue[]): string[] {
  return kvs.map((kv) => kv.key);
}

function valuesOf(kvs: readonly KeyValue[]): string[] {
  return kvs.map((kv) => kv.value);
}

function revisionsOf(events: readonly WatchEvent[]): number[] {
  return events.map((e) => e.kv.modRevision);
}
