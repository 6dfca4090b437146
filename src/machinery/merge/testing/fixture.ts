/**
 * The test fixture of structured-merge-diff's merge tests, after sigs.k8s.io/structured-merge-diff/v4
 * internal/fixture/state.go (v4.6.0): a live object and its managers, operations (Apply, ForceApply,
 * Update) run through the {@link Updater}, and a test case's expected object and ownership.
 *
 * It also runs upstream's test tables as converted to JSON by scripts/port-smd-tests.py: Go calls
 * (`_P`, `_NS`, `_KBF`, `_V`, `fieldpath.NewVersionedSet`) and composite literals (`Apply{…}`,
 * `merge.Conflicts{…}`) are kept as data and interpreted here.
 */
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { excludeSetFilter, FieldSet, keyByFields, type FieldFilter, makePath, managedFieldsDifference, type ManagedFields, type Path, type PathPart, type Value } from '../../fieldpath/index.js';
import { Conflicts, type Conflict } from '../conflict.js';
import { deducedTypeRef, schemaFromDocument, type Schema, type TypeRef } from '../schema.js';
import { TypedValue } from '../typed.js';
import { identityConverter, Updater, type Converter, type UpdaterOptions } from '../update.js';

/** Strip the indentation of the first non-empty line from every line (upstream FixTabsOrDie), then parse the YAML. */
export function parseYaml(text: string): Value {
  const lines = text.split('\n');
  if (lines[0]?.trim() === '' && lines.length > 1) lines.shift();
  const indent = /^[\t ]*/.exec(lines[0] ?? '')?.[0] ?? '';
  const body = lines.map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l.trimStart())).join('\n');
  let v: Value | undefined;
  try {
    v = parse(body) as Value | undefined;
  } catch (e) {
    // go-yaml v2 stops at the end of a flow document; a few upstream cases have a stray closing brace.
    if (!body.trimEnd().endsWith('}')) throw e;
    v = parse(body.trimEnd().slice(0, -1)) as Value | undefined;
  }
  return v === undefined ? null : v;
}

/**
 * Builds typed values (upstream fixture.Parser): of one type whatever the version (SameVersionParser),
 * or, when `typeRef` is undefined, of the type named like the version (a bare typed.Parser).
 */
export class Parser {
  constructor(
    readonly schema: Schema,
    private readonly typeRef: TypeRef | undefined,
  ) {}

  /** A parser of the upstream schema YAML's type `typeName` (each version's own type when null), or the deduced type when `schemaYaml` is null. */
  static of(schemaYaml: string | null, typeName: string | null): Parser {
    if (schemaYaml === null) return new Parser(schemaFromDocument({ types: [] }), deducedTypeRef);
    return new Parser(schemaFromDocument(parse(schemaYaml) as { types: { name: string }[] }), typeName === null ? undefined : { namedType: typeName });
  }

  /** The type of objects in `version`. */
  typeFor(version: string): TypeRef {
    return this.typeRef ?? { namedType: version };
  }

  /** A validated typed value of `yaml` in `version` (FromYAML); `allowDuplicates` as for live objects. */
  fromYaml(yaml: string, version: string, allowDuplicates = false): TypedValue {
    const tv = new TypedValue(parseYaml(yaml), this.schema, this.typeFor(version));
    tv.validate({ allowDuplicates });
    return tv;
  }
}

/** Renames `x_<old>` keys to `x_<new>` at every depth (multiple_appliers_test.go renameFields). */
function renameFields(v: Value, oldSuffix: string, newSuffix: string): Value {
  if (Array.isArray(v)) return v.map((x) => renameFields(x, oldSuffix, newSuffix));
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k.endsWith(oldSuffix) ? k.slice(0, k.length - oldSuffix.length) + newSuffix : k, renameFields(x, oldSuffix, newSuffix)]));
}

/**
 * multiple_appliers_test.go's renamingConverter: each version is its own type, named like the
 * version, whose version-specific fields end in the version (`scalarField_v1` ↔ `scalarField_v2`).
 */
export function renamingConverter(parser: Parser): Converter {
  return {
    convert: (tv, version) => {
      const out = new TypedValue(renameFields(tv.value ?? null, tv.typeRef.namedType ?? '', version), parser.schema, parser.typeFor(version));
      out.validate();
      return out;
    },
    isMissingVersionError: () => false,
  };
}

/** A live object and who owns what (fixture.State). */
export class State {
  live: TypedValue | undefined;
  managers: ManagedFields = new Map();
  readonly updater: Updater;

