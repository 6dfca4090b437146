/**
 * The catalogue is the one place a kind is declared: every served strategy must be a catalogue row
 * with the row's identity and a table printer, and every row must have what serving and using it
 * takes — a protobuf message in each served version (kubectl's typed commands send protobuf) and
 * the typed client and informer accessors. (Schema roots are checked by src/api/schema/schema.test.ts.)
 * `rowProblems` is run on a deliberately broken row too, so the check itself is known to fail.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CATALOGUE, kind, kindOfResource, type KindDescriptor } from '../../src/api/catalogue/index.js';
import { messageForKind } from '../../src/api/proto/schema.js';
import { accessorsOf, newClientset } from '../../src/client/index.js';
import { newSharedInformerFactory } from '../../src/informers/index.js';
import { resourceInfo } from '../../src/apiserver/registry/strategy.js';
import { servedStrategies } from '../../src/apiserver/registry/resources/index.js';
import { FakeClock } from '../../src/util/clock/index.js';

/** A clientset whose transport is never called: accessors and informers are built lazily. */
const client = newClientset({
  request: () => Promise.reject(new Error('not used')),
  watch: () => {
    throw new Error('not used');
  },
});
const clientAccessors = accessorsOf((row) => row);
const informers = newSharedInformerFactory(client, { clock: new FakeClock() }) as unknown as Record<string, Record<string, (() => unknown) | undefined> | undefined>;
const clients = client as unknown as Record<string, Record<string, ((ns?: string) => unknown) | undefined> | undefined>;

/**
 * Groups whose Go types kubectl does not link (apiextensions-apiserver's and kube-aggregator's), so it
 * never sends or asks for their protobuf, and src/api/proto (read out of kubectl) has no message.
 */
const NOT_IN_KUBECTL = new Set(['apiextensions.k8s.io', 'apiregistration.k8s.io']);

/** Read-only rows (get and list: metrics.k8s.io) take no request body, so they need no message to decode one. */
const takesBodies = (row: KindDescriptor): boolean => row.verbs.some((v) => v !== 'get' && v !== 'list' && v !== 'watch') || row.subresources.length > 0;

/** What is missing for `row` to be served and used; empty when nothing is. */
function rowProblems(row: KindDescriptor): string[] {
  const problems: string[] = [];
  const name = `${row.group || 'core'}/${row.resource}`;
  for (const version of row.versions) {
    if (!NOT_IN_KUBECTL.has(row.group) && takesBodies(row) && !messageForKind(row.group, version, row.kind)) problems.push(`${name} ${version}: no protobuf message for ${row.kind}`);
  }
  if (row.storedAs && !kindOfResource(row.storedAs.group, row.storedAs.resource)) problems.push(`${name}: stored as an unknown resource`);
  const [group, method] = row.client;
  if (clientAccessors[group]?.[method]?.() !== row) problems.push(`${name}: accessor ${group}.${method} does not reach the row`);
  if (typeof clients[group]?.[method] !== 'function') problems.push(`${name}: no client.${group}.${method}()`);
  if (typeof informers[group]?.[method] !== 'function') problems.push(`${name}: no informers.${group}.${method}()`);
  return problems;
}

describe('the resource catalogue', () => {
  test('every served strategy is a catalogue row, with the row identity in its version and a table printer', () => {
    for (const s of servedStrategies) {
      const row = kindOfResource(s.info.group, s.info.resource);
      assert.ok(row, `${s.info.group}/${s.info.resource} is served but not in the catalogue`);
      assert.ok(row.versions.includes(s.info.version), `${s.info.resource}: ${s.info.version} is not a version of the row`);
      assert.deepEqual(s.info, resourceInfo(row, s.info.version), s.info.resource);
      // Upstream's VolumeAttachment printer gives its Attacher column the `name` format too.
      const nameColumns = s.info.resource === 'volumeattachments' ? 2 : 1;
      assert.equal(s.table.columns.filter((c) => c.format === 'name').length, nameColumns, `${s.info.resource}: the printer has one name column`);
    }
  });

  test('every row has a protobuf message in each version and its client and informer accessors', () => {
    assert.deepEqual(CATALOGUE.flatMap((row) => rowProblems(row)), []);
  });

  test('client accessors are unique', () => {
    const seen = CATALOGUE.map((row) => row.client.join('.'));
    assert.equal(new Set(seen).size, seen.length);
  });

  test('a broken row is reported', () => {
    const broken = kind<unknown>()({ group: 'example.com', versions: ['v1'], kind: 'Nonexistent', resource: 'nonexistents', namespaced: true, client: ['example', 'nonexistents'] });
    assert.deepEqual(rowProblems(broken), [
      'example.com/nonexistents v1: no protobuf message for Nonexistent',
      'example.com/nonexistents: accessor example.nonexistents does not reach the row',
      'example.com/nonexistents: no client.example.nonexistents()',
      'example.com/nonexistents: no informers.example.nonexistents()',
    ]);
  });
});
