/**
 * The feed's two duties towards a store it does not own (etcd shared with other clients): waiting for
 * a revision that changed nothing under `/registry/` by asking its watch for progress, and relisting
 * every cache when its storage watch ends on its own.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ForwardingBackend, MemoryBackend, StorageError } from '../../storage/index.js';
import type { WatchEvent, WatchHandle, WatchOptions } from '../../storage/index.js';
import { FakeClock, flushAsync } from '../../util/clock/index.js';
import { CacheFeed, REGISTRY_PREFIX } from './cache-feed.js';

const PREFIX = '/registry/core/configmaps/';
const key = (name: string) => `${PREFIX}default/${name}`;
const configMap = (name: string, v: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { v } });

/** A memory backend whose registry watch can be ended from the test, as etcd ends a compacted one. */
class EndableBackend extends ForwardingBackend {
  watches = 0;
  private onError: ((err: StorageError) => void) | undefined;
  private handle: WatchHandle | undefined;

  override watch(prefix: string, from: number, handler: (events: WatchEvent[]) => void, opts?: WatchOptions): WatchHandle {
    this.watches++;
    this.onError = opts?.onError;
    this.handle = super.watch(prefix, from, handler, opts);
    return this.handle;
  }

  /** The watch stops delivering (the connection is gone)… */
  cutWatch(): void {
    this.handle?.stop();
  }

  /** …and then reports that it cannot resume. */
  failWatch(): void {
    this.onError?.(new StorageError('Compacted', REGISTRY_PREFIX, 'required revision has been compacted', undefined, this.currentRevision()));
  }
}

describe('CacheFeed', () => {
  test('a revision written outside /registry/ is reached by a progress notification', async () => {
    const backend = new MemoryBackend();
    const feed = new CacheFeed(backend, new FakeClock(0));
    feed.addCache(PREFIX);
    await feed.start();
    await backend.create(key('a'), configMap('a', '1'));
    // Another cluster sharing the store writes under its own prefix.
    const other = await backend.create('/other-cluster/x', 'v');
    let fresh = false;
    void feed.waitUntilFresh(other.modRevision).then(() => (fresh = true));
    await flushAsync();
    assert.equal(fresh, true);
    assert.equal(feed.observedRevision, other.modRevision);
    feed.stop();
  });

  test('when its storage watch ends, every cache is listed again and the watch restarts after the listing', async () => {
    const backend = new EndableBackend(new MemoryBackend());
    const feed = new CacheFeed(backend, new FakeClock(0));
    const cache = feed.addCache(PREFIX);
    await feed.start();
    await backend.create(key('kept'), configMap('kept', '1'));
    const gone = await backend.create(key('gone'), configMap('gone', '1'));
    await flushAsync();
    assert.deepEqual([...cache.entries(PREFIX)].map(([k]) => k), [key('gone'), key('kept')]);
    const watchers: string[] = [];
    cache.addWatcher({ offer: () => undefined, close: () => watchers.push('closed') } as never);
    // Changes the ended watch never delivered: a delete, an update, a create.
    backend.cutWatch();
    await backend.delete(key('gone'), gone.modRevision);
    const kept = (await backend.get(key('kept')))?.modRevision as number;
    await backend.update(key('kept'), configMap('kept', '2'), kept);
    await backend.create(key('new'), configMap('new', '1'));
    await flushAsync();
    assert.equal(cache.get(key('new')), undefined, 'not delivered');
    backend.failWatch();
    await flushAsync();
    assert.equal(backend.watches, 2, 'watched again');
    assert.deepEqual(watchers, ['closed'], 'the cache\'s watchers were ended, to watch again');
    assert.deepEqual([...cache.entries(PREFIX)].map(([k, obj]) => [k, (obj['data'] as { v: string }).v]), [
      [key('kept'), '2'],
      [key('new'), '1'],
    ]);
    assert.equal(cache.oldestResumableRevision, backend.currentRevision(), 'older resourceVersions get 410 and relist');
    const later = await backend.create(key('later'), configMap('later', '1'));
    await flushAsync();
    assert.equal(feed.observedRevision, later.modRevision, 'the new watch delivers');
    assert.ok(cache.get(key('later')));
    feed.stop();
  });
});
