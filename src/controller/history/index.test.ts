import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ControllerRevision } from '../../api/index.js';
import { compareControllerRevisions, controllerRevisionName, maxRevision } from './index.js';

const rev = (name: string, revision: number, creationTimestamp = '2025-01-01T00:00:00Z'): ControllerRevision => ({ metadata: { name, creationTimestamp }, revision });

test('revisions order by number, then age, then name; max revision; names', () => {
  const list = [rev('c', 2), rev('b', 1, '2025-01-01T00:00:05Z'), rev('a', 1, '2025-01-01T00:00:05Z'), rev('d', 1)];
  assert.deepEqual(list.sort(compareControllerRevisions).map((r) => r.metadata?.name), ['d', 'a', 'b', 'c']);
  assert.equal(maxRevision(list), 2);
  assert.equal(maxRevision([]), 0);
  assert.equal(controllerRevisionName('web', '5fd669cccc'), 'web-5fd669cccc');
  assert.equal(controllerRevisionName('x'.repeat(300), 'h').length, 225);
});
