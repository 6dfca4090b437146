import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../api/index.js';
import { newInternalError, newResourceExpired } from '../machinery/errors/index.js';
import { FakeClock, flushAsync } from '../util/clock/index.js';
import type { Rand } from '../util/random/index.js';
import { newClientset, PODS, type ListOptions } from '../client/index.js';
import { newFakeTransport } from '../testing/index.js';
import { DeletedFinalStateUnknown } from './indexer.js';
import { Reflector, type ListerWatcher } from './reflector.js';
import { SharedIndexInformer, type ResourceEventHandler } from './shared-informer.js';
import { newSharedInformerFactory } from './factory.js';
import { handledErrorsTotal } from '../util/runtime/index.js';

/** No jitter: watch timeouts are exactly 300 s and backoffs exactly 800 ms, 1.6 s, … */
const noJitter: Rand = { float: () => 0, int: () => 0, uuid: () => '00000000-0000-4000-8000-000000000000' };

function pod(name: string, ns = 'ns'): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns }, spec: { containers: [{ name: 'c', image: 'i' }] } };
}

/**
 * An informer on pods over the test fake (the real API server). `rv(n)` is the resourceVersion of the
 * n-th write the test makes: the server has already written its default namespaces, `ns` and the
 * `kubernetes` service.
 */
async function setup(pageSize?: number) {
  const clock = new FakeClock(0);
  const fake = await newFakeTransport({ clock, namespaces: ['ns'] });
  const base = Number(fake.resourceVersion());
  const rv = (n: number): string => String(base + n);
  const cs = newClientset(fake);
  const errors: unknown[] = [];
  const informer = new SharedIndexInformer<Pod>(cs.core.pods(), { clock, rand: noJitter, pageSize, onError: (e) => errors.push(e) });
  const log: string[] = [];
  const handler: ResourceEventHandler<Pod> = {
    add: (p) => log.push(`add ${p.metadata?.name ?? ''}`),
    update: (o, n) => log.push(`update ${n.metadata?.name ?? ''} ${o.metadata?.resourceVersion ?? ''}->${n.metadata?.resourceVersion ?? ''}`),
    delete: (p) =>
      log.push(p instanceof DeletedFinalStateUnknown ? `tombstone ${p.key} @${p.obj.metadata?.resourceVersion ?? ''}` : `delete ${p.metadata?.name ?? ''}`),
  };
  informer.addEventHandler(handler);
  const requests = (verb: string) => fake.actions.filter((a) => a.verb === verb).map((a) => a.query ?? {});
  return { clock, fake, cs, informer, log, errors, requests, rv };
}

