/**
 * structured-merge-diff's own merge test tables, converted by scripts/port-smd-tests.py from
 * sigs.k8s.io/structured-merge-diff/v4 v4.6.0 merge/leaf_test.go, set_test.go, key_test.go,
 * nested_test.go, deduced_test.go, multiple_appliers_test.go (the same-version tables),
 * duplicates_test.go, default_keys_test.go and preserve_unknown_test.go, and run through the fixture of
 * internal/fixture/state.go (testing/fixture.ts). Each test is named `<file> <Go test> <case>`.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import deduced from './testdata/deduced.json' with { type: 'json' };
import defaultKeys from './testdata/default_keys.json' with { type: 'json' };
import duplicates from './testdata/duplicates.json' with { type: 'json' };
import key from './testdata/key.json' with { type: 'json' };
import leaf from './testdata/leaf.json' with { type: 'json' };
import multipleAppliers from './testdata/multiple_appliers.json' with { type: 'json' };
import nested from './testdata/nested.json' with { type: 'json' };
import preserveUnknown from './testdata/preserve_unknown.json' with { type: 'json' };
import set from './testdata/set.json' with { type: 'json' };
import { Parser, runCase, type PortedFile } from './testing/fixture.js';

const files = [leaf, set, key, nested, deduced, multipleAppliers, duplicates, defaultKeys, preserveUnknown] as unknown as PortedFile[];

for (const file of files) {
  describe(file.source, () => {
    for (const t of file.tests) {
      const parser = Parser.of(t.schema, t.typeName);
      for (const [name, tc] of Object.entries(t.cases)) {
        // Upstream's *Errors tables only require the case to fail.
        test(`${t.function} ${name}`, () => (t.expectError === true ? assert.throws(() => runCase(parser, tc)) : runCase(parser, tc)));
      }
    }
  });
}
