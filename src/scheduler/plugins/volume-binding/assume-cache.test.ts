/** The assume cache (cases of upstream pkg/scheduler/util/assumecache/assume_cache_test.go). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolume } from '../../../api/index.js';
import { newIndexer } from '../../../informers/index.js';
import { makePV } from '../../testing/fixtures.js';
import { AssumeCache } from './assume-cache.js';

const withClaim = (pv: PersistentVolume, claim: string): PersistentVolume => ({ ...pv, spec: { ...pv.spec, claimRef: { name: claim, namespace: 'default' } } });

test('assume, newer informer version wins, restore, out-of-sync refusal', () => {
  const indexer = newIndexer<PersistentVolume>();
  const cache = new AssumeCache(indexer, 'PersistentVolume');
  const v5 = makePV('pv-1', { rv: '5' });
  indexer.add(v5);
  assert.throws(() => cache.assume(makePV('pv-2', { rv: '5' })), /PersistentVolume "pv-2" not found/);
  // Assumed: get sees it, the API object is unchanged.
  cache.assume(withClaim(v5, 'a'));
  assert.equal(cache.get('pv-1')?.spec?.claimRef?.name, 'a');
  assert.equal(cache.getAPIObj('pv-1')?.spec?.claimRef, undefined);
  // Restore drops it.
  cache.restore('pv-1');
  assert.equal(cache.get('pv-1')?.spec?.claimRef, undefined);
  // A newer informer version replaces the assumption.
  cache.assume(withClaim(v5, 'a'));
  indexer.update(withClaim(makePV('pv-1', { rv: '6' }), 'b'));
  assert.equal(cache.get('pv-1')?.spec?.claimRef?.name, 'b');
  // An older object cannot be assumed.
  assert.throws(() => cache.assume(withClaim(v5, 'c')), /PersistentVolume "pv-1" is out of sync \(stored: 6, assume: 5\)/);
  // Deleted from the informer: gone.
  cache.assume(withClaim(makePV('pv-1', { rv: '6' }), 'c'));
  indexer.delete(makePV('pv-1'));
  assert.equal(cache.get('pv-1'), undefined);
});
