/**
 * Ported from k8s.io/apimachinery pkg/util/managedfields/scalehandler_test.go (v0.33.9), its
 * tables extracted to testdata/scalehandler.json.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makePath, type Path } from '../fieldpath/index.js';
import type { ManagedFieldsEntry } from './managed.js';
import { ScaleHandler, type ResourcePathMappings } from './scale-handler.js';
import tables from './testdata/scalehandler.json' with { type: 'json' };

interface Case {
  desc: string;
  groupVersion?: string;
  mappings?: Record<string, string[] | null>;
  input?: ManagedFieldsEntry[] | null;
  parent?: ManagedFieldsEntry[] | null;
  subresource?: ManagedFieldsEntry[] | null;
  expected: ManagedFieldsEntry[] | null;
}

const t = tables as unknown as Record<string, Case[]>;

function mappings(c: Case): ResourcePathMappings {
  if (c.mappings === undefined) return new Map([['apps/v1', makePath('spec', 'replicas')]]);
  return new Map(Object.entries(c.mappings).map(([v, p]): [string, Path | undefined] => [v, p === null ? undefined : makePath(...p)]));
}

describe('scalehandler_test.go', () => {
  for (const c of t.TestTransformManagedFieldsToSubresource ?? []) {
    it(`TestTransformManagedFieldsToSubresource ${c.desc}`, () => {
      const h = new ScaleHandler(c.input, 'apps/v1', mappings(c));
      assert.deepEqual(h.toSubresource() ?? null, c.expected);
    });
  }
  for (const name of ['TestTransformingManagedFieldsToParent', 'TestTransformingManagedFieldsToParentMultiVersion']) {
    for (const c of t[name] ?? []) {
      it(`${name} ${c.desc}`, () => {
        const h = new ScaleHandler(c.parent, c.groupVersion ?? 'apps/v1', mappings(c));
        assert.deepEqual(h.toParent(c.subresource) ?? null, c.expected);
      });
    }
  }
});
