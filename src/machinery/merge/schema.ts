/**
 * The schema model structured merges run on, after sigs.k8s.io/structured-merge-diff/v4
 * schema/elements.go (v4.6.0): named types resolve to atoms; an atom is a scalar, a list or a map
 * (a map with `fields` is a struct), or several of them for deduced types, where the value picks.
 *
 * - list `elementRelationship`: `atomic` (replaced whole) or `associative`: a set (no keys, items
 *   are scalars identified by value) or a map list (items identified by their `keys` fields);
 * - map `elementRelationship`: `separable` (granular: each field owned on its own, the default),
 *   `atomic` (replaced whole); struct fields have their own types, other keys use `elementType`.
 */
import type { Value } from '../fieldpath/index.js';

/** The kinds of scalar (schema.Scalar). */
export type ScalarType = 'numeric' | 'string' | 'boolean' | 'untyped';

/** How a list's items relate (schema.ElementRelationship; `separable` only applies to maps). */
export type ElementRelationship = 'atomic' | 'associative' | 'separable';

/** A reference to a type: a named type of the schema or an inline atom (schema.TypeRef). */
export interface TypeRef {
  readonly namedType?: string;
  readonly inlined?: Atom;
  /** Overrides the element relationship of the referenced list or map (schema.TypeRef.ElementRelationship), as a field's `+structType`/`+mapType` does. */
  readonly elementRelationship?: ElementRelationship;
}

/** A struct field (schema.StructField); `default` fills a missing list-map key field. */
export interface StructField {
  readonly name: string;
  readonly type: TypeRef;
  readonly default?: Value;
}

/** A list (schema.List). */
export interface ListAtom {
  readonly elementType: TypeRef;
  readonly elementRelationship: ElementRelationship;
  readonly keys?: readonly string[];
}

/** A map or struct (schema.Map). */
export interface MapAtom {
  readonly fields?: readonly StructField[];
  readonly elementType?: TypeRef;
  readonly elementRelationship?: ElementRelationship;
}

/** What a type is (schema.Atom); more than one member only for deduced types. */
export interface Atom {
  readonly scalar?: ScalarType;
  readonly list?: ListAtom;
  readonly map?: MapAtom;
}

/** The name of the deduced type: no schema; maps are granular, lists atomic, scalars anything (upstream `__untyped_deduced_`). */
export const DEDUCED_TYPE = '__untyped_deduced_';
/** The name of the untyped atomic type: anything, replaced whole (upstream `__untyped_atomic_`). */
export const UNTYPED_ATOMIC_TYPE = '__untyped_atomic_';

const deducedRef: TypeRef = { namedType: DEDUCED_TYPE };
const deducedAtom: Atom = { scalar: 'untyped', list: { elementType: { namedType: UNTYPED_ATOMIC_TYPE }, elementRelationship: 'atomic' }, map: { elementType: deducedRef, elementRelationship: 'separable' } };
const untypedAtomicAtom: Atom = { scalar: 'untyped', list: { elementType: { namedType: UNTYPED_ATOMIC_TYPE }, elementRelationship: 'atomic' }, map: { elementType: { namedType: UNTYPED_ATOMIC_TYPE }, elementRelationship: 'atomic' } };

/** Field lookup by name, built once per map atom: on the atom itself (every walk looks fields up), or beside it when the atom is frozen. */
const FIELD_INDEX = Symbol('fieldIndex');
const frozenFieldIndex = new WeakMap<MapAtom, Map<string, StructField>>();

/** The struct field `name` of a map atom (schema.Map.FindField). */
export function findField(m: MapAtom, name: string): StructField | undefined {
  const own = m as MapAtom & { [FIELD_INDEX]?: Map<string, StructField> };
  let idx = own[FIELD_INDEX] ?? frozenFieldIndex.get(m);
  if (idx === undefined) {
    idx = new Map((m.fields ?? []).map((f) => [f.name, f]));
    if (Object.isExtensible(m)) Object.defineProperty(m, FIELD_INDEX, { value: idx, enumerable: false });
    else frozenFieldIndex.set(m, idx);
  }
  return idx.get(name);
}

/** The type of key `name` in a map: its struct field's type, else the element type. */
export function mapFieldType(m: MapAtom, name: string): TypeRef | undefined {
  return findField(m, name)?.type ?? m.elementType;
}

/**
 * A set of named types (schema.Schema). `lookup` resolves a name not in `types` (the adapter from
 * our Go-type schema builds types on demand through it). The deduced and untyped-atomic types are
 * always there.
 */
