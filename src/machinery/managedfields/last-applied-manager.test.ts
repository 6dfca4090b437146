/**
 * Ported from k8s.io/apimachinery pkg/util/managedfields/internal/lastappliedmanager_test.go
 * (v0.33.9): TestApplyUsingLastAppliedAnnotation, TestServiceApply, TestReplicationControllerApply
 * and TestPodApply, their tables extracted to testdata/lastappliedmanager.json.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import type { KubeObject } from '../../api/index.js';
import { FieldSet, keyByFields, makePath, valueToJson, type PathPart, type Value } from '../fieldpath/index.js';
import { Conflicts } from '../merge/index.js';
import { StatusError } from '../errors/index.js';
import { newConflictError } from './conflict.js';
import { setLastApplied } from './last-applied.js';
import { TestFieldManager } from './testing/test-field-manager.js';
import tables from './testdata/lastappliedmanager.json' with { type: 'json' };

interface TestArgs {
  fieldManager: string;
  lastApplied: string | null;
  original: string | null;
  applied: string | null;
  expectConflictSet: (string | number | { key: (string | number)[] })[][] | null;
}

function yamlObject(text: string | null): KubeObject {
  return ((parse(text ?? '') as KubeObject | null) ?? {});
}

/** The annotation as kubectl writes it (yamlToJSON: encoding/json of the object). */
function setLastAppliedFromEncoded(o: KubeObject, text: string | null): void {
  setLastApplied(o, valueToJson(yamlObject(text) as Value));
}

/** Every field set in `a` is set to the same value in `b` (apiequality.Semantic.DeepDerivative): empty values in `a` match anything. */
function deepDerivative(a: unknown, b: unknown): boolean {
  if (a === null || a === undefined) return true;
  if (Array.isArray(a)) {
    if (a.length === 0) return true;
    return Array.isArray(b) && a.length <= b.length && a.every((x, i) => deepDerivative(x, b[i]));
  }
  if (typeof a === 'object') {
    const entries = Object.entries(a);
    if (entries.length === 0) return true;
    if (typeof b !== 'object' || b === null || Array.isArray(b)) return false;
    return entries.every(([k, v]) => deepDerivative(v, (b as Record<string, unknown>)[k]));
  }
  if (a === '') return true;
  return a === b;
}

function toPath(parts: TestArgs['expectConflictSet'] extends (infer P)[] | null ? P : never): PathPart[] {
  return parts.map((p) => (typeof p === 'object' ? keyByFields(...p.key) : p));
}

for (const table of tables as { name: string; apiVersion: string; kind: string; cases: TestArgs[] }[]) {
  describe(`lastappliedmanager_test.go ${table.name}`, () => {
    const f = new TestFieldManager(table.apiVersion, table.kind);
    table.cases.forEach((test, i) => {
      it(`test ${i}`, () => {
        f.reset();
        const original = yamlObject(test.original);
        setLastAppliedFromEncoded(original, test.lastApplied ?? test.original);
        f.update(original, 'test_client_side_apply');
        const applied = yamlObject(test.applied);
        if (test.expectConflictSet === null) {
          f.apply(applied, test.fieldManager, false);
        } else {
          const set = FieldSet.of(...test.expectConflictSet.map((p) => makePath(...toPath(p))));
          const expected = newConflictError(new Conflicts(set.paths().map((path) => ({ manager: `{"manager":"test_client_side_apply","operation":"Update","apiVersion":"${f.apiVersion}"}`, path }))));
          assert.throws(
            () => f.apply(applied, test.fieldManager, false),
            (e: unknown) => {
              assert.ok(e instanceof StatusError);
              assert.deepEqual(e.status, expected.status);
              return true;
            },
          );
          f.apply(applied, test.fieldManager, true);
        }
        assert.ok(deepDerivative(applied, f.live()), `applied changes are in the live object: ${JSON.stringify(f.live())}`);
      });
    });
  });
}
