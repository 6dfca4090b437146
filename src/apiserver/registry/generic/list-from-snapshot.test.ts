/**
 * Lists at an exact revision and continue tokens answered from the watch cache's snapshots
 * (ListFromCacheSnapshot on) are the answers storage gives (gate off): same items, continue tokens,
 * remainingItemCount and resourceVersion, for a seeded fuzzed history of creates, updates and deletes.
 */
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { KubeList } from '../../../api/index.js';
import { defaultFeatureGate } from '../../../machinery/featuregate/index.js';
import type { Backend } from '../../../storage/interface.js';
import { flushAsync } from '../../../util/clock/index.js';
import { newTestServer, rejectsWithStatus, type TestServer } from '../../testing/fixtures.js';
import { COMPACTION_INTERVAL_MS, COMPACTION_MIN_RETAIN } from '../../index.js';

type Op = { verb: 'create' | 'update' | 'delete'; namespace: string; name: string; label: string };

const NAMESPACES = ['default', 'kube-public'];

const opArb: fc.Arbitrary<Op> = fc.record({
  verb: fc.constantFrom('create' as const, 'create' as const, 'update' as const, 'delete' as const),
  namespace: fc.constantFrom(...NAMESPACES),
  name: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'),
  label: fc.constantFrom('x', 'y'),
});

/** Counts the backend's lists, to tell where an answer came from. */
function countLists(backend: Backend): { n: number } {
  const counter = { n: 0 };
  const list = backend.list.bind(backend);
  backend.list = (...args) => {
    counter.n++;
    return list(...args);
  };
  return counter;
}

async function apply(t: TestServer, op: Op): Promise<void> {
  const base = { group: '', version: 'v1', resource: 'configmaps', namespace: op.namespace } as const;
  const body = { metadata: { name: op.name, labels: { l: op.label } }, data: { v: op.label } };
  try {
    if (op.verb === 'create') await t.server.handle({ ...base, verb: 'create', body });
    else if (op.verb === 'update') await t.server.handle({ ...base, verb: 'patch', name: op.name, patchType: 'application/merge-patch+json', body });
    else await t.server.handle({ ...base, verb: 'delete', name: op.name });
  } catch (err) {
    const code = (err as { code?: number }).code;
    if (code !== 404 && code !== 409) throw err;
  }
}

const list = async (t: TestServer, namespace: string | undefined, query: Record<string, string>, snapshots: boolean): Promise<KubeList> => {
  defaultFeatureGate.set(`ListFromCacheSnapshot=${snapshots}`);
  const res = await t.server.handle({ verb: 'list', group: '', version: 'v1', resource: 'configmaps', ...(namespace ? { namespace } : {}), query });
  return res.body as KubeList;
};

/** Pages through a list both ways, asserting every page is the same; returns how many pages. */
async function pageBothWays(t: TestServer, namespace: string | undefined, first: Record<string, string>, limit: string): Promise<number> {
  let query = first;
  for (let pages = 1; ; pages++) {
    const fromStorage = await list(t, namespace, query, false);
    const fromCache = await list(t, namespace, query, true);
    assert.deepEqual(fromCache, fromStorage, `${namespace ?? 'all'} ${JSON.stringify(query)}`);
    const next = fromCache.metadata.continue;
    if (!next) return pages;
    query = { continue: next, limit, ...(first.labelSelector ? { labelSelector: first.labelSelector } : {}) };
  }
}

