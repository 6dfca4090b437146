/**
 * structured-merge-diff's typed/ test tables (v4.6.0), converted by
 * `scripts/port-smd-tests.py --vars`: typed/merge_test.go (mergeCases), typed/symdiff_test.go
 * (symdiffCases, with upstream's reverse check), typed/toset_test.go (fieldsetCases),
 * typed/remove_test.go (removeCases: RemoveItems and ExtractItems) and
 * typed/validate_test.go (validationCases), and typed/deduced_test.go's tables on the deduced type.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { excludeSetFilter, FieldSet, type Value } from '../fieldpath/index.js';
import deduced from './testdata/typed_deduced.json' with { type: 'json' };
import merge from './testdata/typed_merge.json' with { type: 'json' };
import remove from './testdata/typed_remove.json' with { type: 'json' };
import symdiff from './testdata/typed_symdiff.json' with { type: 'json' };
import toset from './testdata/typed_toset.json' with { type: 'json' };
import validate from './testdata/typed_validate.json' with { type: 'json' };
import { evaluate, fieldsOf, itemsOf, Parser, type GoData } from './testing/fixture.js';

/** A field of a Go struct literal, written keyed (`lhs: …`) or positionally (`{…, …}`). */
function part(lit: GoData, name: string, index: number): GoData {
  const f = fieldsOf(lit);
  if (Object.hasOwn(f, name)) return f[name] ?? null;
  return itemsOf(lit)[index] ?? null;
}

const text = (d: GoData): string => (typeof d === 'string' ? d : '');
const setOf = (d: GoData): FieldSet => evaluate(d) as FieldSet;

/** Each table case with its parser. */
function cases(file: { vars: Record<string, unknown> }, name: string): { name: string; parser: Parser; lit: GoData }[] {
  return itemsOf(file.vars[name] as GoData).map((c) => ({ name: text(part(c, 'name', 0)), parser: Parser.of(text(part(c, 'schema', 2)), text(part(c, 'rootTypeName', 1))), lit: c }));
}

describe('typed/merge_test.go TestMerge', () => {
  for (const c of cases(merge, 'mergeCases')) {
    itemsOf(part(c.lit, 'triplets', 3)).forEach((t, i) => {
      test(`${c.name}-valid-${i}`, () => {
        const lhs = c.parser.fromYaml(text(part(t, 'lhs', 0)), '', true);
        const rhs = c.parser.fromYaml(text(part(t, 'rhs', 1)), '');
        const out = c.parser.fromYaml(text(part(t, 'out', 2)), '', true);
        assert.deepEqual(lhs.merge(rhs).value, out.value);
      });
    });
  }
});

describe('typed/symdiff_test.go TestSymdiff', () => {
  for (const c of cases(symdiff, 'symdiffCases')) {
    itemsOf(part(c.lit, 'quints', 3)).forEach((q, i) => {
      test(`${c.name}-valid-${i}`, () => {
        const lhs = c.parser.fromYaml(text(part(q, 'lhs', 0)), '', true);
        const rhs = c.parser.fromYaml(text(part(q, 'rhs', 1)), '', true);
        const got = lhs.compare(rhs);
        const want = { removed: setOf(part(q, 'removed', 2)), modified: setOf(part(q, 'modified', 3)), added: setOf(part(q, 'added', 4)) };
        for (const k of ['added', 'modified', 'removed'] as const) assert.ok(got[k].equals(want[k]), `${k}: want\n${want[k].toString()}\ngot\n${got[k].toString()}`);
        const rev = rhs.compare(lhs);
        assert.ok(rev.modified.equals(got.modified), 'reverse modified');
        assert.ok(rev.removed.equals(got.added), 'reverse removed');
        assert.ok(rev.added.equals(got.removed), 'reverse added');
      });
    });
  }
});

describe('compare with excluded fields = the comparison filtered by NewExcludeSetFilter (ours, over the symdiff table)', () => {
  for (const c of cases(symdiff, 'symdiffCases')) {
    itemsOf(part(c.lit, 'quints', 3)).forEach((q, i) => {
      test(`${c.name}-${i}`, () => {
        const lhs = c.parser.fromYaml(text(part(q, 'lhs', 0)), '', true);
        const rhs = c.parser.fromYaml(text(part(q, 'rhs', 1)), '', true);
        const full = lhs.compare(rhs);
        // Every changed path, its first element and its parent, each as an exclude set of its own.
        const excludes = full.added.union(full.modified).union(full.removed).paths().flatMap((p) => [p, p.slice(0, 1), p.slice(0, -1)]).filter((p) => p.length > 0);
        for (const path of excludes) {
          const exclude = FieldSet.of(path);
          const filter = excludeSetFilter(exclude);
          const got = lhs.compare(rhs, exclude);
          for (const k of ['added', 'modified', 'removed'] as const) assert.ok(got[k].equals(filter(full[k])), `excluding ${exclude.toString()}: ${k}: got\n${got[k].toString()}`);
        }
      });
    });
  }
});

