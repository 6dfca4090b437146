import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Pod } from '../api/index.js';
import { parseSelector } from '../machinery/labels/index.js';
import { DeletedFinalStateUnknown, deletionHandlingMetaNamespaceKeyFunc, newIndexer, NAMESPACE_INDEX } from './indexer.js';
import { newLister } from './lister.js';

function pod(ns: string, name: string, node = '', labels: Record<string, string> = {}): Pod {
  return { metadata: { namespace: ns, name, labels }, spec: { containers: [], nodeName: node } };
}

const byNode = { node: (p: Pod) => (p.spec?.nodeName ? [p.spec.nodeName] : []) };

describe('Indexer', () => {
  test('stores by namespace/name, freezes, and keeps the namespace and custom indices current', () => {
    const idx = newIndexer<Pod>(byNode);
    const a = pod('ns1', 'a', 'n1');
    idx.add(a);
    idx.add(pod('ns1', 'b', 'n1'));
    idx.add(pod('ns2', 'a'));
    assert.ok(Object.isFrozen(a) && Object.isFrozen(a.metadata) && Object.isFrozen(a.spec?.containers));
    assert.deepEqual(idx.listKeys().sort(), ['ns1/a', 'ns1/b', 'ns2/a']);
    assert.equal(idx.getByKey('ns1/a'), a);
    assert.equal(idx.get(pod('ns1', 'a')), a);
    assert.deepEqual(idx.indexKeys(NAMESPACE_INDEX, 'ns1').sort(), ['ns1/a', 'ns1/b']);
    assert.deepEqual(idx.indexKeys('node', 'n1').sort(), ['ns1/a', 'ns1/b']);

    idx.update(pod('ns1', 'a', 'n2')); // moves between node index values
    assert.deepEqual(idx.indexKeys('node', 'n1'), ['ns1/b']);
    assert.deepEqual(idx.byIndex('node', 'n2').map((p) => p.metadata?.name), ['a']);

    idx.delete(pod('ns1', 'b'));
    assert.deepEqual(idx.indexKeys('node', 'n1'), []);
    assert.equal(idx.getByKey('ns1/b'), undefined);
    idx.delete(pod('ns1', 'zzz')); // absent: no-op
    assert.equal(idx.list().length, 2);
  });

  test('replace swaps the whole content and the indices', () => {
    const idx = newIndexer<Pod>(byNode);
    idx.add(pod('ns1', 'a', 'n1'));
    idx.replace([pod('ns3', 'c', 'n3')]);
    assert.deepEqual(idx.listKeys(), ['ns3/c']);
    assert.deepEqual(idx.indexKeys('node', 'n1'), []);
    assert.deepEqual(idx.indexKeys('node', 'n3'), ['ns3/c']);
  });

  test('addIndexers indexes existing content; conflicts and unknown indices throw', () => {
    const idx = newIndexer<Pod>();
    idx.add(pod('ns1', 'a', 'n1'));
    idx.addIndexers(byNode);
    assert.deepEqual(idx.indexKeys('node', 'n1'), ['ns1/a']);
    assert.throws(() => idx.addIndexers(byNode), /indexer conflict: node/);
    assert.throws(() => idx.byIndex('nope', 'x'), /Index with name nope does not exist/);
  });

  test('cluster-scoped keys and DeletedFinalStateUnknown keys', () => {
    const idx = newIndexer<Pod>();
    idx.add({ metadata: { name: 'node-1' } });
    assert.deepEqual(idx.listKeys(), ['node-1']);
    assert.equal(deletionHandlingMetaNamespaceKeyFunc(new DeletedFinalStateUnknown('ns/x', {})), 'ns/x');
    assert.equal(deletionHandlingMetaNamespaceKeyFunc(pod('ns', 'y')), 'ns/y');
  });
});

