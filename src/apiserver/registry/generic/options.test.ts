/**
 * List and watch options are refused with upstream's messages, in upstream's order
 * (apimachinery v0.33 pkg/apis/meta/internalversion/validation/validation.go `ValidateListOptions`).
 */
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultFeatureGate } from '../../../machinery/featuregate/index.js';
import { parseListOptions } from './options.js';

const invalid = (...causes: string[]): { code: number; message: string } => ({
  code: 422,
  message: `ListOptions.meta.k8s.io "" is invalid: ${causes.length === 1 ? causes[0] : `[${causes.join(', ')}]`}`,
});

describe('parseListOptions', () => {
  afterEach(() => defaultFeatureGate.reset());

  test('a list: resourceVersionMatch errors first, then sendInitialEvents (forbidden for any list)', () => {
    assert.throws(() => parseListOptions({ sendInitialEvents: 'true', resourceVersionMatch: 'NotOlderThan', resourceVersion: '5' }, false), invalid('sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list'));
    assert.throws(
      () => parseListOptions({ resourceVersionMatch: 'Newest', continue: 'x', sendInitialEvents: 'false' }, false),
      invalid(
        'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
        'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided',
        'resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""',
        'sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list',
      ),
    );
    assert.throws(() => parseListOptions({ resourceVersionMatch: 'Exact', resourceVersion: '0' }, false), invalid('resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
  });

  test('a watch list needs resourceVersionMatch=NotOlderThan and the WatchList gate, off in v1.33', () => {
    const watchList = { sendInitialEvents: 'true', resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: 'true' };
    assert.throws(() => parseListOptions(watchList, true), invalid('sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled'));
    defaultFeatureGate.set('WatchList=true');
    // resourceVersion may be empty (a consistent start), 0 or a revision.
    for (const resourceVersion of ['', '0', '12']) assert.equal(parseListOptions({ ...watchList, resourceVersion }, true).sendInitialEvents, true);
    assert.throws(
      () => parseListOptions({ sendInitialEvents: 'true', resourceVersionMatch: 'Exact', resourceVersion: '0' }, true),
      invalid(
        'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
        'resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"',
      ),
    );
    assert.throws(() => parseListOptions({ sendInitialEvents: 'false' }, true), invalid('resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
  });

  test('a watch: resourceVersionMatch only with sendInitialEvents, never with continue; no resourceVersion needed', () => {
    assert.throws(
      () => parseListOptions({ resourceVersionMatch: 'NotOlderThan', continue: 'x' }, true),
      invalid(
        'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
        'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided',
      ),
    );
  });
});