describe('typed/toset_test.go TestToFieldSet', () => {
  for (const c of cases(toset, 'fieldsetCases')) {
    itemsOf(part(c.lit, 'pairs', 3)).forEach((p, i) => {
      test(`${c.name}-${i}`, () => {
        const got = c.parser.fromYaml(text(part(p, 'object', 0)), '', true).toFieldSet();
        const want = setOf(part(p, 'set', 1));
        assert.ok(got.equals(want), `want\n${want.toString()}\ngot\n${got.toString()}`);
      });
    });
  }
});

describe('typed/remove_test.go TestRemove', () => {
  for (const c of cases(remove, 'removeCases')) {
    itemsOf(part(c.lit, 'quadruplets', 3)).forEach((q, i) => {
      const removeOutput = text(part(q, 'removeOutput', 2));
      const extractOutput = text(part(q, 'extractOutput', 3));
      test(`${c.name}-valid-${i}`, () => {
        const tv = c.parser.fromYaml(text(part(q, 'object', 0)), '');
        if (removeOutput !== 'unparseable') {
          const want: Value | undefined = c.parser.fromYaml(removeOutput, '').value;
          assert.deepEqual(tv.removeItems(setOf(part(q, 'set', 1))).value, want, 'RemoveItems');
        }
        if (extractOutput !== 'unparseable') {
          const want: Value | undefined = c.parser.fromYaml(extractOutput, '').value;
          assert.deepEqual(tv.extractItems(setOf(part(q, 'set', 1))).value, want, 'ExtractItems');
        }
      });
    });
  }
});

describe('typed/validate_test.go TestSchemaValidation', () => {
  for (const c of cases(validate, 'validationCases')) {
    itemsOf(part(c.lit, 'validObjects', 3)).forEach((o, i) => {
      test(`${c.name}-valid-${i}`, () => void c.parser.fromYaml(text(o), ''));
    });
    itemsOf(part(c.lit, 'invalidObjects', 4)).forEach((o, i) => {
      test(`${c.name}-invalid-${i}`, () => assert.throws(() => c.parser.fromYaml(text(o), ''), (e: Error) => !e.message.includes('invalid atom')));
    });
    itemsOf(part(c.lit, 'duplicatesObjects', 5)).forEach((o, i) => {
      test(`${c.name}-duplicates-${i}`, () => {
        assert.throws(() => c.parser.fromYaml(text(o), ''), (e: Error) => !e.message.includes('invalid atom'));
        c.parser.fromYaml(text(o), '', true);
      });
    });
  }
});

describe('typed/deduced_test.go', () => {
  const parser = Parser.of(null, null);
  const table = (name: string): GoData[] => itemsOf((deduced.vars as Record<string, unknown>)[name] as GoData);

  table('TestValidateDeducedType.tests').forEach((y, i) => {
    test(`TestValidateDeducedType ${i}`, () => void parser.fromYaml(text(y), ''));
  });

  table('TestMergeDeduced.triplets').forEach((t, i) => {
    test(`TestMergeDeduced triplet-${i}`, () => {
      const lhs = parser.fromYaml(text(part(t, 'lhs', 0)), '');
      const rhs = parser.fromYaml(text(part(t, 'rhs', 1)), '');
      assert.deepEqual(lhs.merge(rhs).value, parser.fromYaml(text(part(t, 'out', 2)), '').value);
    });
  });

  table('TestToSetDeduced.tests').forEach((p, i) => {
    test(`TestToSetDeduced ${i}`, () => {
      const got = parser.fromYaml(text(part(p, 'object', 0)), '').toFieldSet();
      const want = setOf(part(p, 'set', 1));
      assert.ok(got.equals(want), `want\n${want.toString()}\ngot\n${got.toString()}`);
    });
  });

  table('TestSymdiffDeduced.quints').forEach((q, i) => {
    test(`TestSymdiffDeduced ${i}`, () => {
      const got = parser.fromYaml(text(part(q, 'lhs', 0)), '').compare(parser.fromYaml(text(part(q, 'rhs', 1)), ''));
      const want = { removed: setOf(part(q, 'removed', 2)), modified: setOf(part(q, 'modified', 3)), added: setOf(part(q, 'added', 4)) };
      for (const k of ['added', 'modified', 'removed'] as const) assert.ok(got[k].equals(want[k]), `${k}: want\n${want[k].toString()}\ngot\n${got[k].toString()}`);
    });
  });
});
