/**
 * structured-merge-diff's own merge test tables, converted by scripts/port-smd-tests.py from
 * sigs.k8s.io/structured-merge-diff/v4 v4.6.0 merge/leaf_test.go, set_test.go, key_test.go,
 * nested_test.go, deduced_test.go, multiple_appliers_test.go (all but the tables with the repeating and reliant-fields converters),
 * duplicates_test.go, default_keys_test.go, preserve_unknown_test.go and ignore_test.go (but TestFilteredFieldsUsesVersions) field_level_overrides_test.go, extract_apply_test.go and schema_change_test.go, and run through the fixture of
 * internal/fixture/state.go (testing/fixture.ts). Each test is named `<file> <Go test> <case>`.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import deduced from './testdata/deduced.json' with { type: 'json' };
import defaultKeys from './testdata/default_keys.json' with { type: 'json' };
import duplicates from './testdata/duplicates.json' with { type: 'json' };
import extractApply from './testdata/extract_apply.json' with { type: 'json' };
import fieldLevelOverrides from './testdata/field_level_overrides.json' with { type: 'json' };
import schemaChange from './testdata/schema_change.json' with { type: 'json' };
import ignore from './testdata/ignore.json' with { type: 'json' };
import key from './testdata/key.json' with { type: 'json' };
import leaf from './testdata/leaf.json' with { type: 'json' };
import multipleAppliers from './testdata/multiple_appliers.json' with { type: 'json' };
import nested from './testdata/nested.json' with { type: 'json' };
import preserveUnknown from './testdata/preserve_unknown.json' with { type: 'json' };
import set from './testdata/set.json' with { type: 'json' };
import { Parser, renamingConverter, runCase, type PortedFile } from './testing/fixture.js';

const files = [leaf, set, key, nested, deduced, multipleAppliers, duplicates, defaultKeys, preserveUnknown, ignore, fieldLevelOverrides, extractApply, schemaChange] as unknown as PortedFile[];

for (const file of files) {
  describe(file.source, () => {
    for (const t of file.tests) {
      const parser = Parser.of(t.schema, t.typeName);
      const converter = t.converter === 'renamingConverter' ? renamingConverter(parser) : undefined;
      // Tables written for versions v1, v2, v3 run for every combination, as upstream's loops do.
      const versions = ['v1', 'v2', 'v3'];
      const envs = t.versionCombinations === true ? versions.flatMap((v1) => versions.flatMap((v2) => versions.map((v3) => ({ v1, v2, v3 })))) : [{}];
      for (const env of envs) {
        const suffix = Object.values(env).length > 0 ? ` ${Object.values(env).join('-')}` : '';
        for (const [name, tc] of Object.entries(t.cases)) {
          // Upstream's *Errors tables only require the case to fail.
          test(`${t.function}${suffix} ${name}`, () => (t.expectError === true ? assert.throws(() => runCase(parser, tc, converter, env, t.namedParsers)) : runCase(parser, tc, converter, env, t.namedParsers)));
        }
      }
    }
  });
}
