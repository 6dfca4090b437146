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
import { FieldSet, keyByFields, makePath, managedFieldsDifference, type ManagedFields, type Path, type PathPart, type Value } from '../../fieldpath/index.js';
import { Conflicts, type Conflict } from '../conflict.js';
import { deducedTypeRef, schemaFromDocument, type Schema, type TypeRef } from '../schema.js';
import { TypedValue } from '../typed.js';
import { Updater } from '../update.js';

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

/** A live object and who owns what (fixture.State). */
export class State {
  live: TypedValue | undefined;
  managers: ManagedFields = new Map();
  readonly updater = new Updater();

  constructor(readonly parser: Parser) {}

  /** The live object (empty at first) in `version`: the fixture's converter only relabels the type. */
  private liveIn(version: string): TypedValue {
    return new TypedValue(this.live?.value ?? null, this.parser.schema, this.parser.typeFor(version));
  }

  update(yaml: string, version: string, manager: string): void {
    const tv = this.parser.fromYaml(yaml, version, true);
    const r = this.updater.update(this.liveIn(version), tv, version, this.managers, manager);
    this.live = r.object;
    this.managers = r.managers;
  }

  apply(yaml: string, version: string, manager: string, force: boolean): void {
    const tv = this.parser.fromYaml(yaml, version);
    const r = this.updater.apply(this.liveIn(version), tv, version, this.managers, manager, force);
    this.managers = r.managers;
    if (r.object !== undefined) this.live = r.object;
  }
}

/** A Go value of the converted test tables. */
export type GoData = string | number | boolean | null | GoCall | GoComposite | GoData[];
interface GoCall {
  call: string;
  args: GoData[];
}
interface GoComposite {
  type: string | null;
  fields?: Record<string, GoData>;
  items?: GoData[];
}

function isCall(d: GoData): d is GoCall {
  return typeof d === 'object' && d !== null && !Array.isArray(d) && 'call' in d;
}

function isComposite(d: GoData): d is GoComposite {
  return typeof d === 'object' && d !== null && !Array.isArray(d) && 'type' in d;
}

/** Interpret a Go expression of the tables: paths, sets, keys, values, versioned sets. */
export function evaluate(d: GoData): unknown {
  if (!isCall(d)) return d;
  const args = d.args.map(evaluate);
  switch (d.call) {
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

function str(d: GoData | undefined): string {
  return typeof d === 'string' ? d : '';
}

function sameConflicts(got: readonly Conflict[], want: readonly Conflict[]): boolean {
  const key = (c: Conflict): string => `${c.manager}\u0000${FieldSet.of(c.path).toString()}`;
  const g = new Set(got.map(key));
  const w = new Set(want.map(key));
  return g.size === w.size && [...g].every((k) => w.has(k));
}

/** Run one converted upstream test case (TestCase.Test); throws an assertion error naming the failed step. */
export function runCase(parser: Parser, tc: GoData): void {
  const fields = fieldsOf(tc);
  const state = new State(parser);
  itemsOf(fields.Ops).forEach((op, i) => {
    if (!isComposite(op)) throw new Error(`operation ${i} is not a literal`);
    const f = op.fields ?? {};
    const manager = str(f.Manager);
    const version = str(f.APIVersion);
    const object = str(f.Object);
    switch (op.type) {
      case 'Apply': {
        const wanted = f.Conflicts === undefined ? undefined : itemsOf(f.Conflicts).map((c): Conflict => ({ manager: str(fieldsOf(c).Manager), path: evaluate(fieldsOf(c).Path ?? null) as Path }));
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
    const expected = parser.fromYaml(want, str(fields.APIVersion), true).value;
    assert.deepEqual(state.live?.value ?? null, expected, 'live object');
  }
  if (fields.Managed !== undefined) {
    const managed: ManagedFields = new Map(Object.entries(fieldsOf(fields.Managed)).map(([m, v]) => [m, evaluate(v) as { set: FieldSet; apiVersion: string; applied: boolean }]));
    const diff = managedFieldsDifference(state.managers, managed);
    assert.equal(diff.size, 0, `managers differ for ${[...diff.keys()].join(', ')}:\n${[...state.managers].map(([m, vs]) => `${m} (${vs.apiVersion}):\n${vs.set.toString()}`).join('\n')}`);
  }
  for (const [m, vs] of state.managers) assert.ok(!vs.set.empty(), `manager ${m} has an empty set`);
}

/** The JSON of one converted upstream test file. */
export interface PortedFile {
  source: string;
  tests: { function: string; schema: string | null; typeName: string | null; typePerVersion?: boolean; expectError?: boolean; cases: Record<string, GoData> }[];
}