describe('lists from cache snapshots', () => {
  afterEach(() => defaultFeatureGate.reset());

  test('every page at every revision of a fuzzed history is what storage answers', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 60 }), async (ops) => {
        const t = await newTestServer({ watchCacheSizing: { lowerBound: 16, upperBound: 16 } });
        const revisions: number[] = [];
        for (const op of ops) {
          await apply(t, op);
          revisions.push(t.backend.currentRevision());
        }
        await flushAsync();
        // Every revision written, old ones past the 16-event window too (those come from storage).
        for (const rv of [...new Set(revisions)]) {
          for (const namespace of [undefined, 'default']) {
            for (const limit of ['1', '3']) {
              await pageBothWays(t, namespace, { resourceVersion: String(rv), limit }, limit);
              await pageBothWays(t, namespace, { resourceVersion: String(rv), resourceVersionMatch: 'Exact', limit, labelSelector: 'l=x' }, limit);
            }
            await pageBothWays(t, namespace, { resourceVersion: String(rv), resourceVersionMatch: 'Exact' }, '0');
          }
        }
        // A first page at the current revision from the cache, continued both ways.
        for (const limit of ['1', '2', '5']) await pageBothWays(t, undefined, { limit }, limit);
      }),
      { seed: 18, numRuns: 40 },
    );
  });

  test('with the gate on, pages within the window are not read from storage; older ones are', async () => {
    const t = await newTestServer({ watchCacheSizing: { lowerBound: 8, upperBound: 8 } });
    const lists = countLists(t.backend);
    for (const name of ['a', 'b', 'c', 'd']) await apply(t, { verb: 'create', namespace: 'default', name, label: 'x' });
    const early = t.backend.currentRevision();
    const first = await list(t, 'default', { limit: '1' }, true);
    for (const name of ['a', 'b', 'c']) await apply(t, { verb: 'update', namespace: 'default', name, label: 'y' });
    await apply(t, { verb: 'delete', namespace: 'default', name: 'd', label: '' });
    await flushAsync();
    lists.n = 0;
    const names: string[] = first.items.map((o) => o.metadata?.name ?? '');
    let token = first.metadata.continue;
    while (token) {
      const page = await list(t, 'default', { continue: token, limit: '1' }, true);
      names.push(...page.items.map((o) => o.metadata?.name ?? ''));
      assert.equal(page.metadata.resourceVersion, first.metadata.resourceVersion);
      token = page.metadata.continue;
    }
    assert.deepEqual(names, ['a', 'b', 'c', 'd'], 'the list as it was at its first page');
    const exact = await list(t, 'default', { resourceVersion: String(early), resourceVersionMatch: 'Exact' }, true);
    assert.deepEqual(exact.items.map((o) => o.metadata?.labels?.['l']), ['x', 'x', 'x', 'x']);
    assert.equal(lists.n, 0, 'served from the cache');
    // Push the early revision out of the 8-event window: storage answers, the same way.
    for (let i = 0; i < 8; i++) await apply(t, { verb: 'update', namespace: 'default', name: 'a', label: i % 2 ? 'x' : 'y' });
    await flushAsync();
    const old = await list(t, 'default', { resourceVersion: String(early), resourceVersionMatch: 'Exact' }, true);
    assert.equal(lists.n, 1, 'read from storage');
    assert.deepEqual(old, exact);
  });

  test('a continue token older than the compacted revision is still 410 Expired with the gate on', async () => {
    const t = await newTestServer();
    defaultFeatureGate.set('ListFromCacheSnapshot=true');
    for (const name of ['a', 'b']) await apply(t, { verb: 'create', namespace: 'default', name, label: 'x' });
    const page = await list(t, 'default', { limit: '1' }, true);
    const token = page.metadata.continue ?? '';
    const rv = page.metadata.resourceVersion ?? '';
    for (let i = 0; i < COMPACTION_MIN_RETAIN + 5; i++) await apply(t, { verb: 'update', namespace: 'default', name: 'b', label: i % 2 ? 'x' : 'y' });
    await t.clock.stepAsync(COMPACTION_INTERVAL_MS);
    await flushAsync();
    assert.ok(Number(rv) <= t.backend.compactedRevision());
    const expired = await rejectsWithStatus(list(t, 'default', { continue: token, limit: '1' }, true), 410, /^The provided continue parameter is too old/);
    const inconsistent = expired.status.metadata?.continue ?? '';
    assert.notEqual(inconsistent, '');
    await rejectsWithStatus(list(t, 'default', { resourceVersion: rv, resourceVersionMatch: 'Exact' }, true), 410, 'The resourceVersion for the provided list is too old.');
    // The token handed out with the 410 continues at the current revision, from the cache as from storage.
    const rest = await list(t, 'default', { continue: inconsistent, limit: '1' }, true);
    assert.deepEqual(rest, await list(t, 'default', { continue: inconsistent, limit: '1' }, false));
    assert.deepEqual(rest.items.map((o) => o.metadata?.name), ['b']);
  });

  test('a future revision is 504 either way; resourceVersion=0 ignores limit (cacher computeListLimit)', async () => {
    const t = await newTestServer();
    for (const name of ['a', 'b', 'c']) await apply(t, { verb: 'create', namespace: 'default', name, label: 'x' });
    await flushAsync();
    const future = String(t.backend.currentRevision() + 10);
    for (const on of [false, true]) await rejectsWithStatus(list(t, 'default', { resourceVersion: future, resourceVersionMatch: 'Exact' }, on), 504, /Too large resource version: /);
    const all = await list(t, 'default', { resourceVersion: '0', limit: '1' }, false);
    assert.deepEqual(all.items.map((o) => o.metadata?.name), ['a', 'b', 'c']);
    assert.equal(all.metadata.continue, undefined);
  });
});