describe('SharedIndexInformer + Reflector', () => {
  test('initial list at resourceVersion 0 (whole: the watch cache ignores limit there, as upstream\'s cacher), then watch from the list resourceVersion', async () => {
    const { fake, informer, log, requests, rv } = await setup(2);
    await fake.seed(['a', 'b', 'c', 'd', 'e'].map((n) => pod(n)));
    informer.run();
    assert.equal(informer.hasSynced(), false);
    assert.equal(await informer.waitForSync(), true);
    assert.deepEqual(log, ['add a', 'add b', 'add c', 'add d', 'add e']);
    assert.deepEqual(requests('list'), [{ resourceVersion: '0', limit: '2' }]);
    await flushAsync();
    assert.deepEqual(requests('watch'), [{ resourceVersion: rv(5), allowWatchBookmarks: 'true', timeoutSeconds: '300' }]);
    assert.equal(informer.lister().namespace('ns').list().length, 5);
    assert.ok(Object.isFrozen(informer.getIndexer().getByKey('ns/a')));
    informer.stop();
  });

  test('watch events reach the cache and the handlers in order; late handlers get synthetic adds', async () => {
    const { cs, informer, log, rv } = await setup();
    informer.run();
    await informer.waitForSync();
    await flushAsync();
    await cs.core.pods('ns').create(pod('a'));
    await cs.core.pods('ns').patch('a', 'application/merge-patch+json', { metadata: { labels: { x: '1' } } });
    await cs.core.pods('ns').create(pod('b'));
    await cs.core.pods('ns').delete('b'); // unscheduled: marked with grace 0, then removed
    await flushAsync();
    assert.deepEqual(log, ['add a', `update a ${rv(1)}->${rv(2)}`, 'add b', `update b ${rv(3)}->${rv(4)}`, 'delete b']);
    assert.deepEqual(informer.lister().get('ns/a')?.metadata?.labels, { x: '1' });
    assert.equal(informer.lastSyncResourceVersion(), rv(5));

    const late: string[] = [];
    informer.addEventHandler({ add: (p) => late.push(p.metadata?.name ?? '') });
    assert.deepEqual(late, ['a']);
    informer.stop();
  });

  test('bookmarks advance the resourceVersion; a normal close rewatches from it at once', async () => {
    const { clock, cs, informer, requests, rv } = await setup();
    informer.run();
    await informer.waitForSync();
    await flushAsync();
    await cs.core.nodes().create({ metadata: { name: 'n1' } }); // another resource moves the global revision
    await flushAsync(); // the server's watch cache sees the write
    clock.step(60 * 1000); // the server sends bookmarks every minute
    await flushAsync();
    assert.equal(informer.lastSyncResourceVersion(), rv(1));
    clock.step(240 * 1000); // the watch's timeoutSeconds (300 s) are up
    await flushAsync();
    assert.deepEqual(
      requests('watch').map((q) => q.resourceVersion),
      [rv(0), rv(1)],
      'the first watch starts from the empty list, the second from the bookmark',
    );
    informer.stop();
  });

  test('410 on the watch relists after the backoff; objects deleted meanwhile become DeletedFinalStateUnknown', async () => {
    const { clock, fake, cs, informer, log, requests, rv } = await setup();
    await cs.core.pods('ns').create(pod('a'));
    await cs.core.pods('ns').create(pod('b'));
    informer.run();
    await informer.waitForSync();
    await flushAsync();
    clock.step(5000);
    fake.closeWatches(new Error('connection reset')); // the reflector is now between watches…
    await cs.core.pods('ns').delete('b'); // …and misses this (rv 3: marked with grace 0; rv 4: removed)
    await cs.core.pods('ns').patch('a', 'application/merge-patch+json', { metadata: { labels: { x: '1' } } });
    await fake.compact(); // and its revision is gone from the history
    await flushAsync();
    assert.equal(requests('watch').length, 1, 'waits for the backoff before rewatching');
    clock.step(800);
    await flushAsync();
    assert.equal(requests('watch').length, 2);
    assert.equal(requests('list').length, 1, 'the 410 relists only after the next backoff');
    clock.step(1600);
    await flushAsync();
    assert.deepEqual(
      requests('list').map((q) => q.resourceVersion),
      ['0', rv(2)],
      'relists at the last synced revision',
    );
    assert.deepEqual(requests('list')[1], { resourceVersion: rv(2) }, 'not paged: the server answers from its watch cache, not from compacted storage');
    assert.deepEqual(log, ['add a', 'add b', `update a ${rv(1)}->${rv(5)}`, `tombstone ns/b @${rv(2)}`]);
    assert.equal(informer.lister().get('ns/b'), undefined);
    assert.deepEqual(requests('watch').at(-1)?.resourceVersion, rv(5));
    informer.stop();
  });

  test('a 410 on the list retries at once at resourceVersion ""', async () => {
    const { fake, informer, requests } = await setup();
    let failed = false;
    fake.prependReactor('list', 'pods', (req) => {
      if (req.query?.resourceVersion !== '0' || failed) return { handled: false };
      failed = true;
      return { handled: true, error: newResourceExpired('too old resource version: 0 (5)') };
    });
    informer.run();
    assert.equal(await informer.waitForSync(), true);
    assert.deepEqual(
      requests('list').map((q) => q.resourceVersion),
      ['0', undefined],
    );
  });

  test('watch errors back off exponentially (800 ms, 1.6 s, 3.2 s …), reset after 2 minutes quiet', async () => {
    const { clock, fake, informer, errors, requests } = await setup();
    let failing = true;
    fake.prependReactor('watch', 'pods', () => (failing ? { handled: true, error: newInternalError('boom') } : { handled: false }));
    informer.run();
    await informer.waitForSync();
    await flushAsync();
    const watches = () => requests('watch').length;
    assert.equal(watches(), 1);
    for (const [delay, expected] of [
      [800, 2],
      [1600, 3],
      [3200, 4],
    ] as const) {
      clock.step(delay - 1);
      await flushAsync();
      assert.equal(watches(), expected - 1, `not before ${delay} ms`);
      clock.step(1);
      await flushAsync();
      assert.equal(watches(), expected, `after ${delay} ms`);
    }
    assert.equal(errors.length, 4);
    failing = false;
    clock.step(6400);
    await flushAsync();
    assert.equal(watches(), 5, 'the watch now runs');
    clock.step(10 * 60 * 1000); // quiet for longer than 2 minutes (the watch ends normally twice)
    await flushAsync();
    const before = watches();
    failing = true;
    fake.closeWatches(new Error('reset'));
    await flushAsync();
    clock.step(800);
    await flushAsync();
    assert.equal(watches(), before + 1, 'backoff restarted from 800 ms');
    informer.stop();
  });

  test('a watch closing at once without events counts as an error (no spinning)', async () => {
    const { clock, fake, informer, requests } = await setup();
    informer.run();
    await informer.waitForSync();
    await flushAsync();
    fake.closeWatches();
    await flushAsync();
    assert.equal(requests('watch').length, 1);
    clock.step(800);
    await flushAsync();
    assert.equal(requests('watch').length, 2);
    informer.stop();
  });

  test('stop() ends the watch and nothing more reaches the cache', async () => {
    const { cs, fake, informer, log } = await setup();
    informer.run();
    await informer.waitForSync();
    await flushAsync();
    informer.stop();
    assert.equal(fake.activeWatches(), 0);
    await cs.core.pods('ns').create(pod('a'));
    await flushAsync();
    assert.deepEqual(log, []);
  });

  test('a throwing handler does not stop the others', async () => {
    const clock = new FakeClock(0);
    const fake = await newFakeTransport({ clock, objects: [pod('a')] });
    const thrown: unknown[] = [];
    const informer = new SharedIndexInformer<Pod>(newClientset(fake).core.pods(), { clock, rand: noJitter, onHandlerError: (e) => thrown.push(e) });
    const seen: string[] = [];
    informer.addEventHandler({
      add: () => {
        throw new Error('bug');
      },
    });
    informer.addEventHandler({ add: (p) => seen.push(p.metadata?.name ?? '') });
    informer.run();
    await informer.waitForSync();
    assert.deepEqual(seen, ['a']);
    assert.equal((thrown[0] as Error).message, 'bug');
    informer.stop();
  });

  test('by default a throwing handler is logged and counted, never an uncaught exception', async () => {
    const clock = new FakeClock(0);
    const fake = await newFakeTransport({ clock, objects: [pod('a')] });
    const informer = new SharedIndexInformer<Pod>(newClientset(fake).core.pods(), { clock, rand: noJitter, name: 'pods' });
    const count = async (): Promise<number> => (await handledErrorsTotal.get()).values.find((v) => v.labels.component === 'informer')?.value ?? 0;
    const before = await count();
    const seen: string[] = [];
    informer.addEventHandler({
      add: (p) => {
        if (p.metadata?.name === 'a') throw new TypeError('bad object');
      },
    });
    informer.addEventHandler({ add: (p) => seen.push(p.metadata?.name ?? '') });
    informer.run();
    await informer.waitForSync();
    await newClientset(fake).core.pods('ns').create(pod('b'));
    await flushAsync();
    assert.deepEqual(seen, ['a', 'b']);
    assert.equal((await count()) - before, 1);
    informer.stop();
  });
});

