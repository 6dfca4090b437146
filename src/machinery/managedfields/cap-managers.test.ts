/** Ported from k8s.io/apimachinery pkg/util/managedfields/internal/capmanagers_test.go (v0.33.9). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../api/index.js';
import { FieldSet, makePath, type Path } from '../fieldpath/index.js';
import { CapManagersManager } from './cap-managers.js';
import { fieldsToSet, setToFields, type ManagedFieldsEntry } from './managed.js';
import { TestFieldManager } from './testing/test-field-manager.js';

function newCapped(): TestFieldManager {
  return new TestFieldManager('v1', 'Pod', { chain: (m) => new CapManagersManager(m, 3) });
}

/** A no-op update must not change managedFields (expectIdempotence). */
function expectIdempotence(f: TestFieldManager): void {
  const before = structuredClone(f.managedFields());
  f.update(f.live(), 'no-op-update');
  assert.deepEqual(f.managedFields(), before);
}

function expectManagesField(f: TestFieldManager, manager: string, p: Path): void {
  const e = f.managedFields().find((x) => x.manager === manager);
  assert.ok(e !== undefined, `no manager ${manager}`);
  assert.ok(fieldsToSet(e.fieldsV1).has(p), `${manager} should own ${JSON.stringify(p)}`);
}

describe('capmanagers_test.go', () => {
  it('TestCapManagersManagerMergesEntries', () => {
    const f = newCapped();
    const podWithLabels = (...labels: string[]): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { labels: Object.fromEntries(labels.map((l) => [l, 'true'])) } });
    const labels = ['one', 'two', 'three', 'four'];
    for (let i = 1; i <= 4; i++) {
      f.update(podWithLabels(...labels.slice(0, i)), `fieldmanager_test_update_${i}`);
      expectIdempotence(f);
    }
    assert.deepEqual(
      f.managedFields().map((e) => e.manager),
      ['ancient-changes', 'fieldmanager_test_update_3', 'fieldmanager_test_update_4'],
    );
    expectManagesField(f, 'ancient-changes', makePath('metadata', 'labels', 'one'));
    expectManagesField(f, 'ancient-changes', makePath('metadata', 'labels', 'two'));
    expectManagesField(f, 'fieldmanager_test_update_3', makePath('metadata', 'labels', 'three'));
    expectManagesField(f, 'fieldmanager_test_update_4', makePath('metadata', 'labels', 'four'));
  });

  const set = (...fields: string[]): object => setToFields(FieldSet.of(...fields.map((x) => makePath(x))));
  // Go's zero time plus `order` hours.
  const entry = (manager: string, apiVersion: string, order: number, fieldsV1: object): ManagedFieldsEntry => ({
    manager,
    operation: 'Update',
    apiVersion,
    time: `0001-01-01T${String(order).padStart(2, '0')}:00:00Z`,
    fieldsType: 'FieldsV1',
    fieldsV1,
  });
  const cases: [string, ManagedFieldsEntry[], ManagedFieldsEntry[]][] = [
    [
      'one version, no ancient changes',
      [entry('update-manager1', 'v1', 1, set('a')), entry('update-manager2', 'v1', 2, set('b')), entry('update-manager3', 'v1', 3, set('c')), entry('update-manager4', 'v1', 4, set('d'))],
      [entry('ancient-changes', 'v1', 2, set('a', 'b')), entry('update-manager3', 'v1', 3, set('c')), entry('update-manager4', 'v1', 4, set('d'))],
    ],
    [
      'one version, one ancient changes',
      [entry('ancient-changes', 'v1', 2, set('a', 'b')), entry('update-manager3', 'v1', 3, set('c')), entry('update-manager4', 'v1', 4, set('d')), entry('update-manager5', 'v1', 5, set('e'))],
      [entry('ancient-changes', 'v1', 3, set('a', 'b', 'c')), entry('update-manager4', 'v1', 4, set('d')), entry('update-manager5', 'v1', 5, set('e'))],
    ],
    [
      'two versions, no ancient changes',
      [entry('update-manager1', 'v1', 1, set('a')), entry('update-manager2', 'v2', 2, set('b')), entry('update-manager3', 'v1', 3, set('c')), entry('update-manager4', 'v1', 4, set('d')), entry('update-manager5', 'v1', 5, set('e'))],
      [entry('update-manager2', 'v2', 2, set('b')), entry('ancient-changes', 'v1', 4, set('a', 'c', 'd')), entry('update-manager5', 'v1', 5, set('e'))],
    ],
    [
      'three versions, one ancient changes',
      [entry('update-manager2', 'v2', 2, set('b')), entry('ancient-changes', 'v1', 4, set('a', 'c', 'd')), entry('update-manager5', 'v1', 5, set('e')), entry('update-manager6', 'v3', 6, set('f')), entry('update-manager7', 'v2', 7, set('g'))],
      [entry('ancient-changes', 'v1', 5, set('a', 'c', 'd', 'e')), entry('update-manager6', 'v3', 6, set('f')), entry('ancient-changes', 'v2', 7, set('b', 'g'))],
    ],
    [
      'three versions, two ancient changes',
      [entry('ancient-changes', 'v1', 5, set('a', 'c', 'd', 'e')), entry('update-manager6', 'v3', 6, set('f')), entry('ancient-changes', 'v2', 7, set('b', 'g')), entry('update-manager8', 'v3', 8, set('h'))],
      [entry('ancient-changes', 'v1', 5, set('a', 'c', 'd', 'e')), entry('ancient-changes', 'v2', 7, set('b', 'g')), entry('ancient-changes', 'v3', 8, set('f', 'h'))],
    ],
    [
      'four versions, two ancient changes',
      [entry('ancient-changes', 'v1', 5, set('a', 'c', 'd', 'e')), entry('update-manager6', 'v3', 6, set('f')), entry('ancient-changes', 'v2', 7, set('b', 'g')), entry('update-manager8', 'v4', 8, set('h'))],
      [entry('ancient-changes', 'v1', 5, set('a', 'c', 'd', 'e')), entry('update-manager6', 'v3', 6, set('f')), entry('ancient-changes', 'v2', 7, set('b', 'g')), entry('update-manager8', 'v4', 8, set('h'))],
    ],
  ];
  for (const [name, input, expected] of cases) {
    it(`TestCapUpdateManagers ${name}`, () => {
      const f = newCapped();
      const live = f.live();
      live.metadata = { ...live.metadata, managedFields: input };
      f.update(live, 'no-op-update');
      assert.deepEqual(f.managedFields(), expected);
      expectIdempotence(f);
    });
  }
});