export class Schema {
  private readonly types = new Map<string, Atom>();

  constructor(
    types: Iterable<readonly [string, Atom]> = [],
    private readonly lookup?: (name: string) => Atom | undefined,
  ) {
    for (const [name, atom] of types) this.types.set(name, atom);
  }

  /** The atom of a named type, undefined when unknown. */
  findNamedType(name: string): Atom | undefined {
    if (name === DEDUCED_TYPE) return deducedAtom;
    if (name === UNTYPED_ATOMIC_TYPE) return untypedAtomicAtom;
    let atom = this.types.get(name);
    if (atom === undefined && this.lookup !== undefined) {
      atom = this.lookup(name);
      if (atom !== undefined) this.types.set(name, atom);
    }
    return atom;
  }

  /** The atom a reference stands for, with the reference's element relationship override applied (Schema.Resolve). */
  resolve(tr: TypeRef): Atom | undefined {
    const atom = tr.namedType !== undefined ? this.findNamedType(tr.namedType) : tr.inlined;
    if (atom === undefined || tr.elementRelationship === undefined) return atom;
    return {
      ...(atom.scalar !== undefined ? { scalar: atom.scalar } : {}),
      ...(atom.list !== undefined ? { list: { ...atom.list, elementRelationship: tr.elementRelationship } } : {}),
      ...(atom.map !== undefined ? { map: { ...atom.map, elementRelationship: tr.elementRelationship } } : {}),
    };
  }
}

/** The deduced type reference (no schema). */
export const deducedTypeRef: TypeRef = deducedRef;

/** One type as upstream's schema YAML writes it (`name`, and `scalar`, `list` or `map`). */
interface YamlType {
  name: string;
  [k: string]: unknown;
}

/** Read a key case-insensitively, as sigs.k8s.io/yaml's JSON decoding does (upstream's tests spell `elementRelationShip`). */
function field(o: Record<string, unknown>, name: string): unknown {
  for (const [k, v] of Object.entries(o)) if (k.toLowerCase() === name.toLowerCase()) return v;
  return undefined;
}

function yamlTypeRef(o: unknown): TypeRef {
  const r = o as Record<string, unknown>;
  const named = field(r, 'namedType');
  const er = field(r, 'elementRelationship') as ElementRelationship | undefined;
  if (typeof named === 'string') return { namedType: named, ...(er !== undefined ? { elementRelationship: er } : {}) };
  return { inlined: yamlAtom(r), ...(er !== undefined ? { elementRelationship: er } : {}) };
}

function yamlAtom(r: Record<string, unknown>): Atom {
  const scalar = field(r, 'scalar') as ScalarType | undefined;
  const list = field(r, 'list') as Record<string, unknown> | undefined;
  const map = field(r, 'map') as Record<string, unknown> | undefined;
  const out: { scalar?: ScalarType; list?: ListAtom; map?: MapAtom } = {};
  if (scalar !== undefined) out.scalar = scalar;
  if (list !== undefined) {
    const keys = field(list, 'keys') as string[] | undefined;
    out.list = { elementType: yamlTypeRef(field(list, 'elementType')), elementRelationship: (field(list, 'elementRelationship') as ElementRelationship | undefined) ?? 'atomic', ...(keys !== undefined ? { keys } : {}) };
  }
  if (map !== undefined) {
    const fields = (field(map, 'fields') as Record<string, unknown>[] | undefined)?.map((f): StructField => {
      const def = field(f, 'default') as Value | undefined;
      return { name: field(f, 'name') as string, type: yamlTypeRef(field(f, 'type')), ...(def !== undefined ? { default: def } : {}) };
    });
    const et = field(map, 'elementType');
    const er = field(map, 'elementRelationship') as ElementRelationship | undefined;
    out.map = { ...(fields !== undefined ? { fields } : {}), ...(et !== undefined ? { elementType: yamlTypeRef(et) } : {}), ...(er !== undefined ? { elementRelationship: er } : {}) };
  }
  return out;
}

/**
 * A schema from upstream's schema document (`types: [{name, map: {fields: [...]}}, ...]`, the YAML
 * structured-merge-diff's tests and `smd` use), already parsed into plain data.
 */
export function schemaFromDocument(doc: { types: YamlType[] }): Schema {
  return new Schema(doc.types.map((t): [string, Atom] => [t.name, yamlAtom(t)]));
}