describe('Reflector list paging', () => {
  /** The lists a reflector makes: first at '0' (in pages when `paged`), then, after its watch got 410, at the list's resourceVersion. */
  async function listsOf(paged: boolean): Promise<ListOptions[]> {
    const clock = new FakeClock(0);
    const lists: ListOptions[] = [];
    const lw: ListerWatcher<Pod> = {
      list: (opts) => {
        lists.push(opts);
        const more = paged && opts.resourceVersion === '0';
        return Promise.resolve({ items: [], metadata: { resourceVersion: '10', ...(more ? { continue: 'next' } : {}) } });
      },
      watch: (_opts, _onEvent, onClose) => {
        queueMicrotask(() => onClose(newResourceExpired('too old resource version: 10 (11)')));
        return { stop: () => undefined };
      },
    };
    const reflector = new Reflector<Pod>({ listerWatcher: lw, store: { replace() {}, add() {}, update() {}, delete() {} }, clock, rand: noJitter });
    reflector.run();
    await flushAsync();
    clock.step(800); // the backoff after the 410
    await flushAsync();
    reflector.stop();
    return lists;
  }

  test('a relist at a resourceVersion is not paged (the server answers it from its watch cache) unless the first list was', async () => {
    assert.deepEqual(await listsOf(false), [{ resourceVersion: '0', limit: 500 }, { resourceVersion: '10' }]);
    assert.deepEqual(await listsOf(true), [
      { resourceVersion: '0', limit: 500 },
      { continue: 'next', limit: 500 },
      { resourceVersion: '10', limit: 500 },
    ]);
  });
});