  constructor(
    public parser: Parser,
    private readonly converter: Converter = identityConverter,
    options: UpdaterOptions = {},
  ) {
    this.updater = new Updater(converter, options);
  }

  /** The live object (empty at first) in `version` (upstream checkInit and the converter; the default converter only relabels the type). */
  liveIn(version: string): TypedValue {
    if (this.live === undefined) return new TypedValue(null, this.parser.schema, this.parser.typeFor(version));
    if (this.converter === identityConverter) return new TypedValue(this.live.value ?? null, this.parser.schema, this.parser.typeFor(version));
    return this.converter.convert(this.live, version);
  }

  update(yaml: string, version: string, manager: string): void {
    const tv = this.parser.fromYaml(yaml, version, true);
    const r = this.updater.update(this.liveIn(version), tv, version, this.managers, manager);
    this.live = r.object;
    this.managers = r.managers;
  }

  /**
   * Apply `yaml` over what `manager` owns today, extracted from the live object (ExtractApplyObject:
   * client-go's extract-modify-apply), with force.
   */
  extractApply(yaml: string, version: string, manager: string): void {
    const config = this.parser.fromYaml(yaml, version);
    if (this.live === undefined) {
      this.applyObject(config, version, manager, true);
      return;
    }
    const mine = this.managers.get(manager);
    if (mine !== undefined && mine.apiVersion !== version) throw new Error(`existing managed fieldpath set APIVersion (${mine.apiVersion}) differs from desired (${version}), unable to extract`);
    const extracted = this.liveIn(version).extractItems(mine?.set.leaves() ?? new FieldSet());
    this.applyObject(extracted.merge(config), version, manager, true);
  }

  apply(yaml: string, version: string, manager: string, force: boolean): void {
    this.applyObject(this.parser.fromYaml(yaml, version), version, manager, force);
  }

  private applyObject(tv: TypedValue, version: string, manager: string, force: boolean): void {
    const r = this.updater.apply(this.liveIn(version), tv, version, this.managers, manager, force);
    this.managers = r.managers;
    if (r.object !== undefined) this.live = r.object;
  }
}

/** A Go value of the converted test tables. */
export type GoData = string | number | boolean | null | GoCall | GoComposite | GoIdent | GoData[];
/** A variable of the Go test (the versions v1, v2, v3 of the version-combination tables). */
interface GoIdent {
  ident: string;
}
interface GoCall {
  call: string;
  args: GoData[];
}
interface GoComposite {
  type: string | null;
  fields?: Record<string, GoData>;
  items?: GoData[];
}

function isIdent(d: GoData): d is GoIdent {
  return typeof d === 'object' && d !== null && !Array.isArray(d) && 'ident' in d;
}

function isCall(d: GoData): d is GoCall {
  return typeof d === 'object' && d !== null && !Array.isArray(d) && 'call' in d;
}

function isComposite(d: GoData): d is GoComposite {
  return typeof d === 'object' && d !== null && !Array.isArray(d) && 'type' in d;
}

/** Interpret a Go expression of the tables: paths, sets, keys, values, versioned sets. */
export function evaluate(d: GoData, env: Record<string, string> = {}): unknown {
  if (isIdent(d)) {
    const v = env[d.ident];
    if (v === undefined) throw new Error(`unbound identifier ${d.ident}`);
    return v;
  }
  if (!isCall(d)) return d;
  const args = d.args.map((a) => evaluate(a, env));
  switch (d.call) {
    case 'typed.YAMLObject':
      return args[0];
    case 'fmt.Sprintf': {
      let i = 1;
      return String(args[0]).replace(/%[sv]/g, () => String(args[i++]));
    }
    case '_P':
    case 'fieldpath.MakePathOrDie':
      return makePath(...(args as PathPart[]));
    case '_NS':
    case 'fieldpath.NewSet':
      return FieldSet.of(...(args as Path[]));
    case '_KBF':
    case 'fieldpath.KeyByFields':
      return keyByFields(...(args as Value[]));
    case '_V':
      return { value: args[0] as Value };
    case 'fieldpath.NewExcludeSetFilter':
      return excludeSetFilter(args[0] as FieldSet);
    case 'fieldpath.NewVersionedSet':
      return { set: args[0] as FieldSet, apiVersion: args[1] as string, applied: args[2] as boolean };
    default:
      throw new Error(`unknown call ${d.call}`);
  }
}

export function fieldsOf(d: GoData | undefined): Record<string, GoData> {
  return d !== undefined && isComposite(d) ? (d.fields ?? {}) : {};
}

export function itemsOf(d: GoData | undefined): GoData[] {
  return d !== undefined && isComposite(d) ? (d.items ?? []) : [];
}

