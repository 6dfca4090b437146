/**
 * The behaviour every {@link Backend} must have, as node:test tests: each backend's test file calls
 * {@link runBackendConformance} with a factory. Each test gets a fresh backend and closes it.
 *
 * Watch tests let deliveries happen with `flushAsync` (a few `setImmediate` rounds: the batch commit
 * and the handler microtasks), never with timers.
 */

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { flushAsync } from '../../util/clock/index.js';
import { isStorageError } from '../interface.js';
import type { Backend, KeyValue, StorageError, StorageErrorCode, WatchEvent, WatchHandle } from '../interface.js';

/**
 * Registers the conformance tests under `describe(name)`. `makeBackend` must return a new, empty
 * backend on every call.
 */
export function runBackendConformance(name: string, makeBackend: () => Promise<Backend> | Backend): void {
  /** Runs `fn` on a fresh backend and closes it afterwards. */
  const withBackend = (fn: (b: Backend) => Promise<void>) => async () => {
    const b = await makeBackend();
    try {
      await fn(b);
    } finally {
      await b.close();
    }
  };

  void describe(`${name} conformance`, () => {
    void test('starts empty at revision 0', withBackend(async (b) => {
      assert.equal(b.currentRevision(), 0);
      assert.equal(b.compactedRevision(), 0);
      assert.equal(await b.get('/a/x'), undefined);
      assert.deepEqual(await b.list('/'), { kvs: [], revision: 0, more: false, remaining: 0 });
    }));

    void test('create stores a version; a second create of a live key fails with KeyExists', withBackend(async (b) => {
      const kv = await b.create('/a/x', 'v1');
      assert.deepEqual(kv, { key: '/a/x', value: 'v1', createRevision: 1, modRevision: 1 });
      assert.ok(Object.isFrozen(kv));
      await rejectsWith(b.create('/a/x', 'v2'), 'KeyExists');
      assert.equal(b.currentRevision(), 1, 'a failed write takes no revision');
      assert.deepEqual(await b.get('/a/x'), kv);
    }));

    void test('every write takes the next revision, strictly +1', withBackend(async (b) => {
      const revisions: number[] = [];
      const a = await b.create('/a/x', '1');
      revisions.push(a.modRevision);
      revisions.push((await b.create('/a/y', '1')).modRevision);
      revisions.push((await b.update('/a/x', '2', a.modRevision)).modRevision);
      revisions.push((await b.delete('/a/y', 0)).modRevision);
      revisions.push((await b.create('/a/y', '2')).modRevision);
      assert.deepEqual(revisions, [1, 2, 3, 4, 5]);
      assert.equal(b.currentRevision(), 5);
    }));

    void test('update is a compare-and-swap on modRevision and keeps createRevision', withBackend(async (b) => {
      const v1 = await b.create('/a/x', 'v1');
      await b.create('/a/other', 'o');
      const v2 = await b.update('/a/x', 'v2', v1.modRevision);
      assert.deepEqual(v2, { key: '/a/x', value: 'v2', createRevision: 1, modRevision: 3 });
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

    void test('delete checks the revision (0: unconditional) and returns the last value at its own revision', withBackend(async (b) => {
      const v1 = await b.create('/a/x', 'v1');
      const v2 = await b.update('/a/x', 'v2', v1.modRevision);
      const err = await rejectsWith(b.delete('/a/x', v1.modRevision), 'Conflict');
      assert.deepEqual(err.current, v2);
      const deleted = await b.delete('/a/x', v2.modRevision);
      assert.deepEqual(deleted, { key: '/a/x', value: 'v2', createRevision: 1, modRevision: 3 });
      assert.equal(await b.get('/a/x'), undefined);
      await b.create('/a/y', 'y');
      assert.equal((await b.delete('/a/y', 0)).modRevision, 5);
      const again = await b.create('/a/x', 'v3');
      assert.deepEqual(again, { key: '/a/x', value: 'v3', createRevision: 6, modRevision: 6 }, 'a re-created key starts a new life');
    }));

    void test('writes of one tick see each other: the second create of a key fails', withBackend(async (b) => {
      const first = b.create('/a/x', '1');
      const second = b.create('/a/x', '2');
      const other = b.create('/a/y', '1');
      await rejectsWith(second, 'KeyExists');
      assert.equal((await first).modRevision, 1);
      assert.equal((await other).modRevision, 2);
      assert.equal((await b.get('/a/x'))?.value, '1');
    }));

    void test('list returns live keys sorted, and a prefix does not match a longer segment', withBackend(async (b) => {
      for (const key of ['/a/c', '/ab/x', '/a/a', '/b/1', '/a/b', '/a']) await b.create(key, key);
      await b.delete('/a/b', 0);
      const list = await b.list('/a/');
      assert.deepEqual(keysOf(list.kvs), ['/a/a', '/a/c']);
      assert.equal(list.revision, 7);
      assert.equal(list.more, false);
      assert.deepEqual(keysOf((await b.list('/ab/')).kvs), ['/ab/x']);
      assert.deepEqual(keysOf((await b.list('')).kvs), ['/a', '/a/a', '/a/c', '/ab/x', '/b/1']);
      assert.deepEqual((await b.list('/a/', { revision: 7 })).kvs, list.kvs, 'revision = current is the current state');
    }));

    void test('count counts live keys under a prefix', withBackend(async (b) => {
      for (const key of ['/a/1', '/a/2', '/a/3', '/ab/1', '/b/1']) await b.create(key, 'v');
      await b.delete('/a/2', 0);
      assert.equal(await b.count('/a/'), 2);
      assert.equal(await b.count('/ab/'), 1);
      assert.equal(await b.count('/c/'), 0);
      assert.equal(await b.count(''), 4);
    }));

    void test('list at an older revision shows the state at that revision', withBackend(async (b) => {
      const x1 = await b.create('/a/x', 'x1'); // 1
      const y1 = await b.create('/a/y', 'y1'); // 2
      await b.update('/a/x', 'x2', x1.modRevision); // 3
      await b.delete('/a/y', 0); // 4
      await b.create('/a/z', 'z1'); // 5
      await b.create('/a/y', 'y2'); // 6
      const at2 = await b.list('/a/', { revision: 2 });
      assert.deepEqual(at2, { kvs: [x1, y1], revision: 2, more: false, remaining: 0 });
      assert.deepEqual(valuesOf((await b.list('/a/', { revision: 3 })).kvs), ['x2', 'y1']);
      assert.deepEqual(valuesOf((await b.list('/a/', { revision: 4 })).kvs), ['x2']);
      assert.deepEqual(valuesOf((await b.list('/a/', { revision: 5 })).kvs), ['x2', 'z1']);
      assert.deepEqual(valuesOf((await b.list('/a/', { revision: 6 })).kvs), ['x2', 'y2', 'z1']);
      assert.deepEqual((await b.list('/a/', { revision: 1 })).kvs, [x1]);
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

    void test('list and watch beyond the current revision fail with FutureRevision', withBackend(async (b) => {
      await b.create('/a/x', 'v');
      const err = await rejectsWith(b.list('/a/', { revision: 2 }), 'FutureRevision');
      assert.equal(err.revision, 1);
      assert.throws(() => b.watch('/a/', 2, () => undefined), (e: unknown) => isStorageError(e, 'FutureRevision'));
    }));

    void test('watch replays the changes after a revision, then continues live', withBackend(async (b) => {
      const x = await b.create('/a/x', '1'); // 1
      await b.create('/a/y', '1'); // 2
      await b.update('/a/x', '2', x.modRevision); // 3
      await b.delete('/a/y', 0); // 4
      const w = collect(b, '/a/', 2);
      await flushAsync();
      assert.deepEqual(revisionsOf(w.events), [3, 4]);
      await b.create('/a/z', '1'); // 5
      await b.create('/a/w', '1'); // 6
      await flushAsync();
      assert.deepEqual(revisionsOf(w.events), [3, 4, 5, 6]);
      assert.deepEqual(w.events.map((e) => e.type), ['update', 'delete', 'create', 'create']);
      const fromNow = collect(b, '/a/', b.currentRevision());
      await flushAsync();
      assert.deepEqual(fromNow.events, [], 'a watch from the current revision replays nothing');
      w.handle.stop();
      fromNow.handle.stop();
    }));

    void test('watch events carry prevKv for updates and deletes', withBackend(async (b) => {
      const w = collect(b, '/a/', 0);
      const v1 = await b.create('/a/x', 'v1');
      const v2 = await b.update('/a/x', 'v2', v1.modRevision);
      const del = await b.delete('/a/x', 0);
      await flushAsync();
      assert.deepEqual(w.events, [
        { type: 'create', kv: v1 },
        { type: 'update', kv: v2, prevKv: v1 },
        { type: 'delete', kv: del, prevKv: v2 },
      ]);
      assert.ok(w.events.every((e) => Object.isFrozen(e) && Object.isFrozen(e.kv)));
      // The same events replayed from history.
      const replay = collect(b, '/a/', 0);
      await flushAsync();
      assert.deepEqual(replay.events, w.events);
      w.handle.stop();
      replay.handle.stop();
    }));

    void test('watch filters by prefix', withBackend(async (b) => {
      const w = collect(b, '/a/', 0);
      await b.create('/ab/x', '1');
      await b.create('/a/x', '1');
      await b.create('/b/x', '1');
      await b.create('/a', '1');
      await flushAsync();
      assert.deepEqual(w.events.map((e) => e.kv.key), ['/a/x']);
      const replay = collect(b, '/ab/', 0);
      await flushAsync();
      assert.deepEqual(replay.events.map((e) => e.kv.key), ['/ab/x']);
      w.handle.stop();
      replay.handle.stop();
    }));

    void test('watch handlers run after the write has resolved', withBackend(async (b) => {
      let resolved = false;
      let resolvedWhenCalled: boolean | undefined;
      b.watch('/a/', 0, () => {
        resolvedWhenCalled ??= resolved;
      });
      await b.create('/a/x', '1');
      resolved = true;
      await flushAsync();
      assert.equal(resolvedWhenCalled, true);
    }));

    void test('watches started while writes are in flight get every event exactly once', withBackend(async (b) => {
      // Writes are issued without waiting, so watches start while some writes are applied but not yet
      // committed or published; others start inside handlers and right after a write resolves.
      const watchers: { from: number; events: WatchEvent[] }[] = [];
      const start = (from: number) => {
        const w = collect(b, '/r/', from);
        watchers.push({ from, events: w.events });
      };
      const writes: Promise<KeyValue>[] = [];
      let nestedStarted = false;
      b.watch('/r/', 0, () => {
        if (nestedStarted) return;
        nestedStarted = true;
        start(b.currentRevision());
      });
      for (let i = 0; i < 40; i++) {
        writes.push(b.create(`/r/${String(i).padStart(2, '0')}`, 'v'));
        if (i % 4 === 0) start(b.currentRevision());
        if (i % 7 === 0) start(Math.max(0, b.currentRevision() - 2));
        if (i % 10 === 9) {
          await writes[writes.length - 1];
          start(b.currentRevision());
        }
      }
      await Promise.all(writes);
      await flushAsync();
      const last = b.currentRevision();
      assert.equal(last, 40);
      assert.ok(nestedStarted);
      for (const w of watchers) {
        const expected: number[] = Array.from({ length: last - w.from }, (_, i) => w.from + 1 + i);
        assert.deepEqual(revisionsOf(w.events), expected, `watch from ${w.from}`);
      }
    }));

    void test('stop ends delivery, including events already queued', withBackend(async (b) => {
      const w = collect(b, '/a/', 0);
      await b.create('/a/x', '1');
      await flushAsync();
      assert.equal(w.events.length, 1);
      const calls = w.calls();
      await b.create('/a/y', '1');
      w.handle.stop();
      await b.create('/a/z', '1');
      await flushAsync();
      assert.equal(w.calls(), calls);
      assert.equal(w.events.length, 1);
      const replayStopped = collect(b, '/a/', 0);
      replayStopped.handle.stop();
      await flushAsync();
      assert.equal(replayStopped.calls(), 0, 'history queued at start is dropped too');
    }));

    void test('compact drops history at or below the revision and keeps current data', withBackend(async (b) => {
      const x1 = await b.create('/a/x', 'x1'); // 1
      await b.create('/a/y', 'y1'); // 2
      const x2 = await b.update('/a/x', 'x2', x1.modRevision); // 3
      await b.delete('/a/y', 0); // 4
      await b.create('/a/z', 'z1'); // 5
      await b.update('/a/x', 'x3', x2.modRevision); // 6
      await b.create('/a/y', 'y2'); // 7
      const before = await b.list('/a/');
      await b.compact(5);
      assert.equal(b.compactedRevision(), 5);
      assert.deepEqual(await b.list('/a/'), before, 'current data intact');
      assert.equal((await b.get('/a/z'))?.value, 'z1');
      for (const revision of [1, 4, 5]) {
        const err = await rejectsWith(b.list('/a/', { revision }), 'Compacted');
        assert.equal(err.revision, 5);
      }
      assert.deepEqual(valuesOf((await b.list('/a/', { revision: 6 })).kvs), ['x3', 'z1'], 'state after the compacted revision intact');
      assert.throws(() => b.watch('/a/', 4, () => undefined), (e: unknown) => isStorageError(e, 'Compacted'));
      const w = collect(b, '/a/', 5);
      await flushAsync();
      assert.deepEqual(revisionsOf(w.events), [6, 7], 'a watch from the compacted revision still has all it needs');
      w.handle.stop();
      // Compacting again at or below is a no-op; beyond the current revision is an error.
      await b.compact(3);
      assert.equal(b.compactedRevision(), 5);
      await rejectsWith(b.compact(8), 'FutureRevision');
      // Writes after compaction, including to keys whose tombstone was compacted.
      await b.delete('/a/z', 0); // 8
      await b.compact(8);
      const y = await b.create('/a/z', 'z2'); // 9
      assert.equal(y.modRevision, 9);
      assert.deepEqual(valuesOf((await b.list('/a/')).kvs), ['x3', 'y2', 'z2']);
    }));

    void test('a closed backend rejects calls', withBackend(async (b) => {
      await b.create('/a/x', '1');
      await b.close();
      await rejectsWith(b.get('/a/x'), 'Internal');
      await rejectsWith(b.create('/a/y', '1'), 'Internal');
      assert.throws(() => b.watch('/a/', 0, () => undefined), (e: unknown) => isStorageError(e, 'Internal'));
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

/** Watches `prefix` from `from`, collecting events and counting handler calls. */
function collect(b: Backend, prefix: string, from: number): { events: WatchEvent[]; calls: () => number; handle: WatchHandle } {
  const events: WatchEvent[] = [];
  let calls = 0;
  const handle = b.watch(prefix, from, (batch) => {
    calls++;
    events.push(...batch);
  });
  return { events, calls: () => calls, handle };
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
