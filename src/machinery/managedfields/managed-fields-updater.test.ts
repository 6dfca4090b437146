/** Ported from k8s.io/apimachinery pkg/util/managedfields/internal/managedfieldsupdater_test.go (v0.33.9). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from '../../util/clock/index.js';
import { decodeManagedFields, removeObjectManagedFields, type ManagedFieldsEntry, type Manager } from './managed.js';
import { ManagedFieldsUpdater } from './managed-fields-updater.js';
import { obj, TestFieldManager } from './testing/test-field-manager.js';

const cm = (data: Record<string, string>): string => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'configmap' }, data });

function byManager(entries: ManagedFieldsEntry[]): Map<string | undefined, ManagedFieldsEntry> {
  return new Map(entries.map((e) => [e.manager, e]));
}

type Op = 'update' | 'apply';

function run(f: TestFieldManager, op: Op, manager: string, text: string): void {
  if (op === 'update') f.update(obj(text), manager);
  else f.apply(obj(text), manager, true);
}

describe('managedfieldsupdater_test.go', () => {
  for (const op of ['update', 'apply'] as const) {
    const Op = op === 'update' ? 'Update' : 'Apply';
    it(`TestManagedFields${Op}DoesModifyTime`, () => {
      const f = new TestFieldManager('v1', 'ConfigMap');
      run(f, op, 'fieldmanager_test', cm({ key: 'value' }));
      const previous = f.managedFields()[0]?.time;
      f.clock.step(1000);
      run(f, op, 'fieldmanager_test', cm({ key: 'new-value' }));
      assert.notEqual(f.managedFields()[0]?.time, previous);
    });

    it(`TestManagedFields${Op}WithoutChangesDoesNotModifyTime`, () => {
      const f = new TestFieldManager('v1', 'ConfigMap');
      run(f, op, 'fieldmanager_test', cm({ key: 'value' }));
      const previous = f.managedFields()[0]?.time;
      f.clock.step(1000);
      run(f, op, 'fieldmanager_test', cm({ key: 'value' }));
      assert.equal(f.managedFields()[0]?.time, previous);
    });

    it(`TestTakingOverManagedFieldsDuring${Op}DoesNotModifyPreviousManagerTime`, () => {
      const f = new TestFieldManager('v1', 'ConfigMap');
      run(f, op, 'fieldmanager_a_test', cm({ key_a: 'value', key_b: 'value"' }));
      const previous = byManager(f.managedFields());
      f.clock.step(1000);
      run(f, op, 'fieldmanager_b_test', cm({ key_b: 'new-value' }));
      assert.equal(byManager(f.managedFields()).get('fieldmanager_a_test')?.time, previous.get('fieldmanager_a_test')?.time);
    });
  }

  it('TestNonManagedFieldsUpdateDoesNotModifyTime', () => {
    const f = new TestFieldManager('v1', 'ConfigMap');
    f.update(obj(cm({ key_a: 'value' })), 'fieldmanager_a_test');
    f.update(obj(cm({ key_b: 'value' })), 'fieldmanager_b_test');
    f.clock.step(1000);
    f.update(obj(cm({ key_a: 'value', key_b: 'new-value' })), 'fieldmanager_a_test');
    assert.equal(byManager(f.managedFields()).has('fieldmanager_b_test'), false);
  });

  it('TestNonManagedFieldsApplyDoesNotModifyTime', () => {
    const f = new TestFieldManager('v1', 'ConfigMap');
    f.apply(obj(cm({ key_a: 'value' })), 'fieldmanager_a_test', true);
    f.apply(obj(cm({ key_b: 'value' })), 'fieldmanager_b_test', true);
    const previous = byManager(f.managedFields());
    f.clock.step(1000);
    f.apply(obj(cm({ key_a: 'new-value' })), 'fieldmanager_a_test', true);
    const now = byManager(f.managedFields());
    assert.equal(now.get('fieldmanager_b_test')?.time, previous.get('fieldmanager_b_test')?.time);
    assert.notEqual(now.get('fieldmanager_a_test')?.time, previous.get('fieldmanager_a_test')?.time);
  });

  it('TestNilNewObjectReplacedWithDeepCopyExcludingManagedFields', () => {
    const live = obj(`{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "pod", "labels": {"app": "nginx"}, "managedFields": [
      {"apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {"f:labels": {"f:app": {}}}}, "manager": "fieldmanager_test", "operation": "Apply", "time": "2021-11-11T18:41:17Z"}]}}`);
    const managed = decodeManagedFields(live.metadata?.managedFields);
    const noop: Manager = { apply: (_l, _a, m) => ({ object: undefined, managed: m }), update: () => assert.fail('not called') };
    const r = new ManagedFieldsUpdater(noop, new FakeClock()).apply(live, structuredClone(live), managed, 'some_manager', false);
    assert.notEqual(r.object, live);
    const expected = structuredClone(live);
    removeObjectManagedFields(expected);
    assert.deepEqual(r.object, expected);
    assert.ok(live.metadata?.managedFields !== undefined, 'the live object keeps its managedFields');
  });
});