describe('Lister', () => {
  test('lists by selector, all namespaces or one; gets by key or name', () => {
    const idx = newIndexer<Pod>();
    idx.add(pod('ns1', 'a', '', { app: 'web' }));
    idx.add(pod('ns1', 'b', '', { app: 'db' }));
    idx.add(pod('ns2', 'c', '', { app: 'web' }));
    const l = newLister(idx);
    const names = (ps: Pod[]): string[] => ps.map((p) => p.metadata?.name ?? '').sort();
    assert.deepEqual(names(l.list()), ['a', 'b', 'c']);
    assert.deepEqual(names(l.list(parseSelector('app=web'))), ['a', 'c']);
    assert.deepEqual(names(l.namespace('ns1').list()), ['a', 'b']);
    assert.deepEqual(names(l.namespace('ns1').list(parseSelector('app!=web'))), ['b']);
    assert.deepEqual(names(l.namespace('ns3').list()), []);
    assert.equal(l.get('ns2/c')?.metadata?.name, 'c');
    assert.equal(l.namespace('ns2').get('c')?.metadata?.name, 'c');
    assert.equal(l.namespace('ns1').get('c'), undefined);
  });

  test('an index summary counts each bucket by class as objects come, change, move and go', () => {
    const idx = newIndexer<Pod>(byNode);
    idx.add(pod('ns', 'early', 'n1', { tier: 'web' }));
    // Added over existing content: summarizes it at once.
    idx.addIndexSummary('node', 'tiers', (p) => p.metadata?.labels?.tier);
    const classes = (node: string): Record<string, number> => Object.fromEntries([...idx.summary('tiers', node)].map(([k, c]) => [k, c.count]));
    assert.deepEqual(classes('n1'), { web: 1 });
    idx.add(pod('ns', 'a', 'n1', { tier: 'web' }));
    idx.add(pod('ns', 'b', 'n1', { tier: 'db' }));
    idx.add(pod('ns', 'c', 'n1')); // no class: left out
    assert.deepEqual(classes('n1'), { web: 2, db: 1 });
    idx.update(pod('ns', 'a', 'n1', { tier: 'db' })); // changes class
    assert.deepEqual(classes('n1'), { web: 1, db: 2 });
    assert.equal(idx.summary('tiers', 'n1').get('db')?.sample.metadata?.labels?.tier, 'db');
    idx.update(pod('ns', 'b', 'n2', { tier: 'db' })); // moves bucket
    assert.deepEqual([classes('n1'), classes('n2')], [{ web: 1, db: 1 }, { db: 1 }]);
    idx.delete(pod('ns', 'b'));
    assert.deepEqual(classes('n2'), {});
    idx.replace([pod('ns', 'x', 'n3', { tier: 'web' })]);
    assert.deepEqual([classes('n1'), classes('n3')], [{}, { web: 1 }]);
    assert.throws(() => idx.addIndexSummary('node', 'tiers', () => 'x'), /index summary conflict: tiers/);
    assert.throws(() => idx.addIndexSummary('nope', 'other', () => 'x'), /Index with name nope does not exist/);
    assert.throws(() => idx.summary('nope', 'n1'), /Index summary with name nope does not exist/);
  });

  test('an index summary agrees with a count over the bucket after any sequence of writes', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('add', 'delete'), fc.integer({ min: 0, max: 5 }), fc.constantFrom('n1', 'n2', ''), fc.constantFrom('a', 'b', undefined)), { maxLength: 60 }), (ops) => {
        const idx = newIndexer<Pod>(byNode);
        idx.addIndexSummary('node', 'tiers', (p) => p.metadata?.labels?.tier);
        for (const [op, i, node, tier] of ops) {
          const p = pod('ns', `p${i}`, node, tier === undefined ? {} : { tier });
          if (op === 'add') idx.add(p);
          else idx.delete(p);
        }
        for (const node of ['n1', 'n2']) {
          const want = new Map<string, number>();
          for (const p of idx.byIndex('node', node)) {
            const t = p.metadata?.labels?.tier;
            if (t !== undefined) want.set(t, (want.get(t) ?? 0) + 1);
          }
          assert.deepEqual(new Map([...idx.summary('tiers', node)].map(([k, c]) => [k, c.count])), want);
        }
      }),
      { seed: 18, numRuns: 300 },
    );
  });
});