describe('SharedInformerFactory', () => {
  test('one informer per resource; start, waitForCacheSync, shutdown', async () => {
    const clock = new FakeClock(0);
    const fake = await newFakeTransport({ clock, objects: [pod('a'), { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } }] });
    const factory = newSharedInformerFactory(newClientset(fake), { clock, rand: noJitter });
    assert.equal(factory.core.pods(), factory.forResource<Pod>(PODS));
    const nodes = factory.core.nodes();
    factory.start();
    assert.equal(await factory.waitForCacheSync(), true);
    assert.equal(factory.core.pods().lister().list().length, 1);
    assert.equal(nodes.lister().get('n1')?.metadata?.name, 'n1');
    await flushAsync();
    assert.equal(fake.activeWatches(), 2);
    factory.shutdown();
    assert.equal(fake.activeWatches(), 0);
  });

  test('waitForCacheSync resolves false when aborted before sync; namespace restricts lists', async () => {
    const clock = new FakeClock(0);
    const fake = await newFakeTransport({ clock, objects: [pod('a', 'x'), pod('b', 'y')] });
    fake.prependReactor('list', 'pods', (req) => (req.namespace === 'y' ? { handled: false } : { handled: true, error: newInternalError('down') }));
    const ac = new AbortController();
    const blocked = newSharedInformerFactory(newClientset(fake), { clock, rand: noJitter });
    blocked.core.pods();
    blocked.start();
    const waiting = blocked.waitForCacheSync(ac.signal);
    ac.abort();
    assert.equal(await waiting, false);
    blocked.shutdown();

    const scoped = newSharedInformerFactory(newClientset(fake), { clock, rand: noJitter, namespace: 'y' });
    const informer = scoped.forResource(PODS);
    scoped.start();
    assert.equal(await scoped.waitForCacheSync(), true);
    assert.deepEqual(informer.getIndexer().listKeys(), ['y/b']);
    scoped.shutdown();
  });
});