/** A string-valued expression (a literal, a version variable, a Sprintf). */
function strIn(env: Record<string, string>): (d: GoData | undefined) => string {
  return (d) => {
    const v = d === undefined ? '' : evaluate(d, env);
    return typeof v === 'string' ? v : '';
  };
}

function sameConflicts(got: readonly Conflict[], want: readonly Conflict[]): boolean {
  const key = (c: Conflict): string => `${c.manager}\u0000${FieldSet.of(c.path).toString()}`;
  const g = new Set(got.map(key));
  const w = new Set(want.map(key));
  return g.size === w.size && [...g].every((k) => w.has(k));
}

/** Run one converted upstream test case (TestCase.Test); throws an assertion error naming the failed step. */
export function runCase(parser: Parser, tc: GoData, converter?: Converter, env: Record<string, string> = {}, namedParsers: Record<string, string> = {}): void {
  const str = strIn(env);
  const fields = fieldsOf(tc);
  const perVersion = <T>(d: GoData | undefined): Map<string, T> | undefined => (d === undefined ? undefined : new Map(Object.entries(fieldsOf(d)).map(([v, x]) => [v, evaluate(x, env) as T])));
  const ignoreFilter = perVersion<FieldFilter>(fields.IgnoreFilter);
  const ignoredFields = perVersion<FieldSet>(fields.IgnoredFields);
  const state = new State(parser, converter, { ...(ignoreFilter !== undefined ? { ignoreFilter } : {}), ...(ignoredFields !== undefined ? { ignoredFields } : {}) });
  itemsOf(fields.Ops).forEach((op, i) => {
    if (!isComposite(op)) throw new Error(`operation ${i} is not a literal`);
    const f = op.fields ?? {};
    const manager = str(f.Manager);
    const version = str(f.APIVersion);
    const object = str(f.Object);
    switch (op.type) {
      case 'Apply': {
        const wanted = f.Conflicts === undefined ? undefined : itemsOf(f.Conflicts).map((c): Conflict => ({ manager: str(fieldsOf(c).Manager), path: evaluate(fieldsOf(c).Path ?? null, env) as Path }));
        try {
          state.apply(object, version, manager, false);
          if (wanted !== undefined && wanted.length > 0) assert.fail(`operation ${i}: expected conflicts, got none`);
        } catch (e) {
          if (!(e instanceof Conflicts) || wanted === undefined) throw e;
          assert.ok(sameConflicts(e.conflicts, wanted), `operation ${i}: conflicts\n${e.message}\nwanted\n${new Conflicts(wanted).message}`);
        }
        return;
      }
      case 'ForceApply':
        state.apply(object, version, manager, true);
        return;
      case 'ChangeParser': {
        // schema_change_test.go: the schema changes under the live object and its managers.
        const p = f.Parser;
        const name = typeof p === 'object' && p !== null && !Array.isArray(p) && 'ident' in p ? p.ident : '';
        const schema = namedParsers[name];
        if (schema === undefined) throw new Error(`unknown parser ${name}`);
        state.parser = Parser.of(schema, null);
        return;
      }
      case 'ExtractApply':
        state.extractApply(object, version, manager);
        return;
      case 'Update':
        state.update(object, version, manager);
        return;
      case null:
      default:
        throw new Error(`unsupported operation ${String(op.type)}`);
    }
  });
  const want = str(fields.Object);
  if (want !== '') {
    const version = str(fields.APIVersion);
    const expected = parser.fromYaml(want, version, true).value;
    assert.deepEqual(state.liveIn(version).value ?? null, expected, 'live object');
  }
  if (fields.Managed !== undefined) {
    const managed: ManagedFields = new Map(Object.entries(fieldsOf(fields.Managed)).map(([m, v]) => [m, evaluate(v, env) as { set: FieldSet; apiVersion: string; applied: boolean }]));
    const diff = managedFieldsDifference(state.managers, managed);
    assert.equal(diff.size, 0, `managers differ for ${[...diff.keys()].join(', ')}:\n${[...state.managers].map(([m, vs]) => `${m} (${vs.apiVersion}):\n${vs.set.toString()}`).join('\n')}`);
  }
  for (const [m, vs] of state.managers) assert.ok(!vs.set.empty(), `manager ${m} has an empty set`);
}

/** The JSON of one converted upstream test file. */
export interface PortedFile {
  source: string;
  tests: { function: string; schema: string | null; typeName: string | null; typePerVersion?: boolean; converter?: string; versionCombinations?: boolean; namedParsers?: Record<string, string>; expectError?: boolean; cases: Record<string, GoData> }[];
}
